"""``village`` (docs/rules/village.md): every rule of the page played out by scripted seats."""

from __future__ import annotations

import contextlib
import random
import tomllib
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from arena.engine import Death, Event, Game, RulesError
from arena.engine.game import NO
from arena.players.random import RandomPlayer
from arena.players.scripted import OutOfAnswers, ScriptedPlayer
from arena.run.orchestrator import run_sync
from arena.variants import get_variant
from arena.variants.village import Village

ROOT = Path(__file__).resolve().parent.parent

SEATS = ("Ann", "Bob", "Cid", "Dan", "Eve", "Fay", "Gus")
#: the standard table: two mafia, detective Cid, doctor Dan, three villagers
DEAL = dict(zip(SEATS, ("mafia", "mafia", "detective", "doctor", "villager", "villager", "villager"), strict=True))
#: one mafia only: a single arrest or execution ends the game
LONE = {**DEAL, "Bob": "villager"}


# ---- answers --------------------------------------------------------------------------------
def say(accuse: str | None = None, text: str = "") -> dict[str, Any]:
    return {"kind": "speak", "speech": text, "accuse": accuse}


def kill(target: str | None, text: str | None = None) -> dict[str, Any]:
    return {"kind": "kill", "target": target, "speech": text}


def check(target: str) -> dict[str, Any]:
    return {"kind": "check", "target": target}


def heal(target: str) -> dict[str, Any]:
    return {"kind": "heal", "target": target}


def guilty(yes: bool = True) -> dict[str, Any]:
    return {"kind": "verdict", "yes": yes}


def vote(target: str | None) -> dict[str, Any]:
    return {"kind": "vote", "target": target}


class Script:
    """Each seat's answers in the order it will be asked (a ScriptedPlayer per seat)."""

    def __init__(self) -> None:
        self.answers: dict[str, list[Any]] = defaultdict(list)

    def add(self, name: str, *actions: Any) -> Script:
        self.answers[name].extend(actions)
        return self

    def talk(self, speakers: tuple[str, ...] | list[str], accuse: dict[str, str] | None = None) -> Script:
        """One discussion round: ``speakers`` in speaking order, some accusing."""
        for name in speakers:
            self.add(name, say((accuse or {}).get(name)))
        return self

    def night(self, rounds: list[dict[str, str]], checks: dict[str, str], heals: dict[str, str]) -> Script:
        for pointing in rounds:
            for member, target in pointing.items():
                self.add(member, kill(target))
        for name, target in checks.items():
            self.add(name, check(target))
        for name, target in heals.items():
            self.add(name, heal(target))
        return self

    def verdicts(self, voters: tuple[str, ...] | list[str], guilty_ones: set[str]) -> Script:
        for name in voters:
            self.add(name, guilty(name in guilty_ones))
        return self


def play(script: Script, deal: dict[str, str] = DEAL, seed: int = 0, **options: Any) -> Village:
    """Run the script until the game ends or a seat has no answer left; every answer must be used."""
    game = Village(list(deal), {"speaking_order": "rotate", **options}, seed, deal=deal)  # scripts: fixed order
    players = {name: ScriptedPlayer(name, script.answers.get(name, [])) for name in deal}
    unknown = set(script.answers) - set(deal)
    assert not unknown, unknown
    with contextlib.suppress(OutOfAnswers):
        run_sync(game, players)
    leftover = {name: p.answers[p.used :] for name, p in players.items() if not p.exhausted}
    assert not leftover, f"unused answers: {leftover}"
    return game


def events(game: Game, type_: str, **match: Any) -> list[Event]:
    return [e for e in game.log if e.type == type_ and all(e.data.get(k) == v for k, v in match.items())]


def asked(game: Village) -> list[str]:
    return [r.player for r in game.pending()]


def rejections(game: Game) -> list[tuple[str, str]]:
    return [(e.actor, e.data["reason"]) for e in events(game, "rejected")]


def quiet_day1(script: Script, rounds: int = 1) -> Script:
    for _ in range(rounds):
        script.talk(SEATS)
    return script


def night_kills_eve(script: Script) -> Script:
    """Night 1 on the standard table: Eve dies, the detective misses, the doctor saves Gus."""
    return script.night([{"Ann": "Eve", "Bob": "Eve"}], {"Cid": "Fay"}, {"Dan": "Gus"})


#: day 2 after Eve's death: Bob speaks first (one living seat after Ann)
DAY2 = ("Bob", "Cid", "Dan", "Fay", "Gus", "Ann")


# ---- deal and options -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("players", "mafia"),
    [(7, 2), (8, 2), (9, 3), (11, 3), (12, 4), (14, 4), (15, 5), (20, 6), (29, 9), (30, 10), (32, 10)],
)
def test_deal_follows_the_seed_table(players: int, mafia: int) -> None:
    seats = [f"P{i}" for i in range(players)]
    counts = Counter(Village(seats, seed=players).role_of.values())
    assert counts == {"mafia": mafia, "detective": 1, "doctor": 1, "villager": players - mafia - 2}


@pytest.mark.parametrize("players", [6, 33])
def test_player_count_limits(players: int) -> None:
    with pytest.raises(RulesError, match="7-32"):
        Village([f"P{i}" for i in range(players)])


def test_deal_is_shuffled_by_the_seed() -> None:
    seats = [f"P{i}" for i in range(11)]
    assert Village(seats, seed=3).role_of == Village(seats, seed=3).role_of
    assert len({tuple(Village(seats, seed=s).role_of.values()) for s in range(10)}) > 1


