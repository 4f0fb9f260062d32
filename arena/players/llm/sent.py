"""What a model seat was sent: provider requests rebuilt from call records, and shown as text.

A call record (:meth:`LLMPlayer.prepare`) keeps the prompt append-only — the system prompt on the
first call, then only the messages new since the previous call — with the schema when it changed
and the request's other parameters (``params``: model, token limit, tool choice, …). Laid end to
end, the records of one seat rebuild each request as the provider received it: the same JSON the
SDK sent, which :func:`render` shows as text (``arena prompts``, docs/llm.md "Reading a seat's
prompts"). The loopback stand-in of the tests checks the two agree, request by request.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from typing import Any

from .providers import CACHE, AnthropicBackend, OpenAIBackend

#: request keys shown in their own sections, in this order; the others are "params"
SECTIONS = ("system", "tools", "response_format", "output_config", "schema")


def rebuild(calls: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each call's request body, from one seat's call records in order (``call`` dicts)."""
    system: str | None = None
    messages: list[dict[str, Any]] = []
    structured: dict[str, Any] = {}
    bodies = []
    for call in calls:
        prompt = call.get("prompt") or {}
        if call.get("type") == "belief_call":  # asked beside the game: the seat's conversation goes on without it
            shown = messages[: prompt.get("shared_messages", len(messages))] + list(prompt.get("new_messages") or [])
            rest = {**dict(call.get("schema") or {}), **dict(call.get("params") or {"model": call.get("model")})}
            rest.pop("json_text", None)
            bodies.append(body(str(call.get("provider")), prompt.get("system") or system or "", shown, rest))
            continue
        if prompt.get("system") is not None:
            system = prompt["system"]
        messages = messages[: prompt.get("shared_messages", len(messages))] + list(prompt.get("new_messages") or [])
        if call.get("schema") is not None:
            schema = dict(call["schema"])
            structured = {} if set(schema) == {"json_text"} else schema  # the schema travelled in the message
        params = call.get("params") or {"model": call.get("model")}  # older transcripts kept the model only
        bodies.append(body(str(call.get("provider")), system or "", messages, {**structured, **params}))
        answer = call.get("appended") or _answer(call)
        if answer is not None:
            messages.append(answer)
    return bodies


def _answer(call: Mapping[str, Any]) -> dict[str, Any] | None:
    """The answer of a call recorded before ``appended`` was (the tool call's id is a guess)."""
    if call.get("outcome") not in ("ok", "malformed"):
        return None
    raw = str(call.get("raw") or "")
    turn: dict[str, Any] = {"role": "assistant", "content": raw if raw.strip() else "(empty answer)"}
    if call.get("tool"):
        arguments = call.get("action") if isinstance(call.get("action"), dict) else {}
        call_id = f"call_{call.get('request')}_{call.get('try')}"
        turn["call"] = {"id": call_id, "name": call["tool"], "arguments": raw, "input": arguments}
    return turn


def body(provider: str, system: str, messages: list[dict[str, Any]], rest: Mapping[str, Any]) -> dict[str, Any]:
    """The request of one call, as each backend's ``build`` lays it out (``rest``: schema and params)."""
    messages = copy.deepcopy(messages)
    if provider == "anthropic":
        history = AnthropicBackend.history(messages)
        return {"system": [{"type": "text", "text": system, "cache_control": CACHE}], "messages": history, **rest}
    if provider == "openai":
        return {"messages": OpenAIBackend.messages(system, messages), **rest}
    return {"system": system, "messages": [dict(m) for m in messages], **rest}  # local: the neutral form


def _json(value: Any) -> str:
    """Compact JSON; a list (the tools) one item a line."""
    if isinstance(value, list) and value:
        return "\n".join(json.dumps(item, ensure_ascii=False) for item in value)
    return json.dumps(value, ensure_ascii=False)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else _json(value)


def _block(block: Any) -> list[str]:
    """One content block of a message (Anthropic's, or a plain string)."""
    if not isinstance(block, dict):
        return [_text(block)]
    mark = " [cache breakpoint]" if block.get("cache_control") else ""
    kind = block.get("type")
    if kind == "text":
        return [str(block.get("text", "")), *([mark.strip()] if mark else [])]
    if kind == "tool_use":
        return [f"(tool_use {block.get('name')} id={block.get('id')}){mark}", _json(block.get("input"))]
    if kind == "tool_result":
        error = " error" if block.get("is_error") else ""
        return [f"(tool_result id={block.get('tool_use_id')}{error}){mark}", _text(block.get("content"))]
    rest = {k: v for k, v in block.items() if k != "cache_control"}
    return [f"({kind}){mark}", _json(rest)]


def message_lines(message: Mapping[str, Any]) -> list[str]:
    """One message of a request as text: its role, then what it carries."""
    head = f"[{message.get('role')}"
    if message.get("tool_call_id"):
        head += f" tool_call_id={message['tool_call_id']}"
    lines = [head + "]"]
    content = message.get("content")
    if isinstance(content, list):
        for block in content:
            lines.extend(_block(block))
    elif content is not None:
        lines.append(_text(content))
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        lines.append(f"(tool call {function.get('name')} id={call.get('id')})")
        lines.append(str(function.get("arguments")))
    extra = {k: v for k, v in message.items() if k not in ("role", "content", "tool_calls", "tool_call_id")}
    if extra:
        lines.append(_json(extra))
    return lines


def _system_text(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(line for block in value for line in _block(block))
    return _text(value)


def _plain(node: Any) -> Any:
    """A message with its cache breakpoints left out (they move to the newest message each call)."""
    if isinstance(node, dict):
        return {k: _plain(v) for k, v in node.items() if k != "cache_control"}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


def render(body: Mapping[str, Any], previous: Mapping[str, Any] | None = None) -> str:
    """A request as text. With ``previous`` (the seat's request before it), only what changed:
    the parts that differ, and the messages after those the two share."""
    out: list[str] = []
    same = [k for k in (*SECTIONS, "params") if previous is not None and _part(previous, k) == _part(body, k)]
    for key in SECTIONS:
        if key not in body:
            continue
        if key in same:
            out.append(f"[{key}: as before]")
        else:
            out.append(f"[{key}]")
            out.append(_system_text(body[key]) if key == "system" else _json(body[key]))
    params = _part(body, "params")
    if "params" in same:
        out.append("[params: as before]")
    elif params:
        out.append("[params]")
        out.append(json.dumps(params, ensure_ascii=False, sort_keys=True))
    messages = list(body.get("messages") or [])
    shared = 0
    if previous is not None:
        before = [_plain(m) for m in previous.get("messages") or []]
        while shared < min(len(before), len(messages)) and before[shared] == _plain(messages[shared]):
            shared += 1
    if shared:
        out.append(f"[messages 1–{shared}: as before]")
    for number, message in enumerate(messages[shared:], shared + 1):
        out.append(f"--- message {number} ---")
        out.extend(message_lines(message))
    return "\n".join(out)


def _part(body: Mapping[str, Any], key: str) -> Any:
    if key == "params":
        return {k: v for k, v in body.items() if k not in SECTIONS and k != "messages"}
    return body.get(key)
