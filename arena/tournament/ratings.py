"""Skill ratings with openskill's Plackett-Luce model, overall (for reference beside the skill model).

Every game is a two-model match: each model's result is the mean of its seats' results (win 1,
draw ½, loss 0), the better result ranks first, equal results tie; a third party's seats (cove's
maniac) are not part of the match. Games are rated in a fixed order (round, then key), never in
the order they happened to finish, so the same database gives the same ratings.

There are no per-side ratings: a ``model@mafia`` entry only ever meets ``@town`` entries, so the
two sides would form unconnected comparison graphs and comparing two models as mafia would rest on
the prior. Deception and detection come from the skill model (:mod:`.skills`) instead.
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


def _ranks(results: Mapping[str, float]) -> list[int]:
    ordered = sorted(set(results.values()), reverse=True)
    return [ordered.index(v) + 1 for v in results.values()]


def rate_games(games: Iterable[Mapping[str, Any]], player_games: Iterable[Mapping[str, Any]]) -> Ratings:
    """Ratings from database rows (``games`` with key, round, first, second; ``player_games`` with
    game, model, result). Only the two models of each game's pairing are rated."""
    model = PlackettLuce()
    seats: dict[str, list[Mapping[str, Any]]] = {}
    for row in player_games:
        seats.setdefault(row["game"], []).append(row)
    current: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for game in sorted(games, key=lambda g: (g["round"], g["key"])):
        pairing = {game.get("first"), game.get("second")} - {None}
        by_model: dict[str, list[float]] = {}
        for row in seats.get(game["key"], []):
            if not pairing or row["model"] in pairing:
                by_model.setdefault(row["model"], []).append(float(row["result"]))
        results = {m: sum(v) / len(v) for m, v in by_model.items()}
        if len(results) < 2:
            continue
        names = list(results)
        teams = [[current.setdefault(n, model.rating(name=n))] for n in names]
        rated = model.rate(teams, ranks=_ranks(results))
        for n, team in zip(names, rated, strict=True):
            current[n] = team[0]
            counts[n] = counts.get(n, 0) + 1
    return Ratings({n: Rating(r.mu, r.sigma, counts[n]) for n, r in current.items()})
