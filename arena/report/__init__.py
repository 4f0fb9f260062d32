"""Reading games: HTML reports (one game, an index over a folder, a tournament) and the terminal viewer.

``arena report`` and ``arena show`` call :func:`report` and :func:`arena.report.show.show`; both
read a transcript through :mod:`arena.report.story`. Errors a user can fix (a missing file, a
corrupt transcript, an unknown seat) are :class:`ReportError` / ``ShowError`` with one line.
"""

from __future__ import annotations

import sys
from pathlib import Path

from arena.report.folder import ReportError, report_folder
from arena.report.html import render_game
from arena.run.transcript import TranscriptError, note_look, read_transcript

__all__ = ["ReportError", "report"]

SQLITE_MAGIC = b"SQLite format 3\x00"


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def _warn(lines: list[str]) -> None:
    """One line on stderr per game left without a page; the others are written all the same."""
    for line in lines:
        print(f"warning: skipped {line}", file=sys.stderr)


def report(path: Path, out: Path | None = None, viewer: str | None = None) -> str:
    """Write the report of a transcript (one page), a folder of them or a tournament database
    (index + pages); returns the line to print.

    With ``viewer``, the page of one seat of one transcript, built from that seat's view alone
    (``FILE.NAME.html`` beside the transcript unless ``out`` says where).
    """
    if viewer is not None and (path.is_dir() or _is_sqlite(path)):
        raise ReportError(f"{path}: --as makes one seat's page of one transcript, not of a folder or a tournament")
    if path.is_dir():
        target = out or path / "report"
        _, games, skipped = report_folder(path, target)
        _warn(skipped)
        line = f"{target / 'index.html'} ({games} game{'s' if games != 1 else ''}"  # the path as the user gave it
        return line + (f"; {len(skipped)} unreadable file(s) listed on the index)" if skipped else ")")
    if not path.exists():
        raise ReportError(f"{path}: no such file or folder")
    if _is_sqlite(path):
        from arena.report.tournament import report_database

        target = out or path.with_name(f"{path.stem}-report")
        _, games, missing = report_database(path, target)
        _warn(missing)
        line = f"{target / 'index.html'} ({games} game{'s' if games != 1 else ''}"
        return line + (f"; {len(missing)} without a page, listed on the index)" if missing else ")")
    try:
        transcript = read_transcript(path)
    except TranscriptError as exc:
        raise ReportError(str(exc)) from None
    seats = [str(s) for s in transcript.header.get("seats") or []]
    if viewer is not None and viewer not in seats:
        raise ReportError(f"there is no seat named {viewer!r}; seats: {', '.join(seats)}")
    try:  # more than its person saw of a person's unfinished game: the transcript says so, and it is not resumed
        note_look(transcript, "arena report", viewer)
    except TranscriptError as exc:
        raise ReportError(f"{exc} (--as NAME writes what that person saw)") from None
    target = out or path.with_suffix(f".{viewer}.html" if viewer else ".html")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_game(transcript, viewer=viewer), encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"cannot write {target}: {exc.strerror or exc}") from None
    return str(target)
