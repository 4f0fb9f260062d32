"""Legal answers to any request, read off its options and narrowed fields alone.

These know nothing of any variant: they are the net under every strategy (an answer that would
break a field's choices is replaced before it is sent) and the whole of the generic fallback.
"""

from __future__ import annotations

import random
from typing import Any

from arena.engine import KINDS, ActionBase, DecisionRequest, Option
from arena.engine.actions import TARGET_FIELDS

#: kinds a cautious player picks when it has no idea what a request is about (first wins)
CAUTIOUS = ("pass", "speak", "verdict", "vote", "continue", "handshake")


def is_legal(request: DecisionRequest, action: ActionBase) -> bool:
    """Does ``action`` fit the request's options and field choices (the engine's field checks)?"""
    kind = action.kind  # type: ignore[attr-defined]
    for option in request.options:  # request.option(kind), inlined: every answer passes here
        if option.kind == kind:
            break
    else:
        return False
    if action.speech:
        if kind != "speak" and request.talk is None:
            return False
        if len(action.speech) > request.max_speech:
            return False
    if kind == "speak" and request.talk is None and getattr(action, "claim", None) is not None:
        return False
    fields = option.fields
    for name in TARGET_FIELDS[kind]:
        value = getattr(action, name)
        spec = fields.get(name)
        if spec is None:
            if value not in (None, ()):
                return False
            continue
        if name == "floor":
            if spec.max_items is not None and len(value) > spec.max_items:
                return False
            if len(set(value)) != len(value):
                return False
            if spec.choices is not None and any(v not in spec.choices for v in value):
                return False
            continue
        if value is None:
            if not spec.nullable:
                return False
        elif spec.choices is not None and value not in spec.choices:
            return False
    return True


def fill(option: Option, rng: random.Random, prefer_null: bool = True) -> ActionBase:
    """An action of ``option``'s kind with every field set to a legal value."""
    values: dict[str, Any] = {}
    for name, spec in option.fields.items():
        if name == "floor":
            continue  # an empty floor is always legal
        if spec.nullable and (prefer_null or not spec.choices):
            continue
        if spec.choices:
            values[name] = spec.choices[rng.randrange(len(spec.choices))]
        elif spec.choices is None and name == "position":
            values[name] = 1
    if option.kind == "verdict":
        values["yes"] = False
    return KINDS[option.kind](**values)


def safe_action(request: DecisionRequest, rng: random.Random) -> ActionBase:
    """A legal answer with no ambition: the request's default, a cautious kind, or any legal fill."""
    if request.default is not None and is_legal(request, request.default):
        return request.default
    for kind in CAUTIOUS:
        option = request.option(kind)
        if option is not None:
            action = fill(option, rng)
            if is_legal(request, action):
                return action
    for option in request.options:
        action = fill(option, rng)
        if is_legal(request, action):
            return action
    return fill(request.options[0], rng, prefer_null=False)


def choices(request: DecisionRequest, kind: str, field: str) -> tuple[Any, ...]:
    """The legal values of one field (empty when the kind or field is absent or unlisted)."""
    option = request.option(kind)
    if option is None:
        return ()
    spec = option.fields.get(field)
    if spec is None or spec.choices is None:
        return ()
    return spec.choices


def nullable(request: DecisionRequest, kind: str, field: str) -> bool:
    option = request.option(kind)
    spec = option.fields.get(field) if option is not None else None
    return bool(spec and spec.nullable)
