"""The leaderboard: the skill model's headline, paired comparisons, and every metric with its interval.

``arena leaderboard DB`` prints, in this order (docs/tournaments.md explains each estimate):

1. **Deception and detection** — the skill model (:mod:`.skills`): per variant and model, with
   95% intervals, and every skill difference with its own interval and Holm-adjusted verdict
   (and, undecided, about how many more deals would decide it);
2. **Paired comparisons** — per pairing and variant, A − B for the family of :mod:`.inference`
   (over mirrored pairs; one side's metrics over deals against a common third model), with the
   sign-flip p-value, Holm's adjustment over everything printed, and how many pairs a difference
   of ``--target`` (default 0.10) would need;
3. **Metrics** — every model's value of every metric per variant and side, each with a 95%
   percentile bootstrap interval over the cell's games (descriptive, each against the opponents
   it met: for comparing two models use 1. and 2.), and the openskill rating for reference.

Models are listed by name everywhere: an order by rating reads as a ranking the tests may deny.

The terminal layout fits 80 columns (metrics are printed with metrics as rows and at most a few
models as columns per table); ``leaderboard.md`` and ``leaderboard.csv`` keep the full, wide
tables, ``comparisons.csv`` and ``skills.csv`` the inference, and the plots (:mod:`.plots`) go next
to them. ``--json`` prints one JSON object instead (its fields: docs/tournaments.md).

A *cell* is one metric of one model at one level: all variants (``*``/``all``), one variant
(``all``), one side of a variant (``side:mafia``, ``side:town``, ``side:maniac``; McKay's cards by
their team, and ``side:match`` for match results) or one role (``role:inspector``). A third
party's seats (cove's maniac) count in their side and role cells only, never in a model's
``all`` cells. Cells are computed in game-key order with generators seeded by the cell's name, so
the same results give the same intervals whatever order the rows were written in.
"""

from __future__ import annotations

import csv
import json
import math
import textwrap
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .db import Database
from .inference import ALL_VARIANTS, ALPHA, MIN_INTERVAL_PAIRS, Comparison, compare_all
from .metrics import MATCH, METRICS, TOWN
from .ratings import Ratings, rate_games
from .results import Results
from .sequential import Decisions, decide
from .skills import SkillReport, skill_report

RESAMPLES = 1000
ALL = ALL_VARIANTS
WIDTH = 80
Table = tuple[str, list[str], list[list[str]]]
#: a cell or rating that has no number worth reading: a cell of one game (its interval would be its
#: value), and every descriptive cell but conduct and every rating while no mirrored pair is complete
#: (each number is then one deal and one side, not the model)
NOT_ENOUGH = "not enough games"


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
        if not (math.isfinite(self.lo) and math.isfinite(self.hi)):
            return NOT_ENOUGH  # one game: its interval would be its value, which reads as certain
        return f"{self.value:.{digits}f} [{self.lo:.{digits}f}, {self.hi:.{digits}f}]"


def bootstrap(nums: np.ndarray, dens: np.ndarray, seed: int, resamples: int = RESAMPLES) -> tuple[float, float]:
    """95% percentile interval of Σnum/Σden when the games (array entries) are resampled."""
    g = len(nums)
    if g < 2:  # one game resampled is itself: no interval
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


def _side(variant: str, role: str, side: str | None) -> str:
    from arena.variants import get_variant

    from .design import deals_per_hand

    if role == MATCH:
        return MATCH
    cls = get_variant(variant)
    if deals_per_hand(cls) or side is None:
        return cls.team_of.get(role, TOWN)  # McKay: the team of the card held that hand
    return side


