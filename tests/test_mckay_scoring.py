"""Every row of every McKay scoring table (rules/mckay.md), written out from the page.

The expected numbers are copied from the page, not read back from ``scoring``'s tables, so a
wrong table entry fails here.
"""

from __future__ import annotations

import pytest

from arena.variants.mckay.scoring import COP, KILL, MAFIA, SIMULTANEOUS, TP, VOTE, HandDeath, duel_hand, trio_hand

M, C, T = MAFIA, COP, TP


def _duel_kill(killer_card: str, victim_card: str, victim_declared: bool, killer_declared: bool = False):
    cards = {"K": killer_card, "V": victim_card}
    declared = [n for n, d in (("K", killer_declared), ("V", victim_declared)) if d]
    return duel_hand(cards, declared, [HandDeath("V", ("K",), KILL)], ["K"], {"K": 2, "V": 3})


# (killer, victim, victim declared cop, points before the multiplier) — the page's good-kill table
GOOD = [
    (M, T, False, 2),
    (T, M, False, 3),
    (M, T, True, 4),
    (M, C, True, 5),
    (M, C, False, 5),  # "cop (declared or not)"
    (T, M, True, 5),
    (C, M, False, 5),
    (C, M, True, 6),
]


@pytest.mark.parametrize(("killer", "victim", "claimed", "base"), GOOD)
def test_good_kill_raises_the_killer_bonus_first_then_multiplies(killer, victim, claimed, base) -> None:
    points, bonus = _duel_kill(killer, victim, claimed)
    assert bonus == {"K": 3, "V": 0}
    assert points == {"K": base * 3, "V": 0}


def test_an_undeclared_cop_killer_scores_as_the_cop() -> None:
    for declared in (False, True):
        points, _ = _duel_kill(C, M, False, killer_declared=declared)
        assert points["K"] == 5 * 3


# the page's bad-kill table
BAD = [
    (T, T, True, -3),
    (C, T, True, -4),
    (T, T, False, -5),
    (T, C, False, -8),
    (T, C, True, -8),
    (C, T, False, -10),
    (M, M, False, -12),
    (M, M, True, -20),
]


@pytest.mark.parametrize(("killer", "victim", "claimed", "flat"), BAD)
def test_bad_kill_resets_the_killer_bonus_and_is_flat(killer, victim, claimed, flat) -> None:
    points, bonus = _duel_kill(killer, victim, claimed)
    assert points == {"K": flat, "V": 0}
    assert bonus == {"K": 0, "V": 4}


def test_the_killers_own_false_claim_changes_nothing() -> None:
    assert _duel_kill(T, M, False, killer_declared=True)[0]["K"] == 3 * 3
    assert _duel_kill(M, M, False, killer_declared=True)[0]["K"] == -12


@pytest.mark.parametrize(("card", "flat"), [(M, 2), (C, -2), (T, 0)])
def test_nobody_dies_flat_points_and_every_bonus_up(card: str, flat: int) -> None:
    other = T if card != T else M
    points, bonus = duel_hand({"A": card, "B": other}, ["A"], [], ["A", "B"], {"A": 4, "B": 0})
    assert points["A"] == flat  # no multiplier, declared or not
    assert bonus == {"A": 5, "B": 1}


def test_duel3_all_three_alive_is_nobody_dies() -> None:
    cards = {"A": M, "B": C, "C": T}
    points, bonus = duel_hand(cards, [], [], list(cards), dict.fromkeys(cards, 1))
    assert points == {"A": 2, "B": -2, "C": 0}
    assert bonus == dict.fromkeys(cards, 2)


def test_simultaneous_kills_score_nothing_and_reset_both_bonuses() -> None:
    deaths = [HandDeath("A", ("B",), SIMULTANEOUS), HandDeath("B", ("A",), SIMULTANEOUS)]
    points, bonus = duel_hand({"A": M, "B": T}, [], deaths, [], {"A": 2, "B": 3})
    assert points == {"A": 0, "B": 0}
    assert bonus == {"A": 0, "B": 0}


def test_the_seed_sample_lenny_vs_karl() -> None:
    """Seed 000's three hands, scored one after another with the bonuses carried over."""
    bonus = {"Lenny": 0, "Karl": 0}
    totals = {"Lenny": 0, "Karl": 0}
    hands = [
        ({"Lenny": M, "Karl": T}, []),  # Karl (TP) kills Lenny (mafia)
        ({"Lenny": M, "Karl": T}, ["Lenny"]),  # Lenny declared cop with the mafia card
        ({"Lenny": T, "Karl": C}, ["Karl"]),  # Karl declares (truly) and kills Lenny (TP)
    ]
    seen = []
    for cards, declared in hands:
        points, bonus = duel_hand(cards, declared, [HandDeath("Lenny", ("Karl",), KILL)], ["Karl"], bonus)
        totals = {n: totals[n] + points[n] for n in totals}
        seen.append((points["Karl"], totals["Karl"], bonus["Karl"], bonus["Lenny"]))
    # (Karl's points, Karl's total, Karl's bonus, Lenny's bonus) after each hand, as the seed tells it
    assert seen == [(3, 3, 1, 0), (10, 13, 2, 0), (-10, 3, 0, 1)]
    assert totals == {"Lenny": 0, "Karl": 3}


