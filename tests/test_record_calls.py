"""Record a model game's calls with vcrpy and replay it with no network: the same events, whatever
order the simultaneous requests arrive in; a request the cassette does not hold is one line.

The loopback server (tests/llm_server.py) is stopped before every replay, so a replay that
touched the network would fail. Keys are built at run time and must not reach a cassette.
"""

from __future__ import annotations

import random
import re
import secrets
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml

from arena.cli import main
from arena.run.transcript import read_transcript
from tests.llm_server import FakeModelServer, game_calls

KEY_VAR = "ARENA_TEST_KEY"
SHORT = "players = 7\n[options]\ndiscussion_rounds = 1\nmax_days = 3\n"
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def seats(server: FakeModelServer) -> list[str]:
    """Three model seats on both SDKs and two schema modes, beside bots: votes are simultaneous."""
    specs = {
        "Ann": f"openai:m@{server.openai_url}?api_key_env={KEY_VAR}",
        "Bob": f"anthropic:m@{server.anthropic_url}?api_key_env={KEY_VAR}",
        "Cid": f"openai:m@{server.openai_url}?structured=json_text&api_key_env={KEY_VAR}",
        "Dee": f"anthropic:m@{server.anthropic_url}?structured=json_schema&api_key_env={KEY_VAR}",
    }
    return [arg for name, spec in specs.items() for arg in ("--seat", f"{name}={spec}")]


def load(path: Path) -> dict[str, Any]:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=LOADER)


def save(path: Path, data: dict[str, Any]) -> None:
    path.write_text(yaml.dump(data, Dumper=DUMPER), encoding="utf-8")


def transcript_in(folder: Path):
    (path,) = folder.glob("*.jsonl")
    return read_transcript(path)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> dict[str, Any]:
    """One 7-player classic game with four model seats, recorded; the server is gone afterwards."""
    tmp = tmp_path_factory.mktemp("recorded")
    key = "-".join(["sk", "proj", secrets.token_hex(20)])
    monkey = pytest.MonkeyPatch()
    monkey.setenv(KEY_VAR, key)
    (tmp / "short.toml").write_text(SHORT)
    try:
        with FakeModelServer(seed=7) as server:
            argv = ["play", "classic", "--seed", "11", "--config", str(tmp / "short.toml"), "--quiet", *seats(server)]
            code = main([*argv, "--transcripts", str(tmp / "recorded"), "--record-calls", str(tmp / "calls.yaml")])
            requests = len(game_calls(server.log))
    finally:
        monkey.undo()
    return {"tmp": tmp, "argv": argv, "code": code, "key": key, "requests": requests}


def test_a_recorded_game_replays_with_identical_events(recorded, capsys, tmp_path):
    assert recorded["code"] == 0
    cassette = recorded["tmp"] / "calls.yaml"
    original = transcript_in(recorded["tmp"] / "recorded")
    assert original.complete and original.calls
    data = load(cassette)
    assert len(data["interactions"]) == len(original.calls) == recorded["requests"]  # not the checks, nor their mode probes
    assert data["metadata"]["arena_game"]["seed"] == 11
    for interaction in data["interactions"]:  # credentials never recorded
        headers = {name.lower() for name in interaction["request"]["headers"]}
        assert not headers & {"authorization", "x-api-key", "cookie"}
    assert recorded["key"] not in cassette.read_text()
    # no key in the environment, no server: every answer comes from the cassette
    assert main([*recorded["argv"], "--transcripts", str(tmp_path), "--replay-calls", str(cassette)]) == 0
    replayed = transcript_in(tmp_path)
    assert replayed.events == original.events

    # each seat got the same answers in the same order (the seats' calls interleave as they arrive)
    def answers(transcript) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for line in transcript.calls:
            out.setdefault(line["player"], []).append(line["call"]["raw"])
        return out

    assert answers(replayed) == answers(original)
    assert f"calls replayed: {len(data['interactions'])} HTTP exchanges" in capsys.readouterr().out


def test_replay_does_not_depend_on_the_order_of_requests(recorded, tmp_path):
    """Shuffled, the cassette still replays the same game: each request finds its own recording by
    its body, not by its place, so simultaneous decisions may reach the transport in any order."""
    data = load(recorded["tmp"] / "calls.yaml")
    assert sum(1 for e in transcript_in(recorded["tmp"] / "recorded").events if e["type"] == "vote_result")
    random.Random(5).shuffle(data["interactions"])
    shuffled = tmp_path / "shuffled.yaml"
    save(shuffled, data)
    assert main([*recorded["argv"], "--transcripts", str(tmp_path / "tr"), "--replay-calls", str(shuffled)]) == 0
    assert transcript_in(tmp_path / "tr").events == transcript_in(recorded["tmp"] / "recorded").events


