"""A seat that cannot play stops the run, at once and clearly; no key ever reaches a file or the screen.

Everything runs against loopback servers started here (tests/llm_server.py, a socket that never
answers, a port nothing listens on), each stopped after its test. Keys are built at run time.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
import secrets
import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from arena.cli import main
from arena.cli.usage_table import print_usage
from arena.players.llm.transport import Breaker
from arena.players.llm.usage import Usage
from arena.players.redact import REDACTED, redact, register_key
from arena.run.transcript import read_transcript
from tests.llm_server import FakeModelServer, Gate

KEY_VAR = "ARENA_TEST_KEY"
FAST = "attempts=2&backoff=0&max_backoff=0&retry_budget=10"
SHORT = "players = 6\n[options]\ndiscussion_rounds = 1\nmax_days = 2\n"


def make_key() -> str:
    """An OpenAI-shaped key made now (no key-shaped literal in the repository)."""
    return "-".join(["sk", "proj", secrets.token_hex(20)])


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def key(monkeypatch) -> str:
    value = make_key()
    monkeypatch.setenv(KEY_VAR, value)
    return value


@contextlib.contextmanager
def dead_port() -> Iterator[int]:
    """A port nothing listens on (bound once to pick it, then closed)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    yield port


@contextlib.contextmanager
def hanging_port() -> Iterator[int]:
    """A port that takes connections (the kernel completes the handshake) and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


def play(tmp_path: Path, seats: dict[str, str], *extra: str) -> int:
    config = tmp_path / "short.toml"
    config.write_text(SHORT)
    argv = ["play", "classic", "--seed", "3", "--config", str(config), "--transcripts", str(tmp_path / "tr"), *extra]
    for name, spec in seats.items():
        argv += ["--seat", f"{name}={spec}"]
    return main(argv)


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("arena: error: ") and "Traceback" not in err
    return lines[0]


def no_transcript(tmp_path: Path) -> bool:
    return not list((tmp_path / "tr").glob("*.jsonl")) if (tmp_path / "tr").exists() else True


# ---- preflight: one line, exit 2, no game -------------------------------------------------------
def test_a_refused_key_is_one_line_and_never_shown(tmp_path, capsys, caplog, key):
    """401 with the key echoed in the body (as OpenAI does), for both SDKs: the seats are named, the
    key is nowhere — not on the screen, not in the log."""
    caplog.set_level(logging.DEBUG)
    with FakeModelServer(gate=Gate(keys=frozenset({"another-key-0000"}), models=frozenset({"m"}))) as server:
        seats = {
            "Ann": f"openai:m@{server.openai_url}?api_key_env={KEY_VAR}",
            "Bob": f"anthropic:m@{server.anthropic_url}?api_key_env={KEY_VAR}",
        }
        assert play(tmp_path, seats) == 2
        assert server.log == []  # no model call was made
    out, err = capsys.readouterr()
    line = one_error_line(err)
    assert f"seat Ann ({seats['Ann']})" in line and f"seat Bob ({seats['Bob']})" in line
    assert f"refused the key in {KEY_VAR} (401: Incorrect API key provided: {REDACTED}" in line
    assert "no game was started" in line and no_transcript(tmp_path)
    assert key not in out + err + caplog.text


def test_a_forbidden_key_and_an_unknown_model(tmp_path, capsys, key):
    with FakeModelServer(gate=Gate(forbidden=True)) as server:
        assert play(tmp_path, {"Cid": f"openai:m@{server.openai_url}?api_key_env={KEY_VAR}"}) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "seat Cid (openai:m@" in line and "refused 'm' with the key in ARENA_TEST_KEY (403:" in line
    with FakeModelServer(gate=Gate(models=frozenset({"small", "large"}))) as server:
        # a server of our own: the model is not in its list, and a one-token request gets 404
        assert play(tmp_path, {"Dee": f"openai:huge@{server.openai_url}", "Eve": f"anthropic:small@{server.anthropic_url}"}) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "seat Dee (openai:huge@" in line and "unknown model 'huge'" in line and "(404: The model `huge` does not" in line
    assert "it serves large, small" in line and "Eve" not in line and no_transcript(tmp_path)


def test_an_unknown_model_of_the_provider_api(tmp_path, capsys, monkeypatch, key):
    """No @URL: the model's own page (GET /models/{model}) is asked; the SDK's base URL is the
    loopback server here."""
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with FakeModelServer(gate=Gate(models=frozenset({"gpt-known"}))) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)
        assert play(tmp_path, {"Fay": "openai:gpt-nope"}) == 2
        posts = list(server.log)
    line = one_error_line(capsys.readouterr().err)
    assert "seat Fay (openai:gpt-nope): unknown model 'gpt-nope' at the OpenAI API (404:" in line
    assert posts == [] and key not in line


def test_a_dead_port_and_a_hang(tmp_path, capsys):
    with dead_port() as port:
        assert play(tmp_path, {"Ann": f"openai:m@http://127.0.0.1:{port}/v1"}) == 2
    line = one_error_line(capsys.readouterr().err)
    assert f"seat Ann (openai:m@http://127.0.0.1:{port}/v1): cannot reach http://127.0.0.1:{port}/v1" in line
    with hanging_port() as port:  # the profile's check_timeout (default 3 s) bounds the wait
        assert play(tmp_path, {"Bob": f"anthropic:m@http://127.0.0.1:{port}"}) == 2
    line = one_error_line(capsys.readouterr().err)
    assert f"seat Bob (anthropic:m@http://127.0.0.1:{port}): no answer from http://127.0.0.1:{port} within 3 s" in line
    assert no_transcript(tmp_path)


def test_a_server_slow_to_answer_its_first_call_passes_the_check():
    """The server lists its models at once but takes longer than check_timeout to answer a call (a
    model loading): the check passes; the game's own timeout and retries apply from there."""
    from arena.players.llm import make_llm_player
    from arena.players.llm.preflight import run_preflight

    with FakeModelServer(fault_rate=1.0, faults=("hang",), hang=1.0) as server:
        player = make_llm_player(f"openai:unlisted@{server.openai_url}?check_timeout=0.3", "Ann")
        assert run_preflight({"Ann": player}) == []
        dead = make_llm_player("openai:m@http://127.0.0.1:9/v1?check_timeout=0.3", "Bob")
        (problem,) = run_preflight({"Ann": player, "Bob": dead, "Cid": dead})
        assert problem.seats == ["Bob", "Cid"] and problem.line().endswith("(also seats Cid)")


