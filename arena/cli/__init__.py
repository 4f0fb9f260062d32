"""The ``arena`` command: play a game, list variants, run a scenario, replay a transcript, bench.

Every mistake in the input (unknown variant, bad config, bad seat spec, unreadable file) ends
with one line on stderr and exit code 2, never a traceback: the user can fix it from that line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console

from arena.cli.base import (
    USAGE_ERROR,
    CliError,
    Parser,
    builtin_seat,
    in_terminal,
    play_resumption,
    player_seed_of,
    variant_class,
)
from arena.cli.calls import check_model_seats, model_calls_option
from arena.cli.usage_table import print_usage
from arena.engine import Game, RulesError
from arena.players.registry import seat_modes
from arena.run.config import ConfigError, first_error, load_config, parse_seat_args, seat_specs

# the shared pieces under their old names here (other modules and tests use them)
_Parser = Parser
_variant = variant_class


def _players(
    specs: dict[str, str],
    seed: int,
    game: Game | None = None,
    recorder: Callable[[str], Any] | None = None,
    human: dict[str, Any] | None = None,
    model_settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One player per seat; model seats also learn the variant and options, and report their calls;
    the human seat gets ``human`` (its console and time limit); ``model_settings`` are profile
    fields for every model seat."""
    from arena.players.registry import SpecError, builtin_kind, make_player

    players = {}
    for name, spec in specs.items():
        extra: dict[str, Any] = {}
        if spec == "human":
            extra = dict(human or {})
        elif builtin_kind(spec) is None and game is not None:
            extra = {"variant": game.name, "options": game.options.model_dump(mode="json"), **(model_settings or {})}
            if recorder is not None:
                extra["recorder"] = recorder(name)
        try:
            players[name] = make_player(spec, name, seed, **extra)
        except (SpecError, ValueError, ImportError, AttributeError) as exc:  # AttributeError: a half-installed kind
            raise CliError(f"seat {name}: {exc}") from None
    return players


async def _run_and_close(game: Game, players: dict[str, Any], observers: list[Any], clock: Any = None) -> None:
    """Play on an event loop, then let model seats close their connections on that same loop."""
    from arena.run.orchestrator import run

    try:
        await run(game, players, observers, clock=clock)
    finally:
        for player in players.values():
            close = getattr(player, "aclose", None)
            if close is not None:
                await close()


def _wall_clock(args: argparse.Namespace, game: Game, human: str | None) -> Any:
    """The wall clock of a McKay table with a person at it (beats of real seconds), else None."""
    from arena.run.wallclock import DEFAULT_BEAT_SECONDS, ClockError, ThinkTime, WallClock
    from arena.variants.mckay.common import McKayGame

    if human is None or not isinstance(game, McKayGame):
        for flag, value in (("--beat-seconds", args.beat_seconds), ("--think", args.think)):
            if value:
                raise CliError(f"{flag} needs a person at a duel, duel3 or trio table (--human NAME)")
        return None
    think: dict[str, ThinkTime] = {}
    default = None
    try:
        for text in args.think:
            seat, eq, spec = text.rpartition("=")
            if not eq:
                default = ThinkTime.parse(spec)
            elif seat not in game.seats:
                raise CliError(f"--think {text}: this table has no seat {seat!r} (seats: {', '.join(game.seats)})")
            else:
                think[seat] = ThinkTime.parse(spec)
        seconds = DEFAULT_BEAT_SECONDS if args.beat_seconds is None else args.beat_seconds
        return WallClock(seconds, seed=game.seed, think=think, default=default)
    except ClockError as exc:
        raise CliError(str(exc)) from None


# ---- play -------------------------------------------------------------------------------------
def _with_option(variant: type[Game], options: Any, name: str, value: Any) -> Any:
    """``options`` with one option changed from the command line, checked like a config value."""
    if name not in variant.Options.model_fields:
        raise CliError(f"--{name} does not apply to {variant.name}")
    try:
        return variant.Options.model_validate({**options.model_dump(), name: value})
    except ValidationError as exc:
        raise CliError(f"--{name}: {first_error(exc)}") from None


