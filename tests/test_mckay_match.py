"""Whole McKay matches: configs, seeded random matches, hidden information, the scenario format."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from arena.engine import Game, RulesError
from arena.players.random import RandomPlayer
from arena.players.scripted import ScriptedPlayer
from arena.run.orchestrator import run_sync
from arena.run.scenario import run_scenario
from arena.variants import get_variant

ROOT = Path(__file__).resolve().parent.parent
MCKAY = ("duel", "duel3", "trio")
MATCHES = 100


def _seats(variant: str) -> list[str]:
    return ["Ann", "Bob", "Cid"][: get_variant(variant).min_players]


def _random_match(variant: str, seed: int, **options: object) -> Game:
    seats = _seats(variant)
    game = get_variant(variant)(seats, options, seed)
    run_sync(game, {n: RandomPlayer(n, seed) for n in seats})
    return game


@pytest.mark.parametrize("variant", MCKAY)
def test_config_lists_every_option_with_its_default(variant: str) -> None:
    cls = get_variant(variant)
    data = tomllib.loads((ROOT / "configs" / f"{variant}.toml").read_text())
    options = cls.Options.model_validate(data["options"])
    assert set(data["options"]) == set(cls.Options.model_fields)
    assert options == cls.Options()
    assert cls.min_players <= data["players"] <= cls.max_players


@pytest.mark.parametrize("variant", MCKAY)
def test_seeded_random_matches_finish(variant: str) -> None:
    for seed in range(MATCHES):
        game = _random_match(variant, seed)
        assert game.finished and len(game.records) == 10
        assert game.scores == {n: sum(r["points"][n] for r in game.records) for n in game.seats}
        best = max(game.scores.values())
        leaders = [n for n in game.seats if game.scores[n] == best]
        assert game.winner == (leaders[0] if len(leaders) == 1 else "draw")
        hands = [e.data for e in game.log if e.type == "hand_over"]
        assert [h["scores"] for h in hands] == [r["scores"] for r in game.records]
        if variant == "trio":
            assert all(0 <= b <= 3 for r in game.records for b in r["bonus"].values())


@pytest.mark.parametrize("variant", MCKAY)
def test_same_seed_same_match(variant: str) -> None:
    first = [e.to_dict() for e in _random_match(variant, 17).log]
    assert first == [e.to_dict() for e in _random_match(variant, 17).log]


def _leaks(game: Game) -> list[str]:
    """Looks reach only the looker; a dead player's card reaches nobody before the hand is over."""
    problems = []
    for name in game.seats:
        face_down: set[str] = set()  # dead this hand, card not shown yet
        for event in game.view(name).events:
            if event.type in ("cop_look", "role") and event.to != frozenset((name,)):
                problems.append(f"{name} saw another's {event.type}: {event.to_dict()}")
            if event.to is None and "card" in event.data:
                problems.append(f"a card in a public event: {event.to_dict()}")
            if face_down and event.type != "hand_over" and ("role" in event.data or "roles" in event.data):
                problems.append(f"{name} saw cards while {sorted(face_down)} lie face down: {event.to_dict()}")
            if event.type == "death":
                face_down.add(event.data["player"])
            elif event.type == "hand_over":
                face_down.clear()
    return problems


@pytest.mark.parametrize("variant", MCKAY)
def test_hidden_information_never_reaches_another_view(variant: str) -> None:
    looks = face_down = 0
    for seed in range(40):
        game = _random_match(variant, seed)
        assert _leaks(game) == [], f"{variant} seed {seed}"
        looks += sum(1 for e in game.log if e.type == "cop_look")
        face_down += sum(1 for r in game.records if len(r["deaths"]) == 2)
    assert looks > 0  # the audit had looks to audit
    if variant != "duel":
        assert face_down > 0  # and first deaths that stayed face down while play went on


