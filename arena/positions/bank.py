"""A bank of positions: the decision points of recorded games whose answer the truth can score.

``arena positions build SOURCE -o BANK.jsonl`` walks every game of SOURCE (a folder of transcripts
or a tournament database) and keeps, of the team variants (classic, cove, village):

- **detection**: a town seat's decision that names a seat with a mafia seat among its legal
  choices — an accusation or nomination in its speech (``accuse``, ``nominate``), a ballot
  (``vote``), a night check (``check``) — a verdict on an accused seat (``verdict``), and a belief
  (``belief``): at the start of a day, the seat's percentages that each other living seat is mafia,
  where a source transcript recorded a tournament's belief probe for the seat (or, with
  ``beliefs=True``, at every day's start for every living town seat: bot games record none);
- **deception**: a mafia seat's public day speech (``speech``; its claim and accusation with it).

One JSON line per position (the format is in docs/positions.md). A row holds what the seat itself
knows and nothing else: where the position is (its game, the seat, the decision's request number,
the step and the events before it), the seat's own role, the legal choices and the seat's recorded
answer. Who the mafia are is *not* in the row: the scorer reads it from the game itself, which the
player never sees (it sees the seat's view only, rebuilt from the game as ``arena prompts`` does).
``weight`` says how much a kind of position tells two players apart (bots measured: an accusation
or a check much more than a verdict), and the bank is ordered game by game, decision by decision,
so positions that share a game's prefix run together and share a model's prompt cache.
"""

from __future__ import annotations

import gzip
import json
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import Game
from arena.engine.events import PUBLIC
from arena.run.replay import ReplayError, game_from_header, rebuild
from arena.run.transcript import Transcript, TranscriptError, read_transcript

FORMAT = 1
TEAM_VARIANTS = ("classic", "cove", "village")
DETECTION, DECEPTION = "detection", "deception"
#: what a kind of position carries, as its weight in a game's mean (docs/positions.md, *What each
#: kind carries*: on bots, a town verdict tells two players apart far less per position than an
#: accusation; with a fork's eight play-ons a mafia speech as well as a mafia ballot)
WEIGHTS = {
    DETECTION: {"accuse": 1.0, "nominate": 1.0, "check": 1.0, "vote": 0.5, "verdict": 0.25, "belief": 1.0},
    DECEPTION: {"verdict": 1.0, "vote": 1.0, "speech": 1.0},
}
#: every kind of position (``--what``)
WHATS = ("accuse", "nominate", "check", "vote", "verdict", "belief", "speech")
BELIEF = "belief"
#: (position, option kind, field) of a town seat's decisions that name a seat
DETECTING = (
    ("accuse", "speak", "accuse"),
    ("nominate", "speak", "nominate"),
    ("vote", "vote", "target"),
    ("check", "check", "target"),
)
#: the small bank shipped with the package: classic, cove and village games of bots
SHIPPED = Path(__file__).parent / "data" / "bank.jsonl"


class BankError(ValueError):
    """A source or a bank that cannot be read (one line)."""


@dataclass(slots=True)
class Position:
    """One position of the bank (one JSON line)."""

    id: str
    kind: str  # detection or deception
    what: str  # accuse, nominate, vote, check, verdict, belief, speech
    game: str  # the game's transcript, relative to the bank's folder (or absolute)
    variant: str
    seat: str
    role: str  # the seat's own role (it knows it)
    request: int  # the decision's request number in the game (a belief: the next decision's, asked after it)
    step: int  # steps resolved before it
    events: int  # events in the log before its step was answered
    day: int
    phase: str
    legal: list[str] = field(default_factory=list)  # the seats it may name (a verdict: the accused; a belief: the candidates)
    weight: float = 1.0
    recorded: dict[str, Any] | None = None  # the seat's own recorded answer (a belief: {"percent": {seat: 0-100}})

    def row(self) -> dict[str, Any]:
        return {"format": FORMAT, **asdict(self)}

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Position:
        fields = {k: row[k] for k in cls.__slots__ if k in row}  # type: ignore[attr-defined]
        return cls(**fields)

    @property
    def game_key(self) -> str:
        return self.id.rsplit("#", 1)[0]


def load_game(path: Path) -> Transcript:
    """A transcript, also gzipped (``.jsonl.gz``: the shipped bank's games)."""
    if path.suffix != ".gz":
        return read_transcript(path)
    try:
        text = gzip.decompress(path.read_bytes())
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    with tempfile.TemporaryDirectory() as folder:
        plain = Path(folder) / path.stem
        plain.write_bytes(text)
        transcript = read_transcript(plain)
    transcript.path = path
    return transcript


def _recorded(transcript: Transcript) -> dict[int, dict[str, Any]]:
    """Each settled decision's recorded action, by request number."""
    out: dict[int, dict[str, Any]] = {}
    for event in transcript.events:
        data = event.get("data") or {}
        if event.get("type") in ("action", "forfeit") and isinstance(data.get("request"), int):
            out[data["request"]] = data.get("action")
    return out


