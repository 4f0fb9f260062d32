"""Record a game's model calls to a vcrpy cassette, and replay a game from one with no network.

``arena play … --record-calls FILE.yaml`` records every HTTP exchange of the game's model seats
(OpenAI- and Anthropic-style alike: both SDKs speak through httpx, which vcrpy patches);
``--replay-calls FILE.yaml`` with the same command and seed answers every request from the file.

**Matching.** vcrpy hands a request the first not-yet-played recorded interaction that matches on
every matcher. We match on method, scheme, host, port, path, query *and the JSON body*. The body
holds the seat's whole conversation (its system prompt names the seat) and the decision's
schema, so a request can only match its own recording: simultaneous decisions, whose requests
reach the transport in any order, each find their own answer whatever the order. Two identical
requests (a retry after a 503 or a timeout) are played in the order they were recorded. The game
itself does not depend on arrival order either (the engine resolves a batch in request order).

**What is kept out.** Request headers that carry credentials (``authorization``, ``x-api-key``,
``api-key``, organisation and project ids, cookies) are filtered before anything is written;
response headers likewise, and every response body goes through
:func:`arena.players.redact.redact` (an OpenAI-style 401 quotes the key it refused). A key in the
query string (``?api-key=``, ``?key=``) is filtered too.

**A request the cassette does not hold** (another seed, an edited prompt, a changed option) makes
vcrpy raise inside the HTTP client; the seat turns that into one line naming itself and the
decision (:class:`~arena.players.llm.transport.ReplayMismatch`) and the game stops.

vcrpy patches the HTTP library process-wide, so one cassette is open at a time: a tournament
recording or replaying calls plays its games one after another.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from arena.players.redact import redact

SECRET_HEADERS = (
    "authorization", "x-api-key", "api-key", "openai-organization", "openai-project", "anthropic-organization-id",
    "cookie", "set-cookie", "proxy-authorization",
)  # fmt: skip
SECRET_QUERY = ("api-key", "api_key", "key")
MATCH_ON = ("method", "scheme", "host", "port", "path", "query", "raw_body")
Mode = Literal["record", "replay"]


def _clean_response(response: dict[str, Any]) -> dict[str, Any]:
    """A response as it may be written: no credential headers, no key in the body."""
    headers = {name: value for name, value in response.get("headers", {}).items() if name.lower() not in SECRET_HEADERS}
    body = response.get("body", {}).get("string")
    if isinstance(body, bytes):
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None:
            clean = redact(text).encode("utf-8")
            if clean != body:
                body = clean
                for name in list(headers):
                    if name.lower() == "content-length":
                        headers[name] = [str(len(body))]
    elif isinstance(body, str):
        body = redact(body)
    return {**response, "headers": headers, "body": {**response.get("body", {}), "string": body}}


def _vcr(mode: Mode) -> Any:
    import vcr

    return vcr.VCR(
        record_mode="all" if mode == "record" else "none",
        match_on=MATCH_ON,
        filter_headers=list(SECRET_HEADERS),
        filter_query_parameters=list(SECRET_QUERY),
        before_record_response=_clean_response,
        decode_compressed_response=True,  # a readable cassette, and a body redact can read
        drop_unused_requests=True,  # recording over an old file keeps nothing of it
    )


@contextlib.contextmanager
def calls_cassette(path: Path, mode: Mode) -> Iterator[Any]:
    """Record (``"record"``) or replay (``"replay"``) every model HTTP exchange inside the block.

    Recording overwrites ``path`` when the block ends (a stopped game's cassette is written too).
    """
    if mode == "replay" and not path.is_file():
        raise FileNotFoundError(f"{path}: no such cassette")
    with _vcr(mode).use_cassette(str(path)) as cassette:
        yield cassette


def missing_vcrpy() -> str | None:
    """Why calls cannot be recorded here (vcrpy not installed), or None."""
    import importlib.util

    if importlib.util.find_spec("vcr") is None:
        return "recording and replaying calls needs vcrpy: pip install -e '.[dev]' (or pip install vcrpy)"
    return None


def stamp(cassette: Any, game: dict[str, Any]) -> None:
    """Write what is played (variant, seed, seats, options) into a cassette being recorded, so
    that a replay of another game is one line before it starts (:func:`arena.calls.recorded_game`)."""
    cassette.get_metadata("arena_game", game)
