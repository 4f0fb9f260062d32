"""The leaderboard's plots (matplotlib, Agg backend): made to be read at 640 pixels wide.

Every figure is 6.4 inches wide with 10-point text and saved at 150 dpi: shown at the 640 CSS
pixels the tournament report gives a plot, one inch is 100 pixels and the text about 14 pixels
high. Figures grow in height, never in width, with the number of models and variants.

- ``skills.png``: each model's deception and detection per variant (the skill model), with 95%
  intervals; written when the skill model could be fitted (≥ 3 models);
- ``deception_vs_detection.png``: the same skills as a scatter (the pooled fit, or the only
  variant's); without a skill model, the chance-corrected vote metrics instead;
- ``comparisons.png``: the paired win-rate differences, one row per pairing and variant, filled
  where the Holm-adjusted test flags them;
- ``winrate_by_role.png``: win rate per variant and role, one bar per model, with intervals.

Before any mirrored pair is complete the metrics read "not enough games": the plots drawn from them
(the votes scatter, the roles) are not made.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .leaderboard import Report

WIDTH_IN = 6.4
DPI = 150
STYLE = {"font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10, "legend.fontsize": 9}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> Path:
    fig.savefig(path, dpi=DPI)
    _pyplot().close(fig)
    return path


def plot(report: Report, directory: Path) -> list[Path]:
    """Every plot of the report into ``directory`` (see the module docstring)."""
    plt = _pyplot()
    written = []
    with plt.rc_context(STYLE):
        if report.skills.fits:
            written.append(skills_plot(report, directory / "skills.png"))
        # without a mirrored pair the metrics are "not enough games" (leaderboard.NOT_ENOUGH): no dots for them either
        if report.skills.fits or report.enough_games:
            written.append(scatter_plot(report, directory / "deception_vs_detection.png"))
        if any(c.metric == "win" and c.side == "all" for c in report.comparisons):
            written.append(comparisons_plot(report, directory / "comparisons.png"))
        if report.enough_games:
            written.append(roles_plot(report, directory / "winrate_by_role.png"))
    return written


def _err(value: float, lo: float, hi: float) -> list[list[float]] | None:
    """Whiskers for matplotlib: none when the interval is unknown (NaN: too few deals to draw one),
    and never below 0 (an interval collapsed on its estimate lies ±1e-9 around it)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    return [[max(0.0, value - lo)], [max(0.0, hi - value)]]


def _colors(models: list[str]) -> dict[str, Any]:
    cmap = _pyplot().get_cmap("tab10")
    return {m: cmap(i % 10) for i, m in enumerate(models)}


def skills_plot(report: Report, path: Path) -> Path:
    plt = _pyplot()
    rows = [(fit.variant, s) for fit in report.skills.fits for s in sorted(fit.skills, key=lambda s: s.model)]
    height = 1.3 + 0.32 * len(rows)
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH_IN, height), sharey=True)
    colors = _colors(report.models)
    ys = list(range(len(rows)))[::-1]
    for ax, skill in zip(axes, ("deception", "detection"), strict=True):
        for y, (_variant, s) in zip(ys, rows, strict=True):
            est = getattr(s, skill)
            known = math.isfinite(est.lo)  # hollow: no interval (too few deals)
            color = colors.get(s.model, "black")
            ax.errorbar(est.estimate, y, xerr=_err(est.estimate, est.lo, est.hi), fmt="o", color=color, capsize=3,
                        markersize=5, markerfacecolor=color if known else "white")  # fmt: skip
        ax.axvline(0, color="0.6", linewidth=0.8, zorder=0)
        ax.set_title(f"{skill} (logits)")
        ax.grid(axis="x", color="0.9")
    axes[0].set_yticks(ys, [f"{'all' if v == '*' else v} · {s.model}" for v, s in rows])
    for i in range(1, len(report.skills.fits)):  # a line between variants
        boundary = sum(len(f.skills) for f in report.skills.fits[:i])
        for ax in axes:
            ax.axhline(len(rows) - boundary - 0.5, color="0.8", linewidth=0.8)
    hollow = any(not math.isfinite(getattr(s, k).lo) for _v, s in rows for k in ("deception", "detection"))
    fig.suptitle("Skill model: higher is better (95% intervals" + (";\nhollow: too few deals for one)" if hollow else ")"),
                 fontsize=11)  # fmt: skip
    fig.tight_layout()
    return _save(fig, path)


