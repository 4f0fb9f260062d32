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

import hashlib
import random
import struct
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


def best_by(pool: Iterable[str], score: Callable[[str], float], priority: Mapping[str, float]) -> str | None:
    """The highest-scoring name of ``pool``; a tie goes to the lowest ``priority`` (a shared draw)."""
    tied = _tied(pool, score)
    if len(tied) <= 1:
        return tied[0] if tied else None
    return min(tied, key=priority.__getitem__)


def ranking(pool: Iterable[str], score: Callable[[str], float], priority: Mapping[str, float]) -> list[str]:
    """``pool`` from the highest score down, ties in ``priority`` order."""
    return sorted(pool, key=lambda n: (-round(score(n) * SCALE), priority[n]))


def draw(pool: Sequence[str], rng: random.Random) -> str | None:
    """Any one of ``pool``, uniformly."""
    return pool[rng.randrange(len(pool))] if pool else None


def priority(names: Iterable[str], rng: random.Random) -> dict[str, float]:
    """A random order of ``names`` as {name: rank key}."""
    return {n: rng.random() for n in names}


def shared_priority(seed: int, seats: Sequence[str], team: Iterable[str], moment: str) -> dict[str, int]:
    """The priority every member of ``team`` computes alike at ``moment``: drawn from the game
    seed and the team's seat positions (not their names: renaming the seats changes nothing).
    A hash, not a seeded ``Random``: seeding one costs more than a whole vote."""
    key = f"team:{seed}:{','.join(map(str, sorted(map(seats.index, team))))}:{moment}"
    found = _SHARED.get(key)
    if found is None or found[0] != seats:
        if len(_SHARED) > 256:
            _SHARED.clear()
        digest = b"".join(hashlib.blake2b(f"{key}:{block}".encode()).digest() for block in range(len(seats) // 16 + 1))
        draws = struct.unpack_from(f">{len(seats)}I", digest)  # the digest as big-endian 4-byte numbers
        found = _SHARED[key] = (tuple(seats), dict(zip(seats, draws, strict=True)))
    return found[1]


#: shared priorities already drawn (partners ask for the same one): key -> (seats, priority)
_SHARED: dict[str, tuple[tuple[str, ...], dict[str, int]]] = {}


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
