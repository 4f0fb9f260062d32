"""Lines typed at the terminal, read in the main thread while the game runs on an event loop.

:meth:`TerminalKeyboard.play` runs the game in a worker thread and answers its prompts in the
main thread, where ``input()`` (with readline's editing, history and Tab completion) can be
interrupted by a signal: that is what lets a prompt show a live countdown and be withdrawn when
its time is up (a beat of McKay's games, ``--human-timeout``) without losing what was typed.

- A prompt with a deadline shows the seconds left in front of it (``[ 7s] move> ``), redrawn
  every second; when the time is up the prompt is withdrawn, and what was typed in it is not sent
  and said so (``— time is up; not sent: 'kill B'``).
- An answer belongs to the question it was typed under. Each prompt names its ``question`` (the
  game's decision); when a new one is asked, the words of an earlier one are dropped, and so are
  keys typed while no question was open (a complete line among them is named on screen), so a key
  pressed as one beat ends never answers the next beat or the next hand.
- Ctrl-C is read here too: at a prompt it answers :data:`INTERRUPT` and keeps the half-typed words
  for the same question (the person answers "Quit? N" and finds the line as it was); between
  prompts it calls ``on_interrupt`` on the game's loop. The end of input answers :data:`EOF`.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import os
import queue
import select
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
TICK = 0.2  # seconds between checks of a waiting prompt (countdown, withdrawal, end of the game)
# POSIX interval timers interrupt input() for the countdown; without them (Windows) a prompt is
# still answered, only not redrawn or withdrawn before Enter (its line then goes to the next one)
TIMERS = hasattr(signal, "setitimer") and hasattr(signal, "SIGALRM")


class Key(enum.Enum):
    EOF = "end of input"
    INTERRUPT = "interrupt"


EOF = Key.EOF
INTERRUPT = Key.INTERRUPT


class Keyboard(Protocol):
    """Where a human's lines come from (the terminal, or a script in tests).

    ``deadline`` (event-loop time) asks for a countdown; a keyboard may ignore it (the caller
    withdraws the prompt by cancelling ``read`` when the time is up). ``aside`` marks a question
    asked in between (quit?): words half typed before it wait for the question after it.
    ``question`` names the decision a prompt belongs to: a prompt of another one starts empty, and
    keys typed before it do not answer it.
    """

    waiting: bool

    def start(self, loop: asyncio.AbstractEventLoop, on_interrupt: Callable[[], None]) -> None: ...

    async def read(
        self,
        prompt: str,
        words: Sequence[str] = (),
        *,
        deadline: float | None = None,
        aside: bool = False,
        question: object = None,
    ) -> str | Key: ...

    def interrupt(self) -> None: ...

    def close(self) -> None: ...


def _readline() -> Any:
    try:
        import readline
    except ImportError:  # no readline (Windows): plain input() still works
        return None
    return readline


class _Withdrawn(Exception):
    """Raised in the main thread, inside ``input()``, when the open prompt is no longer wanted."""


@dataclass(eq=False)
class _Prompt:
    """One question from the game's loop, answered in the main thread."""

    text: str
    words: Sequence[str]
    deadline: float | None  # time.monotonic() when it is withdrawn
    future: asyncio.Future[str | Key]
    loop: asyncio.AbstractEventLoop
    withdrawn: threading.Event = field(default_factory=threading.Event)
    closed: bool = False  # its line on screen is finished (answered or withdrawn): never redrawn
    aside: bool = False  # a question in between (quit?): the half-typed words wait for the next one
    question: object = None  # the decision it belongs to: typing carries over only within one

    def answer(self, item: str | Key) -> None:
        def settle() -> None:
            if not self.future.done():
                self.future.set_result(item)

        with contextlib.suppress(RuntimeError):  # the loop is closed: the game is over
            self.loop.call_soon_threadsafe(settle)

    def seconds_left(self) -> int | None:
        if self.deadline is None:
            return None
        return max(0, int(self.deadline - time.monotonic() + 0.999))


def _input(prompt: str) -> str:
    """``input()``, with the exception of whichever of our signal handlers interrupted it.

    When Ctrl-C and the countdown's tick arrive together, CPython's ``input()`` runs the second
    handler while the first one's exception is still set, and raises ``SystemError(... returned a
    result with an exception set)`` with that exception as its cause: the cause is what happened.
    """
    try:
        line = input(prompt)
        if not sys.stdin.isatty():  # answers from a file or a pipe: the screen reads as at a terminal
            print(line, flush=True)
        return line
    except SystemError as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt | _Withdrawn):
            raise exc.__cause__ from None
        raise


def _a_terminal() -> bool:
    try:
        return sys.stdin.isatty()
    except (OSError, ValueError):  # stdin closed
        return False


