"""A non-bot mafia partner for the tests and ``benchmarks/bot_partners.py`` (issue 25.1).

The **follower** shoots by the convention every mafia seat is told
(:data:`arena.players.convention.CONVENTION`), read off its own view the way a person or a model
reading that sentence would. It is written here from the words, not from the bots' code (nor
:mod:`arena.players.convention`), so that a gap between what the seats are told and what the
bots do shows up as shots that miss.
"""

from __future__ import annotations

import random

from arena.engine import ActionBase, DecisionRequest, View
from arena.engine.actions import Kill
from arena.players.base import SyncPlayer
from arena.players.registry import make_player


def told_convention(view: View, alive: tuple[str, ...]) -> str | None:
    """The shot the convention names, read off one mafia seat's view like a person would."""
    team: set[str] = set()
    said: list[tuple[str, str]] = []
    spoke: list[list[str]] = []
    for e in view.events:
        if e.type == "team" and e.to is not None:
            team = set(e.data.get("members", ()))
        elif e.type == "accusation" and e.to is None:
            said.append((e.actor, e.data["accused"]))
        elif e.type == "day":
            spoke.append([])
        elif e.type == "speech" and e.to is None and spoke:
            spoke[-1].append(e.actor)
    team.add(view.player)
    anyone = None
    for accuser, accused in reversed(said):
        if accused in team or accused not in alive:
            continue
        if accuser in team:
            return accused
        anyone = anyone or accused
    for day in reversed(spoke):
        anyone = anyone or next((n for n in day if n in alive and n not in team), None)
    return anyone


class Follower(SyncPlayer):
    """A mafia seat that shoots by the told convention; its day is a bot's or random."""

    spec = "follower"

    def __init__(self, name: str, seed: int, day: str) -> None:
        super().__init__(name)
        self.day_player = make_player(day, name, seed)
        self.rng = random.Random(f"follower:{seed}:{name}")

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> ActionBase | None:
        if request.group == "night_kill" and request.option("kill") is not None:
            pool = request.option("kill").fields["target"].choices
            target = told_convention(view, request.alive)
            if target not in pool:  # nobody accused yet: the words give no lead; a guess
                target = self.rng.choice([n for n in pool if n != self.name])
            self.day_player.decide_now(request, view, feedback)  # keeps a bot's memory in step
            return Kill(target=target)
        return self.day_player.decide_now(request, view, feedback)
