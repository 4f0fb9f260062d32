"""``cove`` (docs/rules/cove.md): every rule of the page, its worked examples, hidden information,
and random games at every table size."""

from __future__ import annotations

import json
import random
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from pydantic import ValidationError

from arena.engine import ActionBase, Decision, DecisionRequest, Game, RulesError
from arena.engine.actions import Check, Heal, Kill, Pass, Speak, Verdict, Visit, Vote
from arena.engine.game import ABSTAIN, NO, SPEAK_SILENT
from arena.players.random import RandomPlayer
from arena.players.scripted import OutOfAnswers, ScriptedPlayer
from arena.run.orchestrator import run_sync
from arena.run.scenario import run_scenario
from arena.variants import get_variant
from arena.variants.cove import DEFAULT_MAFIA, SAVED_MISTRESS, Cove, CoveOptions

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "tests" / "scenarios"

SEATS = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fox", "Gus")
#: Ann and Bob mafia, Cat maniac, Dan mistress, Eve detective, Fox doctor, Gus civilian
DEAL = dict(zip(SEATS, ("mafia", "mafia", "maniac", "mistress", "detective", "doctor", "civilian"), strict=True))
#: ten seats, three mafia (Ann, Bob, Cat), for pointing counts
SEATS10 = (*SEATS, "Hal", "Ivy", "Jon")
DEAL10 = {
    "Ann": "mafia", "Bob": "mafia", "Cat": "mafia", "Dan": "maniac", "Eve": "mistress", "Fox": "detective",
    "Gus": "doctor", "Hal": "civilian", "Ivy": "civilian", "Jon": "civilian",
}  # fmt: skip


# ---- driving a game ---------------------------------------------------------------------------
def new(deal: dict[str, str] = DEAL, seed: int = 0, **options: object) -> Cove:
    """A scripted table: speeches in the fixed rotating order unless ``speaking_order`` says."""
    return Cove(list(deal), {"speaking_order": "rotate", **options}, seed, deal=deal)


def drive(game: Game, **scripts: ActionBase | list[ActionBase]) -> None:
    """Answer whole batches from per-player scripts until a batch needs an unscripted player.

    Every scripted action must be legal and every script must be used up: a test that scripts
    something the game never asks fails here instead of passing silently.
    """
    queues = {n: list(a) if isinstance(a, list) else [a] for n, a in scripts.items()}
    while not game.finished:
        pending = game.pending()
        if any(not queues.get(r.player) for r in pending):
            break
        decisions = []
        for request in pending:
            action = queues[request.player].pop(0)
            reason = game.validate(request, action)
            assert reason is None, f"{request.player} in {request.phase}: {reason}"
            decisions.append(Decision(request, action))
        game.resolve(decisions)
    assert not any(queues.values()), f"unused answers: { {n: q for n, q in queues.items() if q} }"


def night(
    game: Cove,
    *,
    visit: str | None = None,
    mafia: str | dict[str, str] | None = None,
    maniac: str | None = None,
    check: str | None = None,
    heal: str | None = None,
) -> None:
    """One night: each living role holder answers (``mafia``: one target for all, or by member)."""
    scripts: dict[str, ActionBase] = {}
    for role, target, kind in (("mistress", visit, Visit), ("maniac", maniac, Kill), ("detective", check, Check),
                               ("doctor", heal, Heal)):  # fmt: skip
        for name in game.living(role):
            scripts[name] = kind(target=target)
    for member in game.living("mafia"):
        scripts[member] = Kill(target=mafia if isinstance(mafia, str) or mafia is None else mafia[member])
    assert game.phase == "night"
    drive(game, **scripts)
    assert game.phase != "night" and game.phase != "mafia_channel"


def day(game: Cove, nominate: dict[str, str | None], votes: dict[str, str | None]) -> None:
    """Speeches with these nominations (every living player), then the first vote."""
    drive(game, **{n: Speak(nominate=t) for n, t in nominate.items()})
    assert game.phase == "vote"
    drive(game, **{n: Vote(target=t) for n, t in votes.items()})


def pending(game: Game, name: str) -> DecisionRequest:
    (request,) = [r for r in game.pending() if r.player == name]
    return request


def reason(game: Game, name: str, action: ActionBase) -> str | None:
    return game.validate(pending(game, name), action)


def events(game: Game, type_: str) -> list[dict]:
    return [e.data for e in game.log if e.type == type_]


def mornings(game: Game) -> list[dict]:
    return events(game, "morning")


def causes(game: Game) -> dict[str, str]:
    return {d.player: d.cause for d in game.deaths}


def checks(game: Game) -> list[tuple[str, str]]:
    return [(e["target"], e["result"]) for e in events(game, "check_result")]


def three_left() -> Cove:
    """A game at the start of night 2 with Ann (mafia), Cat (maniac) and Dan (mistress) alive;
    Dan visited Ann on night 1."""
    game = new()
    night(game, visit="Ann", mafia={"Ann": "Fox", "Bob": "Gus"}, maniac="Eve", check="Bob", heal="Fox")
    assert set(game.alive) == {"Ann", "Bob", "Cat", "Dan", "Fox"}  # Gus (mafia), Eve (maniac)
    drive(game, **{n: Speak(nominate=t) for n, t in
                   {"Bob": "Fox", "Cat": "Bob", "Dan": "Bob", "Fox": "Bob", "Ann": "Fox"}.items()})  # fmt: skip
    drive(game, Ann=Vote(target="Fox"), Bob=Vote(target="Fox"), Cat=Vote(target="Bob"), Dan=Vote(target="Bob"),
          Fox=ABSTAIN)  # fmt: skip
    drive(game, Bob=Speak(), Fox=Speak())  # the runoff speeches
    drive(game, Ann=Vote(target="Fox"), Bob=Vote(target="Fox"), Cat=Vote(target="Bob"), Dan=Vote(target="Bob"),
          Fox=ABSTAIN)  # fmt: skip
    drive(game, **{n: Verdict(yes=n != "Bob") for n in game.alive})
    drive(game, Bob=Speak(), Fox=Speak())  # last words
    assert game.alive == ("Ann", "Cat", "Dan") and game.phase == "night" and game.day == 2
    return game