def test_mafia_count_and_full_deal_options() -> None:
    seats = [f"P{i}" for i in range(11)]
    assert Counter(Village(seats, {"mafia_count": 4}).role_of.values())["mafia"] == 4
    counts = Counter(Village(seats, {"deal": {"mafia": 3, "detective": 1, "doctor": 0}}).role_of.values())
    assert counts == {"mafia": 3, "detective": 1, "villager": 7}
    counts = Counter(Village(seats, {"deal": {"doctor": 2}}).role_of.values())
    assert counts == {"mafia": 3, "detective": 1, "doctor": 2, "villager": 5}
    counts = Counter(Village(seats, {"deal": {"mafia": 2, "villager": 7}}).role_of.values())
    assert counts == {"mafia": 2, "detective": 1, "doctor": 1, "villager": 7}


@pytest.mark.parametrize(
    "options",
    [
        {"deal": {"mafia": 2, "villager": 3}},  # villagers must be the rest
        {"deal": {"mafia": 6}},  # 5 non-mafia < 6 mafia: already over
        {"deal": {"mafia": 0}},  # no mafia: already over
        {"deal": {"mafia": 9, "detective": 2, "doctor": 1}},  # more cards than players
    ],
)
def test_unplayable_deals_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(RulesError):
        Village([f"P{i}" for i in range(11)], options)


def test_options_are_validated() -> None:
    with pytest.raises(ValidationError, match="not both"):
        Village.Options(mafia_count=3, deal={"mafia": 2})
    with pytest.raises(ValidationError):
        Village.Options(deal={"wizard": 1})
    with pytest.raises(ValidationError):
        Village.Options(mafia_disagreement="coin")
    with pytest.raises(ValidationError):
        Village.Options(channel_rounds=0)


def test_a_scenario_deal_must_be_playable() -> None:
    with pytest.raises(RulesError, match="over before it starts"):
        Village(SEATS, deal=dict.fromkeys(SEATS, "villager"))
    Village(SEATS, deal={**DEAL, "Eve": "mafia"})  # 3 mafia, 4 others: plays


def test_config_lists_every_option_with_its_default() -> None:
    config = tomllib.loads((ROOT / "configs" / "village.toml").read_text())
    assert Village.min_players <= config["players"] <= Village.max_players
    assert set(config["options"]) == set(Village.Options.model_fields)
    assert Village.Options.model_validate(config["options"]) == Village.Options()


def test_registered() -> None:
    assert get_variant("village") is Village


# ---- day 1 -----------------------------------------------------------------------------------
def test_first_day_counts_accusations_but_tries_nobody() -> None:
    script = Script()
    script.talk(SEATS, {"Ann": "Eve", "Bob": "Eve", "Cid": "Ann"})
    script.talk(SEATS, {"Ann": "Eve", "Dan": "Ann"})  # Ann's second accusation of Eve counts once
    game = play(script)
    assert [e.actor for e in events(game, "speech")] == list(SEATS) * 2  # default 2 rounds, seat order
    assert [(e.actor, e.data["accused"]) for e in events(game, "accusation")] == [
        ("Ann", "Eve"), ("Bob", "Eve"), ("Cid", "Ann"), ("Dan", "Ann"),
    ]  # fmt: skip
    assert not [e for e in game.log if e.type in ("trial", "runoff", "vote_result", "death", "morning")]
    assert game.phase == "channel" and asked(game) == ["Ann"]
    assert [e.data for e in events(game, "night")] == [{"number": 1}]


def test_mafia_learn_each_other_on_the_first_night_only() -> None:
    script = quiet_day1(Script())
    night_kills_eve(script)
    script.talk(DAY2, {"Cid": "Gus"})
    script.add("Gus", say()).verdicts(DAY2, {"Ann", "Bob", "Cid", "Dan"})  # Gus executed
    game = play(script, discussion_rounds=1)
    assert game.phase == "channel" and game.day == 2
    (team,) = events(game, "team")
    assert team.day == 1 and team.audience == "team:mafia" and team.data == {"members": ["Ann", "Bob"]}
    assert team.seq < min(e.seq for e in events(game, "speech", kind="channel"))
    assert [n for n in SEATS if team.visible_to(n)] == ["Ann", "Bob"]


def test_speaker_order_moves_one_living_seat_each_day() -> None:
    script = quiet_day1(Script())
    script.night([{"Ann": "Eve", "Bob": "Eve"}], {"Cid": "Bob"}, {"Dan": "Dan"})  # Bob arrested
    script.add("Cid", say())
    game = play(script, discussion_rounds=1)
    assert game.day == 2 and asked(game) == ["Dan"]  # Bob (next after Ann) is dead: Cid, then Dan
    assert [e.actor for e in events(game, "speech", kind="discussion") if e.day == 2] == ["Cid"]


# ---- the mafia channel -----------------------------------------------------------------------
def test_channel_agreement_kills_at_dawn_with_card_shown() -> None:
    script = quiet_day1(Script())
    script.add("Ann", kill("Eve", "Eve talks too much")).add("Bob", kill("Eve"))
    script.add("Cid", check("Fay")).add("Dan", heal("Gus"))
    game = play(script, discussion_rounds=1)
    assert [e.data for e in events(game, "channel_result")] == [
        {"round": 1, "targets": {"Ann": "Eve", "Bob": "Eve"}, "agreed": True, "victim": "Eve"}
    ]
    (morning,) = events(game, "morning")
    assert morning.data == {"number": 2, "killed": ["Eve"], "arrested": []} and morning.to is None
    (death,) = events(game, "death")
    assert death.data == {"player": "Eve", "cause": "mafia", "role": "villager"} and death.to is None
    assert morning.seq < death.seq
    assert game.day == 2 and game.phase == "discussion" and not game.is_alive("Eve")


