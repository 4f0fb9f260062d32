"""arena serve's API: tables, a seat's long poll and answers, the watch, safety, bad input (docs/serve.md).

Each test runs the application on aiohttp's test server (a loopback port of its own), stopped at
the end of the test; the browser tests are in test_serve_browser.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")

from aiohttp.test_utils import TestClient, TestServer

from arena.engine import Event
from arena.engine.events import numbered
from arena.players.web import TIMEOUT_THOUGHT, default_answer
from arena.run.config import DEFAULT_NAMES
from arena.run.replay import replay
from arena.run.transcript import read_transcript
from arena.serve.app import SERVER, make_app
from arena.serve.tables import ArchivedTable
from arena.variants import VARIANTS

ROOT = Path(__file__).resolve().parent.parent
XSS = "<img src=x onerror=alert(1)>"
# small games of every variant: McKay's with one short hand on a fast wall clock
SMALL: dict[str, dict[str, Any]] = {
    "classic": {"players": 6},
    "cove": {"players": 7},
    "village": {"players": 7},
    "duel": {"options": {"hands": 1, "beats": 3}, "beat_seconds": 0.4},
    "duel3": {"options": {"hands": 1, "beats": 3}, "beat_seconds": 0.4},
    "trio": {"options": {"hands": 1, "beats": 3}, "beat_seconds": 0.4},
}


@contextlib.asynccontextmanager
async def served(data: Path, **kwargs: Any) -> AsyncIterator[TestClient]:
    kwargs.setdefault("answer_rate", (1000.0, 1000.0))  # the tests answer at machine speed
    kwargs.setdefault("night_seconds", 0.0)  # and their nights need no floor (its own tests set one)
    server = TestServer(make_app(data, **kwargs))
    await server.start_server(access_log=None)  # as arena serve runs it: a seat's path holds its token
    client = TestClient(server)
    await client.start_server()
    try:
        yield client
    finally:
        await client.close()


def as_seat(token: str) -> dict[str, str]:
    """A seat's requests carry its token in a header, never in the address."""
    return {"X-Seat-Token": token}


async def create(client: TestClient, **body: Any) -> dict[str, Any]:
    response = await client.post("/api/tables", json=body)
    assert response.status == 201, await response.text()
    return await response.json()


async def play_seat(
    client: TestClient, table: str, token: str, choose: Any = None, *, speech: str | None = None, after: int = 0
) -> tuple[list[dict], dict]:
    """Poll one seat to the end of its game (from event ``after`` on), answering each decision (its
    default unless ``choose`` says otherwise); returns every event received and the last state."""
    received: list[dict] = []
    version = None
    for _ in range(5000):
        query = f"?after={after}&wait=10" + ("" if version is None else f"&version={version}")
        state = await (await client.get(f"/api/tables/{table}/seat{query}", headers=as_seat(token))).json()
        version = state["version"]
        received += state["events"]
        if state["events"]:
            after = state["events"][-1]["seq"]
        if state["over"]:
            return received, state
        decision = state["decision"]
        if decision is not None:
            action = choose(decision) if choose is not None else dict(decision["default"])
            if speech is not None and action["kind"] == "speak":
                action["speech"] = speech
            answer = {"decision": decision["id"], "action": action}
            response = await client.post(f"/api/tables/{table}/seat/answer", json=answer, headers=as_seat(token))
            assert response.status in (200, 409), await response.text()  # 409: a beat ended meanwhile
    raise AssertionError("the game did not end")


async def watch(client: TestClient, table: str) -> tuple[list[dict], list[dict]]:
    """Watch a table to its end: the events received live, then the whole game once it is over."""
    live: list[dict] = []
    after, version = 0, None
    while True:
        query = f"?after={after}&wait=10" + ("" if version is None else f"&version={version}")
        state = await (await client.get(f"/api/tables/{table}/watch{query}")).json()
        version = state["version"]
        if state["over"]:
            break
        assert not state["all_views"]
        live += state["events"]
        if state["events"]:
            after = state["events"][-1]["seq"]
    everything = await (await client.get(f"/api/tables/{table}/watch?after=0")).json()
    assert everything["all_views"]
    return live, everything["events"]


def transcript_of(data: Path, table: str) -> Any:
    return read_transcript(data / "transcripts" / f"{table}.jsonl")


