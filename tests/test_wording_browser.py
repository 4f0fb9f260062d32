"""The seat page shows what the terminal prints beside a question (issue 30.4–30.6): a mafia seat's
exact count and its team's rule, and McKay's point tables. Headless Chromium against ``arena serve``
(tests/test_serve_browser.py's helpers); skipped where /usr/bin/chromium is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("aiohttp")

from tests.browser import CHROMIUM
from tests.test_serve_browser import MY_TURN, PANEL, chromium, serving, wait_for

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")


def test_the_seat_page_tells_a_mafia_seat_its_count_and_rule(tmp_path: Path) -> None:
    with serving(tmp_path / "data") as server, chromium() as browser:
        made = server.table(variant="classic", players=7, seed=3, seats={"Ann": "person"})  # Ann and Gus: the mafia
        browser.open(server.base + made["seats"]["Ann"]["url"], 1280, 900)
        wait_for(browser, MY_TURN)
        panel = browser.evaluate(PANEL)
        assert "Mafia alive: 2 — you and Gus." in panel
        rule = wait_for(browser, "document.querySelector('#rules-team-rule')?.innerText")
        assert "Your team's night shot follows one rule" in rule
        if "Your discussion turn" in panel:  # a question that may accuse: the reminder
            assert "Your accusation also names your team's shot" in panel
        elif "Vote yes" in panel:  # a vote cannot accuse, and says so
            assert "You cannot accuse in this answer, but the day's accusations still pick your team's shot" in panel
        assert browser.errors() == []


def test_the_seat_page_of_a_mckay_game_shows_the_point_tables(tmp_path: Path) -> None:
    with serving(tmp_path / "data") as server, chromium() as browser:
        made = server.table(variant="duel3", seed=3, seats={"Ann": "person"}, options={"hands": 1, "beats": 3}, beat_seconds=3)
        browser.open(server.base + made["seats"]["Ann"]["url"])
        text = wait_for(browser, "document.querySelector('#rules-scoring')?.textContent")
        assert "Scoring (points per hand)" in text and "mafia kills cop: 5" in text and "cop beside townsperson: +3" in text
        assert browser.evaluate("document.querySelector('#rules-team-rule')") is None
        assert browser.errors() == []
