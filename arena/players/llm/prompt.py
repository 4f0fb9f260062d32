"""Prompts: one player's own view, rendered append-only as a message history.

The system prompt (``prompts/system/<variant>.j2``) is rendered once per game and never changes:
the conduct rules, the variant's rules with the table's public facts (the deal, the payoff
tables of McKay's games, the house rules as sentences). Each decision appends one user turn: the
events of the player's view since its previous call (``blocks/observations.j2``), where the game
stands, the question and the answers legal now (``blocks/options.j2``). The model's answer is
appended as it was given: a tool call (whose result, "accepted" or the rejection, opens the next
user turn) or the JSON text. Nothing earlier is ever re-rendered, so every call's prompt starts
with the previous call's whole prompt and providers can serve it from their prefix cache.

With ``history = "days"`` (a profile option, the default) the messages are instead replaced, at
each call with news, by one record (``blocks/record.j2``, :meth:`Conversation.fold`): the earlier
days' facts in a fixed format, today so far with its words, then the question. The record only
grows within a day, so each prompt's record is the previous one's and more: one cache write per
seat of each line new, and at a new day of the day before without its words, instead of a prompt
that grows with the whole game. The record is built from the view alone, so a resumed seat
rebuilds it byte for byte.

Messages are kept in one neutral form (``{"role", "content"}``, plus ``call`` on an assistant turn
that called a tool and ``result`` on the user turn after it); each provider adapter renders
them its own way, and a plain-text backend reads ``content`` alone.

Only ``view.events`` and the request reach a template: both are this player's own, so a prompt can
hold nothing the player may not know. Other players' words, and the claims made with them, are
quoted as data between ``<speech from="NAME">`` delimiters that their text cannot close.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2

from arena.engine import ActionBase, DecisionRequest, Event, View, dump_action
from arena.engine.wording import nominations_today, public_mafia
from arena.players.convention import channel_rule, day_note, team_note, team_of, team_rule

from .rulebook import card_words, payoffs

PROMPTS_ENV = "ARENA_PROMPTS"
NO_ANSWER = "(No answer reached the moderator: the connection to the model failed.)"
ACCEPTED = "Accepted."
#: what null means, per (kind, field), in the legal answers
NULL_WORDS = {
    ("speak", "accuse"): "to accuse nobody",
    ("speak", "nominate"): "to nominate nobody",
    ("vote", "target"): "to abstain",
    ("kill", "target"): "to hold fire",
    ("place_card", "slot"): "to take your card back",
    ("declare_cop", "position"): "to declare without looking",
}
NIGHT_PHASES = frozenset({"night", "mafia_channel", "channel", "night_roles"})


def prompts_dir() -> Path:
    env = os.environ.get(PROMPTS_ENV)
    return Path(env) if env else Path(__file__).resolve().parents[3] / "prompts"


def _quote(text: Any) -> str:
    """Neutralize anything in quoted speech that could close or open a delimiter."""
    text = str(text or "")
    return re.sub(r"<(/?)(speech)", r"‹\1\2", text, flags=re.IGNORECASE)


def _names(value: Any, empty: str = "nobody") -> str:
    """Names joined in words; ``empty`` for None or an empty list."""
    if value is None:
        return empty
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [str(v) for v in value]
        if not items:
            return empty
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
    return str(value)


def _you(values: Any, me: str) -> list[str]:
    """A list of names with the seat itself as "you" (a voter list read in its own prompt)."""
    return ["you" if str(v) == me else str(v) for v in values or ()]


def _choices(values: Iterable[Any], conj: str = "or") -> str:
    items = [str(v) for v in values]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {conj} " + items[-1]


def _plain(value: Any) -> Any:
    if isinstance(value, ActionBase):
        return dump_action(value)
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _by_size(table: Mapping[Any, Any]) -> str:
    """``{7: 2, 8: 2, 9: 2, 10: 3}`` as "7–9 players: 2; 10 players: 3" (keys may be strings)."""
    rows = sorted((int(k), v) for k, v in table.items())
    groups: list[list[Any]] = []
    for size, value in rows:
        if groups and groups[-1][2] == value and groups[-1][1] == size - 1:
            groups[-1][1] = size
        else:
            groups.append([size, size, value])
    return "; ".join(f"{a}{'–' + str(b) if b != a else ''} players: {v}" for a, b, v in groups)


PLURALS = {"mafia": "mafia", "townsperson": "townspeople", "mistress": "mistresses"}


def _counted(card: str, n: int) -> str:
    """ "2 citizens", "1 inspector", "3 mafia", "2 townspeople"."""
    return f"{n} {card if n == 1 else PLURALS.get(card, card + 's')}"


def _count_votes(targets: Iterable[Any]) -> list[tuple[str, int]]:
    """Votes per target, most first (seat order is not known here: ties keep first-cast order)."""
    counts: dict[str, int] = {}
    for target in targets:
        counts[str(target)] = counts.get(str(target), 0) + 1
    return sorted(counts.items(), key=lambda item: -item[1])


def _signed(value: Any) -> str:
    return f"+{value}" if isinstance(value, int) and value > 0 else str(value).replace("-", "−")


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
    env.filters.update(
        quote=_quote,
        names=_names,
        you=_you,
        choices=_choices,
        signed=_signed,
        by_size=_by_size,
        counted=_counted,
        tojson_compact=_compact,
        count_votes=_count_votes,
    )
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
        "seq": event.seq,
        "type": event.type,
        "day": event.day,
        "phase": event.phase,
        "actor": event.actor,
        "mine": event.actor == me,
        "audience": event.audience,
        "public": event.to is None,
        "data": _plain(dict(event.data)),
    }


#: events that open a day (McKay: a hand); with ``history = "days"`` the days before the newest are folded
#: (cove's night N comes before day N and is numbered with it: a day there opens with its night)
BOUNDARIES = frozenset({"day", "night", "hand"})
#: events the record of earlier days leaves out: the moderator's rejections (the answer that followed is kept)
UNRECORDED = frozenset({"rejected"})
#: the seat's own answers the record leaves out because a public event states them (its speeches; its
#: votes, named in every vote's result)
STATED = frozenset({"speak", "verdict", "vote"})


def _unrepeated(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The record without the seat's own kill answer when its pointing on the mafia channel, next,
    states the same move ("Your answer: a kill of Cid." then "On the mafia channel you pointed at Cid.");
    a thought of today's that went with it stays, the answer unsaid."""
    out = []
    for i, e in enumerate(events):
        action = e["data"].get("action") if e["type"] == "action" else None
        if isinstance(action, dict) and action.get("kind") == "kill":
            later = next((x for x in events[i + 1 :] if x["mine"] and x["type"] in ("speech", "action")), None)
            channel = later is not None and later["type"] == "speech" and later["data"].get("kind") == "channel"
            if channel and later["data"].get("target") == action.get("target"):  # type: ignore[index]
                if action.get("thought"):
                    out.append({**e, "stated": True})
                continue
        out.append(e)
    return out