# ---- a game through the API ------------------------------------------------------------------------
async def test_a_person_plays_a_classic_game_through_the_api(tmp_path: Path) -> None:
    async with served(tmp_path) as client:
        made = await create(client, variant="classic", players=6, seed=4, seats={"Ann": "person:Alice Liddell", "Bob": "random"})
        assert set(made["seats"]) == {"Ann"}
        seat = made["seats"]["Ann"]
        assert seat["url"] == f"/tables/{made['table']}/seat#{seat['token']}"  # the token only in the fragment
        assert made["watch"] == f"/tables/{made['table']}/watch"
        received, state = await play_seat(client, made["table"], seat["token"])
        assert state["state"] == "over" and state["decision"] is None
        assert any(e["type"] == "game_over" for e in received)
        listing = (await (await client.get("/api/tables")).json())["tables"]
        assert [t["table"] for t in listing] == [made["table"]] and listing[0]["state"] == "over"
    transcript = transcript_of(tmp_path, made["table"])
    assert transcript.complete
    assert transcript.header["players"]["Ann"] == "human:Alice Liddell"  # a person is an entrant, by name
    assert transcript.header["players"]["Bob"] == "random"
    assert transcript.header["table"] == made["table"]
    assert replay(transcript).ok
    from arena.report import report  # the folder of served games reads like any other: the person is an entrant

    report(tmp_path / "transcripts", tmp_path / "report")
    assert "human:Alice Liddell" in (tmp_path / "report" / "index.html").read_text(encoding="utf-8")


async def test_two_people_at_one_table_each_see_only_their_own_view(tmp_path: Path) -> None:
    async with served(tmp_path) as client:
        made = await create(client, variant="classic", players=7, seed=11, seats={"Ann": "person", "Cid": "person"})
        table = made["table"]
        (ann, _), (cid, _) = await asyncio.gather(
            play_seat(client, table, made["seats"]["Ann"]["token"]), play_seat(client, table, made["seats"]["Cid"]["token"])
        )
    events = [Event.from_dict(e) for e in transcript_of(tmp_path, table).events]
    assert ann == numbered(e.to_dict() for e in events if e.visible_to("Ann"))
    assert cid == numbered(e.to_dict() for e in events if e.visible_to("Cid"))
    assert ann != cid


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_every_variant_a_seat_receives_exactly_what_it_may_see(tmp_path: Path, variant: str) -> None:
    """The seat's events equal the transcript's events visible to it; a watcher gets only public ones
    while the game is played, and everything once it is over."""
    async with served(tmp_path) as client:
        made = await create(client, variant=variant, seed=5, seats={"Ann": "person"}, **SMALL[variant])
        table = made["table"]
        (seat_events, state), (live, everything) = await asyncio.gather(
            play_seat(client, table, made["seats"]["Ann"]["token"]), watch(client, table)
        )
        assert state["state"] == "over"
    transcript = transcript_of(tmp_path, table)
    events = [Event.from_dict(e) for e in transcript.events]
    assert seat_events == numbered(e.to_dict() for e in events if e.visible_to("Ann"))
    assert any(e.to is not None and not e.visible_to("Ann") for e in events)  # there was something to hide
    public = numbered(e.to_dict() for e in events if e.to is None)  # numbered for the watcher: 1, 2, 3 …
    assert live and all("to" not in e for e in live) and live == public[: len(live)]
    assert [e["seq"] for e in seat_events] == list(range(1, len(seat_events) + 1))
    assert everything == transcript.events
    if variant in ("duel", "duel3", "trio"):
        assert transcript.header["clock"]["beat_seconds"] == 0.4  # a person at McKay's table: the wall clock
        assert any("at" in e.get("data", {}) for e in transcript.events if e["type"] == "action")


async def test_live_views_only_with_the_option_and_only_without_a_person(tmp_path: Path) -> None:
    async with served(tmp_path, live_views=True) as client:
        bots = await create(client, variant="classic", players=6, seed=2, seats={"Ann": "random"})
        state = await (await client.get(f"/api/tables/{bots['table']}/watch?after=0")).json()
        assert state["all_views"] and any("to" in e for e in state["events"])
        person = await create(client, variant="classic", players=6, seed=2, seats={"Ann": "person"})
        state = await (await client.get(f"/api/tables/{person['table']}/watch?after=0")).json()
        assert not state["all_views"] and not any("to" in e for e in state["events"])
    async with served(tmp_path / "plain") as client:
        bots = await create(client, variant="classic", players=6, seed=2)
        await asyncio.sleep(0.2)
        state = await (await client.get(f"/api/tables/{bots['table']}/watch?after=0&wait=5")).json()
        assert state["all_views"] == state["over"]
        if not state["over"]:
            assert not any("to" in e for e in state["events"])


async def test_a_paced_table_of_bots_can_be_watched_as_it_is_played(tmp_path: Path) -> None:
    async with served(tmp_path) as client:
        made = await create(client, variant="classic", players=9, seed=2, pace=0.1)
        await asyncio.sleep(0.45)
        state = await (await client.get(f"/api/tables/{made['table']}/watch?after=0")).json()
        assert not state["over"] and state["events"]  # a few steps in, not the whole game at once
        times = state["times"]
        assert len(times) == len(state["events"]) and times == sorted(times)
        assert times[-1] - times[0] >= 0.2
        live, _ = await watch(client, made["table"])
        assert live


