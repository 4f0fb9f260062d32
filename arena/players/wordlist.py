"""The English word list: what counts as a word in a speech.

In the players layer because a player (the local models' word guard) reads it; the speech figure,
a metric, reads it from here.

Used by the speech figure (:mod:`arena.run.speech_quality`) and by the local models' word guard
(:mod:`arena.players.llm.local_words`), so that what a local model may say and what the figure
counts as a word are the same list.

The list ships with the package (``arena/players/data/words.txt.gz``), so a fresh machine has it
without a system package; ``ARENA_WORDS`` names another list (one word a line, plain or gzipped). It is built
by :func:`bundle` from SCOWL (Kevin Atkinson's Spell Checker Oriented Word Lists, as Debian's
``scowl`` package installs them; its copyright and permission notice travel beside the list as
``arena/players/data/words-copyright.txt``): the lists that make Debian's ``wamerican`` (size 50,
English and American spelling), without its proper names ("Mauro", "Eddie": a speech that names
someone at the table names a seat) and abbreviations, and with only the commoner capitalised
words (:data:`SOURCES`: "Monday", "Mafia", "English" stay; "Cleopatra", "Kinshasa" go). Inflected
forms ("players", "voted"), contractions and possessives ("don't", "Bob's") are kept; left out
too are words that are not ASCII letters, acronyms and initialisms ("DE", "LA": two capitals or
more), words without a vowel ("Dr", "cm") and two-letter capitalised words ("Ed", "Al"; "He",
"It" stay as "he", "it"). Everything is lower-cased. A single letter is a word only as ``a`` or
``I`` (:func:`is_word`).

Rebuild it with ``apt-get install scowl && python -m arena.players.wordlist /usr/share/dict/scowl``.
"""

from __future__ import annotations

import functools
import gzip
import os
import re
import shutil
import sys
from collections.abc import Collection
from pathlib import Path

WORDS_ENV = "ARENA_WORDS"
DATA = Path(__file__).with_name("data")
BUNDLED = DATA / "words.txt.gz"
COPYRIGHT = DATA / "words-copyright.txt"
#: the SCOWL lists the bundled list is made of: (kind, largest size) for English and American spelling
SOURCES = (("words", 50), ("contractions", 50), ("upper", 40))
SIZES = (10, 20, 35, 40, 50)
SINGLE_LETTER_WORDS = frozenset({"a", "i"})
#: an entry of the source list that may be kept: ASCII letters, apostrophes inside
ENTRY = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*")
VOWEL = re.compile(r"[aeiouyAEIOUY]")


def word_list_path() -> Path:
    """The word list in use: ``$ARENA_WORDS``, else the bundled one."""
    env = os.environ.get(WORDS_ENV)
    if not env:
        return BUNDLED
    path = Path(env)
    if not path.is_file():
        raise FileNotFoundError(f"{WORDS_ENV}={env}: no such file")
    return path


@functools.cache
def _load(path: str) -> frozenset[str]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as file:
        return frozenset(line.strip().lower() for line in file if line.strip())


def dictionary(path: Path | None = None) -> frozenset[str]:
    """The words of a list, lower-cased (read once per process)."""
    return _load(str(path or word_list_path()))


def is_word(word: str, known: Collection[str], names: Collection[str] = ()) -> bool:
    """Is ``word`` (lower-cased) a word: a seat name or its possessive, ``a``/``i``, or in ``known``."""
    if word in names or (word.endswith("'s") and word[:-2] in names):
        return True
    if len(word) == 1:
        return word in SINGLE_LETTER_WORDS
    return word in known


def keep(entry: str) -> bool:
    """Does an entry of the source list go into the bundled list? (see the module docstring)"""
    return (
        ENTRY.fullmatch(entry) is not None
        and len(entry) > 1
        and sum(c.isupper() for c in entry) < 2
        and VOWEL.search(entry) is not None
        and not (len(entry) == 2 and entry[0].isupper())
    )


def source_files(scowl: Path) -> list[Path]:
    """The SCOWL lists of :data:`SOURCES` found in ``scowl`` (a folder such as /usr/share/dict/scowl)."""
    names = [
        f"{spelling}-{kind}.{size}"
        for kind, most in SOURCES
        for size in SIZES
        if size <= most
        for spelling in ("english", "american")
    ]
    return [scowl / name for name in names if (scowl / name).is_file()]


def bundle(scowl: Path, target: Path = BUNDLED) -> int:
    """Write the bundled list from the SCOWL lists in ``scowl``; returns how many words it holds.

    Gzipped with no timestamp, so the same lists give the same bytes.
    """
    files = source_files(scowl)
    if not files:
        raise FileNotFoundError(f"{scowl}: no SCOWL lists (apt-get install scowl)")
    entries = {line.strip() for path in files for line in path.read_text(encoding="utf-8", errors="replace").splitlines()}
    words = sorted({entry.lower() for entry in entries if keep(entry)})
    target.write_bytes(gzip.compress("".join(word + "\n" for word in words).encode(), 9, mtime=0))
    return len(words)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m arena.players.wordlist SCOWL_FOLDER (e.g. /usr/share/dict/scowl)", file=sys.stderr)
        return 2
    try:
        count = bundle(Path(argv[0]))
    except OSError as exc:
        print(f"arena.players.wordlist: {exc}", file=sys.stderr)
        return 2
    notice = Path("/usr/share/doc/scowl/copyright")
    if notice.is_file():
        shutil.copyfile(notice, COPYRIGHT)
    print(f"{BUNDLED}: {count:,} words, {BUNDLED.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