# duel3 survivors: (one card, the other, points of the first, points of the second)
PAIRS = [
    (T, T, 2, 2),
    (T, C, 2, 3),
    (C, M, 0, 0),
    (M, M, 8, 8),
    (M, T, 4, 0),
]


@pytest.mark.parametrize(("first", "second", "p1", "p2"), PAIRS)
def test_duel3_two_survivors_after_the_death_scoring(first, second, p1, p2) -> None:
    # The dead player is a TP killed by "A" (first): scored first by the kill table.
    cards = {"A": first, "B": second, "D": T}
    points, bonus = duel_hand(cards, [], [HandDeath("D", ("A",), KILL)], ["A", "B"], {"A": 1, "B": 1, "D": 2})
    kill = {(M, T): ("good", 2), (T, T): ("bad", -5), (C, T): ("bad", -10)}[(first, T)]
    if kill[0] == "good":
        assert bonus["A"] == 3 and points["A"] == kill[1] * 2 + p1
    else:
        assert bonus["A"] == 1 and points["A"] == kill[1] + p1  # reset to 0, then +1 as survivor
    assert points["B"] == p2 and bonus["B"] == 2
    assert points["D"] == 0


def test_duel3_deaths_in_order_then_one_survivor_scores_nothing_more() -> None:
    cards = {"A": C, "B": M, "D": T}
    deaths = [HandDeath("D", ("B",), KILL), HandDeath("B", ("A",), KILL)]
    points, bonus = duel_hand(cards, ["A"], deaths, ["A"], {"A": 0, "B": 1, "D": 1})
    assert points == {"A": 5 * 1, "B": 2 * 2, "D": 0}  # B's bonus rose to 2 before he died
    assert bonus == {"A": 1, "B": 0, "D": 0}


# ---- trio ------------------------------------------------------------------------------------
def _trio(cards, alive, deaths=(), declared=(), bonus=None):
    return trio_hand(cards, list(declared), list(deaths), list(alive), bonus or dict.fromkeys(cards, 0))


def _table(cards, alive, deaths=(), declared=()):
    """Points without the bonus (survivors get +1 from a bonus of 0)."""
    points, bonus = _trio(cards, alive, deaths, declared)
    return {n: points[n] - bonus[n] for n in cards}


def test_mafia_beside_a_cop_and_a_tp() -> None:
    assert _table({"A": M, "B": C, "C": T}, "ABC")["A"] == 1


def test_mafia_alone() -> None:
    deaths = [HandDeath("B", ("A", "C"), VOTE, 1), HandDeath("C", ("A",), KILL, 2)]
    assert _table({"A": M, "B": T, "C": C}, "A", deaths)["A"] == 3


def test_mafia_with_the_other_mafia_alive() -> None:
    assert _table({"A": M, "B": M, "C": T}, "AB", [HandDeath("C", ("A", "B"), VOTE, 1)]) == {"A": 5, "B": 5, "C": 0}
    assert _table({"A": M, "B": M, "C": C}, "ABC") == {"A": 5, "B": 5, "C": 0}
    assert _table({"A": M, "B": M, "C": T}, "ABC") == {"A": 5, "B": 5, "C": 0}


def test_mafia_who_killed_a_mafia_in_round_2_scores_0() -> None:
    deaths = [HandDeath("C", ("A", "B"), VOTE, 1), HandDeath("B", ("A",), KILL, 2)]
    assert _table({"A": M, "B": M, "C": T}, "A", deaths)["A"] == 0


def test_a_mafia_killed_in_round_1_does_not_zero_the_mafia_killer() -> None:
    deaths = [HandDeath("B", ("A", "C"), VOTE, 1), HandDeath("C", ("A",), KILL, 2)]
    assert _table({"A": M, "B": M, "C": C}, "A", deaths)["A"] == 3


def test_mafia_beside_two_tps_scores_0_taken_literally() -> None:
    assert _table({"A": M, "B": T, "C": T}, "ABC")["A"] == 0


def test_tp_alone() -> None:
    deaths = [HandDeath("B", ("A", "C"), VOTE, 1), HandDeath("C", ("A",), KILL, 2)]
    assert _table({"A": T, "B": M, "C": M}, "A", deaths)["A"] == 1


def test_tp_with_a_cop_or_a_tp_alive() -> None:
    assert _table({"A": T, "B": C, "C": M}, "AB", [HandDeath("C", ("A", "B"), VOTE, 1)])["A"] == 2
    assert _table({"A": T, "B": T, "C": M}, "AB", [HandDeath("C", ("A", "B"), VOTE, 1)])["A"] == 2


def test_tp_with_a_cop_and_a_tp_alive() -> None:
    assert _table({"A": T, "B": T, "C": C}, "ABC")["A"] == 3


