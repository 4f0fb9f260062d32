"""McKay's games on the wall clock, for a table with a person at it.

The seeds' two- and three-player games are real-time: whoever speaks first wins. Bots answer
at once, so without a clock "first come" within a beat is a hidden order the engine draws per
round (docs/rules/turns.md). With a person at the table the runner instead plays every beat for
real: it lasts ``seconds`` (default 10: the rules' 12 beats per 2 minutes); a person or a model
answers whenever it does; an instant player (a bot) answers at a seeded random moment of its
think-time distribution; whoever has not answered when the beat ends passes (the request's
default). Each answer reaches the engine with its arrival time, ``at`` (seconds into the beat),
which the engine records on the ``action`` event and uses to settle "first come"; so the engine
reads no clock and a replay comes out the same.

A game cut short (a crash) and resumed (:mod:`arena.run.resume`) gets its clock back from the
transcript's header (``clock``: :meth:`WallClock.describe`). The rebuild replays every recorded
beat with its recorded arrival times, drawing each bot's think time again for each attempt it
made, so the seeded streams go on where they were; the beat the crash cut has no recorded end, so
it starts again in full, its seconds counted on the wall clock from the moment play goes on.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.engine import DecisionRequest
from arena.players.base import Beat

DEFAULT_BEAT_SECONDS = 10.0  # 12 beats per 2-minute round (turns.md: 6 beats per minute)
#: a bot's default think time: uniform over this share of the beat
DEFAULT_THINK_SHARE = (0.2, 0.8)
#: a reply within a running beat (trio: the killer after the victim's soliloquy) gets at least this
#: share of a beat, however long the soliloquy took: time to read it and decide
REPLY_SHARE = 0.5


class ClockError(ValueError):
    """A bad beat length or think time (one line)."""


@dataclass(slots=True, frozen=True)
class ThinkTime:
    """How long an instant player takes in a beat: uniform between ``low`` and ``high`` seconds."""

    low: float
    high: float

    @classmethod
    def parse(cls, text: str) -> ThinkTime:
        """``"2-6"`` (uniform from 2 to 6 s) or ``"3"`` (always 3 s)."""
        low_text, dash, high_text = text.strip().partition("-")
        try:
            low = float(low_text)
            high = float(high_text) if dash else low
        except ValueError:
            raise ClockError(f"think time {text!r}: use SECONDS or LOW-HIGH, e.g. 2-6") from None
        if low < 0 or high < low:
            raise ClockError(f"think time {text!r}: need 0 <= LOW <= HIGH")
        return cls(low, high)

    def draw(self, rng: random.Random) -> float:
        return self.low if self.high == self.low else rng.uniform(self.low, self.high)

    def __str__(self) -> str:
        return f"{self.low:g}" if self.high == self.low else f"{self.low:g}-{self.high:g}"


class WallClock:
    """Beats of ``seconds`` on the wall clock; seeded think times for the instant seats.

    ``think`` maps a seat to its think-time distribution; seats not in it use ``default``
    (uniform over 20-80 % of the beat). Each seat draws from its own seeded stream, so the
    draws do not depend on which other seats answer when.
    """

    def __init__(
        self,
        seconds: float = DEFAULT_BEAT_SECONDS,
        *,
        seed: int = 0,
        think: Mapping[str, ThinkTime] | None = None,
        default: ThinkTime | None = None,
    ) -> None:
        if not seconds > 0:
            raise ClockError(f"a beat must last more than 0 seconds, not {seconds:g}")
        self.seconds = float(seconds)
        self.think = dict(think or {})
        low, high = DEFAULT_THINK_SHARE
        self.default = default or ThinkTime(round(low * seconds, 3), round(high * seconds, 3))
        self.seed = seed
        self._rngs: dict[str, random.Random] = {}
        self._key: tuple | None = None
        self._beat: Beat | None = None

    @staticmethod
    def timed(request: DecisionRequest) -> bool:
        """A decision of a beat (every McKay request with a beat clock; not the trio judge)."""
        return request.clock is not None and request.clock.unit == "beat"

    def think_time(self, seat: str) -> float:
        """The seat's next think time, in seconds (seeded: the same game draws the same)."""
        rng = self._rngs.get(seat)
        if rng is None:
            rng = self._rngs[seat] = random.Random(f"{self.seed}:think:{seat}")
        return self.think.get(seat, self.default).draw(rng)

    def start(self, requests: Sequence[DecisionRequest], now: float) -> Beat:
        """The beat of this batch: a new one, or the running one when the batch continues it
        (trio's soliloquy: the victim speaks, then the killer answers, in one beat). A reply that
        continues a beat gets what is left of it, but never less than :data:`REPLY_SHARE` of a beat
        from now: a soliloquy that took 18 s of a 20 s beat leaves the killer 10 s, not 2."""
        timed = [r for r in requests if self.timed(r)]
        first = timed[0]
        clock = first.clock
        assert clock is not None
        key = (first.day, first.info.get("round"), clock.left, clock.total)
        players = tuple(r.player for r in timed)
        if key == self._key and self._beat is not None:
            ends = max(self._beat.ends, now + REPLY_SHARE * self.seconds)
            beat = Beat(self._beat.label, players, self.seconds, self._beat.started, ends)
        else:
            number = clock.total - clock.left + 1
            label = f"Hand {first.day}, beat {number} of {clock.total}"
            if first.info.get("round", 1) != 1:
                label += f" (round {first.info['round']})"
            beat = Beat(label, players, self.seconds, now, now + self.seconds)
        self._key, self._beat = key, beat
        return beat

    def describe(self) -> dict[str, object]:
        """For the transcript's header: how the clock ran."""
        return {
            "beat_seconds": self.seconds,
            "think": {"default": str(self.default), **{seat: str(t) for seat, t in self.think.items()}},
        }