# ---- deal, options, config ----------------------------------------------------------------------
@pytest.mark.parametrize("players", range(7, 15))
def test_default_deal_by_player_count(players: int) -> None:
    game = Cove([f"P{i}" for i in range(players)], seed=players)
    cards = Counter(game.role_of.values())
    assert cards["mafia"] == DEFAULT_MAFIA[players] == (2 if players <= 9 else 3 if players <= 12 else 4)
    assert all(cards[r] == 1 for r in ("maniac", "mistress", "detective", "doctor"))
    assert cards["civilian"] == players - cards["mafia"] - 4


def test_deal_overrides() -> None:
    seats = [f"P{i}" for i in range(10)]
    assert Counter(Cove(seats, {"mafia_by_players": {10: 2}}).role_of.values())["mafia"] == 2
    assert Counter(Cove([*seats, "P10"], {"mafia_by_players": {10: 2}}).role_of.values())["mafia"] == 3
    cards = Counter(Cove(seats, {"special_roles": ["maniac", "detective"]}).role_of.values())
    assert (cards["mistress"], cards["doctor"], cards["civilian"]) == (0, 0, 5)
    with pytest.raises(ValidationError):
        CoveOptions(mafia_by_players={15: 3})
    with pytest.raises(ValidationError):
        CoveOptions(mafia_by_players={9: 0})
    with pytest.raises(ValidationError):
        CoveOptions(special_roles=["doctor", "doctor"])
    with pytest.raises(ValidationError):
        CoveOptions(first_phase="dusk")
    with pytest.raises(RulesError, match="over before it starts"):
        Cove(seats[:8], {"mafia_by_players": {8: 4}})
    with pytest.raises(RulesError, match="do not fit"):
        Cove(seats[:7], {"mafia_by_players": {7: 4}})
    with pytest.raises(RulesError, match="at most once"):
        new({**DEAL, "Gus": "doctor"})
    with pytest.raises(RulesError, match="over before it starts"):
        new({**DEAL, "Ann": "civilian", "Bob": "civilian"})


def test_config_lists_every_option_with_its_default() -> None:
    data = tomllib.loads((ROOT / "configs" / "cove.toml").read_text())
    assert data["players"] == Cove.default_players == 10
    assert set(data) <= {"players", "options"}
    assert set(data["options"]) == set(CoveOptions.model_fields)
    assert CoveOptions.model_validate(data["options"]) == CoveOptions()
    assert get_variant("cove") is Cove


def test_roles_teams_and_the_mafia_know_each_other() -> None:
    game = new()
    assert {n: game.team(n) for n in SEATS} == {
        "Ann": "mafia", "Bob": "mafia", "Cat": "maniac", "Dan": "town", "Eve": "town", "Fox": "town", "Gus": "town",
    }  # fmt: skip
    for name in SEATS:
        seen = game.view(name).events
        assert [e.data["role"] for e in seen if e.type == "role"] == [DEAL[name]]
        teams = [e.data["members"] for e in seen if e.type == "team"]
        assert teams == ([["Ann", "Bob"]] if DEAL[name] == "mafia" else [])


# ---- numbering and the first phase ---------------------------------------------------------------
def test_night_n_precedes_day_n() -> None:
    game = new()
    assert [e.type for e in game.log if e.type in ("night", "day")] == ["night"]
    assert events(game, "night") == [{"number": 1}] and game.day == 1
    night(game, visit="Gus", mafia="Eve", maniac="Fox", check="Ann", heal="Eve")
    assert mornings(game)[0]["number"] == 1 and events(game, "day")[0]["number"] == 1
    assert causes(game) == {"Fox": "maniac"} and game.deaths[0].day == 1
    day(game, {"Ann": "Bob", "Bob": "Cat", "Cat": "Bob", "Dan": "Bob", "Eve": "Bob", "Gus": "Bob"},
        {n: "Bob" for n in ("Ann", "Bob", "Cat", "Dan", "Eve", "Gus")})  # fmt: skip
    drive(game, Bob=Speak())
    assert game.deaths[-1].day == 1 and events(game, "night")[-1] == {"number": 2} and game.day == 2


def test_first_phase_day_opens_with_day_1_and_no_immune() -> None:
    game = new(first_phase="day")
    assert [e.type for e in game.log if e.type in ("night", "day")] == ["day"]
    assert game.day == 1 and game.phase == "speeches" and pending(game, "Ann").info["immune"] is None
    assert reason(game, "Ann", Speak(nominate="Gus")) is None
    assert Cove.first_phase == "start" and CoveOptions().first_phase == "night"


# ---- the night: asking ---------------------------------------------------------------------------
def test_night_batch_then_the_mafia_channel_in_seat_order() -> None:
    game = new()
    batch = {r.player: r.group for r in game.pending()}
    assert batch == {"Dan": "visit", "Cat": "night_kill", "Eve": "check", "Fox": "heal"}
    drive(game, Dan=Visit(target="Gus"), Cat=Kill(target="Eve"), Eve=Check(target="Ann"), Fox=Heal(target="Fox"))
    first = pending(game, "Ann")
    assert [r.player for r in game.pending()] == ["Ann"] and first.group == "mafia_channel"
    assert first.talk == "team:mafia" and first.default is None
    assert first.options[0].fields["target"].choices == ("Cat", "Dan", "Eve", "Fox", "Gus")
    assert reason(game, "Ann", Kill(target="Bob")) == "Bob is in the mafia: name a living non-mafia player"
    assert reason(game, "Ann", Kill(target="Ann")) == "you cannot kill yourself: name a living non-mafia player"
    drive(game, Ann=Kill(target="Eve", speech="the detective, I think"))
    assert [r.player for r in game.pending()] == ["Bob"]
    (said,) = [e for e in game.view("Bob").events if e.type == "speech"]
    assert said.actor == "Ann" and said.data == {"kind": "channel", "text": "the detective, I think", "target": "Eve"}
    assert said.to == frozenset({"Ann", "Bob"})
    drive(game, Bob=Kill(target="Gus"))
    assert game.phase == "speeches"


