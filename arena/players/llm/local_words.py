"""The word guard: a local model's speech is made of dictionary words as it is written.

The grammar (:mod:`.local_grammar`) holds a speech to letters, spaces and ordinary punctuation, but
letters can spell anything: seen with SmolLM2, one seat said "Ciudad de la Bola" and eleven later
speeches of the game repeated it. The guard is a llama-cpp-python logits processor that runs inside
the speech string only (after ``"speech":`` and its opening quote, until the closing quote) and
gives every token that would make a non-word a large negative offset, so a made-up word can never
be said, and so never copied. A token is **valid** when, appended to the speech so far,

- every word it completes (followed by a space, punctuation or the closing quote) is a word of
  :mod:`arena.players.wordlist` (the list the speech figure uses) or a seat name (or its possessive);
- the letters it leaves at the end are the start of such a word that still fits in the
  characters the speech has left;
- and the grammar's own shape holds (:class:`Speech` mirrors it: a word is a letter, lower-case
  letters, maybe an apostrophe and one or two letters; words are separated by a space or by one
  of ``, ; : . ! ?`` and a space; the speech may end with ``. ! ?``; its length stays within the
  grammar's bounds), so a valid token is one the grammar allows too.

Cost: only the likeliest tokens are checked. llama-cpp-python runs the processor first in its
sampler chain (then the repetition penalty, the grammar, top-k, top-p, min-p, temperature), and
min-p drops every token whose logit is more than ``ln(1/min_p)`` below the best one left, so the
guard checks candidates from the likeliest down and stops once one is that far below the best
valid one (after the penalty, which it can tell exactly: it knows the answer's tokens); only
tokens whose first character can follow the speech so far are candidates at all. Every token
above that cut-off that is not valid gets the offset; those below it are left alone (min-p drops
them anyway, and top-p, which comes before min-p, then sees the tail it would see without the
guard). When no token is valid (nothing the grammar allows can make a word) every token gets the
offset and the sampler still draws one: it never fails.
An offset, not -inf: the grammar and min-p still see finite logits.
"""

from __future__ import annotations

import bisect
import ctypes
import functools
import math
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from arena.players.wordlist import is_word

from .local_grammar import SPEECH_MIN, TEXT, WORD_LETTERS

PENALTY = 1e4  # subtracted from the logit of a token that is not valid
#: candidates are checked in bands of logits below the likeliest: within 4 of it, then 8, 16, all
BANDS = (4.0, 8.0, 16.0, math.inf)
SPEECH_KEY = '"speech"'
LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
PAUSES = frozenset(",;:")  # must be followed by a space
STOPS = frozenset(".!?")  # followed by a space, or end the speech
SPEECH_CHARS = LETTERS | PAUSES | STOPS | {" ", "'"}
FIRST_CHARACTERS = "".join(sorted(SPEECH_CHARS))
LONGEST = WORD_LETTERS + 3  # a word's characters at most: letters, an apostrophe and two letters

# Where the guard is in the answer (phases) and, inside a speech, after what (states).
SEEK, KEYED, OPEN, INSIDE, DONE = range(5)  # before "speech"; after it; after its colon; in the string; invalid
# a word may begin; letters of a word; after its apostrophe; one letter after it; two; after , ; : and . ! ?
START, WORD, APOSTROPHE, ENDING, ENDED, PAUSE, STOP = range(7)
IN_WORD = (WORD, ENDING, ENDED)  # a word that may end here if it is whole


