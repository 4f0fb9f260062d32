"""Paired comparisons on mirrored pairs: differences, intervals, p-values, Holm, power.

For a pairing (A, B), a variant, a side and a metric, every complete mirrored pair gives one
**paired difference** d = A's value − B's value on the same deal (:func:`paired_differences`).
The comparison reports their mean with

- **p**: a two-sided *sign-flip randomization test*. If A and B play alike, the design makes the
  two games of a pair exchangeable — which model got the mafia cards first is a coin toss of the
  design — so each d is as likely to be +d as −d. The null distribution of Σd is that of Σ±dᵢ
  with independent fair signs. It is computed exactly when the differences lie on a grid (win
  rates move in halves and quarters, counts in ones: the distribution of Σ±kᵢ by convolution) or
  number at most 12 (every sign pattern); otherwise from 20 000 seeded sign patterns with
  p = (1 + hits) / (1 + draws), a valid p-value too. No normal approximation, no assumption on
  the distribution of d, valid for any number of pairs.
- **ci95**: a percentile bootstrap over pairs (2 000 resamples) of the mean difference. It
  describes the size of the difference; in very few pairs (below about 20) it is too narrow,
  so the test decision uses p, not the interval. Below 5 pairs it is not drawn at all (unknown:
  NaN, ``null`` in JSON, "too few deals" in tables): one pair has a single resample, itself.
- **p_adjusted**: Holm's step-down adjustment over the whole printed family (every comparison
  of the report). Holm controls the family-wise error rate — the chance that *any* flagged
  difference is false — under any dependence between the comparisons, which matters here: every
  metric of a pair is read off the same two games. Benjamini–Hochberg would flag more but
  controls only the expected share of false flags, and needs positive dependence. Comparisons
  that are one measurement (identical differences pair for pair, e.g. the mafia- and town-side
  win rates of a game with two sides) count once in the family, and comparisons that cannot
  reach p ≤ 0.05 at all (a few pairs, or no spread) do not count (Tarone's rule for discrete
  tests; their p_adjusted is 1).
- **power**: with s the standard deviation of the d over pairs, a two-sided test at α = 0.05 has
  80% power against a true difference Δ with about ((z₀.₉₇₅ + z₀.₈₀) · s / Δ)² pairs; with n
  pairs the smallest difference it detects with 80% power is (z₀.₉₇₅ + z₀.₈₀) · s / √n.

**Order independence.** Pairs are sorted by key before anything is drawn, and every generator
is seeded from a hash of the data (pair keys and differences) and the user's seed, never from
insertion order: a database merged from parts gives the same intervals and p-values.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import binom

from .design import deals_per_hand
from .metrics import METRICS
from .results import Pair, Results, side_slots

ALPHA = 0.05
Z_ALPHA = 1.959963984540054  # z for 1 − α/2 at α = 0.05
Z_POWER = 0.8416212335729143  # z for 80% power
EXACT_LIMIT = 12  # non-zero differences up to which every sign pattern is enumerated
FLIPS = 20_000
RESAMPLES = 2_000
ALL_VARIANTS = "*"
MIN_POWER_PAIRS = 5  # below this, the pairs' standard deviation says too little for a power figure
#: below this many pairs (deals) a bootstrap interval is the estimate itself, or nearly (one pair has one
#: resample; two have three distinct ones): it is reported as unknown (NaN, null in JSON), never as certainty
MIN_INTERVAL_PAIRS = 5

#: metric -> the sides compared, for team variants (McKay's games: :data:`MCKAY_COMPARED`).
TEAM_COMPARED: dict[str, tuple[str, ...]] = {
    "win": ("all", "mafia", "town"),
    "survival": ("mafia",),
    "votes_missed_excess": ("mafia",),
    "lies_caught": ("mafia",),
    "votes_on_mafia_excess": ("town",),
    "check_hits": ("town",),
    "brier_skill": ("town",),
    "consistency": ("all",),
    "forfeits": ("all",),
}
MCKAY_COMPARED: dict[str, tuple[str, ...]] = {
    "win": ("all",),
    "points": ("all",),
    "good_kills": ("all",),
    "bad_kills": ("all",),
    "forfeits": ("all",),
}


def data_seed(*parts: object) -> int:
    """A generator seed from the data's identity (stable across runs, platforms and row orders)."""
    text = "|".join(repr(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _lattice(d: np.ndarray, max_span: int = 1_000_000) -> np.ndarray | None:
    """``d`` as integers on a common grid (d·s for a small s: win rates move in halves and quarters,
    counts in ones), or None when the values are not on one (or the sum's range is too wide)."""
    for scale in (1, 2, 3, 4, 6, 8, 12, 24):
        k = np.rint(d * scale)
        if np.allclose(k, d * scale, rtol=0, atol=1e-9) and np.abs(k).sum() <= max_span:
            return k.astype(np.int64)
    return None


def sign_flip_p(d: np.ndarray, seed: int, draws: int = FLIPS) -> float:
    """Two-sided p-value of the sign-flip randomization test of "mean d = 0" (see the module docstring).

    Exact when the differences lie on a grid (the distribution of Σ±kᵢ by convolution) or are few
    (every sign pattern); otherwise ``draws`` seeded random sign patterns.
    """
    nonzero = d[d != 0]
    m = len(nonzero)
    if m == 0:
        return 1.0
    grid = _lattice(nonzero)
    if grid is not None:
        # a difference that is zero but for rounding (a mean of margins, 1e-17) sits at 0 on the grid:
        # it adds nothing to Σ±kᵢ, and a step of 0 below would not be a distribution
        grid = grid[grid != 0]
        if len(grid) == 0:
            return 1.0
        # Σ±kᵢ: for each distinct |k| held c times, k·(2X − c) with X ~ Binomial(c, ½); convolve them.
        dist = np.ones(1)
        for k, c in zip(*np.unique(np.abs(grid), return_counts=True), strict=True):
            term = np.zeros(2 * int(k) * int(c) + 1)
            term[:: 2 * int(k)] = binom.pmf(np.arange(c + 1), c, 0.5)
            dist = np.convolve(dist, term)
        span = (len(dist) - 1) // 2
        observed = abs(int(grid.sum()))
        sums = np.abs(np.arange(-span, span + 1))
        return float(min(1.0, dist[sums >= observed].sum()))
    observed = abs(nonzero.sum())
    tolerance = 1e-9 * max(1.0, float(np.abs(nonzero).sum()))
    if m <= EXACT_LIMIT:
        signs = np.array(list(itertools.product((-1.0, 1.0), repeat=m)))
        return float(np.mean(np.abs(signs @ nonzero) >= observed - tolerance))
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, draws, 2_000):
        size = min(2_000, draws - start)
        signs = rng.integers(0, 2, size=(size, m), dtype=np.int8) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ nonzero) >= observed - tolerance))
    return (1 + hits) / (1 + draws)


