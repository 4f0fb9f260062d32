"""Charts drawn as inline SVG: nothing fetched, one file still, and they shrink with the screen.

A game page gets suspicion over the days (each seat's stated beliefs as lines when a tournament
asked for them; otherwise the accusations and votes each seat drew, day by day), how many were
alive on each side, and McKay's scores hand by hand. A tournament gets each model's win rate by
side with its 95% interval, and the games of each pairing over the rounds. Every chart is built
from what the page already shows, from events its view saw.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from markupsafe import Markup

SIDE_COLOURS = {"town": "#1f5fae", "mafia": "#b3261e", "maniac": "#7a3bb0", "A": "#b3261e", "B": "#1f5fae", "all": "#2e7d5b"}
PALETTE = ("#1f5fae", "#b3261e", "#2e7d5b", "#7a3bb0", "#c77700", "#00838f", "#6d4c41", "#ad1457", "#546e7a", "#9e9d24")

W, H = 520, 220
LEFT, RIGHT, TOP, BOTTOM = 40, 90, 12, 28


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


CHAR_W = 6.6  # the width of one character of 11-px text, near enough, to keep labels apart


def x_labels(positions: Sequence[float], labels: Sequence[str]) -> list[str]:
    """The x axis's labels that fit without touching ("round 1round 20round 39" ran together): every
    k-th (k from the widest label and the spacing), each centred on its x but kept inside the chart,
    and any that would touch the one before left out (the last one is tried too)."""
    if not labels:
        return []
    widest = CHAR_W * max(len(label) for label in labels) + 10
    spacing = (positions[-1] - positions[0]) / (len(positions) - 1) if len(positions) > 1 else widest
    step = max(1, math.ceil(widest / max(spacing, 1e-9)))
    candidates = list(range(0, len(labels), step))
    if candidates[-1] != len(labels) - 1:
        candidates.append(len(labels) - 1)
    out, right_edge = [], -math.inf
    for i in candidates:
        half = CHAR_W * len(labels[i]) / 2
        cx = min(max(positions[i], 2 + half), W - 2 - half)
        if cx - half < right_edge + 10:
            continue
        right_edge = cx + half
        at = f'x="{cx:.1f}" y="{H - 8}" font-size="11" text-anchor="middle"'
        out.append(f'<text {at} fill="#666b73">{escape(labels[i])}</text>')
    return out


def line_chart(
    title: str,
    xs: Sequence[str],
    series: Sequence[tuple[str, str, Sequence[float | None]]],
    *,
    y_max: float | None = None,
    y_label: str = "",
    percent: bool = False,
) -> Markup:
    """Lines over labelled x positions: ``series`` is (name, colour, values), None where a value is missing.

    The SVG scales to its container (``viewBox``), so it never makes a narrow page wider.
    """
    values = [v for _, _, vs in series for v in vs if v is not None]
    if not xs or not values:
        return Markup("")
    top = y_max if y_max is not None else max(max(values), 1.0)
    right = min(170, max(RIGHT, 14 + int(7 * (2 + max(len(name) for name, _, _ in series)))))
    plot_w, plot_h = W - LEFT - right, H - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (plot_w * i / (len(xs) - 1) if len(xs) > 1 else plot_w / 2)

    def y(v: float) -> float:
        return TOP + plot_h * (1 - v / top) if top else TOP + plot_h

    out = [
        f'<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
    ]
    for frac in (0, 0.5, 1):
        v = top * frac
        label = f"{v:.0%}" if percent else _num(v)
        out.append(f'<line x1="{LEFT}" x2="{W - right}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#e3e5e8"/>')
        out.append(f'<text x="{LEFT - 4}" y="{y(v) + 4:.1f}" font-size="11" text-anchor="end" fill="#666b73">{label}</text>')
    out += x_labels([x(i) for i in range(len(xs))], xs)
    if y_label:
        out.append(f'<text x="4" y="{TOP + 2}" font-size="11" fill="#666b73">{escape(y_label)}</text>')
    ends: list[tuple[float, str, str]] = []
    for name, colour, vs in series:
        points = [(x(i), y(v)) for i, v in enumerate(vs) if v is not None]
        if not points:
            continue
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        out.append(
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"><title>{escape(name)}</title></polyline>'
        )
        for (px, py), v in zip(points, [v for v in vs if v is not None], strict=True):
            shown = f"{v:.0%}" if percent else _num(v)
            out.append(
                f'<circle cx="{px:.1f}" cy="{py:.1f}" r="2.5" fill="{colour}"><title>{escape(name)}: {shown}</title></circle>'
            )
        ends.append((points[-1][1], name, colour))
    ends.sort()
    placed: list[float] = []
    for py, _name, _colour in ends:  # the names at the lines' ends, nudged apart
        placed.append(max(py, placed[-1] + 12) if placed else py)
    over = (placed[-1] - (TOP + plot_h)) if placed else 0.0
    if over > 0:  # kept above the x axis's labels: the chain moves up, no higher than the top
        placed = [max(TOP, p - over) for p in placed]
        for i in range(1, len(placed)):
            placed[i] = max(placed[i], placed[i - 1] + 12)
    for py, (_, name, colour) in zip(placed, ends, strict=True):
        out.append(f'<text x="{W - right + 6}" y="{py + 4:.1f}" font-size="11" fill="{colour}">{escape(name)}</text>')
    out.append("</svg>")
    return Markup("".join(out))


def interval_chart(title: str, rows: Sequence[tuple[str, str, float, float, float, str]]) -> Markup:
    """One row per (label, colour, estimate, low, high, note): a dot with its interval on a 0–100% axis."""
    if not rows:
        return Markup("")
    row_h, left, right = 22, 190, 60
    h = TOP + row_h * len(rows) + BOTTOM
    plot_w = W - left - right

    def x(v: float) -> float:
        return left + plot_w * max(0.0, min(1.0, v))

    out = [
        f'<svg class="chart" viewBox="0 0 {W} {h}" role="img" aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
    ]
    for frac in (0, 0.5, 1):
        out.append(f'<line x1="{x(frac):.1f}" x2="{x(frac):.1f}" y1="{TOP}" y2="{h - BOTTOM}" stroke="#e3e5e8"/>')
        out.append(f'<text x="{x(frac):.1f}" y="{h - 8}" font-size="11" text-anchor="middle" fill="#666b73">{frac:.0%}</text>')
    for i, (label, colour, est, lo, hi, note) in enumerate(rows):
        cy = TOP + row_h * i + row_h / 2
        out.append(
            f'<text x="{left - 6}" y="{cy + 4:.1f}" font-size="11" text-anchor="end" fill="#1d1f23">{escape(label)}</text>'
        )
        out.append(f'<line x1="{x(lo):.1f}" x2="{x(hi):.1f}" y1="{cy:.1f}" y2="{cy:.1f}" stroke="{colour}" stroke-width="2"/>')
        tip = f"{label}: {est:.0%} [{lo:.0%}, {hi:.0%}] {note}"
        out.append(f'<circle cx="{x(est):.1f}" cy="{cy:.1f}" r="4" fill="{colour}"><title>{escape(tip)}</title></circle>')
        out.append(f'<text x="{W - right + 6}" y="{cy + 4:.1f}" font-size="11" fill="#666b73">{escape(note)}</text>')
    out.append("</svg>")
    return Markup("".join(out))


def stacked_bars(title: str, xs: Sequence[str], series: Sequence[tuple[str, str, Sequence[float]]]) -> Markup:
    """A bar per x, stacked by series (name, colour, values): how a total splits, x by x."""
    totals = [sum(vs[i] for _, _, vs in series) for i in range(len(xs))]
    if not xs or not any(totals):
        return Markup("")
    right = min(170, max(RIGHT, 14 + int(7 * (2 + max(len(name) for name, _, _ in series)))))
    plot_w, plot_h = W - LEFT - right, H - TOP - BOTTOM
    top = max(totals)
    bar = min(48.0, plot_w / len(xs) * 0.7)
    out = [
        f'<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f'<text x="{LEFT - 4}" y="{TOP + 4}" font-size="11" text-anchor="end" fill="#666b73">{_num(top)}</text>',
        f'<text x="{LEFT - 4}" y="{TOP + plot_h + 4}" font-size="11" text-anchor="end" fill="#666b73">0</text>',
    ]
    centres = [LEFT + plot_w * (i + 0.5) / len(xs) for i in range(len(xs))]
    out += x_labels(centres, xs)
    for i, label in enumerate(xs):
        cx = centres[i]
        y = TOP + plot_h
        for name, colour, vs in series:
            if not vs[i]:
                continue
            h = plot_h * vs[i] / top
            y -= h
            tip = f"{label}, {name}: {_num(vs[i])}"
            out.append(
                f'<rect x="{cx - bar / 2:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{h:.1f}" fill="{colour}" stroke="#fff">'
                f"<title>{escape(tip)}</title></rect>"
            )
    for j, (name, colour, _) in enumerate(series):
        out.append(f'<text x="{W - right + 6}" y="{TOP + 10 + 14 * j}" font-size="11" fill="{colour}">■ {escape(name)}</text>')
    out.append("</svg>")
    return Markup("".join(out))


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (it stays inside [0, 1] and is honest at 0 or n wins)."""
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


