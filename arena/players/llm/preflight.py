"""Before the first decision: can every model seat play? One cheap request per endpoint, in parallel.

A seat whose endpoint is unreachable, refuses its key (401/403) or does not know its model would
otherwise play a whole game of forfeits. :func:`preflight` checks each distinct (provider, endpoint,
model, key) once, all at the same time, each request within the profile's ``check_timeout`` (3 s
by default), and returns one :class:`Problem` per failing check — the caller stops before any game
starts (``arena play``: one line, exit code 2, no transcript).

What is asked (nothing is generated, nothing is billed, except the last resort below):

- the provider's own API (no ``@URL``): ``GET /models/{model}`` (OpenAI and Anthropic both
  answer 404 for a model the key cannot use, 401/403 for a bad key);
- a server of your own (``@URL``): ``GET /models``. A model in the list passes. A server without
  the route, or whose list does not name the model (llama.cpp's server answers any model name;
  Ollama lists ``llama3.1:latest`` for ``llama3.1``), gets one request of one output token, and
  only a 404 (or a 400 about the model) to that fails the seat (a timeout does not: the server
  answered its list, and a server loading a model may take a while to answer).

Then a seat on a server of its own is asked one real decision per candidate structured mode, to
pick the mode that server takes (:mod:`arena.players.llm.modes`); a forced mode (``?structured=``)
that the server refuses fails the check with the server's reason.

A 429 or 5xx is not a verdict: the endpoint answered, and the game's retry policy and breaker deal
with a busy provider. ``local`` seats are not checked here (a missing model file is already one
line when the seat is made). Every text taken from a provider goes through
:func:`arena.players.redact.redact`.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.players.redact import redact

from .modes import remember
from .profiles import Profile
from .providers import backend_for
from .transport import endpoint_label

log = logging.getLogger("arena.players.llm")
UNREACHABLE = ("APIConnectionError", "ConnectError", "ConnectTimeout", "OSError")
TIMEOUTS = ("APITimeoutError", "TimeoutException", "TimeoutError")


@dataclass(slots=True)
class Problem:
    """A check that failed, and every seat it concerns."""

    seats: list[str]
    spec: str
    cause: str

    def line(self, what: str = "seat") -> str:
        """``seat Ann (openai:m@http://…): cannot reach …; also seats Bob, Cid`` — one line."""
        text = f"{what} {self.seats[0]} ({self.spec}): {self.cause}"
        if len(self.seats) > 1:
            text += f" (also {what}s {', '.join(self.seats[1:])})"
        return text


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _message(exc: BaseException) -> str:
    """The provider's own words for an error (its JSON ``message`` when it sent one), keys removed."""
    body = getattr(exc, "body", None)
    text = None
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        text = inner.get("message") if isinstance(inner, dict) else None
    if not text:
        text = getattr(exc, "message", None) or str(exc)
    lines = redact(str(text)).strip().splitlines()
    first = lines[0] if lines else type(exc).__name__
    return first if len(first) <= 160 else first[:157] + "..."


def _root(exc: BaseException) -> str:
    """Why a connection failed, from the innermost exception (``[Errno 111] Connection refused``)."""
    node, seen = exc, set()
    while (node.__cause__ or node.__context__) is not None and id(node) not in seen:
        seen.add(id(node))
        node = node.__cause__ or node.__context__  # type: ignore[assignment]
    text = redact(str(node)).strip().splitlines()
    return text[0] if text and text[0] else type(node).__name__


def describe(exc: BaseException, profile: Profile) -> str | None:
    """The cause in words, or None when the error is no verdict on the seat (429, 5xx)."""
    label = endpoint_label(profile)
    names = _names(exc)
    status = getattr(exc, "status_code", None)
    if names & set(TIMEOUTS):
        return f"no answer from {label} within {profile.check_timeout:g} s"
    if names & set(UNREACHABLE) and not isinstance(status, int):
        return f"cannot reach {label} ({_root(exc)})"
    if not isinstance(status, int):
        return f"{label}: {type(exc).__name__}: {_message(exc)}"
    key = f"the key in {profile.api_key_env}" if profile.api_key_env else "no key (add ?api_key_env=VAR to the spec)"
    if status == 401:
        return f"{label} refused {key} (401: {_message(exc)})"
    if status == 403:
        return f"{label} refused {profile.model!r} with {key} (403: {_message(exc)})"
    if status == 404:
        return f"unknown model {profile.model!r} at {label} (404: {_message(exc)})"
    if status in (408, 409, 429) or status >= 500:
        log.warning(
            "check of %s: %s answered %d (%s); the game's retries will deal with it", profile.model, label, status, _message(exc)
        )
        return None
    return f"{label} answered {status}: {_message(exc)}"


def _listed(model: str, ids: list[str]) -> bool:
    """Whether a server's model list names ``model`` (``:latest`` tags and file paths allowed)."""
    wanted = model.lower()
    names = (i.lower() for i in ids)
    return any(wanted in (name, name.removesuffix(":latest"), name.rsplit("/", 1)[-1]) for name in names)


async def _probe(client: Any, profile: Profile) -> None:
    """The smallest real request: one output token."""
    ping = [{"role": "user", "content": "ping"}]
    if profile.provider == "anthropic":
        await client.messages.create(model=profile.model, max_tokens=1, messages=ping)
    else:
        await client.chat.completions.create(model=profile.model, max_tokens=1, messages=ping)


async def _ask(client: Any, profile: Profile) -> str | None:
    if profile.base_url is None:  # the provider's own API: the model's page
        try:
            await client.models.retrieve(profile.model)
        except Exception as exc:
            return describe(exc, profile)
        return None
    try:
        page = await client.models.list()
        ids: list[str] | None = [str(getattr(m, "id", "")) for m in getattr(page, "data", None) or []]
    except Exception as exc:
        if getattr(exc, "status_code", None) not in (404, 405, 501):
            return describe(exc, profile)
        ids = None  # no model list on this server: the probe decides
    if ids and _listed(profile.model, ids):
        return None
    try:
        await _probe(client, profile)
    except Exception as exc:
        if ids is not None and _names(exc) & set(TIMEOUTS):
            # the server answered its model list: a slow first answer is a model loading, not a fault
            log.warning("check of %s: no answer within %g s; going on", profile.model, profile.check_timeout)
            return None
        status = getattr(exc, "status_code", None)
        if status == 400 and "model" not in _message(exc).lower():
            return None  # refused for another reason (the tiny request itself): the model is known
        cause = describe(exc, profile)
        if cause is not None and status in (400, 404) and ids:
            cause += f"; it serves {', '.join(sorted(ids)[:5])}" + (" …" if len(ids) > 5 else "")
        return cause
    return None


def _client(profile: Profile, key: str | None) -> tuple[Profile, Any]:
    """The check's own client (the game's pool belongs to the game's loop), timed by ``check_timeout``."""
    quick = profile.model_copy(update={"timeout": profile.check_timeout})
    return quick, backend_for(quick).make_client(key)


async def _timed(profile: Profile, client: Any) -> str | None:
    try:
        return await asyncio.wait_for(_ask(client, profile), profile.check_timeout * 2 + 0.5)
    except TimeoutError:
        return f"no answer from {endpoint_label(profile)} within {profile.check_timeout:g} s"


async def check(profile: Profile, key: str | None) -> str | None:
    """One endpoint, model and key: None if it can play, else the cause in words."""
    quick, client = _client(profile, key)
    try:
        return await _timed(quick, client)
    finally:
        await client.close()


async def preflight(players: Mapping[str, Any], probes: list[Any] | None = None, *, pooled: bool = False) -> list[Problem]:
    """Check every model seat of ``players`` (seat -> player) in parallel; the problems found.

    A seat on a server of its own (``@URL``) that passes is then asked one real decision per
    candidate mode (:mod:`arena.players.llm.modes`), once per endpoint and model: every seat of the
    group plays in the mode found. ``probes`` receives each :class:`~arena.players.llm.modes.Probe`
    (for the caller's one line per endpoint). ``pooled``: the loop's pooled HTTP clients serve games
    already running (``arena serve``), so the probes leave them open.
    """
    groups: dict[tuple[str, ...], list[str]] = {}
    subjects: dict[tuple[str, ...], Any] = {}
    for seat, player in players.items():
        profile = getattr(player, "profile", None)
        if not isinstance(profile, Profile) or profile.provider == "local":
            continue
        key = getattr(player, "_key", None)
        ident = (profile.provider, profile.base_url or "", profile.model, hashlib.sha256((key or "").encode()).hexdigest())
        groups.setdefault(ident, []).append(seat)
        subjects.setdefault(ident, player)
    idents = list(groups)
    # Every client first: making one imports its SDK (seconds, blocking the loop), which must not
    # eat into another check's time.
    clients = {i: _client(subjects[i].profile, getattr(subjects[i], "_key", None)) for i in idents}
    try:
        causes = await asyncio.gather(*(_timed(*clients[i]) for i in idents))
    finally:
        for _, client in clients.values():
            await client.close()
    problems = [
        Problem(groups[i], getattr(subjects[i], "spec", subjects[i].profile.name), cause)
        for i, cause in zip(idents, causes, strict=True)
        if cause is not None
    ]
    if problems:
        return problems
    modes: dict[tuple[str, ...], list[str]] = {}  # (endpoint, model, key, mode set or "") -> seats
    for ident in idents:
        for seat in groups[ident]:
            player = players[seat]
            profile = player.profile
            if profile.provider == "openai" and profile.base_url is not None:  # the official APIs: known modes
                forced = profile.structured if getattr(player, "forced", True) else None
                modes.setdefault((*ident, forced or ""), []).append(seat)
    for group, seats in modes.items():  # one at a time: a server on a CPU answers one call at a time anyway
        subject = players[seats[0]]
        found = await _choose(subject, close=not pooled)
        if probes is not None:
            probes.append(found)
        spec = getattr(subject, "spec", subject.profile.name)
        if found.refused is not None:
            problems.append(Problem(seats, spec, found.refused))
        elif found.mode is None:
            problems.append(Problem(seats, spec, f"no structured mode worked: {found.line()}"))
        elif not group[-1]:
            remember(subject.profile, found.mode)
            for seat in seats:
                players[seat].set_mode(found.mode)
    return problems


async def _choose(player: Any, close: bool) -> Any:
    from .modes import choose_mode
    from .player import close_clients

    try:
        return await choose_mode(player)
    finally:
        if close:
            await close_clients()


def run_preflight(players: Mapping[str, Any], probes: list[Any] | None = None) -> list[Problem]:
    """:func:`preflight` on its own event loop (for commands that are not running one yet)."""
    return asyncio.run(preflight(players, probes))
