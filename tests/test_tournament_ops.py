"""Running tournaments without Ray: one writer per database (a second run stops with one line naming
the first; a dead run's lock never blocks), the progress bar on a terminal and nothing when piped,
and Ray never imported unless asked for."""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest

from arena.tournament import lock as lock_module
from arena.tournament.lock import DatabaseBusy, Holder, WriterLock
from tests.helpers import bot_vs_model_tournament, count_rows
from tests.llm_server import SlowServer

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def bots_config(tmp_path: Path, games: int = 4, sizes: str = "[6, 7]") -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "bots.toml"
    path.write_text(
        "\n".join([
            'name = "bots"', "seed = 2", f"games = {games}", "concurrency = 2",
            f'database = "{tmp_path / "bots.sqlite"}"', f'transcripts = "{tmp_path / "tr"}"',
            "[models]", 'bot = "bot"', 'random = "random"',
            "[[variants]]", 'name = "classic"', f"players = {sizes}",
        ]) + "\n"
    )  # fmt: skip
    return path


# ---- one writer per database -------------------------------------------------------------------------


def test_a_second_run_on_the_same_database_stops_at_once(tmp_path):
    """Two `arena tournament` on one database: the second is one line naming the first (it used to
    crash with ``UNIQUE constraint failed: games.key``); once the first is killed -9, the same
    command goes on and every game of the design is in the database once."""
    with SlowServer(0.05, seed=3) as server:  # a model that takes its time: the first run is still going when the second starts
        cfg = bot_vs_model_tournament(tmp_path / "t.toml", "two", url=server.openai_url, games=4, concurrency=1)
        cmd = [sys.executable, "-m", "arena", "tournament", str(cfg)]
        first = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not count_rows(tmp_path / "two.sqlite", "attempts"):
                time.sleep(0.05)
            assert first.poll() is None, "the first run ended before the second could start"
            began = time.monotonic()
            second = arena("tournament", str(cfg))
            took = time.monotonic() - began
            assert first.poll() is None, "the first run ended while the second ran: nothing was tested"
        finally:
            first.kill()  # SIGKILL: its lock must not outlive it
            first.wait(timeout=30)
        assert second.returncode == 2 and second.stdout == ""
        assert len(second.stderr.strip().splitlines()) == 1 and "Traceback" not in second.stderr
        assert f"pid {first.pid} on {socket.gethostname()}" in second.stderr
        assert "another run is writing it" in second.stderr and "tournament" in second.stderr
        assert took < 30  # at once: no game of the second run was started
        with sqlite3.connect(tmp_path / "two.sqlite") as db:
            attempts = [k for (k,) in db.execute("SELECT game FROM attempts")]
        assert len(attempts) == len(set(attempts))  # one run only ever started games

        again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    with sqlite3.connect(tmp_path / "two.sqlite") as db:
        keys = [k for (k,) in db.execute("SELECT key FROM games")]
    assert len(keys) == len(set(keys)) == 4
    assert not (tmp_path / "two.sqlite.lock").exists()  # released at the end


def test_a_stale_lock_never_blocks(tmp_path):
    db = tmp_path / "x.sqlite"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = Holder(dead.pid, socket.gethostname(), None, "arena tournament old.toml", "2026-01-01T00:00:00+00:00")
    (tmp_path / "x.sqlite.lock").write_text(stale.dumps() + "\n")
    with WriterLock(db):  # the file is there, nobody holds it: taken over
        mine = Holder.parse((tmp_path / "x.sqlite.lock").read_text())
        assert mine is not None and mine.pid == os.getpid()
        with pytest.raises(DatabaseBusy, match=f"pid {os.getpid()} on "):
            WriterLock(db).acquire()  # held, even within one process
    assert not (tmp_path / "x.sqlite.lock").exists()