def cells(rows: Iterable[Mapping[str, Any]], seed: int = 0) -> dict[tuple[str, str, str, str], Cell]:
    """Every cell from ``Database.stats()`` rows (game, seat, role, metric, num, den, model, variant[, side])."""
    acc: dict[tuple[str, str, str, str], dict[str, list[float]]] = {}
    for r in rows:
        side = _side(r["variant"], r["role"], r.get("side"))
        own = side in ("mafia", TOWN, MATCH) or r.get("side") in ("A", "B")  # not a third party's seat
        levels = [(r["variant"], f"side:{side}"), (r["variant"], f"role:{r['role']}")]
        if own:
            levels += [(ALL, "all"), (r["variant"], "all")]
        for variant, group in levels:
            per_game = acc.setdefault((r["model"], variant, group, r["metric"]), {})
            slot = per_game.setdefault(r["game"], [0.0, 0.0])
            slot[0] += r["num"]
            slot[1] += r["den"]
    out = {}
    for key, per_game in sorted(acc.items()):
        metric = METRICS[key[3]]
        raw = np.array([per_game[g] for g in sorted(per_game)], dtype=float)  # game-key order
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


# ---- the report -------------------------------------------------------------------------------------
OVERVIEW = ("win", "survival", "votes_missed", "votes_missed_excess", "uncaught_lies", "votes_on_mafia",
            "votes_on_mafia_excess", "check_hits", "brier_skill", "consistency", "forfeits", "cost")  # fmt: skip
MCKAY = ("win", "points", "good_kills", "bad_kills", "fake_cop", "fake_cop_points")
SIDE_METRICS = {
    "mafia": ("win", "survival", "votes_missed", "votes_missed_excess", "lies", "uncaught_lies", "lies_caught",
              "consistency"),
    TOWN: ("win", "votes_on_mafia", "votes_on_mafia_excess", "check_hits", "brier", "brier_skill", "true_claims", "lies",
           "consistency"),
}  # fmt: skip
#: Short names of compared metrics, for the terminal's 80 columns.
SHORT = {
    "win": "win rate", "survival": "survival", "votes_missed_excess": "missed − chance",
    "lies_caught": "lies caught", "votes_on_mafia_excess": "on mafia − chance", "check_hits": "check hits",
    "brier_skill": "Brier skill", "consistency": "consistency", "forfeits": "forfeits", "points": "points/hand",
    "good_kills": "good kills", "bad_kills": "bad kills",
}  # fmt: skip


@dataclass(slots=True)
class Report:
    """Everything the leaderboard shows (and ``--json`` prints)."""

    models: list[str]
    ratings: Ratings
    cells: dict[tuple[str, str, str, str], Cell]
    games: dict[str, int]  # model -> games played
    tables: list[Table]  # the descriptive metric tables (wide: Markdown and HTML)
    total_games: int
    comparisons: list[Comparison]
    skills: SkillReport
    pairs: int
    unpaired: int
    seed: int = 0
    target: float = 0.10
    #: a tournament run ``until_decided``: what was decided, after which round, and the games spent
    decisions: Decisions | None = None
    evidence: bool = False  # the skill model read decision evidence (``--evidence``), not wins alone
    #: model -> its seat spec(s) as recorded, keys removed (``openai:gemma@http://127.0.0.1:18081/v1``):
    #: two models of one name on two servers are told apart
    specs: dict[str, str] = field(default_factory=dict)

    @property
    def enough_games(self) -> bool:
        """A complete mirrored pair exists: before it, every number is one deal and one side."""
        return self.pairs > 0

    def as_json(self, source: str = "") -> dict[str, Any]:
        return {
            "database": source,
            "games": self.total_games,
            "pairs": self.pairs,
            "unpaired_games": self.unpaired,
            "models": self.models,
            "specs": self.specs,
            "enough_games": self.enough_games,
            "settings": {
                "alpha": ALPHA,
                "adjustment": "holm",
                "test": "sign-flip randomization over mirrored pairs",
                "interval": "percentile bootstrap over mirrored pairs",
                "power": 0.8,
                "target": self.target,
                "seed": self.seed,
                "skill_evidence": self.evidence,
            },
            "comparisons": [c.as_json() for c in self.comparisons],
            "skills": [s.as_json() for s in self.skills.skills],
            "skill_differences": [d.as_json() for d in self.skills.differences],
            "skill_fits": [f.as_json() for f in self.skills.fits],
            "skills_note": self.skills.note,
            "until_decided": self.decisions.as_json() if self.decisions is not None else None,
            "ratings": {
                m: {
                    "mu": round(r.mu, 6) if self.enough_games else None,  # no mirrored pair: not enough games
                    "sigma": round(r.sigma, 6) if self.enough_games else None,
                    "ordinal": round(r.ordinal, 6) if self.enough_games else None,
                    "games": r.games,
                }
                for m, r in sorted(self.ratings.overall.items())
            },
        }


