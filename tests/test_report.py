"""Reports: every event of every variant placed once with its audience, claims judged, rejections,
forfeits and model usage shown; the page checked in a real headless Chromium (no console errors,
nothing fetched, "as seen by" = the engine's own visibility); the index over a folder; the CLI."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena.cli import main
from arena.engine import Event, Game
from arena.players.bot import BotPlayer
from arena.players.random import RandomPlayer
from arena.players.scripted import OutOfAnswers, ScriptedPlayer
from arena.report.html import render_game
from arena.report.show import show
from arena.report.story import build_story, same_role
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import play, run
from arena.run.replay import replay
from arena.run.transcript import TranscriptWriter, read_transcript
from arena.variants import VARIANTS, get_variant
from tests.browser import CHROMIUM, Browser

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "transcripts" / "examples"
MCKAY = ("duel", "duel3", "trio")


# ---- games ------------------------------------------------------------------------------------------
def _seats(cls: type[Game]) -> list[str]:
    return list(DEFAULT_NAMES[: cls.default_players])


def _record(directory: Path, game: Game, players: dict[str, Any]) -> Path:
    specs = {name: getattr(p, "spec", "bot" if isinstance(p, BotPlayer) else "random") for name, p in players.items()}
    with TranscriptWriter.create(directory, game, specs) as writer:
        with contextlib.suppress(OutOfAnswers):  # a scripted game stops where its script ends
            play(game, players, [writer])
        writer.close(game)
    return writer.path


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One transcript per variant with bot seats, plus McKay matches with random seats (bots mostly pass there)."""
    out: dict[str, Path] = {}
    for name, cls in sorted(VARIANTS.items()):
        seats = _seats(cls)
        options = {"hands": 3} if name in MCKAY else {}
        directory = tmp_path_factory.mktemp(name)
        out[name] = _record(directory, cls(seats, options, 7), {n: BotPlayer(n, 7) for n in seats})
        if name in MCKAY:
            game = cls(seats, options, 8)
            out[f"{name}-random"] = _record(directory, game, {n: RandomPlayer(n, 8) for n in seats})
    return out


def _scripted(directory: Path) -> Path:
    """classic, day 1: a mafia's false inspector claim, a rejected self-accusation, a true claim, a forfeit."""
    deal = {"Ann": "mafia", "Bob": "inspector", "Cid": "citizen", "Dee": "citizen", "Eve": "citizen", "Fay": "citizen"}
    claim = {"role": "inspector", "checks": {"Bob": "mafia"}}
    answers: dict[str, list[Any]] = {
        "Ann": [{"kind": "speak", "speech": "I am the inspector: Bob is mafia. <script>alert(1)</script> & <b>", "claim": claim,
                 "thought": "Lie first."}],
        "Bob": [{"kind": "speak", "speech": "Me!", "accuse": "Bob"},
                {"kind": "speak", "speech": "No, I am the inspector.", "claim": {"role": "inspector"}, "thought": "Truth."}],
        "Cid": [None],
    }  # fmt: skip
    game = get_variant("classic")(list(deal), None, 1, deal=deal)
    players = {n: ScriptedPlayer(n, answers.get(n, [])) for n in deal}
    return _record(directory, game, players)


@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _scripted(tmp_path_factory.mktemp("scripted"))


