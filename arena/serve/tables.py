"""The tables a server runs: one game each, its seats' tokens, its transcript, who waits for news.

A :class:`Table` plays its game on the server's event loop with the runner
(:func:`arena.run.orchestrator.run`): person seats are :class:`~arena.players.web.WebSeat` players,
every other seat a player from the registry. The table is also an orchestrator observer: after every
change it wakes the long polls waiting on it. What a seat or a watcher receives is cut from the game's
log by each event's audience (``Event.visible_to``) and nothing else.

Every table keeps two files in the data folder: ``tables/ID.json`` (its set-up and the SHA-256 of each
seat's token, never the token) and ``transcripts/ID.jsonl`` (the transcript, written as it is played).
A finished table stays in memory for a while, then is served from its transcript
(:class:`ArchivedTable`).
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from arena.engine import KINDS, DecisionRequest, Event, Game, RulesError, dump_action, parse_action
from arena.engine.events import PUBLIC, Numbering
from arena.engine.wording import death_line, private_line, public_line
from arena.players.base import Beat, StopGame
from arena.players.human.screen import for_people
from arena.players.registry import BUILTIN, SpecError, make_player, network_seats, seat_modes
from arena.players.web import WebSeat, page_rules, seat_notes
from arena.run.config import first_error
from arena.run.transcript import TranscriptError, TranscriptWriter, dumps, read_transcript
from arena.run.wallclock import ClockError, WallClock
from arena.serve.people import DEFAULT_START_WAIT, PUBLIC_GROUPS, Gate, clocks_of, turn_of

if TYPE_CHECKING:
    from arena.serve.setup import TableSetup

log = logging.getLogger("arena.serve")

PERSON = "person"
MAX_SEATS = 32
DEFAULT_PERSON_TIMEOUT = 180.0  # seconds a person has for a decision before the default is played
#: seconds a night lasts at least at a table with a person: when the night's news comes must not
#: tell who moved at night, or how many times the mafia's channel went round (docs/serve.md)
DEFAULT_NIGHT_SECONDS = 20.0
MCKAY = ("duel", "duel3", "trio")
ANSWER_RATE = (3.0, 10.0)  # a seat's answers: 3 a second, 10 at once (a person clicks far slower)


class TableError(Exception):
    """A request the server refuses: an HTTP status and one line saying why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(slots=True)
class Seat:
    """One seat as the table was set: who plays it, and for a person the hash of its token."""

    name: str
    spec: str  # "person" or a player spec (bot, random, provider:model, …)
    person: str | None = None  # a person's own name (the transcript records human:NAME)
    token_sha256: str | None = None

    @property
    def recorded(self) -> str:
        """The spec written to the transcript: a person is an entrant like a model."""
        return f"human:{self.person}" if self.spec == PERSON else self.spec

    def accepts(self, token: str) -> bool:
        return self.token_sha256 is not None and hmac.compare_digest(self.token_sha256, token_hash(token))


class RateLimit:
    """A token bucket: ``burst`` answers at once, then ``rate`` per second."""

    __slots__ = ("burst", "level", "rate", "stamp")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.level, self.stamp = burst, time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.level < 1:
            return False
        self.level -= 1
        return True


def day_word(variant: str) -> str:
    return "Hand" if variant in MCKAY else "Day"


def line_of(event: Event, viewer: str | None, word: str) -> tuple[str, str] | None:
    """The sentence a page shows for one event (the terminal's wording); ``viewer`` None is a watcher."""
    if event.to is None:
        if event.type == "night" and event.data.get("number", event.day) == 0:
            return "── The first night ──", "bold blue"  # as the rest of the page calls it
        if event.type == "death":  # a person's own death is said to them
            return death_line(event.data, viewer), "bold red"
        return public_line(event, word)
    if event.type in ("rejected",) and viewer is not None:
        return None
    text = private_line(event)
    if text is None:
        return None
    who = event.audience.removeprefix("player:")
    if viewer is not None and who == viewer:
        text = "[you]" + text.removeprefix(f"[{who}]")
    return text, "private"


def options_json(request: Any) -> list[dict[str, Any]]:
    out = []
    for opt in request.options:
        fields = {}
        for name, spec in opt.fields.items():
            fields[name] = {
                "choices": None if spec.choices is None else list(spec.choices),
                "nullable": spec.nullable,
                "max_items": spec.max_items,
                "forbidden": dict(spec.forbidden),
            }
        out.append({"kind": opt.kind, "description": for_people(opt.description), "fields": fields})
    return out


