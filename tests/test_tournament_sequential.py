"""``until_decided``: anytime-valid confidence sequences, rounds on undecided pairings, and what the
run and the leaderboard say (issue 23.3–23.4). Fast: small tables, fixed seeds; the measured games
and error rates come from benchmarks/until_decided.py (docs/tournaments.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from arena.cli import main
from arena.run.config import ConfigError
from arena.tournament.calibration import play_until_decided
from arena.tournament.config import parse_tournament
from arena.tournament.design import build_design, build_round
from arena.tournament.sequential import (
    ALIKE,
    DIFFERENT,
    GRID,
    ConfidenceSequence,
    Tracker,
    closed_rejections,
    decide,
    family,
)

RACE = """name = "race"
until_decided = true
max_games = {budget}
concurrency = 2
[models]
bot = "bot"
random = "random"
[[variants]]
name = "classic"
players = 7
"""


def test_the_interval_narrows_on_the_true_mean_and_excludes_zero_on_a_sure_thing() -> None:
    rng = np.random.default_rng(1)
    cs = ConfidenceSequence(0.05)
    cs.update(rng.choice([-1.0, 0.0, 1.0], p=[0.2, 0.3, 0.5], size=2000))  # mean 0.3
    lo, hi = cs.interval()
    assert lo < 0.3 < hi and hi - lo < 0.2
    sure = ConfidenceSequence(0.05)
    sure.update([1.0] * 12)
    assert sure.interval()[0] > 0


def test_checking_after_every_value_keeps_the_error_below_alpha() -> None:
    """200 null sequences of symmetric values, checked after each of 300: at most α of them ever
    exclude the true mean 0 (Ville's inequality; a fixed-n test checked this often would pass 20%)."""
    rng = np.random.default_rng(7)
    zero = int(np.argmin(np.abs(GRID)))
    ever = 0
    for _ in range(200):
        cs = ConfidenceSequence(0.05)
        for x in rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], size=300):
            cs.update([x])
            if cs.excluded[zero]:
                ever += 1
                break
    assert ever / 200 <= 0.05


def test_closed_testing_lets_plain_differences_carry_the_rest() -> None:
    """Three e-values of 30 at α = 0.05: Bonferroni (60 each) calls none, closed testing all three
    (every mean of them is 30 ≥ 20); beside a null one (0.5) a 30 is not enough, a 1 000 is."""
    threshold = np.log(20.0)
    assert closed_rejections(np.log([30.0, 30.0, 30.0]), threshold).tolist() == [True, True, True]
    assert closed_rejections(np.log([30.0, 0.5]), threshold).tolist() == [False, False]
    assert closed_rejections(np.log([1000.0, 30.0, 0.5]), threshold).tolist() == [True, False, False]


def test_a_decision_stands_and_says_when() -> None:
    tracker = Tracker(["a", "b"], ["classic"])
    state = tracker.look_values(1, [[1.0] * 6], 12)
    assert state.decisions[0].status == "undecided"
    for r in range(2, 6):
        state = tracker.look_values(r, [[1.0] * 6], 12)
    (d,) = state.decisions
    assert d.status == DIFFERENT and d.better == "a" and d.games is not None and d.round is not None
    when = d.round
    tracker.look_values(6, [[-1.0] * 3], 6)
    assert d.status == DIFFERENT and d.round == when
    assert state.done and state.needed_pairings(["a", "b"]) == set()


def test_the_family_has_the_skill_differences_with_three_models_and_pairings_follow() -> None:
    decisions = family(["x", "y", "z"], ["classic", "duel"])
    kinds = sorted({(d.variant, d.kind) for d in decisions})
    assert kinds == [("classic", "deception"), ("classic", "detection"), ("classic", "overall"), ("duel", "overall")]
    skill = next(d for d in decisions if d.kind == "deception" and (d.a, d.b) == ("x", "y"))
    assert skill.pairings(["x", "y", "z"]) == {("x", "z"), ("y", "z")}


