"""A served table's people (docs/serve.md): whose move it is as everyone may know it, a start that
waits for the people, and a person's time left kept over a restart."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

pytest.importorskip("aiohttp")

from tests.test_serve import as_seat, create, served


async def test_a_restarted_server_keeps_a_persons_time_left(tmp_path: Path) -> None:
    """A person's clock is not reset by a restart: the open decision gets the time it had left."""
    async with served(tmp_path) as client:
        made = await create(client, variant="classic", players=6, seed=1, seats={"Ann": "person"}, timeout=600)
        table, token = made["table"], made["seats"]["Ann"]["token"]
        url, seat = f"/api/tables/{table}/seat", as_seat(token)
        state = await (await client.get(f"{url}?after=0&wait=10", headers=seat)).json()
        while state["decision"] is None:
            state = await (await client.get(f"{url}?after=0&wait=10&version={state['version']}", headers=seat)).json()
        first = state["decision"]
        await asyncio.sleep(1.5)  # some of the person's time goes by
    record = json.loads((tmp_path / "tables" / f"{table}.json").read_text())
    assert record["clocks"]["Ann"]["stopped"] and record["clocks"]["Ann"]["left"] < 599
    async with served(tmp_path) as client:
        state = await (await client.get(f"{url}?after=0&wait=10", headers=seat)).json()
        while state["decision"] is None:
            state = await (await client.get(f"{url}?after=0&wait=10&version={state['version']}", headers=seat)).json()
        assert state["decision"]["question"] == first["question"]
        assert state["decision"]["left"] <= record["clocks"]["Ann"]["left"] < 599  # not the full 600 again


async def test_a_table_with_people_waits_for_them_and_says_so(tmp_path: Path) -> None:
    async with served(tmp_path) as client:
        made = await create(client, variant="duel", seed=3, seats={"Ann": "person", "Bob": "person"}, start_wait=None)
        table = made["table"]
        watched = await (await client.get(f"/api/tables/{table}/watch?after=0")).json()
        assert watched["state"] == "waiting" and watched["beat"] is None and watched["start"]["waiting_for"] == ["Ann", "Bob"]
        ann = await (await client.get(f"/api/tables/{table}/seat?after=0", headers=as_seat(made["seats"]["Ann"]["token"]))).json()
        assert ann["state"] == "waiting" and ann["start"] == {
            "open": False,
            "how": None,
            "waiting_for": ["Bob"],
            "left": None,
            "seconds": None,
        }
        assert ann["beat"] is None and ann["decision"] is None  # no clock runs while the people are awaited
        bob = await (
            await client.get(f"/api/tables/{table}/seat?after=0&wait=5", headers=as_seat(made["seats"]["Bob"]["token"]))
        ).json()
        while bob["state"] == "waiting" or not bob["events"]:
            bob = await (
                await client.get(
                    f"/api/tables/{table}/seat?after=0&wait=5&version={bob['version']}",
                    headers=as_seat(made["seats"]["Bob"]["token"]),
                )
            ).json()
        assert bob["start"]["how"] == "everyone" and bob["state"] == "playing"
        # the maker starts a table before everyone came, with the owner token the creation answered
        made = await create(client, variant="classic", players=6, seats={"Ann": "person"}, start_wait=None)
        start = f"/api/tables/{made['table']}/start"
        assert (await client.post(start, headers={"X-Owner-Token": "A" * 32})).status == 404
        assert (await client.post(start)).status == 404
        response = await client.post(start, headers={"X-Owner-Token": made["owner"]})
        assert response.status == 200
        for _ in range(50):
            state = (await (await client.get(f"/api/tables/{made['table']}")).json())["state"]
            if state == "playing":
                break
            await asyncio.sleep(0.05)
        assert state == "playing"
        # nobody comes: after the stated wait the table starts and the person's defaults are played
        made = await create(client, variant="classic", players=6, seats={"Ann": "person"}, start_wait=0.2, timeout=0.2)
        watched = await (await client.get(f"/api/tables/{made['table']}/watch?after=0")).json()
        assert watched["start"]["seconds"] == 0.2
        while not watched["over"]:
            watched = await (
                await client.get(f"/api/tables/{made['table']}/watch?after=0&wait=5&version={watched['version']}")
            ).json()
        assert watched["state"] == "over" and watched["start"]["how"] == "timeout"


async def test_whose_move_it_is_says_only_what_everyone_may_know(tmp_path: Path) -> None:
    from arena.serve.people import PUBLIC_GROUPS

    async with served(tmp_path) as client:
        made = await create(client, variant="classic", players=6, seed=1, seats={"Ann": "person"})
        table, token = made["table"], made["seats"]["Ann"]["token"]
        turns: list[dict] = []
        after, version = 0, None
        while True:
            query = f"?after={after}&wait=5" + ("" if version is None else f"&version={version}")
            state = await (await client.get(f"/api/tables/{table}/seat{query}", headers=as_seat(token))).json()
            version = state["version"]
            if state["events"]:
                after = state["events"][-1]["seq"]
            if state["over"]:
                assert state["turn"] is None
                break
            turn = state["turn"]
            if turn is not None:
                turns.append(turn)
                assert (turn["group"] is None) == (turn["players"] is None)
                assert turn["group"] is None or turn["group"] in PUBLIC_GROUPS
            if state["decision"] is not None:
                if turn["players"] is not None:
                    assert "Ann" in turn["players"]
                answer = {"decision": state["decision"]["id"], "action": state["decision"]["default"]}
                await client.post(f"/api/tables/{table}/seat/answer", json=answer, headers=as_seat(token))
    groups = {t["group"] for t in turns}
    assert None in groups and "discussion" in groups and "verdict" in groups  # the night says only "others choose"
    assert any(t["players"] and "Ann" not in t["players"] for t in turns)  # someone else's move, named
