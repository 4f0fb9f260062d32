"""Belief probes: ask a model seat, outside the game, how likely each other player is on the mafia side.

A probe belongs to whoever runs the game (a tournament), not to the engine: it is not an action,
nothing of it reaches the event log or another player, and it never touches the player's own
conversation. :func:`belief_question` takes a snapshot at once — the player's system prompt and
messages so far, plus the events of its view not yet rendered and one question — so the player's
later prompts are exactly what they would have been without the probe (same prefix cache too),
and the snapshot stays right even while the game goes on. ``await question.ask()`` sends it; the
call's usage and cost go into the player's totals and its recorder gets a ``belief_call`` record.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from arena.engine import Repertoire, Table, View

from .player import SENT_APART, LLMPlayer, TransportGaveUp, _json_from_text, _loads
from .prompt import NO_ANSWER, _names, _tidy, event_context
from .schema import KindSchemas

KIND = "beliefs"
QUESTION = (
    "Moderator's private question (it changes nothing in the game, and nobody else sees it or your answer): "
    "for each other living player, how likely is it, in percent (0-100), that they are on the mafia side "
    "(the mafia, or any other side against the town)? If you are on that side yourself, answer with what "
    "you know."
)


def belief_schema(candidates: Sequence[str]) -> dict[str, Any]:
    """The answer's JSON schema: one integer percentage per candidate."""
    return {
        "type": "object",
        "title": KIND,
        "description": "Your probability, in percent, that each player is on the mafia side.",
        "properties": {
            "kind": {"const": KIND, "type": "string"},
            "percent": {
                "type": "object",
                "description": "Player name -> percent (0-100).",
                "properties": {name: {"type": "integer", "minimum": 0, "maximum": 100} for name in candidates},
                "required": list(candidates),
                "additionalProperties": False,
            },
        },
        "required": ["kind", "percent"],
        "additionalProperties": False,
    }


class BeliefQuestion:
    """One player's snapshot and question, taken at once (synchronously); :meth:`ask` sends it and
    returns ``{name: probability}`` or None.

    ``seats`` are the table's seat names, ``table`` its public facts and ``repertoire`` the seat's
    (for a player not asked anything yet, whose system prompt is rendered here as its first
    decision will render it: the cards dealt, the seat's tools); ``candidates`` the players to give
    a probability for (the player itself is left out).
    """

    def __init__(
        self,
        player: LLMPlayer,
        view: View,
        seats: Sequence[str],
        candidates: Sequence[str],
        *,
        day: int,
        table: Table | None = None,
        repertoire: Repertoire | None = None,
    ) -> None:
        self.player = player
        self.candidates = [c for c in candidates if c != player.name]
        self.day = day
        conv = copy.copy(player.conversation)
        conv.messages = [dict(m) for m in player.conversation.messages]
        if conv.system is None:  # asked before the seat's first decision: its system prompt as that decision's
            conv.start(SimpleNamespace(seats=tuple(seats), table=table, repertoire=repertoire))  # type: ignore[arg-type]
        if conv.messages and conv.messages[-1]["role"] == "user":
            conv.messages.append({"role": "assistant", "content": NO_ANSWER})
        events = [event_context(e, player.name) for e in view.since(player.conversation.seen)]
        observed = conv.env.get_template("blocks/observations.j2").render(events=events, me=player.name)
        # The answer's form names every other seat, not only the living: the tool (or response
        # format) is the first thing a provider reads, so a form that changed with each death would
        # leave nothing of the question's prompt in its cache; a fixed one is served from it at
        # every question of the seat (and every belief position of a bank) but the first.
        others = [s for s in seats if s != player.name]
        self.schemas = KindSchemas(belief_schema(others), player.profile.strict_schema)
        text = f"{observed}\n\n{QUESTION}\nPlayers: {', '.join(self.candidates)}."
        gone = [s for s in others if s not in self.candidates]
        if gone:
            text += f"\nThe answer's form names every other seat, the same all game: give 0 for {_names(gone)}."
        if player.profile.mode in ("tools", "tools_auto"):
            text += f"\nCall the `{KIND}` tool."
        elif player.profile.mode == "json_text":
            schema = json.dumps(self.schemas.union(), ensure_ascii=False, indent=1)
            text += f"\nAnswer with only one JSON object matching this JSON schema:\n```json\n{schema}\n```"
        conv.messages.append(conv.user_turn(_tidy(text), events))  # after a tool call: its result first
        structured = player.backend.structured(self.schemas)
        self.kwargs = player.backend.build(conv.system or "", conv.messages, structured, player.cache_key)
        shared = len(player.conversation.messages)
        # as a decision's call record keeps it (LLMPlayer.prepare), so ``arena prompts`` rebuilds this request
        # too; the seat's own conversation goes on from its last decision, without the question
        self.sent: dict[str, Any] = {
            "prompt": {
                "system": conv.system if player.conversation.system is None else None,
                "shared_messages": shared,
                "new_messages": conv.messages[shared:],
            },
            "schema": structured or {"json_text": self.schemas.union()},
            "params": {
                k: v for k, v in self.kwargs.items() if k not in SENT_APART and (k not in structured or k == "tool_choice")
            },
        }

    async def ask(self) -> dict[str, float] | None:
        """Send the question; None when the model could not be reached or gave no usable answer."""
        player = self.player
        record: dict[str, Any] = {
            "type": "belief_call", "player": player.name, "provider": player.profile.provider,
            "model": player.profile.model, "day": self.day, "candidates": self.candidates, **self.sent,
        }  # fmt: skip
        retries: list[dict[str, Any]] = []
        record["retries"] = retries
        timing: dict[str, float] = {}
        started = time.perf_counter()
        try:
            response = await player._send(self.kwargs, retries, timing)
        except TransportGaveUp as exc:
            took = time.perf_counter() - started - timing.get("queued", 0.0)
            record.update(latency=round(took, 3), outcome="transport_failed", error=str(exc))
            player._emit(record)
            return None
        latency = time.perf_counter() - started - timing.get("queued", 0.0)  # the arena's queue left out
        if timing.get("queued"):
            record["queued"] = round(timing["queued"], 3)
            player.usage.queued += timing["queued"]
        reply = player.backend.extract(response)
        cost = round(player.profile.cost(reply.usage), 8)  # as recorded, so a resumed seat's totals match
        player.usage.add(reply.usage, cost)
        player.usage.latency += latency
        beliefs = self._parse(reply)
        record.update(
            latency=round(latency, 3), raw=reply.raw, usage=reply.usage, cost=cost,
            outcome="ok" if beliefs else "malformed", beliefs=beliefs,
        )  # fmt: skip
        player._emit(record)
        return beliefs or None

    def _parse(self, reply: Any) -> dict[str, float]:
        data: Any = reply.arguments
        if data is None:
            try:
                data = _loads(reply.raw) if reply.tool else _json_from_text(reply.raw)
            except ValueError:
                return {}
        if not reply.tool:
            data = self.schemas.unwrap(data)
        data = self.schemas.decode(reply.tool or KIND, data)
        percent = data.get("percent") if isinstance(data, dict) else None
        if not isinstance(percent, dict):
            return {}
        out = {}
        for name in self.candidates:
            value = percent.get(name)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out[name] = min(max(float(value), 0.0), 100.0) / 100.0
        return out


#: snapshot a player's prompt now (synchronously) and prepare the belief question
belief_question = BeliefQuestion
