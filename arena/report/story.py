"""A transcript turned into a story: seats, then sections of items, each item tied to its events.

Both the HTML report and the terminal viewer read a game through this module, so they agree on
who saw what. Events are loaded with :meth:`Event.from_dict` and filtered with
:meth:`Event.visible_to`, the engine's own rule: nothing here decides visibility by itself.

Every event of the log ends up in exactly one place: its own item (a line, a speech, a vote
table, a hand's score table) or a part of another one (a player's answer beside its speech or in
a vote table, an accusation on the speech that made it, a rejected answer on the decision it was
rejected for). Each place carries the event's ``seq`` and ``to``, which is what lets a page show
the game as any one player saw it.

Two kinds of story: the review story (``viewer=None``) holds everything, with the moderator's
verdicts on claims and every seat's own verdicts beside them (:mod:`arena.report.knowledge`);
a seat's story (``viewer=NAME``) is built from :func:`seat_transcript`, the transcript cut down
to that seat's events, so nothing it did not see can reach its page.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import Event
from arena.engine.events import MODERATOR, PUBLIC, Numbering, numbered
from arena.engine.wording import DEATH_VERBS, MCKAY_LINES, public_line
from arena.engine.wording import private_line as console_private_line
from arena.report.glance import Glance, beat_slots, belief_grids, vote_grid, vote_short
from arena.report.knowledge import ROLE_FAMILIES, Knowledge, Statement, Verdict, composition, group_views, same_role
from arena.report.moment import moment_facts
from arena.report.usage import Call, SeatUsage, Usage, calls_by_decision, money
from arena.report.words import HAND_ENDS, action_words, claim_words, names, slot_words, thought
from arena.run.outcome import Fate, fates, result_text
from arena.run.transcript import Transcript

__all__ = [
    "ROLE_FAMILIES", "Answer", "Call", "Item", "Seat", "SeatUsage", "Section", "Story", "Usage", "build_story",
    "same_role", "seat_transcript",
]  # fmt: skip

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
#: summary fields a seat's own page keeps (the rest — every card, the true causes — is not its to see)
SEAT_SUMMARY = ("finished", "aborted", "days", "ended")
_WHO = re.compile(r"^\[[^\]]*\] ")


def _plain(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _pairs(mapping: Any, empty: str = "nobody") -> str:
    items = _plain(mapping).items()
    return ", ".join(f"{k} → {v if v is not None else 'nobody'}" for k, v in items) if items else empty


def _night(d: dict[str, Any]) -> str:
    """cove's moderator note of a night, in the order the page resolves it."""
    parts = []
    if d.get("visit") is not None:
        parts.append(f"the mistress visits {d['visit']}")
    if d.get("channel"):
        parts.append(f"the mafia point {_pairs(d['channel'])}, victim {d.get('mafia_victim') or 'nobody'}")
    if d.get("maniac_target") is not None:
        parts.append(f"the maniac names {d['maniac_target']}" + (" (no effect)" if d.get("maniac_void") else ""))
    if d.get("check") is not None:
        parts.append(f"the detective checks {d['check']}")
    if d.get("heal") is not None:
        parts.append(f"the doctor names {d['heal']}" + (" (no effect)" if d.get("heal_void") else ""))
    if d.get("saved"):
        parts.append(f"{d['saved']} is saved")
    dead = _plain(d.get("dead"))
    parts.append("dead: " + (", ".join(f"{n} (by the {c})" for n, c in dead.items()) if dead else "nobody"))
    return "The night: " + "; ".join(parts) + "."


#: sentences for moderator and team notes the console prints generically (type -> line about actor, data)
NOTE_LINES: dict[str, Any] = {
    "order": lambda who, d: (
        f"Round {d.get('round')}: who comes first within a beat: {', '.join(map(str, d.get('order') or []))}."
    ),
    "channel_result": lambda who, d: (
        f"Mafia channel, round {d.get('round')}: {_pairs(d.get('targets'))} — "
        + ("agreed" if d.get("agreed") else "no agreement")
        + (f"; victim: {d.get('victim') or 'nobody'}" if "victim" in d else "")
        + "."
    ),
    "night_resolution": lambda who, d: _night(d),
    "saved": lambda who, d: f"The doctor saved {d.get('player')} from the kill.",
    "kill_void": lambda who, d: f"{who}'s kill on {d.get('target')} has no effect (one of them is already dead).",
    "simultaneous_draw": lambda who, d: f"Two kills in one beat: the draw makes {d.get('first')} first.",
    "player_timeout": lambda who, d: f"{who} ran out of time (request {d.get('request')}).",
    "player_error": lambda who, d: f"{who} failed to answer (request {d.get('request')}): {d.get('error')}",
    "shots": lambda who, d: (
        "The night's shots: "
        + (", ".join(f"{m} at {t or 'nobody (holds fire)'}" for m, t in _plain(d.get("shots")).items()) or "none")
        + f"; victim: {d.get('victim') or 'nobody'}."
    ),
    "role": lambda who, d: f"card: {_card(d)}",
    "team": lambda who, d: f"The mafia team: {names(d.get('members'))}.",
    "check_result": lambda who, d: f"Check: {d.get('target')} is {d.get('result')}.",
    "cop_look": lambda who, d: f"Looks at card {d.get('position')}: {d.get('card')}.",
}


