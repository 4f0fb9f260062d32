"""Model seats on a real OpenAI-compatible server: llama-cpp-python's own, with SmolLM2-135M.

The server runs as a subprocess on a loopback port for this module (tests/real_server.py) and is
stopped at its end. A seat names it with no ``structured`` option, as a newcomer would: the check
before the game finds the mode the server takes and the game ends on its own with few forfeits;
a forced mode the server refuses is one line and exit code 2; a game's calls recorded against it
replay with the server gone. Speed targets are in benchmarks/server_bench.py (the full 7-seat
classic), not here. Skipped without the ``local`` and ``server`` extras.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.run.transcript import read_transcript
from tests.real_server import ALIAS, SERVER_OPTIONS, available, real_server

pytestmark = pytest.mark.skipif(available() is not None, reason=available() or "")
#: a short game: a speech of at most 120 characters (the grammar bounds it), a duel of one hand of
#: three beats. A table of seven plays in benchmarks/server_bench.py: a classic day took 4.5 minutes
#: of the suite on 2 shared cores, which CI cannot spare (docs/llm.md, "Measured")
DUEL = "[options]\nhands = 1\nbeats = 3\nmax_speech_chars = 120\n"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with real_server(*SERVER_OPTIONS) as base:  # as the README starts it
        yield base


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def transcript_in(folder: Path) -> Any:
    (path,) = folder.glob("*.jsonl")
    return read_transcript(path)


def forfeit_share(record: Any) -> float:
    summary = record.summary
    return summary["forfeits"] / max(summary["decisions"], 1)


@pytest.fixture(scope="module")
def duel(url: str, tmp_path_factory) -> dict[str, Any]:
    """One short hand of a duel between two seats on the server, its calls recorded."""
    tmp = tmp_path_factory.mktemp("duel")
    (tmp / "duel.toml").write_text(DUEL)
    argv = ["play", "duel", "--config", str(tmp / "duel.toml"), "--seed", "1", "--quiet", "--seats", f"openai:{ALIAS}@{url}"]
    code = main([*argv, "--transcripts", str(tmp / "recorded"), "--record-calls", str(tmp / "calls.yaml")])
    return {"tmp": tmp, "argv": argv, "code": code}


def test_a_duel_on_the_server_picks_a_mode_and_ends_with_few_forfeits(duel, capsys):
    assert duel["code"] == 0
    record = transcript_in(duel["tmp"] / "recorded")
    assert record.summary["finished"] and record.summary["decisions"] >= 2
    assert forfeit_share(record) <= 0.05, record.summary
    assert set(record.header["structured"].values()) == {"json_object"}


def test_its_recorded_calls_replay_with_the_server_gone(duel, capsys):
    """The replay is checked by nobody and asks nobody: it plays in the recorded mode."""
    tmp = duel["tmp"]
    code = main([*duel["argv"], "--transcripts", str(tmp / "replayed"), "--replay-calls", str(tmp / "calls.yaml")])
    assert code == 0, capsys.readouterr().err
    recorded, replayed = transcript_in(tmp / "recorded"), transcript_in(tmp / "replayed")
    strip = [{k: v for k, v in e.items() if k != "time"} for e in recorded.events]
    assert [{k: v for k, v in e.items() if k != "time"} for e in replayed.events] == strip
    assert "calls replayed:" in capsys.readouterr().out


def test_a_forced_mode_the_server_refuses_is_one_line_and_exit_2(url, tmp_path, capsys):
    started = time.perf_counter()
    spec = f"openai:{ALIAS}@{url}?structured=json_schema"
    assert main(["play", "duel", "--seed", "1", "--seats", spec, "--transcripts", str(tmp_path)]) == 2
    seconds = time.perf_counter() - started
    lines = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("arena: error: seat Ann"), lines
    assert "refused the request in mode json_schema: 500 response_format.type: Input should be 'text'" in lines[0]
    assert seconds < 20 and not list(tmp_path.glob("*.jsonl"))
