"""From the engine's JSON schemas to what each provider accepts, and back.

The engine generates two schemas, both from the action models: a seat's repertoire
(:meth:`Repertoire.json_schema`: every kind it may use in the game, names over all seats; fixed
for the whole game, so the tools a provider caches first never change) and a decision's exact
one (:meth:`DecisionRequest.json_schema`: the legal kinds, enums of the legal names; used where
the schema travels in the newest message or drives a local grammar). Nothing here is written by
hand; a schema is transformed mechanically:

- :func:`split_kinds` cuts the discriminated union into one schema per legal kind (each becomes
  one tool, see :mod:`arena.players.llm.providers` for why);
- :func:`inline` resolves ``$ref`` / ``$defs`` and drops keywords that only help pydantic
  (``title``, ``discriminator``, ``default: null``);
- :func:`to_strict` applies OpenAI's strict-mode rules: every object closed
  (``additionalProperties: false``), every property required, optional ones made nullable with a
  type union, maps (``dict[str, X]``) turned into arrays of ``{key, value}`` pairs, keywords outside
  the supported subset folded into the description so the model still reads them;
- :func:`decode` undoes the strict encoding on an answer (null for a field that was optional and
  not nullable → left out so the default applies; pair arrays → maps) before ``request.parse``.
"""

from __future__ import annotations

import copy
import json
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

#: keywords kept in strict schemas; anything else is folded into the description
STRICT_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties", "items", "enum", "anyOf", "description"})
_DROP = frozenset({"title", "discriminator", "$defs", "definitions", "examples"})


