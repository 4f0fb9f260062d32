"""Tournaments and balance runs on Ray (``--ray``), against one local Ray instance for the module
(2 CPUs, no dashboard), stopped at the end with a check that none of its processes is left.

The same rows as an in-process run; per-endpoint limits held across workers (the loopback server
counts the requests it serves at once); a worker killed mid-game costs that game one try and the
database ends with every planned game once; a driver killed with -9 resumes; balance gives the
same counts; an address that does not answer is one line."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")

from arena.run.replay import replay  # noqa: E402
from arena.run.transcript import read_transcript  # noqa: E402
from arena.tournament.balance import balance  # noqa: E402
from arena.tournament.config import parse_tournament  # noqa: E402
from arena.tournament.design import build_design  # noqa: E402
from arena.tournament.distributed import RayChunks, RayExecutor  # noqa: E402
from arena.tournament.runner import TournamentCalls, run_tournament  # noqa: E402
from arena.variants import get_variant  # noqa: E402
from tests.helpers import bot_vs_model_tournament, count_rows  # noqa: E402
from tests.llm_server import FakeModelServer, Gate, SlowServer, game_calls, is_mode_probe  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FAST = {"backoff": 0.001, "max_backoff": 0.01, "retry_budget": 20.0}
TIMES = {"seconds", "started", "ended"}  # wall-clock columns: the only ones two runs may differ in


# ---- the module's Ray instance ------------------------------------------------------------------------
def descendants(pid: int) -> dict[int, str]:
    """Every process under ``pid`` (pid -> command line), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out: dict[int, str] = {}
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            try:
                out[child] = (Path("/proc") / str(child) / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
            except OSError:
                continue
            todo.append(child)
    return out


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    # Ray's session folder (logs, sockets) in a folder of our own, removed at the end: by default it
    # stays in /tmp/ray after every run. Short, under /tmp: Ray's socket paths must fit 107 bytes.
    temp_dir = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level=logging.ERROR, _temp_dir=temp_dir)
    try:
        yield
    finally:
        started = descendants(os.getpid())  # Ray's processes: gcs_server, raylet, its agents, workers
        ray.shutdown()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(alive(pid) for pid in started):
            time.sleep(0.2)
        left = {pid: cmd for pid, cmd in started.items() if alive(pid)}
        for pid in left:  # never leave them running, even when failing
            os.kill(pid, signal.SIGKILL)
        assert any("raylet" in cmd for cmd in started.values()) and any("gcs_server" in cmd for cmd in started.values())
        shutil.rmtree(temp_dir, ignore_errors=True)
        assert not left, f"Ray processes left after ray.shutdown(): {left}"


@pytest.fixture(autouse=True)
def _no_real_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "RAY_ADDRESS"):
        monkeypatch.delenv(name, raising=False)


def rows(db_path: Path, table: str, drop: set[str] = frozenset()) -> list[tuple]:
    with sqlite3.connect(db_path) as db:
        cur = db.execute(f"SELECT * FROM {table}")
        names = [c[0] for c in cur.description]
        found = [tuple((k, v) for k, v in zip(names, r, strict=True) if k not in drop) for r in cur]
    return sorted(found, key=repr)


def model_config(tmp_path: Path, server: FakeModelServer, name: str, **extra: Any) -> dict[str, Any]:
    endpoint = {"concurrency": 2, **FAST}
    return {
        "name": name, "seed": 4, "games": 4, "concurrency": 4,
        "database": str(tmp_path / f"{name}.sqlite"), "transcripts": str(tmp_path / f"{name}-tr"),
        "models": {
            "oa": {"spec": f"openai:fake-a@{server.openai_url}", "price_input": 2.0, "price_output": 8.0, **endpoint},
            "ob": {"spec": f"openai:fake-b@{server.openai_url}", "price_input": 1.0, "price_output": 4.0, **endpoint},
        },
        "variants": [{"name": "classic", "players": 6, "options": {"discussion_rounds": 1, "max_days": 2}}],
        **extra,
    }  # fmt: skip


