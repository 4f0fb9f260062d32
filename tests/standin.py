"""A stand-in for a person at a table of bots (issue 30.8 and 30.9): a non-bot seat.

The **listener** speaks whenever it is given a turn but never accuses or claims, votes yes or no
at random (seeded), and at night shoots as the mafia's told convention says (read off its own
view, :mod:`tests.followers`). It is what the benchmarks seat where a person would sit: the bots
cannot tell it from a person, a model or a bot except by what it does.
"""

from __future__ import annotations

import random

from arena.engine import ActionBase, DecisionRequest, View
from arena.engine.actions import Kill, Speak
from arena.players.base import SyncPlayer
from arena.players.random import random_action
from tests.followers import told_convention


class Listener(SyncPlayer):
    """Speaks without accusing; votes at random; shoots by the convention."""

    spec = "listener"

    def __init__(self, name: str, seed: int) -> None:
        super().__init__(name)
        self.rng = random.Random(f"listener:{seed}:{name}")

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> ActionBase | None:
        if request.option("speak") is not None:
            return Speak(speech="I'd like to hear everyone first.")
        if request.group == "night_kill" and request.option("kill") is not None:
            pool = request.option("kill").fields["target"].choices
            target = told_convention(view, request.alive)
            if target not in pool:
                target = self.rng.choice([n for n in pool if n != self.name])
            return Kill(target=target)
        return random_action(request, self.rng)