def test_channel_disagreement_asks_everyone_again_until_they_agree() -> None:
    script = quiet_day1(Script())
    script.night([{"Ann": "Eve", "Bob": "Fay"}, {"Ann": "Fay", "Bob": "Fay"}], {"Cid": "Gus"}, {"Dan": "Gus"})
    game = play(script, discussion_rounds=1)
    results = [e.data for e in events(game, "channel_result")]
    assert results == [
        {"round": 1, "targets": {"Ann": "Eve", "Bob": "Fay"}, "agreed": False},
        {"round": 2, "targets": {"Ann": "Fay", "Bob": "Fay"}, "agreed": True, "victim": "Fay"},
    ]
    assert [d.player for d in game.deaths] == ["Fay"]


NINE = {**DEAL, "Hal": "mafia", "Ivy": "villager"}  # channel order: Ann, Bob, Hal


def test_channel_plurality_uses_the_last_round() -> None:
    script = Script().talk(list(NINE))
    rounds = [
        {"Ann": "Fay", "Bob": "Fay", "Hal": "Eve"},
        {"Ann": "Fay", "Bob": "Gus", "Hal": "Eve"},
        {"Ann": "Eve", "Bob": "Eve", "Hal": "Fay"},  # over all rounds Fay leads; in the last, Eve
    ]
    script.night(rounds, {"Cid": "Ivy"}, {"Dan": "Ivy"})
    game = play(script, deal=NINE, discussion_rounds=1)
    assert len(events(game, "speech", kind="channel")) == 9
    assert events(game, "channel_result")[-1].data == {
        "round": 3, "targets": {"Ann": "Eve", "Bob": "Eve", "Hal": "Fay"}, "agreed": False, "victim": "Eve",
    }  # fmt: skip
    assert [d.player for d in game.deaths] == ["Eve"]


def test_channel_plurality_tie_is_a_seeded_draw_told_to_the_mafia_only() -> None:
    victims = set()
    for seed in range(12):
        script = quiet_day1(Script())
        script.night([{"Ann": "Eve", "Bob": "Fay"}] * 3, {"Cid": "Gus"}, {"Dan": "Gus"})
        game = play(script, seed=seed, discussion_rounds=1)
        (lot,) = events(game, "lot")
        assert lot.data == {"among": ["Eve", "Fay"], "player": lot.data["player"], "why": "night_kill"}
        assert lot.to == {"Ann", "Bob"}
        assert [d.player for d in game.deaths] == [lot.data["player"]]
        victims.add(lot.data["player"])
        again = quiet_day1(Script())
        again.night([{"Ann": "Eve", "Bob": "Fay"}] * 3, {"Cid": "Gus"}, {"Dan": "Gus"})
        assert play(again, seed=seed, discussion_rounds=1).deaths == game.deaths  # same seed, same draw
    assert victims == {"Eve", "Fay"}


def test_channel_no_kill_option() -> None:
    script = quiet_day1(Script())
    script.night([{"Ann": "Eve", "Bob": "Fay"}] * 3, {"Cid": "Gus"}, {"Dan": "Gus"})
    game = play(script, discussion_rounds=1, mafia_disagreement="no_kill")
    assert events(game, "channel_result")[-1].data["victim"] is None
    assert events(game, "morning")[0].data == {"number": 2, "killed": [], "arrested": []}
    assert not game.deaths and not events(game, "lot") and game.day == 2


def test_channel_rounds_option_counts_rounds_in_all() -> None:
    script = quiet_day1(Script())
    script.night([{"Ann": "Eve", "Bob": "Fay"}], {"Cid": "Gus"}, {"Dan": "Gus"})
    game = play(script, discussion_rounds=1, channel_rounds=1, mafia_disagreement="no_kill")
    assert len(events(game, "channel_result")) == 1 and not game.deaths and game.day == 2


def test_channel_talk_reaches_the_living_mafia_only_and_in_order() -> None:
    script = Script().talk(list(NINE))
    script.night([{"Ann": "Hal"}], {}, {})  # Ann tries her partner first
    script.add("Ann", kill("Eve", "Eve, she is sharp"), kill("Eve"))  # Ann again in round 2
    script.add("Bob", kill("Fay", "I say Fay"), kill("Eve"))
    script.add("Hal", kill("Eve"), kill("Eve"))
    script.add("Cid", check("Hal")).add("Dan", heal("Ivy"))  # Hal is arrested at dawn
    script.talk(("Bob", "Cid", "Dan", "Fay", "Gus", "Ivy", "Ann"), {"Cid": "Gus"})
    script.add("Gus", say()).verdicts(("Ann", "Bob", "Cid", "Dan", "Fay", "Gus", "Ivy"), {"Ann", "Bob", "Cid", "Dan"})
    script.add("Ann", kill("Fay", "just us two now"))  # night 2: Bob is asked next
    game = play(script, deal=NINE, discussion_rounds=1)
    assert game.day == 2 and game.phase == "channel" and asked(game) == ["Bob"]
    assert rejections(game) == [("Ann", "Hal is in the mafia: point at a living non-mafia player")]
    channel = events(game, "speech", kind="channel")
    assert [(e.actor, e.data["target"], e.data["text"]) for e in channel[:2]] == [
        ("Ann", "Eve", "Eve, she is sharp"), ("Bob", "Fay", "I say Fay"),
    ]  # fmt: skip
    night1 = {"Ann", "Bob", "Hal"}
    for event in channel + events(game, "channel_result"):
        assert event.to == (night1 if event.day == 1 else {"Ann", "Bob"})  # Hal was arrested
    for name in NINE:
        seen = {e.seq for e in game.view(name).events}
        assert any(e.seq in seen for e in channel) == (NINE[name] == "mafia")
    # Bob sees Ann's message and target of this round before he answers
    bob = game.view("Bob").events
    ann_said = next(i for i, e in enumerate(bob) if e.type == "speech" and e.actor == "Ann" and e.data["kind"] == "channel")
    bob_answered = next(i for i, e in enumerate(bob) if e.type == "action" and e.phase == "channel")
    assert ann_said < bob_answered


