"""``arena prompts``: what a seat was sent equals, request by request, what the stand-in received."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.players.llm.sent import render
from tests.llm_server import FakeModelServer, is_mode_probe

KEY_VAR = "ARENA_TEST_KEY"
SHORT = "players = 7\n[options]\ndiscussion_rounds = 1\nmax_days = 2\n"


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> dict[str, Any]:
    """One short classic game with model seats on both SDKs and three schema modes, broken answers
    included (so retries with the reason are sent); the requests the server received, per seat."""
    tmp = tmp_path_factory.mktemp("prompts")
    monkey = pytest.MonkeyPatch()
    monkey.setenv(KEY_VAR, "-".join(["sk", "proj", secrets.token_hex(20)]))
    (tmp / "short.toml").write_text(SHORT)
    specs = {
        "Ann": "openai:m@{openai}?api_key_env=" + KEY_VAR,
        "Bob": "anthropic:m@{anthropic}?api_key_env=" + KEY_VAR,
        "Cid": "openai:m@{openai}?structured=json_text&api_key_env=" + KEY_VAR,
        "Dee": "anthropic:m@{anthropic}?structured=json_schema&api_key_env=" + KEY_VAR,
    }
    try:
        with FakeModelServer(seed=5, fault_rate=0.25, faults=("malformed", "illegal")) as server:
            urls = {"openai": server.openai_url, "anthropic": server.anthropic_url}
            seats = [a for name, spec in specs.items() for a in ("--seat", f"{name}={spec.format(**urls)}")]
            argv = ["play", "classic", "--seed", "3", "--config", str(tmp / "short.toml"), "--quiet", *seats]
            code = main([*argv, "--transcripts", str(tmp / "t")])
    finally:
        monkey.undo()
    received: dict[str, list[dict[str, Any]]] = {}
    for entry in server.log:
        if is_mode_probe(entry["body"]):
            continue  # the check's mode probe (a duel's first beat, arena/players/llm/modes.py): no game call
        received.setdefault(entry["player"], []).append(entry["body"])
    (path,) = (tmp / "t").glob("*.jsonl")
    return {"code": code, "path": path, "received": received}


def _out(capsys, *argv: str) -> str:
    assert main(["prompts", *argv]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("seat", ["Ann", "Bob", "Cid", "Dee"])
def test_the_requests_are_what_the_provider_received(played, capsys, seat):
    assert played["code"] == 0
    bodies = played["received"][seat]
    lines = _out(capsys, str(played["path"]), "--seat", seat, "--json").splitlines()
    assert [json.loads(line) for line in lines] == bodies
    # the text: every request after the first as what changed, byte for byte the stand-in's requests shown so
    text = _out(capsys, str(played["path"]), "--seat", seat)
    shown = "\n".join(line for line in text.splitlines() if not line.startswith("=== "))
    expected = "\n".join(render(b, bodies[i - 1] if i else None) for i, b in enumerate(bodies))
    assert shown == expected


def test_one_decision_is_every_request_of_it_in_full(played, capsys):
    bodies = played["received"]["Ann"]
    for n in (1, 3):
        chosen = [
            json.loads(line)
            for line in _out(capsys, str(played["path"]), "--seat", "ann", "--decision", str(n), "--json").splitlines()
        ]
        assert chosen and all(body in bodies for body in chosen)
        text = _out(capsys, str(played["path"]), "--seat", "ann", "--decision", str(n))
        assert text.startswith("=== Ann: call ") and f"(decision {n}: " in text and "as before" not in text
        shown = "\n".join(line for line in text.splitlines() if not line.startswith("=== "))
        assert shown == "\n".join(render(body) for body in chosen)


def test_a_retry_carries_the_reason_of_the_rejection(played, capsys):
    """The broken answers of the stand-in were rejected: the seat's next request says why."""
    texts = [_out(capsys, str(played["path"]), "--seat", s) for s in ("Ann", "Bob", "Cid", "Dee")]
    assert any(", try 2)" in t and "Rejected: " in t for t in texts)


