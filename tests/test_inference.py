"""The leaderboard's inference: paired differences, the sign-flip test, Holm, power, the skill model,
order independence, the JSON output, the 80-column terminal, and calibration on bot games.

The calibration tests measure error rates the way docs/tournaments.md reports them: a null
tournament (``random`` under two names) must be flagged in at most 8% of runs, the bot against the
random player in at least 95% of 50-pair runs.
"""

from __future__ import annotations

import io
import itertools
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from arena.tournament.calibration import DifferencePool, play_tournament, rates, relabel, run_resampled
from arena.tournament.db import Database, GameRecord
from arena.tournament.inference import (
    Z_ALPHA,
    Z_POWER,
    compare,
    compare_all,
    holm,
    holm_tarone,
    paired_differences,
    pairs_for,
    sign_flip_p,
    smallest_p,
)
from arena.tournament.leaderboard import build_report, print_report, report_from_results
from arena.tournament.metrics import Stat
from arena.tournament.results import Results
from arena.tournament.skills import Observations, fit_skills, skill_report

ROOT = Path(__file__).resolve().parent.parent


# ---- the sign-flip test, Holm, power -----------------------------------------------------------------
def test_sign_flip_p_is_exact():
    """Against a full enumeration of sign patterns, on the grid (convolution) and off it."""
    rng = np.random.default_rng(0)
    for _ in range(60):
        m = int(rng.integers(1, 11))
        d = rng.choice([-1, -0.5, 0, 0.5, 1, 0.25, 2, 0.3, math.pi], size=m)
        nonzero = d[d != 0]
        if not len(nonzero):
            assert sign_flip_p(d, 0) == 1.0
            continue
        signs = np.array(list(itertools.product((-1.0, 1.0), repeat=len(nonzero))))
        exact = np.mean(np.abs(signs @ nonzero) >= abs(nonzero.sum()) - 1e-9)
        assert sign_flip_p(d, 1) == pytest.approx(exact, abs=1e-12)
    # 10 wins of A in 10 pairs: 2 patterns of 1024 are as extreme.
    assert sign_flip_p(np.ones(10), 0) == pytest.approx(2 / 1024)
    # Off the grid and many: Monte Carlo, (1 + hits) / (1 + draws), close to the exact normal limit.
    d = np.random.default_rng(3).normal(0.3, 1.0, size=200) + 1e-7
    p = sign_flip_p(d, 5)
    z = abs(d.sum()) / math.sqrt((d**2).sum())
    assert p == pytest.approx(math.erfc(z / math.sqrt(2)), abs=0.01)
    assert sign_flip_p(d, 5) == p  # seeded


def test_holm_adjustment():
    # p sorted: 0.01 · 4, 0.02 · 3, 0.03 · 2 → max so far, 0.04 · 1 → kept monotone.
    assert holm([0.03, 0.01, 0.04, 0.02]) == pytest.approx([0.06, 0.04, 0.06, 0.06])
    assert holm([0.5, 0.9]) == [1.0, 1.0]
    assert holm([]) == []
    # Tarone: a test that cannot reach p ≤ 0.05 (3 non-zero differences: at best 2 / 2³) is left out.
    assert smallest_p(np.array([1.0, 0.0, -1.0, 0.5])) == 0.25 and smallest_p(np.zeros(4)) == 1.0
    assert holm_tarone([0.01, 0.3, 0.02], [0.001, 0.25, 0.004]) == pytest.approx([0.02, 1.0, 0.02])


def test_power_figures():
    # sd 0.6, Δ 0.10: ((1.959964 + 0.841621) · 0.6 / 0.1)² = 282.4 → 283 pairs.
    assert pairs_for(0.6, 0.10) == math.ceil(((Z_ALPHA + Z_POWER) * 0.6 / 0.10) ** 2) == 283
    assert pairs_for(0.6, 0.0) is None and pairs_for(0.0, 0.1) is None
    d = np.array([1.0, 0.0, -1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, -1.0])
    c = compare("a", "b", "classic", "mafia", "win", [f"k{i}" for i in range(10)], d)
    assert c.diff == pytest.approx(0.2) and c.sd == pytest.approx(d.std(ddof=1))
    assert c.mde == pytest.approx((Z_ALPHA + Z_POWER) * c.sd / math.sqrt(10))
    assert c.pairs_for_target == pairs_for(c.sd, 0.10) and c.pairs_needed == pairs_for(c.sd, 0.2)
    assert c.verdict() == "no detectable difference yet" and c.better is None
    # as many pairs as a difference of the target needs, and none found: not "yet", but "smaller"
    wide = compare("a", "b", "classic", "mafia", "win", [f"k{i}" for i in range(40)], np.tile([0.05, -0.05], 20))
    assert wide.pairs_for_target is not None and wide.pairs_for_target <= 40
    assert wide.verdict() == "no difference as large as the target" and wide.better is None
    few = compare("a", "b", "classic", "mafia", "win", ["k0", "k1"], np.array([1.0, 1.0]))
    assert few.verdict() == "too few pairs" and few.mde is None and few.pairs_for_target is None


