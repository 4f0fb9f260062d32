"""The ``arena`` command, run as a user runs it (``python -m arena``), plus in-process checks."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import main
from arena.run.config import DEFAULT_NAMES
from arena.run.replay import replay
from arena.run.transcript import read_transcript
from arena.variants import VARIANTS

ROOT = Path(__file__).resolve().parent.parent


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def random_seats(n: int) -> list[str]:
    return [arg for name in DEFAULT_NAMES[:n] for arg in ("--seat", f"{name}=random")]


def test_play_classic_then_replay_its_transcript(tmp_path: Path) -> None:
    out = arena("play", "classic", "--players", "9", "--seed", "5", *random_seats(9), "--transcripts", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert "seed 5" in out.stdout
    assert re.search(r"^Day 1 — Ann: ", out.stdout, re.MULTILINE)
    assert re.search(r"vote on \w+: \d+ yes", out.stdout)
    assert "Result: " in out.stdout and "transcript: " in out.stdout
    assert "card:" not in out.stdout  # private events only with --reveal
    (path,) = tmp_path.glob("*-classic-5.jsonl")
    transcript = read_transcript(path)
    assert transcript.complete and transcript.header["players"] == dict.fromkeys(DEFAULT_NAMES[:9], "random")
    replayed = arena("replay", str(path))
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.strip() == f"replay OK: {len(transcript.events)} events identical"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_play_every_variant_in_process_with_reveal(tmp_path: Path, capsys: pytest.CaptureFixture[str], variant: str) -> None:
    players = VARIANTS[variant].default_players  # classic 9, village 11, …
    argv = ["play", variant, "--players", str(players), "--seed", "1", "--reveal", "--transcripts", str(tmp_path)]
    assert main(argv + random_seats(players)) == 0
    out = capsys.readouterr().out
    assert "[Ann] card: " in out  # private events are shown with --reveal
    assert "Game over: " in out and "Result: " in out
    if variant in ("classic", "village"):
        assert "── Day 1 ──" in out and re.search(r"^Day 1 — Ann: ", out, re.MULTILINE)
    (path,) = tmp_path.glob(f"*-{variant}-1.jsonl")
    assert replay(read_transcript(path)).ok


def test_default_seed_is_printed_and_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "classic", "--transcripts", str(tmp_path), *random_seats(9)]) == 0
    seed = re.search(r"players, seed (\d+)", capsys.readouterr().out)
    assert seed is not None
    assert read_transcript(next(tmp_path.glob("*.jsonl"))).header["seed"] == int(seed.group(1))


def test_quiet_prints_only_the_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "classic", "--seed", "2", "--quiet", "--transcripts", str(tmp_path), *random_seats(9)]) == 0
    out = capsys.readouterr().out
    assert "Day 1 —" not in out and "Result: " in out and "seed 2" in out


def test_variants_lists_every_registered_variant() -> None:
    out = arena("variants")
    assert out.returncode == 0
    for name, cls in VARIANTS.items():
        assert re.search(rf"{name}\s.*{cls.min_players}-{cls.max_players}", out.stdout), name


def test_scenario_prints_one_json_object(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    names = list(DEFAULT_NAMES[:6])
    path.write_text(json.dumps({
        "variant": "classic", "players": names, "seed": 1,
        "deal": dict(zip(names, ["mafia", "inspector"] + ["citizen"] * 4, strict=True)),
        "answers": {"Ann": [{"kind": "speak", "accuse": "Ann"}]},
    }))  # fmt: skip
    out = arena("scenario", str(path))
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["finished"] is False
    assert result["stopped_at"] == {"player": "Ann", "phase": "discussion"}
    assert result["rejected"][0]["player"] == "Ann"


def test_bench_prints_games_per_second(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "classic", "--games", "5", "--seats", "random"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^\d+\.\d games/s$", out, re.MULTILINE)
    assert re.search(r"mean per game: \d+\.\d decisions, \d+\.\d events", out)


def test_bench_and_balance_play_leveled_bots(capsys: pytest.CaptureFixture[str]) -> None:
    """The known-truth bots (docs/bots.md) in the balance table: perfect mafia against a town that
    never reads anyone wins nearly every game; the same table at full strength does not."""
    assert main(["bench", "classic", "--games", "5", "--seats", "bot?level=0.5"]) == 0
    assert "bot?level=0.5 seats" in capsys.readouterr().out
    rates = {}
    for spec in ("bot?mafia=1&town=0", "bot"):
        assert main(["balance", "classic", "--games", "40", "--players", "7", "--workers", "1", "--seats", spec]) == 0
        out = capsys.readouterr().out
        row = next(line.split() for line in out.splitlines() if line.split()[:1] == ["7"])
        rates[spec] = int(row[1]) / 40
    assert rates["bot?mafia=1&town=0"] < 0.2 < rates["bot"]


def test_a_changed_transcript_fails_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "classic", "--seed", "8", "--quiet", "--transcripts", str(tmp_path), *random_seats(9)]) == 0
    path = next(tmp_path.glob("*.jsonl"))
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["seed"] = 9
    changed = tmp_path / "changed.jsonl"
    changed.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    capsys.readouterr()
    assert main(["replay", str(changed)]) == 1
    assert capsys.readouterr().out.startswith("replay FAILED: event ")


def _bad_config(tmp_path: Path) -> str:
    path = tmp_path / "bad.toml"
    path.write_text("[options]\ndiscussion_rounds = 0\n")
    return str(path)


def _file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


BAD_OPTION = {"variant": "classic", "players": list(DEFAULT_NAMES[:6]), "options": {"max_floor": 5}}
STRANGE_HEADER = {"type": "header", "variant": "nosuch", "options": {}, "seed": 1, "seats": [], "players": {}}
BAD_INPUTS = {
    "unknown variant": (lambda t: ["play", "nosuch"], "unknown variant 'nosuch'"),
    "bad config": (
        lambda t: ["play", "classic", "--config", _bad_config(t)],
        "options.discussion_rounds: Input should be greater than or equal to 1",
    ),
    "bad toml": (lambda t: ["play", "classic", "--config", _file(t, "b.toml", "x = = 1")], "config error: "),
    "missing config": (lambda t: ["play", "classic", "--config", str(t / "none.toml")], "no such file"),
    "bad spec": (lambda t: ["play", "classic", "--seat", "Ann=nonsense"], "seat Ann: "),
    "unknown seat": (lambda t: ["play", "classic", "--seat", "Zed=random"], "has no seat 'Zed'"),
    "bad seat arg": (lambda t: ["play", "classic", "--seat", "Ann"], "use NAME=SPEC"),
    "too many players": (lambda t: ["play", "classic", "--players", "40"], "classic takes 6-18 players, not 40"),
    "players not a number": (lambda t: ["play", "classic", "--players", "many"], "invalid int value"),
    "unknown command": (lambda t: ["dance"], "invalid choice"),
    "scenario not json": (lambda t: ["scenario", _file(t, "s.json", "{")], "not JSON"),
    "scenario missing keys": (lambda t: ["scenario", _file(t, "s.json", "{}")], "missing key variant, players"),
    "scenario bad option": (
        lambda t: ["scenario", _file(t, "s.json", json.dumps(BAD_OPTION))],
        "options.max_floor: Input should be less than or equal to 2",
    ),
    "scenario unknown variant": (
        lambda t: ["scenario", _file(t, "s.json", '{"variant": "x", "players": []}')],
        "unknown variant 'x'",
    ),
    "scenario too few players": (
        lambda t: ["scenario", _file(t, "s.json", '{"variant": "classic", "players": ["A", "B"]}')],
        "classic takes 6-18 players, not 2",
    ),
    "scenario answers not lists": (
        lambda t: ["scenario", _file(t, "s.json", json.dumps({**BAD_OPTION, "options": {}, "answers": {"Ann": "speak"}}))],
        "answers must map seat names to lists of answers",
    ),
    "scenario options not an object": (
        lambda t: ["scenario", _file(t, "s.json", json.dumps({**BAD_OPTION, "options": [1]}))],
        "options must be an object",
    ),
    "scenario answers for a stranger": (
        lambda t: ["scenario", _file(t, "s.json", json.dumps({**BAD_OPTION, "options": {}, "answers": {"Zed": []}}))],
        "answers for unknown players: Zed",
    ),
    "replay missing file": (lambda t: ["replay", str(t / "none.jsonl")], "cannot read"),
    "replay not a transcript": (lambda t: ["replay", _file(t, "t.jsonl", '{"a": 1}\n')], "not a transcript record"),
    "replay unknown variant": (
        lambda t: ["replay", _file(t, "t.jsonl", json.dumps(STRANGE_HEADER) + "\n")],
        "unknown variant 'nosuch'",
    ),
    "bench bad games": (lambda t: ["bench", "classic", "--games", "0"], "--games must be at least 1"),
    "bench a model": (lambda t: ["bench", "classic", "--seats", "openai:m"], "use bot, random or a leveled bot"),
    "bench a bad level": (lambda t: ["bench", "classic", "--seats", "bot?level=2"], "a level is between 0 and 1"),
    "balance a leveled random": (lambda t: ["balance", "classic", "--seats", "random?level=1"], "only bot takes levels"),
}


def _main(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exit_:  # argparse's own errors
        return int(exit_.code or 0)


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    make_args, expected = BAD_INPUTS[case]
    monkeypatch.chdir(tmp_path)
    assert _main(make_args(tmp_path)) == 2
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1, out.err
    assert expected in lines[0]
    assert not list(tmp_path.glob("transcripts/*"))  # nothing was played


@pytest.mark.parametrize("case", ["unknown variant", "bad config", "bad spec", "players not a number", "scenario not json"])
def test_bad_input_from_the_shell_has_no_traceback(tmp_path: Path, case: str) -> None:
    make_args, expected = BAD_INPUTS[case]
    out = arena(*make_args(tmp_path), cwd=tmp_path)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1 and expected in out.stderr


def test_model_seats_write_their_calls_and_replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """Two model seats on the loopback server (malformed and illegal answers injected): every model call
    is a ``call`` line, the summary has their usage, and the game replays exactly without them."""
    from tests.llm_server import FakeModelServer

    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    config = tmp_path / "short.toml"
    config.write_text("players = 6\n[options]\ndiscussion_rounds = 1\nmax_days = 1\n")
    fast = "&backoff=0.001&max_backoff=0.01&retry_budget=20"
    with FakeModelServer(seed=3, fault_rate=0.3, faults=("malformed", "illegal")) as server:
        seats = [
            "--seat", f"Ann=openai:fake@{server.openai_url}?structured=tools{fast}",
            "--seat", f"Bob=anthropic:fake@{server.anthropic_url}?structured=json_text{fast}",
        ]  # fmt: skip
        seats += [arg for name in DEFAULT_NAMES[2:6] for arg in ("--seat", f"{name}=random")]
        argv = ["play", "classic", "--seed", "4", "--quiet", "--config", str(config), "--transcripts", str(tmp_path)]
        assert main(argv + seats) == 0
    transcript = read_transcript(next(tmp_path.glob("*.jsonl")))
    assert transcript.complete and transcript.calls
    assert {c["player"] for c in transcript.calls} == {"Ann", "Bob"}
    assert set(transcript.summary["usage"]) == {"Ann", "Bob"}
    assert transcript.summary["usage"]["Ann"]["calls"] == sum(1 for c in transcript.calls if c["player"] == "Ann")
    assert transcript.summary["rejections"] > 0
    assert replay(transcript).ok, replay(transcript).message()


def test_ci_runs_the_readme_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## Quick start.*?```bash\n(.*?)```", readme, re.DOTALL)
    assert block is not None
    install, test = block.group(1).strip().splitlines()
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    assert ci[-1] == test == "python -m pytest"
    extras = re.search(r'pip install -e "(\.\[[a-z,]+\])"', install)
    assert extras is not None, install
    assert any(line.startswith("pip install") and f'-e "{extras.group(1)}"' in line for line in ci)
    assert any(line.startswith("python3 -m venv") for line in ci)


def test_readme_lists_every_variant() -> None:
    readme = (ROOT / "README.md").read_text()
    for name, cls in VARIANTS.items():
        players = f"{cls.min_players}–{cls.max_players}" if cls.min_players != cls.max_players else str(cls.min_players)
        assert f"| `{name}` | {players} |" in readme, name


def test_play_a_mckay_match_with_hands(tmp_path, capsys) -> None:
    assert main(["play", "duel", "--hands", "3", "--seed", "2", "--quiet", "--transcripts", str(tmp_path)]) == 0
    transcript = read_transcript(next(tmp_path.glob("*.jsonl")))
    assert transcript.header["options"]["hands"] == 3
    assert sum(1 for e in transcript.events if e["type"] == "hand_over") == 3
    assert main(["play", "classic", "--hands", "3"]) == 2
    assert "--hands does not apply to classic" in capsys.readouterr().err
