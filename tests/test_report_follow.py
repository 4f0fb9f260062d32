"""Reports a researcher follows from the leaderboard to a move (issue 24, items 2-11).

- A tournament's game pages name the entrant in each seat and the pairing with its sides, also for a
  transcript written before tournaments recorded them; a seat's own page names only its own entrant.
- Unknown prices read "price unknown", never $0.0000.
- ``arena show`` on a database or a folder is one line.
- Leaderboard rows link to their games; a mirrored pair opens side by side.
- The index and tournament tables sort, filter and export.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from arena.cli import main
from arena.report.html import render_game
from arena.run.transcript import read_transcript
from tests.browser import Browser
from tests.test_report import browser, games, model_game

#: the report tests' fixtures: one game per variant, one of model seats, the shared headless Chromium
__all__ = ["browser", "games", "model_game"]

SMALL = """name = "small"
games = 6
database = "small.sqlite"
transcripts = "tx"
[models]
bot = "bot"
bot2 = "bot"
random = "random"
[[variants]]
name = "classic"
players = 7
[[variants]]
name = "duel"
options = { hands = 2 }
"""


@pytest.fixture(autouse=True)
def _no_real_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-round tournament of bot, bot2 (= "bot", the same spec) and random: its database."""
    folder = tmp_path_factory.mktemp("small")
    (folder / "small.toml").write_text(SMALL)
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        assert main(["tournament", "small.toml", "--quiet"]) == 0
    finally:
        os.chdir(cwd)
    return folder / "small.sqlite"


