"""Seeded tie-breaks: nothing a bot does may hang on seat order or on names.

Among equally good choices a bot draws: with its own seeded rng when the choice is its own, or by
a priority it shares with its mafia partners where they must agree without talking (classic's
silent shots). A shared priority is a random number per seat, seeded by the game seed, the
partners' seats and the moment, so every partner computes the same order and nothing anyone
else does moves it.

Scores within :data:`EPS` of each other count as equal: two partners add the same floats in a
different order (each folds the public record at its own pace), and a difference in the last bit
must not split them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence

#: scores closer than this are a tie
EPS = 1e-9
#: digits kept when a whole ranking is sorted (the same tolerance, for sort keys)
DIGITS = 9


def best(pool: Iterable[str], score: Callable[[str], float], rng: random.Random) -> str | None:
    """The highest-scoring name of ``pool``; a tie drawn with ``rng``."""
    tied = _tied(pool, score)
    if len(tied) <= 1:
        return tied[0] if tied else None
    return tied[rng.randrange(len(tied))]


def best_by(pool: Iterable[str], score: Callable[[str], float], priority: Mapping[str, float]) -> str | None:
    """The highest-scoring name of ``pool``; a tie goes to the lowest ``priority`` (a shared draw)."""
    tied = _tied(pool, score)
    if len(tied) <= 1:
        return tied[0] if tied else None
    return min(tied, key=priority.__getitem__)


def ranking(pool: Iterable[str], score: Callable[[str], float], priority: Mapping[str, float]) -> list[str]:
    """``pool`` from the highest score down, ties in ``priority`` order."""
    return sorted(pool, key=lambda n: (-round(score(n), DIGITS), priority[n]))


def draw(pool: Sequence[str], rng: random.Random) -> str | None:
    """Any one of ``pool``, uniformly."""
    return pool[rng.randrange(len(pool))] if pool else None


def priority(names: Iterable[str], rng: random.Random) -> dict[str, float]:
    """A random order of ``names`` as {name: rank key}."""
    return {n: rng.random() for n in names}


def shared_priority(seed: int, seats: Sequence[str], team: Iterable[str], moment: str) -> dict[str, float]:
    """The priority every member of ``team`` computes alike at ``moment``: seeded by the game seed
    and the team's seat positions (not their names: renaming the seats changes nothing)."""
    index = {n: i for i, n in enumerate(seats)}
    key = ",".join(str(i) for i in sorted(index[n] for n in team))
    return priority(seats, random.Random(f"team:{seed}:{key}:{moment}"))


def _tied(pool: Iterable[str], score: Callable[[str], float]) -> list[str]:
    tied: list[str] = []
    top = float("-inf")
    for name in pool:
        s = score(name)
        if s > top + EPS:
            top, tied = s, [name]
        elif s > top - EPS:
            tied.append(name)
    return tied
