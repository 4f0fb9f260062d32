"""Transcripts: every game as JSON lines, written while it is played (format below; README: "Transcripts").

One JSON object per line, each with a ``type``:

- line 1, ``{"type": "header", ...}``: ``format``, ``variant``, ``options`` (all of them, after
  validation), ``seed``, ``seats`` (in seat order), ``players`` (seat -> spec), ``version``
  (``arena.__version__``) and ``started`` (UTC, ISO 8601); a McKay game played on the wall clock
  (a person at the table) adds ``clock``: ``beat_seconds`` and each seat's ``think`` time;
- then ``{"type": "event", "event": Event.to_dict()}`` for every event, in log order;
- between them, for seats played by a language model, ``{"type": "call", "player": seat,
  "call": {...}}``: one per model call, as the player reported it (prompt size, usage, cost,
  latency, the raw answer, the outcome), when it happened;
- last, ``{"type": "summary", ...}``: ``game.summary()`` plus ``events``, ``decisions``,
  ``forfeits``, ``rejections`` (totals), ``per_player`` (seat -> those counts), ``usage`` (seat ->
  token and cost totals, for model seats only) and ``ended``; a game stopped before its end (a
  person quit, Ctrl-C) gets a summary too, with ``finished`` false and ``aborted`` saying why;
- after it, for an unfinished game a person played, ``{"type": "looked", "by": command, "at":
  UTC}`` for each time its whole story (every card) was shown (:func:`note_look`): ``arena
  resume`` will not seat that person again.

Events are wrapped rather than flattened because an event has a ``type`` of its own. The writer
is an orchestrator observer: it appends only the events added since its last call and flushes
at once, so a crash loses nothing already played. A transcript without a summary is a crashed
game; the reader accepts it (and a last line cut short by the crash).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel

import arena
from arena.engine import ActionBase, Game, dump_action

try:
    import fcntl
except ImportError:  # no flock on this platform: transcripts are not locked
    fcntl = None  # type: ignore[assignment]

FORMAT = 1
HEADER_KEYS = ("variant", "options", "seed", "seats", "players")


class TranscriptError(ValueError):
    """A file that is not a readable transcript (one line: where and why)."""


class TranscriptBusy(TranscriptError):
    """Another writer holds the transcript: its game is being played (a table of ``arena serve``,
    another ``arena resume``); a second writer would interleave two games' lines."""


def _lock(file: IO[Any], path: Path) -> None:
    """Hold the transcript's writer lock while ``file`` is open: an advisory ``flock``, which the
    kernel drops when the file is closed or its process ends (``kill -9`` included), so a crashed
    game never stays locked. Raises :class:`TranscriptBusy` (``file`` closed) when it is held."""
    if fcntl is None:
        return
    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return  # a file system that cannot lock (some network mounts): go on unlocked
        file.close()
        raise TranscriptBusy(
            f"{path}: another process is playing this game and writing it (a live table of arena serve, "
            "or another arena resume); stop it first"
        ) from None


def check_idle(path: Path) -> None:
    """Raise :class:`TranscriptBusy` if a live writer holds ``path`` (nothing is changed)."""
    with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError), path.open("rb") as file:
        _lock(file, path)


def _jsonable(value: Any) -> Any:
    """``json.dumps`` fallback for what events may carry besides plain data."""
    if isinstance(value, ActionBase):
        return dump_action(value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_defaults=True)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def dumps(record: Mapping[str, Any]) -> str:
    """One transcript line (no newline)."""
    return json.dumps(record, ensure_ascii=False, default=_jsonable)


def normalise(record: Mapping[str, Any]) -> Any:
    """A record exactly as it reads back from a transcript (tuples become lists, …)."""
    return json.loads(dumps(record))


def utc_now() -> datetime:
    return datetime.now(UTC)


def transcript_path(directory: Path, variant: str, seed: int, when: datetime) -> Path:
    """``DIR/<UTC timestamp>-<variant>-<seed>.jsonl``, with ``-2``, ``-3`` … if that name is taken."""
    return unused_path(directory, f"{when.strftime('%Y%m%dT%H%M%SZ')}-{variant}-{seed}")


def unused_path(directory: Path, stem: str) -> Path:
    """``DIR/STEM.jsonl``, or ``STEM-2.jsonl``, ``-3`` … if taken: a transcript never overwrites another."""
    path = directory / f"{stem}.jsonl"
    n = 1
    while path.exists():
        n += 1
        path = directory / f"{stem}-{n}.jsonl"
    return path


def answer_counts(game: Game) -> dict[str, dict[str, int]]:
    """Per seat: settled decisions, forfeits and rejected answers, from the event log."""
    counts: dict[str, Counter[str]] = {name: Counter() for name in game.seats}
    for event in game.log:
        if event.type in ("action", "forfeit", "rejected") and event.actor in counts:
            counts[event.actor][event.type] += 1
    return {
        name: {"decisions": c["action"] + c["forfeit"], "forfeits": c["forfeit"], "rejections": c["rejected"]}
        for name, c in counts.items()
    }