@pytest.fixture(scope="module")
def board(small: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tournament's report folder."""
    out = tmp_path_factory.mktemp("board")
    assert main(["report", str(small), "-o", str(out)]) == 0
    return out


def _text(page: str) -> str:
    body = re.sub(r"<script.*?</script>|<style.*?</style>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))


def test_game_pages_name_the_entrant_in_each_seat_and_the_sides(small: Path, board: Path) -> None:
    page = (board / "games" / "classic_7_r1_bot~bot2_bot.html").read_text(encoding="utf-8")
    text = _text(page)
    header = read_transcript(small.parent / "tx" / "classic_7_r1_bot~bot2_bot.jsonl").header
    entrants = header["tournament"]["entrants"]
    assert set(entrants.values()) == {"bot", "bot2"}, "both entrants play the same spec, told apart by name"
    assert "bot (mafia) vs bot2 (town), round 1" in text
    for seat, who in entrants.items():
        assert re.search(rf"{seat} {who}\b", text), (seat, who)
    index = _text((board / "index.html").read_text(encoding="utf-8"))
    assert re.search(r"\b(bot|bot2|random) \((mafia|town) wins", index), "the index names the winning model"


def test_a_transcript_without_entrants_takes_them_from_the_database(small: Path, tmp_path: Path) -> None:
    source = small.parent / "tx" / "duel_2_r1_bot~bot2_bot2.jsonl"
    saved = source.read_text(encoding="utf-8")
    lines = saved.splitlines()
    header = json.loads(lines[0])
    entrants = header.pop("tournament")["entrants"]
    source.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    try:
        assert main(["report", str(small), "-o", str(tmp_path / "old")]) == 0
        text = _text((tmp_path / "old" / "games" / "duel_2_r1_bot~bot2_bot2.html").read_text(encoding="utf-8"))
    finally:
        source.write_text(saved, encoding="utf-8")
    assert "(side A) vs" in text
    for seat, who in entrants.items():
        assert re.search(rf"{seat} {who}\b", text)


def test_a_seats_page_names_only_its_own_entrant(small: Path) -> None:
    transcript = read_transcript(small.parent / "tx" / "classic_7_r1_bot~random_bot.jsonl")
    entrants = transcript.header["tournament"]["entrants"]
    seat = next(s for s, who in entrants.items() if who == "random")
    text = _text(render_game(transcript, viewer=seat))
    assert f"{seat} random" in text
    assert "bot (mafia)" not in text and "bot vs random" in text
    others = [s for s in entrants if s != seat]
    assert not any(re.search(rf"\b{s} (bot|random)\b", text) for s in others), "another seat's entrant tells its side"


def test_an_unknown_price_is_never_shown_as_free(model_game: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A profile without prices counts $0 per call: the page, each decision, the index and ``arena show`` say "price unknown"."""
    folder = tmp_path / "games"
    folder.mkdir()
    unpriced = folder / "unpriced.jsonl"
    out = []
    for line in model_game.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("type") == "call":
            record["call"]["cost"] = 0.0
        if record.get("type") == "summary":
            for usage in (record.get("usage") or {}).values():
                usage["cost"] = 0.0
        out.append(json.dumps(record))
    unpriced.write_text("\n".join(out) + "\n", encoding="utf-8")
    page = render_game(read_transcript(unpriced))
    assert "$0.0000" not in page
    assert "model calls, price unknown" in _text(page)
    assert page.count("price unknown") > 3, "the header, each seat and each decision"
    assert main(["report", str(folder)]) == 0
    index = (folder / "report" / "index.html").read_text(encoding="utf-8")
    assert "$0.0000" not in index and "model cost price unknown" in _text(index)
    capsys.readouterr()
    assert main(["show", str(unpriced)]) == 0
    shown = capsys.readouterr().out
    assert "price unknown" in shown and "$0.0000" not in shown
    priced = render_game(read_transcript(model_game))
    assert "price unknown" not in priced, "a priced game shows its dollars"


def test_endings_deaths_forfeits_and_strips_read_right(games: dict[str, Path], board: Path) -> None:
    """Issue 24.4: one wording of an ending, McKay deaths named, forfeits not read as choices, grey
    "unfinished", a seat's page fills the cards its last line lists and keeps quiet nights, cove's
    nominations counted, village's trials beside their votes."""
    index = _text((board / "index.html").read_text(encoding="utf-8"))
    for page in sorted((board / "games").glob("classic*.html")):
        result = re.search(r'<span class="result[^"]*">([^<]*)</span>', page.read_text(encoding="utf-8")).group(1)
        assert result in index, "the index words the ending as the game page does"
    trio = _text(render_game(read_transcript(games["trio-random"])))
    assert re.search(r"\b[A-Z][a-z]+ died: ", trio), "a hand line says who died"
    classic = read_transcript(games["classic"])
    seat = classic.header["seats"][0]
    mine = render_game(classic, viewer=seat)
    roles = classic.events[-1]["data"]["roles"]
    for name, role in roles.items():
        assert re.search(rf'data-who="{name}">{name}</span></td><td>.*?</td>\s*<td><span class="role"[^>]*>{role}', mine)
    nights = [e["data"].get("number", e["day"]) for e in classic.events if e["type"] == "night"]
    assert all(f"Night {n}</a></td>" in mine for n in nights), "a seat's strip keeps nights where nobody died"
    cove = render_game(read_transcript(games["cove"]))
    assert re.search(r'<tr class="nom"><td>nominated by</td><td>(<b>\d+</b>|)', cove)
    village = _text(render_game(read_transcript(games["village"])))
    assert re.search(r"\w+ on trial → guilty: \w+ \d+–\d+", village)


def test_a_forfeit_and_an_unfinished_game_read_as_such(model_game: Path, tmp_path: Path) -> None:
    page = render_game(read_transcript(model_game))
    assert "default played:" in page, "a forfeited decision says its action is the default, not a choice"
    cut = tmp_path / "cut.jsonl"
    lines = model_game.read_text(encoding="utf-8").splitlines()
    cut.write_text("\n".join(lines[:6]) + "\n", encoding="utf-8")
    assert '<span class="result unfinished">' in render_game(read_transcript(cut))


def test_show_on_a_database_or_a_folder_is_one_line(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for path, words in ((small, "is a tournament database"), (small.parent / "tx", "is a folder"), (small.parent, "is a folder")):
        capsys.readouterr()
        assert main(["show", str(path)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err and "arena report" in err, err
        assert "codec" not in err and "Is a directory" not in err
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    assert ".sqlite" in capsys.readouterr().out


def _moment(browser: Browser) -> dict[str, object]:
    return browser.evaluate(
        "({hash: location.hash, shown: !document.getElementById('moment').hidden,"
        " title: document.getElementById('m-title').textContent, body: document.getElementById('m-body').innerText,"
        " now: Array.from(document.querySelectorAll('.now')).map(e => +e.dataset.seq)})"
    )


def test_in_chromium_a_reader_steps_through_a_game_with_the_keyboard(
    browser: Browser, games: dict[str, Path], tmp_path: Path
) -> None:
    transcript = read_transcript(games["classic"])
    events = transcript.events
    page = tmp_path / "classic.html"
    page.write_text(render_game(transcript), encoding="utf-8")
    sections = [e["seq"] for e in events if e["type"] in ("day", "night")]
    vote = next(e for e in events if e["type"] == "vote_result")
    start = vote["seq"] - 1
    browser.open(f"{page.as_uri()}#at={start}", 1400, 900)
    assert _moment(browser)["hash"] == f"#at={start}", "the address is kept as given"
    browser.key("ArrowRight")
    state = _moment(browser)
    assert state["hash"] == f"#at={vote['seq']}" and state["shown"] and state["now"] and set(state["now"]) == {vote["seq"]}
    assert "votes so far" in state["body"].lower() and f"vote on {vote['data'].get('accused', '')}" in state["body"]
    assert "every card" in state["body"].lower()
    assert all(f"{n} {r}" in state["body"] for n, r in transcript.summary["roles"].items()), "all views: every card"
    browser.key("ArrowLeft")
    assert _moment(browser)["hash"] == f"#at={start}"
    browser.key("ArrowDown")
    after = next(s for s in sections if s > start)
    state = _moment(browser)
    assert state["hash"] == f"#at={after}" and state["title"].startswith(("Day", "Night"))
    assert "none yet" in state["body"], "a new day or night starts with no votes"
    browser.key("ArrowDown")
    assert _moment(browser)["hash"] == f"#at={next(s for s in sections if s > after)}"
    browser.key("ArrowUp")
    assert _moment(browser)["hash"] == f"#at={after}"
    dead = next(e["data"]["player"] for e in events if e["type"] == "death")
    browser.evaluate("var s = document.getElementById('scrub'); s.value = s.max; s.dispatchEvent(new Event('input'))")
    state = _moment(browser)
    assert state["hash"] == f"#at={events[-1]['seq']}" and dead not in state["body"].split("\n")[1]
    seat, role = next((n, r) for n, r in transcript.summary["roles"].items() if r != "mafia")
    browser.open(f"{page.as_uri()}#as={seat}&at={vote['seq']}", 1400, 900)
    state = _moment(browser)
    assert state["hash"] == f"#as={seat}&at={vote['seq']}" and f"{seat} knows".lower() in state["body"].lower()
    assert role in state["body"] and "mafia team" not in state["body"], "a seat's view: its own card, no other"
    browser.key("ArrowRight")
    assert _moment(browser)["hash"].startswith(f"#as={seat}&at="), "stepping keeps the view"
    assert browser.errors() == []


def test_charts_are_inline_svg_and_keep_to_their_view(games: dict[str, Path], board: Path) -> None:
    classic = read_transcript(games["classic"])
    page = render_game(classic)
    assert "Suspicion: accusations" in page and "Players alive" in page
    assert re.search(r"""<figure class="chartbox" data-to='\[\]'><figcaption>Alive by side""", page), "sides: the moderator's"
    mine = render_game(classic, viewer=classic.header["seats"][0])
    assert "Players alive" in mine and "Alive by side" not in mine
    duel = render_game(read_transcript(games["duel-random"]))
    assert "Score after each hand" in duel and duel.count("<polyline") >= 2
    index = (board / "index.html").read_text(encoding="utf-8")
    assert "Win rate by side per model, with 95% intervals" in index and "Games played per pairing, by round" in index
    assert re.search(r"<title>bot · classic mafia: \d+% \[\d+%, \d+%\]", index), "each estimate with its interval"
    assert "http://" not in re.sub(r'xmlns="http://www.w3.org/2000/svg"', "", index), "nothing to fetch"
