"""Tournaments without models: config errors, the balanced design (mirrored pairs, drawn names and
seating, a third party for cove's maniac, player seeds), bootstrap cells, ratings, a bot tournament
through the command line and its leaderboard, and balance. The inference: tests/test_inference.py."""

from __future__ import annotations

import csv
import math
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from openskill.models import PlackettLuce

from arena.run.config import ConfigError
from arena.tournament.balance import BalanceError, balance, parse_sizes, wilson
from arena.tournament.config import load_tournament, parse_tournament
from arena.tournament.design import NAME_POOL, build_design, role_counts
from arena.tournament.leaderboard import bootstrap, cells
from arena.tournament.ratings import rate_games
from arena.tournament.runner import play_builtin
from arena.variants import get_variant

ROOT = Path(__file__).resolve().parent.parent


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def config(**overrides):
    data = {"models": {"a": "bot", "b": "random", "c": "bot"}, "games": 6, "variants": [{"name": "classic", "players": 7}]}
    data.update(overrides)
    return parse_tournament(data, "t.toml", "t")


# ---- config ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"models": {"a": "bot"}}, "models: Value error, a tournament compares at least two models"),
        ({"games": 4}, "variants.0: 4 games per size is not a multiple of 6 (3 model pairings × 2 mirrored games); use 6"),
        ({"games": 8}, "is not a multiple of 6 (3 model pairings × 2 mirrored games); use 6 or 12"),
        ({"variants": [{"name": "chess"}]}, "variants.0.name: unknown variant 'chess'"),
        ({"variants": [{"name": "classic", "players": 40}]}, "variants.0.players: classic takes 6-18 players, not 40"),
        ({"variants": [{"name": "classic", "options": {"max_days": 0}}]}, "variants.0.options.max_days: Input should be"),
        ({"variants": [{"name": "cove", "players": 7, "options": {"mafia_by_players": {"7": 4}}}]}, "variants.0: 7 players:"),
        ({"models": {"a": "bot", "b": "human"}}, "a tournament cannot seat a human"),
        ({"models": {"a b": "bot", "c": "bot"}}, "model name 'a b'"),
        ({"concurrency": 0}, "concurrency: Input should be greater than or equal to 1"),
        ({"third_party": "human"}, "third_party: Value error, a tournament cannot seat a human"),
        ({"models": {"a": "bot", "b": "random"}, "games": 2, "third_party": "rotate"}, "'rotate' needs at least three models"),
        ({"surprise": 1}, "surprise: Extra inputs are not permitted"),
    ],
)
def test_config_errors_are_one_line(data, message):
    with pytest.raises(ConfigError) as err:
        config(**data)
    text = str(err.value)
    assert text.startswith("config error: t.toml: ") and "\n" not in text
    assert message in text


def test_config_defaults_and_model_settings():
    cfg = parse_tournament(
        {"models": {"x": "bot", "y": {"spec": "openai:m@http://127.0.0.1:1/v1", "timeout": 5}}, "variants": [{"name": "duel"}]},
        "t.toml",
        "demo",
    )
    assert cfg.name == "demo" and str(cfg.database) == "transcripts/demo.sqlite" and str(cfg.transcripts) == "transcripts/demo"
    assert cfg.models[1].settings == {"timeout": 5} and cfg.variants[0].sizes == (2,) and cfg.variants[0].games == 2


@pytest.mark.parametrize("path", sorted((ROOT / "configs" / "tournaments").glob("*.toml")), ids=lambda p: p.name)
def test_example_configs_parse(path):
    cfg = load_tournament(path)
    assert cfg.name == path.stem and len(cfg.models) >= 2 and build_design(cfg)


