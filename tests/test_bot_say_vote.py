"""Bots mean what they say (issue 25.6).

A town bot's vote agrees with the stance its speech took that day (an accusation or a doubt:
yes; backing the accused: no; a claimed check: "mafia" yes, "not mafia" no), except where news it
could not have had when it spoke moved a player to known town. Since issue 30.10 a mafia bot's
vote keeps its public word too. Measured by ``benchmarks/bot_quality.py --only sayvote``: before, classic
96.5%, village 83.4%, cove 91.4% (100 games each); after issue 25.6 100%, 99.3%, 99.0%.
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


@pytest.mark.parametrize("variant", sorted(TABLES))
def test_mafia_bots_vote_as_they_spoke_too(variant: str) -> None:
    """Issue 30.10: a mafia bot's public words and public vote agree as well (it lies about its
    card, not against its own speech: "Don't do this; Ann is not our problem", then a yes)."""
    pairs = [p for seed in range(40) for p in say_vote_pairs(played(variant, seed), team="mafia")]
    assert len(pairs) >= 50
    agreed = sum(a for a, _, _ in pairs) / len(pairs)
    assert agreed >= 0.95, f"{variant}: {agreed:.1%}; e.g. {[p for p in pairs if not p[0]][:3]}"


def test_the_measure_sees_a_player_that_votes_against_its_words() -> None:
    """The measure can fail: ``random`` seats accuse and vote at random."""
    pairs = []
    for seed in range(40):
        seats = list(DEFAULT_NAMES[:9])
        game = get_variant("village")(seats, None, seed)
        run_sync(game, {p: make_player("random", p, seed) for p in seats})
        pairs += say_vote_pairs(game)
    assert pairs and sum(a for a, _, _ in pairs) / len(pairs) < 0.95


def test_no_bot_vote_belies_its_words() -> None:
    """Before issue 30.10 a mafia verdict against the bot's words said "a lie: I spoke … today" in
    its thought; no bot vote says it now."""
    for seed in range(30):
        game = played("village", seed)
        for e in game.log:
            action = e.data.get("action") if e.type == "action" else None
            if isinstance(action, Verdict):
                assert "a lie: I spoke" not in (action.thought or ""), f"seed {seed}"
