"""The ``arena tournament``, ``arena leaderboard`` and ``arena balance`` subcommands.

They live here and are added to the ``arena`` parser by :func:`add_commands`, so the shared
``arena/cli/__init__.py`` only calls one function. Bad input is one line and exit code 2, as everywhere
(:class:`~arena.cli.base.CliError`, from the layer both CLI modules build on: this module never
imports ``arena.cli``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from arena.cli.base import CliError, builtin_seat, variant_class


def _cli_error(message: str) -> Exception:
    return CliError(message)


def cmd_tournament(args: argparse.Namespace) -> int:
    from .config import load_tournament
    from .db import DatabaseError
    from .distributed import ClusterError, RayExecutor, require_ray
    from .progress import RunProgress
    from .runner import EndpointCheckError, run_tournament

    overrides: dict[str, Any] = {"until_decided": True} if args.until_decided else {}
    if args.max_games is not None:
        if args.max_games < 2:
            raise _cli_error(f"--max-games {args.max_games}: give at least 2 games")
        overrides["max_games"] = args.max_games
    config = load_tournament(args.config, overrides)
    if args.ray is not None:
        try:
            require_ray()  # before the database or a transcript folder exists
        except ClusterError as exc:
            raise _cli_error(str(exc)) from None
    if args.db:
        config.database = Path(args.db)
    if args.transcripts:
        config.transcripts = Path(args.transcripts)
    calls = _calls(args, config.transcripts)

    def echo(line: str) -> None:
        if not args.quiet:
            print(line, flush=True)

    executor = RayExecutor(config, args.ray, echo=echo, calls=calls) if args.ray is not None else None
    try:
        with RunProgress(cost=True) as bar:
            report = asyncio.run(run_tournament(config, echo, calls=calls, executor=executor, progress=bar.update))
    except (DatabaseError, EndpointCheckError, ClusterError) as exc:
        raise _cli_error(str(exc)) from None
    except KeyboardInterrupt:
        print("interrupted: finished games are in the database; run the same command to go on", file=sys.stderr)
        return 130
    from .leaderboard import wrap_phrases

    for line in report.lines(config):  # wrapped between phrases, never mid-phrase by the terminal
        print(wrap_phrases(line))
    if not args.quiet and report.played + report.skipped:
        print(f"next: arena leaderboard {config.database}")
    return 1 if report.failed or report.down else 0


def _calls(args: argparse.Namespace, transcripts: Path) -> Any:
    """``--record-calls [DIR]`` (default: beside the transcripts) or ``--replay-calls DIR``, checked."""
    from .runner import TournamentCalls

    if args.record_calls is None and args.replay_calls is None:
        return None
    from arena.players.llm.cassette import missing_vcrpy

    why = missing_vcrpy()
    if why:
        raise _cli_error(why)
    if args.replay_calls is not None:
        folder = Path(args.replay_calls)
        if not folder.is_dir():
            raise _cli_error(f"--replay-calls: {folder}: no such folder (the recorded run's cassettes)")
        return TournamentCalls("replay", folder)
    folder = Path(args.record_calls) if args.record_calls else transcripts
    if folder.exists() and not folder.is_dir():
        raise _cli_error(f"--record-calls: {folder} is not a folder")
    return TournamentCalls("record", folder)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from rich.console import Console

    from .db import Database, DatabaseError
    from .leaderboard import build_report, default_output_dir, print_report, to_json, write_outputs

    path = Path(args.db)
    if not 0 < args.target < 1:
        raise _cli_error(f"--target {args.target}: give a difference between 0 and 1 (e.g. 0.10)")
    try:
        with Database(path, create=False) as db:
            report = build_report(db, seed=args.seed, target=args.target, evidence=args.evidence)
    except DatabaseError as exc:
        raise _cli_error(str(exc)) from None
    if not report.total_games:
        raise _cli_error(f"{path}: no finished game yet")
    if args.json:
        print(to_json(report, str(path)))
    else:
        print_report(report, Console(width=max(80, Console().width)))
    if args.json and not args.out:
        return 0  # the JSON alone: no files unless asked for
    out = Path(args.out) if args.out else default_output_dir(path)
    try:
        written = write_outputs(report, out, str(path))
    except OSError as exc:
        raise _cli_error(f"cannot write to {out}: {exc.strerror or exc}") from None
    print(f"wrote to {out}: " + ", ".join(p.name for p in written), file=sys.stderr if args.json else sys.stdout)
    return 0


def cmd_balance(args: argparse.Namespace) -> int:
    from arena.run.config import load_config

    from .balance import BalanceError, balance, parse_sizes
    from .distributed import ClusterError, RayChunks
    from .progress import RunProgress

    cls = variant_class(args.variant)
    config = load_config(cls, args.config)
    remote = RayChunks(args.ray) if args.ray is not None else None
    try:
        sizes = parse_sizes(args.players, cls)
        with RunProgress() as bar:
            result = balance(
                cls, sizes, args.games, options=config.options, seats=args.seats, workers=args.workers, seed=args.seed,
                remote=remote, progress=bar.update,
            )  # fmt: skip
    except (BalanceError, ClusterError) as exc:
        raise _cli_error(str(exc)) from None
    finally:
        if remote is not None:
            remote.close()
    print("\n".join(result.lines()))
    return 0


def add_commands(sub: Any) -> None:
    """Register the three subcommands on the ``arena`` parser's subparsers."""
    p = sub.add_parser("tournament", help="play a tournament (balanced, resumable; results in SQLite)")
    p.add_argument("config", help="tournament TOML (see docs/tournaments.md and configs/tournaments/)")
    p.add_argument("--db", metavar="FILE", help="results database (default: the config's, else transcripts/NAME.sqlite)")
    p.add_argument("--transcripts", metavar="DIR", help="transcript folder (default: the config's, else transcripts/NAME)")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    p.add_argument("--until-decided", action="store_true", help="play rounds until every comparison is decided (needs a budget)")
    p.add_argument("--max-games", type=int, metavar="N", help="with --until-decided: the budget in games")
    calls = p.add_mutually_exclusive_group()
    calls.add_argument(
        "--record-calls", nargs="?", const="", metavar="DIR",
        help="record each game's model HTTP exchanges to DIR/<game>.calls.yaml (default DIR: the transcripts folder)",
    )  # fmt: skip
    calls.add_argument(
        "--replay-calls", metavar="DIR", help="answer every model request from DIR's cassettes: no network (use a new --db)"
    )
    _ray_option(p)
    p.set_defaults(func=cmd_tournament)

    p = sub.add_parser("leaderboard", help="print a tournament's leaderboard; write Markdown, CSV and plots")
    p.add_argument("db", help="tournament database (.sqlite)")
    p.add_argument("--out", metavar="DIR", help="output folder (default: next to the database, NAME-leaderboard)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstraps and randomization tests (default 0)")
    p.add_argument("--target", type=float, default=0.10, help="difference the power figures are for (default 0.10)")
    p.add_argument("--evidence", action="store_true", help="skill model on decision evidence (votes, survival), not wins alone")
    p.add_argument("--json", action="store_true", help="print one JSON object (comparisons, skills, …); files only with --out")
    p.set_defaults(func=cmd_leaderboard)

    p = sub.add_parser("balance", help="town win rate per table size over many bot games, in parallel processes")
    p.add_argument("variant", help="variant id (a team variant)")
    p.add_argument("--players", metavar="SIZES", help="sizes: 9, 7-14 or 7,9,11 (default: the variant's default)")
    p.add_argument("--games", type=int, default=1000, help="games per size (default 1000)")
    p.add_argument("--seats", type=builtin_seat, default="bot", metavar="SPEC",
                   help="who plays every seat: bot (default), random or a leveled bot (bot?level=0.5)")  # fmt: skip
    p.add_argument("--workers", type=int, help="processes, or Ray tasks at once with --ray (default: one per core)")
    p.add_argument("--seed", type=int, default=0, help="seed of each size's first game (default 0)")
    p.add_argument("--config", help="TOML config for the options (default: configs/VARIANT.toml)")
    _ray_option(p)
    p.set_defaults(func=cmd_balance)


def _ray_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--ray", nargs="?", const="local", metavar="ADDRESS",
        help='play the games as Ray tasks (pip install -e ".[ray]"): alone, on a local Ray instance on this '
        "machine's cores; auto, HOST:PORT or ray://HOST:PORT, on that cluster (docs/tournaments.md)",
    )  # fmt: skip
