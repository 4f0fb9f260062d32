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