def bootstrap_mean_ci(d: np.ndarray, seed: int, resamples: int = RESAMPLES) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean of ``d`` (pairs resampled with replacement).

    With few distinct differences (win rates), resampling n pairs is drawing how many times each
    distinct value comes up, a multinomial over them: the same distribution, drawn faster.
    """
    n = len(d)
    if n < MIN_INTERVAL_PAIRS:
        return math.nan, math.nan
    values, counts = np.unique(d, return_counts=True)
    if len(values) == 1:
        return float(values[0]), float(values[0])
    rng = np.random.default_rng(seed)
    if 8 * len(values) <= n:
        means = rng.multinomial(n, counts / n, size=resamples) @ values / n
    else:
        means = np.empty(resamples)
        step = max(1, 4_000_000 // n)  # bounded memory for very large tournaments
        for start in range(0, resamples, step):
            size = min(step, resamples - start)
            means[start : start + size] = d[rng.integers(0, n, size=(size, n))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(lo), float(hi)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error rate, any dependence)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def pairs_for(sd: float, delta: float) -> int | None:
    """Mirrored pairs for 80% power at two-sided α = 0.05 against a true difference ``delta``."""
    if not delta or not math.isfinite(sd) or sd <= 0:
        return None
    return max(2, math.ceil(((Z_ALPHA + Z_POWER) * sd / abs(delta)) ** 2))


@dataclass(slots=True)
class Comparison:
    """One paired comparison: the mean of A − B over ``pairs`` mirrored pairs (see the module docstring)."""

    a: str
    b: str
    variant: str
    side: str  # "all", "mafia" or "town"
    metric: str
    diff: float
    ci95: tuple[float, float]
    p: float
    pairs: int
    sd: float  # standard deviation of the paired differences (NaN with one pair)
    p_adjusted: float = 1.0
    target: float = 0.10
    pair_keys: tuple[str, ...] = field(default=(), repr=False)
    differences: tuple[float, ...] = field(default=(), repr=False)

    @property
    def significant(self) -> bool:
        return self.p_adjusted < ALPHA

    @property
    def unit(self) -> str:
        """What one difference is: a mirrored pair (A against B), or on one side a deal where A and
        B each face the same third model (:func:`side_contrasts`)."""
        return "deals" if self.side in ("mafia", "town") else "pairs"

    @property
    def powered(self) -> bool:
        """Enough pairs, and spread among them, for the power figures to mean something."""
        return self.pairs >= MIN_POWER_PAIRS and math.isfinite(self.sd) and self.sd > 0

    @property
    def mde(self) -> float | None:
        """The smallest true difference these pairs detect with 80% power (α = 0.05, two-sided)."""
        return (Z_ALPHA + Z_POWER) * self.sd / math.sqrt(self.pairs) if self.powered else None

    @property
    def pairs_needed(self) -> int | None:
        """Pairs for 80% power if the true difference were the observed one (None when it is 0)."""
        return pairs_for(self.sd, self.diff) if self.powered else None

    @property
    def pairs_for_target(self) -> int | None:
        """Pairs for 80% power against a difference of ``target``."""
        return pairs_for(self.sd, self.target) if self.powered else None

    @property
    def better(self) -> str | None:
        """The model the (adjusted) test favours on this metric, by the metric's direction; None if none."""
        if not self.significant or self.diff == 0:
            return None
        higher = METRICS[self.metric].better == "higher"
        return self.a if (self.diff > 0) == higher else self.b

    def verdict(self) -> str:
        """One short phrase: who is better, or how far the data are from telling."""
        if self.better is not None:
            return f"{self.better} better"
        if self.pairs < MIN_POWER_PAIRS or not math.isfinite(self.sd):
            return "too few pairs"
        if self.sd == 0:
            return "no difference observed" if self.diff == 0 else "too few pairs"
        needed = self.pairs_for_target
        if needed is not None and needed <= self.pairs:
            # these pairs would have found a difference of ``target`` (80% power): more games are not
            # what is missing, any true difference is likely smaller
            return "no difference as large as the target"
        return "no detectable difference yet"

    def as_json(self) -> dict[str, object]:
        return {
            "a": self.a,
            "b": self.b,
            "variant": self.variant,
            "side": self.side,
            "metric": self.metric,
            "diff": _num(self.diff),
            "ci95": [_num(self.ci95[0]), _num(self.ci95[1])],
            "p": _num(self.p),
            "p_adjusted": _num(self.p_adjusted),
            "pairs": self.pairs,
            "unit": "deals against a common opponent" if self.unit == "deals" else "mirrored pairs",
            "significant": self.significant,
            "better": self.better,
            "sd": _num(self.sd),
            "mde80": _num(self.mde),
            "pairs_needed": self.pairs_needed,
            "target": self.target,
            "pairs_for_target": self.pairs_for_target,
        }