# ---- the words -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Words:
    """The words a speech may use: the word list and the game's seat names, with prefix look-ups."""

    known: frozenset[str]
    ordered: tuple[str, ...]  # the words a speech can spell (see fits), sorted
    lengths: Any  # numpy array: len(ordered[i])
    names: frozenset[str]  # lower-cased seat names and their possessives

    @classmethod
    def of(cls, known: frozenset[str], names: Iterable[str] = ()) -> Words:
        ordered, lengths = _spellable(known)
        lowered = {name.lower() for name in names if fits(name.lower())}
        return cls(known, ordered, lengths, frozenset(lowered | {name + "'s" for name in lowered}))

    def word(self, word: str) -> bool:
        """Is ``word`` (lower-cased) a whole word? The speech figure's rule (:func:`arena.players.wordlist.is_word`)."""
        return is_word(word, self.known, self.names)

    def start(self, run: str, room: int) -> bool:
        """Is ``run`` (lower-cased) the start of a word that needs at most ``room`` more characters?"""
        most = len(run) + room
        if any(name.startswith(run) and len(name) <= most for name in self.names):
            return True
        low = bisect.bisect_left(self.ordered, run)
        if low == len(self.ordered) or not self.ordered[low].startswith(run):
            return False
        if room >= LONGEST:
            return True
        high = bisect.bisect_left(self.ordered, run + "\x7f", low)  # past every word starting with run
        return bool(self.lengths[low:high].min() <= most)


def fits(word: str) -> bool:
    """Can the grammar spell ``word``? Lower-case letters (at most WORD_LETTERS), maybe ``'`` and 1-2 letters."""
    stem, apostrophe, ending = word.partition("'")
    if not (0 < len(stem) <= WORD_LETTERS and stem.isalpha() and stem.isascii()):
        return False
    return not apostrophe or (0 < len(ending) <= 2 and ending.isalpha() and ending.isascii())


@functools.cache
def _spellable(known: frozenset[str]) -> tuple[tuple[str, ...], Any]:
    """The sorted words of a list the grammar can spell (with ``a`` and ``i``), and their lengths."""
    ordered = tuple(sorted({word for word in known if len(word) > 1 and fits(word)} | {"a", "i"}))
    return ordered, np.fromiter(map(len, ordered), dtype=np.int16, count=len(ordered))


# ---- the speech so far -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Speech:
    """Where an answer is, as far as the guard cares: the phase, and inside a speech its state,
    the characters written (``length``) and the current word's letters (``run``, lower-cased)."""

    phase: int = SEEK
    state: int = START
    length: int = 0
    run: str = ""
    tail: str = ""  # before the speech: the last characters, to find the key

    def feed(self, text: str, words: Words | None, fewest: int, most: int) -> Speech:
        """The state after ``text``. With ``words`` (checking a candidate), phase DONE when the text
        would make a non-word or leave the grammar's shape; without (following the tokens chosen),
        it only follows."""
        phase, state, length, run, tail = self.phase, self.state, self.length, self.run, self.tail
        for char in text:
            if phase == INSIDE:
                if char == '"':  # the end of the speech: long enough, its last word whole
                    if words is not None and (state not in (*IN_WORD, STOP) or length < fewest or not _ends(state, run, words)):
                        return replace(self, phase=DONE)
                    phase, tail = SEEK, ""
                    continue
                follows = _after(state, char)
                if follows is None and words is not None:
                    return replace(self, phase=DONE)
                if char not in LETTERS and char != "'":  # a word ends here
                    if words is not None and not _ends(state, run, words):
                        return replace(self, phase=DONE)
                    run = ""
                else:
                    run += char.lower()
                state, length = follows if follows is not None else START, length + 1
            elif phase == OPEN:
                if char == '"':
                    phase, state, length, run = INSIDE, START, 0, ""
                elif char != " ":
                    phase, tail = SEEK, ""  # null: no speech
            elif phase == KEYED:
                if char == ":":
                    phase = OPEN
                elif char != " ":
                    phase, tail = SEEK, ""
            else:
                tail = (tail + char)[-len(SPEECH_KEY) :]
                if tail == SPEECH_KEY:
                    phase, tail = KEYED, ""
        if phase == INSIDE and words is not None and not _room(state, run, most - length, words):
            return replace(self, phase=DONE)
        return Speech(phase, state, length, run, tail)

    @property
    def near(self) -> bool:
        """In a speech, or where the next token could open one (a candidate must then be checked)."""
        return self.phase != SEEK or any(self.tail.endswith(SPEECH_KEY[:size]) for size in range(1, len(SPEECH_KEY)))


#: the grammar's words (local_grammar.text_rules): which state a character leads to from each state
_LETTER_AFTER = {START: WORD, WORD: WORD, APOSTROPHE: ENDING, ENDING: ENDED}


