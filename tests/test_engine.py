"""The shared engine: the action union, narrowed schemas, validation, views, forfeits, determinism."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import ValidationError

from arena.engine import ACTION_ADAPTER, KINDS, parse_action
from arena.engine.actions import Kill, Speak, Verdict
from arena.players.base import Malformed, SyncPlayer
from arena.players.random import RandomPlayer
from arena.run.orchestrator import run, run_sync
from arena.variants.classic import Classic

SEATS = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy"]
ROLES = ["mafia", "inspector", "citizen", "citizen", "mafia", "citizen", "citizen", "citizen", "citizen"]
DEAL = dict(zip(SEATS, ROLES, strict=True))


def test_union_covers_every_kind_of_turns_md() -> None:
    kinds = {
        "speak", "verdict", "vote", "kill", "check", "heal", "visit", "declare_cop", "peek",
        "handshake", "pass", "place_card", "judge", "continue", "retract",
    }  # fmt: skip
    assert set(KINDS) == kinds
    schema = ACTION_ADAPTER.json_schema()
    assert schema["discriminator"]["propertyName"] == "kind"
    assert parse_action('{"kind": "kill", "target": null, "thought": "hold"}') == Kill(target=None, thought="hold")
    with pytest.raises(ValidationError):
        parse_action({"kind": "kill", "target": "Ann", "sneaky": 1})  # extra fields are refused


def _night_request(game: Classic):
    run_to_night(game)
    return {r.player: r for r in game.pending()}


def run_to_night(game: Classic) -> None:
    """Answer day 1 so that Cid is executed and night 1 is pending."""
    while game.phase != "night":
        from arena.engine import Decision

        decisions = []
        for req in game.pending():
            if req.phase == "discussion":
                action = Speak(accuse="Cid") if req.player == "Ann" else Speak()
            elif req.kinds == ("verdict",):
                action = Verdict(yes=True)
            else:
                action = Speak()
            decisions.append(Decision(req, action))
        game.resolve(decisions)


def test_schema_is_narrowed_to_legal_kinds_and_names() -> None:
    game = Classic(SEATS, seed=1, deal=DEAL)
    requests = _night_request(game)
    shot = requests["Ann"]
    schema = shot.json_schema()
    assert schema["properties"]["kind"]["const"] == "kill"
    target = schema["properties"]["target"]
    names = next(s for s in target["anyOf"] if "enum" in s)["enum"]
    assert names == ["Bob", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy"]  # living, not himself
    assert "speech" not in schema["properties"]  # the night is silent
    assert shot.parse('{"kind": "kill", "target": "Bob"}') == Kill(target="Bob")
    with pytest.raises(ValidationError):
        shot.parse('{"kind": "kill", "target": "Cid"}')  # dead
    with pytest.raises(ValidationError):
        shot.parse('{"kind": "check", "target": "Bob"}')  # not a legal kind now
    check = requests["Bob"].json_schema()
    assert check["properties"]["target"]["enum"] == ["Ann", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy"]
    assert check["required"] == ["kind", "target"]


def test_narrowed_schema_and_engine_validation_agree() -> None:
    """Every value the schema admits the engine accepts, and every living name it leaves out is refused."""
    game = Classic(SEATS, seed=1, deal=DEAL)
    request = game.pending()[0]
    model = request.action_model()
    for name in SEATS:
        data = {"kind": "speak", "speech": "x", "accuse": name}
        try:
            action = request.parse(data)
        except ValidationError:
            assert game.validate(request, Speak(speech="x", accuse=name)) is not None
        else:
            assert game.validate(request, action) is None
    assert json.dumps(model.model_json_schema())  # serialisable as shown to a model


def test_views_hold_only_their_audience() -> None:
    game = Classic(SEATS, seed=4)
    run_sync(game, {n: RandomPlayer(n, 4) for n in SEATS})
    for name in SEATS:
        view = game.view(name)
        assert all(e.to is None or name in e.to for e in view.events)
        assert [e.seq for e in view.events] == sorted(e.seq for e in view.events)
    hidden = [e for e in game.log if e.audience == "moderator"]
    assert hidden and not any(e in game.view(n).events for n in SEATS for e in hidden)


def test_same_seed_same_game() -> None:
    logs = []
    for _ in range(2):
        game = Classic(SEATS, seed=99)
        run_sync(game, {n: RandomPlayer(n, 99) for n in SEATS})
        logs.append([e.to_dict() for e in game.log])
    assert logs[0] == logs[1]


class Babbler(SyncPlayer):
    """Answers garbage first, then something legal (to exercise malformed answers)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.inner = RandomPlayer(name, 0)

    def decide_now(self, request, view, feedback):
        if feedback is None:
            return Malformed('{"kind": "dance"}', "not a valid action: unknown kind 'dance'")
        return self.inner.decide_now(request, view, feedback)


def test_malformed_answers_are_rejected_with_their_reason_and_retried() -> None:
    game = Classic(SEATS, seed=2)
    run_sync(game, {n: Babbler(n) for n in SEATS})
    rejected = [e for e in game.log if e.type == "rejected"]
    assert rejected and all(e.data["raw"] == '{"kind": "dance"}' for e in rejected)
    assert not [e for e in game.log if e.type == "forfeit"]
    assert game.finished


class Slow:
    """An async player that never answers in time."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def decide(self, request, view, feedback):
        await asyncio.sleep(10)


class Broken:
    def __init__(self, name: str) -> None:
        self.name = name

    async def decide(self, request, view, feedback):
        raise RuntimeError("boom")


def test_async_run_forfeits_timeouts_and_broken_players_without_crashing() -> None:
    game = Classic(SEATS, seed=5)
    players = {n: RandomPlayer(n, 5) for n in SEATS}
    players["Ann"] = Slow("Ann")
    players["Bob"] = Broken("Bob")
    asyncio.run(run(game, players, decision_timeout=0.001))
    assert game.finished
    forfeits = {e.actor for e in game.log if e.type == "forfeit"}
    assert {"Ann", "Bob"} <= forfeits
    notes = {e.type for e in game.log if e.audience == "moderator"}
    assert {"player_timeout", "player_error"} <= notes


def test_simultaneous_decisions_are_asked_in_parallel() -> None:
    in_flight = 0
    most = 0

    class Sleeper:
        def __init__(self, name: str) -> None:
            self.name = name
            self.inner = RandomPlayer(name, 0)

        async def decide(self, request, view, feedback):
            nonlocal in_flight, most
            in_flight += 1
            most = max(most, in_flight)
            await asyncio.sleep(0)  # let every other pending decision start
            in_flight -= 1
            return self.inner.decide_now(request, view, feedback)

    game = Classic(SEATS, seed=6)
    asyncio.run(run(game, {n: Sleeper(n) for n in SEATS}))
    assert any(e.type == "vote_result" for e in game.log)
    assert most == len(SEATS) - 1  # a charge vote: every living player but the accused at once
