"""A game of model seats on a real OpenAI-compatible server: llama-cpp-python's, with SmolLM2-135M.

Starts ``llama_cpp.server`` on a loopback port (tests/real_server.py; needs the ``local`` and
``server`` extras), plays one game through ``arena play`` with every seat ``openai:smollm2@URL``
and no ``structured`` option (the check before the game picks the mode), stops the server, and
prints: the check's own time and the mode it picked, the game's wall time, calls, decisions,
forfeits and seconds per decision, and the load average (the machine may be shared: load slows
every timing here, never the counts). Goals (issue 21): the check under 10 s; a full 7-seat
classic under 25 minutes on 2 cores; forfeits at most 5% of decisions.

    python benchmarks/server_bench.py                         # 7-seat classic, --cache true
    python benchmarks/server_bench.py --variant duel --hands 1 --no-cache
    python benchmarks/server_bench.py --structured json_text  # a forced mode
    python benchmarks/server_bench.py --config day.toml --seed 2 --no-cache  # a shorter game (a TOML)
    python benchmarks/server_bench.py --model gemma3-270m --server-option logits_all=true   # memory

The server is started with the README's options (``tests/real_server.SERVER_OPTIONS``; docs/llm.md
says why each), ``--no-cache`` without its prompt cache, ``--server-option NAME=VALUE`` with any
other; ``--model gemma3-270m`` serves Gemma 3 270M as ``gemma``. The server's resident memory is
read every second; its peak (the kernel's ``VmHWM``) is printed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.real_server import resident_bytes  # noqa: E402

#: the served name of each packaged model (the README's commands)
ALIASES = {"smollm2": "smollm2", "gemma3-270m": "gemma"}


def parsed(parser: argparse.ArgumentParser, name: str) -> argparse.Namespace | None:
    """The benchmark's arguments, or None (said on stderr) when the server cannot run here; a
    SIGTERM from then on stops the benchmark through its ``finally`` blocks, servers included."""
    from tests.real_server import available

    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    missing = available()
    if missing:
        print(f"{name}: {missing}", file=sys.stderr)
        return None
    return args


class Peak(threading.Thread):
    """Reads a process's resident memory every second (its peak is the kernel's ``VmHWM``)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.done, self.last = pid, threading.Event(), (0, 0)

    def run(self) -> None:
        while not self.done.wait(1.0):
            with contextlib.suppress(OSError, KeyError):
                self.last = resident_bytes(self.pid)

    def stop(self) -> tuple[int, int]:
        """(resident now, peak resident) in bytes, read before the server stops."""
        self.done.set()
        with contextlib.suppress(OSError, KeyError):
            self.last = resident_bytes(self.pid)
        return self.last


def main() -> int:
    from arena.cli import main as arena
    from arena.run.transcript import read_transcript
    from tests.real_server import SERVER_OPTIONS, served

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=None, help="classic, cove, village: seats (default 7)")
    parser.add_argument("--config", default="", help="a game config (TOML) for arena play --config")
    parser.add_argument("--hands", type=int, default=None, help="duel, duel3, trio: hands in the match")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cache", action=argparse.BooleanOptionalAction, default=True, help="the server's --cache true")
    parser.add_argument("--structured", default="", help="force a mode (?structured=...)")
    parser.add_argument("--context", type=int, default=8192, help="the server's --n_ctx")
    parser.add_argument("--server-log", default="", help="keep the server's output in this file")
    parser.add_argument("--model", default="smollm2", help="the served model: smollm2 or gemma3-270m")
    parser.add_argument(
        "--server-option",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="a llama_cpp.server option over the README's, e.g. cache_size=500000000 (repeatable)",
    )
    parser.add_argument("--keep", default="", help="write the game's transcript into this folder (kept)")
    args = parsed(parser, "server_bench")
    if args is None:
        return 2
    chosen = dict(zip(SERVER_OPTIONS[::2], SERVER_OPTIONS[1::2], strict=True))  # the README's options
    chosen["--n_ctx"] = str(args.context)
    if not args.cache:
        chosen.pop("--cache")
    for option in args.server_option:
        name, _, value = option.partition("=")
        chosen[f"--{name}"] = value
    server_args = [part for pair in chosen.items() for part in pair]
    alias = ALIASES.get(args.model, args.model)
    load_before = os.getloadavg()
    server_log = Path(args.server_log) if args.server_log else None
    with tempfile.TemporaryDirectory() as scratch, served(*server_args, model=args.model, alias=alias, log=server_log) as server:
        url = server.url
        peak = Peak(server.pid)
        peak.start()
        tmp = args.keep or scratch
        spec = f"openai:{alias}@{url}" + (f"?structured={args.structured}" if args.structured else "")
        argv = ["play", args.variant, "--seed", str(args.seed), "--quiet", "--transcripts", tmp, "--seats", spec]
        if args.config:
            argv += ["--config", args.config]
        if args.players is not None or (args.variant in ("classic", "cove", "village") and not args.config):
            argv += ["--players", str(args.players or 7)]
        if args.hands is not None:
            argv += ["--hands", str(args.hands)]
        out = io.StringIO()
        started = time.perf_counter()
        with contextlib.redirect_stdout(out):
            code = arena(argv)
        wall = time.perf_counter() - started
        resident, hwm = peak.stop()
        files = list(Path(tmp).glob("*.jsonl"))
        record = read_transcript(files[0]) if files else None
    text = out.getvalue()
    check = re.search(r"^(http\S+: .*) \(checked in ([\d.]+) s\)$", text, flags=re.MULTILINE)
    print(f"server: llama_cpp.server --model {args.model} {' '.join(server_args)}; seats: {spec}; {args.variant} {args.config}")
    print(f"server resident memory: {resident / 2**30:.2f} GiB at the end, {hwm / 2**30:.2f} GiB at its peak")
    print(f"exit code {code}; load average before {load_before[0]:.1f}, after {os.getloadavg()[0]:.1f}")
    if check:
        print(f"check: {check.group(2)} s: {check.group(1)}")
    if record is None:
        print("no transcript (the game did not start)")
        return code
    summary = record.summary or {}
    decisions, forfeits = summary.get("decisions", 0), summary.get("forfeits", 0)
    calls = len(record.calls)
    modes = sorted(set((record.header.get("structured") or {}).values()))
    game_seconds = wall - (float(check.group(2)) if check else 0.0)
    print(f"mode {', '.join(modes)}: game {game_seconds:.0f} s ({wall:.0f} s with the check); finished {summary.get('finished')}")
    share = forfeits / decisions if decisions else 0.0
    per = game_seconds / decisions if decisions else 0.0
    print(f"calls {calls}, decisions {decisions}, forfeits {forfeits} ({share:.1%}), {per:.1f} s per decision")
    if summary.get("aborted"):
        print(f"aborted: {summary['aborted']}")
        if server_log is not None and server_log.exists():  # why the server stopped, if it said
            tail = server_log.read_bytes().decode("utf-8", "replace").splitlines()[-5:]
            print("server's last lines:\n" + "\n".join(tail))
    return code


if __name__ == "__main__":
    sys.exit(main())
