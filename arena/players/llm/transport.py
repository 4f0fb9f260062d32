"""When a provider cannot be used: the endpoint breaker and the stops a model seat may raise.

**The breaker.** One per provider endpoint and event loop, shared by every seat on it (a game's
table; a tournament's games in flight). It counts *calls given up* — calls that failed every
try of the retry policy, or failed for good (401, 403, 404, 400) — in a row across those seats;
any answered call resets the count. At the profile's ``down_after`` (3 by default) the endpoint
is down: the call that tripped it, and every later call on that endpoint, raises
:class:`EndpointDown`, a :class:`~arena.players.base.StopGame`, so the game stops at once instead
of playing on with forfeits. Why count given-up calls, not failed tries: a burst of 429s when
nine seats vote at once is a busy endpoint, not a dead one, and the retry policy already waits
those out; a call given up is a decision lost. Why 3: under 30% injected faults of every kind
(tests/test_llm_games.py) a call is given up about once in a thousand, so three in a row by
chance is about one in a billion calls, while a dead endpoint trips it with the first three
calls (at once when several seats ask together, a few backoffs later in a discussion).
An endpoint found down stays down for the rest of the run (its event loop).

**Refused requests and formats.** A request the server refuses (:func:`~arena.players.llm.providers.refused`)
is not retried and stops the game at once (:class:`RequestRefused`, the server's whole reason and
what to try); a seat whose decisions are lost for the same format reason :data:`FORMAT_STREAK`
times in a row stops it too (:class:`FormatStop`): no wait or retry will make that mode work.

**Replay misses.** While a game is replayed from a cassette (:mod:`arena.players.llm.cassette`),
a request the cassette does not hold fails inside the HTTP client; :func:`cassette_miss` finds
that in the exception chain so the seat stops the game with :class:`ReplayMismatch` (one line
naming the seat and decision) instead of retrying and forfeiting.
"""

from __future__ import annotations

import asyncio
import weakref

from arena.players.base import StopGame

from .profiles import Profile

_breakers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Breaker]] = weakref.WeakKeyDictionary()
CASSETTE_MISS = "CannotOverwriteExistingCassetteException"  # vcrpy's error for a request not in the cassette


def endpoint_label(profile: Profile) -> str:
    """The endpoint in words: its base URL, or the provider's own API."""
    if profile.base_url:
        return profile.base_url
    return {"openai": "the OpenAI API", "anthropic": "the Anthropic API"}.get(profile.provider, profile.provider)


class TransportStop(StopGame):
    """A model seat stops the run because of its transport (the endpoint is down, a replay miss)."""

    error = True


class EndpointDown(TransportStop):
    """The endpoint failed ``down_after`` calls in a row: the game stops with this message."""

    def __init__(self, endpoint: str, label: str, cause: str, call_error: str | None = None) -> None:
        super().__init__(f"endpoint down: {label}: {cause}")
        self.endpoint = endpoint
        self.label = label
        self.cause = cause
        self.call_error = call_error  # this call's own failure (None: no call was made, the endpoint was down already)


def advice(profile: Profile, forced: bool) -> str:
    """What to try when a seat's mode does not work (a ``forced`` one, or the one the check picked)."""
    others = [m for m in ("tools", "json_schema", "json_object", "json_text") if m != profile.mode]
    forced_words = "leave out ?structured= so the check picks a mode that works, or " if forced else ""
    return f"{forced_words}try ?structured={' / '.join(others)} (docs/llm.md lists what each server takes and its flags)"


class RequestRefused(TransportStop):
    """The server refused the request itself (400/404/422, a request-validation 5xx): every later
    call would be refused the same way, so the game stops at once with the server's reason."""

    def __init__(self, label: str, reason: str, call_error: str, profile: Profile, forced: bool) -> None:
        super().__init__(f"{label} refused the request in mode {profile.mode}: {reason}; {advice(profile, forced)}")
        self.reason = reason
        self.call_error = call_error