def _card(data: dict[str, Any]) -> str:
    """ "citizen (town)", but "mafia" once when the card names its team."""
    role, team = data.get("role"), data.get("team")
    return f"{role} ({team})" if team and team != role else str(role)


def private_line(event: Event) -> str:
    """A line for an event only some players (or the moderator) saw, without the "[who]" prefix."""
    note = NOTE_LINES.get(event.type)
    if note is not None:
        return note(event.actor, event.data)
    return _WHO.sub("", console_private_line(event) or event.type)


def audience_label(audience: str) -> str:
    """Who could see an event, in words: "Hal only", "mafia team", "moderator" ("" for everyone)."""
    if audience == PUBLIC:
        return ""
    if audience == MODERATOR:
        return "moderator"
    kind, _, name = audience.partition(":")
    return {"player": f"{name} only", "team": f"{name} team"}.get(kind, audience)


def _usages(item: Item) -> list[Usage]:
    answers = [item.answer, *(row.get("answer") for row in item.rows)]
    return [a.usage for a in answers if a is not None and a.usage is not None]


def _to(event: Event) -> list[str] | None:
    return None if event.to is None else sorted(event.to)


def _clip(text: str, limit: int = 200) -> str:
    """A raw answer can be a whole page of model output: its start is enough to see what went wrong."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
    text: str  # "names Ann for the kill", "votes yes"
    phase: str
    team: str = ""  # the actor's team when answering (colours the moderator's view)
    thought: str = ""
    why: str = ""  # a forfeit's reason
    rejections: list[Rejection] = field(default_factory=list)
    usage: Usage | None = None

    def seqs(self) -> list[int]:
        return [self.seq, *(r.seq for r in self.rejections)]

    def reading(self) -> Any:
        """The thought laid out for a reader (:func:`arena.report.words.thought`)."""
        return thought(self.thought)


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
    answer: Answer | None = None  # a speech's own answer (thought)
    rows: list[dict[str, Any]] = field(default_factory=list)  # vote rows, answer chips, cards
    attached: list[tuple[int, list[str] | None, str]] = field(default_factory=list)  # (seq, to, text) shown inside
    claims: list[Statement] = field(default_factory=list)  # a speech's public claim, judged per view

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
    glance: Glance | None = None  # the section's row in the strip at the top (days and nights)
    hand: dict[str, Any] | None = None  # a McKay hand's one-line summary (the section folds under it)


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
    entrant: str = ""  # a tournament's entrant (model or person) in this seat; "" outside a tournament


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
    viewer: str | None = None  # a seat's own story: built from its events alone
    known: dict[str, list[tuple[int, str, str]]] = field(default_factory=dict)  # seat -> sides learned (colours)
    beliefs: list[dict[str, Any]] = field(default_factory=list)  # per answering seat: a days × players grid
    teams: list[str] = field(default_factory=list)  # the variant's sides, for the legend
    tournament: dict[str, Any] = field(default_factory=dict)  # key, round, pairing, sides (side -> entrant)
    facts: list[dict[str, Any]] = field(default_factory=list)  # the moment panel's facts (arena.report.moment)

    @property
    def price_unknown(self) -> bool:
        """Some model call of this game has no known price (its cost is a lower bound, or nothing)."""
        return any(s.usage.price_unknown for s in self.seats) or any(
            u.price_unknown for section in self.sections for item in section.items for u in _usages(item)
        )

    def forked_from(self) -> tuple[str, str] | None:
        """A forked game's parent (:mod:`arena.run.fork`): its file name and its report's (beside it)."""
        fork = self.header.get("fork")
        if not isinstance(fork, dict) or not fork.get("parent"):
            return None
        parent = Path(str(fork["parent"]))
        return parent.name, parent.with_suffix(".html").name

    def cost_text(self) -> str:
        return money(self.cost, self.price_unknown)

    def player_of(self, seat: Seat) -> str:
        """Who played a seat: its tournament entrant where there is one, else its seat spec."""
        return seat.entrant or seat.spec

    def winning_players(self) -> str:
        """Who won, by player rather than seat: "bot2" (the entrant or spec of every winning seat), "" if nobody."""
        won = list(dict.fromkeys(self.player_of(s) for s in self.seats if s.won and self.player_of(s) != "?"))
        return ", ".join(won)

    def pairing_line(self) -> str:
        """A tournament game's pairing and sides: "bot (mafia) vs bot2 (town), round 2" ("" outside one)."""
        sides = _plain(self.tournament.get("sides"))
        if not sides:
            return str(self.tournament.get("pairing") or "")
        order = sorted(sides.items(), key=lambda kv: ({"mafia": 0, "A": 0, "town": 1, "B": 1}.get(kv[0], 2), kv[0]))
        line = " vs ".join(f"{who} ({side if side not in ('A', 'B') else 'side ' + side})" for side, who in order)
        return line + (f", round {self.tournament['round']}" if self.tournament.get("round") is not None else "")

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

    @property
    def strip(self) -> list[tuple[Section, Glance]]:
        """The game at a glance: one row per day and night that has something to show."""
        return [
            (s, s.glance)
            for s in self.sections
            if s.glance is not None and (not s.glance.empty() or s.glance.kind == "night")  # a quiet night is news too
        ]

    def seat_teams(self) -> dict[str, str]:
        """seat -> side, as this story knows it (the truth; in a seat's own page, what that seat knew)."""
        return {seat.name: seat.team for seat in self.seats}

    def claims(self) -> list[tuple[Item, Statement]]:
        return [(item, st) for section in self.sections for item in section.items for st in item.claims]