# ---- the design -------------------------------------------------------------------------------------
def test_design_is_mirrored_and_balanced():
    cfg = config(
        games=12,
        variants=[
            {"name": "classic", "players": [7, 9]},
            {"name": "cove", "players": 10},
            {"name": "village", "players": 11, "games": 6},
            {"name": "trio"},
        ],
    )
    design = build_design(cfg)
    assert len(design) == 12 * 2 + 12 + 6 + 12
    assert len({g.key for g in design}) == len(design)
    pairs = Counter((g.variant.name, g.players, g.round, g.pairing) for g in design)
    assert set(pairs.values()) == {2}  # every game has its mirror ...
    for a, b in zip(design[::2], design[1::2], strict=True):  # ... right after it, same seed, sides swapped
        assert (a.seed, a.pairing, a.first, a.second) == (b.seed, b.pairing, b.second, b.first)
        ga, gb = a.make_game(), b.make_game()
        assert ga.role_of == gb.role_of
        assign_a, assign_b = a.assignment(ga), b.assignment(gb)
        sides = a.sides(ga)
        assert all(assign_a[s] != assign_b[s] for s in ga.seats if sides[s] in ("mafia", "town", "A", "B"))
        assert all(assign_a[s] == assign_b[s] == a.third for s in ga.seats if sides[s] == "maniac")
        if a.variant.name != "trio":
            assert {m.name for s, m in assign_a.items() if ga.team(s) == "mafia"} == {a.first.name}
    # Every model holds every role (McKay: every side) equally often, per variant and size.
    counts = role_counts(design)
    for variant, size in {(k[1], k[2]) for k in counts}:
        labels = {k[3] for k in counts if k[1:3] == (variant, size)}
        for label in labels:
            held = {m: counts.get((m, variant, size, label), 0) for m in ("a", "b", "c")}
            assert len(set(held.values())) == 1, (variant, size, label, held)
    # Each round draws its seat names and seating from the pool; the pair and every pairing share them.
    for (variant, size, round_), specs in _by_round(design).items():
        names = {g.seats for g in specs}
        assert len(names) == 1, (variant, size, round_)
        (seats,) = names
        assert len(seats) == size == len(set(seats)) and set(seats) <= set(NAME_POOL)
    classic7 = [g.seats for g in design if g.variant.name == "classic" and g.players == 7]
    assert len(set(classic7)) == 2  # two rounds, two seatings
    # Round-major order: round 1 of every variant comes before any round 2.
    rounds = [g.round for g in design]
    assert rounds == sorted(rounds)
    # Seeds do not depend on how many rounds there are: a longer tournament extends a shorter one.
    longer = {g.key: g.seed for g in build_design(config(games=24, variants=[{"name": "classic", "players": [7, 9]}]))}
    assert all(longer[g.key] == g.seed for g in design if g.variant.name == "classic")


def _by_round(design):
    out = {}
    for g in design:
        out.setdefault((g.variant.name, g.players, g.round), []).append(g)
    return out


def test_cove_maniac_is_played_by_a_third_party():
    """Neither model of a pairing holds the maniac: the config's third party does (default the bot),
    or with ``rotate`` the models outside the pairing, round by round."""
    cfg = config(games=12, variants=[{"name": "cove", "players": 10}])
    assert cfg.third_party is not None and cfg.third_party.spec == "bot"
    for spec in build_design(cfg):
        game = spec.make_game()
        assignment = spec.assignment(game)
        (maniac,) = [s for s in game.seats if game.role_of[s] == "maniac"]
        assert assignment[maniac].name == "third:bot"
        assert {assignment[s].name for s in game.seats if game.role_of[s] == "mafia"} == {spec.first.name}
        assert {assignment[s].name for s in game.seats if game.team(s) == "town"} == {spec.second.name}
    rotated = build_design(config(games=12, third_party="rotate", variants=[{"name": "cove", "players": 10}]))
    for specs in _by_round(rotated).values():
        for a, b in zip(specs[::2], specs[1::2], strict=True):
            assert a.third == b.third  # both games of a pair
            assert a.third.name not in (a.first.name, a.second.name)  # never a model of the pairing
    assert all(g.third is None for g in build_design(config()))  # classic has no third side


