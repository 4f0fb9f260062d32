"""The belief probe: once per day, every living seat says how likely each other player is mafia.

An orchestrator observer, not an engine action, so the game is the same with or without it:
at each ``day`` event it asks each living seat's player — a model seat through
:func:`arena.players.llm.beliefs.belief_question` (a snapshot of its prompt, sent concurrently
while the game goes on), a bot from its own suspicion model, rebuilt on a copy of the log — and
keeps the answers as :class:`~arena.tournament.metrics.Belief` records for the database.
``random`` seats are not asked. McKay's games have hands, not days, and are not probed.

A resumed game (:mod:`arena.run.resume`) rebuilds its probe with the game: while ``recorded`` is
set, a model seat is not asked but its recorded answer for that day (the transcript's
``belief_call``) is kept, and a bot answers from the log as it stood then. A question the cut left
without an answer (its call failed in the outage that stopped the game, or was still in flight and
left no record) is snapshotted there, as it would have been sent, and asked once the game goes on
live; one that failed or was answered unusably before the outage stays as it was.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Mapping, Sequence
from typing import Any

from arena.engine import Event, Game, View
from arena.players.base import SyncPlayer

from .metrics import Belief


def bot_beliefs(name: str, view: View, seats: Sequence[str], candidates: Sequence[str], prior: float) -> dict[str, float]:
    """A bot's answer: its suspicion of each candidate through a logistic around the base rate
    (:func:`arena.players.bot.player.suspicion_beliefs`, at full strength whatever the bot's level).
    A mafia bot knows its partners (1) and everyone else (0)."""
    from arena.players.bot.player import suspicion_beliefs

    return suspicion_beliefs(name, view, seats, candidates, prior)


def detached_log(log: Sequence[Event]) -> list[Event]:
    """The events as new objects: readers of the copy share nothing with the players of the game."""
    return [copy.copy(e) for e in log]


class BeliefProbe:
    """Pass in ``observers``; after the game, ``await probe.wait()`` and read ``probe.records``."""

    def __init__(self, game: Game, players: Mapping[str, Any]) -> None:
        self.players = players
        self.records: list[Belief] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.seen = 0
        #: while a resumed game is rebuilt: (seat, day) -> a model seat's recorded answer (not asked again)
        self.recorded: dict[tuple[str, int], dict[str, float]] | None = None
        #: while rebuilding: (seat, day) whose question is kept as it was (answered, or failed before the cut)
        self.settled: set[tuple[str, int]] = set()
        self.deferred: list[tuple[str, int, Any]] = []  # questions of the rebuild asked once the game is live
        mafia = sum(1 for s in game.seats if game.team(s) != "town")
        self.prior = mafia / max(len(game.seats) - 1, 1)

    def __call__(self, game: Game) -> None:
        if self.recorded is None and self.deferred:  # live again: the questions the cut left unanswered
            loop = asyncio.get_running_loop()
            for seat, day, question in self.deferred:
                self.tasks.append(loop.create_task(self._ask(seat, day, question)))
            self.deferred.clear()
        log = game.log
        for event in log[self.seen :]:
            if event.type == "day":
                alive = event.data.get("alive") or list(game.alive)
                self._probe(game, event.day, list(alive))
        self.seen = len(log)

    def _probe(self, game: Game, day: int, alive: list[str]) -> None:
        log: list[Event] | None = None
        for seat in alive:
            player = self.players.get(seat)
            candidates = [c for c in alive if c != seat]
            if player is None or not candidates:
                continue
            if getattr(player, "spec", None) == "bot":
                log = log if log is not None else detached_log(game.log)
                view = View(seat, game.role_of[seat], log)
                answer = bot_beliefs(seat, view, game.seats, candidates, self.prior)
                self._keep(seat, day, answer)
            elif isinstance(player, SyncPlayer) or not hasattr(player, "conversation"):
                continue
            elif self.recorded is not None:
                answer = self.recorded.get((seat, day))
                if answer:
                    self._keep(seat, day, answer)
                elif (seat, day) not in self.settled:  # the cut took its answer: asked when live, as it was then
                    self.deferred.append((seat, day, self._question(player, game, seat, candidates, day)))
            else:
                question = self._question(player, game, seat, candidates, day)
                self.tasks.append(asyncio.get_running_loop().create_task(self._ask(seat, day, question)))

    @staticmethod
    def _question(player: Any, game: Game, seat: str, candidates: list[str], day: int) -> Any:
        from arena.players.llm.beliefs import belief_question

        return belief_question(
            player, game.view(seat), game.seats, candidates, day=day, table=game.table, repertoire=game.repertoire_of(seat)
        )

    async def _ask(self, seat: str, day: int, question: Any) -> None:
        answer = await question.ask()
        if answer:
            self._keep(seat, day, answer)

    def _keep(self, seat: str, day: int, answer: Mapping[str, float]) -> None:
        self.records.extend(Belief(seat, day, target, float(p)) for target, p in answer.items())

    def replaying(self, calls: Sequence[Mapping[str, Any]]) -> None:
        """Rebuild mode for a resumed game: model seats' answers come from these ``call`` records.

        A question whose call failed in the run of failed calls the record ends with (the outage
        that stopped the game), or that left no record (cut in flight), is not settled: the rebuild
        snapshots it and it is asked when the game goes on (see the module docstring).
        """
        self.recorded, self.settled, self.deferred = {}, set(), []
        outage = len(calls)
        while outage and (calls[outage - 1].get("call") or {}).get("outcome") == "transport_failed":
            outage -= 1
        for index, entry in enumerate(calls):
            call = entry.get("call")
            if not isinstance(call, Mapping) or call.get("type") != "belief_call":
                continue
            key = str(entry.get("player")), int(call.get("day") or 0)
            if isinstance(call.get("beliefs"), Mapping) and call["beliefs"]:
                self.recorded[key] = dict(call["beliefs"])
            if index < outage:
                self.settled.add(key)

    async def wait(self) -> None:
        """Let every question still in flight finish (a failed one is simply not recorded)."""
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)
