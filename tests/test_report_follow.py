"""Reports a researcher follows from the leaderboard to a move (issue 24, items 2-11).

- A tournament's game pages name the entrant in each seat and the pairing with its sides, also for a
  transcript written before tournaments recorded them; a seat's own page names only its own entrant.
- Unknown prices read "price unknown", never $0.0000.
- ``arena show`` on a database or a folder is one line.
- Leaderboard rows link to their games; a mirrored pair opens side by side.
- The index and tournament tables sort, filter and export.
"""

from __future__ import annotations

import itertools
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
    assert "price unknown" not in re.sub(r'<details class="legend".*?</details>', "", priced, flags=re.S), (
        "a priced game shows its dollars"
    )


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


# ---- from the leaderboard to the games; a pair side by side (item 8) --------------------------------
def test_leaderboard_rows_link_to_their_games_and_pairs_open_side_by_side(small: Path, board: Path) -> None:
    index = (board / "index.html").read_text(encoding="utf-8")
    skills = index.split("Deception and detection (skill model)")[1].split("Paired comparisons")[0]
    assert re.search(r'<a href="#games\?model=bot&amp;variant=classic" title="the games behind this row">bot</a>', skills)
    comparisons = index.split("Paired comparisons")[1].split("<h2>Metrics")[0]
    assert 'href="#games?pairing=bot~bot2&amp;variant=classic"' in comparisons
    assert 'href="pairs/classic_7_r1_bot~bot2.html"' in comparisons, "a comparison lists its mirrored pairs"
    rows = re.findall(r'<tr data-variant="(\w+)" data-model="([\w|]+)" data-pairing="([\w~]+)"', index)
    assert len(rows) == 12 and all(set(m.split("|")) == set(p.split("~")) for _, m, p in rows)
    pair = (board / "pairs" / "classic_7_r1_bot~bot2.html").read_text(encoding="utf-8")
    frames = re.findall(r'<iframe name="(left|right)" title="([^"]+)" src="([^"#]+)', pair)
    assert [f[0] for f in frames] == ["left", "right"]
    assert {f[1] for f in frames} == {"classic/7/r1/bot~bot2/bot", "classic/7/r1/bot~bot2/bot2"}
    assert all((board / "pairs" / src).resolve().is_file() for _, _, src in frames)
    text = _text(pair)
    assert "bot (mafia) vs bot2 (town)" in text and "bot2 (mafia) vs bot (town)" in text, "the models swapped"
    assert "Where they diverge" in text


def test_divergence_marks_where_two_games_of_one_deal_part(small: Path) -> None:
    from arena.engine import Event
    from arena.report.pairs import divergence

    def events(name: str) -> list[Event]:
        return [Event.from_dict(e) for e in read_transcript(small.parent / "tx" / name).events]

    a, b = events("classic_7_r1_bot~random_bot.jsonl"), events("classic_7_r1_bot~random_random.jsonl")
    same = divergence(a, a)
    assert same.same and not any(p.differs for p in same.parts)
    d = divergence(a, b)
    assert not d.same and d.first[0] is not None and d.first_words[0] != d.first_words[1]
    public = [e for e in a if e.to is None]
    first = next(i for i, e in enumerate(public) if e.seq == d.first[0])
    assert [e.type for e in public[:first]] == [e.type for e in b if e.to is None][:first], "the same course up to there"
    assert any(p.differs for p in d.parts) or len(a) != len(b)
    assert d.parts[0].title.startswith(("Night", "Day"))


