"""Two players left and a clock: the expected value of killing now, offering peace, or waiting.

Every McKay ending between two living players has the same shape (duel, the duel3 final, trio's
round 2): in each beat either may kill, a kill by both at once is its own outcome, peace comes when
both offer it (a handshake, both cards on no_kill), and time running out is peace too. The
opponent's card is unknown, so the plan runs over *worlds* (one per card it may hold, or per
assignment of every hidden card), each with my utility for the four endings and the opponent's
per-beat rates of killing and of offering peace in that world.

The plan is a chain, not a tree: while nobody acts, the only thing that changes is the belief
(an opponent who could have killed and did not is a little less likely to be the one who
kills), and that posterior is known in advance beat by beat. So the best of "kill now" and
"wait one more beat" is solved backwards along it in O(beats × worlds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(slots=True, frozen=True)
class Stance:
    """One world as the planner sees it: its weight, my utility of each ending, the opponent's rates."""

    weight: float
    kill: float  # I kill the opponent (and he did not kill me in the same beat)
    killed: float  # the opponent kills me
    both: float  # we kill each other in the same beat
    peace: float  # handshake, both on no_kill, or time out
    hazard: float  # P(the opponent kills in a beat)
    offer: float  # P(the opponent offers peace in a beat)


@dataclass(slots=True, frozen=True)
class Plan:
    """Values of the first beat's choices (each followed by the best play after it), per world."""

    kill: tuple[float, ...]
    shake: tuple[float, ...]
    hold: tuple[float, ...]

    def totals(self) -> dict[str, float]:
        return {"kill": sum(self.kill), "shake": sum(self.shake), "hold": sum(self.hold)}


def _kill_now(stances: Sequence[Stance], mass: Sequence[float]) -> list[float]:
    return [m * (s.hazard * s.both + (1.0 - s.hazard) * s.kill) for s, m in zip(stances, mass, strict=True)]


def chain(stances: Sequence[Stance], mass: Sequence[float], beats: int, offering: bool) -> list[float]:
    """Per-world value of the best play over ``beats`` beats starting from ``mass``, when every
    beat in which I do not kill I offer peace (``offering``) or just wait."""
    path = [list(mass)]
    for _ in range(beats):
        prev = path[-1]
        path.append([m * max(0.0, 1.0 - s.hazard - (s.offer if offering else 0.0)) for s, m in zip(stances, prev, strict=True)])
    # path[i] = mass when beats - i beats are left; the time-out value is peace
    value = [m * s.peace for s, m in zip(stances, path[beats], strict=True)]
    for i in range(beats - 1, -1, -1):
        mass_i = path[i]
        wait = [
            m * (s.hazard * s.killed + (s.offer * s.peace if offering else 0.0)) + v
            for s, m, v in zip(stances, mass_i, value, strict=True)
        ]
        kill = _kill_now(stances, mass_i)
        value = kill if sum(kill) > sum(wait) else wait
    return value


def plan(stances: Sequence[Stance], beats: int, standing_offer: bool = False) -> Plan:
    """The first beat's choices with ``beats`` beats left (this one included).

    ``standing_offer``: the opponent offered peace in the previous beat, so my offer now makes it
    (unless he kills in this beat: a kill outranks a handshake).
    """
    mass = [s.weight for s in stances]
    kill = _kill_now(stances, mass)
    rest = beats - 1
    shake_now: list[float] = []
    after_shake: list[float] = []
    after_hold: list[float] = []
    for s, m in zip(stances, mass, strict=True):
        offer = (1.0 - s.hazard) if standing_offer else s.offer
        shake_now.append(m * (s.hazard * s.killed + offer * s.peace))
        after_shake.append(m * max(0.0, 1.0 - s.hazard - offer))
        after_hold.append(m * (1.0 - s.hazard))
    if rest <= 0:
        shake = [v + m * s.peace for v, m, s in zip(shake_now, after_shake, stances, strict=True)]
        hold = [m * (s.hazard * s.killed) + a * s.peace for s, m, a in zip(stances, mass, after_hold, strict=True)]
        return Plan(tuple(kill), tuple(shake), tuple(hold))
    cont = chain(stances, after_shake, rest, offering=True)
    shake = [v + c for v, c in zip(shake_now, cont, strict=True)]
    by_offer = chain(stances, after_hold, rest, offering=True)
    by_wait = chain(stances, after_hold, rest, offering=False)
    cont = by_offer if sum(by_offer) >= sum(by_wait) else by_wait
    hold = [m * s.hazard * s.killed + c for s, m, c in zip(stances, mass, cont, strict=True)]
    return Plan(tuple(kill), tuple(shake), tuple(hold))


def per_world(stances: Sequence[Stance], beats: int) -> list[float]:
    """Value per unit of probability of each world when the play (kill, or offer peace and wait)
    is planned on the mixture: what a duel still to come is worth in each world, as it would be
    played without knowing which world it is."""
    if beats <= 0:
        return [s.peace for s in stances]
    per = chain(stances, [s.weight for s in stances], beats, offering=True)
    return [v / s.weight if s.weight > 0.0 else s.peace for v, s in zip(per, stances, strict=True)]


def after_look(stances: Sequence[Stance], odds: Sequence[dict[str, float]], beats: int) -> float:
    """Value of spending this beat looking at a card (no kill, no offer), then playing on with
    the card seen: ``odds[i]`` is P(the card | world i); the stances are those after the look."""
    seen: set[str] = set()
    for o in odds:
        seen.update(o)
    total = 0.0
    for card in sorted(seen):
        mass = [s.weight * o.get(card, 0.0) for s, o in zip(stances, odds, strict=True)]
        if sum(mass) <= 0.0:
            continue
        now = sum(m * s.hazard * s.killed for s, m in zip(stances, mass, strict=True))
        survive = [m * (1.0 - s.hazard) for s, m in zip(stances, mass, strict=True)]
        rest = beats - 1
        if rest <= 0:
            total += now + sum(m * s.peace for s, m in zip(stances, survive, strict=True))
            continue
        # each chain's first level already weighs killing at once with the card seen
        total += now + max(sum(chain(stances, survive, rest, offering=True)), sum(chain(stances, survive, rest, offering=False)))
    return total