@pytest.fixture(scope="module")
def model_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A short duel between two model seats on the loopback server, with faults: call lines in the transcript."""
    from arena.players.llm import close_clients, make_llm_player
    from tests.llm_server import FakeModelServer

    directory = tmp_path_factory.mktemp("models")
    cls = get_variant("duel")
    options = {"hands": 1, "beats": 4}

    async def go() -> Path:
        with FakeModelServer(seed=3, fault_rate=0.4, faults=("malformed", "illegal")) as server:
            game = cls(["Ann", "Bob"], options, 3)
            specs = {
                "Ann": f"openai:fake@{server.openai_url}?structured=tools",
                "Bob": f"anthropic:fake@{server.anthropic_url}?structured=json_schema",
            }
            with TranscriptWriter.create(directory, game, specs) as writer:
                players = {
                    n: make_llm_player(
                        spec, n, 3, recorder=writer.recorder(n), variant="duel", options=options,
                        price_input=1.0, price_output=4.0, backoff=0.001, max_backoff=0.01, timeout=10.0,
                    )
                    for n, spec in specs.items()
                }  # fmt: skip
                writer.track_usage(players)
                await run(game, players, [writer])
                await close_clients()
                writer.close(game)
            return writer.path

    return asyncio.run(go())


@pytest.fixture(autouse=True)
def _no_real_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)


def _events(path: Path) -> list[Event]:
    return [Event.from_dict(e) for e in read_transcript(path).events]


# ---- the page, parsed -----------------------------------------------------------------------------
class _Elements(HTMLParser):
    """Every element carrying data-seq: its seq, its data-to (None when absent) and its open tag."""

    def __init__(self) -> None:
        super().__init__()
        self.placed: list[tuple[int, list[str] | None]] = []
        self.external: list[str] = []
        self.scripts_with_src = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("data-seq") is not None:
            to = a.get("data-to")
            self.placed.append((int(a["data-seq"] or 0), None if to is None else json.loads(to)))
        for key in ("src", "href"):
            value = a.get(key) or ""
            if value.startswith(("http:", "https:", "//")):
                self.external.append(f"{tag} {key}={value}")
        if tag == "link" or (tag == "script" and a.get("src")):
            self.external.append(tag)


def _parse(html: str) -> _Elements:
    parser = _Elements()
    parser.feed(html)
    return parser


# ---- story and page, every variant -------------------------------------------------------------
GAME_KEYS = [*sorted(VARIANTS), *(f"{m}-random" for m in MCKAY)]


@pytest.mark.parametrize("key", GAME_KEYS)
def test_every_event_is_on_the_page_once_with_its_audience(games: dict[str, Path], key: str) -> None:
    path = games[key]
    events = _events(path)
    story = build_story(read_transcript(path))
    assert sorted(story.rendered_seqs()) == [e.seq for e in events]
    page = _parse(render_game(read_transcript(path)))
    assert sorted(seq for seq, _ in page.placed) == [e.seq for e in events]
    by_seq = {e.seq: e for e in events}
    for seq, to in page.placed:
        expected = by_seq[seq].to
        assert (to is None and expected is None) or (to is not None and expected is not None and set(to) == set(expected)), seq
    assert page.external == []


@pytest.mark.parametrize("key", GAME_KEYS)
def test_the_page_rule_is_the_engines_rule(games: dict[str, Path], key: str) -> None:
    """The script hides an element unless its data-to is absent or names the viewer: the same sets as visible_to."""
    path = games[key]
    events = _events(path)
    page = _parse(render_game(read_transcript(path)))
    for name in read_transcript(path).header["seats"]:
        shown = {seq for seq, to in page.placed if to is None or name in to}
        assert shown == {e.seq for e in events if e.visible_to(name)}, name


def test_every_variant_reads_as_a_story(games: dict[str, Path]) -> None:
    for key in GAME_KEYS:
        story = build_story(read_transcript(games[key]))
        assert story.winner is not None and ("wins" in story.result or "draw" in story.result), key
        kinds = Counter(item.kind for section in story.sections for item in section.items)
        assert kinds["cards"] >= 1, key
        if key in ("classic", "village", "cove"):
            assert kinds["speech"] and kinds["votes"] and kinds["answers"], key
            assert all(s.role and s.fate for s in story.seats)
            assert [s.title.split()[0] for s in story.sections[1:3]] in (["Night", "Day"], ["Day", "Night"])
        if key in MCKAY:
            assert [s.title for s in story.sections] == ["Hand 1 of 3", "Hand 2 of 3", "Hand 3 of 3"]
            assert kinds["hand_over"] == 3 and all(s.score is not None for s in story.seats)


def test_beats_are_one_row_each(games: dict[str, Path]) -> None:
    story = build_story(read_transcript(games["duel-random"]))
    for section in story.sections:
        for item in section.items:
            if item.kind == "answers":
                actors = [row["answer"].actor for row in item.rows]
                assert len(actors) == len(set(actors)), item.text


# ---- claims, rejections, forfeits, escaping ----------------------------------------------------------
def test_claims_are_judged_against_cards_and_checks(scripted: Path) -> None:
    """The moderator judges a claim by the truth; each seat only by what it knew then (citizens: not at all)."""
    story = build_story(read_transcript(scripted))
    speeches = [item for section in story.sections for item in section.items if item.kind == "speech"]
    ann, bob, _ = speeches
    assert [(c.text, c.truth.true) for c in ann.claims] == [("Ann is inspector", False), ("Bob is mafia", False)]
    assert ann.claims[0].truth.note == "really mafia"
    assert ann.claims[1].truth.note == "Bob is inspector; never checked"
    seats = {name: (v.true, v.note) for names, v in ann.claims[0].views for name in names}
    assert seats == {"Ann": (False, "your card is mafia"), "Bob": (False, "you hold the only inspector card")}
    seats = {name: (v.true, v.note) for names, v in ann.claims[1].views for name in names}
    assert seats == {"Ann": (False, "Bob is not mafia (not on your team)"), "Bob": (False, "Bob is not mafia (your card)")}
    assert [(c.text, c.truth.true) for c in bob.claims] == [("Bob is inspector", True)]  # a claim names the game's roles
    assert {name for names, v in bob.claims[0].views for name in names} == {"Bob"}, "nobody else knew Bob's card"
    assert same_role("Detective", "inspector") and same_role("villager", "citizen") and not same_role("doctor", "citizen")
    assert ann.answer.thought == "Lie first."
    own = build_story(read_transcript(scripted), "Cid")
    assert all(st.truth is None and not st.views for _, st in own.claims()), "Cid's page judges nothing Cid could not"


def test_rejections_and_forfeits_are_shown_with_their_decision(scripted: Path) -> None:
    transcript = read_transcript(scripted)
    story = build_story(transcript)
    speeches = [item for section in story.sections for item in section.items if item.kind == "speech"]
    bob, cid = speeches[1], speeches[2]
    (rejection,) = bob.answer.rejections
    assert rejection.to == ["Bob"] and "yourself" in rejection.reason
    assert cid.answer.type == "forfeit" and cid.answer.why == "no answer"
    html = render_game(transcript)
    assert "<b>rejected</b>" in html and rejection.reason.replace("'", "&#39;") in html
    assert "forfeit (no answer)" in html
    assert "unfinished" in story.result  # the script ran out: no summary


def test_players_words_are_escaped(scripted: Path) -> None:
    html = render_game(read_transcript(scripted))
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;" in html
    assert html.count("<script") == 4  # the seats, what each seat knew, the moment panel's facts (JSON), the view script


# ---- model usage ----------------------------------------------------------------------------------
def test_model_calls_are_shown_per_decision_and_per_seat(model_game: Path) -> None:
    transcript = read_transcript(model_game)
    assert transcript.calls, "model seats write call lines"
    story = build_story(transcript)
    answers = [
        row["answer"] for section in story.sections for item in section.items for row in item.rows if row.get("answer")
    ] + [item.answer for section in story.sections for item in section.items if item.answer is not None]
    with_usage = [a for a in answers if a.usage is not None]
    assert with_usage and all(a.usage.input_tokens > 0 and a.usage.cost > 0 for a in with_usage)
    assert sum(len(a.usage.calls) for a in with_usage) == len(transcript.calls)
    assert any(a.rejections for a in with_usage), "the injected faults give rejected answers"
    assert story.calls == len(transcript.calls)
    assert {s.name: s.usage.calls for s in story.seats} == Counter(c["player"] for c in transcript.calls)
    html = render_game(transcript)
    assert 'class="usage"' in html and "tokens out" in html and f"{story.calls} model calls" in html
    out = Console(record=True, width=200)
    show(transcript, out, "Ann")
    text = out.export_text()
    assert " calls · " in text or " call · " in text
    assert "tokens in" in text


# ---- the example in the repository ----------------------------------------------------------------
def test_the_example_report_matches_its_transcript() -> None:
    (transcript_path,) = EXAMPLES.glob("*.jsonl")
    html_path = transcript_path.with_suffix(".html")
    assert html_path.exists(), "regenerate with: arena report " + str(transcript_path.relative_to(ROOT))
    assert html_path.stat().st_size < 400_000 and transcript_path.stat().st_size < 200_000
    events = _events(transcript_path)
    page = _parse(html_path.read_text(encoding="utf-8"))
    assert sorted(seq for seq, _ in page.placed) == [e.seq for e in events]
    assert replay(read_transcript(transcript_path)).ok, "regenerate the example: it no longer replays"
    assert subprocess.run(["git", "check-ignore", str(html_path), str(transcript_path)], cwd=ROOT, check=False).returncode == 1, (
        "transcripts/examples/ must not be git-ignored"
    )


# ---- the commands ---------------------------------------------------------------------------------
def test_report_command_writes_one_page(games: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = games["village"]
    assert main(["report", str(source)]) == 0
    page = source.with_suffix(".html")
    assert capsys.readouterr().out.strip() == str(page)
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    target = tmp_path / "deep" / "v.html"
    assert main(["report", str(source), "-o", str(target)]) == 0 and target.exists()


def test_report_on_a_folder_writes_an_index(games: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "batch"
    folder.mkdir()
    for key in ("classic", "cove", "trio", "trio-random"):
        (folder / games[key].name).write_bytes(games[key].read_bytes())
    (folder / "broken.jsonl").write_text('{"type": "header"\n')
    assert main(["report", str(folder)]) == 0
    assert "4 games; 1 unreadable" in capsys.readouterr().out
    index = (folder / "report" / "index.html").read_text(encoding="utf-8")
    links = [line.split('href="')[1].split('"')[0] for line in index.splitlines() if 'href="games/' in line]
    assert len(links) == 4 and all((folder / "report" / link).exists() for link in links)
    assert "broken.jsonl:1: not JSON" in index and "<svg" in index
    for key in ("classic", "cove"):
        winner = read_transcript(games[key]).summary["winner"]
        assert f"{winner} wins" in index
    assert main(["report", str(folder)]) == 0, "a second run ignores its own output folder"


TOURNAMENT = """
name = "mini"
seed = 1
games = 2
database = "mini.sqlite"
transcripts = "tx"
[models]
bot = "bot"
rnd = "random"
[[variants]]
name = "classic"
players = 7
[[variants]]
name = "duel"
options = { hands = 2 }
"""


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished mini tournament (bot against random, classic and duel, mirrored pairs): its database."""
    folder = tmp_path_factory.mktemp("tournament")
    (folder / "mini.toml").write_text(TOURNAMENT)
    cwd = Path.cwd()
    os.chdir(folder)  # the tournament's paths are relative to where it runs, as for arena play
    try:
        assert main(["tournament", "mini.toml", "--quiet"]) == 0
    finally:
        os.chdir(cwd)
    return folder / "mini.sqlite"


