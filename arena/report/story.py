"""A transcript turned into a story: seats, then sections of items, each item tied to its events.

Both the HTML report and the terminal viewer read a game through this module, so they agree on
who saw what. Events are loaded with :meth:`Event.from_dict` and filtered with
:meth:`Event.visible_to`, the engine's own rule: nothing here decides visibility by itself.

Every event of the log ends up in exactly one place: its own item (a line, a speech, a vote
table, a hand's score table) or a part of another one (a player's answer beside its speech or in
a vote table, an accusation on the speech that made it, a rejected answer on the decision it was
rejected for). Each place carries the event's ``seq`` and ``to``, which is what lets a page show
the game as any one player saw it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from arena.console import MCKAY_LINES, _and, _claim, _private, _public, describe_action
from arena.engine import Event
from arena.engine.events import MODERATOR, PUBLIC
from arena.transcript import Transcript

#: events that open a section of the timeline
SECTION_TYPES = frozenset(("day", "night", "hand"))
#: answer events (the actor's own): folded into the speech, vote or row of answers they belong to
ANSWER_TYPES = frozenset(("action", "forfeit", "rejected"))
#: McKay phases whose answers are one beat each
BEAT_PHASES = frozenset(("beat", "round1", "round2", "soliloquy_reply"))
NIGHT_PHASES = frozenset(("night", "channel", "night_roles", "mafia_channel"))
LINE_CLASS = {
    "death": "death", "morning": "morning", "game_over": "end", "lot": "court", "trial": "court",
    "runoff": "court", "charged": "court", "cleared": "court", "spared": "court", "acquitted": "court",
    "check_result": "check", "cop_look": "check",
}  # fmt: skip
_WHO = re.compile(r"^\[[^\]]*\] ")


def _pairs(mapping: Any, empty: str = "nobody") -> str:
    items = _plain(mapping).items()
    return ", ".join(f"{k}→{v if v is not None else 'nobody'}" for k, v in items) if items else empty


def _night(d: dict[str, Any]) -> str:
    """cove's moderator note of a night, in the order the page resolves it."""
    parts = []
    if d.get("visit") is not None:
        parts.append(f"the mistress visits {d['visit']}")
    if d.get("channel"):
        parts.append(f"channel {_pairs(d['channel'])}, victim {d.get('mafia_victim') or 'nobody'}")
    if d.get("maniac_target") is not None:
        parts.append(f"the maniac names {d['maniac_target']}" + (" (void)" if d.get("maniac_void") else ""))
    if d.get("check") is not None:
        parts.append(f"the detective checks {d['check']}")
    if d.get("heal") is not None:
        parts.append(f"the doctor names {d['heal']}" + (" (void)" if d.get("heal_void") else ""))
    if d.get("saved"):
        parts.append(f"{d['saved']} is saved")
    dead = _plain(d.get("dead"))
    parts.append("dead: " + (", ".join(f"{n} ({c})" for n, c in dead.items()) if dead else "nobody"))
    return "night: " + "; ".join(parts)


#: sentences for moderator and team notes the console prints generically (type -> line about actor, data)
NOTE_LINES: dict[str, Any] = {
    "order": lambda who, d: f"round {d.get('round')} order: {', '.join(map(str, d.get('order') or []))}",
    "channel_result": lambda who, d: (
        f"channel round {d.get('round')}: {_pairs(d.get('targets'))} — "
        + ("agreed" if d.get("agreed") else "no agreement")
        + (f"; victim: {d.get('victim') or 'nobody'}" if "victim" in d else "")
    ),
    "night_resolution": lambda who, d: _night(d),
    "saved": lambda who, d: f"the doctor saved {d.get('player')} from the kill",
    "kill_void": lambda who, d: f"{who}'s kill on {d.get('target')} is void (one of them is already dead)",
    "simultaneous_draw": lambda who, d: f"two kills in one beat: the draw makes {d.get('first')} first",
    "player_timeout": lambda who, d: f"{who} ran out of time (request {d.get('request')})",
    "player_error": lambda who, d: f"{who} failed to answer (request {d.get('request')}): {d.get('error')}",
}