@pytest.mark.parametrize("frozen_player", ["Ann", "Cat", "Eve", "Fox"])
def test_frozen_players_are_asked_like_everyone_else(frozen_player: str) -> None:
    """The same night with and without a freeze: every request and every event any player but the
    mistress sees before dawn is the same (request ids included)."""

    def up_to_dawn(visit: str) -> tuple[Cove, dict[str, list]]:
        game = new(seed=3)
        asked: dict[str, list] = {}
        for r in game.pending():
            asked.setdefault(r.player, []).append(r)
        drive(game, Dan=Visit(target=visit), Cat=Kill(target="Gus"), Eve=Check(target="Bob"), Fox=Heal(target="Gus"))
        asked.setdefault("Ann", []).append(pending(game, "Ann"))
        drive(game, Ann=Kill(target="Gus"))
        asked.setdefault("Bob", []).append(pending(game, "Bob"))
        return game, asked

    frozen_game, frozen = up_to_dawn(frozen_player)
    plain_game, plain = up_to_dawn("Gus")
    for name in ("Ann", "Bob", "Cat", "Eve", "Fox"):  # everyone but the mistress herself
        assert frozen[name] == plain[name]
        assert [(e.type, e.data, e.to) for e in frozen_game.view(name).events] == [
            (e.type, e.data, e.to) for e in plain_game.view(name).events
        ]


def test_nobody_may_skip_a_night_action() -> None:
    game = new()
    for name, kind in (("Dan", "visit"), ("Cat", "kill"), ("Eve", "check"), ("Fox", "heal")):
        request = pending(game, name)
        legal = ", ".join(request.options[0].fields["target"].choices)
        assert request.default is None
        assert reason(game, name, Pass()) == f"nobody may skip a night action: {kind} one of {legal}"
        forfeit = game.default_action(request)
        assert forfeit.kind == kind and game.validate(request, forfeit) is None
        with pytest.raises(ValidationError):
            request.parse({"kind": kind, "target": None})  # the model-facing schema refuses null too
    assert reason(game, "Cat", Kill(target=None)) == "nobody may skip a night action: kill one of Ann, Bob, Dan, Eve, Fox, Gus"
    drive(game, Dan=Visit(target="Gus"), Cat=Kill(target="Eve"), Eve=Check(target="Ann"), Fox=Heal(target="Fox"))
    assert reason(game, "Ann", Pass()) == "nobody may skip a night action: kill one of Cat, Dan, Eve, Fox, Gus"
    assert reason(game, "Ann", Kill(target=None)) == "nobody may skip a night action: kill one of Cat, Dan, Eve, Fox, Gus"


def test_null_targets_from_a_player_are_rejected_then_forfeited() -> None:
    game = new()
    nulls = {"Dan": {"kind": "visit", "target": None}, "Fox": {"kind": "heal", "target": None},
             "Eve": {"kind": "check", "target": None}, "Cat": {"kind": "kill", "target": None}}  # fmt: skip
    scripts = {n: [a, {"kind": "pass"}, a] for n, a in nulls.items()}
    players = {n: ScriptedPlayer(n, scripts.get(n, [])) for n in SEATS}
    with pytest.raises(OutOfAnswers) as stop:
        run_sync(game, players)
    assert stop.value.player == "Ann" and stop.value.request.group == "mafia_channel"
    rejected = [(e.actor, e.data["reason"]) for e in game.log if e.type == "rejected"]
    assert len(rejected) == 12
    for name in nulls:
        reasons = [r for who, r in rejected if who == name]
        assert reasons[1].startswith("nobody may skip a night action: ")
        if name == "Cat":
            assert reasons[0] == reasons[1] == reasons[2]
        else:
            kind = nulls[name]["kind"]
            assert reasons[0] == reasons[2] == f"not a valid action: {kind}.target: Input should be a valid string"
    forfeits = [e for e in game.log if e.type == "forfeit"]
    assert sorted(e.actor for e in forfeits) == ["Cat", "Dan", "Eve", "Fox"]
    assert all(e.data["action"].target is not None for e in forfeits)


# ---- the mistress -------------------------------------------------------------------------------
def test_mistress_cannot_visit_herself_or_the_same_player_two_nights_running() -> None:
    game = new()
    assert reason(game, "Dan", Visit(target="Dan")) == "you cannot visit yourself"
    night(game, visit="Gus", mafia="Eve", maniac="Fox", check="Ann", heal="Eve")
    day(game, {"Ann": "Bob", "Bob": "Cat", "Cat": "Bob", "Dan": "Bob", "Eve": "Bob", "Gus": "Bob"},
        dict.fromkeys(("Ann", "Bob", "Cat", "Dan", "Eve", "Gus")))  # no votes: nobody leaves  # fmt: skip
    assert game.phase == "night" and len(game.alive) == 6
    assert reason(game, "Dan", Visit(target="Gus")) == (
        "you visited Gus last night; you may not visit the same player two nights running"
    )
    assert reason(game, "Dan", Visit(target="Ann")) is None


def test_repeat_visit_allowed_on_a_night_that_begins_with_three_alive() -> None:
    game = three_left()
    assert pending(game, "Dan").options[0].fields["target"].choices == ("Ann", "Cat")
    night(game, visit="Ann", mafia="Cat", maniac="Dan")
    # Ann, the only mafia member, is frozen: no mafia kill; the maniac kills the mistress and Ann dies with her
    assert causes(game) == {
        "Gus": "mafia", "Eve": "maniac", "Bob": "vote", "Fox": "vote", "Dan": "maniac", "Ann": "mistress",
    }  # fmt: skip
    assert game.finished and game.winner == "maniac" and game.alive == ("Cat",)  # the maniac alone


def test_client_is_protected_frozen_and_immune() -> None:
    game = new()
    night(game, visit="Gus", mafia="Gus", maniac="Gus", check="Ann", heal="Eve")
    assert game.deaths == [] and mornings(game) == [{"number": 1, "killed": [], "immune": "Gus"}]
    assert reason(game, "Ann", Speak(nominate="Gus")) == "Gus is immune today and cannot be nominated"
    # a frozen mafia member's pointing does not count
    game = new()
    night(game, visit="Ann", mafia={"Ann": "Eve", "Bob": "Gus"}, maniac="Ann", check="Cat", heal="Fox")
    assert causes(game) == {"Gus": "mafia"}  # Ann was protected from the maniac, Eve never named
    assert mornings(game)[0]["immune"] == "Ann"