def test_local_seats_and_bots_are_not_checked_over_the_network():
    from types import SimpleNamespace

    from arena.cli.calls import network_seats
    from arena.players.llm.profiles import resolve_spec

    local = SimpleNamespace(profile=resolve_spec("local:/nowhere/model.gguf", {}))
    remote = SimpleNamespace(profile=resolve_spec("openai:m@http://127.0.0.1:9/v1", {}))
    assert network_seats({"Ann": local, "Bob": SimpleNamespace(name="Bob"), "Cid": remote}) == {"Cid": remote}


# ---- during a game: the breaker ----------------------------------------------------------------------
def test_a_dead_endpoint_mid_game_stops_it(tmp_path, capsys, caplog, key):
    """The server fails every call after the 10th (its error text quotes the key and a Bearer
    header): the breaker stops the game, the summary says aborted and why, exit code 1, the end
    table shows each seat's forfeits and transport failures — and the key is nowhere."""
    caplog.set_level(logging.INFO)
    with FakeModelServer(seed=2, gate=Gate(fail_after=10, echo_key=True)) as server:
        seats = {
            "Ann": f"openai:m@{server.openai_url}?api_key_env={KEY_VAR}&{FAST}",
            "Bob": f"anthropic:m@{server.anthropic_url}?api_key_env={KEY_VAR}&{FAST}",
            "Cid": f"openai:m@{server.openai_url}?api_key_env={KEY_VAR}&{FAST}",
        }
        assert play(tmp_path, seats) == 1
        calls = server.gate.calls
    out, err = capsys.readouterr()
    transcript = read_transcript(next((tmp_path / "tr").glob("*.jsonl")))
    assert not transcript.complete and transcript.aborted.startswith("endpoint down: ")
    assert "3 calls in a row given up (last: provider unavailable: 2× 503)" in transcript.aborted
    assert one_error_line(err) == f"arena: error: {transcript.aborted}"
    failures = {seat: u["transport_failures"] for seat, u in transcript.summary["usage"].items()}
    forfeits = {seat: c["forfeits"] for seat, c in transcript.summary["per_player"].items() if seat in failures}
    # the third call in a row given up on one endpoint stopped the game (with Ann's and Cid's calls of
    # one vote failing together, the fourth may be on the record too; Bob's endpoint gave up fewer);
    # calls given up in a batch that never resolved are not forfeits
    openai, anthropic = failures["Ann"] + failures["Cid"], failures["Bob"]
    assert (3 <= openai <= 4 and anthropic < 3) or (anthropic == 3 and openai < 3)
    given_up = [e for e in transcript.events if e["type"] == "forfeit" and e["data"]["why"].startswith("provider")]
    assert len(given_up) <= sum(failures.values()) - 1  # (other forfeits: three random answers refused)
    assert calls - 10 <= sum(failures.values()) * 2 + 2  # 2 tries a call given up, and a try of each other seat in flight
    rows = {line.split("│")[1].strip(): line for line in out.splitlines() if line.count("│") > 2}
    assert "forfeits" in out and "transport" in out and "failures" in out
    for seat in seats:
        cells = [c.strip() for c in rows[seat].split("│")[1:-1]]
        assert cells[-2:] == [str(forfeits[seat]), str(failures[seat])], rows[seat]
    # the key was in every error body the server sent: redacted everywhere it went
    text = (tmp_path / "tr").joinpath(transcript.path.name).read_text()
    assert "Bearer " + REDACTED in text and REDACTED in caplog.text
    for where in (text, out, err, caplog.text):
        assert key not in where