# ---- the same rows ------------------------------------------------------------------------------------
def test_a_bots_tournament_on_ray_gives_the_same_rows(tmp_path):
    data = {
        "seed": 3, "games": 4, "concurrency": 4, "beliefs": True,
        "models": {"bot": "bot", "random": "random"},
        "variants": [
            {"name": "classic", "players": [7, 8]}, {"name": "cove", "players": 10},
            {"name": "duel", "games": 2, "options": {"hands": 2}},
        ],
    }  # fmt: skip
    reports = {}
    for how in ("here", "ray"):
        cfg = parse_tournament({**data, "name": how, "database": str(tmp_path / f"{how}.sqlite"),
                                "transcripts": str(tmp_path / how)})  # fmt: skip
        executor = RayExecutor(cfg) if how == "ray" else None
        reports[how] = asyncio.run(run_tournament(cfg, executor=executor))
    assert reports["ray"].played == reports["here"].played == 14 and not reports["ray"].failed
    for table, drop in (("games", TIMES | {"transcript"}), ("player_games", set()), ("stats", set()),
                        ("beliefs", set()), ("attempts", {"id", "started", "transcript"})):  # fmt: skip
        here, there = rows(tmp_path / "here.sqlite", table, drop), rows(tmp_path / "ray.sqlite", table, drop)
        assert here == there and here, table
    # The transcripts, written by the driver from the lines the workers sent, are the same games.
    with sqlite3.connect(tmp_path / "ray.sqlite") as db:
        paths = dict(db.execute("SELECT key, transcript FROM games"))
    assert all(Path(p).parent == tmp_path / "ray" for p in paths.values())
    with sqlite3.connect(tmp_path / "here.sqlite") as db:
        for key, path in db.execute("SELECT key, transcript FROM games"):
            mine, theirs = read_transcript(path), read_transcript(paths[key])
            assert theirs.complete and replay(theirs).ok
            assert mine.events == theirs.events and Path(path).name == Path(paths[key]).name
            assert {**mine.summary, "ended": 0} == {**theirs.summary, "ended": 0}


# ---- per-endpoint limits, cluster-wide ----------------------------------------------------------------
def test_endpoint_concurrency_holds_across_workers(tmp_path):
    """Two models on one endpoint with ``concurrency = 2``, four games at once on up to eight workers:
    the server never sees more than two requests at once (each worker alone would allow two)."""
    with SlowServer(0.05, seed=2) as server:
        cfg = parse_tournament(model_config(tmp_path, server, "limit"))
        executor = RayExecutor(cfg)
        report = asyncio.run(run_tournament(cfg, executor=executor))
        most = server.max_in_flight
        # not the check's ping ("someone") nor its mode probe
        served = sum(1 for e in server.log if e["player"] != "someone" and not is_mode_probe(e["body"]))
    assert report.played == 4 and not report.failed, report.failed
    assert served > 50
    assert most == 2, f"{most} requests at once to an endpoint limited to 2"
    with sqlite3.connect(tmp_path / "limit.sqlite") as db:
        cost = db.execute("SELECT SUM(cost) FROM games").fetchone()[0]
        calls = db.execute("SELECT SUM(calls) FROM player_games").fetchone()[0]
    assert cost > 0 and calls == served and report.cost == pytest.approx(cost)


def test_the_cost_cap_holds_on_ray(tmp_path):
    with FakeModelServer(seed=5) as server:
        data = model_config(tmp_path, server, "capped", concurrency=1, cost_cap=0.0001)
        first = asyncio.run(run_tournament(parse_tournament(data), executor=RayExecutor(parse_tournament(data))))
        second = asyncio.run(run_tournament(parse_tournament(data), executor=RayExecutor(parse_tournament(data))))
    assert (first.played, first.not_started, first.cap_reached) == (1, 3, True) and first.cost > 0.0001
    assert (second.played, second.skipped, second.not_started, second.cap_reached) == (0, 1, 3, True)


