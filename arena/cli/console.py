"""Terminal printing: a game as it happens, its result, the variants.

:class:`Printer` is an orchestrator observer like the transcript writer. It shows the public
events as readable lines ("Day 2 — Bob: 'I think Cid is lying.' (accuses Cid)"); with
``reveal`` it also shows what only some players (or the moderator) saw: cards, the mafia's
team, night actions, checks, thoughts, rejections and forfeits, marked ``[who saw it]``.
Event types it does not know are still printed, generically, so new variants show up at once.
Text is printed as plain ``Text`` (never parsed as markup), since speeches are players' words.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from arena.engine import Game
from arena.engine.wording import (
    MCKAY_LINES,
    and_list,
    claim_text,
    describe_action,
    fate_text,
    names_or_nobody,
    plain_action,
    plural,
    private_line,
    public_line,
    quoted,
    signed,
    signed_number,
    speech_line,
    vote_result_line,
)
from arena.players.human.screen import hand_table  # the after-hand table both screens print
from arena.run.outcome import result_text

__all__ = ["MCKAY_LINES", "Printer", "describe_action", "fate", "print_result", "print_stopped", "print_variants"]

# The sentences live in the engine's wording module (players and reports share them); these old
# private names stay for code written against them.
_names, _and, _plain, _quote, _claim = names_or_nobody, and_list, plain_action, quoted, claim_text
_speech, _vote_result, _signed, _public, _private = speech_line, vote_result_line, signed, public_line, private_line


class Printer:
    """Observer that prints each new event once, as the game goes."""

    def __init__(self, console: Console, *, reveal: bool = False) -> None:
        self.console = console
        self.reveal = reveal
        self.day_word = "Day"  # "Hand" in McKay's games, where game.day counts hands
        self._seen = 0

    def __call__(self, game: Game) -> None:
        log = game.log
        for event in log[self._seen :]:
            if event.type == "hand":
                self.day_word = "Hand"
            wrap = not self.console.is_terminal  # a terminal wraps at word boundaries; a file keeps whole lines
            if event.to is None:
                line = public_line(event, self.day_word)
                if line is not None:
                    self.console.print(Text(*line), highlight=False, soft_wrap=wrap)
                if event.type == "hand_over":  # McKay's matches: the scores after every hand
                    self.console.print(hand_table(event.data))
            elif self.reveal:
                text = private_line(event)
                if text is not None:
                    self.console.print(Text(text, style="dim"), highlight=False, soft_wrap=wrap)
        self._seen = len(log)


def fate(game: Game, name: str) -> str:
    """ "alive", or how and when the seat died ("killed by the mafia on night 1"): the truth, for the end."""
    for death in game.deaths:
        if death.player == name:
            phase = next((e.phase for e in game.log if e.type == "death" and e.data.get("player") == name), "")
            return fate_text(death.cause, death.day, phase)
    return "alive"


def print_result(console: Console, game: Game, specs: Mapping[str, str], transcript: Path | None) -> None:
    """Winner, every seat's card and fate, and where the transcript is."""
    if game.finished:
        scores = getattr(game, "scores", None)
        unit = "hand" if isinstance(scores, dict) else "day"
        result = result_text(
            game.winner, game.end_reason, alive_roles={n: game.role_of[n] for n in game.alive}, team_of=game.team_of,
            scores=scores if isinstance(scores, dict) else None, max_days=getattr(game.options, "max_days", None),
        )  # fmt: skip
        console.print(Text(f"Result: {result} (after {plural(game.day, unit)}).", style="bold"))
    else:
        console.print(Text("The game was stopped before its end.", style="bold yellow"))
    table = Table(title=f"{game.name}, seed {game.seed}")
    scores = getattr(game, "scores", None)  # McKay's games: a match of hands, won on points
    columns = ("seat", "player", "score", "last card") if isinstance(scores, dict) else ("seat", "player", "role", "team", "fate")
    for column in columns:
        table.add_column(column)
    for name in game.seats:
        role = game.role_of[name]
        if isinstance(scores, dict):
            score = scores.get(name)
            table.add_row(name, specs.get(name, "?"), signed_number(score) if isinstance(score, int) else "", role)
        else:
            table.add_row(name, specs.get(name, "?"), role, game.team_of[role], fate(game, name))
    console.print(table)
    if transcript is not None:
        console.print(Text(f"transcript: {transcript}"), highlight=False)