async def test_a_table_that_ends_leaves_the_shared_model_clients_open(tmp_path: Path) -> None:
    """Model seats' HTTP clients are pooled per event loop, shared by every table's model seats: a
    table that ends must not close them under the others (the server closes them when it stops)."""
    from arena.players.llm import player as llm_player
    from tests.llm_server import FakeModelServer

    with FakeModelServer(seed=3) as stand_in:
        model = f"openai:stand-in@{stand_in.openai_url}"
        async with served(tmp_path) as client:
            made = await create(client, variant="classic", players=6, seed=1, seats={"Ann": model})
            while (await (await client.get(f"/api/tables/{made['table']}")).json())["state"] == "playing":
                await asyncio.sleep(0.05)
            pool = llm_player._clients.get(asyncio.get_running_loop(), {})
            assert pool and not any(c.is_closed() for c in pool.values())
        assert asyncio.get_running_loop() not in llm_player._clients  # closed with the server
    transcript = transcript_of(tmp_path, made["table"])
    assert transcript.complete and transcript.calls


async def test_a_websocket_pushes_the_same_states_and_checks_its_origin(tmp_path: Path) -> None:
    async with served(tmp_path) as client:
        made = await create(client, variant="classic", players=6, seed=4, seats={"Ann": "person"})
        table, token = made["table"], made["seats"]["Ann"]["token"]
        own = str(client.make_url("/")).rstrip("/")
        for origin in ("http://evil.example", own.replace("127.0.0.1", "localhost"), "null"):
            response = await client.get(
                f"/api/tables/{table}/seat/socket", headers={"Origin": origin, "Upgrade": "websocket", **as_seat(token)}
            )
            assert (response.status, await response.json()) == (403, {"error": "a request from another site's page is refused"})
        assert (await client.get(f"/api/tables/{table}/seat/socket", headers=as_seat("A" * 32))).status == 404
        # a browser's WebSocket sends no header of its own: the token is its first message
        async with client.ws_connect(f"/api/tables/{table}/seat/socket", headers={"Origin": own}) as wrong:
            await wrong.send_json({"token": "A" * 32})
            assert (await wrong.receive_json()) == {"error": "no such table or seat"}
        async with client.ws_connect(f"/api/tables/{table}/seat/socket", headers={"Origin": own}) as hello:
            await hello.send_json({"token": token})
            assert (await hello.receive_json())["seat"] == "Ann"
        received: list[dict] = []
        watched: list[dict] = []
        async with client.ws_connect(f"/api/tables/{table}/watch/socket", headers={"Origin": own}) as watcher:
            async with client.ws_connect(f"/api/tables/{table}/seat/socket", headers={"Origin": own, **as_seat(token)}) as seat:
                async for message in seat:
                    state = message.json()
                    received += state["events"]
                    if state["over"]:
                        break
                    if state["decision"] is not None:
                        answer = {"decision": state["decision"]["id"], "action": state["decision"]["default"]}
                        await client.post(f"/api/tables/{table}/seat/answer", json=answer, headers=as_seat(token))
            async for message in watcher:
                state = message.json()
                if not state["all_views"]:
                    watched += state["events"]
                if state["over"]:
                    break
    events = [Event.from_dict(e) for e in transcript_of(tmp_path, table).events]
    assert received == numbered(e.to_dict() for e in events if e.visible_to("Ann"))
    assert watched and all("to" not in e for e in watched)


# ---- the decision and its default -----------------------------------------------------------------------
async def test_a_timeout_plays_the_default_the_page_was_shown(tmp_path: Path) -> None:
    """A vote has no fixed default: the seat draws it when posed, shows it, and plays it on time-out."""
    async with served(tmp_path) as client:
        made = await create(client, variant="classic", players=6, seed=7, seats={"Ann": "person"}, timeout=0.3)
        table, token = made["table"], made["seats"]["Ann"]["token"]
        shown: dict[int, dict] = {}
        after, version = 0, None
        while True:
            query = f"?after={after}&wait=5" + ("" if version is None else f"&version={version}")
            state = await (await client.get(f"/api/tables/{table}/seat{query}", headers=as_seat(token))).json()
            version = state["version"]
            if state["events"]:
                after = state["events"][-1]["seq"]
            if state["decision"] is not None:
                shown[state["decision"]["id"]] = state["decision"]["default"]
                assert 0 <= state["decision"]["left"] <= 0.3
            if state["over"]:
                break
    mine = numbered(e for e in transcript_of(tmp_path, table).events if "Ann" in e.get("to", ["Ann"]))  # Ann's numbers
    played = {e["data"]["request"]: e["data"]["action"] for e in mine if e["type"] == "action" and e.get("actor") == "Ann"}
    assert shown and set(shown) <= set(played)
    for request, default in shown.items():
        assert played[request] == {**default, "thought": TIMEOUT_THOUGHT}
    assert any(d["kind"] in ("vote", "verdict") for d in shown.values())


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_default_shown_is_always_a_legal_answer(variant: str) -> None:
    """Every decision of a game played on defaults alone: the seat's default passes the engine."""
    from arena.engine import Decision

    cls = VARIANTS[variant]
    options = {"hands": 2, "beats": 3} if variant in ("duel", "duel3", "trio") else None
    drawn = 0  # decisions with no default of their own: the seat draws one
    for seed in range(3):
        game = cls(DEFAULT_NAMES[: cls.default_players], options, seed)
        while not game.finished:
            decisions = []
            for request in game.pending():
                drawn += request.default is None
                action = default_answer(request, seed)
                assert game.validate(request, action) is None, (request.question, action)
                decisions.append(Decision(request, action, False, [(action, None)]))
            game.resolve(decisions)
    assert drawn or variant in ("duel", "duel3", "trio")  # every McKay decision defaults to a pass


