"""The language-model player: view → prompt → provider → parsed action.

A bad *answer* (not JSON, wrong shape, illegal name) is the player's fault: it comes back as
:class:`~arena.players.base.Malformed`, the orchestrator rejects it and asks again with the reason
as ``feedback``. A bad *connection* (429, 5xx, timeout, refused) is nobody's move: it is retried
here with exponential backoff and jitter (honouring ``Retry-After``), bounded in tries and time;
past the bound the decision is given up (:class:`~arena.players.base.GiveUp` with the reason, e.g.
"provider unavailable: 4× 503", a logged forfeit), never counted as a rejected answer. When an
endpoint's calls are given up ``down_after`` times in a row across the table, the endpoint is down
and the game stops (:mod:`arena.players.llm.transport`). Every provider error becomes our string
in :func:`_error_text`, which removes keys (:mod:`arena.players.redact`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import time
import weakref
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar
from typing import Any

from pydantic import ValidationError
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, stop_after_delay
from tenacity.wait import wait_base, wait_random_exponential

from arena.engine import ActionBase, DecisionRequest, View, dump_action
from arena.players.base import Answer, GiveUp, Malformed
from arena.players.redact import install_log_redaction, redact, register_key

from .modes import picked
from .profiles import Profile
from .prompt import Conversation, make_env
from .providers import Reply, backend_for, context_full, error_body, refused, retry_after, transport_error
from .schema import KindSchemas, bound_thought
from .transport import (
    FORMAT_STREAK,
    CassetteMiss,
    ContextFull,
    EndpointDown,
    FormatStop,
    ReplayMismatch,
    RequestRefused,
    advice,
    breaker_for,
    cassette_miss,
    endpoint_label,
)
from .usage import Usage

log = logging.getLogger("arena.players.llm")
Recorder = Callable[[dict[str, Any]], None]
SENT_APART = frozenset(("system", "messages"))  # a call record holds these in its prompt, not its params

# Per event loop: one client and one semaphore per provider endpoint (clients and semaphores are
# bound to the loop they were made on; tests and `arena bench` run several loops in one process).
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple, Any]] = weakref.WeakKeyDictionary()
_limits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = weakref.WeakKeyDictionary()
# A limit shared beyond this process, when set (a Ray worker sets a cluster-wide one, see
# arena/tournament/distributed.py): profile -> the async context manager one call holds, or None
# for this process's own semaphore (a model run inside this process is limited here).
SharedLimit = Callable[[Profile], AbstractAsyncContextManager[Any] | None]
shared_limit: ContextVar[SharedLimit | None] = ContextVar("shared_limit", default=None)


async def close_clients() -> None:
    """Close the pooled HTTP clients of the running loop (call once at the end of a run)."""
    clients = _clients.pop(asyncio.get_running_loop(), {})
    for client in clients.values():
        await client.close()


class TransportGaveUp(Exception):
    """The provider could not be reached within the retry bound (or refused for good).

    ``why`` is the short reason a forfeit shows: every try's fault counted ("4× 503"), so a reader
    of the game log sees at once whether the provider was down, slow or refusing.
    """

    def __init__(self, message: str, why: str = "") -> None:
        super().__init__(message)
        self.why = why or message


class _WaitRetryAfter(wait_base):
    """The server's Retry-After when it sent one (capped), else exponential backoff with jitter."""

    def __init__(self, profile: Profile) -> None:
        self.cap = profile.max_retry_after
        self.fallback = wait_random_exponential(multiplier=profile.backoff, max=profile.max_backoff)

    def __call__(self, retry_state: RetryCallState) -> float:
        outcome = retry_state.outcome
        exc = outcome.exception() if outcome is not None else None
        asked = retry_after(exc) if exc is not None else None
        if asked is not None:
            return min(asked, self.cap)
        return self.fallback(retry_state)


def _error_text(exc: BaseException) -> str:
    """A provider's exception as our one-line string: the boundary where keys are removed
    (before the text is cut, so a key is never left half visible)."""
    status = getattr(exc, "status_code", None)
    text = f"{type(exc).__name__}" + (f" {status}" if status else "")
    message = redact(str(exc)).splitlines()[0] if str(exc) else ""
    return f"{text}: {message[:200]}" if message else text


