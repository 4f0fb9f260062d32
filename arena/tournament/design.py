"""The balanced design: which games a tournament plays, with which model in which seat.

Every game belongs to a **mirrored pair**: the same variant, size, seed and therefore the same
deal, played twice by the same two models with the assignment swapped between the two sides.
In a team variant (``classic``, ``village``, ``cove``) side A is every seat dealt a non-town card
(the mafia, and the cove maniac) and side B the town; in the McKay games, whose cards are dealt
again every hand, side A is the first half of the seats (``players // 2``) and side B the rest.
Within a pair each model therefore holds every seat, and so every card of the deal (mafia,
inspector, doctor, …), exactly once: deal luck cancels and role families are played equally often.

A **round** plays one mirrored pair for every pairing of models, on one seed per variant and size
(every pairing sees the same deals). Games are listed round by round across all variants, so a run
stopped early (cost cap, kill) leaves complete rounds behind it, not one variant finished and
another untouched. Seeds derive from the tournament seed, the variant, the size and the round
only: adding rounds, models or variants later keeps the seeds of the games already played.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.config import DEFAULT_NAMES
from arena.engine import Game, GameOptions

from .config import ModelEntry, TournamentConfig

TOWN = "town"


def deals_per_hand(cls: type[Game]) -> bool:
    """McKay's games deal new cards every hand: no seat keeps a role for the whole game."""
    from arena.variants.mckay.common import McKayGame

    return issubclass(cls, McKayGame)


def side_of(cls: type[Game], role: str | None, seat_index: int, players: int) -> str:
    """``mafia`` / ``town`` by the seat's card in a team variant; ``A`` / ``B`` by seat in McKay's."""
    if deals_per_hand(cls):
        return "A" if seat_index < players // 2 else "B"
    return TOWN if cls.team_of.get(role or "", TOWN) == TOWN else "mafia"


def derive_seed(seed: int, variant: str, players: int, round_: int) -> int:
    digest = hashlib.sha256(f"{seed}:{variant}:{players}:{round_}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 1_000_000_000


@dataclass(slots=True, frozen=True)
class GameSpec:
    """One game of the design; ``first`` plays side A, ``second`` side B."""

    key: str
    variant: type[Game]
    options: GameOptions
    players: int
    round: int
    seed: int
    first: ModelEntry
    second: ModelEntry

    @property
    def seats(self) -> tuple[str, ...]:
        return DEFAULT_NAMES[: self.players]

    @property
    def pairing(self) -> str:
        a, b = sorted((self.first.name, self.second.name))
        return f"{a}~{b}"

    def make_game(self) -> Game:
        return self.variant(list(self.seats), self.options, self.seed)

    def sides(self, game: Game) -> dict[str, str]:
        """Seat -> side (``mafia``/``town`` or ``A``/``B``) for this game's deal."""
        n = len(game.seats)
        return {s: side_of(type(game), game.role_of.get(s), i, n) for i, s in enumerate(game.seats)}

    def assignment(self, game: Game) -> dict[str, ModelEntry]:
        """Seat -> the model that plays it."""
        return {s: self.first if side in ("mafia", "A") else self.second for s, side in self.sides(game).items()}

    def fingerprint(self) -> str:
        """What makes two runs of this key the same game (checked when a run resumes)."""
        data: dict[str, Any] = {
            "variant": self.variant.name,
            "options": self.options.model_dump(mode="json"),
            "players": self.players,
            "seed": self.seed,
            "first": [self.first.name, self.first.spec],
            "second": [self.second.name, self.second.spec],
        }
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def game_key(variant: str, players: int, round_: int, first: str, second: str) -> str:
    a, b = sorted((first, second))
    return f"{variant}/{players}/r{round_}/{a}~{b}/{first}"


def build_design(config: TournamentConfig) -> list[GameSpec]:
    """Every game of the tournament, round by round (see the module docstring)."""
    block = config.block
    rounds = max(v.games // block for v in config.variants)
    out: list[GameSpec] = []
    for r in range(1, rounds + 1):
        for v in config.variants:
            if r > v.games // block:
                continue
            for size in v.sizes:
                seed = derive_seed(config.seed, v.name, size, r)
                for x, y in config.pairings:
                    for first, second in ((x, y), (y, x)):
                        key = game_key(v.name, size, r, first.name, second.name)
                        out.append(GameSpec(key, v.cls, v.options, size, r, seed, first, second))
    return out


def role_counts(design: list[GameSpec]) -> Mapping[tuple[str, str, int, str], int]:
    """(model, variant, size, role at seating) -> seats held: equal across models in a balanced design.

    McKay's games count seats by side (their cards change every hand).
    """
    counts: dict[tuple[str, str, int, str], int] = {}
    for spec in design:
        game = spec.make_game()
        sides = spec.sides(game)
        for seat, model in spec.assignment(game).items():
            label = sides[seat] if deals_per_hand(spec.variant) else game.role_of[seat]
            k = (model.name, spec.variant.name, spec.players, label)
            counts[k] = counts.get(k, 0) + 1
    return counts
