"""``arena serve`` under load, on loopback: many tables played live, many long-polling watchers.

Starts ``arena serve`` as a child process on a free loopback port with a fresh data folder, keeps
``--tables`` tables playing (bots, and with ``--models`` one seat per table played by a model on
the tests' loopback stand-in, tests/llm_server.py), each paced ``--pace`` seconds between steps so
it is watched as it is played; a finished table is replaced by a new one. ``--watchers`` clients
long-poll the watch API (or, with ``--sockets``, listen on its WebSocket), spread over the tables
(a watcher whose table ends moves to another). For
``--seconds`` it counts:

- **events delivered** to the watchers live (each watcher's events of each table, counted once;
  what a watcher receives on joining a table, the game so far, is counted apart),
- **delay** from an event reaching its table (the ``times`` the API returns: the server's wall
  clock when the event was logged) to a watcher holding it (this process's wall clock, the same
  machine): p50, p95, max; only events a watcher waited for live, not the catch-up of a table it
  has just joined,
- **server memory** (the child's resident set, /proc/PID/status VmRSS) at the start, its peak, at
  the end; with ``--keep`` finished tables leave memory and are served from their transcripts,
- **errors**: any answer that is not 200 or 201, and any failed request; and the tables that
  stopped before their end (a model seat's endpoint down) rather than finishing.

    python benchmarks/serve_bench.py                        # 20 tables, 100 watchers, 60 s
    python benchmarks/serve_bench.py --models --seconds 30  # one stand-in model seat per table
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Bench:
    def __init__(self, args: argparse.Namespace, base: str, model_url: str | None) -> None:
        self.args = args
        self.base = base
        self.model_url = model_url
        self.live: list[str] = []  # tables playing
        self.delays: list[float] = []
        self.delivered = 0
        self.joins = 0
        self.caught_up = 0  # events a watcher received on joining a table (its game so far)
        self.errors: list[str] = []
        self.created = 0
        self.finished = 0
        self.stopped = 0
        self.seeds = itertools.count(1)
        self.stop = False

    async def create(self, session: aiohttp.ClientSession) -> None:
        seats = {}
        if self.model_url is not None:
            seats["Ann"] = f"openai:stand-in@{self.model_url}"
        body = {"variant": "classic", "players": 9, "seed": next(self.seeds), "seats": seats, "pace": self.args.pace}
        async with session.post(f"{self.base}/api/tables", json=body) as response:
            if response.status != 201:
                self.errors.append(f"create: {response.status} {await response.text()}")
                return
            made = await response.json()
        self.live.append(made["table"])
        self.created += 1

    async def keeper(self, session: aiohttp.ClientSession) -> None:
        """Keeps ``--tables`` tables playing: a finished one is replaced."""
        while not self.stop:
            for table in list(self.live):
                try:
                    async with session.get(f"{self.base}/api/tables/{table}") as response:
                        state = (await response.json())["state"]
                except (aiohttp.ClientError, KeyError, json.JSONDecodeError) as exc:
                    self.errors.append(f"summary: {exc!r}")
                    continue
                if state != "playing":
                    self.live.remove(table)
                    self.finished += 1
                    if state != "over":  # stopped before its end (a model endpoint down, …)
                        self.stopped += 1
            while len(self.live) < self.args.tables and not self.stop:
                await self.create(session)
            await asyncio.sleep(0.5)

    async def watcher(self, session: aiohttp.ClientSession, number: int) -> None:
        table = None
        after, version, live = 0, None, False
        watched: set[str] = set()
        while not self.stop:
            if table is None:
                fresh = [t for t in self.live if t not in watched]  # a table it saw end is not watched again
                if not fresh:
                    await asyncio.sleep(0.1)
                    continue
                table = fresh[number % len(fresh)]
                watched.add(table)
                self.joins += 1
                after, version, live = 0, None, False
            query = f"?after={after}&wait=20" + ("" if version is None else f"&version={version}")
            try:
                async with session.get(f"{self.base}/api/tables/{table}/watch{query}") as response:
                    if response.status != 200:
                        self.errors.append(f"watch: {response.status}")
                        table = None
                        continue
                    state = await response.json()
            except (aiohttp.ClientError, json.JSONDecodeError) as exc:
                if not self.stop:
                    self.errors.append(f"watch: {exc!r}")
                table = None
                continue
            now = time.time()
            version = state["version"]
            events = state["events"]
            if events:
                after = events[-1]["seq"]
                if live:  # events this watcher waited for, not the catch-up of a table just joined
                    self.delivered += len(events)
                    self.delays += [now - t for t in state["times"] if t is not None]
                else:
                    self.caught_up += len(events)
            live = True
            if state["over"]:
                table = None

    async def socket_watcher(self, session: aiohttp.ClientSession, number: int) -> None:
        """A watcher on the watch socket instead of long polls: the same objects, pushed."""
        watched: set[str] = set()
        while not self.stop:
            fresh = [t for t in self.live if t not in watched]
            if not fresh:
                await asyncio.sleep(0.1)
                continue
            table = fresh[number % len(fresh)]
            watched.add(table)
            self.joins += 1
            live = False
            try:
                async with session.ws_connect(f"{self.base}/api/tables/{table}/watch/socket") as socket:
                    async for message in socket:
                        if message.type != aiohttp.WSMsgType.TEXT:
                            break
                        state = json.loads(message.data)
                        now = time.time()
                        if live:
                            self.delivered += len(state["events"])
                            self.delays += [now - t for t in state["times"] if t is not None]
                        else:
                            self.caught_up += len(state["events"])
                        live = True
                        if state["over"]:
                            break
            except (aiohttp.ClientError, json.JSONDecodeError) as exc:
                if not self.stop:
                    self.errors.append(f"socket: {exc!r}")

    async def run(self) -> None:
        timeout = aiohttp.ClientTimeout(total=60)
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
            for _ in range(self.args.tables):
                await self.create(session)
            tasks = [asyncio.create_task(self.keeper(session))]
            watcher = self.socket_watcher if self.args.sockets else self.watcher
            tasks += [asyncio.create_task(watcher(session, n)) for n in range(self.args.watchers)]
            await asyncio.sleep(self.args.seconds)
            self.stop = True
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20, help="tables kept playing (default 20)")
    parser.add_argument("--watchers", type=int, default=100, help="long-polling watchers (default 100)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to measure (default 60)")
    parser.add_argument("--pace", type=float, default=0.5, help="seconds between a table's steps (default 0.5)")
    parser.add_argument("--keep", type=float, default=10.0, help="the server's --keep: finished tables in memory, s (default 10)")
    parser.add_argument("--models", action="store_true", help="one seat per table played by a model on the loopback stand-in")
    parser.add_argument("--sockets", action="store_true", help="the watchers on the watch WebSocket instead of long polls")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args()

    stand_in = None
    if args.models:
        sys.path.insert(1, str(ROOT))
        from tests.llm_server import FakeModelServer

        stand_in = FakeModelServer(seed=1).__enter__()
    data = Path(tempfile.mkdtemp(prefix="arena-serve-bench-"))
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT))}
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", str(port), "--data", str(data), "--keep", str(args.keep)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        server.stdout.readline()  # the server is listening
        start_mb = rss_mb(server.pid)
        bench = Bench(args, f"http://127.0.0.1:{port}", stand_in.openai_url if stand_in else None)
        peak = [start_mb]

        async def sample() -> None:
            while True:
                peak.append(rss_mb(server.pid))
                await asyncio.sleep(1)

        async def measured() -> None:
            sampler = asyncio.create_task(sample())
            try:
                await bench.run()
            finally:
                sampler.cancel()

        began = time.perf_counter()
        asyncio.run(measured())
        elapsed = time.perf_counter() - began
        end_mb = rss_mb(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)
        if server.stdout is not None:
            server.stdout.close()
        if stand_in is not None:
            stand_in.__exit__(None, None, None)
    ms = [d * 1000 for d in bench.delays]
    figures: dict[str, Any] = {
        "tables": args.tables, "watchers": args.watchers, "seconds": round(elapsed, 1), "pace": args.pace,
        "models": args.models, "sockets": args.sockets, "tables_created": bench.created, "tables_finished": bench.finished,
        "tables_stopped": bench.stopped,
        "events_delivered": bench.delivered, "events_caught_up": bench.caught_up, "joins": bench.joins,
        "delays_measured": len(ms),
        "delay_ms_p50": round(percentile(ms, 0.50), 1), "delay_ms_p95": round(percentile(ms, 0.95), 1),
        "delay_ms_max": round(max(ms), 1) if ms else None, "delay_ms_mean": round(statistics.fmean(ms), 1) if ms else None,
        "memory_mb_start": round(start_mb, 1), "memory_mb_peak": round(max(peak), 1), "memory_mb_end": round(end_mb, 1),
        "memory_mb_every_30s": [round(mb, 1) for mb in peak[::30]],
        "errors": len(bench.errors), "first_errors": bench.errors[:5],
        "load_average": os.getloadavg()[0],
    }  # fmt: skip
    if args.json:
        print(json.dumps(figures))
        return
    print(
        f"{args.tables} tables (pace {args.pace} s{', a stand-in model seat each' if args.models else ''}), "
        f"{args.watchers} watchers, {elapsed:.1f} s: {bench.created} tables created, {bench.finished} finished "
        f"({bench.stopped} of them stopped before their end)"
    )
    joined = f"{bench.caught_up} ({bench.joins} joins)"
    print(f"events delivered live: {bench.delivered}; on joining a table (its game so far): {joined}")
    p50, p95, most = figures["delay_ms_p50"], figures["delay_ms_p95"], figures["delay_ms_max"]
    print(f"delay event -> watcher: p50 {p50} ms, p95 {p95} ms, max {most} ms")
    print(f"server memory: {start_mb:.1f} MB at start, {max(peak):.1f} MB peak, {end_mb:.1f} MB at the end")
    print(f"server memory every 30 s: {', '.join(f'{mb:.1f}' for mb in figures['memory_mb_every_30s'])} MB")
    print(f"errors: {len(bench.errors)}" + (f" (first: {bench.errors[0]})" if bench.errors else ""))
    print(f"load average (1 min) at the end: {figures['load_average']:.2f}")


if __name__ == "__main__":
    main()