def test_a_round_plays_only_the_pairings_asked_for_on_the_same_deal() -> None:
    config = parse_tournament(
        {"seed": 3, "games": 6, "models": {"a": "bot", "b": "bot", "c": "random"}, "variants": [{"name": "classic"}]}
    )
    full = build_design(config)
    part = build_round(config, 1, {("a", "c")})
    assert {s.pairing for s in part} == {"a~c"} and len(part) == 2
    assert {s.key: s.seed for s in part}.items() <= {s.key: s.seed for s in full}.items()


def test_bot_against_random_is_decided_in_a_few_games() -> None:
    state = play_until_decided({"bot": "bot", "random": "random"}, [{"name": "classic", "players": 7}], 5, 200)
    (d,) = state.decisions
    assert d.status == DIFFERENT and d.better == "bot" and d.games is not None and d.games <= 60


def test_three_copies_of_one_player_are_never_called_different() -> None:
    """One A/A run with a check after every round until the budget: nothing called different,
    and the comparisons the run decided are 'alike'."""
    seen = []
    state = play_until_decided(
        {"x": "random", "y": "random", "z": "random"}, [{"name": "classic", "players": 7}], 2, 120, look=seen.append
    )
    assert len(seen) == 20 and state.games == 120
    assert all(d.status in (ALIKE, "undecided") for d in state.decisions)


