"""Does a person get to speak on day 1 of ``classic``? (issue 30.9)

Classic's accusation starts a trial at once, and a day ends at its one death, so a bot that
accuses on the first speech of the day can end day 1 before the other seats have said a word
(before: "Somebody has to go first: Ivy." on the first turn, a trial, an execution). The bots now
hold an accusation they have no information for until every living seat has had its turn.

Each game seats one **listener** (``tests/standin.py``: a non-bot seat that speaks but never
accuses, votes at random, shoots by the told convention) at a seat drawn from the seed, bots
everywhere else, and counts the games in which the listener made a day-1 discussion speech. Also:
day-1 discussion speeches per game, the share of day 1s with a single discussion speech, and the
town's win rate. It measures the checkout it sits in (``arena`` and ``tests/`` beside it): the
"before" figures come from this file and ``tests/standin.py`` copied into an older checkout.

    python benchmarks/person_speaks.py --games 300
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from arena.players.registry import make_player
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import run_sync
from arena.variants import get_variant

sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # this checkout's arena and tests
from tests.standin import Listener


def play(seed: int, n: int) -> tuple[bool, int, bool]:
    """One seeded classic game: (the listener spoke in day 1's discussion, day-1 discussion
    speeches, town won)."""
    seats = list(DEFAULT_NAMES[:n])
    game = get_variant("classic")(seats, None, seed)
    seat = random.Random(f"listener:{seed}").choice(seats)
    players = {p: make_player("bot", p, seed) for p in seats}
    players[seat] = Listener(seat, seed)
    run_sync(game, players)
    spoke, speeches = False, 0
    for e in game.log:
        if e.type == "night" and e.data.get("number", 0) >= 1:
            break
        if e.type == "speech" and e.to is None and e.data.get("kind") == "discussion":
            speeches += 1
            spoke = spoke or e.actor == seat
    return spoke, speeches, game.winner == "town"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seats", type=int, default=9)
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    args = parser.parse_args()
    start = time.perf_counter()
    results = [play(s, args.seats) for s in range(args.seed, args.seed + args.games)]
    n = len(results)
    spoke = sum(r[0] for r in results)
    single = sum(r[1] == 1 for r in results)
    speeches = sum(r[1] for r in results)
    town = sum(r[2] for r in results)
    print(f"classic {args.seats}, {n} games (seeds {args.seed}-{args.seed + n - 1}), one listener seat drawn per game")
    print(f"  listener spoke in day 1's discussion: {spoke}/{n} = {spoke / n:.1%}  (goal >= 80%)")
    print(f"  day-1 discussion speeches per game: {speeches / n:.2f}; day 1 with a single one: {single}/{n} = {single / n:.1%}")
    print(f"  town wins: {town / n:.1%}   ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