#: a McKay beat's moves (a judge's ruling, the soliloquy and the killer's choice after it are not beats)
BEAT_MOVES = frozenset({"pass", "kill", "declare_cop", "handshake", "peek", "place_card"})


#: a McKay answer's own public event, which states the move the record's answer line just gave
MOVE_EVENTS = {
    "handshake": "handshake", "declare_cop": "cop_declared", "place_card": "card_placed", "kill": "kill",
    "peek": "peek", "judge": "judge_ruling", "retract": "retracted",
}  # fmt: skip


def _said(speech: dict[str, Any]) -> bool:
    """A speech that says more than that its speaker spoke: a claim, or words (today's are quoted)."""
    return bool(speech["data"].get("claim") or speech["data"].get("text"))


def _moves_once(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """McKay's record says each of the seat's moves once: after "Beat 2. Your answer: a handshake
    offer." it leaves out the seat's own "You offer a handshake.", and the "You spoke." of a beat
    answer's words (the record of earlier hands keeps no words; a claim made with them stays; today's
    quotes them)."""
    if not any(e["type"] == "hand" for e in events):
        return events
    out: list[dict[str, Any]] = []
    move: str | None = None  # the event type the seat's latest answer publishes
    words = False  # the seat's latest answer was a beat's, whose words may follow as a speech
    for e in events:
        if e["type"] in ("hand", "round"):
            move, words = None, False
        elif e["type"] in ("action", "forfeit"):
            kind = e["data"].get("action", {}).get("kind")
            move, words = MOVE_EVENTS.get(kind), kind in BEAT_MOVES
        elif e["mine"] and move is not None and e["type"] == move:
            move = None
            continue
        elif e["mine"] and words and e["type"] == "speech" and e["data"].get("kind") == "beat" and not _said(e):
            words = False
            continue
        out.append(e)
    return out


def _beats(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """McKay's record: each of the seat's beat answers numbered with its beat ("Beat 3. Your answer:
    a pass."), counted from the hand's (trio: the round's) start, so the events between two answers
    read as one beat's. The seat answers every beat while it is alive, a forfeit standing for an answer."""
    if not any(e["type"] == "hand" for e in events):
        return events
    beat = 0
    for e in events:
        if e["type"] in ("hand", "round"):
            beat = 0
        elif e["type"] in ("action", "forfeit") and e["data"].get("action", {}).get("kind") in BEAT_MOVES:
            beat += 1
            e["beat"] = beat
    return events


def _bare(event: dict[str, Any], after: dict[str, Any] | None) -> bool:
    """A speech of the record's earlier days that says only who spoke: no nomination, floor or claim
    (its words are left out), and not followed by the speaker's own accusation."""
    data = event["data"]
    if event["type"] != "speech" or data.get("kind") in (None, "channel"):
        return False
    if any(data.get(k) for k in ("nominate", "floor", "claim", "text")):
        return False
    return not (after is not None and after["type"] == "accusation" and after["actor"] == event["actor"])


def _turns(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The record's earlier days with each run of bare speeches of one kind (two or more in a row) said
    in one line, its speakers in turn ("- Spoke in turn (in the discussion): P1, you, P3 and P4."):
    nothing but who spoke, in what order, is in those lines."""
    out: list[dict[str, Any]] = []
    run: list[dict[str, Any]] = []

    def close() -> None:
        if len(run) > 1:
            speakers = ["you" if e["mine"] else e["actor"] for e in run]
            data = {"kind": run[0]["data"]["kind"], "speakers": speakers}
            out.append({**run[0], "type": "turns", "actor": None, "mine": False, "data": data})
        else:
            out.extend(run)
        run.clear()

    for i, e in enumerate(events):
        if _bare(e, events[i + 1] if i + 1 < len(events) else None):
            if run and run[0]["data"]["kind"] != e["data"]["kind"]:
                close()
            run.append(e)
            continue
        close()
        out.append(e)
    close()
    return out


def _entries(events: list[dict[str, Any]], fresh: int) -> int:
    """How many of the record's entries (its lines starting "- ") say events from seq ``fresh`` on: the
    news of this call, said in the record's last lines (a night's lot that the channel's result,
    next, says has no entry of its own)."""
    said = 0
    for i, e in enumerate(events):
        after = events[i + 1] if i + 1 < len(events) else None
        said_next = after is not None and after["type"] == "channel_result"
        lot = e["type"] == "lot" and e["data"].get("why") == "night_kill" and said_next
        said += e["seq"] >= fresh and not lot
    return said


def record_context(event: Event, me: str, words: bool = False) -> dict[str, Any]:
    """An event as the record reads it: a speech without its words, the seat's own answer without its
    thought (the moves stay: a kill, a check, a vote); with ``words`` (today's), both kept."""
    context = event_context(event, me)
    data = context["data"]
    if event.type == "speech" and not words:
        data.pop("text", None)
    if event.type == "action" and isinstance(data.get("action"), dict):
        dropped = ("speech",) if words else ("thought", "speech")
        data["action"] = {k: v for k, v in data["action"].items() if k not in dropped}
    return context


def _recorded(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events the record writes: not the moderator's rejections, nor the seat's own answers that a
    public event states (unless a thought of today's goes with them)."""
    out = []
    for e in events:
        action = e["data"].get("action", {}) if e["type"] == "action" else {}
        stated = action.get("kind") in STATED
        if e["type"] in UNRECORDED or (stated and not action.get("thought")):
            continue
        out.append({**e, "stated": stated})
    return out


def _field(kind: str, name: str, spec: Any, me: str | None = None) -> dict[str, Any]:
    excluded: dict[str, list[str]] = {}  # one reason, the names it excludes (in seat order)
    for who, why in spec.forbidden.items():
        excluded.setdefault(why, []).append("you" if who == me else str(who))  # the seat is "you" in its question
    return {
        "name": name,
        "choices": list(spec.choices) if spec.choices is not None else None,
        "nullable": spec.nullable,
        "null_words": NULL_WORDS.get((kind, name), "to leave it empty"),
        "max_items": spec.max_items,
        "forbidden": dict(spec.forbidden),
        "excluded": _once(excluded),
    }


def _once(excluded: dict[str, list[str]]) -> list[tuple[list[str], str]]:
    """The excluded names with their reasons, a reason's closing clause said once: "not you: you
    cannot point at yourself: point at a living non-mafia player; not Dee: Dee is in the mafia"
    (the engine's reasons each stand alone, as a rejection says one of them)."""
    said: set[str] = set()
    out = []
    for why, names in excluded.items():
        head, sep, tail = why.partition(": ")
        if sep and tail in said:
            why = head
        said.add(tail if sep else why)
        out.append((names, why))
    return out


def request_context(request: DecisionRequest, fixed: bool = True) -> dict[str, Any]:
    """The request as a template reads it; with ``fixed`` (the seat's tools are its repertoire),
    also what those tools allow but this decision does not (fields to leave empty, speech to
    leave out, tools not legal now)."""
    wide = request.repertoire if fixed else None
    options = []
    for option in request.options:
        outer = wide.option(option.kind) if wide is not None else None
        unused = [name for name in (outer.fields if outer is not None else ()) if name not in option.fields]
        options.append({
            "kind": option.kind,
            "fields": [_field(option.kind, name, spec, request.player) for name, spec in option.fields.items()],
            "unused": unused,
            "talk": request.talk is not None,
            "silenced": request.talk is None and wide is not None and option.kind in wide.talk,
            "claim": option.kind == "speak" and request.talk is not None,
        })  # fmt: skip
    not_now = [k for k in wide.kinds if k not in request.kinds] if wide is not None else []
    info = _plain(dict(request.info))
    return {
        "id": request.id,
        "question": request.question,
        "group": request.group,
        "role": request.role,
        "day": request.day,
        "phase": request.phase,
        "night": request.phase in NIGHT_PHASES,
        "match": "hand" in info or (request.table is not None and request.table.variant in ("duel", "duel3", "trio")),
        "alive": list(request.alive),
        "seats": list(request.seats),
        "talk": request.talk,
        "max_speech": request.max_speech,
        "clock": str(request.clock) if request.clock else None,
        "info": info,
        "options": options,
        "kinds": list(request.kinds),
        "not_now": not_now,
    }


def legal_answers(
    request: DecisionRequest,
    mode: str = "tools",
    env: jinja2.Environment | None = None,
    short: bool = False,
    fixed: bool = True,
) -> str:
    """The answers legal now, in words, as the newest message states them (and tests audit)."""
    template = (env or make_env()).get_template("blocks/options.j2")
    return _tidy(template.render(request=request_context(request, fixed), mode=mode, short=short))


def outcome(call_request: int | None, events: Iterable[dict[str, Any]]) -> tuple[str, set[int]]:
    """What became of the answer to request ``call_request``: the tool result the next turn opens
    with, and the events it reports (so the observations do not repeat them)."""
    result, reported = ACCEPTED, set()
    for e in events:
        if e["data"].get("request") != call_request or not e["mine"]:
            continue
        if e["type"] == "rejected":
            result = f"Rejected: {e['data'].get('reason')}"
            reported.add(e["seq"])
    return result, reported


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
        history: str = "full",
    ) -> None:
        self.me = me
        self.short = short  # the short system prompt (small local models): see prompts/system/_base.j2
        self.history = history  # "days": earlier days (and today's ended trials) folded into a record (fold)
        self.period = -1  # the day (McKay: hand) of the newest boundary folded so far
        self.kept = 0  # messages of the previous prompt the last ask kept (0 after a fold)
        self.mark = 0  # the seq the news after the latest fold start from (its record holds the day before it)
        self.note = ""  # after the latest fold's record: how many of its last entries are news
        self.recorded = ""  # the latest fold's record, and where the records of the day's folds before it ended
        self.cuts: list[int] = []
        self.variant = variant
        self.options = dict(options or {})
        self.mode = mode
        self.env = env
        self.system: str | None = None
        self.messages: list[dict[str, Any]] = []
        self.seen = 0  # events of the view already rendered
        self.last_alive: list[str] | None = None  # repeated only when it changed
        self.last_mafia: str | None = None  # the mafia count: every night, by day when it changed
        self.last_schema = ""
        self.groups_seen: set[str] = set()  # a group's standing guidance is given once
        self.call_request: int | None = None  # the request the last tool call answered
        self.system_name: str | None = None  # another system template (the check before a game: "_probe")

    def _template(self, kind: str, name: str | None) -> jinja2.Template:
        candidates = [f"{kind}/{name}.j2"] if name else []
        return self.env.select_template([*candidates, f"{kind}/_default.j2"])

    def start(self, request: DecisionRequest) -> None:
        """Render the system prompt (once) from the first request's public table."""
        table = getattr(request, "table", None)
        wide = getattr(request, "repertoire", None)
        self.system = _tidy(self._template("system", self.system_name or self.variant).render(
            me=self.me, seats=list(request.seats), variant=self.variant or "", options=self.options, mode=self.mode,
            short=self.short, deck=list(table.deck) if table is not None else [],
            claim_roles=list(table.claim_roles) if table is not None else [],
            tools=list(wide.kinds) if wide is not None and self.mode != "json_text" else [],
            claims=bool(table and table.claim_roles) and (wide is None or "speak" in wide.talk),
            payoffs=payoffs(self.variant),
        ))  # fmt: skip

    def user_turn(self, text: str, events: list[dict[str, Any]]) -> dict[str, Any]:
        """A user turn; after a tool call it carries the call's result first."""
        turn: dict[str, Any] = {"role": "user", "content": _tidy(text)}
        last = self.messages[-1] if self.messages else None
        if last is not None and last["role"] == "assistant" and last.get("call"):
            result = outcome(self.call_request, events)[0]
            turn["result"] = {"id": last["call"]["id"], "content": result, "error": result != ACCEPTED}
        return turn

    def ask(
        self,
        request: DecisionRequest,
        view: View,
        feedback: str | None,
        schema_text: str,
        fixed: bool = False,
        thought: int | None = None,
        squeeze: bool = False,
    ) -> dict[str, Any]:
        """Append the user turn for this call (and a placeholder if the last call got no answer).

        ``fixed``: the seat's schema is its repertoire, wider than the decision, so the turn also
        says which of its tools and fields are not for this decision. ``thought``: the bound the
        schema puts on a thought, stated with the answer's form (None: none). ``squeeze``: fold
        everything before this call's new events into the record now (a seat short of context)."""
        if self.system is None:
            self.start(request)
        events = view.since(self.seen)
        if squeeze:
            record: str | None = self.fold(view, events, now=True)
        else:
            # a question asked again (after a rejection) is appended: the retry's words lean on the question before
            record = self.fold(view, events) if self.history == "days" and feedback is None else None
            if record is not None:
                events = [e for e in view.events if e.day >= self.period and e.seq >= self.mark]
        self.kept = len(self.messages)
        if self.messages and self.messages[-1]["role"] == "user":
            self.messages.append({"role": "assistant", "content": NO_ANSWER})
        rendered = [event_context(e, self.me) for e in events]
        last = self.messages[-1] if self.messages else None
        reported: set[int] = set()
        if last is not None and last.get("call"):
            reported = outcome(self.call_request, rendered)[1]
        shown = feedback is not None and any(e["type"] == "rejected" and e["data"].get("reason") == feedback for e in rendered)
        table = getattr(request, "table", None)
        team = team_of(view.events)
        variant = table.variant if table is not None else self.variant
        mafia = None  # McKay's games deal part of the deck each hand: no count of the living mafia
        if table is not None and variant not in ("duel", "duel3", "trio"):
            mafia = public_mafia(table.deck, view.events, me=self.me, role=request.role, team=team)
        text = self._template("decisions", request.group or None).render(
            me=self.me,
            mafia=mafia,
            events=rendered,
            reported=reported,
            request=request_context(request, fixed),
            retry=feedback is not None,
            feedback=feedback or "",
            feedback_shown=shown,
            mode=self.mode,
            schema=schema_text,
            schema_changed=schema_text != self.last_schema,
            alive_changed=list(request.alive) != self.last_alive,
            mafia_changed=mafia != self.last_mafia,
            first_of_group=request.group not in self.groups_seen,
            short=self.short,
            team=team_note(request.group, request.role, view.events, request.alive, self.me),
            partners=night_partners(request, view.events, self.me),
            team_rule=team_rule(variant),
            channel_rule=channel_rule(variant),
            nominations=nominations_today(view.events) if request.group in ("vote", "verdict") else [],
            kills_to_score=kills_to_score(variant, view.events, self.me, request.role),
            day_note=day_note(variant, request.group, request.role, view.events, request.alive, self.me),
            thought_limit=thought,
        )
        if record is not None:
            text = f"{record}\n{self.note}\n\n{text}" if self.note else f"{record}\n\n{text}" if record else text
            self.seen = len(view.events)
        else:
            self.seen += len(events)  # only once rendered: a template error loses nothing
        self.last_alive, self.last_schema, self.last_mafia = list(request.alive), schema_text, mafia
        self.groups_seen.add(request.group)
        turn = self.user_turn(text, rendered)
        if record:
            self.cut(record, turn)
        self.messages.append(turn)
        self.call_request = request.id
        return turn

    def cut(self, record: str, turn: dict[str, Any]) -> None:
        """Where a folded record's blocks end (``turn["cuts"]``, offsets in its text): where the
        previous folds' records of the day ended, and its own end. A provider that caches whole
        blocks (Anthropic) then finds the previous record among this one's blocks, byte for byte."""
        same = bool(self.recorded) and record.startswith(self.recorded) and turn["content"].startswith(record)
        cuts = [*self.cuts, len(self.recorded)] if same and len(record) > len(self.recorded) else self.cuts if same else []
        self.recorded, self.cuts = record, cuts
        turn["cuts"] = [*cuts, len(record)]

    def state(self) -> tuple[Any, ...]:
        """What :meth:`ask` changes, to go back to (a seat asked again, squeezed, for want of room)."""
        return (list(self.messages), self.seen, self.last_alive, self.last_schema, set(self.groups_seen),
                self.call_request, self.period, self.kept, self.last_mafia, self.mark, self.note, self.recorded,
                list(self.cuts))  # fmt: skip

    def restore(self, state: tuple[Any, ...]) -> None:
        (self.messages, self.seen, self.last_alive, self.last_schema, self.groups_seen,
         self.call_request, self.period, self.kept, self.last_mafia, self.mark, self.note, self.recorded,
         self.cuts) = state  # fmt: skip

    def fold(self, view: View, new: Sequence[Event], now: bool = False) -> str | None:
        """At every call with news (not a question asked again after a rejection, which is appended),
        forget the messages and return the record ("" when there is nothing to record); None otherwise.

        The record is built from the view alone (``blocks/record.j2``): the earlier days' deaths and
        cards, votes by name, who spoke and accused or nominated whom, claims, the seat's own card,
        partners, checks and moves, the words of their speeches left out; then today up to this call
        in the same sentences, every speech's words quoted and the seat's thoughts kept, and how many
        of its last entries are news. Within a day it only grows, and the question comes after it: a
        fold's record starts with the previous fold's byte for byte, so only the lines new since then
        are written to the cache (at a new day, the day before is written again without its words).
        A resumed seat rebuilds the same bytes from the same view.
        """
        period = max((e.day for e in new if e.type in BOUNDARIES), default=self.period)
        if not now:
            if not any(e.type not in UNRECORDED for e in new):  # nothing new (a rejection: asked again, appended)
                return None
            first = self.period < 0 and not self.messages
            # the whole day so far joins the record, this call's news too: at the next fold the record
            # rebuilt is this one's, byte for byte, up to the question, and only what came since is written
            self.period, self.mark = max(self.period, period), view.events[-1].seq + 1
            if first:  # the seat's first call: nothing to forget, the game so far is read word for word
                return None
        else:
            self.period = max(self.period, period)
        fresh = view.events[self.seen].seq if self.seen < len(view.events) else None  # the first event news to the seat
        told = view.events[: self.seen] if now else [e for e in view.events if e.day < self.period]
        today = [] if now else [e for e in view.events if e.day >= self.period and e.seq < self.mark]
        self.messages = []
        self.last_alive, self.last_schema, self.last_mafia, self.call_request = None, "", None, None
        self.groups_seen = set()  # the standing guidance of a group is given again: its question is folded away
        earlier = _recorded(record_context(e, self.me) for e in told)
        words = _recorded(record_context(e, self.me, words=True) for e in today)
        self.note = ""
        if not earlier and not words:
            return ""
        opened = [e.type for e in view.events if e.type in BOUNDARIES and e.day == self.period]  # its first: cove's night
        since = f"{opened[0] if opened else 'day'} {self.period}"  # "day 2", "night 3" (cove), "hand 2" (McKay)
        events, words = _turns(_moves_once(_beats(_unrepeated(earlier)))), _moves_once(_beats(_unrepeated(words)))
        new = 0 if now or fresh is None else _entries(events + words, fresh)
        self.note = _tidy(self.env.get_template("blocks/news.j2").render(new=new)) if new else ""
        return _tidy(self.env.get_template("blocks/record.j2").render(
            me=self.me, events=events, today=words, record=True, now=now, since=since,
            discussions=self.variant not in ("duel", "duel3", "trio"),  # McKay's games have no discussion
        ))  # fmt: skip

    def answer(self, text: str, call: Mapping[str, Any] | None = None) -> None:
        """Append the model's answer: its JSON text, and the tool call it made, if it made one."""
        turn: dict[str, Any] = {"role": "assistant", "content": text if text.strip() else "(empty answer)"}
        if call is not None:
            turn["call"] = dict(call)
        self.messages.append(turn)

    def serialized(self) -> str:
        """The prompt as one string, in the order providers read it (for prefix measurements)."""
        parts = [f"system: {self.system or ''}"]
        for m in self.messages:
            if m.get("result"):
                parts.append(f"tool: {m['result']['content']}")
            call = m.get("call")
            parts.append(f"{m['role']}: " + (f"{call['name']}({call['arguments']})" if call else m["content"]))
        return "\n".join(parts)


def kills_to_score(variant: str | None, events: Sequence[Event], me: str, role: str) -> list[str]:
    """duel3: what this seat's kills of the hand in play will score once the hand ends and the
    cards are shown, from the kill tables' rows for its own card (duel's hand ends at the kill)."""
    table = payoffs(variant) if variant == "duel3" else None
    if table is None:
        return []
    start = max((i for i, e in enumerate(events) if e.type == "hand"), default=0)
    victims = [
        str(e.data.get("player"))
        for e in events[start:]
        if e.type == "death" and e.to is None and me in (e.data.get("by") or ()) and e.data.get("cause") != "simultaneous"
    ]
    mine = card_words(role)
    good = [f"{victim}: {points} × your bonus raised by 1" for killer, victim, points in table["good"] if killer == mine]
    bad = [f"{victim}: {_signed(points)}" for killer, victim, points in table["bad"] if killer == mine]
    return [
        f"Your kill of {v} is scored when the hand ends, by the card {v} held (as a {mine}, if {v} was a "
        + "; ".join(good + bad)
        + ")."
        for v in victims
    ]


# the decision kinds the variants pose at night (their ``group``), whatever their phase is called
NIGHT_GROUPS = frozenset({"night_kill", "mafia_channel", "check", "heal", "visit"})


def night_partners(request: DecisionRequest, events: Sequence[Event], me: str) -> list[str] | None:
    """A mafia seat's living partners, named in every night question (None: not a night question
    of a seat on a team that has met)."""
    team = team_of(events)
    if request.group not in NIGHT_GROUPS or me not in team:
        return None
    return [name for name in team if name != me and name in request.alive]