def _after(state: int, char: str) -> int | None:
    """The state after ``char``, or None when the grammar does not allow it there."""
    if char in LETTERS:
        if char.isupper() and state != START:  # capitals only first
            return None
        return _LETTER_AFTER.get(state)
    if char == "'":
        return APOSTROPHE if state == WORD else None
    if char == " ":
        return START if state in (*IN_WORD, PAUSE, STOP) else None
    if char in PAUSES:
        return PAUSE if state in IN_WORD else None
    if char in STOPS:
        return STOP if state in IN_WORD else None
    return None


def _ends(state: int, run: str, words: Words) -> bool:
    """May the current word end here? (a word being written must be a whole word)"""
    return state not in IN_WORD or words.word(run)


def _room(state: int, run: str, room: int, words: Words) -> bool:
    """Can the speech still end well within ``room`` more characters from ``state``?"""
    if room < 0:
        return False
    if state in (WORD, ENDING, ENDED, APOSTROPHE):
        return words.start(run, room)
    if state == START:
        return room >= 1  # "a" or "I"
    if state == PAUSE:
        return room >= 2  # a space and a letter
    return True  # STOP: the speech may end here


def speech_bounds(schema: Any) -> tuple[int, int] | None:
    """The [fewest, most] characters of the ``speech`` text in a grammar schema, or None."""
    if isinstance(schema, dict):
        speech = (schema.get("properties") or {}).get("speech")
        for branch in [speech, *((speech or {}).get("anyOf") or [])]:
            if isinstance(branch, dict) and TEXT in branch:
                return tuple(branch[TEXT])  # type: ignore[return-value]
        for value in schema.values():
            found = speech_bounds(value)
            if found:
                return found
    elif isinstance(schema, list):
        for value in schema:
            found = speech_bounds(value)
            if found:
                return found
    return None


# ---- the model's tokens ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TokenTexts:
    """Every token's text (its UTF-8 piece; "" when it is special or not whole UTF-8), and which
    tokens could appear in a speech: their text up to a first quote is letters, spaces, ``'`` or
    ``, ; : . ! ?`` (a token like ``"}`` that closes the speech counts)."""

    texts: tuple[str, ...]
    speakable: Any  # numpy bool array
    first: Any  # numpy uint8 array: a speakable token's first character (ASCII), else 0

    @classmethod
    def of(cls, texts: Iterable[str]) -> TokenTexts:
        texts = tuple(texts)
        speakable = np.fromiter(
            (bool(text) and set(text.split('"', 1)[0]) <= SPEECH_CHARS for text in texts), dtype=bool, count=len(texts)
        )
        first = np.fromiter(
            (ord(text[0]) if ok and ord(text[0]) < 128 else 0 for text, ok in zip(texts, speakable, strict=True)),
            dtype=np.uint8,
            count=len(texts),
        )
        return cls(texts, speakable, first)

    @classmethod
    def of_model(cls, llama_cpp: Any, vocab: Any, size: int) -> TokenTexts:
        """From a llama.cpp vocabulary (measured: 0.1-0.2 s for 49,152 tokens, 0.9 s for 262,144)."""
        buffer = ctypes.create_string_buffer(256)

        def text(token: int) -> str:
            n = llama_cpp.llama_token_to_piece(vocab, token, buffer, 256, 0, False)
            try:
                return buffer.raw[: max(n, 0)].decode("utf-8")
            except UnicodeDecodeError:
                return ""

        return cls.of(text(token) for token in range(size))


# ---- the logits processor ---------------------------------------------------------------------------
@dataclass(slots=True)
class GuardStats:
    steps: int = 0  # sampling steps in or next to a speech
    checked: int = 0  # candidate tokens checked
    seconds: float = 0.0