# ---- paired differences from hand-made games -------------------------------------------------------
def record(key: str, first: str, second: str, seats: list[tuple[str, str, str, float]], stats: list[Stat]) -> GameRecord:
    """A game of variant classic, size 4, round 1: seats as (seat, model, side, result)."""
    game = {"key": key, "variant": "classic", "players": 4, "round": 1, "seed": 1, "pairing": "~".join(sorted((first, second))),
            "first": first, "second": second}  # fmt: skip
    players = [{"game": key, "seat": s, "model": m, "side": side, "result": r} for s, m, side, r in seats]
    return GameRecord(game, players, stats, [])


def test_paired_differences_by_side():
    """One pair: game 1 with A as mafia (lost), game 2 with B as mafia (won); votes and survival by hand."""
    g1 = record("classic/4/r1/A~B/A", "A", "B", [("s1", "A", "mafia", 0.0), ("s2", "B", "town", 1.0), ("s3", "B", "town", 1.0)], [
        Stat("s1", "mafia", "win", 0, 1), Stat("s2", "citizen", "win", 1, 1), Stat("s3", "citizen", "win", 1, 1),
        Stat("s1", "mafia", "survival", 0, 1), Stat("s2", "citizen", "votes_on_mafia", 2, 3),
        Stat("s3", "citizen", "votes_on_mafia", 1, 1),
    ])  # fmt: skip
    g2 = record("classic/4/r1/A~B/B", "B", "A", [("s1", "B", "mafia", 1.0), ("s2", "A", "town", 0.0), ("s3", "A", "town", 0.0)], [
        Stat("s1", "mafia", "win", 1, 1), Stat("s2", "citizen", "win", 0, 1), Stat("s3", "citizen", "win", 0, 1),
        Stat("s1", "mafia", "survival", 1, 1), Stat("s2", "citizen", "votes_on_mafia", 0, 2),
        Stat("s3", "citizen", "votes_on_mafia", 1, 2),
    ])  # fmt: skip
    results = Results.from_records([g2, g1])
    (pair,) = results.pairs()
    assert (pair.a, pair.b, pair.game_a, pair.game_b) == ("A", "B", g1.game["key"], g2.game["key"])

    def diff(metric: str, side: str) -> float:
        _keys, d = paired_differences(results, [pair], metric, side)
        return float(d[0])

    assert diff("win", "mafia") == -1.0  # A's mafia lost, B's won
    assert diff("win", "town") == -1.0  # A's town lost (game 2), B's won (game 1)
    assert diff("win", "all") == -1.0  # (0 + 0) / 2 − (1 + 1) / 2
    assert diff("survival", "mafia") == -1.0
    # Town votes on mafia, pooled over the side's seats: A (game 2) 1 / 4, B (game 1) 3 / 4.
    assert diff("votes_on_mafia", "town") == pytest.approx(1 / 4 - 3 / 4)
    assert paired_differences(results, [pair], "votes_on_mafia", "mafia")[1].size == 0  # nobody's


# ---- the skill model --------------------------------------------------------------------------------
def simulated(deception: dict[str, float], detection: dict[str, float], c: float, rounds: int, seed: int) -> Observations:
    """Round-robin games drawn from the model itself: every ordered pairing, ``rounds`` times."""
    rng = np.random.default_rng(seed)
    models = sorted(deception)
    rows = []
    for r in range(rounds):
        for i, j in itertools.permutations(range(len(models)), 2):
            p = 1 / (1 + math.exp(-(c + deception[models[i]] - detection[models[j]])))
            rows.append((r, i, j, float(rng.random() < p)))
    units: dict[tuple[int, int, int], list[int]] = {}
    for k, (r, i, j, _) in enumerate(rows):
        units.setdefault((r, min(i, j), max(i, j)), []).append(k)
    return Observations(
        strata=["7"], models=models, stratum=np.zeros(len(rows), dtype=int),
        mafia=np.array([i for _, i, _, _ in rows]), town=np.array([j for _, _, j, _ in rows]),
        y=np.array([y for *_, y in rows]), units=[(f"{i}~{j}", ks) for (r, i, j), ks in sorted(units.items())],
        deals=[f"classic/7/r{r}" for r, *_ in rows],
    )  # fmt: skip