def test_channel_rejections() -> None:
    script = quiet_day1(Script())
    script.add("Ann", kill("Bob"), kill("Ann"), kill(None), kill("Eve"))
    script.add("Bob", kill("Nobody"), {"kind": "check", "target": "Eve"}, kill("Eve"))
    script.add("Cid", check("Fay")).add("Dan", heal("Gus"))
    script.talk(DAY2, {"Cid": "Gus"})
    script.add("Gus", say()).verdicts(DAY2, {"Ann", "Bob", "Cid", "Dan"})
    script.add("Ann", kill("Eve"))  # night 2: Eve died last night; Ann's script ends here
    game = play(script, discussion_rounds=1, retries=3)
    assert rejections(game) == [
        ("Ann", "Bob is in the mafia: point at a living non-mafia player"),
        ("Ann", "you cannot point at yourself: point at a living non-mafia player"),
        ("Ann", "kill needs a target: one of Cid, Dan, Eve, Fay, Gus"),
        ("Bob", "there is no player named 'Nobody'; legal: Cid, Dan, Eve, Fay, Gus"),
        ("Bob", "'check' is not allowed now; legal: kill"),
        ("Ann", "Eve is dead; legal: Cid, Dan, Fay"),
    ]
    assert not events(game, "forfeit")


def test_a_forfeited_pointing_is_a_random_legal_victim() -> None:
    for seed in range(5):
        script = quiet_day1(Script())
        script.add("Ann", None).add("Bob", kill("Eve")).add("Cid", check("Fay")).add("Dan", heal("Gus"))
        game = play(script, seed=seed, discussion_rounds=1, channel_rounds=1)
        (forfeit,) = events(game, "forfeit")
        assert forfeit.data["action"].target in {"Cid", "Dan", "Eve", "Fay", "Gus"}


# ---- detective and doctor --------------------------------------------------------------------
def test_detective_hit_is_arrested_at_dawn() -> None:
    script = quiet_day1(Script())
    script.night([{"Ann": "Eve", "Bob": "Eve"}], {"Cid": "Bob"}, {"Dan": "Gus"})
    game = play(script, discussion_rounds=1)
    (result,) = events(game, "check_result")
    assert result.data == {"target": "Bob", "result": "mafia"} and result.to == {"Cid"}
    (morning,) = events(game, "morning")
    assert result.seq < morning.seq and morning.data == {"number": 2, "killed": ["Eve"], "arrested": ["Bob"]}
    assert [(d.player, d.cause) for d in game.deaths] == [("Eve", "mafia"), ("Bob", "arrest")]
    assert events(game, "death", player="Bob")[0].data == {"player": "Bob", "cause": "arrest", "role": "mafia"}


def test_detective_miss() -> None:
    script = quiet_day1(Script())
    script.night([{"Ann": "Eve", "Bob": "Eve"}], {"Cid": "Fay"}, {"Dan": "Gus"})
    game = play(script, discussion_rounds=1)
    assert events(game, "check_result")[0].data == {"target": "Fay", "result": "not mafia"}
    assert events(game, "morning")[0].data["arrested"] == [] and [d.player for d in game.deaths] == ["Eve"]


def test_detective_and_doctor_are_asked_together_silently() -> None:
    script = quiet_day1(Script())
    script.night([{"Ann": "Eve", "Bob": "Eve"}], {}, {})
    game = play(script, discussion_rounds=1)
    assert game.phase == "night_roles" and asked(game) == ["Cid", "Dan"]
    assert all(r.talk is None for r in game.pending())


def test_detective_rejections() -> None:
    script = quiet_day1(Script())
    script.night([{"Ann": "Eve", "Bob": "Eve"}], {}, {})
    script.add("Cid", check("Cid"), {"kind": "check", "target": "Ann", "speech": "gotcha"}, check("Ann"))
    script.add("Dan", heal("Nobody"), heal("Dan"))
    game = play(script, discussion_rounds=1)
    assert rejections(game) == [
        ("Cid", "you know your own card: check another living player"),
        ("Cid", "this decision is silent: no speech allowed"),
        ("Dan", "there is no player named 'Nobody'; legal: Ann, Bob, Cid, Dan, Eve, Fay, Gus"),
    ]
    assert events(game, "morning")[0].data["arrested"] == ["Ann"]


def test_doctor_saves_the_victim_without_being_told() -> None:
    script = quiet_day1(Script())
    script.night([{"Ann": "Eve", "Bob": "Eve"}], {"Cid": "Fay"}, {"Dan": "Eve"})
    game = play(script, discussion_rounds=1)
    assert events(game, "morning")[0].data == {"number": 2, "killed": [], "arrested": []}
    assert not game.deaths and game.is_alive("Eve")
    (saved,) = events(game, "saved")
    assert saved.to == frozenset()  # the moderator's note: nobody is told
    assert [e.type for e in game.view("Dan").events if e.day == 1 and e.phase != "discussion"] == ["night", "action", "morning"]


