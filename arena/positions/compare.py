"""Two players' runs over one bank, compared position by position, game by game.

The positions of one game are not independent (one table, one deal), so the unit is the game:
for each skill (detection, deception) a game's value is the weighted mean, over the positions
both runs answered and scored, of player A's score less player B's. Detection scores pair as hits
(the chance a position gives cancels); deception scores as suspicions (the recorded speech's
suspicion cancels). A value lies in [−1, 1].

The values feed, in the bank's order, the anytime-valid test ``until_decided`` uses
(:mod:`arena.tournament.sequential`): one confidence sequence per skill at level α/2 (the betting
confidence sequence of Waudby-Smith & Ramdas), the two skills' e-values tested together by closed
testing. So the answer may be read after every game — ``run --until-decided`` stops on it — and
the chance of ever calling two equal players different stays at most α = 0.05. A skill is
*different* when closed testing rejects "no difference" (the sign says which player is better),
*alike* when its interval lies inside ±``target`` (:data:`TARGET`, 0.02), else *undecided*.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arena.tournament.inference import ALPHA
from arena.tournament.sequential import ALIKE, DIFFERENT, UNDECIDED, ZERO, ConfidenceSequence, closed_rejections

from .bank import DECEPTION, DETECTION

SKILLS = (DETECTION, DECEPTION)
#: "alike": no difference as large as this in a paired position's score (hits or suspicion), a
#: finer scale than a game's win rate (0.10 there): one position moves a score by a few hundredths
TARGET = 0.02


def paired_value(kind: str, a: Mapping[str, Any], b: Mapping[str, Any]) -> float | None:
    """A's score less B's at one position (None: either was not scored)."""
    if kind == DECEPTION:
        sa, sb = a.get("suspicion"), b.get("suspicion")
        return None if sa is None or sb is None else float(sb) - float(sa)  # less suspicion is better
    ha, hb = a.get("hit"), b.get("hit")
    return None if ha is None or hb is None else float(ha) - float(hb)


@dataclass(slots=True)
class Skill:
    """One skill's running comparison."""

    kind: str
    a: str
    b: str
    sequence: ConfidenceSequence
    status: str = UNDECIDED
    better: str | None = None
    positions: int = 0  # paired positions seen
    games: int = 0
    decided_positions: int | None = None  # positions used by the time it was decided
    decided_games: int | None = None
    totals: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])  # Σ w·score A, Σ w·score B, Σ w

    def as_json(self) -> dict[str, Any]:
        lo, hi = self.sequence.interval() if self.sequence.n else (-1.0, 1.0)
        mean = self.sequence.mean if self.sequence.n else math.nan
        wa, wb, w = self.totals
        return {
            "a": self.a,
            "b": self.b,
            "status": self.status,
            "better": self.better,
            "n": self.decided_positions if self.decided_positions is not None else self.positions,
            "games": self.decided_games if self.decided_games is not None else self.games,
            "positions": self.positions,
            "estimate": _num(mean),
            "cs95": [_num(lo), _num(hi)],
            "score_a": _num(wa / w) if w else None,
            "score_b": _num(wb / w) if w else None,
        }


def _num(x: float) -> float | None:
    return round(float(x), 6) if math.isfinite(x) else None


class Comparison:
    """Detection and deception of A against B, updated game by game (anytime-valid)."""

    def __init__(self, a: str, b: str, *, kinds: Sequence[str] = SKILLS, target: float = TARGET, alpha: float = ALPHA) -> None:
        self.alpha = alpha
        self.target = target
        level = alpha / max(1, len(kinds))
        self.skills = {k: Skill(k, a, b, ConfidenceSequence(level)) for k in kinds}

    def add_game(self, pairs: Iterable[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> None:
        """One game's positions, each as (A's answer row, B's answer row) for the same position."""
        sums: dict[str, list[float]] = {k: [0.0, 0.0, 0] for k in self.skills}  # type: ignore[misc]
        for a, b in pairs:
            kind = str(a.get("kind"))
            skill = self.skills.get(kind)
            value = paired_value(kind, a, b)
            if skill is None or value is None:
                continue
            weight = float(a.get("weight") or 1.0)
            sums[kind][0] += weight * value
            sums[kind][1] += weight
            sums[kind][2] += 1
            skill.totals[0] += weight * float(a.get("score") or 0.0)
            skill.totals[1] += weight * float(b.get("score") or 0.0)
            skill.totals[2] += weight
        for kind, (total, weights, count) in sums.items():
            skill = self.skills[kind]
            if not count:
                continue
            skill.sequence.update([total / weights])
            skill.positions += int(count)
            skill.games += 1
        self._decide()

    def _decide(self) -> None:
        skills = list(self.skills.values())
        log_e = np.array([float(s.sequence.log_wealth[ZERO]) if s.sequence.n else 0.0 for s in skills])
        rejected = closed_rejections(log_e, math.log(1.0 / self.alpha))
        for skill, reject in zip(skills, rejected, strict=True):
            if skill.status != UNDECIDED or not skill.sequence.n:
                continue
            lo, hi = skill.sequence.interval()
            if reject:
                skill.status = DIFFERENT
                skill.better = skill.a if skill.sequence.mean > 0 else skill.b
            elif -self.target <= lo and hi <= self.target:
                skill.status = ALIKE
            if skill.status != UNDECIDED:
                skill.decided_positions, skill.decided_games = skill.positions, skill.games

    def done(self, kinds: Iterable[str] | None = None) -> bool:
        """Every skill (of ``kinds``: those a bank has) decided."""
        wanted = self.skills if kinds is None else [k for k in kinds if k in self.skills]
        return all(self.skills[k].status != UNDECIDED for k in wanted)

    def as_json(self) -> dict[str, Any]:
        return {k: s.as_json() for k, s in self.skills.items()}


def by_game(rows: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """A run's answer rows grouped by game, in their order."""
    out: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        if row.get("type") == "answer":
            out.setdefault(str(row.get("game")), []).append(row)
    return out


def compare_runs(
    rows_a: Sequence[Mapping[str, Any]],
    rows_b: Sequence[Mapping[str, Any]],
    a: str,
    b: str,
    *,
    target: float = TARGET,
    alpha: float = ALPHA,
) -> Comparison:
    """A's run against B's: the positions both answered, game by game in A's order."""
    answers_b = {str(r.get("id")): r for r in rows_b if r.get("type") == "answer"}
    comparison = Comparison(a, b, target=target, alpha=alpha)
    for rows in by_game(rows_a).values():
        pairs = [(r, answers_b[str(r.get("id"))]) for r in rows if str(r.get("id")) in answers_b]
        if pairs:
            comparison.add_game(pairs)
    return comparison
