"""Games needed to decide a known truth: fixed design vs ``until_decided``, wins vs decision evidence.

    nice python benchmarks/until_decided.py [--pool 400] [--runs 200] [--case liar-detective ...]
                                            [--workers 2] [--seed 1] [--decide --max-games 900]

Players of known strength (``bot?mafia=L&town=L``, arena/players/bot/player.py) give a truth to
recover on classic with 9 players:

- ``liar-detective``: liar (mafia=1&town=0.2), detective (mafia=0.2&town=1) and random in a round
  robin; decided when liar > detective on deception and detective > liar on detection;
- ``ladder``: bot?level=0, .25, .5, .75, 1 in a round robin; decided when every adjacent pair of
  rungs is in order on both skills (8 comparisons);
- ``ladder-overall``: the same games; decided when every adjacent pair of rungs is in order overall
  (the mean result over both sides: which is the stronger player);
- ``bot-random``: bot against random; decided when the bot is better overall;
- ``aa``: three copies of the bot (the null): any comparison called different is an error.

For each case the script plays a **pool** of full round-robin rounds once (in memory, the
runner's own games: :func:`arena.tournament.runner.play_builtin`), then builds every run from
rounds drawn with replacement from the pool (the A/A pool also gets the three names permuted at
random per drawn round: under the null they are arbitrary labels). It reports, each over ``--runs``
runs:

1. **fixed design**: the fewest rounds R (of a doubling grid, then bisected) at which the fixed
   test decides the truth in ≥ 80% of runs — the sign-flip test on the decision family's values
   (one per mirrored pair or deal), Holm over the family (for the skills, the contrasts the
   leaderboard's skill-difference test uses; with evidence, the test's normal approximation),
   then the leaderboard's own ``skill_report`` at that R; R is found with hindsight, so it is the *best* fixed design, not one
   planned without knowing the effect;
2. **until_decided**: runs of the sequential design (adaptive rounds on undecided pairings,
   anytime-valid confidence sequences, closed testing over the family) until the truth is decided; the
   80th percentile of the games spent (so: decided in 80% of runs by then), and the share of runs
   that decided anything wrongly;
3. the planned fixed design of today's docs: mirrored pairs for 80% power on a difference of 0.10
   in the mafia-side win rate (292 pairs per pairing).

``--decide`` instead plays whole runs to their own stop (with evidence, ``--max-games`` the budget),
as a user pays for them: once waiting for every comparison (the default without ``decide``) and
once with ``decide`` naming the case's truth; the median and 80th percentile of the games spent,
budget-stopped runs included, why they stopped, and whether the truth was decided by then.

``--fresh-aa GAMES`` instead plays ``--runs`` A/A tournaments on fresh games (no pool), each checked
after every round until ``GAMES``.

Every figure goes in docs/tournaments.md (*Stop when decided*), with the ``uptime`` of the run.
"""

from __future__ import annotations

import argparse
import itertools
import math
import pickle
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from arena.tournament.calibration import play_tournament, play_until_decided, relabel
from arena.tournament.db import GameRecord
from arena.tournament.inference import ALPHA, holm, sign_flip_p
from arena.tournament.results import Results
from arena.tournament.sequential import DIFFERENT, Tracker, family, round_values
from arena.tournament.skills import skill_report

VARIANTS = [{"name": "classic", "players": 9}]
LADDER = {f"L{int(level * 100):03d}": f"bot?level={level}" for level in (0, 0.25, 0.5, 0.75, 1)}
CASES: dict[str, dict[str, Any]] = {
    "liar-detective": {
        "models": {"liar": "bot?mafia=1&town=0.2", "detective": "bot?mafia=0.2&town=1", "random": "random"},
        "truth": [("deception", "liar", "detective"), ("detection", "detective", "liar")],
    },
    "ladder": {
        "models": LADDER,
        "truth": [(skill, hi, lo) for lo, hi in itertools.pairwise(sorted(LADDER)) for skill in ("deception", "detection")],
    },
    "ladder-overall": {
        "models": LADDER,
        "pool": "ladder",
        "truth": [("overall", hi, lo) for lo, hi in itertools.pairwise(sorted(LADDER))],
    },
    "bot-random": {"models": {"bot": "bot", "random": "random"}, "truth": [("overall", "bot", "random")]},
    "aa": {"models": {"x": "bot", "y": "bot", "z": "bot"}, "truth": []},
}
#: what whole runs spent, measured with ``--decide`` (docs/tournaments.md, *What a run plays*): per case
#: and budget, the games of a run waiting for every comparison ("today") and of one with ``decide``
#: naming the truth, as (median, 80th percentile) over 200 runs (50 for the ladder), with evidence;
#: for other scripts that price a tournament (tokens ≈ games × 90 247)
SPENT: dict[tuple[str, int], dict[str, tuple[int, int]]] = {
    ("liar-detective", 900): {"today": (900, 900), "decide": (176, 228)},
    ("liar-detective", 2000): {"today": (1998, 2000), "decide": (176, 228)},
    ("ladder-overall", 6000): {"today": (2918, 4486), "decide": (723, 904)},
    ("bot-random", 900): {"today": (18, 20), "decide": (18, 20)},
}
PLANNED_PAIRS = 292  # docs/tournaments.md: mirrored pairs for 80% power on 0.10 in the mafia-side win rate
#: per pool round: (permutation index, evidence) -> each family comparison's values in that round
TABLE: list[dict[tuple[int, bool], list[list[float]]]] = []


