"""What the server refuses before a handler runs: a foreign ``Host``, a foreign ``Origin``, a body
nested too deeply, and every error as one JSON shape (docs/serve.md, "Safety").

A page on another site can make a browser talk to a server on 127.0.0.1 by pointing its own name at
127.0.0.1 (DNS rebinding); the browser then sends that site's name as ``Host`` and its own origin as
``Origin``. So the server answers only to the address it was reached at (the connection's own
address, ``localhost`` on loopback) and the ``--public-url`` it was given, and takes a
state-changing request (any POST, a WebSocket) only from a page of one of those origins or from a
client that sends no ``Origin`` (not a browser).
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from arena.serve.tables import TableError

log = logging.getLogger("arena.serve")

MAX_DEPTH = 32  # arrays and objects inside one another in a request body
FOREIGN_HOST = "this server answers only to its own address (behind a proxy, start it with --public-url)"
FOREIGN_ORIGIN = "a request from another site's page is refused"
#: aiohttp's own refusals (no route, wrong method, …) as a plain sentence each
PLAIN = {
    400: "bad request",
    404: "no such page",
    405: "that method is not allowed here",
    413: "the body is too large",
    414: "the address is too long",
    431: "the request's headers are too large",
}


def error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def check_public_url(url: str) -> str:
    """``--public-url`` as ``scheme://host[:port]``, or a ValueError saying what is wrong."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"--public-url {url!r}: give the address people open, e.g. https://mafia.example.org")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"--public-url {url!r}: the server is served at the root of its address (no path)")
    return f"{parts.scheme}://{parts.netloc.lower()}"


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def own_hosts(request: web.Request, public: Iterable[str]) -> set[str]:
    """The ``Host`` values this request may carry: the address its connection reached (and
    ``localhost`` when that is loopback), with and without the default port, and the public URLs'."""
    out = {urlsplit(url).netloc for url in public}
    sockname = request.transport.get_extra_info("sockname") if request.transport is not None else None
    if isinstance(sockname, tuple) and len(sockname) >= 2:
        host, port = str(sockname[0]).removeprefix("::ffff:"), int(sockname[1])
        names = [host]
        try:
            if ipaddress.ip_address(host).is_loopback:
                names += ["localhost", "127.0.0.1", "::1"]
        except ValueError:
            pass
        for name in names:
            out.add(_netloc(name, port))
            if port == 80:
                out.add(f"[{name}]" if ":" in name else name)
    return {h.lower() for h in out}


def allowed_origin(origin: str, host: str, public: Iterable[str]) -> bool:
    """A browser page's ``Origin`` is this server's own: the request's (checked) host, or a public URL."""
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https"):
        return False  # "null" (a sandboxed frame, a file), or anything else
    return origin.lower().rstrip("/") in {u.lower() for u in public} or parts.netloc.lower() == host.lower()


def depth_ok(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` (parsed JSON) nests arrays and objects at most ``limit`` deep (no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Iterable[Any] = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return False
        stack.extend((child, depth + 1) for child in children)
    return True


def make_guard(public: list[str]) -> Any:
    """The middleware: Host and Origin checked, then every refusal as ``{"error": one line}``."""

    @web.middleware
    async def guard(request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            host = request.headers.get("Host", "")
            if host.lower() not in own_hosts(request, public):
                raise TableError(421, FOREIGN_HOST)
            origin = request.headers.get("Origin")
            changes = (
                request.method not in ("GET", "HEAD", "OPTIONS") or request.headers.get("Upgrade", "").lower() == "websocket"
            )
            if changes and origin is not None and not allowed_origin(origin, host, public):
                raise TableError(403, FOREIGN_ORIGIN)
            response = await handler(request)
            if isinstance(response, web.FileResponse) and not Path(response._path).is_file():
                return error(404, PLAIN[404])  # a missing static file: aiohttp answers its 404 only as it sends
            return response
        except TableError as exc:
            return error(exc.status, str(exc))
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            return error(exc.status, PLAIN.get(exc.status, exc.reason.lower() if exc.reason else "refused"))
        except RecursionError:
            return error(400, "the body is nested too deeply")

    return guard
