"""Strategies by variant: a registry, and how a bot tells which variant it is sitting in.

Add a variant by subclassing :class:`DayNightStrategy` (or :class:`Strategy` for games of another
shape) and listing it in ``STRATEGIES``. A variant with no entry gets the generic day/night brain,
whose unknown decision groups fall back to a cautious legal answer, so a bot plays any table.
"""

from __future__ import annotations

from .base import Strategy
from .classic import ClassicStrategy
from .daynight import DayNightStrategy
from .village import VillageStrategy

STRATEGIES: dict[str, type[Strategy]] = {cls.variant: cls for cls in (ClassicStrategy, VillageStrategy)}
FALLBACK: type[Strategy] = DayNightStrategy

#: roles that occur in one variant only
ROLE_HINTS = {"citizen": "classic", "inspector": "classic", "villager": "village"}
#: the phase a variant's role cards are dealt in (``Game.first_phase``)
FIRST_PHASE_HINTS = {"first_night": "classic", "start": "village"}


def detect_variant(role: str, first_phase: str, declared: str | None = None) -> str:
    """The variant a bot is in, from what its role card says (no variant name reaches players
    unless the role event carries one)."""
    if declared:
        return declared
    return ROLE_HINTS.get(role) or FIRST_PHASE_HINTS.get(first_phase) or "generic"


def strategy_for(variant: str) -> type[Strategy]:
    return STRATEGIES.get(variant, FALLBACK)


__all__ = ["FALLBACK", "STRATEGIES", "DayNightStrategy", "Strategy", "detect_variant", "strategy_for"]
