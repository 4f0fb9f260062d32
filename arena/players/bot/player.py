"""``bot``: a heuristic player with a memory, a suspicion model and a strategy per variant.

**Levels.** ``bot?mafia=L&town=L`` (or ``bot?level=L`` for both sides; L in [0, 1]) is the same bot
below full strength: on each decision it plays its own move with probability L, otherwise a random
legal move drawn as the ``random`` player draws it. L = 1 is the plain bot, L = 0 plays like
``random``. The level that applies is that of the seat's *side*, read from its card's team: the
``town`` level on a town card, the ``mafia`` level on any other (the mafia, and a third side such as
cove's maniac: every side that wins by hiding its card from the town). In McKay's games, whose
cards are dealt again every hand, the card of the hand being played decides (a mafia card, the
mafia level; a townsperson's or the cop's, the town level). Players of known strength on each side
give the tournament's statistics a ground truth (docs/tournaments.md, *Ground truth*).
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Sequence

from arena.engine import ActionBase, DecisionRequest, View

from ..base import SyncPlayer
from ..random import random_action
from .legal import is_legal, safe_action
from .memory import Memory
from .strategies import Strategy, detect_variant, strategy_for

TOWN = "town"


def suspicion_beliefs(name: str, view: View, seats: Sequence[str], candidates: Sequence[str], prior: float) -> dict[str, float]:
    """The bot's belief that each candidate is mafia: its suspicion through a logistic around the
    base rate ``prior`` (a tournament's belief probe, a belief position).

    A fresh memory reads a copy of the view's events, so the playing bot's own memory is never
    touched (bots at one table share what they read in public, keyed by the log's events). A mafia
    bot knows its partners (1) and everyone else (0).
    """
    memory = Memory(name, seats)
    memory.update(View(name, view.role, [copy.copy(e) for e in view.events]))
    if memory.is_mafia:
        return {c: 1.0 if c in memory.partners else 0.0 for c in candidates}
    memory.refresh()
    base = math.log(prior / (1 - prior)) if 0 < prior < 1 else 0.0
    return {c: round(1 / (1 + math.exp(-(base + memory.suspicion(c)))), 4) for c in candidates}


class BotPlayer(SyncPlayer):
    """Reads its view incrementally, then lets its variant's strategy answer.

    Every answer is checked against the request's fields before it is sent; an answer the
    engine still rejects (a cross-field rule) is followed by a cautious legal one.

    The bot's draws come from the game seed and its seat *position*, never its name: the same
    deal with the seats renamed is played the same way, up to the names. Below full strength
    (``mafia`` or ``town`` < 1) the coin of each decision and the random moves come from a
    generator of their own, seeded the same way, so a level never shifts the bot's own draws.
    """

    spec = "bot"

    def __init__(self, name: str, seed: int = 0, *, mafia: float = 1.0, town: float = 1.0) -> None:
        super().__init__(name)
        for side, level in (("mafia", mafia), ("town", town)):
            if not 0.0 <= level <= 1.0:
                raise ValueError(f"bot {side} level {level}: give a number between 0 and 1")
        self.seed = seed
        self.levels = {"mafia": float(mafia), TOWN: float(town)}
        self.rng: random.Random | None = None  # seeded with the seat at the first request
        self.coin: random.Random | None = None  # below full strength: which decisions are random, and how
        self.memory: Memory | None = None
        self.strategy: Strategy | None = None
        self._made: dict[tuple, ActionBase] = {}

    def level(self) -> float:
        """The probability of playing the bot's own move on the current decision (its side's level)."""
        team = self.memory.team if self.memory is not None else ""
        return self.levels[TOWN if team in (TOWN, "") else "mafia"]

    def believe(self, view: View, seats: Sequence[str], candidates: Sequence[str], prior: float) -> dict[str, float]:
        """A belief position's answer (:func:`suspicion_beliefs`). Below full strength it is a decision
        of its side like any other: its own answer with probability L, else what ``random`` answers
        (a whole percentage per candidate, uniformly). Its coin is its own, drawn from the seed, the
        seat's position and the moment (never its name), so the bot's other draws do not move."""
        team = view_team(view)
        level = self.levels[TOWN if team in (TOWN, "") else "mafia"]
        if level < 1.0:
            index = list(seats).index(self.name) if self.name in seats else -1
            coin = random.Random(f"bot-belief:{self.seed}:{index}:{len(view.events)}")
            if coin.random() >= level:
                return random_beliefs(candidates, coin)
        return suspicion_beliefs(self.name, view, seats, candidates, prior)

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> ActionBase:
        memory = self.memory
        rng = self.rng
        if memory is None or rng is None:
            memory = self.memory = Memory(self.name, request.seats)
            seat = memory.seat_index.get(self.name, -1)
            rng = self.rng = random.Random(f"bot:{self.seed}:{seat}")
            if min(self.levels.values()) < 1.0:
                self.coin = random.Random(f"bot-level:{self.seed}:{seat}")
        memory.update(view)
        if feedback is not None:
            return safe_action(request, rng)
        strategy = self.strategy
        if strategy is None:
            strategy = self.strategy = strategy_for(detect_variant(memory))(memory, rng, self.seed)
        if strategy.observes:
            strategy.observe(view)
        coin = self.coin
        if coin is not None:
            level = self.level()
            if level < 1.0 and coin.random() >= level:
                return random_action(request, coin, self._made)
        action = strategy.decide(request)
        if not is_legal(request, action):
            return safe_action(request, rng)
        return action


def view_team(view: View) -> str:
    """The seat's team as its latest card told it (a ``role`` event's ``team``)."""
    for event in reversed(view.events):
        if event.type == "role" and event.to is not None:
            return str(event.data.get("team") or "")
    return ""


def random_beliefs(candidates: Sequence[str], rng: random.Random) -> dict[str, float]:
    """What ``random`` answers to a belief question: a whole percentage per candidate, uniformly."""
    return {c: rng.randint(0, 100) / 100 for c in candidates}
