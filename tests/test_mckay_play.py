"""Beat by beat: the flows and refusals of ``duel``, ``duel3`` and ``trio`` (rules/mckay.md)."""

from __future__ import annotations

from typing import Any

import pytest

from arena.engine import Clock, Decision, Game, parse_action
from arena.engine.actions import Continue, Pass
from arena.variants import get_variant

PASS = {"kind": "pass"}
HS = {"kind": "handshake"}


def kill(target: str) -> dict[str, Any]:
    return {"kind": "kill", "target": target}


def declare(position: int | None) -> dict[str, Any]:
    return {"kind": "declare_cop", "position": position}


def place(slot: str | None) -> dict[str, Any]:
    return {"kind": "place_card", "slot": slot}


def new(variant: str, cards: dict[str, str], unpicked: list[str], seed: int = 0, **options: Any) -> Game:
    """A one-hand match with this deal."""
    return get_variant(variant)(list(cards), options, seed, hands=[{"deal": cards, "unpicked": unpicked}])


def step(game: Game, answers: dict[str, dict[str, Any]]) -> None:
    """Answer every pending request (each answer must be legal) and resolve the batch."""
    pending = game.pending()
    assert sorted(r.player for r in pending) == sorted(answers), [r.player for r in pending]
    decisions = []
    for request in pending:
        action = parse_action(answers[request.player])
        assert game.validate(request, action) is None, game.validate(request, action)
        decisions.append(Decision(request, action))
    game.resolve(decisions)


def refusal(game: Game, player: str, answer: dict[str, Any]) -> str | None:
    request = next(r for r in game.pending() if r.player == player)
    return game.validate(request, parse_action(answer))


def seen(game: Game, player: str, type_: str) -> list[dict[str, Any]]:
    return [e.data for e in game.view(player).events if e.type == type_]


# ---- duel ---------------------------------------------------------------------------------------
DUEL = {"Ann": "mafia", "Bob": "townsperson"}
DUEL_UNPICKED = ["townsperson", "cop", "mafia"]


def test_a_beat_asks_every_living_player_at_once_with_every_legal_kind() -> None:
    game = new("duel", DUEL, DUEL_UNPICKED)
    requests = game.pending()
    assert [r.player for r in requests] == ["Ann", "Bob"]
    for request in requests:
        assert request.group == "beat" and request.talk == "all"
        assert request.default == Pass()
        assert request.clock == Clock("beat", 12, 12)
        assert request.kinds == ("pass", "kill", "declare_cop", "handshake")
        assert request.option("declare_cop").fields["position"].choices == (1, 2, 3)
    assert requests[0].option("kill").fields["target"].choices == ("Bob",)
    step(game, {"Ann": {"kind": "pass", "speech": "Hello."}, "Bob": PASS})
    assert game.pending()[0].clock == Clock("beat", 11, 12)
    assert seen(game, "Bob", "speech") == [{"kind": "beat", "text": "Hello."}]


def test_declarer_looks_privately_and_may_still_be_killed_in_that_beat() -> None:
    game = new("duel", DUEL, DUEL_UNPICKED)
    step(game, {"Ann": declare(2), "Bob": kill("Ann")})
    assert seen(game, "Ann", "cop_look") == [{"position": 2, "card": "cop", "look": 1}]
    assert seen(game, "Bob", "cop_look") == []
    assert seen(game, "Bob", "cop_declared") == [{"position": 2}]
    types = [e.type for e in game.log]
    assert types.index("cop_look") < types.index("death")
    # a TP killing a mafia pretending to be the cop: 5 x the raised bonus 1
    assert game.records[0]["points"] == {"Ann": 0, "Bob": 5}
    assert game.finished and game.winner == "Bob"


def test_same_beat_declarations_first_come_first_served_in_round_order() -> None:
    game = new("duel", DUEL, DUEL_UNPICKED, seed=4)
    first, second = game.order
    step(game, {first: declare(1), second: declare(3)})
    declared = [e for e in game.log if e.type == "cop_declared"]
    assert [(e.actor, e.data["position"]) for e in declared] == [(first, 1)]
    void = [e for e in game.log if e.type == "declaration_void"]
    assert [(e.actor, e.data["reason"]) for e in void] == [(second, f"{first} declared first")]
    assert [e.to for e in game.log if e.type == "cop_look"] == [frozenset((first,))]
    assert all("declare_cop" not in r.kinds for r in game.pending())
    assert refusal(game, second, declare(2)) == (
        f"{first} already declared cop this hand: only the first declaration counts, and there is no second look"
    )
    assert refusal(game, first, declare(2)) == "you already declared cop this hand"