def test_a_request_the_cassette_does_not_hold_is_one_line(recorded, tmp_path, capsys):
    """A recording that differs from what the game asks (here: one prompt edited) stops the replay
    at that request: one line naming the seat and the decision, exit code 1, an aborted transcript."""
    data = load(recorded["tmp"] / "calls.yaml")
    index = len(data["interactions"]) // 2
    request = data["interactions"][index]["request"]
    request["body"] = request["body"].replace('"role"', '"role" ', 1)
    edited = tmp_path / "edited.yaml"
    save(edited, data)
    assert main([*recorded["argv"], "--transcripts", str(tmp_path / "tr"), "--replay-calls", str(edited)]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("arena: error: replay: no recorded call matches seat ")
    # the edited call may be a retry (try 2) of a decision, depending on how the game went
    assert re.search(r"seat \w+'s decision \d+ \(day \d+, \w+, try \d+\) in ", err) and str(edited) in err
    transcript = transcript_in(tmp_path / "tr")
    assert transcript.aborted and err.endswith(transcript.aborted)


def test_replay_of_another_game_is_refused_before_it_starts(recorded, tmp_path, capsys):
    argv = [a if a != "11" else "12" for a in recorded["argv"]]
    cassette = recorded["tmp"] / "calls.yaml"
    assert main([*argv, "--transcripts", str(tmp_path), "--replay-calls", str(cassette)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"arena: error: {cassette} records another game: seed 11 (replay with the recorded command)"
    assert not list(tmp_path.glob("*.jsonl"))
    # without --seed, a replay takes the recorded game's
    argv = [a for i, a in enumerate(recorded["argv"]) if a != "--seed" and recorded["argv"][i - 1] != "--seed"]
    assert main([*argv, "--transcripts", str(tmp_path), "--replay-calls", str(cassette)]) == 0
    assert transcript_in(tmp_path).header["seed"] == 11
    assert main([*argv, "--replay-calls", str(tmp_path / "none.yaml")]) == 2
    assert "--replay-calls: " in capsys.readouterr().err


def test_tournament_records_one_cassette_per_game_and_replays_them(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(KEY_VAR, "-".join(["sk", "proj", secrets.token_hex(20)]))
    with FakeModelServer(seed=3) as server:
        config = tmp_path / "t.toml"
        config.write_text(f"""name = "t"
games = 2
concurrency = 2
database = "{tmp_path / "a.sqlite"}"
transcripts = "{tmp_path / "a"}"
[models]
bot = "bot"
oa = "openai:m@{server.openai_url}?api_key_env={KEY_VAR}"
[[variants]]
name = "classic"
players = 6
options = {{ discussion_rounds = 1, max_days = 2 }}
""")
        assert main(["tournament", str(config), "--quiet", "--record-calls"]) == 0
    cassettes = sorted((tmp_path / "a").glob("*.calls.yaml"))
    transcripts = sorted((tmp_path / "a").glob("*.jsonl"))
    assert len(cassettes) == len(transcripts) == 2
    assert [c.name.removesuffix(".calls.yaml") for c in cassettes] == [t.stem for t in transcripts]  # beside each other
    monkeypatch.delenv(KEY_VAR)
    argv = ["tournament", str(config), "--quiet", "--db", str(tmp_path / "b.sqlite"), "--transcripts", str(tmp_path / "b")]
    assert main([*argv, "--replay-calls", str(tmp_path / "a")]) == 0
    first, second = (sqlite3.connect(tmp_path / f"{n}.sqlite") for n in "ab")
    games = {key: read_transcript(path).events for key, path in first.execute("SELECT key, transcript FROM games")}
    again = {key: read_transcript(path).events for key, path in second.execute("SELECT key, transcript FROM games")}
    assert games == again and len(games) == 2
    first.close()
    second.close()
    # a game without its cassette fails (one line per game), the run goes on
    cassettes[0].unlink()
    argv[argv.index(str(tmp_path / "b.sqlite"))] = str(tmp_path / "c.sqlite")
    assert main([*argv, "--replay-calls", str(tmp_path / "a")]) == 1
    out = " ".join(capsys.readouterr().out.split())  # the closing lines wrap between words at 80 columns
    assert f"no recorded calls for this game: {cassettes[0]}" in out
