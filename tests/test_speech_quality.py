"""The speech figure's measure (arena.run.speech_quality): what reads as speech and what does not."""

from __future__ import annotations

import pytest

from arena.players.wordlist import BUNDLED, COPYRIGHT, bundle, keep
from arena.run.speech_quality import WORDS_ENV, SpeechFigure, dictionary, reads_as_speech, speech_figure, verdict, word_list_path

KNOWN = frozenset({"a", "i", "trust", "not", "no", "yes", "the", "mafia", "is", "lying", "don't", "well", "known"})
KNOWN |= {"hello", "everyone", "who", "voted"}
NAMES = ("Ann", "Bob", "Cid")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I trust Bob, not Cid.", "speech"),
        ("Hello everyone! Who voted? I don't trust Ann.", "speech"),
        ("The mafia is well-known.", "speech"),  # hyphenated: each part a word
        ("yes yes no", "speech"),  # 2 distinct of 3 words: at least half
        ("no yes yes yes no yes", "loop"),  # 2 distinct of 6
        ("the_mafia_of_the_city_of_whiskey_111111.mpg.d3", "non-words"),  # the issue's own examples
        ("{{message}}} You accused one of [Bob, …", "non-words"),
        ("I trust 111 Bob", "non-words"),  # digits are not words
        ("I trust demonag", "non-words"),  # not in the dictionary
        ("I trust b", "non-words"),  # a single letter is a word only as a or I
        ("", "silent"),
        ("  ... !", "silent"),
    ],
)
def test_verdicts(text, expected):
    assert verdict(text, KNOWN, {name.lower() for name in NAMES}) == expected
    assert reads_as_speech(text, KNOWN, NAMES) is (expected == "speech")


def test_seat_names_count_as_words_whatever_their_case():
    assert reads_as_speech("I trust BOB", KNOWN, NAMES)
    assert reads_as_speech("I trust Bob's silence", KNOWN | {"silence"}, NAMES)  # a name's possessive
    assert not reads_as_speech("I trust Zed", KNOWN, NAMES)  # not a seat of this game


def test_figure_counts_each_reason():
    texts = ["I trust Bob.", "no no no no yes", "x_y", "", "Hello everyone."]
    figure = speech_figure(texts, KNOWN, NAMES)
    assert figure == SpeechFigure(speeches=5, readable=2, silent=1, non_words=1, loops=1)
    assert figure.share == pytest.approx(0.4)
    assert str(figure).startswith("2/5 speeches read as speech (40%)")
    assert speech_figure([], KNOWN).share == 0.0


def test_word_list_from_the_environment(tmp_path, monkeypatch):
    words = tmp_path / "words.txt"
    words.write_text("Hello\nworld\n")
    monkeypatch.setenv(WORDS_ENV, str(words))
    assert word_list_path() == words and dictionary(words) == {"hello", "world"}
    monkeypatch.setenv(WORDS_ENV, str(tmp_path / "none.txt"))
    with pytest.raises(FileNotFoundError, match="ARENA_WORDS"):
        word_list_path()


def test_the_bundled_word_list_knows_speech(monkeypatch):
    """The list ships with the package (no system package needed), with its copyright notice."""
    monkeypatch.delenv(WORDS_ENV, raising=False)
    assert word_list_path() == BUNDLED and BUNDLED.stat().st_size < 250_000
    known = dictionary()
    assert len(known) > 80_000
    assert reads_as_speech("I don't trust the players who voted yesterday; Bob's silence is suspicious.", known, NAMES)
    assert reads_as_speech("The Mafia killed Eve's friend last Monday, I'm sure.", known, [*NAMES, "Eve"])
    assert not reads_as_speech("Echofelix ireland ireland ireland", known, NAMES)
    assert not reads_as_speech("Ciudad de la Bola", known, NAMES)  # seen in a game of SmolLM2 seats
    assert {"de", "ag", "dr", "cm", "asap", "b"}.isdisjoint(known)  # acronyms, symbols, abbreviations, letters
    assert {"mauro", "eddie", "cleopatra"}.isdisjoint(known)  # proper names: at the table, a name is a seat's
    assert "Kevin Atkinson" in COPYRIGHT.read_text() and "permission notice appear" in COPYRIGHT.read_text()


def test_the_bundled_list_is_built_from_scowl_by_a_fixed_rule(tmp_path):
    assert [keep(w) for w in ("players", "don't", "Bob's", "Monday", "He")] == [True] * 4 + [False]
    assert not any(keep(w) for w in ("DE", "ASAP", "AA's", "Dr", "cm", "Ag", "x", "Asunción", "well-known"))
    lists = {
        "english-words.10": "voted\nVoted\ncm\n",
        "american-words.50": "color\n",
        "english-upper.40": "Mafia\nDE\n",
        "english-upper.50": "Cleopatra\n",  # rarer capitalised words: left out
        "english-proper-names.50": "Mauro\n",  # proper names: left out
        "english-abbreviations.10": "hon\n",  # abbreviations: left out
        "english-words.60": "aardwolf\n",  # past size 50
    }
    for name, text in lists.items():
        (tmp_path / name).write_text(text)
    first, second = tmp_path / "a.gz", tmp_path / "b.gz"
    assert bundle(tmp_path, first) == 3 and bundle(tmp_path, second) == 3
    assert first.read_bytes() == second.read_bytes()  # no timestamp: the same lists, the same bytes
    assert dictionary(first) == {"voted", "color", "mafia"}
    with pytest.raises(FileNotFoundError, match="apt-get install scowl"):
        bundle(tmp_path / "nothing", first)