# ---- a game --------------------------------------------------------------------------------------
def game_charts(story: Any) -> list[dict[str, Any]]:
    """The game page's charts: [{"title", "svg", "to"}], ``to`` gating a chart like an event ([] = moderator only)."""
    out: list[dict[str, Any]] = []
    order = {n: i for i, n in enumerate(s.name for s in story.seats)}
    colour = {name: PALETTE[i % len(PALETTE)] for name, i in order.items()}
    for grid in story.beliefs:
        days = grid["days"]
        series = [(t, colour.get(t, "#666"), [grid["cells"][t].get(d) for d in days]) for t in grid["targets"]]
        svg = line_chart(
            f"{grid['seat']}: P(mafia) of each player, by day", [f"day {d}" for d in days], series, y_max=1.0, percent=True
        )
        out.append({"title": f"{grid['seat']}’s suspicion of each player, by day", "svg": svg, "to": [grid["seat"]]})
    if story.mckay:
        hands, scores = [], defaultdict(list)
        for e in story.events:
            if e.type == "hand_over" and e.to is None:
                hands.append(f"hand {e.data.get('number')}")
                for seat in order:
                    value = (e.data.get("scores") or {}).get(seat)
                    scores[seat].append(float(value) if isinstance(value, int | float) else None)
        if hands:
            series = [(n, colour[n], scores[n]) for n in order]
            top = max([v for vs in scores.values() for v in vs if v is not None] + [1.0])
            out.append(
                {
                    "title": "Score after each hand",
                    "svg": line_chart("score after each hand", hands, series, y_max=top),
                    "to": None,
                }
            )
        return out
    if not story.beliefs:
        xs, drawn = _suspicion(story.events, list(order))
        if xs:
            series = [(n, colour[n], drawn[n]) for n in order if any(drawn[n])]
            svg = line_chart("accusations and votes against each player, by day", xs, series)
            out.append(
                {"title": "Suspicion: accusations, nominations and votes against each player, by day", "svg": svg, "to": None}
            )
    xs, alive = _alive(story)
    if xs:
        total = [("alive", SIDE_COLOURS["all"], alive.pop("all"))]
        out.append({"title": "Players alive", "svg": line_chart("players alive", xs, total, y_max=len(order)), "to": None})
        if alive and story.viewer is None:  # the sides are the cards: the moderator's to see
            series = [(side, SIDE_COLOURS.get(side, "#666"), vs) for side, vs in sorted(alive.items())]
            out.append({"title": "Alive by side", "svg": line_chart("alive by side", xs, series, y_max=len(order)), "to": []})
    return out