def test_the_immune_speaker_is_told_so_as_themselves() -> None:
    """Not '(not yourself; not Ann, immune today)' to Ann: she reads 'you are immune today'."""
    game = new()
    night(game, visit="Ann", mafia={"Ann": "Eve", "Bob": "Gus"}, maniac="Ann", check="Cat", heal="Fox")
    assert mornings(game)[0]["immune"] == "Ann"
    asked: dict[str, str] = {}
    while "Ann" not in asked:
        (request,) = game.pending()
        asked[request.player] = request.question
        target = next(n for n in game.alive if n not in (request.player, "Ann"))
        game.resolve([Decision(request, Speak(nominate=target))])
    assert "(not yourself; you are immune today)" in asked["Ann"] and "not Ann" not in asked["Ann"]
    assert all("(not yourself; not Ann, immune today)" in q for who, q in asked.items() if who != "Ann")


def test_immunity_lasts_one_day() -> None:
    game = new()
    night(game, visit="Gus", mafia="Eve", maniac="Fox", check="Ann", heal="Eve")
    day(game, {"Ann": "Bob", "Bob": "Cat", "Cat": "Bob", "Dan": "Bob", "Eve": "Bob", "Gus": "Bob"},
        dict.fromkeys(("Ann", "Bob", "Cat", "Dan", "Eve", "Gus")))  # fmt: skip
    night(game, visit="Eve", mafia="Eve", maniac="Eve", check="Ann")  # the doctor died on night 1
    assert mornings(game)[1] == {"number": 2, "killed": [], "immune": "Eve"}
    assert reason(game, "Bob", Speak(nominate="Gus")) is None
    assert reason(game, "Bob", Speak(nominate="Eve")) == "Eve is immune today and cannot be nominated"


# ---- the mafia ----------------------------------------------------------------------------------
def test_most_named_target_is_the_victim() -> None:
    game = new(DEAL10)
    night(game, visit="Hal", mafia={"Ann": "Jon", "Bob": "Ivy", "Cat": "Ivy"}, maniac="Hal", check="Ann", heal="Fox")
    assert causes(game) == {"Ivy": "mafia"}


def test_a_tie_among_the_mafia_is_a_seeded_draw() -> None:
    victims = {}
    for seed in range(16):
        game = new(seed=seed)
        night(game, visit="Fox", mafia={"Ann": "Eve", "Bob": "Gus"}, maniac="Fox", check="Ann", heal="Cat")
        (victims[seed],) = causes(game)
        assert victims[seed] == ["Eve", "Gus"][random.Random(seed).randrange(2)]  # the tied in seat order
        again = new(seed=seed)
        night(again, visit="Fox", mafia={"Ann": "Eve", "Bob": "Gus"}, maniac="Fox", check="Ann", heal="Cat")
        assert causes(again) == causes(game)
    assert set(victims.values()) == {"Eve", "Gus"}
    # a frozen member's pointing cannot make a tie
    game = new()
    night(game, visit="Bob", mafia={"Ann": "Eve", "Bob": "Gus"}, maniac="Bob", check="Ann", heal="Cat")
    assert causes(game) == {"Eve": "mafia"}


def test_no_mafia_kill_when_the_last_member_is_frozen() -> None:
    game = new({**DEAL, "Bob": "civilian"})
    night(game, visit="Ann", mafia="Gus", maniac="Eve", check="Ann", heal="Eve")
    assert game.deaths == [] and mornings(game)[0]["killed"] == []


# ---- the maniac ---------------------------------------------------------------------------------
def test_maniac_kills_and_cannot_name_himself() -> None:
    game = new()
    assert reason(game, "Cat", Kill(target="Cat")) == "you cannot kill yourself"
    night(game, visit="Ann", mafia="Eve", maniac="Bob", check="Ann", heal="Eve")
    assert causes(game) == {"Bob": "maniac"}


def test_maniac_choice_void_when_he_is_the_mafia_victim_even_if_saved() -> None:
    game = new()  # worked example 3
    night(game, visit="Eve", mafia="Cat", maniac="Gus", check="Ann", heal="Cat")
    assert game.deaths == [] and game.is_alive("Cat") and game.is_alive("Gus")
    game = new()  # unsaved: only the maniac dies
    night(game, visit="Eve", mafia="Cat", maniac="Gus", check="Ann", heal="Fox")
    assert causes(game) == {"Cat": "mafia"}


def test_mistress_visiting_the_maniac_is_killed_and_he_never_dies_with_her() -> None:
    game = new()
    night(game, visit="Cat", mafia="Cat", maniac="Gus", check="Cat", heal="Fox")
    # Cat is protected from the mafia; his own choice is void; he kills Dan and stays alive, immune
    assert causes(game) == {"Dan": "maniac"}
    assert mornings(game) == [{"number": 1, "killed": ["Dan"], "immune": "Cat"}]  # immune though she died
    assert checks(game) == [("Cat", "not mafia")]
    game = new()  # worked example 2
    night(game, visit="Cat", mafia="Gus", maniac="Eve", check="Ann", heal="Dan")
    assert causes(game) == {"Gus": "mafia"}
    assert mornings(game) == [{"number": 1, "killed": ["Gus"], "immune": "Cat", "announcement": SAVED_MISTRESS}]
    assert SAVED_MISTRESS == "the doctor saved the mistress from a murder; the maniac killed nobody tonight"
    game = new()  # the mafia kill her too: still the maniac's visit, the doctor still saves her
    night(game, visit="Cat", mafia="Dan", maniac="Eve", check="Ann", heal="Dan")
    assert game.deaths == [] and mornings(game)[0]["announcement"] == SAVED_MISTRESS


# ---- the detective ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("visit", "target", "result"),
    [("Gus", "Ann", "mafia"), ("Gus", "Cat", "not mafia"), ("Gus", "Fox", "not mafia"), ("Eve", "Ann", "frozen")],
)
def test_detective_results(visit: str, target: str, result: str) -> None:
    game = new()
    assert reason(game, "Eve", Check(target="Eve")) == "you cannot check yourself"
    night(game, visit=visit, mafia="Eve", maniac="Fox", check=target, heal="Fox")
    assert checks(game) == [(target, result)]
    (told,) = [e for e in game.log if e.type == "check_result"]
    assert told.to == frozenset({"Eve"}) and told.phase == "dawn"  # at dawn, and even to a dead detective
    assert game.is_alive("Eve") is (visit == "Eve")  # the mafia killed him unless he was the client


