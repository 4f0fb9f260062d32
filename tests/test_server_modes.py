"""Servers of your own: the mode the check picks, refused requests, lost formats, the end table's labels.

Against loopback stand-ins (tests/llm_server.py): one that behaves like llama-cpp-python's server
(tools ignored, ``json_schema`` answered with its 500 validation error, ``json_object`` with a schema
honoured), and the plain one with an outage of a chosen status. The same behaviour against the real
server is in tests/test_real_server.py.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena.cli import main
from arena.cli.usage_table import print_usage, short_labels
from arena.players.llm import make_llm_player, modes
from arena.players.llm.providers import error_body, refused, transport_error
from arena.players.llm.usage import Usage
from arena.run.transcript import read_transcript
from tests.llm_server import FakeModelServer, Gate, is_mode_probe

SHORT = "players = 6\n[options]\ndiscussion_rounds = 1\nmax_days = 2\n"
PYDANTIC_500 = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
    "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
    "'ctx': {'expected': \"'text' or 'json_object'\"}}\n\n  File \"/srv/llama_cpp/server/app.py\", line 376"
)


class LlamaLikeServer(FakeModelServer):
    """What llama-cpp-python's server does under its default chat format (measured, docs/llm.md)."""

    def handle(self, api: str, raw: bytes) -> tuple[int, dict[str, str], dict[str, Any], float]:
        body = json.loads(raw)
        fmt = body.get("response_format") or {}
        if fmt.get("type") == "json_schema":
            error = {"message": PYDANTIC_500, "type": "internal_server_error", "param": None, "code": None}
            return 500, {}, {"error": error}, 0.0
        body.pop("tools", None)  # ignored: the answer is prose
        body.pop("tool_choice", None)
        if fmt.get("type") == "json_object" and "schema" in fmt:  # a grammar from the schema
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": "x", "schema": fmt["schema"]}}
        elif not any("```json" in str(m.get("content")) for m in body.get("messages", [])):
            body["messages"][-1] = {"role": "user", "content": "Say hello."}  # no schema anywhere: prose
        status, headers, answer, stall = super().handle(api, json.dumps(body).encode())
        if isinstance(answer.get("usage"), dict):  # its usage says nothing of the prompt cache
            answer["usage"].pop("prompt_tokens_details", None)
        return status, headers, answer, stall

    def _schema_answer(self, body: dict[str, Any], gen: Any, fault: str | None) -> str:
        if (body.get("response_format") or {}).get("type") != "json_schema" and body["messages"][-1]["content"] == "Say hello.":
            return "Hello! I am happy to play this game with you."
        return super()._schema_answer(body, gen, fault)


@pytest.fixture(autouse=True)
def _forget_modes():
    """The check's picks live for the process: none leaks into another test (ports are reused)."""
    yield
    modes._picked.clear()


def play(tmp_path: Path, spec: str, *extra: str) -> int:
    config = tmp_path / "short.toml"
    config.write_text(SHORT)
    argv = ["play", "classic", "--seed", "3", "--config", str(config), "--transcripts", str(tmp_path / "tr"), "--quiet"]
    return main([*argv, "--seats", spec, *extra])


def transcript(tmp_path: Path) -> Any:
    (path,) = (tmp_path / "tr").glob("*.jsonl")
    return read_transcript(path)


