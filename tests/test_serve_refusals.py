"""arena serve refuses what it should (docs/serve.md, "Safety"): a body nested too deeply, every
refusal in one JSON shape, a repeated Idempotency-Key, a foreign Host or Origin."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

pytest.importorskip("aiohttp")

from tests.test_serve import as_seat, create, served


async def test_a_deeply_nested_body_is_a_400_not_a_traceback(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with served(tmp_path) as client:
        made = await create(client, variant="classic", players=6, seed=4, seats={"Ann": "person"})
        seat = as_seat(made["seats"]["Ann"]["token"])
        for depth in (30_000, 500, 40):
            nested = "[" * depth + "]" * depth
            for url, body in (("/api/tables", nested), (f"/api/tables/{made['table']}/seat/answer", f'{{"action": {nested}}}')):
                response = await client.post(url, data=body, headers={"Content-Type": "application/json", **seat})
                assert (response.status, await response.json()) == (400, {"error": "the body is nested too deeply"}), (url, depth)
        shallow = {"decision": -1, "action": {"kind": "speak", "claim": {"checks": {}}}}
        response = await client.post(f"/api/tables/{made['table']}/seat/answer", json=shallow, headers=seat)
        assert response.status == 409  # an ordinary body is read as before
    assert "Traceback" not in caplog.text and "RecursionError" not in caplog.text


async def test_every_refusal_is_one_json_shape_and_one_plain_sentence(tmp_path: Path) -> None:
    async with served(tmp_path) as client:
        for method, path, status in (
            ("GET", "/api/nothing", 404),
            ("GET", "/api/tables/x/seat", 404),
            ("DELETE", "/api/tables", 405),
            ("GET", "/static/nothing.js", 404),
            ("GET", "/tables/nosuchtable/report", 404),
        ):
            response = await client.request(method, path)
            body = await response.json()
            assert response.status == status and list(body) == ["error"], (method, path)
            text = body["error"]
            assert text and "\n" not in text and not text.startswith((":", str(status))) and "Not Found" not in text, text


async def test_a_repeated_idempotency_key_makes_one_table(tmp_path: Path) -> None:
    async with served(tmp_path) as client:
        body = {"variant": "classic", "players": 6, "seed": 4, "seats": {"Ann": "person"}}
        key = {"Idempotency-Key": "one-click-0123456789"}
        answers = await asyncio.gather(*(client.post("/api/tables", json=body, headers=key) for _ in range(3)))
        made = [await r.json() for r in answers]
        assert [r.status for r in answers] == [201, 201, 201]
        assert made[0] == made[1] == made[2]  # the same table, the same links
        assert len((await (await client.get("/api/tables")).json())["tables"]) == 1
        other = await client.post("/api/tables", json=body, headers={"Idempotency-Key": "another-click-0123"})
        assert other.status == 201 and (await other.json())["table"] != made[0]["table"]
        bad = await client.post("/api/tables", json={"variant": "chess"}, headers={"Idempotency-Key": "a-refused-one-01"})
        assert bad.status == 400
        again = await client.post("/api/tables", json=body, headers={"Idempotency-Key": "a-refused-one-01"})
        assert again.status == 201  # a refused request may be corrected and sent again under its key
        short = await client.post("/api/tables", json=body, headers={"Idempotency-Key": "x"})
        assert (short.status, (await short.json())["error"]) == (400, "Idempotency-Key must be 8-100 letters, digits or -_.:")


async def test_a_foreign_host_or_origin_is_refused(tmp_path: Path) -> None:
    """DNS rebinding: another site's page reaching 127.0.0.1 sends its own name as Host and its own
    origin as Origin; both are refused, and nothing is made."""
    body = {"variant": "classic", "players": 6, "seats": {"Ann": "person"}}
    async with served(tmp_path) as client:
        port = client.server.port
        own = f"http://127.0.0.1:{port}"
        made = await create(client, **body)
        for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1:{port + 1}"):
            for method, path in (("POST", "/api/tables"), ("GET", "/api/tables"), ("GET", "/")):
                response = await client.request(method, path, json=body, headers={"Host": host, "Origin": f"http://{host}"})
                assert response.status == 421, (host, path)
                assert (await response.json())["error"].startswith("this server answers only to its own address")
        for origin in ("http://evil.example", f"http://evil.example:{port}", "null", f"http://localhost:{port}"):
            response = await client.post("/api/tables", json=body, headers={"Origin": origin})
            assert (response.status, await response.json()) == (403, {"error": "a request from another site's page is refused"})
            answer = {"decision": 1, "action": {"kind": "speak"}}
            response = await client.post(
                f"/api/tables/{made['table']}/seat/answer",
                json=answer,
                headers={"Origin": origin, **as_seat(made["seats"]["Ann"]["token"])},
            )
            assert response.status == 403
        assert len((await (await client.get("/api/tables")).json())["tables"]) == 1  # nothing made
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):  # loopback's own names
            response = await client.post("/api/tables", json=body, headers={"Host": host, "Origin": f"http://{host}"})
            assert response.status == 201, host
        assert (await client.post("/api/tables", json=body, headers={"Origin": own})).status == 201
    async with served(tmp_path, public_url="https://mafia.example.org") as client:  # behind a proxy
        headers = {"Host": "mafia.example.org", "Origin": "https://mafia.example.org"}
        assert (await client.post("/api/tables", json=body, headers=headers)).status == 201
        headers = {"Origin": "https://mafia.example.org"}  # a proxy that passes its own Host on
        assert (await client.post("/api/tables", json=body, headers=headers)).status == 201
        headers = {"Host": "evil.example", "Origin": "https://mafia.example.org"}
        assert (await client.post("/api/tables", json=body, headers=headers)).status == 421


def test_public_url_is_checked() -> None:
    from arena.serve.guard import check_public_url

    assert check_public_url("https://Mafia.example.org/") == "https://mafia.example.org"
    assert check_public_url("http://10.0.0.5:8080") == "http://10.0.0.5:8080"
    for bad in ("mafia.example.org", "ftp://x", "https://x/arena", "https://x/?a=1"):
        with pytest.raises(ValueError):
            check_public_url(bad)
