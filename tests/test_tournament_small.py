"""The smallest tournaments a user runs: one or two rounds report with exit 0 and say that their
intervals are unknown, never a crash and never a collapsed interval that reads as certainty."""

from __future__ import annotations

import json

import numpy as np
import pytest

from arena.cli import main
from arena.tournament.inference import sign_flip_p

SMALL = """name = "small"
games = {games}
[models]
bot = "bot"
bot2 = "bot"
random = "random"
[[variants]]
name = "classic"
players = 7
[[variants]]
name = "cove"
players = 10
[[variants]]
name = "duel"
options = {{ hands = 3 }}
"""


@pytest.mark.parametrize("rounds", [1, 2])
def test_a_tournament_of_one_or_two_rounds_reports(tmp_path, capsys, monkeypatch, rounds):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "small.toml").write_text(SMALL.format(games=6 * rounds))
    assert main(["tournament", "small.toml", "--quiet"]) == 0
    db = "transcripts/small.sqlite"
    capsys.readouterr()
    assert main(["leaderboard", db]) == 0
    text = capsys.readouterr().out
    assert f"{rounds} deal{'s' if rounds > 1 else ''} per pairing: too few for intervals" in text
    assert "[too few]" in text
    for line in text.splitlines():  # no interval collapsed onto its estimate, e.g. "+1.46 [+1.46, +1.46]"
        assert not any(f"{x} [{x}, {x}]" in line for x in line.split() if x[:1] in "+-" and x[1:2].isdigit())
    assert main(["leaderboard", db, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    skills = [s for s in data["skills"] if s["variant"] == "classic"]
    assert skills and all(s["deception"]["ci95"] == [None, None] for s in skills)
    assert main(["report", db]) == 0
    assert (tmp_path / "transcripts" / "small-report" / "index.html").exists()
    assert (tmp_path / "transcripts" / "small-leaderboard" / "skills.png").exists()


def test_sign_flip_ignores_differences_that_are_zero_but_for_rounding():
    """A mean of margins can be 1e-17 instead of 0: on the test's grid it is 0 and adds nothing."""
    d = np.array([1e-17, -2e-17, 0.0])
    assert sign_flip_p(d, seed=1) == 1.0
    assert sign_flip_p(np.array([1.0, 1e-17, 1.0, 1.0]), seed=1) == sign_flip_p(np.array([1.0, 1.0, 1.0]), seed=1)


def test_ray_without_ray_refuses_before_writing_anything(tmp_path, capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "small.toml").write_text(SMALL.format(games=6))
    assert main(["tournament", "small.toml", "--ray", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == 'arena: error: --ray needs Ray: pip install -e ".[ray]"\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.toml"]  # no database, no transcript folder


# ---- a tournament whose mirror games are missing (issue 36: the two servers' run) ----------------------
THREE = """name = "three"
games = 6
[models]
gemma = "bot"
smollm2 = "bot"
random = "random"
[[variants]]
name = "classic"
players = 7
"""


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """One round of three models (every pairing mirrored): the database and its games' keys."""
    import contextlib
    import io

    folder = tmp_path_factory.mktemp("three")
    (folder / "three.toml").write_text(THREE)
    db = folder / "three.sqlite"
    with contextlib.redirect_stdout(io.StringIO()):
        args = ["--db", str(db), "--transcripts", str(folder / "tr"), "--quiet"]
        assert main(["tournament", str(folder / "three.toml"), *args]) == 0
    return db


def _without(source, tmp_path, *games):
    """A copy of the database without ``games`` (as if they had failed: no rows)."""
    import shutil
    import sqlite3

    db = tmp_path / "cut.sqlite"
    shutil.copy(source, db)
    with sqlite3.connect(db) as con:
        for key in games:
            for table, column in (("games", "key"), ("player_games", "game"), ("stats", "game"), ("beliefs", "game")):
                con.execute(f"DELETE FROM {table} WHERE {column} = ?", (key,))
    return db


UNMIRRORED = ("classic/7/r1/gemma~smollm2/gemma", "classic/7/r1/gemma~random/random", "classic/7/r1/random~smollm2/random")


def test_with_no_pairing_played_both_ways_the_skill_note_says_so(three, tmp_path, capsys):
    """It once said "gemma~random is missing" when every pairing lacked its mirror game."""
    db = _without(three, tmp_path, *UNMIRRORED)
    assert main(["leaderboard", str(db), "--json"]) == 0
    note = json.loads(capsys.readouterr().out)["skills_note"]
    assert note.startswith("no pairing was played both ways yet") and "missing" not in note, note


def test_the_skill_note_names_every_pairing_not_yet_played_both_ways(three, tmp_path, capsys):
    db = _without(three, tmp_path, "classic/7/r1/gemma~random/random", "classic/7/r1/random~smollm2/smollm2")
    assert main(["leaderboard", str(db), "--json"]) == 0
    note = json.loads(capsys.readouterr().out)["skills_note"]
    assert note == (
        "the skill model needs every pairing played both ways; not yet: gemma~random (only gemma as mafia so far), "
        "random~smollm2 (only random as mafia so far)"
    )
    assert main(["leaderboard", str(three), "--json"]) == 0  # all mirrored: a fit, no note
    assert json.loads(capsys.readouterr().out)["skills_note"] is None


def test_without_a_mirrored_pair_the_tables_say_not_enough_games(three, tmp_path, capsys):
    """No number that looks certain (``0.50 [0.50, 0.50]``, μ 25.00) where no pair is complete:
    the terminal, the JSON (null) and the report's index say so; forfeits and cost are still shown."""
    db = _without(three, tmp_path, *UNMIRRORED)
    assert main(["leaderboard", str(db), "--out", str(tmp_path / "lb")]) == 0
    text = capsys.readouterr().out
    metrics = text[text.index("METRICS") : text.index("wrote to")]
    assert "No mirrored pair is complete yet" in metrics
    numbers = [
        line for line in metrics.splitlines()
        if "[" in line and not line.startswith(("forfeits", "cost"))
    ]  # fmt: skip
    assert numbers == [], numbers
    ratings = metrics[metrics.index("Ratings") :].splitlines()
    for model in ("gemma", "random", "smollm2"):
        row = next(line for line in ratings if line.startswith(model))
        assert row.split()[1:] == ["not", "enough", "games", "not", "enough", "games", "2"], row
    assert "winrate_by_role.png" not in text  # no dots for numbers the tables do not show
    assert main(["leaderboard", str(db), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["enough_games"] is False and data["skills"] == []
    assert all(r["mu"] is None and r["sigma"] is None and r["ordinal"] is None for r in data["ratings"].values())
    assert main(["report", str(db), "-o", str(tmp_path / "report")]) == 0
    capsys.readouterr()
    html = (tmp_path / "report" / "index.html").read_text()
    assert "No mirrored pair is complete yet" in html and "not enough games" in html
    ratings_html = html[html.index("Ratings (openskill") :].split("<tbody>")[1].split("</tbody>")[0]
    assert ratings_html.count('<td class="num">not enough games</td>') == 6 and " ± " not in ratings_html
    # with every pair complete, the same tables show their numbers
    assert main(["leaderboard", str(three), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["enough_games"] is True and all(r["mu"] is not None for r in data["ratings"].values())


def test_a_cell_of_one_game_has_no_interval_to_show():
    """One game resampled is that game: ``0.50 [0.50, 0.50]`` would read as certain."""
    from arena.tournament.leaderboard import NOT_ENOUGH, cells, metric_tables

    row = {"model": "a", "variant": "classic", "role": "citizen", "side": "town", "metric": "win", "num": 0.5, "den": 1.0}
    one = cells([{**row, "game": "g1", "seat": "Ann"}])
    assert {c.text() for c in one.values()} == {NOT_ENOUGH}
    two = cells([{**row, "game": "g1", "seat": "Ann"}, {**row, "game": "g2", "seat": "Ann", "num": 1.0}])
    assert all(c.text().startswith("0.75 [") for c in two.values())
    # forfeits and cost count what happened: one game's value is shown, marked as one game
    cost = cells([{**row, "game": "g1", "seat": "Ann", "metric": "cost", "num": 0.25}])
    overview = metric_tables(["a"], {**one, **cost}, ["classic"])[0]
    assert overview[1] == ["model", "win rate", "cost / game ($)"]
    assert overview[2] == [["a", NOT_ENOUGH, "0.2500 (1 game)"]]