def _suspicion(events: Sequence[Any], seats: list[str]) -> tuple[list[str], dict[str, list[float | None]]]:
    """Per public day: each seat's accusations, nominations and votes drawn against it (public events
    only); None for the days a seat began dead, so its line ends where it died."""
    xs: list[str] = []
    counts: list[Counter[str]] = []
    dead: set[str] = set()
    gone: list[set[str]] = []  # who was dead when each day began: no point for them (a line at 0 read as unsuspected)
    for e in events:
        if e.to is not None:
            continue
        if e.type == "death" and e.data.get("player"):
            dead.add(str(e.data["player"]))
        if e.type == "day":
            xs.append(f"day {e.data.get('number', e.day)}")
            counts.append(Counter())
            gone.append(set(dead))
        elif counts and e.type == "speech":
            target = e.data.get("accuse") or e.data.get("nominate")
            if target:
                counts[-1][str(target)] += 1
        elif counts and e.type == "vote_result":
            if "yes" in e.data and e.data.get("accused"):
                counts[-1][str(e.data["accused"])] += len(e.data.get("yes") or [])
            for target in (e.data.get("votes") or {}).values():
                if target is not None:
                    counts[-1][str(target)] += 1
    return xs, {
        n: [None if n in g and not c.get(n) else float(c.get(n, 0)) for c, g in zip(counts, gone, strict=True)] for n in seats
    }