def test_rotated_maniac_counts_in_no_model_overall_figures():
    """With ``rotate``, a model plays the maniac in other pairings' games: recorded under its name with
    side ``maniac``, in the maniac side's cells only, never in its overall ones or its game count."""
    from arena.tournament.calibration import play_tournament
    from arena.tournament.leaderboard import report_from_results
    from arena.tournament.results import Results

    games = play_tournament({"a": "bot", "b": "random", "c": "random"}, [{"name": "cove", "players": 10}], 2, seed=3,
                            third_party="rotate")  # fmt: skip
    for rec in games:
        maniac = [p for p in rec.players if p["side"] == "maniac"]
        assert len(maniac) == 1 and maniac[0]["model"] not in (rec.game["first"], rec.game["second"])
    report = report_from_results(Results.from_records(games), resamples=20)
    assert report.games == {"a": 8, "b": 8, "c": 8}  # 2 rounds × 2 pairings × 2 games each, the maniac's excluded
    assert all(c.group != "all" or c.model in "abc" for c in report.cells.values())
    maniac_cells = {c.model for c in report.cells.values() if c.group == "side:maniac"}
    assert maniac_cells == {"a", "b", "c"}
    win_all = report.cells[("a", "cove", "all", "win")]
    assert win_all.games == 8


def test_players_get_their_own_seed_per_game():
    """The two games of a pair give their players different seeds: the same seeded player under two
    names (the null case) plays two games, not one game twice."""
    cfg = parse_tournament(
        {"models": {"r1": "random", "r2": "random"}, "games": 20, "variants": [{"name": "classic", "players": 7}]}
    )
    design = build_design(cfg)
    assert all(a.player_seed != b.player_seed for a, b in zip(design[::2], design[1::2], strict=True))
    played = [play_builtin(spec) for spec in design]
    same = sum(x.game["events"] == y.game["events"] and x.game["winner"] == y.game["winner"]
               for x, y in zip(played[::2], played[1::2], strict=True))  # fmt: skip
    assert same < len(played) // 4
    assert {p["model"] for rec in played for p in rec.players} == {"r1", "r2"}


def test_same_spec_under_two_names_is_allowed():
    cfg = parse_tournament({"models": {"a": "random", "b": "random"}, "variants": [{"name": "classic"}]}, "t.toml", "t")
    assert [m.spec for m in cfg.models] == ["random", "random"] and len(build_design(cfg)) == 2


# ---- cells, intervals, ratings ------------------------------------------------------------------------
def rows(model, variant, metric, per_game, role="citizen"):
    return [
        {"game": f"g{i}", "seat": f"s{j}", "role": role, "metric": metric, "num": n, "den": d, "model": model, "variant": variant}
        for i, seats in enumerate(per_game)
        for j, (n, d) in enumerate(seats)
    ]


def test_cells_pool_by_metric_kind():
    data = (
        rows("m", "classic", "votes_on_mafia", [[(1, 2), (0, 1)], [(3, 3)]])  # ratio: (1 + 0 + 3) / (2 + 1 + 3)
        + rows("m", "classic", "win", [[(1, 1), (1, 1)], [(0, 1), (1, 1)], [(0, 1)]])  # game mean: (1 + ½ + 0) / 3
        + rows("m", "classic", "cost", [[(0.5, 1), (0.25, 1)], [(1.0, 1)]])  # per game: (0.75 + 1.0) / 2
        + rows("m", "classic", "win", [[(1, 1)]], role="mafia")
    )
    table = cells(data)
    assert table[("m", "classic", "all", "votes_on_mafia")].value == pytest.approx(4 / 6)
    assert table[("m", "classic", "role:citizen", "win")].value == pytest.approx(0.5)
    assert table[("m", "classic", "all", "cost")].value == pytest.approx(0.875)
    assert table[("m", "classic", "side:mafia", "win")].value == 1.0 and table[("m", "classic", "side:town", "win")].games == 3
    # "all" pools every role of the game g0: citizen seats 1, 1 and the mafia seat 1 -> 1; g1 ½; g2 0.
    assert table[("m", "*", "all", "win")].value == pytest.approx(0.5)
    for c in table.values():
        if c.games == 1:  # one game resampled is itself: no interval (not a collapsed one)
            assert math.isnan(c.lo) and math.isnan(c.hi)
            continue
        assert c.lo <= c.value + 1e-12 and c.value <= c.hi + 1e-12
    assert table[("m", "classic", "role:mafia", "win")].games == 1
    assert cells(data) == table  # seeded: the same database prints the same intervals