def private_line(event: Event) -> str:
    """A line for an event only some players (or the moderator) saw, without the "[who]" prefix."""
    note = NOTE_LINES.get(event.type)
    if note is not None:
        return note(event.actor, event.data)
    return _WHO.sub("", _private(event) or event.type)


#: names of one card across variants: a claim of any of them is true of the others
ROLE_FAMILIES = (
    frozenset(("citizen", "villager", "civilian", "townsperson", "townie", "town")),
    frozenset(("inspector", "detective", "cop", "sheriff")),
)


def same_role(claimed: str, real: str) -> bool:
    """Whether a claimed role names the real card ("detective" for an inspector is true)."""
    a, b = claimed.strip().lower(), real.strip().lower()
    return a == b or any(a in family and b in family for family in ROLE_FAMILIES)


def audience_label(audience: str) -> str:
    """Who could see an event, in words: "Hal only", "mafia team", "moderator" ("" for everyone)."""
    if audience == PUBLIC:
        return ""
    if audience == MODERATOR:
        return "moderator"
    kind, _, name = audience.partition(":")
    return {"player": f"{name} only", "team": f"{name} team"}.get(kind, audience)


def _to(event: Event) -> list[str] | None:
    return None if event.to is None else sorted(event.to)


@dataclass(slots=True)
class Call:
    """One model call behind a decision, as the player reported it."""

    attempt: int
    outcome: str
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float = 0.0
    latency: float = 0.0
    error: str = ""


@dataclass(slots=True)
class Usage:
    """Calls of one decision (or one seat), summed for display."""

    calls: list[Call] = field(default_factory=list)

    @property
    def input_tokens(self) -> int:
        return sum(c.input_tokens for c in self.calls)

    @property
    def cached_tokens(self) -> int:
        return sum(c.cached_tokens for c in self.calls)

    @property
    def output_tokens(self) -> int:
        return sum(c.output_tokens for c in self.calls)

    @property
    def cost(self) -> float:
        return sum(c.cost for c in self.calls)

    @property
    def latency(self) -> float:
        return sum(c.latency for c in self.calls)

    @property
    def failures(self) -> list[str]:
        """Calls that brought no usable answer, counted by outcome ("malformed ×2")."""
        counts = Counter(c.outcome for c in self.calls if c.outcome != "ok")
        return [f"{outcome} ×{n}" for outcome, n in sorted(counts.items())]

    def text(self) -> str:
        """One line for a reader: "2 calls · 1,234 in (1,024 cached) · 56 out · $0.0012 · 1.4 s"."""
        n = len(self.calls)
        parts = [f"{n} call{'s' if n != 1 else ''}", f"{self.input_tokens:,} in"]
        if self.cached_tokens:
            parts[-1] += f" ({self.cached_tokens:,} cached)"
        parts += [f"{self.output_tokens:,} out", f"${self.cost:.4f}", f"{self.latency:.1f} s"]
        return " · ".join(parts)


@dataclass(slots=True)
class SeatUsage:
    """A seat's model usage over the whole game; all zero for a seat that made no call (a bot, a human)."""

    calls: int = 0
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0

    def __bool__(self) -> bool:
        return self.calls > 0

    @classmethod
    def of(cls, summary_usage: Any, decisions: list[Usage]) -> SeatUsage:
        """The summary's figures where the game wrote them, else the seat's call records added up.

        A summary is missing (a cut-off game) or partial (an aborted one, an older transcript) as
        often as it is whole, so every field falls back on its own.
        """
        calls = [c for u in decisions for c in u.calls]
        record = summary_usage if isinstance(summary_usage, dict) else {}

        def pick(key: str, counted: float) -> Any:
            value = record.get(key)
            return value if isinstance(value, int | float) and not isinstance(value, bool) else counted

        return cls(
            calls=int(pick("calls", len(calls))),
            input_tokens=int(pick("input_tokens", sum(c.input_tokens for c in calls))),
            cached_tokens=int(pick("cached_tokens", sum(c.cached_tokens for c in calls))),
            output_tokens=int(pick("output_tokens", sum(c.output_tokens for c in calls))),
            cost=float(pick("cost", sum(c.cost for c in calls))),
        )


