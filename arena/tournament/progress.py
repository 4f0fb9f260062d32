"""A progress bar for long runs (``arena tournament``, ``arena balance``).

It shows games done / planned, games per second and the time left (both from this run's games
only: a resumed run's skipped games are done but not counted as speed), and for a tournament the
accounted cost so far. It is drawn on stderr and only when stderr is a terminal, so a piped or
redirected run prints exactly what it printed before, without a control code. While it is up,
lines printed to stdout (a tournament's one line per game) scroll above it when stdout is the same
terminal, and go untouched to a file or pipe otherwise.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TaskID, TextColumn
from rich.text import Text


def _clock(seconds: float) -> str:
    hours, rest = divmod(round(seconds), 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"


class _RateColumn(ProgressColumn):
    """games/s, the cost so far and the time left, computed when drawn (so the ETA counts down)."""

    def render(self, task: Task) -> Text:
        fields = task.fields
        done = task.completed - fields["base"]
        elapsed = time.monotonic() - fields["t0"]
        rate = done / elapsed if elapsed > 0 else 0.0
        parts = [f"{rate:.1f} games/s" if rate < 100 else f"{rate:.0f} games/s"]
        if fields.get("cost") is not None:
            parts.append(f"${fields['cost']:.4f}")
        left = (task.total or 0) - task.completed
        parts.append(f"ETA {_clock(left / rate)}" if rate > 0 and left > 0 else ("ETA -:--:--" if left > 0 else "done"))
        return Text(" · ".join(parts))


class RunProgress:
    """A progress bar over a run's games; a no-op off a terminal. Use as a context manager.

    :meth:`update` takes the games done (skipped ones included), the games planned and,
    with ``cost``, the dollars accounted so far; the first call fixes where this run started.
    """

    def __init__(self, *, label: str = "games", cost: bool = False, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.enabled = self.console.is_terminal and not self.console.is_dumb_terminal
        self.label = label
        self.cost = cost
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> RunProgress:
        if self.enabled:
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                _RateColumn(),
                console=self.console,
                redirect_stdout=sys.stdout.isatty(),
                redirect_stderr=False,
            )
            self._progress.start()
        return self

    def update(self, done: int, planned: int, cost: float | None = None) -> None:
        if self._progress is None:
            return
        if self._task is None:
            self._task = self._progress.add_task(
                self.label, total=planned, completed=done, base=done, t0=time.monotonic(),
                cost=cost if self.cost else None,
            )  # fmt: skip
            return
        fields = {"cost": cost} if cost is not None and self.cost else {}
        self._progress.update(self._task, completed=done, total=planned, **fields)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
