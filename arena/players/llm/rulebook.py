"""The public rule tables a prompt quotes, read from the variants' own code (never retyped).

McKay's games are scored by tables (:mod:`arena.variants.mckay.scoring`); a model deciding
"shoot now or let nobody die" needs them. :func:`payoffs` turns the tables of one variant into
rows the system prompt renders, so the prompt cannot drift from the scoring code
(tests/test_prompts.py checks every row against the tables).
"""

from __future__ import annotations

from typing import Any

from arena.variants.mckay import scoring
from arena.variants.mckay.scoring import COP, MAFIA, MAFIA_CLAIMING, TP, TP_CLAIMING

#: a card or a victim column of the kill tables, in words
CARD_WORDS = {
    TP: "townsperson",
    MAFIA: "mafia",
    COP: "cop",
    TP_CLAIMING: "townsperson pretending to be the cop",
    MAFIA_CLAIMING: "mafia pretending to be the cop",
}
PLURAL = {TP: "townspeople", MAFIA: "mafia", COP: "cops"}


def card_words(card: str) -> str:
    return CARD_WORDS.get(card, card)


def _others(cards: tuple[str, ...]) -> str:
    """A trio situation (the other living players' cards) in words."""
    if not cards:
        return "alone"
    if len(cards) == 2 and cards[0] == cards[1]:
        return f"with two {PLURAL[cards[0]]} alive"
    return "with " + " and ".join(f"a {card_words(c)}" for c in cards) + " alive"


def _killers(role: str, killers: tuple[str, ...]) -> str:
    """The two killers of a trio round-1 death, seen from the victim: "the cop and the other townsperson"."""
    if len(set(killers)) == 1:
        return f"the two {PLURAL[killers[0]]}"
    return " and ".join(f"the other {card_words(k)}" if k == role else f"the {card_words(k)}" for k in killers)


def _scorer(role: str, others: tuple[str, ...]) -> str:
    """The scoring card of a trio row in words; a townsperson beside both townspeople can only be
    the undeclared cop (the deck holds two townspeople), so the row says so."""
    if role == TP and others.count(TP) == 2:
        return "undeclared cop (scoring as a townsperson)"
    return card_words(role)


def payoffs(variant: str | None) -> dict[str, Any] | None:
    """The scoring rows of a McKay variant (None for the others), in the tables' own order."""
    if variant in ("duel", "duel3"):
        out: dict[str, Any] = {
            "good": [(card_words(k), card_words(v), p) for (k, v), p in scoring.GOOD_KILLS.items()],
            "bad": [(card_words(k), card_words(v), p) for (k, v), p in scoring.BAD_KILLS.items()],
            "nobody": [(card_words(c), p) for c, p in scoring.NOBODY_DIES.items()],
        }
        if variant == "duel3":
            out["survivors"] = [(card_words(a), card_words(b), p) for (a, b), p in scoring.SURVIVOR_PAIRS.items()]
        return out
    if variant == "trio":
        zero_alive = [(card_words(role), card_words(card)) for role, card in scoring.TRIO_ZERO_IF_ALIVE.items()]
        zero_killed = [
            (card_words(role), card_words(victim), " or ".join(str(r) for r in rounds))
            for role, (victim, rounds) in scoring.TRIO_ZERO_IF_KILLED.items()
        ]
        return {
            "alive": [(_scorer(role, others), _others(others), p) for (role, others), p in scoring.TRIO_ALIVE.items()],
            "zero_alive": zero_alive,
            "zero_killed": zero_killed,
            "dead": [(card_words(role), _killers(role, killers), p) for (role, killers), p in scoring.TRIO_DEAD.items()],
            "bonus_cap": scoring.TRIO_BONUS_CAP,
        }
    return None
