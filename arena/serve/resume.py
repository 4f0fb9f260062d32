"""Tables that stopped with their server (a restart, a crash) go on where they were.

A table whose transcript has no summary was interrupted; on start the server rebuilds its game
from the transcript's recorded answers and plays on (:func:`resume_table`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.engine import RulesError
from arena.players.web import WebSeat
from arena.run.resume import ResumeError, prepare_resume
from arena.run.transcript import TranscriptError, read_transcript
from arena.serve.people import DEFAULT_START_WAIT, left_after_restart
from arena.serve.tables import PERSON, Seat, Table, TableError


class Relay:
    """The table's observer (log changes and beats), bound once the table exists."""

    def __init__(self) -> None:
        self.table: Table | None = None

    def __call__(self, game: Any) -> None:
        if self.table is not None:
            self.table(game)

    def beat_started(self, beat: Any) -> None:
        if self.table is not None:
            self.table.beat_started(beat)

    async def hold(self, game: Any) -> None:
        if self.table is not None:
            await self.table.hold(game)

    async def before_resolve(self, game: Any, pending: Any, decisions: Any) -> None:
        if self.table is not None:
            await self.table.before_resolve(game, pending, decisions)


def unfinished(data: Path) -> Iterator[dict[str, Any]]:
    """The records of the data folder's tables whose game has neither ended nor been stopped."""
    for path in sorted((data / "tables").glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            transcript = read_transcript(data / "transcripts" / f"{record['id']}.jsonl")
        except (OSError, json.JSONDecodeError, KeyError, TypeError, TranscriptError):
            continue
        if transcript.summary is None:
            yield record


def resume_table(record: dict[str, Any], data: Path) -> Table:
    """Rebuild the table of ``record`` from its transcript (nobody is asked again) and play on.

    Its person seats are new :class:`WebSeat` players behind the same token hashes, so the links
    handed out before the restart keep working; every other seat is rebuilt from its spec by
    :func:`arena.run.resume.prepare_resume` (a bot's memory and a model's conversation come back).
    """
    try:
        seats = [Seat(s["name"], s["spec"], s.get("person"), s.get("token_sha256")) for s in record["seats"]]
        timeout = record.get("timeout")
        beat_seconds = float(record["beat_seconds"])
        pace = float(record.get("pace", 0))
        night_seconds = float(record.get("night_seconds", 0))
        table_id = str(record["id"])
    except (KeyError, TypeError, ValueError) as exc:
        raise TableError(500, f"table record: {exc}") from None
    seed = int(record.get("seed", 0))
    clocks = record.get("clocks") or {}
    persons = {}
    for seat in seats:
        if seat.spec == PERSON:
            clock = clocks.get(seat.name)  # the time the person's open decision had left
            try:
                left = {int(clock["request"]): left_after_restart(clock, bool(clock.get("stopped")))} if clock else None
            except (KeyError, TypeError, ValueError):
                left = None  # a damaged entry: the full time
            persons[seat.name] = WebSeat(
                seat.name, seat.person, timeout=None if timeout is None else float(timeout), seed=seed, left=left
            )
    path = data / "transcripts" / f"{table_id}.jsonl"
    relay = Relay()  # the table is built from the rebuilt game: its observer binds late
    try:
        resumption = prepare_resume(path, persons, observers=[relay])
    except (ResumeError, RulesError) as exc:
        raise TableError(500, str(exc)) from None
    table = Table(
        table_id,
        resumption.game,
        seats,
        data,
        timeout=timeout,
        beat_seconds=beat_seconds,
        pace=pace,
        night_seconds=night_seconds,
        created=record.get("created"),
        start_wait=record.get("start_wait", DEFAULT_START_WAIT),
        started=bool(record.get("started", True)),
    )
    table.owner_sha256 = record.get("owner_sha256")
    relay.table = table
    for web in persons.values():
        web.on_change = table.changed
    table.persons = persons
    table.players = resumption.players
    table.writer = resumption.writer
    table.clock = resumption.clock
    table.resumed = resumption.notes()
    table.open_gate()  # a table that had not started yet waits for its people again
    table.launch(table._play(resumption.run()))
    return table
