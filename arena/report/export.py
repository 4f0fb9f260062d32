"""The tables of a report as files: CSV and JSON beside the index, for a spreadsheet or a script.

Each table is written as it is shown (its header and its cells, in words and numbers), so a figure
in a file is the figure on the page.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode


def write_table(folder: Path, name: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> dict[str, str]:
    """``folder/name.csv`` and ``folder/name.json`` (a list of {column: cell}); returns their names by format."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"{name}.csv").open("w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(header)
        writer.writerows([["" if c is None else c for c in row] for row in rows])
    records = [dict(zip(header, row, strict=False)) for row in rows]
    (folder / f"{name}.json").write_text(json.dumps(records, indent=1, default=str) + "\n", encoding="utf-8")
    return {"csv": f"{name}.csv", "json": f"{name}.json"}


def write_tables(folder: Path, name: str, tables: Sequence[tuple[str, Sequence[str], Sequence[Sequence[Any]]]]) -> dict[str, str]:
    """Many tables in one pair of files: JSON as [{title, header, rows}], CSV long (table, row, column, value)."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"{name}.csv").open("w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["table", "row", "column", "value"])
        for title, header, rows in tables:
            for i, row in enumerate(rows):
                writer.writerows([title, i, column, cell] for column, cell in zip(header, row, strict=False))
    data = [{"title": title, "header": list(header), "rows": [list(r) for r in rows]} for title, header, rows in tables]
    (folder / f"{name}.json").write_text(json.dumps(data, indent=1, default=str) + "\n", encoding="utf-8")
    return {"csv": f"{name}.csv", "json": f"{name}.json"}


def games_filter(**values: str | None) -> str:
    """The address that filters an index's games table: ``#games?model=bot&variant=classic``."""
    shown = {k: v for k, v in values.items() if v}
    return "#games?" + urlencode(shown, quote_via=quote) if shown else "#games"