def inline(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy with every ``$ref`` resolved and pydantic-only keywords removed."""
    root = schema

    def resolve(ref: str) -> Any:
        node: Any = root
        for part in ref.removeprefix("#/").split("/"):
            node = node[part]
        return node

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            target = walk(copy.deepcopy(resolve(node["$ref"])))
            extra = {k: walk(v) for k, v in node.items() if k != "$ref" and k not in _DROP}
            return {**target, **extra}
        out = {}
        for key, value in node.items():
            if key in _DROP or (key == "default" and value is None):
                continue
            if key == "oneOf":
                key = "anyOf"
            if key == "properties":
                out[key] = {name: walk(sub) for name, sub in value.items()}
            else:
                out[key] = walk(value)
        return out

    return walk(schema)


def bound_thought(schema: dict[str, Any], limit: int) -> dict[str, Any]:
    """The schema with every action's ``thought`` at most ``limit`` characters (0: unchanged).

    The bounded field's schema is pydantic's own (``Field(max_length=…)``), its description kept;
    the question states the bound by reading it back (:attr:`KindSchemas.thought_limit`)."""
    if not limit:
        return schema
    bounded = TypeAdapter(Annotated[str | None, Field(max_length=limit)]).json_schema()

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {key: walk(value) for key, value in node.items()}
        props = out.get("properties")
        if isinstance(props, dict) and isinstance(props.get("thought"), dict):
            kept = {k: v for k, v in props["thought"].items() if k in ("description", "default")}
            out["properties"] = {**props, "thought": {**bounded, **kept}}
        return out

    return walk(schema)


def _max_length(node: Any) -> int | None:
    if not isinstance(node, dict):
        return None
    if isinstance(node.get("maxLength"), int):
        return node["maxLength"]
    return next((n for n in map(_max_length, node.get("anyOf", ())) if n is not None), None)


def split_kinds(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``{kind: schema}`` for every legal kind of a request's (possibly union) schema."""
    flat = inline(schema)
    branches = flat.get("anyOf") or [flat]
    kinds: dict[str, dict[str, Any]] = {}
    for branch in branches:
        kind_schema = branch["properties"]["kind"]
        kind = kind_schema.get("const") or kind_schema["enum"][0]
        kinds[kind] = branch
    return kinds


def allows_null(schema: dict[str, Any]) -> bool:
    if schema.get("type") == "null" or (isinstance(schema.get("type"), list) and "null" in schema["type"]):
        return True
    if "enum" in schema and None in schema["enum"]:
        return True
    return any(allows_null(b) for b in schema.get("anyOf", ()))


def _is_map(schema: dict[str, Any]) -> bool:
    extra = schema.get("additionalProperties")
    return schema.get("type") == "object" and isinstance(extra, dict) and not schema.get("properties")


def _words(values: Any) -> str:
    """Allowed values in words: ``P1, P2 or P3``."""
    items = [json.dumps(v) if not isinstance(v, str) or v in ("mafia", "not mafia") else v for v in values]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _fold(schema: dict[str, Any]) -> dict[str, Any]:
    """Move unsupported keywords into the description in plain words (the model still reads
    them; a default needs no words: strict mode's null already stands for it)."""
    notes = []
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in STRICT_KEYWORDS or key == "propertyNames":
            out[key] = value  # propertyNames: worded with the map it belongs to (to_strict)
        elif key == "const":
            out["enum"] = [value]
        elif key == "maxItems":
            notes.append(f"at most {value}" if value else "must be empty")
        elif key == "minItems":
            if value:
                notes.append(f"at least {value}")
        elif key in ("minimum", "maximum"):
            notes.append(f"{'at least' if key == 'minimum' else 'at most'} {value}")
        elif key == "maxLength":
            notes.append(f"at most {value} characters")
        elif key == "default":
            continue
        else:
            notes.append(f"{key}: {json.dumps(value)}")
    if notes:
        description = out.get("description", "")
        out["description"] = (description + " " if description else "") + f"({'; '.join(notes)})"
    return out


def to_strict(schema: dict[str, Any]) -> dict[str, Any]:
    """An inlined schema rewritten for strict structured outputs (see the module docstring)."""
    node = _fold(schema)
    names = node.pop("propertyNames", None)
    if _is_map(node):
        value = to_strict(node["additionalProperties"])
        key: dict[str, Any] = {"type": "string"}
        if isinstance(names, dict) and names.get("enum"):
            key["enum"] = list(names["enum"])
        pair = {
            "type": "object",
            "properties": {"key": key, "value": value},
            "required": ["key", "value"],
            "additionalProperties": False,
        }
        out = {"type": "array", "items": pair}
        one = "one entry per name: `key` " + (_words(key["enum"]) if "enum" in key else "a name")
        one += "; `value` " + (_words(value["enum"]) if "enum" in value else "what you say of it")
        out["description"] = (node["description"] + " " if "description" in node else "") + f"({one})"
        return out
    if "anyOf" in node:
        node["anyOf"] = [to_strict(b) for b in node["anyOf"]]
    if node.get("type") == "array":
        node["items"] = to_strict(node.get("items") or {"type": "string"})
    if node.get("type") == "object":
        props = node.get("properties") or {}
        required = set(node.get("required", ()))
        new_props = {}
        for name, sub in props.items():
            strict_sub = to_strict(sub)
            if name not in required and not allows_null(strict_sub):
                description = strict_sub.pop("description", None)
                strict_sub = {"anyOf": [strict_sub, {"type": "null"}]}
                if description:
                    strict_sub["description"] = description + " (or null for none)"
            new_props[name] = strict_sub
        node["properties"] = new_props
        node["required"] = list(new_props)
        node["additionalProperties"] = False
    return node


def decode(value: Any, schema: dict[str, Any]) -> Any:
    """Undo :func:`to_strict` on an answer, guided by the original (inlined) schema."""
    if value is None:
        return None
    if "anyOf" in schema:
        for branch in schema["anyOf"]:
            if branch.get("type") == "null":
                continue
            if _matches(value, branch):
                return decode(value, branch)
        return value
    if _is_map(schema):
        if isinstance(value, list):
            pairs = {}
            for item in value:
                if isinstance(item, dict) and "key" in item:
                    pairs[item["key"]] = decode(item.get("value"), schema["additionalProperties"])
                else:
                    return value  # not pairs: let validation say what is wrong
            return pairs
        return value
    if schema.get("type") == "object" and isinstance(value, dict):
        props = schema.get("properties") or {}
        out = {}
        for key, item in value.items():
            sub = props.get(key)
            if sub is None:
                out[key] = item  # unknown field: kept, so validation names it
            elif item is None and not allows_null(sub):
                continue  # strict mode's null for an optional field: use the default
            else:
                out[key] = decode(item, sub)
        return out
    if schema.get("type") == "array" and isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [decode(item, schema["items"]) for item in value]
    return value


def _matches(value: Any, schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    if _is_map(schema):
        return isinstance(value, (dict, list))
    return {
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
    }.get(kind, True)


class KindSchemas:
    """The per-kind schemas of a repertoire or a request, in the form the profile asks for, plus
    decoders. ``legal`` is the kinds legal in the decision at hand (all of them by default): a
    provider that can restrict a fixed tool list without touching its cache gets it."""

    def __init__(self, request_schema: dict[str, Any], strict: bool, legal: list[str] | None = None) -> None:
        self.original = split_kinds(request_schema)
        self.strict = strict
        self.sent = {k: to_strict(s) if strict else s for k, s in self.original.items()}
        self.legal = list(legal) if legal is not None else list(self.original)

    @property
    def kinds(self) -> list[str]:
        return list(self.original)

    def now(self, legal: list[str]) -> KindSchemas:
        """The same schemas with the decision's legal kinds (a shallow copy: the schemas are shared)."""
        copy_ = object.__new__(KindSchemas)
        copy_.original, copy_.strict, copy_.sent, copy_.legal = self.original, self.strict, self.sent, list(legal)
        return copy_

    @property
    def thought_limit(self) -> int | None:
        """The ``thought`` bound these schemas carry (None: unbounded), for the question to state."""
        found = (_max_length((s.get("properties") or {}).get("thought")) for s in self.original.values())
        return next((n for n in found if n is not None), None)

    def tool_parameters(self, kind: str) -> dict[str, Any]:
        """A kind's schema as a tool's parameters: the tool's name says the kind, so no ``kind``."""
        params = dict(self.sent[kind])
        props = dict(params.get("properties") or {})
        props.pop("kind", None)
        params["properties"] = props
        if "required" in params:
            params["required"] = [r for r in params["required"] if r != "kind"]
        return params

    def union(self) -> dict[str, Any]:
        """One schema for all legal kinds (a bare object when only one kind is legal)."""
        if len(self.sent) == 1:
            return next(iter(self.sent.values()))
        return {"anyOf": list(self.sent.values())}

    def wrapped(self) -> dict[str, Any]:
        """An object root (strict response formats cannot have a union at the root)."""
        if len(self.sent) == 1:
            return self.union()
        return {
            "type": "object",
            "properties": {"action": self.union()},
            "required": ["action"],
            "additionalProperties": False,
        }

    def unwrap(self, value: Any) -> Any:
        if len(self.sent) > 1 and isinstance(value, dict) and set(value) == {"action"}:
            return value["action"]
        return value

    def decode(self, kind: str | None, value: Any) -> Any:
        """The answer in the engine's shape; ``kind`` from the tool name fills a missing ``kind``."""
        if not isinstance(value, dict):
            return value
        kind = value.get("kind", kind)
        if kind not in self.original:
            return value
        out = decode(value, self.original[kind])
        out.setdefault("kind", kind)
        return out
