"""A loopback model server for offline tests: OpenAI chat completions and Anthropic messages.

It answers from the schema it receives and nothing else (the tool list and tool choice, a
``response_format`` / ``output_config`` schema, or a JSON schema quoted in the last message), which
proves that the schema alone is enough to act. It can inject faults at a configurable rate: 429
with ``Retry-After``, 500/503/529, a hang past the client's timeout, malformed JSON and illegal
targets. Each request's fate comes from a RNG seeded by (seed, request body, how often that body
was seen), so a game replays identically whatever order concurrent requests arrive in.

It also simulates prefix caching (cached tokens = the longest prefix shared with one of the same
player's recent requests, tool definitions first, then the response format, on Anthropic the tool
choice, the system prompt and the messages with their tool calls and results; from 1024 tokens
on) so that usage accounting is exercised end to end. Like OpenAI, it honours
``tool_choice: {"type": "allowed_tools"}`` (the model calls one of the tools named there).

Run it by hand: ``python tests/llm_server.py --port 8765 --faults 0.3``.
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import json
import random
import re
import threading
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("429", "500", "hang", "malformed", "illegal")
SEAT = re.compile(r"seat name is (\S+?)\.")
FENCED = re.compile(r"```json\s*(.*?)```", re.DOTALL)
CHUNK = 4096  # characters compared at once when measuring shared prefixes
CACHE_ENTRIES = 10  # recent prompts per player a cache hit may come from (Anthropic looks back 20 blocks)
WORDS = ("I", "suspect", "trust", "watch", "nobody", "quiet", "vote", "careful", "tonight", "town")


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(block.get("text", "") for block in content if isinstance(block, dict))
    return ""


def _uncached(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _uncached(v) for k, v in node.items() if k != "cache_control"}
    if isinstance(node, list):
        return [_uncached(v) for v in node]
    return node


def prompt_text(api: str, body: dict[str, Any]) -> str:
    """A request's prompt in the order providers read it (cache markers left out): tools, format,
    (Anthropic: the tool choice, whose change invalidates cached messages), system, messages."""
    parts = [json.dumps(_uncached(body.get("tools", [])), sort_keys=True)]
    if api == "openai":
        parts.append(json.dumps(body.get("response_format"), sort_keys=True))
    else:
        parts.append(json.dumps(body.get("output_config"), sort_keys=True))
        parts.append(json.dumps(body.get("tool_choice"), sort_keys=True))
        parts.append("system: " + _text_of(body.get("system")))
    for m in body.get("messages", []):
        content = m.get("content")
        text = content if isinstance(content, str) else json.dumps(_uncached(content), sort_keys=True)
        calls = f" {json.dumps(m['tool_calls'], sort_keys=True)}" if m.get("tool_calls") else ""
        parts.append(f"{m['role']}: {text}{calls}")
    return "\n".join(parts)


def history_error(api: str, body: dict[str, Any]) -> str | None:
    """What a provider would refuse in a request's history (as it says it, roughly), or None.

    OpenAI: an assistant ``tool_calls`` message must be followed by a ``tool`` message for each
    call. Anthropic: the message after a ``tool_use`` block must open with its ``tool_result``, and
    a request holding either must define tools.
    """
    messages = body.get("messages") or []
    for i, m in enumerate(messages):
        if api == "openai":
            calls = [c["id"] for c in m.get("tool_calls") or ()]
            answered = [n.get("tool_call_id") for n in messages[i + 1 : i + 1 + len(calls)] if n.get("role") == "tool"]
            if calls and answered != calls:
                return f"messages.{i}: assistant tool_calls must be followed by tool messages for {calls}"
            if m.get("role") == "tool" and not (messages[i - 1].get("tool_calls") or messages[i - 1].get("role") == "tool"):
                return f"messages.{i}: a tool message must follow an assistant message with tool_calls"
            continue
        content = m.get("content") if isinstance(m.get("content"), list) else []
        uses = [b["id"] for b in content if b.get("type") == "tool_use"]
        if (uses or any(b.get("type") == "tool_result" for b in content)) and not body.get("tools"):
            return "requests which include tool_use or tool_result blocks must define tools"
        if uses:
            after = messages[i + 1]["content"] if i + 1 < len(messages) else []
            results = [b.get("tool_use_id") for b in after if isinstance(b, dict) and b.get("type") == "tool_result"]
            if results != uses:
                return f"messages.{i + 1}: tool_use ids were found without tool_result blocks immediately after: {uses}"
    return None


class Generator:
    """Fills a JSON schema with plausible random values (enums honoured, nulls sometimes)."""

    def __init__(self, rng: random.Random, player: str, counter: int, fill: Mapping[str, int] | None = None) -> None:
        self.rng = rng
        self.player = player
        self.counter = counter
        self.fill = dict(fill or {})  # field -> characters: at that length (answers at their bounds); a thought always

    def padded(self, text: str, chars: int) -> str:
        """``text`` and random words after it, cut to exactly ``chars`` characters."""
        while len(text) < chars:
            text += " " + self.rng.choice(WORDS)
        return text[:chars]

    def value(self, schema: dict[str, Any], name: str = "", required: bool = True) -> Any:
        rng = self.rng
        if "anyOf" in schema:
            branches = schema["anyOf"]
            real = [b for b in branches if b.get("type") != "null"]
            always = name == "thought" and "thought" in self.fill  # a model using its allowance always thinks
            if len(real) < len(branches) and (not real or (not always and rng.random() < 0.5)):
                return None
            return self.value(rng.choice(real), name)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return rng.choice(schema["enum"])
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = rng.choice([k for k in kind if k != "null"] or ["null"])
        if kind == "object":
            if isinstance(schema.get("additionalProperties"), dict) and not schema.get("properties"):
                return {}
            out = {}
            needed = set(schema.get("required", ()))
            for prop, sub in (schema.get("properties") or {}).items():
                if prop in needed or rng.random() < 0.5:
                    out[prop] = self.value(sub, prop)
            return out
        if kind == "array":
            items = schema.get("items") or {"type": "string"}
            limit = _max_items(schema)
            count = rng.randint(0, min(limit, 2))
            values = [self.value(items, name) for _ in range(count)]
            return list(dict.fromkeys(values)) if all(isinstance(v, str) for v in values) else values
        if kind == "boolean":
            return rng.random() < 0.5
        if kind in ("integer", "number"):
            return rng.randint(1, 3)
        if kind == "null":
            return None
        if name == "thought":
            thought = f"SECRET-{self.player}-{self.counter:05d} I weigh who to trust."
            return self.padded(thought, self.fill["thought"]) if "thought" in self.fill else thought
        if name == "speech":
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9)))
            speech = f"{self.player} here: {words}."
            return self.padded(speech, self.fill["speech"]) if "speech" in self.fill else speech
        if name == "key":
            return self.player
        return "x"


def _max_items(schema: dict[str, Any]) -> int:
    if "maxItems" in schema:
        return int(schema["maxItems"])
    found = re.search(r"at most (\d+) items", schema.get("description", ""))
    if found:
        return int(found.group(1))
    if "must be empty" in schema.get("description", ""):
        return 0
    return 2


def _make_illegal(args: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Break one field the way a careless model would (a name that is not legal, a wrong type)."""
    for prop, sub in (schema.get("properties") or {}).items():
        branches = sub.get("anyOf", [sub])
        if prop != "kind" and any("enum" in b for b in branches):
            return {**args, prop: "Nobody"}
    if "yes" in (schema.get("properties") or {}):
        return {**args, "yes": "maybe"}
    return {**args, "surprise": 1}


