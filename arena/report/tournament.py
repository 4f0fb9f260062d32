"""The report of a tournament database: the leaderboard, its plots, and a page for every game.

The numbers are the tournament's own (:func:`arena.tournament.leaderboard.build_report`: the skill
model's deception and detection, the paired comparisons with their p-values and power, every
metric with its bootstrap interval, the ratings) and so are the plots
(:func:`arena.tournament.plots.plot`, made to be read at the 640 pixels the page shows them),
embedded as base64 PNG so that the index stays one file. Each game links to its page, rendered
from the transcript the database points at.
"""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path
from typing import Any

import arena
from arena.report.folder import ReportError, story_page
from arena.report.html import environment
from arena.run.outcome import result_text


def _transcript(recorded: str, database: Path, folder: str | None = None) -> Path | None:
    """The transcript file of a game: in the folder the tournament wrote it to (``folder``, an
    absolute path the database keeps), else as recorded (relative to where the tournament ran),
    else beside the database (a database and its transcripts moved together)."""
    path = Path(recorded)
    candidates = [Path(folder) / path.name] if folder else []
    candidates += [path] if path.is_absolute() else [path, database.parent / path, database.parent / path.name]
    return next((p for p in candidates if p.is_file()), None)


def _beliefs(db: Any) -> dict[str, list[dict[str, Any]]]:
    """Each game's belief answers (seat, day, target, p, truth); none in a database without them."""
    import sqlite3

    out: dict[str, list[dict[str, Any]]] = {}
    try:
        rows = db.rows("SELECT game, seat, day, target, p, truth FROM beliefs ORDER BY game, seat, day, target")
    except sqlite3.Error:  # an older database: no belief table
        return out
    for row in rows:
        out.setdefault(str(row["game"]), []).append(dict(row))
    return out


def _page_name(key: str) -> str:
    return "".join(c if c.isalnum() or c in "-_~." else "_" for c in key) + ".html"


def report_database(path: Path, out: Path) -> tuple[Path, int, list[str]]:
    """Write ``out/index.html`` (leaderboard, plots, games) and ``out/games/<key>.html``.

    Returns the index, the number of games and one line per game whose page could not be made.
    """
    from arena.tournament.db import Database, DatabaseError
    from arena.tournament.leaderboard import (
        build_report,
        comparison_sections,
        difference_lines,
        ratings_table,
        skill_tables,
    )
    from arena.tournament.plots import plot

    try:
        with Database(path, create=False) as db:
            board = build_report(db)
            games = [dict(g) for g in db.games()]
            players = [dict(p) for p in db.player_games()]
            failed = [dict(a) for a in db.rows("SELECT game, transcript, started, error FROM attempts WHERE error IS NOT NULL")]
            meta = db.meta()
            beliefs = _beliefs(db)
    except DatabaseError as exc:
        raise ReportError(str(exc)) from None
    if not games:
        raise ReportError(f"{path}: no finished game yet")
    games_dir = out / "games"
    games_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="arena-plots-") as tmp:
        plots = [
            {"title": png.stem.replace("_", " "), "data": base64.b64encode(png.read_bytes()).decode("ascii")}
            for png in plot(board, Path(tmp))
        ]
    models_of: dict[str, dict[str, str]] = {}
    for p in players:
        models_of.setdefault(p["game"], {})[p["seat"]] = p["model"]
    rows: list[dict[str, Any]] = []
    missing: list[str] = []
    for game in games:
        row = dict(game)
        row["seats"] = models_of.get(game["key"], {})
        row["result"] = result_text(row.get("winner"), str(row.get("reason") or ""))  # in words, never the code
        source = _transcript(str(game["transcript"]), path, meta.get("transcripts"))
        row["link"] = ""
        if source is None:
            missing.append(f"{game['key']}: transcript {game['transcript']} not found")
        else:
            made = story_page(source, index_link="../index.html", beliefs=beliefs.get(str(game["key"])))
            if isinstance(made, str):
                missing.append(f"{game['key']}: {made}")
            else:
                name = _page_name(str(game["key"]))
                (games_dir / name).write_text(made[1], encoding="utf-8")
                row["link"] = f"games/{name}"
        rows.append(row)
    index = out / "index.html"
    html = environment().get_template("tournament.html.j2").render(
        title=f"Tournament {meta.get('name') or path.stem}", source=path.name, board=board, plots=plots,
        skills=skill_tables(board), differences=difference_lines(board), comparisons=comparison_sections(board),
        ratings=ratings_table(board),
        games=rows, failed=failed, missing=missing, version=arena.__version__,
    )  # fmt: skip
    index.write_text(html, encoding="utf-8")
    return index, len(games), missing