def claims_allowed(request: Any) -> bool:
    """A claim goes with a public speech of a day/night game (McKay's games have none), as at the terminal."""
    return request.talk == PUBLIC and request.group not in ("beat", "soliloquy") and request.option("speak") is not None


def beat_json(beat: Beat | None, now: float) -> dict[str, Any] | None:
    if beat is None or beat.ends <= now:
        return None
    return {"label": beat.label, "players": list(beat.players), "seconds": beat.seconds, "left": round(beat.ends - now, 3)}


def _moving(people: dict[str, Any]) -> Any:
    """What of :meth:`Table.people` a reader's version follows: whose move it is (public knowledge)
    and who is still awaited at the start, not the seconds left (they move on their own)."""
    start = people.get("start") or {}
    return people.get("turn"), start.get("open"), tuple(start.get("waiting_for") or ())


def reader_version(*what: Any) -> int:
    """A reader's ``version``: a digest of what it receives (its event count, its open decision, the
    beat, the state), so that it moves only with what that reader may see. The table's own counter
    (:class:`Waiters`) moves with every change, hidden ones included, and is never sent."""
    digest = hashlib.blake2b(repr(what).encode(), digest_size=6).digest()
    return int.from_bytes(digest, "big")  # 48 bits: exact in a browser's numbers


class Reader:
    """One reader's events, numbered for it (:class:`~arena.engine.events.Numbering`) as the log grows."""

    __slots__ = ("events", "indexes", "numbering", "scanned")

    def __init__(self) -> None:
        self.numbering = Numbering()
        self.events: list[dict[str, Any]] = []
        self.indexes: list[int] = []  # each event's index in the log
        self.scanned = 0


class Waiters:
    """Long polls waiting for a table to change: ``version`` counts every change (kept inside the
    server: a reader is sent :func:`reader_version`)."""

    def __init__(self) -> None:
        self.version = 0
        self._futures: set[asyncio.Future[None]] = set()

    def bump(self) -> None:
        self.version += 1
        for future in self._futures:
            if not future.done():
                future.set_result(None)
        self._futures.clear()

    async def wait(self, version: int, timeout: float) -> None:
        """Until the table has changed since ``version``, at most ``timeout`` seconds."""
        if self.version != version or timeout <= 0:
            return
        future = asyncio.get_running_loop().create_future()
        self._futures.add(future)
        try:
            await asyncio.wait_for(future, timeout)
        except TimeoutError:
            pass
        finally:
            self._futures.discard(future)


