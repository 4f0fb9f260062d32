"""Decision requests: what a player is asked, what it may answer, and the schema it is shown.

A request lists the legal action kinds (:class:`Option`) with the legal values of each of their
target fields (:class:`FieldSpec`). From that one description the engine both validates an
answer (:func:`check_fields`) and generates the narrowed pydantic model / JSON schema that a
language model is shown (:meth:`DecisionRequest.action_model`), so the two can never disagree.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter, create_model

from .actions import ACTION_ADAPTER, KINDS, ActionBase

EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(slots=True, frozen=True)
class FieldSpec:
    """The legal values of one field of an action kind in one decision.

    ``choices`` None means any value of the field's type; ``forbidden`` maps living players who
    are excluded by a rule to the rule's reason, so a rejection can say exactly why.
    """

    choices: tuple[Any, ...] | None = None
    nullable: bool = False
    max_items: int | None = None  # list fields (``floor``): at most this many distinct names
    forbidden: Mapping[str, str] = field(default_factory=dict)


@dataclass(slots=True, frozen=True)
class Option:
    """One legal action kind with its narrowed fields; fields not listed must stay empty."""

    kind: str
    fields: Mapping[str, FieldSpec] = field(default_factory=dict)


@dataclass(slots=True, frozen=True)
class Clock:
    """How much time is left: discussion rounds, beats, channel rounds."""

    unit: str
    left: int
    total: int

    def __str__(self) -> str:
        return f"{self.left} of {self.total} {self.unit}s left"


@dataclass(slots=True)
class DecisionRequest:
    """Everything a player needs to answer one decision, and nothing it may not know."""

    id: int
    player: str
    role: str
    phase: str
    day: int
    question: str
    options: tuple[Option, ...]
    seats: tuple[str, ...]
    alive: tuple[str, ...]
    talk: str | None = None  # audience of speech in this decision; None = silent
    max_speech: int = 600
    clock: Clock | None = None
    default: ActionBase | None = None  # forfeit; None = a seeded random legal choice
    group: str = ""  # e.g. "discussion", "vote": the decision kind used to pick a prompt
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(o.kind for o in self.options)

    def option(self, kind: str) -> Option | None:
        for opt in self.options:
            if opt.kind == kind:
                return opt
        return None

    def action_model(self) -> Any:
        """The pydantic type of exactly the legal answers (a union when several kinds)."""
        return _narrowed_union(_request_key(self))

    def json_schema(self) -> dict[str, Any]:
        """The JSON schema of the legal answers, generated from :meth:`action_model`.

        Generated once per distinct set of legal answers; each caller gets its own copy to adapt.
        """
        return copy.deepcopy(_schema(_request_key(self)))

    def parse(self, data: str | bytes | dict) -> ActionBase:
        """Parse a model's answer against the narrowed schema, then into the shared union.

        Raises ``pydantic.ValidationError`` with the exact complaint, which can be sent back.
        """
        adapter = _adapter(_request_key(self))
        raw = adapter.validate_json(data) if isinstance(data, (str, bytes)) else adapter.validate_python(data)
        return ACTION_ADAPTER.validate_python(raw.model_dump())


def _request_key(request: DecisionRequest) -> tuple:
    return (
        request.talk is not None,
        tuple(
            (opt.kind, tuple(sorted((name, spec.choices, spec.nullable, spec.max_items) for name, spec in opt.fields.items())))
            for opt in request.options
        ),
    )


@lru_cache(maxsize=4096)
def _adapter(key: tuple) -> TypeAdapter[Any]:
    return TypeAdapter(_narrowed_union(key))


@lru_cache(maxsize=4096)
def _schema(key: tuple) -> dict[str, Any]:
    return _adapter(key).json_schema()


@lru_cache(maxsize=4096)
def _narrowed_union(key: tuple) -> Any:
    talk, options = key
    models = [_narrowed_model(kind, fields, talk) for kind, fields in options]
    if len(models) == 1:
        return models[0]
    from typing import Annotated, Union

    return Annotated[Union[tuple(models)], Field(discriminator="kind")]  # noqa: UP007


def _narrowed_model(kind: str, fields: tuple, talk: bool) -> type:
    base = KINDS[kind]
    specs = {name: (choices, nullable, max_items) for name, choices, nullable, max_items in fields}
    definitions: dict[str, Any] = {"kind": (Literal[kind], ...)}  # required: the model must say which
    for name, info in base.model_fields.items():
        if name == "kind":
            continue
        if name == "speech":
            if kind == "speak":
                definitions[name] = (str, Field(..., description=info.description))
            elif talk:
                definitions[name] = (str | None, Field(None, description=info.description))
            continue
        if name in ("thought", "yes", "claim"):
            if name == "claim" and kind == "speak" and not talk:
                continue
            definitions[name] = (info.annotation, info)
            continue
        if name not in specs:
            continue  # a target field this decision does not use: left out, so it is refused
        choices, nullable, max_items = specs[name]
        value_type: Any = info.annotation
        if choices is not None:
            value_type = Literal[tuple(choices)] if choices else None
        if name == "floor":
            definitions[name] = (
                tuple[value_type, ...] if value_type is not None else tuple[()],
                Field((), max_length=max_items, description=info.description),
            )
        elif nullable:
            definitions[name] = (
                (value_type | None) if value_type is not None else None,
                Field(None, description=info.description),
            )
        else:
            definitions[name] = (value_type, Field(..., description=info.description))
    return create_model(
        f"{base.__name__}Answer",
        __config__=ConfigDict(extra="forbid", title=base.__name__),
        __doc__=base.__doc__,
        **definitions,
    )
