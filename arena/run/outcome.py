"""How a game ended and how each player left it, in words: one wording for every reader.

A game's result is said with its reason in words ("town wins: every mafia member is gone"),
never as the engine's reason code ("win", "max_days", "match"): :func:`result_text`, used by the
terminal's result line (:mod:`arena.cli.console`), ``arena show`` and the reports.

A death is worded by :func:`arena.engine.wording.fate_text` ("killed by the mafia on night 1",
"executed on day 2") from the death's cause, day and phase; :func:`fates` finds each player's
announced death in an event log and words it that way, so the report, ``arena show`` and the
terminal's end table say the same thing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.engine import Event
from arena.engine.wording import fate_text, signed_number


@dataclass(frozen=True, slots=True)
class Fate:
    """A player's death as the table was told: the announced cause, when, the card if shown."""

    player: str
    cause: str
    day: int
    phase: str
    role: str | None = None

    def text(self, cause: str | None = None) -> str:
        """ "killed by the mafia on night 1"; ``cause`` replaces the announced one (the recorded truth,
        where the variant hid it from the table)."""
        return fate_text(cause or self.cause, self.day, self.phase)


def fates(events: Iterable[Event]) -> dict[str, Fate]:
    """Every player's last announced death (public ``death`` events); the living are absent.

    In McKay's matches everybody is dealt in again each hand, so a player's last death is the
    one of the latest hand in which they died.
    """
    out: dict[str, Fate] = {}
    for event in events:
        if event.type == "death" and event.to is None:
            name, role = str(event.data.get("player")), event.data.get("role")
            out[name] = Fate(name, str(event.data.get("cause")), event.day, event.phase, str(role) if role else None)
    return out


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
    table = ", ".join(f"{name} {signed_number(score)}" for name, score in ranked)  # as the hand lines write scores
    if winner in (None, "draw"):
        return "the match is drawn" + (f": a shared highest total ({table})" if table else "")
    return f"{winner} wins the match" + (f" on points ({table})" if table else "")