class Table:
    """One live game: its players, its transcript, its seats' decisions and the polls waiting on it."""

    def __init__(
        self,
        table_id: str,
        game: Game,
        seats: list[Seat],
        data: Path,
        *,
        timeout: float | None,
        beat_seconds: float,
        pace: float = 0.0,
        created: float | None = None,
        start_wait: float | None = DEFAULT_START_WAIT,
        started: bool = False,
        night_seconds: float = 0.0,
    ) -> None:
        self.id = table_id
        self.game = game
        self.variant = game.name
        self.seats = {seat.name: seat for seat in seats}
        self.data = data
        self.timeout = timeout
        self.beat_seconds = beat_seconds
        self.pace = pace  # seconds between two steps, so a table of bots can be watched as it is played
        self.stamps: list[float | None] = []  # when each event of the log reached the table (wall clock, seconds)
        self.created = created or time.time()
        self.waiters = Waiters()
        self.beat: Beat | None = None
        self.word = day_word(game.name)
        self.limits: dict[str, RateLimit] = {}
        self.answer_rate: tuple[float, float] = ANSWER_RATE  # the server sets its own
        self.state = "playing"  # playing, over, stopped
        self.aborted: str | None = None
        self.finished_at: float | None = None
        self.task: asyncio.Task[None] | None = None
        self.persons: dict[str, WebSeat] = {}
        self.players: dict[str, Any] = {}
        self.writer: TranscriptWriter | None = None
        self.clock: WallClock | None = None
        self.resumed: list[str] = []  # for a table its server resumed after a restart: what the rebuild did
        self.start_wait = start_wait
        self.started = started  # the game has begun (a resumed table does not wait for its people again)
        self.gate: Gate | None = None  # the start that waits for the people (docs/serve.md)
        self.owner_sha256: str | None = None  # whoever made the table may start it before everyone came
        self._clocks: dict[str, dict[str, Any]] = {}  # the person clocks last saved (a restart keeps them)
        self._stopping = False
        self._dicts: list[dict[str, Any]] = []  # game.log as transcript objects (built once each)
        self._readers: dict[str | None, Reader] = {}  # a seat, None (the public view) or "" (every view)
        self._paced = 0  # public events when the pace last held the game
        self._rules_cache: dict[str, tuple[int, dict[str, str | None]]] = {}  # seat -> (events seen, rules)
        self.night_seconds = night_seconds  # a night's news is published no sooner (before_resolve)
        self._public = (0, time.monotonic())  # public events, and when their count last grew

    # ---- files -----------------------------------------------------------------------------------
    @property
    def transcript(self) -> Path:
        return self.data / "transcripts" / f"{self.id}.jsonl"

    @property
    def record_path(self) -> Path:
        return self.data / "tables" / f"{self.id}.json"

    def record(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "variant": self.variant,
            "seed": self.game.seed,
            "created": self.created,
            "timeout": self.timeout,
            "beat_seconds": self.beat_seconds,
            "pace": self.pace,
            "night_seconds": self.night_seconds,
            "start_wait": self.start_wait,
            "started": self.started,
            "owner_sha256": self.owner_sha256,
            "clocks": self._clocks,
            "seats": [
                {"name": s.name, "spec": s.spec, "person": s.person, "token_sha256": s.token_sha256} for s in self.seats.values()
            ],
        }

    def save(self) -> None:
        path = self.record_path
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.record(), indent=1), encoding="utf-8")
        tmp.replace(path)

    # ---- playing ---------------------------------------------------------------------------------
    def build_players(self) -> dict[str, Any]:
        """One player per seat: a WebSeat for each person, the registry's player for the rest."""
        game = self.game
        players: dict[str, Any] = {}
        for seat in self.seats.values():
            if seat.spec == PERSON:
                web = WebSeat(seat.name, seat.person, timeout=self.timeout, seed=game.seed, on_change=self.changed)
                players[seat.name] = self.persons[seat.name] = web
                continue
            extra: dict[str, Any] = {}
            if seat.spec not in BUILTIN:
                extra = {"variant": game.name, "options": game.options.model_dump(mode="json")}
                extra["recorder"] = self._recorder(seat.name)
            try:
                players[seat.name] = make_player(seat.spec, seat.name, game.seed, **extra)
            except (SpecError, ValueError, ImportError, AttributeError) as exc:
                raise TableError(400, f"seats.{seat.name}: {exc}") from None
        self.players = players
        return players

    def _recorder(self, seat: str) -> Any:
        def record(call: dict[str, Any]) -> None:
            if self.writer is not None:
                self.writer.record_call(seat, call)

        return record

    def wall_clock(self) -> WallClock | None:
        """McKay's games with a person at the table run on the wall clock (docs/rules/turns.md)."""
        if self.variant not in MCKAY or not self.persons:
            return None
        try:
            return WallClock(self.beat_seconds, seed=self.game.seed)
        except ClockError as exc:
            raise TableError(400, str(exc)) from None

    def start(self) -> None:
        """Write the header and play the game in a task of the running loop."""
        self.clock = self.wall_clock()
        extra: dict[str, Any] = {"table": self.id}
        if self.clock is not None:
            extra["clock"] = self.clock.describe()
        if seat_modes(self.players):  # a restart resumes model seats in the modes the check picked
            extra["structured"] = seat_modes(self.players)
        specs = {seat.name: seat.recorded for seat in self.seats.values()}
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        self.writer = TranscriptWriter(self.transcript, self.game, specs, extra=extra)
        self.writer.track_usage(self.players)
        self.open_gate()
        self.launch(self._play())

    def open_gate(self) -> None:
        """A table with person seats starts when they have all opened their pages (see people.py)."""
        if self.started or not self.persons:
            self.started = True
            return
        self.gate = Gate(list(self.persons), self.start_wait, self.changed)
        self.state = "waiting"

    def launch(self, coroutine: Any) -> None:
        self.task = asyncio.get_running_loop().create_task(coroutine)

    async def _play(self, resumed: Any = None) -> None:
        """Play to the end; ``resumed`` is a resumed game's play (its observers already include this table)."""
        from arena.run.orchestrator import run

        assert self.writer is not None
        aborted = None
        try:
            if self.gate is not None:
                await self.gate.passed()
                self.state, self.started = "playing", True
                log.info(
                    "table %s starts: %s",
                    self.id,
                    {"everyone": "every person came", "pressed": "started by its maker"}.get(
                        self.gate.how or "", "the wait for its people is over"
                    ),
                )
                self.save()
            if resumed is None:
                await run(self.game, self.players, [self.writer, self], clock=self.clock)
            else:
                await resumed
        except asyncio.CancelledError:  # the server stops: the game stays unfinished, to be resumed
            if resumed is not None:
                resumed.close()  # stopped while it waited for its people: never started
            self.writer.close(self.game)
            raise
        except StopGame as exc:
            aborted = str(exc) or "stopped"
        except Exception as exc:  # a broken table must not take the server down
            log.exception("table %s failed", self.id)
            aborted = f"the server could not go on: {type(exc).__name__}"
        # Model seats are not closed here: their HTTP clients are pooled per event loop and shared
        # by every table's model seats (closing one table's would cut the others' off); the server
        # closes the pool when it stops.
        self.writer.close(self.game, aborted=aborted)
        self.aborted = aborted
        self.state = "over" if self.game.finished else "stopped"
        self.finished_at = time.monotonic()
        self.changed()

    # ---- the observer -------------------------------------------------------------------------------
    def __call__(self, game: Game) -> None:
        """Observer: a change to the log wakes every poll on this table."""
        stamps = self.stamps
        if len(stamps) < len(game.log):
            now = time.time()
            stamps.extend(now for _ in range(len(game.log) - len(stamps)))
        public = len(self._reader(None, False).events)
        if public > self._public[0]:
            self._public = (public, time.monotonic())
        self.changed()

    async def before_resolve(self, game: Game, pending: Sequence[DecisionRequest], decisions: Sequence[Any]) -> None:
        """Before a private step is resolved (a night move, the mafia's channel: asked where nobody
        else sees it; the orchestrator awaits this): if it publishes news, not before
        ``night_seconds`` after the last public event. A night's length would
        otherwise count its hidden moves: a person's slow check, an extra round of the mafia's
        channel. (A move slower than the floor still shows; docs/serve.md.)"""
        if not self.night_seconds or not pending or all(r.group in PUBLIC_GROUPS for r in pending):
            return  # a step everyone sees being asked: its length is public anyway
        trial = copy.deepcopy(game)
        trial.resolve(list(decisions))
        if not any(event.to is None for event in trial.log[len(game.log) :]):
            return  # the night goes on in private
        left = self._public[1] + self.night_seconds - time.monotonic()
        if left > 0:
            await asyncio.sleep(left)

    async def hold(self, game: Game) -> None:
        """Between two steps (the orchestrator awaits it): the table's pace, if it has one, after a
        step that the public saw (a pause after each hidden step would let the clock count them)."""
        if not self.pace or game.finished:
            return
        seen = len(self._reader(None, False).events)
        if seen > self._paced:
            self._paced = seen
            await asyncio.sleep(self.pace)

    def beat_started(self, beat: Beat) -> None:
        self.beat = beat
        self.changed()

    def changed(self) -> None:
        self.waiters.bump()
        self.save_clocks()

    def save_clocks(self, stopped: bool = False) -> None:
        """Keep each person's time left in the table's record when a decision opens or closes (and
        exactly as the server stops), so that a restart gives the person what they had."""
        if not self.persons or self._stopping:
            return
        self._stopping = stopped  # what a stopping server withdraws is not saved over what it had
        clocks = clocks_of(self.persons, asyncio.get_running_loop().time())
        if stopped or {k: v["request"] for k, v in clocks.items()} != {k: v["request"] for k, v in self._clocks.items()}:
            self._clocks = {name: {**clock, "stopped": stopped} for name, clock in clocks.items()}
            self.save()

    # ---- what a viewer receives ---------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.state not in ("playing", "waiting")

    def opened(self, seat: str) -> None:
        """A person's page asked for its seat: the table may start."""
        if self.gate is not None:
            self.gate.opened(seat)

    def people(self, now: float) -> dict[str, Any]:
        """The parts of a state about the people: whose move it is, and the start that waits for them."""
        return {
            "turn": None if self.state != "playing" else turn_of(self.game),
            "start": None if self.gate is None else self.gate.json(now),
        }

    def _dict(self, index: int) -> dict[str, Any]:
        dicts, log_ = self._dicts, self.game.log
        while len(dicts) <= index:
            dicts.append(json.loads(dumps(log_[len(dicts)].to_dict())))  # actions as plain objects
        return dicts[index]

    def _reader(self, viewer: str | None, everything: bool) -> Reader:
        """``viewer``'s events so far, numbered for it (its own numbers: no gap for a hidden event)."""
        key = "" if everything else viewer
        reader = self._readers.get(key)
        if reader is None:
            reader = self._readers[key] = Reader()
        log_ = self.game.log
        for index in range(reader.scanned, len(log_)):
            event = log_[index]
            if everything or (event.to is None if viewer is None else event.visible_to(viewer)):
                raw = self._dict(index)
                reader.events.append(raw if everything else reader.numbering.event(raw))
                reader.indexes.append(index)
        reader.scanned = len(log_)
        return reader

    def events_for(self, viewer: str | None, after: int, everything: bool = False) -> tuple[list[dict], list[list], list]:
        """``viewer``'s events after its ``after`` first (None: a watcher, the public view;
        ``everything``: every view, for a watcher once the game is over), numbered for that viewer,
        their sentences, and when each reached the table (None for the events rebuilt by a resume)."""
        reader = self._reader(viewer, everything)
        log_, stamps = self.game.log, self.stamps
        events = reader.events[max(0, after) :]
        lines: list[list] = []
        times: list[float | None] = []
        for raw, index in zip(events, reader.indexes[max(0, after) :], strict=True):
            times.append(stamps[index] if index < len(stamps) else None)
            line = line_of(log_[index], viewer, self.word)
            if line is not None:
                lines.append([raw["seq"], *line])
        return events, lines, times

    def decision_number(self, seat: str, request_id: int) -> int:
        """The seat's own number of a decision (the page's ``decision.id``)."""
        return self._reader(seat, False).numbering.decision(request_id)

    def decision_for(self, seat: str) -> dict[str, Any] | None:
        web = self.persons.get(seat)
        posed = web.posed if web is not None else None
        if posed is None or posed.answer.done():
            return None
        request = posed.request
        now = asyncio.get_running_loop().time()
        table = request.table
        clock = request.clock
        return {
            "id": self.decision_number(seat, request.id),
            "question": for_people(request.question),  # no "(null)", no snake_case, as at the terminal
            "group": request.group,
            "phase": request.phase,
            "day": request.day,
            "role": request.role,
            "talk": request.talk,
            "max_speech": request.max_speech,
            "clock": None if clock is None else {"unit": clock.unit, "left": clock.left, "total": clock.total},
            "default": dump_action(posed.default),
            "options": options_json(request),
            "seats": list(request.seats),
            "alive": list(request.alive),
            "claims": claims_allowed(request),
            "claim_roles": list(table.claim_roles) if table is not None else [],
            "feedback": posed.feedback,
            "notes": seat_notes(request, self.game.view(seat).events, seat),
            "left": None if posed.deadline is None else round(max(0.0, posed.deadline - now), 3),
        }

    def seat_state(self, seat: str, after: int) -> dict[str, Any]:
        events, lines, times = self.events_for(seat, after)
        now = asyncio.get_running_loop().time()
        web = self.persons.get(seat)
        beat = web.beat if web is not None else self.beat
        decision = self.decision_for(seat)
        seen = (len(self._reader(seat, False).events), decision and (decision["id"], decision["feedback"]))
        people = self.people(now)
        return {
            "table": self.id,
            "variant": self.variant,
            "seat": seat,
            "seats": list(self.game.seats),
            "events": events,
            "lines": lines,
            "times": times,
            "decision": decision,
            "rules": self._rules(seat),
            "beat": beat_json(beat, now),
            **people,
            "over": self.over,
            "state": self.state,
            "aborted": self.aborted,
            "version": reader_version(*seen, beat and beat.label, self.state, self.aborted, _moving(people)),
        }

    def _rules(self, seat: str) -> dict[str, str | None]:
        """The seat page's standing rules, built again only when the seat has seen something new
        (a poll comes every few seconds per seat; the rules change once, with the team's reveal)."""
        seen = len(self._reader(seat, False).events)
        cached = self._rules_cache.get(seat)
        if cached is None or cached[0] != seen:
            options = self.game.options.model_dump(mode="json")
            cached = self._rules_cache[seat] = (seen, page_rules(self.variant, options, self.game.view(seat).events))
        return cached[1]

    def watch_state(self, after: int, live_views: bool) -> dict[str, Any]:
        everything = self.over or (live_views and not self.persons)
        events, lines, times = self.events_for(None, after, everything)
        now = asyncio.get_running_loop().time()
        seen = len(self._reader(None, everything).events)
        people = self.people(now)
        return {
            "table": self.id,
            "variant": self.variant,
            "seats": list(self.game.seats),
            "events": events,
            "lines": lines,
            "times": times,
            "all_views": everything,
            "beat": beat_json(self.beat, now),
            **people,
            "over": self.over,
            "state": self.state,
            "aborted": self.aborted,
            "version": reader_version(seen, everything, self.beat and self.beat.label, self.state, self.aborted, _moving(people)),
        }

    def summary(self) -> dict[str, Any]:
        return {
            "table": self.id,
            "variant": self.variant,
            "seats": {s.name: (PERSON if s.spec == PERSON else s.spec) for s in self.seats.values()},
            "state": self.state,
            "day": self.game.day,
            "created": self.created,
            "watch": f"/tables/{self.id}/watch",
        }

    # ---- answers ----------------------------------------------------------------------------------
    def answer(self, seat: str, body: Any) -> None:
        """Hand a page's answer to its seat, or raise a TableError (422 with the engine's reason)."""
        if not isinstance(body, dict):
            raise TableError(400, "the body must be a JSON object")
        if self.over:
            raise TableError(409, "the game is over")
        limit = self.limits.get(seat)
        if limit is None:
            limit = self.limits[seat] = RateLimit(*self.answer_rate)
        if not limit.take():
            raise TableError(429, "too many answers: wait a moment")
        web = self.persons[seat]
        posed = web.posed
        decision = body.get("decision")
        if posed is None or posed.answer.done() or decision != self.decision_number(seat, posed.request.id):
            raise TableError(409, "that decision is not open (any more): reload the state")
        raw = body.get("action")
        if not isinstance(raw, dict):
            raise TableError(422, "action must be an object with a kind")
        raw = {k: v for k, v in raw.items() if k != "thought"}  # a person's reasoning stays in their head
        legal = [opt.kind for opt in posed.request.options]
        if raw.get("kind") not in KINDS:
            raise TableError(422, f"there is no move {str(raw.get('kind'))[:40]!r}; legal: {', '.join(legal)}")
        try:
            action = parse_action(raw)
        except ValidationError as exc:
            raise TableError(422, first_error(exc).removeprefix(": ")) from None
        reason = self.game.validate(posed.request, action)
        if reason is not None:
            raise TableError(422, reason)
        web.deliver(posed.request.id, action)


