"""What a McKay bot says aloud (short claims, true or not) and thinks (the numbers it weighed).

Speech is cheap talk at these tables, so it states claims plainly: "I'm the cop. Card 2 is
mafia." A mafia bot's claims may be lies; its thought says so, which is what lets a reader of
the transcript see the lie as a lie.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from arena.variants.mckay.scoring import COP, MAFIA, TP

from ...speech import pick

NAMES = {TP: "a townsperson", MAFIA: "mafia", COP: "the cop"}


def card_name(card: str) -> str:
    return NAMES.get(card, card)


def odds_text(beliefs: Mapping[str, Mapping[str, float]]) -> str:
    """ "Bob: mafia 50%, townsperson 25%, cop 25%" for each opponent, likeliest card first."""
    parts = []
    for name, odds in beliefs.items():
        ranked = sorted(odds.items(), key=lambda kv: (-kv[1], kv[0]))
        parts.append(f"{name}: " + ", ".join(f"{c} {p:.0%}" for c, p in ranked if p >= 0.005))
    return "; ".join(parts)


#: values this close (relative, as :data:`.common.TIE`) are a tie, which the bot draws
TIE = 1e-9


def digits(values: Mapping[str, float]) -> int:
    """Decimals enough to tell the best value from the runner-up (2 to 6): "+1.42, +1.42" read
    as a tie when one was +1.4213 and the other +1.4198."""
    ranked = sorted(values.values(), reverse=True)
    if len(ranked) < 2:
        return 2
    top, second = ranked[0], ranked[1]
    for d in range(2, 7):
        if f"{top:+.{d}f}" != f"{second:+.{d}f}":
            return d
    return 6


def values_text(values: Mapping[str, float]) -> str:
    d = digits(values)
    return ", ".join(f"{k} {v:+.{d}f}" for k, v in values.items())


def thought(choice: str, values: Mapping[str, float], beliefs: Mapping[str, Mapping[str, float]], note: str = "") -> str:
    """The private reasoning: the expected value of each move weighed (to the digits that tell
    the best from the next; a tie says it was drawn), the belief behind them."""
    top = values.get(choice)
    tied = top is not None and sum(1 for v in values.values() if abs(v - top) <= TIE * (1.0 + abs(top))) > 1
    drawn = " (a tie, drawn)" if tied else ""
    text = f"EV {values_text(values)} -> {choice}{drawn}. Cards: {odds_text(beliefs)}."
    return f"{text} {note}".strip()


def join(thought: str, note: str) -> str:
    return f"{thought} {note}" if note else thought


def declare_text(rng: random.Random, position: int | None) -> str:
    if position is None:
        return pick(rng, ("I'm the cop.", "I am the cop, whatever was said before."))
    return pick(rng, (f"I'm the cop. I'll look at card {position}.", f"Cop here. Card {position}, please."))


def look_text(rng: random.Random, position: int, card: str) -> str:
    return pick(rng, (f"Card {position} is {card_name(card)}.", f"I looked: card {position} is {card_name(card)}."))


def kill_text(rng: random.Random, target: str, guess: str) -> str:
    if guess == MAFIA:
        return pick(rng, (f"{target}, you're mafia.", f"I know what you are, {target}.", f"{target} is mafia. Bang."))
    return pick(rng, (f"Sorry, {target}.", f"It's you or me, {target}.", f"{target}, I'm taking my chance."))


def peace_text(rng: random.Random, claim: str) -> str:
    return pick(
        rng,
        (
            f"I'm {card_name(claim)}. Let's shake hands.",
            f"I'm {card_name(claim)}; nobody needs to die.",
            "Handshake. We both walk away.",
        ),
    )


def wait_text(rng: random.Random, claim: str, suspect: str | None) -> str:
    if suspect is not None:
        return pick(rng, (f"I'm {card_name(claim)}. I don't trust {suspect}.", f"{suspect} looks like mafia to me."))
    return pick(rng, (f"I'm {card_name(claim)}.", f"I'm {card_name(claim)}. Your move.", "I'm watching."))


def place_text(rng: random.Random, slot: str | None) -> str:
    if slot is None:
        return pick(rng, ("I'm keeping my card.", "Card back in hand."))
    if slot == "no_kill":
        return pick(rng, ("No kill from me.", "My card is on no kill.", "Let's all put our cards on no kill."))
    return pick(rng, (f"My card is on {slot}: {slot} is mafia.", f"{slot} is mafia. Join me.", f"Put your card on {slot}."))


def soliloquy_text(rng: random.Random, killer: str, claim: str) -> str:
    return pick(
        rng,
        (
            f"{killer}, I'm {card_name(claim)}. Retract and we both score.",
            f"I'm {card_name(claim)}, {killer}. Killing me costs you.",
            f"Think again, {killer}: I'm {card_name(claim)}.",
        ),
    )
