"""Positions (issue 35): a bank of recorded decisions, answered one at a time, scored against the truth.

The bank holds the seat's own view only; detection is scored against the truth (an oracle that
names the mafia scores 1 − chance, one that names the town −chance); a deception position answered
with the recorded speech scores 0 (its fork is the recorded speech's, seed for seed); two copies
of one player are never called different, and until_decided stops once the answer is in; a model
seat answers on the loopback stand-in, sent exactly the prompt ``arena prompts`` rebuilds; the
command's mistakes are one line.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from dataclasses import fields
from typing import Any

import pytest

from arena.cli import main
from arena.engine import DecisionRequest, View, parse_action
from arena.players.base import SyncPlayer
from arena.players.random import random_action
from arena.positions.answer import Scored, score, seat_at
from arena.positions.bank import DECEPTION, DETECTION, SHIPPED, Games, Position, build, load_bank
from arena.positions.compare import Comparison, compare_runs
from arena.positions.games import record_games
from arena.positions.run import read_run, run_bank
from arena.run.replay import rebuild

SHIPPED_BANK = load_bank()
GAMES = Games(None)
ROW_KEYS = {"format", *(f.name for f in fields(Position))}


def truth(position: Position) -> dict[str, str]:
    """Each seat's team, from the game's end (what the scorer knows and the player never sees)."""
    transcript = GAMES(position)
    roles = transcript.summary["roles"]  # type: ignore[index]
    teams = {"mafia": "mafia"}
    return {seat: teams.get(role, "town") for seat, role in roles.items()}


class Oracle(SyncPlayer):
    """Names a seat of the wanted team where it can (a test's cheat: it is told the truth)."""

    def __init__(self, name: str, teams: dict[str, str], wanted: str) -> None:
        super().__init__(name)
        self.teams, self.wanted = teams, wanted

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Any:
        option = request.options[0]
        values: dict[str, Any] = {}
        for name, spec in option.fields.items():
            pool = [c for c in spec.choices or () if self.teams.get(c) == self.wanted]
            if name in ("accuse", "nominate", "target") and pool:
                values[name] = pool[0]
        if option.kind == "verdict":
            accused = request.info.get("accused")
            values["yes"] = (self.teams.get(str(accused)) == "mafia") == (self.wanted == "mafia")
        try:
            return parse_action({"kind": option.kind, **values})
        except ValueError:
            return random_action(request, __import__("random").Random(0))


def oracle(wanted: str):
    return lambda position, transcript: Oracle(position.seat, truth(position), wanted)


class Recorded(SyncPlayer):
    """Answers a position with the seat's recorded answer."""

    def __init__(self, position: Position) -> None:
        super().__init__(position.seat)
        self.position = position

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Any:
        if request.id == self.position.request:
            return parse_action(self.position.recorded)
        return random_action(request, __import__("random").Random(request.id))


# ---- the bank -------------------------------------------------------------------------------------------
def test_the_shipped_bank_holds_both_skills_and_only_the_seats_view():
    kinds = {(p.kind, p.what) for p in SHIPPED_BANK}
    assert {(DETECTION, "accuse"), (DETECTION, "check"), (DETECTION, "verdict"), (DECEPTION, "speech")} <= kinds
    assert {p.variant for p in SHIPPED_BANK} == {"classic", "cove", "village"}
    rows = [json.loads(line) for line in SHIPPED.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        assert set(row) == ROW_KEYS  # nothing but the documented fields: no other seat's card, no truth
    checked = 0
    for position in SHIPPED_BANK[::7]:
        teams = truth(position)
        assert teams[position.seat] == ("town" if position.kind == DETECTION else "mafia")
        game, request = seat_at(GAMES(position), position, {})
        view = game.view(position.seat)
        mine = [e for e in view.events if e.type == "role"]
        assert mine[-1].data["role"] == position.role  # the role is the seat's own, as it was told
        if position.kind == DETECTION and position.what in ("accuse", "nominate", "vote", "check"):
            kind, name = {"accuse": ("speak", "accuse"), "nominate": ("speak", "nominate")}.get(
                position.what, (position.what, "target")
            )
            assert position.legal == list(request.option(kind).fields[name].choices)
            assert any(teams[s] == "mafia" for s in position.legal)
        checked += 1
    assert checked > 50


def test_build_from_a_folder_and_from_a_tournament_database(tmp_path, capsys):
    paths = record_games(tmp_path / "games", "classic", [1, 2])
    record_games(tmp_path / "games", "duel", [1])  # no positions: McKay's games have no fixed sides
    bank = tmp_path / "bank.jsonl"
    assert main(["positions", "build", str(tmp_path / "games"), "-o", str(bank)]) == 0
    assert "positions from 3 games" in capsys.readouterr().out
    positions = load_bank(bank)
    assert positions and all(p.game.startswith("games/classic-") for p in positions)
    assert positions == sorted(positions, key=lambda p: (p.game, p.request, p.id))  # game by game, in order
    db = tmp_path / "t.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE games (key TEXT, transcript TEXT)")
        conn.executemany("INSERT INTO games VALUES (?, ?)", [(p.stem, str(p)) for p in paths])
    again = build(db, tmp_path / "db-bank.jsonl")
    assert again.games == 2 and len(again.positions) == len(positions)


# ---- scoring ----------------------------------------------------------------------------------------
def _scores(positions: list[Position], make: Any, seed: int = 0) -> list[Scored]:
    async def go() -> list[Scored]:
        return [await score(GAMES(p), p, make, seed=seed) for p in positions]

    return asyncio.run(go())


def test_detection_is_scored_against_the_truth_with_chance_taken_off():
    detection = [p for p in SHIPPED_BANK if p.kind == DETECTION and p.what != "belief"][::3]  # beliefs: their own test
    right = _scores(detection, oracle("mafia"))
    wrong = _scores(detection, oracle("town"))
    for r, w, p in zip(right, wrong, detection, strict=True):
        assert r.valid and w.valid, p.id
        assert r.hit == 1.0 and r.score == pytest.approx(1.0 - r.chance), p.id
        assert w.hit == 0.0 and w.score == pytest.approx(-w.chance), p.id
    from arena.positions.answer import fresh_player

    bot = _scores(detection, fresh_player("bot", 1))
    rand = _scores(detection, fresh_player("random", 1))
    mean = lambda xs: sum(x.score for x in xs) / len(xs)  # noqa: E731
    assert mean(bot) > mean(rand) + 0.05 and abs(mean(rand)) < 0.1


def test_a_deception_position_answered_as_recorded_scores_zero():
    deception = [p for p in SHIPPED_BANK if p.kind == DECEPTION][::4]
    got = _scores(deception, lambda position, transcript: Recorded(position), seed=3)
    scored = [s for s in got if s.score is not None]
    assert len(scored) > 10
    assert all(s.suspicion == s.baseline and s.score == 0.0 for s in scored)
    assert any(s.baseline and s.baseline > 0 for s in scored)  # the table does suspect some speakers


def test_a_player_sees_the_seat_s_view_rebuilt_from_its_own_answers():
    """The bot seated at a position has read the seat's view up to it, and answered its earlier decisions."""
    from arena.players.bot import BotPlayer

    position = next(p for p in SHIPPED_BANK if p.kind == DETECTION and p.day >= 2)
    bot = BotPlayer(position.seat, 1)
    game, request = seat_at(GAMES(position), position, {position.seat: bot})
    assert bot.memory is not None and request.id == position.request
    earlier = [e for e in game.log if e.type == "action" and e.actor == position.seat]
    assert earlier  # the seat had decided before: the bot went through those decisions again
    fresh = rebuild(GAMES(position)).game
    assert fresh.finished


# ---- comparing ----------------------------------------------------------------------------------------
def test_two_copies_of_one_player_are_alike_not_different_and_the_json_shape():
    positions = SHIPPED_BANK[:200]
    a = asyncio.run(run_bank("bot", positions=positions))
    b = asyncio.run(run_bank("bot", positions=positions))
    out = compare_runs(a.rows, b.rows, "bot", "bot (copy)").as_json()
    assert set(out) == {"detection", "deception"}
    for skill in out.values():
        assert {"a", "b", "status", "better", "n"} <= set(skill)
        assert skill["status"] != "different" and skill["better"] is None
        assert skill["estimate"] in (0.0, None)


def test_until_decided_stops_once_the_answer_is_in():
    detection = [p for p in SHIPPED_BANK if p.kind == DETECTION and p.what not in ("verdict", "belief")]
    against = asyncio.run(run_bank("random", positions=detection, make=oracle("town")))
    theirs = {r["id"]: r for r in against.rows}
    result = asyncio.run(
        run_bank("oracle", positions=detection, make=oracle("mafia"), against=("town-oracle", theirs), until_decided=True)
    )
    assert result.stopped == "decided" and len(result.rows) < len(detection)
    verdict = result.comparison.as_json()["detection"]
    assert verdict["status"] == "different" and verdict["better"] == "oracle" and verdict["n"] == len(result.rows)


def test_the_sequential_test_is_anytime_valid_on_equal_players():
    """Values symmetric about 0, looked at after every game: rarely (≤ α) called different."""
    import random

    wrong = 0
    for run in range(60):
        rng = random.Random(run)
        comparison = Comparison("a", "b")
        for _ in range(150):
            pairs = []
            for _ in range(4):
                ha, hb = float(rng.random() < 0.4), float(rng.random() < 0.4)
                pairs.append(({"kind": DETECTION, "hit": ha, "weight": 1}, {"kind": DETECTION, "hit": hb, "weight": 1}))
            comparison.add_game(pairs)
        wrong += comparison.skills[DETECTION].status == "different"
    assert wrong <= 4  # 5% of 60 is 3; at most one more by chance


# ---- a model seat on the loopback stand-in ---------------------------------------------------------------
def test_a_model_answers_positions_sent_the_prompt_arena_prompts_rebuilds(tmp_path):
    from arena.cli.prompts import would_be
    from tests.llm_server import FakeModelServer, game_calls

    decisions = [p for p in SHIPPED_BANK if p.variant == "classic" and p.what != "belief"]  # beliefs: test_positions_beliefs
    chosen = decisions[:3] + [p for p in SHIPPED_BANK if p.kind == DECEPTION][:1]
    with FakeModelServer(seed=2) as server:
        spec = f"openai:fake-tools@{server.openai_url}?structured=tools"
        result = asyncio.run(run_bank(spec, out=tmp_path / "run.jsonl", positions=chosen))
        sent = game_calls(server.log)
    assert len(sent) == len(chosen) == result.usage["calls"]  # one call per position, nothing while rebuilding
    assert result.usage["input_tokens"] > 0
    for position, entry in zip(chosen, sent, strict=True):
        expected = next(s for s in would_be(GAMES(position), position.seat, spec) if s.request == position.request)
        assert entry["body"]["messages"] == json.loads(json.dumps(expected.body["messages"])), position.id
    header, rows = read_run(tmp_path / "run.jsonl")
    assert header["player"] == spec and [r["id"] for r in rows] == [p.id for p in chosen]


def test_a_run_asks_a_game_s_positions_together_so_the_provider_s_cache_serves_their_prefix():
    """A run pays what docs/positions.md prices: asked in the bank's order, a position whose seat name
    and card were asked before (this game or an earlier one) finds at least the tools and the system
    prompt in the provider's cache (the stand-in's: a seat's ten latest prompts, from 1 024 tokens)."""
    from tests.llm_server import FakeModelServer

    games = sorted({p.game for p in SHIPPED_BANK if p.variant == "classic"})[:2]
    chosen = [p for p in SHIPPED_BANK if p.game in games and p.what != "belief"]
    with FakeModelServer(seed=2) as server:
        spec = f"openai:fake-tools@{server.openai_url}?structured=tools"
        result = asyncio.run(run_bank(spec, positions=chosen))
    seen: set[tuple[str, str]] = set()
    again = []
    for position, row in zip(chosen, result.rows, strict=True):
        if (position.seat, position.role) in seen:
            again.append(row["usage"]["cached_tokens"])
        seen.add((position.seat, position.role))
    assert len(again) > 20
    assert sum(1 for cached in again if cached >= 1024) >= 0.9 * len(again), again


# ---- the command ----------------------------------------------------------------------------------------
def test_the_commands_run_compare_and_say_mistakes_in_one_line(tmp_path, capsys):
    run_a, run_b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert main(["positions", "run", "--player", "bot", "-o", str(run_a), "--max", "60"]) == 0
    assert "60 positions answered by bot" in capsys.readouterr().out
    assert main(["positions", "run", "--player", "random", "-o", str(run_b), "--max", "60", "--against", str(run_a)]) == 0
    assert "detection:" in capsys.readouterr().out
    assert main(["positions", "compare", str(run_a), str(run_b), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["detection"]["a"] == "bot" and out["detection"]["b"] == "random" and out["detection"]["status"] in (
        "different", "alike", "undecided",
    )  # fmt: skip
    for argv, words in (
        (["positions", "run", "--player", "bot", "-o", str(tmp_path / "x.jsonl"), "--until-decided"], "needs --against"),
        (["positions", "run", "--player", "bot", "-o", str(tmp_path / "x.jsonl"), "--what", "gossip"], "the kinds are"),
        (["positions", "run", str(tmp_path / "none.jsonl"), "--player", "bot", "-o", str(tmp_path / "x.jsonl")], "no such bank"),
        (["positions", "run", "--player", "nosuch", "-o", str(tmp_path / "x.jsonl")], "--player nosuch"),
        (["positions", "compare", str(run_a), str(tmp_path / "none.jsonl")], "no such run"),
        (["positions", "build", str(tmp_path / "nothing"), "-o", str(tmp_path / "b.jsonl")], "no such folder"),
    ):
        assert main(argv) == 2, argv
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and words in lines[0], (argv, lines)