def test_recorded_calls_on_ray_replay_on_ray(tmp_path):
    """--record-calls with --ray: each worker records its game, the driver keeps the cassette beside
    the transcript; --replay-calls with --ray sends each worker its game's cassette: the same games,
    with no server at all. Games stay concurrent (one game per worker process)."""
    with FakeModelServer(seed=3) as server:
        data = model_config(tmp_path, server, "rec", games=2, concurrency=2)
        data["models"]["bot"] = "bot"
        data["models"].pop("ob")
        cfg = parse_tournament(data)
        calls = TournamentCalls("record", cfg.transcripts)
        lines: list[str] = []
        report = asyncio.run(run_tournament(cfg, lines.append, calls=calls, executor=RayExecutor(cfg, calls=calls)))
    assert report.played == 2 and not report.failed, report.failed
    assert not any("one at a time" in line for line in lines)
    cassettes = sorted(cfg.transcripts.glob("*.calls.yaml"))
    transcripts = sorted(cfg.transcripts.glob("*.jsonl"))
    assert [c.name.removesuffix(".calls.yaml") for c in cassettes] == [t.stem for t in transcripts] and len(cassettes) == 2
    again = parse_tournament({**data, "name": "rep", "database": str(tmp_path / "rep.sqlite"),
                              "transcripts": str(tmp_path / "rep-tr")})  # fmt: skip
    replaying = TournamentCalls("replay", cfg.transcripts)
    second = asyncio.run(run_tournament(again, calls=replaying, executor=RayExecutor(again, calls=replaying)))
    assert second.played == 2 and not second.failed, second.failed
    events = {}
    for name in ("rec", "rep"):
        for key, path in rows_of(tmp_path / f"{name}.sqlite", "SELECT key, transcript FROM games"):
            events.setdefault(key, []).append(read_transcript(path).events)
    assert len(events) == 2 and all(a == b for a, b in events.values())
    cassettes[0].unlink()  # a game without its cassette fails with the driver's file named
    third = parse_tournament({**data, "name": "miss", "database": str(tmp_path / "miss.sqlite"),
                              "transcripts": str(tmp_path / "miss-tr")})  # fmt: skip
    missing = asyncio.run(run_tournament(third, calls=replaying, executor=RayExecutor(third, calls=replaying)))
    assert missing.played == 1 and [e for _, e in missing.failed] == [f"no recorded calls for this game: {cassettes[0]}"]


def test_an_endpoint_down_in_a_worker_stops_new_games(tmp_path):
    """The endpoint dies during the first game, played by a worker: that game is recorded as failed,
    no other game using the endpoint starts, and the next run plays both."""
    gate = Gate(fail_after=4)
    with FakeModelServer(seed=5, gate=gate) as server:
        data = model_config(tmp_path, server, "down", games=2, concurrency=1)
        data["models"] = {"bot": "bot", "oa": {**data["models"]["oa"], "attempts": 2, "backoff": 0}}
        cfg = parse_tournament(data)
        report = asyncio.run(run_tournament(cfg, executor=RayExecutor(cfg)))
        assert (report.played, len(report.failed), report.held) == (0, 1, 1) and report.down, report
        ((error, path),) = rows_of(tmp_path / "down.sqlite", "SELECT error, transcript FROM attempts")
        assert error.startswith("endpoint down: ") and read_transcript(path).aborted == error
        gate.fail_after = None  # back
        again = asyncio.run(run_tournament(cfg, executor=RayExecutor(cfg)))
    assert again.played == 2 and not again.failed and not again.down


def test_workers_play_in_the_mode_the_drivers_check_picked(tmp_path):
    """A server that ignores tools (llama-cpp-python's): the driver's check picks json_object, and
    the workers' seats play in it — a worker has no check of its own and would send tools."""
    from arena.players.llm import modes
    from tests.test_server_modes import LlamaLikeServer

    try:
        with LlamaLikeServer(seed=4) as server:
            data = model_config(tmp_path, server, "picked", games=2, concurrency=2)
            data["models"] = {"bot": "bot", "oa": data["models"]["oa"]}
            cfg = parse_tournament(data)
            report = asyncio.run(run_tournament(cfg, executor=RayExecutor(cfg)))
            served = [e for e in game_calls(server.log) if e["player"] != "someone"]  # not the check's ping
    finally:
        modes._picked.clear()  # the driver's pick: no other test's server on a reused port gets it
    assert report.played == 2 and not report.failed, report.failed
    # every game request came in json_object with a schema (the stand-in logs it as its grammar)
    assert len(served) > 10
    odd = [e for e in served if (e["body"].get("response_format") or {}).get("json_schema", {}).get("name") != "x"]
    assert not odd, [(e["player"], e["body"].get("response_format"), str(e["body"]["messages"])[:300]) for e in odd[:3]]
    with sqlite3.connect(tmp_path / "picked.sqlite") as db:
        assert db.execute("SELECT SUM(forfeits) FROM player_games").fetchone()[0] == 0