class ArchivedTable:
    """A finished (or stopped, or not resumable) table served from its files, not memory."""

    def __init__(self, record: Mapping[str, Any], data: Path) -> None:
        self.id = str(record["id"])
        self.variant = str(record["variant"])
        self.created = float(record.get("created", 0))
        self.seats = {
            s["name"]: Seat(s["name"], s["spec"], s.get("person"), s.get("token_sha256")) for s in record.get("seats", [])
        }
        self.data = data
        self.persons: dict[str, Any] = {}
        self.waiters = Waiters()
        self._cache: tuple[float, Any] | None = None

    @property
    def transcript(self) -> Path:
        return self.data / "transcripts" / f"{self.id}.jsonl"

    def _read(self) -> Any:
        try:
            stamp = self.transcript.stat().st_mtime
        except OSError:
            raise TableError(404, "this table's transcript is gone") from None
        if self._cache is None or self._cache[0] != stamp:
            try:
                self._cache = (stamp, read_transcript(self.transcript))
            except TranscriptError as exc:
                raise TableError(500, str(exc)) from None
        return self._cache[1]

    @property
    def state(self) -> str:
        try:
            transcript = self._read()
        except TableError:
            return "lost"
        return "over" if transcript.complete else "stopped"

    over = True

    def _events(self, viewer: str | None, after: int, everything: bool) -> tuple[list[dict], list[list]]:
        """As :meth:`Table.events_for`: the viewer's events after its ``after`` first, numbered for it."""
        transcript = self._read()
        word = day_word(self.variant)
        numbering = Numbering()
        events: list[dict] = []
        lines: list[list] = []
        for raw in transcript.events:
            to = raw.get("to")
            if not everything and to is not None and (viewer is None or viewer not in to):
                continue
            events.append(raw if everything else numbering.event(raw))
        events = events[max(0, after) :]
        for raw in events:
            line = line_of(Event.from_dict(raw), viewer, word)
            if line is not None:
                lines.append([raw["seq"], *line])
        return events, lines

    def _common(self) -> dict[str, Any]:
        transcript = self._read()
        return {
            "table": self.id,
            "variant": self.variant,
            "seats": list(transcript.header.get("seats", [])),
            "decision": None,
            "beat": None,
            "turn": None,
            "start": None,
            "over": True,
            "state": self.state,
            "aborted": transcript.aborted or (None if transcript.summary else "the game was interrupted"),
            "version": 0,
        }

    def seat_state(self, seat: str, after: int) -> dict[str, Any]:
        events, lines = self._events(seat, after, False)
        return {**self._common(), "seat": seat, "events": events, "lines": lines, "times": [None] * len(events)}

    def watch_state(self, after: int, live_views: bool) -> dict[str, Any]:
        events, lines = self._events(None, after, True)
        return {**self._common(), "events": events, "lines": lines, "times": [None] * len(events), "all_views": True}

    def summary(self) -> dict[str, Any]:
        return {
            "table": self.id,
            "variant": self.variant,
            "seats": {s.name: s.spec for s in self.seats.values()},
            "state": self.state,
            "created": self.created,
            "watch": f"/tables/{self.id}/watch",
        }

    def answer(self, seat: str, body: Any) -> None:
        raise TableError(409, "the game is over")


