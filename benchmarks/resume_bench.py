"""Resume, in figures: how long rebuilding a long game takes, and how many model calls it spares.

- **rebuild**: per variant, one long bot game (13 seats for classic, cove and village; 10-hand
  McKay matches) is played with its transcript, cut a few events before its end (as a crash would
  leave it), and resumed: the time of ``prepare_resume`` (read, repair, rebuild with every bot
  rehearsing its recorded decisions, reopen), median of ``--repeat`` runs, beside the time the
  whole game took to play.
- **models**: a 9-seat classic game with every seat a model on the loopback stand-in
  (tests/llm_server.py), cut before its end: the rebuild time, where each model seat's
  conversation is rendered again from the record (the costly part), and the calls not made again.
- **tournament**: a two-game bot-vs-model tournament on the stand-in whose endpoint dies after
  ``K`` calls; the next run resumes the failed game. Calls the resumed try made, against the
  calls of the whole game (what playing it again from the start costs).

    python benchmarks/resume_bench.py                 # every section
    python benchmarks/resume_bench.py --only rebuild --repeat 9
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.players.registry import make_player
from arena.run.orchestrator import play, run
from arena.run.resume import prepare_resume
from arena.run.transcript import TranscriptWriter, read_transcript
from arena.variants import VARIANTS

sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # tests.llm_server; PYTHONPATH still picks the arena

LONG = {
    "classic": (13, {}),
    "cove": (13, {}),
    "village": (13, {}),
    "duel": (2, {"hands": 10}),
    "duel3": (3, {"hands": 10}),
    "trio": (3, {"hands": 10}),
}


def cut_before_end(source: Path, target: Path, events: int) -> None:
    """``target``: ``source`` without its summary and its last ``events`` event lines (a crash)."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if not line.startswith('{"type": "summary"')]
    seen = 0
    while seen < events:
        line = kept.pop()
        seen += line.startswith('{"type": "event"')
    target.write_text("".join(kept), encoding="utf-8")


def time_resume(source: Path, folder: Path, repeat: int, **kwargs: Any) -> tuple[float, Any]:
    times, last = [], None
    for i in range(repeat):
        path = folder / f"cut-{i}.jsonl"
        cut_before_end(source, path, 5)
        started = time.perf_counter()
        last = prepare_resume(path, **kwargs)
        times.append(time.perf_counter() - started)
        last.writer.close()
    return statistics.median(times), last


def rebuild_section(folder: Path, repeat: int) -> None:
    print("rebuild (bots; a cut 5 events before the end; median of", repeat, "runs)")
    print(f"  {'variant':8} {'seats':>5} {'events':>6} {'rehearsed':>9} {'rebuild':>9} {'whole game':>10}")
    for name, (players, options) in LONG.items():
        cls = VARIANTS[name]
        seats = [f"P{i}" for i in range(1, players + 1)]
        game = cls(seats, options, 4)
        source = folder / f"{name}.jsonl"
        started = time.perf_counter()
        with TranscriptWriter(source, game, dict.fromkeys(seats, "bot")) as writer:
            play(game, {s: make_player("bot", s, 4) for s in seats}, [writer])
        whole = time.perf_counter() - started
        median, last = time_resume(source, folder, repeat)
        print(
            f"  {name:8} {players:>5} {last.events_rebuilt:>6} {last.rehearsals:>9} "
            f"{median * 1000:>7.1f}ms {whole * 1000:>8.1f}ms"
        )


def models_section(folder: Path, repeat: int) -> None:
    from arena.players.llm import close_clients
    from tests.llm_server import FakeModelServer
    from tests.test_llm_games import FAST, spec

    cls = VARIANTS["classic"]
    seats = [f"P{i}" for i in range(1, 10)]
    source = folder / "models.jsonl"
    with FakeModelServer(seed=3) as server:
        game = cls(seats, {}, 8)
        writer = TranscriptWriter(source, game, {s: spec(server, i) for i, s in enumerate(seats)})
        options = game.options.model_dump(mode="json")
        players = {
            s: make_player(spec(server, i), s, 8, variant="classic", options=options, recorder=writer.recorder(s), **FAST)
            for i, s in enumerate(seats)
        }

        async def main() -> None:
            await run(game, players, [writer])
            await close_clients()

        started = time.perf_counter()
        asyncio.run(main())
        whole = time.perf_counter() - started
        writer.close(game)
        calls_before = len(server.log)
        median, last = time_resume(source, folder, repeat)
        assert len(server.log) == calls_before  # rebuilding called no model
    print(f"models (9 model seats on the loopback stand-in, classic; median of {repeat})")
    print(
        f"  events {last.events_rebuilt}, attempts rehearsed {last.rehearsals}, model calls not made again "
        f"{last.calls_reused}: rebuild {median * 1000:.0f} ms (the whole game took {whole:.1f} s on the stand-in)"
    )


def tournament_section(folder: Path) -> None:
    from arena.tournament.config import parse_tournament
    from arena.tournament.runner import run_tournament
    from tests.llm_server import FakeModelServer, Gate

    def config(server: Any, name: str) -> Any:
        oa = {"spec": f"openai:fake-oa@{server.openai_url}", "backoff": 0.001, "max_backoff": 0.01, "attempts": 2}
        return parse_tournament({
            "name": name, "seed": 2, "games": 2, "concurrency": 1,
            "database": str(folder / f"{name}.sqlite"), "transcripts": str(folder / f"tr-{name}"),
            "models": {"bot": "bot", "oa": oa},
            "variants": [{"name": "classic", "players": 6, "options": {"discussion_rounds": 1}}],
        })  # fmt: skip

    def game_calls(log: list[dict[str, Any]]) -> int:
        return sum(1 for e in log if e["body"].get("messages") != [{"role": "user", "content": "ping"}])

    with FakeModelServer(seed=6) as server:
        asyncio.run(run_tournament(config(server, "whole")))
        port = server.port
    first_game = read_transcript(next((folder / "tr-whole").glob("*bot~oa_bot.jsonl")))
    whole_calls = len(first_game.calls)
    print(f"tournament (6-seat classic, bot vs a model on the stand-in; the first game makes {whole_calls} calls)")
    print(f"  {'calls before the outage':>23} {'resumed try':>11} {'played anew':>11} {'saved':>6}")
    for fail_after in (5, 10, 15, 20, 25):  # the run's endpoint check is call 1: all in the first game
        name = f"cut{fail_after}"
        gate = Gate(fail_after=fail_after)
        with FakeModelServer(seed=6, port=port, gate=gate) as server:
            first = asyncio.run(run_tournament(config(server, name)))
            before = game_calls(server.log)
            gate.fail_after = None
            report = asyncio.run(run_tournament(config(server, name)))
            after = game_calls(server.log) - before
        second = len(read_transcript(next((folder / f"tr-{name}").glob("*bot~oa_oa.jsonl"))).calls)
        resumed = after - second  # the second game is played whole in either case
        if len(first.failed) != 1 or report.played != 2:
            print(f"  {before:>23}  (the outage did not stop the first game: no resume)")
            continue
        print(f"  {before:>23} {resumed:>11} {whole_calls:>11} {whole_calls - resumed:>6}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", default="rebuild,models,tournament")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="resume-bench-"))
    try:
        wanted = set(args.only.split(","))
        if "rebuild" in wanted:
            rebuild_section(folder, args.repeat)
        if "models" in wanted:
            models_section(folder, args.repeat)
        if "tournament" in wanted:
            tournament_section(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
