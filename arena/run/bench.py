"""Throughput: play many games in one process, no transcript, no printing, and time them.

The figure covers everything a game costs (building the game and its players, every decision,
every event), so that engine and bot changes can be compared with ``arena bench``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from arena.engine import Game, GameOptions
from arena.players.registry import make_player
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import play


@dataclass(slots=True)
class BenchResult:
    variant: str
    games: int
    players: int
    seats: str
    seconds: float
    decisions: int
    events: int
    winners: dict[str, int]

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def lines(self) -> list[str]:
        n = self.games
        wins = ", ".join(f"{side} {count}" for side, count in sorted(self.winners.items()))
        return [
            f"{self.variant}: {n} games, {self.players} {self.seats} seats, {self.seconds:.3f} s",
            f"{self.games_per_second:.1f} games/s",
            f"mean per game: {self.decisions / n:.1f} decisions, {self.events / n:.1f} events",
            f"winners: {wins}",
        ]


def bench(
    variant: type[Game],
    games: int,
    *,
    players: int | None = None,
    seats: str = "random",
    options: GameOptions | None = None,
    first_seed: int = 0,
) -> BenchResult:
    """Play ``games`` games with seeds ``first_seed``, ``first_seed + 1``, … and time them all."""
    count = players or variant.default_players
    names = DEFAULT_NAMES[:count]
    decisions = events = 0
    seconds = 0.0
    winners: dict[str, int] = {}
    for seed in range(first_seed, first_seed + games):
        start = time.perf_counter()
        game = variant(names, options, seed)
        play(game, {name: make_player(seats, name, seed) for name in names})
        seconds += time.perf_counter() - start  # the tallies below are not part of a game's cost
        events += len(game.log)
        decisions += sum(1 for e in game.log if e.type in ("action", "forfeit"))
        side = str(game.winner)
        winners[side] = winners.get(side, 0) + 1
    return BenchResult(variant.name, games, count, seats, seconds, decisions, events, winners)
