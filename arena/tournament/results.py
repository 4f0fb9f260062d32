"""A tournament's finished games as the inference reads them: mirrored pairs and per-side values.

:class:`Results` holds the rows of the database (or of games played in memory) and answers two
questions the paired tests and the skill model ask:

- which games form **mirrored pairs** (same variant, size, round and pairing; one game with each
  model of the pairing on the mafia side / side A) — :meth:`Results.pairs`;
- what one model scored on one metric in a set of (game, side) slots — :meth:`Results.value`,
  pooled by the metric's kind exactly as the leaderboard's cells pool them.

Nothing here depends on the order rows were written: pairs are sorted by key, and a database
merged from parts, or filled in another order, gives the same pairs and values.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .db import Database, GameRecord
from .metrics import METRICS

#: The side that names a game's first model: the mafia in a team variant, side A in McKay's.
FIRST_SIDES = ("mafia", "A")
SECOND_SIDES = ("town", "B")


@dataclass(slots=True, frozen=True)
class Pair:
    """Two games on one deal with the models swapped: ``a`` < ``b`` by name; ``game_a`` is the game
    where ``a`` holds the mafia side (McKay: side A), ``game_b`` the one where ``b`` does."""

    variant: str
    players: int
    round: int
    a: str
    b: str
    game_a: str
    game_b: str

    @property
    def key(self) -> str:
        return f"{self.variant}/{self.players}/r{self.round}/{self.a}~{self.b}"

    @property
    def pairing(self) -> str:
        return f"{self.a}~{self.b}"


@dataclass(slots=True)
class Results:
    """Rows of ``games``, ``player_games`` and ``stats`` (see :mod:`.db`)."""

    games: list[dict[str, Any]]
    seats: list[dict[str, Any]]
    stats: list[dict[str, Any]]
    # (game, model, side, metric) -> [Σnum, Σden, seats]
    _sums: dict[tuple[str, str, str, str], list[float]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.games = sorted(self.games, key=lambda g: g["key"])
        side = {(p["game"], p["seat"]): (p["model"], p["side"]) for p in self.seats}
        for r in self.stats:
            model, s = side[(r["game"], r["seat"])]
            slot = self._sums.setdefault((r["game"], model, s, r["metric"]), [0.0, 0.0, 0.0])
            slot[0] += float(r["num"])
            slot[1] += float(r["den"])
            slot[2] += 1

    @classmethod
    def from_db(cls, db: Database) -> Results:
        return cls(
            [dict(g) for g in db.games()],
            [dict(p) for p in db.player_games()],
            [dict(s) for s in db.rows("SELECT game, seat, role, metric, num, den FROM stats")],
        )

    @classmethod
    def from_records(cls, records: Iterable[GameRecord]) -> Results:
        games, seats, stats = [], [], []
        for rec in records:
            games.append(dict(rec.game))
            seats.extend(dict(p) for p in rec.players)
            key = rec.game["key"]
            stats.extend(
                {"game": key, "seat": s.seat, "role": s.role, "metric": s.metric, "num": s.num, "den": s.den} for s in rec.stats
            )
        return cls(games, seats, stats)

    @property
    def models(self) -> list[str]:
        """The competing models (third parties excluded), sorted by name."""
        return sorted({g["first"] for g in self.games} | {g["second"] for g in self.games})

    @property
    def variants(self) -> list[str]:
        return sorted({g["variant"] for g in self.games})

    def pairs(self) -> list[Pair]:
        """Every complete mirrored pair, sorted by key (a game whose mirror is missing is left out)."""
        slots: dict[tuple[str, int, int, str, str], dict[str, str]] = {}
        for g in self.games:
            a, b = sorted((g["first"], g["second"]))
            slots.setdefault((g["variant"], int(g["players"]), int(g["round"]), a, b), {})[g["first"]] = g["key"]
        out = [
            Pair(v, n, r, a, b, both[a], both[b]) for (v, n, r, a, b), both in slots.items() if a in both and b in both and a != b
        ]
        return sorted(out, key=lambda p: p.key)

    def unpaired(self) -> int:
        """Games whose mirror is not in the results (yet)."""
        return len(self.games) - 2 * len(self.pairs())

    def value(self, model: str, metric: str, slots: Iterable[tuple[str, str]]) -> float:
        """``model``'s value of ``metric`` over (game, side) slots, pooled by the metric's kind
        (ratio: Σnum / Σden; per game: Σnum per slot; game mean: the mean of each slot's mean);
        NaN when the slots hold no such statistic."""
        kind = METRICS[metric].kind
        num = den = 0.0
        means: list[float] = []
        slots = list(slots)
        for game, side in slots:
            got = self._sums.get((game, model, side, metric))
            if got is None or got[1] <= 0:
                continue
            num += got[0]
            den += got[1]
            means.append(got[0] / got[1])
        if kind == "per_game":
            return num / len(slots) if den > 0 and slots else math.nan
        if kind == "game_mean":
            return sum(means) / len(means) if means else math.nan
        return num / den if den > 0 else math.nan

    def result(self, game: str, model: str, side: str) -> float:
        """The mean result (win 1, draw ½, loss 0) of ``model``'s seats on ``side`` of ``game``; NaN if none."""
        return self.value(model, "win", [(game, side)])


def side_slots(pair: Pair, side: str, mckay: bool) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The (game, side) slots of ``a`` and of ``b`` that a comparison on ``side`` reads.

    ``mafia``: each model's mafia seats (``a`` in ``game_a``, ``b`` in ``game_b``); ``town``: each
    model's town seats (``a`` in ``game_b``, ``b`` in ``game_a``); ``all``: both. McKay's games
    compare ``all`` only, over sides A and B.
    """
    first, second = ("A", "B") if mckay else ("mafia", "town")
    slots_a = {"mafia": [(pair.game_a, first)], "town": [(pair.game_b, second)]}
    slots_b = {"mafia": [(pair.game_b, first)], "town": [(pair.game_a, second)]}
    if side == "all":
        return slots_a["mafia"] + slots_a["town"], slots_b["mafia"] + slots_b["town"]
    return slots_a[side], slots_b[side]


def mafia_margin(results: Results, game: Mapping[str, Any]) -> float | None:
    """How the game's mafia-side model fared against its town-side model: (1 + r_mafia − r_town) / 2.

    1 when the mafia won, 0 when the town did; ½ for a draw, or when a third side (cove's maniac)
    won and both lost. ``None`` when a side has no seats (not a game of the design).
    """
    mafia = results.result(game["key"], game["first"], "mafia")
    town = results.result(game["key"], game["second"], "town")
    if math.isnan(mafia) or math.isnan(town):
        return None
    return (1.0 + mafia - town) / 2.0