class ContextFull(RequestRefused):
    """The prompt is over the model's context window. The seat's history only grows, so every later
    call would be refused too: the game stops at once (it resumes, with ``arena resume``, once the
    model has room) rather than forfeiting the rest of the seat's decisions."""

    def __init__(self, label: str, reason: str, call_error: str | None, profile: Profile, folded: bool = False) -> None:
        #: the context the server's refusal names, for a seat that did not know it (kept in the call's
        #: record, so ``arena resume`` goes on with a seat that folds its history to fit it)
        self.learned = context_of(reason) if profile.base_url and profile.context is None and not folded else None
        if profile.base_url:
            fix = (
                "start the server with a larger context (llama-cpp-python: --n_ctx 8192; llama-server: -c 8192; "
                f"Ollama: num_ctx) or ask for fewer answer tokens (?max_tokens=, now {profile.max_tokens}), "
                "then arena resume the transcript"
            )
            if folded:  # the seat folded all it could: only room helps
                pass
            elif self.learned is not None:
                fix = (
                    f"arena resume the transcript: the seat now folds its history to fit the {self.learned:,} tokens "
                    f"the server named (or start the server with a larger context first: {fix})"
                )
            elif profile.context is None:  # the seat did not know its room: told it, it folds its history to fit
                fix += "; in a new game, ?context=N (the server's context in tokens) makes the seat fold its history to fit"
            else:
                fix += f"; or a smaller ?context= in a new game (now {profile.context}: the seat folds to fit it)"
        else:
            fix = "the game's history no longer fits this model: a model with a larger context, or a shorter game"
        TransportStop.__init__(self, f"{label}: the prompt is over the model's context ({reason}); {fix}")
        self.reason = reason
        self.call_error = call_error


def context_of(reason: str) -> int | None:
    """The context window a server's refusal names ("maximum context length is 2048 tokens",
    "exceeds the available context size (8192 tokens)"): the first number after "context"."""
    _, found, after = reason.lower().partition("context")
    for word in after.replace("(", " ").replace(")", " ").split() if found else ():
        digits = word.strip(".,;:").replace(",", "")
        if digits.isdigit() and int(digits) >= 256:
            return int(digits)
    return None


class FormatStop(TransportStop):
    """A seat's answers were refused for the same format reason on ``FORMAT_STREAK`` decisions in a
    row: the mode does not work with this model or server, and the game would be forfeits."""


#: decisions in a row lost for the same format reason that stop a game (a working mode loses one
#: now and then: SmolLM2-135M under a grammar lost none of 72 decisions; see docs/llm.md)
FORMAT_STREAK = 3


class CassetteMiss(Exception):
    """A request that the cassette being replayed does not hold (raised by the player's transport)."""

    def __init__(self, cassette: str, reason: str) -> None:
        super().__init__(f"{cassette}: {reason}")
        self.cassette = cassette
        self.reason = reason


class ReplayMismatch(TransportStop):
    """A replayed game asked something the recording did not: the game has left the recording."""


class Breaker:
    """Consecutive calls given up on one endpoint (see the module docstring)."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.failures = 0
        self.down: str | None = None  # the cause, once the endpoint is down

    def success(self) -> None:
        if self.down is None:
            self.failures = 0

    def failure(self, why: str, limit: int) -> bool:
        """Count one call given up; True when the endpoint is (now or already) down."""
        self.failures += 1
        if self.down is None and self.failures >= limit:
            self.down = f"{self.failures} calls in a row given up (last: {why})"
        return self.down is not None


def breaker_for(endpoint: str) -> Breaker:
    """The breaker of ``endpoint`` on the running event loop."""
    table = _breakers.setdefault(asyncio.get_running_loop(), {})
    if endpoint not in table:
        table[endpoint] = Breaker(endpoint)
    return table[endpoint]


def down_endpoints() -> dict[str, str]:
    """Endpoint -> cause, for every endpoint found down on the running event loop."""
    table = _breakers.get(asyncio.get_running_loop(), {})
    return {name: b.down for name, b in table.items() if b.down is not None}


def cassette_miss(exc: BaseException) -> CassetteMiss | None:
    """The replay miss behind ``exc`` (the SDKs may wrap the HTTP client's error), if there is one."""
    seen: set[int] = set()
    node: BaseException | None = exc
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        if isinstance(node, CassetteMiss):
            return node
        if type(node).__name__ == CASSETTE_MISS:
            cassette = getattr(getattr(node, "cassette", None), "_path", "the cassette")
            reason = str(getattr(node, "reason", "") or "no_match").replace("_", " ")
            return CassetteMiss(str(cassette), reason)
        node = node.__cause__ or node.__context__
    return None
