"""Is a game of local models fast enough to watch? A 9-player classic game, every seat SmolLM2.

Plays seeded games with every seat ``local`` (one shared model, calls one at a time) and reports
the wall time of each game against the target, the share of prompt tokens reused from the seats'
saved prefixes (cache hit rate), how fast new prompt tokens are evaluated and answers generated,
the time spent switching seats, and the process's peak memory. Needs the ``local`` extra.

    python benchmarks/local_bench.py                    # one game, seed 1
    python benchmarks/local_bench.py --games 3 --seed 5 --players 9 --variant classic

The machine matters: the figures in docs/llm.md were taken on 2 cores with nothing else running;
other work on the same cores slows every figure here (llama.cpp's threads wait for each other).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET = 180.0  # seconds for a 9-player classic game


async def play(variant: str, players: int, seed: int) -> tuple[float, object, dict[str, object]]:
    from arena.orchestrator import run
    from arena.players.llm import close_clients
    from arena.players.registry import make_player
    from arena.variants import VARIANTS

    cls = VARIANTS[variant]
    names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jay", "Kim", "Lea"][:players]
    game = cls(names, {}, seed)
    options = game.options.model_dump(mode="json")
    seats = {name: make_player("local", name, seed, variant=variant, options=options) for name in names}
    started = time.perf_counter()
    await run(game, seats)
    await close_clients()
    return time.perf_counter() - started, game, seats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=9)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game")
    args = parser.parse_args()
    try:
        from arena.players.llm.local import model_file

        model_file("smollm2")
        import llama_cpp  # noqa: F401
    except Exception as exc:  # the extra is missing
        print(f"local_bench: {exc}", file=sys.stderr)
        return 2

    load = os.getloadavg()[0]
    worst = 0.0
    for index in range(args.games):
        seed = args.seed + index
        wall, game, seats = asyncio.run(play(args.variant, args.players, seed))
        stats = [player.backend.stats for player in seats.values()]
        calls = sum(s.calls for s in stats)
        prompt = sum(s.prompt_tokens for s in stats)
        reused = sum(s.reused_tokens for s in stats)
        new = prompt - reused
        output = sum(s.output_tokens for s in stats)
        prompt_s = sum(s.prompt_seconds for s in stats)
        output_s = sum(s.output_seconds for s in stats)
        switch_s = sum(s.switch_seconds for s in stats)
        dropped = sum(s.dropped_turns for s in stats)
        worst = max(worst, wall)
        print(f"game {index + 1} (seed {seed}): {wall:.1f} s, {game.day} days, {calls} calls, winner {game.winner}")
        print(f"  prompt tokens {prompt:,}, reused {reused:,} (cache hit rate {reused / max(prompt, 1):.1%}), "
              f"{dropped} turns dropped for context")  # fmt: skip
        print(f"  new prompt tokens {new:,} evaluated at {new / max(prompt_s, 1e-9):.0f} tok/s ({prompt_s:.1f} s)")
        print(f"  output tokens {output:,} generated at {output / max(output_s, 1e-9):.0f} tok/s ({output_s:.1f} s)")
        print(f"  switching seats (save + restore): {switch_s:.1f} s; other work: {wall - prompt_s - output_s - switch_s:.1f} s")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory {peak:.0f} MB; load average before the run {load:.2f} on {os.cpu_count()} cores")
    verdict = "OK" if worst <= TARGET or args.players != 9 or args.variant != "classic" else "SLOW"
    print(f"slowest game {worst:.1f} s (target for 9-player classic ≤ {TARGET:.0f} s) {verdict}")
    return 0 if verdict == "OK" else 1


if __name__ == "__main__":
    sys.exit(main())
