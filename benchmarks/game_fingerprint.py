"""Did a change alter what any game does? One hash per variant over many seeded bot games.

For speed work, which must change no game: each variant's hash covers every event of every game
(``Event.to_dict``, winners included) and every field of every decision request a bot is given
(read by attribute, so a field built on first use counts by its value). Run it on two checkouts
and compare (``PYTHONPATH`` picks the ``arena`` package measured); set ``PYTHONHASHSEED`` to the
same value for both, since a request's reprs show sets in hash order.

    PYTHONHASHSEED=0 python benchmarks/game_fingerprint.py              # 300 games per variant
    PYTHONHASHSEED=0 python benchmarks/game_fingerprint.py --games 50 --requests 10 classic cove
"""

from __future__ import annotations

import argparse
import hashlib
import json

from arena.engine import ActionBase, DecisionRequest, View
from arena.players.base import SyncPlayer
from arena.players.registry import make_player
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import play
from arena.variants import VARIANTS

#: the request fields hashed (``repertoire`` is a property: read, it is built)
FIELDS = (
    "id", "player", "role", "phase", "day", "question", "options", "seats", "alive", "talk",
    "max_speech", "clock", "default", "group", "info", "table", "repertoire", "kinds",
)  # fmt: skip


class Hashing(SyncPlayer):
    """A bot whose every request is folded into a hash before it answers."""

    def __init__(self, bot: SyncPlayer, digest: hashlib._Hash) -> None:
        super().__init__(bot.name)
        self.bot, self.digest = bot, digest

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> ActionBase:
        for name in FIELDS:
            self.digest.update(repr(getattr(request, name)).encode())
        return self.bot.decide_now(request, view, feedback)  # type: ignore[return-value]


def fingerprint(variant: str, games: int, requests: int) -> tuple[str, str]:
    """(events hash, requests hash) of seeds 0 … games - 1; requests hashed in the first ``requests``."""
    cls = VARIANTS[variant]
    names = DEFAULT_NAMES[: cls.default_players]
    events, asked = hashlib.sha256(), hashlib.sha256()
    for seed in range(games):
        game = cls(names, None, seed)
        players: dict[str, SyncPlayer] = {n: make_player("bot", n, seed) for n in names}
        if seed < requests:
            players = {n: Hashing(p, asked) for n, p in players.items()}
        play(game, players)
        for event in game.log:
            events.update(json.dumps(event.to_dict(), sort_keys=True, default=str).encode())
        events.update(str(game.winner).encode())
    return events.hexdigest()[:16], asked.hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", default=list(VARIANTS), help="variant ids (default: all)")
    parser.add_argument("--games", type=int, default=300, help="seeded games per variant")
    parser.add_argument("--requests", type=int, default=40, help="games whose requests are hashed too")
    args = parser.parse_args()
    for variant in args.variants:
        print(variant, *fingerprint(variant, args.games, args.requests))


if __name__ == "__main__":
    main()