@pytest.mark.parametrize("seed", range(6))
def test_simultaneous_kills_random_option_draws_one_first(seed: int) -> None:
    game = new("duel", DUEL, DUEL_UNPICKED, simultaneous_kills="random", seed=seed)
    step(game, {"Ann": kill("Bob"), "Bob": kill("Ann")})
    (draw,) = [e.data for e in game.log if e.type == "simultaneous_draw"]
    victim = "Bob" if draw["first"] == "Ann" else "Ann"
    assert game.records[0]["deaths"] == [{"player": victim, "by": [draw["first"]], "cause": "kill"}]
    assert game.alive == (draw["first"],)


def test_simultaneous_kills_random_option_is_a_real_draw() -> None:
    survivors = set()
    for seed in range(20):
        game = new("duel", DUEL, DUEL_UNPICKED, simultaneous_kills="random", seed=seed)
        step(game, {"Ann": kill("Bob"), "Bob": kill("Ann")})
        survivors.update(game.alive)
    assert survivors == {"Ann", "Bob"}


def test_simultaneous_kills_both_die_by_default() -> None:
    game = new("duel", DUEL, DUEL_UNPICKED)
    step(game, {"Ann": kill("Bob"), "Bob": kill("Ann")})
    assert game.alive == ()
    assert [d["cause"] for d in game.records[0]["deaths"]] == ["simultaneous", "simultaneous"]
    assert game.records[0]["points"] == {"Ann": 0, "Bob": 0}


def test_handshake_in_the_same_beat_ends_the_hand_as_time() -> None:
    game = new("duel", DUEL, DUEL_UNPICKED)
    step(game, {"Ann": HS, "Bob": HS})
    assert game.records[0]["end"] == "handshake"
    assert game.records[0]["points"] == {"Ann": 2, "Bob": 0}
    assert game.bonus == {"Ann": 1, "Bob": 1}


def test_a_handshake_offer_lapses_after_the_next_beat_and_a_kill_outranks_it() -> None:
    game = new("duel", DUEL, DUEL_UNPICKED, beats=4)
    step(game, {"Ann": HS, "Bob": PASS})
    step(game, {"Ann": PASS, "Bob": PASS})
    step(game, {"Ann": PASS, "Bob": HS})  # Ann's offer of beat 1 has lapsed
    assert not game.records
    step(game, {"Ann": kill("Bob"), "Bob": PASS})  # Bob's offer stands, but Ann kills
    assert game.records[0]["end"] == "kill"


def test_time_runs_out() -> None:
    game = new("duel", {"Ann": "cop", "Bob": "mafia"}, ["townsperson", "townsperson", "mafia"], beats=2)
    step(game, {"Ann": PASS, "Bob": PASS})
    step(game, {"Ann": PASS, "Bob": PASS})
    assert game.records[0]["end"] == "time"
    assert game.records[0]["points"] == {"Ann": -2, "Bob": 2}


def test_duel_refusals() -> None:
    game = new("duel", DUEL, DUEL_UNPICKED)
    assert refusal(game, "Ann", {"kind": "peek", "position": 1}) == (
        "there is no second look in duel: the one look comes with declare_cop"
    )
    assert refusal(game, "Ann", {"kind": "speak", "speech": "hi"}) == (
        "in a beat you talk in the speech of your action (pass, to only talk)"
    )
    assert refusal(game, "Ann", kill("Ann")) == "you cannot kill yourself"
    assert refusal(game, "Ann", declare(4)) == "4 is not a legal position here; legal: 1, 2, 3"
    assert refusal(game, "Ann", declare(None)) == "declare_cop needs a position: one of 1, 2, 3"


def test_a_new_hand_is_a_new_deal_with_everybody_back() -> None:
    game = get_variant("duel")(["Ann", "Bob"], {"hands": 3}, seed=9)
    step(game, {"Ann": kill("Bob"), "Bob": PASS})
    assert game.day == 2 and game.alive == ("Ann", "Bob")
    roles = [e for e in game.log if e.type == "role" and e.day == 2]
    assert [(e.to, e.data["role"]) for e in roles] == [(frozenset((n,)), game.role_of[n]) for n in game.seats]
    assert sorted([*game.role_of.values(), *game.unpicked]) == sorted(game.DECK)