def _num(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), 6)


def paired_differences(results: Results, pairs: Iterable[Pair], metric: str, side: str) -> tuple[list[str], np.ndarray]:
    """(pair keys, A − B per pair) for the pairs where both values exist, in key order."""
    from arena.variants import get_variant

    keys, diffs = [], []
    for pair in sorted(pairs, key=lambda p: p.key):
        slots_a, slots_b = side_slots(pair, side, deals_per_hand(get_variant(pair.variant)))
        va, vb = results.value(pair.a, metric, slots_a), results.value(pair.b, metric, slots_b)
        if math.isfinite(va) and math.isfinite(vb):
            keys.append(pair.key)
            diffs.append(va - vb)
    return keys, np.array(diffs, dtype=float)


def side_contrasts(results: Results, a: str, b: str, variant: str, side: str, metric: str) -> tuple[list[str], np.ndarray]:
    """(deal keys, A − B per deal) on one side, each against the *same* opposing model.

    Within a mirrored pair A's mafia faces B's town, so a mafia-side metric of A − B mixes A's
    deception with B's detection (and reads backwards when one deceives better and the other detects
    better). Here A's seats on ``side`` and B's face the same third model C on the same deal — A as
    mafia against C's town, B as mafia against C's town (town likewise, C as the mafia) — the skill
    model's contrasts (:func:`arena.tournament.skills.contrasts`) on any metric, averaged over the
    third models of the deal. Needs three models; under "A plays this side as B does" the two games
    are exchangeable, so the sign-flip test holds as for a pair.
    """
    games: dict[tuple[int, int, str, str], str] = {}
    for g in results.games:
        if g["variant"] == variant:
            games[(int(g["players"]), int(g["round"]), g["first"], g["second"])] = g["key"]
    others = [c for c in results.models if c not in (a, b)]
    keys, diffs = [], []
    for players, round_ in sorted({k[:2] for k in games}):
        found = []
        for c in others:
            if side == "mafia":
                ga, gb = games.get((players, round_, a, c)), games.get((players, round_, b, c))
            else:
                ga, gb = games.get((players, round_, c, a)), games.get((players, round_, c, b))
            if ga is None or gb is None:
                continue
            va, vb = results.value(a, metric, [(ga, side)]), results.value(b, metric, [(gb, side)])
            if math.isfinite(va) and math.isfinite(vb):
                found.append(va - vb)
        if found:
            keys.append(f"{variant}/{players}/r{round_}/{a}~{b}/{side}")
            diffs.append(sum(found) / len(found))
    return keys, np.array(diffs, dtype=float)


