"""The variants: one module each (roles, phases, resolution, end rules), registered by id."""

from __future__ import annotations

from arena.engine import Game

from .classic import Classic
from .cove import Cove
from .mckay import Duel, Duel3, Trio
from .village import Village

VARIANTS: dict[str, type[Game]] = {cls.name: cls for cls in (Classic, Cove, Duel, Duel3, Trio, Village)}


def get_variant(name: str) -> type[Game]:
    try:
        return VARIANTS[name]
    except KeyError:
        raise KeyError(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}") from None