# ---- a seat's own transcript ------------------------------------------------------------------
def seat_transcript(transcript: Transcript, name: str) -> Transcript:
    """The transcript as ``name`` saw the game: its events, its own model calls, the public facts.

    The seed is left out (it fixes the deal, and so every card), and so is the summary's truth
    (cards, causes of death, other seats' counts): what is left is safe to hand to that player. Its
    events and decisions are numbered for the seat alone (:class:`~arena.engine.events.Numbering`).
    """
    header = {k: v for k, v in transcript.header.items() if k not in ("seed", "reseeds", "seat_seeds")}
    if isinstance(header.get("fork"), dict):  # a fork's new seed fixes what was drawn after it: only where it forked
        header["fork"] = {k: v for k, v in header["fork"].items() if k in ("parent", "at")}
    if "tournament" in header:  # which entrant sat where tells the sides: the seat keeps its own entrant only
        mine = _plain(_plain(header["tournament"]).get("entrants")).get(name)
        header["tournament"] = {"pairing": _plain(header["tournament"]).get("pairing"), "entrants": {name: mine} if mine else {}}
        header["players"] = {name: _plain(header.get("players")).get(name, "?")}
    numbering = Numbering()  # the seat's own numbers: a gap in the log's would count hidden events
    events = numbered((raw for raw in transcript.events if raw.get("to") is None or name in raw.get("to")), numbering)
    calls = []
    for record in transcript.calls:
        call = record.get("call")
        if record.get("player") == name:
            if isinstance(call, dict) and "request" in call:
                record = {**record, "call": {**call, "request": numbering.decision(call["request"])}}
            calls.append(record)
    summary = None
    if transcript.summary is not None:
        summary = {k: transcript.summary[k] for k in SEAT_SUMMARY if k in transcript.summary}
        for key in ("per_player", "usage"):
            mine = _plain(transcript.summary.get(key)).get(name)
            summary[key] = {name: mine} if mine is not None else {}
    return Transcript(transcript.path, header, events, summary, calls)


