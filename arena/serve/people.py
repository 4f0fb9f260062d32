"""A served table's people: a start that waits for them, the time their clocks had left when the
server stopped, and whose move it is as everyone at the table may know it (docs/serve.md).

A table with person seats does not start its game (nor McKay's wall clock) when it is made: it
starts when every person has opened their page, when whoever made it presses start, or after
``start_wait`` seconds at the latest; then a seat whose person never came plays the defaults its
time-outs play.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from arena.engine import Game

DEFAULT_START_WAIT = 300.0  # seconds a table waits for its people before it starts without them
#: decision groups everyone at the table sees being asked (who speaks, who votes, a beat's players);
#: any other group (a night move, a team's channel, a soliloquy) shows only that others are choosing
PUBLIC_GROUPS = frozenset({"discussion", "defence", "last_words", "verdict", "vote", "floor", "judge", "beat"})
CRASH_GRACE = 30.0  # after a crash a person's clock keeps at least this much (at most what it had)


def turn_of(game: Game) -> dict[str, Any] | None:
    """Whose move it is, as public knowledge: the group and the players asked when the decision is
    one everyone sees being asked, else nothing but that others are choosing (no phase, no name)."""
    if game.finished:
        return None
    pending = game.pending()
    if not pending:
        return None
    if all(request.group in PUBLIC_GROUPS for request in pending):
        return {"group": pending[0].group, "players": [request.player for request in pending]}
    return {"group": None, "players": None}


class Gate:
    """The start of a table with person seats (see the module's docstring)."""

    def __init__(self, persons: Iterable[str], wait: float | None, on_change: Callable[[], None]) -> None:
        self.waiting = list(persons)  # seat order
        self.wait = wait
        self.on_change = on_change
        self.how: str | None = None  # everyone, pressed, timeout: why the game started
        self.ends: float | None = None  # event-loop time of the latest start
        self._event = asyncio.Event()

    @property
    def open(self) -> bool:
        return self._event.is_set()

    def opened(self, seat: str) -> None:
        """A person's page asked for its seat's state."""
        if seat in self.waiting:
            self.waiting.remove(seat)
            if not self.waiting:
                self.release("everyone")
            else:
                self.on_change()

    def release(self, how: str) -> None:
        if not self._event.is_set():
            self.how = how
            self._event.set()
            self.on_change()

    async def passed(self) -> None:
        """Until the table may start."""
        if not self.waiting:
            self.release("everyone")
        if self._event.is_set():
            return
        if self.wait is None:
            await self._event.wait()
            return
        self.ends = asyncio.get_running_loop().time() + self.wait
        self.on_change()
        try:
            await asyncio.wait_for(self._event.wait(), self.wait)
        except TimeoutError:
            self.release("timeout")

    def json(self, now: float) -> dict[str, Any]:
        """For the pages: who is still awaited and how long the table waits at most, or how it started."""
        if self._event.is_set():
            return {"open": True, "how": self.how, "waiting_for": self.waiting}
        left = None if self.ends is None else round(max(0.0, self.ends - now), 3)
        return {"open": False, "how": None, "waiting_for": self.waiting, "left": left, "seconds": self.wait}


def clocks_of(persons: Mapping[str, Any], now: float) -> dict[str, dict[str, Any]]:
    """Each person's open decision with a time limit: its request id and the seconds it has left
    (``now``: event-loop time), with the wall-clock moment it runs out (for a crash)."""
    out = {}
    for name, web in persons.items():
        posed = web.posed
        if posed is None or posed.answer.done():
            continue
        deadline = web.deadline_of(posed.request.id)
        if deadline is None:
            continue
        left = max(0.0, deadline - now)
        out[name] = {"request": posed.request.id, "left": round(left, 3), "ends": round(time.time() + left, 3)}
    return out


def left_after_restart(entry: Mapping[str, Any], stopped: bool) -> float:
    """The seconds a person's decision has after a restart: what it had when the server stopped
    (saved as it stopped), or after a crash what its wall-clock end leaves, at least a short grace."""
    left = float(entry.get("left", 0.0))
    if stopped:
        return max(0.0, left)
    return max(float(entry.get("ends", 0.0)) - time.time(), min(left, CRASH_GRACE))