# ---- faults -------------------------------------------------------------------------------------------
def test_a_worker_killed_mid_game_costs_one_try(tmp_path):
    """SIGKILL a Ray worker while it plays a game: that try is recorded as lost, the game is played
    again, and the database ends with every planned game exactly once."""
    with SlowServer(0.03, seed=5) as server:
        cfg = parse_tournament(model_config(tmp_path, server, "kill", games=6, concurrency=2))
        result: dict[str, Any] = {}
        run = threading.Thread(target=lambda: result.update(report=asyncio.run(run_tournament(cfg, executor=RayExecutor(cfg)))))
        run.start()
        kills = 0
        deadline = time.monotonic() + 120
        # A worker can finish its game between being seen and being killed: kill again until a try is lost.
        while not lost_tries(tmp_path / "kill.sqlite") and kills < 5 and time.monotonic() < deadline and run.is_alive():
            playing = [pid for pid, cmd in descendants(os.getpid()).items() if cmd.startswith("ray::play_game")]
            if playing and count_rows(tmp_path / "kill.sqlite", "games") >= 1:
                os.kill(playing[0], signal.SIGKILL)
                kills += 1
                wait = time.monotonic() + 10
                while not lost_tries(tmp_path / "kill.sqlite") and time.monotonic() < wait and run.is_alive():
                    time.sleep(0.05)
            time.sleep(0.05)
        run.join(timeout=300)
    assert kills, "no worker was caught playing a game"
    report = result["report"]
    assert report.played == 6 and not report.failed and report.not_started == 0, report.failed
    with sqlite3.connect(tmp_path / "kill.sqlite") as db:
        keys = [k for (k,) in db.execute("SELECT key FROM games")]
        attempts = db.execute("SELECT game, transcript, error FROM attempts").fetchall()
        seats = db.execute("SELECT COUNT(*) FROM player_games").fetchone()[0]
    assert sorted(keys) == sorted(spec.key for spec in build_design(cfg))  # every planned game, once
    assert seats == 6 * 6
    lost = [(key, path, error) for key, path, error in attempts if error]
    assert 1 <= len(lost) <= kills and len(attempts) == 6 + len(lost), attempts
    for key, path, error in lost:
        assert error.startswith("WorkerLost: ") and key in keys
        partial = Path(path)  # the lines that arrived before the kill are kept, under the try's own name
        assert partial.exists() and partial not in {Path(p) for _, p, e in attempts if not e}
        if partial.stat().st_size:
            assert not read_transcript(partial).complete
    for _, path, error in attempts:
        if not error:
            assert read_transcript(path).complete


def lost_tries(db: Path) -> int:
    return count_rows(db, "attempts", "WHERE error LIKE 'WorkerLost%'")


