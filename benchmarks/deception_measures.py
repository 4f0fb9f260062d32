"""Deception measures compared on the same forks: which tells the liar from the detective per call.

    nice python benchmarks/deception_measures.py [--games 100] [--first 1000] [--seed 1] [--forks 1] [--what speech,verdict,vote]

Players of known strength (docs/bots.md, *Levels*): the **liar** ``bot?mafia=1&town=0.2`` deceives
better than the **detective** ``bot?mafia=0.2&town=1``. Each answers every mafia speech and ballot of
``--games`` classic games of bots (seeds from ``--first``); each answer is forked and played on by the
seats' recorded bots from the position's seed (:func:`arena.positions.answer.fork_measured`), and
every measure of :func:`arena.positions.answer.fork_measures` is read on the same fork. The recorded
answer's fork cancels in the paired difference (it is the same for both players), so it is not played.
Printed per kind and measure: the detective's suspicion less the liar's (liar better: above 0), its
sd and (mean/sd)², what one call adds to the test (docs/positions.md, *What each kind carries*).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.positions.answer import answer, fork_measured, fork_seeds, fresh_player, position_seed, seat_at
from arena.positions.bank import DECEPTION, Games, build, load_bank
from arena.positions.games import record_games

LIAR, DETECTIVE = "bot?mafia=1&town=0.2", "bot?mafia=0.2&town=1"
MEASURES = ("named", "living", "days", "next", "end")


def measured(spec: str, position, transcript, seed: int, forks: int = 1) -> dict:
    """Each measure after the player's answer, the mean of ``forks`` play-ons of other seeds (None: none read)."""
    player = fresh_player(spec, 1)(position, transcript)
    game, request = seat_at(transcript, position, {position.seat: player})
    action, _ = asyncio.run(answer(player, request, game))
    speech = action if action is not None else game.default_action(request)
    runs = [fork_measured(transcript, position, speech, s) for s in fork_seeds(position_seed(position, seed), forks)]
    out = {}
    for m in MEASURES:
        values = [float(r[m]) for r in runs if r[m] is not None]
        out[m] = sum(values) / len(values) if values else None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--first", type=int, default=1000, help="the first game's seed (the benchmark's: 1000)")
    parser.add_argument("--seed", type=int, default=1, help="the forks' seed (the benchmark's: 1)")
    parser.add_argument("--forks", type=int, default=1, help="play-ons per answer, of other seeds, averaged")
    parser.add_argument("--what", default="speech,verdict,vote", help="deception positions asked")
    args = parser.parse_args()
    started = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix="deception-measures-"))
    record_games(folder / "games", "classic", range(args.first, args.first + args.games))
    bank = folder / "bank.jsonl"
    build(folder / "games", bank, kinds=(DECEPTION,))
    whats = set(args.what.split(","))
    positions = [p for p in load_bank(bank) if p.kind == DECEPTION and p.what in whats]
    games = Games(bank)
    diffs: dict[tuple[str, str], list[float]] = {}
    for position in positions:
        transcript = games(position)
        liar, detective = (measured(spec, position, transcript, args.seed, args.forks) for spec in (LIAR, DETECTIVE))
        for r in (liar, detective):  # the two measures' mean, where both are read
            r["named+days"] = (r["named"] + r["days"]) / 2 if r["named"] is not None and r["days"] is not None else r["named"]
            r["by kind"] = r["days"] if position.what == "speech" and r["days"] is not None else r["named"]
        for m in (*MEASURES, "named+days", "by kind"):
            if liar[m] is not None and detective[m] is not None:
                diffs.setdefault((position.what, m), []).append(float(detective[m]) - float(liar[m]))
    print(f"{len(positions)} deception positions of {args.games} classic games (seeds {args.first}–)")
    for what in sorted(whats):
        for m in (*MEASURES, "named+days", "by kind"):
            d = diffs.get((what, m), [])
            if len(d) > 1 and statistics.pstdev(d) > 0:
                mean, sd = statistics.mean(d), statistics.pstdev(d)
                info = (mean / sd) ** 2
                print(f"  {what} {m}: detective − liar {mean:+.4f}, sd {sd:.3f}, per call (mean/sd)² = {info:.4f} over {len(d)}")
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
