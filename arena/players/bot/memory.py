"""What a bot remembers of its view, read incrementally, and the suspicion it derives from it.

The memory never rescans the log: each decision reads only the events after its cursor. The
public half of what it reads (talk, votes, deaths, claims) is the same for every bot at a table,
so it lives in a :class:`PublicRecord` that the first bot to reach an event folds in for all of
them; each :class:`Memory` keeps only what is its own (card, team, checks, the mafia channel)
and its suspicion model.

Anchors are beliefs about alignment in [-1, 1] (+1 mafia, -1 town) held with good reason: a
revealed card, a night victim, one's own checks, a believed inspector's claim. Every vote and
accusation is a *link* between two players whose weight says how much it incriminates one
of them if the other's alignment is known ("voted to spare X" incriminates the voter by X's
anchor). Links are linear in the anchors, so when an anchor moves only that player's links are
re-weighed, and new links reach each bot's suspicion through a journal in O(new links).

A town bot folds its private knowledge (itself, its checks) into the anchors. A mafia bot
keeps the *public* model only — what the town can know — to blend in with the town's reading.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from arena.engine import Event, View

#: roles that learn alignments at night; at most one of each is dealt in every variant so far
INVESTIGATORS = frozenset({"inspector", "detective"})
PROTECTORS = frozenset({"doctor"})
#: roles whose holder is not on the town side
NOT_TOWN = frozenset({"mafia", "maniac"})

# link weights: how much one vote or accusation says about the actor, given the target's anchor
W_EXECUTE = 1.0  # execution / guilty / runoff ballots
W_CHARGE = 0.5  # charge ballots (a yes only asks for a trial)
W_ACCUSE = 0.6  # accusing a player
W_FLOOR = 0.4  # a charged player handing someone the floor ties them together
W_ACCUSED_BY = 0.35  # being accused by a player of known alignment (town accusers are right more often)
ANCHOR_WEIGHT = 3.0  # suspicion per unit of anchor: a certain fact outweighs a handful of votes
W_REPEAT = 0.5  # accusing again, the same day, a player the table already tried and spared
SOFT_CAP = 0.5  # the most a dead player's suspicion counts as an anchor when its card is unknown
# two players claim the one investigator's card: one lies, so each is a prime suspect and their
# checks are worth little until a night kill or a shown card tells them apart
CONTESTED_TRUST = 0.3
CONTESTED_ANCHOR = 0.65
#: an uncontested protector's claim (a doctor): mild trust, since it proves nothing
PROTECTOR_TRUST = -0.3
#: trust a claimed investigator earns from one claimed "mafia" that a shown card bore out:
#: enough to count as the real one
PROVEN = 0.6


#: an anchor this low is a confirmed townsperson
CONFIRMED = -0.8
#: a pseudo-player whose anchor is always 1: links to it weigh a deed by itself, whatever anyone is
ALWAYS = "*"


@dataclass(slots=True)
class ClaimInfo:
    """What one player has claimed about itself and about others."""

    role: str | None
    checks: dict[str, str] = field(default_factory=dict)
    order: int = 0  # rank among the players who claimed a role (first claimer = 0)
    under_fire: bool = False  # first claimed while on trial: a cornered claim is worth less
    kills_before: int = 0  # night kills before the claim: the mafia shoot a believed investigator


@dataclass(slots=True)
class Ballot:
    """One counted vote: ``yes`` voted to charge / execute / convict ``accused``."""

    vote: str
    accused: str
    yes: tuple[str, ...]
    no: tuple[str, ...]
    day: int
    passed: bool = False  # the vote went against ``accused`` (charged, executed, voted out)
    plural: bool = False  # a vote among candidates: "no" is a vote for another candidate


def claim_fields(raw: Any) -> tuple[str | None, dict[str, str]]:
    """A claim as a (role, checks) pair, whether it arrives as a Claim model or a plain dict."""
    if raw is None:
        return None, {}
    if isinstance(raw, dict):
        return raw.get("role"), dict(raw.get("checks") or {})
    return getattr(raw, "role", None), dict(getattr(raw, "checks", None) or {})


class PublicRecord:
    """Everything said and done in public at one table, folded in once for all its bots.

    Bots find the record of their game by its first public event (the same object in every
    view of a log); the record holds that event, so the key stays unique while any bot uses it.
    """

    def __init__(self, seats: tuple[str, ...], first: Event | None) -> None:
        self.seats = seats
        self.first = first  # None: a bot's stand-in until it sees its first public event
        self.seq = 0  # the last public event folded in
        self.changes = 0  # events folded that may replace a field memories mirror (MIRRORED)
        self.alive: set[str] = set(seats)
        self.alive_version = 0
        self.facts = 0  # bumped when a fact that anchors rest on changes (a death, a claim)
        self.day = 0
        self.night = -1
        self.revealed: dict[str, str] = {}  # dead player -> card shown
        self.night_killed: list[str] = []
        self.shot_after: dict[str, int] = {}  # night victim -> how many accusations were made before the shot
        self.mornings = 0  # nights whose actions are done (an investigator checks once per night)
        self.kill_mornings = 0  # mornings with someone killed
        self.claims: dict[str, ClaimInfo] = {}
        self.ballots: list[Ballot] = []
        self.accusations: list[tuple[str, str, int]] = []  # (accuser, accused, day)
        self.speakers: list[list[str]] = []  # each day's public speakers, first speech first
        self.blind = 0  # the first accusations, made before any night or claim: guesses, not reads
        self.accusers_today: dict[str, set[str]] = {}
        self.last_accuser: dict[str, str] = {}  # accused -> the latest accuser, today
        self.tried_today: set[str] = set()  # voted on today (and still alive, or the day is over)
        self.pressed: list[tuple[str, str, int]] = []  # accusations of a player already tried that day
        self.on_trial: str | None = None
        # links as (anchor, linked players, weight), in order; each bot reads on from its index
        self.journal: list[tuple[str, tuple[str, ...], float]] = []
        self.rows: dict[str, dict[str, float]] = {}  # links by anchor, folded on first use
        self.pending: dict[str, list[tuple[tuple[str, ...], float]]] = {}  # not folded yet

    def fold(self, e: Event) -> None:
        self.seq = e.seq
        if e.type in MIRRORED:
            self.changes += 1
        handler = PUBLIC_HANDLERS.get(e.type)
        if handler is not None:
            handler(self, e)

    def row(self, name: str) -> dict[str, float]:
        """``name``'s links as {linked player: weight} up to now (in journal order)."""
        row = self.rows.get(name)
        if row is None:
            row = self.rows[name] = {}
        for others, weight in self.pending.pop(name, ()):
            for other in others:
                row[other] = row.get(other, 0.0) + weight
        return row

    def _link(self, anchor: str, others: tuple[str, ...], weight: float) -> None:
        if others:
            self.journal.append((anchor, others, weight))
            group = self.pending.get(anchor)
            if group is None:
                self.pending[anchor] = [(others, weight)]
            else:
                group.append((others, weight))

    def _on_day(self, e: Event) -> None:
        self.day = e.data.get("number", self.day + 1)
        alive = e.data.get("alive")
        if alive is not None:
            self.alive = set(alive)
            self.alive_version += 1
        self.accusers_today = {}
        self.tried_today = set()
        self.last_accuser = {}
        self.on_trial = None
        self.speakers.append([])

    def _on_night(self, e: Event) -> None:
        self.night = e.data.get("number", self.night + 1)

    def _on_morning(self, e: Event) -> None:
        killed = e.data.get("killed") or []
        self.night_killed.extend(killed)
        for name in killed:
            self.shot_after[name] = len(self.accusations)
        self.mornings += 1
        self.kill_mornings += bool(killed)
        if killed:
            self.facts += 1

    def _on_death(self, e: Event) -> None:
        data = e.data
        name = data.get("player")
        self.alive.discard(name)
        self.alive_version += 1
        role = data.get("role")
        if role is not None:
            self.revealed[name] = role
        self.facts += 1

    def _on_speech(self, e: Event) -> None:
        data = e.data
        actor = e.actor
        if actor is None:
            return
        speakers = self.speakers
        if speakers and actor not in speakers[-1]:
            speakers[-1].append(actor)
        floor = data.get("floor")
        if floor:
            self._link(actor, tuple(floor), W_FLOOR)
        raw = data.get("claim")
        if raw is not None:
            self._record_claim(actor, raw, data.get("kind") == "defence" or actor == self.on_trial)
        nominee = data.get("nominate")
        if nominee:
            self._accuse(actor, nominee)

    def _record_claim(self, actor: str, raw: Any, under_fire: bool) -> None:
        role, checks = claim_fields(raw)
        info = self.claims.get(actor)
        if info is None:
            info = self.claims[actor] = ClaimInfo(role, {}, len(self.claims), under_fire, self.kill_mornings)
        elif role and info.role != role:
            info.role = role
        info.checks.update({t: r for t, r in checks.items() if r in ("mafia", "not mafia")})
        self.facts += 1

    def _on_accusation(self, e: Event) -> None:
        self._accuse(e.actor, e.data.get("accused"))

    def _accuse(self, accuser: str | None, accused: str | None) -> None:
        """An accusation, or a nomination (``cove``): the same public act of pointing at someone."""
        if accuser is None or accused is None:
            return
        self.accusations.append((accuser, accused, self.day))
        if not (self.mornings or self.claims):
            self.blind = len(self.accusations)
            self.changes += 1
        self.accusers_today.setdefault(accused, set()).add(accuser)
        self.last_accuser[accused] = accuser
        if accused in self.tried_today:
            self._link(ALWAYS, (accuser,), W_REPEAT)  # pressing a case the table just rejected
            self.pressed.append((accuser, accused, self.day))
        self._link(accused, (accuser,), -W_ACCUSE)
        self._link(accuser, (accused,), -W_ACCUSED_BY)

    def _on_vote_result(self, e: Event) -> None:
        data = e.data
        vote = data.get("vote", "")
        if "yes" in data:
            accused = data.get("accused")
            if accused is not None:
                ballot = Ballot(vote, accused, tuple(data["yes"]), tuple(data.get("no", ())), self.day, bool(data.get("passed")))
                self._ballot(ballot)
            return
        votes = data.get("votes") or {}
        candidates = data.get("candidates") or [s for s in self.seats if s in set(votes.values())]
        result = data.get("result")
        for cand in candidates:
            yes = tuple(v for v, t in votes.items() if t == cand)
            no = tuple(v for v, t in votes.items() if t is not None and t != cand)
            self._ballot(Ballot(vote, cand, yes, no, self.day, result == cand, True))

    def _ballot(self, ballot: Ballot) -> None:
        self.ballots.append(ballot)
        self.tried_today.add(ballot.accused)
        w = W_CHARGE if ballot.vote == "charge" else W_EXECUTE
        accused = ballot.accused
        yes, no = ballot.yes, ballot.no
        if accused in yes or accused in no:  # a vote on oneself (village) says nothing
            yes = tuple(v for v in yes if v != accused)
            no = tuple(v for v in no if v != accused)
        self._link(accused, yes, -w)
        self._link(accused, no, w)

    def _on_trial(self, e: Event) -> None:
        self.on_trial = e.data.get("player")