def _alive(story: Any) -> tuple[list[str], dict[str, list[float | None]]]:
    """Alive at the start of each day and night: in all, and by side (from the story's seats' cards)."""
    side = {s.name: s.team for s in story.seats}
    alive = [s.name for s in story.seats]
    xs: list[str] = []
    rows: dict[str, list[float | None]] = defaultdict(list)
    sides = sorted({t for t in side.values() if t})
    for e in [*story.events, None]:
        if e is None or (e.type in ("day", "night") and e.to is None):
            label = "end" if e is None else f"{e.type} {e.data.get('number', e.day)}"
            xs.append(label)
            rows["all"].append(float(len(alive)))
            for t in sides:
                rows[t].append(float(sum(1 for n in alive if side.get(n) == t)))
        elif e.type == "death" and e.to is None and e.data.get("player") in alive:
            alive.remove(str(e.data["player"]))
    if len(xs) < 2:
        return [], {}
    return xs, dict(rows)


# ---- a tournament --------------------------------------------------------------------------------
def tournament_charts(players: Sequence[Mapping[str, Any]], games: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Win rate by side per model (Wilson 95% intervals) and the games of each pairing, round by round."""
    out: list[dict[str, Any]] = []
    variant = {str(g["key"]): str(g["variant"]) for g in games}
    tally: dict[tuple[str, str, str], list[float]] = defaultdict(lambda: [0.0, 0])
    seen: set[tuple[str, str, str]] = set()
    for p in players:
        key = (str(p["game"]), str(p["model"]), str(p["side"]))
        if key in seen:  # a model's seats on one side of one game are one result
            continue
        seen.add(key)
        cell = tally[(str(p["model"]), variant.get(str(p["game"]), "?"), str(p["side"]))]
        cell[0] += float(p["result"] or 0)
        cell[1] += 1
    rows = []
    for (model, game, side), (wins, n) in sorted(tally.items()):
        lo, hi = wilson(wins, int(n))
        label = f"{model} · {game} {side if side not in ('A', 'B') else 'side ' + side}"
        rows.append((label, SIDE_COLOURS.get(side, "#666"), wins / n if n else 0.0, lo, hi, f"{_num(wins)}/{int(n)}"))
    if rows:
        svg = interval_chart("win rate by side per model", rows)
        title = (
            "Win rate by side per model, with 95% intervals (Wilson, over games; each against the opponents it met: "
            "descriptive, not a comparison)"
        )
        out.append({"title": title, "svg": svg})
    rounds = sorted({int(g["round"]) for g in games})
    per: dict[str, Counter[int]] = defaultdict(Counter)
    for g in games:
        per[str(g["pairing"])][int(g["round"])] += 1
    if rounds and per:
        series = [
            (pairing.replace("~", " vs "), PALETTE[i % len(PALETTE)], [float(per[pairing].get(r, 0)) for r in rounds])
            for i, pairing in enumerate(sorted(per))
        ]
        svg = stacked_bars("games per pairing, by round", [f"round {r}" for r in rounds], series)
        out.append({"title": "Games played per pairing, by round", "svg": svg})
    return out
