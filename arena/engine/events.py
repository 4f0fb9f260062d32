"""Events, their audiences, and a player's view.

The event log is the single source of truth of a game. Every event names its audience when it
is emitted: everyone, a team (resolved to that team's living members at that moment), one
player, or the moderator alone. A player's :class:`View` is exactly the events whose audience
includes it, in log order; nothing else reaches a player.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .actions import ActionBase, dump_action

PUBLIC = "all"
MODERATOR = "moderator"


def team_audience(team: str) -> str:
    return f"team:{team}"


def player_audience(name: str) -> str:
    return f"player:{name}"


@dataclass(slots=True)
class Event:
    """Something that happened.

    ``audience`` is the label written to the transcript ("all", "team:mafia", "player:Ann",
    "moderator"); ``to`` is who may see it, fixed when it happened (``None`` = everyone).
    Not a frozen dataclass only because frozen ones are several times slower to build, and a
    game emits hundreds; nothing may mutate an event once logged.
    """

    seq: int
    type: str  # "speech", "death", "action" (the actor's own accepted answer), ...
    day: int
    phase: str
    audience: str
    to: frozenset[str] | None
    actor: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def visible_to(self, name: str) -> bool:
        return self.to is None or name in self.to

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seq": self.seq,
            "type": self.type,
            "day": self.day,
            "phase": self.phase,
            "audience": self.audience,
        }
        if self.to is not None:
            out["to"] = sorted(self.to)
        if self.actor is not None:
            out["actor"] = self.actor
        if self.data:
            out["data"] = {k: dump_action(v) if isinstance(v, ActionBase) else v for k, v in self.data.items()}
        return out

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Event:
        to = raw.get("to")
        return cls(
            seq=raw["seq"],
            type=raw["type"],
            day=raw["day"],
            phase=raw["phase"],
            audience=raw["audience"],
            to=None if to is None else frozenset(to),
            actor=raw.get("actor"),
            data=raw.get("data", {}),  # actions stay plain dicts here
        )


class View:
    """One player's window on the log: exactly the events it may see, kept up to date lazily.

    Players get a View, never the Game. The filtering happens here and only here, so an audit
    of views is an audit of everything a player (and hence a prompt) can hold.
    """

    __slots__ = ("_events", "_log", "_role", "_seen", "player")

    def __init__(self, player: str, role: str, log: list[Event]) -> None:
        self.player = player
        self._role = role
        self._log = log
        self._seen = 0
        self._events: list[Event] = []

    @property
    def events(self) -> list[Event]:
        log = self._log
        if self._seen < len(log):
            name = self.player
            self._events += [e for e in log[self._seen :] if e.to is None or name in e.to]
            self._seen = len(log)
        return self._events

    @property
    def role(self) -> str:
        """The player's current card: the latest ``role`` event told to it (McKay deals every hand)."""
        for event in reversed(self.events):
            if event.type == "role" and event.to is not None:
                return event.data["role"]
        return self._role

    def since(self, index: int) -> list[Event]:
        """Events of this view from position ``index`` on (for incremental readers: every bot
        calls this at every decision, so it does the catching up itself, without ``events``)."""
        log = self._log
        if self._seen < len(log):
            name = self.player
            self._events += [e for e in log[self._seen :] if e.to is None or name in e.to]
            self._seen = len(log)
        return self._events[index:]