def _server_reason(exc: BaseException) -> str:
    """A refusal as the server worded it, whole: ``400 This model's maximum context length is …``."""
    return f"{getattr(exc, 'status_code', '?')} {redact(error_body(exc))}"


def _fault(exc: BaseException) -> str:
    """A try's fault in a word: the HTTP status, else the exception's class."""
    status = getattr(exc, "status_code", None)
    return str(status) if status else type(exc).__name__


def _decision_words(request: DecisionRequest) -> str:
    """``day 2, vote`` — where a decision is, for a one-line error."""
    return f"day {request.day}, {request.group or request.phase}"


def _validation_text(exc: ValidationError) -> str:
    """One line per problem, short enough to send back to the model as feedback."""
    problems = []
    for err in exc.errors()[:6]:
        loc = ".".join(str(p) for p in err["loc"] if not (isinstance(p, str) and p.endswith("Answer"))) or "answer"
        problems.append(f"{loc}: {err['msg']}")
    return "your answer does not fit the schema: " + "; ".join(problems)


def prompt_mode(mode: str) -> str:
    """The prompts' wording for a mode: json_object reads like json_schema, tools_auto like tools."""
    return {"json_object": "json_schema", "tools_auto": "tools"}.get(mode, mode)


def _reason_key(error: str) -> str:
    """A rejection's reason without its particulars: ``the reply is not valid JSON``."""
    return error.split("(")[0].split(":")[0].strip()


def _loads(text: str) -> Any:
    """JSON, with raw control characters inside strings read as what they are.

    JSON forbids a raw line break inside a string, but llama-cpp-python's grammar for
    ``json_object`` lets one through (its string rule is ``[^"\\]``): the model meant a line break,
    and refusing it forfeited 3 of 55 decisions of a 7-seat game (docs/llm.md).
    """
    return json.loads(text, strict=False)


def _json_from_text(text: str) -> Any:
    """The JSON object in a text reply (code fences and prose around it tolerated)."""
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, flags=re.DOTALL)
    body = fenced.group(1) if fenced else text
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no JSON object found in the reply")
    return _loads(body[start : end + 1])


#: characters per token assumed when a server seat checks its prompt against its context: low, so
#: the estimate errs on the side of folding (English prose runs about 4, JSON schemas about 3)
CHARS_PER_TOKEN = 3.0


def prompt_tokens(kwargs: Mapping[str, Any]) -> int:
    """A request's prompt in tokens, estimated from its characters (messages, system, tools, format)."""
    sent = {k: kwargs.get(k) for k in ("system", "messages", "tools", "response_format")}
    return int(len(json.dumps(sent, ensure_ascii=False, default=str)) / CHARS_PER_TOKEN)


def _recorded_reply(call: Mapping[str, Any]) -> Reply:
    """A model's answer as a transcript's ``call`` record keeps it (a resumed game)."""
    return Reply(
        raw=call["raw"],
        tool=call.get("tool"),
        arguments=None,  # parsed from ``raw`` again, as an answer in text or tool arguments is
        usage=dict(call.get("usage") or {}),
        finish=call.get("finish"),
        call_id=call.get("call_id"),
    )


