"""Tournaments with model seats against the loopback server (tests/llm_server.py): both SDKs, belief
probes, cost accounting, the cost cap, and a resume after ``kill -9``."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.run.replay import replay
from arena.run.transcript import read_transcript
from arena.tournament.config import parse_tournament
from arena.tournament.design import build_design
from arena.tournament.runner import run_tournament
from tests.llm_server import FakeModelServer, SlowServer

ROOT = Path(__file__).resolve().parent.parent
FAST = {"backoff": 0.001, "max_backoff": 0.01, "retry_budget": 20.0, "concurrency": 64}
QUESTION = "Moderator's private question"


@pytest.fixture(autouse=True)
def _no_real_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def models(server: FakeModelServer) -> dict[str, Any]:
    return {
        "bot": "bot",
        "oa": {"spec": f"openai:fake-oa@{server.openai_url}", "price_input": 2.0, "price_output": 8.0, **FAST},
        "an": {"spec": f"anthropic:fake-an@{server.anthropic_url}?structured=json_text", "price_input": 1.0,
               "price_output": 5.0, **FAST},
    }  # fmt: skip


def test_tournament_with_model_seats(tmp_path):
    lines: list[str] = []
    with FakeModelServer(seed=4) as server:
        cfg = parse_tournament(
            {
                "name": "llm",
                "seed": 9,
                "games": 6,
                "concurrency": 6,
                "beliefs": True,
                "database": str(tmp_path / "llm.sqlite"),
                "transcripts": str(tmp_path / "tr"),
                "models": models(server),
                "variants": [
                    {"name": "classic", "players": 6, "options": {"discussion_rounds": 1, "max_days": 3}},
                    {"name": "duel", "options": {"hands": 1, "beats": 3}},
                ],
            },
        )
        report = asyncio.run(run_tournament(cfg, lines.append))
        server_log = list(server.log)
    assert report.played == 12 and not report.failed and report.not_started == 0
    # the check's line for the server of its own (its mode and time, as arena play prints it), then the
    # price before the first game (docs/tournaments.md), then the games
    check, price, *lines = lines
    assert check.startswith(server.openai_url + ": using tools (required) (checked in"), check
    assert price.startswith("estimated cost: $"), price
    assert len(lines) == 12 and all(line.startswith("[") for line in lines)
    # a McKay match is won by a seat, named with its entrant ("Sam (match)" did not say whose it was)
    assert all(re.search(r"\(side A\) vs \w+: (draw|nobody|\w+ of (bot|oa|an)) \(", line) for line in lines if "duel/" in line)
    db = sqlite3.connect(tmp_path / "llm.sqlite")
    db.row_factory = sqlite3.Row
    games = db.execute("SELECT * FROM games").fetchall()
    assert sorted(g["key"] for g in games) == sorted(g.key for g in build_design(cfg))
    total = 0.0
    for g in games:
        t = read_transcript(g["transcript"])
        assert t.complete and replay(t).ok
        calls = [c["call"] for c in t.calls]
        # the game's cost is every model call's, the belief questions' included
        assert g["cost"] == pytest.approx(sum(c.get("cost", 0.0) for c in calls), abs=1e-6)
        # the summary rounds each seat's dollars to 6 places
        assert g["cost"] == pytest.approx(sum(u["cost"] for u in t.summary["usage"].values()), abs=1e-5)
        seats = db.execute("SELECT * FROM player_games WHERE game = ?", (g["key"],)).fetchall()
        assert {s["seat"] for s in seats} == set(t.header["seats"])
        for s in seats:
            mine = [c for c in calls if c["player"] == s["seat"]]
            assert s["calls"] == len(mine) and s["cost"] == pytest.approx(sum(c.get("cost", 0.0) for c in mine), abs=1e-6)
            assert (s["model"] == "bot") == (not mine)
        total += g["cost"]
        if g["variant"] == "classic" and "bot" not in g["pairing"]:
            assert any(c["type"] == "belief_call" for c in calls)
    assert total > 0 and report.cost == pytest.approx(total)
    # Beliefs: model seats (from the server's integers, 1-3 %) and bots; each with the truth.
    rows = db.execute("SELECT b.*, p.model FROM beliefs b JOIN player_games p ON p.game = b.game AND p.seat = b.seat").fetchall()
    assert {r["model"] for r in rows} == {"bot", "oa", "an"}
    assert all(0.01 <= r["p"] <= 0.03 for r in rows if r["model"] != "bot")
    for r in rows:
        (path,) = db.execute("SELECT transcript FROM games WHERE key = ?", (r["game"],)).fetchone()
        roles = read_transcript(path).summary["roles"]
        assert r["truth"] == (roles[r["target"]] == "mafia")
    assert db.execute("SELECT COUNT(*) FROM stats WHERE metric = 'brier'").fetchone()[0] > 0
    # The probe never entered a player's conversation: only the belief calls carry the question.
    asked = [e for e in server_log if QUESTION in json.dumps(e["body"].get("messages", [])[-1:])]
    assert asked and all(QUESTION not in json.dumps(e["body"].get("messages", [])[:-1]) for e in server_log)


def test_belief_questions_change_no_game(tmp_path):
    """The same games, event for event, with and without the belief probe (bots and model seats)."""
    logs = []
    for beliefs in (False, True):
        with FakeModelServer(seed=8) as server:
            data = {
                "name": "same", "seed": 3, "games": 2, "concurrency": 1, "beliefs": beliefs,
                "database": str(tmp_path / f"{beliefs}.sqlite"), "transcripts": str(tmp_path / f"tr-{beliefs}"),
                "models": {"bot": "bot", "oa": models(server)["oa"]},
                "variants": [{"name": "classic", "players": 6, "options": {"discussion_rounds": 1}}],
            }  # fmt: skip
            asyncio.run(run_tournament(parse_tournament(data)))
        with sqlite3.connect(tmp_path / f"{beliefs}.sqlite") as db:
            logs.append({k: read_transcript(p).events for k, p in db.execute("SELECT key, transcript FROM games")})
            asked = db.execute("SELECT COUNT(DISTINCT seat) FROM beliefs").fetchone()[0]
        assert (asked > 0) == beliefs
    assert logs[0] == logs[1] and len(logs[0]) == 2


def test_cost_cap_stops_new_games(tmp_path):
    with FakeModelServer(seed=5) as server:
        data = {
            "name": "capped", "games": 4, "concurrency": 1, "cost_cap": 0.0001,
            "database": str(tmp_path / "c.sqlite"), "transcripts": str(tmp_path / "tr"),
            "models": {"bot": "bot", "an": models(server)["an"]},
            "variants": [{"name": "classic", "players": 6, "options": {"discussion_rounds": 1, "max_days": 2}}],
        }  # fmt: skip
        first = asyncio.run(run_tournament(parse_tournament(data)))
        second = asyncio.run(run_tournament(parse_tournament(data)))
    assert (first.played, first.not_started, first.cap_reached) == (1, 3, True)
    assert first.cost > 0.0001
    assert (second.played, second.skipped, second.not_started, second.cap_reached) == (0, 1, 3, True)
    assert any("cost cap reached" in line for line in first.lines(parse_tournament(data)))


def test_resume_after_kill_9(tmp_path):
    """Killed mid-run, the database holds whole games only; the same command then plays the rest,
    skipping what was finished: every game of the design once, no duplicates, no lost transcript."""
    with SlowServer(0.03, seed=6) as server:
        cfg = tmp_path / "t.toml"
        cfg.write_text(
            "\n".join(
                [
                    'name = "resume"',
                    "seed = 1",
                    "games = 6",
                    "concurrency = 2",
                    f'database = "{tmp_path / "r.sqlite"}"',
                    f'transcripts = "{tmp_path / "tr"}"',
                    "[models]",
                    'bot = "bot"',
                    'random = "random"',
                    f'oa = {{ spec = "openai:fake-oa@{server.openai_url}", concurrency = 64 }}',
                    "[[variants]]",
                    'name = "classic"',
                    "players = 6",
                    "options = { discussion_rounds = 1 }",
                ]
            )
            + "\n"
        )
        cmd = [sys.executable, "-m", "arena", "tournament", str(cfg)]
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        db_path = tmp_path / "r.sqlite"
        finished = 0
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if db_path.exists():
                try:
                    with sqlite3.connect(db_path, timeout=5) as db:
                        finished = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
                except sqlite3.OperationalError:
                    finished = 0  # the schema is not there yet
                if finished >= 3:
                    break
            time.sleep(0.02)
        assert proc.poll() is None, f"the run ended before it could be killed: {proc.communicate()}"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()

        db = sqlite3.connect(db_path)
        before = dict(db.execute("SELECT key, transcript FROM games"))
        assert 3 <= len(before) < 6
        for path in before.values():
            assert read_transcript(path).complete
        cut = [path for key, path in db.execute("SELECT game, transcript FROM attempts") if key not in before]
        assert cut, "a game was in flight when the run was killed"
        for path in cut:  # nothing of a cut game is lost: its transcript reads back, without a summary
            t = read_transcript(path)
            assert not t.complete and t.header["variant"] == "classic"
        players = db.execute("SELECT COUNT(*) FROM player_games").fetchone()[0]
        assert players == 6 * len(before)  # whole games only
        db.close()

        again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr
        assert f"{6 - len(before)} games played, {len(before)} already finished" in again.stdout

    db = sqlite3.connect(db_path)
    after = dict(db.execute("SELECT key, transcript FROM games"))
    assert len(after) == 6 and len(set(after.values())) == 6
    assert all(after[k] == p for k, p in before.items())  # finished games were not played again
    attempts = [k for (k,) in db.execute("SELECT game FROM attempts")]
    assert all(attempts.count(k) == 1 for k in before)
    assert db.execute("SELECT COUNT(*) FROM player_games").fetchone()[0] == 36
    assert db.execute("SELECT COUNT(*) FROM (SELECT game, seat FROM player_games GROUP BY game, seat)").fetchone()[0] == 36
    for path in after.values():
        t = read_transcript(path)
        assert t.complete and replay(t).ok


def test_a_game_stopped_by_a_context_the_server_named_goes_on_at_once(tmp_path):
    """Seats on a server of their own, untold its context: the first prompt over it is refused
    (the refusal names 4,096 tokens) and the game stops; the tournament goes on with it at once
    from its transcript, the seat now folding its history to fit, and every game ends by the rules
    in the one run (it used to fail, and fail again on every run after)."""
    from tests.test_server_modes import SmallContextServer

    class Named(SmallContextServer):  # 12,000 characters of messages: about 4,096 tokens at 3 a token
        FULL = SmallContextServer.FULL.replace("2048 tokens", "4096 tokens")
        # characters as written: a "—" escaped to six would refuse a prompt the seat's estimate
        # (characters / 3) fits, which no tokenizer does; the stop would then not be a learned one
        escaped = False

    with Named(seed=1) as server:
        cfg = parse_tournament(
            {
                "name": "ctx", "seed": 2, "games": 2, "concurrency": 2,
                "database": str(tmp_path / "ctx.sqlite"), "transcripts": str(tmp_path / "tr"),
                "models": {
                    "bot": "bot",
                    "m": {"spec": f"openai:m@{server.openai_url}?structured=tools&max_tokens=256&history=full", **FAST},
                },
                "variants": [{"name": "classic", "players": 7}],
            }
        )  # fmt: skip
        report = asyncio.run(run_tournament(cfg))
    assert report.played == 2 and not report.failed
    db = sqlite3.connect(tmp_path / "ctx.sqlite")
    errors = [e for (e,) in db.execute("SELECT error FROM attempts WHERE error IS NOT NULL")]
    assert errors and all("over the model's context" in e for e in errors)
    for (path,) in db.execute("SELECT transcript FROM games"):
        t = read_transcript(path)
        assert t.complete and replay(t).ok and t.summary.get("winner")
    calls = [c["call"] for (p,) in db.execute("SELECT transcript FROM games") for c in read_transcript(p).calls]
    # each stop learned at least one seat's context (seats refused in one round of votes stop it once)
    assert sum(c.get("context") == 4096 for c in calls) >= len(errors)
