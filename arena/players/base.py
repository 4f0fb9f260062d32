"""The player interface: anything that answers a decision request with an action.

Players see a :class:`~arena.engine.events.View` and the request, never the game. ``feedback``
is the engine's reason for rejecting the previous attempt at the same decision (None on the
first attempt). Returning None gives up the decision (it is forfeited).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from arena.engine import ActionBase, DecisionRequest, View


@dataclass(slots=True, frozen=True)
class Malformed:
    """An answer that is not an action at all (bad JSON, unknown kind): counts as one attempt."""

    raw: Any
    error: str


@dataclass(slots=True, frozen=True)
class GiveUp:
    """The player cannot answer at all (e.g. its provider is down): forfeit at once, saying why."""

    why: str


Answer = ActionBase | Malformed | GiveUp | None


class StopGame(Exception):
    """Raised by a player to stop the whole run: a script ran out, a person quit, an endpoint is down.

    The game is not finished: its transcript gets a summary marked ``aborted`` with this message.
    It lives here, beside the answers, so that a player can stop a game without importing the
    orchestrator that catches it (``arena.run.orchestrator.StopGame`` is the same class).
    """

    #: True when the stop is a failure of the run (an endpoint down), not a choice (a person quit):
    #: the command then prints the message as an error line
    error = False


@runtime_checkable
class Player(Protocol):
    name: str

    async def decide(self, request: DecisionRequest, view: View, feedback: str | None) -> Answer: ...


class SyncPlayer:
    """A player that answers at once with no I/O (built-in bots, scripts).

    Games where every seat is a SyncPlayer run on the orchestrator's synchronous fast path,
    with no event loop at all; anywhere else the async :meth:`decide` wraps the same answer.
    """

    spec = "sync"

    def __init__(self, name: str) -> None:
        self.name = name

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Answer:
        raise NotImplementedError

    async def decide(self, request: DecisionRequest, view: View, feedback: str | None) -> Answer:
        return self.decide_now(request, view, feedback)


@dataclass(slots=True, frozen=True)
class Beat:
    """A beat on the wall clock, as the runner starts it (McKay's games with a person at the table).

    Players and observers with a ``beat_started(beat)`` method are told of each one: the person's
    screen shows its countdown and who may act. Everything here is public: who is asked in a beat
    (every living player, or the soliloquy's speaker) and how long it lasts.
    """

    label: str  # "Hand 2, beat 3 of 12"
    players: tuple[str, ...]  # who is asked in it, in seat order
    seconds: float  # its length on the wall clock
    started: float  # event-loop time (``loop.time()``) when it began
    ends: float  # event-loop time when it is over
