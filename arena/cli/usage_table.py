"""The end table of a game with model seats: usage, speed, cost, forfeits and transport failures.

Numbers are never cut: every number column is exactly as wide as its widest cell (or its header's
longest word), and when the whole table does not fit the console, the columns that do not fit go
to a second table (and a third …), each repeating the seat. A long seat spec
(``openai:smollm2@http://127.0.0.1:18080/v1?structured=json_object``, which folded into six lines of
a narrow column) shows as a short label in the table and in full once below it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.engine import Game

SPEC_WIDTH = 12  # the seat spec folds beyond this when the console is narrow
LABEL_WIDTH = 24  # a spec longer than this gets a short label in the table, and is written out below
BORDER = 3  # a box column's overhead: one rule and one space each side


@dataclass(slots=True)
class Column:
    header: str
    cells: list[str]
    number: bool = True

    def width(self) -> int:
        words = max(len(word) for word in self.header.split())
        cells = max((len(c) for c in self.cells), default=0)
        return max(words, min(cells, SPEC_WIDTH) if not self.number else cells)


def _table(title: str, columns: Sequence[Column], bold_last: bool) -> Table:
    table = Table(title=title)
    for column in columns:
        if column.number:
            table.add_column(column.header, justify="right", width=column.width(), no_wrap=False)
        else:
            table.add_column(column.header, overflow="fold")
    rows = len(columns[0].cells)
    for index in range(rows):
        style = "bold" if bold_last and index == rows - 1 else None
        table.add_row(*(c.cells[index] for c in columns), style=style)
    return table


def _fits(columns: Sequence[Column], width: int) -> bool:
    return sum(c.width() for c in columns) + BORDER * len(columns) + 1 <= width


def fit_tables(title: str, key: Column, columns: Sequence[Column], width: int, bold_last: bool) -> list[Table]:
    """One table if everything fits ``width``; else as few as fit, in column order, each led by ``key``."""
    tables: list[Table] = []
    chunk: list[Column] = [key]
    for column in columns:
        if len(chunk) > 1 and not _fits([*chunk, column], width):
            tables.append(_table(title if not tables else f"{title} (continued)", chunk, bold_last))
            chunk = [key]
        chunk.append(column)
    tables.append(_table(title if not tables else f"{title} (continued)", chunk, bold_last))
    return tables


def short_labels(specs: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """Spec -> its label in the table, and the lines that spell out each shortened one.

    A long spec is cut to ``provider:model`` (its ``@URL`` and ``?options`` go to the line below);
    two different long specs with the same model are told apart by a number.
    """
    labels: dict[str, str] = {}
    notes: list[str] = []
    used: dict[str, int] = {}
    for spec in dict.fromkeys(specs):
        if len(spec) <= LABEL_WIDTH:
            labels[spec] = spec
            continue
        base = spec.split("?")[0].split("@")[0]
        used[base] = used.get(base, 0) + 1
        label = base if used[base] == 1 else f"{base} ({used[base]})"
        labels[spec] = label
        notes.append(f"{label} = {spec}")
    return labels, notes


def _forfeits(game: Game | None) -> dict[str, int]:
    if game is None:
        return {}
    from arena.run.transcript import answer_counts

    return {seat: counts["forfeits"] for seat, counts in answer_counts(game).items()}


def print_usage(console: Console, players: Mapping[str, Any], elapsed: float, game: Game | None = None) -> None:
    """The model seats' end table: calls, tokens, the share of prompt tokens served from a cache,
    speed and cost, so a slow or expensive seat shows at once; then each seat's forfeits (from the
    game's log) and transport failures (calls given up after the retry policy). Nothing when no
    seat is a model.

    A local model's seconds are its own work for the seat (waiting for the shared model is not
    counted) and its tok/s is generation speed; an API seat's are the calls' wall time from the
    moment the endpoint had a free call slot (the wait for one is shown apart).
    """
    rows = []
    new_tokens, new_seconds = 0, 0.0  # prompt tokens a local model evaluated (not reused)
    for name, player in players.items():
        usage = getattr(player, "usage", None)
        if usage is None or not hasattr(usage, "as_dict"):
            continue
        stats = getattr(getattr(player, "backend", None), "stats", None)
        if stats is not None:
            seconds, busy = stats.prompt_seconds + stats.output_seconds + stats.switch_seconds, stats.output_seconds
            new_tokens += stats.prompt_tokens - stats.reused_tokens
            new_seconds += stats.prompt_seconds
        else:
            seconds = busy = usage.latency
        rows.append((name, getattr(player, "spec", "?"), usage, seconds, busy))
    if not rows:
        return
    forfeits = _forfeits(game)
    labels, notes = short_labels([spec for _, spec, _, _, _ in rows])
    priced = any(usage.cost for _, _, usage, _, _ in rows)
    lines: list[list[str]] = []

    def line(name: str, spec: str, calls: int, prompt: int, cached: int, output: int, seconds: float, busy: float, cost: float,
             lost: int | None, failed: int, unknown: int = 0) -> None:  # fmt: skip
        # a server that does not report its cached tokens: unknown, not 0%
        share = "unknown" if calls and unknown >= calls else f"{cached / prompt:.0%}" if prompt else "-"
        cells = [name, spec, f"{calls:,}", f"{prompt:,}", share, f"{output:,}"]
        cells += [f"{output / busy:.0f}" if busy else "-", f"{seconds:.1f}", f"{cost:.4f}"]
        cells += ["-" if lost is None else f"{lost:,}", f"{failed:,}"]
        lines.append(cells)

    for name, spec, u, seconds, busy in rows:
        line(name, labels[spec], u.calls, u.input_tokens, u.cached_tokens, u.output_tokens, seconds, busy, u.cost,
             forfeits.get(name) if game is not None else None, u.transport_failures,
             getattr(u, "cache_unknown", 0))  # fmt: skip
    if len(rows) > 1:
        sums = [sum(getattr(r[2], key) for r in rows) for key in ("calls", "input_tokens", "cached_tokens", "output_tokens")]
        seconds, busy, cost = sum(r[3] for r in rows), sum(r[4] for r in rows), sum(r[2].cost for r in rows)
        lost = sum(forfeits.get(r[0], 0) for r in rows) if game is not None else None
        unknown = sum(getattr(r[2], "cache_unknown", 0) for r in rows)
        line("all", "", *sums, seconds, busy, cost, lost, sum(r[2].transport_failures for r in rows), unknown)
    cells = list(zip(*lines, strict=True))
    headers = ("seat", "player", "calls", "prompt tok", "cached", "output tok", "tok/s", "seconds", "cost $")
    columns = [Column(h, list(c), number=h not in ("seat", "player")) for h, c in zip(headers, cells, strict=False)]
    if not priced:
        columns.pop()
    faults = [Column("forfeits", list(cells[9])), Column("transport failures", list(cells[10]))]
    for table in fit_tables("model usage", columns[0], columns[1:] + faults, console.width, len(rows) > 1):
        console.print(table)
    for note in notes:
        console.print(Text(note), highlight=False)
    if not priced:  # a missing column must not read as free calls
        unpriced = "no cost column: no model seat has prices (price_input and price_output of a profile in configs/models.toml)"
        console.print(Text(unpriced), highlight=False)
    text = f"game time {elapsed:.0f} s"
    waited = sum(getattr(u, "queued", 0.0) for _, _, u, _, _ in rows)
    if waited >= 0.05:  # one call at a time per server: seats queue in the arena, not at the model
        text += f"; {waited:.1f} s waiting for a free call slot (not in the seats' seconds)"
    if new_seconds:
        text += f"; local model: {new_tokens:,} new prompt tokens evaluated at {new_tokens / new_seconds:.0f} tok/s"
    console.print(Text(text), highlight=False)