def scatter_plot(report: Report, path: Path) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 4.8))
    colors = _colors(report.models)
    fits = report.skills.fits
    if fits:
        fit = next((f for f in fits if f.variant == "*"), fits[0])
        for s in fit.skills:
            ax.errorbar(
                s.detection.estimate, s.deception.estimate,
                xerr=_err(s.detection.estimate, s.detection.lo, s.detection.hi),
                yerr=_err(s.deception.estimate, s.deception.lo, s.deception.hi),
                fmt="o", capsize=3, color=colors.get(s.model, "black"), label=s.model,
            )  # fmt: skip
            ax.annotate(s.model, (s.detection.estimate, s.deception.estimate), textcoords="offset points", xytext=(6, 6))
        ax.axhline(0, color="0.7", linewidth=0.8, zorder=0)
        ax.axvline(0, color="0.7", linewidth=0.8, zorder=0)
        ax.set_xlabel("detection as town (logits; 0 = field average)")
        ax.set_ylabel("deception as mafia (logits)")
        where = "all team variants" if fit.variant == "*" else fit.variant
        ax.set_title(f"Deception vs detection, skill model ({where})")
    else:
        shown = 0
        for m in report.models:
            x = report.cells.get((m, "*", "all", "votes_on_mafia_excess"))
            y = report.cells.get((m, "*", "all", "votes_missed_excess"))
            if x is None or y is None:
                continue
            ax.errorbar(x.value, y.value, xerr=_err(x.value, x.lo, x.hi), yerr=_err(y.value, y.lo, y.hi),
                        fmt="o", capsize=3, color=colors.get(m, "black"), label=m)  # fmt: skip
            ax.annotate(m, (x.value, y.value), textcoords="offset points", xytext=(6, 6))
            shown += 1
        ax.axhline(0, color="0.7", linewidth=0.8, zorder=0)
        ax.axvline(0, color="0.7", linewidth=0.8, zorder=0)
        ax.set_xlabel("own town votes on mafia − chance")
        ax.set_ylabel("town votes that missed its team − chance")
        ax.set_title("Votes beyond chance (no skill model: needs ≥ 3 models)")
        if not shown:
            ax.text(0.5, 0.5, "no team-variant votes recorded", ha="center", va="center", transform=ax.transAxes)
    ax.grid(color="0.92")
    fig.tight_layout()
    return _save(fig, path)


def comparisons_plot(report: Report, path: Path) -> Path:
    plt = _pyplot()
    rows = [c for c in report.comparisons if c.metric == "win" and c.side == "all"]
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 1.3 + 0.34 * len(rows)))
    ys = list(range(len(rows)))[::-1]
    for y, c in zip(ys, rows, strict=True):
        color = "#1f5fae" if c.significant else "0.45"
        ax.errorbar(c.diff, y, xerr=_err(c.diff, *c.ci95), fmt="o", capsize=3, color=color,
                    markerfacecolor=color if c.significant else "white", markersize=6)  # fmt: skip
    ax.axvline(0, color="0.6", linewidth=0.8, zorder=0)
    ax.set_yticks(ys, [f"{c.a} − {c.b} · {'all' if c.variant == '*' else c.variant}" for c in rows])
    ax.set_xlabel("win rate of A − win rate of B (mirrored pairs, 95% CI)")
    ax.set_title("Paired win-rate differences\n(filled: Holm-adjusted p < 0.05)")  # one line was cut at 640 px
    ax.grid(axis="x", color="0.9")
    fig.tight_layout()
    return _save(fig, path)


def roles_plot(report: Report, path: Path) -> Path:
    """Dots with whiskers (a win rate of 0 stays visible), one row per variant and role."""
    plt = _pyplot()
    groups = sorted({(k[1], k[2]) for k in report.cells if k[1] != "*" and k[2].startswith("role:") and k[3] == "win"})
    holders = sorted({k[0] for k in report.cells if (k[1], k[2]) in groups and k[3] == "win"})
    models = [m for m in report.models if m in holders] + [h for h in holders if h not in report.models]
    spread = 0.6 / max(1, len(models))
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 1.4 + max(1, len(groups)) * (0.2 + 0.1 * len(models))))
    colors = _colors([*report.models, *[h for h in holders if h not in report.models]])  # a model's colour as in every plot
    for i, m in enumerate(models):
        ys, xs, lo, hi = [], [], [], []
        for j, (v, g) in enumerate(groups):
            c = report.cells.get((m, v, g, "win"))
            if c is None:
                continue
            ys.append(len(groups) - 1 - j + (len(models) - 1) / 2 * spread - i * spread)
            xs.append(c.value)
            whiskers = _err(c.value, c.lo, c.hi) or [[0.0], [0.0]]
            lo.append(whiskers[0][0])
            hi.append(whiskers[1][0])
        ax.errorbar(xs, ys, xerr=[lo, hi], fmt="o", capsize=2, markersize=4, label=m, color=colors[m])
    ax.set_yticks(range(len(groups))[::-1], [f"{v} · {g.split(':', 1)[1]}" for v, g in groups])
    for j in range(len(groups) - 1):
        ax.axhline(j + 0.5, color="0.9", linewidth=0.8)
    ax.set_xlabel("win rate (95% bootstrap interval over games)")
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(-0.6, len(groups) - 0.4)
    ax.set_title("Win rate by role")
    if models:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08 if len(groups) > 4 else -0.2), ncol=min(4, len(models)),
                  frameon=False)  # fmt: skip
    ax.grid(axis="x", color="0.9")
    fig.tight_layout()
    return _save(fig, path)