def _format(cell: Cell | None, metric: str, paired: bool = True) -> str:
    if cell is None:  # a model seat without prices has no cost cell: its dollars are unknown, not 0
        return "unknown" if metric == "cost" else "–"
    conduct = METRICS[metric].family == "conduct"  # what was done (forfeits, cost) is a fact, not an estimate
    if not paired and not conduct:
        return NOT_ENOUGH
    digits = 4 if metric == "cost" else 2
    if conduct and cell.games == 1:
        return f"{cell.value:.{digits}f} (1 game)"
    return cell.text(digits)


def _signed(x: float | None, digits: int = 2) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:+.{digits}f}"


def _interval(value: float, lo: float, hi: float) -> str:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{_signed(value)} [too few]"  # fewer than 5 deals or pairs: no interval (fits the 80-column table)
    return f"{_signed(value)} [{_signed(lo)}, {_signed(hi)}]"


def _p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def build_report(
    db: Database, seed: int = 0, target: float = 0.10, resamples: int | None = None, evidence: bool = False
) -> Report:
    """Read the database; compute the comparisons, the skill model (on decision evidence with
    ``evidence``), every cell and the ratings."""
    results = Results.from_db(db)
    report = report_from_results(results, seed, target, resamples, stats=[dict(r) for r in db.stats()], evidence=evidence)
    meta = db.meta()
    if meta.get("until_decided") == "1":
        report.decisions = decide(results, evidence=meta.get("evidence", "1") == "1", ask=json.loads(meta.get("decide") or "[]"))
        report.decisions.stop_reason = meta.get("stop_reason") or None  # "" while a run is going on
        report.decisions.max_games = int(meta["max_games"]) if meta.get("max_games", "").isdigit() else None
    return report


def report_from_results(
    results: Results,
    seed: int = 0,
    target: float = 0.10,
    resamples: int | None = None,
    stats: list[dict[str, Any]] | None = None,
    evidence: bool = False,
) -> Report:
    """The report of finished games (a database's, or games played in memory)."""
    from .skills import RESAMPLES as SKILL_RESAMPLES

    games = results.games
    if stats is None:
        where = {(p["game"], p["seat"]): p for p in results.seats}
        variant = {g["key"]: g["variant"] for g in games}
        stats = [
            {**s, "model": where[(s["game"], s["seat"])]["model"], "side": where[(s["game"], s["seat"])]["side"],
             "variant": variant[s["game"]]}
            for s in results.stats
        ]  # fmt: skip
    table = cells(stats, seed)
    pairing = {g["key"]: (g["first"], g["second"]) for g in games}
    own = [p for p in results.seats if p["model"] in pairing.get(p["game"], ())]  # not a third party's seat
    ratings = rate_games(games, own)
    per_model: dict[str, set[str]] = {}
    for p in own:
        per_model.setdefault(p["model"], set()).add(p["game"])
    counts = {m: len(gs) for m, gs in per_model.items()}
    models = sorted(counts)  # by name: an order by rating reads as a ranking the tests may deny (the null case)
    comparisons = compare_all(results, seed, target)
    skills = skill_report(results, seed, resamples or SKILL_RESAMPLES, evidence=evidence)
    pairs = len(results.pairs())
    variants = sorted({g["variant"] for g in games})
    return Report(
        models, ratings, table, counts, metric_tables(models, table, variants, paired=pairs > 0), len(games),
        comparisons, skills, pairs, results.unpaired(), seed, target, evidence=evidence, specs=specs_of(results.seats),
    )  # fmt: skip


