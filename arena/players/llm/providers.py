"""Provider adapters: the same conversation and schemas, sent the way each SDK documents.

**One tool per legal kind.** A decision may allow several kinds at once (``speak`` or ``pass``,
``kill`` or ``declare_cop`` …). Both SDKs take a list of tools and a tool choice that forces a
call (OpenAI ``tool_choice="required"`` or a named function; Anthropic ``{"type": "any"}`` or
``{"type": "tool", "name": …}``), with parallel calls switched off so exactly one action comes
back. One tool per kind is preferred over a single tool whose argument is the union because
(1) OpenAI strict mode does not allow a union at the root of a function's parameters, so a union
tool would need an extra ``{"action": …}`` wrapper level; (2) each tool then carries the kind's
own description, and the model chooses a kind the way it is trained to choose tools; (3) with a
single legal kind the tool can be named in ``tool_choice``, which is the strongest guarantee both
APIs offer. ``json_schema`` mode (OpenAI ``response_format``; Anthropic ``output_config``) uses
the wrapper, since a response format has exactly one root object.

**Caching.** Prompts are append-only (see :mod:`arena.players.llm.prompt`): the system prompt
comes first and never changes, earlier turns are never re-rendered. Anthropic gets two
``cache_control`` breakpoints: the system block and the last block of the newest message (which
the next call repeats verbatim, so it reads everything up to there from the cache). OpenAI caches
prefixes automatically; ``prompt_cache_key`` (official endpoint only) keeps one player's calls on
the same cache. Tool definitions precede the messages in both providers' cache key, so a call
whose legal kinds or names differ from the previous call's misses the cache for that call; the
``json_text`` mode keeps the schema in the newest message instead.
"""

from __future__ import annotations

import json
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


def _tool_description(schema: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    params = dict(schema)
    description = params.pop("description", "") or ""
    return description.split("\n\n")[0], params


class OpenAIBackend:
    """Chat Completions (the API every OpenAI-compatible server speaks)."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.official = profile.base_url is None

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
        mode, strict = self.profile.structured, self.profile.strict_schema
        if mode == "tools":
            tools = []
            for kind, schema in schemas.sent.items():
                description, params = _tool_description(schema)
                function: dict[str, Any] = {"name": kind, "description": description, "parameters": params}
                if strict:
                    function["strict"] = True
                tools.append({"type": "function", "function": function})
            choice: Any = {"type": "function", "function": {"name": schemas.kinds[0]}} if len(tools) == 1 else "required"
            return {"tools": tools, "tool_choice": choice, "parallel_tool_calls": False}
        if mode == "json_schema":
            spec: dict[str, Any] = {"name": "action", "schema": schemas.wrapped()}
            if strict:
                spec["strict"] = True
            return {"response_format": {"type": "json_schema", "json_schema": spec}}
        return {}

    def build(self, system: str, messages: list[dict[str, str]], structured: dict[str, Any], cache_key: str) -> dict[str, Any]:
        p = self.profile
        kwargs: dict[str, Any] = {
            "model": p.model,
            "messages": [{"role": "system", "content": system}, *(dict(m) for m in messages)],
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
            return Reply(raw, name, None, usage, choice.finish_reason)
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
        mode, strict = self.profile.structured, self.profile.strict_schema
        if mode == "tools":
            tools = []
            for kind, schema in schemas.sent.items():
                description, params = _tool_description(schema)
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

    def build(self, system: str, messages: list[dict[str, str]], structured: dict[str, Any], cache_key: str) -> dict[str, Any]:
        p = self.profile
        body = [{"role": m["role"], "content": [{"type": "text", "text": m["content"]}]} for m in messages]
        if body:
            body[-1]["content"][-1]["cache_control"] = CACHE
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
                return Reply(json.dumps(arguments, ensure_ascii=False), block.name, arguments, usage, response.stop_reason)
            if kind == "text":
                texts.append(block.text)
        return Reply("".join(texts), None, None, usage, response.stop_reason)


def backend_for(profile: Profile) -> OpenAIBackend | AnthropicBackend:
    return OpenAIBackend(profile) if profile.provider == "openai" else AnthropicBackend(profile)


def transport_error(exc: BaseException) -> tuple[bool, int | None]:
    """(is it the network's or the provider's passing fault?, HTTP status if any).

    Retried: timeouts, connection errors, 408, 409, 429 and every 5xx (529 overloaded included).
    Not retried: other 4xx (a bad key, an unknown model, a schema the provider refuses), which
    no wait will fix.
    """
    status = getattr(exc, "status_code", None)
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "APIConnectionError" in names or "APITimeoutError" in names:
        return True, None
    if isinstance(status, int):
        return status in (408, 409, 429) or status >= 500, status
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
