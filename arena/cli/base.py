"""What every piece of the ``arena`` command shares: the one-line error and the variant lookup.

:mod:`arena.cli` (play, replay, report, …) and :mod:`arena.tournament.cli` (tournament,
leaderboard, balance) both build on this module; neither imports the other's commands, so the
CLI's pieces import downwards only (``arena.cli`` assembles the parser from both).
"""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

from arena.engine import Game

USAGE_ERROR = 2


class CliError(Exception):
    """Bad input: the message is printed as one line and the exit code is 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose mistakes are one line (exit 2) instead of usage + message."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def variant_class(name: str) -> type[Game]:
    """The variant called ``name``, or a :class:`CliError` listing the known ones."""
    from arena.variants import get_variant

    try:
        return get_variant(name)
    except KeyError as exc:
        raise CliError(exc.args[0]) from None


def builtin_seat(spec: str) -> str:
    """An argparse type: a built-in seat spec (``bot``, ``random``, ``bot?level=0.4``, ``bot?mafia=1&town=0``)."""
    from arena.players.registry import SpecError, bot_levels, builtin_kind, is_builtin

    if not is_builtin(spec):
        raise argparse.ArgumentTypeError(f"{spec!r}: use bot, random or a leveled bot like bot?level=0.5 (no model plays here)")
    if builtin_kind(spec) == "bot":
        try:
            bot_levels(spec)
        except SpecError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    elif "?" in spec:
        raise argparse.ArgumentTypeError(f"{spec!r}: only bot takes levels")
    return spec.strip()


def player_seed_of(header: dict[str, Any]) -> int | None:
    """The seed a transcript's players were built with, when the header does not say it: a game of a
    tournament written before headers recorded ``player_seed`` derives it from its key, as the
    tournament does (bots seeded otherwise would play another game on)."""
    tournament = header.get("tournament")
    key = tournament.get("key") if isinstance(tournament, dict) else None
    if "player_seed" in header or not isinstance(key, str):
        return None
    from arena.tournament.design import player_seed

    return player_seed(int(header["seed"]), key)


def in_terminal(human: Any, game: Any) -> None:
    """Run ``game``; with a person at the terminal, in a worker thread while the main thread reads
    the keyboard (so a question can count down and be withdrawn: :mod:`arena.players.human.keyboard`)."""
    from arena.players.human.keyboard import TerminalKeyboard

    keyboard = getattr(human, "keyboard", None)
    if isinstance(keyboard, TerminalKeyboard):
        keyboard.play(game)
    else:
        game()


def play_resumption(resumption: Any, human: str | None) -> tuple[int, str | None]:
    """Play a rebuilt game on (``arena resume``, ``arena fork``): (exit code, the stop's error or None).

    Bots alone play synchronously; a person, a model seat or a wall clock need the event loop."""
    import asyncio

    from arena.players.base import StopGame, SyncPlayer
    from arena.run.resume import run_and_close

    players = resumption.players
    try:
        if resumption.clock is None and human is None and all(isinstance(p, SyncPlayer) for p in players.values()):
            resumption.play()
        else:
            in_terminal(players.get(human or ""), lambda: asyncio.run(run_and_close(resumption)))
    except KeyboardInterrupt:
        return 130, None
    except StopGame as exc:
        return 1, (str(exc) if exc.error else None)
    return 0, None
