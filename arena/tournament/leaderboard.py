"""The leaderboard: every metric per model × variant × side / role, with seeded bootstrap intervals.

A *cell* is one metric of one model at one level: all variants (``*``/``all``), one variant
(``all``), one side of a variant (``side:mafia``, ``side:town``; McKay's cards by their team, and
``side:match`` for match results) or one role (``role:inspector``). Its value pools the statistics
of :mod:`arena.tournament.metrics`; its 95% interval is a percentile bootstrap that resamples the
cell's *games* (the statistics of one game are not independent: a whole side is one model), with
a generator seeded by the cell's name, so the same database always prints the same intervals.

``arena leaderboard DB`` prints the tables (rich), and writes ``leaderboard.md``,
``leaderboard.csv`` (every cell) and two PNG plots (matplotlib, Agg backend) next to each other.
"""

from __future__ import annotations

import csv
import itertools
import math
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .db import Database
from .metrics import MATCH, METRICS, TOWN
from .ratings import Ratings, rate_games

Z95 = 1.959963984540054
RESAMPLES = 1000
ALL = "*"


@dataclass(slots=True, frozen=True)
class Cell:
    model: str
    variant: str  # "*" = every variant
    group: str  # "all", "side:<side>" or "role:<role>"
    metric: str
    value: float
    lo: float
    hi: float
    games: int  # games behind the value (the bootstrap's resampling units)
    den: float  # Σ den (votes, checks, hands, claims …)

    def text(self, digits: int = 2) -> str:
        return f"{self.value:.{digits}f} [{self.lo:.{digits}f}, {self.hi:.{digits}f}]"


