"""Balance: how often the town wins a variant at each table size, with bots in every seat.

Games are split in chunks and played in parallel processes (``multiprocessing``), or as Ray tasks
on a cluster (``--ray``, :class:`~.distributed.RayChunks`), each chunk on the orchestrator's
synchronous fast path with no transcript. Game *i* of a size has seed ``seed + i``, so a run is
reproducible, whatever the processes or machines, and adding games only adds seeds. The interval
is the Wilson score interval at 95%, which stays inside [0, 1] even for rare outcomes.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.engine import Game, GameOptions
from arena.run.config import DEFAULT_NAMES

Z95 = 1.959963984540054


class BalanceError(ValueError):
    """Bad sizes or a variant without a town side (one line)."""


def parse_sizes(text: str | None, cls: type[Game]) -> list[int]:
    """``7-14``, ``9`` or ``7,9,11`` (default: the variant's default size), checked against the variant."""
    if text is None:
        return [cls.default_players]
    sizes: list[int] = []
    try:
        for part in text.split(","):
            low, sep, high = part.strip().partition("-")
            first, last = int(low), int(high) if sep else int(low)
            if last < first:
                raise BalanceError(f"--players {text}: {first}-{last} is an empty range")
            sizes.extend(range(first, last + 1))
    except ValueError as exc:
        if isinstance(exc, BalanceError):
            raise
        raise BalanceError(f"--players {text!r}: use a size (9), a range (7-14) or a list (7,9,11)") from None
    for n in sizes:
        if not cls.min_players <= n <= cls.max_players:
            raise BalanceError(f"{cls.name} takes {cls.min_players}-{cls.max_players} players, not {n}")
    return sorted(dict.fromkeys(sizes))


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of k successes in n trials."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _play_chunk(job: Chunk) -> tuple[int, Counter[str], float]:
    """Worker: play games ``first .. first + count - 1`` of one size; returns (size, winners, CPU seconds)."""
    from arena.players.registry import make_player
    from arena.run.orchestrator import run_sync
    from arena.variants import get_variant

    variant, size, options, seats, first, count = job
    cls = get_variant(variant)
    opts = cls.Options.model_validate(options)
    names = list(DEFAULT_NAMES[:size])
    winners: Counter[str] = Counter()
    cpu = time.process_time()
    for seed in range(first, first + count):
        game = cls(names, opts, seed)
        run_sync(game, {n: make_player(seats, n, seed) for n in names})
        winners[str(game.winner)] += 1
    return size, winners, time.process_time() - cpu


Chunk = tuple[str, int, dict[str, Any], str, int, int]  # variant, size, options, seats, first seed, games


class ChunkRunner(Protocol):
    """Plays chunks somewhere else (a Ray cluster: :class:`~.distributed.RayChunks`)."""

    def workers(self) -> int:
        """Chunks it can play at once (the cluster's CPUs)."""
        ...

    def describe(self) -> str:
        """One line: where, and its start-up cost."""
        ...

    def map_unordered(self, fn: Callable[[Chunk], Any], jobs: Sequence[Chunk], in_flight: int) -> Iterator[Any]: ...


@dataclass(slots=True)
class BalanceResult:
    variant: str
    games: int
    seats: str
    workers: int
    seconds: float
    cpu: float = 0.0  # CPU seconds spent in the workers (the wall time also shows other load)
    winners: dict[int, Counter[str]] = field(default_factory=dict)
    where: str = ""  # a cluster run: where, and its start-up cost (not counted in ``seconds``)

    def lines(self) -> list[str]:
        sides = sorted({w for c in self.winners.values() for w in c} - {"town"})
        head = f"{'players':>7}  {'town wins':>9}  {'town win rate [95% CI]':<26}" + "".join(f"  {s:>8}" for s in sides)
        how = f"{self.workers} Ray tasks at once" if self.where else f"{self.workers} processes"
        out = [f"{self.variant}: {self.games} {self.seats} games per size, {how}", *([self.where] if self.where else []), head]
        for size, c in sorted(self.winners.items()):
            n = sum(c.values())
            k = c.get("town", 0)
            lo, hi = wilson(k, n)
            rate = f"{k / n:.3f} [{lo:.3f}, {hi:.3f}]"
            out.append(f"{size:>7}  {k:>9}  {rate:<26}" + "".join(f"  {c.get(s, 0):>8}" for s in sides))
        total = self.games * len(self.winners)
        out.append(
            f"{total} games in {self.seconds:.1f} s ({total / self.seconds:.0f} games/s; {self.cpu:.1f} s of CPU in the workers)"
        )
        return out


def balance(
    cls: type[Game],
    sizes: list[int],
    games: int,
    *,
    options: GameOptions | None = None,
    seats: str = "bot",
    workers: int | None = None,
    seed: int = 0,
    remote: ChunkRunner | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> BalanceResult:
    """Play ``games`` games at every size in ``sizes`` in ``workers`` processes (default: all cores),
    or ``workers`` chunks at once on ``remote`` (default: all its CPUs); ``progress(done, planned)``
    after each chunk."""
    from .design import deals_per_hand

    if deals_per_hand(cls) or "town" not in cls.team_of.values():
        raise BalanceError(f"{cls.name} has no town side to balance (its winner is a seat)")
    if games < 1:
        raise BalanceError("--games must be at least 1")
    if workers is not None and workers < 1:
        raise BalanceError("--workers must be at least 1")
    workers = max(1, workers or (remote.workers() if remote is not None else os.cpu_count()) or 1)
    opts = (options or cls.Options()).model_dump(mode="json")
    chunk = max(1, min(250, math.ceil(games / (workers * 4))))
    jobs = [
        (cls.name, size, opts, seats, seed + start, min(chunk, games - start))
        for size in sizes
        for start in range(0, games, chunk)
    ]
    result = BalanceResult(cls.name, games, seats, workers, 0.0, 0.0, {size: Counter() for size in sizes})
    if remote is not None:
        result.where = remote.describe()
    planned, done = games * len(sizes), 0
    report = progress or (lambda done, planned: None)
    report(0, planned)
    started = time.perf_counter()

    def add(outcomes: Iterator[tuple[int, Counter[str], float]]) -> None:
        nonlocal done
        for size, winners, cpu in outcomes:
            result.winners[size].update(winners)
            result.cpu += cpu
            done += sum(winners.values())
            report(done, planned)

    if remote is not None:
        add(remote.map_unordered(_play_chunk, jobs, workers))
    elif workers == 1:
        add(map(_play_chunk, jobs))
    else:
        with multiprocessing.get_context().Pool(workers) as pool:
            add(pool.imap_unordered(_play_chunk, jobs))
    result.seconds = time.perf_counter() - started
    return result
