"""The heuristic ``bot`` player: memory (memory.py), speech (speech.py), strategies by variant."""

from .player import BotPlayer

__all__ = ["BotPlayer"]
