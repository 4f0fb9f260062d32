"""Positions against whole games on the known truth: verdicts, positions, calls, tokens and dollars.

    nice python benchmarks/positions_bench.py [--games 600] [--runs 200] [--ladder-runs 50] [--draws 1000]
        [--deception-games 100] [--aa-deception-games 20] [--sample 24] [--belief-weight W] [--speech-weight W]
        [--skip-model]

Players of known strength (docs/bots.md, *Levels*): the **liar** ``bot?mafia=1&town=0.2`` deceives
better and detects worse than the **detective** ``bot?mafia=0.2&town=1``; the **ladder**
``bot?level=0, .25, .5, .75, 1`` has a known order; three copies of ``bot?level=0.5`` (seeds 1, 2,
3) are the null (A/A).

1. A bank is built from ``--games`` classic games (9 seats, every seat ``bot``, seeds from 1000),
   with a belief position for every living town seat at each day's start (``build --beliefs``).
2. Every player answers every asked position once (its player seed fixed), the recorded
   speeches' forks shared between players (:func:`arena.positions.run.run_bank`).
3. ``--runs`` runs each draw up to ``--draws`` games with replacement from the bank's games that
   hold the case's positions (the pool), in a random order, and feed the paired values game by
   game to the anytime-valid comparison :mod:`arena.positions.compare` (until_decided's test),
   stopping once the truth's comparisons are decided. A case asks all the detection kinds, the
   decisions only, or the beliefs only (``--belief-weight``: a belief's weight in the mixed cases).
   Reported: the share of runs that decided the truth, that decided anything wrongly, and the
   positions asked by the time 80% of the runs had decided (80th percentile; median in brackets) —
   per player, so the calls are that times the players. Each kind's information per call, (mean /
   sd)² of the paired difference, for the pair and every adjacent rung. A/A: any pair of the three
   copies called different on either skill, checked after every game to the end of the drawn games.
4. A model seat on the loopback stand-in (tests/llm_server.py; ``--skip-model`` leaves it out)
   answers every asked position of ``--sample`` games spread over the bank, per skill, in the
   order a run asks them (so the provider's cache holds what it holds in a run), once with the
   stand-in's short answers and once with every thought and speech at its bound: its mean
   prompt, cached and answer tokens per position of each kind (belief, a town seat's decision, a
   mafia seat's), priced at gpt-4.1-mini's list prices (configs/models.toml), price each run by
   the positions it asked; beside them the figures of ``until_decided`` games from
   docs/tournaments.md and docs/llm.md.

Every figure goes in docs/positions.md with the sizes run and the ``uptime``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.positions.bank import DECEPTION, DETECTION, WHATS, build, load_bank
from arena.positions.compare import Comparison, by_game, paired_value
from arena.positions.games import record_games
from arena.positions.run import run_bank
from arena.tournament.inference import ALPHA
from benchmarks.dollars import ANSWER_CHARS

LIAR, DETECTIVE = "bot?mafia=1&town=0.2", "bot?mafia=0.2&town=1"
LADDER = [f"bot?level={x}" for x in ("0", "0.25", "0.5", "0.75", "1")]
AA = "bot?level=0.5"  # the null's copies: a player whose answers vary with its seed
#: until_decided games on the liar–detective truth (docs/tournaments.md, *Stop when decided*): 80th
#: percentile and median; and a classic game of model seats at gpt-4.1-mini's prices (issue 35,
#: measured on the stand-in: 1.5–3.1 M prompt tokens, 96–97% cached, ~300 calls a game)
GAMES_80, GAMES_MEDIAN = 318, 228
LADDER_GAMES_80 = 2220  # the ladder's order overall (docs/tournaments.md; docs/llm.md: $508–667 with days)
GAME_DOLLARS = (0.18, 0.35)
#: the same game with every thought and speech at its bound and the day-folded history, the
#: default (docs/llm.md, the dollars table: classic 9, days, seeds 1–4)
GAME_DOLLARS_AT_BOUNDS = 0.266
GAME_CALLS = 300
Number = TypeVar("Number", int, float)
TOKENS = ("input_tokens", "cached_tokens", "cache_write_tokens", "output_tokens")


def answers(spec: str, bank: Path, seed: int, baselines: dict[str, Any], positions: list[Any]) -> dict[str, list[dict]]:
    """The player's scored answers to every position, by game."""
    result = asyncio.run(run_bank(spec, bank, seed=seed, positions=positions, baselines=baselines))
    return by_game(result.rows)