def test_a_bot_seat_shows_what_a_model_would_have_been_sent(tmp_path, capsys):
    assert main(["play", "classic", "--seed", "7", "--quiet", "--transcripts", str(tmp_path)]) == 0
    capsys.readouterr()
    (path,) = tmp_path.glob("*.jsonl")
    text = _out(capsys, str(path), "--seat", "Bob")
    assert text.startswith("# Bob (bot) sent no model call: what openai:gpt-4.1-mini would have been sent")
    assert "seat name is Bob." in text and "seat name is Ann." not in text
    from arena.run.transcript import read_transcript

    events = read_transcript(path).events
    decisions = sum(1 for e in events if e.get("actor") == "Bob" and e["type"] in ("action", "forfeit", "rejected"))
    assert text.count("=== Bob: call ") == decisions > 1
    answered = []  # the decisions whose request carries Bob's answer before: as its tool call, or in the record (folded)
    own = ("\n- Your thought: ", "\n- You spoke", "\n- Your answer: ")
    for number in range(2, decisions + 1):
        anthropic = _out(capsys, str(path), "--seat", "Bob", "--decision", str(number), "--model", "anthropic:claude-x", "--json")
        (body,) = [json.loads(line) for line in anthropic.splitlines()]
        assert body["model"] == "claude-x" and body["system"][0]["text"].startswith("You are playing Mafia")
        newest = body["messages"][-1]["content"]  # its last block a breakpoint, or (a fold) its record's last block
        marks = [i for i, block in enumerate(newest) if block.get("cache_control") == {"type": "ephemeral"}]
        assert marks and (marks[-1] == len(newest) - 1 or newest[marks[-1] + 1]["text"].startswith(("\n(New since", "\n\n")))
        blocks = [b for m in body["messages"] for b in m["content"]]
        called = any(b.get("type") == "tool_use" for b in blocks)
        answered += [number] if called or any(line in b.get("text", "") for b in blocks for line in own) else []
    assert answered, "no request carries an earlier answer of Bob's"


@pytest.mark.parametrize("variant", ["classic", "cove", "village", "duel", "duel3", "trio"])
def test_every_variant_renders_a_request_per_answer(tmp_path, capsys, variant):
    """One request per answer the seat gave (a rejected one included), each holding only that seat's name as its own."""
    from arena.run.transcript import read_transcript

    assert main(["play", variant, "--seed", "5", "--quiet", "--transcripts", str(tmp_path)]) == 0
    capsys.readouterr()
    (path,) = tmp_path.glob("*.jsonl")
    lines = [json.loads(line) for line in _out(capsys, str(path), "--seat", "Ann", "--json").splitlines()]
    answers = [e for e in read_transcript(path).events if e.get("actor") == "Ann" and e["type"] in ("action", "rejected")]
    assert len(lines) == len(answers) > 0
    assert all("seat name is Ann." in body["messages"][0]["content"] for body in lines)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--seat", "Zed"], "no seat 'Zed'"),
        (["--seat", "Ann", "--decision", "999"], "Ann has no decision 999"),
        (["--seat", "Ann", "--decision", "0"], "Ann has no decision 0"),
    ],
)
def test_bad_input_is_one_line(played, capsys, argv, says):
    assert main(["prompts", str(played["path"]), *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1


def test_not_a_transcript_is_one_line(tmp_path, capsys):
    bad = tmp_path / "x.jsonl"
    bad.write_text("hello\n")
    for path in (bad, tmp_path / "missing.jsonl", Path(tmp_path)):
        assert main(["prompts", str(path), "--seat", "Ann"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("arena: error: ") and err.count("\n") == 1


def test_a_transcript_from_before_params_were_recorded_still_rebuilds(played):
    """Older call records lack ``params`` and ``appended``: the history is rebuilt from each
    call's answer (the tool call ids are guessed), the model is the only parameter shown."""
    from arena.players.llm.sent import rebuild
    from arena.run.transcript import read_transcript

    calls = [c["call"] for c in read_transcript(played["path"]).calls if c["player"] == "Ann"]
    old = [{k: v for k, v in call.items() if k not in ("params", "appended")} for call in calls]
    received = played["received"]["Ann"]
    for body, sent in zip(rebuild(old), received, strict=True):
        assert body["model"] == "m" and "max_tokens" not in body
        assert [m["role"] for m in body["messages"]] == [m["role"] for m in sent["messages"]]
        assert [m.get("content") for m in body["messages"]] == [m.get("content") for m in sent["messages"]]


def test_a_tournaments_belief_questions_are_shown_as_sent_beside_the_decisions(tmp_path, capsys):
    """A model seat of a tournament with ``beliefs``: its belief questions, asked beside the game, are
    rebuilt as the stand-in received them (they were shown as "decision 1: request None" with the
    conversation of the seat's last decision and no question), and they neither count as decisions
    nor change the rebuilt requests of the decisions after them."""
    from tests.test_positions_beliefs import belief_tournament

    with FakeModelServer(seed=2) as server:
        assert belief_tournament(server.openai_url, tmp_path, seed=4) == 2
    received: dict[str, list[dict[str, Any]]] = {}
    for entry in server.log:  # each seat is the model's in one game of the pair only
        if entry["body"].get("messages") != [{"role": "user", "content": "ping"}]:
            received.setdefault(entry["player"], []).append(entry["body"])
    beliefs = 0
    for path in sorted((tmp_path / "tr").glob("*.jsonl")):
        header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        for seat in (s for s, spec in header["players"].items() if spec.startswith("openai:")):
            lines = _out(capsys, str(path), "--seat", seat, "--json").splitlines()
            assert [json.loads(line) for line in lines] == received[seat]
            text = _out(capsys, str(path), "--seat", seat)
            beliefs += text.count("(belief question of day ")
            assert "request None" not in text
            first = _out(capsys, str(path), "--seat", seat, "--decision", "1")
            assert "(decision 1: request " in first and "belief question" not in first
    assert beliefs > 0