async def test_a_refused_answer_gets_the_engines_reason_and_a_good_one_goes_through(tmp_path: Path) -> None:
    async with served(tmp_path) as client:
        # seed 1: Ann opens day 1's talk (each day's opener is drawn from the seed)
        made = await create(client, variant="classic", players=6, seed=1, seats={"Ann": "person"})
        table, token = made["table"], made["seats"]["Ann"]["token"]
        url, seat = f"/api/tables/{table}/seat", as_seat(token)
        state = await (await client.get(f"{url}?after=0&wait=10", headers=seat)).json()
        while state["decision"] is None:
            state = await (await client.get(f"{url}?after=0&wait=10&version={state['version']}", headers=seat)).json()
        decision = state["decision"]
        assert decision["options"][0]["kind"] == "speak"

        async def answer(action: Any, decision_id: Any = decision["id"]) -> tuple[int, dict]:
            response = await client.post(f"{url}/answer", json={"decision": decision_id, "action": action}, headers=seat)
            return response.status, await response.json()

        assert await answer({"kind": "speak", "accuse": "Nobody"}) == (
            422,
            {"error": "there is no player named 'Nobody'; legal: Bob, Cid, Dee, Eve, Fay"},
        )
        assert await answer({"kind": "vote", "target": "Bob"}) == (422, {"error": "'vote' is not allowed now; legal: speak"})
        status, body = await answer({"kind": "speak", "speech": "x" * 601})
        assert status == 422 and body["error"] == "speech is 601 characters; the limit is 600"
        assert await answer({"kind": "fly"}) == (422, {"error": "there is no move 'fly'; legal: speak"})
        assert await answer({"kind": "speak", "speech": ["a"]}) == (
            422,
            {"error": "speak.speech: Input should be a valid string"},
        )
        assert (await answer({"kind": "speak"}, decision["id"] + 1))[0] == 409
        assert await answer({"kind": "speak", "speech": XSS, "thought": "mine"}) == (200, {"ok": True})
        assert (await answer({"kind": "speak"}))[0] == 409  # answered already
        while True:
            state = await (await client.get(f"{url}?after=0&wait=5&version={state['version']}", headers=seat)).json()
            speech = [e for e in state["events"] if e["type"] == "speech" and e.get("actor") == "Ann"]
            if speech:
                break
        assert speech[0]["data"]["text"] == XSS  # as typed: the pages show it as text
        action = next(e for e in state["events"] if e["type"] == "action" and e.get("actor") == "Ann")
        assert "thought" not in action["data"]["action"]  # a person's answer carries no thought from the page


async def test_answers_are_rate_limited_per_seat(tmp_path: Path) -> None:
    async with served(tmp_path, answer_rate=(3.0, 10.0)) as client:
        made = await create(client, variant="classic", players=6, seed=4, seats={"Ann": "person"})
        url, seat = f"/api/tables/{made['table']}/seat/answer", as_seat(made["seats"]["Ann"]["token"])
        answer = {"decision": -1, "action": {"kind": "speak"}}
        statuses = [(await client.post(url, json=answer, headers=seat)).status for _ in range(14)]
        assert statuses[0] == 409 and 429 in statuses
        assert (await (await client.post(url, json={"decision": -1}, headers=seat)).json())[
            "error"
        ] == "too many answers: wait a moment"