def compare(
    a: str, b: str, variant: str, side: str, metric: str, keys: list[str], d: np.ndarray, seed: int = 0, target: float = 0.10
) -> Comparison:
    """One comparison from its paired differences (sorted by pair key)."""
    identity = data_seed(seed, tuple(keys), tuple(np.round(d, 12).tolist()))
    n = len(d)
    return Comparison(
        a=a,
        b=b,
        variant=variant,
        side=side,
        metric=metric,
        diff=float(d.mean()) if n else math.nan,
        ci95=bootstrap_mean_ci(d, identity),
        p=sign_flip_p(d, identity + 1),
        pairs=n,
        sd=float(d.std(ddof=1)) if n >= 2 else math.nan,
        target=target,
        pair_keys=tuple(keys),
        differences=tuple(float(x) for x in d),
    )


Differences = dict[tuple[str, str, str, str, str], tuple[list[str], np.ndarray]]


def family_differences(results: Results) -> Differences:
    """The paired differences of every comparison of the report's family, keyed (a, b, variant, side, metric).

    Per pairing and variant: the metrics of :data:`TEAM_COMPARED` (McKay: :data:`MCKAY_COMPARED`)
    on their sides; with more than one variant, also the win rate over all variants' pairs
    (variant ``*``). A comparison without any pair holding the metric is left out.

    A team variant's one-side comparisons (``mafia``, ``town``) are never read off the mirrored
    pair, where each model's side plays against the other's (:func:`side_contrasts`): with three
    models or more they are the contrasts against a common third model, one value per deal; with
    two they are left out (the skill model needs three as well), and ``all`` — the pair's overall
    result, which is what the pair measures — stays.
    """
    from arena.variants import get_variant

    third = len(results.models) >= 3
    by_pairing: dict[tuple[str, str], list[Pair]] = {}
    for pair in results.pairs():
        by_pairing.setdefault((pair.a, pair.b), []).append(pair)
    if third:  # a pair of models never played against each other still compares against the third ones
        for a, b in itertools.combinations(results.models, 2):
            by_pairing.setdefault((a, b), [])
    team_variants = [v for v in results.variants if not deals_per_hand(get_variant(v))]
    out: Differences = {}
    for (a, b), mine in sorted(by_pairing.items()):
        variants = sorted({p.variant for p in mine} | (set(team_variants) if third else set()))
        for variant in variants:
            here = [p for p in mine if p.variant == variant]
            team = not deals_per_hand(get_variant(variant))
            compared = TEAM_COMPARED if team else MCKAY_COMPARED
            for metric, sides in compared.items():
                for side in sides:
                    if team and side != "all" and not third:
                        continue
                    if team and side != "all":
                        keys, d = side_contrasts(results, a, b, variant, side, metric)
                    else:
                        keys, d = paired_differences(results, here, metric, side)
                    if len(d):
                        out[(a, b, variant, side, metric)] = (keys, d)
        if len({p.variant for p in mine}) > 1:
            keys, d = paired_differences(results, mine, "win", "all")
            if len(d):
                out[(a, b, ALL_VARIANTS, "all", "win")] = (keys, d)
    return out