def cmd_play(args: argparse.Namespace) -> int:
    from arena.cli.console import Printer, print_next_steps, print_result, print_stopped
    from arena.players.base import StopGame, SyncPlayer
    from arena.players.human import print_night_report, seat_human
    from arena.run.orchestrator import play
    from arena.run.transcript import TranscriptWriter

    variant = _variant(args.variant)
    config = load_config(variant, args.config)
    if args.hands is not None:
        config.options = _with_option(variant, config.options, "hands", args.hands)
    seat_args = parse_seat_args(args.seat)
    if args.human is not None:
        twice = next((name for name, _ in seat_args if name.lower() == args.human.strip().lower()), None)
        if twice is not None:
            raise CliError(f"--human {args.human} and --seat {twice}=… name the same seat: give it once")
    if args.seats:  # every seat the config and --seat leave to the default
        unnamed = [name for name in seat_specs(variant, args.players, config) if name not in config.seats]
        seat_args = [(name, args.seats) for name in unnamed] + seat_args
    specs = seat_specs(variant, args.players, config, seat_args)
    try:
        specs, human = seat_human(specs, args.human)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.human_timeout is not None and human is None:
        raise CliError("--human-timeout needs a human seat (--human NAME)")
    calls = model_calls_option(args)
    seed = args.seed if args.seed is not None else calls.seed() if calls else None
    seed = seed if seed is not None else random.SystemRandom().randrange(1_000_000)
    try:
        game = variant(list(specs), config.options, seed)
    except RulesError as exc:
        raise CliError(str(exc)) from None
    clock = _wall_clock(args, game, human)
    sink: list[TranscriptWriter] = []  # seats are made before the file (a bad spec leaves none): bind late

    def recorder(seat: str) -> Callable[[dict[str, Any]], None]:
        def record(call: dict[str, Any]) -> None:
            if sink:
                sink[0].record_call(seat, call)

        return record

    console = Console()
    human_seat = {"console": console, "timeout": args.human_timeout}
    players = _players(specs, seed, game, recorder, human_seat, calls.model_settings() if calls else None)
    if calls is not None:
        calls.check(game, specs)
    if calls is None or calls.mode != "replay":  # a replay never touches the network
        check_model_seats(players)
    else:
        calls.use_recorded_modes(players)
    try:
        extra: dict[str, Any] = {"clock": clock.describe()} if clock else {}
        if seat_modes(players):
            extra["structured"] = seat_modes(players)
        writer = TranscriptWriter.create(Path(args.transcripts), game, specs, extra or None)
    except OSError as exc:
        raise CliError(f"cannot write transcripts to {args.transcripts}: {exc.strerror or exc}") from None
    sink.append(writer)
    writer.track_usage(players)
    if human is not None and args.seed is None:  # the seed fixes the deal: a person learns it at the end
        intro = f"{variant.title}: {len(specs)} players; you are {human} (the seed is shown at the end)"
        console.print(intro, highlight=False, soft_wrap=True)
    elif not args.quiet:
        console.print(f"{variant.title}: {len(specs)} players, seed {seed}", highlight=False, soft_wrap=True)
    observers = [writer] if args.quiet else [writer, Printer(console, reveal=args.reveal)]
    if human is not None:  # the person's own screen is the only printer: it shows exactly their view
        observers = [writer, players[human]]
        if args.reveal:
            notice = f"--reveal is ignored: {human} is played by a person, who sees only that seat."
            console.print(notice, highlight=False, soft_wrap=True)
    code = 0
    aborted = failure = None
    started = time.perf_counter()
    try:
        with calls.cassette(game, players, specs) if calls else contextlib.nullcontext():
            if all(isinstance(p, SyncPlayer) for p in players.values()):
                play(game, players, observers)
            else:
                in_terminal(players.get(human or ""), lambda: asyncio.run(_run_and_close(game, players, observers, clock)))
    except KeyboardInterrupt:
        code, aborted = 130, "interrupted (Ctrl-C)"
    except StopGame as exc:
        code, aborted = 1, str(exc) or "stopped"
        failure = aborted if exc.error else None  # an endpoint down, a replay that left its recording
    finally:
        writer.close(game, aborted=aborted)
    if human is not None and not game.finished:  # it can be resumed: show the person nothing new
        print_stopped(console, game, specs, writer.path, human)
    else:
        print_result(console, game, specs, writer.path)
        print_usage(console, players, time.perf_counter() - started, game)
    if human is not None:
        if game.finished:
            print_night_report(console, game)
        print_next_steps(console, writer.path, human, finished=game.finished)
    if calls is not None:
        calls.report(console)
    if failure is not None:
        print(f"arena: error: {failure}", file=sys.stderr)
    return code