def pairs_of(a: dict[str, list[dict]], b: dict[str, list[dict]], game: str) -> list[tuple[dict, dict]]:
    theirs = {r["id"]: r for r in b.get(game, [])}
    return [(r, theirs[r["id"]]) for r in a.get(game, []) if r["id"] in theirs]


def run_until(
    players: dict[str, dict[str, list[dict]]],
    truth: list[tuple[str, str, str]],
    games: list[str],
    rng: random.Random,
    kinds: Sequence[str],
    draws: int,
) -> tuple[bool, bool, Counter[str], list[bool]]:
    """One run: games drawn with replacement; (truth decided, anything decided wrongly, positions
    asked per player when it stopped, by :func:`cost_class`, each item of the truth decided by
    then). The family is every pair of players: α is shared among the pairs (Bonferroni), as the
    tournament's family does."""
    names = sorted(players)
    pairs = _pairs(names)
    comparisons = {(a, b): Comparison(a, b, kinds=kinds, alpha=ALPHA / len(pairs)) for a, b in pairs}
    asked: Counter[str] = Counter()
    for _ in range(draws):
        game = rng.choice(games)
        # a skill every pair has decided is asked no more (run --until-decided does the same)
        open_kinds = {k for k in kinds if any(c.skills[k].status == "undecided" for c in comparisons.values())}
        asked.update(cost_class(r) for r in players[names[0]].get(game, []) if r["kind"] in open_kinds)
        for (a, b), comparison in comparisons.items():
            comparison.add_game(pairs_of(players[a], players[b], game))
        if all(_says(comparisons, t) for t in truth):
            return True, _wrong(comparisons, truth), asked, [True] * len(truth)
    return False, _wrong(comparisons, truth), asked, [_says(comparisons, t) for t in truth]


def _pairs(names: list[str]) -> list[tuple[str, str]]:
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]


def _says(comparisons: dict[tuple[str, str], Comparison], t: tuple[str, str, str]) -> bool:
    kind, better, worse = t
    c = comparisons.get((better, worse)) or comparisons[(worse, better)]
    skill = c.skills[kind]
    return skill.status == "different" and skill.better == better


def _wrong(comparisons: dict[tuple[str, str], Comparison], truth: list[tuple[str, str, str]]) -> bool:
    right = {(k, b, w) for k, b, w in truth}
    for (a, b), c in comparisons.items():
        for kind, skill in c.skills.items():
            if skill.status != "different":
                continue
            loser = b if skill.better == a else a
            if (kind, skill.better, loser) not in right and (kind, loser, skill.better) in right:
                return True
    return False


def aa_run(players: dict[str, dict[str, list[dict]]], games: list[str], rng: random.Random, draws: int) -> bool:
    """One A/A run: any pair of the copies called different on either skill, looked at after every game."""
    names = sorted(players)
    comparisons = [Comparison(a, b, alpha=ALPHA / 3) for a, b in _pairs(names)]
    for _ in range(draws):
        game = rng.choice(games)
        labels = names[:]
        rng.shuffle(labels)  # under the null the copies' names are arbitrary labels
        for c, (a, b) in zip(comparisons, _pairs(labels), strict=True):
            c.add_game(pairs_of(players[a], players[b], game))
        if any(s.status == "different" for c in comparisons for s in c.skills.values()):
            return True
    return False