def family(differences: Differences, seed: int = 0, target: float = 0.10) -> list[Comparison]:
    """The comparisons of a family of paired differences, Holm-adjusted over it."""
    out = [compare(a, b, v, side, metric, keys, d, seed, target) for (a, b, v, side, metric), (keys, d) in differences.items()]
    adjust(out)
    return out


def compare_all(results: Results, seed: int = 0, target: float = 0.10) -> list[Comparison]:
    """Every comparison of the report's family (:func:`family_differences`), Holm-adjusted over the family."""
    return family(family_differences(results), seed, target)


def smallest_p(d: np.ndarray, draws: int = FLIPS) -> float:
    """The smallest p-value the sign-flip test can give these differences, whatever their signs:
    only the two patterns with every sign alike reach |Σd| = Σ|d|, so 2 / 2^m for m non-zero
    differences (and no less than 1 / (1 + draws) where the test draws sign patterns)."""
    m = int(np.count_nonzero(d))
    if m == 0:
        return 1.0
    exact = 2.0 ** (1 - m)
    return exact if m <= EXACT_LIMIT or _lattice(d[d != 0]) is not None else max(exact, 1 / (1 + draws))


def holm_tarone(pvalues: Sequence[float], smallest: Sequence[float]) -> list[float]:
    """Holm over the hypotheses that can be rejected at all (smallest attainable p ≤ α), 1 for the rest.

    A discrete test that cannot reach p ≤ α (two pairs, or no spread) can never be flagged, so it
    need not count in the family (Tarone 1990): the family-wise error rate stays ≤ α, since the
    left-out tests reject with probability 0, and the attainable ones keep their power.
    """
    testable = [i for i, floor in enumerate(smallest) if floor <= ALPHA]
    adjusted = [1.0] * len(pvalues)
    for i, p in zip(testable, holm([pvalues[i] for i in testable]), strict=True):
        adjusted[i] = p
    return adjusted


def adjust(comparisons: list[Comparison]) -> None:
    """Set ``p_adjusted``: Holm over the distinct, attainable measurements of the family (in place).

    Comparisons with identical differences pair for pair are one measurement and count once; a
    comparison whose smallest attainable p exceeds α cannot be flagged and does not count
    (:func:`holm_tarone`).
    """
    groups: dict[tuple[object, ...], list[Comparison]] = {}
    for c in comparisons:
        signature = (c.a, c.b, c.pair_keys, tuple(round(x, 12) for x in c.differences))
        groups.setdefault(signature, []).append(c)
    distinct = list(groups.values())
    smallest = [smallest_p(np.array(g[0].differences)) for g in distinct]
    adjusted = holm_tarone([g[0].p for g in distinct], smallest)
    for group, p in zip(distinct, adjusted, strict=True):
        for c in group:
            c.p_adjusted = p
