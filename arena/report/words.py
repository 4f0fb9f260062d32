"""Sentences for the things a report shows: answers, claims, hand endings, bot thoughts.

A reader sees "declares cop and asks to see card 1", "puts the kill card on Cid", "holds fire",
never the action's identifiers ("declare_cop → position=1", "place_card → Cid", "no_kill"). Both
the HTML report and ``arena show`` use these words, so they agree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

NIGHT_PHASES = frozenset(("night", "channel", "night_roles", "mafia_channel"))
NO_KILL = "no_kill"

HAND_ENDS = {
    "kill": "a kill",
    "time": "time ran out",
    "handshake": "a handshake",
    "no_kill": 'every card on "no kill"',
    "time_during_soliloquy": "time ran out during the soliloquy",
}

#: what the bonus column of a McKay hand means, per variant (rules/mckay.md)
BONUS_MEANING = {
    "duel": (
        "bonus: each player's multiplier after the hand. A good kill first raises the killer's bonus by 1, "
        "then scores the table's points × that bonus; a bad kill scores flat points and drops the killer's "
        "bonus to 0 (the victim's goes up by 1); a hand with no death raises everyone's bonus by 1."
    ),
    "trio": (
        "bonus: added to the hand's points (already counted in them), not multiplied. Surviving the hand "
        "adds 1; dying with a killer of your own side keeps it; dying by the other side alone resets it "
        "to 0; it never goes above 3."
    ),
}
BONUS_MEANING["duel3"] = BONUS_MEANING["duel"]


def names(values: Any) -> str:
    """ "Ann", "Ann and Bob", "Ann, Bob and Cid" (or "nobody")."""
    items = [str(v) for v in values or []]
    if not items:
        return "nobody"
    return " and ".join(items) if len(items) < 3 else ", ".join(items[:-1]) + " and " + items[-1]


def slot_words(slot: Any) -> str:
    """Where a trio kill card lies: "on Cid", 'on "no kill"', "in hand"."""
    if slot is None:
        return "in hand"
    return 'on "no kill"' if slot == NO_KILL else f"on {slot}"


def claim_words(claim: Any) -> str:
    """A structured claim as said: "claims inspector; says Bob is mafia"."""
    data = claim.model_dump(exclude_defaults=True) if hasattr(claim, "model_dump") else dict(claim or {})
    parts = []
    if data.get("role"):
        parts.append(f"claims {data['role']}")
    checks = data.get("checks") if isinstance(data.get("checks"), Mapping) else {}
    parts += [f"says {name} is {result}" for name, result in checks.items()]
    return "; ".join(parts)


def action_words(action: Mapping[str, Any] | None, phase: str = "") -> str:
    """An answer without its subject: "votes for Eve", "holds fire", "declares cop and asks to see card 1"."""
    data = dict(action or {})
    kind = str(data.get("kind", "?"))
    target = data.get("target")
    if kind == "speak":
        parts = []
        if data.get("accuse"):
            parts.append(f"accuses {data['accuse']}")
        if data.get("nominate"):
            parts.append(f"nominates {data['nominate']}")
        if data.get("floor"):
            parts.append(f"hands the floor to {names(data['floor'])}")
        if data.get("claim"):
            parts.append(claim_words(data["claim"]))
        said = "speaks" if data.get("speech") else "stays silent"
        return said + (": " + "; ".join(parts) if parts else "")
    if kind == "verdict":
        return "votes yes" if data.get("yes") else "votes no"
    if kind == "vote":
        return "abstains" if target is None else f"votes for {target}"
    if kind == "kill":
        if target is None:
            return "holds fire"
        return f"names {target} for the kill" if phase in NIGHT_PHASES else f"kills {target}"
    if kind == "check":
        return f"checks {target}"
    if kind == "heal":
        return f"protects {target}"
    if kind == "visit":
        return f"visits {target}"
    if kind == "declare_cop":
        position = data.get("position")
        return "declares cop" + (f" and asks to see card {position}" if position is not None else "")
    if kind == "peek":
        return f"looks at card {data.get('position')}"
    if kind == "handshake":
        return "offers a handshake"
    if kind == "pass":
        return "waits"
    if kind == "place_card":
        slot = data.get("slot")
        return "takes the kill card back" if slot is None else f"puts the kill card {slot_words(slot)}"
    if kind == "judge":
        return f"rules that {data.get('first')} killed first"
    if kind == "continue":
        return "lets the kill stand"
    if kind == "retract":
        return "takes the kill back"
    rest = ", ".join(f"{k.replace('_', ' ')} {_value(v)}" for k, v in data.items() if k not in ("kind", "thought", "speech"))
    return kind.replace("_", " ") + (f": {rest}" if rest else "")


def _value(value: Any) -> str:
    if isinstance(value, list | tuple):
        return names(value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    return "nobody" if value is None else str(value)


# ---- bot thoughts -------------------------------------------------------------------------------
OPTION_WORDS = {"shake": "handshake", "hold": "wait", "wait": "wait", "declare": "declare cop", "hand": "card in hand",
                "no_kill": 'card on "no kill"', "continue": "let the kill stand", "retract": "take the kill back"}  # fmt: skip
_EV = re.compile(r"^EV (?P<options>.+?) -> (?P<choice>[^.]+)\.\s*(?P<rest>.*)$", re.S)
_CARDS = re.compile(r"^Cards: (?P<reads>.+?)\.(?:\s+(?P<rest>.*))?$", re.S)


@dataclass(slots=True)
class Thought:
    """A thought for the page: the text, or a bot's weighing laid out (options, reads, the rest)."""

    text: str
    options: list[tuple[str, str, bool]] = field(default_factory=list)  # (option, value, chosen)
    reads: list[tuple[str, str]] = field(default_factory=list)  # (player, card odds)
    rest: str = ""

    def plain(self) -> str:
        """One line for the terminal."""
        if not self.options:
            return self.text
        weighed = ", ".join(f"{o} {v}" + (" (chosen)" if chosen else "") for o, v, chosen in self.options)
        parts = [f"weighs {weighed}"]
        if self.reads:
            parts.append("reads " + "; ".join(f"{who}: {odds}" for who, odds in self.reads))
        if self.rest:
            parts.append(self.rest)
        return " — ".join(parts)