# ---- the doctor ---------------------------------------------------------------------------------
def test_doctor_names_himself_once_and_a_void_naming_still_counts() -> None:
    game = new()
    assert reason(game, "Fox", Heal(target="Fox")) is None
    night(game, visit="Gus", mafia="Fox", maniac="Eve", check="Ann", heal="Fox")
    assert causes(game) == {"Eve": "maniac"}  # the doctor saved himself from the mafia
    day(game, {"Ann": "Bob", "Bob": "Cat", "Cat": "Bob", "Dan": "Bob", "Fox": "Bob", "Gus": "Bob"},
        dict.fromkeys(("Ann", "Bob", "Cat", "Dan", "Fox", "Gus")))  # fmt: skip
    assert reason(game, "Fox", Heal(target="Fox")) == (
        "you have already named yourself once; the doctor may name himself only once per game"
    )
    night(game, visit="Fox", mafia="Gus", maniac="Ann", heal="Cat")  # frozen: his naming of Cat is void
    assert causes(game) == {"Eve": "maniac", "Ann": "maniac", "Gus": "mafia"}
    day(game, {"Bob": "Cat", "Cat": "Bob", "Dan": "Bob", "Fox": "Bob"}, dict.fromkeys(("Bob", "Cat", "Dan", "Fox")))
    assert game.phase == "night"
    assert reason(game, "Fox", Heal(target="Cat")) == (
        "you named Cat last night; you may not name the same patient two nights running"
    )
    assert reason(game, "Fox", Heal(target="Dan")) is None


def test_doctor_cannot_name_the_same_patient_two_nights_running() -> None:
    game = new()
    night(game, visit="Fox", mafia="Gus", maniac="Eve", check="Ann", heal="Gus")  # frozen: Gus dies
    assert causes(game) == {"Gus": "mafia", "Eve": "maniac"}
    day(game, {"Ann": "Bob", "Bob": "Cat", "Cat": "Bob", "Dan": "Bob", "Fox": "Bob"},
        dict.fromkeys(("Ann", "Bob", "Cat", "Dan", "Fox")))  # fmt: skip
    night(game, visit="Ann", mafia="Cat", maniac="Bob", heal="Cat")  # Bob's pointing counts; the save works
    assert len(game.deaths) == 2
    day(game, {"Bob": "Cat", "Cat": "Bob", "Dan": "Bob", "Fox": "Bob", "Ann": "Cat"},
        dict.fromkeys(("Ann", "Bob", "Cat", "Dan", "Fox")))  # fmt: skip
    assert reason(game, "Fox", Heal(target="Cat")) == (
        "you named Cat last night; you may not name the same patient two nights running"
    )
    assert reason(game, "Fox", Heal(target="Fox")) is None


def test_doctor_saves_from_any_killer_and_is_void_when_visited() -> None:
    game = new()
    night(game, visit="Gus", mafia="Eve", maniac="Eve", check="Ann", heal="Eve")
    assert game.deaths == []
    game = new()  # worked example 1
    night(game, visit="Fox", mafia="Dan", maniac="Dan", check="Ann", heal="Dan")
    assert causes(game) == {"Dan": "mafia", "Fox": "mistress"}
    assert mornings(game) == [{"number": 1, "killed": ["Dan", "Fox"], "immune": None}]


# ---- dawn -------------------------------------------------------------------------------------
def test_worked_example_4_client_protected_from_the_maniac() -> None:
    game = new()
    night(game, visit="Gus", mafia="Eve", maniac="Gus", check="Bob", heal="Eve")
    assert game.deaths == [] and game.is_alive("Gus") and mornings(game)[0]["immune"] == "Gus"


def test_worked_example_5_client_dies_with_the_mistress_despite_the_doctor() -> None:
    game = new()
    night(game, visit="Gus", mafia="Dan", maniac="Ann", check="Fox", heal="Gus")
    assert causes(game) == {"Ann": "maniac", "Dan": "mafia", "Gus": "mistress"}
    assert mornings(game) == [{"number": 1, "killed": ["Ann", "Dan", "Gus"], "immune": None}]
    # the maniac's victim may be the mistress: her client dies with her just the same
    game = new()
    night(game, visit="Bob", mafia={"Ann": "Eve", "Bob": "Gus"}, maniac="Dan", check="Fox", heal="Fox")
    assert causes(game) == {"Bob": "mistress", "Dan": "maniac", "Eve": "mafia"}


def test_worked_examples_as_scenarios() -> None:
    for number in range(1, 6):
        (path,) = [p for p in SCENARIOS.glob(f"cove_example{number}_*.json") if not p.name.endswith(".expected.json")]
        spec = json.loads(path.read_text())
        assert spec["description"].startswith(f"Worked example {number}:")
        assert run_scenario(spec) == json.loads(path.with_name(path.stem + ".expected.json").read_text())


def test_announcements_hide_roles_killers_and_the_giver() -> None:
    game = new()
    night(game, visit="Gus", mafia="Dan", maniac="Ann", check="Fox", heal="Gus")
    public = [e.data for e in game.log if e.type == "death"]
    assert public == [{"player": n, "cause": "night"} for n in ("Ann", "Dan", "Gus")]
    assert set(mornings(game)[0]) == {"number", "killed", "immune"}
    note = next(e for e in game.log if e.type == "night_resolution")
    assert note.to == frozenset() and note.data["dead"] == {"Dan": "mafia", "Ann": "maniac", "Gus": "mistress"}
    game = new(reveal_on_death=True, announce_causes=True)
    night(game, visit="Gus", mafia="Dan", maniac="Ann", check="Fox", heal="Gus")
    public = [e.data for e in game.log if e.type == "death"]
    assert public == [
        {"player": "Ann", "cause": "maniac", "role": "mafia"},
        {"player": "Dan", "cause": "mafia", "role": "mistress"},
        {"player": "Gus", "cause": "mistress", "role": "civilian"},
    ]