# ---- building --------------------------------------------------------------------------------
class _Builder:
    """One pass over the log: sections, items, and what each judge knew to weigh claims."""

    def __init__(self, transcript: Transcript, viewer: str | None) -> None:
        from arena.variants import VARIANTS

        self.transcript = transcript
        self.viewer = viewer
        self.events = [Event.from_dict(raw) for raw in transcript.events]
        self.usage = calls_by_decision(transcript)
        self.mckay = any(e.type == "hand" for e in self.events)
        self.day_word = "Hand" if self.mckay else "Day"
        self.seats = [str(s) for s in transcript.header.get("seats") or []]
        self.variant = str(transcript.header.get("variant"))
        cls = VARIANTS.get(self.variant)
        self.team_of: dict[str, str] = dict(getattr(cls, "team_of", {}) or {})
        deck = composition(self.variant, transcript.header, self.events)
        judges = [viewer] if viewer is not None else self.seats
        self.knowledge = {n: Knowledge(n, self.seats, self.team_of, deck) for n in judges}
        self.sections: list[Section] = [Section("Before the game", "setup")]
        self.role: dict[str, str] = {}  # the truth so far (the review story only): seat -> card, seat -> team
        self.team: dict[str, str] = {}
        self.checked: dict[str, dict[str, str]] = defaultdict(dict)  # checker -> target -> result told
        self.pending: list[Answer] = []
        self.rejected: dict[tuple[str, Any], list[Rejection]] = defaultdict(list)
        self.cards: Item | None = None
        self.beat = 0
        self.slots: dict[str, Any] = {}  # trio: where each kill card lies
        self.slots_moved = False
        self.nominations: dict[str, list[str]] = defaultdict(list)  # cove: nominee -> nominators, today
        self.declarations: list[tuple[str, Statement]] = []  # McKay: this hand's cop declarations

    # ---- helpers -----------------------------------------------------------------------------
    def add(self, item: Item) -> None:
        self.sections[-1].items.append(item)

    def glance(self) -> Glance | None:
        return self.sections[-1].glance

    def judged(self, event: Event, truth: Verdict | None, judge: Any) -> tuple[Verdict | None, list[tuple[list[str], Verdict]]]:
        """The moderator's verdict (review story only) and each seat's that saw ``event``."""
        views = {n: judge(k) for n, k in self.knowledge.items() if event.visible_to(n)}
        return (truth if self.viewer is None else None), group_views(views)

    def judge_claim(self, event: Event, speaker: str, claim: dict[str, Any]) -> list[Statement]:
        """Each statement of a public claim: the moderator's verdict from the truth, each seat's from what it knew."""
        out = []
        role = claim.get("role")
        if role:
            real = self.role.get(speaker, "?")
            true = same_role(str(role), real)
            truth = Verdict(true, "" if true else f"really {real}")
            verdicts = self.judged(event, truth, lambda k: k.judge_role(speaker, str(role)))
            out.append(Statement(f"{speaker} is {role}", *verdicts))
        for target, result in _plain(claim.get("checks")).items():
            real_team = self.team.get(target, "?")
            actual = "mafia" if real_team == "mafia" else "not mafia"
            told = self.checked[speaker].get(target)
            note = "never checked" if told is None else (f"was told {told}" if told != result else "")
            if result != actual:
                note = "; ".join(p for p in (f"{target} is {self.role.get(target, '?')}", note) if p)
            truth = Verdict(result == actual, note)
            verdicts = self.judged(event, truth, lambda k, t=target, r=result: k.judge_check(t, str(r)))
            out.append(Statement(f"{target} is {result}", *verdicts))
        return out

    def answer(self, event: Event) -> Answer:
        data = event.data
        action = _plain(data.get("action"))
        actor = event.actor or "?"
        return Answer(
            seq=event.seq,
            to=_to(event),
            actor=actor,
            type=event.type,
            kind=str(action.get("kind", "?")),
            text=action_words(action, event.phase),
            phase=event.phase,
            team=self.team.get(actor, ""),
            thought=str(action.get("thought") or ""),
            why=str(data.get("why") or ""),
            rejections=self.rejected.pop((actor, data.get("request")), []),
            usage=self.usage.get((actor, data.get("request"))),
        )

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
        item = Item("answers", rows=[{"answer": a} for a in self.pending])
        if phases & BEAT_PHASES:
            self.place_slots()
            self.beat += 1
            item.text = f"Beat {self.beat}"
        else:
            item.text = "Night actions" if phases & NIGHT_PHASES else "Answers"
        self.add(item)
        self.pending = []

    def open_section(self, event: Event) -> None:
        data = event.data
        number = data.get("number", event.day)
        if event.type == "day":
            alive = f"alive: {', '.join(data.get('alive') or [])}"
            section = Section(f"Day {number}", f"day-{number}", event.seq, alive, "day", glance=Glance("day", number))
            self.nominations.clear()
        elif event.type == "night":
            section = Section(f"Night {number}", f"night-{number}", event.seq, css="night", glance=Glance("night", number))
        else:
            unpicked = data.get("unpicked")
            sub = f"{data.get('beats')} beats" + (f", {unpicked} cards face down" if unpicked is not None else "")
            section = Section(f"Hand {number} of {data.get('of')}", f"hand-{number}", event.seq, sub, "hand")
            self.beat = 0
            self.slots = {}
            self.declarations = []
        self.sections.append(section)

    # ---- events ------------------------------------------------------------------------------
    def feed(self, event: Event) -> None:
        for knowledge in self.knowledge.values():
            if event.visible_to(knowledge.name):
                knowledge.see(event)
        t, data = event.type, event.data
        if t == "rejected":
            answer = (
                f"“{action_words(data['action'])}”" if data.get("action") is not None else f"raw {_clip(repr(data.get('raw')))}"
            )
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
            grid = vote_grid(data, rows, self.seats, dict(self.nominations))
            self.add(Item("votes", event.seq, _to(event), text=vote_title(data), data={**data, "grid": grid}, rows=rows))
            if self.glance() is not None:
                self.glance().votes.append(vote_short(event.seq, _to(event), data))
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
            self.place_slots()
            self.beat = 0
            self.slots = {}
            alive = ", ".join(data.get("alive") or [])
            self.add(Item("subhead", event.seq, text=f"Round {data.get('number')}", data={"subtitle": f"alive: {alive}"}))
            return
        if t == "hand_over":
            self.hand_over(event)
            return
        self.line(event)

    def line(self, event: Event) -> None:
        t, data = event.type, event.data
        if event.to is None:
            shown = public_line(event, self.day_word)
            text = f"{event.actor} accuses {data.get('accused')}." if shown is None else shown[0]
            css = LINE_CLASS.get(t, "table" if t in MCKAY_LINES else "")
        else:
            text = private_line(event)
            css = "note" if event.audience == MODERATOR else LINE_CLASS.get(t, "private")
        item = Item("line", event.seq, _to(event), audience_label(event.audience), text, css, event.actor or "")
        if t == "death":
            item.text = self.death_line(event)
        elif t == "game_over":
            item.text = f"Game over: {self.result_words(event)}."
            item.data["roles"] = _plain(data.get("roles"))
        elif t in ("cop_declared", "declaration_void"):
            self.declaration(event, item)
        elif t in ("card_placed", "kill", "retracted", "judge_ruling"):
            if t == "card_placed":
                slot = data.get("slot")
                item.text = f"{event.actor} " + (
                    "takes the kill card back." if slot is None else f"puts the kill card {slot_words(slot)}."
                )
            self.move_card(event)
        item.data.setdefault("actor", event.actor or "")
        self.add(item)
        self.note_glance(event)

    # ---- days and nights at a glance ------------------------------------------------------------
    def note_glance(self, event: Event) -> None:
        row = self.glance()
        if row is None:
            return
        t, data = event.type, event.data
        if t == "death" and event.to is None:
            row.deaths.append(self.death_entry(event))
        elif t == "check_result":
            checker = event.audience.removeprefix("player:")
            row.checks.append((event.seq, _to(event), f"{checker} checked {data.get('target')}: {data.get('result')}"))
        elif t in ("saved",) or (t == "night_resolution" and data.get("saved")):
            row.notes.append((event.seq, _to(event), f"{data.get('player') or data.get('saved')} saved by the doctor"))
        elif t in ("trial", "runoff", "lot") and event.to is None:  # charges show as their votes
            who = names(data.get("candidates")) if t == "runoff" else str(data.get("player"))
            text = {"trial": f"{who} on trial", "runoff": f"runoff: {who}", "lot": f"the lot falls on {who}"}[t]
            row.court.append((event.seq, _to(event), text))

    def death_entry(self, event: Event) -> dict[str, Any]:
        """A death for the strip: who, how, and the card as each judge knew it then."""
        player, cause = str(event.data.get("player")), str(event.data.get("cause"))
        shown = event.data.get("role")
        views: dict[str, str] = {}
        for name, knowledge in self.knowledge.items():
            known = knowledge.side_of(player)
            if known is not None and not shown:
                views[name] = known[0]
        groups: dict[str, list[str]] = defaultdict(list)
        for name, card in views.items():
            groups[card].append(name)
        return {
            "seq": event.seq, "player": player, "cause": DEATH_VERBS.get(cause, cause),
            "shown": shown, "truth": None if (shown or self.viewer) else self.role.get(player),
            "views": [(names_, card) for card, names_ in groups.items()],
        }  # fmt: skip

    def fate_of(self, event: Event) -> Fate:
        data = event.data
        role = data.get("role")
        return Fate(str(data.get("player")), str(data.get("cause")), event.day, event.phase, str(role) if role else None)

    def death_line(self, event: Event) -> str:
        fate = self.fate_of(event)
        card = f" — was {fate.role}" if fate.role else ""
        by = event.data.get("by")
        if self.mckay:  # a hand's death: who killed, and how (two kill cards in trio's round 1)
            how = {"vote": " (two kill cards on him)", "simultaneous": " (both killed in the same beat)"}.get(fate.cause, "")
            return f"† {fate.player} is killed" + (f" by {names(by)}" if by else "") + f"{how}{card}."
        return f"† {fate.player}: {fate.text()}{card}."

    def result_words(self, event: Event) -> str:
        data = event.data
        roles = _plain(data.get("roles"))
        dead = set(fates(self.events))
        alive = {n: r for n, r in roles.items() if n not in dead}
        scores = None
        if self.mckay:
            over = [e for e in self.events if e.type == "hand_over"]
            scores = _plain(over[-1].data.get("scores")) if over else {}
        return result_text(
            data.get("winner"), str(data.get("reason")), alive_roles=alive, team_of=self.team_of, scores=scores,
            max_days=_plain(self.transcript.header.get("options")).get("max_days"),
        )  # fmt: skip

    # ---- McKay ------------------------------------------------------------------------------------
    def declaration(self, event: Event, item: Item) -> None:
        """A cop declaration is a claim: true if the declarer holds the cop card, else a lie."""
        declarer = event.actor or "?"
        real = self.role.get(declarer)
        truth = None if real is None else Verdict(real == "cop", "" if real == "cop" else f"really {real}")
        statement = Statement(f"{declarer} is the cop", *self.judged(event, truth, lambda k: k.judge_cop(declarer)))
        item.claims.append(statement)
        self.declarations.append((declarer, statement))

    def move_card(self, event: Event) -> None:
        """trio: where each kill card lies, after every move (shown under the beat)."""
        t, data, actor = event.type, event.data, event.actor or "?"
        if t == "card_placed":
            self.slots[actor] = data.get("slot")
        elif t == "kill" and self.variant == "trio":
            self.slots[actor] = data.get("target")
        elif t == "retracted":
            self.slots[actor] = None
        elif t == "judge_ruling":  # the second of the two kills never happened: that card goes back to hand
            second = self.slots.get(str(data.get("first")))
            if second is not None:
                self.slots[str(second)] = None
        else:
            return
        self.slots_moved = True

    def place_slots(self) -> None:
        """trio: after a beat in which a card moved, where every kill card lies now."""
        if self.slots_moved:
            self.add(Item("slots", data={"slots": beat_slots(self.slots)}))
            self.slots_moved = False

    def hand_over(self, event: Event) -> None:
        self.place_slots()
        data = event.data
        end = HAND_ENDS.get(str(data.get("reason")), str(data.get("reason")).replace("_", " "))
        deaths = []
        for d in data.get("deaths") or []:
            by = names(d.get("by")) if d.get("by") else "somebody"
            if d.get("cause") == "vote":  # trio, round 1: two kill cards on one player
                deaths.append(f"{d.get('player')} died: {by} put their kill cards on {d.get('player')}")
            else:
                deaths.append(f"{d.get('player')} died: killed by {by}")
        cards = [(n, str(c), self.team_of.get(str(c), "")) for n, c in _plain(data.get("roles")).items()]
        shown = {**data, "cards": cards, "death_words": deaths}  # the event's own data stays as recorded
        self.add(Item("hand_over", event.seq, text=f"Hand {data.get('number')} over, ended by {end}", data=shown))
        self.sections[-1].hand = {
            "seq": event.seq, "number": data.get("number"), "cards": cards, "end": end, "deaths": deaths,
            "points": _plain(data.get("points")), "scores": _plain(data.get("scores")), "declarations": list(self.declarations),
        }  # fmt: skip

    # ---- cards, speeches, votes --------------------------------------------------------------------
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
        actor = event.actor or "?"
        notes = []
        if data.get("accuse"):
            notes.append(f"accuses {data['accuse']}")
        if data.get("nominate"):
            notes.append(f"nominates {data['nominate']}")
            self.nominations[str(data["nominate"])].append(actor)
        if data.get("floor"):
            notes.append(f"hands the floor to {names(data['floor'])}")
        if kind == "channel" and data.get("target") is not None:
            notes.append(f"points at {data['target']}" + (f" (round {data['round']})" if data.get("round") else ""))
        item = Item(
            "speech", event.seq, _to(event), audience_label(event.audience), str(data.get("text") or ""),
            actor=actor, answer=answer,
            data={"kind": kind, "notes": notes, "accuse": data.get("accuse"), "team": self.team.get(actor, "")},
        )  # fmt: skip
        claim = data.get("claim")
        if isinstance(claim, dict) and (claim.get("role") or claim.get("checks")):
            item.data["claim_text"] = claim_words(claim)
            item.claims = self.judge_claim(event, actor, claim)
            row = self.glance()
            if row is not None:
                row.claims.append((event.seq, _to(event), actor, item.claims))
        row = self.glance()
        target = data.get("accuse") or data.get("nominate")
        if row is not None and target:
            row.accused.setdefault(str(target), []).append(actor)
        self.add(item)

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
            order = {n: i for i, n in enumerate(self.seats)}
            ballots = [(n, "yes") for n in data.get("yes") or []] + [(n, "no") for n in data.get("no") or []]
            for voter, choice in sorted(ballots, key=lambda b: order.get(b[0], len(order))):
                answer = self.take(voter, ("verdict",))
                rows.append(
                    {
                        "voter": voter,
                        "choice": choice,
                        "target": choice,
                        "css": choice,
                        "team": self.team.get(voter, ""),
                        "answer": answer,
                    }
                )
            return rows
        for voter, target in _plain(data.get("votes")).items():
            choice, css = ("abstains", "abstain") if target is None else (f"→ {target}", "for")
            answer = self.take(voter, ("vote",))
            rows.append(
                {
                    "voter": voter,
                    "choice": choice,
                    "target": target,
                    "css": css,
                    "team": self.team.get(voter, ""),
                    "answer": answer,
                }
            )
        return rows

    def finish(self) -> None:
        self.flush()
        self.place_cards()
        self.place_slots()
        leftovers = [r for rs in self.rejected.values() for r in rs]
        if leftovers:  # rejected answers of a decision the game never settled (a stopped game)
            self.add(Item("answers", text="Unsettled", rows=[{"answer": None, "rejection": r} for r in leftovers]))