def test_doctor_may_save_himself() -> None:
    script = quiet_day1(Script())
    script.night([{"Ann": "Dan", "Bob": "Dan"}], {"Cid": "Fay"}, {"Dan": "Dan"})
    game = play(script, discussion_rounds=1)
    assert not game.deaths and game.is_alive("Dan")


def test_a_victim_detective_still_checks_and_arrests() -> None:
    script = quiet_day1(Script())
    script.night([{"Ann": "Cid", "Bob": "Cid"}], {"Cid": "Ann"}, {"Dan": "Gus"})
    game = play(script, discussion_rounds=1)
    assert events(game, "check_result")[0].data == {"target": "Ann", "result": "mafia"}
    assert events(game, "morning")[0].data == {"number": 2, "killed": ["Cid"], "arrested": ["Ann"]}
    assert [(d.player, d.cause) for d in game.deaths] == [("Cid", "mafia"), ("Ann", "arrest")]


def test_a_dead_detective_and_doctor_are_skipped() -> None:
    script = quiet_day1(Script())
    script.night([{"Ann": "Cid", "Bob": "Cid"}], {"Cid": "Eve"}, {"Dan": "Gus"})
    script.talk(("Bob", "Dan", "Eve", "Fay", "Gus", "Ann"), {"Ann": "Dan"})
    script.add("Dan", say()).verdicts(("Ann", "Bob", "Dan", "Eve", "Fay", "Gus"), {"Ann", "Bob", "Eve", "Fay"})
    script.night([{"Ann": "Gus", "Bob": "Gus"}], {}, {})
    game = play(script, discussion_rounds=1)
    assert events(game, "morning")[-1].data == {"number": 3, "killed": ["Gus"], "arrested": []}
    assert game.day == 3 and asked(game) == ["Eve"]  # Ann, Bob: first speakers of days 1, 2; Cid, Dan dead


# ---- trials ----------------------------------------------------------------------------------
def test_trial_needs_more_guilty_than_innocent_then_the_next_accused() -> None:
    script = night_kills_eve(quiet_day1(Script()))
    script.talk(DAY2, {"Cid": "Ann", "Dan": "Ann", "Fay": "Bob"})
    script.add("Ann", say(text="not me")).verdicts(DAY2, {"Cid", "Dan", "Fay"})  # 3-3: acquitted
    script.add("Bob", say(text="nor me")).verdicts(DAY2, {"Cid", "Dan", "Fay", "Gus"})  # 4-2: guilty
    game = play(script, discussion_rounds=1)
    assert [e.data for e in events(game, "trial")] == [
        {"player": "Ann", "accusations": 2}, {"player": "Bob", "accusations": 1},
    ]  # fmt: skip
    first, second = events(game, "vote_result")
    assert first.data == {
        "vote": "guilty", "accused": "Ann", "yes": ["Cid", "Dan", "Fay"], "no": ["Ann", "Bob", "Gus"], "passed": False,
    }  # fmt: skip
    assert second.data["passed"] is True and sorted(second.data["no"]) == ["Ann", "Bob"]
    assert [e.data for e in events(game, "acquitted")] == [{"player": "Ann"}]
    defences = [(e.actor, e.data["text"]) for e in events(game, "speech", kind="defence")]
    assert defences == [("Ann", "not me"), ("Bob", "nor me")]
    assert events(game, "death", player="Bob")[0].data == {"player": "Bob", "cause": "execution", "role": "mafia"}
    assert not events(game, "runoff") and game.phase == "channel" and asked(game) == ["Ann"]


def test_every_living_player_votes_including_the_accused() -> None:
    script = night_kills_eve(quiet_day1(Script()))
    script.talk(DAY2, {"Cid": "Ann"})
    script.add("Ann", say())
    game = play(script, discussion_rounds=1)
    assert game.phase == "verdict" and asked(game) == ["Ann", "Bob", "Cid", "Dan", "Fay", "Gus"]
    assert all(r.talk is None and r.default == NO for r in game.pending())


def test_most_accused_tie_is_a_seeded_draw() -> None:
    tried = set()
    for seed in range(10):
        script = night_kills_eve(quiet_day1(Script()))
        script.talk(DAY2, {"Cid": "Ann", "Dan": "Bob", "Fay": "Bob", "Gus": "Ann", "Ann": "Gus"})
        game = play(script, seed=seed, discussion_rounds=1)
        (lot,) = events(game, "lot")
        assert lot.data["among"] == ["Ann", "Bob"] and lot.data["why"] == "trial" and lot.to is None
        assert game.phase == "defence" and asked(game) == [lot.data["player"]]
        tried.add(lot.data["player"])
    assert tried == {"Ann", "Bob"}


def test_accusations_trials_and_acquittals_count_for_one_day() -> None:
    script = Script().talk(SEATS, {"Cid": "Dan", "Eve": "Dan", "Fay": "Dan"})  # day 1: Dan 3, never tried
    night_kills_eve(script)
    script.talk(DAY2, {"Cid": "Gus", "Dan": "Gus", "Fay": "Ann", "Ann": "Fay"})
    script.add("Gus", say()).verdicts(DAY2, set())  # Gus acquitted: the one acquittal allowed
    for name in DAY2:
        script.add(name, vote("Fay"))  # runoff: Ann and Fay, one accusation each
    script.night([{"Ann": "Cid", "Bob": "Cid"}], {"Cid": "Dan"}, {"Dan": "Cid"})  # saved: nobody dies
    script.talk(("Cid", "Dan", "Gus", "Ann", "Bob"), {"Cid": "Gus"})
    game = play(script, discussion_rounds=1, max_acquittals=1)
    assert [(e.day, e.data["player"]) for e in events(game, "trial")] == [(2, "Gus"), (3, "Gus")]
    assert events(game, "runoff")[0].data == {"candidates": ["Ann", "Fay"]}
    assert game.phase == "defence" and asked(game) == ["Gus"]