def test_the_breaker_counts_calls_given_up_in_a_row():
    breaker = Breaker("openai|x")
    assert not breaker.failure("503", 3) and not breaker.failure("503", 3)
    breaker.success()  # an answer resets the count
    assert not breaker.failure("503", 3) and not breaker.failure("503", 3)
    assert breaker.failure("timeout", 3) and breaker.down == "3 calls in a row given up (last: timeout)"
    breaker.success()  # down stays down for the run
    assert breaker.failure("503", 3)


# ---- redaction ---------------------------------------------------------------------------------------
def test_redact_known_keys_and_key_shapes(caplog):
    mine = "plain" + secrets.token_hex(8)  # a key of no known shape: removed because it was configured
    register_key(mine)
    register_key("test")  # too short to be a secret: not registered
    shaped = make_key()
    anthropic = "-".join(["sk", "ant", "api03", secrets.token_hex(24)])
    text = (
        f"Incorrect API key provided: {shaped}. key {mine}; Authorization: Bearer {secrets.token_hex(12)}; "
        f"{{'x-api-key': '{anthropic}'}} api_key={secrets.token_hex(6)} a test"
    )
    clean = redact(text)
    assert shaped not in clean and mine not in clean and anthropic not in clean and "Bearer " + REDACTED in clean
    assert clean.count(REDACTED) == 5 and clean.endswith("a test") and redact(clean) == clean
    assert redact("sk-learn and a bearer of news") == "sk-learn and a bearer of news"
    from arena.players.redact import install_log_redaction

    install_log_redaction()
    caplog.set_level(logging.INFO)
    try:
        raise RuntimeError(f"boom {shaped}")
    except RuntimeError:
        logging.getLogger("openai").exception("request failed with %s", shaped)
    assert shaped not in caplog.text and "request failed with " + REDACTED in caplog.text
    assert "RuntimeError: boom " + REDACTED in caplog.text