def vote_title(data: dict[str, Any]) -> str:
    """A vote's caption: "Charge vote on Bob: 5 yes, 3 no — passes", "Runoff vote on Ann and Bob — Bob"."""
    vote = str(data.get("vote", "")).replace("_", " ").capitalize() or "Vote"
    on = f" on {data['accused']}" if data.get("accused") else ""
    if not on and data.get("candidates"):
        on = f" on {names(data['candidates'])}"
    if "yes" in data:
        yes, no = data.get("yes") or [], data.get("no") or []
        outcome = "passes" if data.get("passed") else "fails"
        return f"{vote} vote{on}: {len(yes)} yes, {len(no)} no — {outcome}"
    result = data.get("result")
    tied = data.get("tied") or []
    if result is not None:
        return f"{vote} vote{on} — {result}"
    return f"{vote} vote{on} — " + (f"tie between {names(tied)}" if tied else "nobody")


def _known_by(events: list[Event], name: str) -> list[str] | None:
    """Who knew ``name``'s card before the end: himself, his team, everyone once it was shown."""
    knew = {name}
    for e in events:
        if e.type == "death" and e.to is None and e.data.get("player") == name and e.data.get("role"):
            return None
        if e.type == "team" and name in (e.data.get("members") or []) and e.to is not None:
            knew |= set(e.to)
    return sorted(knew)


