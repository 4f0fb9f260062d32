"""Stop when decided: anytime-valid comparisons, checked after every round (``until_decided``).

A fixed design plays every pairing the same number of games, whether its answer is plain after 20
games or needs 500. With ``until_decided = true`` the runner plays round after round and asks this
module, after each one, which comparisons are decided; the next round plays only the pairings some
undecided comparison still needs, and the run stops when nothing is undecided or ``max_games`` is
spent.

**The decision family.** Per team variant and pairing A~B: the *overall* comparison, one value per
mirrored pair, d = s(A as mafia) − s(B as mafia) where s is the game's score for its mafia side (the
mafia margin, or with ``evidence`` the blended score below); that is A's mean result minus B's over
the pair, as the leaderboard's win-rate comparison reads it. McKay's games: the paired win-rate
difference (they have no fixed sides). With three models or more, per team variant and pair of
models A, B also the two *skill differences* of :mod:`.skills`: one value per deal, A's score as
mafia minus B's against the same town models (deception), and the town's likewise (detection).
Every value lies in [−1, 1].

**Anytime-valid intervals.** Each comparison's values, in round order, feed a *confidence
sequence* for their mean: the betting construction of Waudby-Smith & Ramdas (JRSSB 2024), with
their aGRAPA bets. For each candidate mean m a gambler stakes a share of its wealth on each next
value lying above m (or below), the share fixed from past values only (the Kelly bet for the
running mean and variance, capped at 3/4 of what it could lose); its wealth is a nonnegative
martingale when m is the true mean, so by Ville's inequality it ever reaches 1/α with probability
at most α, *however often it is looked at*. (Their predictable plug-in bets, tried first, needed
2.4 times the values to call a difference of 0.1 on a ±1 outcome: docs/tournaments.md.) The
interval after any round is every m whose wealth never reached k/α, for a family of k comparisons
(Bonferroni, valid under any dependence). Values are checked on a grid of means 0.005 apart.

**Which differ: closed testing.** The wealth of the bettor against a mean of 0 is an e-process
for "no difference". A comparison is called different when the closed testing procedure on these
e-values rejects it at α = 0.05 (:func:`closed_rejections`): the mean of its e-value with those of
any other comparisons reaches 1/α. Whatever the dependence between the comparisons, and however
often it is checked, the chance that any comparison of the family is ever called different when
it is not stays at most α, at whatever round the run stops; and once some comparisons are plain,
the rest need not beat k/α as under Bonferroni.

A comparison is **decided** when closed testing calls it different (the sign of the mean says which
model is better) or the interval
lies inside ±``target`` (*alike*: no difference as large as the target; it never claims a
difference, and comes only with many games). A decision, once made, stands: the interval only
narrows (it is the running intersection).

**What the run waits for** (``decide``). A config may name the comparisons it is run to decide
(``decide = ["deception:liar~detective", "detection"]``: KIND:A~B, the pair in either order, or a
kind alone for every pair of it); the run stops when those are decided, and plays only the pairings
they read. The family stays the whole one above — the same α/k intervals, the same closed testing —
so the comparisons not asked for are reported as they stand, with the same guarantee, and a verdict
on one of them is as valid as on an asked one; naming fewer saves the games that only the others
need, not the test's strictness.

**Decision evidence** (``evidence = true``, the default): a second value per pair or deal, from each
game's *evidence score* for its mafia side — the mean of its mafia margin (1 mafia won, 0 town won,
½ draw), the mafia seats' survival, and the town's votes against the mafia measured against chance,
mapped to [0, 1] as (1 − excess) / 2 (0: every town ballot on the mafia; ½: a town voting at
random). A second bettor bets on those, and a comparison's e-value is the *average* of the two
bettors' wealth: an average of two e-processes is one, so the error stays at most
α whatever the evidence says, and the test is about as quick as the better of the two (it pays a
factor 2 of wealth, log 2 against log(1/α) ≈ 3 and more). Under "A plays as B does" the two games of a deal
stay exchangeable, so both kinds of values are symmetric about 0; the games are still the units
(one value per pair or deal, never per vote). The interval reported, and *alike*, are the wins'.
Why a mixture and not the evidence score alone: the score's values are squeezed into a narrower
range than ±1, and a bettor on a bounded value cannot stake more than the range allows, so on a
large difference the score alone was slower than the wins (measured: docs/tournaments.md).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .design import deals_per_hand
from .inference import ALPHA, paired_differences
from .results import Results, mafia_margin

GRID = np.linspace(-1.0, 1.0, 401)[1:-1]  # candidate means of a value in [−1, 1], 0.005 apart
ZERO = int(np.argmin(np.abs(GRID)))  # the grid's 0: "no difference"
STAKE_CAP = 0.75  # the largest share of what the bet could lose staked on one value (Waudby-Smith & Ramdas' c)
OVERALL, DECEPTION, DETECTION = "overall", "deception", "detection"
KINDS = (OVERALL, DECEPTION, DETECTION)
#: why an until_decided run stopped (``until_decided.stop_reason`` in the leaderboard's JSON)
STOP_DECIDED, STOP_BUDGET, STOP_CAP, STOP_INCOMPLETE = "decided", "budget spent", "cost cap", "round incomplete"
#: the statuses of a decision
DIFFERENT, ALIKE, UNDECIDED = "different", "alike", "undecided"


class ConfidenceSequence:
    """An anytime-valid confidence sequence for the mean of values in [−1, 1] (see the module docstring).

    ``update`` takes the next values in order; ``interval`` is the running intersection so far.
    """

    def __init__(self, alpha: float) -> None:
        self.alpha = alpha
        self.threshold = math.log(1.0 / alpha)
        self.m = (GRID + 1.0) / 2.0  # the grid on the [0, 1] scale of z = (x + 1) / 2
        self.log_wealth = np.zeros_like(self.m)  # log wealth of the gambler betting against mean m
        self.excluded = np.zeros(len(self.m), dtype=bool)
        self.n = 0
        self.total = 0.0
        self.mean_hat = 0.5  # the plug-in's running estimate (prior value ½)
        self.square = 0.25  # Σ (z − running mean)², with a prior ¼

    def update(self, values: Iterable[float]) -> None:
        for x in values:
            z = min(1.0, max(0.0, (float(x) + 1.0) / 2.0))
            t = self.n + 1
            variance = self.square / t
            gap = self.mean_hat - self.m
            # aGRAPA: the bet a Kelly gambler would place if the running mean and variance were true
            stake = np.clip(gap / (variance + gap * gap), -STAKE_CAP / (1.0 - self.m), STAKE_CAP / self.m)
            self.log_wealth += np.log1p(stake * (z - self.m))
            self.excluded |= self.log_wealth >= self.threshold
            self.square += (z - self.mean_hat) ** 2
            self.n = t
            self.total += z
            self.mean_hat = (0.5 + self.total) / (t + 1)

    @property
    def mean(self) -> float:
        return 2.0 * self.total / self.n - 1.0 if self.n else math.nan

    def interval(self) -> tuple[float, float]:
        """(lo, hi) on the values' scale; (−1, 1) before any value; the whole grid excluded cannot
        happen at a true mean, and reads as the observed mean."""
        kept = GRID[~self.excluded]
        if not len(kept):
            return self.mean, self.mean
        return float(kept[0]) - 0.0025, float(kept[-1]) + 0.0025


@dataclass(slots=True)
class Decision:
    """One comparison of the decision family and what the rounds so far say about it."""

    kind: str  # overall, deception or detection
    a: str
    b: str
    variant: str
    status: str = UNDECIDED
    better: str | None = None
    estimate: float = math.nan
    lo: float = -1.0
    hi: float = 1.0
    n: int = 0  # values (pairs or deals) behind it
    asked: bool = True  # named by the config's ``decide`` (every comparison when it names none)
    round: int | None = None  # the round after which it was decided
    games: int | None = None  # games the tournament had played by then
    evidence_mean: float = math.nan  # with evidence: the mean of the evidence scores' values
    sequence: ConfidenceSequence | None = field(default=None, repr=False)  # on the wins
    evidence: ConfidenceSequence | None = field(default=None, repr=False)  # on the evidence scores

    def log_wealth(self) -> float:
        """The log wealth of the test of "no difference": the wins' bettor, or with evidence the
        average of the wins' and the evidence scores' bettors (a mixture of two e-processes is one)."""
        if self.sequence is None:
            return 0.0
        wins = float(self.sequence.log_wealth[ZERO])
        if self.evidence is None:
            return wins
        return float(np.logaddexp(wins, self.evidence.log_wealth[ZERO]) - math.log(2.0))

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.variant, self.kind, self.a, self.b)

    @property
    def decided(self) -> bool:
        return self.status != UNDECIDED

    def pairings(self, models: Sequence[str]) -> set[tuple[str, str]]:
        """The pairings whose games feed this comparison (sorted name pairs)."""
        if self.kind == OVERALL:
            return {(self.a, self.b)}
        others = [c for c in models if c not in (self.a, self.b)]
        return {tuple(sorted((m, c))) for m in (self.a, self.b) for c in others}  # type: ignore[misc]

    def verdict(self) -> str:
        if self.status == DIFFERENT:
            return f"{self.better} better"
        if self.status == ALIKE:
            return "alike (within the target)"
        return "undecided"

    def as_json(self) -> dict[str, object]:
        return {
            "comparison": self.kind,
            "a": self.a,
            "b": self.b,
            "variant": self.variant,
            "status": self.status,
            "asked": self.asked,
            "better": self.better,
            "estimate": _num(self.estimate),
            "cs95": [_num(self.lo), _num(self.hi)],
            "evidence_estimate": _num(self.evidence_mean),
            "n": self.n,
            "decided_round": self.round,
            "decided_games": self.games,
        }


def _num(x: float) -> float | None:
    return round(float(x), 6) if math.isfinite(x) else None


def game_score(results: Results, game: dict, evidence: bool) -> float | None:
    """The game's score for its mafia side in [0, 1]: its mafia margin, or with ``evidence`` the mean
    of the margin, the mafia's survival and the town's votes on the mafia against chance."""
    margin = mafia_margin(results, game)
    if margin is None or not evidence:
        return margin
    parts = [margin]
    survival = results.value(game["first"], "survival", [(game["key"], "mafia")])
    if math.isfinite(survival):
        parts.append(survival)
    votes = results.value(game["second"], "votes_on_mafia_excess", [(game["key"], "town")])
    if math.isfinite(votes):
        parts.append((1.0 - votes) / 2.0)
    return sum(parts) / len(parts)


def round_values(results: Results, decision: Decision, evidence: bool) -> list[float]:
    """The comparison's values in the games of ``results`` (one round's), in key order."""
    from arena.variants import get_variant

    if deals_per_hand(get_variant(decision.variant)):
        pairs = [p for p in results.pairs() if p.variant == decision.variant and (p.a, p.b) == (decision.a, decision.b)]
        return [float(x) for x in paired_differences(results, pairs, "win", "all")[1]]
    score: dict[tuple[int, str, str], float] = {}
    for g in results.games:
        if g["variant"] == decision.variant:
            s = game_score(results, g, evidence)
            if s is not None:
                score[(int(g["players"]), g["first"], g["second"])] = s
    values = []
    a, b = decision.a, decision.b
    models = sorted({m for k in score for m in k[1:]} - {a, b})
    for size in sorted({k[0] for k in score}):
        if decision.kind == OVERALL:
            x, y = score.get((size, a, b)), score.get((size, b, a))
            if x is not None and y is not None:
                values.append(x - y)
            continue
        found = []
        for c in models:
            if decision.kind == DECEPTION:
                x, y = score.get((size, a, c)), score.get((size, b, c))
            else:
                x, y = score.get((size, c, b)), score.get((size, c, a))
            if x is not None and y is not None:
                found.append(x - y)
        if found:
            values.append(sum(found) / len(found))
    return values


def family(models: Sequence[str], variants: Sequence[str]) -> list[Decision]:
    """The comparisons the run must decide (see the module docstring), in a fixed order."""
    from arena.variants import get_variant

    out = []
    for variant in sorted(variants):
        for a, b in itertools.combinations(sorted(models), 2):
            out.append(Decision(OVERALL, a, b, variant))
            if len(models) >= 3 and not deals_per_hand(get_variant(variant)):
                out += [Decision(DECEPTION, a, b, variant), Decision(DETECTION, a, b, variant)]
    return out


@dataclass(slots=True)
class Decisions:
    """The decision family after some rounds: what is decided, when, and the games spent."""

    decisions: list[Decision]
    rounds: int  # rounds looked at
    games: int  # games in those rounds
    target: float
    evidence: bool
    ask: tuple[str, ...] = ()  # the config's ``decide`` entries; () asks for every comparison
    stop_reason: str | None = None  # why the run stopped (STOP_*), when a run has said so
    max_games: int | None = None  # the run's budget, when known

    @property
    def asked(self) -> list[Decision]:
        return [d for d in self.decisions if d.asked]

    @property
    def done(self) -> bool:
        """Every comparison the run was asked to decide is decided (the others need not be)."""
        return all(d.decided for d in self.asked)

    def needed_pairings(self, models: Sequence[str]) -> set[tuple[str, str]]:
        """The pairings some undecided comparison that was asked for still reads."""
        need: set[tuple[str, str]] = set()
        for d in self.asked:
            if not d.decided:
                need |= d.pairings(models)
        return need

    def stop_line(self) -> str | None:
        """Why the run stopped, in one line of at most 80 characters (None when no run has said)."""
        left = sum(not d.decided for d in self.asked)
        what = "comparison asked for" if self.ask else "comparison"
        if self.stop_reason == STOP_DECIDED:
            return f"stopped: decided: every {what} is decided, after {self.games} games"
        if self.stop_reason is None:
            return None
        why = {
            STOP_BUDGET: f"next round > max_games = {self.max_games}" if self.max_games else "budget spent",
            STOP_CAP: "raise cost_cap and run again",
            STOP_INCOMPLETE: "run the same command again",
        }.get(self.stop_reason, "")
        return f"stopped: {self.stop_reason} ({why}); {left} of {len(self.asked)} {'asked ' if self.ask else ''}undecided"

    def lines(self) -> list[str]:
        asked = self.asked
        decided = sum(d.decided for d in asked)
        what = f"{decided}/{len(asked)} comparisons {'asked for ' if self.ask else ''}decided"
        out = [
            f"until decided: {what} after {self.rounds} rounds "
            f"({self.games} games; anytime-valid 95% confidence sequences, target ±{self.target:g}"
            f"{', with decision evidence' if self.evidence else ''})"
        ]
        stop = self.stop_line()
        if stop:
            out.append(stop)
        for d in asked:
            out.append(_decision_line(d))
        rest = [d for d in self.decisions if not d.asked]
        if rest:
            out.append(f"not asked for ({', '.join(self.ask)} asked), as they stand:")
            out += [_decision_line(d) for d in rest]
        return out

    def as_json(self) -> dict[str, object]:
        return {
            "rounds": self.rounds,
            "games": self.games,
            "target": self.target,
            "evidence": self.evidence,
            "decide": list(self.ask) or None,
            "done": self.done,
            "stop_reason": self.stop_reason,
            "max_games": self.max_games,
            "decisions": [d.as_json() for d in self.decisions],
        }


def _decision_line(d: Decision) -> str:
    when = f" after round {d.round} ({d.games} games)" if d.decided else ""
    if not d.n:
        return f"  {d.variant} {d.kind} {d.a} vs {d.b}: {d.verdict()}; no values yet (its games were not needed)"
    unit = "mirrored pairs" if d.kind == OVERALL else "deals"
    return (
        f"  {d.variant} {d.kind} {d.a} vs {d.b}: {d.verdict()}{when}; mean {d.estimate:+.3f} "
        f"[{d.lo:+.3f}, {d.hi:+.3f}] over {d.n} {unit}"
    )


def parse_ask(entry: str) -> tuple[str, frozenset[str] | None]:
    """One ``decide`` entry: ``KIND:A~B`` (the pair in either order) or ``KIND`` alone (every pair of
    that kind); ValueError says what is wrong, in words for a config error."""
    kind, sep, pair = entry.strip().partition(":")
    kind = kind.strip()
    if kind not in KINDS:
        raise ValueError(f"{entry!r}: the kind is one of {', '.join(KINDS)} (as in 'deception:A~B', or 'deception' alone)")
    if not sep:
        return kind, None
    a, tilde, b = pair.partition("~")
    a, b = a.strip(), b.strip()
    if not tilde or not a or not b:
        raise ValueError(f"{entry!r}: write the pair as {kind}:A~B (two model names)")
    if a == b:
        raise ValueError(f"{entry!r}: a model is not compared with itself")
    return kind, frozenset((a, b))


def asks_for(decision: Decision, ask: Sequence[str]) -> bool:
    """Whether the ``decide`` entries name this comparison (every one when there are none)."""
    if not ask:
        return True
    for entry in ask:
        kind, pair = parse_ask(entry)
        if kind == decision.kind and (pair is None or pair == {decision.a, decision.b}):
            return True
    return False


def closed_rejections(log_e: np.ndarray, threshold: float) -> np.ndarray:
    """Which hypotheses the closed testing procedure rejects, given each one's log e-value.

    An intersection of hypotheses is rejected when the *mean* of their e-values reaches 1/α (the
    mean of e-values is one, under any dependence: Vovk & Wang 2021), and a hypothesis when every
    intersection containing it is: when the smallest such mean does. That mean takes the
    hypothesis with the others of smallest e-value, added while each lowers it. At most α of the
    time, ever, is any true hypothesis rejected (its intersection with every other true one is an
    e-process); and a comparison need not beat k/α as under Bonferroni, only the mean with the
    comparisons still near 1, so the decided ones make the rest quicker.
    """
    k = len(log_e)
    order = np.argsort(log_e, kind="stable")
    out = np.zeros(k, dtype=bool)
    for i in range(k):
        total, count = float(log_e[i]), 1
        for j in order:
            if j == i:
                continue
            mean = total - math.log(count)
            if log_e[j] >= mean:
                break
            total, count = float(np.logaddexp(total, log_e[j])), count + 1
        out[i] = total - math.log(count) >= threshold
    return out


class Tracker:
    """The decision family, updated round by round (the runner and the benchmarks look after each)."""

    def __init__(
        self,
        models: Sequence[str],
        variants: Sequence[str],
        *,
        target: float = 0.10,
        evidence: bool = True,
        alpha: float = ALPHA,
        ask: Sequence[str] = (),
    ) -> None:
        self.models = sorted(models)
        decisions = family(self.models, variants)
        self.alpha = alpha
        self.level = level = alpha / max(1, len(decisions))
        for d in decisions:
            d.sequence = ConfidenceSequence(level)
            d.evidence = ConfidenceSequence(level) if evidence else None
            d.asked = asks_for(d, ask)
        self.state = Decisions(decisions, 0, 0, target, evidence, tuple(ask))

    def look(self, round_: int, results: Results) -> Decisions:
        """Add one round's games (``results`` holds that round only) and decide what can be."""
        decisions = self.state.decisions
        wins = [round_values(results, d, False) for d in decisions]
        scores = [round_values(results, d, True) for d in decisions] if self.state.evidence else None
        return self.look_values(round_, wins, len(results.games), scores)

    def look_values(
        self,
        round_: int,
        wins: Sequence[Sequence[float]],
        games: int,
        scores: Sequence[Sequence[float]] | None = None,
    ) -> Decisions:
        """Add one round given each comparison's values in it (in family order): on the wins, and with
        evidence on the evidence scores; ``games``: the round's games."""
        state = self.state
        state.rounds = round_
        state.games += games
        for i, d in enumerate(state.decisions):
            got = wins[i]
            if not got or d.sequence is None:
                continue
            d.sequence.update(got)
            if d.evidence is not None and scores is not None:
                d.evidence.update(scores[i])
                d.evidence_mean = d.evidence.mean
            d.n, d.estimate = d.sequence.n, d.sequence.mean
            d.lo, d.hi = d.sequence.interval()
        different = closed_rejections(np.array([d.log_wealth() for d in state.decisions]), math.log(1.0 / self.alpha))
        for d, reject in zip(state.decisions, different, strict=True):
            if d.decided or d.sequence is None or not d.sequence.n:
                continue
            if reject:
                d.status = DIFFERENT
                lead = d.sequence.mean
                if d.evidence is not None and d.evidence.log_wealth[ZERO] > d.sequence.log_wealth[ZERO]:
                    lead = d.evidence.mean
                d.better = d.a if lead > 0 else d.b
            elif -state.target <= d.lo and d.hi <= state.target:
                d.status = ALIKE
            if d.decided:
                d.round, d.games = round_, state.games
        return state


