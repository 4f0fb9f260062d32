"""Seat specs -> players: ``random``, ``bot``, ``human``, or a model (``openai:gpt-4.1-mini``, a profile).

Model specs are handed to :func:`arena.players.llm.make_llm_player`, imported only when needed
so that bot-only games never load an SDK.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any


class SpecError(ValueError):
    """A seat spec that names no known player kind, provider or profile (one clear line)."""


BUILTIN = {
    "random": ("arena.players.random", "RandomPlayer"),
    "bot": ("arena.players.bot", "BotPlayer"),
    "human": ("arena.players.human", "HumanPlayer"),
}


@functools.cache
def _builtin(spec: str) -> Callable[..., Any]:
    """The class of a built-in player kind, imported on first use (and looked up once: a bench
    builds nine players a game)."""
    module, cls = BUILTIN[spec]
    try:
        return getattr(importlib.import_module(module), cls)
    except (ModuleNotFoundError, AttributeError) as exc:
        raise SpecError(f"player kind {spec!r} is not available in this installation") from exc


def make_player(spec: str, name: str, seed: int = 0, **kwargs):
    """Build the player for one seat; raises :class:`SpecError` with a one-line reason."""
    spec = spec.strip()
    if spec in BUILTIN:
        factory = _builtin(spec)
        if spec == "human":
            return factory(name, **kwargs)
        return factory(name, seed)
    try:
        llm = importlib.import_module("arena.players.llm")
    except ModuleNotFoundError as exc:
        raise SpecError(f"unknown player spec {spec!r}; use random, bot, human or provider:model") from exc
    return llm.make_llm_player(spec, name, seed, **kwargs)