PUBLIC_HANDLERS = {
    "day": PublicRecord._on_day,
    "night": PublicRecord._on_night,
    "morning": PublicRecord._on_morning,
    "death": PublicRecord._on_death,
    "speech": PublicRecord._on_speech,
    "accusation": PublicRecord._on_accusation,
    "vote_result": PublicRecord._on_vote_result,
    "trial": PublicRecord._on_trial,
    "charged": PublicRecord._on_trial,
}

#: first public event (by identity) -> its table's record, alive while a bot holds it
_TABLES: weakref.WeakValueDictionary[int, PublicRecord] = weakref.WeakValueDictionary()


def public_record(seats: tuple[str, ...], first: Event) -> PublicRecord:
    """The record of the table whose first public event is ``first`` (made by the first bot)."""
    record = _TABLES.get(id(first))
    if record is None or record.first is not first:
        record = _TABLES[id(first)] = PublicRecord(seats, first)
    return record


#: the public record's fields a memory mirrors as its own attributes after every read (a plain
#: attribute costs a bot nothing; a property delegating to the record was a call every time)
PUBLIC_FIELDS = (
    "alive",  # living players
    "day",  # the current day number
    "night",  # the latest night number
    "revealed",  # dead player -> card shown
    "night_killed",  # players killed at night, in order
    "mornings",  # nights whose actions are done
    "kill_mornings",  # mornings with someone killed
    "claims",  # claimer -> what it claimed
    "ballots",  # every counted vote, in order
    "accusations",  # (accuser, accused, day), in order
    "blind",  # how many of the first accusations were made before any night or claim
    "accusers_today",  # accused -> today's accusers
    "last_accuser",  # accused -> today's latest accuser
    "on_trial",  # the player on trial now, if any
    "pressed",  # (accuser, accused, day): accusations of a player already tried that day
)