def test_the_driver_killed_with_9_resumes(tmp_path):
    """`arena tournament CONFIG --ray ADDRESS` killed with -9 mid-run: the same command plays the rest."""
    address = ray.get_runtime_context().gcs_address
    with SlowServer(0.03, seed=7) as server:
        cfg_path = bot_vs_model_tournament(tmp_path / "t.toml", "r", url=server.openai_url, games=6, concurrency=2)
        cmd = [sys.executable, "-m", "arena", "tournament", str(cfg_path), "--ray", address]
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None and count_rows(tmp_path / "r.sqlite", "games") < 2:
            time.sleep(0.05)
        assert proc.poll() is None, f"the run ended before it could be killed: {proc.communicate()}"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        printed = proc.stdout.read() if proc.stdout else ""
        if proc.stdout:
            proc.stdout.close()
        # after the endpoint check's line and the price before the first game: the cluster's line
        check, price, cluster = printed.splitlines()[:3]
        assert "(checked in" in check and price.startswith("estimated cost:"), printed
        assert cluster.startswith(f"Ray: the Ray cluster at {address}, 1 node, 2 CPUs; start-up ")
        before = dict(rows_of(tmp_path / "r.sqlite", "SELECT key, transcript FROM games"))
        assert 2 <= len(before) < 6
        again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"{6 - len(before)} games played, {len(before)} already finished" in again.stdout
    after = dict(rows_of(tmp_path / "r.sqlite", "SELECT key, transcript FROM games"))
    assert len(after) == 6 and all(after[k] == p for k, p in before.items())
    assert rows_of(tmp_path / "r.sqlite", "SELECT COUNT(*) FROM player_games")[0][0] == 36
    for path in after.values():
        t = read_transcript(path)
        assert t.complete and replay(t).ok


def rows_of(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


def test_an_address_that_does_not_answer_is_one_line(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nobody listens there
    cfg = tmp_path / "t.toml"
    cfg.write_text(
        f'seed = 1\ngames = 2\ndatabase = "{tmp_path / "x.sqlite"}"\ntranscripts = "{tmp_path / "tr"}"\n'
        '[models]\na = "bot"\nb = "random"\n[[variants]]\nname = "classic"\nplayers = 6\n'
    )
    for args in (
        ["tournament", str(cfg), "--ray", f"127.0.0.1:{port}"],
        ["balance", "classic", "--games", "4", "--ray", f"ray://127.0.0.1:{port}"],
        ["balance", "classic", "--games", "4", "--ray", "no-port-here"],
    ):
        out = subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr, out.stderr
        assert "Ray cluster at" in out.stderr or "use auto, HOST:PORT" in out.stderr
    with sqlite3.connect(tmp_path / "x.sqlite") as db:  # nothing was started
        assert db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0] == 0


# ---- balance ------------------------------------------------------------------------------------------
def test_balance_on_ray_counts_the_same_games():
    cls = get_variant("classic")
    remote = RayChunks()
    there = balance(cls, [7, 8], 60, seed=11, remote=remote, workers=2)
    here = balance(cls, [7, 8], 60, seed=11, workers=1)
    assert there.winners == here.winners and {n: sum(c.values()) for n, c in there.winners.items()} == {7: 60, 8: 60}
    lines = there.lines()
    assert lines[0].endswith("2 Ray tasks at once") and lines[1].startswith("Ray: a local Ray instance, 1 node, 2 CPUs")
    remote.close()
    assert ray.is_initialized()  # not ours to stop


def test_balance_survives_a_killed_worker():
    """Chunks are pure: Ray plays the chunk of a killed worker again, and the counts are exact."""
    cls = get_variant("classic")
    remote = RayChunks()
    result: dict[str, Any] = {}
    run = threading.Thread(target=lambda: result.update(r=balance(cls, [7, 8], 1500, seed=2, remote=remote, workers=2)))
    run.start()
    killed = 0
    deadline = time.monotonic() + 120
    while not killed and run.is_alive() and time.monotonic() < deadline:
        playing = [pid for pid, cmd in descendants(os.getpid()).items() if cmd.startswith("ray::_play_chunk")]
        if playing:
            time.sleep(0.2)  # well inside a chunk of 188 games
            title = Path(f"/proc/{playing[0]}/cmdline").read_bytes() if alive(playing[0]) else b""
            if title.startswith(b"ray::_play_chunk"):  # still at it
                os.kill(playing[0], signal.SIGKILL)
                killed = playing[0]
        time.sleep(0.02)
    run.join(timeout=600)
    assert killed, "no worker was caught playing a chunk"
    here = balance(cls, [7, 8], 1500, seed=2, workers=1)
    assert result["r"].winners == here.winners and sum(sum(c.values()) for c in here.winners.values()) == 3000
