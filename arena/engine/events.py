"""Events, their audiences, and a player's view.

The event log is the single source of truth of a game. Every event names its audience when it
is emitted: everyone, a team (resolved to that team's living members at that moment), one
player, or the moderator alone. A player's :class:`View` is exactly the events whose audience
includes it, in log order; nothing else reaches a player.

``Event.seq`` numbers the whole log, hidden events included: it is the transcript's order (replay,
resume, reports of every view). What a seat or a watcher reads is numbered for that reader alone
(:class:`Numbering`): its events 1, 2, 3 … and its own decisions 1, 2, 3 …, so that a gap never
counts what happened out of its sight.
"""

from __future__ import annotations

from collections.abc import Iterable
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


class Numbering:
    """One reader's numbers: its events 1, 2, 3 … in the order it received them, and its own
    decisions 1, 2, 3 … in the order they were first asked or answered.

    The log's ``seq`` and the engine's request ids count every event and every decision of the game;
    handed to a seat, their gaps would tell it how many hidden events and decisions happened (a
    night of four hidden events: a shot, a check, the tally, the result). Every channel a seat or a
    watcher reads (the served API and pages, per-seat reports, ``arena show --as``) renumbers
    through one of these; feed it the reader's events in log order.
    """

    __slots__ = ("count", "decisions")

    def __init__(self) -> None:
        self.count = 0
        self.decisions: dict[Any, int] = {}

    def decision(self, request_id: Any) -> int:
        """The reader's own number of the decision ``request_id`` (the next one if not seen yet)."""
        number = self.decisions.get(request_id)
        if number is None:
            number = self.decisions[request_id] = len(self.decisions) + 1
        return number

    def event(self, raw: dict[str, Any]) -> dict[str, Any]:
        """The next event of the reader (``Event.to_dict()`` form), numbered for it: a copy."""
        self.count += 1
        out = dict(raw)
        out["seq"] = self.count
        data = raw.get("data")
        if data and "request" in data:
            out["data"] = {**data, "request": self.decision(data["request"])}
        return out


def numbered(raws: Iterable[dict[str, Any]], numbering: Numbering | None = None) -> list[dict[str, Any]]:
    """A reader's events (transcript form, in log order), numbered 1, 2, 3 … for that reader."""
    numbering = numbering or Numbering()
    return [numbering.event(raw) for raw in raws]


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

    def decision_number(self, request_id: int) -> int:
        """The seat's own number of decision ``request_id``: 1 + the decisions it answered before
        (what a seat may be shown; the engine's ids count every seat's decisions)."""
        numbering = Numbering()
        for event in self.events:
            if event.actor == self.player and event.to is not None and "request" in event.data:
                numbering.decision(event.data["request"])
        return numbering.decision(request_id)
