"""Can a non-bot mafia partner join a bot team? Kill rates in ``classic`` (issue 25.1).

Classic's mafia shoot at night without talking; a shot kills only when the partners agree. Each
mafia seat is told the team's convention (``arena.players.convention.CONVENTION``): shoot the living
outsider named by the team's latest public accusation, whoever of the team made it, else the
latest accusation anyone made, else the first of them to speak today (or on the latest earlier
day one spoke). This bench seats one **follower** on the mafia team: a player that
applies that sentence to its own view exactly as a person or a model reading it would. It is
written here from the words, not from the bots' code, so a gap between what the seats are told
and what the bots do shows up as a lower kill rate.

- **all bots**: every seat a bot.
- **follower (bot day)**: one mafia seat (drawn per game) plays the day as a bot would and shoots
  by the told convention.
- **follower (random day)**: that seat accuses and votes at random in the day (so its random
  accusations often lead the team) and shoots by the convention.

Kill rate = nights on which the mafia killed / nights on which they shot (night 1 on). Also the
town's win rate. ``PYTHONPATH`` picks the ``arena`` package measured, so the same command on an
older checkout gives the "before" figures (the follower then meets bots that ignore the convention).

    python benchmarks/bot_partners.py --games 2000
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

from arena.players.registry import make_player
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import run_sync
from arena.variants import get_variant

sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # tests.followers; PYTHONPATH still picks the arena
from tests.followers import Follower


def play(seed: int, n: int, follower: str | None) -> tuple[int, int, bool]:
    """One seeded classic game: (nights with a kill, nights with a shot, town won)."""
    seats = list(DEFAULT_NAMES[:n])
    game = get_variant("classic")(seats, None, seed)
    players = {p: make_player("bot", p, seed) for p in seats}
    if follower is not None:
        mafia = [p for p in seats if game.team(p) == "mafia"]
        seat = random.Random(f"seat:{seed}").choice(mafia)
        players[seat] = Follower(seat, seed, follower)
    run_sync(game, players)
    kills = shots = 0
    for e in game.log:
        if e.type == "morning" and e.data.get("number", 0) >= 1:
            shots += 1
            kills += bool(e.data.get("killed"))
    return kills, shots, game.winner == "town"


def measure(games: int, n: int, follower: str | None) -> tuple[float, float, float, float]:
    kills = shots = wins = 0
    for seed in range(games):
        k, s, w = play(seed, n, follower)
        kills, shots, wins = kills + k, shots + s, wins + w
    rate, town = kills / shots, wins / games
    return rate, math.sqrt(rate * (1 - rate) / shots), town, math.sqrt(town * (1 - town) / games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, nargs="+", default=[9, 12])
    args = parser.parse_args()
    for n in args.players:
        for label, follower in (("all bots", None), ("follower (bot day)", "bot"), ("follower (random day)", "random")):
            t0 = time.perf_counter()
            rate, rate_se, town, town_se = measure(args.games, n, follower)
            print(
                f"classic {n} players, {label:22s}: kill rate {rate:6.1%} ± {rate_se:.1%}, "
                f"town wins {town:6.1%} ± {town_se:.1%}  ({args.games} games, {time.perf_counter() - t0:.0f} s)"
            )


if __name__ == "__main__":
    main()