# ---- the day ----------------------------------------------------------------------------------
def test_speaking_order_rotates_one_living_seat_a_day() -> None:
    game = new()
    night(game, visit="Eve", mafia="Eve", maniac="Ann", check="Bob", heal="Fox")  # Ann dies (the maniac)
    assert [r.player for r in game.pending()] == ["Bob"]  # day 1: the first living seat
    drive(game, Bob=Speak(nominate="Gus"), Cat=Speak(nominate="Gus"), Dan=Speak(nominate="Gus"),
          Eve=Speak(nominate="Gus"), Fox=Speak(nominate="Gus"))  # fmt: skip
    assert pending(game, "Gus").info["nominees"] == ["Gus"]
    assert reason(game, "Gus", Speak(nominate="Gus")) == "you cannot nominate yourself"
    drive(game, Gus=Speak(nominate="Bob"))
    said = [e.actor for e in game.log if e.type == "speech" and e.data["kind"] == "discussion"]
    assert said == ["Bob", "Cat", "Dan", "Eve", "Fox", "Gus"]
    drive(game, **dict.fromkeys(game.alive, ABSTAIN))
    night(game, visit="Fox", mafia="Cat", maniac="Gus", check="Bob", heal="Cat")  # Cat and Gus die
    assert [r.player for r in game.pending()] == ["Dan"]  # Cat, one seat after Bob, is dead: Dan


def test_nominations() -> None:
    game = new()
    night(game, visit="Gus", mafia="Eve", maniac="Fox", check="Ann", heal="Eve")
    request = pending(game, "Ann")
    assert request.default is None and request.info["immune"] == "Gus"
    assert reason(game, "Ann", Speak(nominate="Ann")) == "you cannot nominate yourself"
    assert reason(game, "Ann", Speak(nominate="Gus")) == "Gus is immune today and cannot be nominated"
    assert reason(game, "Ann", Speak(nominate=None)).startswith("speak needs a nominate")
    assert reason(game, "Ann", Speak(nominate="Fox")).startswith("Fox is dead")
    forfeit = game.default_action(request)
    assert forfeit.nominate in ("Bob", "Cat", "Dan", "Eve") and game.validate(request, forfeit) is None
    drive(game, Ann=Speak(nominate="Cat"), Bob=Speak(nominate="Cat"))  # nominating again adds nothing
    assert pending(game, "Cat").info["nominees"] == ["Cat"]
    drive(game, Cat=Speak(nominate="Bob"), Dan=Speak(nominate="Bob"), Eve=Speak(nominate="Cat"),
          Gus=Speak(nominate="Cat"))  # fmt: skip
    assert pending(game, "Ann").options[0].fields["target"].choices == ("Bob", "Cat")
    assert reason(game, "Ann", Vote(target="Ann")) is not None
    assert reason(game, "Ann", Vote(target="Cat")) is None and reason(game, "Cat", Vote(target="Cat")) is None


def test_single_highest_leaves_after_last_words() -> None:
    game = new()
    night(game, visit="Gus", mafia="Eve", maniac="Fox", check="Ann", heal="Eve")
    day(
        game,
        {"Ann": "Cat", "Bob": "Cat", "Cat": "Bob", "Dan": "Bob", "Eve": "Cat", "Gus": "Cat"},
        {"Ann": "Cat", "Bob": "Bob", "Cat": "Bob", "Dan": "Cat", "Eve": "Cat", "Gus": None},
    )
    last = pending(game, "Cat")
    assert last.group == "last_words" and last.talk == "all" and last.default == SPEAK_SILENT
    assert game.is_alive("Cat")
    drive(game, Cat=Speak(speech="you will miss me"))
    kinds = [(e.type, e.actor or e.data.get("player")) for e in game.log][-3:]
    assert kinds == [("speech", "Cat"), ("death", "Cat"), ("night", None)]
    assert game.deaths[-1].cause == "vote" and events(game, "death")[-1] == {"player": "Cat", "cause": "vote"}


def test_no_votes_at_all_send_nobody_out() -> None:
    game = new()
    night(game, visit="Gus", mafia="Eve", maniac="Fox", check="Ann", heal="Eve")
    day(game, {"Ann": "Cat", "Bob": "Dan", "Cat": "Bob", "Dan": "Bob", "Eve": "Cat", "Gus": "Cat"},
        dict.fromkeys(("Ann", "Bob", "Cat", "Dan", "Eve", "Gus")))  # fmt: skip
    assert events(game, "vote_result")[-1] == {
        "vote": "nominees", "candidates": ["Bob", "Cat", "Dan"], "votes": dict.fromkeys(game.alive),
        "result": None, "tied": [],
    }  # fmt: skip
    assert game.phase == "night" and len(game.alive) == 6


def _tie_day(game: Cove) -> None:
    night(game, visit="Gus", mafia="Eve", maniac="Fox", check="Ann", heal="Eve")
    day(
        game,
        {"Ann": "Cat", "Bob": "Cat", "Cat": "Bob", "Dan": "Bob", "Eve": "Cat", "Gus": "Cat"},
        {"Ann": "Cat", "Bob": "Cat", "Cat": "Bob", "Dan": "Bob", "Eve": None, "Gus": None},
    )
    assert events(game, "vote_result")[-1]["tied"] == ["Bob", "Cat"]
    assert [r.player for r in game.pending()] == ["Bob"] and pending(game, "Bob").group == "defence"
    drive(game, Bob=Speak(speech="not me"))
    assert [r.player for r in game.pending()] == ["Cat"]
    drive(game, Cat=Speak(speech="nor me"))
    assert game.phase == "runoff_vote" and pending(game, "Gus").options[0].fields["target"].choices == ("Bob", "Cat")


def test_two_way_tie_revote_decides() -> None:
    game = new()
    _tie_day(game)
    drive(game, Ann=Vote(target="Cat"), Bob=ABSTAIN, Cat=ABSTAIN, Dan=ABSTAIN, Eve=ABSTAIN, Gus=ABSTAIN)
    drive(game, Cat=Speak())
    assert causes(game) == {"Fox": "maniac", "Cat": "vote"}