def by_round(results: Results) -> dict[int, Results]:
    """The results split into one :class:`Results` per round."""
    round_of = {g["key"]: int(g["round"]) for g in results.games}
    parts: dict[int, tuple[list, list, list]] = {r: ([], [], []) for r in sorted(set(round_of.values()))}
    for g in results.games:
        parts[round_of[g["key"]]][0].append(g)
    for p in results.seats:
        parts[round_of[p["game"]]][1].append(p)
    for s in results.stats:
        parts[round_of[s["game"]]][2].append(s)
    return {r: Results(*rows) for r, rows in parts.items()}


def decide(
    results: Results,
    *,
    target: float = 0.10,
    evidence: bool = True,
    alpha: float = ALPHA,
    before: int | None = None,
    models: Sequence[str] | None = None,
    variants: Sequence[str] | None = None,
    ask: Sequence[str] = (),
) -> Decisions:
    """Replay the rounds (those before round ``before``, if given) in order, looking after each.

    The decision family is fixed up front from the models and variants (the config's for a run,
    else the results'), so its size, and the Bonferroni level α/k, never depend on the data; ``ask``
    (the config's ``decide``) names the comparisons that must be decided for the run to stop.
    """
    tracker = Tracker(
        models or results.models, variants or results.variants, target=target, evidence=evidence, alpha=alpha, ask=ask
    )
    for r, part in by_round(results).items():
        if before is None or r < before:
            tracker.look(r, part)
    return tracker.state
