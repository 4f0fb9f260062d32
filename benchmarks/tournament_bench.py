"""Does a tournament run as fast as its model calls allow? Wall time against the critical path.

A loopback OpenAI/Anthropic look-alike (tests/llm_server.py) runs in its own process and answers
every call a fixed latency after it arrived. A tournament of model seats (and a bot) is played against it;
then each game's *chain* is read from its transcript: the calls of one decision follow each other
(a rejected answer is asked again), the decisions of one step are asked together, and the steps
follow each other, so a game cannot take less than Σ over steps of the most calls any one
decision of the step needed, times the latency. The critical path of the whole run is the
makespan of those game durations scheduled greedily, in the design's order, on ``concurrency``
slots (with concurrency ≥ games: the longest game). Everything else — prompts, SDKs, bots,
transcripts, SQLite — is overhead, and the run should stay within 1.25× of the critical path.

    python benchmarks/tournament_bench.py                 # defaults below
    python benchmarks/tournament_bench.py --latency 0.5 --rounds 2 --players 9
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import json
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET = 1.25


def serve(latency: float, conn: Any) -> None:
    """Server process: the loopback server with a fixed latency; stops when the pipe says so."""
    from tests import llm_server
    from tests.llm_server import FakeModelServer

    # Hundreds of calls arrive at once: a listen backlog of 5 (socketserver's default) would refuse
    # connections, and the clients' retries would be counted against the tournament.
    llm_server._Server.request_queue_size = 1024

    class LatencyServer(FakeModelServer):
        """Answers every call ``latency`` seconds after it arrived, however long making the answer took."""

        def handle(self, api: str, raw: bytes) -> tuple[int, dict[str, str], dict[str, Any], float]:
            arrived = time.perf_counter()
            status, headers, body, stall = super().handle(api, raw)
            return status, headers, body, stall + max(0.0, latency - (time.perf_counter() - arrived))

    with LatencyServer(seed=1) as server:
        conn.send(server.port)
        conn.recv()


def chain(path: Path) -> int:
    """Sequential model calls on the game's critical path, from the transcript's line order."""
    steps = 0
    calls: dict[int, int] = {}
    with path.open(encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if record["type"] == "call" and record["call"].get("type") == "llm_call":
                request = record["call"]["request"]
                calls[request] = calls.get(request, 0) + 1
            elif calls and record["type"] == "event" and record["event"]["type"] in ("action", "forfeit"):
                steps += max(calls.values())  # the first answer event of a step closes the step's calls
                calls = {}
    return steps


def schedule(durations: list[float], slots: int) -> float:
    """Makespan of greedy list scheduling in order (what an ideal runner with this many slots takes)."""
    free = [0.0] * max(1, slots)
    for d in durations:
        start = heapq.heappop(free)
        heapq.heappush(free, start + d)
    return max(free)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.25, help="seconds per model call (default 0.25)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds: each plays every pairing mirrored (default 2)")
    parser.add_argument("--players", type=int, default=7, help="classic table size (default 7)")
    parser.add_argument("--concurrency", type=int, help="games in flight (default: all of them)")
    parser.add_argument("--keep", metavar="DIR", help="keep the database and transcripts in DIR (default: a temporary folder)")
    args = parser.parse_args()

    from arena.tournament.config import parse_tournament
    from arena.tournament.runner import run_tournament

    clock = time.perf_counter()
    import anthropic  # noqa: F401  # the SDKs' imports are a per-process constant, not the run's
    import openai  # noqa: F401

    imports = time.perf_counter() - clock

    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    server = ctx.Process(target=serve, args=(args.latency, theirs), daemon=True)
    server.start()
    port = ours.recv()
    url = f"http://127.0.0.1:{port}"
    fast = {"concurrency": 256, "timeout": 60, "backoff": 0.01}
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.keep or scratch
        models = {
            "oa": {"spec": f"openai:bench-oa@{url}/v1", **fast},
            "an": {"spec": f"anthropic:bench-an@{url}", **fast},
            "bot": "bot",
        }
        games = 6 * args.rounds
        concurrency = args.concurrency or games
        cfg = parse_tournament({
            "name": "bench", "seed": 1, "games": games, "concurrency": concurrency, "models": models,
            "database": f"{tmp}/bench.sqlite", "transcripts": f"{tmp}/tr",
            "variants": [{"name": "classic", "players": args.players, "options": {"discussion_rounds": 1}}],
        })  # fmt: skip
        started = time.perf_counter()
        report = asyncio.run(run_tournament(cfg))
        wall = time.perf_counter() - started
        import sqlite3

        with sqlite3.connect(f"{tmp}/bench.sqlite") as db:
            order = {g.key: i for i, g in enumerate(__import__("arena.tournament.design", fromlist=["x"]).build_design(cfg))}
            rows = sorted(db.execute("SELECT key, transcript FROM games"), key=lambda r: order[r[0]])
        chains = [chain(Path(path)) for _, path in rows]
    ours.send("stop")
    server.join(timeout=10)

    critical = schedule([c * args.latency for c in chains], concurrency)
    calls = sum(chains)
    print(f"tournament: {report.played} classic games ({args.players} seats), {concurrency} in flight, "
          f"{args.latency * 1000:.0f} ms per model call; {len(report.failed)} failed")  # fmt: skip
    print(f"longest game: {max(chains)} sequential calls; all games: {calls} calls on their chains")
    print(f"(SDK imports before the run, not timed: {imports:.2f} s)")
    print(f"critical path: {critical:.2f} s")
    print(f"wall time:     {wall:.2f} s")
    ratio = wall / critical if critical else float("inf")
    verdict = "OK" if ratio <= TARGET and not report.failed else "SLOW"
    print(f"ratio: {ratio:.3f} (target ≤ {TARGET}) {verdict}")
    return 0 if verdict == "OK" else 1


if __name__ == "__main__":
    sys.exit(main())
