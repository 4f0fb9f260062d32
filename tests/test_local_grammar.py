"""The local grammar's free text (words only, exact length bounds), checked without the model by a
small reader of the GBNF subset that :func:`text_rules` writes; and with llama.cpp when installed."""

from __future__ import annotations

import functools
import importlib.util
import json
import re

import pytest

from arena.engine.game import names_spec
from arena.engine.requests import DecisionRequest, Option
from arena.players.llm.local_grammar import LEFT_OUT, TEXT, WORD_LETTERS, grammar_schema, json_schema_to_grammar, text_rules
from arena.players.llm.schema import KindSchemas

needs_llama = pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
ELEMENT = re.compile(r'"(?:[^"\\]|\\.)*"|\[[^\]]*\]|[\w-]+')


def accepts(rules: dict[str, str], first: str, text: str) -> bool:
    """Does rule ``first`` derive exactly ``text``? (literals, [classes], rule names, alternatives)"""
    parsed = {name: [ELEMENT.findall(alt) for alt in body.split(" | ")] for name, body in rules.items()}

    @functools.cache
    def ends(rule: str, at: int) -> frozenset[int]:
        found: set[int] = set()
        for sequence in parsed[rule]:
            positions = {at}
            for element in sequence:
                positions = {end for position in positions for end in step(element, position)}
            found |= positions
        return frozenset(found)

    def step(element: str, at: int) -> set[int]:
        if element.startswith('"'):
            literal = json.loads(element)
            return {at + len(literal)} if text.startswith(literal, at) else set()
        if element.startswith("["):
            return {at + 1} if at < len(text) and re.fullmatch(element, text[at]) else set()
        return set(ends(element, at))

    return len(text) in ends(first, 0)


WORD = rf"[A-Za-z][a-z]{{0,{WORD_LETTERS - 1}}}(?:'[a-z]{{1,2}})?"
REFERENCE = re.compile(rf"{WORD}(?:(?: |[,;:.!?] ){WORD})*[.!?]?")


@pytest.mark.parametrize(
    "text",
    [
        "I trust Bob, not Cid.",
        "Hello everyone! Who voted? I don't trust Ann's story",
        "We'll see: the mafia lies; the town votes.",
        "Investigation ends here.",
    ],
)
def test_words_are_accepted(text):
    first, rules = text_rules(12, 120)
    assert REFERENCE.fullmatch(text) and accepts(rules, first, text)


@pytest.mark.parametrize(
    "text",
    [
        "the_mafia_of_the_city",  # underscores
        "{{message}}} You accused",  # braces
        "I vote for 111111 now",  # digits
        "I trust <b>Bob</b> now",  # markup
        "themafiaofthecitywhiskey",  # a run longer than a word
        "Hello  everyone today",  # two spaces
        "Hello ,everyone today",  # a space before punctuation
        "Hello everyone..",  # two marks at the end
        " Hello everyone",  # a leading space
        "Hello everyone !",
        "Hello\neveryone today",  # a line break
        'He said "no" to me',  # a quote
        "hELLO everyone there",  # capitals inside a word
        "short",  # under 12 characters
    ],
)
def test_everything_else_is_refused(text):
    first, rules = text_rules(12, 120)
    assert not accepts(rules, first, text)


def test_the_length_stays_within_its_bounds():
    first, rules = text_rules(12, 30)
    assert accepts(rules, first, "Hello there, friends")
    assert accepts(rules, first, "Hello friend.")  # 13
    assert not accepts(rules, first, "a b c d e f")  # 11 characters: too short
    longest = "Hello there, friends all done"  # 29
    assert accepts(rules, first, longest + ".") and not accepts(rules, first, longest + " x")


def test_the_smallest_bounds_still_have_a_path():
    first, rules = text_rules(1, 1)
    assert accepts(rules, first, "a") and not accepts(rules, first, "ab")
    with pytest.raises(ValueError):
        text_rules(5, 4)


def _request(options, talk="all") -> DecisionRequest:
    seats = ("Ann", "Bob", "Cid", "Dee")
    return DecisionRequest(1, "Ann", "citizen", "discussion", 1, "Speak.", tuple(options), seats, seats, talk=talk)


def test_grammar_schema_is_every_field_in_order_and_bounded():
    speak = Option("speak", {"accuse": names_spec(["Bob", "Cid"], nullable=True)})
    request = _request([speak])
    schema = grammar_schema(KindSchemas(request.json_schema(), False), speech=100)
    assert list(schema["properties"]) == ["kind", "speech", "accuse"] == schema["required"]  # the engine's order
    assert not set(LEFT_OUT) & set(schema["properties"])
    assert schema["properties"]["speech"] == {"type": "string", TEXT: [12, 100]}  # words, 12 to 100 characters
    assert schema["additionalProperties"] is False
    answer = {"kind": "speak", "speech": "I trust Cid.", "accuse": None}
    assert request.parse(KindSchemas(request.json_schema(), False).decode(None, answer)).accuse is None
    several = _request([Option("kill", {"target": names_spec(["Bob"], nullable=True)}), Option("pass")], talk=None)
    wrapped = grammar_schema(KindSchemas(several.json_schema(), False))
    assert list(wrapped["properties"]) == ["action"] and len(wrapped["properties"]["action"]["anyOf"]) == 2


@needs_llama
def test_llama_cpp_reads_the_grammar():
    from llama_cpp import LlamaGrammar

    speak = _request([Option("speak", {"accuse": names_spec(["Bob", "Cid"], nullable=True)})])
    gbnf = json_schema_to_grammar(grammar_schema(KindSchemas(speak.json_schema(), False)))
    assert 'speech ::= "\\"" text12x120-s120 "\\"" space' in gbnf and "char ::=" not in gbnf
    LlamaGrammar.from_string(gbnf, verbose=False)  # raises when llama.cpp cannot parse it


def test_the_example_speeches_of_the_short_prompt_are_what_the_grammar_allows():
    """The short system prompt (local models) shows example speeches: each must be a speech the
    grammar lets a model write and one the speech figure counts; the full prompt has none."""
    from arena.players.llm.prompt import Conversation, make_env
    from arena.run.speech_quality import dictionary, reads_as_speech
    from arena.variants import VARIANTS

    seats = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus"]
    game = VARIANTS["classic"](seats, {}, 1)
    request = game.pending()[0]

    def system(short: bool) -> str:
        conversation = Conversation("Ann", "classic", {}, "json_schema", make_env(), short=short)
        conversation.start(request)
        return conversation.system or ""

    examples = [json.loads(line) for line in system(True).split("# How to speak", 1)[1].splitlines() if line.startswith('"')]
    assert len(examples) >= 2 and "# How to speak" not in system(False)
    first, rules = text_rules(12, 120)
    assert all(accepts(rules, first, example) for example in examples)
    try:
        known = dictionary()
    except FileNotFoundError:
        return  # the word list is not installed: the grammar part is checked
    assert all(reads_as_speech(example, known, seats) for example in examples)
