"""The price before a run: what a tournament will likely cost, printed before its first game.

Each model seat of each game of the design is priced from the dollars table (docs/llm.md,
*Dollars*; ``benchmarks/dollars.py``): the calls and prompt tokens one seat sends in one game of
that variant, at the measured table size (or match length), with that history, and the share of
them a provider serves from its cache. Another size scales the calls by its ratio and the prompt
tokens by the square of it (a bigger table plays longer days and reads more each call; measured
classic 7 → 9: ×1.4 to ×2.7 across runs of 4 games, the stand-in's random games vary); another
match length scales both by its hands (a folded seat reads one hand at a time; a full one, the
square). The seat's profile prices them (its ``cost``: cached reads, Anthropic's cache writes),
output at the measured tokens a call of that variant (each decision's answer at its bounds: the
thought's, and the speech's where it talks). It is an estimate from the loopback stand-in's games
(its answers as long as those bounds), not a quote: real games run longer or shorter, options
such as ``max_days`` are not read, and a model that is refused more often is asked more.

``until_decided`` has no fixed number of games: its likely range is the games the known truths
needed on classic 9 (docs/tournaments.md, *Ground truth*): a clear difference ~18 games, two
close models ~2 220 (80% of runs), never more than ``max_games``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .config import TournamentConfig
from .design import GameSpec, build_design, build_round

#: what the estimate line says of output (the dollars table prices each answer at its decision's bounds)
OUTPUT_WORDS = "output at each decision's bound"
#: (variant, history) -> (players, hands or 0, calls per seat, prompt tokens per seat, cached share,
#: output tokens per call), per game; measured by ``python benchmarks/dollars.py --seeds 1 2 3 4``
#: (docs/llm.md, Dollars)
SEAT_GAME: dict[tuple[str, str], tuple[int, int, float, float, float, float]] = {
    ("classic", "full"): (9, 0, 35.1, 456_981, 0.958, 133),
    ("classic", "days"): (9, 0, 35.1, 162_408, 0.879, 133),
    ("cove", "full"): (10, 0, 9.1, 49_821, 0.876, 157),
    ("cove", "days"): (10, 0, 9.1, 30_040, 0.791, 157),
    ("village", "full"): (11, 0, 18.5, 282_989, 0.934, 174),
    ("village", "days"): (11, 0, 18.5, 106_024, 0.815, 174),
    ("duel", "full"): (2, 12, 29.5, 269_643, 0.941, 225),
    ("duel", "days"): (2, 12, 29.5, 95_632, 0.831, 225),
    ("duel3", "full"): (3, 6, 21.2, 184_599, 0.923, 225),
    ("duel3", "days"): (3, 6, 21.2, 78_674, 0.819, 225),
    ("trio", "full"): (3, 6, 89.1, 2_479_478, 0.979, 222),
    ("trio", "days"): (3, 6, 89.1, 576_774, 0.902, 222),
}
#: games until_decided needed on classic 9 (docs/tournaments.md): a clear difference, two close models
LIKELY_GAMES = (18, 2220)


@dataclass(frozen=True)
class Estimate:
    """Dollars for the design's games (``games`` of them), and whether the prices are known."""

    games: int
    dollars: float
    unknown: tuple[str, ...]  # models whose profile has no prices (their seats count $0)

    @property
    def per_game(self) -> float:
        return self.dollars / self.games if self.games else 0.0


def seat_dollars(profile: Any, variant: str, players: int, hands: int) -> float:
    """One model seat's likely dollars for one game (0.0 for a variant the table lacks)."""
    row = SEAT_GAME.get((variant, getattr(profile, "history", "days")))
    if row is None:
        return 0.0
    size, measured_hands, calls, prompt, share, answer = row
    longer = (players / size) * (hands / measured_hands if measured_hands and hands else 1.0)
    calls *= longer  # a longer game: more calls, each reading more (the whole game, or a longer day)
    prompt *= longer * (longer if profile.history == "full" or not measured_hands else 1.0)
    usage = {
        "input_tokens": round(prompt),
        "cached_tokens": round(prompt * share),
        "cache_write_tokens": round(prompt * (1 - share)) if profile.provider == "anthropic" else 0,
        "output_tokens": round(calls * answer),
    }
    return float(profile.cost(usage))


def estimate(specs: list[GameSpec], profiles: Mapping[str, Any]) -> Estimate:
    """The design's likely dollars; ``profiles``: model name -> its profile (model seats only)."""
    total = 0.0
    unknown: set[str] = set()
    for spec in specs:
        game = spec.make_game()
        hands = int(getattr(spec.options, "hands", 0) or 0)
        for entry in spec.assignment(game).values():
            profile = profiles.get(entry.name)
            if profile is None:
                continue
            if not (profile.price_input or profile.price_output):
                unknown.add(entry.name)
            total += seat_dollars(profile, spec.variant.name, len(game.seats), hands)
    return Estimate(len(specs), total, tuple(sorted(unknown)))


def _money(value: float) -> str:
    return f"${value:,.2f}" if value >= 0.995 else f"${value:.3f}"


def estimate_lines(config: TournamentConfig, checked: Mapping[str, Any], spent: float = 0.0) -> list[str]:
    """What the run will likely cost and whether ``cost_cap`` is likely reached, in one or two
    lines; none when no seat is a model. ``checked``: model name -> the player check_models built."""
    profiles = {name: p.profile for name, p in checked.items() if getattr(p, "profile", None) is not None}
    if not profiles:
        return []
    if config.until_decided:
        first = estimate(build_round(config, 1), profiles)  # a round plays every pairing once, mirrored
        low, high = LIKELY_GAMES
        cap = config.max_games or high
        dollars = (first.per_game * min(low, cap), first.per_game * min(high, cap))
        line = (
            f"estimated cost: {_money(first.per_game)} a game, so until decided likely {_money(dollars[0])} "
            f"({min(low, cap)} games, a clear difference) to {_money(dollars[1])} ({min(high, cap)} games, two close "
            f"models), at most {_money(first.per_game * cap)} ({cap} games)"
        )
        result = first
        worst = first.per_game * cap
    else:
        result = estimate(build_design(config), profiles)
        worst = result.dollars
        line = f"estimated cost: {_money(result.dollars)} for {result.games} games ({_money(result.per_game)} a game)"
    line += f"; {OUTPUT_WORDS} (docs/llm.md, Dollars)"
    if result.unknown and not result.dollars:
        line = f"estimated cost: price unknown (no prices for {', '.join(result.unknown)})"
    elif result.unknown:
        line += f"; price unknown for {', '.join(result.unknown)} (not counted)"
    lines = [line]
    if config.cost_cap is not None and result.per_game > 0:
        left = config.cost_cap - spent
        if worst + spent >= config.cost_cap:
            games = max(int(left / result.per_game), 0)
            lines.append(f"cost_cap ${config.cost_cap:.2f} likely reached after about {games} more games")
        else:
            lines.append(f"cost_cap ${config.cost_cap:.2f} not likely reached")
    return lines