def summary_record(
    game: Game, ended: datetime | None = None, usage: Mapping[str, Any] | None = None, aborted: str | None = None
) -> dict[str, Any]:
    """The last line of a finished (or, with ``aborted``, a stopped) game's transcript."""
    per_player = answer_counts(game)
    record = {
        "type": "summary",
        **game.summary(),
        "events": len(game.log),
        "decisions": sum(c["decisions"] for c in per_player.values()),
        "forfeits": sum(c["forfeits"] for c in per_player.values()),
        "rejections": sum(c["rejections"] for c in per_player.values()),
        "per_player": per_player,
        "usage": dict(usage or {}),
        "ended": (ended or utc_now()).isoformat(timespec="seconds"),
    }
    if aborted is not None:
        record["aborted"] = aborted
    return record


class TranscriptWriter:
    """Writes one game's transcript as it is played: pass it in ``observers=[writer]``.

    The header is written on creation; each call appends the new events and flushes; the
    summary is written once the game is finished. ``close()`` (or leaving the ``with`` block)
    writes any events not yet written, so that even an interrupted run keeps them all.
    """

    def __init__(
        self,
        path: Path,
        game: Game,
        players: Mapping[str, str],
        *,
        started: datetime | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        self.path = path
        self.started = started or utc_now()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] | None = path.open("x", encoding="utf-8")
        _lock(self._file, path)
        self._written = 0
        self.finished = False
        self.players: Mapping[str, object] = {}  # seat -> player, for usage totals (see track_usage)
        header = {
            "type": "header",
            "format": FORMAT,
            "variant": game.name,
            "options": game.options.model_dump(mode="json"),
            "seed": game.seed,
            "seats": list(game.seats),
            "players": {name: players.get(name, "?") for name in game.seats},
            "version": arena.__version__,
            "started": self.started.isoformat(timespec="seconds"),
            **(extra or {}),  # e.g. "clock": how a table on the wall clock ran (arena.run.wallclock)
        }
        self._file.write(dumps(header) + "\n")
        self._file.flush()

    @classmethod
    def create(
        cls, directory: Path, game: Game, players: Mapping[str, str], extra: Mapping[str, Any] | None = None
    ) -> TranscriptWriter:
        """A writer for ``game`` under its standard name in ``directory``."""
        started = utc_now()
        return cls(transcript_path(directory, game.name, game.seed, started), game, players, started=started, extra=extra)

    @classmethod
    def reopen(cls, path: Path, transcript: Transcript, written: int | None = None) -> TranscriptWriter:
        """A writer appending to an interrupted game's transcript (:mod:`arena.run.resume`): its
        header stays, events go on after the first ``written`` (default: all those recorded).
        The file must end with a whole line."""
        writer = cls.__new__(cls)
        writer.path = path
        started = transcript.header.get("started")
        try:
            writer.started = datetime.fromisoformat(started) if isinstance(started, str) else utc_now()
        except ValueError:
            writer.started = utc_now()
        writer._file = path.open("a", encoding="utf-8")
        _lock(writer._file, path)
        writer._written = len(transcript.events) if written is None else written
        writer.finished = False
        writer.players = {}
        return writer

    def track_usage(self, players: Mapping[str, object]) -> None:
        """Put each model seat's usage totals (``player.usage.as_dict()``) in the summary."""
        self.players = players

    def record_call(self, seat: str, call: dict[str, Any]) -> None:
        """Write one model call of ``seat`` (a model player's ``recorder`` calls this)."""
        if self._file is not None:
            self._file.write(dumps({"type": "call", "player": seat, "call": call}) + "\n")
            self._file.flush()

    def recorder(self, seat: str) -> Callable[[dict[str, Any]], None]:
        """The ``recorder`` to give a model seat: each call becomes a ``call`` line."""
        return functools.partial(self.record_call, seat)

    def _usage(self) -> dict[str, Any]:
        totals = {}
        for seat, player in self.players.items():
            as_dict = getattr(getattr(player, "usage", None), "as_dict", None)
            if callable(as_dict):
                totals[seat] = as_dict()
        return totals

    def __call__(self, game: Game) -> None:
        file = self._file
        if file is None:
            return
        log = game.log
        if self._written < len(log):
            file.write("".join(dumps({"type": "event", "event": e.to_dict()}) + "\n" for e in log[self._written :]))
            self._written = len(log)
        if game.finished and not self.finished:
            self.finished = True
            file.write(dumps(summary_record(game, usage=self._usage())) + "\n")
        file.flush()

    def close(self, game: Game | None = None, *, aborted: str | None = None) -> None:
        """Write what is left of ``game``'s log (if given) and close the file.

        ``aborted`` (why an unfinished game stopped) marks it in a summary, so a reader can tell
        a game someone ended from a crash.
        """
        if self._file is None:
            return
        if game is not None:
            self(game)
            if aborted is not None and not self.finished:
                self.finished = True
                self._file.write(dumps(summary_record(game, usage=self._usage(), aborted=aborted)) + "\n")
        self._file.close()
        self._file = None

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(slots=True)
class Transcript:
    """A transcript read back: ``summary`` is None for a crashed game, marked ``aborted`` for a stopped one."""

    path: Path
    header: dict[str, Any]
    events: list[dict[str, Any]]
    summary: dict[str, Any] | None
    calls: list[dict[str, Any]] = field(default_factory=list)  # {"player", "call"} per model call
    looked: list[dict[str, Any]] = field(default_factory=list)  # {"by", "at"}: the whole game shown before its end

    @property
    def persons(self) -> list[str]:
        """The seats a person played (``human`` at the terminal, ``human:NAME`` at a served table)."""
        players = self.header.get("players")
        return [str(seat) for seat, spec in (players.items() if isinstance(players, dict) else ()) if is_person(str(spec))]

    @property
    def complete(self) -> bool:
        """The game ran to its end."""
        return self.summary is not None and not self.summary.get("aborted")

    @property
    def aborted(self) -> str | None:
        """Why the game was stopped before its end, when it was (None: finished, or crashed)."""
        return None if self.summary is None else self.summary.get("aborted")