def pool_of(case: str, rounds: int, seed: int, ex: ProcessPoolExecutor) -> list[list[GameRecord]]:
    """``rounds`` full round-robin rounds of the case, as lists of records."""
    models = CASES[case]["models"]
    tasks = [(models, seed * 100_000 + r0, min(25, rounds - r0)) for r0 in range(0, rounds, 25)]
    out: list[list[GameRecord]] = []
    for part in ex.map(_play_chunk, tasks):
        grouped: dict[int, list[GameRecord]] = {}
        for rec in part:
            grouped.setdefault(int(rec.game["round"]), []).append(rec)
        out += [grouped[r] for r in sorted(grouped)]
    return out


def _play_chunk(task: tuple[dict[str, str], int, int]) -> list[GameRecord]:
    models, seed, rounds = task
    return play_tournament(models, VARIANTS, rounds, seed)


def permutations(case: str) -> list[dict[str, str]]:
    """The renamings a run may draw per round: every permutation of the names in the A/A case, else none."""
    models = sorted(CASES[case]["models"])
    if case != "aa":
        return [{}]
    return [dict(zip(models, perm, strict=True)) for perm in itertools.permutations(models)]


def _values(task: tuple[str, list[GameRecord]]) -> dict[tuple[int, bool], list[list[float]]]:
    """One pool round's values of every family comparison, per renaming and evidence setting."""
    case, records = task
    decisions = family(sorted(CASES[case]["models"]), ["classic"])
    out = {}
    for k, names in enumerate(permutations(case)):
        results = Results.from_records([relabel(rec, 1, names) for rec in records])
        for evidence in (False, True):
            out[(k, evidence)] = [round_values(results, d, evidence) for d in decisions]
    return out


def _use_table(table: list[dict[tuple[int, bool], list[list[float]]]]) -> None:
    TABLE[:] = table


def truth_met(decided: dict[tuple[str, str, str], str], truth: Sequence[tuple[str, str, str]]) -> bool:
    """Every (kind, better, worse) of the truth decided with the right model better."""
    return all(decided.get((kind, *sorted((hi, lo)))) == hi for kind, hi, lo in truth)


def _wrong(decided: dict[tuple[str, str, str], str], case: str) -> bool:
    """A decision against the truth (the A/A case: any decision at all)."""
    if case == "aa":
        return bool(decided)
    truth = {(kind, *sorted((hi, lo))): hi for kind, hi, lo in CASES[case]["truth"]}
    return any(key in truth and truth[key] != better for key, better in decided.items())


def _draw(case: str, rng: np.random.Generator, evidence: bool) -> list[list[float]]:
    row = TABLE[int(rng.integers(len(TABLE)))]
    k = int(rng.integers(len(permutations(case)))) if case == "aa" else 0
    return row[(k, evidence)]


def fixed_run(task: tuple[str, int, int, bool]) -> tuple[bool, bool]:
    """One fixed-design run of R rounds: (truth decided, anything wrongly called different).

    The sign-flip test of each family comparison on its values (one per mirrored pair or deal), Holm
    over the family: with wins only, the leaderboard's tests of the skill differences."""
    case, rounds, seed, evidence = task
    rng = np.random.default_rng(seed)
    decisions = family(sorted(CASES[case]["models"]), ["classic"])
    drawn = [_draw(case, rng, evidence) for _ in range(rounds)]
    ps, means = [], []
    for i in range(len(decisions)):
        values = np.array([x for row in drawn for x in row[i]])
        ps.append(_sign_flip(values, seed, evidence) if len(values) else 1.0)
        means.append(float(values.mean()) if len(values) else 0.0)
    decided = {}
    for d, p, mean in zip(decisions, holm(ps), means, strict=True):
        if p < ALPHA:
            decided[(d.kind, d.a, d.b)] = d.a if mean > 0 else d.b
    return truth_met(decided, CASES[case]["truth"]), _wrong(decided, case)


