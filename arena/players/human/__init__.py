"""``human``: one person at the terminal, playing a seat among bots and models.

The person sees exactly the seat's own view: its events as they happen (the player is also an
orchestrator observer, printing only ``game.view(seat)``), and on each decision the table of
seats, the clock, the question and the legal answers as a numbered menu built from the request.
Input is read by a thread (:mod:`.keyboard`), so the other seats of a simultaneous step keep
deciding meanwhile. What the person types is checked against the request first; a mistake gets
one line and the same question again, keeping what was already typed. Ctrl-C, ``quit`` or the end
of input ask once and then stop the game with :class:`~arena.orchestrator.StopGame`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.columns import Columns
from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from arena.engine import KINDS, ActionBase, DecisionRequest, FieldSpec, Game, View
from arena.players.base import StopGame

from .keyboard import EOF, INTERRUPT, Key, Keyboard, TerminalKeyboard
from .menu import Entry, completions, field_entries, match, match_many, move_entries, norm, split_words
from .screen import Knowledge, event_line, help_text, lines_of, menu_lines, print_night_report, status_panel

__all__ = ["HumanPlayer", "print_night_report", "seat_human"]

COMMAND_WORDS = ("help", "log", "table", "quit")
PRIVATE = "magenta"


@dataclass(slots=True)
class Draft:
    """What the person typed for one decision, kept across re-asks."""

    speech: str | None = None  # the words of a speech (kind speak)
    words: str | None = None  # words going with another move (beats)


class HumanPlayer:
    """A seat played from the keyboard; pass it as an observer too, so the screen keeps up."""

    spec = "human"

    def __init__(
        self,
        name: str,
        *,
        console: Console | None = None,
        timeout: float | None = None,
        keyboard: Keyboard | None = None,
    ) -> None:
        if timeout is not None and timeout <= 0:
            raise ValueError(f"the human's time limit must be positive, not {timeout:g}")
        self.name = name
        self.console = console or Console(highlight=False)
        self.timeout = timeout
        self.keyboard: Keyboard = keyboard or TerminalKeyboard()
        self.know = Knowledge(name)
        self.variant: str | None = None
        self.options: dict[str, Any] = {}
        self.quit_reason = f"{name} quit the game"
        self._view: View | None = None
        self._shown = 0  # events of the view already on screen
        self._day_word = "Day"
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None
        self._quitting = False
        self._asking_quit: asyncio.Task[None] | None = None
        self._drafts: dict[int, Draft] = {}
        self._deadlines: dict[int, float] = {}
        self._request: DecisionRequest | None = None
        self._entries: list[Entry] = []

    # ---- the screen as the game goes ----------------------------------------------------------
    def __call__(self, game: Game) -> None:
        """Observer: print what the seat saw since the last call; stop the game once quit."""
        if self._view is None:
            self._view = game.view(self.name)
            self.variant = game.name
            self.options = game.options.model_dump(mode="json")
        self._start()
        self._catch_up(self._view)
        if self._quitting and not game.finished:
            raise StopGame(self.quit_reason)

    def _catch_up(self, view: View) -> None:
        events = view.since(self._shown)
        if self._shown == 0 and events:
            self.console.print(
                Text(f"You are {self.name}. Type help at any prompt for the rules and the commands.", style="bold green")
            )
        for event in events:
            self.know.learn(event)
            if event.type == "hand":
                self._day_word = "Hand"
            line = event_line(event, self.name, self._day_word)
            if line is not None:
                self.console.print(Text(*line), highlight=False, soft_wrap=True)
            if event.type == "death" and event.data.get("player") == self.name and event.to is None:
                out = "for the rest of this hand" if self._day_word == "Hand" else "for the rest of the game"
                self.console.print(Text(f"You are out {out}; you keep watching.", style="bold red"))
        self._shown += len(events)

    def _start(self) -> None:
        """Bind to the running loop once: the keyboard thread and the Ctrl-C handler."""
        if self._loop is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._loop = loop
        self._lock = asyncio.Lock()
        self.keyboard.start(loop, self._on_interrupt)

    # ---- deciding -------------------------------------------------------------------------------
    async def decide(self, request: DecisionRequest, view: View, feedback: str | None) -> ActionBase:
        if self._view is None:
            self._view = view
        self._start()
        self._catch_up(view)
        if self._quitting:
            raise StopGame(self.quit_reason)
        draft = self._drafts.setdefault(request.id, Draft())
        self._request, self._entries = request, move_entries(request)
        if feedback is None:
            self._show(request)
        else:
            self._complain(f"Not accepted: {feedback}")
            self._show(request, panel=False)
            self._show_kept(draft)
        answer = self._answer(request, draft, again=feedback is not None)
        if self.timeout is None:
            action = await answer
        else:
            loop = asyncio.get_running_loop()
            deadline = self._deadlines.setdefault(request.id, loop.time() + self.timeout)
            try:
                action = await asyncio.wait_for(answer, max(0.0, deadline - loop.time()))
            except TimeoutError:
                self.console.print(
                    Text(f"\nTime is up ({self.timeout:g} s): the default answer is played for you.", style="bold yellow")
                )
                raise
        self._deadlines.pop(request.id, None)
        return action

    async def _answer(self, request: DecisionRequest, draft: Draft, again: bool) -> ActionBase:
        entries = self._entries
        if len(entries) == 1 and entries[0].ask_fields:
            entry = entries[0]
        else:
            entry = await self._choose(request, entries, draft)
        values = dict(entry.values)
        if entry.ask_fields:
            values.update(await self._fill(request, entry, draft, again))
        if entry.kind == "speak":
            values["speech"] = draft.speech or ""
        elif draft.words:
            values["speech"] = draft.words
        return KINDS[entry.kind](**values)

    async def _choose(self, request: DecisionRequest, entries: Sequence[Entry], draft: Draft) -> Entry:
        kinds = {e.kind for e in entries}
        prompt = "move> " if len(kinds) > 1 else f"{next(iter(kinds)).replace('_', '-')}> "
        quick = next((e for e in entries if e.kind == "pass"), None) if request.group == "beat" else None
        while True:
            line = await self._read(prompt, completions(request, entries))
            if not line and quick is not None:
                return quick
            if norm(line).startswith("say ") or norm(line) == "say":
                self._set_words(request, draft, line.strip()[3:].strip())
                continue
            choice, words = split_words(line)
            if words is not None and request.talk is None:
                self._complain("this decision is silent: nobody hears words now")
                continue
            if words is not None and len(words) > request.max_speech:
                self._complain(f"your words are {len(words)} characters; the limit is {request.max_speech} (↑ recalls them)")
                continue
            if words is not None:  # kept even when the choice is wrong
                draft.words = words or None
            entry = match(entries, choice, request)
            if isinstance(entry, str):
                self._complain(entry + (f" (your words are kept: '{words}')" if words else ""))
                continue
            return entry

    def _set_words(self, request: DecisionRequest, draft: Draft, words: str) -> None:
        if request.talk is None:
            self._complain("this decision is silent: nobody hears words now")
        elif len(words) > request.max_speech:
            self._complain(f"your words are {len(words)} characters; the limit is {request.max_speech} (↑ recalls them)")
        else:
            draft.words = words or None
            if request.option("speak") is not None:
                draft.speech = words
            said = f"'{words}'" if words else "nothing"
            self.console.print(Text(f"Your words: {said}; they go with your answer.", style="dim"))

    async def _fill(self, request: DecisionRequest, entry: Entry, draft: Draft, again: bool) -> dict[str, Any]:
        """A speech and its fields (accuse, nominate, floor), one prompt each.

        Asked again after a rejection, the words typed before are kept (Enter keeps them).
        """
        option = request.option(entry.kind)
        assert option is not None
        if entry.kind == "speak" and (draft.speech is None or again):
            draft.speech = await self._ask_speech(request, draft.speech)
        values: dict[str, Any] = {}
        for name, spec in option.fields.items():
            if name == "floor":
                values[name] = await self._ask_floor(request, spec)
            else:
                values[name] = await self._ask_field(request, entry.kind, name, spec)
        return values

    async def _ask_speech(self, request: DecisionRequest, kept: str | None = None) -> str:
        talk = request.talk or "all"
        audience = "everyone" if talk == "all" else f"the {talk.removeprefix('team:')} only"
        enter = f"Enter keeps: '{kept}'" if kept else "Enter for silence"
        self.console.print(Text(f"Your words to {audience} ({enter}):", style="bold"))
        while True:
            line = await self._read("say> ", list(request.seats))
            if not line and kept:
                return kept
            if len(line) > request.max_speech:
                self._complain(f"that is {len(line)} characters; the limit is {request.max_speech} (↑ recalls it)")
                continue
            return line

    async def _ask_field(self, request: DecisionRequest, kind: str, name: str, spec: FieldSpec) -> Any:
        entries = field_entries(kind, name, spec)
        if not entries:
            return None
        if len(entries) == 1 and not spec.nullable:
            return entries[0].fields[name]
        question = {"accuse": "Accuse someone?", "nominate": "Nominate one player:"}.get(name, f"{name.capitalize()}:")
        enter = " (Enter for nobody)" if spec.nullable else ""
        self.console.print(Text(question + enter, style="bold"))
        self.console.print(Columns(menu_lines([e.label for e in entries]), padding=(0, 2)))
        while True:
            line = await self._read(f"{name}> ", completions(request, entries))
            if not line and spec.nullable:
                return None
            if norm(line).startswith("say ") and request.talk is not None:
                self._set_words(request, self._drafts.setdefault(request.id, Draft()), line.strip()[3:].strip())
                continue
            found = match(entries, line, request)
            if isinstance(found, str):
                self._complain(found if line else f"choose one: 1-{len(entries)} or a name")
                continue
            return found.fields[name]

    async def _ask_floor(self, request: DecisionRequest, spec: FieldSpec) -> tuple[str, ...]:
        entries = field_entries("speak", "floor", spec)
        most = spec.max_items
        if not entries or most == 0:
            return ()
        self.console.print(Text(f"Hand the floor to up to {most} players, in order (Enter for nobody):", style="bold"))
        self.console.print(Columns(menu_lines([e.label for e in entries]), padding=(0, 2)))
        while True:
            line = await self._read("floor> ", completions(request, entries))
            if not line:
                return ()
            found = match_many(entries, line, request, most)
            if isinstance(found, str):
                self._complain(found)
                continue
            return tuple(e.fields["floor"] for e in found)

    # ---- reading, commands, quitting ---------------------------------------------------------------
    async def _read(self, prompt: str, words: Sequence[str] = ()) -> str:
        """One line of input that is not a command; commands are answered here and asked again."""
        while True:
            item = await self._raw(prompt, [*words, *COMMAND_WORDS])
            if item is EOF or item is INTERRUPT:
                await self._maybe_quit(item)
                continue
            assert isinstance(item, str)
            command = norm(item).lstrip("/")
            if command in ("help", "?"):
                self.console.print(help_text(self.variant, self.options))
            elif command == "log":
                self._print_log()
            elif command == "table":
                if self._request is not None:
                    self._show(self._request)
            elif command in ("quit", "exit"):
                await self._maybe_quit(None)
            else:
                return item.strip()

    async def _raw(self, prompt: str, words: Sequence[str] = ()) -> str | Key:
        assert self._lock is not None
        async with self._lock:
            if self._quitting:
                raise StopGame(self.quit_reason)
            return await self.keyboard.read(prompt, words)

    async def _maybe_quit(self, trigger: Key | None) -> None:
        """Ask once; a yes (or the end of input, or a second Ctrl-C) stops the game."""
        if await self._confirm_quit(trigger):
            self._quitting = True
            raise StopGame(self.quit_reason)
        self.console.print(Text("Back to the game.", style="dim"))

    async def _confirm_quit(self, trigger: Key | None) -> bool:
        if trigger is EOF:
            self.console.print(Text("\nQuit the game? [y/N] yes (end of input)", style="bold yellow"))
            return True
        answer = await self._raw("Quit the game? [y/N] ")
        if isinstance(answer, Key):
            self.console.print()
            return True
        return norm(answer) in ("y", "yes")

    def _on_interrupt(self) -> None:
        """Ctrl-C: answered by the prompt on screen, else asked between turns."""
        self.console.print()
        if self.keyboard.waiting:
            self.keyboard.interrupt()
        elif self._asking_quit is None and not self._quitting and self._loop is not None:
            self._asking_quit = self._loop.create_task(self._quit_between_turns())

    async def _quit_between_turns(self) -> None:
        try:
            if await self._confirm_quit(INTERRUPT):
                self._quitting = True
                self.console.print(Text("Stopping the game…", style="bold yellow"))
            else:
                self.console.print(Text("Back to the game.", style="dim"))
        except StopGame:
            pass
        finally:
            self._asking_quit = None

    def close(self) -> None:
        """Give the terminal and Ctrl-C back (the CLI calls :meth:`aclose` after the game)."""
        self.keyboard.close()
        if self._asking_quit is not None:
            self._asking_quit.cancel()

    async def aclose(self) -> None:
        self.close()

    # ---- printing -------------------------------------------------------------------------------
    def _show(self, request: DecisionRequest, *, panel: bool = True) -> None:
        if panel:
            self.console.print(status_panel(request, self.know))
        self.console.print(Text(request.question, style="bold"))
        entries = self._entries
        if not (len(entries) == 1 and entries[0].ask_fields):
            self.console.print(Columns(menu_lines([e.label for e in entries]), padding=(0, 2)))
        hints = [] if len(entries) == 1 and entries[0].ask_fields else ["a number or a name"]
        if request.group == "beat":
            hints.append("Enter = pass")
        if request.talk is not None and request.option("speak") is None:
            hints.append("'2: words' to talk")
        hints += ["help", "log", "quit"]
        self.console.print(Text(" · ".join(hints), style="dim"))

    def _show_kept(self, draft: Draft) -> None:
        kept = draft.speech if draft.speech is not None else draft.words
        if kept:
            self.console.print(Text(f"Your words are kept: '{kept}' (say WORDS replaces them).", style="dim"))

    def _complain(self, why: str) -> None:
        self.console.print(Text(f"✗ {why}", style="bold red"), highlight=False)

    def _print_log(self) -> None:
        view = self._view
        if view is None:
            return
        self.console.print(Rule("everything you have seen"))
        for line in lines_of(view.events, self.name, full=True):
            self.console.print(Text(*line), highlight=False, soft_wrap=True)
        self.console.print(Rule())


def seat_human(specs: Mapping[str, str], name: str | None) -> tuple[dict[str, str], str | None]:
    """The seats with ``--human NAME`` applied (any case), and the one human seat, if any.

    Raises ValueError (one line) for an unknown seat or a second human: one terminal shows one
    seat's secrets, so two people at it would see each other's.
    """
    seats = dict(specs)
    if name is not None:
        by_lower = {seat.lower(): seat for seat in seats}
        seat = by_lower.get(name.strip().lower())
        if seat is None:
            raise ValueError(f"--human {name}: this table has no seat {name!r} (seats: {', '.join(seats)})")
        seats[seat] = "human"
    humans = [seat for seat, spec in seats.items() if spec == "human"]
    if len(humans) > 1:
        who = ", ".join(humans)
        raise ValueError(f"one human seat per terminal, not {len(humans)} ({who}): each would see the other's secrets")
    return seats, humans[0] if humans else None