# ---- variants, scenario, replay, bench --------------------------------------------------------------
def cmd_variants(args: argparse.Namespace) -> int:
    from arena.cli.console import print_variants
    from arena.variants import VARIANTS

    print_variants(Console(), VARIANTS)
    return 0


def _read_json(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    except json.JSONDecodeError as exc:
        raise CliError(f"{path}: not JSON: {exc}") from None


def cmd_scenario(args: argparse.Namespace) -> int:
    from arena.run.scenario import run_scenario

    spec = _read_json(args.file)
    if not isinstance(spec, dict):
        raise CliError(f"{args.file}: a scenario is a JSON object (see docs/scenarios.md)")
    missing = [key for key in ("variant", "players") if key not in spec]
    if missing:
        raise CliError(f"{args.file}: missing key {', '.join(missing)} (see docs/scenarios.md)")
    _variant(str(spec["variant"]))
    if not isinstance(spec["players"], list) or not all(isinstance(n, str) for n in spec["players"]):
        raise CliError(f"{args.file}: players must be a list of seat names")
    answers = spec.get("answers", {})
    if not isinstance(answers, dict) or not all(isinstance(a, list) for a in answers.values()):
        raise CliError(f"{args.file}: answers must map seat names to lists of answers")
    for key in ("options", "deal"):
        if spec.get(key) is not None and not isinstance(spec[key], dict):
            raise CliError(f"{args.file}: {key} must be an object")
    try:
        out = run_scenario(spec)
    except ValidationError as exc:
        raise CliError(f"{args.file}: {first_error(exc, 'options')}") from None
    except (RulesError, ValueError, TypeError, KeyError) as exc:
        raise CliError(f"{args.file}: {exc}") from None
    print(json.dumps(out, indent=2, ensure_ascii=False))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from arena.run.replay import ReplayError, replay
    from arena.run.transcript import TranscriptError, read_transcript

    try:
        result = replay(read_transcript(args.file))
    except (TranscriptError, ReplayError) as exc:
        raise CliError(str(exc)) from None
    print(result.message())
    return 0 if result.ok else 1


def cmd_resume(args: argparse.Namespace) -> int:
    """Continue an interrupted game from its transcript (:mod:`arena.run.resume`)."""
    from arena.cli.console import Printer, print_next_steps, print_result, print_stopped
    from arena.players.human import print_night_report
    from arena.run.resume import ResumeError, is_person, prepare_resume

    console = Console()
    human_seat = {"console": console, "timeout": args.human_timeout}
    path = Path(args.file)
    try:
        header = _read_header(path)
        humans = [seat for seat, spec in dict(header.get("players") or {}).items() if is_person(str(spec))]
        if len(humans) > 1:  # one terminal shows one seat's secrets
            raise CliError(f"{len(humans)} people played this table ({', '.join(humans)}): one terminal seats one person")
        if args.human_timeout is not None and not humans:
            raise CliError("--human-timeout needs a human seat at the table")
        resumption = prepare_resume(
            path,
            player_kwargs={seat: human_seat for seat in humans},
            seed=player_seed_of(header),
            before_writing=None if humans else check_model_seats,  # a dead endpoint leaves the file as it was
        )
    except ResumeError as exc:
        raise CliError(str(exc)) from None
    for note in resumption.notes():
        print(f"arena: {note}", file=sys.stderr)
    game, players = resumption.game, resumption.players
    human = humans[0] if humans else None
    if human is not None:  # the person's own screen: everything they had seen, then the game goes on
        resumption.observers.append(players[human])
    elif not args.quiet:
        resumption.observers.append(Printer(console, reveal=args.reveal))
    specs = {seat: str(spec) for seat, spec in dict(header["players"]).items()}
    started = time.perf_counter()
    code, failure = play_resumption(resumption, human)
    if human is not None and not game.finished:  # stopped again: the person sees nothing new
        print_stopped(console, game, specs, path, human)
    else:
        print_result(console, game, specs, path)
        print_usage(console, players, time.perf_counter() - started, game)
    if human is not None:
        if game.finished:
            print_night_report(console, game)
        print_next_steps(console, path, human, finished=game.finished)
    if failure is not None:
        print(f"arena: error: {failure}", file=sys.stderr)
    return code


def _read_header(path: Path) -> dict[str, Any]:
    """The transcript's header, read alone (which seats are people), with one-line errors."""
    from arena.run.resume import ResumeError

    try:
        with path.open(encoding="utf-8") as file:
            header = json.loads(file.readline())
    except FileNotFoundError:
        raise ResumeError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ResumeError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    except json.JSONDecodeError:
        raise ResumeError(f"{path}:1: not JSON: not a transcript") from None
    if not isinstance(header, dict) or header.get("type") != "header" or not isinstance(header.get("players"), dict):
        raise ResumeError(f"{path}: the first line must be the header")
    return header


def cmd_bench(args: argparse.Namespace) -> int:
    from arena.run.bench import bench

    variant = _variant(args.variant)
    config = load_config(variant, args.config)
    specs = seat_specs(variant, args.players, config)
    if args.games < 1:
        raise CliError("--games must be at least 1")
    _players(dict.fromkeys(list(specs)[:1], args.seats), 0)  # a clear error if the kind is missing
    try:
        result = bench(variant, args.games, players=len(specs), seats=args.seats, options=config.options, first_seed=args.seed)
    except RulesError as exc:
        raise CliError(str(exc)) from None
    print("\n".join(result.lines()))
    return 0


# ---- report, show -------------------------------------------------------------------------------
def cmd_report(args: argparse.Namespace) -> int:
    from arena.report import ReportError, report

    try:
        print(report(Path(args.path), Path(args.output) if args.output else None, args.as_name))
    except ReportError as exc:
        raise CliError(str(exc)) from None
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from arena.report.show import ShowError, load, show
    from arena.run.transcript import TranscriptError, note_look

    try:
        transcript = load(Path(args.file))
        if args.as_name is None or args.as_name in (transcript.header.get("seats") or []):
            note_look(transcript, "arena show", args.as_name)  # more than a person saw of their unfinished game: recorded
        show(transcript, Console(), args.as_name)
    except (TranscriptError, ShowError) as exc:
        raise CliError(str(exc)) from None
    return 0


# ---- serve -------------------------------------------------------------------------------------
def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from arena.serve.app import is_loopback, serve
    except ImportError as exc:  # aiohttp missing: the serve extra
        raise CliError(f"arena serve needs aiohttp: pip install 'mafia-arena[serve]' ({exc})") from None

    if not 0 < args.port < 65536:
        raise CliError(f"--port {args.port}: use 1-65535")
    if args.keep <= 0:
        raise CliError("--keep must be more than 0 seconds")
    if args.night_seconds is not None and not 0 <= args.night_seconds <= 600:
        raise CliError(f"--night-seconds {args.night_seconds:g}: use 0-600 seconds")
    public_url = None
    if args.public_url is not None:
        from arena.serve.guard import check_public_url

        try:
            public_url = check_public_url(args.public_url)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    data = Path(args.data)
    made = [d for d in (*reversed(data.parents), data, data / "tables", data / "transcripts") if not d.exists()]
    try:
        (data / "tables").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"cannot use {data} as the data folder: {exc.strerror or exc}") from None
    if not is_loopback(args.host):
        print(
            f"arena serve: warning: listening on {args.host}, not loopback: anyone who can reach this machine "
            "can create tables and watch them (seat links stay private to whoever holds them); it answers to its "
            "addresses, not to a name (give a name with --public-url)",
            file=sys.stderr,
        )
    try:
        serve(
            args.host, args.port, data, live_views=args.live_views, keep=args.keep, public_url=public_url,
            **({} if args.night_seconds is None else {"night_seconds": args.night_seconds}),
        )  # fmt: skip
    except OSError as exc:
        for folder in reversed(made):  # a server that never listened leaves no empty data folder behind
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise CliError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    return 0


