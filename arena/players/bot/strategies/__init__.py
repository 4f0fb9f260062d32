"""Strategies by variant: a registry, and how a bot tells which variant it is sitting in.

Add a variant by subclassing :class:`DayNightStrategy` (or :class:`Strategy` for games of another
shape) and listing it in ``STRATEGIES``. A variant with no entry gets the generic day/night brain,
whose unknown decision groups fall back to a cautious legal answer, so a bot plays any table.
"""

from __future__ import annotations

from ..memory import Memory
from .base import Strategy
from .classic import ClassicStrategy
from .cove import CoveStrategy
from .daynight import DayNightStrategy
from .mckay import Duel3Strategy, DuelStrategy, TrioStrategy
from .village import VillageStrategy

STRATEGIES: dict[str, type[Strategy]] = {
    cls.variant: cls for cls in (ClassicStrategy, CoveStrategy, VillageStrategy, DuelStrategy, Duel3Strategy, TrioStrategy)
}
FALLBACK: type[Strategy] = DayNightStrategy

#: roles that occur in one variant only
ROLE_HINTS = {
    "citizen": "classic", "inspector": "classic", "villager": "village",
    "civilian": "cove", "maniac": "cove", "mistress": "cove",
}  # fmt: skip


def detect_variant(memory: Memory) -> str:
    """The variant a bot sits in, from its card and the first events (no variant name reaches
    players unless the role event carries one). Called at the bot's first decision."""
    if memory.variant:
        return memory.variant
    if memory.role in ROLE_HINTS:
        return ROLE_HINTS[memory.role]
    if memory.first_phase == "first_night":
        return "classic"
    if memory.first_phase == "start":
        # both open in a "start" phase; village then has a day of talk, cove a night
        return "cove" if memory.day == 0 and memory.night >= 1 else "village"
    return "generic"


def strategy_for(variant: str) -> type[Strategy]:
    return STRATEGIES.get(variant, FALLBACK)


__all__ = ["FALLBACK", "STRATEGIES", "DayNightStrategy", "Strategy", "detect_variant", "strategy_for"]
