"""The grammar a local model answers under: the decision's schema, made small-model-proof.

The decision's schema (the engine's action union, cut per legal kind) becomes a llama.cpp GBNF
grammar through llama-cpp-python's JSON-schema converter, with three changes:

- **Every field required, in the engine's order** (optional ones nullable, maps as key/value
  pairs), lists the engine leaves unbounded cut to a few items, and the optional fields a small
  model fills with noise (:data:`LEFT_OUT`) left out.
- **Free text is words.** A 135M model left to JSON's string alphabet writes identifiers, digit
  strings and template markup (``the_mafia_of_the_city_111111.mpg``, ``{{message}}}``). Every free
  text (a speech, any other string without fixed choices) is held to words: letters, an apostrophe
  ending (``don't``, ``Bob's``), at most :data:`WORD_LETTERS` characters a word, separated by a
  space or by one of ``, ; : . ! ?`` and a space, maybe closed by ``. ! ?``: no digits, underscores,
  braces, quotes, slashes or markup. Its length stays exactly within its bounds (the engine
  rejects a speech over the game's limit): the converter's ``minLength``/``maxLength`` count any
  characters and a ``pattern`` cannot say the bound compactly, so the grammar is written out as a
  small automaton over (characters left, letters in the current word): :func:`text_rules`.
- **An answer's fixed opening goes into the prompt** (:func:`split_opening`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .schema import KindSchemas, allows_null

#: bounds on free text in the grammar (characters); the engine's own limits still apply
SPEECH_CHARS = 120  # a sentence or two: every listener evaluates every speech again
SPEECH_MIN = 12  # at least a few words: without it SmolLM2 often answers one made-up word ("demonag")
WORD_CHARS = 40  # any other free text: a claimed role, a key
WORD_LETTERS = 14  # longest word: "investigation" has 13 letters; longer runs are words run together
LIST_ITEMS = 3  # lists the engine leaves unbounded (a claim's checks)
LEFT_OUT = ("thought", "claim")  # optional fields a small model fills with noise (see _without_extras)
TEXT = "x-arena-text"  # marks a free-text string in the grammar schema: [fewest, most] characters

CHAR_RULE = r'char ::= [^"\\] |'
STRICT_CHAR_RULE = r'char ::= [^"\\\x00-\x1F] |'


# ---- the schema the grammar is made from -----------------------------------------------------
def _bounded(schema: dict[str, Any], name: str = "", speech: int = SPEECH_CHARS) -> dict[str, Any]:
    """A grammar-ready copy: every property required (optional ones nullable), bounds on text and lists."""
    out = {k: v for k, v in schema.items() if k not in ("default", "description", "examples")}
    if "anyOf" in out:
        out["anyOf"] = [_bounded(branch, name, speech) for branch in out["anyOf"]]
        return out
    kind = out.get("type")
    if kind == "string" and "enum" not in out and "const" not in out:
        limit = speech if name == "speech" else WORD_CHARS
        most = min(out.get("maxLength", limit), limit)
        fewest = min(SPEECH_MIN, most) if name == "speech" else 1
        return {"type": "string", TEXT: [fewest, most]}
    if kind == "array":
        out["items"] = _bounded(out.get("items") or {"type": "string"}, name)
        out["maxItems"] = min(out.get("maxItems", LIST_ITEMS), LIST_ITEMS)
    elif kind == "object" and isinstance(out.get("additionalProperties"), dict) and not out.get("properties"):
        pair = {
            "type": "object",
            "properties": {"key": {"type": "string", TEXT: [1, WORD_CHARS]}, "value": _bounded(out["additionalProperties"])},
            "required": ["key", "value"],
        }
        return {"type": "array", "items": pair, "maxItems": LIST_ITEMS}  # schema.decode turns pairs back into a map
    elif kind == "object":
        required = set(out.get("required", ()))
        props = {}
        for key, sub in (out.get("properties") or {}).items():
            sub = _bounded(sub, key, speech)
            if key not in required and not allows_null(sub):
                sub = {"anyOf": [sub, {"type": "null"}]}  # null = leave it out (schema.decode drops it)
            props[key] = sub
        out["properties"] = props
        out["required"] = list(props)  # in the engine's order: kind first, then speech, then targets
        out["additionalProperties"] = False
    return out


def _without_extras(schema: dict[str, Any]) -> dict[str, Any]:
    """The action without the optional fields in :data:`LEFT_OUT` (the engine's defaults apply).

    Measured with SmolLM2-135M: its ``thought`` repeats its speech word for word and doubles the
    tokens generated per answer (generation is the slowest part of a call); its ``claim`` is an
    invented role ("Cifra") with role names as checked players.
    """
    required = list(schema.get("required", ()))
    props = {k: v for k, v in (schema.get("properties") or {}).items() if k not in LEFT_OUT or k in required}
    return {**schema, "properties": props}


def grammar_schema(schemas: KindSchemas, speech: int = SPEECH_CHARS) -> dict[str, Any]:
    """One root object for the legal kinds (wrapped in ``action`` when there are several).

    ``speech`` bounds a speech's length (the game's own limit when it is lower than ours).
    """
    branches = [_bounded(_without_extras(s), speech=speech) for s in schemas.original.values()]
    if len(branches) == 1:
        return branches[0]
    return {
        "type": "object",
        "properties": {"action": {"anyOf": branches}},
        "required": ["action"],
        "additionalProperties": False,
    }


#: a speech's bound in a server's grammar (json_object mode): a few sentences, within the game's limit
SERVER_SPEECH_CHARS = 300


def server_schema(schemas: KindSchemas, speech: int = SERVER_SPEECH_CHARS) -> dict[str, Any]:
    """:func:`grammar_schema` in plain JSON Schema, for a server that makes its own grammar of it
    (llama-cpp-python's ``response_format: {"type": "json_object", "schema": …}``).

    The same bounds as a local model's grammar, as ``minLength``/``maxLength`` (the server's
    converter supports them) instead of our word rules: without them a free string may run to the
    token limit (measured: SmolLM2-135M on llama-cpp-python's server wrote a speech of 1,024 tokens
    that never closed its quote, 189 s for one forfeited try), and ``thought`` and ``claim`` left out.
    """

    def plain(node: Any) -> Any:
        if isinstance(node, list):
            return [plain(item) for item in node]
        if not isinstance(node, dict):
            return node
        if TEXT in node:
            fewest, most = node[TEXT]
            return {"type": "string", "minLength": fewest, "maxLength": most}
        return {key: plain(value) for key, value in node.items()}

    return plain(grammar_schema(schemas, speech))


# ---- free text as words ------------------------------------------------------------------------------
def text_rules(fewest: int, most: int, letters: int = WORD_LETTERS) -> tuple[str, dict[str, str]]:
    """GBNF rules of a text of ``fewest``..``most`` characters made of words: (start rule, rules).

    A rule's name holds the characters still allowed (``k``) and, inside a word, the word's
    characters so far (``j``), so that every path ends within the bounds and no word runs past
    ``letters``; paths that could not reach ``fewest`` characters are never offered. The
    alternatives of a state start with different characters (but ``.``, which may end the text or
    come before a space), so llama.cpp follows one or two paths at a time, not many. Built from
    ``k = 0`` up (a state only refers to states with fewer or as many characters left), then cut
    to the rules reachable from the start.
    """
    prefix = f"text{fewest}x{most}"
    rules: dict[str, list[str]] = {}

    def rule(name: str, alternatives: list[tuple[str, str | None] | str | None]) -> None:
        """Keep ``name`` if it has an alternative: a terminal string, or (terminals, next rule) with a kept rule."""
        kept = []
        for alternative in alternatives:
            if isinstance(alternative, tuple):
                head, following = alternative
                if following in rules:
                    kept.append(f"{head} {following}".strip())
            elif alternative is not None:
                kept.append(alternative)
        if kept:
            rules[name] = kept

    def start(k: int) -> str:  # a word begins: k characters left
        return f"{prefix}-s{k}"

    def inside(k: int, j: int) -> str:  # j characters of a word written, k left
        return f"{prefix}-w{k}-{j}"

    def ending(k: int) -> str:  # after an apostrophe and one letter: maybe a second letter
        return f"{prefix}-a{k}"

    def after(k: int) -> str:  # a word is complete: k characters left
        return f"{prefix}-e{k}"

    for k in range(most + 1):
        written = most - k
        rule(after(k), [
            ('" "', start(k - 1)) if k >= 2 else None,
            ('[,;:.!?] " "', start(k - 2)) if k >= 3 else None,
            "[.!?]" if k >= 1 and written + 1 >= fewest else None,
            '""' if written >= fewest else None,
        ])  # fmt: skip
        rule(ending(k), [("[a-z]", after(k - 1)) if k >= 1 else None, ("", after(k))])
        for j in range(letters, 0, -1):
            rule(inside(k, j), [
                ("[a-z]", inside(k - 1, j + 1)) if k >= 1 and j < letters else None,
                ("\"'\" [a-z]", ending(k - 2)) if k >= 2 else None,  # don't, Bob's, we'll
                ("", after(k)),
            ])  # fmt: skip
        rule(start(k), [("[A-Za-z]", inside(k - 1, 1)) if k >= 1 else None])

    first = start(most)
    if first not in rules:
        raise ValueError(f"no text of {fewest} to {most} characters is made of words")
    reachable, todo = {}, [first]
    while todo:
        name = todo.pop()
        if name in reachable:
            continue
        reachable[name] = " | ".join(rules[name])
        todo += [word for alternative in rules[name] for word in alternative.split() if word in rules]
    return first, reachable


def json_schema_to_grammar(schema: dict[str, Any]) -> str:
    """llama-cpp-python's converter, with every :data:`TEXT` string written as words (see :func:`text_rules`)."""
    from llama_cpp.llama_grammar import RESERVED_NAMES, SchemaConverter

    class Converter(SchemaConverter):
        def visit(self, schema: dict[str, Any], name: str) -> str:
            if TEXT not in schema:
                return super().visit(schema, name)
            first, rules = text_rules(*schema[TEXT])
            for rule, body in rules.items():
                self._add_rule(rule, body)
            rule_name = name + "-" if name in RESERVED_NAMES else name or "root"
            return self._add_rule(rule_name, f'"\\"" {first} "\\"" space')

    converter = Converter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    converter.visit(converter.resolve_refs(schema, "stdin"), "")
    return converter.format_grammar().replace(CHAR_RULE, STRICT_CHAR_RULE)