# ---- safety ---------------------------------------------------------------------------------------------
async def test_tokens_are_unguessable_private_and_checked(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with served(tmp_path) as client:
        made = await create(client, variant="classic", players=6, seed=4, seats={"Ann": "person", "Bob": "person"})
        table = made["table"]
        tokens = [s["token"] for s in made["seats"].values()]
        assert len(set(tokens)) == 2 and all(len(t) >= 32 for t in tokens)
        # no token, a wrong one, a wrong table: one answer, so a token cannot be told from a table
        nothing = (404, {"error": "no such table or seat"})
        for bad in ("", "x", tokens[0][:-1], tokens[0] + "x", tokens[0].upper()):
            response = await client.get(f"/api/tables/{table}/seat", headers=as_seat(bad))
            assert (response.status, await response.json()) == nothing, bad
        response = await client.get(f"/api/tables/{table}/seat")
        assert (response.status, await response.json()) == nothing
        response = await client.get("/api/tables/nosuchtable/seat", headers=as_seat(tokens[0]))
        assert (response.status, await response.json()) == nothing
        response = await client.post(
            f"/api/tables/{table}/seat/answer", json={"decision": 1, "action": {}}, headers=as_seat("A" * 32)
        )
        assert (response.status, await response.json()) == nothing
        response = await client.get(f"/api/tables/{table}/seats/{tokens[0]}")  # the old address: no token in paths
        assert response.status == 404
        await asyncio.gather(*(play_seat(client, table, t) for t in tokens))
        report = await client.post(f"/tables/{table}/report", data={"token": "A" * 32})
        assert (report.status, await report.json()) == nothing
        assert (await client.get(f"/tables/{table}/report?as={tokens[0]}")).status == 400  # never in the address
        own = await client.post(f"/tables/{table}/report", data={"token": tokens[0]})
        assert own.status == 200 and "Content-Security-Policy" in own.headers
        assert (await own.text()).startswith("<!DOCTYPE html>")
    files = [p.read_text(encoding="utf-8") for p in tmp_path.rglob("*") if p.is_file()]
    logged = caplog.text
    for token in tokens:
        assert token not in logged
        assert not any(token in text for text in files)  # the data folder keeps a hash, never the token
    record = json.loads((tmp_path / "tables" / f"{table}.json").read_text())
    assert all(len(s["token_sha256"] or "") == 64 for s in record["seats"] if s["spec"] == "person")


async def test_pages_are_served_with_a_strict_policy_and_nothing_from_elsewhere(tmp_path: Path) -> None:
    async with served(tmp_path) as client:
        for path in ("/", "/tables/abc/seat", "/tables/abc/watch", "/static/seat.js", "/static/style.css"):
            response = await client.get(path)
            assert response.status == 200, path
            assert "script-src 'self'" in response.headers["Content-Security-Policy"]
            assert response.headers["X-Content-Type-Options"] == "nosniff"
    static = ROOT / "arena" / "serve" / "static"
    for page in static.iterdir():
        text = page.read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text, page.name  # offline: no CDN
        assert "innerHTML" not in text and "insertAdjacentHTML" not in text and "document.write" not in text, page.name


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ("not json", 400, "the body must be JSON"),
        ([], 400, "the body must be a JSON object"),
        ({"variant": "chess"}, 400, "variant must be one of classic, cove, duel, duel3, trio, village"),
        ({"variant": "classic", "players": 3}, 400, "classic takes 6-18 players, not 3"),
        ({"variant": "classic", "players": "six"}, 400, "players must be a whole number"),
        ({"variant": "classic", "seed": -1}, 400, "seed must be a whole number from 0"),
        ({"variant": "classic", "seats": {"Zed": "bot"}}, 400, None),
        (
            {"variant": "classic", "seats": {"Ann": "human"}},
            400,
            "seats.Ann: a person at a served table is 'person' (or 'person:NAME')",
        ),
        ({"variant": "classic", "seats": {"Ann": "wizard"}}, 400, None),
        ({"variant": "classic", "seats": {"Ann": "person:"}}, 400, "seats.Ann: a person's name is 1-40 printable characters"),
        (
            {"variant": "classic", "players": 6, "seats": {"Zed": "bot"}},
            400,
            "seats.Zed: this 6-player table has no seat 'Zed' (seats: Ann, Bob, Cid, Dee, Eve, Fay)",
        ),
        ({"variant": "classic", "options": {"max_days": 0}}, 400, None),
        ({"variant": "classic", "config": "players = ["}, 400, None),
        ({"variant": "classic", "timeout": 0}, 400, None),
        ({"variant": "duel", "beat_seconds": 0.1}, 400, "beat_seconds must be 0.2-600"),
        ({"variant": "classic", "colour": "red"}, 400, "unknown key 'colour'"),
        ({"variant": "classic", "pace": -1}, 400, "pace must be 0-60 seconds between steps"),
    ],
)
async def test_a_bad_table_is_one_line_and_no_table(tmp_path: Path, body: Any, status: int, error: str | None) -> None:
    async with served(tmp_path) as client:
        data = body if isinstance(body, str) else json.dumps(body)
        response = await client.post("/api/tables", data=data, headers={"Content-Type": "application/json"})
        answer = await response.json()
        assert response.status == status
        assert isinstance(answer["error"], str) and "\n" not in answer["error"] and "Traceback" not in answer["error"]
        if error is not None:
            assert answer["error"] == error
        assert (await (await client.get("/api/tables")).json())["tables"] == []


async def test_sizes_and_queries_are_limited(tmp_path: Path) -> None:
    async with served(tmp_path) as client:
        form = await client.post("/api/tables", data="variant=classic", headers={"Content-Type": "text/plain"})
        assert (form.status, await form.json()) == (415, {"error": "send JSON (Content-Type: application/json)"})
        big = b"{" + b" " * 70_000 + b"}"
        response = await client.post("/api/tables", data=big, headers={"Content-Type": "application/json"})
        assert response.status == 413
        made = await create(client, variant="classic", players=6, seed=4, seats={"Ann": "person"})
        url = f"/api/tables/{made['table']}/seat"
        for query in ("?after=abc", "?wait=soon", "?wait=-1", "?wait=nan"):
            response = await client.get(url + query, headers=as_seat(made["seats"]["Ann"]["token"]))
            assert (response.status, (await response.json())["error"]) in (
                (400, "after must be a whole number"),
                (400, "wait must be seconds"),
            ), query


