"""What the bot tests and ``benchmarks/bot_quality.py`` read off finished games: first targets,
the uniform draw they are compared with, and a chi-square p-value (no scipy needed)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

from arena.engine import Event, Game

Pick = tuple[str, list[str]]  # (the one picked, everyone who could have been)


def chi2_sf(stat: float, dof: int) -> float:
    """P(a chi-square variable with ``dof`` degrees of freedom exceeds ``stat``): the regularized
    upper incomplete gamma Q(dof/2, stat/2), by its series below a + 1 and its continued fraction
    above (Numerical Recipes, 6.2)."""
    if stat <= 0.0:
        return 1.0
    a, x = dof / 2.0, stat / 2.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        n = a
        while abs(term) > abs(total) * 1e-15:
            n += 1.0
            term *= x / n
            total += term
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return math.exp(log_front) * h


def uniform_p(picks: Iterable[Pick], seats: Sequence[str]) -> float:
    """Chi-square p-value of the picks per seat against each pick drawn uniformly among its pool
    (expected count of a seat = the sum over picks of 1 / pool size where it was in the pool)."""
    observed: Counter[str] = Counter()
    expected: Counter[str] = Counter()
    for target, pool in picks:
        observed[target] += 1
        for s in pool:
            expected[s] += 1.0 / len(pool)
    cells = [s for s in seats if expected[s] > 0]
    stat = sum((observed[s] - expected[s]) ** 2 / expected[s] for s in cells)
    return chi2_sf(stat, len(cells) - 1) if len(cells) > 1 else 1.0


def seat_share(picks: Iterable[Pick], seat: str) -> tuple[float, float]:
    """(how often ``seat`` was picked when it could be, the share a uniform draw would give)."""
    hits = games = 0
    expect = 0.0
    for target, pool in picks:
        if seat in pool:
            games += 1
            hits += target == seat
            expect += 1.0 / len(pool)
    return hits / max(games, 1), expect / max(games, 1)


def _action(e: Event):
    return e.data.get("action") if e.type == "action" else None


def first_night_targets(game: Game) -> dict[str, Pick]:
    """Per chooser (``mafia``, each other killing role, ``mistress`` for a visit): the first night
    target and the players it could choose among (the living outside the chooser's team, itself
    excluded)."""
    out: dict[str, Pick] = {}
    living = set(game.seats)
    for e in game.log:
        if e.type == "death":
            living.discard(e.data["player"])
        action = _action(e)
        if action is None or action.kind not in ("kill", "visit") or action.target is None:
            continue
        actor = e.actor
        team = game.team(actor)
        who = "mistress" if action.kind == "visit" else "mafia" if team == "mafia" else game.role_of[actor]
        if who not in out:
            pool = [n for n in game.seats if n in living and n != actor and (team != "mafia" or game.team(n) != "mafia")]
            out[who] = (action.target, pool)
    return out


def first_accusation(game: Game) -> Pick | None:
    """The game's first accusation (or nomination) and everyone the accuser could have named."""
    living = set(game.seats)
    immune: set[str] = set()
    for e in game.log:
        if e.type == "death":
            living.discard(e.data["player"])
        elif e.type == "morning":
            immune = {e.data["immune"]} if e.data.get("immune") else set()
        action = _action(e)
        if action is None or action.kind != "speak":
            continue
        target = getattr(action, "accuse", None) or getattr(action, "nominate", None)
        if target:
            return target, [n for n in game.seats if n in living and n != e.actor and n not in immune]
    return None


def first_mckay_target(game: Game) -> Pick | None:
    """McKay: the first player a kill or a placed card names, and the two the actor could name."""
    for e in game.log:
        action = _action(e)
        if action is None:
            continue
        target = action.target if action.kind == "kill" else action.slot if action.kind == "place_card" else None
        if target in game.seats:
            return target, [s for s in game.seats if s != e.actor]
    return None


def say_vote_pairs(game: Game, team: str = "town") -> list[tuple[bool, str, str]]:
    """(agreed, speaker, what was said) for each stance a ``team`` seat took in public on a player
    and its next vote on that player the same day: an accusation (or nomination) and a floor
    speech doubting him (thought "Doubt X") are against him (a yes, or a vote for him, agrees); a
    floor speech backing him ("Back X") is for him (a no agrees); a claimed check is against its
    target when it says "mafia", for him when it says "not mafia" (issue 30.10). A hedged remark
    ("X worries me, not enough to accuse") takes no stance. ``what`` starts with the kind of
    stance: "accused", "claimed", "Back", "Doubt"."""
    stances: dict[tuple[str, int, str], tuple[bool, str]] = {}  # (speaker, day, player) -> (against, what)
    pairs: list[tuple[bool, str, str]] = []
    for e in game.log:
        if e.type != "action" or e.actor is None or game.team(e.actor) != team:
            continue
        action = e.data["action"]
        thought = action.thought or ""
        if action.kind == "speak":
            target = getattr(action, "accuse", None) or getattr(action, "nominate", None)
            claim = getattr(action, "claim", None)
            for checked, result in claim.checks.items() if claim is not None else ():
                # a claimed check is a stance too: "mafia" against him, "not mafia" for him
                stances[(e.actor, e.day, checked)] = (result == "mafia", f"claimed {checked} {result}")
            if target:
                stances[(e.actor, e.day, target)] = (True, f"accused {target}")
            elif thought.startswith(("Back ", "Doubt ")):
                name = thought.split()[1].rstrip(".")
                stances[(e.actor, e.day, name)] = (thought.startswith("Doubt"), thought)
        elif action.kind == "verdict":
            accused = (_result_after(game, e) or {}).get("accused")
            key = (e.actor, e.day, accused)
            if accused is not None and key in stances:
                against, what = stances.pop(key)
                pairs.append((action.yes == against, e.actor, f"{what} / voted {'yes' if action.yes else 'no'}"))
        elif action.kind == "vote":  # a choice among candidates (cove): my stance on each of them
            candidates = (_result_after(game, e) or {}).get("candidates", ())
            # one vote, several players spoken against: a vote for any of them keeps my word
            spoken = {n for n in candidates if stances.get((e.actor, e.day, n), (False,))[0]}
            for name in candidates:
                key = (e.actor, e.day, name)
                if key in stances:
                    against, what = stances.pop(key)
                    chose = action.target == name or (against and action.target in spoken)
                    pairs.append((chose == against, e.actor, f"{what} / voted {action.target or 'nobody'}"))
    return pairs


def _result_after(game: Game, action_event: Event) -> dict | None:
    """The vote result the answer ``action_event`` went into: the next one in the log."""
    for e in game.log[action_event.seq :]:
        if e.type == "vote_result":
            return e.data
    return None
