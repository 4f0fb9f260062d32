"""Provider adapters: the same conversation and schemas, sent the way each SDK documents.

**One tool per kind, the same tools all game.** A seat's tools are its repertoire (every kind it
may use in the game, names over all seats), fixed for the whole game: both providers put tool
definitions first in their prompt-cache key, so tools that changed per decision would make every
call miss the cache. The kinds and names legal *now* are stated in the newest message and held by
the engine's validation (a call outside them is rejected with the reason and asked again).
Where an API can narrow a fixed tool list without touching the cache it does: OpenAI's
``tool_choice: {"type": "allowed_tools"}`` (profile ``allowed_tools``; on by default for the
official endpoint). Anthropic's ``tool_choice`` cannot: a change of it invalidates the cached
messages, so it stays ``{"type": "any"}`` all game. Parallel calls are off, so exactly one action
comes back. One tool per kind rather than one union tool: OpenAI strict mode allows no union at
the root of a function's parameters, and each tool carries its kind's own description; the tool's
name is the kind, so the parameters have no ``kind``. ``json_schema`` mode (OpenAI
``response_format``; Anthropic ``output_config``) wraps the union in ``{"action": …}`` (a
response format has one root object), again fixed for the game.

**Servers of your own** (``@URL``) differ in what they honour (docs/llm.md has the table); the
check before the game picks the first mode that works (:mod:`arena.players.llm.modes`). Two modes
exist for them: ``tools_auto`` (the tools with ``tool_choice: "auto"``, for servers that accept
nothing else; an answer in prose is rejected by our validation and asked again) and
``json_object`` (``response_format: {"type": "json_object", "schema": S}``, which
llama-cpp-python's server turns into a grammar; S is bounded like a local model's grammar:
:func:`~arena.players.llm.local_grammar.server_schema`). ``json_object`` sends the *decision's* exact
schema, not the fixed repertoire: a deliberate departure from the rule above, measured (docs/llm.md)
because a grammar over the whole repertoire lets a small model pick kinds and names that are not
legal now, and a local server's grammar is not part of the prompt prefix it caches, so the cache
is untouched.

**History.** An earlier answer is replayed as the model gave it: a tool call, followed by its
result ("Accepted." or the rejection) at the start of the next user turn (OpenAI: an assistant
``tool_calls`` message and a ``tool`` message; Anthropic: ``tool_use`` and ``tool_result`` blocks).

**Caching.** Prompts are append-only, or (``history = "days"``) a record that starts with the
previous call's record (see :mod:`arena.players.llm.prompt`). Anthropic, which caches whole blocks,
gets ``cache_control`` breakpoints where stable prefixes end: the system block (tools and system,
fixed for the game), the end of a folded record (sent as blocks cut where the previous folds'
records ended, so the next call's record starts with the same blocks), and the last block of the
newest message (the next call repeats everything up to there verbatim; not after a fold, whose
question is not repeated). OpenAI caches prefixes automatically; ``prompt_cache_key`` (official
endpoint only) keeps one player's calls on the same cache.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

from .profiles import Profile
from .schema import KindSchemas
from .usage import anthropic_usage, openai_usage

CACHE = {"type": "ephemeral"}


@dataclass(slots=True)
class Reply:
    """What a model answered: the raw text (for the record), the tool it chose, the arguments."""

    raw: str
    tool: str | None
    arguments: Any  # a dict from a tool call, else None (then ``raw`` is parsed as JSON text)
    usage: dict[str, int]
    finish: str | None = None
    refusal: str | None = None
    call_id: str | None = None  # the tool call's id (replayed with its result in the next turn)


def _tool_description(schema: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    params = dict(schema)
    description = params.pop("description", "") or ""
    return description.split("\n\n")[0], params


class OpenAIBackend:
    """Chat Completions (the API every OpenAI-compatible server speaks)."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.official = profile.base_url is None
        self.allowed_tools = profile.allowed_tools if profile.allowed_tools is not None else self.official

    def make_client(self, key: str | None) -> Any:
        import openai

        return openai.AsyncOpenAI(
            api_key=key or "unused",  # local servers ignore it; the SDK needs a value
            base_url=self.profile.base_url,
            timeout=self.profile.timeout,
            max_retries=0,  # one retry policy: ours (tenacity), so every retry is logged
        )

    def structured(self, schemas: KindSchemas) -> dict[str, Any]:
        """The part of the request that carries the schema (tools or response_format)."""
        mode, strict = self.profile.mode, self.profile.strict_schema
        if mode in ("tools", "tools_auto"):
            tools = []
            for kind in schemas.kinds:
                description, params = _tool_description(schemas.tool_parameters(kind))
                function: dict[str, Any] = {"name": kind, "description": description, "parameters": params}
                if strict:
                    function["strict"] = True
                tools.append({"type": "function", "function": function})
            choice: Any = "required"
            if mode == "tools_auto":  # servers that take only "auto": our validation holds the answer
                return {"tools": tools, "tool_choice": "auto"}
            if len(tools) == 1:
                choice = {"type": "function", "function": {"name": schemas.kinds[0]}}
            elif self.allowed_tools:  # narrows the fixed list to the kinds legal now, cache intact
                allowed = [{"type": "function", "function": {"name": k}} for k in schemas.legal]
                choice = {"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": allowed}}
            return {"tools": tools, "tool_choice": choice, "parallel_tool_calls": False}
        if mode == "json_schema":
            spec: dict[str, Any] = {"name": "action", "schema": schemas.wrapped()}
            if strict:
                spec["strict"] = True
            return {"response_format": {"type": "json_schema", "json_schema": spec}}
        if mode == "json_object":  # llama-cpp-python's server: a grammar made from the schema, its text bounded
            from .local_grammar import SERVER_SPEECH_CHARS, server_schema

            speech = min(getattr(schemas, "speech", SERVER_SPEECH_CHARS), SERVER_SPEECH_CHARS)
            return {"response_format": {"type": "json_object", "schema": server_schema(schemas, speech)}}
        return {}

    @staticmethod
    def messages(system: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The neutral history in Chat Completions form (tool calls and their results included)."""
        out: list[dict[str, Any]] = [{"role": "system", "content": system}]
        for m in messages:
            result = m.get("result")
            if result:
                out.append({"role": "tool", "tool_call_id": result["id"], "content": result["content"]})
            call = m.get("call")
            if m["role"] == "assistant" and call:
                function = {"name": call["name"], "arguments": call["arguments"]}
                out.append(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [{"id": call["id"], "type": "function", "function": function}],
                    }
                )
            else:
                out.append({"role": m["role"], "content": m["content"]})
        return out

    def build(self, system: str, messages: list[dict[str, Any]], structured: dict[str, Any], cache_key: str) -> dict[str, Any]:
        p = self.profile
        kwargs: dict[str, Any] = {
            "model": p.model,
            "messages": self.messages(system, messages),
            **structured,
        }
        kwargs["max_completion_tokens" if self.official else "max_tokens"] = p.max_tokens
        if p.temperature is not None:
            kwargs["temperature"] = p.temperature
        if self.official:
            kwargs["prompt_cache_key"] = cache_key
        return kwargs

    async def send(self, client: Any, kwargs: dict[str, Any]) -> Any:
        """Send the history through ``extra_body`` (documented to take precedence over arguments).

        The SDK walks every message through its TypedDict transform on every call; with an
        append-only history that is linear in the game so far (measured: 45 ms of CPU per call at
        120 messages, versus 2 ms for the HTTP round trip on loopback). Our messages are plain
        ``{"role", "content": str}`` JSON, which the transform leaves unchanged, so skipping it
        sends the same bytes.
        """
        args = dict(kwargs)
        messages = args.pop("messages")
        return await client.chat.completions.create(messages=[], extra_body={"messages": messages}, **args)

    def extract(self, response: Any) -> Reply:
        usage = openai_usage(response.usage) if getattr(response, "usage", None) else {}
        if not response.choices:
            return Reply("", None, None, usage, None)
        choice = response.choices[0]
        message = choice.message
        calls = message.tool_calls or []
        if calls:
            call = calls[0]
            function = getattr(call, "function", None)
            name = getattr(function, "name", None)
            raw = getattr(function, "arguments", "") or ""
            return Reply(raw, name, None, usage, choice.finish_reason, call_id=getattr(call, "id", None))
        return Reply(message.content or "", None, None, usage, choice.finish_reason, getattr(message, "refusal", None))


class AnthropicBackend:
    """The Messages API."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile

    def make_client(self, key: str | None) -> Any:
        import anthropic

        return anthropic.AsyncAnthropic(
            api_key=key or "unused",
            base_url=self.profile.base_url,
            timeout=self.profile.timeout,
            max_retries=0,
        )

    def structured(self, schemas: KindSchemas) -> dict[str, Any]:
        """Tools (or the output format) and a tool choice that never changes within a game: a change
        of ``tool_choice`` would invalidate Anthropic's cached messages."""
        mode, strict = self.profile.mode, self.profile.strict_schema
        if mode in ("tools", "tools_auto"):
            tools = []
            for kind in schemas.kinds:
                description, params = _tool_description(schemas.tool_parameters(kind))
                tool: dict[str, Any] = {"name": kind, "description": description, "input_schema": params}
                if strict:
                    tool["strict"] = True
                tools.append(tool)
            if len(tools) == 1:
                choice = {"type": "tool", "name": schemas.kinds[0], "disable_parallel_tool_use": True}
            else:
                choice = {"type": "any", "disable_parallel_tool_use": True}
            return {"tools": tools, "tool_choice": choice}
        if mode == "json_schema":
            return {"output_config": {"format": {"type": "json_schema", "schema": schemas.wrapped()}}}
        return {}

    @staticmethod
    def messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The neutral history in Messages API form (``tool_use`` / ``tool_result`` blocks)."""
        body: list[dict[str, Any]] = []
        for m in messages:
            call = m.get("call")
            if m["role"] == "assistant" and call:
                block = {"type": "tool_use", "id": call["id"], "name": call["name"], "input": call.get("input") or {}}
                body.append({"role": "assistant", "content": [block]})
                continue
            blocks: list[dict[str, Any]] = []
            result = m.get("result")
            if result:
                tool_result = {"type": "tool_result", "tool_use_id": result["id"], "content": result["content"]}
                if result.get("error"):
                    tool_result["is_error"] = True
                blocks.append(tool_result)
            text, cuts = m["content"], m.get("cuts") or []
            for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True):  # a folded record: its blocks
                if text[start:end]:
                    ends = {"record": True} if cuts and end == cuts[-1] else {}  # the record's last block
                    blocks.append({"type": "text", "text": text[start:end], **ends})
            body.append({"role": m["role"], "content": blocks})
        return body

    @classmethod
    def history(cls, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The messages with their cache breakpoints: where a folded record ends (the next call's
        record starts with it, so Anthropic, which caches whole blocks, reads it back), and the
        newest message's last block, which the seat's next call repeats verbatim (not after a fold:
        its question is not repeated)."""
        body = cls.messages(messages)
        folded = False
        for turn in body:
            for block in turn["content"]:
                if block.pop("record", False):
                    block["cache_control"] = CACHE
                    folded = turn is body[-1]
        if body and not folded:
            body[-1]["content"][-1]["cache_control"] = CACHE
        return body

    def build(self, system: str, messages: list[dict[str, Any]], structured: dict[str, Any], cache_key: str) -> dict[str, Any]:
        p = self.profile
        body = self.history(messages)  # the breakpoints where stable prefixes end
        kwargs: dict[str, Any] = {
            "model": p.model,
            "max_tokens": p.max_tokens,
            "system": [{"type": "text", "text": system, "cache_control": CACHE}],
            "messages": body,
            **structured,
        }
        if p.temperature is not None:
            kwargs["temperature"] = min(p.temperature, 1.0)  # Anthropic's range is 0-1
        return kwargs

    async def send(self, client: Any, kwargs: dict[str, Any]) -> Any:
        return await client.messages.create(**kwargs)

    def extract(self, response: Any) -> Reply:
        usage = anthropic_usage(response.usage) if getattr(response, "usage", None) else {}
        texts = []
        for block in response.content or ():
            kind = getattr(block, "type", None)
            if kind == "tool_use":
                arguments = block.input
                raw = json.dumps(arguments, ensure_ascii=False)
                return Reply(raw, block.name, arguments, usage, response.stop_reason, call_id=getattr(block, "id", None))
            if kind == "text":
                texts.append(block.text)
        return Reply("".join(texts), None, None, usage, response.stop_reason)


def backend_for(profile: Profile) -> OpenAIBackend | AnthropicBackend:
    return OpenAIBackend(profile) if profile.provider == "openai" else AnthropicBackend(profile)


#: words of a request-validation error in a 5xx body (pydantic, as FastAPI servers send it, and
#: an assertion on a request field): the server refusing our request, not failing for a while
VALIDATION_WORDS = ("validation error", "Input should be", "Field required", "Extra inputs are not permitted", "AssertionError")
PYDANTIC_ERROR = re.compile(r"""'loc': \(([^)]*)\), 'msg': (?:"([^"]*)"|'([^']*)')(?:, 'input': ('[^']*'|[^,}]*))?""")
#: statuses that say our request is wrong: the same request will be refused again
REFUSED = (400, 404, 422)


def error_body(exc: BaseException) -> str:
    """The server's whole reason for an HTTP error, on one line (the SDK's message cut nothing yet)."""
    body = getattr(exc, "body", None)
    if body is None:
        response = getattr(exc, "response", None)
        try:
            body = response.text if response is not None else None
        except Exception:  # a streamed or closed response has no text to give
            body = None
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            body = inner["message"]
        elif isinstance(body.get("detail"), list):  # FastAPI: [{"loc": [...], "msg": ...}, ...]
            body = "; ".join(
                f"{'.'.join(str(p) for p in d.get('loc', ()) if p != 'body')}: {d.get('msg', '')}"
                for d in body["detail"]
                if isinstance(d, dict)
            )
        else:
            body = json.dumps(body, ensure_ascii=False)
    text = str(body) if body else str(exc)
    text = text.split('\n\n  File "')[0]  # a server that appends its traceback
    found = PYDANTIC_ERROR.findall(text)
    if found:  # pydantic's repr of its errors: "response_format.type: Input should be ... (got 'json_schema')"
        return "; ".join(_pydantic_line(loc, double or single, got) for loc, double, single, got in found)
    return " ".join(text.split())


def _pydantic_line(loc: str, message: str, got: str) -> str:
    where = ".".join(p for p in (part.strip().strip("'") for part in loc.split(",")) if p and p != "body")
    return f"{where}: {message}" + (f" (got {got})" if got else "")


def refused(exc: BaseException) -> bool:
    """Whether the server refused the request itself (400/404/422, or a 5xx whose body is a
    request-validation error): no retry will change its answer."""
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int):
        return False
    if status in REFUSED:
        return True
    return status >= 500 and any(word in error_body(exc) for word in VALIDATION_WORDS)