# ---- memory ---------------------------------------------------------------------------------------------
async def test_a_finished_table_leaves_memory_and_is_served_from_its_transcript(tmp_path: Path) -> None:
    async with served(tmp_path, keep=0.05) as client:
        made = await create(client, variant="classic", players=6, seed=4, seats={"Ann": "person"})
        table, token = made["table"], made["seats"]["Ann"]["token"]
        received, _ = await play_seat(client, table, token)
        server = client.server.app[SERVER]
        await asyncio.sleep(0.1)
        server.sweep()
        assert isinstance(server.tables[table], ArchivedTable)
        server.sweep()
        assert table not in server.tables  # nothing of it left in memory
        again = await (await client.get(f"/api/tables/{table}/seat?after=0", headers=as_seat(token))).json()
        assert again["events"] == received and again["over"] and again["state"] == "over"
        watched = await (await client.get(f"/api/tables/{table}/watch?after=0")).json()
        assert watched["events"] == transcript_of(tmp_path, table).events
        assert (await client.get(f"/tables/{table}/report")).status == 200
    # a new server on the same folder lists and serves the finished table
    async with served(tmp_path) as client:
        listing = (await (await client.get("/api/tables")).json())["tables"]
        assert [(t["table"], t["state"]) for t in listing] == [(table, "over")]
        again = await (await client.get(f"/api/tables/{table}/seat?after=0", headers=as_seat(token))).json()
        assert again["events"] == received


# ---- the command ------------------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def http(method: str, url: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", **(as_seat(token) if token else {})}
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


ENV = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}  # the command as a user runs it: no keys


def start_serve(data: Path, port: int) -> subprocess.Popen[str]:
    """``arena serve`` in a process of its own on ``port`` (the caller stops it)."""
    command = [sys.executable, "-m", "arena", "serve", "--port", str(port), "--data", str(data)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)


def test_the_command_serves_and_never_prints_a_token(tmp_path: Path) -> None:
    port = free_port()
    proc = start_serve(tmp_path, port)
    try:
        line = proc.stdout.readline()
        assert line == f"arena serve: http://127.0.0.1:{port}/ (Ctrl-C stops; unfinished games resume on the next start)\n"
        body = {"variant": "classic", "players": 6, "seats": {"Ann": "person"}}
        status, made = http("POST", f"http://127.0.0.1:{port}/api/tables", body)
        assert status == 201
        token = made["seats"]["Ann"]["token"]
        status, state = http("GET", f"http://127.0.0.1:{port}/api/tables/{made['table']}/seat?after=0&wait=5", token=token)
        assert status == 200 and state["seat"] == "Ann"
        assert http("GET", f"http://127.0.0.1:{port}/api/tables/{made['table']}/seat", token=token[::-1])[0] == 404
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert "table" in err and token not in out + err


def test_the_command_logs_its_tables_not_every_model_request(tmp_path: Path) -> None:
    """A model seat's HTTP requests are not logged one line each (httpx's INFO lines flooded the log)."""
    from tests.llm_server import FakeModelServer

    port = free_port()
    with FakeModelServer(seed=3) as stand_in:
        proc = start_serve(tmp_path, port)
        try:
            proc.stdout.readline()
            body = {"variant": "classic", "players": 6, "seed": 1, "seats": {"Ann": f"openai:m@{stand_in.openai_url}"}}
            status, made = http("POST", f"http://127.0.0.1:{port}/api/tables", body)
            assert status == 201
            for _ in range(600):
                if http("GET", f"http://127.0.0.1:{port}/api/tables/{made['table']}")[1]["state"] != "playing":
                    break
                time.sleep(0.1)
        finally:
            proc.terminate()
            _, err = proc.communicate(timeout=30)
        assert stand_in.log  # the model seat was asked
    assert f"table {made['table']}" in err and "HTTP Request" not in err


