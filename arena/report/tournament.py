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
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import arena
from arena.report.charts import tournament_charts
from arena.report.export import games_filter, write_table, write_tables
from arena.report.folder import ReportError, story_page
from arena.report.html import environment, render_story
from arena.report.pairs import pair_key, pairs_of
from arena.report.usage import money, price_unknown
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


def _winners(players: list[dict[str, Any]]) -> dict[str, str]:
    """game -> the model(s) that won it ("bot2"; "" for a draw): the seats that scored a full win."""
    out: dict[str, list[str]] = {}
    for p in players:
        names = out.setdefault(p["game"], [])
        if float(p["result"] or 0) >= 1.0 and p["model"] not in names:
            names.append(p["model"])
    return {game: ", ".join(names) for game, names in out.items()}


def write_pairs(out: Path, rows: list[dict[str, Any]], stories: dict[str, Any]) -> dict[str, str]:
    """``out/pairs/<pair>.html`` for every mirrored pair with both pages; returns pair key -> link from the index."""
    from arena.report.pairs import divergence

    links: dict[str, str] = {}
    folder = out / "pairs"
    for key, (a, b) in pairs_of(rows).items():
        if str(a["key"]) not in stories or str(b["key"]) not in stories:
            continue
        sa, sb = stories[str(a["key"])], stories[str(b["key"])]
        shown = [
            {
                "key": g["key"],
                "link": f"../{g['link']}",
                "sides": s.pairing_line(),
                "won_by": g.get("won_by", ""),
                "result": g["result"],
            }
            for g, s in ((a, sa), (b, sb))
        ]
        html = (
            environment()
            .get_template("pair.html.j2")
            .render(
                title=f"Pair {key}", seed=a["seed"], games=shown, d=divergence(sa.events, sb.events), version=arena.__version__
            )
        )
        folder.mkdir(parents=True, exist_ok=True)
        name = _page_name(key)
        (folder / name).write_text(html, encoding="utf-8")
        links[key] = f"pairs/{name}"
    return links


def docs_link() -> str | None:
    """docs/tournaments.md of the source tree this arena runs from, as a file link (the report is a
    local page too); None when the docs are not there (an installed wheel)."""
    import arena

    path = Path(arena.__file__).resolve().parent.parent / "docs" / "tournaments.md"
    return path.as_uri() if path.is_file() else None


def _variant_of(title: str, variants: set[str]) -> str | None:
    """The variant a leaderboard table is about, from its title ("classic, mafia side"), or None for all."""
    head = re.split(r"[,:( ]", title.removeprefix("Skill model, "), maxsplit=1)[0]
    return head if head in variants else None


def _page_name(key: str) -> str:
    return "".join(c if c.isalnum() or c in "-_~." else "_" for c in key) + ".html"