def test_tp_with_a_mafia_alive_scores_0() -> None:
    assert _table({"A": T, "B": M, "C": C}, "AB", [HandDeath("C", ("A", "B"), VOTE, 1)])["A"] == 0
    assert _table({"A": T, "B": C, "C": M}, "ABC")["A"] == 0


def test_declared_cop_alone() -> None:
    deaths = [HandDeath("B", ("A", "C"), VOTE, 1), HandDeath("C", ("A",), KILL, 2)]
    assert _table({"A": C, "B": M, "C": M}, "A", deaths, declared="A")["A"] == 2


def test_declared_cop_with_one_tp_alive() -> None:
    assert _table({"A": C, "B": T, "C": M}, "AB", [HandDeath("C", ("A", "B"), VOTE, 1)], declared="A")["A"] == 3


def test_declared_cop_with_two_tps_alive() -> None:
    assert _table({"A": C, "B": T, "C": T}, "ABC", declared="A")["A"] == 5


def test_cop_who_killed_a_tp_scores_0_in_either_round() -> None:
    round1 = [HandDeath("B", ("A", "C"), VOTE, 1)]
    assert _table({"A": C, "B": T, "C": T}, "AC", round1, declared="A")["A"] == 0
    round2 = [HandDeath("C", ("A", "B"), VOTE, 1), HandDeath("B", ("A",), KILL, 2)]
    assert _table({"A": C, "B": T, "C": M}, "A", round2, declared="A")["A"] == 0


def test_declared_cop_with_a_mafia_alive_scores_0() -> None:
    assert _table({"A": C, "B": M, "C": T}, "AB", [HandDeath("C", ("A", "B"), VOTE, 1)], declared="A")["A"] == 0


def test_an_undeclared_cop_scores_as_a_tp() -> None:
    assert _table({"A": C, "B": T, "C": M}, "AB", [HandDeath("C", ("A", "B"), VOTE, 1)])["A"] == 2  # not 3
    assert _table({"A": C, "B": T, "C": T}, "ABC")["A"] == 2  # not 5
    round1 = [HandDeath("B", ("A", "C"), VOTE, 1)]
    assert _table({"A": C, "B": T, "C": T}, "AC", round1)["A"] == 2  # the cop-killed-a-TP rule is the cop's


def test_tp_killed_in_round_1_by_the_cop_and_the_other_tp_scores_4() -> None:
    deaths = [HandDeath("A", ("B", "C"), VOTE, 1)]
    assert _table({"A": T, "B": C, "C": T}, "BC", deaths)["A"] == 4
    assert _table({"A": T, "B": C, "C": T}, "BC", deaths, declared="B")["A"] == 4  # declared or not


def test_declared_cop_killed_in_round_1_by_the_two_tps_scores_4() -> None:
    deaths = [HandDeath("A", ("B", "C"), VOTE, 1)]
    assert _table({"A": C, "B": T, "C": T}, "BC", deaths, declared="A")["A"] == 4
    assert _table({"A": C, "B": T, "C": T}, "BC", deaths)["A"] == 0  # undeclared: a TP, killed by two TPs


def test_other_dead_players_score_0() -> None:
    assert _table({"A": T, "B": M, "C": T}, "BC", [HandDeath("A", ("B", "C"), VOTE, 1)])["A"] == 0
    deaths = [HandDeath("C", ("A", "B"), VOTE, 1), HandDeath("A", ("B",), KILL, 2)]
    assert _table({"A": T, "B": C, "C": M}, "B", deaths, declared="B")["A"] == 0  # round 2: no exception


def test_bonus_survivor_up_one_capped_at_3() -> None:
    cards = {"A": T, "B": T, "C": C}
    points, bonus = _trio(cards, "ABC", bonus={"A": 0, "B": 2, "C": 3})
    assert bonus == {"A": 1, "B": 3, "C": 3}
    assert points == {"A": 3 + 1, "B": 3 + 3, "C": 2 + 3}  # the undeclared cop scores as a TP: 2


def test_bonus_of_the_dead_depends_on_the_killers_clans() -> None:
    cards = {"A": T, "B": C, "C": M}
    own = [HandDeath("A", ("B", "C"), VOTE, 1)]  # one killer of his own clan: unchanged
    points, bonus = _trio(cards, "BC", own, bonus={"A": 2, "B": 0, "C": 0})
    assert bonus["A"] == 2 and points["A"] == 0 + 2  # a dead player can still score
    other = [HandDeath("B", ("A", "C"), VOTE, 1), HandDeath("A", ("C",), KILL, 2)]  # mafia only
    points, bonus = _trio(cards, "C", other, bonus={"A": 2, "B": 1, "C": 0})
    assert bonus["A"] == 0 and points["A"] == 0
    assert bonus["B"] == 1  # B's killers: the TP (own clan) and the mafia


def test_the_2008_example_hand() -> None:
    cards = {"P1": M, "P2": T, "P3": C}
    points, bonus = _trio(cards, ["P2", "P3"], [HandDeath("P1", ("P2", "P3"), VOTE, 1)], declared=["P3"])
    assert points == {"P1": 0, "P2": 3, "P3": 4}
    assert bonus == {"P1": 0, "P2": 1, "P3": 1}
