"""Seat specs -> players: ``random``, ``bot``, ``human``, or a model (``openai:gpt-4.1-mini``, a profile).

A bot below full strength takes its levels as a query: ``bot?level=0.5`` (both sides) or
``bot?mafia=1&town=0.2`` (a side left out stays at 1); see :mod:`arena.players.bot.player`.

Model specs are handed to :func:`arena.players.llm.make_llm_player`, imported only when needed
so that bot-only games never load an SDK.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
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


#: the query keys a built-in kind takes (``bot?mafia=1&town=0.2``)
LEVELS = ("level", "mafia", "town")


def builtin_kind(spec: str) -> str | None:
    """The built-in kind a spec names (``bot`` for ``bot?level=0.5``), or None for a model spec."""
    kind = spec.strip().split("?", 1)[0]
    return kind if kind in BUILTIN else None


def is_builtin(spec: str) -> bool:
    """A seat played in this process with no endpoint or settings (``random``, ``bot``, ``bot?…``)."""
    kind = builtin_kind(spec)
    return kind is not None and kind != "human"


def bot_levels(spec: str) -> dict[str, float]:
    """``mafia`` and ``town`` levels from a ``bot?…`` query (each 1 unless given); one-line SpecError."""
    _, _, query = spec.strip().partition("?")
    given: dict[str, float] = {}
    for part in filter(None, query.split("&")):
        key, eq, text = part.partition("=")
        if key not in LEVELS or not eq:
            raise SpecError(f"seat spec {spec!r}: {part!r}: use level=L, mafia=L or town=L (L from 0 to 1)")
        if key in given:
            raise SpecError(f"seat spec {spec!r}: {key} given twice")
        try:
            value = float(text)
        except ValueError:
            raise SpecError(f"seat spec {spec!r}: {key}={text!r} is not a number") from None
        if not 0.0 <= value <= 1.0:
            raise SpecError(f"seat spec {spec!r}: {key}={text}: a level is between 0 and 1")
        given[key] = value
    if "level" in given and given.keys() & {"mafia", "town"}:
        raise SpecError(f"seat spec {spec!r}: give level=L, or mafia=L and town=L, not both")
    both = given.get("level", 1.0)
    return {"mafia": given.get("mafia", both), "town": given.get("town", both)}


def make_player(spec: str, name: str, seed: int = 0, **kwargs):
    """Build the player for one seat; raises :class:`SpecError` with a one-line reason."""
    spec = spec.strip()
    kind = builtin_kind(spec)
    if kind is not None:
        factory = _builtin(kind)
        if kind != spec:
            if kind != "bot":
                raise SpecError(f"seat spec {spec!r}: only bot takes levels (bot?level=L, bot?mafia=L&town=L)")
            return factory(name, seed, **bot_levels(spec))
        if spec == "human":
            return factory(name, **kwargs)
        return factory(name, seed)
    try:
        llm = importlib.import_module("arena.players.llm")
    except ModuleNotFoundError as exc:
        raise SpecError(f"unknown player spec {spec!r}; use random, bot, human or provider:model") from exc
    return llm.make_llm_player(spec, name, seed, **kwargs)


def seat_modes(players: Mapping[str, Any]) -> dict[str, str]:
    """Each model seat's structured mode (seat -> mode), for a transcript header: a resumed game's
    seats play in the same modes (the check picks a server's mode; its prompts depend on it)."""
    return {seat: p.profile.mode for seat, p in players.items() if hasattr(getattr(p, "profile", None), "mode")}


def network_seats(players: Mapping[str, Any]) -> dict[str, Any]:
    """The seats played by a model behind an HTTP endpoint (not ``local``, not bots or people)."""
    out = {}
    for seat, player in players.items():
        profile = getattr(player, "profile", None)
        if profile is not None and getattr(profile, "provider", "local") != "local":
            out[seat] = player
    return out
