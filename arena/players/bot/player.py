"""``bot``: a heuristic player with a memory, a suspicion model and a strategy per variant."""

from __future__ import annotations

import random

from arena.engine import ActionBase, DecisionRequest, View

from ..base import SyncPlayer
from .legal import is_legal, safe_action
from .memory import Memory
from .strategies import Strategy, detect_variant, strategy_for


class BotPlayer(SyncPlayer):
    """Reads its view incrementally, then lets its variant's strategy answer.

    Every answer is checked against the request's fields before it is sent; an answer the
    engine still rejects (a cross-field rule) is followed by a cautious legal one.

    The bot's draws come from the game seed and its seat *position*, never its name: the same
    deal with the seats renamed is played the same way, up to the names.
    """

    spec = "bot"

    def __init__(self, name: str, seed: int = 0) -> None:
        super().__init__(name)
        self.seed = seed
        self.rng: random.Random | None = None  # seeded with the seat at the first request
        self.memory: Memory | None = None
        self.strategy: Strategy | None = None

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> ActionBase:
        memory = self.memory
        rng = self.rng
        if memory is None or rng is None:
            memory = self.memory = Memory(self.name, request.seats)
            rng = self.rng = random.Random(f"bot:{self.seed}:{memory.seat_index.get(self.name, -1)}")
        memory.update(view)
        if feedback is not None:
            return safe_action(request, rng)
        strategy = self.strategy
        if strategy is None:
            strategy = self.strategy = strategy_for(detect_variant(memory))(memory, rng, self.seed)
        if strategy.observes:
            strategy.observe(view)
        action = strategy.decide(request)
        if not is_legal(request, action):
            return safe_action(request, rng)
        return action
