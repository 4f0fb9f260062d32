"""The strategy interface and the generic fallback that plays any request legally."""

from __future__ import annotations

import random
from typing import ClassVar

from arena.engine import ActionBase, DecisionRequest, View

from ..legal import safe_action
from ..memory import Memory


class Strategy:
    """Answers requests for one bot in one game. This base knows no rules at all: it answers
    with the request's default or a cautious legal choice, so a bot can sit at any table."""

    variant: ClassVar[str] = "generic"
    #: whether :meth:`observe` reads anything (the day/night strategies need only the memory)
    observes: ClassVar[bool] = False

    def __init__(self, memory: Memory, rng: random.Random, seed: int = 0) -> None:
        self.mem = memory
        self.rng = rng
        self.seed = seed  # the game's seed (a bot shares no draw with anyone: see arena/players/convention.py)

    def observe(self, view: View) -> None:
        """Called before each decision with the bot's view, for strategies that read events the
        memory does not keep (McKay's looks, hands and scores); the others need nothing more."""

    def decide(self, request: DecisionRequest) -> ActionBase:
        return safe_action(request, self.rng)
