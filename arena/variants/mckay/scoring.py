"""McKay's scoring tables, as data, and the pure functions that apply them (spec: rules/mckay.md).

Nothing here knows about beats or requests: a hand's outcome (cards, declarations, deaths in
order, survivors) and the bonuses before it go in; the hand's points and the new bonuses come
out. That keeps every table row testable on its own.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

TP, MAFIA, COP = "townsperson", "mafia", "cop"
TEAM_OF: dict[str, str] = {TP: "town", COP: "town", MAFIA: "mafia"}

#: A victim "pretending to be the cop": declared this hand without holding the cop card.
TP_CLAIMING = "townsperson claiming cop"
MAFIA_CLAIMING = "mafia claiming cop"

KILL = "kill"  # one player's kill (duel, duel3, trio round 2)
VOTE = "vote"  # trio round 1: two cards on the victim
SIMULTANEOUS = "simultaneous"  # duel / duel3 finalists: both said "I kill you" at once


@dataclass(slots=True, frozen=True)
class HandDeath:
    """One death of a hand: who, by whom (two killers for a trio round-1 vote), how, when."""

    player: str
    by: tuple[str, ...]
    cause: str
    round: int = 1

    def to_dict(self) -> dict[str, object]:
        return {"player": self.player, "by": list(self.by), "cause": self.cause}


# ---- duel and duel3 ----------------------------------------------------------------------
#: (killer's card, victim's card/claim) -> points, multiplied by the killer's raised bonus.
GOOD_KILLS: dict[tuple[str, str], int] = {
    (MAFIA, TP): 2,
    (TP, MAFIA): 3,
    (MAFIA, TP_CLAIMING): 4,
    (MAFIA, COP): 5,
    (TP, MAFIA_CLAIMING): 5,
    (COP, MAFIA): 5,
    (COP, MAFIA_CLAIMING): 6,
}

#: (killer's card, victim's card/claim) -> flat points; the killer's bonus drops to 0.
BAD_KILLS: dict[tuple[str, str], int] = {
    (TP, TP_CLAIMING): -3,
    (COP, TP_CLAIMING): -4,
    (TP, TP): -5,
    (TP, COP): -8,
    (COP, TP): -10,
    (MAFIA, MAFIA): -12,
    (MAFIA, MAFIA_CLAIMING): -20,
}

#: Nobody dies (or, in duel3, all three live): flat points by card, every bonus +1.
NOBODY_DIES: dict[str, int] = {MAFIA: 2, COP: -2, TP: 0}

#: duel3, two survivors: (own card, the other survivor's card) -> flat points, bonus +1 each.
SURVIVOR_PAIRS: dict[tuple[str, str], int] = {
    (TP, TP): 2,
    (TP, COP): 2,
    (COP, TP): 3,
    (COP, MAFIA): 0,
    (MAFIA, COP): 0,
    (MAFIA, MAFIA): 8,
    (MAFIA, TP): 4,
    (TP, MAFIA): 0,
}


def victim_kind(card: str, declared: bool) -> str:
    """The victim column: a declared non-cop is "pretending"; the cop is the cop either way."""
    if declared and card != COP:
        return TP_CLAIMING if card == TP else MAFIA_CLAIMING
    return card


def score_kill(bonus: dict[str, int], killer: str, killer_card: str, victim: str, victim_column: str) -> int:
    """Apply one kill to ``bonus`` (in place) and return the killer's points.

    Good kill: the killer's bonus rises first, then multiplies; bad kill: flat points.
    """
    key = (killer_card, victim_column)
    if key in GOOD_KILLS:
        bonus[killer] += 1
        bonus[victim] = 0
        return GOOD_KILLS[key] * bonus[killer]
    bonus[killer] = 0
    bonus[victim] += 1
    return BAD_KILLS[key]


def duel_hand(
    cards: Mapping[str, str],
    declared: Collection[str],
    deaths: Sequence[HandDeath],
    alive: Collection[str],
    bonus: Mapping[str, int],
) -> tuple[dict[str, int], dict[str, int]]:
    """A ``duel`` / ``duel3`` hand: each death in order by the kill tables, then the survivors.

    Returns (points of the hand, bonuses after it).
    """
    new_bonus = dict(bonus)
    points = dict.fromkeys(cards, 0)
    for death in deaths:
        if death.cause == SIMULTANEOUS:  # nobody scores, both bonuses back to 0
            new_bonus[death.player] = 0
            new_bonus[death.by[0]] = 0
            continue
        (killer,) = death.by
        kind = victim_kind(cards[death.player], death.player in declared)
        points[killer] += score_kill(new_bonus, killer, cards[killer], death.player, kind)
    living = [n for n in cards if n in alive]
    if len(living) == len(cards):
        for name in living:
            points[name] += NOBODY_DIES[cards[name]]
            new_bonus[name] += 1
    elif len(living) == 2:
        first, second = living
        points[first] += SURVIVOR_PAIRS[(cards[first], cards[second])]
        points[second] += SURVIVOR_PAIRS[(cards[second], cards[first])]
        new_bonus[first] += 1
        new_bonus[second] += 1
    return points, new_bonus


# ---- trio --------------------------------------------------------------------------------
#: (scoring role, cards of the other living players, sorted) -> points; unlisted cases score 0.
TRIO_ALIVE: dict[tuple[str, tuple[str, ...]], int] = {
    (MAFIA, (COP, TP)): 1,  # both others alive (a cop and a TP)
    (MAFIA, ()): 3,  # alone
    (MAFIA, (MAFIA,)): 5,  # the other mafia alive
    (MAFIA, (COP, MAFIA)): 5,
    (MAFIA, (MAFIA, TP)): 5,
    (TP, ()): 1,  # alone
    (TP, (COP,)): 2,  # a cop or a TP alive
    (TP, (TP,)): 2,
    (TP, (TP, TP)): 2,  # an undeclared cop (scoring as TP) beside both TPs
    (TP, (COP, TP)): 3,  # a cop and a TP alive
    (COP, ()): 2,  # alone
    (COP, (TP,)): 3,  # one TP alive
    (COP, (TP, TP)): 5,  # two TP alive
}

#: Overrides to 0 for a living player: scoring role -> a card whose living holder zeroes it.
TRIO_ZERO_IF_ALIVE: dict[str, str] = {TP: MAFIA, COP: MAFIA}

#: Overrides to 0: scoring role -> (victim's card, rounds) of a kill that zeroes the killer.
TRIO_ZERO_IF_KILLED: dict[str, tuple[str, tuple[int, ...]]] = {
    MAFIA: (MAFIA, (2,)),  # killed a mafia in round 2
    COP: (TP, (1, 2)),  # killed a TP in either round
}

#: The two dead players who score: (scoring role, the killers' cards sorted) -> points (round 1).
TRIO_DEAD: dict[tuple[str, tuple[str, ...]], int] = {
    (TP, (COP, TP)): 4,  # a TP killed by the cop and the other TP
    (COP, (TP, TP)): 4,  # a declared cop killed by the two TPs
}

TRIO_BONUS_CAP = 3


def trio_role(card: str, declared: bool) -> str:
    """The real cop scores as the cop only if he declared; otherwise as a TP."""
    return TP if card == COP and not declared else card


def trio_points(
    name: str, cards: Mapping[str, str], declared: Collection[str], deaths: Sequence[HandDeath], alive: Collection[str]
) -> int:
    """Table points of one player at the end of a ``trio`` hand (the bonus not included)."""
    role = trio_role(cards[name], name in declared)
    if name not in alive:
        death = next(d for d in deaths if d.player == name)
        if death.round != 1:
            return 0
        return TRIO_DEAD.get((role, tuple(sorted(cards[k] for k in death.by))), 0)
    others = tuple(sorted(cards[o] for o in cards if o != name and o in alive))
    if TRIO_ZERO_IF_ALIVE.get(role) in others:
        return 0
    if role in TRIO_ZERO_IF_KILLED:
        victim_card, rounds = TRIO_ZERO_IF_KILLED[role]
        if any(name in d.by and cards[d.player] == victim_card and d.round in rounds for d in deaths):
            return 0
    return TRIO_ALIVE.get((role, others), 0)


def trio_bonus(name: str, cards: Mapping[str, str], deaths: Sequence[HandDeath], alive: Collection[str], bonus: int) -> int:
    """Survived: +1; killed with a killer of the own clan: unchanged; by the other clan only: 0."""
    if name in alive:
        return min(TRIO_BONUS_CAP, bonus + 1)
    death = next(d for d in deaths if d.player == name)
    clan = TEAM_OF[cards[name]]
    return bonus if any(TEAM_OF[cards[k]] == clan for k in death.by) else 0


def trio_hand(
    cards: Mapping[str, str],
    declared: Collection[str],
    deaths: Sequence[HandDeath],
    alive: Collection[str],
    bonus: Mapping[str, int],
) -> tuple[dict[str, int], dict[str, int]]:
    """A ``trio`` hand: table points plus the new (additive, capped) bonus, for every player."""
    new_bonus = {n: trio_bonus(n, cards, deaths, alive, bonus[n]) for n in cards}
    points = {n: trio_points(n, cards, declared, deaths, alive) + new_bonus[n] for n in cards}
    return points, new_bonus


# ---- the reasons, in words ------------------------------------------------------------------
# One line per player saying how the tables above gave that player's points of a hand (the score
# table a person reads, and the ``why`` of the ``hand_over`` event). They walk the hand as the
# scoring functions do; tests/test_mckay_scoring.py checks each line's number against them.
def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else str(value).replace("-", "−")


def duel_reasons(
    cards: Mapping[str, str],
    declared: Collection[str],
    deaths: Sequence[HandDeath],
    alive: Collection[str],
    bonus: Mapping[str, int],
) -> dict[str, str]:
    """Why each player scored what he did in a ``duel`` / ``duel3`` hand (``bonus``: before it)."""
    new_bonus = dict(bonus)
    why: dict[str, list[str]] = {n: [] for n in cards}
    for death in deaths:
        if death.cause == SIMULTANEOUS:
            new_bonus[death.player] = new_bonus[death.by[0]] = 0
            why[death.player].append(f"died in a simultaneous kill with {death.by[0]}: no points, bonus back to 0")
            continue
        (killer,) = death.by
        column = victim_kind(cards[death.player], death.player in declared)
        key = (cards[killer], column)
        if key in GOOD_KILLS:
            new_bonus[killer] += 1
            new_bonus[death.player] = 0
            points = GOOD_KILLS[key] * new_bonus[killer]
            product = f"{GOOD_KILLS[key]} × bonus {new_bonus[killer]}: {_signed(points)}"
            why[killer].append(f"{cards[killer]} killed {death.player} ({column}): {product}")
            why[death.player].append(f"killed by {killer}: no points, bonus back to 0")
        else:
            new_bonus[killer] = 0
            new_bonus[death.player] += 1
            why[killer].append(
                f"{cards[killer]} killed {death.player} ({column}): a bad kill, {_signed(BAD_KILLS[key])} flat, bonus back to 0"
            )
            why[death.player].append(f"killed by {killer}: no points, bonus +1")
    living = [n for n in cards if n in alive]
    if len(living) == len(cards):
        for name in living:
            why[name].append(f"nobody died: {cards[name]} {_signed(NOBODY_DIES[cards[name]])}")
    elif len(living) == 2:
        for name, other in (living, living[::-1]):
            pair = SURVIVOR_PAIRS[(cards[name], cards[other])]
            why[name].append(f"survived as {cards[name]} beside {other} ({cards[other]}): {_signed(pair)}")
    return {n: "; ".join(parts) or "no points" for n, parts in why.items()}


def trio_reasons(
    cards: Mapping[str, str],
    declared: Collection[str],
    deaths: Sequence[HandDeath],
    alive: Collection[str],
    bonus: Mapping[str, int],
) -> dict[str, str]:
    """Why each player scored what he did in a ``trio`` hand: the table's points, then the bonus."""
    why: dict[str, str] = {}
    for name in cards:
        role = trio_role(cards[name], name in declared)
        table = trio_points(name, cards, declared, deaths, alive)
        new = trio_bonus(name, cards, deaths, alive, bonus[name])
        as_role = f"as {role}" + (" (the cop, undeclared)" if cards[name] == COP and role == TP else "")
        if name in alive:
            others = [f"{o} ({cards[o]})" for o in cards if o != name and o in alive]
            if TRIO_ZERO_IF_ALIVE.get(role) in [cards[o] for o in cards if o != name and o in alive]:
                base = f"survived {as_role} with a {TRIO_ZERO_IF_ALIVE[role]} alive: 0"
            elif table == 0 and role in TRIO_ZERO_IF_KILLED and any(name in d.by for d in deaths):
                base = f"survived {as_role}, but killed a {TRIO_ZERO_IF_KILLED[role][0]}: 0"
            else:
                base = f"survived {as_role} " + (f"with {', '.join(others)}" if others else "alone") + f": {table}"
            bonus_words = f"bonus {bonus[name]} → {new}" if new > bonus[name] else f"bonus {new} (at most {TRIO_BONUS_CAP})"
        else:
            death = next(d for d in deaths if d.player == name)
            base = f"killed {as_role} by {' and '.join(death.by)}: {table}"
            bonus_words = f"bonus {'kept' if new == bonus[name] else 'back to'} {new}"
        why[name] = f"{base}; {bonus_words}; points {table} + bonus {new}: {_signed(table + new)}"
    return why
