"""The balanced design: which games a tournament plays, with which model in which seat.

Every game belongs to a **mirrored pair**: the same variant, size, seed and therefore the same
deal, played twice by the same two models with the assignment swapped between the two sides.
In a team variant (``classic``, ``village``, ``cove``) side A is every seat dealt a mafia card and
side B the town; in the McKay games, whose cards are dealt again every hand, side A is the first
half of the seats (``players // 2``) and side B the rest. Within a pair each model therefore holds
every seat of the two sides, and so every card of them (mafia, inspector, doctor, …), exactly
once: deal luck cancels and role families are played equally often.

A **round** plays one mirrored pair for every pairing of models, on one seed per variant and size
(every pairing sees the same deals). Games are listed round by round across all variants, so a run
stopped early (cost cap, kill) leaves complete rounds behind it, not one variant finished and
another untouched. Seeds derive from the tournament seed, the variant, the size and the round
only: adding rounds, models or variants later keeps the seeds of the games already played.

**Names and seating.** Each round also draws, from its seed, the seat names (a sample of
:data:`NAME_POOL`, larger than any table) in a random seating order; both games of a pair, and
every pairing of the round, share them. The mirror stays exact, while the names and positions a
model's cards happen to sit at change from round to round, so name and speaking-order effects
(Mini-Mafia, arXiv 2509.23023) average out of a model's absolute figures.

**A third side.** A team that is neither town nor mafia (cove's maniac) is played by neither model
of the pairing — a model that held the mafia seats and the maniac would play two opposed teams.
The config's ``third_party`` names who plays it: a fixed seat spec (default ``bot``, the same in
both games of a pair, part of the table like the deal), or ``rotate``: the models outside the
pairing take turns, round by round, so no model ever plays against itself.

**Player seeds.** Each game gives its players a seed of their own, derived from the game's key:
two copies of one seeded player (the null case, ``random`` under two names) play the two games of
a pair with independent draws instead of replaying the same game twice.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.engine import Game, GameOptions
from arena.run.config import DEFAULT_NAMES

from .config import ModelEntry, TournamentConfig

TOWN = "town"
MAFIA = "mafia"

#: Seat names a round draws from: the 32 default names and 32 more, so even a 32-seat table gets a
#: sample, and every table size a new seating order each round.
NAME_POOL: tuple[str, ...] = (
    *DEFAULT_NAMES,
    "Ada", "Ben", "Cora", "Dan", "Ella", "Finn", "Gil", "Hana", "Ian", "Jude", "Kai", "Lea", "Mia", "Nia", "Otto", "Pia",
    "Raj", "Sam", "Tess", "Ugo", "Vic", "Wen", "Xan", "Yuri", "Zed", "Amy", "Bram", "Cleo", "Dov", "Edi", "Gia", "Ike",
)  # fmt: skip


def deals_per_hand(cls: type[Game]) -> bool:
    """McKay's games deal new cards every hand: no seat keeps a role for the whole game."""
    from arena.variants.mckay.common import McKayGame

    return issubclass(cls, McKayGame)


def side_of(cls: type[Game], role: str | None, seat_index: int, players: int) -> str:
    """The seat's team in a team variant (``mafia``, ``town``, or a third side such as ``maniac``);
    ``A`` / ``B`` by seat in McKay's games."""
    if deals_per_hand(cls):
        return "A" if seat_index < players // 2 else "B"
    return cls.team_of.get(role or "", TOWN)


def has_third_side(cls: type[Game]) -> bool:
    """Does the variant deal a team that is neither town nor mafia (cove's maniac)?"""
    return not deals_per_hand(cls) and any(team not in (TOWN, MAFIA) for team in cls.team_of.values())


