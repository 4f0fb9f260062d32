"""arena serve in a real browser: headless Chromium (tests/browser.py) against ``arena serve`` run as a
command on a loopback port, stopped by each test. Skipped where /usr/bin/chromium is absent.

Set ``ARENA_SERVE_SCREENSHOTS=docs`` to write the seat page's screenshots into docs/ (docs/serve.md
shows them; tests/test_serve_page.py takes them); by default they go to the test's temporary folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")

from tests.browser import CHROMIUM, Browser

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")

ROOT = Path(__file__).resolve().parent.parent
XSS = "<img src=x onerror=alert(1)>"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


#: the steps below were written for a table where Ann opens day 1's talk (the old fixed order;
#: each day's opener is now drawn from the seed)
FIXED_ORDER = {"options": {"speaking_order": "rotate"}}


class Served:
    """``arena serve`` in a child process on a free loopback port; ``stop`` ends it (``kill`` = SIGKILL)."""

    def __init__(self, data: Path, port: int | None = None) -> None:
        self.data = data
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", "--port", str(self.port), "--data", str(data), "--night-seconds", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
        )  # fmt: skip
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().startswith("arena serve: http://127.0.0.1:")

    def api(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def table(self, **body: Any) -> dict[str, Any]:
        status, made = self.api("POST", "/api/tables", body)
        assert status == 201, made
        return made

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@contextlib.contextmanager
def serving(data: Path) -> Iterator[Served]:
    server = Served(data)
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    browser = Browser()
    try:
        yield browser
    finally:
        browser.close()


def wait_for(browser: Browser, expression: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = browser.evaluate(expression)
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {expression}; panel: {browser.evaluate(PANEL)!r}")


PANEL = "document.getElementById('panel').innerText"
MY_TURN = "document.title.includes('your turn') && !!document.querySelector('#panel button:not([disabled])')"
OVER = "!!document.getElementById('result')"
CHAT = "Array.from(document.querySelectorAll('#chat p')).map(p => p.textContent)"


def type_into(browser: Browser, selector: str, text: str) -> None:
    browser.evaluate(
        f"(() => {{ const n = document.querySelector({json.dumps(selector)}); n.value = {json.dumps(text)};"
        " n.dispatchEvent(new Event('input', {bubbles: true})); n.dispatchEvent(new Event('change', {bubbles: true})); })()"
    )


def take_turn(browser: Browser, speech: str = "I am a simple villager.") -> str:
    """Answer the open decision by clicking: a speech (words, then Speak) or the first move offered."""
    if browser.evaluate("!!document.getElementById('speak-form')"):
        type_into(browser, "#speech", speech)
        browser.evaluate("document.getElementById('send').click()")
        return "speak"
    move = browser.evaluate("document.querySelector('#panel [data-move]').dataset.move")
    # a move goes with a second tap (the first arms it); a pass at once
    browser.evaluate(
        "(b => { b.click(); if (b.dataset.move !== 'pass') b.click(); })(document.querySelector('#panel [data-move]'))"
    )
    return move


def play_by_clicking(browser: Browser, seconds: float = 120.0, speech: str = "I am a simple villager.") -> list[str]:
    moves: list[str] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if browser.evaluate(OVER):
            return moves
        if browser.evaluate(MY_TURN):
            moves.append(take_turn(browser, speech))
            wait_for(browser, f"!({MY_TURN}) || {OVER} || !!document.querySelector('#panel .refused')?.textContent")
        time.sleep(0.1)
    raise AssertionError("the game did not end")


def screenshots_dir(tmp_path: Path) -> Path:
    where = os.environ.get("ARENA_SERVE_SCREENSHOTS")
    return ROOT / where if where else tmp_path


def test_a_whole_classic_game_played_as_one_seat_by_clicking(tmp_path: Path) -> None:
    with serving(tmp_path / "data") as server, chromium() as browser:
        made = server.table(variant="classic", players=6, seed=21, seats={"Ann": "person:Ann Person"})
        url = server.base + made["seats"]["Ann"]["url"]
        browser.open(url, 1280, 900)
        moves = []
        while len(moves) < 6 and not browser.evaluate(OVER):  # some way into the game, for the pictures
            wait_for(browser, f"{MY_TURN} || {OVER}")
            if browser.evaluate(MY_TURN):
                moves.append(take_turn(browser, XSS))
                wait_for(browser, f"!({MY_TURN}) || {OVER}")
        wait_for(browser, f"{MY_TURN} || {OVER}")
        time.sleep(0.5)  # the countdown has ticked
        browser.screenshot(tmp_path / "played-1280.png")  # docs/serve.md's are taken by test_serve_page.py
        browser.open(url, 400, 860)  # the same seat on a phone: the page comes back in the same state
        wait_for(browser, f"{MY_TURN} || {OVER}")
        time.sleep(0.5)
        assert browser.evaluate("document.documentElement.scrollWidth") <= 400  # nothing wider than the screen
        browser.screenshot(tmp_path / "played-400.png")
        moves += play_by_clicking(browser, speech=XSS)
        assert "speak" in moves
        chat = browser.evaluate(CHAT)
        assert any(XSS in line for line in chat)  # the speech shown as typed, as text
        assert browser.evaluate("document.querySelectorAll('img').length") == 0
        result = browser.evaluate("document.getElementById('result').textContent")
        assert result.startswith("Game over:")
        cards = browser.evaluate(PANEL)
        assert "Cards: Ann:" in cards
        links = browser.evaluate("Array.from(document.querySelectorAll('#panel a')).map(a => a.getAttribute('href'))")
        table = made["table"]
        assert links == [f"/tables/{table}/report"]
        dead = browser.evaluate("Array.from(document.querySelectorAll('#seats li.dead')).length")
        assert dead >= 1
        assert browser.errors() == []
        assert not [u for u in browser.requests() if not u.startswith(server.base)]  # nothing from elsewhere
        # the seat's own page: its form posts the token in the body, in this tab for the test
        browser.evaluate("(() => { const f = document.getElementById('own-report'); f.target = '_self'; f.submit(); })()")
        wait_for(browser, "location.pathname.endsWith('/report') && document.readyState === 'complete' && document.title")
        assert "Ann" in browser.evaluate("document.body.innerText")
        browser.open(server.base + links[0])
        assert browser.evaluate("document.title")
        token = made["seats"]["Ann"]["token"]
        asked = browser.requests()
        assert len(asked) > 20 and not [u for u in asked if token in u]  # no address the pages asked for holds the token
        transcript = (tmp_path / "data" / "transcripts" / f"{table}.jsonl").read_text()
        assert '"Ann": "human:Ann Person"' in transcript


def test_two_people_at_one_table(tmp_path: Path) -> None:
    with serving(tmp_path / "data") as server, chromium() as ann, chromium() as cid:
        made = server.table(variant="classic", players=7, seed=8, seats={"Ann": "person", "Cid": "person"})
        ann.open(server.base + made["seats"]["Ann"]["url"])
        cid.open(server.base + made["seats"]["Cid"]["url"])
        assert (
            wait_for(
                ann, "document.getElementById('title').textContent.includes('·') && document.getElementById('title').textContent"
            )
            == "Ann · classic"
        )
        assert (
            wait_for(
                cid, "document.getElementById('title').textContent.includes('·') && document.getElementById('title').textContent"
            )
            == "Cid · classic"
        )
        deadline = time.monotonic() + 180
        turns = {"Ann": 0, "Cid": 0}
        while not (ann.evaluate(OVER) and cid.evaluate(OVER)):
            assert time.monotonic() < deadline, "the game did not end"
            for name, browser in (("Ann", ann), ("Cid", cid)):
                if not browser.evaluate(OVER) and browser.evaluate(MY_TURN):
                    take_turn(browser, f"{name} here.")
                    turns[name] += 1
            time.sleep(0.1)
        assert turns["Ann"] and turns["Cid"]
        for browser in (ann, cid):
            mine = [line for line in browser.evaluate(CHAT) if line.startswith("[you] card:")]
            assert len(mine) == 1
            assert ann.errors() == [] and cid.errors() == []
        assert any("Cid here." in line for line in ann.evaluate(CHAT))  # each hears the other


def test_a_refused_answer_shows_the_reason_and_keeps_the_words(tmp_path: Path) -> None:
    with serving(tmp_path / "data") as server, chromium() as browser:
        made = server.table(variant="classic", players=6, seed=21, seats={"Ann": "person"}, **FIXED_ORDER)
        browser.open(server.base + made["seats"]["Ann"]["url"])
        wait_for(browser, "!!document.getElementById('speak-form')")
        type_into(browser, "#speech", "Words I do not want to type twice.")
        # a page out of date offers a name the engine no longer accepts
        browser.evaluate("document.getElementById('field-accuse').append(new Option('Zed', 'Zed'))")
        type_into(browser, "#field-accuse", "Zed")
        browser.evaluate("document.getElementById('send').click()")
        refused = wait_for(browser, "document.querySelector('#panel .refused').textContent")
        assert refused.startswith("Not accepted: there is no player named 'Zed'; legal: ")
        assert browser.evaluate("document.getElementById('speech').value") == "Words I do not want to type twice."
        assert browser.evaluate("document.title").startswith("▶ your turn")
        type_into(browser, "#field-accuse", "")
        browser.evaluate("document.getElementById('send').click()")
        wait_for(browser, "Array.from(document.querySelectorAll('#chat p')).some(p => p.textContent.includes('type twice'))")
        assert [e for e in browser.errors() if "status of 422" not in e] == []  # the refusal is the one failed load


def test_a_mckay_beat_counts_down_on_the_wall_clock(tmp_path: Path) -> None:
    with serving(tmp_path / "data") as server, chromium() as browser:
        made = server.table(variant="duel", seed=3, seats={"Ann": "person"}, options={"hands": 1, "beats": 3}, beat_seconds=3)
        browser.open(server.base + made["seats"]["Ann"]["url"])
        first = wait_for(browser, "document.getElementById('clock').textContent.match(/beat \\d of 3 · [\\d.]+ s/)?.[0]")
        time.sleep(0.6)
        second = browser.evaluate("document.getElementById('clock').textContent")
        left = [float(text.rsplit("·", 1)[1].strip(" s")) for text in (first, second)]
        assert 0 < left[1] < left[0] <= 3  # counting down
        moves = browser.evaluate("Array.from(document.querySelectorAll('#panel [data-move]')).map(b => b.dataset.move)")
        assert "pass" in moves and "kill:Bob" in moves
        wait_for(browser, OVER, timeout=90)  # nobody answers: every beat passes Ann by (her default, a pass)
        assert browser.errors() == []


def test_a_reopened_tab_comes_back_to_the_same_state(tmp_path: Path) -> None:
    with serving(tmp_path / "data") as server, chromium() as browser:
        made = server.table(variant="classic", players=6, seed=21, seats={"Ann": "person"}, **FIXED_ORDER)
        url = server.base + made["seats"]["Ann"]["url"]
        state = (CHAT, "document.querySelector('#panel .question').textContent", "document.getElementById('seats').innerText")
        browser.open(url)
        wait_for(browser, "!!document.getElementById('speak-form')")
        type_into(browser, "#speech", "Half of what I meant to")
        for turn in range(2):
            before = [browser.evaluate(expression) for expression in state]
            browser.open("about:blank")  # the tab closed …
            browser.open(url)  # … and opened again
            wait_for(browser, MY_TURN)
            after = [browser.evaluate(expression) for expression in state]
            assert after == before  # the same conversation, seats and question
            if turn == 0:  # half-typed words come back too
                assert browser.evaluate("document.getElementById('speech').value") == "Half of what I meant to"
            take_turn(browser)
            wait_for(browser, MY_TURN)
        assert browser.errors() == []


def test_the_watch_page_shows_the_public_view_live_and_everything_after(tmp_path: Path) -> None:
    with serving(tmp_path / "data") as server, chromium() as browser, chromium() as seat:
        made = server.table(variant="classic", players=6, seed=21, seats={"Ann": "person"})
        browser.open(server.base + made["watch"])
        seat.open(server.base + made["seats"]["Ann"]["url"])
        wait_for(browser, "document.querySelectorAll('#chat p').length >= 2")
        time.sleep(0.5)
        live = browser.evaluate(CHAT)
        assert not any(line.startswith("[") for line in live)  # no card, no team, no night move
        assert browser.evaluate("document.getElementById('view').textContent") == "The public view"
        watched = []
        seat_done = False
        deadline = time.monotonic() + 120
        while not seat_done:  # the seat plays; the watcher's status line follows the table
            assert time.monotonic() < deadline
            if seat.evaluate(OVER):
                seat_done = True
            elif seat.evaluate(MY_TURN):
                take_turn(seat)
            text = browser.evaluate("document.getElementById('status').textContent")
            if not watched or watched[-1] != text:
                watched.append(text)
            time.sleep(0.1)
        wait_for(browser, OVER)
        assert any(line.endswith("is speaking.") for line in watched) and any(line.startswith("Voting: ") for line in watched)
        assert wait_for(browser, "document.getElementById('status').textContent").startswith("Game over: ")
        wait_for(browser, "document.getElementById('view').textContent.startsWith('Every view')")
        everything = browser.evaluate(CHAT)
        assert any(line.startswith("[Ann] card:") for line in everything)
        assert any(line.startswith("[team:mafia]") for line in everything)
        assert browser.evaluate("document.getElementById('result').textContent").startswith("Game over:")
        assert browser.errors() == [] and seat.errors() == []


def test_the_server_killed_and_restarted_mid_game(tmp_path: Path) -> None:
    """kill -9 mid-game; a new server on the same folder and port resumes the table, and the open
    page reconnects by itself and plays the game to its end."""
    data = tmp_path / "data"
    server = Served(data)
    try:
        with chromium() as browser:
            made = server.table(variant="classic", players=6, seed=21, seats={"Ann": "person", "Bob": "random"}, **FIXED_ORDER)
            browser.open(server.base + made["seats"]["Ann"]["url"])
            wait_for(browser, MY_TURN)
            take_turn(browser, "Before the crash.")
            wait_for(browser, MY_TURN)
            before = browser.evaluate(CHAT)
            time.sleep(2.0)  # the person thinks: their clock runs
            server.stop(signal.SIGKILL)
            wait_for(browser, "document.getElementById('connection').textContent.includes('reconnecting')")
            server = Served(data, port=server.port)
            wait_for(browser, "document.getElementById('connection').textContent === ''")
            wait_for(browser, MY_TURN)
            assert browser.evaluate(CHAT)[: len(before)] == before  # nothing lost, nothing shown twice
            # the person's clock after a crash: what its wall-clock end leaves, not the full 3:00 again
            clock = wait_for(browser, "document.getElementById('clock').textContent.match(/^(\\d+):(\\d\\d) to answer/)")
            assert int(clock[1]) * 60 + int(clock[2]) <= 178, clock
            play_by_clicking(browser, speech="After the restart.")
            chat = browser.evaluate(CHAT)
            assert sum("Before the crash." in line for line in chat) == 1
            assert any("After the restart." in line for line in chat)
            # the polls cut by the kill and refused while the server was down are the only failures
            failed = [e for e in browser.errors() if "net::ERR_" not in e and "Failed to fetch" not in e]
            assert failed == [], failed
    finally:
        server.stop()
    from arena.run.replay import replay
    from arena.run.transcript import read_transcript

    transcript = read_transcript(data / "transcripts" / f"{made['table']}.jsonl")
    assert transcript.complete and replay(transcript).ok


def test_the_lobby_creates_a_table_with_a_link_per_person(tmp_path: Path) -> None:
    with serving(tmp_path / "data") as server, chromium() as browser:
        browser.open(server.base + "/")
        wait_for(browser, "document.querySelectorAll('#seat-rows .seat-row').length === 9")  # classic's default table
        browser.evaluate(
            "(() => { const v = document.getElementById('variant'); v.value = 'duel'; v.dispatchEvent(new Event('change')); })()"
        )
        assert browser.evaluate("document.querySelectorAll('#seat-rows .seat-row').length") == 2
        browser.evaluate(
            "(() => { const k = document.querySelector('[data-seat=\"Ann\"]'); k.value = 'person';"
            " k.dispatchEvent(new Event('change')); })()"
        )
        type_into(browser, '[data-extra="Ann"]', "Anna")
        type_into(browser, "#seed", "4")
        browser.evaluate("document.getElementById('create-button').click()")
        link = wait_for(browser, "document.querySelector('[data-seat-link=\"Ann\"]')?.href")
        watch = browser.evaluate("document.getElementById('watch-link').href")
        assert link.startswith(server.base + "/tables/") and "/seat#" in link
        assert watch.startswith(server.base + "/tables/") and watch.endswith("/watch")
        wait_for(browser, "document.querySelectorAll('#tables tr').length === 1")
        # the table waits for its person (Ann has not opened her link), and the lobby says so
        row = browser.evaluate("document.querySelector('#tables tr').innerText").split("\t")
        assert row[1:3] == ["duel", "waiting for people"]
        table = watch.split("/")[-2]
        header = (server.data / "transcripts" / f"{table}.jsonl").read_text().splitlines()[0]
        assert json.loads(header)["players"] == {"Ann": "human:Anna", "Bob": "bot"}
        browser.evaluate("document.getElementById('create-button').click()")  # the same form again: a second table
        wait_for(browser, "document.querySelectorAll('#tables tr').length === 2")
        type_into(browser, "#config", "players = [")
        browser.evaluate("document.getElementById('create-button').click()")
        assert wait_for(browser, "document.getElementById('create-error').textContent").startswith("config:")
        assert browser.errors() == [e for e in browser.errors() if "status of 400" in e]


def test_a_double_click_on_create_makes_one_table(tmp_path: Path) -> None:
    """One click, one table: the button is off while the request is out, and a second request of
    the same press (sent past the button) carries the same Idempotency-Key, so it gets the same table."""
    with serving(tmp_path / "data") as server, chromium() as browser:
        browser.open(server.base + "/")
        wait_for(browser, "document.querySelectorAll('#seat-rows .seat-row').length === 9")
        browser.evaluate(
            "(() => { const v = document.getElementById('variant'); v.value = 'duel'; v.dispatchEvent(new Event('change'));"
            " const k = document.querySelector('[data-seat=\"Ann\"]'); k.value = 'person';"
            " k.dispatchEvent(new Event('change')); })()"
        )
        browser.click("#create-button", count=2)
        wait_for(browser, "document.querySelector('[data-seat-link=\"Ann\"]')?.href")
        time.sleep(1.0)  # a second table would have been made by now
        assert len(server.api("GET", "/api/tables")[1]["tables"]) == 1
        # two requests of one press (past the button): the same key, the same table
        made = browser.evaluate(
            "(async () => { const key = newKey(); await Promise.all([createWith(key), createWith(key)]);"
            " return document.querySelector('[data-seat-link=\"Ann\"]').href; })()"
        )
        assert made
        wait_for(browser, "document.querySelectorAll('#tables tr').length === 2")
        time.sleep(0.5)
        assert len(server.api("GET", "/api/tables")[1]["tables"]) == 2
        assert browser.errors() == []