def test_without_flock_the_pid_decides(tmp_path, monkeypatch):
    """On a file system without flock: a lock of a dead (or reused) pid of this host is taken over;
    a live one, or one from another host, stops the run naming it."""

    def no_flock(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(lock_module.fcntl, "flock", no_flock)
    db = tmp_path / "y.sqlite"
    path = tmp_path / "y.sqlite.lock"
    here = socket.gethostname()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        start = lock_module.process_start(sleeper.pid)
        path.write_text(Holder(sleeper.pid, here, start, "arena tournament a.toml", "t0").dumps())
        with pytest.raises(DatabaseBusy, match=f"pid {sleeper.pid} on {re.escape(here)} \\(arena tournament a.toml\\)"):
            WriterLock(db).acquire()
        if start is not None:  # the same pid with another start time is a reused pid: stale
            path.write_text(Holder(sleeper.pid, here, str(int(start) + 1), "old", "t0").dumps())
            with WriterLock(db):
                pass
        path.write_text(Holder(sleeper.pid, "another-host", None, "arena tournament b.toml", "t0").dumps())
        with pytest.raises(DatabaseBusy, match="on another-host"):
            WriterLock(db).acquire()
    finally:
        sleeper.kill()
        sleeper.wait()
    path.write_text(Holder(sleeper.pid, here, None, "arena tournament a.toml", "t0").dumps())
    with WriterLock(db):
        assert json.loads(path.read_text())["pid"] == os.getpid()


# ---- the progress bar ---------------------------------------------------------------------------------
def spawn(*args: str) -> str:
    """Run ``arena ARGS`` on a pseudo-terminal and return everything it showed."""
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "120", "PYTHONUNBUFFERED": "1"}
    child = pexpect.spawn(
        sys.executable, ["-m", "arena", *args], cwd=str(ROOT), env=env, encoding="utf-8", timeout=120, dimensions=(40, 120)
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return child.before


def test_progress_bar_on_a_terminal_and_nothing_when_piped(tmp_path):
    cfg = bots_config(tmp_path)
    shown = spawn("tournament", str(cfg))
    plain = ANSI.sub("", shown)
    assert "━" in plain and re.search(r"8/8 [\d.]+ games/s · \$0\.0000 · done", plain), plain[-600:]
    assert "bots: 8 games played" in plain and "[8/8] classic/" in plain  # the game lines scroll above it

    cfg = bots_config(tmp_path / "piped")
    piped = arena("tournament", str(cfg))
    assert piped.returncode == 0, piped.stderr
    assert "\x1b[" not in piped.stdout + piped.stderr and "games/s" not in piped.stdout + piped.stderr
    assert "━" not in piped.stdout + piped.stderr and piped.stderr == ""
    assert piped.stdout.count("\n[") == 7 and "bots: 8 games played" in piped.stdout

    shown = ANSI.sub("", spawn("balance", "classic", "--players", "6-7", "--games", "40", "--workers", "1"))
    assert re.search(r"80/80 [\d.]+ games/s · done", shown) and "town win rate" in shown
    piped = arena("balance", "classic", "--players", "6-7", "--games", "40", "--workers", "1")
    assert piped.returncode == 0 and "\x1b[" not in piped.stdout + piped.stderr and piped.stderr == ""
    assert "games/s" in piped.stdout.splitlines()[-1]  # the summary line only: no bar


# ---- Ray only when asked for ----------------------------------------------------------------------------
def test_ray_is_never_imported_without_ray(tmp_path):
    cfg = bots_config(tmp_path, games=2, sizes="6")
    code = (
        "import sys\n"
        "from arena.cli import main\n"
        f"assert main(['tournament', {str(cfg)!r}, '--quiet']) == 0\n"
        "assert main(['balance', 'classic', '--games', '4', '--workers', '2']) == 0\n"
        "print('RAY:', sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "RAY: []" in out.stdout


def test_a_kill_9_leaves_a_lock_the_next_run_takes(tmp_path):
    """The lock of a run killed with -9 is left on disk with its pid, and the next run is not stopped by it."""
    db = tmp_path / "k.sqlite"
    code = (
        "import sys, time\n"
        "from arena.tournament.lock import WriterLock\n"
        f"WriterLock({str(db)!r}).acquire()\n"
        "print('locked', flush=True)\n"
        "time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    with pytest.raises(DatabaseBusy, match=f"pid {holder.pid} "):
        WriterLock(db).acquire()
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=30)
    holder.stdout.close()
    assert Holder.parse((tmp_path / "k.sqlite.lock").read_text()).pid == holder.pid  # left behind
    with WriterLock(db):
        pass


# ---- a game is the same whichever process plays it ---------------------------------------------------
ORDER_SCRIPT = """
import json, sys
from arena.run.orchestrator import run_sync
from arena.players.registry import make_player
from arena.tournament.config import parse_tournament
from arena.tournament.design import build_design
data = {"name": "o", "seed": 3, "games": 12, "models": {"bot": "bot", "random": "random"},
        "variants": [{"name": "classic", "players": [7, 8, 9]}, {"name": "cove", "players": 10}]}
design = build_design(parse_tournament(data))
out = {}
for spec in design if sys.argv[1] == "forward" else design[::-1]:
    game = spec.make_game()
    models = spec.assignment(game)
    run_sync(game, {s: make_player(models[s].spec, s, spec.player_seed) for s in game.seats})
    out[spec.key] = [e.to_dict() for e in game.log]
print(json.dumps(out, sort_keys=True, default=str))
"""


def test_a_bot_game_does_not_depend_on_what_its_process_played_before():
    """A worker of a distributed run plays whichever games it is given: each game's events (thoughts
    included) must be the same in any order. A process-wide cache of bot votes once wrote
    ``suspicion -0.0`` or ``+0.0`` after whichever had come first."""
    runs = [
        subprocess.run([sys.executable, "-c", ORDER_SCRIPT, order], capture_output=True, text=True, cwd=ROOT, timeout=300)
        for order in ("forward", "backward")
    ]
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    forward, backward = (json.loads(r.stdout) for r in runs)
    assert len(forward) == 48 and [k for k in forward if forward[k] != backward[k]] == []
