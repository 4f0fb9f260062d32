"""Reports over a folder of transcripts: one page per game and an index with results and win rates.

The index is what a person opens after a batch of games: every game with its result and a link
to its page, who won how often per variant (by team), and a table of seat specs (models, bots)
with their win rates overall and per team, forfeits, rejections and cost. The charts are inline
SVG built from the same numbers, so the page stays one file with nothing to fetch.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.report.export import write_table
from arena.report.html import render_index, render_story
from arena.report.story import Story, build_story
from arena.report.usage import money
from arena.run.transcript import TranscriptError, note_look, read_transcript

TEAM_COLOURS = {"town": "#1f5fae", "mafia": "#b3261e", "maniac": "#7a3bb0", "draw": "#9aa0a6", "unfinished": "#d5d8dc"}
OTHER_COLOUR = "#2e7d5b"


class ReportError(ValueError):
    """Nothing to report on (one line: where and why)."""


@dataclass(slots=True)
class SpecRecord:
    """One seat spec's results over all games."""

    spec: str
    seats: int = 0
    wins: int = 0
    decided: int = 0  # seats in games with a winner (draws and unfinished games do not count)
    forfeits: int = 0
    rejections: int = 0
    cost: float = 0.0
    unpriced: bool = False  # some of its calls have no known price
    by_team: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))  # team -> [wins, decided]

    def cost_text(self) -> str:
        return money(self.cost, self.unpriced) if self.cost or self.unpriced else ""

    @property
    def rate(self) -> float:
        return self.wins / self.decided if self.decided else 0.0


def _winner_key(story: Story) -> str:
    if story.winner is None:
        return "unfinished"
    if story.mckay and story.winner != "draw":
        return "won outright"
    return story.winner


def collect(stories: list[Story]) -> dict[str, Any]:
    """Win counts by variant and outcome, and the per-spec table, from built stories."""
    by_variant: dict[str, Counter[str]] = defaultdict(Counter)
    specs: dict[str, SpecRecord] = {}
    for story in stories:
        by_variant[story.variant][_winner_key(story)] += 1
        decided = story.winner not in (None, "draw")
        for seat in story.seats:
            record = specs.setdefault(seat.spec, SpecRecord(seat.spec))
            record.seats += 1
            record.forfeits += int(seat.counts.get("forfeits") or 0)
            record.rejections += int(seat.counts.get("rejections") or 0)
            record.cost += seat.usage.cost
            record.unpriced |= seat.usage.price_unknown
            if decided:
                record.decided += 1
                record.wins += bool(seat.won)
                if not story.mckay and seat.team:
                    team = record.by_team[seat.team]
                    team[0] += bool(seat.won)
                    team[1] += 1
    variants = []
    for variant, counts in sorted(by_variant.items()):
        total = sum(counts.values())
        segments = [
            {"label": key, "count": n, "share": n / total, "colour": TEAM_COLOURS.get(key, OTHER_COLOUR)}
            for key, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        ]
        variants.append({"variant": variant, "games": total, "segments": segments})
    leaderboard = sorted(specs.values(), key=lambda r: (-r.rate, -r.decided, r.spec))
    cost = sum(s.cost for s in stories)
    unknown = any(s.price_unknown for s in stories)
    return {
        "variants": variants, "specs": leaderboard, "games": len(stories), "cost": cost,
        "cost_text": money(cost, unknown) if cost or unknown else "",
    }  # fmt: skip


