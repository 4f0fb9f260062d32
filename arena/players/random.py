"""``random``: uniformly random legal actions — the floor every other player is compared with."""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.engine import KINDS, ActionBase, DecisionRequest, View

from .base import SyncPlayer


def random_action(request: DecisionRequest, rng: random.Random, made: dict[tuple, ActionBase] | None = None) -> ActionBase:
    """A legal kind, then each narrowed field, drawn uniformly (null counts as one choice).

    ``made`` caches the actions built so far: actions are immutable, so equal choices can share
    one instance. The random player and a bot below full strength (``bot?level=L``) both draw here.
    """
    options = request.options
    option = options[rng.randrange(len(options))] if len(options) > 1 else options[0]
    values = {}
    for name, spec in option.fields.items():
        choices = spec.choices or ()
        if name == "floor":
            k = rng.randint(0, min(spec.max_items or 0, len(choices)))
            values[name] = tuple(rng.sample(choices, k))
            continue
        pick = rng.randrange(len(choices) + spec.nullable) if choices or spec.nullable else None
        if pick is None or pick == len(choices):
            continue  # null (hold fire, abstain, no accusation)
        values[name] = choices[pick]
    if option.kind == "verdict":
        values["yes"] = rng.random() < 0.5
    if made is None:
        return KINDS[option.kind](**values)
    key = (option.kind, *values.items())
    action = made.get(key)
    if action is None:
        action = made[key] = KINDS[option.kind](**values)
    return action


class RandomPlayer(SyncPlayer):
    """Picks a legal kind, then each narrowed field, uniformly (null counts as one choice)."""

    spec = "random"

    def __init__(self, name: str, seed: int = 0) -> None:
        super().__init__(name)
        self.rng = random.Random(f"{seed}:{name}")
        self._made: dict[tuple, ActionBase] = {}

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> ActionBase | None:
        return random_action(request, self.rng, self._made)

    def believe(self, view: View, seats: Sequence[str], candidates: Sequence[str], prior: float) -> dict[str, float]:
        """A belief question (a belief position): a whole percentage per candidate, uniformly, as the
        schema's integers 0-100 are drawn."""
        return {c: self.rng.randint(0, 100) / 100 for c in candidates}
