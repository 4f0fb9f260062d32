"""``arena fork TRANSCRIPT --at POINT --seat NAME=SPEC … [--seed S]``: play a recorded game on
from a point with some seats' players swapped (:mod:`arena.run.fork`)."""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from arena.cli.base import CliError, play_resumption, player_seed_of


def _swaps(texts: list[str], seats: list[str]) -> dict[str, str]:
    """``--seat NAME=SPEC`` given for this table's seats (names matched regardless of case)."""
    from arena.run.config import ConfigError, parse_seat_args

    try:
        given = parse_seat_args(texts)
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    by_lower = {s.lower(): s for s in seats}
    out: dict[str, str] = {}
    for name, spec in given:
        seat = by_lower.get(name.strip().lower())
        if seat is None:
            raise CliError(f"--seat {name}={spec}: this table has no seat {name!r} (seats: {', '.join(seats)})")
        out[seat] = spec
    return out


def cmd_fork(args: argparse.Namespace) -> int:
    from arena.cli.calls import check_model_seats
    from arena.cli.console import Printer, print_result
    from arena.cli.usage_table import print_usage
    from arena.run.fork import ForkError, fork
    from arena.run.resume import is_person
    from arena.run.transcript import TranscriptError, read_transcript

    path = Path(args.file)
    try:
        header = read_transcript(path).header
    except TranscriptError as exc:
        raise CliError(str(exc).replace("cannot read: No such file or directory", "no such file")) from None
    seats = [str(s) for s in header.get("seats") or []]
    swapped = _swaps(args.seat, seats)
    if not swapped:
        raise CliError("name at least one seat to swap: --seat NAME=SPEC (the rest play as recorded)")
    specs = {**{str(k): str(v) for k, v in dict(header["players"]).items()}, **swapped}
    humans = [seat for seat, spec in specs.items() if is_person(spec)]
    if len(humans) > 1:
        raise CliError(f"{len(humans)} people would play this fork ({', '.join(humans)}): one terminal seats one person")
    console = Console()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    try:
        resumption = fork(
            path,
            args.at,
            swapped,
            seed=seed,
            out=Path(args.output) if args.output else None,
            folder=Path(args.transcripts) if args.transcripts else None,
            player_kwargs={seat: {"console": console} for seat in humans},
            player_seed=player_seed_of(header),
        )
    except ForkError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"cannot write the fork: {exc.strerror or exc}") from None
    fork_info = resumption.transcript.header["fork"]
    print(f"arena: forked {path} at {fork_info['at']}, seed {seed}: {resumption.path}", file=sys.stderr)
    players = resumption.players
    human = humans[0] if humans else None
    if human is None:
        try:
            check_model_seats(players)  # every model seat plays on from the fork
        except CliError:
            resumption.writer.close()
            resumption.path.unlink(missing_ok=True)
            raise
    if human is not None:
        resumption.observers.append(players[human])
    elif not args.quiet:
        resumption.observers.append(Printer(console, reveal=args.reveal))
    started = time.perf_counter()
    code, failure = play_resumption(resumption, human)
    print_result(console, resumption.game, specs, resumption.path)
    print_usage(console, players, time.perf_counter() - started, resumption.game)
    if failure is not None:
        print(f"arena: error: {failure}", file=sys.stderr)
    return code


def add_command(sub: Any) -> None:
    """``arena fork`` on the command line's subcommands."""
    p = sub.add_parser("fork", help="play a recorded game on from a point, with some seats' players swapped")
    p.add_argument("file", help="the recorded game's transcript (.jsonl)")
    p.add_argument(
        "--at", required=True, metavar="POINT",
        help="where: a decision number (14), 'day 2', 'night 1' or (duel, duel3, trio) 'hand 3'; that step is asked again",
    )  # fmt: skip
    p.add_argument(
        "--seat", action="append", default=[], metavar="NAME=SPEC",
        help="who plays seat NAME from the point on (bot, random, a model spec, human); repeatable; the rest as recorded",
    )  # fmt: skip
    p.add_argument("--seed", type=int, help="seed of what is random from the point on (default: a random one, printed)")
    p.add_argument("-o", "--output", metavar="FILE", help="the fork's transcript (default: PARENT-fork.jsonl beside it)")
    p.add_argument("--transcripts", metavar="DIR", help="folder of the fork's transcript (default: the parent's)")
    p.add_argument("--reveal", action="store_true", help="also print private events")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    p.set_defaults(func=cmd_fork)
