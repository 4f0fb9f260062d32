"""The HTTP API of ``arena serve`` (docs/serve.md): tables, a seat's long poll and answers, the watch.

Every error is ``{"error": one line}`` with its status: 400 bad input, 403 a page of another site,
404 no such table or seat (a wrong token and a wrong table get the same answer), 409 a decision no
longer open, 413 a body too large, 415 not JSON, 421 a foreign Host, 422 an answer the engine
refuses (its reason), 429 too many answers, 503 too many tables.

A seat's token travels in the ``X-Seat-Token`` header, never in an address: browser history and a
proxy's access log keep addresses.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import re
import time
from typing import Any

from aiohttp import web

from arena.serve.guard import depth_ok
from arena.serve.setup import check_setup
from arena.serve.tables import PERSON, ArchivedTable, Table, TableError, check_model_seats, new_table, token_hash

log = logging.getLogger("arena.serve")

MAX_WAIT = 30.0  # longest long poll, seconds
ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TOKEN_HEADER = "X-Seat-Token"
OWNER_HEADER = "X-Owner-Token"
NO_SEAT = "no such table or seat"  # the one answer for a wrong table, a wrong token and no token
KEY = re.compile(r"^[A-Za-z0-9_.:-]{8,100}$")  # an Idempotency-Key
KEEP_KEYS = 600.0  # seconds a table's creation answers a repeat of its Idempotency-Key
SOCKET_HELLO = 10.0  # seconds a socket without the token header has to send it


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
        body = json.loads(raw or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise TableError(400, "the body must be JSON") from None
    except RecursionError:
        raise TableError(400, "the body is nested too deeply") from None
    if not depth_ok(body):
        raise TableError(400, "the body is nested too deeply")
    return body


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
            web.get("/api/tables/{table}/seat", self.seat),
            web.post("/api/tables/{table}/seat/answer", self.answer),
            web.get("/api/tables/{table}/watch", self.watch),
            web.get("/api/tables/{table}/seat/socket", self.seat_socket),
            web.post("/api/tables/{table}/start", self.start),
            web.get("/api/tables/{table}/watch/socket", self.watch_socket),
        ]

    def table(self, request: web.Request) -> Table | ArchivedTable:
        table_id = request.match_info["table"]
        table = self.server.find(table_id) if ID.match(table_id) else None
        if table is None:
            raise TableError(404, "no such table")
        return table

    def seat_of(self, request: web.Request, token: str | None = None) -> tuple[Table | ArchivedTable, str]:
        """The table and seat of the request's token (its header, or ``token``): one answer for
        every way of getting it wrong, so a wrong token cannot be told from a wrong table."""
        token = request.headers.get(TOKEN_HEADER) if token is None else token
        table_id = request.match_info["table"]
        table = self.server.find(table_id) if ID.match(table_id) and token else None
        if table is not None and token:
            for seat in table.seats.values():
                if seat.accepts(token):
                    return table, seat.name
        raise TableError(404, NO_SEAT)

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
        """A new table; a repeat of the same ``Idempotency-Key`` (a double click, a retried request)
        gets the first request's answer, the same table, instead of a second one."""
        key = request.headers.get("Idempotency-Key")
        if key is None:
            status, answer = await self._create(request)
            return web.json_response(answer, status=status)
        if not KEY.match(key):
            raise TableError(400, "Idempotency-Key must be 8-100 letters, digits or -_.:")
        now = time.monotonic()
        made = self.server.created
        for old in [k for k, (stamp, _) in made.items() if now - stamp > KEEP_KEYS]:
            del made[old]
        if key in made:
            status, answer = await asyncio.shield(made[key][1])
            return web.json_response(answer, status=status)
        future: asyncio.Future[tuple[int, dict]] = asyncio.get_running_loop().create_future()
        made[key] = (now, future)
        try:
            status, answer = await self._create(request)
        except TableError as exc:
            del made[key]  # a refused request may be sent again, corrected
            future.set_result((exc.status, {"error": str(exc)}))
            raise
        except BaseException:
            del made[key]
            future.set_result((500, {"error": "the table was not made: try again"}))
            raise
        future.set_result((status, answer))
        return web.json_response(answer, status=status)

    async def _create(self, request: web.Request) -> tuple[int, dict[str, Any]]:
        setup = check_setup(await _body(request))
        if self.server.playing() >= self.server.max_tables:
            raise TableError(503, f"this server plays at most {self.server.max_tables} tables at once: try later")
        created = new_table(setup, self.server.data, self.server.night_seconds)
        table = created.table
        await check_model_seats(table.players)
        self.server.add(table)
        base = f"/tables/{table.id}"
        seats = {name: {"token": token, "url": f"{base}/seat#{token}"} for name, token in created.tokens.items()}
        persons = sum(1 for s in table.seats.values() if s.spec == PERSON)
        log.info("table %s: %s, %d seats, %d person(s)", table.id, table.variant, len(table.seats), persons)
        answer: dict[str, Any] = {"table": table.id, "seats": seats, "watch": f"{base}/watch"}
        if created.owner is not None:  # POST /api/tables/ID/start with it: start before every person came
            answer["owner"] = created.owner
        return 201, answer

    async def table_summary(self, request: web.Request) -> web.Response:
        return web.json_response(self.table(request).summary())

    async def seat(self, request: web.Request) -> web.Response:
        table, name = self.seat_of(request)
        if isinstance(table, Table):
            table.opened(name)
        state = await _long_poll(request, table, lambda after: table.seat_state(name, after))
        return web.json_response(state)

    async def start(self, request: web.Request) -> web.Response:
        """Whoever made a table with person seats starts it before they all opened their pages
        (header ``X-Owner-Token``, the ``owner`` the creation answered)."""
        table = self.table(request)
        token = request.headers.get(OWNER_HEADER) or ""
        owner = getattr(table, "owner_sha256", None)
        if not token or owner is None or not hmac.compare_digest(owner, token_hash(token)):
            raise TableError(404, "no such table or owner")
        if isinstance(table, Table) and table.gate is not None:
            table.gate.release("pressed")
        return web.json_response({"ok": True, "state": table.state})

    async def answer(self, request: web.Request) -> web.Response:
        table, name = self.seat_of(request)
        body = await _body(request)
        table.answer(name, body)
        return web.json_response({"ok": True})

    async def seat_socket(self, request: web.Request) -> web.StreamResponse:
        """The seat's states pushed over a WebSocket, one per change (answers still go by POST).
        The token comes in the header, or (a browser's WebSocket sends no header of its own) as the
        first message, ``{"token": …}``."""
        if request.headers.get(TOKEN_HEADER) is not None:
            table, name = self.seat_of(request)
            if isinstance(table, Table):
                table.opened(name)
            return await self._push(request, table, lambda after: table.seat_state(name, after))
        socket = web.WebSocketResponse(heartbeat=30, max_msg_size=1024)
        await socket.prepare(request)
        try:
            hello = await socket.receive_json(timeout=SOCKET_HELLO)
            token = hello.get("token") if isinstance(hello, dict) else None
            table, name = self.seat_of(request, token if isinstance(token, str) else "")
        except (TableError, TypeError, ValueError, TimeoutError):
            await socket.send_json({"error": NO_SEAT})
            await socket.close()
            return socket
        if isinstance(table, Table):
            table.opened(name)
        return await self._push(request, table, lambda after: table.seat_state(name, after), socket)

    async def watch_socket(self, request: web.Request) -> web.StreamResponse:
        table = self.table(request)
        live_views = self.server.live_views
        return await self._push(request, table, lambda after: table.watch_state(after, live_views))

    async def _push(self, request: web.Request, table: Any, state_of: Any, socket: Any = None) -> web.StreamResponse:
        """Send the state objects the long poll returns, one whenever the table changes, until the
        game is over or the client leaves (a browser's ``Origin`` is checked by the guard)."""
        after = _int(request, "after", 0)
        if socket is None:
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
