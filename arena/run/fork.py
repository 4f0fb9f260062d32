"""Fork: a recorded game rebuilt up to a point, then played on with some seats' players swapped.

``arena fork TRANSCRIPT --at POINT --seat NAME=SPEC … [--seed S]``: "what if Ann had been model X
from day 2". The point is a step boundary of the recorded game:

- ``N`` (a decision number: the engine's request number, as ``data.request`` in the transcript):
  the step that asked decision N is asked again, every decision of it (a parallel step's too);
- ``day N`` / ``night N``: the first step of that day (its talk) or of the Nth night;
- ``hand N``: the first step of McKay's hand N (duel, duel3, trio).

The new transcript is written as a game cut off at that point and resumed
(:mod:`arena.run.resume`): its header is the parent's with the swapped seats' specs, ``fork``
(the parent's path, the point, the new seed, the seats swapped), ``reseeds`` (steps resolved ->
seed: from there the engine draws from the new seed; :func:`arena.run.replay.rebuild` does it
again, so ``arena replay`` of a fork is exact), ``seat_seeds`` (the swapped seats' players are
seeded with the new seed; the others with the parent's) and ``foreign`` (seat -> first request it
played itself: before it, a swapped model seat's history holds the recorded answers as its own,
as ``arena prompts`` shows them). Then the recorded events up to the point and the kept model
seats' call records before it. Rebuilding asks nobody: bots answer the recorded decisions again
(their memory ends as it was), model seats rebuild their conversation from their call records;
the bots' own random streams are seeded anew at the fork too. Then the game is played on live.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.engine import Game
from arena.run.orchestrator import Observer
from arena.run.replay import ReplayError, game_from_header, rebuild, reseeds
from arena.run.resume import PlayerFactory, Resumption, prepare_resume
from arena.run.transcript import Transcript, TranscriptError, dumps, read_transcript, unused_path, utc_now

__all__ = ["Boundary", "ForkError", "ForkPoint", "boundaries", "fork", "locate", "parse_point", "write_fork"]

#: the phases of a night, in every variant (their decisions are the night's)
NIGHT_PHASES = frozenset(("night", "mafia_channel", "channel", "night_roles"))


class ForkError(ValueError):
    """A fork that cannot be made (no such point, no such seat, an unreadable parent): one line."""


@dataclass(slots=True, frozen=True)
class Boundary:
    """A step boundary of a recorded game: ``steps`` resolved, ``events`` in the log, the step asked next."""

    steps: int
    events: int
    requests: tuple[int, ...]
    day: int
    phase: str
    night: bool


@dataclass(slots=True, frozen=True)
class ForkPoint:
    """Where a fork starts: the boundary, and how it was named (``day 2``, ``decision 14``)."""

    boundary: Boundary
    label: str

    @property
    def request(self) -> int:
        return self.boundary.requests[0]


def parse_point(text: str) -> tuple[str, int]:
    """``14`` -> ("decision", 14); ``day 2`` -> ("day", 2); ``night 1``, ``hand 3`` alike."""
    words = text.strip().lower().replace("=", " ").split()
    if len(words) == 1 and words[0].isdigit():
        words = ["decision", words[0]]
    if len(words) == 2 and words[0] in ("decision", "day", "night", "hand") and words[1].isdigit() and int(words[1]) >= 1:
        return words[0], int(words[1])
    raise ForkError(f"--at {text!r}: give a decision number (14), 'day N', 'night N' or 'hand N'")


def boundaries(transcript: Transcript) -> list[Boundary]:
    """Every step boundary of the recorded game where a step was asked (not the end)."""
    out: list[Boundary] = []

    def at(game: Game) -> None:
        pending = game.pending()
        if game.finished or not pending:
            return
        night = any(str(r.phase) in NIGHT_PHASES for r in pending)
        out.append(Boundary(len(out), len(game.log), tuple(r.id for r in pending), game.day, str(game.phase), night))

    start = game_from_header(transcript.header)
    at(start)
    rebuild(transcript, game=start, resolved=at)
    return out


def _is_mckay(header: Mapping[str, Any]) -> bool:
    return str(header.get("variant")) in ("duel", "duel3", "trio")


def locate(transcript: Transcript, point: str) -> ForkPoint:
    """The boundary ``point`` names in ``transcript`` (see the module docstring)."""
    kind, number = parse_point(point)
    try:
        steps = boundaries(transcript)
    except ReplayError as exc:
        raise ForkError(f"{transcript.path}: {exc}") from None
    if not steps:
        raise ForkError(f"{transcript.path}: the game asked nothing: there is no point to fork at")
    mckay = _is_mckay(transcript.header)
    if kind == "decision":
        for b in steps:
            if number in b.requests:
                where = f"hand {b.day}" if mckay else f"day {b.day}, {b.phase}"
                return ForkPoint(b, f"decision {number} ({where})")
        last = max(r for b in steps for r in b.requests)
        raise ForkError(f"{transcript.path}: no decision {number} was asked (decisions 1–{last})")
    if (kind == "hand") != mckay:
        wanted = "hand N" if mckay else "day N or night N"
        raise ForkError(f"--at {point}: a {transcript.header.get('variant')} game is forked at {wanted} (or a decision number)")
    if kind == "night":
        nights: list[Boundary] = []
        for i, b in enumerate(steps):
            if b.night and (i == 0 or not steps[i - 1].night):
                nights.append(b)
        if number <= len(nights):
            return ForkPoint(nights[number - 1], f"night {number}")
        raise ForkError(f"{transcript.path}: the game has {len(nights)} night(s) with decisions, not {number}")
    for b in steps:
        if b.day == number and (mckay or not b.night):
            return ForkPoint(b, f"{kind} {number}")
    days = max(b.day for b in steps)
    raise ForkError(f"{transcript.path}: no {kind} {number} with decisions (the game has {days})")


def write_fork(
    parent: Transcript,
    point: ForkPoint,
    swapped: Mapping[str, str],
    seed: int,
    out: Path,
    *,
    player_seed: int | None = None,
) -> Path:
    """Write the fork's transcript up to ``point`` (header, recorded events, kept model seats'
    calls before it); :func:`prepare_resume` then rebuilds and plays it on."""
    header = {k: v for k, v in parent.header.items() if k not in ("type", "tournament", "fork")}
    seats = [str(s) for s in header["seats"]]
    unknown = sorted(set(swapped) - set(seats))
    if unknown:
        raise ForkError(f"no seat {', '.join(unknown)} at this table (seats: {', '.join(seats)})")
    b = point.boundary
    old_seed = int(header.get("player_seed", header["seed"])) if player_seed is None else player_seed
    header["player_seed"] = old_seed
    header["players"] = {**dict(header["players"]), **swapped}
    structured = {k: v for k, v in dict(header.get("structured") or {}).items() if k not in swapped}
    header.pop("structured", None)
    if structured:
        header["structured"] = structured
    header["started"] = utc_now().isoformat(timespec="seconds")
    earlier = {k: v for k, v in reseeds(parent.header).items() if k < b.steps}
    header["reseeds"] = [[k, v] for k, v in sorted({**earlier, b.steps: seed}.items())]
    header["seat_seeds"] = {**dict(parent.header.get("seat_seeds") or {}), **dict.fromkeys(swapped, seed)}
    header["foreign"] = {**dict(parent.header.get("foreign") or {}), **dict.fromkeys(swapped, point.request)}
    header["fork"] = {
        "parent": str(parent.path),
        "at": point.label,
        "steps": b.steps,
        "events": b.events,
        "request": point.request,
        "seed": seed,
        "seats": dict(swapped),
    }
    lines = [dumps({"type": "header", **header})]
    lines += [dumps({"type": "event", "event": e}) for e in parent.events[: b.events]]
    for entry in parent.calls:
        call = entry.get("call")
        if entry.get("player") in swapped or not isinstance(call, dict):
            continue
        if isinstance(call.get("request"), int) and call["request"] < point.request:
            lines.append(dumps({"type": "call", "player": entry.get("player"), "call": call}))
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("x", encoding="utf-8") as file:
        file.write("\n".join(lines) + "\n")
    return out


def fork(
    path: str | Path,
    at: str,
    swapped: Mapping[str, str],
    *,
    seed: int | None = None,
    out: Path | None = None,
    folder: Path | None = None,
    players: Mapping[str, Any] | None = None,
    factory: PlayerFactory | None = None,
    player_kwargs: Mapping[str, Mapping[str, Any]] | None = None,
    player_seed: int | None = None,
    observers: Sequence[Observer] = (),
) -> Resumption:
    """Rebuild the game of ``path`` up to ``at`` and seat it to play on; nothing is played yet.

    ``swapped``: seat -> the spec that plays it from the fork (the rest as recorded); ``players``:
    seat -> a ready player (a person's seat, a scripted stand-in), as :func:`prepare_resume` takes
    them. ``seed`` (default: a random one) seeds what is random from the fork on. The transcript
    goes to ``out``, else ``FOLDER/<parent>-fork-<n>.jsonl`` (default folder: the parent's). Play it
    with :meth:`Resumption.play` or ``await`` :meth:`Resumption.run`. Raises :class:`ForkError`.
    """
    from arena.run.resume import ResumeError

    path = Path(path)
    try:
        parent = read_transcript(path)
    except TranscriptError as exc:
        raise ForkError(str(exc)) from None
    point = locate(parent, at)
    seed = random.SystemRandom().randrange(1_000_000) if seed is None else seed
    if out is None:
        out = unused_path(folder or path.parent, f"{path.stem}-fork")
    write_fork(parent, point, swapped, seed, out, player_seed=player_seed)
    try:
        return prepare_resume(out, players, observers=observers, factory=factory, player_kwargs=player_kwargs, retry_outage=False)
    except ResumeError as exc:
        out.unlink(missing_ok=True)
        raise ForkError(str(exc)) from None
