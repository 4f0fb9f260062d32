"""Seeded tie-breaks: nothing a bot does may hang on seat order or on names.

Among equally good choices a bot draws with its own seeded rng. Nothing is shared in secret with
mafia partners: where they must agree without talking (classic's silent shots) they follow a
public convention (:mod:`arena.players.convention`) that a person or a model on the team can
follow as well.

Scores within :data:`EPS` of each other count as equal: two bots add the same floats in a
different order (each folds the public record at its own pace), and a difference in the last bit
must not split them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence

#: scores closer than this are a tie
EPS = 1e-9
#: scores are sorted as whole multiples of 1 / SCALE (the same tolerance, for sort keys; an
#: integer ``round`` is much cheaper than ``round(x, 9)``)
SCALE = 1e9


def best(pool: Iterable[str], score: Callable[[str], float], rng: random.Random) -> str | None:
    """The highest-scoring name of ``pool``; a tie drawn with ``rng``."""
    tied = _tied(pool, score)
    if len(tied) <= 1:
        return tied[0] if tied else None
    return tied[rng.randrange(len(tied))]


def ranking(pool: Iterable[str], score: Callable[[str], float], priority: Mapping[str, float]) -> list[str]:
    """``pool`` from the highest score down, ties in ``priority`` order."""
    return sorted(pool, key=lambda n: (-round(score(n) * SCALE), priority[n]))


def draw(pool: Sequence[str], rng: random.Random) -> str | None:
    """Any one of ``pool``, uniformly."""
    return pool[rng.randrange(len(pool))] if pool else None


def priority(names: Iterable[str], rng: random.Random) -> dict[str, float]:
    """A random order of ``names`` as {name: rank key}."""
    return {n: rng.random() for n in names}


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
