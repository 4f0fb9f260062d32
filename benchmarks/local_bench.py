"""Is a game of local models fast enough to watch, and does it read as speech?

Plays seeded games with every seat the same local model (one shared model, calls one at a time)
and reports per game: the wall time (with the load average before and after: the machine may be
shared), calls and tokens (counts that do not depend on load), the share of prompt tokens reused
from the seats' saved prefixes (cache hit rate), how fast new prompt tokens are evaluated and
answers generated, the time spent switching seats, and the **speech figure**: the share of
speeches that read as speech (dictionary words or seat names, at least half of the words distinct:
:mod:`arena.run.speech_quality`), and what the word guard cost (:mod:`arena.players.llm.local_words`).
Then the totals over all games. Needs the ``local`` extra.

    python benchmarks/local_bench.py                          # one 9-player game, seed 1
    python benchmarks/local_bench.py --players 7 --games 3 --seed 5
    python benchmarks/local_bench.py --model local:gemma3-270m --players 7 --show 10

The machine matters: the figures in docs/llm.md were taken on 2 cores; other work on the same
cores slows every timing here (llama.cpp's threads wait for each other), never the counts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET = 180.0  # seconds for a 9-player classic game
NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jay", "Kim", "Lea"]


async def play(model: str, variant: str, players: int, seed: int) -> tuple[float, object, dict[str, object]]:
    from arena.players.llm import close_clients
    from arena.players.registry import make_player
    from arena.run.orchestrator import run
    from arena.variants import VARIANTS

    cls = VARIANTS[variant]
    names = NAMES[:players]
    game = cls(names, {}, seed)
    options = game.options.model_dump(mode="json")
    seats = {name: make_player(model, name, seed, variant=variant, options=options) for name in names}
    started = time.perf_counter()
    await run(game, seats)
    await close_clients()
    return time.perf_counter() - started, game, seats


def load() -> str:
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="local", help="seat spec of every seat (local, local:gemma3-270m, local:PATH)")
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=9)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game")
    parser.add_argument("--show", type=int, default=0, metavar="N", help="print N speeches drawn from the games, with verdicts")
    parser.add_argument("--speeches", type=Path, metavar="FILE", help="write every speech with its verdict (JSON lines)")
    args = parser.parse_args()
    try:
        from arena.players.registry import make_player
        from arena.run.speech_quality import dictionary, speech_figure, verdict

        make_player(args.model, "Ann")  # the extra and the model file are there (a missing one is one line)
        known = dictionary()
    except Exception as exc:
        print(f"local_bench: {exc}", file=sys.stderr)
        return 2

    worst = 0.0
    totals = dict.fromkeys(("wall", "calls", "prompt", "reused", "output", "speeches", "readable"), 0.0)
    shown: list[tuple[str, str, str]] = []
    for index in range(args.games):
        seed = args.seed + index
        before = load()
        wall, game, seats = asyncio.run(play(args.model, args.variant, args.players, seed))
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
        texts = [str(e.data.get("text") or "") for e in game.log if e.type == "speech"]
        figure = speech_figure(texts, known, game.seats)
        worst = max(worst, wall)
        for key, value in zip(totals, (wall, calls, prompt, reused, output, figure.speeches, figure.readable), strict=True):
            totals[key] += value
        names = {name.lower() for name in game.seats}
        for text, event in zip(texts, (e for e in game.log if e.type == "speech"), strict=True):
            shown.append((f"seed {seed}, {event.actor}, day {event.day}", text, verdict(text, known, names)))
        print(f"game {index + 1} (seed {seed}, {args.model}): {wall:.1f} s, {game.day} days, {calls} calls, "
              f"winner {game.winner}; load {before} before, {load()} after")  # fmt: skip
        repeats = len(texts) - len(set(texts))
        print(f"  speech: {figure}; {repeats} repeat an earlier speech of the game word for word")
        print(f"  prompt tokens {prompt:,}, reused {reused:,} (cache hit rate {reused / max(prompt, 1):.1%}), "
              f"{dropped} turns dropped for context")  # fmt: skip
        print(f"  new prompt tokens {new:,} evaluated at {new / max(prompt_s, 1e-9):.0f} tok/s ({prompt_s:.1f} s)")
        print(f"  output tokens {output:,} generated at {output / max(output_s, 1e-9):.0f} tok/s ({output_s:.1f} s)")
        print(f"  switching seats (save + restore): {switch_s:.1f} s; other work: {wall - prompt_s - output_s - switch_s:.1f} s")
        steps = sum(s.guard_steps for s in stats)
        guard_s = sum(s.guard_seconds for s in stats)
        checked = sum(s.guard_checked for s in stats)
        print(f"  word guard: {steps} steps, {checked:,} candidates checked ({checked / max(steps, 1):.1f} a step), "
              f"{guard_s:.2f} s ({1000 * guard_s / max(steps, 1):.2f} ms a step, part of the output time)")  # fmt: skip
    if args.games > 1:
        share = totals["readable"] / max(totals["speeches"], 1)
        print(f"all {args.games} games: {totals['wall']:.0f} s, {totals['calls']:.0f} calls, "
              f"{totals['output']:,.0f} output tokens, {totals['prompt'] - totals['reused']:,.0f} new prompt tokens; "
              f"{totals['readable']:.0f}/{totals['speeches']:.0f} speeches read as speech ({share:.0%})")  # fmt: skip
    if args.speeches:
        with args.speeches.open("w", encoding="utf-8") as out:
            out.writelines(json.dumps({"who": who, "text": text, "verdict": why}) + "\n" for who, text, why in shown)
    for who, text, why in random.Random(args.seed).sample(shown, min(args.show, len(shown))):
        print(f"  [{why}] {who}: {text!r}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory {peak:.0f} MB on {os.cpu_count()} cores")
    if args.players != 9 or args.variant != "classic":
        return 0
    verdict_text = "OK" if worst <= TARGET else "SLOW"
    print(f"slowest game {worst:.1f} s (target for 9-player classic ≤ {TARGET:.0f} s) {verdict_text}")
    return 0 if verdict_text == "OK" else 1


if __name__ == "__main__":
    sys.exit(main())
