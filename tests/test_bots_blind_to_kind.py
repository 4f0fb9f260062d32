"""Bots never read what kind of player a seat is (issue 30.8).

A bot sees only its view and its requests; nothing in either says whether a seat is a bot, a
person, a model or a script. Proved by replay: an all-bot game is played, then played again with
one seat taken over by a non-bot that makes exactly the moves that seat made (a
:class:`~arena.players.scripted.ScriptedPlayer`, and an asynchronous stand-in for a person or a
model, which puts the game on the event loop). The bots must answer move for move as before:
the two logs are the same event for event, in every variant, whichever seat is replaced.

The benchmark ``benchmarks/same_move.py`` shows the same from the other side: a scripted
non-bot seat and a bot seat making the same peaceful first move in ``trio`` (declaring cop, then
its card on no_kill) draw the same answer from the bots on the same seeds.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from arena.engine import ActionBase, DecisionRequest, Game, View
from arena.players.registry import make_player
from arena.players.scripted import ScriptedPlayer
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import play, run_sync
from arena.variants import get_variant

TABLES = {"classic": 9, "village": 9, "cove": 10, "duel": 2, "duel3": 3, "trio": 3}
OPTIONS = {"duel": {"hands": 2}, "duel3": {"hands": 2}, "trio": {"hands": 2}}


def new_game(variant: str, seed: int) -> Game:
    return get_variant(variant)(list(DEFAULT_NAMES[: TABLES[variant]]), OPTIONS.get(variant), seed)


def record(game: Game) -> list[tuple]:
    """The log as data (an action's thought included: it is what the bot weighed)."""
    return [(e.type, e.actor, e.to, e.phase, repr(sorted(e.data.items()))) for e in game.log]


def moves_of(game: Game, seat: str) -> list[ActionBase]:
    return [e.data["action"] for e in game.log if e.type == "action" and e.actor == seat]


class Echo:
    """An asynchronous non-bot seat (the shape of a person's or a model's player) that answers
    with a fixed list of moves."""

    def __init__(self, name: str, moves: list[ActionBase]) -> None:
        self.name = name
        self.moves = list(moves)

    async def decide(self, request: DecisionRequest, view: View, feedback: str | None) -> ActionBase:
        await asyncio.sleep(0)
        return self.moves.pop(0)


@pytest.mark.parametrize("variant", sorted(TABLES))
def test_a_non_bot_making_a_bots_moves_draws_the_same_game(variant: str) -> None:
    compared = 0
    for seed in range(6):
        bots = new_game(variant, seed)
        run_sync(bots, {p: make_player("bot", p, seed) for p in bots.seats})
        if any(e.type in ("rejected", "forfeit") for e in bots.log):
            continue  # a replayed rejection would need the rejected answer too
        seat = random.Random(f"kind:{seed}").choice(bots.seats)
        moves = moves_of(bots, seat)
        for stand_in in (ScriptedPlayer(seat, moves), Echo(seat, moves)):
            game = new_game(variant, seed)
            players = {p: make_player("bot", p, seed) for p in game.seats}
            players[seat] = stand_in
            play(game, players)
            assert record(game) == record(bots), f"{variant} seed {seed}: {type(stand_in).__name__} at {seat}"
        compared += 1
    assert compared >= 4