def test_skill_model_recovers_known_skills():
    """Games drawn from logit P = c + deception[M] − detection[T] (skills summing to zero): the fit
    finds them back within its intervals, and the exact contrast test tells the strong model apart."""
    deception = {"a": 0.8, "b": 0.0, "c": -0.8}
    detection = {"a": -0.5, "b": 1.0, "c": -0.5}
    fit = fit_skills(simulated(deception, detection, 0.3, 300, seed=1), "classic", resamples=300)
    got = {s.model: s for s in fit.skills}
    for m in deception:
        assert got[m].deception.lo <= deception[m] <= got[m].deception.hi, (m, got[m].deception)
        assert got[m].detection.lo <= detection[m] <= got[m].detection.hi, (m, got[m].detection)
        assert got[m].deception.estimate == pytest.approx(deception[m], abs=0.35)
    assert sum(s.deception.estimate for s in fit.skills) == pytest.approx(0, abs=1e-6)  # sum to zero
    assert fit.intercepts["7"] == pytest.approx(0.3, abs=0.3)
    diffs = {(d.a, d.b, d.skill): d for d in fit.differences}
    assert diffs[("a", "c", "deception")].p < 0.001 and diffs[("a", "c", "deception")].deals == 300
    assert diffs[("a", "b", "detection")].diff.estimate == pytest.approx(-1.5, abs=0.5)


def test_skill_model_needs_three_models_and_stays_finite():
    """Two models: only each model's deception + detection is identified, so no fit (one line why).
    One side winning every game keeps finite estimates (the prior)."""
    games = play_tournament({"bot": "bot", "random": "random"}, [{"name": "classic", "players": 7}], 4, seed=1)
    report = skill_report(Results.from_records(games), resamples=50)
    assert report.fits == [] and "at least 3 models" in (report.note or "")
    sweep = simulated({"a": 9.0, "b": 0.0, "c": -9.0}, {"a": 9.0, "b": 0.0, "c": -9.0}, 0.0, 20, seed=2)
    fit = fit_skills(sweep, "classic", resamples=50)
    assert all(abs(s.deception.estimate) < 10 and math.isfinite(s.detection.hi) for s in fit.skills)


# ---- order independence, JSON, 80 columns --------------------------------------------------------------
@pytest.fixture(scope="module")
def three_models() -> list[GameRecord]:
    """A round robin of the bot and the random player under two names: classic and cove (maniac: the bot)."""
    variants = [{"name": "classic", "players": 7}, {"name": "cove", "players": 10}]
    return play_tournament({"bot": "bot", "random": "random", "random2": "random"}, variants, 6, seed=4)


def write_db(path: Path, records: list[GameRecord]) -> Path:
    with Database(path) as db:
        for rec in records:
            db.record(rec)
    return path


def test_intervals_do_not_depend_on_row_order(tmp_path, three_models):
    """The same games written in another order, or as two databases merged into one, print the
    same comparisons, intervals and skills."""
    in_order = write_db(tmp_path / "a.sqlite", three_models)
    shuffled = list(three_models)
    random.Random(7).shuffle(shuffled)
    reordered = write_db(tmp_path / "b.sqlite", shuffled)
    half = len(shuffled) // 2
    part1, part2 = write_db(tmp_path / "p1.sqlite", shuffled[:half]), write_db(tmp_path / "p2.sqlite", shuffled[half:])
    merged = tmp_path / "merged.sqlite"
    write_db(merged, [])
    with Database(merged) as db:  # what a user merging two machines' databases does
        for part in (part2, part1):
            db.conn.execute("ATTACH DATABASE ? AS part", (str(part),))
            for table in ("games", "player_games", "stats", "beliefs"):
                db.conn.execute(f"INSERT INTO {table} SELECT * FROM part.{table}")
            db.conn.commit()
            db.conn.execute("DETACH DATABASE part")
    outputs = []
    for path in (in_order, reordered, merged):
        with Database(path, create=False) as db:
            outputs.append(build_report(db, resamples=200).as_json())
    assert outputs[0]["comparisons"] and outputs[0]["skills"]
    assert outputs[0] == outputs[1] == outputs[2]