def pct(values: Sequence[Number], q: float) -> Number:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0


def case(
    name: str,
    players: dict[str, dict[str, list[dict]]],
    truth: list[tuple[str, str, str]],
    args: Any,
    kinds: Sequence[str],
    whats: set[str] | None = None,
    weights: dict[str, float] | None = None,
    costs: dict[str, dict[str, dict[str, float]]] | None = None,
) -> dict:
    """``whats``: only these kinds of position (of every skill), of the answers already given;
    ``weights``: a weight by kind of position in place of the bank's; ``costs``: a model's dollars
    per position by :func:`cost_class`, for each way the stand-in answers (:func:`model_cost`), to
    price each run by what it asked."""
    if whats is not None or weights is not None:
        players = {
            spec: {
                g: [
                    {**r, "weight": weights.get(r["what"], r["weight"])} if weights else r
                    for r in rows
                    if whats is None or r["what"] in whats
                ]
                for g, rows in by.items()
            }
            for spec, by in players.items()
        }
    # the pool: the games that hold every kind the case asks (deception is asked of the first games only)
    games = sorted(
        {g for p in players.values() for g, rows in p.items() if all(any(r["kind"] == k for r in rows) for k in kinds)}
    )
    rng = random.Random(args.seed)
    outcomes = [run_until(players, truth, games, rng, kinds, args.draws) for _ in range(args.runs)]
    decided = [sum(n.values()) for ok, _, n, _ in outcomes if ok]
    spent = {
        answers: [len(players) * sum(n * per[k]["dollars"] for k, n in asked_by.items()) for ok, _, asked_by, _ in outcomes if ok]
        for answers, per in (costs or {}).items()
    }
    wrong = sum(1 for _, w, _, _ in outcomes if w)
    if len(truth) > 1:
        items = ", ".join(
            f"{better.split('?')[-1]} > {worse.split('?')[-1]} on {kind}: {sum(o[3][i] for o in outcomes)}/{len(outcomes)}"
            for i, (kind, better, worse) in enumerate(truth)
        )
        print(f"  each by the end of the drawn games: {items}")
    share = len(decided) / len(outcomes)
    p80 = pct(decided, 0.8 / share) if share >= 0.8 else None
    dollars = {k: pct(v, 0.8 / share) for k, v in spent.items()} if share >= 0.8 and decided else {}
    first = next(iter(players.values()))
    asked = [r for g in games for r in first.get(g, []) if r["kind"] in kinds]
    beliefs = sum(1 for r in asked if r["what"] == "belief") / max(1, len(asked))
    print(
        f"{name}: decided in {len(decided)}/{len(outcomes)} runs, wrongly in {wrong}; positions per player: "
        f"80th percentile {p80 if p80 is not None else '> bank'}, median {int(statistics.median(decided)) if decided else '–'}"
        f" ({beliefs:.0%} of them beliefs)"
        + "".join(
            f"; dollars at gpt-4.1-mini, {k}: 80th percentile ${v:.2f} (median ${statistics.median(spent[k]):.2f})"
            for k, v in dollars.items()
        )
    )
    return {
        "decided": len(decided),
        "runs": len(outcomes),
        "wrong": wrong,
        "p80": p80,
        "median": statistics.median(decided) if decided else None,
        "beliefs": beliefs,
        "players": len(players),
        "dollars": dollars,
    }


def information(a: dict[str, list[dict]], b: dict[str, list[dict]], label: str) -> None:
    """Per kind of position: the paired difference A − B (detection: hits; deception: suspicion
    below B's), its sd, and (mean/sd)², what one call adds to the test."""
    theirs = {r["id"]: r for rows in b.values() for r in rows}
    for kind, what in itertools.product((DETECTION, DECEPTION), WHATS):
        diffs = []
        for rows in a.values():
            for r in rows:
                other = theirs.get(r["id"])
                if (r["kind"], r["what"]) == (kind, what) and other is not None:
                    value = paired_value(kind, r, other)
                    if value is not None:
                        diffs.append(value)
        if len(diffs) > 1 and statistics.pstdev(diffs) > 0:
            ratio = statistics.mean(diffs) / statistics.pstdev(diffs)
            print(f"  {label} {kind} {what}: paired difference {statistics.mean(diffs):+.4f}, sd {statistics.pstdev(diffs):.3f}, "
                  f"per call (mean/sd)² = {ratio * ratio:.4f} over {len(diffs)}")  # fmt: skip


