"""Does a speech read as speech? The measure behind the local models' speech figure.

A speech **reads as speech** when

- it has at least one word (a silent or forfeited speech does not);
- every word is a dictionary word or a seat name of the game: a word is a run of letters, with
  apostrophes inside (``don't``, ``Bob's``) and hyphens between parts that are each words;
  anything else between spaces (``111``, ``the_mafia``, ``{{message}}``, ``.mpg``) is not, and a
  single letter counts only as ``a`` or ``I`` (the word list has every letter as a noun);
- it is not a loop of a few words: at least half of its words are distinct (case-insensitive), so
  "no yes yes yes no yes" fails and "I trust Bob, not Cid." passes.

The dictionary is the word list of :mod:`arena.players.wordlist` (shipped with the package, built
from SCOWL's lists: inflected forms, contractions and common words, without proper names,
abbreviations or acronyms; ``ARENA_WORDS`` names another list). Unlike Webster's 2nd (``web2``,
the list of the ``english-words`` PyPI package) it has inflected forms ("players", "accused",
"voted") and contractions, which speech is full of. A seat name's possessive ("Bob's") counts as
the name. The local models' word guard (:mod:`arena.players.llm.local_words`) holds their speech
to the same words.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from arena.players.wordlist import WORDS_ENV, dictionary, is_word, word_list_path  # noqa: F401 (the list's names re-exported)

#: one word: letters, apostrophes inside (don't, Bob's), hyphens between parts (well-known)
WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*(?:-[A-Za-z]+(?:'[A-Za-z]+)*)*")
EDGE_PUNCTUATION = ".,;:!?\"'()"


def words_of(text: str) -> list[str] | None:
    """The words of a speech, or None when something between spaces is not a word."""
    words = []
    for chunk in text.split():
        chunk = chunk.strip(EDGE_PUNCTUATION)
        if not chunk:  # a lone dash or punctuation mark
            continue
        if not WORD.fullmatch(chunk):
            return None
        words.append(chunk)
    return words


def _is_word(word: str, known: Collection[str], names: Collection[str]) -> bool:
    if "-" in word:
        return all(_is_word(part, known, names) for part in word.split("-"))
    return is_word(word.lower(), known, names)


def verdict(text: str, known: Collection[str], names: Collection[str] = ()) -> str:
    """``speech`` when ``text`` reads as speech, else why not: ``silent``, ``non-words`` or ``loop``.

    ``names`` are the game's seat names, lower-cased.
    """
    words = words_of(text or "")
    if words is None:
        return "non-words"
    if not words:
        return "silent"
    if not all(_is_word(word, known, names) for word in words):
        return "non-words"
    if 2 * len({word.lower() for word in words}) < len(words):
        return "loop"
    return "speech"


def reads_as_speech(text: str, known: Collection[str], names: Iterable[str] = ()) -> bool:
    """True when ``text`` is made of dictionary words (or seat names) and is not a loop of a few words."""
    return verdict(text, known, {name.lower() for name in names}) == "speech"


@dataclass(frozen=True, slots=True)
class SpeechFigure:
    """How many of a game's speeches read as speech, and why the others do not."""

    speeches: int
    readable: int
    silent: int  # no words at all (a forfeit, or only punctuation)
    non_words: int  # something that is not a dictionary word or a seat name
    loops: int  # dictionary words, but fewer than half of them distinct

    @property
    def share(self) -> float:
        return self.readable / self.speeches if self.speeches else 0.0

    def __str__(self) -> str:
        return (
            f"{self.readable}/{self.speeches} speeches read as speech ({self.share:.0%}); "
            f"{self.non_words} with non-words, {self.loops} loops, {self.silent} silent"
        )


def speech_figure(texts: Iterable[str], known: Collection[str], names: Iterable[str] = ()) -> SpeechFigure:
    """Count the speeches that read as speech (see the module docstring for the measure)."""
    lowered = {name.lower() for name in names}
    counts = Counter(verdict(text, known, lowered) for text in texts)
    return SpeechFigure(
        speeches=counts.total(),
        readable=counts["speech"],
        silent=counts["silent"],
        non_words=counts["non-words"],
        loops=counts["loop"],
    )
