"""Every rule of docs/rules/classic.md, played through scripted players."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from arena.engine import RulesError
from arena.variants.classic import Classic, ClassicOptions
from tests.helpers import check, events, kill, no, scripted_game, speak, yes

SIX = {"Ann": "mafia", "Bob": "inspector", "Cid": "citizen", "Dee": "citizen", "Eve": "citizen", "Fay": "citizen"}
NINE = {
    "Ann": "mafia", "Bob": "inspector", "Cid": "citizen", "Dee": "citizen", "Eve": "mafia",
    "Fay": "citizen", "Gus": "citizen", "Hal": "mafia", "Ivy": "citizen",
}  # fmt: skip


def speeches(game):
    return [(e["actor"], e["data"]["kind"]) for e in events(game, "speech")]


@pytest.mark.parametrize(("players", "mafia"), [(6, 1), (7, 2), (10, 2), (11, 3), (14, 3), (15, 4), (18, 4)])
def test_default_deal(players: int, mafia: int) -> None:
    game = Classic([f"P{i}" for i in range(players)], seed=players)
    roles = list(game.role_of.values())
    assert roles.count("mafia") == mafia
    assert roles.count("inspector") == 1
    assert roles.count("citizen") == players - mafia - 1


def test_player_range_and_mafia_count_option() -> None:
    with pytest.raises(RulesError, match="6-18"):
        Classic([f"P{i}" for i in range(5)])
    game = Classic([f"P{i}" for i in range(9)], {"mafia_count": 3}, seed=1)
    assert list(game.role_of.values()).count("mafia") == 3


def test_config_lists_every_option_with_its_default() -> None:
    text = (Path(__file__).resolve().parent.parent / "configs" / "classic.toml").read_text()
    config = tomllib.loads(text)
    assert Classic.min_players <= config["players"] <= Classic.max_players
    # mafia_count's default (None: the page's formula) has no TOML spelling: it is listed commented out.
    assert "# mafia_count = " in text and "mafia_count" not in config["options"]
    assert set(config["options"]) | {"mafia_count"} == set(ClassicOptions.model_fields)
    assert ClassicOptions.model_validate(config["options"]) == ClassicOptions()


def test_deals_the_end_rule_has_already_decided_are_refused() -> None:
    seats = [f"P{i}" for i in range(6)]
    # 4 mafia against 2 town: the mafia would have won before the first night.
    with pytest.raises(RulesError, match="over before it starts"):
        Classic(seats, {"mafia_count": 4})
    # 3 against 3 plays by the seed's rule, but is already a mafia win with the parity house rule.
    assert Classic(seats, {"mafia_count": 3}).phase == "discussion"
    with pytest.raises(RulesError, match="over before it starts"):
        Classic(seats, {"mafia_count": 3, "mafia_wins_at_parity": True})
    # A given deal: no mafia (town has already won), too many mafia, or not exactly one inspector.
    with pytest.raises(RulesError, match="over before it starts"):
        Classic(list(SIX), deal={**SIX, "Ann": "citizen"})
    with pytest.raises(RulesError, match="over before it starts"):
        Classic(list(SIX), deal={**SIX, "Cid": "mafia", "Dee": "mafia", "Eve": "mafia"})
    with pytest.raises(RulesError, match="exactly one inspector, not 0"):
        Classic(list(SIX), deal={**SIX, "Bob": "citizen"})
    with pytest.raises(RulesError, match="exactly one inspector, not 2"):
        Classic(list(SIX), deal={**SIX, "Cid": "inspector"})


def test_first_night_mafia_meet_and_day_one_starts_at_first_seat() -> None:
    game, stop = scripted_game("classic", NINE, {})
    (team,) = events(game, "team")
    assert team["to"] == ["Ann", "Eve", "Hal"] and team["data"]["members"] == ["Ann", "Eve", "Hal"]
    assert not game.deaths and not events(game, "check_result")
    assert stop.player == "Ann" and stop.request.phase == "discussion" and game.day == 1


def test_charge_needs_more_than_half_of_potential_voters_then_discussion_resumes_after_accuser() -> None:
    # 9 players: Cid accused, 8 potential voters; 4 yes is exactly half -> cleared.
    answers = {
        "Ann": [speak("Cid is odd", accuse="Cid"), yes()],
        "Bob": [yes(), speak("I pass")],
        "Dee": [yes()], "Eve": [yes()], "Fay": [no()], "Gus": [no()], "Hal": [no()], "Ivy": [no()],
    }  # fmt: skip
    game, stop = scripted_game("classic", NINE, answers)
    (result,) = events(game, "vote_result")
    assert result["data"]["yes"] == ["Ann", "Bob", "Dee", "Eve"] and result["data"]["passed"] is False
    assert events(game, "cleared")[0]["data"]["player"] == "Cid"
    # Bob (after the accuser Ann) spoke next, then Cid is asked.
    assert speeches(game) == [("Ann", "discussion"), ("Bob", "discussion")]
    assert stop.player == "Cid" and stop.request.phase == "discussion"


def test_charge_defence_floor_execution_and_night_falls_at_once() -> None:
    answers = {
        "Ann": [speak(accuse="Cid"), yes(), yes(), speak("Bob, I trust you?"), kill("Bob")],
        "Bob": [yes(), speak("Hmm"), yes(), check("Ann")],
        "Cid": [speak("Not me!", floor=["Eve", "Bob"])],
        "Dee": [yes(), yes()], "Eve": [no(), speak("Cid is fine"), no()], "Fay": [no(), no()],
    }  # fmt: skip
    game, stop = scripted_game("classic", SIX, answers)
    assert speeches(game) == [("Ann", "discussion"), ("Cid", "defence"), ("Eve", "floor"), ("Bob", "floor")]
    charge, execution = events(game, "vote_result")
    assert charge["data"]["vote"] == "charge" and charge["data"]["passed"]  # 3 of 5
    assert execution["data"]["vote"] == "execution" and execution["data"]["passed"]
    assert game.deaths[0].to_dict() == {"player": "Cid", "cause": "execution", "day": 1}
    assert "role" not in events(game, "death")[0]["data"]  # the card stays hidden
    # Night 1 follows at once: Ann shoots Bob (one mafia always kills), Bob's check still happens.
    assert [d.player for d in game.deaths] == ["Cid", "Bob"]
    assert [e["data"]["number"] for e in events(game, "night")] == [0, 1]  # night N follows day N
    assert events(game, "morning")[0]["data"] == {"number": 2, "killed": ["Bob"]}  # the morning of day 2
    assert events(game, "check_result")[0]["data"] == {"target": "Ann", "result": "mafia"}
    assert events(game, "check_result")[0]["to"] == ["Bob"]
    assert stop.request.phase == "discussion" and game.day == 2
    # Day 2 starts one living seat further than day 1 (Ann -> Bob, who is dead -> Dee).
    assert stop.player == "Dee"


def test_failed_execution_resumes_with_speaker_after_accuser_and_same_player_accused_again() -> None:
    answers = {
        "Ann": [speak(), yes(), no(), yes(), yes()],
        "Bob": [speak(accuse="Dee"), yes(), no(), yes(), yes()],
        "Cid": [yes(), no(), speak(accuse="Dee"), yes(), yes()],
        "Dee": [speak("I am innocent"), speak("Again innocent")],
        "Eve": [yes(), no(), yes(), yes()], "Fay": [no(), no(), no(), no()],
    }  # fmt: skip
    game, stop = scripted_game("classic", SIX, answers)
    votes = [(v["data"]["vote"], v["data"]["passed"]) for v in events(game, "vote_result")]
    assert votes == [("charge", True), ("execution", False), ("charge", True), ("execution", True)]
    assert events(game, "spared")[0]["data"]["player"] == "Dee"
    assert speeches(game)[:4] == [("Ann", "discussion"), ("Bob", "discussion"), ("Dee", "defence"), ("Cid", "discussion")]
    assert game.deaths[0].player == "Dee"
    assert stop.player == "Ann" and stop.request.phase == "night"


def test_referee_lot_after_the_discussion_rounds() -> None:
    quiet = {name: [speak("nothing to add")] for name in SIX}
    game, stop = scripted_game("classic", SIX, quiet, {"discussion_rounds": 1}, seed=3)
    (lot,) = events(game, "lot")
    victim = lot["data"]["player"]
    assert stop.player == victim and stop.request.phase == "lot_last_words"
    assert stop.request.options[0].fields == {}  # last words: no accusation, no floor
    answers = {name: [speak("nothing to add")] for name in SIX}
    answers[victim].append(speak("Goodbye"))
    game, _ = scripted_game("classic", SIX, answers, {"discussion_rounds": 1}, seed=3)
    assert game.deaths[0].to_dict() == {"player": victim, "cause": "lot", "day": 1}
    assert speeches(game)[-1] == (victim, "last_words")
    assert "role" not in events(game, "death")[0]["data"]  # the card stays hidden
    game, _ = scripted_game("classic", SIX, answers, {"discussion_rounds": 1, "reveal_on_death": True}, seed=3)
    assert events(game, "death")[0]["data"]["role"] == SIX[victim]


def test_defences_and_floor_speeches_do_not_count_as_discussion_turns() -> None:
    answers = {
        "Ann": [speak(accuse="Dee"), yes(), no()],
        "Bob": [yes(), no(), speak()],
        "Cid": [yes(), no(), speak()],
        "Dee": [speak(floor=["Fay"]), speak()],
        "Eve": [yes(), no(), speak()],
        "Fay": [no(), speak("Dee is fine"), no(), speak()],
    }  # fmt: skip
    game, stop = scripted_game("classic", SIX, answers, {"discussion_rounds": 1})
    # 6 discussion turns: Ann, Bob, Cid, Dee, Eve, Fay; the defence and the floor speech did not count.
    kinds = [k for _, k in speeches(game)]
    assert kinds.count("discussion") == 6 and kinds.count("defence") == 1 and kinds.count("floor") == 1
    assert events(game, "lot") and stop.request.phase == "lot_last_words"


def test_a_failed_trial_on_the_last_discussion_turn_goes_to_the_lot() -> None:
    # One round of six turns; Fay's accusation uses the last one, the charge fails: the lot, no more talk.
    answers = {n: [speak()] for n in SIX}
    answers["Fay"] = [speak(accuse="Ann"), no()]
    for name in ("Bob", "Cid", "Dee", "Eve"):
        answers[name].append(no())
    answers["Ann"] = [speak()]
    game, stop = scripted_game("classic", SIX, answers, {"discussion_rounds": 1}, seed=3)
    assert [k for _, k in speeches(game)] == ["discussion"] * 6
    assert events(game, "cleared")[0]["data"]["player"] == "Ann"
    (lot,) = events(game, "lot")
    assert stop.player == lot["data"]["player"] and stop.request.phase == "lot_last_words"


def test_a_discussion_round_counts_the_living_only() -> None:
    # Day 1 executes Cid, the night kills Dee: day 2 has four living players, so four turns make a round.
    answers = {
        "Ann": [speak(accuse="Cid"), yes(), yes(), kill("Dee"), speak()],
        "Bob": [yes(), yes(), check("Eve"), speak()],
        "Cid": [speak()],
        "Dee": [yes(), yes()], "Eve": [no(), no(), speak()], "Fay": [no(), no(), speak()],
    }  # fmt: skip
    game, stop = scripted_game("classic", SIX, answers, {"discussion_rounds": 1})
    day2 = [e["actor"] for e in events(game, "speech") if e["day"] == 2]
    assert day2 == ["Bob", "Eve", "Fay", "Ann"]
    assert events(game, "lot") and stop.request.phase == "lot_last_words"
    assert game.turns_total == 4


@pytest.mark.parametrize(
    ("shots", "victim"),
    [
        ({"Ann": "Cid", "Eve": "Cid", "Hal": None}, "Cid"),  # 2 of 3
        ({"Ann": "Cid", "Eve": "Dee", "Hal": None}, None),  # no majority
        ({"Ann": "Cid", "Eve": "Dee", "Hal": "Fay"}, None),
        ({"Ann": "Hal", "Eve": "Hal", "Hal": "Cid"}, "Hal"),  # shooting a fellow member is allowed
    ],
)
def test_three_mafia_need_two_shots_on_the_same_player(shots, victim) -> None:
    answers = {name: [speak(accuse="Gus") if name == "Ann" else yes()] for name in NINE}
    answers["Gus"] = [speak()]
    for name in NINE:
        if name not in ("Gus", "Ann"):
            answers[name].append(yes())
    answers["Ann"] += [yes(), yes(), kill(shots["Ann"])]
    answers["Eve"].append(kill(shots["Eve"]))
    answers["Hal"].append(kill(shots["Hal"]))
    answers["Bob"].append(check("Cid"))
    game, _ = scripted_game("classic", NINE, answers)
    night_deaths = [d.player for d in game.deaths if d.cause == "mafia"]
    assert night_deaths == ([victim] if victim else [])
    assert events(game, "morning")[0]["data"]["killed"] == night_deaths


def test_two_mafia_must_agree() -> None:
    deal = {"Ann": "mafia", "Bob": "inspector", "Cid": "citizen", "Dee": "mafia", "Eve": "citizen",
            "Fay": "citizen", "Gus": "citizen"}  # fmt: skip
    answers = {n: [yes(), yes()] for n in deal}
    answers["Ann"] = [speak(accuse="Gus"), yes(), yes(), kill("Cid")]
    answers["Gus"] = [speak()]
    answers["Dee"] += [kill("Eve")]
    answers["Bob"] += [check("Dee")]
    game, _ = scripted_game("classic", deal, answers)
    assert [d.player for d in game.deaths] == ["Gus"]
    assert events(game, "check_result")[0]["data"]["result"] == "mafia"


def _endgame(deal, shots, options=None):
    """Execute the first citizen on day 1, then play the night with ``shots``."""
    answers = {n: [yes(), yes()] for n in deal}
    first = next(iter(deal))
    victim = next(n for n, r in deal.items() if r == "citizen")
    answers[first] = [speak(accuse=victim), yes(), yes()]
    answers[victim] = [speak()]
    for shooter, target in shots.items():
        answers[shooter].append(kill(target))
    for name, role in deal.items():
        if role == "inspector":
            answers[name].append(check(first))
    return scripted_game("classic", deal, answers, options)


def test_mafia_wins_below_not_at_parity() -> None:
    deal = {"Ann": "mafia", "Bob": "mafia", "Cid": "citizen", "Dee": "citizen", "Eve": "inspector",
            "Fay": "citizen"}  # fmt: skip
    # Day 1 executes Cid (2 mafia vs 3 town), the night kills Dee: 2 v 2 = parity -> the game goes on.
    game, stop = _endgame(deal, {"Ann": "Dee", "Bob": "Dee"})
    assert not game.finished and stop.request.phase == "discussion"
    game, _ = _endgame(deal, {"Ann": "Dee", "Bob": "Dee"}, {"mafia_wins_at_parity": True})
    assert game.finished and game.winner == "mafia"
    # Below: 2 mafia, 1 town after the night.
    deal5 = {"Ann": "mafia", "Bob": "mafia", "Cid": "citizen", "Dee": "citizen", "Eve": "inspector",
             "Fay": "citizen", "Gus": "citizen"}  # fmt: skip
    answers = {n: [yes(), yes()] for n in deal5}
    # Day 2 opens one living seat further: Bob accuses Fay.
    answers["Ann"] = [speak(accuse="Cid"), yes(), yes(), kill("Dee"), yes(), yes(), kill("Gus")]
    answers["Bob"] = [yes(), yes(), kill("Dee"), speak(accuse="Fay"), yes(), yes(), kill("Gus")]
    answers["Cid"] = [speak()]
    answers["Eve"] = [yes(), yes(), check("Gus"), yes(), yes(), check("Ann")]
    answers["Fay"] = [yes(), yes(), speak("me?")]
    answers["Gus"] = [yes(), yes(), yes(), yes()]
    game, _ = scripted_game("classic", deal5, answers)
    assert game.winner == "mafia" and game.alive == ("Ann", "Bob", "Eve")
    assert game.summary()["deaths"][-1] == {"player": "Gus", "cause": "mafia", "day": 2}


def test_town_wins_when_no_mafia_is_left() -> None:
    answers = {n: [yes(), yes()] for n in SIX}
    answers["Bob"] = [speak(accuse="Ann"), yes(), yes()]
    answers["Ann"] = [speak("hello"), speak("No!")]
    game, _ = scripted_game("classic", SIX, answers)
    assert game.finished and game.winner == "town" and game.deaths[0].player == "Ann"
    over = events(game, "game_over")[0]
    assert over["audience"] == "all" and over["data"]["roles"]["Ann"] == "mafia"


def test_max_days_ends_in_a_draw() -> None:
    answers = {n: [yes(), yes()] for n in NINE}
    answers["Ann"] = [speak(accuse="Cid"), yes(), yes()]
    answers["Cid"] = [speak()]
    game, _ = scripted_game("classic", NINE, answers, {"max_days": 1})
    assert game.finished and game.winner == "draw" and game.end_reason == "max_days"


def test_rejections_have_precise_reasons_and_retries_then_forfeit() -> None:
    answers = {
        "Ann": [
            speak(accuse="Ann"),  # self
            speak(accuse="Zed"),  # unknown
            {"kind": "vote", "target": "Bob"},  # wrong kind
        ],
    }
    game, stop = scripted_game("classic", SIX, answers)
    reasons = [e["data"]["reason"] for e in events(game, "rejected")]
    assert reasons[0].startswith("you cannot name yourself as accuse")
    assert reasons[1].startswith("there is no player named 'Zed'")
    assert reasons[2] == "'vote' is not allowed now; legal: speak"
    (forfeit,) = events(game, "forfeit")
    assert forfeit["actor"] == "Ann" and forfeit["data"]["action"] == {"kind": "speak"}
    assert forfeit["data"]["why"] == "3 rejected answers"
    assert stop.player == "Bob"  # the forfeited (silent) turn passed the word on


def test_silent_votes_speech_limit_self_shot_and_dead_targets() -> None:
    answers = {
        "Ann": [speak(accuse="Cid"), {"kind": "verdict", "yes": True, "speech": "hang him"}, yes(), yes(),
                kill("Ann"), kill("Cid"), kill("Dee")],
        "Bob": [yes(), yes(), check("Cid"), check("Bob"), check("Eve")],
        "Cid": [speak("x" * 601), speak("fine", accuse="Bob"), speak("bye")],
        "Dee": [yes(), yes()], "Eve": [no(), no()], "Fay": [no(), no()],
    }  # fmt: skip
    game, _ = scripted_game("classic", SIX, answers)
    reasons = [(e["actor"], e["data"]["reason"]) for e in events(game, "rejected")]
    assert reasons == [
        ("Ann", "this decision is silent: no speech allowed"),
        ("Cid", "speech is 601 characters; the limit is 600"),
        ("Cid", "'accuse' is not allowed in this decision"),
        ("Ann", "nobody may shoot himself"),
        ("Ann", "Cid is dead; legal: Bob, Dee, Eve, Fay"),
        ("Bob", "Cid is dead; legal: Ann, Dee, Eve, Fay"),
        ("Bob", "you know your own card: check someone else"),
    ]
    assert [d.player for d in game.deaths] == ["Cid", "Dee"]


def test_floor_limits() -> None:
    answers = {
        "Ann": [speak(accuse="Cid"), yes()],
        "Cid": [speak(floor=["Bob", "Dee", "Eve"]), speak(floor=["Cid"]), speak(floor=["Bob", "Bob"]), speak(floor=["Bob"])],
        "Bob": [yes()], "Dee": [yes()], "Eve": [no()], "Fay": [no()],
    }  # fmt: skip
    game, stop = scripted_game("classic", SIX, answers, {"retries": 3})
    reasons = [e["data"]["reason"] for e in events(game, "rejected")]
    assert reasons[0] == "the floor goes to at most 2 players, not 3"
    assert reasons[1].startswith("you cannot name yourself as floor")
    assert reasons[2] == "the floor names a player twice"
    assert stop.player == "Bob" and stop.request.phase == "floor"


def test_dead_players_are_never_asked() -> None:
    answers = {n: [yes(), yes()] for n in SIX}
    answers["Ann"] = [speak(accuse="Cid"), yes(), yes(), kill("Dee")]
    answers["Cid"] = [speak()]
    answers["Bob"] += [check("Eve")]
    game, stop = scripted_game("classic", SIX, answers)
    asked = {e.actor for e in game.log if e.type == "action" and e.day == 2}
    assert not asked & {"Cid", "Dee"}
    assert stop.player == "Bob"  # day 2 starts one living seat further than Ann
