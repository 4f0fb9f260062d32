"""A person gets to speak on day 1 of ``classic`` (issue 30.9).

A classic accusation starts a trial at once, so a bot that accused on the day's first speech
could end day 1 before a person at the table had a turn (13 of 30 bot games had a single day-1
discussion speech). A bot without information now holds its accusation until every living seat
has had a discussion turn; a claim on the table (or the bot's own) is information, and so is a
reason it can state. Measured in ``benchmarks/person_speaks.py``: a non-bot seat spoke in day 1's
discussion in 28% of 100 games before, 100% after.
"""

from __future__ import annotations

import random

from arena.engine.actions import Claim, Speak
from arena.players.registry import make_player
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import run_sync
from arena.variants import get_variant
from tests.standin import Listener

SEATS = list(DEFAULT_NAMES[:9])


def day1_speeches(game) -> list:
    out = []
    for e in game.log:
        if e.type == "night" and e.data.get("number", 0) >= 1:
            break
        if e.type == "speech" and e.to is None and e.data.get("kind") == "discussion":
            out.append(e)
    return out


def test_a_non_bot_seat_speaks_on_day_1_in_most_classic_games() -> None:
    spoke = 0
    games = 40
    for seed in range(games):
        game = get_variant("classic")(SEATS, None, seed)
        seat = random.Random(f"listener:{seed}").choice(SEATS)
        players = {p: make_player("bot", p, seed) for p in SEATS}
        players[seat] = Listener(seat, seed)
        run_sync(game, players)
        spoke += any(e.actor == seat for e in day1_speeches(game))
    assert spoke >= 0.8 * games


def test_no_bot_accuses_before_everyone_spoke_without_information() -> None:
    """All-bot classic games: day 1's first round of talk holds no accusation (nobody has a check
    yet, and nobody claims on day 1 unprompted)."""
    for seed in range(40):
        game = get_variant("classic")(SEATS, None, seed)
        run_sync(game, {p: make_player("bot", p, seed) for p in SEATS})
        first_round = day1_speeches(game)[: len(SEATS) - 1]
        assert len(first_round) == len(SEATS) - 1, f"seed {seed}"
        assert not any(e.data.get("accuse") for e in first_round), f"seed {seed}"


class Claimer(Listener):
    """Claims the inspector on its first turn with a "mafia" check on ``target``."""

    def __init__(self, name: str, seed: int, target: str) -> None:
        super().__init__(name, seed)
        self.target = target
        self.claimed = False

    def decide_now(self, request, view, feedback):
        if request.group == "discussion" and not self.claimed:
            self.claimed = True
            claim = Claim(role="inspector", checks={self.target: "mafia"})
            return Speak(speech=f"I am the inspector: {self.target} is mafia.", claim=claim)
        return super().decide_now(request, view, feedback)


def test_a_claim_on_the_table_lets_the_bots_accuse_at_once() -> None:
    """Information may open a trial before everyone has spoken: after a day-1 claim of a check,
    some bot accuses within the first round in most games."""
    early = 0
    for seed in range(30):
        game = get_variant("classic")(SEATS, None, seed)
        players = {p: make_player("bot", p, seed) for p in SEATS}
        # the claimer sits wherever the day opens, so that its claim comes first
        probe = get_variant("classic")(SEATS, None, seed)
        run_sync(probe, {p: make_player("bot", p, seed) for p in SEATS})
        opener = day1_speeches(probe)[0].actor
        target = next(p for p in SEATS if p != opener and game.team(p) == "mafia")
        players[opener] = Claimer(opener, seed, target)
        run_sync(game, players)
        first_round = day1_speeches(game)[: len(SEATS) - 1]
        early += any(e.data.get("accuse") for e in first_round[1:])
    assert early >= 20