def test_bootstrap_interval():
    ones = bootstrap(np.ones(20), np.ones(20), seed=1)
    assert ones == (1.0, 1.0)
    coin = np.array([1.0, 0.0] * 50)
    lo, hi = bootstrap(coin, np.ones(100), seed=2)
    # The normal approximation for p = ½, n = 100: ½ ± 1.96·0.05 = [0.402, 0.598].
    assert lo == pytest.approx(0.402, abs=0.025) and hi == pytest.approx(0.598, abs=0.025)
    assert bootstrap(coin, np.ones(100), seed=2) == (lo, hi)


def test_ratings_follow_openskill():
    games = [
        {"key": "k2", "round": 1, "first": "B", "second": "A"},
        {"key": "k1", "round": 1, "first": "A", "second": "B"},
        {"key": "k3", "round": 2, "first": "A", "second": "B"},
    ]
    pg = [
        {"game": "k1", "model": "A", "side": "mafia", "result": 1.0},
        {"game": "k1", "model": "A", "side": "mafia", "result": 1.0},
        {"game": "k1", "model": "B", "side": "town", "result": 0.0},
        {"game": "k2", "model": "B", "side": "mafia", "result": 0.0},
        {"game": "k2", "model": "A", "side": "town", "result": 1.0},
        {"game": "k3", "model": "A", "side": "A", "result": 0.5},
        {"game": "k3", "model": "B", "side": "B", "result": 0.5},
        {"game": "k3", "model": "third:bot", "side": "maniac", "result": 1.0},  # not part of the match
    ]
    got = rate_games(games, pg)
    # By hand with openskill, in (round, key) order: k1 A beats B; k2 A beats B; k3 a tie.
    model = PlackettLuce()
    a, b = model.rating(name="A"), model.rating(name="B")
    for ranks in ([1, 2], [1, 2], [1, 1]):
        [[a], [b]] = model.rate([[a], [b]], ranks=ranks)
    assert got.overall["A"].mu == pytest.approx(a.mu) and got.overall["B"].sigma == pytest.approx(b.sigma)
    assert got.overall["A"].games == 3
    assert got.overall["A"].ordinal == pytest.approx(a.mu - 3 * a.sigma)
    assert set(got.overall) == {"A", "B"}


# ---- a bot tournament, end to end through the command --------------------------------------------------
def write_config(tmp_path: Path, **extra: str) -> Path:
    lines = [
        'name = "bots"', "seed = 5", "games = 4", "concurrency = 3", "beliefs = true",
        f'database = "{tmp_path / "bots.sqlite"}"', f'transcripts = "{tmp_path / "tr"}"',
        "[models]", 'bot = "bot"', 'random = "random"',
        "[[variants]]", 'name = "classic"', "players = [6, 8]",
        "[[variants]]", 'name = "duel"', "games = 2", "options = { hands = 2 }",
    ]  # fmt: skip
    path = tmp_path / "bots.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_bot_tournament_resumes_and_leaderboard(tmp_path):
    path = write_config(tmp_path)
    out = arena("tournament", str(path))
    assert out.returncode == 0, out.stderr
    assert "bots: 10 games played, 0 already finished, 0 failed" in out.stdout
    db = sqlite3.connect(tmp_path / "bots.sqlite")
    keys = [k for (k,) in db.execute("SELECT key FROM games")]
    assert len(keys) == len(set(keys)) == 10
    assert db.execute("SELECT COUNT(*) FROM player_games").fetchone()[0] == 4 * 6 + 4 * 8 + 2 * 2
    assert db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0] == 10
    # bots answered the belief probe every day of the team games
    assert db.execute("SELECT COUNT(DISTINCT game) FROM beliefs").fetchone()[0] == 8
    assert db.execute("SELECT MIN(p) >= 0 AND MAX(p) <= 1 FROM beliefs").fetchone()[0] == 1
    for (transcript,) in db.execute("SELECT transcript FROM games"):
        assert Path(transcript).is_file()
    again = arena("tournament", str(path))
    assert again.returncode == 0 and "0 games played, 10 already finished" in again.stdout
    assert db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0] == 10
    path.write_text(path.read_text().replace("seed = 5", "seed = 6"))  # another setup, same database
    other = arena("tournament", str(path))
    assert other.returncode == 2 and len(other.stderr.strip().splitlines()) == 1
    assert "was played with another setup" in other.stderr

    board = arena("leaderboard", str(tmp_path / "bots.sqlite"), "--out", str(tmp_path / "lb"))
    assert board.returncode == 0, board.stderr
    assert "Ratings (openskill" in board.stdout and "PAIRED COMPARISONS" in board.stdout
    assert "the skill model needs at least 3 models" in board.stdout  # two models: confounded
    for name in ("leaderboard.md", "leaderboard.csv", "comparisons.csv", "skills.csv", "deception_vs_detection.png",
                 "comparisons.png", "winrate_by_role.png"):  # fmt: skip
        assert (tmp_path / "lb" / name).stat().st_size > 0
    assert (tmp_path / "lb" / "deception_vs_detection.png").read_bytes()[:4] == b"\x89PNG"
    with (tmp_path / "lb" / "leaderboard.csv").open() as f:
        table = list(csv.DictReader(f))
    win = {(r["model"], r["variant"], r["group"]): r for r in table if r["metric"] == "win"}
    assert float(win[("bot", "*", "all")]["value"]) > float(win[("random", "*", "all")]["value"])
    assert ("bot", "duel", "side:match") in win and ("bot", "classic", "role:inspector") in win
    assert any(r["metric"] == "brier" for r in table)
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    assert md.startswith("# Leaderboard") and "| model | rating |" in md and "## Paired comparison: bot − random, classic" in md