def specs_of(seats: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """model -> the seat spec(s) it played as, keys removed (one, unless a database mixes runs)."""
    from arena.players.redact import redact_spec

    found: dict[str, list[str]] = {}
    for p in seats:
        spec = redact_spec(str(p.get("spec") or ""))
        if spec and spec not in found.setdefault(str(p["model"]), []):
            found[str(p["model"])].append(spec)
    return {m: " | ".join(specs) for m, specs in sorted(found.items())}


def metric_tables(
    models: list[str], table: Mapping[tuple[str, str, str, str], Cell], variants: list[str], paired: bool = True
) -> list[Table]:
    """The wide descriptive tables: one row per model, one column per metric (``paired`` False: no
    mirrored pair yet, and every cell but conduct says :data:`NOT_ENOUGH`)."""

    def _fmt(cell: Cell | None, metric: str) -> str:
        return _format(cell, metric, paired)

    tables: list[Table] = []
    present = {k[3] for k in table}
    overview = [m for m in OVERVIEW if m in present]
    tables.append((
        "All variants: deception and detection (each model against the opponents it met)",
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
                for k in SIDE_METRICS.get(name, ("win", "survival", "votes_missed", "votes_missed_excess"))
                if any(key[1] == v and key[2] == side and key[3] == k for key in table)
            ]
            holders = sorted({k[0] for k in table if k[1] == v and k[2] == side})
            tables.append((
                f"{v}, {name} side (against the opponents each met)",
                ["model", *(METRICS[k].label for k in metrics)],
                [[m, *(_fmt(table.get((m, v, side, k)), k) for k in metrics)] for m in _ordered(models, holders)],
            ))  # fmt: skip
        roles = sorted({k[2] for k in table if k[1] == v and k[2].startswith("role:")})
        holders = sorted({k[0] for k in table if k[1] == v and k[2] in roles} - set(models))
        tables.append((
            f"{v}: win rate by role",
            ["model", *(r.split(":", 1)[1] for r in roles)],
            [[m, *(_fmt(table.get((m, v, r, "win")), "win") for r in roles)] for m in [*models, *holders]],
        ))  # fmt: skip
    return tables


def _ordered(models: list[str], holders: list[str]) -> list[str]:
    """``holders`` in the report's model order, third parties last."""
    return [m for m in models if m in holders] + [h for h in holders if h not in models]


def ratings_table(report: Report) -> Table:
    rows = [
        [m, f"{r.ordinal:.2f}", f"{r.mu:.2f} ± {r.sigma:.2f}", str(report.games.get(m, 0))]
        if report.enough_games
        else [m, NOT_ENOUGH, NOT_ENOUGH, str(report.games.get(m, 0))]  # no mirrored pair: μ 25.00 reads as a rank
        for m in report.models
        if (r := report.ratings.overall.get(m)) is not None
    ]
    title = "Ratings (openskill Plackett-Luce; ordinal = μ − 3σ; descriptive, not a test: the comparisons above say who differs)"
    return title, ["model", "rating", "μ ± σ", "games"], rows


def skill_tables(report: Report) -> list[Table]:
    out: list[Table] = []
    for fit in report.skills.fits:
        name = "all team variants" if fit.variant == ALL else fit.variant
        rows = [
            [s.model, _interval(s.deception.estimate, s.deception.lo, s.deception.hi),
             _interval(s.detection.estimate, s.detection.lo, s.detection.hi), str(s.games)]
            for s in sorted(fit.skills, key=lambda s: s.model)  # by name, as everywhere: the tests say who is better
        ]  # fmt: skip
        few = ""
        if not fit.intervals_known:
            few = f"; {_count(fit.deals, 'deal')} per pairing: too few for intervals, {MIN_INTERVAL_PAIRS} needed"
        out.append((f"Skill model, {name} ({fit.games} games{few})", ["model", "deception", "detection", "games"], rows))
    return out


def one_sided_line(fit: Any) -> str:
    """The matchups of a fit where every game went one way (skills there rest on the prior)."""
    cases = ", ".join(f"{m} (mafia) vs {t} ({'mafia' if y == 1 else 'town'} always won)" for m, t, y in fit.one_sided)
    return f"One-sided: {cases}. The skills of these models rest partly on the prior and their intervals are too narrow."


DIFFERENCES_TITLE = "Skill differences (the difference's 95% interval; verdict: exact test per deal, Holm-adjusted)"


def difference_lines(report: Report) -> list[str]:
    """One sentence per pair of models and skill: the difference with its own interval and the
    adjusted verdict together (two skills' intervals that do not overlap are not a test), and for an
    undecided one about how many more deals would likely decide it. Only a difference the test calls
    says who is better; the others keep the models' order by name, so nothing reads as a ranking."""
    lines = []
    tests = sum(1 for d in report.skills.differences if d.smallest_p <= ALPHA)
    for d in report.skills.differences:
        e = d.diff
        where = "all team variants" if d.variant == ALL else d.variant
        if d.significant:
            better, worse, size, lo, hi = (
                (d.a, d.b, e.estimate, e.lo, e.hi) if e.estimate > 0 else (d.b, d.a, -e.estimate, -e.hi, -e.lo)
            )
            verb = "deceives" if d.skill == "deception" else "detects"
            lines.append(
                f"{where}: {better} {verb} better than {worse}: {_interval(size, lo, hi)} logits, p adj {_p(d.p_adjusted)}"
            )
            continue
        more = d.more_deals(tests)
        if more is None:
            hint = "too few deals to say how many more would decide it" if d.deals < MIN_INTERVAL_PAIRS else ""
        else:
            hint = f"≈{more} more deals would likely decide it (if the difference is as seen)"
        apart = math.isfinite(e.lo) and math.isfinite(e.hi) and (e.lo > 0 or e.hi < 0)
        why = " (the interval, one of many and unadjusted, leaves out 0; the adjusted test decides)" if apart else ""
        lines.append(
            f"{where}: {d.skill} {d.a} − {d.b}: {_interval(e.estimate, e.lo, e.hi)} logits, p adj {_p(d.p_adjusted)}: "
            f"not shown to differ{why}{'; ' + hint if hint else ''}"
        )
    return lines


#: why a per-model table of one side's metric is no comparison (said on every surface)
METRICS_NOTE = (
    "Each model's value is against the opponents it met, and no model meets itself: in a round robin the "
    "best deceiver's mafia meets the best detector's town, which the best detector's own mafia never does, "
    "so a side's metric here can read backwards. Compare two models with the skill model or the paired "
    "comparisons above."
)
#: why a tournament without a complete mirrored pair shows no numbers in its metrics and ratings
UNPAIRED_NOTE = (
    f"No mirrored pair is complete yet, so each model's numbers are a deal and a side, not the model: the metrics "
    f"other than forfeits and cost, and the ratings, say '{NOT_ENOUGH}'."
)
SIDE_LABEL = {"all": "both", "mafia": "mafia", "town": "town"}
#: what the side column means, for every surface (terminal, leaderboard.md, HTML)
SIDE_LEGEND = (
    "side both: over mirrored pairs, A against B (n pairs); side mafia or town: A's seats on that side and B's "
    "against the same third model on the same deal (n deals), so the difference is that side's play alone, "
    "not one model's deception mixed with the other's detection."
)


def comparison_rows(comparisons: Iterable[Comparison]) -> list[list[str]]:
    return [
        [c.variant, SIDE_LABEL.get(c.side, c.side), SHORT.get(c.metric, c.metric), _interval(c.diff, *c.ci95), _p(c.p),
         _p(c.p_adjusted), str(c.pairs), c.verdict().replace("pairs", c.unit), str(c.pairs_for_target or "–")]
        for c in comparisons
    ]  # fmt: skip


def groups(report: Report) -> list[tuple[str, str, list[Comparison]]]:
    """The comparisons by (pairing, variant), in order."""
    out: dict[tuple[str, str], list[Comparison]] = {}
    for c in report.comparisons:
        out.setdefault((f"{c.a} − {c.b}", c.variant), []).append(c)
    return [(pairing, variant, cs) for (pairing, variant), cs in out.items()]


def comparison_sections(report: Report) -> list[tuple[str, list[str], list[list[str]], str | None]]:
    """The paired comparisons as (title, header, rows, power sentence), one per pairing and variant."""
    out = []
    for pairing, variant, cs in groups(report):
        name = "all variants" if variant == ALL else variant
        out.append((f"{pairing}, {name}", COMPARISON_HEADER, comparison_rows(cs), power_line(cs, report.target)))
    return out


def power_line(cs: list[Comparison], target: float) -> str | None:
    """The win rate's power figure of one pairing and variant, in words."""
    win = next((c for c in cs if c.metric == "win" and c.side == "all"), None) or next((c for c in cs if c.metric == "win"), None)
    if win is None or win.mde is None:
        return None
    side = f"{win.side}-side " if win.side != "all" else ""
    text = f"{side}win rate: with {win.pairs} {win.unit} a difference of {win.mde:.2f} is detected with 80% power"
    if win.pairs_for_target:
        text += f"; {target:.2f} needs ≈{win.pairs_for_target} {win.unit}"
    return text + "."


# ---- the terminal -----------------------------------------------------------------------------------
def _rich_table(header: list[str], rows: list[list[str]], left: int = 1) -> Any:
    from rich import box
    from rich.table import Table as RichTable
    from rich.text import Text

    t = RichTable(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), show_edge=False)
    for i, h in enumerate(header):
        t.add_column(h, justify="left" if i < left else "right", no_wrap=True)
    for row in rows:
        t.add_row(*(Text(cell) for cell in row))  # cells are text, not markup: "[too few]", a model "x[y]"
    return t


def _chunks(models: list[str], label: int, cell: int) -> list[list[str]]:
    """Model columns per table so that a table of (label, cell × models) fits :data:`WIDTH`."""
    per = max(1, (WIDTH - label) // (cell + 3))  # a column is its cell and " │ "-wide spacing
    return [models[i : i + per] for i in range(0, len(models), per)] or [[]]


def print_report(report: Report, console: Any) -> None:
    """The leaderboard for a terminal: 80 columns (see the module docstring)."""
    from rich.text import Text

    def say(text: str = "", style: str | None = None) -> None:
        console.print(Text(wrap_phrases(text, min(WIDTH, console.width)), style=style or ""), width=min(WIDTH, console.width))

    def table(title: str, header: list[str], rows: list[list[str]], left: int = 1) -> None:
        say(title, "bold")
        console.print(_rich_table(header, rows, left), width=min(WIDTH, console.width))
        say()

    say(
        f"{_count(report.total_games, 'game')}, {_count(report.pairs, 'mirrored pair')}"
        + (f" ({_count(report.unpaired, 'game')} without its mirror yet)" if report.unpaired else "")
        + f"; models: {models_line(report)}"
    )
    say()
    if report.decisions is not None:
        say("STOPPED WHEN DECIDED (anytime-valid; the p-values below assume a fixed design: read these)", "bold")
        for line in report.decisions.lines():
            say(line)
        say()
    say("DECEPTION AND DETECTION (skill model)", "bold")
    if report.skills.fits:
        say("logit P(mafia side wins) = c + deception(mafia model) − detection(town model), in logits; "
            "skills sum to 0 over the models; 95% bootstrap intervals over mirrored pairs.")  # fmt: skip
        for (title, header, rows), fit in zip(skill_tables(report), report.skills.fits, strict=True):
            table(title, header[:3], [r[:3] for r in rows])
            if fit.one_sided:
                say(one_sided_line(fit))
                say()
        say(DIFFERENCES_TITLE + ":")
        for line in difference_lines(report):
            say(f"  {line}")
    else:
        say(report.skills.note or "no team-variant games")
    say()
    say("PAIRED COMPARISONS (A − B: over mirrored pairs, or for one side deals against a third)", "bold")
    say(f"p adj: sign-flip test, Holm-adjusted over all {len(report.comparisons)} comparisons. Verdict: which of A and B is "
        f"better; 'not yet (N)': no detectable difference yet, about N pairs (or deals) would detect a difference of "
        f"{report.target:.2f} with 80% power; '< {report.target:.2f}': these would have detected one that "
        f"large (80% power), so any difference is likely smaller. {SIDE_LEGEND}")  # fmt: skip
    if not report.comparisons:
        say("none yet: a comparison needs both games of a mirrored pair")
    for _pairing, variant, cs in groups(report):
        name = "all variants" if variant == ALL else variant
        rows = [
            [SHORT.get(c.metric, c.metric), SIDE_LABEL.get(c.side, c.side), _interval(c.diff, *c.ci95), _p(c.p_adjusted),
             str(c.pairs), _short_verdict(c)]
            for c in cs
        ]  # fmt: skip
        title = f"{name}: A = {cs[0].a}, B = {cs[0].b}"
        table(title, ["metric", "side", "A − B [95% CI]", "p adj", "n", "verdict"], rows, left=2)
        line = power_line(cs, report.target)
        if line:
            say(line)
    say()
    say("METRICS (descriptive: 95% bootstrap intervals over games)", "bold")
    say(METRICS_NOTE)
    if not report.enough_games:
        say(UNPAIRED_NOTE)
    for title, header, rows in report.tables:
        labels = header[1:]
        label_width = max((len(x) for x in labels), default=8)
        cell_width = max((len(x) for r in rows for x in r[1:]), default=8)
        for chunk in _chunks([r[0] for r in rows], label_width, max(cell_width, *(len(m) for m in [r[0] for r in rows]))):
            body = [[label, *(r[1 + i] for r in rows if r[0] in chunk)] for i, label in enumerate(labels)]
            table(title, ["", *chunk], body)
    table(*ratings_table(report))


#: pieces a terminal line is never broken inside: "p adj 0.014", "+2.13 [+1.21, +3.56]", "≈40 more deals"
_KEEP = (("p adj ", "p\0adj\0"), (" [", "\0["), (", +", ",\0+"), (", -", ",\0-"), (" more deals", "\0more\0deals"))


def wrap_phrases(text: str, width: int = WIDTH) -> str:
    """``text`` broken into lines of at most ``width`` between words, never inside a number's phrase
    (a terminal's own wrapping cut "p adj 0.024" into "p" and "adj 0.024"); continued lines indented."""
    if len(text) <= width:
        return text
    indent = " " * (len(text) - len(text.lstrip(" ")) + 2)
    kept = text
    for plain, joined in _KEEP:
        kept = kept.replace(plain, joined)
    lines = textwrap.wrap(kept, width=width, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False)
    return "\n".join(line.replace("\0", " ") for line in lines)


def models_line(report: Report) -> str:
    """The models, each with its seat spec where that says more than its name (the server it ran on)."""
    return ", ".join(f"{m} ({report.specs[m]})" if report.specs.get(m, m) != m else m for m in report.models)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _short_verdict(c: Comparison) -> str:
    """At most 14 characters, never cut: the terminal's verdict column."""
    if c.better is not None:
        return "A better" if c.better == c.a else "B better"
    verdict = c.verdict()
    if verdict == "no detectable difference yet":
        return f"not yet ({c.pairs_for_target})" if c.pairs_for_target and c.pairs_for_target < 10_000 else "not yet"
    if verdict == "no difference as large as the target":
        return f"< {c.target:.2f}"
    return {"no difference observed": "none seen", "too few pairs": f"too few {c.unit}"}.get(verdict, verdict)


# ---- files --------------------------------------------------------------------------------------------
COMPARISON_CSV = ["a", "b", "variant", "side", "metric", "diff", "lo95", "hi95", "p", "p_adjusted", "pairs", "significant",
                  "better", "sd", "mde80", "pairs_needed", "target", "pairs_for_target"]  # fmt: skip
COMPARISON_HEADER = ["variant", "side", "metric", "A − B [95% CI]", "p", "p adj", "n", "verdict", "n for target"]


def markdown(report: Report, source: str) -> str:
    out = [f"# Leaderboard: {source}", "", f"{report.total_games} games ({report.pairs} mirrored pairs), "
           f"{len(report.models)} models: {models_line(report)}. Definitions and assumptions: docs/tournaments.md.",
           ""]  # fmt: skip

    def add(title: str, header: list[str], rows: list[list[str]]) -> None:
        nonlocal out
        out += [f"## {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(row) + " |" for row in rows]
        out.append("")

    if report.decisions is not None:
        first, *rest = report.decisions.lines()
        out += ["## Stopped when decided", "", first, "", *[f"- {line.strip()}" for line in rest], ""]
    if report.skills.fits:
        for (title, header, rows), fit in zip(skill_tables(report), report.skills.fits, strict=True):
            add(title, header, rows)
            if fit.one_sided:
                out += [one_sided_line(fit), ""]
        lines = difference_lines(report)
        out += [f"## {DIFFERENCES_TITLE}", ""]
        out += [f"- {line}" for line in lines] or ["- none"]
        out.append("")
    else:
        out += ["## Skill model", "", report.skills.note or "no team-variant games", ""]
    for title, header, rows, line in comparison_sections(report):
        add(f"Paired comparison: {title}", header, rows)
        if line:
            out += [line, ""]
    out += [SIDE_LEGEND, "", METRICS_NOTE, ""] + ([UNPAIRED_NOTE, ""] if not report.enough_games else [])
    for title, header, rows in report.tables:
        add(title, header, rows)
    add(*ratings_table(report))
    return "\n".join(out)


def write_csv(report: Report, path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["model", "variant", "group", "metric", "value", "lo95", "hi95", "games", "den"])
        for c in sorted(report.cells.values(), key=lambda c: (c.model, c.variant, c.group, c.metric)):
            w.writerow(
                [c.model, c.variant, c.group, c.metric, f"{c.value:.6g}", _csv_num(c.lo), _csv_num(c.hi), c.games, f"{c.den:.6g}"]
            )


def _csv_num(x: float) -> str:
    """A number for a CSV cell; empty when unknown (an interval over one game)."""
    return f"{x:.6g}" if math.isfinite(x) else ""


def write_inference_csv(report: Report, directory: Path) -> list[Path]:
    """comparisons.csv (one row per paired comparison) and skills.csv (one row per model and fit)."""
    comparisons = directory / "comparisons.csv"
    with comparisons.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(COMPARISON_CSV)
        for c in report.comparisons:
            row = c.as_json()
            row["lo95"], row["hi95"] = row.pop("ci95")  # type: ignore[misc]
            w.writerow(["" if row[k] is None else row[k] for k in COMPARISON_CSV])
    skills = directory / "skills.csv"
    with skills.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["model", "variant", "deception", "deception_lo95", "deception_hi95", "detection", "detection_lo95",
                    "detection_hi95", "games"])  # fmt: skip
        for s in report.skills.skills:
            w.writerow([s.model, s.variant, s.deception.estimate, s.deception.lo, s.deception.hi, s.detection.estimate,
                        s.detection.lo, s.detection.hi, s.games])  # fmt: skip
    return [comparisons, skills]


def write_outputs(report: Report, directory: Path, source: str) -> list[Path]:
    """leaderboard.md, leaderboard.csv, comparisons.csv, skills.csv and the plots in ``directory``."""
    from .plots import plot

    directory.mkdir(parents=True, exist_ok=True)
    md = directory / "leaderboard.md"
    md.write_text(markdown(report, source), encoding="utf-8")
    table = directory / "leaderboard.csv"
    write_csv(report, table)
    return [md, table, *write_inference_csv(report, directory), *plot(report, directory)]


def to_json(report: Report, source: str) -> str:
    return json.dumps(report.as_json(source), ensure_ascii=False, indent=1, allow_nan=False)


def default_output_dir(db_path: Path) -> Path:
    return db_path.with_name(f"{db_path.stem}-leaderboard")
