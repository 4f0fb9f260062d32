"""Bot speed against TextArena, per decision and per game, in the same run (issue 25.7).

The absolute games/s target is retired: speed is compared with TextArena's ``SecretMafia-v0``
played in this same process, so the machine's load moves both figures alike. Our side is
``arena bench classic --seats bot`` (9 seats: 2 mafia, the inspector; every decision a bot's full
reasoning, nothing cut for speed); TextArena's side is 9 players (2 mafia, a doctor and a
detective) driven by the cheapest valid agent there is (a fixed sentence in the discussion, a
random legal ``[X]`` in votes and night actions), so its figure is the environment's own cost.

Both are timed over whole games, interleaved in rounds; the ratios are reported per round, as
the median over the rounds and from each side's best round (the least disturbed by other load).
A decision is one bot answer for us and one ``env.step`` for TextArena.

    python benchmarks/textarena_bench.py --games 400 --rounds 5
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import textarena as ta

from arena.run.bench import bench
from arena.variants import get_variant

PLAYERS = 9


def textarena_games(games: int, first_seed: int = 0) -> tuple[float, int]:
    """(seconds, steps) of ``games`` SecretMafia games with valid random agents."""
    seconds = 0.0
    steps = 0
    for seed in range(first_seed, first_seed + games):
        rng = random.Random(seed)
        start = time.perf_counter()
        env = ta.make("SecretMafia-v0")
        env.reset(num_players=PLAYERS, seed=seed)
        inner = env.unwrapped if hasattr(env, "unwrapped") else env
        done = False
        while not done:
            pid, _ = env.get_observation()
            alive = inner.state.game_state["alive_players"]
            phase = inner.phase.value
            if phase == "Day-Discussion":
                action = "I have been watching the votes; something is off."
            elif phase == "Night-Mafia":
                action = f"[{rng.choice([p for p in alive if inner.player_roles[p] != 'Mafia'])}]"
            else:
                action = f"[{rng.choice([p for p in alive if p != pid])}]"
            done, _ = env.step(action)
            steps += 1
        env.close()
        seconds += time.perf_counter() - start
    return seconds, steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    classic = get_variant("classic")
    rounds: list[tuple[tuple[float, float, float], tuple[float, float, float]]] = []
    for r in range(args.rounds):
        ours = bench(classic, args.games, players=PLAYERS, seats="bot", first_seed=r * args.games)
        theirs = textarena_games(args.games, r * args.games)
        o = (ours.games / ours.seconds, ours.decisions / ours.seconds, ours.decisions / ours.games)
        t = (args.games / theirs[0], theirs[1] / theirs[0], theirs[1] / args.games)
        rounds.append((o, t))
        print(
            f"round {r + 1}: bots {o[0]:.0f} games/s, {o[1]:.0f} decisions/s ({o[2]:.1f}/game); "
            f"TextArena {t[0]:.0f} games/s, {t[1]:.0f} steps/s ({t[2]:.1f}/game); "
            f"ratios {o[1] / t[1]:.2f}x per decision, {o[0] / t[0]:.2f}x per game"
        )
    best_ours = max((o for o, _ in rounds), key=lambda o: o[1])
    best_theirs = max((t for _, t in rounds), key=lambda t: t[1])
    per_decision = statistics.median(o[1] / t[1] for o, t in rounds)
    per_game = statistics.median(o[0] / t[0] for o, t in rounds)
    print(
        f"median of the rounds: bots {per_decision:.2f}x TextArena's decisions/s, {per_game:.2f}x its games/s; "
        f"best round of each: {best_ours[1] / best_theirs[1]:.2f}x and {best_ours[0] / best_theirs[0]:.2f}x "
        f"({best_ours[2]:.1f} decisions a game against its {best_theirs[2]:.1f} steps)"
    )


if __name__ == "__main__":
    main()
