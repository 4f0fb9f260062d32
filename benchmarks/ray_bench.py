"""How much faster does ``arena balance --ray`` get with a second worker? And what does Ray cost to start?

Starts one local Ray instance and warms two workers (both timed and printed apart), then plays the same balance
run — ``classic``, sizes 7-14, ``--games`` per size — with 1 and with 2 Ray tasks at once,
alternating, ``--repeats`` times each, and prints games/s per run, the CPU seconds the workers
spent, the load average before and after each run (other work on the machine slows a run; a
figure is only comparable at a similar load), the best and median speed-up. The aim on a 2-core
machine is 2 workers ≥ 1.6 × 1 worker.

    python benchmarks/ray_bench.py                       # 10000 games per size, 2 repeats
    python benchmarks/ray_bench.py --games 2000 --repeats 3
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

AIM = 1.6


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10000, help="games per size (default 10000)")
    parser.add_argument("--players", default="7-14", help="sizes (default 7-14)")
    parser.add_argument("--repeats", type=int, default=2, help="runs per worker count (default 2)")
    args = parser.parse_args()

    import ray

    from arena.tournament.balance import balance, parse_sizes
    from arena.tournament.distributed import RayChunks
    from arena.variants import get_variant

    cls = get_variant("classic")
    sizes = parse_sizes(args.players, cls)
    began = time.perf_counter()
    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level=logging.ERROR)
    startup = time.perf_counter() - began
    remote = RayChunks()
    cpus = remote.connect().cpus
    began = time.perf_counter()
    balance(cls, sizes[:1], 8, workers=2, remote=remote)  # both worker processes started and warm
    warm = time.perf_counter() - began
    print(f"Ray start-up: {startup:.1f} s, then {warm:.1f} s to warm two workers (load {load()}); {cpus} CPUs; not counted below")
    print(f"classic, sizes {args.players}, {args.games} games per size = {args.games * len(sizes)} games per run")
    speeds: dict[int, list[float]] = {1: [], 2: []}
    try:
        for repeat in range(args.repeats):
            for workers in (1, 2):
                before = load()
                result = balance(cls, sizes, args.games, workers=workers, seed=repeat * args.games, remote=remote)
                total = args.games * len(sizes)
                speeds[workers].append(total / result.seconds)
                print(
                    f"  {workers} worker{'s' * (workers > 1)}: {total / result.seconds:7.1f} games/s "
                    f"({result.seconds:6.1f} s, {result.cpu:6.1f} s of CPU in the workers; load {before} → {load()})",
                    flush=True,
                )
    finally:
        ray.shutdown()
    best = max(speeds[2]) / max(speeds[1])
    median = statistics.median(speeds[2]) / statistics.median(speeds[1])
    print(f"speed-up, 2 workers over 1: best {best:.2f}×, median {median:.2f}× (aim ≥ {AIM}×)")


if __name__ == "__main__":
    main()
