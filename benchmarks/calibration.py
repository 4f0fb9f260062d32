"""Error rates of the leaderboard's tests on fresh games: null tournaments, power, pairs needed.

    python benchmarks/calibration.py [--runs 200] [--pairs 50] [--variant classic] [--players 7]
                                     [--rounds 20] [--skill-runs 100] [--workers 1]

Unlike the test suite (tests/test_inference.py), which resamples pairs from a pool of played games
to stay fast, every run here is a whole new tournament of built-in players with its own seed
(seeds 1 … runs), played in memory (:func:`arena.tournament.runner.play_builtin`) and judged by the
leaderboard's own code. It prints:

1. null tournaments (``random`` under two names, ``--pairs`` mirrored pairs each): the share of
   runs whose win-rate comparison has p < 0.05, whose Holm-adjusted family flags anything, and
   whose 95% interval holds 0;
2. power: the bot against the random player at ``--pairs`` pairs, the share of runs flagged;
3. the paired standard deviation of the mafia-side win rate in one larger tournament of each of
   bot vs random, bot vs bot (one spec under two names) and random vs random, and the mirrored
   pairs a difference of 0.10 needs at 80% power;
4. the skill model: three copies of ``random`` (null) and bot / random / random (power) over
   ``--rounds`` round-robin rounds: the share of runs where any pair of models "differs".

Figures go in docs/tournaments.md (*Measured error rates*); give ``uptime`` with any timing.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from arena.tournament.calibration import play_tournament
from arena.tournament.inference import ALPHA, compare_all, paired_differences, pairs_for
from arena.tournament.results import Results
from arena.tournament.skills import skill_report


def pair_run(task: tuple[dict[str, str], list[dict[str, Any]], int, int]) -> dict[str, Any]:
    """One fresh tournament: what its leaderboard says about the win rate and the whole family."""
    models, variants, pairs, seed = task
    results = Results.from_records(play_tournament(models, variants, pairs, seed))
    comparisons = compare_all(results, seed=seed)
    win = next(c for c in comparisons if c.metric == "win" and c.side == "all")
    return {
        "p": win.p,
        "significant": win.significant,
        "better": win.better,
        "covers0": win.ci95[0] <= 0 <= win.ci95[1],
        "family": any(c.significant for c in comparisons),
        "family_size": len(comparisons),
    }


def skill_run(task: tuple[dict[str, str], list[dict[str, Any]], int, int]) -> dict[str, Any]:
    models, variants, rounds, seed = task
    report = skill_report(Results.from_records(play_tournament(models, variants, rounds, seed)), seed=seed, resamples=200)
    return {
        "any": any(d.significant for d in report.differences),
        "raw": [d.p < ALPHA for d in report.differences],
        "bot_deceives": any(d.significant and "bot" in (d.a, d.b) and d.skill == "deception" for d in report.differences),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="null and power tournaments (default 200)")
    parser.add_argument("--pairs", type=int, default=50, help="mirrored pairs per tournament (default 50)")
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=20, help="round-robin rounds per skill-model run (default 20)")
    parser.add_argument("--skill-runs", type=int, default=100, help="skill-model runs, null and power (default 100)")
    parser.add_argument("--variance-pairs", type=int, default=400, help="pairs of the variance tournaments (default 400)")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    args = parser.parse_args()
    variants = [{"name": args.variant, "players": args.players}]
    where = f"{args.variant}, {args.players} players"
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        null = list(pool.map(pair_run, [({"random": "random", "random2": "random"}, variants, args.pairs, s)
                                         for s in range(1, args.runs + 1)]))  # fmt: skip
        n = len(null)
        print(f"1. null ({where}; random vs random2, {args.pairs} pairs, seeds 1-{n}, {n} tournaments):")
        print(f"   win-rate p < {ALPHA}: {sum(r['p'] < ALPHA for r in null)}/{n} = {sum(r['p'] < ALPHA for r in null) / n:.1%}")
        print(f"   any of the family of {null[0]['family_size']} flagged after Holm: {sum(r['family'] for r in null)}/{n} "
              f"= {sum(r['family'] for r in null) / n:.1%}")  # fmt: skip
        print(f"   95% interval holds 0: {sum(r['covers0'] for r in null) / n:.1%}")

        power = list(pool.map(pair_run, [({"bot": "bot", "random": "random"}, variants, args.pairs, s)
                                          for s in range(1, args.runs + 1)]))  # fmt: skip
        flagged = sum(r["significant"] and r["better"] == "bot" for r in power)
        print(
            f"2. power ({where}; bot vs random, {args.pairs} pairs, {n} tournaments): flagged {flagged}/{n} = {flagged / n:.1%}"
        )

        print(f"3. paired variance of the mafia-side win rate ({args.variance_pairs} pairs each) and pairs for 0.10:")
        for models in (
            {"bot": "bot", "random": "random"},
            {"bot": "bot", "bot2": "bot"},
            {"random": "random", "random2": "random"},
        ):
            results = Results.from_records(play_tournament(models, variants, args.variance_pairs, 1000))
            _, d = paired_differences(results, results.pairs(), "win", "mafia")
            sd = float(d.std(ddof=1))
            print(f"   {' vs '.join(models)}: mean {d.mean():+.3f}, sd {sd:.3f} over {len(d)} pairs -> 0.10 needs "
                  f"{pairs_for(sd, 0.10)} pairs; 0.05 needs {pairs_for(sd, 0.05)}")  # fmt: skip

        runs = args.skill_runs
        null_skill = list(pool.map(skill_run, [({"x": "random", "y": "random", "z": "random"}, variants, args.rounds, s)
                                               for s in range(1, runs + 1)]))  # fmt: skip
        raw = [x for r in null_skill for x in r["raw"]]
        print(f"4. skill model, null (3 × random, {args.rounds} rounds, {runs} tournaments): any pair differs "
              f"{sum(r['any'] for r in null_skill)}/{runs} = {sum(r['any'] for r in null_skill) / runs:.1%}; "
              f"single tests p < {ALPHA}: {sum(raw) / len(raw):.1%}")  # fmt: skip
        strong = list(pool.map(skill_run, [({"bot": "bot", "random": "random", "random2": "random"}, variants, args.rounds, s)
                                           for s in range(1, runs + 1)]))  # fmt: skip
        print(
            f"   power (bot, random, random2): bot's deception differs from a random's in "
            f"{sum(r['bot_deceives'] for r in strong)}/{runs} = {sum(r['bot_deceives'] for r in strong) / runs:.1%}"
        )
    print(f"{time.perf_counter() - started:.0f} s with {args.workers} worker(s)")


if __name__ == "__main__":
    main()