def _result(builder: _Builder, summary: dict[str, Any] | None) -> str:
    events = builder.events
    over = next((e for e in reversed(events) if e.type == "game_over"), None)
    if over is not None:
        return builder.result_words(over)
    if summary is None:
        return "unfinished (no summary: the run crashed or is still going)"
    if summary.get("aborted"):
        return f"stopped before the end ({summary['aborted']})"
    if not summary.get("finished") or summary.get("reason") is None:
        return "unfinished"
    return result_text(summary.get("winner"), str(summary.get("reason")), team_of=builder.team_of)


def build_story(
    transcript: Transcript,
    viewer: str | None = None,
    beliefs: list[dict[str, Any]] | None = None,
    tournament: dict[str, Any] | None = None,
) -> Story:
    """Read a transcript into a :class:`Story` (no I/O).

    With ``viewer``, the story of that seat's own page: built from :func:`seat_transcript`, so it
    holds that seat's events and nothing else. ``beliefs`` (from a tournament database: seat,
    day, target, p, truth) add each seat's stated P(mafia) of the others. ``tournament`` (from the
    database: pairing, round, sides, entrants) stands in for the header of a transcript written
    before tournaments recorded their entrants; the transcript's own header wins.
    """
    if tournament and "tournament" not in transcript.header:
        transcript = Transcript(
            transcript.path, {**transcript.header, "tournament": tournament}, transcript.events, transcript.summary,
            transcript.calls,
        )  # fmt: skip
    if viewer is not None:
        transcript = seat_transcript(transcript, viewer)
    builder = _Builder(transcript, viewer)
    events = builder.events
    for event in events:
        builder.feed(event)
    builder.finish()
    header, summary = transcript.header, transcript.summary
    mckay = builder.mckay
    seats = _seats(builder, summary)
    sections = [s for s in builder.sections if s.items or s.seq is not None]
    over = next((e for e in reversed(events) if e.type == "game_over"), None)
    winner = over.data.get("winner") if over is not None else None
    total = sum(c.cost for u in builder.usage.values() for c in u.calls)
    calls = sum(len(u.calls) for u in builder.usage.values())
    grids = belief_grids(beliefs or [], builder.seats, viewer)
    teams = sorted(set(builder.team_of.values()), key=lambda t: (t != "town", t))
    return Story(
        variant=builder.variant, seed=header.get("seed"), header=header, summary=summary, events=events,
        seats=seats, sections=sections, result=_result(builder, summary), mckay=mckay, calls=calls, cost=total,
        winner=None if over is None else str(winner or "draw"), viewer=viewer,
        known={n: k.facts for n, k in builder.knowledge.items()}, beliefs=grids, teams=teams,
        tournament=_plain(header.get("tournament")), facts=moment_facts(events, builder.seats, mckay),
    )  # fmt: skip