def test_a_new_hand_seats_everybody_again_in_every_query() -> None:
    """The base class caches each seat's living opponents; a new hand must not serve the old ones."""
    game = get_variant("duel3")(["Ann", "Bob", "Cid"], {"hands": 2, "beats": 2}, seed=1)
    step(game, {"Ann": kill("Bob"), "Bob": PASS, "Cid": PASS})
    assert game.others("Ann") == ("Cid",)
    step(game, {"Ann": PASS, "Cid": PASS})  # time: hand 2, everybody back
    assert game.day == 2 and game.alive == ("Ann", "Bob", "Cid")
    assert game.others("Ann") == ("Bob", "Cid")


def test_each_round_draws_a_random_order_that_only_the_moderator_sees() -> None:
    firsts, seconds = set(), set()
    for seed in range(30):
        game = new("trio", TRIO, CENTRE, seed=seed)
        step(game, {"Ann": PASS, "Bob": place("Ann"), "Cid": place("Ann")})  # round 2
        notes = [e for e in game.log if e.type == "order"]
        assert [(e.data["round"], e.to) for e in notes] == [(1, frozenset()), (2, frozenset())]
        assert sorted(notes[0].data["order"]) == ["Ann", "Bob", "Cid"]
        assert notes[1].data["order"] == list(game.order) and sorted(game.order) == ["Bob", "Cid"]
        assert not any(e.type == "order" for n in game.seats for e in game.view(n).events)
        firsts.add(tuple(notes[0].data["order"]))
        seconds.add(game.order)
    assert len(firsts) == 6 and len(seconds) == 2


# ---- duel3 ----------------------------------------------------------------------------------------
TRIPLE = {"Ann": "townsperson", "Bob": "mafia", "Cid": "cop"}
TRIPLE_UNPICKED = ["townsperson", "mafia", "mafia", "townsperson"]


@pytest.mark.parametrize("seed", range(8))
def test_duel3_kills_apply_one_by_one_in_round_order(seed: int) -> None:
    game = new("duel3", TRIPLE, TRIPLE_UNPICKED, seed=seed)
    targets = {"Ann": "Bob", "Bob": "Cid", "Cid": "Ann"}  # a cycle
    order = game.order
    step(game, {n: kill(t) for n, t in targets.items()})
    alive, expected = set(TRIPLE), []
    for killer in order:
        if killer in alive and targets[killer] in alive:
            alive.discard(targets[killer])
            expected.append({"player": targets[killer], "by": [killer], "cause": "kill"})
    assert [d.to_dict() for d in game.hand_deaths] == expected
    assert len(expected) == 2  # the first victim's own kill is void; the third still lands


@pytest.mark.parametrize("seed", range(4))
def test_duel3_a_second_kill_on_the_same_victim_is_void(seed: int) -> None:
    game = new("duel3", TRIPLE, TRIPLE_UNPICKED, seed=seed)
    first = next(n for n in game.order if n != "Cid")
    step(game, {"Ann": kill("Cid"), "Bob": kill("Cid"), "Cid": PASS})
    assert [d.to_dict() for d in game.hand_deaths] == [{"player": "Cid", "by": [first], "cause": "kill"}]
    assert game.alive == ("Ann", "Bob")


def test_duel3_first_death_is_silent_and_face_down() -> None:
    game = new("duel3", TRIPLE, TRIPLE_UNPICKED)
    step(game, {"Ann": PASS, "Bob": kill("Cid"), "Cid": PASS})
    (death,) = [e.data for e in game.log if e.type == "death"]
    assert death == {"player": "Cid", "cause": "kill", "by": ["Bob"]}
    assert [r.player for r in game.pending()] == ["Ann", "Bob"]
    assert [r.option("kill").fields["target"].choices for r in game.pending()] == [("Bob",), ("Ann",)]
    step(game, {"Ann": HS, "Bob": HS})  # a handshake of every living player
    assert game.records[0]["end"] == "handshake"
    # Bob (mafia) killed the cop: 5 x 1; then the survivors TP + mafia: TP 0, mafia 4
    assert game.records[0]["points"] == {"Ann": 0, "Bob": 5 + 4, "Cid": 0}
    assert game.records[0]["bonus"] == {"Ann": 1, "Bob": 2, "Cid": 0}


