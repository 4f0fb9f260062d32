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
from collections.abc import Iterator, Mapping
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


STAMP = "arena_game"


def game_stamp(game: Any, specs: Mapping[str, str]) -> dict[str, Any]:
    """What a cassette records about its game (variant, seed, seats, options), to check a replay against."""
    return {
        "variant": game.name,
        "seed": game.seed,
        "seats": {seat: specs.get(seat, "?") for seat in game.seats},
        "options": game.options.model_dump(mode="json"),
    }


def stamp(cassette: Any, game: dict[str, Any]) -> None:
    """Write :func:`game_stamp` into a cassette being recorded, so that a replay of another game
    is one line before it starts instead of a miss at its first differing request."""
    cassette.get_metadata(STAMP, game)


def read_stamp(path: Path) -> dict[str, Any] | None:
    """The stamp of a recorded cassette (None: it has none); ValueError for a file that is no cassette."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: a game's cassette is megabytes
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ValueError(f"{path}: not a readable cassette ({getattr(exc, 'strerror', None) or type(exc).__name__})") from None
    if not isinstance(data, dict) or "interactions" not in data:
        raise ValueError(f"{path}: not a vcrpy cassette (no interactions)")
    found = (data.get("metadata") or {}).get(STAMP)
    return found if isinstance(found, dict) else None


def stamp_mismatch(path: Path, recorded: Mapping[str, Any] | None, here: Mapping[str, Any]) -> str | None:
    """Why a cassette cannot replay this game (another variant, seed, table or options), or None."""
    if not recorded:
        return None
    diffs = [f"{key} {recorded.get(key)!r}" for key in here if recorded.get(key) != here[key]]
    return f"{path} records another game: {'; '.join(diffs)}" if diffs else None