def test_the_check_picks_json_object_on_a_llama_like_server(tmp_path, capsys):
    """No ?structured=: tools are ignored, json_schema refused, json_object kept; said in one line,
    recorded in the header; the game is played without a forfeit."""
    with LlamaLikeServer() as server:
        assert play(tmp_path, f"openai:m@{server.openai_url}") == 0
    out, err = capsys.readouterr()
    line = next(x for x in out.splitlines() if x.startswith(server.openai_url))
    # prose under tool_choice "required": tool_choice is not enforced, so tools (auto) is not asked
    assert "tools (required): answered in prose; tools (auto): not asked (tool_choice ignored)" in line
    # the probe's system prompt says it is a connection check, with no rules summary: little to
    # evaluate first, and no fact of the game to come (which may be another variant)
    probes = [e["body"]["messages"][0]["content"] for e in server.log if is_mode_probe(e["body"])]
    assert len(probes) == 2 and all("practice question" in p and "Seats in order" not in p and len(p) < 1000 for p in probes)
    assert "json_schema: refused (500 response_format.type: Input should be 'text' or 'json_object' (got 'json_schema'))" in line
    assert "using json_object with a schema (checked in" in line and out.count(server.openai_url + ":") == 1
    record = transcript(tmp_path)
    assert set(record.header["structured"].values()) == {"json_object"}
    # a seat made later in the same process (a tournament's next game) plays in the mode picked
    assert make_llm_player(f"openai:m@{server.openai_url}", "Zed").profile.mode == "json_object"
    assert record.summary["finished"] and "error" not in err
    assert record.summary["decisions"] > 10 and record.summary["forfeits"] == 0
    # the server reports no cache: its share is unknown, never "0%"
    assert all(u["cache_hit_rate"] is None for u in record.summary["usage"].values())
    assert "unknown" in out.replace("\n", " ") and " 0% " not in out


class AutoOnlyServer(FakeModelServer):
    """Honours tools but refuses ``tool_choice: "required"`` (as llama-cpp-python's
    ``chatml-function-calling`` format does, there with a 500)."""

    def handle(self, api: str, raw: bytes) -> tuple[int, dict[str, str], dict[str, Any], float]:
        if json.loads(raw).get("tool_choice") == "required":
            error = {"message": "tool_choice must be 'auto'", "type": "invalid_request_error", "param": "tool_choice"}
            return 422, {}, {"error": error}, 0.0
        return super().handle(api, raw)


def test_a_server_that_refuses_required_tools_gets_tools_auto(tmp_path, capsys):
    """A refused tools (required) says nothing of tools (auto): it is asked, and kept."""
    with AutoOnlyServer() as server:
        assert play(tmp_path, f"openai:m@{server.openai_url}") == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith(server.openai_url))
    assert "tools (required): refused (422 tool_choice must be 'auto'); using tools (auto)" in line
    assert set(transcript(tmp_path).header["structured"].values()) == {"tools_auto"}


def test_a_forced_mode_the_server_refuses_is_one_line_and_exit_2(tmp_path, capsys):
    with LlamaLikeServer() as server:
        assert play(tmp_path, f"openai:m@{server.openai_url}?structured=json_schema") == 2
        assert len(server.log) == 1  # one request, not retried
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("arena: error: seat Ann (openai:m@"), err
    assert "refused the request in mode json_schema: 500 response_format.type: Input should be" in lines[0]
    assert "leave out ?structured=" in lines[0] and "no game was started" in lines[0]
    assert not (tmp_path / "tr").exists() or not list((tmp_path / "tr").glob("*.jsonl"))


@pytest.mark.parametrize("status", [422, 400])
def test_a_request_refused_mid_game_stops_it_at_once(tmp_path, capsys, status):
    """The server starts refusing after a few calls: no retry, the game is aborted with the server's
    reason, exit 1, one error line."""
    gate = Gate(fail_after=6, fail_status=status)
    with FakeModelServer(gate=gate) as server:
        assert play(tmp_path, f"openai:m@{server.openai_url}") == 1
        # the check's two requests, five answered calls, the refused one and at most one more seat's
        # call already on its way (one at a time): no retry
        assert 7 <= gate.calls <= 8
    err = [x for x in capsys.readouterr().err.splitlines() if x.startswith("arena: error:")]
    assert len(err) == 1 and f"refused the request in mode tools: {status} upstream is down" in err[0]
    assert "refused the request" in transcript(tmp_path).summary["aborted"]


