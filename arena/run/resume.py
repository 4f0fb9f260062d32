"""Resume: an interrupted game (a crash, ``kill -9``, a power cut) goes on from its transcript.

The transcript is written as the game is played (:mod:`arena.run.transcript`), so after a crash
it holds every step resolved, the rejections and moderator notes of the step that was cut, and
every model call made. Resuming it:

1. **Repairs the file.** A last line cut short by the crash is dropped (a note says how many
   bytes); a stopped game's summary (``aborted``: a person quit, Ctrl-C, an endpoint down) is
   dropped too, since the game is no longer stopped; a step whose resolution was cut while being
   written is written again whole; the decisions forfeited in the endpoint outage that stopped
   the game, and the rulings of the round its first failed call was in, are taken back
   (:func:`_outage`: that round is asked again, its answers recalled). A finished game is refused. The file is changed
   only once the rebuild below has succeeded.
2. **Rebuilds the game** with :func:`arena.run.replay.rebuild`, which offers every recorded
   answer again through the orchestrator's own rulings: nobody is asked. The rebuilt log must
   equal the recorded one event for event, else the variant's rules changed and resuming is refused.
3. **Brings the seats along.** Each seat gets the player of its header spec again (or the
   caller's override). While the game is rebuilt, every recorded attempt is also *rehearsed* by
   its seat: a bot (any :class:`~arena.players.base.SyncPlayer`) answers it again, so its memory
   and random stream end where they were, and a model seat rebuilds its conversation from the
   transcript's ``call`` records (its prompt turns again, the model's recorded answers), so its
   next prompt is the one it would have sent; no model is called. A model answer recorded in the
   cut step but never ruled on (the other seats of that parallel step were still thinking) is
   used as that seat's answer, so no call is repeated at all.
4. **Plays on** live from the step that was cut (its recorded rejections count towards the
   retry limit; a seat that had an accepted answer in it is asked again only if that answer was
   never recorded: the engine writes actions when a step resolves, a model's call record is
   written when it answers), appending to the same transcript. ``arena replay`` of the result is
   exact: the answers are in the file in the order they were given.

McKay's games on the wall clock (a person at the table): the rebuild stops after the last
recorded beat; the beat that was cut starts again in full (its seconds on the wall clock from
now), and the bots' think times go on from their seeded streams where they were.

A resumed game of bots (or scripted seats) ends exactly as the uninterrupted game would have;
a game with model seats does too when the models give the same answer to the same prompt (the
tests' loopback stand-in does), since every prompt is the one the uninterrupted game sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import random
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import Game, View
from arena.players.base import Player, SyncPlayer
from arena.run.orchestrator import Observer, Ruling, play, run
from arena.run.replay import MISFIT, OUT_OF_ANSWERS, ReplayError, compare, game_from_header, rebuild
from arena.run.transcript import Transcript, TranscriptError, TranscriptWriter, check_idle, is_person, read_transcript
from arena.run.wallclock import ClockError, ThinkTime, WallClock

__all__ = [
    "Rehearser",
    "ResumeError",
    "Resumption",
    "prepare_resume",
    "recorded_answer",
    "rehearse_as_own",
    "repair",
    "reseed_players",
    "resume_game",
    "resume_sync",
    "run_and_close",
]

#: the events a step's resolution writes first (one per decision): a crash may cut it after some
SETTLED = frozenset(("action", "forfeit"))
#: what a seat spec becomes: (spec, seat, seed, extra keyword arguments) -> player
PlayerFactory = Callable[..., Any]


class ResumeError(ValueError):
    """A transcript that cannot be resumed (finished, unreadable, rules changed): one line."""


@dataclass(slots=True)
class Repair:
    """What :func:`repair` does to the file before the game goes on: keep its first ``keep`` bytes."""

    keep: int
    dropped_bytes: int = 0  # a last line cut short by the crash
    dropped_summary: str | None = None  # a stopped game's "aborted" reason
    dropped_events: int = 0  # the first events of a step's resolution, the rest cut off by the crash
    outage: int = 0  # events taken back: from the first decision forfeited in the outage that stopped the game

    def apply(self, path: Path) -> None:
        if path.stat().st_size != self.keep:
            with path.open("r+b") as file:
                file.truncate(self.keep)

    def notes(self, path: Path) -> list[str]:
        out = []
        if self.dropped_bytes:
            out.append(f"{path}: dropped a half-written last line ({self.dropped_bytes} bytes)")
        if self.dropped_events:
            out.append(f"{path}: dropped {self.dropped_events} event(s) of a step cut off while written; it is resolved again")
        if self.outage:
            out.append(f"{path}: took back {self.outage} event(s) from the first decision forfeited in the endpoint outage")
        if self.dropped_summary is not None:
            out.append(f"{path}: the game had been stopped ({self.dropped_summary}); it goes on")
        return out


def repair(path: Path) -> Repair:
    """What makes ``path`` ready to be appended to: drop a half-written last line, or a stop's
    summary (:meth:`Repair.apply` does it; nothing is changed here).

    Raises :class:`ResumeError` for a finished game (its summary has no ``aborted``) and for a
    file that is not a transcript.
    """
    try:
        transcript = read_transcript(path)
    except TranscriptError as exc:
        raise ResumeError(str(exc)) from None
    if transcript.complete:
        raise ResumeError(f"{path}: the game is finished: there is nothing to resume (arena replay checks it)")
    data = path.read_bytes()
    cut = data.rfind(b"\n") + 1
    fixed = Repair(keep=cut, dropped_bytes=len(data) - cut)
    if transcript.summary is not None:  # a stopped game: its summary is the last whole line
        fixed.keep = data[:cut].rstrip(b"\n").rfind(b"\n") + 1
        fixed.dropped_summary = str(transcript.aborted)
    return fixed


def clock_from_header(header: Mapping[str, Any], seed: int) -> WallClock | None:
    """The wall clock a McKay table with a person ran on (its header's ``clock``), else None."""
    described = header.get("clock")
    if not isinstance(described, Mapping):
        return None
    try:
        think = {seat: ThinkTime.parse(str(text)) for seat, text in dict(described.get("think") or {}).items()}
        default = think.pop("default", None)
        return WallClock(float(described["beat_seconds"]), seed=seed, think=think, default=default)
    except (ClockError, KeyError, TypeError, ValueError) as exc:
        raise ResumeError(f"header clock: {exc}") from None


def _default_factory(spec: str, name: str, seed: int, **extra: Any) -> Any:
    from arena.players.registry import make_player

    return make_player("human" if is_person(spec) else spec, name, seed, **extra)


@dataclass(slots=True)
class Resumption:
    """A game rebuilt from its transcript, ready to play on: pass it to :meth:`run` or :meth:`play`.

    ``players`` are the seats (header specs or overrides), ``writer`` appends to the transcript,
    ``opened`` holds the rulings of the step that was cut, ``clock`` the wall clock of a McKay
    table with a person. The figures say what the rebuild spared: events rebuilt, recorded
    model calls not made again (``calls_reused``, of which ``answers_reused`` were answers of the
    cut step never ruled on), rehearsals (attempts each seat went through again), its seconds.
    """

    path: Path
    transcript: Transcript
    game: Game
    players: dict[str, Any]
    writer: TranscriptWriter
    opened: dict[int, Ruling]
    clock: WallClock | None
    repaired: Repair
    events_rebuilt: int
    calls_reused: int
    answers_reused: int
    rehearsals: int
    seconds: float
    observers: list[Observer] = field(default_factory=list)

    def notes(self) -> list[str]:
        """One line per repair, then one saying where the game resumes."""
        begun = sum(1 for r in self.opened.values() if r.attempts or r.decision is not None)
        cut = f", {begun} decision(s) of the cut step already begun" if begun else ""
        return [
            *self.repaired.notes(self.path),
            f"resuming after {self.events_rebuilt} recorded events ({self.calls_reused} model calls not made again{cut}), "
            f"rebuilt in {self.seconds:.2f} s",
        ]

    async def run(self, **kwargs: Any) -> Game:
        """Play on to the end (or a stop), on the running loop; the transcript is closed after.

        Keyword arguments go to :func:`arena.run.orchestrator.run` (``decision_timeout``); the
        clock of the header is used unless ``clock`` is given. A :class:`StopGame` or Ctrl-C
        marks the transcript's summary ``aborted`` (so it can be resumed again) and is re-raised.
        """
        kwargs.setdefault("clock", self.clock)
        aborted = None
        try:
            return await run(self.game, self.players, [self.writer, *self.observers], opened=self.opened, **kwargs)
        except BaseException as exc:
            aborted = _why(exc)
            raise
        finally:
            self.writer.close(self.game, aborted=aborted)

    def play(self) -> Game:
        """Play on synchronously (no loop when every seat is a :class:`SyncPlayer`); closes the transcript."""
        aborted = None
        try:
            kwargs = {"clock": self.clock} if self.clock is not None else {}
            return play(self.game, self.players, [self.writer, *self.observers], opened=self.opened, **kwargs)
        except BaseException as exc:
            aborted = _why(exc)
            raise
        finally:
            self.writer.close(self.game, aborted=aborted)


def _refuse_a_spoiled_game(path: Path) -> None:
    """A person's unfinished game whose whole story was shown (every card: the transcript's
    ``looked`` lines, :func:`~arena.run.transcript.note_look`) is not resumed: that person would
    play on knowing what the game hides."""
    try:
        transcript = read_transcript(path)
    except TranscriptError:
        return  # the repair says what is wrong
    persons = transcript.persons
    if transcript.looked and persons:
        look, who = transcript.looked[0], " and ".join(persons)
        raise ResumeError(
            f"{path}: more of this unfinished game than {who} saw was shown ({look.get('by', '?')}, {look.get('at', '?')}): "
            f"{who} cannot be seated again, so it is not resumed"
        )


def _why(exc: BaseException) -> str | None:
    from arena.players.base import StopGame

    if isinstance(exc, KeyboardInterrupt):
        return "interrupted (Ctrl-C)"
    if isinstance(exc, StopGame):
        return str(exc) or "stopped"
    return None  # a crash: no summary, as for the first run


def prepare_resume(
    path: str | Path,
    players: Mapping[str, Any] | None = None,
    *,
    observers: Sequence[Observer] = (),
    factory: PlayerFactory | None = None,
    player_kwargs: Mapping[str, Mapping[str, Any]] | None = None,
    seed: int | None = None,
    watch: Callable[[Game, Mapping[str, Any]], Sequence[Observer]] | None = None,
    retry_outage: bool = True,
    before_writing: Callable[[Mapping[str, Any]], Any] | None = None,
) -> Resumption:
    """Repair, rebuild and re-seat the game of ``path``; nothing is played yet, nobody is asked.

    ``players`` overrides seats (seat -> a ready :class:`~arena.players.base.Player`: a person's
    web seat, a scripted stand-in); every other seat is built from its header spec with
    ``factory(spec, seat, seed, **extra)`` (default :func:`arena.players.registry.make_player`),
    where a model seat's ``extra`` holds its variant, options and a recorder writing ``call``
    lines, and ``player_kwargs[seat]`` adds to it (a person's console). ``observers`` are added
    after the transcript writer (the server's table, a printer). ``seed`` seeds the players (default:
    the header's ``player_seed`` (a tournament's game), else the game's, as ``arena play`` does).
    ``watch(game, players)`` returns observers that follow the
    rebuild too, told of the game after each step it resolves as they were in the first run (a
    tournament's belief probe), then go on with the live game. ``retry_outage``: decisions
    forfeited because the model endpoint had failed for good (see :func:`_outage`) are taken back
    and asked again. ``before_writing(players)`` runs once the game is rebuilt and before the file
    is touched (the command's endpoint check): what it raises leaves the transcript as it was.
    Raises :class:`ResumeError`
    (one line) for a finished game, a file that is not a transcript, an unknown variant, a seat
    that cannot be built, or a transcript the current rules play differently.
    """
    path = Path(path)
    started = time.perf_counter()
    try:
        check_idle(path)  # a game being played is not repaired under its writer
    except TranscriptError as exc:
        raise ResumeError(str(exc)) from None
    _refuse_a_spoiled_game(path)
    repaired = repair(path)
    try:
        transcript = read_transcript(path, repaired.keep)
        if retry_outage:
            outage = _outage(path, transcript)
            if outage is not None:
                repaired.keep, repaired.outage = outage
                transcript = read_transcript(path, repaired.keep)
    except TranscriptError as exc:
        raise ResumeError(str(exc)) from None
    header = transcript.header
    seed = int(header.get("player_seed", header["seed"])) if seed is None else seed
    seat_seeds = {str(k): int(v) for k, v in dict(header.get("seat_seeds") or {}).items()}  # a fork's new seats
    foreign = {str(k): int(v) for k, v in dict(header.get("foreign") or {}).items()}
    factory = factory or _default_factory
    specs: dict[str, str] = {str(k): str(v) for k, v in dict(header["players"]).items()}
    seats = [str(s) for s in header["seats"]]
    overrides = dict(players or {})
    unknown = sorted(set(overrides) - set(seats))
    if unknown:
        raise ResumeError(f"{path}: no seat {', '.join(unknown)} at this table (seats: {', '.join(seats)})")
    writer: TranscriptWriter | None = None
    sink: list[TranscriptWriter] = []  # the writer is opened once the rebuild succeeded: bind late

    def recorder(seat: str) -> Callable[[dict[str, Any]], None]:
        def record(call: dict[str, Any]) -> None:
            if sink:
                sink[0].record_call(seat, call)

        return record

    from arena.players.registry import builtin_kind

    seated: dict[str, Any] = {}
    for seat in seats:
        if seat in overrides:
            seated[seat] = overrides[seat]
            continue
        spec = specs.get(seat, "?")
        extra: dict[str, Any] = dict((player_kwargs or {}).get(seat, {}))
        if builtin_kind(spec) is None and not is_person(spec):
            extra = {"variant": header["variant"], "options": header["options"], "recorder": recorder(seat), **extra}
        try:
            seated[seat] = factory(spec, seat, seat_seeds.get(seat, seed), **extra)
        except (ValueError, ImportError, AttributeError, TypeError) as exc:
            raise ResumeError(f"seat {seat} ({spec}): {exc}") from None
        mode = (header.get("structured") or {}).get(seat)
        if mode and not getattr(seated[seat], "forced", True):  # the mode the check picked for its server
            seated[seat].set_mode(mode)
    clock = clock_from_header(header, int(header["seed"]))
    calls = _calls_by_attempt(transcript)
    rehearse = Rehearser(seated, calls, foreign, clock)
    tries = rehearse.tries

    try:
        start = game_from_header(header)
    except ReplayError as exc:
        raise ResumeError(f"{path}: {exc}") from None
    watchers = list(watch(start, seated)) if watch is not None else []

    def resolved(game: Game) -> None:
        for observer in watchers:
            observer(game)

    for seat, player in seated.items():  # a context a server named in a refusal: known before the rebuild,
        if hasattr(player, "learn_recorded"):  # to every seat of the same spec (the same server)
            same = {s for s in seats if specs.get(s) == specs.get(seat)}
            player.learn_recorded(
                [c["call"] for c in transcript.calls if c.get("player") in same and isinstance(c.get("call"), dict)]
            )
    if watchers:  # the first run's observers saw the game before its first step (the orchestrator's first
        resolved(start)  # notify): a day the game starts in (classic's day 1) is probed from its records too
    rebuilt = rebuild(
        transcript,
        rehearse,
        game=start,
        resolved=resolved if watchers else None,
        forked=lambda game, new: reseed_players(seated, new),
    )
    game = rebuilt.game
    check = compare(dataclasses.replace(transcript, summary=None), game, rebuilt.stopped)  # a stop's summary goes
    tail = transcript.events[check.identical :]
    if rebuilt.stopped == OUT_OF_ANSWERS and check.ok and tail and all(e.get("type") in SETTLED for e in tail):
        repaired.keep = _offset_of_event(path, check.identical + 1)  # a resolution written in part: written again
        repaired.dropped_events = len(tail)
    elif rebuilt.stopped == MISFIT or not check.ok or check.identical != len(transcript.events):
        why = check.difference or f"a recorded answer fits no decision after event {check.identical}"
        raise ResumeError(f"{path}: the game does not rebuild from its answers ({why}): were the rules changed?")
    answers_reused = 0
    for seat, player in seated.items():
        mine = [c["call"] for c in transcript.calls if c.get("player") == seat and isinstance(c.get("call"), dict)]
        if mine and hasattr(player, "count_recorded"):
            player.count_recorded(mine)
        if not hasattr(player, "remember"):
            continue
        for (who, request_id, attempt), call in calls.items():
            if who == seat and request_id in rebuilt.open and attempt > tries[seat, request_id] and "raw" in call:
                player.remember(request_id, attempt, call)
                answers_reused += 1
    if before_writing is not None:
        before_writing(seated)
    repaired.apply(path)
    writer = TranscriptWriter.reopen(path, transcript, written=check.identical)
    sink.append(writer)
    writer.track_usage(seated)
    return Resumption(
        path=path,
        transcript=transcript,
        game=game,
        players=seated,
        writer=writer,
        opened=rebuilt.open,
        clock=clock,
        repaired=repaired,
        events_rebuilt=check.identical,
        calls_reused=len(transcript.calls),
        answers_reused=answers_reused,
        rehearsals=rehearse.count,
        seconds=time.perf_counter() - started,
        observers=[*observers, *watchers],
    )


class Rehearser:
    """Brings seats along while a game is rebuilt from its answers (the ``rehearse`` of
    :func:`arena.run.replay.rebuild`): each recorded attempt is gone through again by its seat.

    A bot (any :class:`SyncPlayer`) answers it again, so its memory and random stream end where
    they were; a model seat rebuilds its conversation from the call record of that attempt
    (``calls``: (seat, request, try) -> record), or, for a seat another player played before
    request ``foreign[seat]``, with the recorded answer as its own. Seats not in ``players`` are
    left alone (a position asks one seat only). ``count``: attempts gone through.
    """

    def __init__(
        self,
        players: Mapping[str, Any],
        calls: Mapping[tuple[str, int, int], dict[str, Any]] | None = None,
        foreign: Mapping[str, int] | None = None,
        clock: WallClock | None = None,
    ) -> None:
        self.players = players
        self.calls = calls or {}
        self.foreign = foreign or {}
        self.clock = clock
        self.views: dict[str, View] = {}
        self.tries: defaultdict[tuple[str, int], int] = defaultdict(int)
        self.count = 0

    def __call__(self, ruling: Ruling, event: dict[str, Any]) -> None:
        request = ruling.request
        seat = request.player
        player = self.players.get(seat)
        if player is None:
            return
        view = self.views.get(seat) or self.views.setdefault(seat, ruling.game.view(seat))
        self.tries[seat, request.id] += 1
        attempt = self.tries[seat, request.id]
        if isinstance(player, SyncPlayer):
            if self.clock is not None and self.clock.timed(request):
                self.clock.think_time(seat)  # the draw the seat made in that beat
            with contextlib.suppress(Exception):  # it failed then too (a ``player_error``): nothing to bring along
                player.decide_now(request, view, ruling.feedback)
        elif request.id < self.foreign.get(seat, 0) and hasattr(player, "conversation"):
            rehearse_as_own(player, request, view, ruling.feedback, event, attempt)  # another player made it
        elif hasattr(player, "rehearse"):
            player.rehearse(request, view, ruling.feedback, self.calls.get((seat, request.id, attempt)))
        else:
            return
        self.count += 1


def reseed_players(players: Mapping[str, Any], seed: int) -> None:
    """A fork's new seed for the seats' own random streams too (a bot's, a random player's), so
    that what is random from the fork on is drawn anew; a stream not started yet starts from it."""
    for seat, player in players.items():
        started = False
        for attr in ("rng", "coin"):
            stream = getattr(player, attr, None)
            if isinstance(stream, random.Random):
                stream.seed(f"fork:{seed}:{seat}:{attr}")
                started = True
        if not started and isinstance(getattr(player, "seed", None), int):
            player.seed = seed  # a bot seeds its streams at its first request


def rehearse_as_own(player: Any, request: Any, view: View, feedback: str | None, event: Mapping[str, Any], attempt: int) -> None:
    """A model seat goes through a decision another player made (a forked seat, a position): the
    prompt is built as it would have been sent, and the recorded answer stands in the history as
    the model's own (``arena prompts`` shows a bot's seat the same way). Nothing is called."""
    player.prepare(request, view, feedback)
    recorded_answer(player, event, attempt)


def recorded_answer(player: Any, event: Mapping[str, Any], attempt: int) -> None:
    """The seat's recorded answer put in the model's history as the model would have given it."""
    data = event["data"]
    if event["type"] == "forfeit" or ("action" not in data and data.get("raw") is None):
        return  # no answer came: the next question opens with the "no answer" placeholder
    if "action" not in data:
        player.conversation.answer(str(data.get("raw")))
        return
    action = dict(data["action"])
    kind = str(action.pop("kind", ""))
    raw = json.dumps(action, ensure_ascii=False)
    if player.profile.mode not in ("tools", "tools_auto") or player.profile.provider == "local":
        player.conversation.answer(json.dumps(data["action"], ensure_ascii=False))
        return
    call_id = f"call_{data['request']}_{attempt}"
    player.conversation.answer(raw, {"id": call_id, "name": kind, "arguments": raw, "input": action})


def _outage(path: Path, transcript: Transcript) -> tuple[int, int] | None:
    """Where to cut the record so the decisions an endpoint outage forfeited are asked again.

    The outage is the run of failed model calls (``transport_failed``) after the last call that
    got an answer: the game stopped in it (the endpoint's breaker) or crashed. Each decision those
    calls forfeited (a ``forfeit`` of that request, with the transport's reason) is an artefact of
    the outage, not a choice; so is every event written after the outage's first failed decision
    call: the rulings of the round it was asked in (the other seats' answers, rejected there, were
    ruled beside a forfeit that is taken back) and what followed. The record is cut before the
    first of them (byte offset, events dropped): the resumed game asks the round again as it was
    asked, the answers the models gave in it recalled from their ``call`` records (nothing is paid
    twice), the lost ones asked. Earlier failures, after which the endpoint answered again, are
    part of the game as played and stay.
    """
    failed: set[int] = set()
    first: int | None = None  # the outage's first failed decision call, its index among the call lines
    for index in range(len(transcript.calls) - 1, -1, -1):
        call = transcript.calls[index].get("call") or {}
        if call.get("outcome") != "transport_failed":
            break
        if isinstance(call.get("request"), int):
            failed.add(call["request"])
            first = index
    cuts = [e["seq"] for e in transcript.events if e.get("type") == "forfeit" and e.get("data", {}).get("request") in failed]
    if first is not None:
        after = _event_after_call(path, first, len(transcript.events))
        if after is not None:
            cuts.append(after)
    if not cuts:
        return None
    seq = min(cuts)
    return _offset_of_event(path, seq), len(transcript.events) - seq + 1


def _event_after_call(path: Path, index: int, events: int) -> int | None:
    """The seq of the first event written after the ``index``-th call line (0-based), if one of
    the transcript's ``events`` was."""
    calls = 0
    with path.open("rb") as file:
        for line in file:
            if line.startswith(b'{"type": "call"'):
                calls += 1
            elif calls > index and line.startswith(b'{"type": "event"'):
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    seq = int(json.loads(line)["event"]["seq"])
                    return seq if seq <= events else None
    return None


def _offset_of_event(path: Path, seq: int) -> int:
    """Where the line of event ``seq`` starts in the file (it is there: the transcript was read)."""
    offset = 0
    with path.open("rb") as file:
        for line in file:
            if line.startswith(b'{"type": "event"'):
                with contextlib.suppress(ValueError):
                    if json.loads(line)["event"]["seq"] == seq:
                        return offset
            offset += len(line)
    raise ResumeError(f"{path}: event {seq} not found")


def _calls_by_attempt(transcript: Transcript) -> dict[tuple[str, int, int], dict[str, Any]]:
    """Each recorded model call by (seat, decision, try), from its ``call`` record."""
    out: dict[tuple[str, int, int], dict[str, Any]] = {}
    for entry in transcript.calls:
        call = entry.get("call")
        if not isinstance(call, dict):
            continue
        request, attempt = call.get("request"), call.get("try")
        if isinstance(request, int) and isinstance(attempt, int):
            out[str(entry.get("player")), request, attempt] = call
    return out


async def resume_game(
    path: str | Path,
    players: Mapping[str, Player] | None = None,
    *,
    observers: Sequence[Observer] = (),
    factory: PlayerFactory | None = None,
    player_kwargs: Mapping[str, Mapping[str, Any]] | None = None,
    **run_kwargs: Any,
) -> Resumption:
    """Resume the game of the transcript ``path`` and play it to its end, on the running loop.

    ``resume_game(path, players=None, *, observers=(), factory=None, player_kwargs=None,
    decision_timeout=None, clock=None) -> Resumption`` (awaitable):

    - ``players``: seat -> a ready player for the seats you play yourself (a person's web seat);
      every other seat is rebuilt from the header's spec (``bot``, ``random``, a model spec).
    - ``observers``: called after every change, after the transcript writer.
    - the rest (``decision_timeout``, ``clock``) goes to :func:`arena.run.orchestrator.run`.

    Returns the :class:`Resumption` (``.game`` finished, ``.notes()``, ``.calls_reused``); model
    seats are closed (``aclose``) at the end. Raises :class:`ResumeError` (one line) before anything
    is played when the transcript cannot be resumed; a :class:`~arena.players.base.StopGame` stops
    the game with an ``aborted`` summary (resumable again) and is re-raised. To show the rebuilt
    table before play goes on, call :func:`prepare_resume` and then ``await resumption.run()``.
    """
    resumption = prepare_resume(path, players, observers=observers, factory=factory, player_kwargs=player_kwargs)
    await run_and_close(resumption, **run_kwargs)
    return resumption


async def run_and_close(resumption: Resumption, **run_kwargs: Any) -> None:
    """Play on, then let model seats close their connections on that same loop."""
    try:
        await resumption.run(**run_kwargs)
    finally:
        for player in resumption.players.values():
            close = getattr(player, "aclose", None)
            if close is not None:
                await close()


def resume_sync(path: str | Path, players: Mapping[str, Player] | None = None, **kwargs: Any) -> Resumption:
    """:func:`resume_game` for callers with no event loop (a bot game runs with none at all)."""
    resumption = prepare_resume(path, players, **kwargs)
    if all(isinstance(p, SyncPlayer) for p in resumption.players.values()) and resumption.clock is None:
        resumption.play()
        return resumption

    asyncio.run(run_and_close(resumption))
    return resumption