def bootstrap(nums: np.ndarray, dens: np.ndarray, seed: int, resamples: int = RESAMPLES) -> tuple[float, float]:
    """95% percentile interval of Σnum/Σden when the games (array entries) are resampled."""
    g = len(nums)
    if g == 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    estimates = np.empty(resamples)
    step = max(1, 2_000_000 // g)  # bounded memory for very large tournaments
    for start in range(0, resamples, step):
        size = min(step, resamples - start)
        counts = rng.multinomial(g, np.full(g, 1.0 / g), size=size)
        num, den = counts @ nums, counts @ dens
        with np.errstate(invalid="ignore", divide="ignore"):
            estimates[start : start + size] = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    finite = estimates[np.isfinite(estimates)]
    if not len(finite):
        return math.nan, math.nan
    lo, hi = np.percentile(finite, [2.5, 97.5])
    return float(lo), float(hi)


def _side(variant: str, role: str) -> str:
    from arena.variants import get_variant

    if role == MATCH:
        return MATCH
    return TOWN if get_variant(variant).team_of.get(role, TOWN) == TOWN else "mafia"


def cells(rows: Iterable[Mapping[str, Any]], seed: int = 0) -> dict[tuple[str, str, str, str], Cell]:
    """Every cell from ``Database.stats()`` rows (game, seat, role, metric, num, den, model, variant)."""
    acc: dict[tuple[str, str, str, str], dict[str, list[float]]] = {}
    for r in rows:
        side = _side(r["variant"], r["role"])
        for variant, group in (
            (ALL, "all"),
            (r["variant"], "all"),
            (r["variant"], f"side:{side}"),
            (r["variant"], f"role:{r['role']}"),
        ):
            per_game = acc.setdefault((r["model"], variant, group, r["metric"]), {})
            slot = per_game.setdefault(r["game"], [0.0, 0.0])
            slot[0] += r["num"]
            slot[1] += r["den"]
    out = {}
    for key, per_game in acc.items():
        metric = METRICS[key[3]]
        raw = np.array(list(per_game.values()), dtype=float)
        if metric.kind == "ratio":
            nums, dens = raw[:, 0], raw[:, 1]
        elif metric.kind == "per_game":
            nums, dens = raw[:, 0], np.ones(len(raw))
        else:  # game_mean
            nums = np.divide(raw[:, 0], raw[:, 1], out=np.zeros(len(raw)), where=raw[:, 1] > 0)
            dens = (raw[:, 1] > 0).astype(float)
        total = dens.sum()
        if total <= 0:
            continue
        lo, hi = bootstrap(nums, dens, seed ^ zlib.crc32("|".join(key).encode()))
        out[key] = Cell(*key, float(nums.sum() / total), lo, hi, len(raw), float(raw[:, 1].sum()))
    return out


@dataclass(slots=True, frozen=True)
class Separation:
    upper: str
    lower: str
    delta: float
    more_games: int | None  # None: already separated at 95%; -1: no difference observed

    def text(self) -> str:
        head = f"{self.upper} vs {self.lower}: win rates differ by {self.delta:.3f}"
        if self.more_games is None:
            return f"{head}; separated at 95%"
        if self.more_games < 0:
            return f"{head}; no difference observed, more games will not separate them"
        return f"{head}; ≈{self.more_games} more games each would separate them at 95%"


def separation(a: Cell, b: Cell, games_a: int, games_b: int) -> Separation:
    """How many more games would make ``a`` and ``b`` differ at 95%: n·((z·σ)/Δ)² − n.

    σ is the standard error of the difference, from the interval widths (half-width / z each);
    intervals shrink as 1/√n, so n·(zσ/Δ)² games in all would put Δ at z standard errors.
    """
    delta = abs(a.value - b.value)
    se = math.hypot((a.hi - a.lo) / (2 * Z95), (b.hi - b.lo) / (2 * Z95))
    if delta == 0:
        return Separation(a.model, b.model, 0.0, -1)
    n = (games_a + games_b) / 2
    needed = n * (Z95 * se / delta) ** 2
    if needed <= n:
        return Separation(a.model, b.model, delta, None)
    return Separation(a.model, b.model, delta, math.ceil(needed - n))


# ---- the report -------------------------------------------------------------------------------------
OVERVIEW = ("win", "survival", "votes_missed", "uncaught_lies", "votes_on_mafia", "check_hits", "brier", "consistency",
            "forfeits", "cost")  # fmt: skip
MCKAY = ("win", "points", "good_kills", "bad_kills", "fake_cop", "fake_cop_points")
SIDE_METRICS = {
    "mafia": ("win", "survival", "votes_missed", "lies", "uncaught_lies", "lies_caught", "consistency"),
    TOWN: ("win", "votes_on_mafia", "check_hits", "brier", "true_claims", "lies", "consistency"),
}


@dataclass(slots=True)
class Report:
    """What the leaderboard shows: tables as (title, header, rows), plus what the plots need."""

    models: list[str]
    ratings: Ratings
    cells: dict[tuple[str, str, str, str], Cell]
    games: dict[str, int]
    tables: list[tuple[str, list[str], list[list[str]]]]
    separations: list[Separation]
    total_games: int


def _fmt(cell: Cell | None, metric: str) -> str:
    if cell is None:
        return "–"
    digits = 4 if metric == "cost" else 2
    return cell.text(digits)


def build_report(db: Database, seed: int = 0) -> Report:
    """Read the database and compute every cell, the ratings and the separations."""
    games = [dict(g) for g in db.games()]
    player_games = [dict(p) for p in db.player_games()]
    table = cells((dict(r) for r in db.stats()), seed)
    ratings = rate_games(games, player_games)
    per_model: dict[str, set[str]] = {}
    for p in player_games:
        per_model.setdefault(p["model"], set()).add(p["game"])
    counts = {m: len(gs) for m, gs in per_model.items()}
    models = sorted(counts, key=lambda m: (-ratings.overall[m].ordinal if m in ratings.overall else 0.0, m))
    tables: list[tuple[str, list[str], list[list[str]]]] = []

    rows = []
    for m in models:
        r = ratings.overall.get(m)
        mafia, town = ratings.by_side.get((m, "mafia")), ratings.by_side.get((m, TOWN))
        rows.append([
            m, f"{r.ordinal:.2f}" if r else "–", f"{r.mu:.2f} ± {r.sigma:.2f}" if r else "–", str(counts[m]),
            _fmt(table.get((m, ALL, "all", "win")), "win"),
            f"{mafia.ordinal:.2f}" if mafia else "–", f"{town.ordinal:.2f}" if town else "–",
        ])  # fmt: skip
    tables.append(("Ratings (openskill Plackett-Luce; ordinal = μ − 3σ)",
                   ["model", "rating", "μ ± σ", "games", "win rate [95% CI]", "as mafia", "as town"], rows))  # fmt: skip

    variants = sorted({g["variant"] for g in games})
    present = {k[3] for k in table}
    overview = [m for m in OVERVIEW if m in present]
    tables.append((
        "All variants: deception and detection",
        ["model", *(METRICS[m].label for m in overview)],
        [[m, *(_fmt(table.get((m, ALL, "all", k)), k) for k in overview)] for m in models],
    ))  # fmt: skip
    for v in variants:
        sides = sorted({k[2] for k in table if k[1] == v and k[2].startswith("side:")})
        if f"side:{MATCH}" in sides:
            metrics = [k for k in MCKAY if any(key[1] == v and key[3] == k for key in table)]
            tables.append((
                f"{v}: points and kills (per hand; win per match)",
                ["model", *(METRICS[k].label for k in metrics)],
                [[m, *(_fmt(table.get((m, v, "all", k)), k) for k in metrics)] for m in models],
            ))  # fmt: skip
            continue
        for side in sides:
            name = side.split(":", 1)[1]
            metrics = [
                k
                for k in SIDE_METRICS.get(name, OVERVIEW)
                if any(key[1] == v and key[2] == side and key[3] == k for key in table)
            ]
            tables.append((
                f"{v}, {name} side",
                ["model", *(METRICS[k].label for k in metrics)],
                [[m, *(_fmt(table.get((m, v, side, k)), k) for k in metrics)] for m in models],
            ))  # fmt: skip
        roles = sorted({k[2] for k in table if k[1] == v and k[2].startswith("role:")})
        tables.append((
            f"{v}: win rate by role",
            ["model", *(r.split(":", 1)[1] for r in roles)],
            [[m, *(_fmt(table.get((m, v, r, "win")), "win") for r in roles)] for m in models],
        ))  # fmt: skip

    seps = []
    for upper, lower in itertools.pairwise(models):
        a, b = table.get((upper, ALL, "all", "win")), table.get((lower, ALL, "all", "win"))
        if a is not None and b is not None:
            seps.append(separation(a, b, counts[upper], counts[lower]))
    return Report(models, ratings, table, counts, tables, seps, len(games))


def print_report(report: Report, console: Any) -> None:
    from rich.table import Table

    console.print(f"{report.total_games} games, {len(report.models)} models", highlight=False)
    for title, header, rows in report.tables:
        t = Table(title=title, title_justify="left")
        for i, h in enumerate(header):
            t.add_column(h, justify="left" if i == 0 else "right")
        for row in rows:
            t.add_row(*row)
        console.print(t)
    if report.separations:
        console.print("Separation of adjacent models (overall win rate):")
        for s in report.separations:
            console.print(f"  {s.text()}", highlight=False)


def markdown(report: Report, source: str) -> str:
    out = [f"# Leaderboard: {source}", "", f"{report.total_games} games, {len(report.models)} models. "
           "Values are followed by their 95% bootstrap interval (games resampled).", ""]  # fmt: skip
    for title, header, rows in report.tables:
        out += [f"## {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(row) + " |" for row in rows]
        out.append("")
    if report.separations:
        out += ["## Separation of adjacent models", ""]
        out += [f"- {s.text()}" for s in report.separations]
        out.append("")
    return "\n".join(out)


def write_csv(report: Report, path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["model", "variant", "group", "metric", "value", "lo95", "hi95", "games", "den"])
        for c in sorted(report.cells.values(), key=lambda c: (c.model, c.variant, c.group, c.metric)):
            w.writerow(
                [c.model, c.variant, c.group, c.metric, f"{c.value:.6g}", f"{c.lo:.6g}", f"{c.hi:.6g}", c.games, f"{c.den:.6g}"]
            )


def plot(report: Report, directory: Path) -> list[Path]:
    """deception_vs_detection.png and winrate_by_role.png (Agg backend: no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    fig, ax = plt.subplots(figsize=(6.5, 5))
    shown = 0
    for m in report.models:
        x, y = report.cells.get((m, ALL, "all", "votes_on_mafia")), report.cells.get((m, ALL, "all", "votes_missed"))
        if x is None or y is None:
            continue
        ax.errorbar(
            x.value, y.value, xerr=[[x.value - x.lo], [x.hi - x.value]], yerr=[[y.value - y.lo], [y.hi - y.value]],
            fmt="o", capsize=4, label=m,
        )  # fmt: skip
        ax.annotate(m, (x.value, y.value), textcoords="offset points", xytext=(6, 6))
        shown += 1
    ax.set_xlabel("detection: own town votes on mafia")
    ax.set_ylabel("deception: town votes that missed the mafia player")
    ax.set_title("Deception vs detection (95% bootstrap intervals)")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    if shown:
        ax.legend(loc="lower left", fontsize="small")
    else:
        ax.text(0.5, 0.5, "no team-variant votes recorded", ha="center", va="center")
    fig.tight_layout()
    path = directory / "deception_vs_detection.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path)

    groups = sorted({(k[1], k[2]) for k in report.cells if k[1] != ALL and k[2].startswith("role:") and k[3] == "win"})
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(groups) * max(1, len(report.models)) / 2 + 2), 4.5))
    width = 0.8 / max(1, len(report.models))
    for i, m in enumerate(report.models):
        xs, ys, lo, hi = [], [], [], []
        for j, g in enumerate(groups):
            c = report.cells.get((m, g[0], g[1], "win"))
            if c is None:
                continue
            xs.append(j + (i - (len(report.models) - 1) / 2) * width)
            ys.append(c.value)
            lo.append(c.value - c.lo)
            hi.append(c.hi - c.value)
        ax.bar(xs, ys, width, yerr=[lo, hi], capsize=3, label=m)
    ax.set_xticks(range(len(groups)), [f"{v}\n{g.split(':', 1)[1]}" for v, g in groups], fontsize="small")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1.05)
    ax.set_title("Win rate by role (95% bootstrap intervals)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    path = directory / "winrate_by_role.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path)
    return written


def write_outputs(report: Report, directory: Path, source: str) -> list[Path]:
    """leaderboard.md, leaderboard.csv and the plots in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    md = directory / "leaderboard.md"
    md.write_text(markdown(report, source), encoding="utf-8")
    table = directory / "leaderboard.csv"
    write_csv(report, table)
    return [md, table, *plot(report, directory)]


def default_output_dir(db_path: Path) -> Path:
    return db_path.with_name(f"{db_path.stem}-leaderboard")