# ---- the end table -----------------------------------------------------------------------------------
def test_end_table_never_cuts_a_number_at_80_columns():
    from types import SimpleNamespace

    players = {}
    for index, name in enumerate(("Ann", "Bob", "Cid")):
        usage = Usage(model="m", calls=12345, input_tokens=123_456_789, cached_tokens=61_000_000, output_tokens=2_345_678)
        usage.cost, usage.latency, usage.transport_failures = 1234.5678, 98765.4 + index, 321 + index
        spec = f"openai:a-rather-long-model-name@http://127.0.0.1:{40000 + index}/v1?structured=json_text"
        players[name] = SimpleNamespace(usage=usage, spec=spec)
    console = Console(file=io.StringIO(), width=80, record=True)
    print_usage(console, players, 3.0)
    text = console.export_text()
    assert all(len(line) <= 80 for line in text.splitlines()) and "…" not in text
    for number in ("12,345", "123,456,789", "49%", "2,345,678", "98765.4", "1234.5678", "321", "323", "37,035", "370,370,367"):
        assert re.search(rf"(?<![\d,.]){re.escape(number)}(?![\d,.])", text), number
    assert "forfeits" in text and "transport" in text and "no cost column" not in text


def test_end_table_says_why_it_has_no_cost_column():
    from types import SimpleNamespace

    usage = Usage(model="m", calls=3, input_tokens=900, cached_tokens=0, output_tokens=30)
    console = Console(file=io.StringIO(), width=120, record=True)
    print_usage(console, {"Ann": SimpleNamespace(usage=usage, spec="openai:m")}, 1.0)
    text = console.export_text()
    assert "cost $" not in text and "no cost column: no model seat has prices" in text


def tournament_config(tmp_path: Path, oa: str, top: str = "", options: str = "") -> Path:
    """Two games of 6-player classic: the bot against the model ``oa`` (a TOML value)."""
    config = tmp_path / "t.toml"
    config.write_text(f"""name = "t"
games = 2
{top}
database = "{tmp_path / "t.sqlite"}"
transcripts = "{tmp_path / "tr"}"
[models]
bot = "bot"
oa = {oa}
[[variants]]
name = "classic"
players = 6
{options}
""")
    return config


# ---- the tournament database -------------------------------------------------------------------------
def test_tournament_game_failed_by_a_dead_endpoint_is_retried(tmp_path, capsys, key):
    """The endpoint dies during the first game: that game is recorded as failed (no games row, its
    attempt has the error, its transcript is aborted), no other game using it starts, exit code 1
    with one line saying so; the same command after the endpoint is back plays both games. No key
    in the database."""
    gate = Gate(fail_after=4, echo_key=True)
    with FakeModelServer(seed=5, gate=gate) as server:
        oa = f'{{ spec = "openai:m@{server.openai_url}?api_key_env={KEY_VAR}", attempts = 2, backoff = 0 }}'
        config = tournament_config(tmp_path, oa, "concurrency = 1", "options = { discussion_rounds = 1, max_days = 2 }")
        assert main(["tournament", str(config), "--quiet"]) == 1
        out = capsys.readouterr().out
        db = sqlite3.connect(tmp_path / "t.sqlite")
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0
        ((error, path),) = db.execute("SELECT error, transcript FROM attempts").fetchall()
        assert error.startswith("endpoint down: ") and read_transcript(path).aborted == error
        assert f"endpoint down: {server.openai_url}: 3 calls in a row given up" in out
        assert "1 game(s) using it not started" in out and "1 failed, 1 not started" in out
        dump = "\n".join(db.iterdump())
        assert key not in dump and key not in out and key not in Path(path).read_text()
        db.close()
        gate.fail_after = None  # the endpoint is back
        assert main(["tournament", str(config), "--quiet"]) == 0
        out = capsys.readouterr().out
    db = sqlite3.connect(tmp_path / "t.sqlite")
    assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2
    attempts = db.execute("SELECT game, error FROM attempts ORDER BY id").fetchall()
    assert len(attempts) == 3 and attempts[0][0] == attempts[1][0] and attempts[1][1] is None
    assert "2 games played, 0 already finished, 0 failed" in out
    db.close()


def test_tournament_with_a_dead_endpoint_starts_nothing(tmp_path, capsys):
    with dead_port() as port:
        config = tournament_config(tmp_path, f'"openai:m@http://127.0.0.1:{port}/v1"')
        assert main(["tournament", str(config)]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert f"model oa (openai:m@http://127.0.0.1:{port}/v1): cannot reach" in line and not (tmp_path / "tr").exists()