def _sign_flip(values: np.ndarray, seed: int, evidence: bool) -> float:
    """The sign-flip test's p: exact on win differences (the leaderboard's); on evidence scores, which
    lie on no grid, its normal approximation (Σ±d has variance Σd²), as Monte Carlo flips of a few
    hundred values cost too much here."""
    if not evidence:
        return sign_flip_p(values, seed)
    spread = float(np.sqrt(np.sum(values**2)))
    return float(math.erfc(abs(values.sum()) / spread / math.sqrt(2.0))) if spread > 0 else 1.0


def sequential_run(task: tuple[str, int, int, bool]) -> tuple[int | None, bool, int]:
    """One until_decided run: (games when the truth was decided or None, anything wrong, games spent).

    Each round plays only the pairings some undecided comparison reads; an undecided comparison's
    values are then those of the full round (it reads all of its pairings), a decided one's no
    longer matter (:meth:`Tracker.look_values` gets none for it)."""
    case, max_games, seed, evidence = task
    rng = np.random.default_rng(seed)
    models = sorted(CASES[case]["models"])
    tracker = Tracker(models, ["classic"], evidence=evidence)
    state = tracker.state
    truth = CASES[case]["truth"]
    when = None
    r = 0
    while not state.done:
        r += 1
        games = 2 * len(state.needed_pairings(models))
        if state.games + games > max_games:
            break
        index = int(rng.integers(len(TABLE)))
        k = int(rng.integers(len(permutations(case)))) if case == "aa" else 0
        wins, scores = TABLE[index][(k, False)], TABLE[index][(k, True)]
        state = tracker.look_values(
            r,
            [[] if d.decided else v for d, v in zip(state.decisions, wins, strict=True)],
            games,
            scores if evidence else None,
        )
        decided = {(d.kind, d.a, d.b): d.better for d in state.decisions if d.status == DIFFERENT}
        if truth and truth_met(decided, truth):
            when = state.games
            break
    decided = {(d.kind, d.a, d.b): d.better for d in state.decisions if d.status == DIFFERENT}
    return when, _wrong(decided, case), state.games


def asked(case: str) -> list[str]:
    """The case's truth as a config's ``decide`` entries."""
    return [f"{kind}:{hi}~{lo}" for kind, hi, lo in CASES[case]["truth"]]


def spend_run(task: tuple[str, int, int, bool, bool]) -> tuple[int, str, bool, bool]:
    """One whole until_decided run, as the runner plays it, to its own stop: (games spent, why it
    stopped, truth decided by then, anything wrong). With ``ask`` the config names the truth's
    comparisons (``decide``); without, it waits for every comparison, as before ``decide``."""
    case, max_games, seed, evidence, ask = task
    rng = np.random.default_rng(seed)
    models = sorted(CASES[case]["models"])
    tracker = Tracker(models, ["classic"], evidence=evidence, ask=asked(case) if ask else ())
    state = tracker.state
    reason = "decided"
    r = 0
    while not state.done:
        r += 1
        need = state.needed_pairings(models)
        games = 2 * len(need)
        if state.games + games > max_games:
            reason = "budget spent"
            break
        index = int(rng.integers(len(TABLE)))
        k = int(rng.integers(len(permutations(case)))) if case == "aa" else 0
        wins, scores = TABLE[index][(k, False)], TABLE[index][(k, True)]
        read = [d.pairings(models) <= need for d in state.decisions]  # as the runner: every comparison its games feed
        state = tracker.look_values(
            r,
            [v if ok else [] for ok, v in zip(read, wins, strict=True)],
            games,
            [v if ok else [] for ok, v in zip(read, scores, strict=True)] if evidence else None,
        )
    decided = {(d.kind, d.a, d.b): d.better for d in state.decisions if d.status == DIFFERENT}
    return state.games, reason, truth_met(decided, CASES[case]["truth"]), _wrong(decided, case)


