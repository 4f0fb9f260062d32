"""What the bots say (issue 15, part 2): the first person about themselves, openers that fit the
moment, and templates that do not come back before the others were used."""

from __future__ import annotations

import random
import re

import pytest

from arena.engine import Game
from arena.players.bot.speech import Voice
from arena.players.registry import make_player
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import run_sync
from arena.variants import get_variant

TABLES = {"classic": 9, "village": 9, "cove": 10, "duel": 2, "duel3": 3, "trio": 3}
#: the lines that open a day's accusations ("Somebody has to go first: Cid.")
OPENERS = ("has to go first", "so I'll start", "To get things moving", "Gut feeling:", "Let's see how people vote")


def game(variant: str, seed: int) -> Game:
    seats = list(DEFAULT_NAMES[: TABLES[variant]])
    options = {"hands": 2} if variant in ("duel", "duel3", "trio") else None
    g = get_variant(variant)(seats, options, seed)
    run_sync(g, {p: make_player("bot", p, seed) for p in seats})
    return g


@pytest.mark.parametrize("variant", sorted(TABLES))
def test_no_bot_names_itself_in_the_third_person(variant: str) -> None:
    """Never "Eve kept protecting Eve" in Eve's mouth: no speech (public or the mafia's channel)
    contains its speaker's name."""
    speeches = 0
    for seed in range(40):
        for e in game(variant, seed).log:
            if e.type == "speech" and e.data.get("text"):
                speeches += 1
                assert not re.search(rf"\b{e.actor}\b", e.data["text"]), f"{variant} seed {seed}: {e.actor}: {e.data['text']}"
    assert speeches >= 40


@pytest.mark.parametrize("variant", ["classic", "village", "cove"])
def test_an_opener_only_opens_the_day(variant: str) -> None:
    """An opener ("Somebody has to go first") only when nobody has accused or nominated anyone yet today."""
    openers = 0
    for seed in range(60):
        accused_today = False
        for e in game(variant, seed).log:
            if e.type == "day":
                accused_today = False
            elif e.type == "speech" and e.data.get("kind") == "discussion":
                if any(o in (e.data.get("text") or "") for o in OPENERS):
                    openers += 1
                    assert not accused_today, f"{variant} seed {seed}, day {e.day}: {e.actor}: {e.data['text']}"
                if e.data.get("accuse") or e.data.get("nominate"):
                    accused_today = True
            elif e.type == "accusation":
                accused_today = True
    assert openers >= 20


def test_a_voice_uses_every_template_of_a_kind_before_repeating_one() -> None:
    voice = Voice(random.Random(3), "Ann")
    options = [f"line {i}" for i in range(5)]
    for _ in range(4):
        said = [voice.pick("kind", options) for _ in range(5)]
        assert sorted(said) == options
    assert voice.pick("kind", options) != said[-1]  # nor the last one first after a cycle


def test_a_reason_about_the_speaker_is_in_the_first_person() -> None:
    voice = Voice(random.Random(1), "Eve")
    for _ in range(6):
        text = voice.reasons([("pressed", "Bob", "Eve"), ("claimed_check", "Eve", "Bob", "mafia")])
        assert "Eve" not in text and "Bob" in text


def test_bots_do_not_repeat_their_last_speech_word_for_word() -> None:
    """A bot speaking several times a day says something different each time (a template comes
    back only after the others of its kind)."""
    repeats = speeches = 0
    for seed in range(40):
        last: dict[str, str] = {}
        for e in game("classic", seed).log:
            if e.type == "speech" and e.data.get("kind") == "discussion":
                speeches += 1
                repeats += last.get(e.actor) == e.data["text"]
                last[e.actor] = e.data["text"]
    assert speeches >= 200
    assert repeats == 0