# ---- the parser ---------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="arena", description="Mafia arena: language models, bots and people play Mafia.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("play", help="play one game and print it as it happens")
    p.add_argument("variant", help="variant id (see: arena variants)")
    p.add_argument("--players", type=int, help="number of seats (default: the config's, else the variant's)")
    p.add_argument("--seed", type=int, help="game seed (default: a random one, printed)")
    p.add_argument("--hands", type=int, metavar="N", help="hands in a match (duel, duel3, trio; default: the config's)")
    p.add_argument("--config", help="TOML config (default: configs/VARIANT.toml if it exists)")
    p.add_argument(
        "--seat", action="append", default=[], metavar="NAME=SPEC",
        help="give the seat NAME (Ann, Bob, Cid, …) to SPEC: random, bot, human, local or provider:model; repeatable",
    )  # fmt: skip
    p.add_argument("--seats", metavar="SPEC", help="who plays every seat not given otherwise (default: bot), e.g. local")
    p.add_argument("--human", metavar="NAME", help="play the seat NAME yourself (as --seat NAME=human); you see only that seat")
    p.add_argument(
        "--human-timeout", type=float, metavar="SECONDS", help="time for each of your decisions; then the default is played"
    )
    p.add_argument(
        "--beat-seconds", type=float, metavar="S",
        help="with a person at a duel, duel3 or trio table: seconds of a beat on the wall clock (default 10: 12 in 2 minutes)",
    )  # fmt: skip
    p.add_argument(
        "--think", action="append", default=[], metavar="[NAME=]LOW-HIGH",
        help="with a person at a McKay table: a bot's think time in a beat, seconds (default: 20-80%% of it); repeatable",
    )  # fmt: skip
    p.add_argument("--reveal", action="store_true", help="also print private events: cards, night actions, checks, thoughts")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    p.add_argument("--transcripts", default="transcripts", metavar="DIR", help="transcript folder (default: transcripts)")
    calls = p.add_mutually_exclusive_group()
    calls.add_argument("--record-calls", metavar="FILE.yaml", help="record every model HTTP exchange of the game (vcrpy)")
    calls.add_argument(
        "--replay-calls", metavar="FILE.yaml", help="answer every model request from a recording: no network (docs/llm.md)"
    )
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("variants", help="list the variants")
    p.set_defaults(func=cmd_variants)

    p = sub.add_parser("scenario", help="run a scripted scenario; prints one JSON object (docs/scenarios.md)")
    p.add_argument("file", help="scenario JSON file")
    p.set_defaults(func=cmd_scenario)

    p = sub.add_parser("replay", help="re-run a transcript from its recorded answers and compare")
    p.add_argument("file", help="one transcript (.jsonl); for a folder or a tournament database use arena report")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("resume", help="continue an interrupted game (a crash, kill -9) from its transcript, appending to it")
    p.add_argument("file", help="transcript (.jsonl) of the unfinished game")
    p.add_argument("--human-timeout", type=float, metavar="SECONDS", help="a person seat's time for each decision")
    p.add_argument("--reveal", action="store_true", help="also print private events (no person at the table)")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    p.set_defaults(func=cmd_resume)

    p = sub.add_parser("bench", help="play many games in one process and print games per second")
    p.add_argument("variant", help="variant id")
    p.add_argument("--games", type=int, default=200, help="number of games (default 200)")
    p.add_argument("--seats", type=builtin_seat, default="random", metavar="SPEC",
                   help="who plays every seat: random (default), bot or a leveled bot (bot?level=0.5)")  # fmt: skip
    p.add_argument("--players", type=int, help="number of seats (default: the variant's)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    p.add_argument("--config", help="TOML config for the options (default: configs/VARIANT.toml)")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser(
        "report", help="write a readable HTML report of a transcript, a folder of them or a tournament database (.sqlite)"
    )
    p.add_argument(
        "path",
        help="transcript (.jsonl); a folder of transcripts (index page + one page per game); or a tournament "
        "database (.sqlite: leaderboard, charts and a page per game)",
    )
    p.add_argument(
        "-o", "--output", metavar="OUT",
        help="output file (default: the transcript's, .html) or folder (default: PATH/report; a database: NAME-report beside it)",
    )  # fmt: skip
    p.add_argument(
        "--as", dest="as_name", metavar="NAME",
        help="one seat's own page: built from what NAME saw alone, safe to send to that player (default FILE.NAME.html)",
    )  # fmt: skip
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("show", help="tell a transcript in the terminal, everything or as one player saw it")
    p.add_argument("file", help="one transcript (.jsonl); for a folder or a tournament database use arena report")
    p.add_argument("--as", dest="as_name", metavar="NAME", help="only what the seat NAME could see")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("serve", help="serve tables in the browser: people, bots and models at one game (docs/serve.md)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--data", default="served", metavar="DIR", help="folder of the tables' transcripts and state (default served)")
    p.add_argument(
        "--live-views", action="store_true",
        help="let the watch page show every view live at tables with no person seat (default: only after the game)",
    )  # fmt: skip
    p.add_argument(
        "--keep", type=float, default=600.0, metavar="SECONDS",
        help="how long a finished table stays in memory before it is served from its transcript (default 600)",
    )  # fmt: skip
    p.add_argument(
        "--public-url", metavar="URL",
        help="the address people open when the server is behind a proxy (e.g. https://mafia.example.org): "
        "the server answers to it as well as to the address it listens on",
    )  # fmt: skip
    p.add_argument(
        "--night-seconds", type=float, default=None, metavar="SECONDS",
        help="at a table with a person, a night lasts at least this long, so that when its news comes tells "
        "nobody who moved in it (default: the server's, 20; a table's own night_seconds wins)",
    )  # fmt: skip
    p.set_defaults(func=cmd_serve)

    from arena.cli.prompts import add_command as add_prompts

    add_prompts(sub)

    from arena.cli.fork import add_command as add_fork

    add_fork(sub)

    from arena.cli.positions import add_command as add_positions

    add_positions(sub)

    from arena.tournament.cli import add_commands  # tournament, leaderboard, balance

    add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # the reader went away (arena scenario x.json | head): not an error of ours
        sys.stderr.close()
        return 0
    except ConfigError as exc:
        message = str(exc)
    except CliError as exc:
        message = str(exc)
    if not message.startswith("config error:"):
        message = f"arena: error: {message}"
    print(message, file=sys.stderr)
    return USAGE_ERROR


if __name__ == "__main__":
    sys.exit(main())