def context_full(exc: BaseException) -> bool:
    """A request over the model's context window (a 400 that a shorter history would fix)."""
    if getattr(exc, "status_code", None) not in (400, 413, 422):
        return False
    text = error_body(exc).lower()
    return "context" in text and any(w in text for w in ("exceed", "too long", "maximum", "window", "overflow"))


def transport_error(exc: BaseException) -> tuple[bool, int | None]:
    """(is it the network's or the provider's passing fault?, HTTP status if any).

    Retried: timeouts, connection errors, 408, 409, 429 and every 5xx (529 overloaded included)
    except a 5xx whose body is a request-validation error (:func:`refused`). Not retried: other
    4xx (a bad key, an unknown model, a schema the provider refuses), which no wait will fix.
    """
    status = getattr(exc, "status_code", None)
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "APIConnectionError" in names or "APITimeoutError" in names:
        return True, None
    if isinstance(status, int):
        return (status in (408, 409, 429) or status >= 500) and not refused(exc), status
    return False, None


def retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms`` or ``retry-after``), if it said."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(float(value) * scale, 0.0)
        except ValueError:
            try:
                when = parsedate_to_datetime(value)
            except (TypeError, ValueError):
                continue
            return max(when.timestamp() - time.time(), 0.0)
    return None