@pytest.mark.parametrize(
    ("extra", "words"),
    [({"until_decided": True}, "give max_games"), ({"max_games": 100}, "applies with until_decided")],
)
def test_the_budget_goes_with_until_decided(extra: dict, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        parse_tournament({"models": {"a": "bot", "b": "random"}, "variants": [{"name": "classic"}], **extra})


def test_a_run_until_decided_stops_reports_and_resumes(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "race.toml").write_text(RACE.format(budget=200))
    assert main(["tournament", "race.toml", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "until decided: 1/1 comparisons decided" in out and "bot better after round" in out
    assert main(["leaderboard", "transcripts/race.sqlite", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    block = report["until_decided"]
    assert block["done"] and block["games"] == report["games"] < 200
    (d,) = block["decisions"]
    assert d["status"] == "different" and d["better"] == "bot" and d["decided_games"] == report["games"]
    assert main(["leaderboard", "transcripts/race.sqlite", "--json", "--evidence"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["skill_evidence"] is True
    assert main(["tournament", "race.toml", "--quiet"]) == 0  # resumed: decided already, nothing to play
    assert "0 games played" in capsys.readouterr().out


def test_each_game_line_counts_within_its_round(tmp_path, capsys, monkeypatch) -> None:
    """No run knows how many rounds it needs: a game's line counts the games through its round,
    not the budget (``[3/4, round 2, at most 200]``)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "race.toml").write_text(RACE.format(budget=200))
    assert main(["tournament", "race.toml"]) == 0
    counts = [line[1 : line.index("]")] for line in capsys.readouterr().out.splitlines() if line.startswith("[")]
    rounds = len(counts) // 2
    assert rounds >= 2 and counts[:3] == ["1/2, round 1, at most 200", "2/2, round 1, at most 200", "3/4, round 2, at most 200"]
    assert counts[-1] == f"{2 * rounds}/{2 * rounds}, round {rounds}, at most 200"


def test_the_command_line_turns_it_on_and_checks_the_budget(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fixed.toml").write_text(RACE.replace("until_decided = true\nmax_games = {budget}\n", "games = 2\n"))
    assert main(["tournament", "fixed.toml", "--until-decided"]) == 2
    assert "needs a budget" in capsys.readouterr().err
    assert main(["tournament", "fixed.toml", "--max-games", "40"]) == 2
    assert main(["tournament", "fixed.toml", "--until-decided", "--max-games", "4", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "budget spent" in out and "undecided" in out


def test_the_budget_on_the_command_line_completes_a_config_that_asks_until_decided(tmp_path, capsys, monkeypatch) -> None:
    """``until_decided = true`` in the file and ``--max-games`` on the command line is a whole run (the
    config used to be refused for a missing budget before the command line was read); ``--until-decided``
    on a fixed design whose ``games`` no round divides is judged as until_decided, not as fixed."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "open.toml").write_text(RACE.replace("max_games = {budget}\n", ""))
    assert main(["tournament", "open.toml", "--quiet"]) == 2
    assert "needs a budget" in capsys.readouterr().err
    assert main(["tournament", "open.toml", "--max-games", "4", "--quiet"]) == 0
    assert "budget spent" in capsys.readouterr().out
    (tmp_path / "odd.toml").write_text(
        RACE.replace("race", "odd").replace("until_decided = true\nmax_games = {budget}\n", "games = 3\n")
    )
    assert main(["tournament", "odd.toml", "--until-decided", "--max-games", "4", "--quiet"]) == 0


def test_the_html_report_of_a_run_until_decided_leads_with_its_decisions(tmp_path, capsys, monkeypatch) -> None:
    """``arena report DB`` of an adaptive run shows what was decided before the fixed-design p-values
    (it showed only those, which an adaptive run's reader must not take at face value); a fixed run's has no such part."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "race.toml").write_text(RACE.format(budget=200))
    (tmp_path / "fixed.toml").write_text(
        RACE.replace("race", "fixed").replace("until_decided = true\nmax_games = {budget}\n", "games = 4\n")
    )
    for name in ("race", "fixed"):
        assert main(["tournament", f"{name}.toml", "--quiet"]) == 0
        assert main(["report", f"transcripts/{name}.sqlite"]) == 0
    page = (tmp_path / "transcripts" / "race-report" / "index.html").read_text(encoding="utf-8")
    assert "<h2>Stopped when decided</h2>" in page and "bot better after round" in page
    assert page.index("Stopped when decided") < page.index("Paired comparisons")
    assert "Stopped when decided" not in (tmp_path / "transcripts" / "fixed-report" / "index.html").read_text(encoding="utf-8")


def test_decide_replays_only_the_rounds_before() -> None:
    from arena.tournament.calibration import play_tournament
    from arena.tournament.results import Results

    results = Results.from_records(play_tournament({"bot": "bot", "random": "random"}, [{"name": "classic", "players": 7}], 3, 1))
    assert decide(results, before=3).games == 4 and decide(results).games == 6


@pytest.fixture(scope="module")
def liar_detective():
    """30 rounds of liar, detective and random on classic 7, fixed seed (played once for both tests)."""
    from arena.tournament.calibration import play_tournament
    from arena.tournament.results import Results

    models = {"liar": "bot?mafia=1&town=0.2", "detective": "bot?mafia=0.2&town=1", "random": "random"}
    return Results.from_records(play_tournament(models, [{"name": "classic", "players": 7}], 30, 3))


@pytest.mark.parametrize("evidence", [False, True])
def test_the_skill_model_tells_the_liar_from_the_detective(liar_detective, evidence: bool) -> None:
    """Ground truth (issue 23.2): liar (mafia=1&town=0.2) > detective (mafia=0.2&town=1) on deception,
    the reverse on detection, both significant after Holm — 30 rounds of classic 7, a fixed seed (the
    games each needs, measured over many runs on classic 9: docs/tournaments.md)."""
    from arena.tournament.skills import skill_report

    report = skill_report(liar_detective, resamples=50, evidence=evidence)
    found = {(d.skill, d.a, d.b): d for d in report.differences}
    deception, detection = found[("deception", "detective", "liar")], found[("detection", "detective", "liar")]
    assert deception.significant and deception.diff.estimate < 0  # the liar deceives better
    assert detection.significant and detection.diff.estimate > 0  # the detective detects better


KNOWN = """name = "known"
until_decided = true
max_games = 900
decide = {decide}
[models]
liar = "bot?mafia=1&town=0.2"
detective = "bot?mafia=0.2&town=1"
random = "random"
[[variants]]
name = "classic"
players = 9
"""
THREE = {"liar": "bot", "detective": "bot", "random": "random"}


@pytest.mark.parametrize(
    ("decide", "words"),
    [
        (["deceptions:liar~detective"], "decide: .*the kind is one of overall, deception, detection"),
        (["deception:liar"], "decide: .*write the pair as deception:A~B"),
        (["overall:liar~liar"], "not compared with itself"),
        (["detection:liar~bram"], r"decide\.0: .*no model bram \(models: liar, detective, random\)"),
    ],
)
def test_a_bad_decide_entry_is_one_line(decide: list[str], words: str) -> None:
    with pytest.raises(ConfigError, match=words) as caught:
        parse_tournament(
            {"until_decided": True, "max_games": 100, "decide": decide, "models": THREE, "variants": [{"name": "classic"}]}
        )
    assert "\n" not in str(caught.value)


def test_decide_asks_only_for_comparisons_the_tournament_has() -> None:
    with pytest.raises(ConfigError, match=r"decide\.0: 'deception': this tournament has no such comparison"):
        parse_tournament(
            {"until_decided": True, "max_games": 100, "decide": ["deception"], "models": {"a": "bot", "b": "random"},
             "variants": [{"name": "classic"}]}
        )  # fmt: skip
    with pytest.raises(ConfigError, match="decide: applies with until_decided only"):
        parse_tournament({"games": 6, "decide": ["overall"], "models": THREE, "variants": [{"name": "classic"}]})
    config = parse_tournament(
        {"until_decided": True, "max_games": 100, "decide": ["detection", "overall:random~liar"], "models": THREE,
         "variants": [{"name": "classic"}]}
    )  # fmt: skip
    tracker = Tracker([m.name for m in config.models], ["classic"], ask=config.decide)
    asked = {(d.kind, d.a, d.b) for d in tracker.state.decisions if d.asked}
    assert asked == {("detection", "detective", "liar"), ("detection", "detective", "random"),
                     ("detection", "liar", "random"), ("overall", "liar", "random")}  # fmt: skip


def test_the_known_truth_stops_once_the_two_skills_are_decided(tmp_path, capsys, monkeypatch) -> None:
    """Issue 31: liar vs detective (with random) on classic 9, ``decide`` naming the two skills (the
    pair in either order): the run stops by itself, well under its budget, with the truth, and says so;
    the comparisons it was not asked for (liar vs detective overall: near 0) stay as they stand."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "known.toml").write_text(KNOWN.format(decide='["deception:liar~detective", "detection:detective~liar"]'))
    assert main(["tournament", "known.toml", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "stopped: decided: every comparison asked for is decided" in out
    assert main(["leaderboard", "transcripts/known.sqlite", "--json"]) == 0
    board = json.loads(capsys.readouterr().out)
    block = board["until_decided"]
    assert block["stop_reason"] == "decided" and block["done"] and block["games"] < 450
    # liar and detective never met (only their pairings with random were needed), yet their one-side
    # comparisons are there, against random, and none reads against the truth
    sides = [c for c in board["comparisons"] if {c["a"], c["b"]} == {"liar", "detective"}]
    assert {c["side"] for c in sides} == {"mafia", "town"}
    assert {c["better"] for c in sides if c["side"] == "mafia"} <= {"liar", None}
    assert {c["better"] for c in sides if c["side"] == "town"} <= {"detective", None}
    assert any(c["better"] for c in sides)
    found = {(d["comparison"], d["a"], d["b"]): d for d in block["decisions"]}
    assert found[("deception", "detective", "liar")]["better"] == "liar"
    assert found[("detection", "detective", "liar")]["better"] == "detective"
    assert [k for k, d in found.items() if d["asked"]] == [("deception", "detective", "liar"), ("detection", "detective", "liar")]
    assert found[("overall", "detective", "liar")]["status"] == "undecided"


def test_the_json_says_why_a_run_stopped(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "race.toml").write_text(RACE.format(budget=4))
    (tmp_path / "capped.toml").write_text(RACE.replace("race", "capped").format(budget=200) + "")
    text = (tmp_path / "capped.toml").read_text().replace("concurrency = 2\n", "concurrency = 2\ncost_cap = 0\n")
    (tmp_path / "capped.toml").write_text(text)
    for name, reason in (("race", "budget spent"), ("capped", "cost cap")):
        assert main(["tournament", f"{name}.toml", "--quiet"]) == 0
        stop = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("stopped:"))
        assert stop.startswith(f"stopped: {reason} (") and len(stop) <= 80, stop
        if reason == "budget spent":
            assert main(["leaderboard", f"transcripts/{name}.sqlite", "--json"]) == 0
            assert json.loads(capsys.readouterr().out)["until_decided"]["stop_reason"] == reason


def test_no_table_of_the_known_truth_reads_backwards(liar_detective) -> None:
    """Issue 31.2: in a mirrored pair the liar's mafia faces the detective's town, so a mafia-side metric
    of liar − detective over the pair mixed one's deception with the other's detection ("lies caught ·
    mafia · detective better"). One-side comparisons now face a common third model: every one of them
    that is called agrees with the truth (the liar better as mafia, the detective as town), some are
    called, and the skill differences called agree too; the per-model tables say what they measure."""
    from arena.tournament.leaderboard import METRICS_NOTE, markdown, report_from_results

    report = report_from_results(liar_detective, resamples=50)
    called = [c for c in report.comparisons if {c.a, c.b} == {"liar", "detective"} and c.better is not None]
    sides = {c.side: c.better for c in called}
    assert {c.better for c in called if c.side == "mafia"} <= {"liar"}
    assert {c.better for c in called if c.side == "town"} <= {"detective"}
    assert "mafia" in sides and "town" in sides
    assert all(c.unit == "deals" for c in report.comparisons if c.side != "all")
    for d in report.skills.differences:
        if d.significant and {d.a, d.b} == {"liar", "detective"}:
            better = d.a if d.diff.estimate > 0 else d.b
            assert better == ("liar" if d.skill == "deception" else "detective")
    assert METRICS_NOTE in markdown(report, "known")


def test_two_models_get_no_one_side_comparison(liar_detective) -> None:
    """With two models there is no common third player: a one-side comparison would be read off the
    pair (each model's side against the other's), so only the pair's overall ones are made."""
    from arena.tournament.inference import compare_all
    from arena.tournament.results import Results

    keep = {g["key"] for g in liar_detective.games if {g["first"], g["second"]} == {"liar", "detective"}}
    two = Results(
        [g for g in liar_detective.games if g["key"] in keep],
        [p for p in liar_detective.seats if p["game"] in keep],
        [s for s in liar_detective.stats if s["game"] in keep],
    )
    comparisons = compare_all(two)
    assert comparisons and {c.side for c in comparisons} == {"all"}


def test_the_terminal_leaderboard_cuts_no_verdict_and_breaks_no_phrase(liar_detective) -> None:
    """Issue 31.3: verdicts were cut ("not yet (38…" for 383 pairs, "no differen…") and lines broke
    inside a phrase ("p" at the end of one line, "adj 0.024" on the next)."""
    import io

    from rich.console import Console

    from arena.tournament.leaderboard import print_report, report_from_results

    out = io.StringIO()
    print_report(report_from_results(liar_detective, resamples=50), Console(file=out, width=120, color_system=None))
    text = out.getvalue()
    lines = text.splitlines()
    assert "…" not in text
    assert max(len(line) for line in lines) <= 80
    assert not any(line.rstrip().endswith((" p", " p adj", "[", " more", "≈")) for line in lines), text
    assert "not yet (" in text and "A better" in text