def test_duel3_face_down_card_only_in_the_dead_players_own_view() -> None:
    hand = {"deal": {"Ann": "mafia", "Bob": "cop", "Cid": "townsperson"}, "unpicked": ["mafia"] * 2 + ["townsperson"] * 2}
    game = get_variant("duel3").from_scenario({"players": ["Ann", "Bob", "Cid"], "hands": [hand], "options": {"beats": 2}})
    scripts = {
        "Ann": [{"kind": "kill", "target": "Cid"}, {"kind": "pass"}],
        "Bob": [{"kind": "declare_cop", "position": 1}, {"kind": "pass"}],
        "Cid": [{"kind": "pass"}],
    }
    run_sync(game, {n: ScriptedPlayer(n, a) for n, a in scripts.items()})
    over = next(e.seq for e in game.log if e.type == "hand_over")
    for name in ("Ann", "Bob"):
        before = [e for e in game.view(name).events if e.seq < over]
        assert not any("townsperson" in map(str, e.data.values()) for e in before if e.type != "role")
    assert [e.data["card"] for e in game.view("Bob").events if e.type == "cop_look"] == ["mafia"]
    assert not any(e.type == "cop_look" for e in game.view("Ann").events)
    assert _leaks(game) == []


def test_scenario_hands_must_make_up_the_deck() -> None:
    hand = {"deal": {"Ann": "mafia", "Bob": "mafia"}, "unpicked": ["mafia", "cop", "townsperson"]}
    spec = {"players": ["Ann", "Bob"], "hands": [hand]}
    with pytest.raises(RulesError, match="hand 1: the deal and the unpicked cards must make up the deck"):
        get_variant("duel").from_scenario(spec)
    with pytest.raises(RulesError, match="hand 1: give a 'deal' and the 'unpicked' cards"):
        get_variant("duel").from_scenario({"players": ["Ann", "Bob"], "hands": [{"deal": {"Ann": "cop", "Bob": "mafia"}}]})


def test_scenario_match_length_is_the_number_of_hands() -> None:
    hand = {"deal": {"Ann": "cop", "Bob": "mafia"}, "unpicked": ["mafia", "townsperson", "townsperson"]}
    game = get_variant("duel").from_scenario({"players": ["Ann", "Bob"], "hands": [hand, hand]})
    assert game.options.hands == 2
    with pytest.raises(RulesError, match=r"options\.hands is 3 but 2 hands are given"):
        get_variant("duel").from_scenario({"players": ["Ann", "Bob"], "hands": [hand, hand], "options": {"hands": 3}})
    with pytest.raises(RulesError, match="either the hands or a deal"):
        get_variant("duel").from_scenario({"players": ["Ann", "Bob"], "hands": [hand], "deal": hand["deal"]})


def test_scenario_output_carries_scores_bonus_and_hands() -> None:
    hand = {"deal": {"Ann": "cop", "Bob": "mafia"}, "unpicked": ["mafia", "townsperson", "townsperson"]}
    answers = {"Ann": [{"kind": "handshake"}], "Bob": [{"kind": "handshake"}]}
    out = run_scenario({"variant": "duel", "players": ["Ann", "Bob"], "hands": [hand], "answers": answers})
    assert out["winner"] == "Bob" and out["scores"] == {"Ann": -2, "Bob": 2} and out["bonus"] == {"Ann": 1, "Bob": 1}
    assert out["hands"] == [
        {"deaths": [], "points": {"Ann": -2, "Bob": 2}, "bonus": {"Ann": 1, "Bob": 1},
         "scores": {"Ann": -2, "Bob": 2}, "end": "handshake", "looks": []},
    ]  # fmt: skip


def test_a_given_deal_leaves_the_rest_of_the_deck_unpicked() -> None:
    with pytest.raises(RulesError, match="cannot deal"):
        get_variant("duel3")(["Ann", "Bob", "Cid"], seed=3, deal={"Ann": "cop", "Bob": "cop", "Cid": "mafia"})
    game = get_variant("duel3")(["Ann", "Bob", "Cid"], seed=3, deal={"Ann": "cop", "Bob": "mafia", "Cid": "mafia"})
    assert sorted(game.unpicked) == ["mafia", "townsperson", "townsperson", "townsperson"]
