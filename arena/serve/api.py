"""The HTTP API of ``arena serve`` (docs/serve.md): tables, a seat's long poll and answers, the watch.

Every error is ``{"error": one line}`` with its status: 400 bad input, 404 no such table or seat (a
wrong token is the same 404 as a table that does not exist), 409 a decision no longer open, 422 an
answer the engine refuses (its reason), 429 too many answers, 503 too many tables.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from arena.serve.tables import PERSON, ArchivedTable, Table, TableError, check_model_seats, check_setup, new_table

log = logging.getLogger("arena.serve")

MAX_WAIT = 30.0  # longest long poll, seconds
ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def _int(request: web.Request, name: str, default: int) -> int:
    text = request.query.get(name)
    if text is None or text == "":
        return default
    try:
        return int(text)
    except ValueError:
        raise TableError(400, f"{name} must be a whole number") from None


def _wait(request: web.Request) -> float:
    text = request.query.get("wait")
    if text is None or text == "":
        return 0.0
    try:
        value = float(text)
    except ValueError:
        raise TableError(400, "wait must be seconds") from None
    if value != value or value < 0:
        raise TableError(400, "wait must be seconds")
    return min(value, MAX_WAIT)


async def _body(request: web.Request) -> Any:
    # JSON only: a form or text/plain post from another site's page (which needs no CORS preflight)
    # is refused before it is read
    if request.content_type != "application/json":
        raise TableError(415, "send JSON (Content-Type: application/json)")
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise TableError(413, "the body is too large") from None
    try:
        return json.loads(raw or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise TableError(400, "the body must be JSON") from None


async def _long_poll(request: web.Request, table: Any, state_of: Any) -> dict[str, Any]:
    """The reader's state after its ``after`` first events; with ``wait``, held until something it
    may see changes (a new event of its own, its decision, the beat, the end), at most ``wait``
    seconds. ``version`` is the reader's own (:func:`~arena.serve.tables.reader_version`): a change
    outside its sight neither answers a waiting poll nor moves the number."""
    after = _int(request, "after", 0)
    wait = _wait(request)
    changes = table.waiters.version
    state = state_of(after)
    version = _int(request, "version", state["version"])
    loop = asyncio.get_running_loop()
    ends = loop.time() + wait
    while not state["events"] and not table.over and state["version"] == version and loop.time() < ends:
        await table.waiters.wait(changes, ends - loop.time())
        changes = table.waiters.version
        state = state_of(after)
    return state


@web.middleware
async def errors(request: web.Request, handler: Any) -> web.StreamResponse:
    """A TableError becomes its status and one line; nothing else leaks a traceback to a client."""
    try:
        return await handler(request)
    except TableError as exc:
        return error(exc.status, str(exc))
    except web.HTTPRequestEntityTooLarge:
        return error(413, "the body is too large")


class Api:
    """The handlers, bound to the server's tables."""

    def __init__(self, server: Any) -> None:
        self.server = server

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/api/variants", self.variants),
            web.get("/api/tables", self.list_tables),
            web.post("/api/tables", self.create),
            web.get("/api/tables/{table}", self.table_summary),
            web.get("/api/tables/{table}/seats/{token}", self.seat),
            web.post("/api/tables/{table}/seats/{token}/answer", self.answer),
            web.get("/api/tables/{table}/watch", self.watch),
            web.get("/api/tables/{table}/seats/{token}/socket", self.seat_socket),
            web.get("/api/tables/{table}/watch/socket", self.watch_socket),
        ]

    def table(self, request: web.Request) -> Table | ArchivedTable:
        table_id = request.match_info["table"]
        table = self.server.find(table_id) if ID.match(table_id) else None
        if table is None:
            raise TableError(404, "no such table")
        return table

    def seat_of(self, table: Table | ArchivedTable, request: web.Request) -> str:
        token = request.match_info["token"]
        for seat in table.seats.values():
            if seat.accepts(token):
                return seat.name
        raise TableError(404, "no such seat")  # the same answer for a wrong token and a wrong table

    async def variants(self, request: web.Request) -> web.Response:
        from arena.run.config import DEFAULT_NAMES, load_config
        from arena.variants import VARIANTS

        out = []
        for name, cls in VARIANTS.items():
            config = load_config(cls)
            players = config.players or cls.default_players
            out.append({
                "variant": name, "title": cls.title, "min_players": cls.min_players, "max_players": cls.max_players,
                "players": players, "names": list(DEFAULT_NAMES[: cls.max_players]),
                "options": config.options.model_dump(mode="json"),
            })  # fmt: skip
        return web.json_response({"variants": out})

    async def list_tables(self, request: web.Request) -> web.Response:
        return web.json_response({"tables": self.server.listing()})

    async def create(self, request: web.Request) -> web.Response:
        setup = check_setup(await _body(request))
        if self.server.playing() >= self.server.max_tables:
            raise TableError(503, f"this server plays at most {self.server.max_tables} tables at once: try later")
        created = new_table(setup, self.server.data)
        table = created.table
        await check_model_seats(table.players)
        self.server.add(table)
        base = f"/tables/{table.id}"
        seats = {name: {"token": token, "url": f"{base}/seat#{token}"} for name, token in created.tokens.items()}
        persons = sum(1 for s in table.seats.values() if s.spec == PERSON)
        log.info("table %s: %s, %d seats, %d person(s)", table.id, table.variant, len(table.seats), persons)
        return web.json_response({"table": table.id, "seats": seats, "watch": f"{base}/watch"}, status=201)

    async def table_summary(self, request: web.Request) -> web.Response:
        return web.json_response(self.table(request).summary())

    async def seat(self, request: web.Request) -> web.Response:
        table = self.table(request)
        name = self.seat_of(table, request)
        state = await _long_poll(request, table, lambda after: table.seat_state(name, after))
        return web.json_response(state)

    async def answer(self, request: web.Request) -> web.Response:
        table = self.table(request)
        name = self.seat_of(table, request)
        body = await _body(request)
        table.answer(name, body)
        return web.json_response({"ok": True})

    async def seat_socket(self, request: web.Request) -> web.StreamResponse:
        """The seat's states pushed over a WebSocket, one per change (answers still go by POST)."""
        table = self.table(request)
        name = self.seat_of(table, request)
        return await self._push(request, table, lambda after: table.seat_state(name, after))

    async def watch_socket(self, request: web.Request) -> web.StreamResponse:
        table = self.table(request)
        live_views = self.server.live_views
        return await self._push(request, table, lambda after: table.watch_state(after, live_views))

    async def _push(self, request: web.Request, table: Any, state_of: Any) -> web.StreamResponse:
        """Send the state objects the long poll returns, one whenever the table changes, until the
        game is over or the client leaves. A browser's ``Origin`` must be this server's own."""
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != request.host:
            raise TableError(403, "a socket from another site's page is refused")
        after = _int(request, "after", 0)
        socket = web.WebSocketResponse(heartbeat=30, max_msg_size=1024)
        await socket.prepare(request)
        closing = asyncio.ensure_future(socket.receive())  # the client closing (nothing else is read)
        sent = None  # the reader's version last sent: a change it may not see sends nothing
        try:
            while not socket.closed and not closing.done():
                changes = table.waiters.version
                state = state_of(after)
                if state["events"] or state["version"] != sent or state["over"]:
                    after += len(state["events"])
                    sent = state["version"]
                    await socket.send_json(state)
                    if state["over"]:
                        break
                waiting = asyncio.ensure_future(table.waiters.wait(changes, MAX_WAIT))
                await asyncio.wait({waiting, closing}, return_when=asyncio.FIRST_COMPLETED)
                waiting.cancel()
        finally:
            closing.cancel()
            await socket.close()
        return socket

    async def watch(self, request: web.Request) -> web.Response:
        table = self.table(request)
        live_views = self.server.live_views
        state = await _long_poll(request, table, lambda after: table.watch_state(after, live_views))
        return web.json_response(state)