def test_a_format_lost_three_decisions_in_a_row_stops_the_game(tmp_path, capsys):
    with FakeModelServer(fault_rate=1.0, faults=("malformed",)) as server:
        assert play(tmp_path, f"openai:m@{server.openai_url}?structured=json_text") == 1
        calls = len(server.log)
    err = [x for x in capsys.readouterr().err.splitlines() if x.startswith("arena: error:")]
    assert len(err) == 1 and "3 decisions in a row lost in mode json_text (the reply is not valid JSON" in err[0]
    assert "leave out ?structured=" in err[0]
    # the check's ping and probe, then at most three decisions of three tries per seat: each seat
    # keeps its own count, and the first to lose three stops the game
    assert calls <= 2 + 6 * 3 * 3
    assert "decisions in a row lost" in transcript(tmp_path).summary["aborted"]


class SmallContextServer(FakeModelServer):
    """Refuses a prompt over ``limit`` characters as llama-cpp-python's server does (its default
    context is 2,048 tokens), with OpenAI's wording."""

    limit = 12_000
    escaped = True  # count the messages as escaped JSON ("—" is 6 characters), as the tests written for it do
    FULL = (
        "This model's maximum context length is 2048 tokens. However, you requested 3100 tokens (2076 in the "
        "messages, 1024 in the completion). Please reduce the length of the messages or completion."
    )

    def handle(self, api: str, raw: bytes) -> tuple[int, dict[str, str], dict[str, Any], float]:
        if len(json.dumps(json.loads(raw).get("messages"), ensure_ascii=self.escaped)) > self.limit:
            error = {
                "message": self.FULL,
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
            return 400, {}, {"error": error}, 0.0
        return super().handle(api, raw)


def test_a_prompt_over_the_context_stops_the_game_and_it_resumes_with_room(tmp_path, capsys):
    """The first prompt over the server's context stops the game at once, saying what to do (the
    seat's history only grows: each later call would be refused too); with room, it resumes. The seats
    keep the full history: folded into a record, this short game's prompts may never reach the limit."""
    with SmallContextServer(seed=2) as server:
        assert play(tmp_path, f"openai:m@{server.openai_url}?history=full") == 1
        err = [x for x in capsys.readouterr().err.splitlines() if x.startswith("arena: error:")]
        assert len(err) == 1 and "the prompt is over the model's context (400 This model's maximum context" in err[0]
        assert "--n_ctx 8192" in err[0] and "then arena resume the transcript" in err[0]
        cut = transcript(tmp_path)
        assert "over the model's context" in cut.summary["aborted"]
        assert not [e for e in cut.events if e["type"] == "forfeit" and "context" in json.dumps(e)]  # none lost to it
        server.limit = 10**9  # restarted with a larger context
        (path,) = (tmp_path / "tr").glob("*.jsonl")
        assert main(["resume", str(path), "--quiet"]) == 0
    assert transcript(tmp_path).complete


def test_deterministic_errors_are_told_from_passing_ones():
    class Status(Exception):
        def __init__(self, status: int, message: str) -> None:
            super().__init__(f"Error code: {status} - {message[:30]}")
            self.status_code, self.body = status, {"error": {"message": message}}

    validation = Status(500, PYDANTIC_500)
    assert refused(validation) and transport_error(validation) == (False, 500)
    assert error_body(validation) == "response_format.type: Input should be 'text' or 'json_object' (got 'json_schema')"
    assert not refused(Status(500, "the server had a problem")) and transport_error(Status(503, "busy")) == (True, 503)
    assert refused(Status(422, "bad")) and refused(Status(404, "no such model")) and not refused(Status(429, "slow"))
    fastapi = Status(422, "")
    fastapi.body = {"detail": [{"loc": ["body", "tool_choice"], "msg": "Input should be 'auto'"}]}
    assert error_body(fastapi) == "tool_choice: Input should be 'auto'"


def test_a_server_seat_waits_long_and_asks_one_call_at_a_time():
    seat = make_llm_player("openai:m@http://127.0.0.1:9/v1", "Ann")
    assert seat.profile.concurrency == 1 and seat.profile.timeout >= 600 and seat.profile.probed
    tuned = make_llm_player("openai:m@http://127.0.0.1:9/v1?concurrency=4&structured=json_object", "Ann")
    assert tuned.profile.concurrency == 4 and not tuned.profile.probed and tuned.profile.mode == "json_object"
    assert make_llm_player("openai:gpt-4.1-mini", "Ann", api_key_env="").profile.concurrency == 8


def test_the_end_table_shows_a_short_label_and_the_spec_once_below():
    long = "openai:smollm2@http://127.0.0.1:18080/v1?structured=json_object"
    other = "openai:smollm2@http://127.0.0.1:18081/v1"
    labels, notes = short_labels([long, long, other, "bot"])
    assert labels == {long: "openai:smollm2", other: "openai:smollm2 (2)", "bot": "bot"}
    assert notes == [f"openai:smollm2 = {long}", f"openai:smollm2 (2) = {other}"]
    from types import SimpleNamespace

    players = {n: SimpleNamespace(usage=Usage(model="m", calls=3), spec=long) for n in ("Ann", "Bob", "Cid")}
    console = Console(file=io.StringIO(), width=80, record=True)
    print_usage(console, players, 3.0)
    text = console.export_text()
    rows = [line for line in text.splitlines() if "openai:smollm2 │" in line]
    assert [r.split("│")[1].strip() for r in rows] == ["Ann", "Bob", "Cid"]  # one line per seat, not six
    assert text.count(long) == 1


def test_a_tournament_says_the_mode_picked_and_records_it_in_each_transcript(tmp_path, capsys):
    """`arena tournament` prints the check's pick and time once per server, as `arena play` does, and
    every game's transcript header records its model seats' mode (a resumed game plays in it)."""
    with LlamaLikeServer(seed=2) as server:
        config = tmp_path / "t.toml"
        config.write_text(
            f'seed = 2\ngames = 2\nconcurrency = 1\ndatabase = "{tmp_path / "t.sqlite"}"\n'
            f'transcripts = "{tmp_path / "tr"}"\n[models]\nbot = "bot"\n'
            f'oa = {{ spec = "openai:m@{server.openai_url}", attempts = 1 }}\n'
            '[[variants]]\nname = "classic"\nplayers = 6\noptions = { discussion_rounds = 1, max_days = 2 }\n'
        )
        assert main(["tournament", str(config)]) == 0
    out = capsys.readouterr().out
    lines = [x for x in out.splitlines() if x.startswith(server.openai_url + ":")]
    assert len(lines) == 1 and "using json_object with a schema (checked in" in lines[0], out
    paths = sorted((tmp_path / "tr").glob("*.jsonl"))
    assert len(paths) == 2
    for path in paths:
        header = read_transcript(path).header
        oa = [seat for seat, name in header["tournament"]["entrants"].items() if name == "oa"]
        assert header["structured"] == dict.fromkeys(oa, "json_object")


def test_a_calls_seconds_leave_out_the_arenas_own_queue(tmp_path, capsys):
    """One call at a time per server (a server seat's default): seats asked together queue in the
    arena. A call's latency starts when it gets its slot, so the seats' seconds add up to no more than
    the game's time, and the wait is recorded and shown apart."""
    import time

    from tests.llm_server import SlowServer

    with SlowServer(0.1, seed=3) as server:
        began = time.perf_counter()
        # game seed 5: votes, seats asked together (the stand-in's answers, so the game's course, follow the prompts' bytes)
        assert play(tmp_path, f"openai:m@{server.openai_url}?structured=tools", "--seed", "5") == 0
        wall = time.perf_counter() - began
    out = capsys.readouterr().out
    calls = [c["call"] for c in transcript(tmp_path).calls if c["call"].get("outcome") == "ok"]
    assert len(calls) > 10
    busy = sum(c["latency"] for c in calls)
    # the calls never overlap (one slot): their own seconds fit inside the command's wall time
    assert busy <= wall, (busy, wall)
    assert any(c.get("queued", 0) > 0 for c in calls)  # simultaneous votes waited for the slot
    assert "waiting for a free call slot (not in the seats' seconds)" in out