def test_report_on_a_tournament_database(tournament: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "board"
    assert main(["report", str(tournament), "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"{out / 'index.html'} (4 games)"
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "Ratings (openskill" in index and "Paired comparisons" in index and "Deception and detection" in index
    assert index.count('src="data:image/png;base64,') == 3  # two models: no skill-model plot
    links = sorted(line.split('href="')[1].split('"')[0] for line in index.splitlines() if 'href="games/' in line)
    assert len(links) == 4
    with sqlite3.connect(tournament) as db:
        recorded = dict(db.execute("SELECT key, transcript FROM games"))
    for key, transcript in recorded.items():
        assert f">{key}</a>" in index
        page = out / "games" / (key.replace("/", "_") + ".html")
        assert f"games/{page.name}" in links
        events = _events(tournament.parent / transcript)
        assert sorted(seq for seq, _ in _parse(page.read_text(encoding="utf-8")).placed) == [e.seq for e in events]
    gone = tournament.parent / next(iter(recorded.values()))
    saved = gone.read_bytes()
    gone.unlink()
    try:
        assert main(["report", str(tournament), "-o", str(tmp_path / "again")]) == 0
        assert "1 without a page" in capsys.readouterr().out
        assert "not found" in (tmp_path / "again" / "index.html").read_text(encoding="utf-8")
    finally:
        gone.write_bytes(saved)
    assert main(["report", str(tournament)]) == 0, "default: a folder beside the database"
    assert (tournament.parent / "mini-report" / "index.html").exists()


def test_report_finds_a_tournaments_transcripts_from_any_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The default layout (transcripts/NAME.sqlite, transcripts/NAME/), reported from one folder
    up: the database keeps where the tournament wrote the transcripts; a database without that
    record still finds them the old way (relative to where the tournament ran)."""
    full = tmp_path / "full"
    full.mkdir()
    (full / "mini.toml").write_text('name = "mini"\nseed = 1\ngames = 2\n[models]\nbot = "bot"\nrnd = "random"\n'
                                    '[[variants]]\nname = "duel"\noptions = { hands = 2 }\n')  # fmt: skip
    cwd = Path.cwd()
    try:
        os.chdir(full)
        assert main(["tournament", "mini.toml", "--quiet"]) == 0
        os.chdir(tmp_path)
        database = Path("full/transcripts/mini.sqlite")
        assert main(["report", str(database), "-o", "board"]) == 0
        assert capsys.readouterr().out.strip().endswith("(2 games)")
        index = (tmp_path / "board" / "index.html").read_text(encoding="utf-8")
        assert "not found" not in index and index.count('href="games/') == 2
        with sqlite3.connect(database) as db:
            assert db.execute("SELECT value FROM meta WHERE key = 'transcripts'").fetchone() == (
                str(full / "transcripts" / "mini"),
            )
            db.execute("DELETE FROM meta WHERE key = 'transcripts'")  # a database written before the record
        assert main(["report", str(database), "-o", "old"]) == 0
        assert "2 without a page" in capsys.readouterr().out
        os.chdir(full)
        assert main(["report", "transcripts/mini.sqlite", "-o", "old"]) == 0
        assert "without a page" not in capsys.readouterr().out
    finally:
        os.chdir(cwd)


def _one_line_error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(list(args)) == 2, args
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    return err


def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"type": "header", "variant": "classic"}\n{"type": "event", "event": {"seq": 5}}\n')
    database = tmp_path / "t.sqlite"
    database.write_bytes(b"SQLite format 3\x00" + bytes(100))
    empty = tmp_path / "empty"
    empty.mkdir()
    cases = [
        (("report", str(tmp_path / "missing.jsonl")), "no such file"),
        (("report", str(broken)), "header lacks"),
        (("report", str(database)), "file is not a database"),
        (("report", str(empty)), "no transcripts"),
        (("show", str(tmp_path / "missing.jsonl")), "cannot read"),
        (("show", str(broken)), "header lacks"),
    ]
    for args, expected in cases:
        assert expected in _one_line_error(capsys, *args), args
    out = subprocess.run(
        [sys.executable, "-m", "arena", "report", str(broken)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.returncode == 2 and out.stderr.startswith("arena: error: ") and "Traceback" not in out.stderr


def test_show_tells_the_game_and_filters_by_seat(games: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    path = games["classic"]
    transcript = read_transcript(path)
    roles = transcript.summary["roles"]
    mafia = [n for n, r in roles.items() if r == "mafia"]
    town = next(n for n, r in roles.items() if r == "citizen")
    assert main(["show", str(path)]) == 0
    everything = capsys.readouterr().out
    assert all(f"[{n}] card: " in everything for n in roles)
    assert "Game over: " in everything and "── Day 1 ──" in everything
    assert main(["show", str(path), "--as", town]) == 0
    mine = capsys.readouterr().out
    assert f"As seen by {town} (citizen)" in mine
    assert f"[{town}] card: citizen" in mine
    assert not any(f"[{n}]" in mine for n in roles if n != town), "another seat's private events"
    assert "[moderator]" not in mine and "members:" not in mine
    table = mine[mine.rindex("┏") :]
    ended = transcript.events[-1]["type"] == "game_over" and transcript.events[-1].get("data", {}).get("roles")
    if ended:  # the last line showed every card to every seat: the table says them too (issue 24.4)
        assert all(" mafia " in line for line in table.splitlines() if any(f"│ {m} " in line for m in mafia))
    else:
        assert all(" mafia " not in line for line in table.splitlines() if any(m in line for m in mafia))
    assert "no seat named 'Nobody'" in _one_line_error(capsys, "show", str(path), "--as", "Nobody")


# ---- a real browser -----------------------------------------------------------------------------------
# McKay hands fold under one line: open every fold first, then count what the view shows
VISIBLE = (
    "document.querySelectorAll('details').forEach(d => { d.open = true; }),"
    "Array.from(document.querySelectorAll('[data-seq]')).filter(e => e.checkVisibility()).map(e => +e.dataset.seq)"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.skip("no headless Chromium at /usr/bin/chromium (apt-get install -y chromium)")
    chromium = Browser()
    yield chromium
    chromium.close()


def _page(games: dict[str, Path], key: str, tmp_path: Path) -> tuple[str, list[Event], list[str]]:
    transcript = read_transcript(games[key])
    page = tmp_path / f"{key}.html"
    page.write_text(render_game(transcript), encoding="utf-8")
    return page.as_uri(), [Event.from_dict(e) for e in transcript.events], list(transcript.header["seats"])


@pytest.mark.parametrize("key", GAME_KEYS)
def test_in_chromium_as_seen_by_each_seat(browser: Browser, games: dict[str, Path], key: str, tmp_path: Path) -> None:
    url, events, seats = _page(games, key, tmp_path)
    browser.events.clear()
    browser.open(url)
    assert set(browser.evaluate(VISIBLE)) == {e.seq for e in events}, "the moderator sees everything"
    for name in seats:
        browser.open(f"{url}#as={name}")
        assert set(browser.evaluate(VISIBLE)) == {e.seq for e in events if e.visible_to(name)}, name
        status = browser.evaluate("document.getElementById('status').textContent")
        assert status.startswith(f"As seen by {name}:")
        hidden_thoughts = browser.evaluate(
            "Array.from(document.querySelectorAll('.thought')).filter(e => e.checkVisibility())"
            ".map(e => e.closest('[data-seq]').dataset.to)"
        )
        assert all(json.loads(to) == [name] for to in hidden_thoughts), "only the viewer's own thoughts"
    assert browser.errors() == []
    assert {u.split("#")[0] for u in browser.requests() if u != "about:blank"} == {url}, "nothing fetched but the page"


def test_in_chromium_selector_thoughts_and_screenshot(browser: Browser, games: dict[str, Path], tmp_path: Path) -> None:
    url, events, _ = _page(games, "classic", tmp_path)
    browser.events.clear()
    browser.open(url, height=1000)
    shot = tmp_path / "classic.png"
    browser.screenshot(shot)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 50_000
    mafia = next(e.audience.removeprefix("player:") for e in events if e.type == "role" and e.data["role"] == "mafia")
    choose = f"var s = document.getElementById('as'); s.value = {json.dumps(mafia)}; s.dispatchEvent(new Event('change'))"
    browser.evaluate(choose)
    assert browser.evaluate("window.location.hash") == f"#as={mafia}"
    assert set(browser.evaluate(VISIBLE)) == {e.seq for e in events if e.visible_to(mafia)}
    assert browser.evaluate("document.body.classList.contains('mod')") is False, "no team colours in a player's view"
    before = browser.evaluate("document.querySelectorAll('.thought').length")
    browser.evaluate("var t = document.getElementById('thoughts'); t.checked = false; t.dispatchEvent(new Event('change'))")
    shown = browser.evaluate("Array.from(document.querySelectorAll('.thought')).some(e => e.checkVisibility())")
    assert before > 0 and shown is False
    assert set(browser.evaluate(VISIBLE)) == {e.seq for e in events if e.visible_to(mafia)}, "thoughts off hides words only"
    browser.open(f"{url}#as=Nobody")
    assert "no seat named" in browser.evaluate("document.getElementById('status').textContent")
    assert len(browser.evaluate(VISIBLE)) == len(events)
    assert browser.errors() == []


def test_in_chromium_the_indexes_load_cleanly(browser: Browser, games: dict[str, Path], tournament: Path, tmp_path: Path) -> None:
    folder = tmp_path / "batch"
    folder.mkdir()
    for key in ("classic", "duel"):
        (folder / games[key].name).write_bytes(games[key].read_bytes())
    assert main(["report", str(folder)]) == 0
    assert main(["report", str(tournament), "-o", str(tmp_path / "board")]) == 0
    for index in (folder / "report" / "index.html", tmp_path / "board" / "index.html"):
        browser.events.clear()
        browser.open(index.as_uri())
        assert browser.errors() == []
        assert {u for u in browser.requests() if not u.startswith(("data:image/png", "about:"))} == {index.as_uri()}
        assert browser.evaluate("document.querySelectorAll('a[href^=\"games/\"]').length") >= 2
        images = browser.evaluate("Array.from(document.images).map(i => i.naturalWidth)")
        assert all(width > 100 for width in images), "the plots decode"


#: every word of letters on the page that the browser laid out over two lines ("detec tive", "Bra m")
BROKEN_WORDS = """(function () {
  var out = [], walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), n;
  while ((n = walker.nextNode())) {
    var el = n.parentElement;
    if (!el || el.closest("svg, script, style, code") || !el.checkVisibility()) continue;
    var re = /[A-Za-z][a-z]+/g, m;
    while ((m = re.exec(n.textContent))) {
      if (m[0].length < 3) continue;
      var r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      var tops = {};
      Array.from(r.getClientRects()).forEach(function (x) { if (x.width > 0) tops[Math.round(x.top)] = true; });
      if (Object.keys(tops).length > 1) out.push(m[0]);
    }
  }
  return out;
})()"""


def test_in_chromium_no_word_breaks_mid_word(browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 31.4: table cells allowed a break anywhere, so a narrow column cut names mid-word
    ("detec tive", "rando m" at 1280 px; "Bra m", "lo st" at 400 px on a game page)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "names.toml").write_text(
        'name = "names"\ngames = 6\n[models]\nliar = "bot?mafia=1&town=0.2"\ndetective = "bot?mafia=0.2&town=1"\n'
        'random = "random"\n[[variants]]\nname = "classic"\nplayers = 7\n'
    )
    assert main(["tournament", "names.toml", "--quiet"]) == 0
    assert main(["report", "transcripts/names.sqlite", "-o", "board"]) == 0
    index = tmp_path / "board" / "index.html"
    game = next((tmp_path / "board" / "games").glob("*.html"))
    for page, width in ((index, 1280), (index, 400), (game, 400), (game, 1280)):
        browser.open(page.as_uri(), width=width)
        assert browser.evaluate(BROKEN_WORDS) == [], (page.name, width)
        # a chart's 11-px text is never drawn smaller than 10 px (it was 7 px at 400 px: the chart shrank)
        sizes = browser.evaluate(
            "Array.from(document.querySelectorAll('svg.chart'))"
            ".map(s => 11 * s.getBoundingClientRect().width / s.viewBox.baseVal.width)"
        )
        assert sizes and min(sizes) >= 10, (page.name, width, sizes)
        assert browser.evaluate("document.documentElement.scrollWidth") <= width
    assert browser.errors() == []


def test_a_tournament_game_page_links_its_mirror_and_its_pair(tournament: Path, tmp_path: Path) -> None:
    """Issue 31.4: a game page of a tournament links the same deal with the models swapped and the
    pair's side-by-side page; the mirror links back."""
    import html
    import re

    assert main(["report", str(tournament), "-o", str(tmp_path / "board")]) == 0
    games = tmp_path / "board" / "games"
    pages = sorted(games.glob("*.html"))
    assert pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        mirror = re.search(r'class="mirror" href="([^"]+)"', text)
        pair = re.search(r'class="pairpage" href="([^"]+)"', text)
        assert mirror and pair, page.name
        other = games / html.unescape(mirror.group(1))
        assert other.is_file() and other != page
        assert f'class="mirror" href="{page.name}"' in other.read_text(encoding="utf-8").replace("&#126;", "~")
        assert (games / html.unescape(pair.group(1))).resolve().is_file()


def test_the_example_report_is_what_arena_report_writes_today() -> None:
    """README's example page (transcripts/examples/classic-seed5.html) is the report of the transcript
    beside it as this version draws it: it had gone stale. After a change to the game page, write it
    again: ``arena report transcripts/examples/classic-seed5.jsonl``."""
    root = Path(__file__).resolve().parent.parent / "transcripts" / "examples"
    fresh = render_game(read_transcript(root / "classic-seed5.jsonl"))
    assert (root / "classic-seed5.html").read_text(encoding="utf-8") == fresh