#: seats -> {name: position}, shared by every memory of every table with those seats (read only)
_SEAT_INDEX: dict[tuple[str, ...], dict[str, int]] = {}


def seat_index(seats: tuple[str, ...]) -> dict[str, int]:
    """{name: position} of ``seats`` (one dict per seating: nine bots a game used to build nine)."""
    found = _SEAT_INDEX.get(seats)
    if found is None:
        if len(_SEAT_INDEX) > 64:
            _SEAT_INDEX.clear()
        found = _SEAT_INDEX[seats] = {name: i for i, name in enumerate(seats)}
    return found


class Memory:
    """One bot's running record of the game, plus its suspicion model.

    The public facts (:data:`PUBLIC_FIELDS`) are the table's :class:`PublicRecord`'s, mirrored
    onto the memory after each read.
    """

    # Slots, not an instance dict: CPython 3.11 shares one key table among a class's instances
    # for at most 30 attributes; a memory has more, so each bot got a dict of its own, and every
    # read of the most-read object of a bot game took a slower path (2.7% of a bot game's
    # instructions). A new field must be listed here.
    __slots__ = (
        "me", "seats", "seat_index", "cursor", "pub", "seen", "mirrored", "detached", *PUBLIC_FIELDS,
        "role", "team", "variant", "first_phase", "partners", "my_checks", "my_claimed",
        "my_claimed_checks", "team_known", "channel", "failed_targets", "last_victim",
        "anchor", "susp", "read", "facts", "alive_version", "dirty", "epoch", "version",
    )  # fmt: skip

    alive: set[str]
    day: int
    night: int
    revealed: dict[str, str]
    night_killed: list[str]
    mornings: int
    kill_mornings: int
    claims: dict[str, ClaimInfo]
    ballots: list[Ballot]
    accusations: list[tuple[str, str, int]]
    blind: int
    accusers_today: dict[str, set[str]]
    last_accuser: dict[str, str]
    on_trial: str | None
    pressed: list[tuple[str, str, int]]

    def __init__(self, me: str, seats: Iterable[str]) -> None:
        self.me = me
        self.seats: tuple[str, ...] = tuple(seats)
        self.seat_index = seat_index(self.seats)
        self.cursor = 0
        self.pub = PublicRecord(self.seats, None)  # until the first public event names the table
        self.seen = 0  # the latest public event this memory has read
        self.mirrored = -1  # the record's ``changes`` when the public fields were last mirrored
        self._bind()
        self.detached = False  # reads a record of its own (see _detach)
        self.role = ""
        self.team = ""
        self.variant: str | None = None  # a variant name, if the role event carries one
        self.first_phase = ""
        self.partners: frozenset[str] = frozenset()  # mafia team (the viewer included), mafia only
        # the viewer's private knowledge
        self.my_checks: dict[str, str] = {}
        self.my_claimed = False
        self.my_claimed_checks: frozenset[str] = frozenset()
        self.team_known = False  # mafia only: the team event has arrived
        self.channel: list[tuple[str, str | None, str, int]] = []  # tonight's channel (actor, target, text, round)
        self.failed_targets: list[str] = []  # mafia targets that survived the night
        self.last_victim: str | None = None  # the channel's chosen victim tonight (village)
        # the suspicion model
        self.anchor: dict[str, float] = {ALWAYS: 1.0}
        # suspicion = ANCHOR_WEIGHT × anchor + the links weighed by their anchors, kept up to date
        self.susp: dict[str, float] = dict.fromkeys(self.seats, 0.0)
        self.read = 0  # journal entries folded into ``susp``
        self.facts = -1  # the record's facts counter when the anchors were last computed
        self.alive_version = 0
        self.dirty = True
        self.epoch = 0  # bumped whenever the living or the anchors change (for caches)
        self.version = 0  # bumped whenever any suspicion may have changed (for caches)

    # ---- reading ---------------------------------------------------------------------------
    def update(self, view: View) -> None:
        """Fold in the events that arrived since the last call."""
        new = view.since(self.cursor)
        if new:
            self.cursor += len(new)
            pub = self.pub
            if pub.first is None and not self.detached:
                first = next((e for e in new if e.to is None), None)
                if first is not None:
                    pub = self.pub = public_record(self.seats, first)
                    self._bind()
            seen = self.seen
            on_public, handlers = ON_PUBLIC, HANDLERS
            for event in new:
                if event.to is None:
                    seen = event.seq
                    if seen > pub.seq:
                        pub.fold(event)
                    handler = on_public.get(event.type)
                else:
                    handler = handlers.get(event.type)
                if handler is not None:
                    handler(self, event)
            self.seen = seen
            if pub.seq > seen:
                self._detach(view)
            if self.mirrored != pub.changes:
                self._mirror()
        self._sync()

    def _mirror(self) -> None:
        """Copy the record's :data:`PUBLIC_FIELDS` that a new event may have replaced (numbers,
        and the containers a new day starts afresh); the others only change in place."""
        pub = self.pub
        self.mirrored = pub.changes
        self.alive, self.day, self.night, self.on_trial = pub.alive, pub.day, pub.night, pub.on_trial
        self.mornings, self.kill_mornings, self.blind = pub.mornings, pub.kill_mornings, pub.blind
        self.accusers_today, self.last_accuser = pub.accusers_today, pub.last_accuser

    def _bind(self) -> None:
        """Share the record's containers that only ever change in place, then mirror the rest."""
        pub = self.pub
        self.revealed, self.night_killed, self.claims = pub.revealed, pub.night_killed, pub.claims
        self.ballots, self.accusations, self.pressed = pub.ballots, pub.accusations, pub.pressed
        self._mirror()

    def _detach(self, view: View) -> None:
        """Another reader of this table is ahead of my view (never so when every seat reads the
        same log): keep a record of my own, so nothing I have not seen yet reaches me."""
        own = PublicRecord(self.seats, None)
        for event in view.since(0)[: self.cursor]:  # a full read, only in this odd case
            if event.to is None:
                own.first = own.first or event
                own.fold(event)
        self.pub, self.detached = own, True
        self._bind()
        self.anchor, self.susp = {ALWAYS: 1.0}, dict.fromkeys(self.seats, 0.0)
        self.read, self.facts, self.alive_version, self.dirty = 0, -1, -1, True
        self.version += 1

    def _sync(self) -> None:
        """Catch up with the record: new links into ``susp``, new facts, a change in who is alive."""
        pub = self.pub
        journal = pub.journal
        if self.read < len(journal):
            anchor, susp = self.anchor, self.susp
            moved = False
            for name, others, weight in journal[self.read :]:
                a = anchor.get(name)
                if a:
                    x = weight * a
                    for other in others:
                        susp[other] += x
                    moved = True
            self.read = len(journal)
            if moved:
                self.version += 1
        if self.facts != pub.facts:
            self.dirty = True
        if self.alive_version != pub.alive_version:
            self.alive_version = pub.alive_version
            self.epoch += 1

    @property
    def is_mafia(self) -> bool:
        return self.team == "mafia"

    def row(self, name: str) -> dict[str, float]:
        return self.pub.row(name)

    def _on_role(self, e: Event) -> None:
        data = e.data
        self.role = data.get("role", "")
        self.team = data.get("team", "")
        self.variant = data.get("variant")
        self.first_phase = e.phase
        self.epoch += 1
        if self.is_mafia:
            self.partners = frozenset((self.me,))
        self.dirty = True

    def _on_team(self, e: Event) -> None:
        self.partners = frozenset(e.data.get("members", ())) | {self.me}
        self.team_known = True
        self.epoch += 1
        self.dirty = True

    def _on_night(self, e: Event) -> None:
        self.channel = []
        self.last_victim = None

    def _on_morning(self, e: Event) -> None:
        killed = e.data.get("killed") or []
        if self.last_victim is not None and self.last_victim not in killed:
            self.failed_targets.append(self.last_victim)

    def _on_channel(self, e: Event) -> None:
        data = e.data
        if data.get("kind") == "channel":
            self.channel.append((e.actor, data.get("target"), data.get("text") or "", data.get("round", 1)))

    def _on_action(self, e: Event) -> None:
        """My own accepted answer: remember what I claimed, whether or not the table heard it."""
        action = e.data.get("action")
        if isinstance(action, dict):
            raw = action.get("claim")
        else:
            raw = action.claim if getattr(action, "kind", None) == "speak" else None
        if raw is not None:
            _, checks = claim_fields(raw)
            self.my_claimed = True
            self.my_claimed_checks = self.my_claimed_checks | frozenset(checks)

    def _on_check(self, e: Event) -> None:
        target, result = e.data.get("target"), e.data.get("result")
        if target is not None and result in ("mafia", "not mafia"):
            self.my_checks[target] = result
            self.dirty = True

    def _on_channel_result(self, e: Event) -> None:
        victim = e.data.get("victim")
        if victim is not None:
            self.last_victim = victim

    # ---- the suspicion model ----------------------------------------------------------------
    def refresh(self) -> None:
        """Recompute the anchors if a fact changed, re-weighing only the links of moved anchors.

        The dead whose card nobody saw become soft anchors from their own suspicion, so that
        "voted to spare Cid" counts once Cid looks like mafia in hindsight.
        """
        if not self.dirty:
            return
        self.dirty = False
        self.facts = self.pub.facts
        new = self._anchors()
        old = self.anchor
        move, susp = self._move, self.susp
        anchored = new.keys() | old.keys()  # only these can have moved (most seats have no anchor)
        for name in self.seats:  # seat order: float sums must not depend on set order
            if name not in anchored:
                continue
            delta = new.get(name, 0.0) - old.get(name, 0.0)
            if delta:
                move(name, delta)
                susp[name] += ANCHOR_WEIGHT * delta
        alive = self.pub.alive
        for name in self.seats if len(alive) < len(self.seats) else ():
            if name not in alive and name not in new:
                # no anchor of its own now: its suspicion is all links
                soft = max(-SOFT_CAP, min(SOFT_CAP, susp[name] / ANCHOR_WEIGHT))
                if soft:
                    new[name] = soft
                    move(name, soft)
                    susp[name] += ANCHOR_WEIGHT * soft
        if new != old:
            self.epoch += 1
            self.version += 1  # (an unchanged soft anchor is taken off and put back: no change)
        self.anchor = new

    def _move(self, name: str, delta: float) -> None:
        """Re-weigh every link of ``name`` (all of them: ``susp`` is synced to the journal end)."""
        pub = self.pub
        row = pub.rows.get(name) if name not in pub.pending else pub.row(name)
        if row:
            susp = self.susp
            for other, weight in row.items():
                susp[other] += weight * delta

    def _anchors(self) -> dict[str, float]:
        pub = self.pub
        a: dict[str, float] = dict.fromkeys(pub.night_killed, -0.9)  # the mafia shoot town
        a[ALWAYS] = 1.0
        for name, role in pub.revealed.items():
            a[name] = 1.0 if role in NOT_TOWN else -1.0
        private = not self.is_mafia
        if private:
            a[self.me] = -1.0
            for target, result in self.my_checks.items():
                a[target] = 1.0 if result == "mafia" else -1.0
        if pub.claims:
            self._weigh_claims(a, dict(a), private)
        return a

    def _weigh_claims(self, a: dict[str, float], hard: dict[str, float], private: bool) -> None:
        """Weigh every claimed role against the others, then let believed investigators' checks
        move their targets (after every role claim, so that a believed "mafia" on a claimed
        doctor outweighs the doctor's claim whatever the order they were made in).

        Each role here is dealt at most once, so two claimers of one role mean a liar: a claimer
        contradicted by a fact (a shown card, a night victim, my own card or check) is the liar;
        one proven right (a claimed check a shown card bore out) or known town is the real one;
        otherwise both are prime suspects and their checks are worth little.
        """
        by_role: dict[str, list[str]] = {}
        for name, info in sorted(self.claims.items(), key=lambda kv: (kv[1].under_fire, kv[1].order)):
            if info.role:
                by_role.setdefault(info.role, []).append(name)
        believed: list[tuple[str, float]] = []  # investigators whose checks count, with their trust
        for role, claimers in by_role.items():
            mine = private and self.role == role
            honest: list[str] = []
            for c in claimers:
                if c == self.me and private:
                    continue  # my own claim: my checks are already certain
                if mine:
                    a[c] = 1.0  # someone else claims my card: a liar
                elif self._lies(c, role, hard):
                    a[c] = max(a.get(c, 0.0), 0.95)
                else:
                    honest.append(c)
            if mine or not honest:
                continue
            proven = {c: self._proven(c, hard) for c in honest}
            confirmed = [c for c in honest if hard.get(c, 0.0) <= -0.85 or proven[c] >= PROVEN]
            if confirmed:
                for c in honest:
                    if c in confirmed:
                        if c not in hard:
                            a[c] = -0.9
                        believed.append((c, 1.0))
                    else:
                        a[c] = max(a.get(c, 0.0), 0.9)  # the confirmed one is the real one
                continue
            if role not in INVESTIGATORS:
                if len(honest) == 1:
                    c = honest[0]
                    if c not in hard:
                        a[c] = 0.0 if self.claims[c].under_fire else PROTECTOR_TRUST
                else:
                    for c in honest:
                        if c not in hard:
                            a[c] = CONTESTED_ANCHOR - CONTESTED_TRUST / 2
                continue
            for c in honest:
                info = self.claims[c]
                if len(honest) == 1:
                    trust = 0.3 if info.under_fire else 0.85
                else:
                    trust = CONTESTED_TRUST - (0.1 if info.under_fire else 0.0)  # one of them lies
                trust += proven[c]  # each claimed check a fact bore out
                if c in self.alive:
                    # every night the mafia shot someone else, a live claim looks less real
                    trust -= 0.5 * (self.kill_mornings - info.kills_before)
                if c not in hard:
                    if len(honest) > 1:
                        a[c] = CONTESTED_ANCHOR - trust / 2
                    elif info.under_fire:
                        a[c] = 0.1 - trust / 3
                    else:
                        a[c] = -0.7 * trust if trust > 0 else min(0.9, -1.5 * trust)
                if trust > 0:
                    believed.append((c, min(trust, 1.0)))
        for c, trust in believed:
            for target, result in self.claims[c].checks.items():
                if target in hard or target == c:
                    continue
                step = trust if result == "mafia" else -trust
                a[target] = max(-1.0, min(1.0, a.get(target, 0.0) + step))

    def _verdict_of(self, target: str, hard: dict[str, float]) -> str | None:
        """What a true check of ``target`` says, when a fact tells: a shown card (the maniac
        checks "not mafia"), or a firm anchor (a night victim, my own check)."""
        shown = self.revealed.get(target)
        if shown is not None:
            return "mafia" if shown == "mafia" else "not mafia"
        known = hard.get(target)
        if known is None:
            return None
        if known <= -0.85:
            return "not mafia"
        return "mafia" if known >= 0.85 else None

    def _lies(self, claimer: str, role: str, hard: dict[str, float]) -> bool:
        """Does this claim contradict a fact (a shown card, a night victim, one's own card)?"""
        shown = self.revealed.get(claimer)
        if shown is not None and shown != role:
            return True
        checks = self.claims[claimer].checks
        if len(checks) > self.mornings:
            return True  # more checks than nights with a check so far
        for target, result in checks.items():
            truth = self._verdict_of(target, hard)
            if truth is not None and truth != result:
                return True
        return False

    def _proven(self, claimer: str, hard: dict[str, float]) -> float:
        """Trust earned by ``claimer``'s claimed checks that facts bore out: a "mafia" a shown
        card confirmed is near proof (a liar does not give a partner away), a clear a little."""
        earned = 0.0
        for target, result in self.claims[claimer].checks.items():
            if self._verdict_of(target, hard) == result:
                earned += PROVEN if result == "mafia" else 0.15
        return earned

    def suspicion(self, name: str) -> float:
        """How likely ``name`` is mafia, on an open scale (0 = no idea; > 1 = fairly sure)."""
        return self.susp[name]

    def ranked(self, pool: Iterable[str]) -> list[tuple[float, str]]:
        """``pool`` from most to least suspicious, ties in seat order: for reading a memory (tests,
        tools); a bot's own choices break ties with :mod:`..ties`."""
        susp, index = self.susp, self.seat_index
        return sorted(
            ((susp[n], n) for n in pool),
            key=lambda item: (-item[0], index.get(item[1], 0)),
        )

    def confirmed_town(self, name: str) -> bool:
        return self.anchor.get(name, 0.0) <= CONFIRMED

    # ---- queries for speech and strategy --------------------------------------------------------
    def claimers(self, roles: frozenset[str] = INVESTIGATORS) -> list[str]:
        """Players who claimed one of ``roles``, first claimer first."""
        found = [(info.order, n) for n, info in self.claims.items() if info.role in roles]
        return [n for _, n in sorted(found)]

    def reasons(self, name: str, limit: int = 2) -> list[tuple]:
        """Why ``name`` looks guilty (or innocent) from this bot's point of view, strongest first.

        Only called when a bot speaks, so it may scan the records.
        """
        out: list[tuple[float, tuple]] = []
        anchor = self.anchor
        for c in self.claimers():
            if c == name:
                continue
            result = self.claims[c].checks.get(name)
            if result is not None and anchor.get(c, 0.0) < 0.5:
                out.append((3.0, ("claimed_check", c, name, result)))
        if name in self.claims and self.claims[name].role in INVESTIGATORS and anchor.get(name, 0.0) > 0.5:
            out.append((2.5, ("fake_claim", name, self.claims[name].role)))
        spared: dict[tuple[str, bool], int] = {}
        pushed: dict[str, int] = {}
        me = self.me
        alive = self.alive
        for b in self.ballots:
            a = anchor.get(b.accused, 0.0)
            if a >= 0.5 and name in b.no:
                key = (b.accused, b.plural)  # a vote for another candidate is not a vote "to spare"
                spared[key] = spared.get(key, 0) + 1
            elif (
                a <= -0.5 and name in b.yes and b.vote != "charge" and (b.accused == me or (b.passed and b.accused not in alive))
            ):
                # "voted out" / "was town" only of a player the vote did remove (a spared one lives)
                pushed[b.accused] = pushed.get(b.accused, 0) + 1
        # sparing me is no reason to suspect anyone (and a mafia bot's own public anchor may be high)
        # sparing someone one also accused is a mixed record, not protection
        accused_by_name = {accused for accuser, accused, _ in self.accusations if accuser == name}
        out.extend(
            (1.0 + n, ("passed_over" if plural else "spared", name, who, n))
            for (who, plural), n in spared.items()
            if who != me and who not in accused_by_name
        )
        out.extend((0.8 + n, ("pushed_me", name, n) if who == me else ("pushed", name, who, n)) for who, n in pushed.items())
        shot_after = self.pub.shot_after
        for i, (accuser, accused, _) in enumerate(self.accusations):
            if accuser == name and anchor.get(accused, 0.0) <= -0.5:
                out.append((1.2, ("accused_me", name) if accused == me else ("accused_town", name, accused, accused in alive)))
            elif accused == name and anchor.get(accuser, 0.0) <= -0.85 and shot_after.get(accuser, 0) > i:
                # "named him and was shot in the night": the shot came after the accusation
                out.append((1.4, ("accused_by_victim", accuser, name)))
        for accuser, accused, _ in self.pressed:
            if accuser == name:
                out.append((1.1, ("pressed", name, accused)))
        out.sort(key=lambda item: -item[0])
        seen: set[tuple] = set()
        result: list[tuple] = []
        for _, reason in out:
            if reason not in seen:
                seen.add(reason)
                result.append(reason)
            if len(result) >= limit:
                break
        return result

    def voted_no_on(self, accused: str, day: int | None = None) -> list[str]:
        """Who voted to spare ``accused`` (today only when ``day`` is given), latest ballot first."""
        for b in reversed(self.ballots):
            if b.accused == accused and (day is None or b.day == day):
                return list(b.no)
        return []


#: private event type -> the Memory method that reads it (one table for every bot)
HANDLERS = {
    "role": Memory._on_role,
    "team": Memory._on_team,
    "speech": Memory._on_channel,
    "check_result": Memory._on_check,
    "channel_result": Memory._on_channel_result,
    "action": Memory._on_action,
}
#: public event types after which a memory mirrors the record's fields again (a vote or a speech
#: changes none of the fields ``Memory._mirror`` copies; an accusation counts one itself)
MIRRORED = frozenset({"day", "night", "morning", "death", "trial", "charged"})
#: public events a bot also reacts to on its own (the record folds them in for everyone)
ON_PUBLIC = {
    "night": Memory._on_night,
    "morning": Memory._on_morning,
}