class FakeModelServer:
    """The server; use as a context manager, then point an SDK at ``openai_url`` / ``anthropic_url``."""

    def __init__(
        self,
        seed: int = 0,
        fault_rate: float = 0.0,
        faults: tuple[str, ...] = FAULTS,
        hang: float = 0.5,
        retry_after: str = "0",
        port: int = 0,
        gate: Gate | None = None,
        answer_chars: Mapping[str, int] | None = None,
    ) -> None:
        self.gate = gate or Gate()
        #: field -> characters: every answer's thought and speech at that length (benchmarks/dollars.py:
        #: the answers read back are as long as the output priced); None: short random ones
        self.answer_chars = dict(answer_chars or {})
        self.seed = seed
        self.fault_rate = fault_rate
        self.faults = tuple(faults)
        self.hang = hang
        self.retry_after = retry_after
        self.port = port
        self.log: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._seen: Counter[str] = Counter()
        self._recent: dict[str, list[str]] = {}
        self.in_flight = 0
        self.max_in_flight = 0  # the most requests ever handled at once (concurrency limits)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle --------------------------------------------------------------------------
    def __enter__(self) -> FakeModelServer:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = _Server(("127.0.0.1", self.port), handler)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def fault_counts(self) -> Counter[str]:
        return Counter(entry["fault"] for entry in self.log if entry["fault"])

    # ---- answering ----------------------------------------------------------------------------
    def handle(self, api: str, raw: bytes) -> tuple[int, dict[str, str], dict[str, Any], float]:
        """(status, headers, JSON body, seconds to stall first) for one request."""
        body = json.loads(raw)
        refused = history_error(api, body)
        if refused is not None:
            return 400, {}, _error(api, 400, refused), 0.0
        digest = hashlib.sha256(raw).hexdigest()
        first = (body.get("messages") or [{}])[0]
        system = _text_of(body.get("system") if api == "anthropic" else first.get("content"))
        match = SEAT.search(system)
        player = match.group(1) if match else "someone"
        text = prompt_text(api, body)
        with self._lock:
            self._seen[digest] += 1
            counter = int(digest[:8], 16) % 100_000 + self._seen[digest]  # not arrival order: replayable
            rng = random.Random(f"{self.seed}:{digest}:{self._seen[digest]}")
            fault = rng.choice(self.faults) if self.faults and rng.random() < self.fault_rate else None
            recent = list(self._recent.get(f"{api}:{player}", ()))
            entry = {"api": api, "player": player, "body": body, "fault": fault, "prompt": text}
            self.log.append(entry)
        if fault == "429":
            return 429, {"retry-after": self.retry_after}, _error(api, 429, "rate limited, slow down"), 0.0
        if fault == "500":
            status = rng.choice((500, 503, 529 if api == "anthropic" else 502))
            return status, {}, _error(api, status, "the server had a problem"), 0.0
        stall = self.hang if fault == "hang" else 0.0
        with self._lock:
            self._recent.setdefault(f"{api}:{player}", []).append(text)
            del self._recent[f"{api}:{player}"][:-CACHE_ENTRIES]
        usage = _usage(text, recent)
        gen = Generator(rng, player, counter, self.answer_chars)
        if api == "openai":
            return 200, {}, self._openai(body, gen, fault, usage), stall
        return 200, {}, self._anthropic(body, gen, fault, usage), stall

    def _choose(self, body: dict[str, Any], gen: Generator) -> tuple[str, dict[str, Any], dict[str, Any]] | None:
        """(tool name, schema, arguments) from the tools the request offers, honouring tool_choice."""
        tools = body.get("tools") or []
        if not tools:
            return None
        by_name = {}
        for tool in tools:
            if "function" in tool:
                by_name[tool["function"]["name"]] = tool["function"].get("parameters") or {}
            else:
                by_name[tool["name"]] = tool.get("input_schema") or {}
        choice = body.get("tool_choice")
        named = None
        allowed = sorted(by_name)
        if isinstance(choice, dict):
            named = choice.get("name") or (choice.get("function") or {}).get("name")
            if choice.get("type") == "allowed_tools":  # OpenAI: call one of these, the tool list unchanged
                listed = [(t.get("function") or t).get("name") for t in choice["allowed_tools"]["tools"]]
                allowed = sorted(n for n in listed if n in by_name) or allowed
        name = named if named in by_name else gen.rng.choice(allowed)
        schema = by_name[name]
        return name, schema, gen.value(schema)

    def _schema_answer(self, body: dict[str, Any], gen: Generator, fault: str | None) -> str:
        """A JSON text answer to a response-format schema or to a schema quoted in the prompt."""
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        schema = schema or ((body.get("output_config") or {}).get("format") or {}).get("schema")
        if schema is None:  # the newest schema quoted in the conversation (it is not repeated unchanged)
            quoted = [q for m in body.get("messages", []) if m["role"] == "user" for q in FENCED.findall(_text_of(m["content"]))]
            schema = json.loads(quoted[-1]) if quoted else {"type": "object", "properties": {}}
        target = schema
        if "anyOf" in schema:  # json_text with several kinds: pick one
            target = gen.rng.choice(schema["anyOf"])
        value = gen.value(target)
        if "anyOf" not in schema and set(schema.get("properties", {})) == {"action"}:
            target = gen.rng.choice(schema["properties"]["action"]["anyOf"])
            value = {"action": gen.value(target)}
        if fault == "illegal":
            value = _make_illegal(value["action"], target) if "action" in value else _make_illegal(value, target)
        if fault == "malformed":
            return json.dumps(value)[:-3]
        return "```json\n" + json.dumps(value) + "\n```"

    def _openai(self, body: dict[str, Any], gen: Generator, fault: str | None, usage: dict[str, int]) -> dict[str, Any]:
        picked = self._choose(body, gen)
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if picked is not None:
            name, schema, args = picked
            if fault == "illegal":
                args = _make_illegal(args, schema)
            arguments = json.dumps(args)
            if fault == "malformed":
                arguments = arguments[: max(len(arguments) // 2, 1)]
            message["tool_calls"] = [
                {"id": f"call_{gen.counter}", "type": "function", "function": {"name": name, "arguments": arguments}}
            ]
            finish, out = "tool_calls", arguments
        else:
            out = self._schema_answer(body, gen, fault)
            message["content"] = out
            finish = "stop"
        return {
            "id": f"chatcmpl-{gen.counter}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
            "usage": {
                "prompt_tokens": usage["total"],
                "completion_tokens": len(out) // 4 + 1,
                "total_tokens": usage["total"] + len(out) // 4 + 1,
                "prompt_tokens_details": {"cached_tokens": usage["cached"]},
                "completion_tokens_details": {"reasoning_tokens": 0},
            },
        }

    def _anthropic(self, body: dict[str, Any], gen: Generator, fault: str | None, usage: dict[str, int]) -> dict[str, Any]:
        picked = self._choose(body, gen)
        if picked is not None and fault != "malformed":
            name, schema, args = picked
            if fault == "illegal":
                args = _make_illegal(args, schema)
            content = [{"type": "tool_use", "id": f"toolu_{gen.counter}", "name": name, "input": args}]
            stop, out = "tool_use", json.dumps(args)
        else:
            out = "I would rather explain myself in prose." if picked is not None else self._schema_answer(body, gen, fault)
            content = [{"type": "text", "text": out}]
            stop = "end_turn"
        written = usage["total"] - usage["cached"] if usage["total"] >= 1024 else 0
        return {
            "id": f"msg_{gen.counter}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "fake"),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": usage["total"] - usage["cached"] - written,
                "cache_read_input_tokens": usage["cached"],
                "cache_creation_input_tokens": written,
                "output_tokens": len(out) // 4 + 1,
            },
        }


class SlowServer(FakeModelServer):
    """The loopback server answering every request ``latency`` seconds after it arrived (a model's latency)."""

    def __init__(self, latency: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.latency = latency

    def handle(self, api: str, raw: bytes) -> tuple[int, dict[str, str], dict[str, Any], float]:
        status, headers, body, stall = super().handle(api, raw)
        return status, headers, body, stall + self.latency


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix (block by block at C speed, then a binary search)."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i : i + CHUNK] == b[i : i + CHUNK]:
        i += CHUNK
    if i >= n:
        return n
    lo, hi = i, min(i + CHUNK, n)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[i:mid] == b[i:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class PrefixSet:
    """Earlier prompts of one seat, sorted: the longest prefix a new prompt shares with any of them
    is shared with a sorted neighbour, so each new prompt costs two comparisons."""

    def __init__(self) -> None:
        self.sorted: list[str] = []

    def add(self, text: str) -> int:
        """Insert ``text``; return the longest prefix it shares with an earlier one."""
        i = bisect.bisect_left(self.sorted, text)
        best = 0
        for j in (i - 1, i):
            if 0 <= j < len(self.sorted):
                best = max(best, common_prefix(text, self.sorted[j]))
        self.sorted.insert(i, text)
        return best


def reuse(log: list[dict[str, Any]]) -> dict[str, Any]:
    """How much of each request a provider could serve from its cache, per seat (``api:player``).

    A call's share is the longest prefix (tools first, as :func:`prompt_text` reads a request) it
    shares with an earlier call of the same seat, over its length. Returns, per seat, the shares
    of its calls after the first, its prompt characters and the characters no earlier call shared
    (first calls whole), and whether its tools, format, (Anthropic) tool choice and system prompt
    were byte-identical in every call.
    """
    seats: dict[str, dict[str, Any]] = {}
    for entry in log:
        api, body = entry["api"], entry["body"]
        text = prompt_text(api, body)
        seat = seats.setdefault(
            f"{api}:{entry['player']}",
            {"prefixes": PrefixSet(), "shares": [], "chars": 0, "uncached": 0, "head": None, "fixed": True},
        )
        first = seat["head"] is None
        shared = seat["prefixes"].add(text)
        seat["chars"] += len(text)
        seat["uncached"] += len(text) - shared
        if not first:
            seat["shares"].append(shared / len(text))
        system = body.get("system") if api == "anthropic" else body["messages"][0]
        form = body.get("response_format") if api == "openai" else body.get("output_config")
        head = json.dumps(
            [_uncached(body.get("tools")), form, body.get("tool_choice") if api == "anthropic" else None, _uncached(system)]
        )
        seat["fixed"] &= first or head == seat["head"]
        seat["head"] = head
    return seats


def _usage(text: str, recent: list[str]) -> dict[str, int]:
    """Tokens (4 characters each) and the longest prefix shared with a recent request."""
    total = len(text) // 4 + 1
    shared = max((common_prefix(text, old) for old in recent), default=0) // 4
    return {"total": total, "cached": shared if shared >= 1024 else 0}


def _error(api: str, status: int, message: str) -> dict[str, Any]:
    if api == "openai":
        return {"error": {"message": message, "type": "server_error", "code": status}}
    kind = {
        401: "authentication_error", 403: "permission_error", 404: "not_found_error", 429: "rate_limit_error",
        529: "overloaded_error",
    }.get(status, "api_error")  # fmt: skip
    return {"type": "error", "error": {"type": kind, "message": message}}


def _model_of(raw: bytes) -> str | None:
    try:
        body = json.loads(raw)
    except ValueError:
        return None
    return body.get("model") if isinstance(body, dict) else None


def request_key(headers: Any) -> str:
    """The key a request carries (OpenAI: ``Authorization: Bearer``; Anthropic: ``x-api-key``)."""
    if headers.get("x-api-key"):
        return str(headers["x-api-key"])
    return str(headers.get("authorization") or "").removeprefix("Bearer ").strip()


@dataclass
class Gate:
    """What the server refuses, like a real provider: a wrong key (401, the key echoed back in the
    message as OpenAI does), every key (403), an unknown model (404); and an outage after
    ``fail_after`` model calls (``fail_status`` to every later call, the key echoed when
    ``echo_key``). The defaults refuse nothing."""

    keys: frozenset[str] | None = None  # accepted keys; None: any
    forbidden: bool = False
    models: frozenset[str] | None = None  # known models; None: any (the list is then empty)
    fail_after: int | None = None
    fail_status: int = 503
    echo_key: bool = False
    calls: int = 0  # model calls answered or refused so far
    lock: threading.Lock = field(default_factory=threading.Lock)

    def check(self, api: str, headers: Any, model: str | None, *, post: bool) -> tuple[int, dict[str, str], Any] | None:
        key = request_key(headers)
        if self.keys is not None and key not in self.keys:
            return (
                401,
                {},
                _error(api, 401, f"Incorrect API key provided: {key}. Find your key on your account page."),
            )
        if self.forbidden:
            return 403, {}, _error(api, 403, f"Project does not have access to model {model}")
        if model is not None and self.models is not None and model not in self.models:
            return 404, {}, _error(api, 404, f"The model `{model}` does not exist or you do not have access to it.")
        if not post:
            return None
        with self.lock:
            self.calls += 1
            failing = self.fail_after is not None and self.calls > self.fail_after
        if not failing:
            return None
        echo = f" (request with key {key}; header Authorization: Bearer {key})" if self.echo_key else ""
        return self.fail_status, {}, _error(api, self.fail_status, f"upstream is down{echo}")

    def models_page(self, api: str, model: str | None) -> dict[str, Any]:
        def entry(name: str) -> dict[str, Any]:
            if api == "anthropic":
                return {"type": "model", "id": name, "display_name": name, "created_at": "2025-01-01T00:00:00Z"}
            return {"id": name, "object": "model", "created": 0, "owned_by": "loopback"}

        if model is not None:
            return entry(model)
        names = sorted(self.models or ())
        if api == "anthropic":
            first, last = (names[0], names[-1]) if names else (None, None)
            return {"data": [entry(n) for n in names], "has_more": False, "first_id": first, "last_id": last}
        return {"object": "list", "data": [entry(n) for n in names]}


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (it timed out on a hang fault) is expected: stay quiet."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body in one go: no 40 ms delayed-ACK stall
    fake: FakeModelServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.path.endswith("/chat/completions"):
            api = "openai"
        elif self.path.endswith("/v1/messages"):
            api = "anthropic"
        else:
            self._send(404, {}, {"error": {"message": f"no route {self.path}"}})
            return
        fake = self.fake
        refused = fake.gate.check(api, self.headers, _model_of(raw), post=True)
        if refused is not None:
            self._send(*refused)
            return
        with fake._lock:
            fake.in_flight += 1
            fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
        try:
            status, headers, payload, stall = fake.handle(api, raw)
            if stall:
                time.sleep(stall)
        except (ValueError, KeyError) as exc:
            status, headers, payload = 400, {}, _error(api, 400, f"bad request: {exc}")
        finally:
            with fake._lock:
                fake.in_flight -= 1
        self._send(status, headers, payload)

    def do_GET(self) -> None:
        """The model list and a model's page (``/v1/models``, ``/v1/models/{id}``), as both APIs have them."""
        api = "anthropic" if "anthropic-version" in self.headers else "openai"
        path = self.path.split("?")[0].rstrip("/")
        if not path.endswith("/models") and "/models/" not in path:
            self._send(404, {}, _error(api, 404, f"no route {self.path}"))
            return
        model = path.rsplit("/models/", 1)[1] if "/models/" in path else None
        refused = self.fake.gate.check(api, self.headers, model, post=False)
        self._send(*(refused or (200, {}, self.fake.gate.models_page(api, model))))

    def _send(self, status: int, headers: dict[str, str], payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (a hang fault): nothing to do


def main() -> None:
    parser = argparse.ArgumentParser(description="Loopback OpenAI/Anthropic look-alike for offline games.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--faults", type=float, default=0.0, help="share of requests that fail (0-1)")
    args = parser.parse_args()
    with FakeModelServer(seed=args.seed, fault_rate=args.faults, port=args.port) as server:
        print(f"OpenAI base URL {server.openai_url}; Anthropic base URL {server.anthropic_url}; Ctrl-C stops")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()


def is_mode_probe(body: dict[str, Any]) -> bool:
    """A request of the check's mode probe (a duel's first beat, arena/players/llm/modes.py), not of a game."""
    first = (body.get("messages") or [{}])[0]
    system = _text_of(body.get("system") if "system" in body else first.get("content"))
    return system.startswith("This is a connection check before a game")  # prompts/system/_probe.j2


def game_calls(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A stand-in's log without each run's endpoint check (its "ping" and its mode probe)."""
    ping = [{"role": "user", "content": "ping"}]
    return [e for e in log if e["body"].get("messages") != ping and not is_mode_probe(e["body"])]
