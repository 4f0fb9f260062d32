"""Lines typed at the terminal, delivered to the event loop without ever blocking it.

One daemon thread calls ``input()`` (so readline's editing, history and tab completion work)
whenever a prompt is asked and hands each line to an ``asyncio.Queue``; meanwhile the bots and
models of a simultaneous step keep deciding on the loop. Ctrl-C is taken on the loop (a SIGINT
handler) and delivered as :data:`INTERRUPT`; the end of input as :data:`EOF`.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import queue
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol


class Key(enum.Enum):
    EOF = "end of input"
    INTERRUPT = "interrupt"


EOF = Key.EOF
INTERRUPT = Key.INTERRUPT


class Keyboard(Protocol):
    """Where a human's lines come from (the terminal, or a script in tests)."""

    waiting: bool

    def start(self, loop: asyncio.AbstractEventLoop, on_interrupt: Callable[[], None]) -> None: ...

    async def read(self, prompt: str, words: Sequence[str] = ()) -> str | Key: ...

    def interrupt(self) -> None: ...

    def close(self) -> None: ...


def _readline() -> Any:
    try:
        import readline
    except ImportError:  # no readline (Windows): plain input() still works
        return None
    return readline


class TerminalKeyboard:
    """stdin through one reader thread; a prompt left unanswered (time ran out) stays open."""

    def __init__(self) -> None:
        self.waiting = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lines: asyncio.Queue[str | Key] | None = None
        self._prompts: queue.Queue[str] = queue.Queue()
        self._pending = False  # a prompt is out: the thread is inside input()
        self._words: Sequence[str] = ()
        self._partial = ""  # what was half typed when Ctrl-C came (readline keeps it)
        self._signal = False
        self._tty: Any = None
        self._readline = _readline()

    def start(self, loop: asyncio.AbstractEventLoop, on_interrupt: Callable[[], None]) -> None:
        if self._loop is not None:
            return
        self._loop = loop
        self._lines = asyncio.Queue()
        self._save_terminal()
        self._setup_completion()
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread / no signals
            loop.add_signal_handler(signal.SIGINT, on_interrupt)
            self._signal = True
        threading.Thread(target=self._run, name="human-keyboard", daemon=True).start()

    def _run(self) -> None:
        loop, lines = self._loop, self._lines
        assert loop is not None and lines is not None
        while True:
            prompt = self._prompts.get()
            try:
                line: str | Key = input(prompt)
            except EOFError:
                line = EOF
            except (KeyboardInterrupt, OSError, ValueError):  # stdin closed under us
                line = EOF
            try:
                loop.call_soon_threadsafe(lines.put_nowait, line)
            except RuntimeError:  # the loop is closed: the game is over
                return
            if line is EOF:
                return

    async def read(self, prompt: str, words: Sequence[str] = ()) -> str | Key:
        assert self._lines is not None, "start() first"
        self._words = list(words)
        if not self._pending:
            self._pending = True
            self._prompts.put(prompt)
        else:  # the earlier prompt is still open (its time ran out): the next line answers this one
            sys.stdout.write(prompt)
            sys.stdout.flush()
        self.waiting = True
        try:
            item = await self._lines.get()
        finally:
            self.waiting = False
        if item is INTERRUPT:
            return item
        self._pending = False
        if isinstance(item, str) and self._partial:
            item = item.removeprefix(self._partial)
            self._partial = ""
        return item

    def interrupt(self) -> None:
        """Ctrl-C while a prompt waits: wake the reader with :data:`INTERRUPT`."""
        if self._readline is not None and self._pending:
            with contextlib.suppress(Exception):
                self._partial = self._readline.get_line_buffer()
        if self._lines is not None and self.waiting:
            self._lines.put_nowait(INTERRUPT)

    def close(self) -> None:
        """Give SIGINT back and leave the terminal as it was (a reader may still be in input())."""
        if self._signal and self._loop is not None:
            with contextlib.suppress(Exception):
                self._loop.remove_signal_handler(signal.SIGINT)
            self._signal = False
        if self._tty is not None:
            import termios

            with contextlib.suppress(Exception):
                termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, self._tty)

    # ---- terminal niceties ------------------------------------------------------------------
    def _save_terminal(self) -> None:
        try:
            import termios

            if sys.stdin.isatty():
                self._tty = termios.tcgetattr(sys.stdin.fileno())
        except (ImportError, OSError, ValueError):
            self._tty = None

    def _setup_completion(self) -> None:
        rl = self._readline
        if rl is None or not sys.stdin.isatty():
            return
        rl.set_completer(self._complete)
        rl.set_completer_delims(" \t,:")
        if "libedit" in (rl.__doc__ or ""):
            rl.parse_and_bind("bind ^I rl_complete")
        else:
            rl.parse_and_bind("tab: complete")

    def _complete(self, text: str, state: int) -> str | None:
        low = text.lower()
        found = [w for w in self._words if w.lower().startswith(low)]
        return found[state] if state < len(found) else None
