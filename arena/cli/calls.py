"""A command's model seats before and around a game: the endpoint check, recorded or replayed calls.

Kept apart from :mod:`arena.cli` so that ``arena play`` only calls three functions:
:func:`check_model_seats` (before any transcript is written: one line and exit code 2 when a seat
cannot play), :func:`model_calls_option` (``--record-calls`` / ``--replay-calls``) and the
:class:`ModelCalls` it returns (the cassette around the game, and a line after it). Nothing here
imports a model SDK unless a model seat is at the table.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rich.console import Console
from rich.text import Text

from arena.engine import Game
from arena.players.registry import network_seats, seat_modes


def _cli_error(message: str) -> Exception:
    from arena.cli.base import CliError

    return CliError(message)


def check_model_seats(players: Mapping[str, Any]) -> float:
    """Check every model seat's endpoint, key and model in parallel before the game (seconds taken).

    Raises the CLI's one-line error (exit code 2) naming the seat, its spec and the cause.
    """
    seats = network_seats(players)
    if not seats:
        return 0.0
    from arena.players.llm.preflight import run_preflight

    started = time.perf_counter()
    probes: list[Any] = []
    problems = run_preflight(seats, probes)
    if problems:
        raise _cli_error("; ".join(p.line() for p in problems) + " (no game was started)")
    for probe in probes:  # once per endpoint: the structured mode its seats play in, and why
        print(f"{probe.line()} (checked in {probe.seconds:.1f} s)", flush=True)
    return time.perf_counter() - started


@dataclass
class ModelCalls:
    """``--record-calls FILE`` or ``--replay-calls FILE`` of one game."""

    mode: Literal["record", "replay"]
    path: Path
    exchanges: int = 0  # recorded (record) or played back (replay)
    model_calls: int = 0  # HTTP model calls the seats made
    _recorded: dict[str, Any] | None = None

    def recorded(self) -> dict[str, Any] | None:
        """The replayed cassette's record of its game (read once)."""
        from arena.players.llm.cassette import read_stamp

        if self._recorded is None:
            try:
                self._recorded = read_stamp(self.path) or {}
            except ValueError as exc:
                raise _cli_error(str(exc)) from None
        return self._recorded or None

    def seed(self) -> int | None:
        """A replay's seed when the command gives none: the recorded game's."""
        if self.mode != "replay":
            return None
        stamp = self.recorded()
        return int(stamp["seed"]) if stamp and isinstance(stamp.get("seed"), int) else None

    def model_settings(self) -> dict[str, Any]:
        """Profile fields for every model seat: a replay needs no key (nothing is sent)."""
        return {"api_key_env": ""} if self.mode == "replay" else {}

    def check(self, game: Game, specs: Mapping[str, str]) -> None:
        """A replay of another game (variant, seed, seats, options) is one line before it starts."""
        from arena.players.llm.cassette import game_stamp, stamp_mismatch

        if self.mode != "replay":
            return
        why = stamp_mismatch(self.path, self.recorded(), game_stamp(game, specs))
        if why:
            raise _cli_error(f"{why} (replay with the recorded command)")

    @contextlib.contextmanager
    def cassette(self, game: Game, players: Mapping[str, Any], specs: Mapping[str, str]) -> Iterator[None]:
        """Record or replay inside the block (a recording is written even when the game stops)."""
        from arena.players.llm.cassette import calls_cassette, game_stamp, stamp

        try:
            with calls_cassette(self.path, self.mode) as cassette:
                if self.mode == "record":  # with the modes the check picked: a replay plays in them
                    stamp(cassette, {**game_stamp(game, specs), "structured": seat_modes(players)})
                try:
                    yield
                finally:
                    self.exchanges = cassette.play_count if self.mode == "replay" else len(cassette)
        finally:
            self.model_calls = sum(len(getattr(p, "calls", ())) for p in network_seats(players).values())

    def use_recorded_modes(self, players: Mapping[str, Any]) -> None:
        """A replay is not checked: its seats play in the modes the recording's check picked."""
        modes = (self.recorded() or {}).get("structured") or {}
        for seat, player in network_seats(players).items():
            if isinstance(modes.get(seat), str) and player.profile.probed:
                player.set_mode(modes[seat])

    def report(self, console: Console) -> None:
        """One line after the game: how many exchanges went to or came from the cassette."""
        if self.mode == "record":
            line = f"calls recorded: {self.exchanges} HTTP exchanges in {self.path}"
            if self.model_calls and not self.exchanges:
                line += " — nothing was recorded: this vcrpy does not patch the HTTP library of the SDKs"
        else:
            line = f"calls replayed: {self.exchanges} HTTP exchanges from {self.path}, no network"
        console.print(Text(line), highlight=False)


def model_calls_option(args: argparse.Namespace) -> ModelCalls | None:
    """``--record-calls`` / ``--replay-calls`` checked (bad input is one line), or None."""
    record, replay = getattr(args, "record_calls", None), getattr(args, "replay_calls", None)
    if not record and not replay:
        return None
    from arena.players.llm.cassette import missing_vcrpy

    why = missing_vcrpy()
    if why:
        raise _cli_error(why)
    if replay:
        path = Path(replay)
        if not path.is_file():
            raise _cli_error(f"--replay-calls: {path}: no such file")
        return ModelCalls("replay", path)
    path = Path(record)
    if path.is_dir():
        raise _cli_error(f"--record-calls: {path} is a folder; name a file (calls.yaml)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cli_error(f"--record-calls: cannot write to {path.parent}: {exc.strerror or exc}") from None
    return ModelCalls("record", path)