def _choices(request: Any, kind: str, name: str) -> list[str]:
    option = request.option(kind)
    spec = option.fields.get(name) if option is not None else None
    return [str(c) for c in (spec.choices or ())] if spec is not None else []


def recorded_beliefs(transcript: Transcript) -> dict[tuple[str, int], dict[str, Any]]:
    """The belief probes a transcript recorded (a tournament's ``belief_call``): (seat, day) ->
    ``{"candidates": [...], "percent": {seat: 0-100} or None}`` (None: asked, no usable answer)."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for entry in transcript.calls:
        call = entry.get("call")
        if not isinstance(call, dict) or call.get("type") != "belief_call":
            continue
        beliefs = call.get("beliefs")
        percent = {str(k): round(float(v) * 100) for k, v in beliefs.items()} if isinstance(beliefs, dict) and beliefs else None
        out[str(entry.get("player")), int(call.get("day") or 0)] = {
            "candidates": [str(c) for c in call.get("candidates") or ()], "percent": percent,
        }  # fmt: skip
    return out


def positions_of(transcript: Transcript, game: str, *, beliefs: bool = False) -> list[Position]:
    """The positions of one recorded game (``game``: how the bank names its file). Belief positions
    where the transcript recorded a belief probe of a town seat; with ``beliefs``, also at every
    day's start for every living town seat (the probe's points: bot games record no probe)."""
    variant = str(transcript.header.get("variant"))
    if variant not in TEAM_VARIANTS:
        return []
    recorded = _recorded(transcript)
    probes = recorded_beliefs(transcript)
    key = game.removesuffix(".gz").removesuffix(".jsonl")
    out: list[Position] = []
    steps = 0  # the boundary: steps resolved before the step asked now
    seen = 0  # events read for the days' starts

    def at(g: Game) -> None:
        nonlocal steps, seen
        where = {"game": game, "variant": variant}
        if not g.finished:
            for event in g.log[seen:]:
                if event.type == "day":
                    out.extend(_beliefs(g, event, steps, key, where, probes, beliefs))
            out.extend(_found(g, steps, key, where, recorded))
        seen = len(g.log)
        steps += 1

    start = game_from_header(transcript.header)
    at(start)
    rebuild(transcript, game=start, resolved=at)
    return out


def _beliefs(
    g: Game, event: Any, steps: int, key: str, where: dict[str, Any], probes: dict[tuple[str, int], Any], every: bool
) -> list[Position]:
    """The belief positions of a day's start: the town seats the probe asked (or every living one)."""
    alive = [str(s) for s in event.data.get("alive") or g.alive]
    pending = [r.id for r in g.pending()]
    out = []
    for seat in alive:
        probe = probes.get((seat, event.day))
        if g.team(seat) != "town" or (probe is None and not every):
            continue  # a mafia seat's probe is never a detection position: it knows the answer
        candidates = probe["candidates"] if probe is not None else [c for c in alive if c != seat]
        if not any(g.team(c) == "mafia" for c in candidates if c in g.role_of):
            continue
        recorded = {"percent": probe["percent"]} if probe is not None and probe["percent"] else None
        request = min(pending, default=0)
        position = Position(
            f"{key}#{request}:belief:{seat}", DETECTION, BELIEF, where["game"], where["variant"], seat, g.role_of[seat],
            request, steps, len(g.log), event.day, "day", candidates, WEIGHTS[DETECTION][BELIEF], recorded,
        )  # fmt: skip
        out.append(position)
    return out


def _public_vote(request: Any) -> bool:
    """A ballot the table sees: a vote or a verdict in the day (not the mafia's night choice)."""
    return (request.option("vote") is not None or request.option("verdict") is not None) and "night" not in str(request.phase)


def _found(g: Game, steps: int, key: str, where: dict[str, Any], recorded: dict[int, Any]) -> list[Position]:
    """The positions of the step ``g`` asks now."""
    out = []
    for request in g.pending():
        seat = request.player
        base = {
            **where, "seat": seat, "role": g.role_of[seat], "request": request.id, "step": steps, "events": len(g.log),
            "day": g.day, "phase": str(request.phase), "recorded": recorded.get(request.id),
        }  # fmt: skip
        team = g.team(seat)
        if team == "town":
            for what, kind, name in DETECTING:
                legal = _choices(request, kind, name)
                if any(g.team(s) == "mafia" for s in legal if s in g.role_of):
                    out.append(
                        Position(
                            f"{key}#{request.id}:{what}", DETECTION, what, legal=legal, weight=WEIGHTS[DETECTION][what], **base
                        )
                    )
            accused = request.info.get("accused")
            if request.option("verdict") is not None and isinstance(accused, str) and accused != seat:
                weight = WEIGHTS[DETECTION]["verdict"]
                out.append(Position(f"{key}#{request.id}:verdict", DETECTION, "verdict", legal=[accused], weight=weight, **base))
        elif team == "mafia" and request.option("speak") is not None and request.talk == PUBLIC:
            out.append(Position(f"{key}#{request.id}:speech", DECEPTION, "speech", weight=WEIGHTS[DECEPTION]["speech"], **base))
        elif team == "mafia" and _public_vote(request):
            what = "verdict" if request.option("verdict") is not None else "vote"
            out.append(Position(f"{key}#{request.id}:{what}", DECEPTION, what, weight=WEIGHTS[DECEPTION][what], **base))
    return out