# ---- tables sort, filter and export (item 10) --------------------------------------------------------
def test_tables_export_as_csv_and_json(small: Path, board: Path, games: dict[str, Path], tmp_path: Path) -> None:
    import csv

    with (board / "games.csv").open(encoding="utf-8") as file:
        table = list(csv.DictReader(file))
    data = json.loads((board / "games.json").read_text(encoding="utf-8"))
    assert len(table) == len(data) == 12 and {r["game"] for r in table} == {r["game"] for r in data}
    won = {r["game"]: r["winner"] for r in table}
    assert won["classic/7/r1/bot~bot2/bot"] in ("bot", "bot2")
    boards = json.loads((board / "leaderboard.json").read_text(encoding="utf-8"))
    assert any(t["title"].startswith("Skill model") for t in boards) and all(t["header"] and t["rows"] for t in boards)
    index = (board / "index.html").read_text(encoding="utf-8")
    assert 'href="games.csv"' in index and 'href="leaderboard.json"' in index
    links = re.findall(r'href="([^"]+\.jsonl)" download', index)
    assert len(links) == 12 and all((board / link).resolve().is_file() for link in links), "each game's transcript"
    folder = tmp_path / "games"
    folder.mkdir()
    for key in ("classic", "duel"):
        (folder / games[key].name).write_bytes(games[key].read_bytes())
    assert main(["report", str(folder)]) == 0
    players = json.loads((folder / "report" / "players.json").read_text(encoding="utf-8"))
    assert {p["spec"] for p in players} == {"bot"} and players[0]["seats"] == 9 + 2
    folder_index = (folder / "report" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<tr data-variant="classic" data-model="bot" data-winner="bot">', folder_index)
    page = (folder / "report" / "games" / games["classic"].with_suffix(".html").name).read_text(encoding="utf-8")
    link = re.search(r'<a href="([^"]+)" download><code>', page).group(1)
    assert (folder / "report" / "games" / link).resolve() == (folder / games["classic"].name).resolve()


def test_in_chromium_tables_sort_and_filter_and_the_pair_view_loads(browser: Browser, board: Path) -> None:
    index = (board / "index.html").as_uri()
    browser.events.clear()
    browser.open(f"{index}#games?model=random&variant=duel", 1400, 900)
    shown = browser.evaluate(
        "Array.from(document.querySelectorAll('#games-table tbody tr')).filter(r => !r.hidden).map(r => r.cells[0].textContent)"
    )
    assert len(shown) == 4 and all(k.startswith("duel/") and "random" in k for k in shown), shown
    assert browser.evaluate("document.querySelector('form.filters .count').textContent") == "4 of 12 games"
    browser.evaluate("document.querySelector('a[href=\"#games?pairing=bot~bot2&variant=classic\"]').click()")
    browser.evaluate("new Promise(r => setTimeout(r, 50))")
    shown = browser.evaluate("Array.from(document.querySelectorAll('#games-table tbody tr')).filter(r => !r.hidden).length")
    assert shown == 2, "a comparison's link keeps the games of its pairing"
    seeds = "Array.from(document.querySelectorAll('#games-table tbody tr')).map(r => r.cells[0].textContent.trim())"
    before = browser.evaluate(seeds)
    browser.evaluate("document.querySelector('#games-table thead th').click()")
    after = browser.evaluate(seeds)
    assert sorted(before) == sorted(after) and after == sorted(after, reverse=True)
    browser.evaluate("document.querySelector('#games-table thead th').click()")
    assert browser.evaluate(seeds) == sorted(after)
    browser.open((board / "pairs" / "classic_7_r1_bot~bot2.html").as_uri(), 1400, 900)
    browser.evaluate("new Promise(r => setTimeout(r, 300))")
    frames = browser.call("Page.getFrameTree", session=True)["frameTree"].get("childFrames", [])
    urls = [f["frame"]["url"] for f in frames]
    assert len(urls) == 2 and all("/games/classic_7_r1_bot~bot2_bot" in u for u in urls), urls
    assert not any(f["frame"].get("unreachableUrl") for f in frames), "both games load beside each other"
    assert browser.errors() == [] and all(u.startswith(("file:", "about:", "data:")) for u in browser.requests())


# ---- model usage as in the terminal (item 9) ---------------------------------------------------------
def test_usage_shows_cache_latency_retries_and_transport_failures(model_game: Path, tmp_path: Path) -> None:
    """A decision that took long because of two 500s and a call given up says so, per decision and per seat."""
    slow = tmp_path / "slow.jsonl"
    out, done = [], False
    for line in model_game.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("type") == "call" and not done:
            record["call"]["retries"] = [
                {"try": 1, "error": "HTTP 500: internal error", "wait": 20.0},
                {"try": 2, "error": "HTTP 500: internal error", "wait": 40.0},
            ]
            record["call"]["latency"] = 80.0
            done = True
        out.append(json.dumps(record))
    extra = json.loads(next(line for line in reversed(out) if json.loads(line)["type"] == "call"))
    extra["call"] = {**extra["call"], "outcome": "transport_failed", "error": "gave up: timed out", "usage": {}, "cost": 0.0}
    out.insert(-1, json.dumps(extra))
    summary = json.loads(out[-1])
    summary["usage"] = {}  # an older transcript: the seat's figures are counted from its calls
    out[-1] = json.dumps(summary)
    slow.write_text("\n".join(out) + "\n", encoding="utf-8")
    page = render_game(read_transcript(slow))
    text = _text(page)
    assert "retried ×2: HTTP 500 ×2" in text and "transport failed ×1" in text
    assert re.search(r"\d+% cached", text) and "(60.0 s waiting to retry)" in text
    assert "transport failures" in text and re.search(r"<td class=\"num\">8\d\.\d s</td><td class=\"num\">2</td>", page)
    legend = page.split('<details class="legend"', 1)[1].split("</details>", 1)[0]
    for badge in ("malformed ×1", "transport failed ×1", "retried ×2", "price unknown"):
        assert badge in legend, badge


def test_every_badge_on_a_page_is_in_its_legend(games: dict[str, Path], model_game: Path) -> None:
    badges = re.compile(r'class="(aud|note acc|note|kind|forf|rej|fail|vd true|vd false|silent|default)"')
    for path in [*games.values(), model_game]:
        page = render_game(read_transcript(path))
        legend = page.split('<details class="legend"', 1)[1].split("</details>", 1)[0]
        used = set(badges.findall(page.split("</details>", 1)[1]))
        missing = {b for b in used if f'class="{b}"' not in legend}
        assert not missing, (path.name, missing)


# ---- phones (item 11) ----------------------------------------------------------------------------------
def test_in_chromium_no_page_is_wider_than_a_400_px_screen(
    browser: Browser, games: dict[str, Path], model_game: Path, board: Path, tmp_path: Path
) -> None:
    """Every page kind at 400 px: a game of each variant (all views and a seat's own page), a game of model
    seats with long specs, a folder index, a tournament index, a tournament game and a pair side by side."""
    pages: list[Path] = []
    for key, path in [*games.items(), ("model", model_game)]:
        transcript = read_transcript(path)
        for viewer in (None, transcript.header["seats"][0]):
            page = tmp_path / f"{key}-{viewer or 'all'}.html"
            page.write_text(render_game(transcript, viewer=viewer), encoding="utf-8")
            pages.append(page)
    folder = tmp_path / "folder"
    folder.mkdir()
    for path in [*games.values(), model_game]:
        (folder / path.name).write_bytes(path.read_bytes())
    assert main(["report", str(folder)]) == 0
    pages += [folder / "report" / "index.html", board / "index.html", board / "games" / "classic_7_r1_bot~bot2_bot.html"]
    pages.append(board / "pairs" / "classic_7_r1_bot~bot2.html")
    wide = {}
    for page in pages:
        browser.open(page.as_uri(), 400, 800)
        width = browser.evaluate("document.documentElement.scrollWidth")
        if width > 400:
            wide[page.name] = width
    assert not wide, wide
    browser.open(f"{pages[0].as_uri()}#at=1", 400, 800)
    folded = browser.evaluate(
        "var h = document.querySelector('section > h2[data-seq]'); h.click(); var kids = Array.from(h.parentElement.children);"
        "[h.parentElement.classList.contains('folded'), kids.filter(e => e !== h && e.checkVisibility()).length]"
    )
    assert folded == [True, 0], "a day folds under its heading"
    browser.evaluate("document.querySelector('section > h2[data-seq]').click()")
    assert browser.evaluate("document.querySelector('section.folded')") is None
    assert browser.errors() == []


def test_a_seats_page_holds_only_moment_facts_it_saw(games: dict[str, Path], model_game: Path) -> None:
    """The moment panel's facts on a seat's own page come from that seat's events alone; on the all-views
    page each fact keeps its event's audience (the script shows a view only the facts it saw)."""
    from arena.engine import Event

    for path in [*games.values(), model_game]:
        transcript = read_transcript(path)
        events = {e["seq"]: Event.from_dict(e) for e in transcript.events}
        facts = json.loads(re.search(r'id="moment-data">(.*?)</script>', render_game(transcript)).group(1))
        for fact in facts:
            if fact["seq"] >= 0:
                event = events[fact["seq"]]
                assert fact["to"] == (None if event.to is None else sorted(event.to)), (path.name, fact)
        for seat in transcript.header["seats"]:
            page = render_game(transcript, viewer=seat)
            mine = json.loads(re.search(r'id="moment-data">(.*?)</script>', page).group(1))
            theirs = [e for e in events.values() if e.visible_to(seat)]  # the page numbers them 1, 2, 3 … for the seat
            assert all(f["seq"] < 0 or f["seq"] <= len(theirs) for f in mine), (path.name, seat)
            audience = [None if e.to is None else sorted(e.to) for e in theirs]
            assert all(f["seq"] < 0 or f["to"] == audience[f["seq"] - 1] for f in mine), (path.name, seat)
            assert {f["who"] for f in mine if f["k"] == "card"} <= {seat}, "no other seat's card"


def test_in_chromium_the_pair_page_opens_at_its_top(browser: Browser, board: Path) -> None:
    """Issue 31.4: the embedded games stepped to their first different move with scrollIntoView, which
    scrolls the pages around a frame as well: the pair page opened 1 444 px past its heading. Its
    outcomes read as sentences ("… passes. Execution …", not "passes.; Execution")."""
    page = board / "pairs" / "classic_7_r1_bot~bot2.html"
    browser.open(page.as_uri(), 1280, 800)
    browser.evaluate("new Promise(r => setTimeout(r, 500))")
    assert browser.evaluate("window.scrollY") == 0
    assert browser.evaluate("document.querySelector('h1').getBoundingClientRect().top") >= 0
    # each embedded game is on its first different move, without the moment's panel over its votes
    frames = {f["frame"]["id"] for f in browser.call("Page.getFrameTree", session=True)["frameTree"].get("childFrames", [])}
    contexts = [
        e["params"]["context"]["id"] for e in browser.events
        if e.get("method") == "Runtime.executionContextCreated"
        and e["params"]["context"].get("auxData", {}).get("frameId") in frames
        and e["params"]["context"].get("auxData", {}).get("isDefault")
    ]  # fmt: skip
    assert len(contexts) == 2
    for context in contexts:
        got = browser.call(
            "Runtime.evaluate", session=True, contextId=context, returnByValue=True,
            expression="[document.getElementById('moment').hidden, location.hash.indexOf('at=') >= 0, window.scrollY > 0]",
        )["result"]["value"]  # fmt: skip
        assert got == [True, True, True], got
    text = _text(page.read_text(encoding="utf-8"))
    assert ".;" not in text
    assert browser.errors() == []


def test_chart_labels_keep_apart_and_a_dead_players_line_ends() -> None:
    """Issue 31.4: 60 rounds' x labels ran together ("round 1round 20round 39"); the line names at the
    right, nudged down, ran into the last x label ("day 3"); a dead seat's suspicion line went on at 0."""
    from arena.engine import Event
    from arena.report.charts import CHAR_W, _suspicion, line_chart, stacked_bars

    labels = [f"round {r}" for r in range(1, 61)]
    svg = str(stacked_bars("games", labels, [("a vs b", "#000", [2.0] * 60), ("a vs c", "#111", [2.0] * 60)]))
    axis = r'<text x="([\d.]+)" y="\d+" font-size="11" text-anchor="(\w+)" fill="#666b73">(round \d+)<'
    spans = []
    for x, anchor, text in re.findall(axis, svg):
        width, left = CHAR_W * len(text), float(x)
        left -= {"start": 0, "middle": width / 2, "end": width}[anchor]
        spans.append((left, left + width))
    assert len(spans) >= 4 and spans[0][0] >= 0 and spans[-1][1] <= 520
    assert all(b[0] - a[1] >= 8 for a, b in itertools.pairwise(spans)), spans
    flat = [(f"P{i}", "#000", [0.0, 0.0, 0.0]) for i in range(9)]
    chart = str(line_chart("t", ["day 1", "day 2", "day 3"], flat))
    names = [float(y) for y in re.findall(r'<text x="[\d.]+" y="([\d.]+)" font-size="11" fill="#000">P\d', chart)]
    last = re.search(r'<text x="[\d.]+" y="([\d.]+)" font-size="11" text-anchor="\w+" fill="#666b73">day 3<', chart)
    assert last is not None and len(names) == 9 and max(names) < float(last.group(1)) - 8, (names, chart)

    def public(seq: int, kind: str, actor: str | None = None, **data: object) -> Event:
        return Event(seq=seq, type=kind, day=1, phase="day", audience="all", to=None, actor=actor, data=data)

    events = [
        public(1, "day", number=1),
        public(2, "speech", "Ann", accuse="Bob"),
        public(3, "death", player="Bob"),
        public(4, "day", number=2),
        public(5, "speech", "Bob", accuse="Ann"),
    ]
    days, drawn = _suspicion(events, ["Ann", "Bob"])
    assert days == ["day 1", "day 2"] and drawn["Bob"] == [1.0, None] and drawn["Ann"] == [0.0, 1.0]
