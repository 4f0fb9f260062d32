"""The local models' word guard (arena.players.llm.local_words) on a made-up vocabulary, without a
model: which tokens may follow a speech so far, and what the logits processor does with them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.engine.game import names_spec
from arena.engine.requests import DecisionRequest, Option
from arena.players.llm.local_grammar import grammar_schema
from arena.players.llm.local_words import DONE, INSIDE, PENALTY, Speech, TokenTexts, WordGuard, Words, fits, speech_bounds
from arena.players.llm.schema import KindSchemas

KNOWN = frozenset({"trust", "not", "the", "mafia", "don't", "is", "lying", "vote", "voted", "investigation", "de", "la"})
WORDS = Words.of(KNOWN - {"de", "la"}, ["Bob", "Cid"])
OPENING = '{"kind": "speak", "speech":'
VOCAB = [
    ' "',  # 0 opens the speech
    "I",  # 1
    " trust",  # 2
    " Bob",  # 3
    " B",  # 4
    "ob",  # 5
    "'s",  # 6
    " Ciu",  # 7: starts no word
    "dad",  # 8
    '"',  # 9 closes it
    '",',  # 10 closes it, then JSON
    ",",  # 11
    " ,",  # 12: a space before a comma: not the grammar's shape
    ".",  # 13
    " not",  # 14
    " don",  # 15
    "'t",  # 16
    "bOb",  # 17: a capital inside a word
    " null",  # 18: no speech at all
    "_x",  # 19: never speech
    " Cid",  # 20
    " the",  # 21
    "<|im_end|>",  # 22 special: no text
]
TABLE = TokenTexts.of("" if text.startswith("<|") else text for text in VOCAB)


def inside(text: str, bounds: tuple[int, int] = (12, 120)) -> Speech:
    """The state after the opening, the opening quote and ``text`` (the model's tokens so far)."""
    return Speech().feed(OPENING + ' "' + text, None, *bounds)


def valid(before: str, piece: str, bounds: tuple[int, int] = (12, 120), words: Words = WORDS) -> bool:
    return inside(before, bounds).feed(piece, words, *bounds).phase != DONE


@pytest.mark.parametrize(
    ("before", "piece", "expected"),
    [
        ("", "I", True),  # a single letter: "I" (and "a") only
        ("", "B", True),  # the start of Bob
        ("", "Q", False),  # starts no word, no name
        ("I", " trust", True),
        ("I trust", " Bob", True),  # a seat name
        ("I trust", " B", True),
        ("I trust B", "ob", True),  # completes the name
        ("I trust Bob", "'s", True),  # a name's possessive
        ("I trust Cid", "'s", True),
        ("I trust", " Ciu", False),  # the "Ciudad": no word starts so
        ("I trust Ciu", "dad", False),
        ("I", " don", True),  # the start of "don't"
        ("I don", "'t", True),
        ("I don", " trust", False),  # "don" is not a whole word
        ("I trust Bob", ",", True),
        ("I trust", " ,", False),  # the grammar: punctuation right after a word, then a space
        ("I trust Bob,", " not", True),
        ("I trust Bob,", "ob", False),  # a space must follow a comma
        ("I trust", " bOb", False),  # capitals only first
        ("I trust Bob", '"', False),  # 11 characters: the grammar's speech is at least 12
        ("I trust Bob not", '"', True),  # ends on a whole word, long enough
        ("I trust Bob.", '"', True),  # ends after a stop
        ("I trust Bob not", '",', True),  # what follows the closing quote is JSON, not speech
        ("I trust B", '"', False),  # "B" is not a word: it may not end the speech
        ("I trust", "_x", False),
    ],
)
def test_validity_rule(before, piece, expected):
    assert valid(before, piece) is expected


def test_the_dictionary_decides_what_is_a_word():
    with_spanish = Words.of(KNOWN, ["Bob"])  # a list that holds "de" and "la"
    assert valid("I trust", " la", words=with_spanish) and not valid("I trust", " la")
    assert valid("I trust the", " mafia") and not valid("I trust the", " maf" + "ix")


def test_a_word_must_fit_in_the_characters_left():
    speech = "I trust the"  # 11 characters; " investigation" needs 14 more
    assert valid(speech, " investigation", (12, 25))
    assert not valid(speech, " investigation", (12, 24))  # past the grammar's bound
    assert valid(speech, " inv", (12, 25))  # "investigation" still fits
    assert not valid(speech, " inv", (12, 24))  # no word starting "inv" fits in what is left
    assert fits("don't") and fits("investigation") and not fits("counterrevolutionaries") and not fits("rock'n'roll")


def test_the_state_follows_the_answer():
    state = inside("I trust Bo")
    assert (state.phase, state.run, state.length) == (INSIDE, "bo", 10)
    after = state.feed('b", "accuse": null}', None, 12, 120)
    assert after.phase != INSIDE  # out of the speech: nothing more is checked
    wrapped = Speech().feed('{"action": {"kind": "speak", "speech": "I', None, 12, 120)
    assert (wrapped.phase, wrapped.run) == (INSIDE, "i")  # a speech inside an action finds the key too
    assert Speech().feed(OPENING + " null", None, 12, 120).phase != INSIDE  # a null speech is no speech


def test_speech_bounds_come_from_the_grammar_schema():
    seats = ("Ann", "Bob", "Cid")
    speak = DecisionRequest(
        1,
        "Ann",
        "citizen",
        "discussion",
        1,
        "Speak.",
        (Option("speak", {"accuse": names_spec(["Bob"], nullable=True)}),),
        seats,
        seats,
        talk="all",
    )
    assert speech_bounds(grammar_schema(KindSchemas(speak.json_schema(), False), 80)) == (12, 80)
    silent = DecisionRequest(
        1, "Ann", "citizen", "night", 1, "Kill.", (Option("kill", {"target": names_spec(["Bob"])}),), seats, seats, talk=None
    )
    assert speech_bounds(grammar_schema(KindSchemas(silent.json_schema(), False))) is None


def guard(generated: list[int], bounds=(12, 120), **kwargs) -> tuple[WordGuard, list[int]]:
    prompt = [22] * 5  # what the prompt's tokens are does not matter
    return WordGuard(TABLE, WORDS, opening=OPENING, start=len(prompt), bounds=bounds, **kwargs), prompt + generated


def test_the_processor_offsets_every_token_that_is_not_valid():
    processor, ids = guard([0, 1, 2])  # ' "', "I", " trust"
    scores = np.zeros(len(VOCAB), dtype=np.float32)
    out = processor(np.array(ids), scores)
    kept = {VOCAB[i] for i in np.flatnonzero(out == 0)}
    assert kept == {" trust", " Bob", " B", " not", " the", " Cid", " don", ",", "."}  # " Ciu", " ,", "bOb", "_x"... are not
    assert np.all(out[out != 0] == -PENALTY) and processor.stats.steps == 1
    assert scores.max() == 0  # the sampler's array is not changed in place


def test_outside_the_speech_the_logits_are_untouched():
    processor, ids = guard([0, 1, 2, 14, 3, 10])  # ... ' not', ' Bob', '",': the speech has ended
    scores = np.arange(len(VOCAB), dtype=np.float32)
    assert processor(np.array(ids), scores) is scores
    before, ids = guard([])  # the opening ends at "speech": the next token opens the string
    out = before(np.array(ids), scores)
    assert out[0] == scores[0] and out[18] == scores[18]  # ' "' or ' null'


def test_when_nothing_is_valid_the_sampler_still_has_every_token():
    """A bound that forces the end mid-word: no token is valid; all are offset alike, none removed."""
    processor, ids = guard([0, 1, 2, 4], bounds=(1, 10))  # ' "I trust B': 9 of 10 characters
    scores = np.linspace(0, 1, len(VOCAB), dtype=np.float32)
    out = processor(np.array(ids), scores)
    assert np.all(np.isfinite(out)) and np.allclose(out, scores - PENALTY)


def test_tokens_min_p_would_cut_are_not_checked():
    """Checked from the likeliest down; below the best valid token by more than ln(1/min_p) (after
    the repetition penalty) min-p drops a token anyway, so the check stops there and leaves the
    tokens below as they are."""
    processor, ids = guard([0, 1, 2], min_p=0.2, repeat_penalty=1.0)
    scores = np.full(len(VOCAB), -50.0, dtype=np.float32)
    scores[[3, 14, 21]] = [10.0, 9.0, 10.0 - math.log(5) - 0.01]  # " Bob", " not", " the" (just past the cut)
    out = processor(np.array(ids), scores)
    assert processor.stats.checked == 2  # " the" was not checked
    assert out is scores  # and nothing above the cut-off was invalid: the logits are unchanged
    scores[7] = 9.5  # " Ciu": likely, and not the start of a word
    out = processor(np.array(ids), scores)
    assert out[7] == 9.5 - PENALTY and np.all(np.delete(out, 7) == np.delete(scores, 7))  # below the cut-off: left to min-p
    scores[7] = -50.0
    scores[14] = -50.0
    penalised, ids = guard([0, 1, 2, 3, 13, 1, 2], min_p=0.2, repeat_penalty=2.0)  # " Bob" is in the answer already
    assert penalised(np.array(ids), scores)[21] == scores[21]  # Bob's 10 counts as 5 after the penalty: " the" is kept


def test_the_token_table():
    assert TABLE.speakable.tolist()[:3] == [True, True, True] and not TABLE.speakable[19] and not TABLE.speakable[22]
    assert TABLE.speakable[10]  # '",' closes a speech: its text after the quote is not speech
    assert TABLE.first[2] == ord(" ") and TABLE.first[19] == 0