def is_person(spec: str) -> bool:
    """A seat a person played: ``human`` at the terminal, ``human:NAME`` at a served table."""
    return spec == "human" or spec.startswith("human:")


def note_look(transcript: Transcript, by: str, viewer: str | None = None) -> bool:
    """Record that ``by`` (a command) showed ``transcript`` whole (``viewer`` None: every card) or as
    another seat than its person saw it, while its game is unfinished and a person played it: that
    person may then know what the game hides, and ``arena resume`` refuses to seat them again.
    Nothing is written for a finished game, one without a person, or a person's own view (True when
    a look was recorded). A game being played is not written to: :class:`TranscriptBusy`."""
    persons = transcript.persons
    if transcript.complete or not persons or viewer in persons:
        return False
    by = by if viewer is None else f"{by} --as {viewer}"
    path = transcript.path
    try:
        with path.open("r+b") as file:
            _lock(file, path)  # TranscriptBusy while a writer plays it
            whole = file.read().rfind(b"\n") + 1  # a crash's half-written last line goes, as arena resume drops it
            file.seek(whole)
            file.truncate()
            file.write((dumps({"type": "looked", "by": by, "at": utc_now().isoformat(timespec="seconds")}) + "\n").encode())
    except OSError as exc:  # not recorded, not shown: the person could otherwise be seated again
        raise TranscriptError(f"{path}: a person's unfinished game: cannot record the look ({exc.strerror or exc})") from None
    return True


def read_transcript(path: str | Path, upto: int | None = None) -> Transcript:
    """Load a transcript (with ``upto``, its first ``upto`` bytes only, which end with a whole line);
    raises :class:`TranscriptError` with a one-line reason."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8") if upto is None else path.read_bytes()[:upto].decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TranscriptError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    lines = text.split("\n")
    cut_short = not text.endswith("\n")  # a crash can leave the last line half written
    records: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            if cut_short and number == len(lines) and records:
                break
            raise TranscriptError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(record, dict) or record.get("type") not in ("header", "event", "call", "summary", "looked"):
            raise TranscriptError(f"{path}:{number}: not a transcript record (needs type header/event/call/summary/looked)")
        records.append((number, record))
    if not records or records[0][1]["type"] != "header":
        raise TranscriptError(f"{path}: the first line must be the header")
    header = records[0][1]
    missing = [key for key in HEADER_KEYS if key not in header]
    if missing:
        raise TranscriptError(f"{path}:1: the header lacks {', '.join(missing)}")
    events: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    looked: list[dict[str, Any]] = []
    summary = None
    for number, record in records[1:]:
        kind = record["type"]
        if kind == "looked":  # written after a stopped game's summary: it may follow it
            looked.append({k: v for k, v in record.items() if k != "type"})
            continue
        if summary is not None:
            raise TranscriptError(f"{path}:{number}: a record after the summary")
        if kind == "header":
            raise TranscriptError(f"{path}:{number}: a second header")
        if kind == "summary":
            summary = record
            continue
        if kind == "call":
            calls.append({"player": record.get("player"), "call": record.get("call")})
            continue
        event = record.get("event")
        if not isinstance(event, dict) or event.get("seq") != len(events) + 1:
            raise TranscriptError(f"{path}:{number}: expected event number {len(events) + 1}")
        events.append(event)
    return Transcript(path, header, events, summary, calls, looked)