def report_spend(case: str, ex: ProcessPoolExecutor, evidence: bool, args: argparse.Namespace) -> None:
    """What a run pays, stopping included: every comparison (today's default) against ``decide``."""
    label = "with evidence" if evidence else "wins only"
    for ask in (False, True):
        tasks = [(case, args.max_games, args.seed * 1_000_000 + s, evidence, ask) for s in range(args.runs)]
        got = list(ex.map(spend_run, tasks, chunksize=4))
        spent = sorted(g for g, _, _, _ in got)
        p80 = spent[int(np.ceil(0.8 * len(spent))) - 1]
        stops = {why: sum(1 for _, w, _, _ in got if w == why) for why in ("decided", "budget spent")}
        truth = sum(ok for _, _, ok, _ in got)
        wrong = sum(bad for _, _, _, bad in got)
        what = f"decide = {asked(case)}" if ask else "every comparison (no decide)"
        print(f"   {label}: run to its stop, {what}, budget {args.max_games}: games spent median "
              f"{int(np.median(spent))}, 80th percentile {p80}; stopped {stops['decided']} decided, "
              f"{stops['budget spent']} budget spent of {len(got)}; truth decided at the stop in {truth}; "
              f"wrong {wrong}", flush=True)  # fmt: skip


def fixed_needed(case: str, ex: ProcessPoolExecutor, runs: int, evidence: bool, limit: int) -> tuple[int | None, float]:
    """The fewest rounds with ≥ 80% of runs deciding the truth (doubling, then bisection to 5%), and
    the wrong-decision rate there; None when ``limit`` rounds are not enough."""

    def power(rounds: int) -> tuple[float, float]:
        got = list(ex.map(fixed_run, [(case, rounds, s, evidence) for s in range(runs)], chunksize=8))
        return sum(ok for ok, _ in got) / runs, sum(bad for _, bad in got) / runs

    lo, hi = 0, 2
    while power(hi)[0] < 0.8:
        lo, hi = hi, hi * 2
        if hi > limit:
            return None, float("nan")
    while hi - lo > max(1, hi // 20):
        mid = (lo + hi) // 2
        if power(mid)[0] >= 0.8:
            hi = mid
        else:
            lo = mid
    return hi, power(hi)[1]


def report_case(
    case: str, pool: list[list[GameRecord]], ex: ProcessPoolExecutor, evidence: bool, args: argparse.Namespace
) -> None:
    """Print one case's figures for one setting of the evidence."""
    per_round = len(pool[0])
    label = "with evidence" if evidence else "wins only"
    budget = args.aa_max_games if case == "aa" else args.max_games
    seq = list(
        ex.map(
            sequential_run,
            [(case, budget, args.seed * 1_000_000 + s, evidence) for s in range(args.runs)],
            chunksize=4,
        )
    )
    wrong = sum(bad for _, bad, _ in seq) / len(seq)
    spent = [g for _, _, g in seq]
    if case == "aa":
        print(f"   {label}: until_decided A/A: {wrong:.1%} of {len(seq)} runs called a pair different "
              f"(continuous checking, budget {budget}: games spent median {int(np.median(spent))}, max {max(spent)})",
              flush=True)  # fmt: skip
        got = list(ex.map(fixed_run, [(case, 50, s, evidence) for s in range(args.runs)], chunksize=8))
        fixed_wrong = sum(bad for _, bad in got) / len(got)
        print(f"   {label}: fixed design A/A (50 rounds, {50 * per_round} games): {fixed_wrong:.1%} called a pair different",
              flush=True)  # fmt: skip
        return
    when = [w for w, _, _ in seq]
    done = sorted(w for w in when if w is not None)
    p80 = done[int(np.ceil(0.8 * len(when))) - 1] if len(done) >= 0.8 * len(when) else None
    print(f"   {label}: until_decided: decided in {len(done)}/{len(when)} runs within {args.max_games} games; "
          f"games: median {int(np.median(done)) if done else '-'}, 80th percentile {p80 or '> budget'}; "
          f"wrong decisions {wrong:.1%}", flush=True)  # fmt: skip
    if args.no_fixed:
        return
    rounds, fixed_wrong = fixed_needed(case, ex, args.runs, evidence, args.max_games // per_round)
    games = rounds * per_round if rounds else None
    print(f"   {label}: fixed design (best R, 80% power): {rounds} rounds = {games} games; wrong decisions "
          f"{fixed_wrong:.1%}", flush=True)  # fmt: skip
    if CASES[case]["truth"][0][0] != "overall" and rounds and args.skill_runs:
        share = skill_power(case, pool, rounds, args.skill_runs, evidence)
        print(f"   {label}: the leaderboard's skill_differences (Holm over its own list) at {rounds} rounds: truth "
              f"recovered in {share:.0%} of {args.skill_runs} runs", flush=True)  # fmt: skip


def skill_power(case: str, pool: list[list[GameRecord]], rounds: int, runs: int, evidence: bool) -> float:
    """The share of ``runs`` tournaments of ``rounds`` pool rounds whose ``skill_report`` finds the truth."""
    hits = 0
    for seed in range(runs):
        rng = np.random.default_rng(seed)
        records = [relabel(rec, i, {}) for i in range(1, rounds + 1) for rec in pool[int(rng.integers(len(pool)))]]
        report = skill_report(Results.from_records(records), resamples=20, evidence=evidence)
        flags = {(d.skill, d.a, d.b): (d.a if d.diff.estimate > 0 else d.b) for d in report.differences if d.significant}
        hits += truth_met(flags, CASES[case]["truth"])
    return hits / runs


def fresh_aa(task: tuple[int, int, bool]) -> bool:
    """One A/A run on fresh games (the runner's loop in memory): was any comparison called different?"""
    seed, max_games, evidence = task
    models = CASES["aa"]["models"]
    state = play_until_decided(models, VARIANTS, seed, max_games, evidence=evidence)
    return any(d.status == DIFFERENT for d in state.decisions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", action="append", choices=list(CASES), help="default: every case")
    parser.add_argument("--pool", type=int, default=400, help="full rounds played per case (default 400)")
    parser.add_argument("--runs", type=int, default=200, help="runs per design (default 200)")
    parser.add_argument("--max-games", type=int, default=4000, help="budget of a sequential run (default 4000)")
    parser.add_argument("--fresh-aa", type=int, metavar="GAMES", help="only: A/A runs on fresh games, this budget each")
    parser.add_argument(
        "--decide",
        action="store_true",
        help="only: whole runs to their own stop, every comparison against decide = the case's truth",
    )
    parser.add_argument("--no-fixed", action="store_true", help="only the until_decided runs (and the A/A)")
    parser.add_argument("--skill-runs", type=int, default=40, help="runs of the skill model's own test (default 40)")
    parser.add_argument("--aa-max-games", type=int, default=600, help="budget of an A/A run (default 600)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cache", metavar="DIR", help="keep each case's pool of games here (replayed on the next run)")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.fresh_aa:
        with ProcessPoolExecutor(args.workers) as ex:
            for evidence in (False, True):
                tasks = [(seed, args.fresh_aa, evidence) for seed in range(1, args.runs + 1)]
                flagged = sum(ex.map(fresh_aa, tasks))
                print(f"fresh A/A ({'with evidence' if evidence else 'wins only'}; {args.runs} runs of {args.fresh_aa} games, "
                      f"checked after every round): {flagged}/{args.runs} = {flagged / args.runs:.1%} called a pair different",
                      flush=True)  # fmt: skip
        print(f"{time.perf_counter() - started:.0f} s with {args.workers} worker(s)")
        return
    for case in args.case or list(CASES):
        clock = time.perf_counter()
        name = CASES[case].get("pool", case)
        cache = Path(args.cache) / f"{name}-{args.pool}-{args.seed}.pickle" if args.cache else None
        with ProcessPoolExecutor(args.workers) as ex:
            if cache is not None and cache.exists():
                pool = pickle.loads(cache.read_bytes())
            else:
                pool = pool_of(case, args.pool, args.seed, ex)
                if cache is not None:
                    cache.parent.mkdir(parents=True, exist_ok=True)
                    cache.write_bytes(pickle.dumps(pool))
            table = list(ex.map(_values, [(case, records) for records in pool], chunksize=8))
        per_round = len(pool[0])
        print(f"== {case}: pool of {len(pool)} rounds ({per_round} games each), {time.perf_counter() - clock:.0f} s", flush=True)
        pairings = len(CASES[case]["models"]) * (len(CASES[case]["models"]) - 1) // 2
        print(f"   planned fixed design (docs: {PLANNED_PAIRS} pairs per pairing at 0.10): {2 * PLANNED_PAIRS * pairings} games")
        with ProcessPoolExecutor(args.workers, initializer=_use_table, initargs=(table,)) as ex:
            for evidence in (False, True) if not args.decide else (True,):
                if args.decide:
                    report_spend(case, ex, evidence, args)
                else:
                    report_case(case, pool, ex, evidence, args)
    print(f"{time.perf_counter() - started:.0f} s with {args.workers} worker(s)")


if __name__ == "__main__":
    main()