def test_day_rejections() -> None:
    script = night_kills_eve(quiet_day1(Script()))
    script.add("Bob", say("Bob"), say("Eve"), say("Cid"))
    script.talk(DAY2[1:])
    script.add("Cid", {"kind": "speak", "speech": "I am innocent", "accuse": "Bob"}, say(text="I am innocent"))
    script.add("Ann", {"kind": "verdict", "yes": True, "speech": "hang him"})
    script.verdicts(DAY2, {"Ann", "Bob", "Dan", "Fay"})
    game = play(script, discussion_rounds=1)
    assert rejections(game) == [
        ("Bob", "you cannot accuse yourself"),
        ("Bob", "Eve is dead; legal: Ann, Cid, Dan, Fay, Gus"),
        ("Cid", "'accuse' is not allowed in this decision"),
        ("Ann", "this decision is silent: no speech allowed"),
    ]
    assert [(d.player, d.cause) for d in game.deaths][-1] == ("Cid", "execution")


def test_a_forfeited_verdict_counts_as_innocent() -> None:
    script = night_kills_eve(quiet_day1(Script()))
    script.talk(DAY2, {"Cid": "Ann"})
    script.add("Ann", say())
    script.verdicts(("Ann", "Bob", "Cid", "Dan"), {"Cid", "Dan", "Ann"})
    script.add("Fay", None).add("Gus", None)  # both give up
    game = play(script, discussion_rounds=1, max_acquittals=1)
    assert events(game, "vote_result")[0].data["no"] == ["Bob", "Fay", "Gus"]  # 3-3: acquitted
    assert events(game, "acquitted") and game.phase == "runoff"


# ---- the two-candidate vote ------------------------------------------------------------------
def _two_acquittals(script: Script) -> Script:
    """Day 2 with two rounds: Ann 3, Bob 2, Cid 1, Gus 1 accusations; Ann and Bob acquitted."""
    script.talk(DAY2, {"Bob": "Cid", "Cid": "Ann", "Dan": "Ann", "Fay": "Ann", "Gus": "Bob", "Ann": "Bob"})
    script.talk(DAY2, {"Bob": "Cid", "Cid": "Ann", "Dan": "Gus"})  # repeats count once
    script.add("Ann", say()).verdicts(DAY2, {"Cid", "Dan", "Fay"})
    script.add("Bob", say()).verdicts(DAY2, set())
    return script


def test_runoff_after_the_configured_acquittals() -> None:
    script = _two_acquittals(night_kills_eve(quiet_day1(Script(), rounds=2)))
    for name, target in zip(DAY2, ("Cid", "Gus", "Cid", "Cid", "Gus", "Cid"), strict=True):
        script.add(name, vote(target))
    game = play(script)
    assert len(events(game, "accusation")) == 7
    assert [e.data["player"] for e in events(game, "trial")] == ["Ann", "Bob"]
    assert [e.data for e in events(game, "runoff")] == [{"candidates": ["Cid", "Gus"]}]  # untried Cid, Gus: no trial
    assert not events(game, "lot")
    result = events(game, "vote_result", vote="runoff")[0].data
    assert result["result"] == "Cid" and result["votes"]["Gus"] == "Gus" and len(result["votes"]) == 6
    assert game.deaths[-1].player == "Cid" and events(game, "death", player="Cid")[0].data["role"] == "detective"


def test_runoff_rejections_and_forfeit() -> None:
    for seed in range(4):
        script = _two_acquittals(night_kills_eve(quiet_day1(Script(), rounds=2)))
        script.add("Bob", vote(None), vote("Ann"), {"kind": "vote", "target": "Cid", "speech": "bye"}, vote("Cid"))
        script.add("Cid", None)
        for name in ("Dan", "Fay", "Gus", "Ann"):
            script.add(name, vote("Gus"))
        game = play(script, seed=seed, retries=3)
        assert rejections(game) == [
            ("Bob", "vote needs a target: one of Cid, Gus"),
            ("Bob", "Ann is not a legal target here; legal: Cid, Gus"),
            ("Bob", "this decision is silent: no speech allowed"),
        ]
        (forfeit,) = events(game, "forfeit")
        assert forfeit.actor == "Cid" and forfeit.data["action"].target in ("Cid", "Gus")
        assert game.deaths[-1].player == "Gus"


def test_runoff_tie_is_settled_by_lot() -> None:
    convicted = set()
    for seed in range(10):
        script = _two_acquittals(night_kills_eve(quiet_day1(Script(), rounds=2)))
        for name, target in zip(DAY2, ("Cid", "Gus", "Cid", "Gus", "Gus", "Cid"), strict=True):
            script.add(name, vote(target))
        game = play(script, seed=seed)
        (lot,) = events(game, "lot")
        assert lot.data["among"] == ["Cid", "Gus"] and lot.data["why"] == "execution"
        assert events(game, "vote_result", vote="runoff")[0].data["result"] == lot.data["player"]
        assert game.deaths[-1] == Death(lot.data["player"], "execution", 2)
        convicted.add(lot.data["player"])
    assert convicted == {"Cid", "Gus"}