def derive_seed(seed: int, variant: str, players: int, round_: int) -> int:
    digest = hashlib.sha256(f"{seed}:{variant}:{players}:{round_}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 1_000_000_000


def draw_names(seed: int, variant: str, players: int, round_: int) -> tuple[str, ...]:
    """The round's seat names in seating order: a seeded sample of :data:`NAME_POOL`."""
    rng = random.Random(f"names:{seed}:{variant}:{players}:{round_}")
    return tuple(rng.sample(NAME_POOL, players))


def player_seed(seed: int, key: str) -> int:
    """The seed every player of the game ``key`` (dealt with ``seed``) is built with: a transcript's
    header records it as ``player_seed``, and ``arena resume`` derives it for one written before."""
    digest = hashlib.sha256(f"players:{seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 1_000_000_000


@dataclass(slots=True, frozen=True)
class GameSpec:
    """One game of the design, everything needed to play it: ``first`` plays the mafia (McKay: side
    A), ``second`` the town (side B), ``third`` any third side (cove's maniac; ``None`` without one)."""

    key: str
    variant: type[Game]
    options: GameOptions
    players: int
    round: int
    seed: int
    first: ModelEntry
    second: ModelEntry
    names: tuple[str, ...] = ()
    third: ModelEntry | None = None

    @property
    def seats(self) -> tuple[str, ...]:
        return self.names or DEFAULT_NAMES[: self.players]

    @property
    def player_seed(self) -> int:
        """The seed every player of this game is built with (differs between the games of a pair)."""
        return player_seed(self.seed, self.key)

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
        out = {}
        for seat, side in self.sides(game).items():
            if side in (MAFIA, "A"):
                out[seat] = self.first
            elif side in (TOWN, "B"):
                out[seat] = self.second
            elif self.third is not None:
                out[seat] = self.third
            else:
                raise ValueError(f"{self.key}: nobody is set to play the {side} side")
        return out

    def fingerprint(self) -> str:
        """What makes two runs of this key the same game (checked when a run resumes)."""
        data: dict[str, Any] = {
            "variant": self.variant.name,
            "options": self.options.model_dump(mode="json"),
            "players": self.players,
            "seed": self.seed,
            "first": [self.first.name, self.first.spec],
            "second": [self.second.name, self.second.spec],
            "names": list(self.seats),
        }
        if self.third is not None:
            data["third"] = [self.third.name, self.third.spec]
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def game_key(variant: str, players: int, round_: int, first: str, second: str) -> str:
    a, b = sorted((first, second))
    return f"{variant}/{players}/r{round_}/{a}~{b}/{first}"


def build_design(config: TournamentConfig) -> list[GameSpec]:
    """Every game of the tournament, round by round (see the module docstring)."""
    rounds = max(v.games // config.block for v in config.variants)
    return [spec for r in range(1, rounds + 1) for spec in build_round(config, r)]


def build_round(config: TournamentConfig, round_: int, pairings: set[tuple[str, str]] | None = None) -> list[GameSpec]:
    """The games of one round: a mirrored pair per pairing (only ``pairings``, sorted name pairs, if
    given: ``until_decided`` plays the undecided ones) on each variant and size the round reaches.

    With ``config.until_decided`` every variant plays every round (``games`` does not bound it).
    """
    out: list[GameSpec] = []
    block = config.block
    for v in config.variants:
        if round_ > v.games // block and not config.until_decided:
            continue
        for size in v.sizes:
            seed = derive_seed(config.seed, v.name, size, round_)
            names = draw_names(config.seed, v.name, size, round_)
            for x, y in config.pairings:
                if pairings is not None and tuple(sorted((x.name, y.name))) not in pairings:
                    continue
                third = third_party(config, x, y, round_) if has_third_side(v.cls) else None
                for first, second in ((x, y), (y, x)):
                    key = game_key(v.name, size, round_, first.name, second.name)
                    out.append(GameSpec(key, v.cls, v.options, size, round_, seed, first, second, names, third))
    return out


def third_party(config: TournamentConfig, x: ModelEntry, y: ModelEntry, round_: int) -> ModelEntry:
    """Who plays a third side in the pairing's games of a round: the config's fixed player, or
    (``rotate``) the models outside the pairing in config order, one per round in turn."""
    if config.third_party is not None:
        return config.third_party
    others = [m for m in config.models if m.name not in (x.name, y.name)]
    return others[(round_ - 1) % len(others)]


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
