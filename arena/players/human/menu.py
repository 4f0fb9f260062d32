"""The legal answers of one request as a short numbered menu, and what a person types matched to it.

Everything here comes from the request alone (its options, their choices and the engine's own
reasons in ``forbidden``), so a menu or a complaint can never show what the seat may not know.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.engine import DecisionRequest, FieldSpec, Option
from arena.engine.actions import Claim

NAME_FIELDS = ("accuse", "nominate")  # speak fields asked one by one after the words
LABELS = {  # kind -> label of the entry naming value v
    "kill": "kill {}",
    "vote": "vote {}",
    "check": "check {}",
    "heal": "save {}",
    "visit": "visit {}",
    "judge": "{} killed first",
    "place_card": "card on {}",
    "declare_cop": "declare cop, look at the {} face-down card",
    "peek": "look at the {} face-down card",
}
ORDINAL_KINDS = ("declare_cop", "peek")  # their value is a face-down card's position: 1st, 2nd, …
ALIASES = {  # kind -> other verbs a person may type before the value
    "kill": ("shoot",),
    "heal": ("heal",),
    "place_card": ("card", "place", "put"),
    "declare_cop": ("declare", "declare cop", "look"),
    "peek": ("peek at", "look"),
    "judge": ("first",),
}
NULL_LABELS = {
    "kill": ("hold fire", ("hold", "none", "nobody")),
    "vote": ("abstain", ("none", "nobody")),
    "place_card": ("take your card back", ("back", "take back", "none")),
    "declare_cop": ("declare cop (no look)", ("declare", "declare cop")),
    "accuse": ("nobody", ("none", "no one")),
    "nominate": ("nobody", ("none", "no one")),
}
PLAIN = {
    "pass": ("pass", ("p",)),
    "handshake": ("offer a handshake", ("handshake", "shake")),
    "continue": ("continue: the kill stands", ("continue",)),
    "retract": ("retract the kill", ("retract",)),
    "speak": ("speak", ("say",)),
}


@dataclass(frozen=True, slots=True)
class Entry:
    """One menu line: an action kind with its one narrowed value filled in (or none to fill)."""

    kind: str
    values: tuple[tuple[str, Any], ...]
    label: str
    words: frozenset[str]
    ask_fields: bool = False  # speak (or any kind with several fields): asked field by field

    @property
    def fields(self) -> dict[str, Any]:
        return dict(self.values)


def norm(text: str) -> str:
    """Lower case, single spaces: what matching compares."""
    return " ".join(text.lower().split())


def _nth(n: Any) -> str:
    if not isinstance(n, int):
        return str(n)
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _value_words(kind: str, value: Any, label: str) -> frozenset[str]:
    words = {norm(label), norm(f"{kind.replace('_', ' ')} {value}")}
    if isinstance(value, str):
        words.add(norm(value))  # a name (or no_kill) alone; a bare number is a menu number
        words.add(norm(value.replace("_", " ")))
    words.update(norm(f"{verb} {value}") for verb in ALIASES.get(kind, ()))
    return frozenset(words)


def field_entries(kind: str, field: str, spec: FieldSpec) -> list[Entry]:
    """One entry per legal value of one field, the null choice (if allowed) last."""
    fmt = LABELS.get(kind, "{}") if field not in NAME_FIELDS else "{}"

    def label(value: Any) -> str:
        shown = _nth(value) if kind in ORDINAL_KINDS else str(value).replace("_", " ")
        return fmt.format(shown)

    entries = [
        Entry(kind, ((field, value),), label(value), _value_words(kind, value, label(value))) for value in spec.choices or ()
    ]
    if spec.nullable:
        label, more = NULL_LABELS.get(field if field in NAME_FIELDS else kind, ("none", ("nobody",)))
        entries.append(Entry(kind, ((field, None),), label, frozenset({norm(label), *more})))
    return entries


def move_entries(request: DecisionRequest) -> list[Entry]:
    """Every legal answer of ``request`` as menu entries (words are asked separately)."""
    entries: list[Entry] = []
    nulls: list[Entry] = []
    for option in request.options:
        entries_of = _option_entries(option)
        entries += [e for e in entries_of if None not in e.fields.values() or not e.values]
        nulls += [e for e in entries_of if e.values and None in e.fields.values()]
    return entries + nulls


def _option_entries(option: Option) -> list[Entry]:
    kind = option.kind
    if kind == "verdict":
        return [
            Entry(kind, (("yes", True),), "yes", frozenset({"yes", "y"})),
            Entry(kind, (("yes", False),), "no", frozenset({"no", "n"})),
        ]
    if kind == "speak" or len(option.fields) > 1:
        label, more = PLAIN.get(kind, (kind.replace("_", " "), ()))
        return [Entry(kind, (), label, frozenset({kind, norm(label), *more}), ask_fields=True)]
    if not option.fields:
        label, more = PLAIN.get(kind, (kind.replace("_", " "), ()))
        return [Entry(kind, (), label, frozenset({kind, norm(label), *more}))]
    ((field, spec),) = option.fields.items()
    return field_entries(kind, field, spec)


def split_words(text: str) -> tuple[str, str | None]:
    """``"2: got you"`` -> ``("2", "got you")``; words after the first colon go with the move."""
    choice, colon, words = text.partition(":")
    return choice.strip(), (words.strip() if colon else None)


def match(entries: Sequence[Entry], text: str, request: DecisionRequest) -> Entry | str:
    """The entry ``text`` names (a number, a name, a label, a unique prefix), or why none does."""
    typed = norm(text)
    if not typed:
        return f"type a number (1-{len(entries)}) or a name"
    if typed.isdigit():
        n = int(typed)
        if 1 <= n <= len(entries):
            return entries[n - 1]
        return f"there is no choice {n}: pick 1-{len(entries)}"
    exact = [e for e in entries if typed in e.words]
    if len(exact) == 1:
        return exact[0]
    found = exact or [e for e in entries if any(w.startswith(typed) for w in e.words)]
    if len(found) == 1:
        return found[0]
    if found:
        numbers = ", ".join(f"{entries.index(e) + 1} ({e.label})" for e in found[:6])
        return f"'{text.strip()}' could be {numbers}: type the number"
    return explain(text, request, len(entries))


def explain(text: str, request: DecisionRequest, count: int) -> str:
    """Why what was typed is no legal choice: the engine's own reason where it gave one."""
    tokens = set(re.split(r"[\s,]+", norm(text)))
    for option in request.options:
        for spec in option.fields.values():
            for value, reason in spec.forbidden.items():
                if norm(str(value)) in tokens:
                    return reason
    by_lower = {name.lower(): name for name in request.seats}
    for token in tokens:
        name = by_lower.get(token)
        if name is None:
            continue
        if name not in request.alive:
            return f"{name} is dead"
        if name == request.player:
            return "you cannot choose yourself here"
        return f"{name} is not a choice here"
    close = did_you_mean(norm(text), [seat for seat in request.alive if seat != request.player])
    if close:
        return f"'{text.strip()}' is not one of the choices{close} (or type a number, 1-{count})"
    return f"'{text.strip()}' is not one of the choices: type a number (1-{count}) or a name"


