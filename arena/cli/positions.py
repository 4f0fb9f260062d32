"""``arena positions build|run|compare``: compare players one decision at a time (:mod:`arena.positions`)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from arena.cli.base import CliError


def cmd_build(args: argparse.Namespace) -> int:
    from arena.positions.bank import DECEPTION, DETECTION, BankError, build

    kinds = [DETECTION, DECEPTION] if args.kind == "both" else [args.kind]
    try:
        built = build(Path(args.source), Path(args.output), kinds, beliefs=args.beliefs)
    except BankError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    for line in built.skipped:
        print(f"arena: skipped {line}", file=sys.stderr)
    if not built.games:
        raise CliError(f"{args.source}: no finished game of a team variant (classic, cove, village) to take positions from")
    counts: dict[str, int] = {}
    for p in built.positions:
        counts[f"{p.kind} {p.what}"] = counts.get(f"{p.kind} {p.what}", 0) + 1
    detail = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    print(f"{len(built.positions)} positions from {built.games} games ({detail}): {args.output}")
    return 0


def _check_spec(spec: str) -> None:
    """A clear line for a spec that cannot play, before anything is asked."""
    from arena.players.registry import SpecError, builtin_kind, make_player

    try:
        player = make_player(spec, "Ann", 0) if builtin_kind(spec) is not None else make_player(spec, "Ann", 0, variant="classic")
    except (SpecError, ValueError, ImportError, AttributeError) as exc:
        raise CliError(f"--player {spec}: {exc}") from None
    if builtin_kind(spec) is None:
        from arena.cli.calls import check_model_seats

        check_model_seats({"Ann": player})


def cmd_run(args: argparse.Namespace) -> int:
    from arena.positions.answer import PositionError
    from arena.positions.bank import WHATS, BankError, load_bank
    from arena.positions.run import RunError, read_run, run_bank

    if args.max is not None and args.max < 1:
        raise CliError("--max must be at least 1")
    if args.until_decided and not args.against:
        raise CliError("--until-decided needs --against RUN (the other player's run over the same bank)")
    against = None
    if args.against:
        try:
            header, rows = read_run(Path(args.against))
        except RunError as exc:
            raise CliError(str(exc)) from None
        against = (str(header["player"]), {str(r["id"]): r for r in rows})
    _check_spec(args.player)
    bank = Path(args.bank) if args.bank else None
    try:
        positions = load_bank(bank)
        if args.what:
            wanted = {w.strip() for w in args.what.split(",") if w.strip()}
            unknown = sorted(wanted - set(WHATS))
            if unknown:
                raise CliError(f"--what {', '.join(unknown)}: the kinds are {', '.join(WHATS)}")
            positions = [p for p in positions if p.what in wanted]
            if not positions:
                raise CliError(f"the bank holds no position of {args.what}")
        result = asyncio.run(
            run_bank(
                args.player,
                bank,
                Path(args.output),
                max_positions=args.max,
                seed=args.seed,
                against=against,
                until_decided=args.until_decided,
                positions=positions,
            )
        )
    except (BankError, PositionError) as exc:
        raise CliError(str(exc)) from None
    usage = result.usage
    line = f"{len(result.rows)} positions answered by {args.player} ({result.stopped})"
    if usage.get("calls"):
        line += f": {int(usage['calls'])} calls, {int(usage.get('input_tokens', 0))} prompt tokens, ${usage.get('cost', 0):.4f}"
    print(f"{line}: {args.output}")
    if result.comparison is not None:
        _print_comparison(result.comparison.as_json())
    return 0


def _print_comparison(out: dict[str, Any]) -> None:
    for skill, s in out.items():
        verdict = f"{s['better']} better" if s["status"] == "different" else s["status"]
        scores = f"{s['a']} {_f(s['score_a'])}, {s['b']} {_f(s['score_b'])}"
        interval = f"difference {_f(s['estimate'])} in [{_f(s['cs95'][0])}, {_f(s['cs95'][1])}]"
        print(f"{skill}: {verdict} after {s['n']} positions of {s['games']} games ({scores}; {interval})")


def _f(x: Any) -> str:
    return "–" if x is None else f"{x:+.3f}"


def cmd_compare(args: argparse.Namespace) -> int:
    from arena.positions.compare import compare_runs
    from arena.positions.run import RunError, read_run

    try:
        header_a, rows_a = read_run(Path(args.run_a))
        header_b, rows_b = read_run(Path(args.run_b))
    except RunError as exc:
        raise CliError(str(exc)) from None
    a, b = str(header_a["player"]), str(header_b["player"])
    if a == b:
        b = f"{b} ({Path(args.run_b).name})"
        a = f"{a} ({Path(args.run_a).name})"
    shared = {r["id"] for r in rows_a} & {r["id"] for r in rows_b}
    if not shared:
        raise CliError(f"{args.run_a} and {args.run_b} share no position: were they run over the same bank?")
    if header_a.get("seed") != header_b.get("seed"):
        print(
            f"arena: note: the runs used seeds {header_a.get('seed')} and {header_b.get('seed')}: their deception forks "
            "are not played from the same seeds (run both with one --seed to pair them)",
            file=sys.stderr,
        )
    out = compare_runs(rows_a, rows_b, a, b, target=args.target).as_json()
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        _print_comparison(out)
    return 0


def add_command(sub: Any) -> None:
    """``arena positions`` on the command line's subcommands."""
    from arena.cli.base import Parser

    p = sub.add_parser("positions", help="compare players one decision at a time on recorded games' positions")
    inner = p.add_subparsers(dest="positions_command", required=True, metavar="COMMAND", parser_class=Parser)

    b = inner.add_parser("build", help="a bank of positions from a folder of transcripts or a tournament database")
    b.add_argument("source", help="a folder of transcripts (.jsonl), one transcript, or a tournament database (.sqlite)")
    b.add_argument("-o", "--output", required=True, metavar="BANK.jsonl", help="the bank to write")
    b.add_argument("--kind", choices=("both", "detection", "deception"), default="both", help="which positions (default both)")
    b.add_argument(
        "--beliefs", action="store_true",
        help="a belief position at every day's start for every living town seat (default: where a probe was recorded)",
    )  # fmt: skip
    b.set_defaults(func=cmd_build)

    r = inner.add_parser("run", help="a player answers each position of a bank once; scores, calls and dollars")
    r.add_argument("bank", nargs="?", help="the bank (default: the small bank shipped with arena, from bot games)")
    r.add_argument("--player", required=True, metavar="SPEC", help="who answers: bot, random, bot?level=L, a model spec")
    r.add_argument("-o", "--output", required=True, metavar="RUN.jsonl", help="the run to write")
    r.add_argument("--max", type=int, metavar="N", help="only the first N positions")
    r.add_argument(
        "--what", metavar="KINDS",
        help="only these kinds, comma-separated: accuse, nominate, vote, check, verdict, belief, speech (default all)",
    )  # fmt: skip
    r.add_argument("--seed", type=int, default=0, help="the players' seed and the forks' (default 0)")
    r.add_argument("--against", metavar="RUN.jsonl", help="another player's run over the same bank: compared game by game")
    r.add_argument("--until-decided", action="store_true", help="with --against: stop once every skill is decided")
    r.set_defaults(func=cmd_run)

    c = inner.add_parser("compare", help="two runs over one bank: detection and deception, paired by position")
    c.add_argument("run_a", help="player A's run")
    c.add_argument("run_b", help="player B's run")
    c.add_argument("--target", type=float, default=0.02, help="'alike' means within ± this (default 0.02)")
    c.add_argument("--json", action="store_true", help="print the comparison as JSON")
    c.set_defaults(func=cmd_compare)
