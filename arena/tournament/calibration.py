"""Error rates of the leaderboard's tests, measured: null tournaments and power runs on bot seats.

A claim such as "A wins more than B" is only as good as the rate at which the test makes it when
it is false. This module plays tournaments of built-in players in memory (no transcripts:
:func:`arena.tournament.runner.play_builtin`, the same games the runner plays) and runs the
leaderboard's inference on them many times:

- **null tournaments**: one seat spec under two names (``random`` and ``random`` again): every
  difference is noise, so a test at 5% should flag about 5% of them;
- **power runs**: a real difference (the bot against the random player).

Real games for every run are slow for a test suite, so :func:`resampled` also builds runs from a
*pool* of played pairs: each run draws its pairs with replacement from the pool. In a null pool
each drawn pair also gets its two models' names swapped with probability ½ — under the null the
names are arbitrary labels, and the swap keeps a finite pool's own chance imbalance from
leaking into every run. ``benchmarks/calibration.py`` runs the same checks on fresh games.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .config import parse_tournament
from .db import GameRecord
from .design import build_design, build_round
from .inference import ALPHA, Comparison, Differences, compare_all, family, family_differences
from .results import Results
from .runner import play_builtin
from .sequential import Decisions, Tracker


def play_tournament(
    models: Mapping[str, str],
    variants: Sequence[Mapping[str, Any]],
    rounds: int,
    seed: int,
    *,
    third_party: str = "bot",
) -> list[GameRecord]:
    """Every game of a built-in-players tournament with ``rounds`` rounds (a round: each pairing, mirrored)."""
    block = len(models) * (len(models) - 1)
    config = parse_tournament(
        {
            "name": "calibration",
            "seed": seed,
            "games": block * rounds,
            "third_party": third_party,
            "models": dict(models),
            "variants": [dict(v) for v in variants],
        }
    )
    return [play_builtin(spec) for spec in build_design(config)]


def play_until_decided(
    models: Mapping[str, str],
    variants: Sequence[Mapping[str, Any]],
    seed: int,
    max_games: int,
    *,
    evidence: bool = True,
    target: float = 0.10,
    adaptive: bool = True,
    look: Callable[[Decisions], None] | None = None,
    ask: Sequence[str] = (),
) -> Decisions:
    """An ``until_decided`` tournament of built-in players in memory: the runner's loop, without a database.

    Round after round (only the pairings some undecided comparison needs, unless ``adaptive`` is
    off), looking after each, until everything is decided or the next round would pass
    ``max_games``. ``look`` sees the state after every round; ``ask``: the config's ``decide``.
    """
    config = parse_tournament(
        {
            "name": "calibration",
            "seed": seed,
            "until_decided": True,
            "max_games": max_games,
            "evidence": evidence,
            "models": dict(models),
            "variants": [dict(v) for v in variants],
        }
    )
    tracker = Tracker(
        [m.name for m in config.models], [v.name for v in config.variants], target=target, evidence=evidence, ask=ask
    )
    state = tracker.state
    r = 0
    while not state.done:
        r += 1
        need = state.needed_pairings(tracker.models) if adaptive else None
        specs = build_round(config, r, need)
        if state.games + len(specs) > max_games:
            break
        state = tracker.look(r, Results.from_records([play_builtin(spec) for spec in specs]))
        if look is not None:
            look(state)
    return state


def pairs_of(records: Sequence[GameRecord]) -> list[tuple[GameRecord, GameRecord]]:
    """The records grouped into mirrored pairs (both games of a pair present), in key order."""
    slots: dict[tuple[Any, ...], list[GameRecord]] = {}
    for rec in records:
        g = rec.game
        slots.setdefault((g["variant"], g["players"], g["round"], g["pairing"]), []).append(rec)
    return [
        (both[0], both[1])
        for _, both in sorted(slots.items())
        if len(both) == 2 and both[0].game["first"] != both[1].game["first"]
    ]


def relabel(record: GameRecord, round_: int, names: Mapping[str, str]) -> GameRecord:
    """The record as if played in round ``round_`` with models renamed by ``names`` (others kept)."""
    g = dict(record.game)
    first, second = names.get(g["first"], g["first"]), names.get(g["second"], g["second"])
    a, b = sorted((first, second))
    key = f"{g['variant']}/{g['players']}/r{round_}/{a}~{b}/{first}"
    g.update(key=key, round=round_, first=first, second=second, pairing=f"{a}~{b}")
    players = [{**p, "game": key, "model": names.get(p["model"], p["model"])} for p in record.players]
    return dataclasses.replace(record, game=g, players=players)


def resampled(
    pool: Sequence[tuple[GameRecord, GameRecord]], pairs: int, rng: np.random.Generator, *, swap: bool
) -> list[GameRecord]:
    """A tournament of ``pairs`` mirrored pairs drawn with replacement from ``pool`` (see the module docstring)."""
    out: list[GameRecord] = []
    for i, index in enumerate(rng.integers(0, len(pool), size=pairs)):
        first, second = pool[int(index)]
        a, b = first.game["first"], second.game["first"]
        names = {a: b, b: a} if swap and rng.random() < 0.5 else {}
        out += [relabel(first, i + 1, names), relabel(second, i + 1, names)]
    return out


class DifferencePool:
    """A pool of pairs reduced to each pair's paired differences, for fast resampled runs.

    Resampling pairs and then computing the family's differences gives the same differences as
    computing them once per pool pair and resampling those (a pair's differences depend on that
    pair's two games only); a swap of the two models' names negates every difference of a pair.
    """

    def __init__(self, records: Sequence[GameRecord]) -> None:
        pairs = pairs_of(records)
        self.rows: list[dict[tuple[str, str, str, str, str], float]] = []
        for first, second in pairs:
            found = family_differences(Results.from_records([first, second]))
            self.rows.append({k: float(d[0]) for k, (_, d) in found.items()})

    def __len__(self) -> int:
        return len(self.rows)

    def draw(self, pairs: int, rng: np.random.Generator, *, swap: bool) -> Differences:
        """The family's differences of a tournament of ``pairs`` pairs drawn with replacement."""
        out: dict[tuple[str, str, str, str, str], tuple[list[str], list[float]]] = {}
        for i, index in enumerate(rng.integers(0, len(self.rows), size=pairs)):
            sign = -1.0 if swap and rng.random() < 0.5 else 1.0
            for k, d in self.rows[int(index)].items():
                keys, values = out.setdefault(k, ([], []))
                keys.append(f"r{i + 1:06d}")
                values.append(sign * d)
        return {k: (keys, np.array(values)) for k, (keys, values) in out.items()}


@dataclass(slots=True)
class Run:
    """What one run's leaderboard said."""

    comparisons: list[Comparison]

    def primary(self, variant: str | None = None) -> Comparison:
        """The overall win-rate comparison (of ``variant``, or the pooled one when there is one)."""
        wins = [c for c in self.comparisons if c.metric == "win" and c.side == "all"]
        pooled = [c for c in wins if c.variant == "*"]
        if variant is not None:
            return next(c for c in wins if c.variant == variant)
        return (pooled or wins)[0]

    @property
    def any_flagged(self) -> bool:
        """Did the leaderboard flag any difference (Holm-adjusted p < α) in its family?"""
        return any(c.significant for c in self.comparisons)


def run_many(tournaments: Callable[[int], list[GameRecord]], runs: int, seed: int = 0) -> list[Run]:
    """The leaderboard's comparisons on ``runs`` tournaments (``tournaments(i)`` builds run *i*)."""
    return [Run(compare_all(Results.from_records(tournaments(i)), seed=seed)) for i in range(runs)]


def run_resampled(pool: DifferencePool, pairs: int, runs: int, seed: int, *, swap: bool) -> list[Run]:
    """``runs`` tournaments of ``pairs`` pairs resampled from ``pool``, through the leaderboard's family."""
    rng = np.random.default_rng(seed)
    return [Run(family(pool.draw(pairs, rng, swap=swap), seed=seed)) for _ in range(runs)]


@dataclass(slots=True, frozen=True)
class Rates:
    runs: int
    primary: float  # share of runs whose primary win comparison had p < α
    family: float  # share of runs with any Holm-adjusted p < α
    covered: float  # share of runs whose primary 95% interval held ``truth``

    def text(self) -> str:
        return (
            f"{self.runs} runs: primary p < {ALPHA} in {self.primary:.1%}, any adjusted p < {ALPHA} in "
            f"{self.family:.1%}, 95% interval held the truth in {self.covered:.1%}"
        )


def rates(results: Sequence[Run], truth: float = 0.0) -> Rates:
    primaries = [r.primary() for r in results]
    return Rates(
        len(results),
        sum(c.p < ALPHA for c in primaries) / len(results),
        sum(r.any_flagged for r in results) / len(results),
        sum(c.ci95[0] <= truth <= c.ci95[1] for c in primaries) / len(results),
    )