def test_duel3_handshake_needs_every_living_player() -> None:
    game = new("duel3", TRIPLE, TRIPLE_UNPICKED)
    step(game, {"Ann": HS, "Bob": HS, "Cid": PASS})
    assert not game.records
    step(game, {"Ann": PASS, "Bob": PASS, "Cid": HS})  # the offers of the beat before still stand
    assert game.records[0]["end"] == "handshake"


def test_duel3_a_death_withdraws_the_standing_handshake_offers() -> None:
    game = new("duel3", TRIPLE, TRIPLE_UNPICKED)
    step(game, {"Ann": HS, "Bob": kill("Cid"), "Cid": PASS})
    step(game, {"Ann": PASS, "Bob": HS})  # Ann's offer fell with Cid
    assert not game.records
    step(game, {"Ann": HS, "Bob": PASS})  # Bob's offer of the beat before stands
    assert game.records[0]["end"] == "handshake"


def test_duel3_finalists_killing_each_other_both_die() -> None:
    game = new("duel3", TRIPLE, TRIPLE_UNPICKED)
    step(game, {"Ann": PASS, "Bob": kill("Cid"), "Cid": PASS})
    step(game, {"Ann": kill("Bob"), "Bob": kill("Ann")})
    assert game.alive == ()
    assert [d["cause"] for d in game.records[0]["deaths"]] == ["kill", "simultaneous", "simultaneous"]
    assert game.records[0]["points"] == {"Ann": 0, "Bob": 5, "Cid": 0}  # only the first death scores
    assert game.records[0]["bonus"] == {"Ann": 0, "Bob": 0, "Cid": 0}


def test_duel3_second_look_after_the_first_death_only_for_an_early_declarer() -> None:
    game = new("duel3", TRIPLE, TRIPLE_UNPICKED)
    step(game, {"Ann": PASS, "Bob": PASS, "Cid": declare(1)})
    assert refusal(game, "Cid", {"kind": "peek", "position": 2}) == "the second look comes only after the first death"
    assert refusal(game, "Ann", {"kind": "peek", "position": 2}) == (
        "only the hand's first cop declarer may peek: there is no look without declaring"
    )
    step(game, {"Ann": kill("Bob"), "Bob": PASS, "Cid": PASS})
    assert game.pending()[1].option("peek").fields["position"].choices == (2, 3, 4)
    assert refusal(game, "Cid", {"kind": "peek", "position": 1}) == (
        "you already looked at card 1: the second look is at another card"
    )
    step(game, {"Ann": PASS, "Cid": {"kind": "peek", "position": 3}})
    assert seen(game, "Cid", "cop_look") == [
        {"position": 1, "card": "townsperson", "look": 1},
        {"position": 3, "card": "mafia", "look": 2},
    ]
    assert seen(game, "Ann", "cop_look") == [] and seen(game, "Ann", "peek") == [{"position": 3}]
    assert refusal(game, "Cid", {"kind": "peek", "position": 4}) == "you already took your second look this hand"


def test_duel3_a_declaration_in_the_beat_of_the_first_death_counts_as_before_it() -> None:
    game = new("duel3", TRIPLE, TRIPLE_UNPICKED)
    step(game, {"Ann": PASS, "Bob": kill("Ann"), "Cid": declare(1)})  # declarations resolve before kills
    cid = next(r for r in game.pending() if r.player == "Cid")
    assert cid.option("peek").fields["position"].choices == (2, 3, 4)


def test_duel3_a_declaration_after_the_first_death_gives_no_second_look() -> None:
    game = new("duel3", TRIPLE, TRIPLE_UNPICKED)
    step(game, {"Ann": kill("Bob"), "Bob": PASS, "Cid": PASS})
    step(game, {"Ann": PASS, "Cid": declare(2)})
    step(game, {"Ann": PASS, "Cid": PASS})
    assert "peek" not in game.pending()[1].kinds
    assert refusal(game, "Cid", {"kind": "peek", "position": 3}) == (
        "your declaration came after the first death: there is no second look"
    )


def test_duel3_the_dead_are_not_asked() -> None:
    game = new("duel3", TRIPLE, TRIPLE_UNPICKED, beats=3)
    step(game, {"Ann": PASS, "Bob": kill("Cid"), "Cid": PASS})
    step(game, {"Ann": PASS, "Bob": PASS})
    step(game, {"Ann": PASS, "Bob": PASS})
    assert game.records[0]["end"] == "time"
    death = next(e for e in game.log if e.type == "death")
    assert {e.actor for e in game.log if e.type == "action" and e.seq > death.seq} == {"Ann", "Bob"}


