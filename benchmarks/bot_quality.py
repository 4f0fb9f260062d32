"""How the built-in bots play, in figures: seat bias, charge votes, speech variety, strength.

Every figure comes from seeded bot games played in this process (no transcript), so two runs
on the same code print the same numbers; run it on two checkouts to compare (``PYTHONPATH``
picks the ``arena`` package measured).

- **seat 1**: over games where seat 1 (Ann) is a possible target, how often it is the first
  night target of each killer (and of the mistress in ``cove``), against the share a uniform
  draw among the possible targets would give; then a chi-square p-value of the first targets
  against that uniform draw, over every seat. The same for the day's first accusation.
- **charges**: in ``classic``, how often the first charge vote of a day passes.
- **speech**: per game, distinct speech templates (names and numbers blanked) over speeches;
  and speeches in which the speaker names itself (third person).
- **strength**: town win rate of bot / random town against bot / random mafia.
- **sayvote**: how often a town bot's next vote on a player agrees with the stance its speech
  took on him that day (accused or doubted: yes; backed: no).

    python benchmarks/bot_quality.py                      # every section, default sizes
    python benchmarks/bot_quality.py --games 300 --strength-games 2000 --only bias,charges
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

from arena.engine import Game
from arena.players.registry import make_player
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import run_sync
from arena.variants import get_variant

sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # tests.bot_stats; PYTHONPATH still picks the arena
from tests.bot_stats import (
    Pick,
    first_accusation,
    first_mckay_target,
    first_night_targets,
    say_vote_pairs,
    seat_share,
    uniform_p,
)

TABLES = {"classic": 9, "village": 9, "cove": 10}
MCKAY = ("duel3", "trio")


def play(variant: str, n: int, seed: int, town: str = "bot", mafia: str = "bot", names: list[str] | None = None) -> Game:
    seats = names or list(DEFAULT_NAMES[:n])
    game = get_variant(variant)(seats, None, seed)
    run_sync(game, {p: make_player(mafia if game.team(p) == "mafia" else town, p, seed) for p in seats})
    return game


def report(label: str, picks: list[Pick], seats: list[str]) -> None:
    share, expect = seat_share(picks, seats[0])
    p = uniform_p(picks, seats)
    over = max(seats, key=lambda s: seat_share(picks, s)[0] - seat_share(picks, s)[1])
    most, most_expect = seat_share(picks, over)
    print(
        f"{label} {len(picks):4}: seat 1 {share:6.1%} (uniform {expect:5.1%}); most over: {over} {most:6.1%}"
        f" (uniform {most_expect:5.1%}); chi-square p = {p:.3g}"
    )


def bias(games: int) -> None:
    print(f"## first targets ({games} bot games per variant, seeds 0..{games - 1})")
    for variant, n in TABLES.items():
        seats = list(DEFAULT_NAMES[:n])
        night: dict[str, list[tuple[str, list[str]]]] = {}
        accusations = []
        for seed in range(games):
            game = play(variant, n, seed)
            for who, pick in first_night_targets(game).items():
                night.setdefault(who, []).append(pick)
            if (acc := first_accusation(game)) is not None:
                accusations.append(acc)
        for who, picks in sorted(night.items()):
            report(f"{variant:8} night {who:9}", picks, seats)
        report(f"{variant:8} accusation     ", accusations, seats)
    for variant in MCKAY:
        seats = ["Ann", "Bob", "Cid"]
        picks = []
        for seed in range(games):
            game = get_variant(variant)(seats, {"hands": 1}, seed)
            run_sync(game, {p: make_player("bot", p, seed) for p in seats})
            if (pick := first_mckay_target(game)) is not None:
                picks.append(pick)
        report(f"{variant:8} first target   ", picks, seats)


def calibration(batches: int) -> None:
    """The error rate of the uniformity test: its p-values over disjoint batches of 300 bot
    games (a fair bot fails at p < 0.001 about once in a thousand batches), and over batches
    drawn uniformly from the same pools (the chi-square's own calibration)."""
    import random

    from tests.test_bot_fairness import GAMES, night_and_accusation_seen, play_until

    print(f"## calibration: {batches} disjoint batches of {GAMES} bot games per variant")
    rng = random.Random(0)
    for variant, n in TABLES.items():
        seats = list(DEFAULT_NAMES[:n])
        found: dict[str, list[float]] = {}
        null: list[float] = []
        for batch in range(batches):
            night: dict[str, list[Pick]] = {}
            accusations: list[Pick] = []
            for seed in range(batch * GAMES, (batch + 1) * GAMES):
                game = play_until(variant, seats, seed, night_and_accusation_seen)
                for who, pick in first_night_targets(game).items():
                    night.setdefault(who, []).append(pick)
                if (pick := first_accusation(game)) is not None:
                    accusations.append(pick)
            for who, picks in night.items():
                found.setdefault(f"night {who}", []).append(uniform_p(picks, seats))
            found.setdefault("accusation", []).append(uniform_p(accusations, seats))
            for _ in range(10):
                null.append(uniform_p([(rng.choice(pool), pool) for _, pool in accusations], seats))
        for label, ps in sorted(found.items()):
            low = sum(p < 0.001 for p in ps)
            mid = sum(p < 0.05 for p in ps)
            print(f"{variant:8} {label:15} p < 0.001 in {low} of {len(ps)} batches, p < 0.05 in {mid}; smallest p {min(ps):.2g}")
        print(
            f"{variant:8} uniform draws   p < 0.001 in {sum(p < 0.001 for p in null)} of {len(null)},"
            f" p < 0.05 in {sum(p < 0.05 for p in null)} ({sum(p < 0.05 for p in null) / len(null):.1%})"
        )


# ---- charges ---------------------------------------------------------------------------------
def charges(games: int) -> None:
    passed = total = 0
    later_passed = later_total = 0
    for seed in range(games):
        game = play("classic", 9, seed)
        seen_days: set[int] = set()
        for e in game.log:
            if e.type == "vote_result" and e.data.get("vote") == "charge":
                if e.day in seen_days:
                    later_total += 1
                    later_passed += bool(e.data["passed"])
                else:
                    seen_days.add(e.day)
                    total += 1
                    passed += bool(e.data["passed"])
    print(f"## charges (classic 9, {games} bot games)")
    print(f"first charge of the day passed {passed} of {total} ({passed / max(total, 1):.0%})")
    print(f"later charges of the day passed {later_passed} of {later_total} ({later_passed / max(later_total, 1):.0%})")


# ---- speech ----------------------------------------------------------------------------------
NAME_RE = re.compile(r"\b(" + "|".join(DEFAULT_NAMES) + r")\b")
NUMBER_RE = re.compile(r"\d+|\b(once|twice|three times)\b")


def skeleton(text: str) -> str:
    return NUMBER_RE.sub("N", NAME_RE.sub("X", text))


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def speech(games: int) -> None:
    print(f"## speech ({games} bot games per variant)")
    for variant, n in TABLES.items():
        shares, sentence_shares = [], []
        selfnamed = speeches = 0
        examples: list[str] = []
        for seed in range(games):
            game = play(variant, n, seed)
            texts = [(e.actor, e.data.get("text") or "") for e in game.log if e.type == "speech" and e.data.get("text")]
            if not texts:
                continue
            speeches += len(texts)
            shares.append(len({skeleton(t) for _, t in texts}) / len(texts))
            parts = [skeleton(s) for _, t in texts for s in sentences(t)]
            sentence_shares.append(len(set(parts)) / len(parts))
            for actor, t in texts:
                if re.search(rf"\b{actor}\b", t):
                    selfnamed += 1
                    if len(examples) < 3:
                        examples.append(f"{actor}: {t}")
        print(
            f"{variant:8} {speeches / games:5.1f} speeches a game; distinct templates per game {sum(shares) / len(shares):.1%}"
            f" of speeches, {sum(sentence_shares) / len(sentence_shares):.1%} of sentences; self-named in {selfnamed}"
        )
        for ex in examples:
            print(f"         e.g. {ex}")


# ---- strength --------------------------------------------------------------------------------
def strength(games: int) -> None:
    print(f"## town win rate ({games} games per cell, seeds 0..{games - 1})")
    for variant, n in TABLES.items():
        cells = []
        for town, mafia in (("bot", "random"), ("random", "bot"), ("random", "random"), ("bot", "bot")):
            wins = sum(play(variant, n, seed, town, mafia).winner == "town" for seed in range(games))
            cells.append(f"{town} town v {mafia} mafia {wins / games:.3f}")
        print(f"{variant:8} {n:2}: " + "; ".join(cells))


def say_vote(games: int) -> None:
    """Do town bots vote as they spoke? (issue 25.6; ``tests.bot_stats.say_vote_pairs``)"""
    print(f"## say / vote: a town bot's stance in speech against its next vote on that player ({games} games)")
    for variant, n in TABLES.items():
        pairs = [p for seed in range(games) for p in say_vote_pairs(play(variant, n, seed))]
        agreed = sum(a for a, _, _ in pairs)
        rate = agreed / len(pairs) if pairs else float("nan")
        print(f"{variant:8} {n:2}: {agreed}/{len(pairs)} agree = {rate:.1%}")
        for _, who, what in [p for p in pairs if not p[0]][:3]:
            print(f"    e.g. {who}: {what}")


def speed(games: int) -> None:
    start = time.perf_counter()
    for seed in range(games):
        play("classic", 9, seed)
    seconds = time.perf_counter() - start
    print(f"## speed: classic 9 bots, {games} games in {seconds:.2f} s = {games / seconds:.0f} games/s")


SECTIONS: dict[str, Callable[[argparse.Namespace], None]] = {
    "bias": lambda a: bias(a.games),
    "charges": lambda a: charges(a.charge_games),
    "speech": lambda a: speech(a.speech_games),
    "strength": lambda a: strength(a.strength_games),
    "speed": lambda a: speed(a.games),
    "sayvote": lambda a: say_vote(a.speech_games),
    "calibration": lambda a: calibration(a.batches),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per variant for the seat bias (default 300)")
    parser.add_argument("--charge-games", type=int, default=200, help="classic games for the charge votes (default 200)")
    parser.add_argument("--speech-games", type=int, default=100, help="games per variant for speech and sayvote (default 100)")
    parser.add_argument("--strength-games", type=int, default=2000, help="games per win-rate cell (default 2000)")
    parser.add_argument("--batches", type=int, default=20, help="batches of 300 games for the calibration (default 20)")
    parser.add_argument(
        "--only", default="bias,charges,speech,strength", help=f"comma-separated sections of {', '.join(SECTIONS)}"
    )
    args = parser.parse_args()
    for name in args.only.split(","):
        SECTIONS[name.strip()](args)


if __name__ == "__main__":
    main()