class LLMPlayer:
    """Answers decisions by asking a language model; see the module docstring for faults."""

    def __init__(
        self,
        name: str,
        profile: Profile,
        *,
        key: str | None,
        seed: int = 0,
        spec: str = "",
        recorder: Recorder | None = None,
        variant: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.profile = profile
        self.spec = spec or f"{profile.provider}:{profile.model}"
        self.seed = seed
        self._key = key
        register_key(key)  # removed from every error text and log line from now on
        if key:
            install_log_redaction()
        self.recorder = recorder
        if profile.provider == "local":  # a model in this process; imported only when a seat asks for it
            from .local import LocalBackend

            max_speech = (options or {}).get("max_speech_chars")  # every variant's name for the limit
            self.backend: Any = LocalBackend(profile, max_speech if isinstance(max_speech, int) else None)
        else:
            self.backend = backend_for(profile)
        short = profile.prompt == "short"
        self.conversation = Conversation(
            name, variant, options, prompt_mode(profile.mode), make_env(), short=short, history=profile.history
        )
        self.variant, self.options = variant, dict(options or {})
        self.forced = profile.structured is not None  # the spec or profile set the mode (not the check)
        mode = picked(profile)
        if mode is not None:  # the check already asked this server (a tournament's later games)
            self.set_mode(mode)
        retries = self.options.get("retries", 2)
        self._tries_allowed = (retries if isinstance(retries, int) else 2) + 1  # the engine's tries per decision
        self._streak: tuple[str, int] = ("", 0)  # (format reason, decisions in a row lost for it)
        priced = bool(profile.price_input or profile.price_output) or profile.provider == "local"
        self.usage = Usage(model=profile.model, priced=priced)  # no prices: the cost is unknown, not 0
        self.calls: list[dict[str, Any]] = []
        self._last_prompt = ""
        self._last_structured = ""
        self._tries: dict[int, int] = {}
        self._numbers: dict[int, int] = {}  # request id -> the seat's own decision number (tool call ids)
        self._fixed: tuple[Any, KindSchemas] | None = None  # (repertoire, its schemas): built once a game
        self._recalled: dict[tuple[int, int], dict[str, Any]] = {}  # (request, try) -> a recorded call (resume)
        self._fit_from: int | None = None  # the decision from which a context learned from a refusal holds
        self.cache_key = "arena-" + hashlib.sha256(f"{seed}:{name}:{profile.model}".encode()).hexdigest()[:16]

    def __repr__(self) -> str:  # never shows the key
        return f"LLMPlayer({self.name!r}, {self.spec!r})"

    def set_mode(self, mode: str) -> None:
        """Play in ``mode`` (the check before the game picked it for this seat's server)."""
        self.profile = self.profile.model_copy(update={"structured": mode})
        self.backend = backend_for(self.profile)
        self.conversation.mode = prompt_mode(mode)
        self._fixed = None

    # ---- plumbing -----------------------------------------------------------------------------
    def _client(self) -> Any:
        loop = asyncio.get_running_loop()
        pool = _clients.setdefault(loop, {})
        ident = (self.profile.endpoint, self.profile.timeout, hashlib.sha256((self._key or "").encode()).hexdigest())
        if ident not in pool:
            pool[ident] = self.backend.make_client(self._key)
        return pool[ident]

    def _limit(self) -> AbstractAsyncContextManager[Any]:
        shared = shared_limit.get()
        held = shared(self.profile) if shared is not None else None
        if held is not None:
            return held
        limits = _limits.setdefault(asyncio.get_running_loop(), {})
        if self.profile.endpoint not in limits:
            limits[self.profile.endpoint] = asyncio.Semaphore(self.profile.concurrency)
        return limits[self.profile.endpoint]

    async def _send(self, kwargs: dict[str, Any], retries: list[dict[str, Any]], timing: dict[str, float] | None = None) -> Any:
        """One model call under the retry policy and the endpoint's breaker.

        ``timing["queued"]`` gains the seconds spent waiting for a free call slot of the endpoint
        (other seats' calls ahead in the arena's own queue): not the model's time, so a call's
        latency leaves it out and the transcript records it apart.

        Raises :class:`TransportGaveUp` (the decision is forfeited), :class:`EndpointDown` (this
        call tripped the breaker, or the endpoint is down already: the game stops) or
        :class:`CassetteMiss` (a replayed game asked something the cassette does not hold).
        """
        profile = self.profile
        faults: list[str] = []
        breaker = None if profile.provider == "local" else breaker_for(profile.endpoint)  # a local model is no endpoint
        if breaker is not None and breaker.down is not None:
            raise EndpointDown(profile.endpoint, endpoint_label(profile), breaker.down)

        def note_retry(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            wait = state.next_action.sleep if state.next_action else 0.0
            entry = {"try": state.attempt_number, "error": _error_text(exc) if exc else "?", "wait": round(wait, 3)}
            retries.append(entry)
            faults.append(_fault(exc) if exc else "?")
            self.usage.transport_retries += 1
            log.warning("%s: %s; retry %d in %.2fs", self.name, entry["error"], state.attempt_number, wait)

        retrying = AsyncRetrying(
            retry=retry_if_exception(lambda e: transport_error(e)[0] and cassette_miss(e) is None),
            wait=_WaitRetryAfter(profile),
            stop=stop_after_attempt(profile.attempts) | stop_after_delay(profile.retry_budget),
            before_sleep=note_retry,
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    asked = time.perf_counter()
                    async with self._limit():
                        if timing is not None:
                            timing["queued"] = timing.get("queued", 0.0) + time.perf_counter() - asked
                        response = await self.backend.send(self._client(), kwargs)
        except Exception as exc:
            if isinstance(exc, (asyncio.CancelledError, KeyboardInterrupt)):
                raise
            miss = cassette_miss(exc)
            if miss is not None:
                raise miss from None
            retryable, _ = transport_error(exc)
            if context_full(exc):
                raise ContextFull(endpoint_label(profile), _server_reason(exc)[:300], _error_text(exc), profile) from None
            if refused(exc):
                reason = _server_reason(exc)
                raise RequestRefused(endpoint_label(profile), reason, _error_text(exc), profile, self.forced) from None
            why = "gave up after retries" if retryable else "not retryable"
            faults.append(_fault(exc))
            if retryable:
                counts = ", ".join(f"{n}× {fault}" for fault, n in Counter(faults).items())
                short = f"provider unavailable: {counts}"
            else:
                short = f"provider error: {_error_text(exc)}"
            message = f"{_error_text(exc)} ({why})"
            # `from None`: the provider's exception (its message may quote the key) goes no further
            if breaker is not None and breaker.failure(short, profile.down_after):
                raise EndpointDown(profile.endpoint, endpoint_label(profile), breaker.down or short, message) from None
            raise TransportGaveUp(message, short) from None
        if breaker is not None:
            breaker.success()
        return response

    # ---- the decision ---------------------------------------------------------------------------
    def _schemas(self, request: DecisionRequest) -> tuple[KindSchemas, Callable[[Any], ActionBase]]:
        """The schemas sent and the parser of answers.

        Tools and response formats come first in a provider's prompt cache, so they are the seat's
        repertoire, built once and sent unchanged all game, with the kinds legal now beside them;
        the engine holds each answer to the decision. ``json_text`` (the schema travels in the
        newest message), a local model (its grammar is made per decision) and a variant without a
        repertoire get the decision's exact schema.
        """
        wide = request.repertoire
        strict = self.profile.strict_schema
        # the thought's bound, in the schema itself (schema.bound_thought); a local grammar leaves thought out
        limit = self.profile.max_thought if self.profile.provider != "local" else 0
        if self.profile.mode == "json_object":  # a server's grammar: the decision's own schema (providers.py)
            exact = KindSchemas(request.json_schema(), False)
            exact.speech = request.max_speech  # type: ignore[attr-defined]  # the grammar's speech bound
            return exact, request.parse
        if wide is None or self.profile.mode == "json_text" or self.profile.provider == "local":
            return KindSchemas(bound_thought(request.json_schema(), limit), strict), request.parse
        if self._fixed is None or self._fixed[0] is not wide:
            self._fixed = (wide, KindSchemas(bound_thought(wide.json_schema(), limit), strict))
        return self._fixed[1].now(list(request.kinds)), wide.parse

    def prepare(
        self, request: DecisionRequest, view: View, feedback: str | None
    ) -> tuple[dict[str, Any], dict[str, Any], KindSchemas, Callable[[Any], ActionBase]]:
        """Everything short of sending: the user turn appended, the provider's request (``kwargs``)
        and the call's record. ``arena prompts`` calls it to show what a model would be sent."""
        conv = self.conversation
        schemas, parse = self._schemas(request)
        mode = self.profile.mode
        schema_text = json.dumps(schemas.union(), ensure_ascii=False, indent=1) if mode == "json_text" else ""
        before = conv.state()
        conv.ask(request, view, feedback, schema_text, fixed=parse is not request.parse, thought=schemas.thought_limit)
        structured = self.backend.structured(schemas)
        kwargs = self.backend.build(conv.system or "", conv.messages, structured, self.cache_key)
        room = self._room(request)
        if room is not None and prompt_tokens(kwargs) > room:  # a server's context: fold what came before now
            conv.restore(before)
            conv.ask(request, view, feedback, schema_text, fixed=parse is not request.parse, thought=schemas.thought_limit,
                     squeeze=True)  # fmt: skip
            kwargs = self.backend.build(conv.system or "", conv.messages, structured, self.cache_key)
            if prompt_tokens(kwargs) > room and self._fit_from is None:  # a learned context may have grown since:
                raise ContextFull(  # the server says; a context told by the profile is the seat's to keep
                    endpoint_label(self.profile),
                    f"seat {self.name} needs about {prompt_tokens(kwargs):,} tokens at {_decision_words(request)} with its "
                    f"history folded to a record of the game so far; {room:,} fit (context {self.profile.context:,} "
                    f"less {self.profile.max_tokens:,} for the answer)",
                    None,  # no call was made
                    self.profile,
                    folded=True,
                )
        shared_before = conv.kept  # the earlier messages this prompt repeats (none after a day's fold)
        if self.profile.provider == "local":  # its word guard lets a speech name the seats
            kwargs["names"] = list(request.seats)

        prompt = conv.serialized()
        # what a provider caches: the tool choice (legal kinds now) is not part of it
        structured_text = json.dumps({k: v for k, v in structured.items() if k != "tool_choice"}, sort_keys=True)
        same_prefix = prompt.startswith(self._last_prompt) if self._last_prompt else False
        record: dict[str, Any] = {
            "type": "llm_call",
            "player": self.name,
            "provider": self.profile.provider,
            "model": self.profile.model,
            "request": request.id,
            "group": request.group,
            "day": request.day,
            "phase": request.phase,
            "try": self._tries.get(request.id, 0) + 1,
            "legal": list(request.kinds),
            "prompt": {
                "system": conv.system if shared_before == 0 else None,
                "shared_messages": shared_before,
                "new_messages": conv.messages[shared_before:],
                "chars": len(prompt),
                "prefix_share": round(len(self._last_prompt) / len(prompt), 4) if same_prefix else 0.0,
                "schema_unchanged": structured_text == self._last_structured,
            },
            "schema": None if structured_text == self._last_structured else (structured or {"json_text": schemas.union()}),
            # the rest of the request (model, token limit, tool choice, …): with the prompt and the
            # schema it rebuilds what the provider received (arena.players.llm.sent)
            "params": {k: v for k, v in kwargs.items() if k not in SENT_APART and (k not in structured or k == "tool_choice")},
        }
        self._tries[request.id] = record["try"]
        self._numbers.setdefault(request.id, len(self._numbers) + 1)
        self._last_prompt, self._last_structured = prompt, structured_text
        return kwargs, record, schemas, parse

    def _room(self, request: DecisionRequest) -> int | None:
        """Prompt tokens a server seat may send (its ``context`` less the answer's), None: no bound known.

        An official API's window is far beyond a game's folded history; a local model drops turns itself.
        A context learned from a refusal holds from the refused decision on (:meth:`learn_recorded`)."""
        context = self.profile.context
        if context is None or self.profile.base_url is None or self.profile.provider == "local":
            return None
        if self._fit_from is not None and request.id < self._fit_from:
            return None
        return max(context - self.profile.max_tokens, 0)

    def learn_recorded(self, calls: Sequence[Mapping[str, Any]]) -> None:
        """Before a resumed game is rebuilt: the context a server named when it refused this seat's
        prompt (the call's record keeps it), from the refused decision on, so the seat now folds its
        history to fit, and the calls before it are rebuilt as they were sent."""
        own = [call for call in calls if call.get("player") == self.name]
        for call in calls:
            if isinstance(call.get("context"), int) and self.profile.context is None:
                self.profile = self.profile.model_copy(update={"context": call["context"]})
                refused = [int(c.get("request") or 0) for c in own if isinstance(c.get("context"), int)]
                sent = [int(c.get("request") or 0) for c in own if not isinstance(c.get("context"), int)]
                # its own refused call, else (a seat on the same server refused) its first call not made yet:
                # a question of the round that stopped the game is asked again, and must fit
                self._fit_from = min(refused) if refused else max(sent, default=0) + 1

    # ---- a resumed game (arena.run.resume) ----------------------------------------------------------
    def rehearse(self, request: DecisionRequest, view: View, feedback: str | None, call: Mapping[str, Any] | None) -> None:
        """Go through one recorded attempt again without asking the model: the conversation, the
        try count and the prompt-cache bookkeeping end as they did, so the seat goes on as it would
        have. ``call`` is the transcript's record of that call (None: it timed out, nothing came)."""
        _, record, _, _ = self.prepare(request, view, feedback)
        if call is not None and isinstance(call.get("raw"), str):
            reply = _recorded_reply(call)
            self.conversation.answer(reply.raw, self._call(reply, request.id, record["try"]))

    def count_recorded(self, calls: Sequence[Mapping[str, Any]]) -> None:
        """Add the seat's recorded calls (before the game was cut off) to its usage totals."""
        for call in calls:
            if call.get("outcome") == "transport_failed":
                self.usage.transport_failures += 1
            elif isinstance(call.get("raw"), str):
                self.usage.add(call.get("usage") or {}, float(call.get("cost") or 0.0))
                self.usage.malformed += call.get("outcome") == "malformed"
            self.usage.latency += float(call.get("latency") or 0.0)
            self.usage.queued += float(call.get("queued") or 0.0)
            self.usage.transport_retries += len(call.get("retries") or ())

    def remember(self, request_id: int, attempt: int, call: Mapping[str, Any]) -> None:
        """A model answer made before the game was cut off that the engine never ruled on: the
        attempt ``attempt`` at decision ``request_id`` takes it instead of calling the model again."""
        self._recalled[request_id, attempt] = dict(call)

    async def decide(self, request: DecisionRequest, view: View, feedback: str | None) -> Answer:
        kwargs, record, schemas, parse = self.prepare(request, view, feedback)
        conv = self.conversation
        recalled = self._recalled.pop((request.id, record["try"]), None)
        if recalled is not None:  # answered before the game was cut off (a resumed game): not asked again
            reply = _recorded_reply(recalled)
            answer = self._interpret(request, schemas, reply, parse)
            conv.answer(reply.raw, self._call(reply, request.id, record["try"]))
            return answer
        retries: list[dict[str, Any]] = []
        record["retries"] = retries
        timing: dict[str, float] = {}
        started = time.perf_counter()

        def took() -> float:  # the call's own seconds, the arena's queue left out
            return time.perf_counter() - started - timing.get("queued", 0.0)

        def queued() -> None:
            if timing.get("queued"):
                record["queued"] = round(timing["queued"], 3)
                self.usage.queued += timing["queued"]

        try:
            response = await self._send(kwargs, retries, timing)
        except TransportGaveUp as exc:
            record.update(latency=round(took(), 3), outcome="transport_failed", error=str(exc))
            queued()
            self.usage.latency += record["latency"]
            self.usage.transport_failures += 1
            log.error("%s: no answer for request %d: %s", self.name, request.id, exc)
            self._emit(record)
            return GiveUp(exc.why)
        except (EndpointDown, RequestRefused) as exc:
            if exc.call_error is not None:  # this call failed and tripped the breaker: it is on the record
                record.update(latency=round(took(), 3), outcome="transport_failed", error=exc.call_error)
                queued()
                if isinstance(exc, ContextFull) and exc.learned is not None:
                    record["context"] = exc.learned  # what a resumed seat fits (learn_recorded)
                self.usage.latency += record["latency"]
                self.usage.transport_failures += 1
                self._emit(record)
            if isinstance(exc, EndpointDown):  # a refused request is the stop's own one line
                log.error("%s: stopping the game at request %d: %s", self.name, request.id, exc)
            raise
        except CassetteMiss as exc:
            raise ReplayMismatch(
                f"replay: no recorded call matches seat {self.name}'s decision {request.id} "
                f"({_decision_words(request)}, try {record['try']}) in {exc.cassette} ({exc.reason}): "
                "the game has left the recording (same command, seed and prompts?)"
            ) from None
        latency = took()
        queued()
        reply = self.backend.extract(response)
        answer = self._interpret(request, schemas, reply, parse)
        conv.answer(reply.raw, self._call(reply, request.id, record["try"]))
        record["appended"] = conv.messages[-1]  # the answer as the next request repeats it
        cost = round(self.profile.cost(reply.usage), 8)  # as recorded, so a resumed seat's totals match
        self.usage.add(reply.usage, cost)
        self.usage.latency += latency
        record.update(
            latency=round(latency, 3),
            raw=reply.raw,
            tool=reply.tool,
            call_id=reply.call_id,
            finish=reply.finish,
            usage=reply.usage,
            cost=cost,
        )
        if isinstance(answer, Malformed):
            self.usage.malformed += 1
            record.update(outcome="malformed", error=answer.error, action=None)
        else:
            record.update(outcome="ok", error=None, action=dump_action(answer))
        self._emit(record)
        self._count_format(request, record["try"], answer)
        return answer

    def _count_format(self, request: DecisionRequest, attempt: int, answer: ActionBase | Malformed) -> None:
        """Count decisions lost for one format reason in a row; at :data:`FORMAT_STREAK` the game stops.

        A decision is lost when its last allowed try is malformed (the engine forfeits it next).
        An answer that parses (even one the engine then rejects) ends the streak.
        """
        if not isinstance(answer, Malformed):
            self._streak = ("", 0)
            return
        if attempt < self._tries_allowed:
            return
        key = _reason_key(answer.error)
        count = self._streak[1] + 1 if self._streak[0] == key else 1
        self._streak = (key, count)
        if count >= FORMAT_STREAK:
            raise FormatStop(
                f"seat {self.name} ({self.spec}): {count} decisions in a row lost in mode {self.profile.mode} "
                f"({key}: {answer.error[:160]}); {advice(self.profile, self.forced)}"
            )

    def _interpret(
        self, request: DecisionRequest, schemas: KindSchemas, reply: Reply, parse: Callable[[Any], ActionBase] | None = None
    ) -> ActionBase | Malformed:
        if reply.refusal or reply.finish == "refusal":
            why = (reply.refusal or reply.raw or "no reason given")[:200]
            return Malformed(reply.raw or why, f"the model refused to answer ({why}); give one legal action")
        if reply.finish in ("length", "max_tokens"):
            return Malformed(reply.raw, "the answer was cut off at the token limit; answer more briefly")
        data: Any = reply.arguments
        if data is None:
            try:
                data = _loads(reply.raw) if reply.tool else _json_from_text(reply.raw)
            except ValueError as exc:
                what = "the tool arguments are" if reply.tool else "the reply is"
                return Malformed(reply.raw, f"{what} not valid JSON ({exc}); answer with one JSON object")
        if not reply.tool:
            data = schemas.unwrap(data)
        if isinstance(data, dict) and reply.tool and reply.tool not in schemas.kinds:
            return Malformed(reply.raw, f"'{reply.tool}' is not a legal action now; legal: {', '.join(schemas.legal)}")
        data = schemas.decode(reply.tool, data)
        try:
            return (parse or request.parse)(data)
        except ValidationError as exc:
            return Malformed(reply.raw, _validation_text(exc))

    def _call(self, reply: Reply, request_id: int, attempt: int) -> dict[str, Any] | None:
        """The tool call as it goes back into the history (None for an answer in text). Its id,
        when the server gave none, counts the seat's own decisions: the engine's request id counts
        every seat's, and the model reads its history."""
        if not reply.tool:
            return None
        arguments = reply.arguments
        if arguments is None:
            try:
                arguments = _loads(reply.raw)
            except ValueError:
                arguments = None
        return {
            "id": reply.call_id or f"call_{self._numbers.get(request_id, request_id)}_{attempt}",
            "name": reply.tool,
            "arguments": reply.raw,
            "input": arguments if isinstance(arguments, dict) else {},
        }

    def _emit(self, record: dict[str, Any]) -> None:
        self.calls.append(record)
        if self.recorder is not None:
            try:
                self.recorder(record)
            except Exception:  # a broken recorder must not cost the player its move
                log.exception("%s: the call recorder failed", self.name)

    async def aclose(self) -> None:
        """Release the pooled clients of this loop (shared by every LLM player on it)."""
        await close_clients()
