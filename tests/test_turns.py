"""Every seat gets its turns (issue 25.2): who speaks before the day's execution.

A day's talk often ends with the first accusation's execution, so the seats that open the day
speak and the last ones may not. With the seeded opener (``speaking_order = "seeded"``, a living
seat drawn per day from the seed) every seat is equally likely to open, so over many games the
share of its living days on which a seat made a discussion speech before the day's first death
is the same for every seat.

The check is a chi-square test of homogeneity on the seats' (spoke, did not speak) counts over
300 seeded all-bot games. Its error rate on fair data is its level, ALPHA = 0.001 (days of one
game are not independent, which the test ignores; the seeded tables used here pass with p far
above it); its power is shown on the truth it is for: the old fixed rotation (day 1 opens at the
first seat) is flagged at p < 1e-6 on the same games.
"""

from __future__ import annotations

from collections import Counter

import pytest

from arena.engine import Game
from arena.players.registry import make_player
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import run_sync
from arena.variants import get_variant
from tests.bot_stats import chi2_sf

GAMES = 300
ALPHA = 0.001
TABLES = {"classic": 9, "village": 9, "cove": 10}


def spoke_before_the_first_death(game: Game) -> tuple[Counter[str], Counter[str]]:
    """Per seat: days alive at the day's start, and days it made a discussion speech before the
    day's first death (an execution, a vote-out or the lot) or the night."""
    alive_days: Counter[str] = Counter()
    spoke: Counter[str] = Counter()
    open_day: set[str] | None = None
    for e in game.log:
        if e.type == "day":
            open_day = set()
            alive_days.update(e.data["alive"])
        elif open_day is None:
            continue
        elif e.type == "speech" and e.data.get("kind") == "discussion":
            open_day.add(e.actor)
        elif e.type in ("death", "night"):
            spoke.update(open_day)
            open_day = None
    if open_day is not None:
        spoke.update(open_day)
    return alive_days, spoke


def shares(variant: str, order: str, games: int = GAMES) -> tuple[list[str], Counter[str], Counter[str]]:
    seats = list(DEFAULT_NAMES[: TABLES[variant]])
    alive_days: Counter[str] = Counter()
    spoke: Counter[str] = Counter()
    for seed in range(games):
        game = get_variant(variant)(seats, {"speaking_order": order}, seed)
        run_sync(game, {p: make_player("bot", p, seed) for p in seats})
        a, s = spoke_before_the_first_death(game)
        alive_days.update(a)
        spoke.update(s)
    return seats, alive_days, spoke


def homogeneity_p(seats: list[str], alive_days: Counter[str], spoke: Counter[str]) -> float:
    """Chi-square p-value that every seat spoke on the same share of its living days."""
    total_days = sum(alive_days[s] for s in seats)
    rate = sum(spoke[s] for s in seats) / total_days
    stat = 0.0
    for s in seats:
        n = alive_days[s]
        for observed, expected in ((spoke[s], n * rate), (n - spoke[s], n * (1 - rate))):
            if expected > 0:  # a share of 0 or 1 everywhere (cove: all speak, then vote) is uniform
                stat += (observed - expected) ** 2 / expected
    return chi2_sf(stat, len(seats) - 1)


@pytest.mark.parametrize("variant", sorted(TABLES))
def test_every_seat_speaks_before_the_execution_equally_often(variant: str) -> None:
    seats, alive_days, spoke = shares(variant, "seeded")
    assert all(alive_days[s] > 0.9 * GAMES for s in seats)
    p = homogeneity_p(seats, alive_days, spoke)
    figures = ", ".join(f"{s} {spoke[s] / alive_days[s]:.2f}" for s in seats)
    assert p > ALPHA, f"{variant}: seats do not speak equally often before the execution (p = {p:.2g}): {figures}"
    assert min(spoke[s] for s in seats) > 0


def test_the_fixed_rotation_is_flagged() -> None:
    """Power: the old order (day 1 opens at the first seat) favours the first seats."""
    seats, alive_days, spoke = shares("classic", "rotate")
    assert homogeneity_p(seats, alive_days, spoke) < 1e-6


def test_the_opener_is_drawn_from_the_seed_among_the_living() -> None:
    seats = list(DEFAULT_NAMES[:9])
    openers = []
    for seed in range(40):
        game = get_variant("classic")(seats, None, seed)
        assert game.phase == "first_night" or game.day >= 0
        game.day = 1
        openers.append(game.day_opener(None))
        assert game.day_opener(None) == openers[-1]  # the same seed and day: the same opener
    assert len(set(openers)) >= 6