def match_many(entries: Sequence[Entry], text: str, request: DecisionRequest, most: int | None) -> list[Entry] | str:
    """Several distinct entries (the floor), by numbers or names separated by commas or spaces."""
    picked: list[Entry] = []
    for token in (t for t in re.split(r"[\s,]+", text.strip()) if t):
        entry = match(entries, token, request)
        if isinstance(entry, str):
            return entry
        if entry in picked:
            return f"{entry.label} is named twice"
        picked.append(entry)
    if most is not None and len(picked) > most:
        return f"at most {most} players, not {len(picked)}"
    return picked


def completions(request: DecisionRequest, entries: Sequence[Entry]) -> list[str]:
    """Words for tab completion: the seat names as written, then the single-word choices."""
    words = list(request.seats)
    for entry in entries:
        for word in sorted(entry.words):
            if " " not in word and not word.isdigit() and word.lower() not in (w.lower() for w in words):
                words.append(word)
    return words


# ---- claims ------------------------------------------------------------------------------------
RESULT_WORDS = {"mafia": "mafia", "not mafia": "not mafia", "town": "not mafia", "innocent": "not mafia", "clean": "not mafia"}
NO_CLAIM = frozenset(("", "none", "no", "nothing", "no claim"))


def parse_claim(text: str, roles: Sequence[str], seats: Sequence[str], me: str) -> Claim | str | None:
    """What a person typed at the claim step as the structured claim every bot reads, or why not.

    ``inspector``, ``inspector: Fay mafia, Gus not mafia`` or ``Fay mafia`` (an optional leading
    ``claim``; ``is`` between name and result is fine); Enter or ``none`` is no claim. The role is
    one of the variant's cards (a lie is allowed: it is a claim), a name any seat but one's own.
    """
    typed = norm(text)
    if typed.startswith("claim "):
        typed = typed.removeprefix("claim ").strip()
    if typed in NO_CLAIM or typed == "claim":
        return None
    role_part, colon, checks_part = typed.partition(":")
    if not colon:
        bare = _role_words(typed)
        seat_like = any(seat.lower().startswith(bare) for seat in seats)
        if bare in roles or (" " not in bare and not seat_like):  # one word, no seat's: meant as a card
            role_part, checks_part = bare, ""
        else:
            role_part, checks_part = "", typed
    role = _role_words(role_part) or None
    if role is not None and role not in roles:
        close = did_you_mean(role, roles)
        cards = ", ".join(roles)
        return (
            f"'{role}' is no card in this game{close} (the cards: {cards})"
            if close
            else f"'{role}' is no card in this game: claim one of {cards}"
        )
    checks: dict[str, str] = {}
    for item in (part.strip() for part in re.split(r"[,;]", checks_part)):
        if not item:
            continue
        found = _one_check(item, seats, me)
        if isinstance(found, str):
            return found
        name, result = found
        if name in checks:
            return f"{name} is named twice"
        checks[name] = result
    if role is None and not checks:
        return "type a role, checks (NAME mafia / NAME not mafia) or both: 'inspector: Fay mafia'"
    return Claim(role=role, checks=checks)