def print_stopped(console: Console, game: Game, specs: Mapping[str, str], transcript: Path | None, person: str) -> None:
    """A person's game stopped before its end: the table as ``person`` knew it, nothing more.

    Cards the seat was not shown stay ``?`` (McKay: the current hand's too), fates are the public
    ones, and the night moves and the model seats' call counts are left out (how many calls a seat
    made tells who acted at night): the game can be resumed, and its person must not have seen
    more than the game showed them.
    """
    from arena.players.human.screen import Knowledge

    know = Knowledge(person)
    fates: dict[str, str] = {}
    for event in game.view(person).events:
        know.learn(event)
        if event.type == "hand":
            fates.clear()  # a new hand: everyone is back in play
        elif event.type == "death" and event.to is None:
            player = str(event.data.get("player"))
            fates[player] = fate_text(str(event.data.get("cause")), event.day, event.phase)
    console.print(Text("The game was stopped before its end: cards you were not shown stay hidden.", style="bold yellow"))
    mckay = know.hand is not None
    table = Table(title=f"{game.name}, as {person} knew it")
    for column in ("seat", "player", "score", "card") if mckay else ("seat", "player", "card", "fate"):
        table.add_column(column)
    for name in game.seats:
        if name == person:
            card = know.role or "?"
        elif name in know.revealed:
            card = know.revealed[name]
        elif name in know.mates:
            card = f"{know.team} (your team)"
        else:
            card = "?"
        if mckay:
            score = know.scores.get(name)
            table.add_row(name, specs.get(name, "?"), signed_number(score) if isinstance(score, int) else "", card)
        else:
            table.add_row(name, specs.get(name, "?"), card, fates.get(name, "alive"))
    console.print(table)
    if transcript is not None:
        console.print(Text(f"transcript: {transcript}"), highlight=False)


def print_next_steps(console: Console, transcript: Path | None, person: str, *, finished: bool = True) -> None:
    """After a person's game: the commands that read it again (the story in the terminal, or a
    page), as that seat saw it or with everything shown; after a stop, first how to go on, and that
    a look at the whole game ends it for that person (``arena resume`` will not seat them again)."""
    if transcript is None:
        return
    console.print(Text("Read this game again:" if finished else "Go on, or read what you saw:", style="bold"))
    steps = [
        (f"arena show {transcript} --as {person}", f"only what {person} saw"),
        (f"arena report {transcript} --as {person}", f"a page of what {person} saw, safe to send to that player"),
    ]
    whole = [
        (f"arena show {transcript}", "the whole story, every card and night action shown"),
        (f"arena report {transcript}", "a page of the whole game"),
    ]
    go_on = (f"arena resume {transcript}", "go on where it stopped")
    steps = [whole[0], *steps, whole[1]] if finished else [go_on, *steps]
    lines = [Text.assemble(("  " + command, "cyan"), f"  — {what}") for command, what in steps]
    if all(line.cell_len <= console.width for line in lines):
        for line in lines:
            console.print(line, highlight=False, soft_wrap=True)
    else:
        for command, what in steps:  # too narrow: each command whole on its line (to copy), its words wrapped below
            console.print(Text("  " + command, style="cyan"), highlight=False, soft_wrap=True)
            console.print(Padding(Text(what), (0, 0, 0, 6)), highlight=False)
    if not finished:
        look = (
            f"arena show or arena report without --as shows every card of this unfinished game: the transcript "
            f"then records the look, and arena resume will not seat {person} again."
        )
        console.print(Text(look, style="dim"), highlight=False)


def print_variants(console: Console, variants: Mapping[str, type[Game]]) -> None:
    table = Table(title="variants")
    for column in ("variant", "players", "default", "title"):
        table.add_column(column)
    for name, cls in variants.items():
        table.add_row(name, f"{cls.min_players}-{cls.max_players}", str(cls.default_players), cls.title)
    console.print(table)