async def check_model_seats(players: Mapping[str, Any]) -> None:
    """``arena play``'s check before a game, for a new table's model seats: endpoint, key, model,
    and the structured mode a server of its own takes (without it a seat on llama-cpp-python's
    server sends tools and the table stops after three lost decisions). A problem is one line and
    no table (400)."""
    seats = network_seats(players)
    if not seats:
        return
    from arena.players.llm.preflight import preflight

    probes: list[Any] = []
    problems = await preflight(seats, probes, pooled=True)  # other tables' seats use the pooled clients
    if problems:
        raise TableError(400, "; ".join(p.line() for p in problems) + " (no table was started)")
    for probe in probes:
        log.info("%s (checked in %.1f s)", probe.line(), probe.seconds)


@dataclass
class Created:
    table: Table
    tokens: dict[str, str] = field(default_factory=dict)
    owner: str | None = None  # the maker's token: starts the table before every person came


def new_table(setup: TableSetup, data: Path, night_seconds: float = DEFAULT_NIGHT_SECONDS) -> Created:
    """Build a table from a checked set-up (not started yet): its game, tokens and players."""
    table_id = secrets.token_urlsafe(9)
    try:
        game = setup.variant([s.name for s in setup.seats], setup.options, setup.seed)
    except RulesError as exc:
        raise TableError(400, str(exc)) from None
    tokens: dict[str, str] = {}
    night = setup.night_seconds
    if night is None:
        night = night_seconds if any(seat.spec == PERSON for seat in setup.seats) else 0.0
    for seat in setup.seats:
        if seat.spec == PERSON:
            token = secrets.token_urlsafe(24)
            tokens[seat.name] = token
            seat.token_sha256 = token_hash(token)
    table = Table(
        table_id, game, setup.seats, data, timeout=setup.timeout, beat_seconds=setup.beat_seconds, pace=setup.pace,
        start_wait=setup.start_wait, night_seconds=night,
    )  # fmt: skip
    table.build_players()
    owner = None
    if tokens:  # whoever made a table with people may start it before they all came
        owner = secrets.token_urlsafe(24)
        table.owner_sha256 = token_hash(owner)
    return Created(table, tokens, owner)
