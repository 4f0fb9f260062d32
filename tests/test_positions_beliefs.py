"""Belief positions (issue 35): a town seat's percentages at a day's start, scored by Brier against the truth.

A player told the truth scores better than one answering 50% everywhere, and a bot better than
``random``; a mafia seat's recorded probe never becomes a detection position; the bot answers from
the seat's view alone (hidden events changed, the same answer); a model seat is sent exactly the
belief question the tournament's probe sent it, rebuilt from the transcript without a call.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.engine import View
from arena.players.base import SyncPlayer
from arena.players.bot import BotPlayer
from arena.positions.answer import Scored, belief_score, fresh_player, prior_of, score, seat_at
from arena.positions.bank import BELIEF, DETECTION, Games, Position, build, load_bank, recorded_beliefs
from arena.positions.compare import compare_runs
from arena.positions.games import record_games
from arena.positions.run import run_bank
from arena.run.transcript import read_transcript

SHIPPED_BANK = load_bank()
BELIEFS = [p for p in SHIPPED_BANK if p.what == BELIEF]
GAMES = Games(None)


def teams(position: Position) -> dict[str, str]:
    """Each seat's side as the probe asks it: town, or against the town ("mafia": cove's maniac too)."""
    game, _ = seat_at(GAMES(position), position, {})
    return {seat: "town" if game.team(seat) == "town" else "mafia" for seat in game.seats}


class Believer(SyncPlayer):
    """Answers a belief question with fixed percentages: the truth (told it: a test's cheat) or 50%."""

    def __init__(self, name: str, truth: dict[str, str] | None) -> None:
        super().__init__(name)
        self.truth = truth
        self.views: list[View] = []

    def decide_now(self, request: Any, view: View, feedback: str | None) -> Any:
        raise AssertionError("a belief position asks no decision")

    def believe(self, view: View, seats: Sequence[str], candidates: Sequence[str], prior: float) -> dict[str, float]:
        self.views.append(view)
        if self.truth is None:
            return dict.fromkeys(candidates, 0.5)
        return {c: 0.9 if self.truth[c] == "mafia" else 0.1 for c in candidates}


def belief_tournament(url: str, tmp_path: Path, seed: int) -> int:
    """Two 6-seat classic games of a model seat (at ``url``) and bots, with belief questions; the games played."""
    from arena.tournament.config import parse_tournament
    from arena.tournament.runner import run_tournament

    config = parse_tournament({
        "name": "b", "seed": seed, "games": 2, "concurrency": 1, "beliefs": True,
        "database": str(tmp_path / "b.sqlite"), "transcripts": str(tmp_path / "tr"),
        "models": {"bot": "bot", "m": f"openai:m@{url}"},
        "variants": [{"name": "classic", "players": 6, "options": {"discussion_rounds": 1}}],
    })  # fmt: skip
    return asyncio.run(run_tournament(config)).played


def _scores(positions: list[Position], make: Any) -> list[Scored]:
    async def go() -> list[Scored]:
        return [await score(GAMES(p), p, make) for p in positions]

    return asyncio.run(go())


def test_the_shipped_bank_holds_belief_positions_of_town_seats_with_the_living_as_candidates():
    assert len(BELIEFS) > 100 and {p.variant for p in BELIEFS} == {"classic", "cove", "village"}
    for position in BELIEFS[::5]:
        truth = teams(position)
        assert position.kind == DETECTION and truth[position.seat] == "town"
        game, _ = seat_at(GAMES(position), position, {})
        assert position.legal == [s for s in game.alive if s != position.seat]  # the other living seats
        assert any(truth[c] == "mafia" for c in position.legal)
        day = max(i for i, e in enumerate(game.log) if e.type == "day")  # asked at the day's start, as the probe is
        assert game.log[day].day == position.day and not any(e.type == "action" for e in game.log[day:])


def test_a_player_that_knows_the_truth_scores_better_than_one_saying_fifty_percent():
    chosen = BELIEFS[::3]
    knows = _scores(chosen, lambda p, t: Believer(p.seat, teams(p)))
    even = _scores(chosen, lambda p, t: Believer(p.seat, None))
    for k, e in zip(knows, even, strict=True):
        assert k.valid and e.valid and k.hit > e.hit and k.brier < e.brier and k.logloss < e.logloss, k.id
        assert k.score > 0  # 90% on the truth beats the deal's prior
    bot = _scores(chosen, fresh_player("bot", 1))
    rand = _scores(chosen, fresh_player("random", 1))
    mean = lambda xs: sum(x.score for x in xs) / len(xs)  # noqa: E731
    assert mean(bot) > mean(rand) + 0.05
    out = compare_runs([s.row() for s in knows], [s.row() for s in even], "knows", "fifty").as_json()
    assert out["detection"]["status"] != "alike" and out["detection"]["better"] in (None, "knows")  # 14 games: maybe undecided
    assert out["detection"]["estimate"] > 0.1 and out["detection"]["score_a"] > out["detection"]["score_b"]


def test_the_scores_of_one_answer():
    position = BELIEFS[0]
    game, _ = seat_at(GAMES(position), position, {})
    truth = teams(position)
    sure = {c: float(truth[c] == "mafia") for c in position.legal}
    hit, chance, logloss, brier = belief_score(sure, position.legal, game)
    assert hit == 1.0 and brier == 0.0 and logloss == pytest.approx(-__import__("math").log(0.99))
    wrong = {c: 1.0 - p for c, p in sure.items()}
    assert belief_score(wrong, position.legal, game)[0] == 0.0
    prior = prior_of(game)
    assert belief_score(dict.fromkeys(position.legal, prior), position.legal, game)[:2] == pytest.approx((chance, chance))
    assert belief_score(None, position.legal, game)[3] == 0.25  # no answer: 50% on every candidate


def test_a_bot_answers_from_the_seat_s_view_only():
    """Every event hidden from the seat changed (other seats' cards swapped, the mafia's channel
    rewritten): the bot's answer is the same; the believer is handed the seat's view, nothing else."""
    for position in BELIEFS[::9]:
        spy = Believer(position.seat, None)
        game, _ = seat_at(GAMES(position), position, {position.seat: spy})
        _scores([position], lambda p, t, spy=spy: spy)
        assert spy.views and all(e.to is None or position.seat in e.to for e in spy.views[-1].events)
        twin = []
        for event in game.log:
            if event.to is None or position.seat in event.to:
                twin.append(event)
                continue
            changed = copy.copy(event)
            changed.data = {k: ("citizen" if k == "role" else "mafia" if k == "team" else "?") for k in event.data}
            twin.append(changed)
        role = game.role_of[position.seat]
        for spec in ("bot", "bot?level=0.5"):
            bot = fresh_player(spec, 2)(position, GAMES(position))
            assert isinstance(bot, BotPlayer)
            one = bot.believe(View(position.seat, role, game.log), game.seats, position.legal, prior_of(game))
            other = bot.believe(View(position.seat, role, twin), game.seats, position.legal, prior_of(game))
            assert one == other, position.id


def test_a_mafia_seat_s_recorded_probe_is_never_a_detection_position(tmp_path):
    """Probes recorded for every seat (a tournament's ``belief_call``): a bank keeps the town seats' only."""
    path = record_games(tmp_path / "games", "classic", [5])[0]
    transcript = read_transcript(path)
    roles = transcript.summary["roles"]  # type: ignore[index]
    days = sorted({int(e.get("day") or 0) for e in transcript.events if e.get("type") == "day"})
    lines = path.read_text(encoding="utf-8").splitlines()
    calls = []
    for day in days[:2]:
        for seat in roles:
            others = [s for s in roles if s != seat]
            call = {"type": "belief_call", "day": day, "candidates": others, "beliefs": dict.fromkeys(others, 0.3)}
            calls.append(json.dumps({"type": "call", "player": seat, "call": call}))
    path.write_text("\n".join([*lines[:-1], *calls, lines[-1]]) + "\n", encoding="utf-8")  # before the summary
    assert len(recorded_beliefs(read_transcript(path))) == len(roles) * len(days[:2])
    built = build(tmp_path / "games", tmp_path / "bank.jsonl")
    beliefs = [p for p in built.positions if p.what == BELIEF]
    assert beliefs and all(roles[p.seat] != "mafia" for p in beliefs)
    assert {p.seat for p in beliefs} <= {s for s, r in roles.items() if r != "mafia"}
    assert all(p.recorded == {"percent": dict.fromkeys(p.legal, 30)} for p in beliefs)
    everyday = build(tmp_path / "games", tmp_path / "every.jsonl", beliefs=True)
    assert len([p for p in everyday.positions if p.what == BELIEF]) >= len(beliefs)
    assert all(roles[p.seat] != "mafia" for p in everyday.positions if p.what == BELIEF)


def test_a_model_seat_is_sent_the_belief_question_the_tournament_s_probe_sent(tmp_path: Path):
    from tests.llm_server import FakeModelServer, game_calls

    with FakeModelServer(seed=2) as server:
        spec = f"openai:m@{server.openai_url}"
        assert belief_tournament(server.openai_url, tmp_path, seed=4) == 2
        probes = [e for e in game_calls(server.log) if "Moderator's private question" in json.dumps(e["body"])]
        built = build(tmp_path / "tr", tmp_path / "bank.jsonl")
        beliefs = [p for p in built.positions if p.what == BELIEF]
        assert beliefs and all(p.recorded is None or set(p.recorded["percent"]) == set(p.legal) for p in beliefs)
        server.log.clear()
        result = asyncio.run(run_bank(spec, tmp_path / "bank.jsonl", positions=beliefs))
        sent = game_calls(server.log)
    assert len(sent) == len(beliefs) == result.usage["calls"]  # one call each, nothing while rebuilding
    # the seat's earlier turns are the recorded answers as its own (as ``arena prompts --model`` rebuilds
    # them: tool-call ids by decision); the system prompt, the turns and the question are the probe's
    asked = {(e["player"], json.dumps(e["body"]["messages"][-1])): e["body"]["messages"] for e in probes}
    for position, entry in zip(beliefs, sent, strict=True):
        mine = entry["body"]["messages"]
        theirs = asked.get((position.seat, json.dumps(mine[-1])))
        assert theirs is not None, position.id  # the question word for word, the view's news before it
        assert mine[0] == theirs[0] and [m["role"] for m in mine] == [m["role"] for m in theirs], position.id
        assert [m.get("content") for m in mine] == [m.get("content") for m in theirs], position.id
    assert all(r["valid"] and r["hit"] is not None for r in result.rows)


def test_a_seat_s_belief_questions_keep_one_answer_form_all_game_so_the_provider_caches_them(tmp_path: Path):
    """The form names every other seat (a form of the living changed at each death, and with it
    the first bytes a provider reads: no later question of the seat was served from its cache);
    a question after a death names the living and says what to give the others; the first question,
    before the seat's first decision, has the system prompt that decision has."""
    from tests.llm_server import FakeModelServer, game_calls

    with FakeModelServer(seed=3) as server:
        belief_tournament(server.openai_url, tmp_path, seed=5)
        probes = [e for e in game_calls(server.log) if "Moderator's private question" in json.dumps(e["body"])]
    # the first question, asked before the seat's first decision, has that decision's system prompt:
    # the cards dealt (how many mafia: the prior) and the seat's tools (it had neither)
    decisions = [e for e in game_calls(server.log) if e not in probes]
    for entry in probes:
        first = next((e for e in decisions if e["player"] == entry["player"]), None)
        system = entry["body"]["messages"][0]["content"]
        assert "dealt" in system
        if first is not None:
            assert system == first["body"]["messages"][0]["content"]
    by_seat: dict[str, list[dict[str, Any]]] = {}
    for entry in probes:
        by_seat.setdefault(entry["player"], []).append(entry)
    later = [entries for entries in by_seat.values() if len(entries) > 1]
    assert later, "no seat was asked on two days"
    for entries in later:
        tools = [json.dumps(e["body"]["tools"], sort_keys=True) for e in entries]
        assert len(set(tools)) == 1
        named = json.loads(tools[0])[0]["function"]["parameters"]["properties"]["percent"]["required"]
        assert len(named) == 5  # every other seat of six
        last = entries[-1]["body"]["messages"][-1]["content"]
        living = last.split("\nPlayers: ")[1].split(".")[0].split(", ")
        if len(living) < 5:
            gone = [s for s in named if s not in living]
            assert f"give 0 for {gone[0]}" in last
    # every question shares at least the form and the system prompt with the seat's previous one
    pairs = [(entries[i - 1], entries[i]) for entries in later for i in range(1, len(entries))]
    assert pairs
    for before, after in pairs:
        a, b = before["prompt"], after["prompt"]
        shared = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        assert shared // 4 >= 1024, shared  # served from the stand-in's cache (from 1 024 tokens)


def test_a_bot_below_full_strength_answers_at_its_level_on_a_coin_of_its_own():
    """Level 1: the suspicion model (the tournament probe's answer); level 0: whole percentages
    drawn uniformly; between, the one or the other; the mafia level does not touch a town seat's."""
    from arena.players.bot.player import suspicion_beliefs

    position = next(p for p in BELIEFS if p.variant == "classic" and p.day >= 2)
    game, _ = seat_at(GAMES(position), position, {})
    view, seats, prior = game.view(position.seat), game.seats, prior_of(game)
    own = suspicion_beliefs(position.seat, view, seats, position.legal, prior)
    assert BotPlayer(position.seat, 1).believe(view, seats, position.legal, prior) == own
    drawn = [BotPlayer(position.seat, s, town=0.0).believe(view, seats, position.legal, prior) for s in range(20)]
    assert all(abs(p * 100 - round(p * 100)) < 1e-9 for d in drawn for p in d.values()) and len({str(d) for d in drawn}) > 15
    half = [BotPlayer(position.seat, s, town=0.5).believe(view, seats, position.legal, prior) for s in range(40)]
    assert 8 < sum(d == own for d in half) < 32
    mafia_only = [BotPlayer(position.seat, s, mafia=0.0).believe(view, seats, position.legal, prior) for s in range(5)]
    assert all(d == own for d in mafia_only)  # a town seat's question plays at the town level
