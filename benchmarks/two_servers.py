"""Two small models on servers of their own, one tournament played to the end (issue 36).

Starts llama-cpp-python's server twice, with the options the README gives (``SERVER_OPTIONS``,
docs/llm.md *Starting llama-cpp-python's server*): SmolLM2-135M served as ``smollm2`` and Gemma 3
270M as ``gemma``, each with an 8,192-token context. Then ``arena tournament`` of the two models,
each seat spec exactly as the README writes it (the seats are not told the context: the first
prompt a server refuses names it, and the game goes on folding to fit), on 7-seat ``classic``
(6 games: three mirrored pairs), and the servers are stopped. Printed: how every game ended
(winner, the engine's reason, days), each model's calls, decisions, forfeits and rejections, the
stops for the context and the folds to fit, each server's peak resident memory, the wall time and
the load average (the machine may be shared: load slows every time, never the counts).

    python benchmarks/two_servers.py                       # the issue's tournament (about an hour on 2 cores)
    python benchmarks/two_servers.py --games 2 --max-days 1   # a short one
    python benchmarks/two_servers.py --keep DIR            # keep the database and transcripts
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.server_bench import Peak, parsed  # noqa: E402

#: (packaged model, the alias it is served as)
MODELS = (("smollm2", "smollm2"), ("gemma3-270m", "gemma"))


def tournament_toml(urls: dict[str, str], games: int, players: int, max_days: int | None, folder: Path) -> str:
    lines = [
        'name = "two_servers"',
        "seed = 36",
        f"games = {games}",
        "concurrency = 2",  # one game per server busy while the other's seats wait their turn
        f'database = "{folder / "two_servers.sqlite"}"',
        f'transcripts = "{folder / "tr"}"',
        "[models]",
        *(f'{alias} = "openai:{alias}@{url}"' for alias, url in urls.items()),
        "[[variants]]",
        'name = "classic"',
        f"players = {players}",
    ]
    if max_days:
        lines.append(f"options = {{ max_days = {max_days} }}")
    return "\n".join(lines) + "\n"


def summary(db_path: Path) -> list[str]:
    """How each game ended, and each model's calls, decisions, forfeits and rejections."""
    from arena.run.transcript import read_transcript

    db = sqlite3.connect(db_path)
    db.row_factory = sqlite3.Row
    out = []
    folds: Counter[str] = Counter()  # a seat's prompt built anew within a day: folded to fit the context
    for game in db.execute("SELECT * FROM games ORDER BY key"):
        record = read_transcript(game["transcript"])
        last: dict[str, int] = {}
        for entry in record.calls:
            call = entry["call"]
            seat = call["player"]
            if call["prompt"].get("shared_messages") == 0 and last.get(seat) == call["day"]:
                folds[record.header["players"][seat]] += 1
            last[seat] = call["day"]
        out.append(
            f"{game['key']}: {game['winner']} wins ({game['reason']}), {game['days']} days, "
            f"{game['seconds']:.0f} s, complete {record.complete}"
        )
    for row in db.execute(
        "SELECT model, SUM(calls) c, SUM(decisions) d, SUM(forfeits) f, SUM(rejections) r FROM player_games GROUP BY model"
    ):
        out.append(f"{row['model']}: {row['c']} calls, {row['d']} decisions, {row['f']} forfeits, {row['r']} rejections")
    stops = [e for (e,) in db.execute("SELECT error FROM attempts WHERE error IS NOT NULL")]
    out.append(f"stops: {len(stops)} ({sum('over the model' in e for e in stops)} for a context a server named)")
    out.extend(f"  {e[:200]}" for e in stops)
    out.append("calls folded to fit a context: " + (", ".join(f"{k} {v}" for k, v in folds.items()) or "none"))
    planned = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    out.append(f"games recorded: {planned}")
    return out


def main() -> int:
    from arena.cli import main as arena
    from tests.real_server import SERVER_OPTIONS, served

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6, help="games (a multiple of 2)")
    parser.add_argument("--players", type=int, default=7)
    parser.add_argument("--max-days", type=int, default=None, help="a day limit (the rules' house rule)")
    parser.add_argument("--keep", default="", help="keep the database and transcripts in this folder")
    args = parsed(parser, "two_servers")
    if args is None:
        return 2
    load_before = os.getloadavg()
    with contextlib.ExitStack() as stack:
        folder = Path(args.keep) if args.keep else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        folder.mkdir(parents=True, exist_ok=True)
        servers = {
            alias: stack.enter_context(served(*SERVER_OPTIONS, model=model, alias=alias, log=folder / f"{alias}.log"))
            for model, alias in MODELS
        }
        peaks = {alias: Peak(server.pid) for alias, server in servers.items()}
        for peak in peaks.values():
            peak.start()
        config = folder / "two_servers.toml"
        urls = {alias: server.url for alias, server in servers.items()}
        config.write_text(tournament_toml(urls, args.games, args.players, args.max_days, folder))
        started = time.perf_counter()
        code = arena(["tournament", str(config)])
        wall = time.perf_counter() - started
        memory = {alias: peak.stop() for alias, peak in peaks.items()}
        print(f"\nservers: llama_cpp.server {' '.join(SERVER_OPTIONS)} (each); exit code {code}")
        print(f"wall time {wall / 60:.1f} min; load average before {load_before[0]:.1f}, after {os.getloadavg()[0]:.1f}")
        for alias, (resident, hwm) in memory.items():
            print(f"{alias}: resident {resident / 2**30:.2f} GiB at the end, {hwm / 2**30:.2f} GiB at its peak")
        for line in summary(folder / "two_servers.sqlite"):
            print(line)
    return code


if __name__ == "__main__":
    sys.exit(main())
