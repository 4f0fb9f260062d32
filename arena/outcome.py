"""How a game ended and how each player left it, in words: one wording for every reader.

The terminal's end table (:mod:`arena.console`), ``arena show`` and the HTML reports all say a
death the same way, from the event log alone: a death belongs to the day or night *in which the
table learned of it*, i.e. the last ``day``/``night``/``hand`` event before the ``death`` event.
A shot fired in night 1 and announced on the morning of day 2 is "night 1", never "day 1" (the
death's ``day`` number, which counts days, says nothing about whether it was a night).

A game's result is said with its reason in words ("town wins: every mafia member is gone"), never
as the engine's reason code ("win", "max_days", "match").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.engine import Event

#: the engine's death causes -> what happened, in words (the period is added after a comma)
CAUSE_WORDS = {
    "execution": "executed",
    "lot": "died by lot",
    "vote": "voted out",
    "mafia": "killed by the mafia",
    "maniac": "killed by the maniac",
    "mistress": "died with the mistress",
    "night": "killed",  # cove hides who killed at night: the period says when
    "arrest": "arrested",
    "kill": "killed",
    "simultaneous": "killed in a simultaneous kill",
}
PERIODS = {"day": "day", "night": "night", "hand": "hand"}


@dataclass(frozen=True, slots=True)
class Moment:
    """A day, a night or a hand: what a reader calls the part of the game an event belongs to."""

    period: str  # "day", "night", "hand", or "" before the first one
    number: int

    def text(self) -> str:
        return f"{self.period} {self.number}" if self.period else "before the game"


@dataclass(frozen=True, slots=True)
class Fate:
    """A player's death as the table was told: when, and the announced cause."""

    player: str
    cause: str
    moment: Moment
    role: str | None = None  # the card shown at death, when the rules show it

    def text(self, cause: str | None = None) -> str:
        """ "killed by the mafia, night 1", "executed, day 2"; ``cause`` replaces the announced one
        (the recorded truth, where the variant hid it from the table)."""
        cause = cause or self.cause
        return f"{CAUSE_WORDS.get(cause, f'died ({cause})')}, {self.moment.text()}"


def moments(events: Iterable[Event]) -> dict[int, Moment]:
    """Each event's seq -> the day, night or hand it belongs to (the last one opened before it)."""
    out: dict[int, Moment] = {}
    current = Moment("", 0)
    for event in events:
        if event.type in PERIODS and event.to is None:
            number = event.data.get("number", event.day)
            current = Moment(PERIODS[event.type], int(number) if isinstance(number, int) else event.day)
        out[event.seq] = current
    return out


def fates(events: Iterable[Event]) -> dict[str, Fate]:
    """Every player's last announced death (public ``death`` events); the living are absent.

    In McKay's matches everybody is dealt in again each hand, so a player's last death is the
    one of the latest hand in which they died.
    """
    out: dict[str, Fate] = {}
    current = Moment("", 0)
    for event in events:
        if event.type in PERIODS and event.to is None:
            number = event.data.get("number", event.day)
            current = Moment(PERIODS[event.type], int(number) if isinstance(number, int) else event.day)
        elif event.type == "death" and event.to is None:
            name = str(event.data.get("player"))
            role = event.data.get("role")
            out[name] = Fate(name, str(event.data.get("cause")), current, str(role) if role else None)
    return out


def fate_text(fate: Fate | None, cause: str | None = None) -> str:
    """A seat's fate for a table: "alive", or how and when it died (``cause``: see :meth:`Fate.text`)."""
    return "alive" if fate is None else fate.text(cause)


# ---- results ----------------------------------------------------------------------------------
def result_text(
    winner: str | None,
    reason: str,
    *,
    alive_roles: Mapping[str, str] | None = None,
    team_of: Mapping[str, str] | None = None,
    scores: Mapping[str, Any] | None = None,
    max_days: Any = None,
) -> str:
    """A finished game's result with its reason in words.

    ``alive_roles`` (the survivors' cards) and ``team_of`` (card -> team) say why a side won;
    ``scores`` are a McKay match's totals. Without them the sentence is shorter, never a code.
    """
    if reason == "match" or scores:
        return _match(winner, scores or {})
    if winner in (None, "draw"):
        why = {
            "max_days": f"the day limit{f' ({max_days} days)' if max_days else ''} was reached with no side winning",
            "nobody alive": "nobody is left alive",
        }.get(reason, reason.replace("_", " "))
        return f"a draw: {why}"
    if reason != "win":
        return f"{winner} wins: {reason.replace('_', ' ')}"
    return f"{winner} wins: {_why_won(winner, alive_roles, team_of)}"


def _why_won(winner: str, alive_roles: Mapping[str, str] | None, team_of: Mapping[str, str] | None) -> str:
    if alive_roles is None or team_of is None:
        return {"town": "every mafia member is gone", "mafia": "the mafia can no longer be outvoted"}.get(
            winner, "the last side standing"
        )
    teams = [team_of.get(role, role) for role in alive_roles.values()]
    mafia = teams.count("mafia")
    others = len(teams) - mafia
    if winner == "town":
        return "every mafia member is gone" + (" and so is the maniac" if "maniac" in team_of.values() else "")
    if winner == "mafia":
        if mafia > others:
            return f"the mafia outnumber the rest ({mafia} against {others})"
        return f"the mafia are as many as the rest ({mafia} against {others})"
    if winner == "maniac":
        left = "alone" if others <= 1 else f"with {others - 1} other player{'s' if others > 2 else ''}"
        return f"the maniac is left {left}, every mafia member gone"
    return f"{winner} is the last side standing"


def _match(winner: str | None, scores: Mapping[str, Any]) -> str:
    ranked = sorted(((name, s) for name, s in scores.items() if isinstance(s, int)), key=lambda kv: -kv[1])
    table = ", ".join(f"{name} {score}" for name, score in ranked)
    if winner in (None, "draw"):
        return "the match is drawn" + (f": a shared highest total ({table})" if table else "")
    return f"{winner} wins the match" + (f" on points ({table})" if table else "")