def test_command_errors_are_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[models]\na = "bot"\nb = "nosuchkind"\n[[variants]]\nname = "classic"\n')
    (tmp_path / "junk.sqlite").write_text("not a database at all " * 100)
    for args, expected in (
        (("leaderboard", str(tmp_path / "junk.sqlite")), "junk.sqlite: file is not a database"),
        (("tournament", str(bad)), "models.b: unknown model profile 'nosuchkind'"),
        (("tournament", str(tmp_path / "none.toml")), "no such file"),
        (("leaderboard", str(tmp_path / "none.sqlite")), "no such database"),
        (("leaderboard", str(tmp_path / "none.sqlite"), "--target", "2"), "--target 2.0: give a difference between 0 and 1"),
        (("balance", "duel"), "duel has no town side"),
        (("balance", "classic", "--players", "5-7"), "classic takes 6-18 players, not 5"),
        (("balance", "classic", "--players", "x"), "use a size (9), a range (7-14) or a list"),
    ):
        out = arena(*args, cwd=tmp_path)
        assert out.returncode == 2, (args, out.stdout)
        assert expected in out.stderr and "Traceback" not in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1


# ---- balance ------------------------------------------------------------------------------------------
def test_balance_counts_every_game_and_is_reproducible():
    cls = get_variant("classic")
    assert parse_sizes("7-9", cls) == [7, 8, 9] and parse_sizes("9,7", cls) == [7, 9] and parse_sizes(None, cls) == [9]
    with pytest.raises(BalanceError):
        parse_sizes("9-7", cls)
    one = balance(cls, [7, 8], 30, workers=2, seed=3)
    assert {size: sum(c.values()) for size, c in one.winners.items()} == {7: 30, 8: 30}
    two = balance(cls, [7, 8], 30, workers=1, seed=3)
    assert one.winners == two.winners  # game i of a size has seed seed + i, whichever process plays it
    lines = one.lines()
    assert lines[1].split()[:2] == ["players", "town"] and "games in" in lines[-1]


def test_wilson_interval():
    lo, hi = wilson(50, 100)
    # p = ½, n = 100: centre ½, half-width z·√(¼/100 + z²/40000) / (1 + z²/100) = 0.0962.
    assert lo == pytest.approx(0.5 - 0.0962, abs=5e-4) and hi == pytest.approx(0.5 + 0.0962, abs=5e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0) and not math.isnan(wilson(0, 0)[0])
