"""Language-model players: ``openai:MODEL``, ``anthropic:MODEL``, ``openai:MODEL@URL`` or a profile.

:func:`make_llm_player` is what :func:`arena.players.registry.make_player` calls for every spec
that is not ``random``, ``bot`` or ``human``. It checks the spec, the profile and the key variable
at once, so a game never starts with a seat that cannot play. Docs: docs/llm.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.players.registry import SpecError

from .player import LLMPlayer, Recorder, close_clients
from .profiles import Profile, api_key, load_profiles, resolve_spec
from .usage import Usage

__all__ = ["LLMPlayer", "Profile", "SpecError", "Usage", "close_clients", "load_profiles", "make_llm_player", "resolve_spec"]


def make_llm_player(
    spec: str,
    name: str,
    seed: int = 0,
    *,
    recorder: Recorder | None = None,
    variant: str | None = None,
    options: Mapping[str, Any] | None = None,
    profiles: str | Path | Mapping[str, Mapping[str, Any]] | None = None,
    **overrides: Any,
) -> LLMPlayer:
    """Build one model seat (raises :class:`SpecError` with a one-line reason).

    ``recorder(dict)`` receives one record per model call; ``variant`` picks
    ``prompts/system/<variant>.j2``; ``options`` (the game's options) are listed as house rules;
    ``profiles`` is a models file or its parsed tables; ``overrides`` set profile fields
    (``timeout=5``, ``attempts=3``, ...).
    """
    tables = profiles if isinstance(profiles, Mapping) else load_profiles(profiles)
    unknown = sorted(set(overrides) - set(Profile.model_fields))
    if unknown:
        raise SpecError(f"unknown model setting(s) for {name}: {', '.join(unknown)}")
    profile = resolve_spec(spec, tables, overrides)
    key = api_key(profile)
    return LLMPlayer(name, profile, key=key, seed=seed, spec=spec, recorder=recorder, variant=variant, options=options)