def test_runoff_tie_lot_draws_among_the_two_in_seat_order() -> None:
    # Gus is the most accused, so the runoff names him first; the lot still lists Ann, Gus in seat order.
    convicted = set()
    for seed in range(10):
        script = night_kills_eve(quiet_day1(Script()))
        script.talk(DAY2, {"Cid": "Gus", "Dan": "Gus", "Fay": "Ann"})
        for name, target in zip(DAY2, ("Gus", "Gus", "Ann", "Ann", "Gus", "Ann"), strict=True):
            script.add(name, vote(target))
        game = play(script, seed=seed, discussion_rounds=1, max_acquittals=0)
        assert events(game, "runoff")[0].data == {"candidates": ["Gus", "Ann"]}
        (lot,) = events(game, "lot")
        assert lot.data["among"] == ["Ann", "Gus"] and lot.data["why"] == "execution"
        assert lot.data["player"] == random.Random(seed).choice(["Ann", "Gus"])  # no earlier draw in this game
        assert game.deaths[-1] == Death(lot.data["player"], "execution", 2)
        convicted.add(lot.data["player"])
    assert convicted == {"Ann", "Gus"}


def test_runoff_straight_away_when_nobody_is_accused() -> None:
    pairs = set()
    for seed in range(8):
        game = play(night_kills_eve(quiet_day1(Script())).talk(DAY2), seed=seed, discussion_rounds=1)
        assert not events(game, "trial") and game.phase == "runoff"
        (runoff,) = events(game, "runoff")
        candidates = runoff.data["candidates"]
        assert len(set(candidates)) == 2 and set(candidates) <= set(DAY2)
        assert [e.data["among"] for e in events(game, "lot")] == [list(game.alive)] * 2
        assert all(r.options[0].fields["target"].choices == tuple(candidates) for r in game.pending())
        pairs.add(frozenset(candidates))
    assert len(pairs) > 1


def test_runoff_straight_away_when_no_accused_is_left_untried() -> None:
    script = night_kills_eve(quiet_day1(Script()))
    script.talk(DAY2, {"Cid": "Ann"})
    script.add("Ann", say()).verdicts(DAY2, set())
    game = play(script, discussion_rounds=1)  # one acquittal of the two allowed, nobody else accused
    assert len(events(game, "trial")) == 1 and game.phase == "runoff"
    assert "Ann" not in events(game, "runoff")[0].data["candidates"]


def test_runoff_fills_a_tie_at_the_cut_by_draw() -> None:
    seconds = set()
    for seed in range(10):
        script = night_kills_eve(quiet_day1(Script()))
        script.talk(DAY2, {"Cid": "Ann", "Dan": "Ann", "Fay": "Bob", "Gus": "Cid"})
        game = play(script, seed=seed, discussion_rounds=1, max_acquittals=0)
        first, second = events(game, "runoff")[0].data["candidates"]
        (lot,) = events(game, "lot")
        assert first == "Ann" and lot.data["among"] == ["Bob", "Cid"] and second == lot.data["player"]
        seconds.add(second)
    assert seconds == {"Bob", "Cid"}


def test_runoff_draws_from_the_acquitted_only_when_nobody_else_is_left() -> None:
    # three rounds; Ann 5, Bob 4, Cid 3, Dan 2, Fay 1 accusations, Gus none: five trials, five acquittals
    accusations = {
        "Bob": ["Ann", "Fay"], "Cid": ["Ann", "Bob"], "Dan": ["Ann", "Bob"],
        "Fay": ["Ann", "Cid", "Dan"], "Gus": ["Ann", "Bob", "Cid"], "Ann": ["Bob", "Cid", "Dan"],
    }  # fmt: skip
    drawn = set()
    for seed in range(6):
        script = night_kills_eve(quiet_day1(Script(), rounds=3))
        for i in range(3):
            script.talk(DAY2, {s: targets[i] for s, targets in accusations.items() if i < len(targets)})
        for accused in ("Ann", "Bob", "Cid", "Dan", "Fay"):
            script.add(accused, say()).verdicts(DAY2, set())
        game = play(script, seed=seed, discussion_rounds=3, max_acquittals=10)
        assert [e.data for e in events(game, "trial")] == [
            {"player": p, "accusations": n} for p, n in (("Ann", 5), ("Bob", 4), ("Cid", 3), ("Dan", 2), ("Fay", 1))
        ]
        gus, other = events(game, "runoff")[0].data["candidates"]
        (lot,) = events(game, "lot")
        assert gus == "Gus" and lot.data["among"] == ["Ann", "Bob", "Cid", "Dan", "Fay"] and other == lot.data["player"]
        drawn.add(other)
    assert len(drawn) > 1


def test_no_acquittals_allowed_goes_to_the_runoff_at_once() -> None:
    script = night_kills_eve(quiet_day1(Script()))
    script.talk(DAY2, {"Cid": "Ann", "Dan": "Ann", "Fay": "Bob"})
    game = play(script, discussion_rounds=1, max_acquittals=0)
    assert not events(game, "trial") and events(game, "runoff")[0].data == {"candidates": ["Ann", "Bob"]}


# ---- the end ---------------------------------------------------------------------------------
def test_town_wins_when_the_last_mafia_is_arrested_at_dawn() -> None:
    script = quiet_day1(Script())
    script.night([{"Ann": "Eve"}], {"Cid": "Ann"}, {"Dan": "Gus"})
    game = play(script, deal=LONE, discussion_rounds=1)
    assert game.finished and game.winner == "town" and game.day == 1
    over = events(game, "game_over")[0]
    assert over.data["winner"] == "town" and over.data["roles"] == LONE and over.seq == game.log[-1].seq
    assert [(d.player, d.cause) for d in game.deaths] == [("Eve", "mafia"), ("Ann", "arrest")]


