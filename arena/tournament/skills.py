"""The skill model: each model's deception (as mafia) and detection (as town), fitted jointly.

Every team-variant game of the tournament is one observation of its mafia-side model M against
its town-side model T. With y the game's mafia margin (1 mafia won, 0 town won, ½ a draw or a
third side's win: :func:`arena.tournament.results.mafia_margin`)::

    logit P(mafia side wins) = c[size] + deception[M] − detection[T]

fitted by maximum likelihood (binomial log-likelihood, a draw counting half a win) with
``scipy.optimize.minimize`` (L-BFGS-B, analytic gradient). Per variant: one intercept per table
size (how the deal favours the mafia) and one deception and one detection per model; the pooled
fit (variant ``*``) shares the models' skills across variants, with an intercept per variant and
size.

- **Identifiability: sum to zero.** Adding a constant to every deception and to the intercept
  changes nothing, so deceptions sum to 0 over the models, and so do detections: a skill is
  relative to the field's average (a reference model fixed at 0 would make every interval
  depend on that one model's games). With two models only the sums deception[A] + detection[A]
  are identified — each game pits A's one skill against B's other — so the fit needs at least
  three models in a round robin (then each model meets two different opponents on each side).
- **A weak prior.** Between the bot and the random player one side may win every game; the
  maximum-likelihood estimate is then infinite. A normal penalty of standard deviation 2.5 on
  every skill (the weakly informative prior usual for logistic coefficients) keeps it finite; it
  moves estimates below about ±2 very little. Intercepts are not penalised.
- **Intervals.** A percentile bootstrap (1 000 resamples) over mirrored pairs, resampled within
  each variant, size and pairing (a game whose mirror is missing is its own unit), so every
  resample keeps the round robin's design. With fewer than 5 deals in some stratum (one or two
  rounds) a resample is nearly the data itself and the interval would collapse onto the estimate:
  the intervals are then unknown (NaN, ``null`` in JSON, "too few deals" in tables).
- **Which pairs differ.** A bootstrap p-value is too optimistic with few pairs (measured: with
  10 pairs per pairing, 3 identical models were "different" in 16% of null tournaments), so the
  test of "A and B deceive equally well" is exact instead: every pairing of a round plays the
  round's deal, so A as mafia against a town C and B as mafia against the same C are two games
  on one deal that differ only in the mafia model (:func:`contrasts`). Their margin differences,
  one per deal, go through the sign-flip test of :mod:`.inference` (detection likewise, with C
  as the mafia); the p-values are Holm-adjusted over every skill difference reported (those that
  cannot reach p ≤ 0.05 at all left out, as for the paired comparisons). The test uses the games
  against common opponents only, so it needs three models or more.

Units are logits: a deception 0.5 above another's multiplies the mafia's odds of winning by
e^0.5 ≈ 1.65 against the same town. McKay's games have no fixed sides and are not in the model.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
from scipy.stats import norm

from .design import deals_per_hand
from .inference import ALL_VARIANTS, ALPHA, MIN_INTERVAL_PAIRS, Z_POWER, data_seed, holm_tarone, sign_flip_p, smallest_p
from .results import Results

PRIOR_SD = 2.5
RESAMPLES = 1_000
MIN_MODELS = 3


@dataclass(slots=True)
class Observations:
    """Games as rows: stratum (size), mafia-side model, town-side model, margin y; units for the bootstrap."""

    strata: list[str]
    models: list[str]
    stratum: np.ndarray  # int per game
    mafia: np.ndarray  # model index per game
    town: np.ndarray  # model index per game
    y: np.ndarray  # margin per game, in [0, 1]
    units: list[tuple[str, list[int]]]  # (resampling stratum, the games of one unit)
    deals: list[str]  # variant/size/round of each game: the games of one deal share it


@dataclass(slots=True, frozen=True)
class Estimate:
    estimate: float
    lo: float
    hi: float

    def as_json(self) -> dict[str, object]:
        return {"estimate": _num(self.estimate), "ci95": [_num(self.lo), _num(self.hi)]}


@dataclass(slots=True, frozen=True)
class Skill:
    model: str
    variant: str
    deception: Estimate
    detection: Estimate
    games: int  # the model's games in the fit

    def as_json(self) -> dict[str, object]:
        return {
            "model": self.model,
            "variant": self.variant,
            "deception": self.deception.as_json(),
            "detection": self.detection.as_json(),
            "games": self.games,
        }


@dataclass(slots=True)
class SkillDifference:
    """``a``'s skill minus ``b``'s (deception or detection) in one fit."""

    a: str
    b: str
    variant: str
    skill: str  # "deception" or "detection"
    diff: Estimate
    p: float
    deals: int = 0  # deals behind the test (:func:`contrasts`)
    smallest_p: float = 1.0  # the smallest p the test could give (:func:`arena.tournament.inference.smallest_p`)
    p_adjusted: float = 1.0
    contrast_mean: float = math.nan  # the mean of the per-deal contrasts the test reads (margins)
    contrast_sd: float = math.nan  # their standard deviation

    @property
    def significant(self) -> bool:
        return self.p_adjusted < ALPHA

    def deals_needed(self, tests: int = 1) -> int | None:
        """Deals for 80% power if the contrasts' observed mean were the truth, at α / ``tests`` (the
        Holm-adjusted test's strictest level over ``tests`` differences: an upper estimate); None with
        fewer than 5 deals, no spread or a mean of 0."""
        if self.deals < MIN_INTERVAL_PAIRS or not self.contrast_sd > 0 or not self.contrast_mean:
            return None
        z = float(norm.ppf(1.0 - ALPHA / (2.0 * max(1, tests)))) + Z_POWER
        return math.ceil((z * self.contrast_sd / abs(self.contrast_mean)) ** 2)

    def more_deals(self, tests: int = 1) -> int | None:
        """About how many more deals would likely decide it (at least 1: it is not decided yet)."""
        needed = self.deals_needed(tests)
        return None if needed is None else max(1, needed - self.deals)

    def as_json(self) -> dict[str, object]:
        return {
            "a": self.a,
            "b": self.b,
            "variant": self.variant,
            "skill": self.skill,
            "diff": _num(self.diff.estimate),
            "ci95": [_num(self.diff.lo), _num(self.diff.hi)],
            "p": _num(self.p),
            "p_adjusted": _num(self.p_adjusted),
            "deals": self.deals,
            "deals_needed": self.deals_needed(),
            "significant": self.significant,
        }


@dataclass(slots=True)
class SkillFit:
    variant: str
    models: list[str]
    intercepts: dict[str, float]  # stratum -> c
    skills: list[Skill]
    games: int
    differences: list[SkillDifference] = field(default_factory=list)
    #: (mafia model, town model, margin) where every game of that matchup ended the same way: the
    #: likelihood alone would put those skills at ±∞, so they and their intervals rest on the prior
    one_sided: list[tuple[str, str, float]] = field(default_factory=list)
    #: the fewest deals (mirrored pairs) any variant, size and pairing has: the bootstrap's units
    deals: int = 0

    @property
    def intervals_known(self) -> bool:
        return self.deals >= MIN_INTERVAL_PAIRS

    def as_json(self) -> dict[str, object]:
        return {
            "variant": self.variant,
            "games": self.games,
            "deals": self.deals,
            "intervals_known": self.intervals_known,
            "intercepts": {k: _num(v) for k, v in self.intercepts.items()},
            "one_sided": [{"mafia": m, "town": t, "margin": y} for m, t, y in self.one_sided],
        }


@dataclass(slots=True)
class SkillReport:
    fits: list[SkillFit]
    note: str | None  # why there is no fit, or None

    @property
    def skills(self) -> list[Skill]:
        return [s for f in self.fits for s in f.skills]

    @property
    def differences(self) -> list[SkillDifference]:
        return [d for f in self.fits for d in f.differences]


def _num(x: float) -> float | None:
    return round(float(x), 6) if math.isfinite(x) else None


def observations(results: Results, variant: str, evidence: bool = False) -> Observations | None:
    """The team games of ``variant`` (``*``: every team variant) as rows, with their bootstrap units.

    ``evidence``: each game's y is its score with decision evidence (the mean of the margin, the
    mafia's survival and the town's votes on the mafia against chance:
    :func:`arena.tournament.sequential.game_score`) instead of the margin alone.
    """
    from arena.variants import get_variant

    from .sequential import game_score

    games = [
        g
        for g in results.games
        if (variant == ALL_VARIANTS or g["variant"] == variant) and not deals_per_hand(get_variant(g["variant"]))
    ]
    rows = []
    for g in games:
        y = game_score(results, g, evidence)
        if y is not None:
            stratum = f"{g['variant']}/{g['players']}" if variant == ALL_VARIANTS else str(g["players"])
            rows.append((g, stratum, y))
    if not rows:
        return None
    models = sorted({g["first"] for g, _, _ in rows} | {g["second"] for g, _, _ in rows})
    strata = sorted({s for _, s, _ in rows})
    index = {g["key"]: i for i, (g, _, _) in enumerate(rows)}
    grouped: dict[tuple[str, int, int, str], list[int]] = {}
    for g, _, _ in rows:
        pairing = "~".join(sorted((g["first"], g["second"])))
        grouped.setdefault((g["variant"], int(g["players"]), int(g["round"]), pairing), []).append(index[g["key"]])
    units = [
        (f"{v}/{n}/{pairing}", sorted(members, key=lambda i: rows[i][0]["key"]))
        for (v, n, _r, pairing), members in sorted(grouped.items())
    ]
    return Observations(
        strata=strata,
        models=models,
        stratum=np.array([strata.index(s) for _, s, _ in rows]),
        mafia=np.array([models.index(g["first"]) for g, _, _ in rows]),
        town=np.array([models.index(g["second"]) for g, _, _ in rows]),
        y=np.array([y for _, _, y in rows], dtype=float),
        units=units,
        deals=[f"{g['variant']}/{g['players']}/r{g['round']}" for g, _, _ in rows],
    )


class _Model:
    """The penalised binomial likelihood on aggregated cells (stratum × mafia model × town model)."""

    def __init__(self, obs: Observations) -> None:
        self.S, self.K = len(obs.strata), len(obs.models)
        cells: dict[tuple[int, int, int], int] = {}
        self.cell_of = np.array(
            [
                cells.setdefault((int(s), int(m), int(t)), len(cells))
                for s, m, t in zip(obs.stratum, obs.mafia, obs.town, strict=True)
            ]
        )
        keys = list(cells)
        self.n_cells = len(keys)
        # Full parameters: c (S), deception (K), detection (K); free ones: c, the first K − 1 of each.
        k = self.K
        self.to_full = np.zeros((self.S + 2 * k, self.S + 2 * (k - 1)))
        self.to_full[: self.S, : self.S] = np.eye(self.S)
        for block in range(2):
            rows, cols = self.S + block * k, self.S + block * (k - 1)
            self.to_full[rows : rows + k - 1, cols : cols + k - 1] = np.eye(k - 1)
            self.to_full[rows + k - 1, cols : cols + k - 1] = -1.0  # sum to zero
        design = np.zeros((self.n_cells, self.S + 2 * k))
        for i, (s, m, t) in enumerate(keys):
            design[i, s] = 1.0
            design[i, self.S + m] += 1.0
            design[i, self.S + k + t] -= 1.0
        self.x = design @ self.to_full
        penalty = np.zeros(self.S + 2 * k)
        penalty[self.S :] = 1.0 / PRIOR_SD**2
        self.penalty = self.to_full.T @ np.diag(penalty) @ self.to_full

    def totals(self, weights: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(games, Σ margin) per cell for games weighted by ``weights`` (bootstrap counts; one row per fit)."""
        cells = np.zeros((len(y), self.n_cells))
        cells[np.arange(len(y)), self.cell_of] = 1.0
        return weights @ cells, (weights * y) @ cells

    def fit(self, n: np.ndarray, wins: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
        """Free parameters maximising the penalised likelihood of cell totals ``n``, ``wins``.

        Several independent fits at once: ``n`` and ``wins`` of shape (fits, cells) give (fits,
        parameters). The problems are separable, so one minimisation over their stacked parameters
        minimises each of them (the bootstrap's thousand fits cost about one): Newton-CG with the
        exact Hessian-vector product, which converges in a few steps from the point estimate.
        """
        x, penalty = self.x, self.penalty
        n2, wins2 = np.atleast_2d(n), np.atleast_2d(wins)
        fits, width = n2.shape[0], x.shape[1]

        def objective(flat: np.ndarray) -> tuple[float, np.ndarray]:
            theta = flat.reshape(fits, width)
            eta = theta @ x.T
            # −log L = Σ n·log(1 + e^η) − wins·η, computed stably
            loss = float(np.sum(n2 * (np.maximum(eta, 0) + np.log1p(np.exp(-np.abs(eta)))) - wins2 * eta))
            loss += 0.5 * float(np.einsum("ri,ij,rj->", theta, penalty, theta))
            grad = (n2 * expit(eta) - wins2) @ x + theta @ penalty
            return loss, grad.ravel()

        def hessian_times(flat: np.ndarray, vector: np.ndarray) -> np.ndarray:
            theta, v = flat.reshape(fits, width), vector.reshape(fits, width)
            prob = expit(theta @ x.T)
            return (((n2 * prob * (1 - prob)) * (v @ x.T)) @ x + v @ penalty).ravel()

        theta0 = np.zeros((fits, width)) if start is None else np.broadcast_to(start, (fits, width))
        found = minimize(
            objective, theta0.ravel(), jac=True, hessp=hessian_times, method="Newton-CG", options={"xtol": 1e-9, "maxiter": 200}
        )
        theta = found.x.reshape(fits, width)
        return theta if np.ndim(n) == 2 else theta[0]

    def full(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(intercepts, deceptions, detections) from free parameters."""
        phi = self.to_full @ theta
        return phi[: self.S], phi[self.S : self.S + self.K], phi[self.S + self.K :]


def fit_skills(obs: Observations, variant: str, seed: int = 0, resamples: int = RESAMPLES) -> SkillFit:
    """Point estimates, bootstrap intervals and pairwise differences for one variant (or ``*``)."""
    model = _Model(obs)
    ones = np.ones(len(obs.y))
    theta = model.fit(*model.totals(ones, obs.y))
    c, dec, det = model.full(theta)
    rng = np.random.default_rng(data_seed(seed, "skills", variant, tuple(k for k, _ in obs.units), obs.y.round(9).tolist()))
    by_stratum: dict[str, list[list[int]]] = {}
    for stratum, members in obs.units:
        by_stratum.setdefault(stratum, []).append(members)
    weights = np.zeros((resamples, len(obs.y)))
    rows = np.arange(resamples)[:, None]
    for units in by_stratum.values():
        members = np.zeros((len(units), len(obs.y)))
        for u, games in enumerate(units):
            members[u, games] = 1.0
        counts = np.zeros((resamples, len(units)))
        np.add.at(counts, (rows, rng.integers(0, len(units), size=(resamples, len(units)))), 1.0)
        weights += counts @ members
    n, wins = model.totals(weights, obs.y)
    draws = model.fit(n, wins, start=theta)
    phi = draws @ model.to_full.T
    draws_dec, draws_det = phi[:, model.S : model.S + model.K], phi[:, model.S + model.K :]
    # resampling within a stratum that holds one deal redraws that deal every time: the interval
    # collapses onto the estimate. With too few deals anywhere, the intervals are unknown.
    deals = min(len(units) for units in by_stratum.values())
    if deals < MIN_INTERVAL_PAIRS:
        draws_dec = draws_det = np.full_like(draws_dec, np.nan)
    games = {m: int(np.sum((obs.mafia == i) | (obs.town == i))) for i, m in enumerate(obs.models)}
    skills = [
        Skill(m, variant, _estimate(dec[i], draws_dec[:, i]), _estimate(det[i], draws_det[:, i]), games[m])
        for i, m in enumerate(obs.models)
    ]
    diffs = []
    for i, j in itertools.combinations(range(model.K), 2):
        for name, point, draws in (("deception", dec, draws_dec), ("detection", det, draws_det)):
            keys, d = contrasts(obs, i, j, name)
            p = sign_flip_p(d, data_seed(seed, "contrast", keys, d.round(12).tolist())) if len(d) else 1.0
            estimate = _estimate(point[i] - point[j], draws[:, i] - draws[:, j])
            sd = float(d.std(ddof=1)) if len(d) >= 2 else math.nan
            mean = float(d.mean()) if len(d) else math.nan
            diffs.append(
                SkillDifference(obs.models[i], obs.models[j], variant, name, estimate, p, len(d), smallest_p(d), 1.0, mean, sd)
            )
    one_sided = []
    for i, j in itertools.permutations(range(model.K), 2):
        ys = obs.y[(obs.mafia == i) & (obs.town == j)]
        if len(ys) and (np.all(ys == 1) or np.all(ys == 0)):
            one_sided.append((obs.models[i], obs.models[j], float(ys[0])))
    intercepts = dict(zip(obs.strata, c.tolist(), strict=True))
    return SkillFit(variant, obs.models, intercepts, skills, len(obs.y), diffs, one_sided, deals)


def _estimate(point: float, draws: np.ndarray) -> Estimate:
    if np.isnan(draws).any():
        return Estimate(float(point), math.nan, math.nan)
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return Estimate(float(point), float(lo), float(hi))


def contrasts(obs: Observations, i: int, j: int, skill: str) -> tuple[list[str], np.ndarray]:
    """Per deal, model i's margin minus model j's against the same third models on the same deal.

    Every pairing of a round plays the round's deal, so ``i`` as mafia against a town ``C`` and
    ``j`` as mafia against the same ``C`` are two games on one deal that differ only in the mafia
    model: ``deception`` averages y(i→C) − y(j→C) over the third models C (higher: i deceives
    better); ``detection`` averages y(C→j) − y(C→i) (higher: i's town holds the mafia back
    better). Other models' skills cancel; only deals with both games of some C count.
    """
    margin = {(deal, int(m), int(t)): float(y) for deal, m, t, y in zip(obs.deals, obs.mafia, obs.town, obs.y, strict=True)}
    others = [c for c in range(len(obs.models)) if c not in (i, j)]
    keys, out = [], []
    for deal in sorted(set(obs.deals)):
        if skill == "deception":
            found = [(margin.get((deal, i, c)), margin.get((deal, j, c))) for c in others]
        else:
            found = [(margin.get((deal, c, j)), margin.get((deal, c, i))) for c in others]
        values = [x - y for x, y in found if x is not None and y is not None]
        if values:
            keys.append(deal)
            out.append(sum(values) / len(values))
    return keys, np.array(out, dtype=float)


def identified(obs: Observations) -> str | None:
    """Why the skills cannot be told apart from these games, or None when they can."""
    if len(obs.models) < MIN_MODELS:
        return (
            f"the skill model needs at least {MIN_MODELS} models in a round robin: with {len(obs.models)}, "
            "deception and detection are confounded (only each model's sum of the two is identified)"
        )
    met = {(int(m), int(t)) for m, t in zip(obs.mafia, obs.town, strict=True)}
    pairings = list(itertools.combinations(range(len(obs.models)), 2))
    if not any((i, j) in met and (j, i) in met for i, j in pairings):
        return (
            "no pairing was played both ways yet: the skill model needs every pairing's mirrored games "
            "(each of its two models on the mafia side)"
        )
    missing = []
    for i, j in pairings:
        a, b = obs.models[i], obs.models[j]
        if (i, j) in met and (j, i) not in met:
            missing.append(f"{a}~{b} (only {a} as mafia so far)")
        elif (j, i) in met and (i, j) not in met:
            missing.append(f"{a}~{b} (only {b} as mafia so far)")
        elif (i, j) not in met:
            missing.append(f"{a}~{b} (not played)")
    if missing:
        return "the skill model needs every pairing played both ways; not yet: " + ", ".join(missing)
    return None


def skill_report(
    results: Results,
    seed: int = 0,
    resamples: int = RESAMPLES,
    variants: Sequence[str] | None = None,
    evidence: bool = False,
) -> SkillReport:
    """Fits per team variant and, with more than one, pooled (``*``); Holm over every skill difference.

    ``evidence``: fit and test the games' scores with decision evidence instead of their margins
    (:func:`observations`)."""
    from arena.variants import get_variant

    team = [v for v in (variants or results.variants) if not deals_per_hand(get_variant(v))]
    if not team:
        return SkillReport([], "no team-variant games (McKay's games have no fixed sides)")
    fits: list[SkillFit] = []
    notes: list[str] = []
    for variant in team + ([ALL_VARIANTS] if len(team) > 1 else []):
        obs = observations(results, variant, evidence)
        if obs is None:
            continue
        why = identified(obs)
        if why is not None:
            notes.append(why if len(team) == 1 else f"{'all team variants' if variant == ALL_VARIANTS else variant}: {why}")
            continue
        fits.append(fit_skills(obs, variant, seed, resamples))
    differences = [d for f in fits for d in f.differences]
    for d, p in zip(differences, holm_tarone([d.p for d in differences], [d.smallest_p for d in differences]), strict=True):
        d.p_adjusted = p
    return SkillReport(fits, notes[0] if notes and not fits else None)