def cost_class(row: dict[str, Any]) -> str:
    """What a position costs a model depends on its question: a belief, a town seat's decision, a
    mafia seat's decision (the prompts differ in tools and length)."""
    return "belief" if row["what"] == "belief" else row["kind"]


def model_cost(bank: Path, positions: list[Any], games: int) -> dict[str, dict[str, dict[str, float]]]:
    """Mean tokens and gpt-4.1-mini dollars per position, by :func:`cost_class`, from a model seat
    on the stand-in that answers every asked position of ``games`` games spread over the bank, in
    the order a run asks them (game by game, each game's positions in the bank's order): the
    provider's cache then holds what it holds in a run, where the first call of each seat name
    and card is the only one that reads nothing from it. Twice: with the stand-in's own short
    answers (``short``, the method of the games' figure, :data:`GAME_DOLLARS`) and with every
    thought and speech at its bound (``bounds``, docs/llm.md's dollars table)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from arena.players.llm import load_profiles, resolve_spec
    from tests.llm_server import FakeModelServer

    mini = resolve_spec("gpt-4.1-mini", load_profiles(), {"api_key_env": ""})
    out: dict[str, dict[str, dict[str, float]]] = {}
    for (answers, chars), skill in itertools.product((("short", None), ("bounds", ANSWER_CHARS)), (DETECTION, DECEPTION)):
        chosen = [p for p in positions if p.kind == skill]
        held = sorted({p.game for p in chosen})
        sample = set(held[:: max(1, len(held) // games)][:games])
        asked = [p for p in chosen if p.game in sample]
        with FakeModelServer(seed=1, answer_chars=chars) as server:
            spec = f"openai:fake-tools@{server.openai_url}?structured=tools"
            result = asyncio.run(run_bank(spec, bank, positions=asked))
        for key in sorted({cost_class(r) for r in result.rows}):
            rows = [r for r in result.rows if cost_class(r) == key]
            calls = sum(int(r.get("calls") or 0) for r in rows)
            totals = {k: sum(int((r.get("usage") or {}).get(k, 0)) for r in rows) for k in TOKENS}
            out.setdefault(answers, {})[key] = {
                **{k: v / len(rows) for k, v in totals.items()},
                "dollars": mini.cost(totals) / len(rows),  # linear in the tokens: the mean of the positions'
                "calls": calls / len(rows),
                "positions": len(rows),
                "games": len(sample),
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=600, help="classic games in the bank (default 600)")
    parser.add_argument("--runs", type=int, default=200, help="runs per case (default 200)")
    parser.add_argument("--ladder-runs", type=int, default=50, help="runs of the ladder (10 pairs: slow; default 50)")
    parser.add_argument("--draws", type=int, default=1000, help="games a run draws at most, with replacement (default 1000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sample", type=int, default=24, help="positions a model seat answers on the stand-in")
    parser.add_argument("--skip-model", action="store_true")
    parser.add_argument(
        "--detection", default="accuse,nominate,check,vote,belief", help="detection positions asked (no verdicts)"
    )
    parser.add_argument("--belief-weight", type=float, default=None, help="a belief position's weight (default: the bank's)")
    parser.add_argument("--speech-weight", type=float, default=None, help="a speech position's weight (default: the bank's)")
    parser.add_argument("--deception", default="speech,verdict,vote", help="deception positions asked")
    parser.add_argument("--deception-games", type=int, default=100, help="the first N games' deception positions are asked")
    parser.add_argument("--aa-deception-games", type=int, default=20, help="of them, those the A/A copies answer")
    args = parser.parse_args()
    started = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix="positions-bench-"))
    record_games(folder / "games", "classic", range(1000, 1000 + args.games))
    bank = folder / "bank.jsonl"
    built = build(folder / "games", bank, beliefs=True)
    every = load_bank(bank)
    order = sorted({p.game for p in every})
    early = set(order[: args.deception_games])
    detecting, deceiving = set(args.detection.split(",")), set(args.deception.split(","))
    positions = [
        p for p in every
        if (p.kind == DETECTION and p.what in detecting) or (p.kind == DECEPTION and p.what in deceiving and p.game in early)
    ]  # fmt: skip
    counts: dict[str, int] = {}
    for p in every:
        counts[f"{p.kind} {p.what}"] = counts.get(f"{p.kind} {p.what}", 0) + 1
    chosen = {k: sum(1 for p in positions if p.kind == k) for k in (DETECTION, DECEPTION)}
    print(f"bank: {len(every)} positions of {built.games} classic games ({counts}); asked: {chosen} "
          f"(detection: {args.detection} of every game; deception: {args.deception} of the first {len(early)})")  # fmt: skip

    costs = None
    if not args.skip_model:
        t = time.perf_counter()
        costs = model_cost(bank, positions, args.sample)
        for way, key in ((way, key) for way, per in costs.items() for key in per):
            c = costs[way][key]
            print(
                f"model seat on the stand-in, {way} answers, {key}: {c['positions']} positions of {c['games']} games, "
                f"{c['calls']:.2f} calls each; per position {c['input_tokens']:.0f} prompt tokens "
                f"({c['cached_tokens']:.0f} cached), {c['output_tokens']:.0f} answer tokens: "
                f"${c['dollars']:.5f} at gpt-4.1-mini's list prices"
            )
        print(f"  ({time.perf_counter() - t:.0f} s)")

    t = time.perf_counter()
    baselines: dict[str, Any] = {}
    liar = answers(LIAR, bank, 1, baselines, positions)
    detective = answers(DETECTIVE, bank, 1, baselines, positions)
    print(f"answered by the liar and the detective in {time.perf_counter() - t:.0f} s")
    truth = [(DECEPTION, LIAR, DETECTIVE), (DETECTION, DETECTIVE, LIAR)]
    pair = {LIAR: liar, DETECTIVE: detective}
    weights = {"belief": args.belief_weight} if args.belief_weight is not None else {}
    if args.speech_weight is not None:
        weights["speech"] = args.speech_weight
    weights = weights or None
    decisions = {"accuse", "nominate", "check", "vote"}
    det_only = case("liar vs detective, detection", pair, truth[1:], args, (DETECTION,), weights=weights, costs=costs)
    det_decisions = case(
        "liar vs detective, detection by decisions only", pair, truth[1:], args, (DETECTION,), decisions, costs=costs
    )
    det_beliefs = case(
        "liar vs detective, detection by beliefs only", pair, truth[1:], args, (DETECTION,), {"belief"}, costs=costs
    )
    dec_only = case("liar vs detective, deception", pair, truth[:1], args, (DECEPTION,), weights=weights, costs=costs)
    both = case("liar vs detective, both skills", pair, truth, args, (DETECTION, DECEPTION), weights=weights, costs=costs)
    ballots = case(
        "liar vs detective, both skills, deception by ballots only",
        pair,
        truth,
        args,
        (DETECTION, DECEPTION),
        {*set(args.detection.split(",")), "verdict", "vote"},
        weights,
        costs,
    )
    information(detective, liar, "detective − liar")
    for kind, what in itertools.product((DETECTION, DECEPTION), WHATS):
        key = "hit" if kind == DETECTION else "suspicion"
        a = [r for rows in liar.values() for r in rows if (r["kind"], r["what"]) == (kind, what) and r.get(key) is not None]
        b = [r for rows in detective.values() for r in rows if (r["kind"], r["what"]) == (kind, what) and r.get(key) is not None]
        if a and b:
            ma = statistics.mean(float(r[key]) for r in a)
            mb = statistics.mean(float(r[key]) for r in b)
            print(f"  {kind} {what}: {key} liar {ma:.3f}, detective {mb:.3f} over {len(a)} positions")

    t = time.perf_counter()
    ladder_positions = [p for p in positions if p.kind == DETECTION]
    rungs = {spec: answers(spec, bank, 1, baselines, ladder_positions) for spec in LADDER}
    print(f"ladder: {len(ladder_positions)} detection positions answered by 5 rungs ({time.perf_counter() - t:.0f} s)")
    ladder_truth = [(DETECTION, LADDER[i + 1], LADDER[i]) for i in range(len(LADDER) - 1)]
    for i in range(len(LADDER) - 1):
        information(rungs[LADDER[i + 1]], rungs[LADDER[i]], f"{LADDER[i + 1].split('=')[-1]} − {LADDER[i].split('=')[-1]}")
    ladder_args = argparse.Namespace(**{**vars(args), "runs": args.ladder_runs})
    name = "ladder, adjacent rungs in order on detection"
    ladder = case(name, rungs, ladder_truth, ladder_args, (DETECTION,), weights=weights, costs=costs)
    ladder_decisions = case(f"{name} by decisions only", rungs, ladder_truth, ladder_args, (DETECTION,), decisions, costs=costs)
    ladder_beliefs = case(f"{name} by beliefs only", rungs, ladder_truth, ladder_args, (DETECTION,), {"belief"}, costs=costs)

    t = time.perf_counter()
    aa_early = set(order[: args.aa_deception_games])
    aa_positions = [p for p in positions if p.kind == DETECTION or p.game in aa_early]
    copies = {f"{AA}#{s}": answers(AA, bank, s, {}, aa_positions) for s in (1, 2, 3)}
    rng = random.Random(args.seed)
    games = sorted({g for p in copies.values() for g in p})
    errors = sum(aa_run(copies, games, rng, args.draws) for _ in range(args.runs))
    print(f"A/A: three copies of {AA} (seeds 1-3), {len(aa_positions)} positions; runs of {args.draws} games of {len(games)} "
          f"looked at after each: {errors}/{args.runs} = {errors / args.runs:.1%} called a pair different on either skill "
          f"({time.perf_counter() - t:.0f} s)")  # fmt: skip
    if costs:
        for label, result, games in (
            ("detection", det_only, GAMES_80), ("detection by decisions", det_decisions, GAMES_80),
            ("detection by beliefs", det_beliefs, GAMES_80), ("deception", dec_only, GAMES_80),
            ("both skills", both, GAMES_80), ("both, deception by ballots", ballots, GAMES_80),
            ("ladder", ladder, LADDER_GAMES_80), ("ladder by decisions", ladder_decisions, LADDER_GAMES_80),
            ("ladder by beliefs", ladder_beliefs, LADDER_GAMES_80),
        ):  # fmt: skip
            if result["p80"] is None:
                print(f"  {label}: not decided in 80% of runs within the bank: positions cannot say it at this size")
                continue
            low, high = games * GAME_DOLLARS[0], games * GAME_DOLLARS[1]
            spent = ", ".join(f"{way} answers ${d:.2f}" for way, d in result["dollars"].items())
            print(
                f"  {label}: {result['players']} players × {result['p80']} positions, 80th percentile of the runs' "
                f"dollars: {spent}; games: {games} games × ~{GAME_CALLS} calls ≈ ${low:.0f}–{high:.0f} "
                f"(at the bounds, history folded: ${games * GAME_DOLLARS_AT_BOUNDS:.0f})"
            )
    print(f"total {time.perf_counter() - started:.0f} s; load: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