@dataclass(slots=True)
class ClaimCheck:
    """One statement of a claim and whether it was true."""

    text: str
    true: bool
    note: str = ""


@dataclass(slots=True)
class Rejection:
    seq: int
    to: list[str] | None
    answer: str
    reason: str


@dataclass(slots=True)
class Answer:
    """A player's settled decision (``action`` or ``forfeit`` event), with what led to it."""

    seq: int
    to: list[str] | None
    actor: str
    type: str  # "action" or "forfeit"
    kind: str
    text: str  # "kill → Ann", "verdict yes"
    phase: str
    team: str = ""  # the actor's team when answering (colours the moderator's view)
    thought: str = ""
    why: str = ""  # a forfeit's reason
    claim: list[ClaimCheck] = field(default_factory=list)
    claim_text: str = ""
    rejections: list[Rejection] = field(default_factory=list)
    usage: Usage | None = None

    def seqs(self) -> list[int]:
        return [self.seq, *(r.seq for r in self.rejections)]


@dataclass(slots=True)
class Item:
    """One block of the timeline. ``kind`` picks its template; ``seq``/``to`` are its own event's."""

    kind: str  # line, speech, votes, answers, cards, hand_over, subhead
    seq: int | None = None
    to: list[str] | None = None
    audience: str = ""
    text: str = ""
    css: str = ""
    actor: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    answer: Answer | None = None  # a speech's own answer (thought, claim)
    rows: list[dict[str, Any]] = field(default_factory=list)  # vote rows, answer chips, cards
    attached: list[tuple[int, list[str] | None, str]] = field(default_factory=list)  # (seq, to, text) shown inside

    def seqs(self) -> list[int]:
        out = [] if self.seq is None else [self.seq]
        out += [s for s, _, _ in self.attached]
        if self.answer is not None:
            out += self.answer.seqs()
        for row in self.rows:
            if row.get("seq") is not None:
                out.append(row["seq"])
            if row.get("answer") is not None:
                out += row["answer"].seqs()
        return out


@dataclass(slots=True)
class Section:
    title: str
    anchor: str
    seq: int | None = None
    subtitle: str = ""
    css: str = ""
    items: list[Item] = field(default_factory=list)


@dataclass(slots=True)
class Seat:
    name: str
    spec: str
    role: str = ""
    team: str = ""
    known_by: list[str] | None = None  # who knew the card during the game (None: everyone)
    fate: str = "alive"
    true_fate: str = ""  # the recorded cause when the table was told another one
    score: int | None = None
    won: bool | None = None
    counts: dict[str, int] = field(default_factory=dict)
    usage: SeatUsage = field(default_factory=SeatUsage)


@dataclass(slots=True)
class Story:
    """Everything a report shows about one game."""

    variant: str
    seed: Any
    header: dict[str, Any]
    summary: dict[str, Any] | None
    events: list[Event]
    seats: list[Seat]
    sections: list[Section]
    result: str
    mckay: bool
    winner: str | None = None  # a team, a seat (McKay), "draw", or None while unfinished
    calls: int = 0
    cost: float = 0.0

    def visible_seqs(self, name: str) -> set[int]:
        """The engine's rule, for tests and counts: the events ``name`` saw."""
        return {e.seq for e in self.events if e.visible_to(name)}

    def rendered_seqs(self) -> list[int]:
        """Every event placed in the story (each exactly once, if the builder is right)."""
        out = []
        for section in self.sections:
            if section.seq is not None:
                out.append(section.seq)
            out += [s for item in section.items for s in item.seqs()]
        return out


# ---- building --------------------------------------------------------------------------------
def _calls_by_decision(transcript: Transcript) -> dict[tuple[str, int], Usage]:
    out: dict[tuple[str, int], Usage] = defaultdict(Usage)
    for record in transcript.calls:
        call = record.get("call")
        player = record.get("player")
        if not isinstance(call, dict) or not isinstance(player, str) or not isinstance(call.get("request"), int):
            continue
        usage = call.get("usage") if isinstance(call.get("usage"), dict) else {}
        out[(player, call["request"])].calls.append(
            Call(
                attempt=int(call.get("try") or 1),
                outcome=str(call.get("outcome") or "?"),
                input_tokens=int(usage.get("input_tokens") or 0),
                cached_tokens=int(usage.get("cached_tokens") or 0),
                output_tokens=int(usage.get("output_tokens") or 0),
                reasoning_tokens=int(usage.get("reasoning_tokens") or 0),
                cost=float(call.get("cost") or 0.0),
                latency=float(call.get("latency") or 0.0),
                error=str(call.get("error") or ""),
            )
        )
    return out


