"""Skill ratings with openskill's Plackett-Luce model: overall, and per side.

Every game is a two-model match: each model's result is the mean of its seats' results (win 1,
draw ½, loss 0), the better result ranks first, equal results tie. The overall rating of a model
is updated by every game it played; the side ratings (``model@mafia``, ``model@town``) by the team
games only, where one model held the mafia side and the other the town, so a model's deception
and detection skills are rated separately on one scale. Games are rated in a fixed order (round,
then key), never in the order they happened to finish, so the same database gives the same ratings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce


@dataclass(slots=True, frozen=True)
class Rating:
    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        """mu − 3σ: the conservative estimate tables are sorted by."""
        return self.mu - 3 * self.sigma


@dataclass(slots=True)
class Ratings:
    overall: dict[str, Rating]
    by_side: dict[tuple[str, str], Rating]


def _ranks(results: Mapping[str, float]) -> list[int]:
    ordered = sorted(set(results.values()), reverse=True)
    return [ordered.index(v) + 1 for v in results.values()]


def rate_games(games: Iterable[Mapping[str, Any]], player_games: Iterable[Mapping[str, Any]]) -> Ratings:
    """Ratings from database rows (``games`` with key, round; ``player_games`` with game, model, side, result)."""
    model = PlackettLuce()
    seats: dict[str, list[Mapping[str, Any]]] = {}
    for row in player_games:
        seats.setdefault(row["game"], []).append(row)
    current: dict[str, Any] = {}
    counts: dict[str, int] = {}

    def update(table: dict[str, Any], results: dict[str, float]) -> None:
        if len(results) < 2:
            return
        names = list(results)
        teams = [[table.setdefault(n, model.rating(name=n))] for n in names]
        rated = model.rate(teams, ranks=_ranks(results))
        for n, team in zip(names, rated, strict=True):
            table[n] = team[0]
            counts[n] = counts.get(n, 0) + 1

    for game in sorted(games, key=lambda g: (g["round"], g["key"])):
        rows = seats.get(game["key"], [])
        by_model: dict[str, list[float]] = {}
        sides: dict[str, set[str]] = {}
        for row in rows:
            by_model.setdefault(row["model"], []).append(float(row["result"]))
            sides.setdefault(row["model"], set()).add(row["side"])
        results = {m: sum(v) / len(v) for m, v in by_model.items()}
        update(current, results)
        if all(len(s) == 1 and next(iter(s)) in ("mafia", "town") for s in sides.values()):
            update(current, {f"{m}@{next(iter(sides[m]))}": r for m, r in results.items()})
    overall = {n: Rating(r.mu, r.sigma, counts[n]) for n, r in current.items() if "@" not in n}
    by_side = {(n.split("@")[0], n.split("@")[1]): Rating(r.mu, r.sigma, counts[n]) for n, r in current.items() if "@" in n}
    return Ratings(overall, by_side)