class WordGuard:
    """The logits processor of one answer (see the module docstring).

    ``opening`` is the answer's fixed opening (in the prompt), ``start`` the number of prompt
    tokens: what the model generates follows them in ``input_ids``. ``bounds`` are the speech's
    [fewest, most] characters in the grammar; ``repeat_penalty`` and ``min_p`` the sampler's.
    """

    def __init__(
        self,
        table: TokenTexts,
        words: Words,
        *,
        opening: str,
        start: int,
        bounds: tuple[int, int] | None = None,
        repeat_penalty: float = 1.0,
        min_p: float = 0.0,
        stats: GuardStats | None = None,
    ) -> None:
        self.table, self.words = table, words
        self.fewest, self.most = bounds or (SPEECH_MIN, 10**6)
        self.speech = Speech().feed(opening, None, self.fewest, self.most)
        self.seen = start
        self.start = start
        self.penalty = repeat_penalty
        self.margin = math.log(1 / min_p) if min_p > 0 else math.inf
        self.stats = stats if stats is not None else GuardStats()

    def valid(self, token: int) -> bool:
        """Would ``token`` keep the speech made of words? (True outside a speech)"""
        after = self.speech.feed(self.table.texts[token], self.words, self.fewest, self.most)
        return after.phase != DONE

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        texts = self.table.texts
        for token in input_ids[self.seen :]:  # the tokens chosen since the last step
            self.speech = self.speech.feed(texts[int(token)], None, self.fewest, self.most)
        self.seen = len(input_ids)
        if not self.speech.near:
            return scores
        began = time.perf_counter()
        recent = {int(t) for t in input_ids[max(self.start, len(input_ids) - 64) :]}  # the penalty's window
        keep, cutoff = self._valid_tokens(scores, recent)
        # Offset every token min-p could keep that is not valid; those below the cut-off are left
        # as they are (min-p drops them anyway), so top-p, which runs before min-p, sees the same
        # tail as without the guard, and a step with nothing invalid to drop is left unchanged.
        drop = np.setdiff1d(np.flatnonzero(scores > cutoff), keep, assume_unique=True)
        out = scores
        if drop.size:
            out = scores.copy()
            out[drop] -= PENALTY
        self.stats.steps += 1
        self.stats.seconds += time.perf_counter() - began
        return out

    def _penalised(self, token: int, logit: float, recent: Collection[int]) -> float:
        if token not in recent or self.penalty == 1.0:
            return logit
        return logit / self.penalty if logit > 0 else logit * self.penalty

    def _valid_tokens(self, scores: Any, recent: Collection[int]) -> tuple[list[int], float]:
        """The valid tokens min-p could keep, checked from the likeliest down, and the cut-off
        below which min-p drops every token (-inf when none is valid).

        In the speech only tokens whose first character can follow it so far are candidates (one
        vectorised look-up); they are checked in bands of logits below the likeliest of them, so
        a step sorts a few tokens, not the vocabulary, and stops at the cut-off.
        """
        firsts = self._first_characters()
        masked = scores if firsts is None else np.where(firsts[self.table.first], scores, -np.inf)
        top = float(masked.max())
        keep: list[int] = []
        best = -math.inf  # the best valid logit after the penalty
        high = math.inf
        for width in BANDS:
            low = max(top - width, best - self.margin)
            band = np.flatnonzero((masked > low) & (masked <= high))
            for token in band[np.argsort(-masked[band], kind="stable")].tolist():
                logit = float(masked[token])
                if logit < best - self.margin:
                    return keep, best - self.margin
                self.stats.checked += 1
                if self.valid(token):
                    keep.append(token)
                    best = max(best, self._penalised(token, logit, recent))
            if low <= best - self.margin or low == -math.inf:
                break
            high = low
        return keep, best - self.margin

    def _first_characters(self) -> Any:
        """Which first characters a valid token may have now (a look-up table by character code;
        0 stands for a token that cannot be in a speech), or None outside the speech string:
        a superset of what :meth:`valid` accepts, cheap to apply."""
        speech = self.speech
        if speech.phase != INSIDE:
            return None
        table = np.zeros(256, dtype=bool)
        state, run = speech.state, speech.run
        for char in FIRST_CHARACTERS:
            follows = _after(state, char)
            if follows is None:
                continue
            if char in LETTERS or char == "'":
                if state != START and not self.words.start(run + char.lower(), LONGEST):
                    continue
            elif not _ends(state, run, self.words):
                continue
            table[ord(char)] = True
        table[ord('"')] = state in (*IN_WORD, STOP) and _ends(state, run, self.words)
        return table