def _clip(text: str, limit: int = 200) -> str:
    """A raw answer can be a whole page of model output: its start is enough to see what went wrong."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plain(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


class _Builder:
    """One pass over the log: sections, items, and the truth needed to judge claims."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self.events = [Event.from_dict(raw) for raw in transcript.events]
        self.usage = _calls_by_decision(transcript)
        self.mckay = any(e.type == "hand" for e in self.events)
        self.day_word = "Hand" if self.mckay else "Day"
        self.sections: list[Section] = [Section("Before the game", "setup")]
        self.role: dict[str, str] = {}  # the truth so far: seat -> card, seat -> team
        self.team: dict[str, str] = {}
        self.checked: dict[str, dict[str, str]] = defaultdict(dict)  # checker -> target -> result told
        self.pending: list[Answer] = []
        self.rejected: dict[tuple[str, Any], list[Rejection]] = defaultdict(list)
        self.cards: Item | None = None
        self.beat = 0

    # ---- helpers -----------------------------------------------------------------------------
    def add(self, item: Item) -> None:
        self.sections[-1].items.append(item)

    def judge_claim(self, speaker: str, claim: dict[str, Any]) -> list[ClaimCheck]:
        """Each statement of ``claim`` against the cards and the check results actually told."""
        out = []
        role = claim.get("role")
        if role:
            real = self.role.get(speaker, "?")
            true = same_role(str(role), real)
            out.append(ClaimCheck(f"{speaker} is {role}", true, "" if true else f"really {real}"))
        for target, result in _plain(claim.get("checks")).items():
            real_team = self.team.get(target, "?")
            actual = "mafia" if real_team == "mafia" else "not mafia"
            true = result == actual
            told = self.checked[speaker].get(target)
            if told is None:
                note = "never checked"
            elif told != result:
                note = f"was told {told}"
            else:
                note = ""
            if not true:
                note = "; ".join(p for p in (f"{target} is {self.role.get(target, '?')}", note) if p)
            out.append(ClaimCheck(f"{target} is {result}", true, note))
        return out

    def answer(self, event: Event) -> Answer:
        data = event.data
        action = _plain(data.get("action"))
        actor = event.actor or "?"
        answer = Answer(
            seq=event.seq,
            to=_to(event),
            actor=actor,
            type=event.type,
            kind=str(action.get("kind", "?")),
            text=describe_action(action),
            phase=event.phase,
            team=self.team.get(actor, ""),
            thought=str(action.get("thought") or ""),
            why=str(data.get("why") or ""),
            rejections=self.rejected.pop((actor, data.get("request")), []),
            usage=self.usage.get((actor, data.get("request"))),
        )
        claim = action.get("claim")
        if isinstance(claim, dict) and (claim.get("role") or claim.get("checks")):
            answer.claim_text = _claim(claim)
            answer.claim = self.judge_claim(actor, claim)
        return answer

    def take(self, actor: str | None, kinds: tuple[str, ...]) -> Answer | None:
        """The actor's latest unplaced answer of one of ``kinds`` (it is placed by the caller)."""
        for i in range(len(self.pending) - 1, -1, -1):
            answer = self.pending[i]
            if answer.actor == actor and answer.kind in kinds:
                return self.pending.pop(i)
        return None

    def flush(self) -> None:
        """Answers no speech or vote showed (night actions, beats): one row of chips."""
        if not self.pending:
            return
        phases = {a.phase for a in self.pending}
        if phases & BEAT_PHASES:
            self.beat += 1
            label = f"Beat {self.beat}"
        elif phases & NIGHT_PHASES:
            label = "Night actions"
        else:
            label = "Answers"
        self.add(Item("answers", text=label, rows=[{"answer": a} for a in self.pending]))
        self.pending = []

    def open_section(self, event: Event) -> None:
        data = event.data
        number = data.get("number", event.day)
        if event.type == "day":
            section = Section(f"Day {number}", f"day-{number}", event.seq, f"alive: {', '.join(data.get('alive') or [])}", "day")
        elif event.type == "night":
            section = Section(f"Night {number}", f"night-{number}", event.seq, css="night")
        else:
            unpicked = data.get("unpicked")
            sub = f"{data.get('beats')} beats" + (f", {unpicked} cards face down" if unpicked is not None else "")
            section = Section(f"Hand {number} of {data.get('of')}", f"hand-{number}", event.seq, sub, "hand")
            self.beat = 0
        self.sections.append(section)

    # ---- events ------------------------------------------------------------------------------
    def feed(self, event: Event) -> None:
        t, data = event.type, event.data
        if t == "rejected":
            answer = describe_action(data["action"]) if data.get("action") is not None else f"raw {_clip(repr(data.get('raw')))}"
            rejection = Rejection(event.seq, _to(event), answer, str(data.get("reason", "")))
            self.rejected[(event.actor or "?", data.get("request"))].append(rejection)
            return
        if t in ("action", "forfeit"):
            if self.pending and (event.phase != self.pending[-1].phase or any(a.actor == event.actor for a in self.pending)):
                self.flush()  # a new batch: one answer per player per decision step
            self.pending.append(self.answer(event))
            return
        if t == "role":
            self.card(event)
            return
        if t == "check_result" and event.to:
            for checker in event.to:
                self.checked[checker][str(data.get("target"))] = str(data.get("result"))
        if t == "speech":
            channel = data.get("kind") == "channel"  # a pointing with words: the answer is the speech
            answer = self.take(event.actor, ("speak", "kill") if channel else ("speak",))
            self.flush()
            self.place_cards()
            self.speech(event, answer)
            return
        if t == "vote_result":
            rows = self.ballots(data)
            self.flush()
            self.place_cards()
            self.add(Item("votes", event.seq, _to(event), text=vote_title(data), data=data, rows=rows))
            return
        self.flush()
        if t in SECTION_TYPES:
            self.open_section(event)
            self.place_cards()
            return
        self.place_cards()
        if t == "accusation" and self.attach_accusation(event):
            return
        if t == "round":
            self.beat = 0
            alive = ", ".join(data.get("alive") or [])
            self.add(Item("subhead", event.seq, text=f"Round {data.get('number')}", data={"subtitle": f"alive: {alive}"}))
            return
        if t == "hand_over":
            self.add(Item("hand_over", event.seq, text=f"Hand {data.get('number')} over ({data.get('reason')})", data=data))
            return
        self.line(event)

    def line(self, event: Event) -> None:
        if event.to is None:
            shown = _public(event, self.day_word)
            text = f"{event.actor} accuses {event.data.get('accused')}." if shown is None else shown[0]
            css = LINE_CLASS.get(event.type, "table" if event.type in MCKAY_LINES else "")
        else:
            text = private_line(event)
            css = "note" if event.audience == MODERATOR else LINE_CLASS.get(event.type, "private")
        self.add(Item("line", event.seq, _to(event), audience_label(event.audience), text, css, event.actor or ""))

    def card(self, event: Event) -> None:
        """A card dealt: the truth for judging claims, and a chip in the next "cards dealt" row."""
        name = event.audience.removeprefix("player:")
        role, team = str(event.data.get("role", "?")), str(event.data.get("team", "?"))
        self.role[name], self.team[name] = role, team
        if self.cards is None:
            self.cards = Item("cards", text="Cards dealt")
        self.cards.rows.append({"seq": event.seq, "to": _to(event), "name": name, "role": role, "team": team})

    def place_cards(self) -> None:
        """Cards go after the header of the section they open (a McKay hand deals before its header)."""
        if self.cards is not None:
            self.add(self.cards)
            self.cards = None

    def speech(self, event: Event, answer: Answer | None) -> None:
        data = event.data
        kind = str(data.get("kind") or "discussion")
        notes = []
        if data.get("accuse"):
            notes.append(f"accuses {data['accuse']}")
        if data.get("nominate"):
            notes.append(f"nominates {data['nominate']}")
        if data.get("floor"):
            notes.append(f"hands the floor to {', '.join(map(str, data['floor']))}")
        if kind == "channel" and data.get("target") is not None:
            notes.append(f"points at {data['target']}" + (f" (round {data['round']})" if data.get("round") else ""))
        self.add(
            Item(
                "speech", event.seq, _to(event), audience_label(event.audience), str(data.get("text") or ""),
                actor=event.actor or "?", answer=answer,
                data={"kind": kind, "notes": notes, "accuse": data.get("accuse"), "team": self.team.get(event.actor or "", "")},
            )
        )  # fmt: skip

    def attach_accusation(self, event: Event) -> bool:
        """An accusation is shown on the speech that made it (it is the same act, seen by all)."""
        items = self.sections[-1].items
        last = items[-1] if items else None
        accused = event.data.get("accused")
        if last is None or last.kind != "speech" or last.actor != event.actor or last.data.get("accuse") != accused:
            return False
        last.attached.append((event.seq, _to(event), f"accuses {accused}"))
        last.data["notes"] = [n for n in last.data["notes"] if n != f"accuses {accused}"]
        return True

    def ballots(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        """A vote's rows in seat order, each with the voter's own answer (its thought)."""
        rows = []
        if "yes" in data:
            order = {n: i for i, n in enumerate(self.transcript.header.get("seats") or [])}
            ballots = [(n, "yes") for n in data.get("yes") or []] + [(n, "no") for n in data.get("no") or []]
            for voter, choice in sorted(ballots, key=lambda b: order.get(b[0], len(order))):
                rows.append({"voter": voter, "choice": choice, "css": choice, "answer": self.take(voter, ("verdict",))})
            return rows
        for voter, target in _plain(data.get("votes")).items():
            choice, css = ("abstains", "abstain") if target is None else (f"→ {target}", "for")
            rows.append({"voter": voter, "choice": choice, "css": css, "answer": self.take(voter, ("vote",))})
        return rows

    def finish(self) -> None:
        self.flush()
        self.place_cards()
        leftovers = [r for rs in self.rejected.values() for r in rs]
        if leftovers:  # rejected answers of a decision the game never settled (a stopped game)
            self.add(Item("answers", text="Unsettled", rows=[{"rejection": r} for r in leftovers]))


def vote_title(data: dict[str, Any]) -> str:
    """A vote's caption: "Charge vote on Bob: 5 yes, 3 no — passes", "Runoff vote on Ann and Bob — Bob"."""
    vote = str(data.get("vote", "")).replace("_", " ").capitalize() or "Vote"
    on = f" on {data['accused']}" if data.get("accused") else ""
    if not on and data.get("candidates"):
        on = f" on {_and(data['candidates'])}"
    if "yes" in data:
        yes, no = data.get("yes") or [], data.get("no") or []
        outcome = "passes" if data.get("passed") else "fails"
        return f"{vote} vote{on}: {len(yes)} yes, {len(no)} no — {outcome}"
    result = data.get("result")
    tied = data.get("tied") or []
    if result is not None:
        return f"{vote} vote{on} — {result}"
    return f"{vote} vote{on} — " + (f"tie between {_and(tied)}" if tied else "nobody")


def _fates(story_events: list[Event], summary: dict[str, Any] | None, day_word: str) -> dict[str, tuple[str, str]]:
    """seat -> (what the table was told, the recorded cause when different)."""
    told: dict[str, tuple[str, int]] = {}
    for e in story_events:
        if e.type == "death" and e.to is None:
            told[str(e.data.get("player"))] = (str(e.data.get("cause")), e.day)
    truth = {d.get("player"): d.get("cause") for d in (summary or {}).get("deaths") or [] if isinstance(d, dict)}
    out = {}
    for name, (cause, day) in told.items():
        real = truth.get(name)
        out[name] = (f"died {day_word.lower()} {day} ({cause})", str(real) if real and real != cause else "")
    return out


def _known_by(events: list[Event], name: str) -> list[str] | None:
    """Who knew ``name``'s card before the end: himself, his team, everyone once it was shown."""
    knew = {name}
    for e in events:
        if e.type == "death" and e.to is None and e.data.get("player") == name and e.data.get("role"):
            return None
        if e.type == "team" and name in (e.data.get("members") or []) and e.to is not None:
            knew |= set(e.to)
    return sorted(knew)


def _result(header: dict[str, Any], summary: dict[str, Any] | None, events: list[Event], mckay: bool) -> str:
    over = next((e for e in reversed(events) if e.type == "game_over"), None)
    if over is None:
        if summary is None:
            return "unfinished (no summary: the run crashed or is still going)"
        if summary.get("aborted"):
            return f"stopped before the end ({summary['aborted']})"
        if not summary.get("finished"):
            return "unfinished"
    data = over.data if over is not None else summary or {}
    winner, reason = data.get("winner"), data.get("reason")
    if winner in (None, "draw"):
        return f"a draw ({reason})"
    return f"{winner} wins" + (" the match" if mckay else "") + f" ({reason})"


def build_story(transcript: Transcript) -> Story:
    """Read a transcript into a :class:`Story` (no I/O)."""
    builder = _Builder(transcript)
    events = builder.events
    for event in events:
        builder.feed(event)
    builder.finish()
    header, summary = transcript.header, transcript.summary
    mckay = builder.mckay
    seats = _seats(header, summary, events, transcript, mckay)
    sections = [s for s in builder.sections if s.items or s.seq is not None]
    over = next((e for e in reversed(events) if e.type == "game_over"), None)
    winner = over.data.get("winner") if over is not None else None
    total = sum(c.cost for u in builder.usage.values() for c in u.calls)
    calls = sum(len(u.calls) for u in builder.usage.values())
    return Story(
        variant=str(header.get("variant")), seed=header.get("seed"), header=header, summary=summary, events=events,
        seats=seats, sections=sections, result=_result(header, summary, events, mckay), mckay=mckay, calls=calls, cost=total,
        winner=None if over is None else str(winner or "draw"),
    )  # fmt: skip


def _seats(
    header: dict[str, Any], summary: dict[str, Any] | None, events: list[Event], transcript: Transcript, mckay: bool
) -> list[Seat]:
    specs = _plain(header.get("players"))
    first_role: dict[str, tuple[str, str]] = {}
    for e in events:
        if e.type == "role":
            first_role.setdefault(e.audience.removeprefix("player:"), (str(e.data.get("role")), str(e.data.get("team"))))
    fates = _fates(events, summary, "Hand" if mckay else "Day")
    scores: dict[str, int] = {}
    for e in events:
        if e.type == "hand_over":
            scores = {k: v for k, v in _plain(e.data.get("scores")).items() if isinstance(v, int)}
    over = next((e for e in reversed(events) if e.type == "game_over"), None)
    winner = (over.data.get("winner") if over else None) or (summary or {}).get("winner")
    per_player = _plain((summary or {}).get("per_player"))
    usage = _plain((summary or {}).get("usage"))
    decisions: dict[str, list[Usage]] = defaultdict(list)
    for (player, _request), u in _calls_by_decision(transcript).items():
        decisions[player].append(u)
    counted = Counter(e.actor for e in events if e.type == "forfeit")
    rejected = Counter(e.actor for e in events if e.type == "rejected")
    out = []
    for name in header.get("seats") or []:
        role, team = first_role.get(name, ("", ""))
        seat = Seat(name, str(specs.get(name, "?")), role, team)
        if mckay:
            seat.score = scores.get(name)
            seat.won = None if winner is None else winner == name
            seat.fate = ""
        else:
            seat.known_by = _known_by(events, name)
            seat.fate, seat.true_fate = fates.get(name, ("alive", ""))
            seat.won = None if winner is None or winner == "draw" else team == winner
        seat.counts = _plain(per_player.get(name)) or {
            "decisions": sum(1 for e in events if e.type in ("action", "forfeit") and e.actor == name),
            "forfeits": counted[name],
            "rejections": rejected[name],
        }
        seat.usage = SeatUsage.of(usage.get(name), decisions[name])
        out.append(seat)
    return out
