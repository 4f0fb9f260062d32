"""Bots' words against the record and against their votes (issue 30.10).

For each day/night variant, plays seeded all-bot games with every seat a
:class:`tests.bot_facts.Witness` (a bot that hands over the facts its words stated) and reports:

- **facts**: how many statements of fact about the public record the bots made (a vote and how
  often, an accusation, a death, a shot after an accusation, a claim) and how many the log before
  the speech does not bear out (goal: 0);
- **say/vote**: for each stance a seat took in public on a player (an accusation or nomination; a
  floor speech backing or doubting the accused; a claimed check, "mafia" against, "not mafia" for)
  whether its next vote on him that day agreed, by team and kind of stance.

McKay's games (``duel``, ``duel3``, ``trio``) are not played here: their bots say what card they
claim and what they looked at (a mafia bot may lie about both, as the game allows) and where their
own card goes, and state nothing of the public record. It measures the checkout it sits in (``arena``
and ``tests/`` beside it): to measure another, copy this file and ``tests/bot_facts.py`` into it.

    python benchmarks/bot_facts.py --games 300
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # this checkout's arena and tests
from tests.bot_facts import TABLES, check, played
from tests.bot_stats import say_vote_pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--variants", default=",".join(TABLES))
    parser.add_argument("--show", type=int, default=5, help="false statements to print per variant")
    args = parser.parse_args()
    for variant in args.variants.split(","):
        start = time.perf_counter()
        facts = 0
        wrong: list[str] = []
        agreed: Counter[tuple[str, str]] = Counter()
        pairs: Counter[tuple[str, str]] = Counter()
        for seed in range(args.games):
            game, statements = played(variant, seed)
            facts += sum(len(s.facts) for s in statements)
            wrong += [f"seed {seed}: {w}" for w in check(game, statements)]
            for team in ("town", "mafia"):
                for ok, _, what in say_vote_pairs(game, team=team):
                    key = (team, what.split()[0].lower())
                    pairs[key] += 1
                    agreed[key] += ok
        took = time.perf_counter() - start
        print(f"{variant} {TABLES[variant]}, {args.games} games: {facts} facts stated, {len(wrong)} false  ({took:.0f} s)")
        for w in wrong[: args.show]:
            print(f"    {w}")
        for team in ("town", "mafia"):
            parts = [
                f"{kind} {agreed[(team, kind)]}/{pairs[(team, kind)]}"
                for kind in ("accused", "doubt", "back", "claimed")
                if pairs[(team, kind)]
            ]
            total = sum(pairs[(team, k)] for k in ("accused", "doubt", "back", "claimed"))
            good = sum(agreed[(team, k)] for k in ("accused", "doubt", "back", "claimed"))
            print(f"  say/vote, {team}: {good}/{total} = {good / max(total, 1):.1%} ({', '.join(parts)})")


if __name__ == "__main__":
    main()