def test_serve_warns_off_loopback_and_refuses_a_bad_port(tmp_path: Path) -> None:
    bad = subprocess.run(
        [sys.executable, "-m", "arena", "serve", "--port", "70000", "--data", str(tmp_path)],
        capture_output=True, text=True, env=ENV, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2 and bad.stderr == "arena: error: --port 70000: use 1-65535\n"
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--host", "0.0.0.0", "--port", str(free_port()), "--data", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
    )  # fmt: skip
    try:
        line = proc.stderr.readline()
        assert line.startswith("arena serve: warning: listening on 0.0.0.0, not loopback")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_arena_resume_of_a_table_being_played_is_refused(tmp_path: Path) -> None:
    """The server's table holds its transcript's lock while the game is played: ``arena resume`` of
    it is one line and exit 2, and the file is not touched (two writers would interleave lines)."""
    port = free_port()
    proc = start_serve(tmp_path, port)
    try:
        proc.stdout.readline()
        status, made = http(
            "POST", f"http://127.0.0.1:{port}/api/tables", {"variant": "classic", "players": 6, "seats": {"Ann": "person"}}
        )
        assert status == 201
        path = tmp_path / "transcripts" / f"{made['table']}.jsonl"
        before = path.read_bytes()
        out = subprocess.run(
            [sys.executable, "-m", "arena", "resume", str(path)], capture_output=True, text=True, env=ENV, timeout=60
        )
        assert out.returncode == 2 and len(out.stderr.splitlines()) == 1, out.stderr
        # nothing cut or appended by the refused resume (the table's own game may have gone on)
        assert "another process is playing this game" in out.stderr and path.read_bytes().startswith(before)
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_a_port_in_use_is_one_line_and_leaves_no_folder(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        data = tmp_path / "new" / "data"
        out = subprocess.run(
            [sys.executable, "-m", "arena", "serve", "--port", str(port), "--data", str(data)],
            capture_output=True, text=True, env=ENV, timeout=60,
        )  # fmt: skip
    assert out.returncode == 2 and out.stderr.startswith(f"arena: error: cannot listen on 127.0.0.1:{port}: ")
    assert len(out.stderr.splitlines()) == 1 and list(tmp_path.iterdir()) == []


# ---- a restart ------------------------------------------------------------------------------------------
async def test_a_restarted_server_resumes_its_unfinished_tables_behind_the_same_links(tmp_path: Path) -> None:
    async with served(tmp_path) as client:
        made = await create(client, variant="classic", players=7, seed=9, seats={"Ann": "person", "Bob": "random"})
        table, token = made["table"], made["seats"]["Ann"]["token"]
        url, seat = f"/api/tables/{table}/seat", as_seat(token)
        received: list[dict] = []
        answered = 0
        state = await (await client.get(f"{url}?after=0&wait=10", headers=seat)).json()
        while answered < 2:
            received += state["events"]
            if state["decision"] is not None:
                answer = {"decision": state["decision"]["id"], "action": state["decision"]["default"]}
                assert (await client.post(f"{url}/answer", json=answer, headers=seat)).status == 200
                answered += 1
            after = received[-1]["seq"] if received else 0
            state = await (await client.get(f"{url}?after={after}&wait=10&version={state['version']}", headers=seat)).json()
        received += state["events"]
    assert transcript_of(tmp_path, table).summary is None  # stopped with its server, not ended
    async with served(tmp_path) as client:
        listing = (await (await client.get("/api/tables")).json())["tables"]
        assert [(t["table"], t["state"]) for t in listing] == [(table, "playing")]
        rest, state = await play_seat(client, table, token, after=received[-1]["seq"])
        assert state["state"] == "over"
    transcript = transcript_of(tmp_path, table)
    assert transcript.complete and replay(transcript).ok
    events = [Event.from_dict(e) for e in transcript.events]
    assert received + rest == numbered(e.to_dict() for e in events if e.visible_to("Ann"))


# ---- model seats on a server of their own -------------------------------------------------------------
async def test_a_model_seat_on_a_server_of_its_own_plays_in_the_mode_the_check_picks(tmp_path: Path) -> None:
    """llama-cpp-python's server ignores tools: the check when the table is made picks json_object
    (without it the seat sent tools and the table stopped after three lost decisions), the header
    records it, and a restarted server resumes the seat in it without asking again."""
    from arena.players.llm import modes
    from tests.llm_server import game_calls
    from tests.test_server_modes import LlamaLikeServer

    try:
        with LlamaLikeServer(seed=3) as stand_in:
            model = f"openai:m@{stand_in.openai_url}"
            async with served(tmp_path) as client:
                made = await create(client, variant="classic", players=6, seed=1, seats={"Ann": model, "Bob": "person"})
                table, token = made["table"], made["seats"]["Bob"]["token"]
                url, seat = f"/api/tables/{table}/seat", as_seat(token)
                received: list[dict] = []
                state = await (await client.get(f"{url}?after=0&wait=10", headers=seat)).json()
                while state["decision"] is None or not any(e.get("actor") == "Ann" for e in received):
                    received += state["events"]
                    after = received[-1]["seq"] if received else 0
                    if state["decision"] is not None:
                        answer = {"decision": state["decision"]["id"], "action": state["decision"]["default"]}
                        assert (await client.post(f"{url}/answer", json=answer, headers=seat)).status == 200
                    state = await (
                        await client.get(f"{url}?after={after}&wait=10&version={state['version']}", headers=seat)
                    ).json()
                received += state["events"]
            modes._picked.clear()  # a new server process knows no pick: the header must say it
            probes = len(stand_in.log)
            async with served(tmp_path) as client:
                _, state = await play_seat(client, table, token, after=received[-1]["seq"])
                assert state["state"] == "over"
            after_restart = stand_in.log[probes:]
            served_calls = [e for e in game_calls(stand_in.log) if e["player"] != "someone"]  # not the ping
    finally:
        modes._picked.clear()
    transcript = transcript_of(tmp_path, table)
    assert transcript.header["structured"] == {"Ann": "json_object"}
    assert transcript.complete and transcript.summary["forfeits"] == 0
    assert after_restart and len(game_calls(after_restart)) == len(after_restart)  # not checked again
    assert all((e["body"].get("response_format") or {}).get("json_schema", {}).get("name") == "x" for e in served_calls)


async def test_a_model_seat_whose_endpoint_is_down_is_one_line_and_no_table(tmp_path: Path) -> None:
    dead = f"openai:m@http://127.0.0.1:{free_port()}/v1"
    async with served(tmp_path) as client:
        response = await client.post("/api/tables", json={"variant": "classic", "players": 6, "seats": {"Ann": dead}})
        body = await response.json()
        assert response.status == 400 and "\n" not in body["error"], body
        assert body["error"].startswith(f"seat Ann ({dead}): ") and body["error"].endswith("(no table was started)")
        assert (await (await client.get("/api/tables")).json())["tables"] == []


async def _night_gaps(client: TestClient, **body: Any) -> list[float]:
    """Seconds from each nightfall to its morning on a finished table's public log (watch API)."""
    made = await create(client, **body)
    while (await (await client.get(f"/api/tables/{made['table']}")).json())["state"] == "playing":
        await asyncio.sleep(0.05)
    state = await (await client.get(f"/api/tables/{made['table']}/watch?after=0")).json()
    public = [(e["type"], t) for e, t in zip(state["events"], state["times"], strict=True) if "to" not in e]
    fell = None
    gaps = []
    for kind, at in public:
        if kind == "night":
            fell = at
        elif kind == "morning" and fell is not None:
            gaps.append(at - fell)
    return gaps


@pytest.mark.parametrize(("variant", "seed"), [("classic", 8), ("village", 1), ("cove", 1)])
async def test_a_night_lasts_its_floor_whoever_moved_in_it(tmp_path: Path, variant: str, seed: int) -> None:
    """When the night's news comes must not tell who moved at night: model seats that take a tenth
    of a second a call make a night they move in longer than a bots' night (about 0 s), so its
    length says that a model seat holds a night card or sits in the mafia's channel; with
    ``night_seconds`` every night's morning comes that long after nightfall, whoever moved (every
    private step is held: classic's night, village's channel and night roles, cove's channel)."""
    from tests.llm_server import SlowServer

    with SlowServer(latency=0.1, seed=3) as stand_in:
        model = f"openai:slow@{stand_in.openai_url}?structured=tools"
        seats = {"Ann": model, "Bob": model, "Cid": model}
        async with served(tmp_path) as client:
            body = {"variant": variant, "players": 7, "seed": seed, "seats": seats}
            bare = await _night_gaps(client, **body, night_seconds=0)
            floored = await _night_gaps(client, **body, night_seconds=1.5)
    assert bare and max(bare) >= 0.1, bare  # the channel
    assert floored and all(1.5 <= gap < 1.7 for gap in floored), floored


async def test_a_table_with_a_person_gets_a_night_floor_and_a_table_of_bots_none(tmp_path: Path) -> None:
    from arena.serve.tables import DEFAULT_NIGHT_SECONDS

    async with served(tmp_path) as client:
        client.server.app[SERVER].night_seconds = DEFAULT_NIGHT_SECONDS  # the server's default
        bots = await create(client, variant="classic", players=6, seed=1)
        person = await create(client, variant="classic", players=6, seed=1, seats={"Ann": "person"})
        tables = client.server.app[SERVER].tables
        assert tables[bots["table"]].night_seconds == 0
        assert tables[person["table"]].night_seconds == DEFAULT_NIGHT_SECONDS
        response = await client.post("/api/tables", json={"variant": "classic", "night_seconds": -1})
        assert response.status == 400
        assert "night_seconds must be 0-600" in (await response.json())["error"]


def test_a_persons_own_death_is_said_to_them_and_to_the_others_by_name() -> None:
    from arena.serve.tables import line_of

    death = Event(7, "death", 2, "night", "all", None, data={"player": "Ann", "cause": "execution", "role": "sheriff"})
    assert line_of(death, "Ann", "Day") == ("† You die (execution) — you were sheriff.", "bold red")
    assert line_of(death, "Bob", "Day")[0] == line_of(death, None, "Day")[0] == "† Ann dies (execution) — was sheriff."


async def test_a_seats_poll_builds_its_rules_again_only_after_news(tmp_path: Path, monkeypatch) -> None:
    from arena.serve import tables

    built = []
    real = tables.page_rules
    monkeypatch.setattr(tables, "page_rules", lambda *a: built.append(1) or real(*a))
    async with served(tmp_path) as client:
        made = await create(client, variant="classic", players=6, seed=1, seats={"Ann": "person"})
        table = client.server.app[SERVER].tables[made["table"]]
        first = table.seat_state("Ann", 0)
        assert table.seat_state("Ann", 0)["rules"] == first["rules"] and len(built) == 1
