"""``human``: one person at the terminal, playing a seat among bots and models.

The person sees exactly the seat's own view: its events as they happen (the player is also an
orchestrator observer, printing only ``game.view(seat)``), and on each decision the table of
seats, the clock, the question and the legal answers as a numbered menu built from the request;
before a vote a recap (the trial or the candidates, the living, the claims, cove's nominations).
A speech ends with a claim step that gives the bots the same structured claim they make. The
terminal is read in the main thread while the game runs in a worker (:mod:`.keyboard`), so the
other seats of a simultaneous step keep deciding, and a question with a time limit (a beat of
McKay's games on the wall clock, ``--human-timeout``) counts down and is withdrawn when its time
is up, keeping what was typed. What the person types is checked against the request first; a
mistake gets one line and the same question again. Ctrl-C, ``quit`` or the end of input ask once;
only a typed yes stops the game (:class:`~arena.players.base.StopGame`), or input that has ended
for good. After the person's death the
rest of the game is paged a day or a night at a time (:meth:`HumanPlayer.hold`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.columns import Columns
from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from arena.engine import KINDS, ActionBase, DecisionRequest, FieldSpec, Game, View
from arena.engine.actions import Claim
from arena.engine.events import PUBLIC
from arena.engine.wording import and_list, describe_action
from arena.players.base import Beat, StopGame
from arena.players.convention import channel_rule, day_note, team_note, team_note_text, team_rule

from .keyboard import EOF, INTERRUPT, Key, Keyboard, TerminalKeyboard
from .menu import (
    Entry,
    claim_example,
    claim_words,
    completions,
    field_entries,
    match,
    match_many,
    move_entries,
    norm,
    parse_claim,
    split_words,
)
from .screen import (
    Knowledge,
    event_line,
    for_people,
    hand_table,
    help_text,
    lines_of,
    match_length,
    menu_lines,
    night_note,
    nomination_tally,
    print_night_report,
    recap,
    status_panel,
)

__all__ = ["HumanPlayer", "print_night_report", "seat_human"]

COMMAND_WORDS = ("help", "log", "table", "quit")
PART_HEADINGS = frozenset(("day", "night"))  # after the person's death, the rest pauses before each
PRIVATE = "magenta"


@dataclass(slots=True)
class Draft:
    """What the person typed for one decision, kept across re-asks."""

    speech: str | None = None  # the words of a speech (kind speak)
    words: str | None = None  # words going with another move (beats)
    claim: Claim | None = None  # the structured claim going with a speech
    claim_asked: bool = False


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
        self.roles: tuple[str, ...] = ()
        self.options: dict[str, Any] = {}
        self.quit_reason = f"{name} quit the game"
        self._view: View | None = None
        self._shown = 0  # events of the view already on screen
        self._day_word = "Day"
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None
        self._quitting = False
        self._ends = 0  # ends of input in a row (three: the input has ended for good)
        self._asking_quit: asyncio.Task[None] | None = None
        self._drafts: dict[int, Draft] = {}
        self._deadlines: dict[int, float] = {}
        self._request: DecisionRequest | None = None
        self._entries: list[Entry] = []
        # after the person's death (day/night games): the rest is shown a day or night at a time
        self._watching = False
        self._paused = False
        self._skipping = False
        self._first_pause = True
        self._part_lines = 0  # lines shown since the last pause
        self._beat: Beat | None = None  # the beat on the wall clock (McKay's games)
        self._deadline: float | None = None  # when the question being asked is withdrawn (loop time)
        self._last_menu: tuple[str, ...] = ()  # in a run of beats: what was shown last beat
        self._last_question: str | None = None
        self._match_told = False  # McKay's games on the wall clock: the match length was said
        self._question: object = None  # the decision being answered: what is typed belongs to it
        self._menu: tuple[Any, ...] = ()  # the numbered choices last shown (and their hint line)
        self._since_menu = 0  # lines printed below them since: past the screen's height they are gone
        self._menu_open = False  # they answer the question being asked (not an earlier one)
        self._watch_pauses = 0
        self._out_of_hand = False  # McKay's games: dead in the hand being played, watching it
        self._watch: asyncio.Task[None] | None = None  # the watch> prompt meanwhile (quit, help, log work)

    # ---- the screen as the game goes ----------------------------------------------------------
    def __call__(self, game: Game) -> None:
        """Observer: print what the seat saw since the last call; stop the game once quit."""
        if self._view is None:
            self._view = game.view(self.name)
            self.variant = game.name
            self.roles = tuple(game.roles)
            self.options = game.options.model_dump(mode="json")
        self._start()
        self._catch_up(self._view)
        if self._quitting and not game.finished:
            raise StopGame(self.quit_reason)

    def _catch_up(self, view: View) -> None:
        events = view.since(self._shown)
        if self._shown == 0 and events:
            self._out(Text(f"You are {self.name}. Type help at any prompt for the rules and the commands.", style="bold green"))
        for event in events:
            if self._paused:  # after the person's death: the rest comes a part at a time (hold)
                return
            if self._watching and event.type in PART_HEADINGS and self._part_lines:
                self._paused = True  # stop before the next day or night: Enter shows it
                return
            self._shown += 1
            self.know.learn(event)
            if event.type == "hand":
                self._day_word = "Hand"
                self._out_of_hand = False
                self._stop_watching()
            line = event_line(event, self.name, self._day_word)
            if line is not None and not self._skipping:
                self._print(Text(*line))
                self._part_lines += 1
            if event.type == "hand_over" and event.to is None and not self._skipping:
                self._out(hand_table(event.data))
            if event.type == "team" and event.to is not None and not self._skipping:
                rule = team_rule(self.variant)  # how the team picks its victim: told with the team
                if rule is not None:
                    self._print(Text(rule, style=PRIVATE))
            if event.type == "role" and event.data.get("team") == "mafia" and self._day_first():
                self._print(Text("The mafia meet on the first night: that is when you learn your partners.", style=PRIVATE))
            if event.type == "morning" and event.to is None and not self._skipping:
                note = night_note(self.variant, self.options, event.data)
                if note is not None:
                    self._print(Text(note, style="dim"))
            if event.type == "death" and event.data.get("player") == self.name and event.to is None:
                if self._day_word == "Hand":
                    self._print(Text("You are out for the rest of this hand; you keep watching.", style="bold red"))
                    self._out_of_hand = True
                else:
                    self._print(Text("You are out for the rest of the game.", style="bold red"))
                    self._watching, self._paused = True, True  # hold() asks how to go on

    def _day_first(self) -> bool:
        """The game opens with a day (village; cove as a house rule): mafia partners meet later."""
        return self.variant == "village" or (self.variant == "cove" and self.options.get("first_phase") == "day")

    def _print(self, text: Any) -> None:
        """One line of the table, wrapped at word boundaries to the terminal's width."""
        self._out(text, highlight=False, soft_wrap=not self.console.is_terminal)

    def _out(self, *things: Any, **kwargs: Any) -> None:
        """Print above the question being asked, if one is open (the keyboard redraws it below)."""
        above = getattr(self.keyboard, "above_prompt", None)
        with above() if above is not None else contextlib.nullcontext():
            self.console.print(*things, **kwargs)
        if self._menu:
            self._since_menu += self._height(*things)

    def _height(self, *things: Any) -> int:
        """How many lines ``things`` take on this console (a blank line for none)."""
        if not things:
            return 1
        options = self.console.options
        return sum(len(self.console.render_lines(thing, options, pad=False)) for thing in things)

    def _show_menu(self, *menu: Any) -> None:
        """The numbered choices (and the hint line under them): remembered, to be shown again
        whenever they have scrolled off the screen (after help, the log, a long run of news)."""
        self._menu = ()
        for thing in menu:
            self._out(thing)
        self._menu, self._since_menu, self._menu_open = menu, 0, True

    def _menu_gone(self) -> bool:
        """The last menu shown has scrolled (at least partly) off the top of the screen."""
        if not self._menu:
            return True
        return self._since_menu + self._height(*self._menu) + 1 > self.console.size.height

    def _menu_again(self) -> None:
        """Before a prompt: the current choices again if the person can no longer see them."""
        if self._menu_open and self._menu and self._menu_gone():
            self._show_menu(*self._menu)

    async def hold(self, game: Game) -> None:
        """After the person's death, page the rest of the game: Enter for the next day or night,
        q for the result; the game waits meanwhile (the orchestrator awaits this between steps)."""
        while self._paused:
            if game.finished:  # nothing left to wait for: the end of the story, then the result
                self._paused, self._part_lines, self._watching = False, 0, False
                assert self._view is not None
                self._catch_up(self._view)
                return
            if self._first_pause:
                question = "Enter to watch the rest, or q to skip to the result."
                self._first_pause = False
            else:
                question = "Enter for more, or q to skip to the result."
            self._print(Text(question, style="bold"))
            self._watch_pauses += 1
            self._question = ("watch", self._watch_pauses)
            line = norm(await self._read("watch> "))
            self._paused, self._part_lines = False, 0
            if line in ("q", "skip", "s"):
                self._skipping = True
                self._print(Text("Skipping to the result…", style="dim"))
            assert self._view is not None
            self._catch_up(self._view)

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
        if self.variant is None:  # not an observer (yet): the card's event names the variant
            self.variant = next((e.data.get("variant") for e in view.events if e.type == "role"), None)
        self._start()
        self._catch_up(view)
        await self._stop_watching_now()  # a dead judge or a soliloquy is asked: the watch> prompt gives way
        if self._quitting:
            raise StopGame(self.quit_reason)
        draft = self._drafts.setdefault(request.id, Draft())
        self._request, self._entries = request, move_entries(request)
        self._question = request.id  # a new question: keys typed before it do not answer it
        if feedback is None:
            self._show(request, notes=self._mafia_notes(request, view))
        else:
            self._complain(f"Not accepted: {feedback}")
            self._show(request, panel=False)
            self._show_kept(draft)
        loop = asyncio.get_running_loop()
        deadline = None
        if self.timeout is not None:
            deadline = self._deadlines.setdefault(request.id, loop.time() + self.timeout)
        beat = self._beat_of(request)
        if beat is not None:  # the runner withdraws the question when the beat is over
            deadline = beat.ends if deadline is None else min(deadline, beat.ends)
        self._deadline = deadline
        answer = self._answer(request, draft, again=feedback is not None)
        try:
            if self.timeout is None:
                action = await answer
            else:
                try:
                    action = await asyncio.wait_for(answer, max(0.0, self._deadlines[request.id] - loop.time()))
                except TimeoutError:
                    self._print(
                        Text(f"Time is up ({self.timeout:g} s): the default answer is played for you.", style="bold yellow")
                    )
                    raise
        finally:
            self._deadline = None
            self._menu_open = False  # its choices answer nothing more
        self._deadlines.pop(request.id, None)
        if request.group == "beat":  # nothing happens until the beat is over: say it was sent
            sent = describe_action(action).replace(" → ", " ")
            self._print(Text(f"sent: {sent} — resolves at the end of the beat", style="green"))
        return action

    # ---- the wall clock (McKay's games with a person at the table) ---------------------------------
    def beat_started(self, beat: Beat) -> None:
        """The runner starts a beat: show it, how long it lasts and who may act."""
        self._start()
        if self._view is not None:
            self._catch_up(self._view)  # what the last beat did comes first
        self._beat = beat
        if not self._match_told:  # the match length, once, before its first beat
            self._match_told = True
            self._print(Text(match_length(self.variant, self.options, beat.seconds), style="bold"))
        others = [n for n in beat.players if n != self.name]
        length = f"{beat.seconds:g} s"
        now = self._loop.time() if self._loop is not None else beat.started
        if now - beat.started > 0.05 * beat.seconds:  # a reply in a beat already running (trio's soliloquy)
            left = max(0.0, beat.ends - now)
            length = f"continued: {left:.0f} s left" if left >= 9.5 else f"continued: {left:.1f} s left".replace(".0 s", " s")
        if self.name in beat.players:  # the question's prompt counts down
            who = and_list(["you", *others]) + " may act"
            self._print(Text(f"{beat.label} · {length} · {who}", style="bold cyan"))
            return
        who = f"{and_list(others)} may act" if others else "nobody may act"
        line = f"{beat.label} · {length} · {who}"
        if self._out_of_hand and self._loop is not None and not self._skipping:
            self._print(Text(line, style="bold cyan"))  # above the watch> prompt, which stays open
            if self._watch is None or self._watch.done():
                self._watch = self._loop.create_task(self._watch_hand())
            return
        status = getattr(self.keyboard, "show_status", None)
        if status is not None and not self._skipping:  # nothing to ask: the beat counts down on its own line
            status(f"{beat.label} · {who}", beat.ends, line)
            self._since_menu += 1
        else:
            self._print(Text(line, style="bold cyan"))

    async def _watch_hand(self) -> None:
        """McKay's games: out of the hand being played, the person has nothing to answer, but the
        commands still work (``quit`` above all) at a ``watch>`` prompt, open until the hand ends."""
        try:
            while True:
                await self._read("watch> ")
                self._out(Text("You are out of this hand: nothing to answer until the next (quit, help, log work).", style="dim"))
        except StopGame:
            self._quitting = True
            self._out(Text("Stopping the game…", style="bold yellow"))
        except asyncio.CancelledError:
            pass

    def _stop_watching(self) -> None:
        if self._watch is not None and not self._watch.done():
            self._watch.cancel()

    async def _stop_watching_now(self) -> None:
        task, self._watch = self._watch, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _beat_of(self, request: DecisionRequest) -> Beat | None:
        beat = self._beat
        if beat is None or request.player not in beat.players or request.clock is None or request.clock.unit != "beat":
            return None
        return beat

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
            if draft.claim is not None:
                values["claim"] = draft.claim
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
            self._out(Text(f"Your words: {said}; they go with your answer.", style="dim"))

    async def _fill(self, request: DecisionRequest, entry: Entry, draft: Draft, again: bool) -> dict[str, Any]:
        """A speech and its fields (accuse, nominate, floor), one prompt each.

        Asked again after a rejection, the words typed before are kept (Enter keeps them).
        """
        option = request.option(entry.kind)
        assert option is not None
        if entry.kind == "speak" and (draft.speech is None or again):
            draft.speech = await self._ask_speech(request, draft.speech)
        if entry.kind == "speak" and self._claims_allowed(request) and (not draft.claim_asked or again):
            draft.claim = await self._ask_claim(request, draft.claim)
            draft.claim_asked = True
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
        self._out(Text(f"Your words to {audience} ({enter}):", style="bold"))
        while True:
            line = await self._read("say> ", list(request.seats))
            if not line and kept:
                return kept
            if len(line) > request.max_speech:
                self._complain(f"that is {len(line)} characters; the limit is {request.max_speech} (↑ recalls it)")
                continue
            return line

    def _claims_allowed(self, request: DecisionRequest) -> bool:
        """A claim goes with a public speech of a day/night game (McKay's games have no claims)."""
        return request.talk == PUBLIC and request.group not in ("beat", "soliloquy") and bool(self._roles())

    def _roles(self) -> tuple[str, ...]:
        """The variant's cards, the claimable roles (public rules, like the rulebook)."""
        if not self.roles and self.variant is not None:
            from arena.variants import VARIANTS

            cls = VARIANTS.get(self.variant)
            self.roles = tuple(cls.roles) if cls is not None else ()
        return self.roles

    async def _ask_claim(self, request: DecisionRequest, kept: Claim | None) -> Claim | None:
        """The claim step: a role and check results the bots read, as they read each other's."""
        roles = self._roles()
        example = claim_example(roles, self._example_seat(request))
        enter = f"Enter keeps: {claim_words(kept)}" if kept is not None else "Enter for no claim"
        self._out(Text(f"Claim a card or what you learned? e.g. '{example}' ({enter}):", style="bold"))
        words = [*roles, *request.seats, "mafia", "not mafia", "none"]
        while True:
            line = await self._read("claim> ", words)
            if not line and kept is not None:
                return kept
            found = parse_claim(line, roles, request.seats, self.name)
            if isinstance(found, str):
                self._complain(found)
                continue
            if found is not None:
                self._out(Text(f"Your claim, heard with your speech: '{claim_words(found)}'.", style="dim"))
            return found

    def _example_seat(self, request: DecisionRequest) -> str:
        return next((n for n in request.alive if n != self.name), self.name)

    async def _ask_field(self, request: DecisionRequest, kind: str, name: str, spec: FieldSpec) -> Any:
        entries = field_entries(kind, name, spec)
        if not entries:
            return None
        if len(entries) == 1 and not spec.nullable:
            return entries[0].fields[name]
        question = {"accuse": "Accuse someone?", "nominate": "Nominate one player:"}.get(name, f"{name.capitalize()}:")
        enter = " (Enter for nobody)" if spec.nullable else ""
        tally = nomination_tally(self._view.events) if name == "nominate" and self._view is not None else None
        if tally:
            self._print(Text.assemble(("Nominations so far: ", "bold"), tally))
        self._out(Text(question + enter, style="bold"))
        self._show_menu(Columns(menu_lines([e.label for e in entries]), padding=(0, 2)))
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
        self._out(Text(f"Hand the floor to up to {most} players, in order (Enter for nobody):", style="bold"))
        self._show_menu(Columns(menu_lines([e.label for e in entries]), padding=(0, 2)))
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
            self._menu_again()
            item = await self._raw(prompt, [*words, *COMMAND_WORDS])
            if item is EOF or item is INTERRUPT:
                await self._maybe_quit(item)
                continue
            assert isinstance(item, str)
            self._ends = 0
            command = norm(item).lstrip("/")
            if command in ("help", "?"):
                rule = team_rule(self.variant) if self.know.team == "mafia" and self.know.members else None
                self._out(help_text(self.variant, self.options, rule))
            elif command == "log":
                self._print_log()
            elif command == "table":
                if self._request is not None:
                    self._last_question, self._last_menu = None, ()
                    self._show(self._request)
            elif command in ("quit", "exit"):
                await self._maybe_quit(None)
            else:
                return item.strip()

    async def _raw(self, prompt: str, words: Sequence[str] = (), *, aside: bool = False) -> str | Key:
        """One line from the keyboard; ``aside`` marks a question between two others (quit?), which
        leaves half-typed words for the question after it."""
        assert self._lock is not None
        async with self._lock:
            if self._quitting:
                raise StopGame(self.quit_reason)
            extra: dict[str, Any] = {}
            if self._deadline is not None and not aside:  # the question to quit is not on the clock
                extra["deadline"] = self._deadline
            if aside:
                extra["aside"] = True
            elif self._question is not None:
                extra["question"] = self._question
            try:
                return await self.keyboard.read(prompt, words, **extra)
            finally:
                self._since_menu += 1  # the prompt's own line

    async def _maybe_quit(self, trigger: Key | None) -> None:
        """Ask once; only a typed yes stops the game (or input that has ended for good).

        Asked during a question on the clock (a beat), the question to quit is not on the clock: it
        is asked in a task of its own, without a countdown, and stays open when the beat ends (the
        beat's move is then the default, as for any unanswered beat)."""
        if self._deadline is not None and self._loop is not None:
            if self._asking_quit is None:
                self._asking_quit = self._loop.create_task(self._quit_between_turns(trigger))
            await asyncio.shield(self._asking_quit)
            if self._quitting:
                raise StopGame(self.quit_reason)
            return
        if await self._confirm_quit(trigger):
            self._quitting = True
            raise StopGame(self.quit_reason)
        self._out(Text("Back to the game.", style="dim"))

    async def _confirm_quit(self, trigger: Key | None) -> bool:
        """Ctrl-C, Ctrl-D and ``quit`` all ask, and only a typed ``y`` or ``yes`` is a yes: a second
        Ctrl-C or Ctrl-D is a no (keys pressed twice in a hurry are not an answer), and so is the
        end of input. Input that has ended for good (a closed pipe or file: the keyboard says so,
        or three ends in a row with no line between) stops the game as ``input ended``, since
        nobody can answer any more; the game stays resumable and nothing new is shown."""
        if trigger is EOF:
            self._out()
            self._ends += 1
        if self._input_ended():
            raise StopGame(self._ended_reason())
        answer = await self._raw("Quit the game? [y/N] ", aside=True)
        if answer is EOF:
            self._ends += 1
            if self._input_ended():
                raise StopGame(self._ended_reason())
        if isinstance(answer, Key):
            self._out(Text("no" + (" (end of input is not an answer)" if answer is EOF else ""), style="dim"))
            return False
        self._ends = 0
        return norm(answer) in ("y", "yes")

    def _input_ended(self) -> bool:
        return bool(getattr(self.keyboard, "ended", False)) or self._ends >= 3

    def _ended_reason(self) -> str:
        self._quitting = True
        reason = self.quit_reason = f"{self.name}'s input ended"
        stop = f"The input has ended: the game stops here ({reason}); arena resume goes on with it."
        self._out(Text(stop, style="bold yellow"))
        return reason

    def _on_interrupt(self) -> None:
        """Ctrl-C: answered by the prompt on screen, else asked between turns."""
        self._out()
        if self.keyboard.waiting:
            self.keyboard.interrupt()
        elif self._asking_quit is None and not self._quitting and self._loop is not None:
            self._asking_quit = self._loop.create_task(self._quit_between_turns())

    async def _quit_between_turns(self, trigger: Key | None = INTERRUPT) -> None:
        try:
            if await self._confirm_quit(trigger):
                self._quitting = True
                self._out(Text("Stopping the game…", style="bold yellow"))
            else:
                self._out(Text("Back to the game.", style="dim"))
        except StopGame:
            pass
        finally:
            self._asking_quit = None

    def close(self) -> None:
        """Give the terminal and Ctrl-C back (the CLI calls :meth:`aclose` after the game)."""
        self.keyboard.close()
        if self._asking_quit is not None:
            self._asking_quit.cancel()
        self._stop_watching()

    async def aclose(self) -> None:
        self.close()

    # ---- printing -------------------------------------------------------------------------------
    def _mafia_notes(self, request: DecisionRequest, view: View) -> list[str]:
        """A mafia seat's rule for its team's victim, beside the question (the words a model reads):
        at a silent shot the partners, the rule and whom it names; by day that an accusation also
        names the shot; on a channel the order asked and how bot partners point."""
        notes = []
        team = team_note(request.group, request.role, view.events, request.alive, self.name)
        if team is not None:
            notes.append(team_note_text(team))
        variant = request.table.variant if request.table is not None else self.variant
        note = day_note(variant, request.group, request.role, view.events, request.alive, self.name)
        if note is not None:
            notes.append(note)
        if request.group == "mafia_channel":
            notes.append(f"On the night channel {channel_rule(variant)}.")
        return notes

    def _show(self, request: DecisionRequest, *, panel: bool = True, notes: Sequence[str] = ()) -> None:
        """The table, the question and the menu; in a run of beats only what changed since the
        last beat (the beat's line already says which one it is), so a person reads it in time."""
        entries = self._entries
        labels = tuple(e.label for e in entries)
        question = for_people(request.question)
        beat = request.group == "beat"
        if beat and question.startswith("Hand ") and ". " in question:
            question = question.split(". ", 2)[-1]  # "Hand 1 of 10, beat 3 of 12. " is the beat's line
        first_beat = not beat or request.clock is None or request.clock.left == request.clock.total
        if panel and (first_beat or self._last_question is None):
            self._out(status_panel(request, self.know))  # a box is drawn to the width: never soft-wrapped (cut)
        if not beat or first_beat or question != self._last_question or not panel:
            self._print(Text(question, style="bold"))
        for note in notes:
            self._print(Text(note, style="bold"))
        for line in recap(request, self._view.events if self._view is not None else ()):
            self._print(line)
        # a hand's first beat shows it; a later beat when it changed or is no longer on screen
        menu_again = not beat or first_beat or labels != self._last_menu or not panel or self._menu_gone()
        self._last_question, self._last_menu = (question, labels) if beat else (None, ())
        hints = [] if len(entries) == 1 and entries[0].ask_fields else ["a number or a name"]
        if beat:
            hints.append("Enter = pass")
        if request.talk is not None and request.option("speak") is None:
            hints.append("'2: words' to talk")
        hints += ["table", "help", "log", "quit"] if beat else ["help", "log", "quit"]
        hint = Text(" · ".join(hints), style="dim")
        if len(entries) == 1 and entries[0].ask_fields:  # a speech: its own prompts follow, no menu
            self._menu, self._menu_open = (), False
            self._print(hint)
        elif menu_again:
            self._show_menu(Columns(menu_lines(list(labels)), padding=(0, 2)), hint)
        else:  # the same choices as last beat, still on screen: they answer this beat too
            self._menu_open = True
            self._print(hint)

    def _show_kept(self, draft: Draft) -> None:
        kept = draft.speech if draft.speech is not None else draft.words
        if kept:
            self._out(Text(f"Your words are kept: '{kept}' (say WORDS replaces them).", style="dim"))

    def _complain(self, why: str) -> None:
        self._out(Text(f"✗ {why}", style="bold red"), highlight=False)

    def _print_log(self) -> None:
        view = self._view
        if view is None:
            return
        self._out(Rule("everything you have seen"))
        for line in lines_of(view.events, self.name, full=True):
            self._print(Text(*line))
        self._out(Rule())


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