def _sources(source: Path) -> Iterator[tuple[Path, str]]:
    """(transcript file, name it gets in a bank) for each game of ``source``."""
    if source.is_dir():
        for path in sorted([*source.rglob("*.jsonl"), *source.rglob("*.jsonl.gz")]):
            yield path, path.relative_to(source).as_posix()
        return
    if source.suffix in (".sqlite", ".db", ".sqlite3"):
        try:
            db = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
            rows = db.execute("SELECT transcript FROM games ORDER BY rowid").fetchall()
            db.close()
        except sqlite3.Error as exc:
            raise BankError(f"{source}: not a tournament database ({exc})") from None
        for (recorded,) in rows:
            path = Path(str(recorded))
            for candidate in (path, source.parent / path, source.parent / path.name):
                if candidate.is_file():
                    yield candidate, str(candidate.resolve())
                    break
        return
    if source.is_file():
        yield source, source.name
        return
    raise BankError(f"{source}: no such folder, transcript or tournament database")


@dataclass(slots=True)
class Built:
    positions: list[Position]
    games: int
    skipped: list[str]


def build(
    source: Path, out: Path | None = None, kinds: Iterable[str] = (DETECTION, DECEPTION), *, beliefs: bool = False
) -> Built:
    """The positions of every finished game of ``source``; game paths are written relative to
    ``out``'s folder when they can be (a bank and its games move together). ``beliefs``: a belief
    position at every day's start for every living town seat, not only where a probe was recorded."""
    wanted = set(kinds)
    positions: list[Position] = []
    skipped: list[str] = []
    games = 0
    for path, _ in _sources(source):
        try:
            transcript = load_game(path)
        except TranscriptError as exc:
            skipped.append(str(exc))
            continue
        if not transcript.complete:
            skipped.append(f"{path}: not a finished game")
            continue
        name = _relative(path, out.parent if out is not None else Path.cwd())
        try:
            found = [p for p in positions_of(transcript, name, beliefs=beliefs) if p.kind in wanted]
        except ReplayError as exc:
            skipped.append(f"{path}: {exc}")
            continue
        games += 1
        positions.extend(found)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", encoding="utf-8") as file:
            for p in positions:
                file.write(json.dumps(p.row(), ensure_ascii=False) + "\n")
    return Built(positions, games, skipped)


def _relative(path: Path, folder: Path) -> str:
    try:
        return path.resolve().relative_to(folder.resolve()).as_posix()
    except ValueError:
        import os

        try:
            return os.path.relpath(path.resolve(), folder.resolve())
        except ValueError:  # another drive
            return str(path.resolve())


def numbered_lines(path: Path, error: type[Exception], noun: str) -> list[tuple[int, str]]:
    """A JSON-lines file's non-blank lines with their line numbers; ``error`` with one line when the
    file is missing ("no such NOUN") or cannot be read (a bank, a run)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise error(f"{path}: no such {noun}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    return [(number, line) for number, line in enumerate(lines, 1) if line.strip()]


def load_bank(path: Path | None = None) -> list[Position]:
    """The bank's positions in order (default: the shipped bank)."""
    path = SHIPPED if path is None else path
    out = []
    for number, line in numbered_lines(path, BankError, "bank"):
        try:
            row = json.loads(line)
            out.append(Position.from_row(row))
        except (json.JSONDecodeError, TypeError, KeyError) as exc:
            raise BankError(f"{path}:{number}: not a position ({exc})") from None
    if not out:
        raise BankError(f"{path}: the bank holds no position")
    return out


def game_path(bank: Path | None, position: Position) -> Path:
    """Where a position's game is: relative to the bank's folder, or absolute."""
    path = Path(position.game)
    if path.is_absolute():
        return path
    return (SHIPPED if bank is None else bank).parent / path


class Games:
    """The games of a bank, each read once (positions of one game run together)."""

    def __init__(self, bank: Path | None) -> None:
        self.bank = bank
        self._cache: dict[str, Transcript] = {}

    def __call__(self, position: Position) -> Transcript:
        key = position.game
        if key not in self._cache:
            if len(self._cache) > 8:
                self._cache.clear()
            path = game_path(self.bank, position)
            try:
                self._cache[key] = load_game(path)
            except TranscriptError as exc:
                raise BankError(str(exc)) from None
        return self._cache[key]