def _option(label: str, context: str) -> str:
    if label.startswith("kill:"):
        return f"kill {label.removeprefix('kill:')}"
    if label in OPTION_WORDS:
        return OPTION_WORDS[label]
    return f"card on {label}" if context == "place" else label


def thought(text: str) -> Thought:
    """A thought as the page shows it.

    The built-in McKay bots write their reasoning as a compact weighing ("EV kill:Bob -1.52,
    shake +0.50 -> shake. Cards: Bob: mafia 50%, cop 25%."). That text is laid out as the options
    weighed (best first, the chosen one marked) and the cards the bot reads on each player; any
    other thought, or one that does not fit that shape, is shown as written.
    """
    match = _EV.match(text.strip())
    if match is None:
        return Thought(text)
    options = []
    raw = [part.strip() for part in match["options"].split(", ")]
    context = "place" if any(p.startswith(("no_kill ", "hand ")) for p in raw) else ""
    for part in raw:
        label, _, value = part.rpartition(" ")
        try:
            number = float(value)
        except ValueError:
            return Thought(text)
        options.append((label, number, value))
    choice = match["choice"].strip()
    ordered = sorted(options, key=lambda o: -o[1])
    shown = [(_option(label, context), value.replace("-", "−"), label == choice) for label, _, value in ordered]
    out = Thought(text, shown)
    rest = match["rest"].strip()
    cards = _CARDS.match(rest)
    if cards is not None:
        for read in cards["reads"].split("; "):
            who, _, odds = read.partition(": ")
            out.reads.append((who.strip(), odds.strip()))
        rest = (cards["rest"] or "").strip()
    out.rest = rest
    return out
