"""Bots mean what they say (issue 25.6).

A town bot's vote agrees with the stance its speech took that day (an accusation or a doubt:
yes; backing the accused: no), except where news it could not have had when it spoke moved a
player to known town. Measured by ``benchmarks/bot_quality.py --only sayvote``: before, classic
96.5%, village 83.4%, cove 91.4% (100 games each); now 100%, 99.3%, 99.0%. A mafia bot may vote
against its words on purpose; its thought then says it lied.
"""

from __future__ import annotations

import pytest

from arena.engine.actions import Verdict
from arena.players.registry import make_player
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import run_sync
from arena.variants import get_variant
from tests.bot_stats import say_vote_pairs

TABLES = {"classic": 9, "village": 9, "cove": 10}


def played(variant: str, seed: int):
    seats = list(DEFAULT_NAMES[: TABLES[variant]])
    game = get_variant(variant)(seats, None, seed)
    run_sync(game, {p: make_player("bot", p, seed) for p in seats})
    return game


@pytest.mark.parametrize("variant", sorted(TABLES))
def test_town_bots_vote_as_they_spoke(variant: str) -> None:
    pairs = [p for seed in range(40) for p in say_vote_pairs(played(variant, seed))]
    assert len(pairs) >= 150
    agreed = sum(a for a, _, _ in pairs) / len(pairs)
    assert agreed >= 0.95, f"{variant}: {agreed:.1%}; e.g. {[p for p in pairs if not p[0]][:3]}"


def test_the_measure_sees_a_bot_that_votes_against_its_words() -> None:
    """The measure can fail: mafia bots blend their votes in, not their words, and disagree more."""
    pairs = [p for seed in range(40) for p in say_vote_pairs(played("village", seed), team="mafia")]
    assert pairs and sum(a for a, _, _ in pairs) / len(pairs) < 0.95


def test_a_mafia_vote_against_its_words_is_a_lie_it_knows() -> None:
    """Each mafia verdict that belies the bot's words today says so in its thought; no town bot's does."""
    lies = belied = 0
    for seed in range(30):
        game = played("village", seed)
        pairs = say_vote_pairs(game, team="mafia")
        belied += sum(1 for agreed, _, what in pairs if not agreed and what.endswith(("voted yes", "voted no")))
        for e in game.log:
            action = e.data.get("action") if e.type == "action" else None
            if isinstance(action, Verdict) and "a lie: I spoke" in (action.thought or ""):
                assert game.team(e.actor) == "mafia"
                lies += 1
    assert lies >= belied > 0
