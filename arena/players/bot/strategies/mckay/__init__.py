"""Strategies for McKay's real-time games (``duel``, ``duel3``, ``trio``): expected values from the
real score tables over what the bot knows of the cards, the clock, the bonuses and its opponents."""

from .duel import Duel3Strategy, DuelStrategy
from .trio import TrioStrategy

__all__ = ["Duel3Strategy", "DuelStrategy", "TrioStrategy"]