def test_town_wins_by_executing_the_last_mafia() -> None:
    script = quiet_day1(Script())
    script.night([{"Ann": "Eve"}], {"Cid": "Fay"}, {"Dan": "Gus"})
    script.talk(DAY2, {"Cid": "Ann"})
    script.add("Ann", say()).verdicts(DAY2, {"Cid", "Dan", "Fay", "Gus"})
    game = play(script, deal=LONE, discussion_rounds=1)
    assert game.winner == "town" and game.deaths[-1] == Death("Ann", "execution", 2)


def test_mafia_wins_at_dawn_when_the_others_are_fewer() -> None:
    deal = {**DEAL, "Eve": "mafia", "Fay": "mafia", "Hal": "villager"}  # 4 mafia, 4 others
    script = Script().talk(list(deal))
    script.night([dict.fromkeys(("Ann", "Bob", "Eve", "Fay"), "Gus")], {"Cid": "Hal"}, {"Dan": "Hal"})
    game = play(script, deal=deal, discussion_rounds=1)
    assert game.finished and game.winner == "mafia" and game.day == 1


def test_equal_numbers_go_on_and_mafia_wins_after_an_execution() -> None:
    deal = {**DEAL, "Eve": "mafia"}  # Ann, Bob, Eve against Cid, Dan, Fay, Gus
    script = quiet_day1(Script())
    script.night([{"Ann": "Fay", "Bob": "Fay", "Eve": "Fay"}], {"Cid": "Gus"}, {"Dan": "Gus"})
    day2 = ("Bob", "Cid", "Dan", "Eve", "Gus", "Ann")
    script.talk(day2, {"Ann": "Gus"})  # 3 against 3: the game goes on
    script.add("Gus", say()).verdicts(day2, {"Ann", "Bob", "Eve", "Cid"})
    game = play(script, deal=deal, discussion_rounds=1)
    assert game.finished and game.winner == "mafia" and game.deaths[-1].player == "Gus"


def test_max_days_is_a_draw() -> None:
    game = play(quiet_day1(Script()), discussion_rounds=1, max_days=1)
    assert game.finished and game.winner == "draw" and game.end_reason == "max_days" and not events(game, "night")
    script = night_kills_eve(quiet_day1(Script()))
    script.talk(DAY2, {"Cid": "Gus"})
    script.add("Gus", say()).verdicts(DAY2, {"Ann", "Bob", "Cid", "Dan"})
    game = play(script, discussion_rounds=1, max_days=2)
    assert game.finished and game.winner == "draw" and game.day == 2 and game.deaths[-1].player == "Gus"


# ---- many random games -----------------------------------------------------------------------
class Checked(RandomPlayer):
    """A random seat that also checks it is alive whenever it is asked."""

    def __init__(self, name: str, seed: int, game: Village) -> None:
        super().__init__(name, seed)
        self.game = game

    def decide_now(self, request, view, feedback):  # type: ignore[no-untyped-def]
        assert self.game.is_alive(self.name) and feedback is None
        return super().decide_now(request, view, feedback)


@pytest.mark.parametrize("size", [7, 11, 20])
def test_random_games_finish(size: int) -> None:
    seats = [f"P{i:02d}" for i in range(size)]
    winners: Counter[str] = Counter()
    for seed in range(200):
        game = Village(seats, seed=seed)
        run_sync(game, {n: Checked(n, seed, game) for n in seats})
        assert game.finished and game.winner in ("town", "mafia", "draw")
        winners[game.winner] += 1
        if game.winner != "draw":
            assert game.winner_now() == game.winner
        assert not events(game, "forfeit") and not events(game, "rejected")
        for death in events(game, "death"):
            assert death.to is None and death.data["role"] == game.role_of[death.data["player"]]
            assert death.data["cause"] in ("mafia", "arrest", "execution")
        for name in seats:
            private = [e for e in game.view(name).events if e.to is not None]
            if game.role_of[name] != "mafia":
                assert all(e.audience != "team:mafia" for e in private)
            if game.role_of[name] != "detective":
                assert not [e for e in private if e.type == "check_result"]
    assert winners["town"] and winners["mafia"]


@pytest.mark.parametrize(
    "deal", [{"detective": 0, "doctor": 0}, {"mafia": 4, "detective": 2, "doctor": 2}, {"mafia": 1, "doctor": 0}]
)
def test_random_games_with_other_deals(deal: dict[str, int]) -> None:
    seats = [f"P{i:02d}" for i in range(11)]
    acting: Counter[str] = Counter()  # night-role players who acted, by role, over all games
    for seed in range(50):
        game = Village(seats, {"deal": deal}, seed=seed)
        run_sync(game, {n: Checked(n, seed, game) for n in seats})
        assert game.finished and game.winner in ("town", "mafia", "draw")
        acting.update({game.role_of[e.actor] for e in events(game, "action") if e.phase == "night_roles"})
        first_night = [e.actor for e in events(game, "action") if e.phase == "night_roles" and e.day == 1]
        for role in ("detective", "doctor"):
            assert [game.role_of[n] for n in first_night].count(role) == deal.get(role, 1)
    assert set(acting) == {r for r in ("detective", "doctor") if deal.get(r, 1)}


def test_same_seed_same_game() -> None:
    seats = [f"P{i:02d}" for i in range(11)]
    logs = []
    for _ in range(2):
        game = Village(seats, seed=42)
        run_sync(game, {n: RandomPlayer(n, 42) for n in seats})
        logs.append([e.to_dict() for e in game.log])
    assert logs[0] == logs[1]