def report_database(path: Path, out: Path) -> tuple[Path, int, list[str]]:
    """Write ``out/index.html`` (leaderboard, plots, games) and ``out/games/<key>.html``.

    Returns the index, the number of games and one line per game whose page could not be made.
    """
    from arena.tournament.db import Database, DatabaseError
    from arena.tournament.inference import ALL_VARIANTS
    from arena.tournament.leaderboard import (
        DIFFERENCES_TITLE,
        METRICS_NOTE,
        SIDE_LEGEND,
        UNPAIRED_NOTE,
        build_report,
        comparison_sections,
        difference_lines,
        groups,
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
    sides_of: dict[str, dict[str, str]] = {}
    for p in players:
        models_of.setdefault(p["game"], {})[p["seat"]] = p["model"]
        sides_of.setdefault(p["game"], {}).setdefault(str(p["side"]), p["model"])
    won_by = _winners(players)
    tokens = {(p["game"], p["seat"]): int(p["input_tokens"] or 0) + int(p["output_tokens"] or 0) for p in players}
    unpriced = {p["game"] for p in players if price_unknown(p["spec"], tokens[(p["game"], p["seat"])], p["cost"])}
    rows: list[dict[str, Any]] = []
    missing: list[str] = []
    stories: dict[str, Any] = {}
    mirror_of: dict[str, str] = {}  # game key -> its mirror's key (both games of a pair finished)
    for both in pairs_of(games).values():
        mirror_of[str(both[0]["key"])], mirror_of[str(both[1]["key"])] = str(both[1]["key"]), str(both[0]["key"])
    for game in games:
        row = dict(game)
        row["seats"] = models_of.get(game["key"], {})
        row["result"] = result_text(row.get("winner"), str(row.get("reason") or ""))  # in words, never the code
        row["won_by"] = won_by.get(game["key"], "")
        unknown = game["key"] in unpriced
        row["cost_text"] = money(float(row.get("cost") or 0), unknown) if row.get("cost") or unknown else ""
        source = _transcript(str(game["transcript"]), path, meta.get("transcripts"))
        row["link"] = ""
        if source is None:
            missing.append(f"{game['key']}: transcript {game['transcript']} not found")
        else:
            known = {
                "key": game["key"], "round": game["round"], "pairing": game["pairing"],
                "entrants": models_of.get(game["key"], {}), "sides": sides_of.get(game["key"], {}),
            }  # fmt: skip
            mirror = mirror_of.get(str(game["key"]))
            made = story_page(
                source, index_link="../index.html", beliefs=beliefs.get(str(game["key"])), tournament=known,
                transcript_link=os.path.relpath(source.resolve(), games_dir.resolve()),
                mirror_link=_page_name(mirror) if mirror else "",
                pair_link=f"../pairs/{_page_name(pair_key(str(game['key'])))}" if mirror else "",
            )  # fmt: skip
            row["transcript_link"] = os.path.relpath(source.resolve(), out.resolve())
            if isinstance(made, str):
                missing.append(f"{game['key']}: {made}")
            else:
                stories[str(game["key"])] = made[0]
                name = _page_name(str(game["key"]))
                (games_dir / name).write_text(made[1], encoding="utf-8")
                row["result"] = made[0].result  # the page's own words for the ending, with its counts
                row["link"] = f"games/{name}"
        rows.append(row)
    pair_links = write_pairs(out, rows, stories)
    for row in rows:
        row["pair"] = pair_links.get(pair_key(str(row["key"])), "")
        if row["link"] and str(row["key"]) in mirror_of and not row["pair"]:  # its mirror has no page: no links to it
            story = stories[str(row["key"])]
            (out / row["link"]).write_text(
                render_story(story, source=Path(str(row["transcript"])).name, index_link="../index.html",
                             transcript_link=os.path.relpath(out / str(row["transcript_link"]), games_dir)),
                encoding="utf-8",
            )  # fmt: skip
    index = out / "index.html"
    charts = tournament_charts(players, games)
    variants = {str(g["variant"]) for g in games}
    skills = [
        (title, header, body, [games_filter(model=r[0], variant=_variant_of(title, variants)) for r in body])
        for title, header, body in skill_tables(board)
    ]
    comparisons = []
    for (title, header, body, line), (pairing, variant, _) in zip(comparison_sections(board), groups(board), strict=True):
        pair = "~".join(sorted(p.strip() for p in pairing.split(" − ")))
        shown_variant = None if variant == ALL_VARIANTS else variant
        link = games_filter(pairing=pair, variant=shown_variant)
        pairs = [
            (r["key"].rsplit("/", 1)[0], r["pair"])
            for r in rows
            if r.get("pair") and r["pairing"] == pair and (shown_variant is None or r["variant"] == shown_variant)
        ]
        comparisons.append((title, header, body, line, link, list(dict.fromkeys(pairs))))
    metrics = [
        (title, header, body, [games_filter(model=r[0], variant=_variant_of(title, variants)) for r in body])
        for title, header, body in [*board.tables, ratings_table(board)]
    ]
    columns = ["game", "variant", "players", "round", "seed", "pairing", "side A", "side B", "winner", "result", "days", "cost"]
    exports = {
        "games": write_table(out, "games", columns, [
            [r["key"], r["variant"], r["players"], r["round"], r["seed"], r["pairing"], r["first"], r["second"],
             r.get("won_by", ""), r["result"] if r.get("winner") is not None else "", r.get("days"),
             None if r["key"] in unpriced else r.get("cost")]  # a seat without prices: unknown (null), not 0
            for r in rows
        ]),
        "leaderboard": write_tables(out, "leaderboard", [
            *[(t, h, b) for t, h, b, _ in skills], *[(t, h, b) for t, h, b, *_ in comparisons],
            *[(t, h, b) for t, h, b, _ in metrics],
        ]),
    }  # fmt: skip
    html = environment().get_template("tournament.html.j2").render(
        title=f"Tournament {meta.get('name') or path.stem}", source=path.name, board=board, plots=plots,
        docs_link=docs_link(), side_legend=SIDE_LEGEND, metrics_note=METRICS_NOTE, unpaired_note=UNPAIRED_NOTE,
        differences_title=DIFFERENCES_TITLE,
        skills=skills, differences=difference_lines(board), comparisons=comparisons, metrics=metrics, charts=charts,
        exports=exports, models=sorted({str(p["model"]) for p in players}), variants=sorted(variants), entrants=[
            (m, board.specs.get(m, ""), board.games.get(m, 0), games_filter(model=m)) for m in board.models
        ],
        pairings=sorted({str(g["pairing"]) for g in games}),
        games=rows, failed=failed, missing=missing, version=arena.__version__,
    )  # fmt: skip
    index.write_text(html, encoding="utf-8")
    return index, len(games), missing
