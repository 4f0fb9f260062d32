"""The same move draws the same answer, whoever makes it (issue 30.8).

Seen at the terminal: in ``trio`` a person who opened a hand peacefully (declaring cop, then "everyone
on no kill") had both bots' cards laid on them at once, three times out of three. Is that the bots
reading *who* moved (a person) or *what* was done? Each hand-1 here is played on the same seeds
three ways, with the mover at a seat drawn from the seed:

- **bots**: three bots, nobody scripted (the baseline: first deaths spread over the seats);
- **non-bot mover**: a scripted non-bot seat declares cop on beat 1 ("I'm the cop. Everyone on no
  kill."), lays its card on no_kill on beat 2 and passes after (a soliloquy, a reply and a
  judgement are answered as fixed as well);
- **bot mover**: a bot seat that makes exactly the same moves (its own reasoning runs, its answers
  are replaced by the script's);
- **quiet non-bot**: a scripted seat that only passes (another first move, for contrast).

Reported per arm: how often the mover dies first in the hand, per the card it held; how often each
bot laid its card on the mover in round 1, per the bot's card; and, between the two movers, the
number of hands whose logs are the same event for event (all of them, if the bots do not read
the kind of a seat).

    python benchmarks/same_move.py --games 600
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from arena.engine import ActionBase, DecisionRequest, Game, View
from arena.engine.actions import Continue, DeclareCop, Judge, Pass, PlaceCard, Speak
from arena.players.base import SyncPlayer
from arena.players.bot.player import BotPlayer
from arena.players.registry import make_player
from arena.run.orchestrator import run_sync
from arena.variants import get_variant

SEATS = ["Ann", "Bob", "Cid"]


def peaceful(request: DecisionRequest) -> ActionBase:
    """The person's opening: declare cop on beat 1, card on no_kill on beat 2, then pass."""
    if request.group == "soliloquy":
        return Speak(speech="Retract, please.")
    if request.group == "soliloquy_reply":
        return Continue()
    if request.group == "judge":
        return Judge(first=request.option("judge").fields["first"].choices[0])
    clock = request.clock
    beat = clock.total - clock.left + 1 if clock is not None else 0
    if request.day == 1 and request.info.get("round", 1) == 1:
        declare = request.option("declare_cop")
        if beat == 1 and declare is not None:
            positions = declare.fields["position"].choices
            return DeclareCop(position=positions[0] if positions else None, speech="I'm the cop. Everyone on no kill.")
        if beat == 2:
            return PlaceCard(slot="no_kill", speech="Everyone on no kill.")
    return Pass()


def quiet(request: DecisionRequest) -> ActionBase:
    return peaceful(request) if request.group != "beat" else Pass()


class Mover(SyncPlayer):
    """A non-bot seat playing a fixed script."""

    spec = "mover"

    def __init__(self, name: str, script) -> None:
        super().__init__(name)
        self.script = script

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> ActionBase:
        return self.script(request)


class BotMover(BotPlayer):
    """A bot seat whose answers are the script's (its own reading and reasoning still run)."""

    def __init__(self, name: str, seed: int, script) -> None:
        super().__init__(name, seed)
        self.script = script

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> ActionBase:
        super().decide_now(request, view, feedback)
        return self.script(request)


def play(seed: int, arm: str) -> tuple[Game, str]:
    game = get_variant("trio")(SEATS, {"hands": 1}, seed)
    mover = random.Random(f"mover:{seed}").choice(SEATS)
    players = {p: make_player("bot", p, seed) for p in SEATS}
    if arm == "non-bot mover":
        players[mover] = Mover(mover, peaceful)
    elif arm == "bot mover":
        players[mover] = BotMover(mover, seed, peaceful)
    elif arm == "quiet non-bot":
        players[mover] = Mover(mover, quiet)
    run_sync(game, players)
    return game, mover


def read(game: Game, mover: str) -> tuple[str | None, list[tuple[str, bool]]]:
    """(the hand's first death, [(a bot's card, it laid its card on the mover in round 1)])."""
    first = next((e.data["player"] for e in game.log if e.type == "death"), None)
    laid: dict[str, bool] = {p: False for p in SEATS if p != mover}
    for e in game.log:
        if e.type == "round" and e.data.get("number") == 2:
            break
        if e.type == "card_placed" and e.actor in laid and e.data.get("slot") == mover:
            laid[e.actor] = True
    return first, [(game.role_of[p], hit) for p, hit in laid.items()]


def fingerprint(game: Game) -> list[tuple]:
    return [(e.type, e.actor, e.to, repr(sorted(e.data.items()))) for e in game.log if e.type != "action" or e.actor]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600)
    args = parser.parse_args()
    start = time.perf_counter()
    arms = ("bots", "non-bot mover", "bot mover", "quiet non-bot")
    same = 0
    print(f"trio, hand 1 of {args.games} seeded games per arm; the mover's seat drawn from the seed")
    for arm in arms:
        died: Counter[str] = Counter()
        held: Counter[str] = Counter()
        laid: Counter[str] = Counter()
        bots_of: Counter[str] = Counter()
        firsts: Counter[str] = Counter()
        for seed in range(args.games):
            game, mover = play(seed, arm)
            if arm == "non-bot mover":
                other, _ = play(seed, "bot mover")
                same += fingerprint(game) == fingerprint(other)
            first, cards = read(game, mover)
            card = game.role_of[mover]
            held[card] += 1
            died[card] += first == mover
            firsts["mover" if first == mover else "nobody" if first is None else "a bot"] += 1
            for bot_card, hit in cards:
                bots_of[bot_card] += 1
                laid[bot_card] += hit
        n = args.games
        per_card = ", ".join(f"{c} {died[c]}/{held[c]}" for c in sorted(held))
        per_bot = ", ".join(f"{c} {laid[c] / bots_of[c]:.0%}" for c in sorted(bots_of))
        print(
            f"  {arm:>14}: mover dies first {died.total()}/{n} = {died.total() / n:.1%} ({per_card}); "
            f"first deaths: mover {firsts['mover']}, a bot {firsts['a bot']}, nobody {firsts['nobody']}; "
            f"bots' cards on the mover in round 1, by the bot's card: {per_bot}"
        )
    print(f"  non-bot mover vs bot mover: {same}/{args.games} hands the same event for event")
    print(f"  ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