# ---- trio -----------------------------------------------------------------------------------------
TRIO = {"Ann": "mafia", "Bob": "townsperson", "Cid": "cop"}
CENTRE = ["mafia", "townsperson"]


def test_trio_round_1_placement_moves_and_take_backs() -> None:
    game = new("trio", TRIO, CENTRE)
    request = game.pending()[0]
    assert request.kinds == ("pass", "place_card", "declare_cop")
    assert request.option("place_card").fields["slot"].choices == ("Bob", "Cid", "no_kill")
    step(game, {"Ann": place("Cid"), "Bob": PASS, "Cid": PASS})
    step(game, {"Ann": place(None), "Bob": place("Cid"), "Cid": place("no_kill")})
    assert game.alive == ("Ann", "Bob", "Cid")
    step(game, {"Ann": place("Cid"), "Bob": PASS, "Cid": PASS})
    assert game.hand_deaths[0].to_dict() == {"player": "Cid", "by": ["Ann", "Bob"], "cause": "vote"}
    assert game.phase == "round2" and game.beat == 1 and game.slots == dict.fromkeys(TRIO)
    assert [e.data["slot"] for e in game.log if e.type == "card_placed"] == ["Cid", None, "Cid", "no_kill", "Cid"]
    assert [r.player for r in game.pending()] == ["Ann", "Bob"]


def test_trio_all_three_on_no_kill_ends_the_hand_without_round_2() -> None:
    game = new("trio", TRIO, CENTRE)
    step(game, {n: place("no_kill") for n in TRIO})
    assert game.records[0]["end"] == "no_kill" and game.finished


def test_trio_time_out_in_round_1_ends_the_hand() -> None:
    game = new("trio", TRIO, CENTRE, beats=2)
    step(game, {"Ann": place("Bob"), "Bob": PASS, "Cid": PASS})
    step(game, {n: PASS for n in TRIO})
    assert game.records[0]["end"] == "time" and game.records[0]["deaths"] == []
    # mafia beside a cop and a TP: 1 (+1 bonus); the town with a mafia alive: 0 (+1)
    assert game.records[0]["points"] == {"Ann": 2, "Bob": 1, "Cid": 1}


@pytest.mark.parametrize("seed", range(4))
def test_trio_only_the_first_declarer_looks(seed: int) -> None:
    game = new("trio", TRIO, CENTRE, seed=seed)
    first, second = [n for n in game.order if n != "Bob"]
    step(game, {first: declare(1), second: declare(2), "Bob": PASS})
    assert [(e.actor, e.data["position"]) for e in game.log if e.type == "cop_declared"] == [(first, 1), (second, None)]
    assert [(tuple(e.to), e.data["position"]) for e in game.log if e.type == "cop_look"] == [((first,), 1)]
    assert game.declarers == [first, second]
    bob = game.pending()[1]
    assert bob.player == "Bob" and bob.option("declare_cop").fields["position"].nullable
    reason = f"only the first declarer of the hand ({first}) looks at a centre card: declare with position null"
    assert refusal(game, "Bob", declare(1)) == reason
    assert refusal(game, "Bob", declare(None)) is None
    assert all("declare_cop" not in r.kinds for r in game.pending() if r.player != "Bob")
    assert refusal(game, second, declare(None)) == "you already declared cop this hand"


def _to_round_2(game: Game) -> None:
    step(game, {"Ann": PASS, "Bob": place("Ann"), "Cid": place("Ann")})  # Ann (mafia) dies


def test_trio_round_2_kill_soliloquy_continue() -> None:
    game = new("trio", TRIO, CENTRE)
    _to_round_2(game)
    assert game.pending()[0].kinds == ("pass", "kill", "place_card", "declare_cop")
    step(game, {"Bob": kill("Cid"), "Cid": PASS})
    (request,) = game.pending()
    assert (request.player, request.kinds, request.group, request.talk) == ("Cid", ("speak",), "soliloquy", "all")
    assert request.clock == Clock("beat", 11, 12)
    assert refusal(game, "Cid", kill("Bob")) == "no kills during a soliloquy"
    step(game, {"Cid": {"kind": "speak", "speech": "I am the cop!"}})
    for name in TRIO:  # the soliloquy is heard by the killer and the silent dead
        assert seen(game, name, "speech")[-1] == {"kind": "soliloquy", "text": "I am the cop!"}
    (request,) = game.pending()
    assert (request.player, request.kinds, request.talk) == ("Bob", ("continue", "retract"), None)
    assert request.group == "soliloquy_reply"
    assert request.default == Continue()
    step(game, {"Bob": {"kind": "continue"}})
    assert game.records[0]["deaths"][1] == {"player": "Cid", "by": ["Bob"], "cause": "kill"}
    assert game.records[0]["end"] == "kill"


