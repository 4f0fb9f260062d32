"""Bots' words are true to the record (issue 30.10).

Every fact of the public record a bot's speech states (who voted how and how often, who accused
whom, who is dead, who was shot after accusing, who claimed what) is held against the log before
the speech (``tests/bot_facts.py``). Seen before: "Cid helped vote out Bob. Town." of a spared Bob,
"Dee voted to get rid of Gus and Bob, and they were both town" with Bob alive, cove's plurality
vote told in classic's words ("voted to spare Ivy"), "went after Eve, who was clearly town" of a
living Eve, "named Ann and did not live through the night" of a shot that came before the naming.
``benchmarks/bot_facts.py`` plays 300 games per variant; here 20.
"""

from __future__ import annotations

import pytest

from tests.bot_facts import TABLES, Record, Statement, check, falsehoods, played


@pytest.mark.parametrize("variant", sorted(TABLES))
def test_no_false_statement_of_fact(variant: str) -> None:
    stated = 0
    for seed in range(20):
        game, statements = played(variant, seed)
        stated += sum(len(s.facts) for s in statements)
        wrong = check(game, statements)
        assert not wrong, f"{variant} seed {seed}: {wrong[:3]}"
    assert stated >= 100  # the bots do state facts: the check is not empty


def test_the_check_catches_false_facts() -> None:
    """The checker fails a spared player called voted out, a living one called dead, a vote
    among candidates told as a yes/no, an accusation nobody made."""
    game, _ = played("classic", 3)
    record = Record().read(game.log)
    spared = next(b for b in record.ballots if b["vote"] == "execution" and not b["passed"])
    living = next(p for p in game.seats if p not in record.dead)
    voter = spared["yes"][0] if spared["yes"] else spared["no"][0]
    lies = [
        ("voted_out", voter, spared["accused"], 1),
        ("dead", living),
        ("accused", living, living),
        ("voted", voter, spared["accused"], "no", 99),
    ]
    statement = Statement("Ann", len(game.log), tuple(lies), "")
    assert len(falsehoods(statement, record)) == len(lies)
    cove, _ = played("cove", 3)
    ballots = Record().read(cove.log).ballots
    plural = next(b for b in ballots if "votes" in b)
    voter, choice = next((v, t) for v, t in plural["votes"].items() if t is not None)
    other = next(c for c in plural["candidates"] if c != choice)
    said = Statement("Ann", len(cove.log), (("voted", voter, other, "no", 1),), "voted to spare")
    assert falsehoods(said, Record().read(cove.log))  # cove has no "no" vote on one player


def test_a_claimed_check_is_not_followed_by_nobody_has_much() -> None:
    """ "My check on Eve came back mafia. Nobody has much yet, so I'll start: …" is gone: a speech
    that carries a claim with checks opens no day with a guess."""
    claimed = 0
    for variant in sorted(TABLES):
        for seed in range(30):
            game, _ = played(variant, seed)
            for e in game.log:
                action = e.data.get("action") if e.type == "action" else None
                if action is None or action.kind != "speak" or action.claim is None or not action.claim.checks:
                    continue
                claimed += 1
                for guess in ("Nobody has much yet", "Gut feeling", "Somebody has to go first"):
                    assert guess not in action.speech, f"{variant} seed {seed}: {action.speech}"
    assert claimed >= 20


def test_no_bot_votes_for_itself() -> None:
    for seed in range(40):
        game, _ = played("cove", seed)
        for e in game.log:
            action = e.data.get("action") if e.type == "action" else None
            if action is not None and action.kind == "vote":
                assert action.target != e.actor, f"seed {seed}: {e.actor} voted for itself"


@pytest.mark.parametrize("variant", sorted(TABLES))
def test_a_witness_plays_as_the_bot_does(variant: str) -> None:
    """What the checker reads is a bot game: the witnesses' game is the plain bots' game."""
    from arena.players.registry import make_player
    from arena.run.config import DEFAULT_NAMES
    from arena.run.orchestrator import run_sync
    from arena.variants import get_variant

    witnessed, _ = played(variant, 7)
    seats = list(DEFAULT_NAMES[: TABLES[variant]])
    plain = get_variant(variant)(seats, None, 7)
    run_sync(plain, {p: make_player("bot", p, 7) for p in seats})
    assert [(e.type, e.actor, repr(e.data)) for e in witnessed.log] == [(e.type, e.actor, repr(e.data)) for e in plain.log]