def _seats(builder: _Builder, summary: dict[str, Any] | None) -> list[Seat]:
    events, transcript, mckay, viewer = builder.events, builder.transcript, builder.mckay, builder.viewer
    specs = _plain(transcript.header.get("players"))
    entrants = _plain(_plain(transcript.header.get("tournament")).get("entrants"))
    first_role: dict[str, tuple[str, str]] = {}
    for e in events:
        if e.type == "role":
            first_role.setdefault(e.audience.removeprefix("player:"), (str(e.data.get("role")), str(e.data.get("team"))))
    told = fates(events)
    truth = {d.get("player"): d.get("cause") for d in (summary or {}).get("deaths") or [] if isinstance(d, dict)}
    scores: dict[str, int] = {}
    for e in events:
        if e.type == "hand_over":
            scores = {k: v for k, v in _plain(e.data.get("scores")).items() if isinstance(v, int)}
    over = next((e for e in reversed(events) if e.type == "game_over"), None)
    winner = (over.data.get("winner") if over else None) or (summary or {}).get("winner")
    per_player = _plain((summary or {}).get("per_player"))
    usage = _plain((summary or {}).get("usage"))
    decisions: dict[str, list[Usage]] = defaultdict(list)
    for (player, _request), u in builder.usage.items():
        decisions[player].append(u)
    counted = Counter(e.actor for e in events if e.type == "forfeit")
    rejected = Counter(e.actor for e in events if e.type == "rejected")
    mine = builder.knowledge.get(viewer) if viewer is not None else None
    shown = _plain(over.data.get("roles")) if over is not None and over.to is None else {}  # the cards the end showed all
    out = []
    for name in builder.seats:
        role, team = first_role.get(name, ("", ""))
        if mine is not None and name != viewer:  # a seat's own page: the cards it knew, nothing more
            known, side = mine.side_of(name), mine.sides.get(name)
            role, team = (known[0] if known else ""), (side[0] if side else "")
            if name in shown:  # its own last line lists every card: the table says them too
                role = str(shown[name])
                team = builder.team_of.get(role, team) or team
        seat = Seat(name, str(specs.get(name, "?")), role, team, entrant=str(entrants.get(name) or ""))
        if mckay:
            seat.score = scores.get(name)
            seat.won = None if winner is None else winner == name
            seat.fate = ""
        else:
            seat.known_by = None if viewer is not None else _known_by(events, name)
            fate = told.get(name)
            seat.fate = fate.text() if fate is not None else "alive"
            real = truth.get(name)
            seat.true_fate = fate.text(str(real)) if fate is not None and real and real != fate.cause else ""
            decided = winner is not None and winner != "draw" and team in builder.team_of.values()
            seat.won = (team == winner) if decided else None
        seat.counts = _plain(per_player.get(name)) or {
            "decisions": sum(1 for e in events if e.type in ("action", "forfeit") and e.actor == name),
            "forfeits": counted[name],
            "rejections": rejected[name],
        }
        seat.usage = SeatUsage.of(usage.get(name), decisions[name], seat.spec)
        out.append(seat)
    return out
