"""Prompts: one player's own view, rendered append-only as a message history.

The system prompt (``prompts/system/<variant>.j2``) is rendered once per game and never changes.
Each decision appends one user turn: the events of the player's view since its previous call
(``blocks/observations.j2``) and the question (``decisions/<group>.j2``); the answer is appended as
an assistant turn. Nothing earlier is ever re-rendered, so every call's prompt starts with the
previous call's whole prompt and providers can serve it from their prefix cache.

Only ``view.events`` and the request reach a template: both are this player's own, so a prompt can
hold nothing the player may not know. Other players' words are quoted as data between
``<speech from="NAME">`` delimiters that their text cannot close.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2

from arena.engine import ActionBase, DecisionRequest, Event, View, dump_action

PROMPTS_ENV = "ARENA_PROMPTS"
NO_ANSWER = "(No answer reached the moderator: the connection to the model failed.)"


def prompts_dir() -> Path:
    env = os.environ.get(PROMPTS_ENV)
    return Path(env) if env else Path(__file__).resolve().parents[3] / "prompts"


def _quote(text: Any) -> str:
    """Neutralize anything in quoted speech that could close or open a delimiter."""
    text = str(text or "")
    return re.sub(r"<(/?)(speech)", r"‹\1\2", text, flags=re.IGNORECASE)


def _names(value: Any) -> str:
    if value is None:
        return "nobody"
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(map(str, value)) if value else "nobody"
    return str(value)


def _plain(value: Any) -> Any:
    if isinstance(value, ActionBase):
        return dump_action(value)
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _action_summary(action: Any) -> str:
    """A compact, deterministic one-line summary of an action dict (no private thought)."""
    if not isinstance(action, Mapping):
        return json.dumps(action, ensure_ascii=False, default=str)
    parts = [str(action.get("kind", "?"))]
    for key, value in action.items():
        if key in ("kind", "thought") or value in (None, "", [], ()):
            continue
        if key == "speech":
            parts.append(f"speech {json.dumps(value, ensure_ascii=False)}")
        else:
            parts.append(f"{key} {json.dumps(value, ensure_ascii=False)}")
    return " ".join(parts)


@functools.cache
def _env_for(directory: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(directory),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
    )
    env.filters.update(quote=_quote, names=_names, summary=_action_summary, tojson_compact=_compact)
    return env


def make_env(directory: Path | None = None) -> jinja2.Environment:
    """The template environment of a prompts directory (one per process: templates compile once)."""
    return _env_for(str(directory or prompts_dir()))


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _tidy(text: str) -> str:
    text = re.sub(r"[ \t]+\n", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def event_context(event: Event, me: str) -> dict[str, Any]:
    return {
        "type": event.type,
        "day": event.day,
        "phase": event.phase,
        "actor": event.actor,
        "mine": event.actor == me,
        "audience": event.audience,
        "public": event.to is None,
        "data": _plain(dict(event.data)),
    }


def request_context(request: DecisionRequest) -> dict[str, Any]:
    options = []
    for option in request.options:
        fields = []
        for name, spec in option.fields.items():
            fields.append({
                "name": name,
                "choices": list(spec.choices) if spec.choices is not None else None,
                "nullable": spec.nullable,
                "max_items": spec.max_items,
                "forbidden": dict(spec.forbidden),
            })  # fmt: skip
        options.append({"kind": option.kind, "fields": fields})
    return {
        "id": request.id,
        "question": request.question,
        "group": request.group,
        "role": request.role,
        "day": request.day,
        "phase": request.phase,
        "alive": list(request.alive),
        "seats": list(request.seats),
        "talk": request.talk,
        "max_speech": request.max_speech,
        "clock": str(request.clock) if request.clock else None,
        "info": _plain(dict(request.info)),
        "options": options,
        "kinds": list(request.kinds),
    }


class Conversation:
    """One player's append-only message history (system prompt + alternating turns)."""

    def __init__(
        self,
        me: str,
        variant: str | None,
        options: Mapping[str, Any] | None,
        mode: str,
        env: jinja2.Environment,
        short: bool = False,
    ) -> None:
        self.me = me
        self.short = short  # the short system prompt (small local models): see prompts/system/_base.j2
        self.variant = variant
        self.options = dict(options or {})
        self.mode = mode
        self.env = env
        self.system: str | None = None
        self.messages: list[dict[str, str]] = []
        self.seen = 0  # events of the view already rendered
        self.last_alive: list[str] | None = None  # repeated only when it changed
        self.last_schema = ""
        self.groups_seen: set[str] = set()  # a group's standing guidance is given once

    def _template(self, kind: str, name: str | None) -> jinja2.Template:
        candidates = [f"{kind}/{name}.j2"] if name else []
        return self.env.select_template([*candidates, f"{kind}/_default.j2"])

    def start(self, request: DecisionRequest) -> None:
        template = self._template("system", self.variant)
        self.system = _tidy(template.render(
            me=self.me, seats=list(request.seats), variant=self.variant or "", options=self.options, mode=self.mode,
            short=self.short,
        ))  # fmt: skip

    def ask(self, request: DecisionRequest, view: View, feedback: str | None, schema_text: str) -> dict[str, str]:
        """Append the user turn for this call (and a placeholder if the last call got no answer)."""
        if self.system is None:
            self.start(request)
        if self.messages and self.messages[-1]["role"] == "user":
            self.messages.append({"role": "assistant", "content": NO_ANSWER})
        events = view.since(self.seen)
        rendered = [event_context(e, self.me) for e in events]
        shown = feedback is not None and any(e["type"] == "rejected" and e["data"].get("reason") == feedback for e in rendered)
        text = self._template("decisions", request.group or None).render(
            me=self.me,
            events=rendered,
            request=request_context(request),
            retry=feedback is not None,
            feedback=feedback or "",
            feedback_shown=shown,
            mode=self.mode,
            schema=schema_text,
            schema_changed=schema_text != self.last_schema,
            alive_changed=list(request.alive) != self.last_alive,
            first_of_group=request.group not in self.groups_seen,
            short=self.short,
        )
        self.seen += len(events)  # only once rendered: a template error loses nothing
        self.last_alive, self.last_schema = list(request.alive), schema_text
        self.groups_seen.add(request.group)
        turn = {"role": "user", "content": _tidy(text)}
        self.messages.append(turn)
        return turn

    def answer(self, text: str) -> None:
        self.messages.append({"role": "assistant", "content": text if text.strip() else "(empty answer)"})

    def serialized(self) -> str:
        """The prompt as one string, in the order providers read it (for prefix measurements)."""
        parts = [f"system: {self.system or ''}"]
        parts.extend(f"{m['role']}: {m['content']}" for m in self.messages)
        return "\n".join(parts)