class TerminalKeyboard:
    """stdin in the main thread; the game's loop asks for lines from its own thread (:meth:`play`)."""

    def __init__(self) -> None:
        self.waiting = False
        self.ended = False  # the input has ended for good (not a terminal's Ctrl-D): nobody can answer
        self._loop: asyncio.AbstractEventLoop | None = None
        self._on_interrupt: Callable[[], None] | None = None
        self._prompts: queue.Queue[_Prompt] = queue.Queue()
        self._carry: tuple[object, str] | None = None  # (question, words) typed into an interrupted prompt
        self._question: object = None  # the question of the last prompt asked
        self._reading = False  # the main thread is inside input(): a withdrawal may interrupt it
        self._open: _Prompt | None = None  # the prompt inside input() now
        self._shown: int | None = None  # the countdown on screen
        self._done = threading.Event()  # the game is over: stop reading
        self._screen = threading.RLock()  # one writer at a time on the prompt's line
        self._status: tuple[str, float, str] | None = None  # a countdown line with no question: text, end, final words
        self._status_left = -1
        self._serving = False  # play() is reading the terminal in the main thread
        self._words: Sequence[str] = ()
        self._tty: Any = None
        self._readline = _readline()
        self._fancy = sys.stdout.isatty() and os.environ.get("TERM", "dumb") not in ("", "dumb")

    # ---- the game's side (its event loop, in the worker thread) -------------------------------
    def start(self, loop: asyncio.AbstractEventLoop, on_interrupt: Callable[[], None]) -> None:
        self._loop = loop
        self._on_interrupt = on_interrupt

    async def read(
        self,
        prompt: str,
        words: Sequence[str] = (),
        *,
        deadline: float | None = None,
        aside: bool = False,
        question: object = None,
    ) -> str | Key:
        if not self._serving:
            raise RuntimeError("nobody reads the terminal: run the game with TerminalKeyboard.play()")
        loop = asyncio.get_running_loop()
        until = None if deadline is None else time.monotonic() + (deadline - loop.time())
        job = _Prompt(prompt, list(words), until, loop.create_future(), loop, aside=aside, question=question)
        self._prompts.put(job)
        self.waiting = True
        try:
            return await job.future
        finally:  # answered, or cancelled (time is up): either way nobody waits for it any more
            job.withdrawn.set()
            self.waiting = False
            self._finish_line(job)

    @contextlib.contextmanager
    def above_prompt(self) -> Iterator[None]:
        """Print above the open prompt (from the game's thread): the prompt and what is typed in it
        are drawn again below what was printed, so nothing lands in the middle of a line."""
        with self._screen:
            self._end_status()  # a beat's countdown line ends where the game has news
            job = self._open
            if job is None or job.closed:
                yield
                return
            sys.stdout.write("\r\x1b[K" if self._fancy else "\n")
            sys.stdout.flush()
            try:
                yield
            finally:
                sys.stdout.write(self._prompt_text(job) + self._line_buffer())
                sys.stdout.flush()

    def show_status(self, text: str, deadline: float, final: str) -> None:
        """A line counting down to ``deadline`` (event-loop time) while nothing is asked: a beat in
        which the person has no move; it becomes ``final`` when it ends (by news, or a question)."""
        loop = asyncio.get_running_loop()
        until = time.monotonic() + (deadline - loop.time())
        with self._screen:
            self._end_status()
            if not sys.stdout.isatty():
                print(final, flush=True)
                return
            self._status = (text, until, final)
            self._draw_status()

    def _draw_status(self) -> None:
        """(Re)draw the countdown line; the caller holds the screen lock."""
        if self._status is None:
            return
        text, until, final = self._status
        left = max(0, int(until - time.monotonic() + 0.999))
        line = f"[{left:2d}s] {text}"
        sys.stdout.write(("\r\x1b[K" if self._fancy else "\r") + line.ljust(len(final)))
        sys.stdout.flush()
        self._status_left = left

    def _end_status(self) -> None:
        """Turn the countdown line into its final words and end it; the caller holds the screen lock."""
        if self._status is None:
            return
        text, _, final = self._status
        self._status = None
        width = len(text) + 6  # the "[ 7s] " in front
        sys.stdout.write(("\r\x1b[K" if self._fancy else "\r") + final.ljust(width) + "\n")
        sys.stdout.flush()

    def _tick_status(self) -> None:
        with self._screen:
            if self._status is None:
                return
            if time.monotonic() >= self._status[1]:
                self._end_status()
            elif max(0, int(self._status[1] - time.monotonic() + 0.999)) != self._status_left:
                self._draw_status()

    def _finish_line(self, job: _Prompt) -> None:
        """End an open prompt's line at once when the game no longer waits for it (its time is up),
        so what the game prints next starts on a line of its own."""
        with self._screen:
            answered = job.future.done() and not job.future.cancelled()
            if self._open is job and not job.closed and not answered:
                late = job.deadline is not None and time.monotonic() >= job.deadline - 0.05
                typed = "" if job.aside else self._line_buffer().strip()
                gap = " " if typed or not job.text.endswith(" ") else ""  # "move> — time is up", not two spaces
                note = (f"{gap}— time is up" if late else "") + (f"; not sent: '{typed}'" if typed else "")
                sys.stdout.write(note + "\n")
                sys.stdout.flush()
                job.closed = True
                self._wake()

    def _wake(self) -> None:
        """Interrupt the main thread's ``input()`` now (not at the next tick), so that keys typed
        after a question was withdrawn are not read into its line."""
        if TIMERS and self._reading and hasattr(signal, "pthread_kill"):
            with contextlib.suppress(OSError, ValueError):
                signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGALRM)

    def interrupt(self) -> None:
        """Nothing to do: Ctrl-C at a prompt is answered in the main thread."""

    def close(self) -> None:
        """Leave the terminal as it was."""
        if self._tty is not None:
            import termios

            with contextlib.suppress(Exception):
                termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, self._tty)

    # ---- the main thread ------------------------------------------------------------------------
    def play(self, game: Callable[[], T]) -> T:
        """Run ``game()`` in a worker thread and answer its prompts here until it returns.

        Its result is returned and its exception raised here, as if it had run in this thread.
        """
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("the terminal is read in the main thread: call play() from it")
        outcome: list[Any] = []

        def worker() -> None:
            # Ctrl-C and the countdown's tick must wake the main thread out of input(): a signal the
            # kernel handed to this thread instead would leave it asleep (and its typing unread).
            if hasattr(signal, "pthread_sigmask"):
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, *([signal.SIGALRM] if TIMERS else [])})
            try:
                outcome.append((True, game()))
            except BaseException as exc:  # handed to the main thread
                outcome.append((False, exc))
            finally:
                self._done.set()

        self._save_terminal()
        self._setup_completion()
        old_int = signal.signal(signal.SIGINT, self._on_sigint)
        old_alarm = signal.signal(signal.SIGALRM, self._on_tick) if TIMERS else None
        thread = threading.Thread(target=worker, name="arena-game", daemon=True)
        self._serving = True
        thread.start()
        try:
            self._serve()
        finally:
            self._serving = False
            if TIMERS:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, old_alarm)
            signal.signal(signal.SIGINT, old_int)
        with self._screen:
            self._end_status()
        thread.join()
        ok, value = outcome[0]
        if not ok:
            raise value
        return value

    def _serve(self) -> None:
        while not self._done.is_set():
            try:
                try:
                    job = self._prompts.get(timeout=TICK)
                except queue.Empty:
                    self._tick_status()
                    continue
                if not job.withdrawn.is_set():
                    with self._screen:
                        self._end_status()
                    try:
                        self._ask(job)
                    except _Withdrawn:  # the tick came between input()'s return and its cleanup
                        self._close_prompt(job)
            except KeyboardInterrupt:  # Ctrl-C between prompts: the game asks whether to quit
                self._between_prompts()

    def _between_prompts(self) -> None:
        self._drop_typeahead()
        print(flush=True)
        try:
            job = self._prompts.get_nowait()
        except queue.Empty:
            job = None
        if job is not None and not job.withdrawn.is_set():  # a question was on its way: this answers it
            job.answer(INTERRUPT)
            return
        loop, handler = self._loop, self._on_interrupt
        if loop is not None and handler is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(handler)

    def _ask(self, job: _Prompt) -> None:
        """``input()`` for one prompt, redrawn each second while it counts down."""
        carry = ""
        if not job.aside:
            if job.question != self._question:  # a new question: nothing typed before it answers it
                self._question = job.question
                self._drop_earlier_keys()
            kept, self._carry = self._carry, None
            if kept is not None and kept[0] == job.question:
                carry = kept[1]
        with self._screen:
            self._open, self._shown = job, job.seconds_left()
        self._set_prefill(carry)
        self._words = job.words
        try:
            if TIMERS:
                signal.setitimer(signal.ITIMER_REAL, TICK, TICK)
            self._reading = True
            if job.withdrawn.is_set():  # withdrawn on its way here: not asked at all
                raise _Withdrawn
            line = _input(self._prompt_text(job))
        except _Withdrawn:  # the prompt stays on screen as typed; the next one starts below
            with self._screen:
                if not job.closed:
                    print(flush=True)
                    job.closed = True
            return
        except KeyboardInterrupt:
            self._drop_typeahead()
            print(flush=True)
            job.answer(INTERRUPT)
            return
        except (EOFError, OSError, ValueError):  # end of input, or stdin closed under us
            self.ended = self.ended or not _a_terminal()  # a pipe or a file has ended for good; Ctrl-D at a terminal has not
            job.answer(EOF)
            return
        finally:
            self._close_prompt(job)
        if job.withdrawn.is_set():  # the line came as the time ran out: it answers nothing
            if line.strip() and not job.aside:
                self._note(f"too late: '{line.strip()}' was not sent")
            return
        job.answer(line)

    def _close_prompt(self, job: _Prompt) -> None:
        """After ``input()``: no more ticks, and the prompt's line is finished."""
        self._reading = False
        if TIMERS:
            signal.setitimer(signal.ITIMER_REAL, 0)
        with self._screen:
            job.closed = True  # input() ended its line
            self._open = None
        self._set_prefill("")

    def _note(self, text: str) -> None:
        with self._screen:
            sys.stdout.write(f"({text})\n")
            sys.stdout.flush()

    def _drop_earlier_keys(self) -> None:
        """Keys typed before this question was asked (while none was open, or under another) do
        not answer it: drop them, naming any whole line among them so the person knows."""
        self._carry = None
        lines: list[str] = []
        if self._tty is not None:
            import termios

            fd = sys.stdin.fileno()
            with contextlib.suppress(OSError, ValueError, termios.error):
                # between prompts the terminal is line by line: only whole lines are readable
                while select.select([fd], [], [], 0)[0]:
                    chunk = os.read(fd, 4096)
                    if not chunk:
                        break
                    lines += [line.strip() for line in chunk.decode(errors="replace").splitlines() if line.strip()]
                termios.tcflush(fd, termios.TCIFLUSH)
        if lines:
            said = ", ".join(f"'{line}'" for line in lines)
            self._note(f"not sent: {said}, typed before this question")

    def _prompt_text(self, job: _Prompt) -> str:
        left = job.seconds_left()
        return job.text if left is None else f"[{left:2d}s] {job.text}"

    # ---- signals (main thread, inside input()) -----------------------------------------------------
    def _on_sigint(self, signum: int, frame: Any) -> None:
        if self._open is not None and not self._open.aside:
            self._carry = (self._open.question, self._line_buffer())
        raise KeyboardInterrupt

    def _on_tick(self, signum: int, frame: Any) -> None:
        job = self._open
        if job is None or not self._reading:
            return
        if job.withdrawn.is_set() or self._done.is_set():
            self._reading = False  # once: a second tick must not land in the handling of the first
            raise _Withdrawn
        left = job.seconds_left()
        if left is not None and left != self._shown and sys.stdout.isatty() and not job.closed:
            self._shown = left
            typed = self._line_buffer()
            if len(self._prompt_text(job)) + len(typed) >= shutil.get_terminal_size().columns:
                return  # the line wraps: "\r" would land inside it, so the countdown waits
            if self._fancy:  # rewrite the countdown in place, the cursor where it was
                sys.stdout.write(f"\x1b7\r[{left:2d}s]\x1b8")
            else:
                sys.stdout.write(f"\r{self._prompt_text(job)}{typed}")
            sys.stdout.flush()

    def _line_buffer(self) -> str:
        if self._readline is None:
            return ""
        try:
            return self._readline.get_line_buffer()
        except Exception:  # readline not reading now
            return ""

    def _set_prefill(self, text: str) -> None:
        """The next ``input()`` starts with ``text`` already typed (readline only)."""
        rl = self._readline
        if rl is None:
            return

        def hook() -> None:
            rl.insert_text(text)
            rl.redisplay()

        with contextlib.suppress(Exception):
            rl.set_pre_input_hook(hook if text else None)

    # ---- terminal niceties ------------------------------------------------------------------
    def _save_terminal(self) -> None:
        """Keep the terminal's settings for :meth:`close`, and stop Ctrl-C from flushing type-ahead.

        The terminal drops unread input when it sends SIGINT. If that lands between readline seeing
        input ready and reading it, readline's read waits for a key that never comes, and Ctrl-C is
        not acted on until the next keypress. With NOFLSH the input stays; we drop it ourselves once
        the interrupt is handled (:meth:`_drop_typeahead`), so a person sees the same behaviour.
        """
        self._tty = None
        try:
            import termios
        except ImportError:  # no termios (Windows): the terminal keeps its own ways
            return
        with contextlib.suppress(OSError, ValueError, termios.error):
            if sys.stdin.isatty():
                fd = sys.stdin.fileno()
                saved = termios.tcgetattr(fd)
                settings = termios.tcgetattr(fd)
                settings[3] |= termios.NOFLSH
                termios.tcsetattr(fd, termios.TCSANOW, settings)
                self._tty = saved

    def _drop_typeahead(self) -> None:
        """What was typed after Ctrl-C and not yet read is dropped, as a terminal does by itself."""
        if self._tty is None:
            return
        import termios

        with contextlib.suppress(OSError, ValueError, termios.error):
            termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)

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