def test_two_way_tie_0_0_revote_then_both_leave_needs_more_than_half() -> None:
    game = new()
    _tie_day(game)
    drive(game, **dict.fromkeys(game.alive, ABSTAIN))
    assert events(game, "vote_result")[-1]["tied"] == ["Bob", "Cat"] and game.phase == "both_leave"
    assert pending(game, "Ann").default == NO and pending(game, "Ann").group == "verdict"
    drive(game, **{n: Verdict(yes=n in ("Ann", "Dan", "Eve")) for n in game.alive})  # 3 of 6: not more than half
    assert events(game, "vote_result")[-1]["passed"] is False and game.phase == "night" and len(game.alive) == 6

    game = new()
    _tie_day(game)
    drive(game, **dict.fromkeys(game.alive, ABSTAIN))
    drive(game, **{n: Verdict(yes=n in ("Ann", "Dan", "Eve", "Gus")) for n in game.alive})
    assert [r.player for r in game.pending()] == ["Bob"]
    drive(game, Bob=Speak(speech="bye"))
    assert not game.is_alive("Bob") and [r.player for r in game.pending()] == ["Cat"]
    drive(game, Cat=Speak(speech="bye too"))
    assert [d.player for d in game.deaths if d.cause == "vote"] == ["Bob", "Cat"]


@pytest.mark.parametrize("again", ["abstain", "2-2-2"])
def test_three_way_tie_revote_then_nobody_leaves(again: str) -> None:
    game = new()
    night(game, visit="Gus", mafia="Eve", maniac="Fox", check="Ann", heal="Eve")
    day(
        game,
        {"Ann": "Cat", "Bob": "Dan", "Cat": "Bob", "Dan": "Bob", "Eve": "Cat", "Gus": "Cat"},
        {"Ann": "Cat", "Bob": "Dan", "Cat": "Bob", "Dan": "Bob", "Eve": "Cat", "Gus": "Dan"},
    )
    assert events(game, "vote_result")[-1]["tied"] == ["Bob", "Cat", "Dan"] and game.phase == "revote"
    if again == "abstain":
        drive(game, **dict.fromkeys(game.alive, ABSTAIN))  # 0-0-0 is a tie of three again
    else:
        drive(game, Ann=Vote(target="Cat"), Bob=Vote(target="Dan"), Cat=Vote(target="Bob"), Dan=Vote(target="Bob"),
              Eve=Vote(target="Cat"), Gus=Vote(target="Dan"))  # fmt: skip
    assert events(game, "vote_result")[-1]["result"] is None
    assert events(game, "vote_result")[-1]["vote"] == "revote" and game.phase == "night"
    assert len(game.alive) == 6


def test_three_way_tie_revote_single_leader_leaves() -> None:
    game = new()
    night(game, visit="Gus", mafia="Eve", maniac="Fox", check="Ann", heal="Eve")
    day(
        game,
        {"Ann": "Cat", "Bob": "Dan", "Cat": "Bob", "Dan": "Bob", "Eve": "Cat", "Gus": "Cat"},
        {"Ann": "Cat", "Bob": "Dan", "Cat": "Bob", "Dan": "Bob", "Eve": "Cat", "Gus": "Dan"},
    )
    drive(game, Ann=Vote(target="Dan"), Bob=Vote(target="Dan"), Cat=Vote(target="Bob"), Dan=ABSTAIN, Eve=ABSTAIN,
          Gus=ABSTAIN)  # fmt: skip
    assert events(game, "vote_result")[-1]["result"] == "Dan"
    drive(game, Dan=Speak())
    assert game.deaths[-1].player == "Dan" and game.deaths[-1].cause == "vote"


@pytest.mark.parametrize("votes", ["Cat votes Ann", "nobody votes"])
def test_no_legal_nominee_means_a_speech_without_nomination(votes: str) -> None:
    game = three_left()
    night(game, visit="Cat", mafia="Dan", maniac="Ann")  # the mistress dies; Cat, her client, is immune
    assert game.alive == ("Ann", "Cat") and mornings(game)[-1]["immune"] == "Cat"
    assert not game.finished  # one mafia against the maniac: the game goes on
    drive(game, Cat=Speak(nominate="Ann"))  # day 2 opens one living seat after Ann
    request = pending(game, "Ann")
    assert request.options[0].fields == {} and request.default == SPEAK_SILENT
    assert reason(game, "Ann", Speak(nominate="Cat")) == "'nominate' is not allowed in this decision"
    drive(game, Ann=Speak(speech="nothing to say"))
    assert pending(game, "Ann").options[0].fields["target"].choices == ("Ann",)  # a lone nominee
    if votes == "Cat votes Ann":
        drive(game, Ann=ABSTAIN, Cat=Vote(target="Ann"))
        drive(game, Ann=Speak())
        assert game.finished and game.winner == "maniac" and game.alive == ("Cat",)
    else:  # a lone nominee without votes stays; the next night the mafia kill the maniac
        drive(game, Ann=ABSTAIN, Cat=ABSTAIN)
        assert game.alive == ("Ann", "Cat") and game.phase == "night"
        night(game, mafia="Cat", maniac="Ann")
        assert game.finished and game.winner == "mafia" and causes(game)["Cat"] == "mafia"


# ---- the end ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("dead", "winner"),
    [
        (("Ann", "Bob", "Cat"), "town"),
        (("Eve", "Fox", "Gus"), None),  # 2 mafia, 2 others with the maniac alive: the game goes on
        (("Cat", "Eve", "Fox"), "mafia"),  # 2 mafia, 2 others, no maniac: parity
        (("Dan", "Eve", "Fox", "Gus"), "mafia"),  # 2 mafia outnumber the maniac
        (("Ann", "Dan", "Eve", "Fox", "Gus"), None),  # 1 mafia and the maniac
        (("Ann", "Bob", "Dan", "Eve", "Fox"), "maniac"),  # alone with one non-mafia player
        (("Ann", "Bob", "Dan", "Eve"), None),  # the maniac and two others
        (("Ann", "Bob", "Dan", "Eve", "Fox", "Gus"), "maniac"),  # alone
        (SEATS, "draw"),
    ],
)
def test_end_conditions(dead: tuple[str, ...], winner: str | None) -> None:
    game = new()
    for name in dead:
        game.eliminate(name, "test")
    assert game.check_end() is (winner is not None)
    assert game.winner == winner
    if winner == "draw":
        assert game.end_reason == "nobody alive"


