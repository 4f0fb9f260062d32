"""``arena serve``: the tables of a data folder, played live and shared over HTTP (docs/serve.md).

The server is one aiohttp application on one event loop: the pages (plain HTML, CSS and a little
JavaScript from ``arena/serve/static``, nothing from elsewhere), the API (:mod:`arena.serve.api`)
and every table's game (:mod:`arena.serve.tables`). On start it reads the data folder: finished
tables are served from their transcripts, unfinished ones are resumed where they stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from arena.serve.api import ID, NO_SEAT, Api
from arena.serve.guard import check_public_url, make_guard
from arena.serve.tables import ANSWER_RATE, DEFAULT_NIGHT_SECONDS, ArchivedTable, Table, TableError

log = logging.getLogger("arena.serve")

STATIC = Path(__file__).resolve().parent / "static"
PAGES = {"lobby": "lobby.html", "seat": "seat.html", "watch": "watch.html"}
MAX_BODY = 64 * 1024
# the pages load only what this server serves; no inline script, no other origin, no framing
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# the reports are self-contained pages with their own inline style and script, and nothing else
REPORT_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'"


class Server:
    """Every table of the data folder: live ones in memory, the rest read from their files."""

    def __init__(
        self,
        data: Path,
        *,
        live_views: bool = False,
        keep: float = 600.0,
        max_tables: int = 200,
        answer_rate: tuple[float, float] = ANSWER_RATE,
        public_url: str | None = None,
        night_seconds: float = DEFAULT_NIGHT_SECONDS,
    ) -> None:
        self.data = Path(data)
        self.public = [check_public_url(public_url)] if public_url else []  # scheme://host[:port]
        self.created: dict[str, tuple[float, asyncio.Future[Any]]] = {}  # Idempotency-Key -> (when, its answer)
        self.answer_rate = answer_rate
        self.night_seconds = night_seconds  # how long a night lasts at least at a table with a person
        self.live_views = live_views
        self.keep = keep
        self.max_tables = max_tables
        self.tables: dict[str, Table | ArchivedTable] = {}
        self._sweeper: asyncio.Task[None] | None = None

    # ---- the tables ------------------------------------------------------------------------------
    def add(self, table: Table) -> None:
        table.answer_rate = self.answer_rate
        table.save()
        table.start()
        self.tables[table.id] = table

    def find(self, table_id: str) -> Table | ArchivedTable | None:
        table = self.tables.get(table_id)
        if table is None:
            record = self._record(table_id)
            if record is not None:
                table = self.tables[table_id] = ArchivedTable(record, self.data)
        return table

    def _record(self, table_id: str) -> dict[str, Any] | None:
        path = self.data / "tables" / f"{table_id}.json"
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return None

    def playing(self) -> int:
        return sum(1 for t in self.tables.values() if isinstance(t, Table) and not t.over)

    def listing(self) -> list[dict[str, Any]]:
        """Every table of the data folder, newest first (live ones from memory)."""
        seen = dict(self.tables)
        for path in sorted((self.data / "tables").glob("*.json")):
            table_id = path.stem
            if table_id not in seen and ID.match(table_id):
                record = self._record(table_id)
                if record is not None:
                    seen[table_id] = ArchivedTable(record, self.data)
        out = [table.summary() for table in seen.values()]
        return sorted(out, key=lambda s: -s.get("created", 0))

    def sweep(self) -> None:
        """Finished tables leave memory after ``keep`` seconds: their transcript serves them from then on
        (an archived table is dropped at the next sweep and read again when it is asked for)."""
        now = time.monotonic()
        for table_id, table in list(self.tables.items()):
            if isinstance(table, Table) and table.finished_at is not None and now - table.finished_at >= self.keep:
                record = self._record(table_id)
                if record is not None:
                    self.tables[table_id] = ArchivedTable(record, self.data)
                    table.changed()  # any poll still waiting on it returns now
            elif isinstance(table, ArchivedTable):
                del self.tables[table_id]  # read from its files again when asked for

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(max(1.0, min(60.0, self.keep / 2)))
            self.sweep()

    # ---- start and stop ---------------------------------------------------------------------------
    async def on_startup(self, app: web.Application) -> None:
        (self.data / "tables").mkdir(parents=True, exist_ok=True)
        (self.data / "transcripts").mkdir(parents=True, exist_ok=True)
        self.resume_all()
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever())

    def resume_all(self) -> None:
        """Unfinished tables go on where they stopped (their links keep working)."""
        from arena.serve.resume import unfinished

        for record in unfinished(self.data):
            table_id = str(record["id"])
            try:
                table = self._resume(record)
            except TableError as exc:
                log.warning("table %s cannot be resumed: %s", table_id, exc)
                continue
            table.answer_rate = self.answer_rate
            self.tables[table_id] = table
            for note in table.resumed:
                log.info("table %s: %s", table_id, note.replace(str(self.data), "DATA"))

    def _resume(self, record: dict[str, Any]) -> Table:
        from arena.serve.resume import resume_table

        return resume_table(record, self.data)

    async def on_shutdown(self, app: web.Application) -> None:
        """Stop every game without ending it: its transcript stays unfinished, to be resumed."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        for table in self.tables.values():  # each person keeps the time they had left, to the moment
            if isinstance(table, Table) and not table.over:
                table.save_clocks(stopped=True)
        tasks = [t.task for t in self.tables.values() if isinstance(t, Table) and t.task is not None and not t.task.done()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for table in self.tables.values():
            if isinstance(table, Table):
                table.changed()  # a poll still waiting answers now
        if "arena.players.llm" in sys.modules:  # the model seats' pooled HTTP clients, shared by every table
            from arena.players.llm import close_clients

            await close_clients()


def _page(name: str) -> Any:
    async def handler(request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / PAGES[name], headers={"Cache-Control": "no-store"})

    return handler


async def report(request: web.Request) -> web.StreamResponse:
    """The game's report (every view), once it is over. A seat's own page is ``POST``ed for, with
    the token in the form's body (``token``), so that no address ever carries it."""
    server = request.app[SERVER]
    table_id = request.match_info["table"]
    viewer = None
    if request.method == "POST":
        form = await request.post()
        token = form.get("token")
        table = server.find(table_id) if ID.match(table_id) and isinstance(token, str) and token else None
        if table is not None:
            viewer = next((s.name for s in table.seats.values() if s.accepts(str(token))), None)
        if viewer is None:
            raise TableError(404, NO_SEAT)
    else:
        if "as" in request.query:
            raise TableError(400, "a seat's own page is asked with its token in a form (POST), never in the address")
        table = server.find(table_id) if ID.match(table_id) else None
        if table is None:
            raise TableError(404, "no such table")
    assert table is not None
    if not table.over:
        raise TableError(409, "the report is written when the game is over")
    out = server.data / "reports" / (f"{table.id}.{viewer}.html" if viewer else f"{table.id}.html")
    if not out.exists():
        from arena.report import ReportError
        from arena.report import report as write_report

        out.parent.mkdir(parents=True, exist_ok=True)
        try:
            await asyncio.to_thread(write_report, table.transcript, out, viewer)
        except ReportError as exc:
            raise TableError(500, str(exc)) from None
    headers = {"Content-Security-Policy": REPORT_CSP, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
    return web.FileResponse(out, headers=headers)


async def no_icon(request: web.Request) -> web.Response:
    return web.Response(status=204)


@web.middleware
async def security_headers(request: web.Request, handler: Any) -> web.StreamResponse:
    response = await handler(request)
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    # same-origin: a page's own form posts (the seat's report) carry its Origin, which a
    # no-referrer policy turns into "null"; no other site ever gets a Referer, and a Referer never
    # holds the #fragment (a seat's token)
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "DENY")
    return response


SERVER = web.AppKey("server", Server)


def make_app(data: Path, **settings: Any) -> web.Application:
    """The application: pages, static files, the API and the tables of ``data`` (``settings``: :class:`Server`'s)."""
    server = Server(data, **settings)
    app = web.Application(client_max_size=MAX_BODY, middlewares=[security_headers, make_guard(server.public)])
    app[SERVER] = server
    app.add_routes(Api(server).routes())
    app.add_routes([
        web.get("/", _page("lobby")),
        web.get("/tables/{table}/seat", _page("seat")),
        web.get("/tables/{table}/watch", _page("watch")),
        web.get("/tables/{table}/report", report),
        web.post("/tables/{table}/report", report),
        web.get("/favicon.ico", no_icon),
        web.static("/static", STATIC, append_version=False),
    ])  # fmt: skip
    app.on_startup.append(server.on_startup)
    app.on_shutdown.append(server.on_shutdown)
    return app


def is_loopback(host: str) -> bool:
    return host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")


def serve(
    host: str,
    port: int,
    data: Path,
    *,
    live_views: bool = False,
    keep: float = 600.0,
    quiet: bool = False,
    public_url: str | None = None,
    night_seconds: float = DEFAULT_NIGHT_SECONDS,
) -> None:
    """Run the server until Ctrl-C (or SIGTERM); unfinished games are resumed on the next start."""
    # the arena's own lines (tables, retries) at INFO; the libraries' only from WARNING on: an HTTP
    # client logs a line per model request at INFO
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(message)s")
    logging.getLogger("arena").setLevel(logging.WARNING if quiet else logging.INFO)
    app = make_app(data, live_views=live_views, keep=keep, public_url=public_url, night_seconds=night_seconds)
    # no access log: no address carries a token (they go in a header or a form), but what a
    # person's browser asked for when is theirs
    web.run_app(app, host=host, port=port, access_log=None, print=None if quiet else _print_start(host, port), shutdown_timeout=5)


def _print_start(host: str, port: int) -> Any:
    def say(_: str) -> None:
        shown = f"[{host}]" if ":" in host else host
        print(f"arena serve: http://{shown}:{port}/ (Ctrl-C stops; unfinished games resume on the next start)", flush=True)

    return say