# ---- the fixed opening -----------------------------------------------------------------------------
ROOT_RULE = re.compile(r'^root ::= "\{" space (?P<kvs>[\w-]+(?: "," space [\w-]+)*) "\}" space$', re.MULTILINE)


def split_opening(schema: dict[str, Any], gbnf: str) -> tuple[str, str]:
    """Split an answer's grammar into its fixed opening and the grammar of the rest.

    Every answer starts the same way for a given schema: ``{"kind": "speak", "speech":`` (or
    ``{"action":``). Generating those tokens one at a time costs a full step each, about half of
    the tokens of an answer; appended to the prompt they are evaluated in one batch instead. The
    opening runs to the first value that is not fixed; the rest of the grammar is the root object's
    remaining values. When the layout of the converter's grammar is not the expected one, the
    opening is empty and the grammar unchanged; when every value is fixed, the rest is empty.
    """
    match = ROOT_RULE.search(gbnf)
    keys = list(schema.get("properties") or {})
    kvs = match["kvs"].split(' "," space ') if match else []
    if not keys or len(kvs) != len(keys) or not all(re.fullmatch(r"[A-Za-z_]+", key) for key in keys):
        return "", gbnf
    rules = dict(line.split(" ::= ", 1) for line in gbnf.splitlines() if " ::= " in line)
    opening = "{"
    for index, (key, kv) in enumerate(zip(keys, kvs, strict=True)):
        opening += (", " if index else "") + f'"{key}":'
        value = schema["properties"][key]
        fixed = [value["const"]] if "const" in value else value.get("enum", [])
        if len(fixed) != 1:
            # the opening ends at the colon, where the tokenizer splits the whole answer too, so the
            # next prompt's copy of the answer matches the tokens evaluated now
            head = f'"\\"{key}\\"" space ":" space '
            body = rules.get(kv, "")
            if not body.startswith(head):
                return "", gbnf
            rest = " ".join(["space", body[len(head) :], *(f'"," space {name}' for name in kvs[index + 1 :]), '"}" space'])
            return opening, gbnf[: match.start()] + f"root ::= {rest}" + gbnf[match.end() :]
        opening += " " + json.dumps(fixed[0])
    return opening + "}", ""