def story_page(
    path: Path,
    index_link: str | None = None,
    transcript_link: str = "",
    beliefs: list[dict[str, Any]] | None = None,
    tournament: dict[str, Any] | None = None,
    mirror_link: str = "",
    pair_link: str = "",
) -> tuple[Story, str] | str:
    """A transcript's story and page, or one line saying why it has none.

    A folder or a tournament holds games of every kind, some cut off or written by an older
    version; one that cannot be read or drawn must cost its own page only, never the others.
    ``beliefs`` (a tournament's belief answers for this game) add the beliefs heatmap; ``tournament``
    (the database's pairing, sides and entrants) names the entrants of a transcript too old to.
    """
    try:
        transcript = read_transcript(path)
        note_look(transcript, "arena report")  # every view of a person's unfinished game: it is not resumed then
        story = build_story(transcript, beliefs=beliefs, tournament=tournament)
        page = render_story(
            story, source=path.name, index_link=index_link, transcript_link=transcript_link, mirror_link=mirror_link,
            pair_link=pair_link,
        )  # fmt: skip
        return story, page
    except TranscriptError as exc:
        return str(exc)
    except Exception as exc:  # a transcript this version cannot draw: name it, keep going
        return f"{path}: cannot be drawn ({type(exc).__name__}: {exc})"


def report_folder(folder: Path, out: Path) -> tuple[Path, int, list[str]]:
    """Write ``out/index.html`` and ``out/games/<transcript>.html`` for every transcript under ``folder``.

    Returns the index path, the number of games and one line per file that could not be read
    (those are listed on the index too; they do not stop the others).
    """
    if not folder.is_dir():
        raise ReportError(f"{folder}: not a folder")
    out = out.resolve()
    paths = sorted(p for p in folder.rglob("*.jsonl") if out not in p.resolve().parents)
    if not paths:
        raise ReportError(f"{folder}: no transcripts (*.jsonl) in this folder")
    games_dir = out / "games"
    games_dir.mkdir(parents=True, exist_ok=True)
    stories: list[Story] = []
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    for path in paths:
        made = story_page(path, index_link="../index.html", transcript_link=os.path.relpath(path, games_dir))
        if isinstance(made, str):
            skipped.append(made)
            continue
        story, page = made
        name = f"{path.relative_to(folder).with_suffix('').as_posix().replace('/', '__')}.html"
        (games_dir / name).write_text(page, encoding="utf-8")
        stories.append(story)
        specs = Counter(seat.spec for seat in story.seats)
        rows.append({
            "link": f"games/{name}", "file": path.relative_to(folder).as_posix(), "variant": story.variant,
            "seed": story.seed, "started": story.header.get("started", ""), "result": story.result,
            "winner": story.winning_players(),
            "players": ", ".join(f"{n}× {spec}" if n > 1 else spec for spec, n in specs.items()),
            "models": "|".join(specs), "transcript": os.path.relpath(path, out),
            "length": (story.summary or {}).get("days"), "mckay": story.mckay,
            "forfeits": sum(int(s.counts.get("forfeits") or 0) for s in story.seats),
            "rejections": sum(int(s.counts.get("rejections") or 0) for s in story.seats),
            "cost": story.cost, "calls": story.calls, "cost_text": story.cost_text() if story.calls else "",
        })  # fmt: skip
    if not stories:
        raise ReportError(f"{folder}: no readable transcript ({skipped[0]})")
    index = out / "index.html"
    stats = collect(stories)
    columns = ["game", "variant", "seed", "players", "winner", "result", "length", "forfeits", "rejected", "cost", "calls"]
    stats["exports"] = {
        "games": write_table(out, "games", columns, [
            [r["file"], r["variant"], r["seed"], r["players"], r["winner"], r["result"], r["length"], r["forfeits"],
             r["rejections"], r["cost"], r["calls"]]
            for r in rows
        ]),
        "players": write_table(out, "players", ["spec", "seats", "wins", "decided", "win rate", "forfeits", "rejected", "cost"], [
            [r.spec, r.seats, r.wins, r.decided, round(r.rate, 4), r.forfeits, r.rejections, r.cost] for r in stats["specs"]
        ]),
    }  # fmt: skip
    index.write_text(render_index(f"Games in {folder.name or folder}", rows, stats, skipped), encoding="utf-8")
    return index, len(stories), skipped