def test_end_is_checked_after_the_night() -> None:
    game = new(first_phase="day")
    day(game, {"Ann": "Cat", "Bob": "Cat", "Cat": "Ann", "Dan": "Cat", "Eve": "Cat", "Fox": "Cat", "Gus": "Cat"},
        {**dict.fromkeys(SEATS, "Cat"), "Cat": "Ann"})  # fmt: skip
    drive(game, Cat=Speak())
    assert not game.finished and game.phase == "night" and game.day == 2  # 2 mafia against 4
    night(game, visit="Gus", mafia="Dan", check="Ann", heal="Eve")  # Dan dies, Gus with her
    assert game.finished and game.winner == "mafia" and game.alive == ("Ann", "Bob", "Eve", "Fox")
    assert [e.type for e in game.log][-4:] == ["morning", "death", "death", "game_over"]


def test_mafia_parity_with_the_maniac_alive_goes_on_until_he_dies() -> None:
    game = new()
    night(game, visit="Gus", mafia="Eve", maniac="Fox", check="Ann", heal="Gus")  # Eve and Fox die
    day(
        game,
        {"Ann": "Dan", "Bob": "Dan", "Cat": "Dan", "Dan": "Bob", "Gus": "Dan"},
        {"Ann": "Dan", "Bob": "Dan", "Cat": "Dan", "Dan": None, "Gus": None},
    )
    drive(game, Dan=Speak())
    assert game.alive == ("Ann", "Bob", "Cat", "Gus") and not game.finished and game.phase == "night"
    night(game, mafia="Cat", maniac="Gus")  # the maniac is the mafia's victim: his choice is void
    assert game.alive == ("Ann", "Bob", "Gus") and game.finished and game.winner == "mafia"


def test_max_days_draw() -> None:
    game = new(max_days=1)
    night(game, visit="Gus", mafia="Eve", maniac="Gus", check="Ann", heal="Eve")
    assert game.deaths == []
    day(game, {"Ann": "Cat", "Bob": "Cat", "Cat": "Bob", "Dan": "Bob", "Eve": "Cat", "Fox": "Cat", "Gus": "Cat"},
        dict.fromkeys(SEATS))  # fmt: skip
    assert game.finished and (game.winner, game.end_reason) == ("draw", "max_days") and game.day == 1


def test_both_leave_can_empty_the_table_for_a_draw() -> None:
    game = new()
    night(game, visit="Eve", mafia="Fox", maniac="Gus", check="Ann", heal="Eve")  # Fox and Gus die
    day(
        game,
        {"Ann": "Dan", "Bob": "Dan", "Cat": "Dan", "Dan": "Bob", "Eve": "Dan"},
        {"Ann": "Dan", "Bob": "Dan", "Cat": "Dan", "Dan": None, "Eve": "Dan"},
    )
    drive(game, Dan=Speak())
    assert game.alive == ("Ann", "Bob", "Cat", "Eve") and not game.finished  # parity, the maniac alive
    night(game, mafia="Eve", maniac="Bob", check="Cat")
    assert game.alive == ("Ann", "Cat") and not game.finished
    drive(game, Cat=Speak(nominate="Ann"), Ann=Speak(nominate="Cat"))
    drive(game, Ann=Vote(target="Cat"), Cat=Vote(target="Ann"))
    drive(game, Ann=Speak(), Cat=Speak())  # tie speeches
    drive(game, Ann=Vote(target="Cat"), Cat=Vote(target="Ann"))
    drive(game, Ann=Verdict(yes=True), Cat=Verdict(yes=True))
    drive(game, Ann=Speak(speech="together, then"), Cat=Speak())
    assert game.alive == () and game.finished and (game.winner, game.end_reason) == ("draw", "nobody alive")


# ---- hidden information -------------------------------------------------------------------------
PRIVATE_TYPES = {"role", "team", "action", "forfeit", "rejected", "check_result", "speech"}


@pytest.mark.parametrize("seed", range(12))
def test_views_hold_no_other_players_secrets(seed: int) -> None:
    seats = list(SEATS10[: 7 + seed % 4])
    game = Cove(seats, seed=seed)
    run_sync(game, {n: RandomPlayer(n, seed) for n in seats})
    mafia = {n for n in seats if game.role_of[n] == "mafia"}
    for name in seats:
        for event in game.view(name).events:
            if event.to is None:  # public: no night choice, no role, no killer
                assert event.type not in PRIVATE_TYPES - {"speech"}
                assert event.type != "night_resolution"
                if event.type == "speech":
                    assert event.data["kind"] != "channel"
                if event.type == "death":
                    assert "role" not in event.data and event.data["cause"] in ("night", "vote")
                if event.type == "morning":
                    assert set(event.data) <= {"number", "killed", "immune", "announcement"}
                continue
            assert name in event.to
            if event.type in ("role", "action", "forfeit", "rejected", "check_result"):
                assert event.to == frozenset({name})
            if event.type == "check_result":
                assert game.role_of[name] == "detective"
            if event.type in ("team", "speech"):
                assert event.to <= mafia and name in mafia
                assert event.type == "team" or event.data["kind"] == "channel"
    doctor_or_mistress = [e for e in game.log if e.type == "action" and game.role_of[e.actor] in ("doctor", "mistress")]
    assert doctor_or_mistress  # the check above covered real choices
    for event in doctor_or_mistress:
        assert all(event not in game.view(n).events for n in seats if n != event.actor)


# ---- random games -----------------------------------------------------------------------------
@pytest.mark.parametrize("players", range(7, 15))
def test_random_games_finish(players: int) -> None:
    seats = [f"P{i}" for i in range(players)]
    outcomes: Counter[str] = Counter()
    for seed in range(200):
        game = Cove(seats, seed=seed)
        run_sync(game, {n: RandomPlayer(n, seed) for n in seats})
        assert game.finished
        assert game.winner in ("town", "mafia", "maniac") or (game.winner, game.end_reason) in (
            ("draw", "max_days"), ("draw", "nobody alive"),
        )  # fmt: skip
        assert {d.cause for d in game.deaths} <= {"mafia", "maniac", "mistress", "vote"}
        outcomes[game.winner] += 1
    assert len(outcomes) >= 2


def test_same_seed_same_answers_same_game() -> None:
    def played(seed: int) -> list[dict]:
        seats = list(SEATS10)
        game = Cove(seats, seed=seed)
        run_sync(game, {n: RandomPlayer(n, seed) for n in seats})
        return [e.to_dict() for e in game.log]

    assert played(5) == played(5)
    assert played(5) != played(6)