def test_leaderboard_json_fields(tmp_path, three_models):
    path = write_db(tmp_path / "t.sqlite", three_models)
    out = subprocess.run([sys.executable, "-m", "arena", "leaderboard", str(path), "--json"], capture_output=True, text=True,
                         timeout=300, cwd=ROOT)  # fmt: skip
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)  # one JSON object, nothing else on stdout
    assert not (tmp_path / "t-leaderboard").exists()  # no files unless --out
    comparisons, skills = data["comparisons"], data["skills"]
    assert {c["metric"] for c in comparisons} >= {"win", "survival", "votes_missed_excess", "votes_on_mafia_excess"}
    for c in comparisons:
        assert {"a", "b", "variant", "side", "metric", "diff", "ci95", "p", "p_adjusted", "pairs"} <= set(c)
        assert c["side"] in ("all", "mafia", "town") and c["a"] < c["b"] and c["pairs"] >= 1
        assert 0 <= c["p"] <= c["p_adjusted"] <= 1 and len(c["ci95"]) == 2
    win = [c for c in comparisons if c["metric"] == "win" and c["variant"] == "classic" and c["side"] == "mafia"]
    assert {(c["a"], c["b"]) for c in win} == {("bot", "random"), ("bot", "random2"), ("random", "random2")}
    assert {(s["model"], s["variant"]) for s in skills} == {
        (m, v) for m in ("bot", "random", "random2") for v in ("classic", "cove", "*")
    }
    for s in skills:
        for skill in ("deception", "detection"):
            lo, hi = s[skill]["ci95"]
            assert lo <= s[skill]["estimate"] <= hi
    assert data["settings"]["adjustment"] == "holm" and data["skill_differences"]


def test_terminal_leaderboard_fits_80_columns(three_models):
    report = report_from_results(Results.from_records(three_models), resamples=100)
    buffer = io.StringIO()
    print_report(report, Console(file=buffer, width=80, color_system=None, legacy_windows=False))
    lines = buffer.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    assert not any("…" in line for line in lines)  # nothing cut off to fit
    text = buffer.getvalue()
    assert "DECEPTION AND DETECTION" in text and "PAIRED COMPARISONS" in text and "Ratings (openskill" in text
    assert sum(line.startswith(("win rate ", "survival ")) for line in lines) >= 3 * 2 * 4  # every pairing, both variants


# ---- calibration: error rates measured on bot games --------------------------------------------------
@pytest.fixture(scope="module")
def null_pool() -> DifferencePool:
    """150 mirrored pairs of random against random (one spec under two names), 7-player classic."""
    return DifferencePool(
        play_tournament({"random": "random", "random2": "random"}, [{"name": "classic", "players": 7}], 150, seed=11)
    )


def test_null_tournaments_flag_at_most_8_percent(null_pool):
    """360 null tournaments of 50 pairs, each pair drawn from real games with the names swapped at random:
    the win-rate test, and the whole Holm-adjusted family, flag a difference in at most 8% of them.

    Three seeds of 120: the runs of one seed share the pool's own tilt, and with two models the family
    is small (one-side comparisons need a third model), so one seed's rate swings: 8.3%, 2.5%, 3.3%."""
    measured = rates([run for seed in (2, 3, 4) for run in run_resampled(null_pool, 50, 120, seed=seed, swap=True)])
    assert measured.runs == 360
    assert measured.primary <= 0.08, measured.text()
    assert measured.family <= 0.08, measured.text()
    assert measured.covered >= 0.88, measured.text()


def test_bot_against_random_is_flagged_at_50_pairs():
    """50 runs of 50 pairs from 80 real bot-against-random pairs: the win rate differs in at least 95%."""
    pool = DifferencePool(play_tournament({"bot": "bot", "random": "random"}, [{"name": "classic", "players": 7}], 80, seed=12))
    runs = run_resampled(pool, 50, 50, seed=3, swap=False)
    flagged = sum(r.primary().significant and r.primary().better == "bot" for r in runs)
    assert flagged / len(runs) >= 0.95


def test_null_tournament_on_real_games_compare_all(null_pool):
    """compare_all end to end on fresh null games (not resampled): nothing flagged after Holm."""
    games = play_tournament({"random": "random", "random2": "random"}, [{"name": "classic", "players": 7}], 30, seed=99)
    comparisons = compare_all(Results.from_records(games))
    assert comparisons and not any(c.significant for c in comparisons)


def test_skill_differences_null_round_robin():
    """Three copies of the random player: rounds drawn from real round-robin games, labels permuted per
    round (the null makes them arbitrary). The exact contrast test flags a pair in at most 10% of runs."""
    games = play_tournament({"x": "random", "y": "random", "z": "random"}, [{"name": "classic", "players": 7}], 40, seed=21)
    rounds: dict[int, list[GameRecord]] = {}
    for rec in games:
        rounds.setdefault(rec.game["round"], []).append(rec)
    pool = list(rounds.values())
    rng = np.random.default_rng(5)
    perms = list(itertools.permutations("xyz"))
    flagged = 0
    runs = 40
    for _ in range(runs):
        drawn = []
        for k in range(15):
            names = dict(zip("xyz", perms[int(rng.integers(6))], strict=True))
            drawn += [relabel(g, k + 1, names) for g in pool[int(rng.integers(len(pool)))]]
        flagged += any(d.significant for d in skill_report(Results.from_records(drawn), resamples=50).differences)
    assert flagged / runs <= 0.10