def _role_words(text: str) -> str:
    """'I am the inspector' / 'a citizen' -> the card's name as typed."""
    return text.strip().removeprefix("i am ").removeprefix("the ").removeprefix("a ").strip()


def _one_check(item: str, seats: Sequence[str], me: str) -> tuple[str, str] | str:
    """``fay mafia`` / ``fay is not mafia`` -> ("Fay", "not mafia"), or why not."""
    name_part, _, result_part = item.partition(" ")
    result_part = result_part.strip().removeprefix("is ").strip()
    result = RESULT_WORDS.get(result_part)
    by_lower = {seat.lower(): seat for seat in seats}
    name = by_lower.get(name_part)
    if name is None:
        starting = [seat for low, seat in by_lower.items() if low.startswith(name_part)] if name_part else []
        if len(starting) != 1:
            close = did_you_mean(name_part, seats)
            return f"'{name_part}' is no seat at this table{close} (a check is NAME mafia or NAME not mafia)"
        name = starting[0]
    if name == me:
        return "a check is about another player, not yourself"
    if result is None:
        said = f"'{result_part}'" if result_part else "nothing"
        return f"{name}: {said} is no check result: say mafia or not mafia"
    return name, result


MANY_OF = frozenset(("citizen", "villager", "civilian", "townsperson"))  # cards dealt to several players
CHECKERS = ("inspector", "detective")  # the cards that learn check results (what a claim's checks report)


def did_you_mean(typed: str, words: Sequence[str]) -> str:
    """': did you mean citizen?' for a slip of the keys (``citzen``), or '' when nothing is close."""
    by_lower = {word.lower(): word for word in words}
    close = difflib.get_close_matches(typed.lower(), list(by_lower), n=1, cutoff=0.6)
    return f": did you mean {by_lower[close[0]]}?" if close else ""


def claim_example(roles: Sequence[str], seat: str) -> str:
    """An example claim that makes sense in this game: a card that checks, with a check
    ('detective: Cid mafia'); a card without checks alone where no card checks."""
    checker = next((role for role in roles if role in CHECKERS), None)
    if checker is not None:
        return f"{checker}: {seat} mafia"
    return next((role for role in roles if role != "mafia"), roles[0] if roles else "citizen")


def claim_words(claim: Claim) -> str:
    """The claim as the table will hear it: 'I am the inspector; Fay is mafia', 'I am a citizen'."""
    role = claim.role
    article = "" if role == "mafia" else ("a " if role in MANY_OF else "the ")
    parts = [f"I am {article}{role}"] if role else []
    parts += [f"{name} is {result}" for name, result in claim.checks.items()]
    return "; ".join(parts)