def test_trio_retract_goes_on_with_the_next_beat() -> None:
    game = new("trio", TRIO, CENTRE)
    _to_round_2(game)
    step(game, {"Bob": PASS, "Cid": place("no_kill")})
    step(game, {"Bob": kill("Cid"), "Cid": PASS})  # beat 2; the soliloquy is beat 3
    step(game, {"Cid": {"kind": "speak", "speech": "Please."}})
    step(game, {"Bob": {"kind": "retract"}})
    assert game.phase == "round2" and game.beat == 4 and game.alive == ("Bob", "Cid")
    assert game.slots == {"Ann": None, "Bob": None, "Cid": "no_kill"}
    step(game, {"Bob": place("no_kill"), "Cid": PASS})
    assert game.records[0]["end"] == "no_kill"


def test_trio_same_beat_kills_are_judged_by_the_dead() -> None:
    game = new("trio", TRIO, CENTRE)
    _to_round_2(game)
    step(game, {"Bob": kill("Cid"), "Cid": kill("Bob")})
    (request,) = game.pending()
    assert (request.player, request.group, request.kinds, request.talk) == ("Ann", "judge", ("judge",), None)
    assert request.default is None  # no tie: a forfeit is a seeded draw
    assert set(request.option("judge").fields["first"].choices) == {"Bob", "Cid"}
    assert refusal(game, "Ann", kill("Bob")) == "you are dead: the dead cannot kill"
    assert refusal(game, "Ann", {"kind": "judge", "first": "Bob", "speech": "x"}) == (
        "you are dead: you stay silent until the end of the hand"
    )
    step(game, {"Ann": {"kind": "judge", "first": "Cid"}})
    assert game.slots == {"Ann": None, "Bob": None, "Cid": "Bob"}  # the second kill never happened
    assert [r.player for r in game.pending()] == ["Bob"]  # Cid killed first: Bob's soliloquy


def test_trio_kill_in_the_last_beat_dies_in_the_soliloquy_unasked() -> None:
    game = new("trio", TRIO, CENTRE, beats=2)
    _to_round_2(game)
    step(game, {"Bob": PASS, "Cid": PASS})
    step(game, {"Bob": PASS, "Cid": kill("Bob")})
    assert game.finished and game.pending() == []
    assert game.records[0]["end"] == "time_during_soliloquy"
    assert game.alive == ("Cid",)


def test_trio_refusals() -> None:
    game = new("trio", TRIO, CENTRE)
    assert refusal(game, "Ann", place("Ann")) == "you cannot place your card on yourself"
    assert refusal(game, "Ann", kill("Bob")) == ("in round 1 a kill takes two cards: place your card on a player (place_card)")
    assert refusal(game, "Ann", HS) == "trio has no handshake: put your card on no_kill"
    _to_round_2(game)
    assert refusal(game, "Bob", place("Cid")) == "in round 2 a card goes only on no_kill: kill Cid with the kill action"
    step(game, {"Bob": kill("Cid"), "Cid": PASS})
    step(game, {"Cid": {"kind": "speak", "speech": "Wait."}})
    assert refusal(game, "Bob", {"kind": "continue", "speech": "Sorry."}) == "Cid is giving a soliloquy: you may not speak now"
    assert refusal(game, "Bob", {"kind": "speak", "speech": "Sorry."}) == "Cid is giving a soliloquy: you may not speak now"


def test_trio_a_declaration_counts_for_scoring_even_without_a_look() -> None:
    game = new("trio", {"Ann": "townsperson", "Bob": "cop", "Cid": "townsperson"}, ["mafia", "mafia"])
    step(game, {"Ann": declare(1), "Bob": PASS, "Cid": PASS})
    step(game, {"Ann": PASS, "Bob": declare(None), "Cid": PASS})
    step(game, {n: place("no_kill") for n in game.seats})
    # Bob declared (second, no look): the cop with two TPs alive, 5 + bonus 1
    assert game.records[0]["points"] == {"Ann": 3 + 1, "Bob": 5 + 1, "Cid": 3 + 1}
