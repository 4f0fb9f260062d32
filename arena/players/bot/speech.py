"""Short generated sentences, so that a transcript of bots reads like a game.

Each function picks one of a few templates with the bot's own seeded rng: the same seed gives the
same words. Reasons come from :meth:`Memory.reasons` as tuples (``("spared", voter, accused, n)``
…), so what a bot says is what it actually weighed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

TIMES = {1: "once", 2: "twice", 3: "three times"}


def pick(rng: random.Random, options: Sequence[str]) -> str:
    return options[rng.randrange(len(options))]


def times(n: int) -> str:
    return TIMES.get(n, f"{n} times")


def join_names(names: Sequence[str]) -> str:
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def reason_text(rng: random.Random, reason: tuple) -> str:
    """One reason as a sentence."""
    kind = reason[0]
    if kind == "claimed_check":
        _, claimer, target, result = reason
        return pick(
            rng,
            (
                f"{claimer} checked {target}: {result}. I believe {claimer}.",
                f"{claimer}'s check on {target} came back {result}.",
            ),
        )
    if kind == "fake_claim":
        _, name, role = reason
        return pick(
            rng,
            (
                f"{name} claims the {role}, but the checks do not add up.",
                f"There is only one {role}, and it is not {name}.",
            ),
        )
    if kind == "spared":
        _, voter, accused, n = reason
        return pick(
            rng,
            (
                f"{voter} voted to spare {accused} {times(n)}; I don't trust that.",
                f"{voter} kept protecting {accused}.",
            ),
        )
    if kind == "pushed":
        _, voter, accused, n = reason
        return pick(
            rng,
            (
                f"{voter} voted to get rid of {accused}, and {accused} was town.",
                f"{voter} pushed {accused} out; that cost us a townsperson.",
            ),
        )
    if kind == "pushed_me":
        _, voter, n = reason
        return pick(rng, (f"{voter} voted to get rid of me {times(n)}, and I'm town.", f"{voter} wants me gone. Ask why."))
    if kind == "accused_me":
        _, accuser = reason
        return pick(rng, (f"{accuser} went after me, and I know I'm town.", f"{accuser} accused me for no good reason."))
    if kind == "accused_town":
        _, accuser, accused = reason
        return pick(
            rng,
            (
                f"{accuser} went after {accused}, who was clearly town.",
                f"{accuser} accused {accused} for no good reason.",
            ),
        )
    if kind == "accused_by_victim":
        _, victim, name = reason
        return pick(
            rng,
            (
                f"{victim} accused {name}, and then {victim} was shot in the night.",
                f"The mafia silenced {victim} right after {victim} named {name}.",
            ),
        )
    return ""


def claim_text(rng: random.Random, role: str, checks: Mapping[str, str], latest: str | None = None) -> str:
    """Coming out as ``role`` and stating the checks (the latest one first)."""
    order = ([latest] if latest in checks else []) + [t for t in checks if t != latest]
    if not order:
        return pick(rng, (f"I am the {role}.", f"I'll say it plainly: I am the {role}."))
    first = order[0]
    head = pick(
        rng,
        (
            f"I'm the {role}: I checked {first} — {checks[first]}.",
            f"{role.capitalize()} here. My check on {first} came back {checks[first]}.",
            f"Time to come out: I am the {role}, and {first} is {checks[first]}.",
        ),
    )
    rest = [f"{t} is {checks[t]}" for t in order[1:]]
    if rest:
        head += " Before that: " + "; ".join(rest) + "."
    return head


def accuse_text(rng: random.Random, target: str, reasons: Sequence[tuple], seconded: Sequence[str] = ()) -> str:
    """An accusation with its reasons; ``seconded`` names those who accused ``target`` before today."""
    said = [reason_text(rng, r) for r in reasons]
    said = [s for s in said if s]
    if said:
        lead = pick(rng, (f"I accuse {target}.", f"{target}, I'm calling you out.", f"My vote is on {target}."))
        return lead + " " + " ".join(said)
    if seconded:
        who = join_names(list(seconded)[:2])
        return pick(
            rng,
            (
                f"I'm with {who}: {target}.",
                f"{who} made a point. I accuse {target} too.",
                f"Let's settle it on {target}.",
            ),
        )
    return pick(
        rng,
        (
            f"Nobody has much yet, so I'll start: I accuse {target}.",
            f"Let's see how people vote. I accuse {target}.",
            f"Somebody has to go first: {target}.",
            f"Gut feeling: {target}. I accuse.",
        ),
    )


def idle_text(rng: random.Random, suspect: str | None) -> str:
    if suspect is None:
        return pick(
            rng,
            (
                "Nothing solid yet; I'm watching the votes.",
                "I have no read yet. Let's hear the others.",
                "Too early to say. Keep talking.",
            ),
        )
    return pick(
        rng,
        (
            f"I'm not sure yet, but {suspect} worries me.",
            f"{suspect} is on my list. Not enough to accuse.",
            f"Watch {suspect}'s votes.",
        ),
    )


def defence_text(rng: random.Random, counter: str | None, reasons: Sequence[tuple]) -> str:
    deny = pick(
        rng,
        (
            "I'm town. You're wasting a vote on me.",
            "I am not mafia. Think about who started this.",
            "This is a mistake: I'm one of you.",
        ),
    )
    if counter is None:
        return deny
    said = " ".join(s for s in (reason_text(rng, r) for r in reasons) if s)
    look = pick(rng, (f"Look at {counter} instead.", f"{counter} is the one you want.", f"If anyone, {counter}."))
    return f"{deny} {look} {said}".strip()


def floor_text(rng: random.Random, accused: str, believe: bool) -> str:
    if believe:
        return pick(
            rng,
            (
                f"I believe {accused}. Vote no.",
                f"{accused} has voted with the town all game. Spare {accused}.",
                f"Don't do this; {accused} is not our problem.",
            ),
        )
    return pick(
        rng,
        (
            f"Sorry, {accused}, I'm not convinced.",
            f"I have doubts about {accused}.",
            f"{accused}'s defence doesn't change my mind.",
        ),
    )


def last_words_text(rng: random.Random, suspect: str | None) -> str:
    if suspect is None:
        return pick(rng, ("Good luck, town.", "Find them. I was one of you.", "Farewell, and watch the votes."))
    return pick(
        rng,
        (
            f"Good luck. Watch {suspect}.",
            f"My last word: {suspect}.",
            f"I was town. If I were you I'd look at {suspect}.",
        ),
    )


def channel_text(rng: random.Random, target: str, following: bool, why: str = "") -> str:
    if following:
        return pick(rng, (f"Agreed: {target}.", f"{target}, then.", f"With you on {target}."))
    base = pick(rng, (f"Let's take {target} tonight.", f"{target}.", f"I say {target}."))
    return f"{base} {why}".strip()


def verdict_text(rng: random.Random, accused: str, yes: bool) -> str:
    if yes:
        return pick(rng, (f"{accused} goes.", f"Guilty, {accused}.", f"Yes on {accused}."))
    return pick(rng, (f"Not {accused}.", f"No on {accused}.", f"{accused} stays."))
