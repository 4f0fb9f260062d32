"""``duel`` and ``duel3``: kill, declare and look, handshake or wait, by expected value.

Every beat the bot lists what the opponents may hold (the deck less its own card and the cards
it looked at, weighted by how each opponent has played this hand against its habits), values
each ending of the hand with the real score tables, and plans the rest of the clock
(:mod:`.plan`): kill now, offer a handshake, wait, or declare cop and look first. A declaration
is valued like any move: the look it buys (the card seen changes the odds of the opponent's
card) against the risk it brings (a "player pretending to be the cop" is worth more to kill, and
opponents who have been seen to shoot declarers do so again). So a real cop declares at once and
shoots a mafia it has pinned down; a mafia or a townsperson fakes the claim only when the look is
worth that risk.

``duel3`` adds the three-handed opening (:class:`Melee`): either opponent may kill either other
player, kills apply in an order nobody knows, and the first death leaves a duel whose endings
are scored together with that death.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from arena.engine import ActionBase, DecisionRequest
from arena.engine.actions import DeclareCop, Handshake, Kill, Pass, Peek
from arena.variants.mckay.scoring import COP, KILL, SIMULTANEOUS, HandDeath, duel_hand

from ...legal import choices
from . import words
from .common import McKayStrategy
from .plan import Stance, after_look, per_world, plan
from .table import Table

Worlds = list[tuple[dict[str, str], float]]

#: per card, what a player does in a beat before the bot has seen it play: (kill, shake, declare)
#: by situation: nobody declared yet / it declared / someone else did
OPEN = {"townsperson": (0.04, 0.30, 0.06), "mafia": (0.06, 0.35, 0.10), "cop": (0.02, 0.05, 0.60)}
SELF = {"townsperson": (0.15, 0.25, 0.0), "mafia": (0.20, 0.25, 0.0), "cop": (0.25, 0.10, 0.0)}
# facing a declarer, a townsperson may see mafia pretending (+5) and a mafia a cop (+5): more shots
OTHER = {"townsperson": (0.12, 0.30, 0.0), "mafia": (0.20, 0.30, 0.0), "cop": (0.15, 0.15, 0.0)}
#: the declarer's second look, once there is a death (duel3)
PEEK = 0.3
#: share of a three-handed kill aimed at me rather than at the third player (before seeing any)
AT_ME = 0.5


def context_for(declarer: str | None, opponent: str, me: str, three: bool) -> str:
    kind = "open" if declarer is None else "self" if declarer == opponent else "me" if declarer == me else "other"
    return kind + ("3" if three else "")


def duel_prior(context: str, card: str) -> Mapping[str, float]:
    three = context.endswith("3")
    kind = context.rstrip("3")
    table = OPEN if kind == "open" else SELF if kind == "self" else OTHER
    kill, shake, declare = table[card]
    out = {"shake": shake, "declare": declare}
    if three:
        out["kill_me"] = kill * AT_ME
        out["kill_other"] = kill * (1.0 - AT_ME)
    else:
        out["kill_me"] = kill
    if kind == "self" and not three:
        out["peek"] = PEEK
    out["idle"] = max(0.0, 1.0 - sum(out.values()))
    return out


def duel_context(table: Table, opponent: str) -> str:
    hand = table.hand
    declarer = hand.declarers[0] if hand.declarers else None
    living = sum(1 for s in table.seats if s not in hand.dead)
    return context_for(declarer, opponent, table.me, living > 2)


class DuelStrategy(McKayStrategy):
    variant: ClassVar[str] = "duel"
    scoring = staticmethod(duel_hand)
    prior = staticmethod(duel_prior)
    context = staticmethod(duel_context)

    #: base points of good kills a player makes per hand, before the match has shown any
    prior_good: ClassVar[float] = 1.0

    def worth(self, name: str) -> float:
        """A multiplier point pays the base points of each good kill ``name`` makes while it lasts
        (this hand's kill is already scored): its rate of good kills times the hands it lasts."""
        table = self.table
        if table.hands_left == 0:
            return 0.0
        rate = (table.good[name] + self.prior_good * self.prior_hands) / (table.played + self.prior_hands)
        return rate * (1.0 + sum(self.kept(name)[:-1]))

    # ---- two players left -----------------------------------------------------------------
    def stances(
        self, worlds: Worlds, card: str, opp: str, declared: Sequence[str], context: str, before: tuple = ()
    ) -> list[Stance]:
        """Each world's endings between me and ``opp``, after the deaths ``before``."""
        me = self.me
        living = (me, opp)
        habits = self.table.habits
        out = []
        for world, weight in worlds:
            cards = {me: card, **world}
            held = world[opp]
            out.append(
                Stance(
                    weight=weight,
                    kill=self.value(cards, declared, (*before, HandDeath(opp, (me,), KILL)), (me,)),
                    killed=self.value(cards, declared, (*before, HandDeath(me, (opp,), KILL)), (opp,)),
                    both=self.value(
                        cards, declared, (*before, HandDeath(opp, (me,), SIMULTANEOUS), HandDeath(me, (opp,), SIMULTANEOUS)), ()
                    ),
                    peace=self.value(cards, declared, before, living),
                    hazard=habits.p(opp, held, context, "kill_me"),
                    offer=habits.p(opp, held, context, "shake"),
                )
            )
        return out

    def two_handed(self, request: DecisionRequest, card: str, opp: str, worlds: Worlds) -> dict[str, float]:
        table = self.table
        hand = table.hand
        beats = request.clock.left if request.clock is not None else 1
        declarer = hand.declarers[0] if hand.declarers else None
        declared = tuple(hand.declarers)
        before = tuple(hand.deaths)
        stances = self.stances(worlds, card, opp, declared, context_for(declarer, opp, self.me, False), before)
        standing = hand.offers.get(opp) == table.beat - 1
        totals = plan(stances, beats, standing).totals()
        values = {f"kill:{opp}": totals["kill"], "shake": totals["shake"], "hold": totals["hold"]}
        odds = [table.look_odds(card, world) for world, _ in worlds]
        if request.option("declare_cop") is not None and table.unseen_positions():
            after = self.stances(worlds, card, opp, (*declared, self.me), context_for(self.me, opp, self.me, False), before)
            values["declare"] = after_look(after, odds, beats)
        if request.option("peek") is not None and choices(request, "peek", "position"):
            values["peek"] = after_look(stances, odds, beats)
        return values

    # ---- answering -------------------------------------------------------------------------
    def beat(self, request: DecisionRequest) -> ActionBase:
        table = self.table
        card = request.role
        rivals = [o for o in table.opponents if o in request.alive]
        worlds = table.worlds(card)
        if not worlds:  # the cards seen contradict the deck: nothing to weigh
            return Pass()
        values = (
            self.two_handed(request, card, rivals[0], worlds) if len(rivals) == 1 else self.three_handed(request, card, worlds)
        )
        return self.act(request, card, values, worlds)

    def three_handed(self, request: DecisionRequest, card: str, worlds: Worlds) -> dict[str, float]:
        table = self.table
        beats = request.clock.left if request.clock is not None else 1
        declared = tuple(table.hand.declarers)
        melee = Melee(self, card, worlds, declared, beats)
        values = melee.first_beat()
        if request.option("declare_cop") is not None and table.unseen_positions():
            after = Melee(self, card, worlds, (*declared, self.me), beats)
            odds = [table.look_odds(card, world) for world, _ in worlds]
            values["declare"] = after.after_look(odds)
        return values

    def offer_unanswerable(self, request: DecisionRequest) -> bool:
        """Is this the round's last beat with some living opponent not offering already? Then a
        handshake offer could only be answered in a beat that never comes: it is not made."""
        clock = request.clock
        if clock is None or clock.left > 1:
            return False
        table = self.table
        standing = table.hand.offers
        return any(standing.get(o) != table.beat - 1 for o in table.opponents if o in request.alive)

    def act(self, request: DecisionRequest, card: str, values: dict[str, float], worlds: Worlds) -> ActionBase:
        """The move of highest value, with its words and the reasoning behind it."""
        if "shake" in values and self.offer_unanswerable(request):
            del values["shake"]
        best = self.best_move(values)
        beliefs = self.marginals(worlds)
        thought = words.thought(best, values, beliefs)
        rng = self.rng
        if best.startswith("kill:"):
            target = best.split(":", 1)[1]
            guess = max(beliefs[target], key=lambda c: beliefs[target][c])
            return Kill(target=target, speech=words.kill_text(rng, target, guess), thought=thought)
        if best == "declare":
            positions = self.table.unseen_positions()
            position = positions[rng.randrange(len(positions))]
            lie = "" if card == COP else " (a lie: I am not the cop)"
            return DeclareCop(position=position, speech=words.declare_text(rng, position), thought=thought + lie)
        suspect = self.suspect(beliefs)
        if best == "shake":
            speech, note = self.say(card, lambda claim: words.peace_text(rng, claim), claims=True)
            return Handshake(speech=speech, thought=words.join(thought, note))
        speech, note = self.say(card, lambda claim: words.wait_text(rng, claim, suspect), claims=True)
        if best == "peek":
            options = choices(request, "peek", "position")
            position = options[rng.randrange(len(options))]
            return Peek(position=position, speech=speech, thought=words.join(thought, note))
        return Pass(speech=speech, thought=words.join(thought, note))


class Melee:
    """duel3 while all three live: the value of each first move, per world, over the clock.

    Per beat and world, each opponent kills me, kills the third player or offers a handshake at
    its habitual rates; kills land in an order nobody knows (so a shot of mine is pre-empted half
    the time by a shot that comes in the same beat). The first death leaves a duel whose value is
    planned once, as :func:`.plan.plan` would play it, with that death scored in.
    """

    def __init__(self, strategy: DuelStrategy, card: str, worlds: Worlds, declared: Sequence[str], beats: int) -> None:
        self.s = strategy
        self.card = card
        self.worlds = worlds
        self.declared = tuple(declared)
        self.beats = beats
        me = strategy.me
        table = strategy.table
        self.x, self.y = (o for o in table.opponents)
        declarer = self.declared[0] if self.declared else None
        habits = table.habits
        x, y = self.x, self.y
        cx, cy = context_for(declarer, x, me, True), context_for(declarer, y, me, True)
        self.rates = []
        for world, _ in worlds:
            a, b = world[x], world[y]
            self.rates.append(
                (
                    habits.p(x, a, cx, "kill_me"), habits.p(x, a, cx, "kill_other"), habits.p(x, a, cx, "shake"),
                    habits.p(y, b, cy, "kill_me"), habits.p(y, b, cy, "kill_other"), habits.p(y, b, cy, "shake"),
                )
            )  # fmt: skip
        value = strategy.value
        everyone = (me, x, y)
        self.peace, self.killed_by_x, self.killed_by_y = [], [], []
        self.x_then_me, self.y_then_me = [], []  # I shoot x, then y shoots me (and the mirror)
        self.y_then_x, self.x_then_y = [], []  # x shoots y, then I shoot x (and the mirror)
        for world, _ in worlds:
            cards = {me: card, **world}
            self.peace.append(value(cards, self.declared, (), everyone))
            self.killed_by_x.append(value(cards, self.declared, (HandDeath(me, (x,), KILL),), (x, y)))
            self.killed_by_y.append(value(cards, self.declared, (HandDeath(me, (y,), KILL),), (x, y)))
            self.x_then_me.append(value(cards, self.declared, (HandDeath(x, (me,), KILL), HandDeath(me, (y,), KILL)), (y,)))
            self.y_then_me.append(value(cards, self.declared, (HandDeath(y, (me,), KILL), HandDeath(me, (x,), KILL)), (x,)))
            self.y_then_x.append(value(cards, self.declared, (HandDeath(y, (x,), KILL), HandDeath(x, (me,), KILL)), (me,)))
            self.x_then_y.append(value(cards, self.declared, (HandDeath(x, (y,), KILL), HandDeath(y, (me,), KILL)), (me,)))
        # the duels left by a first death (victim, killer), played from the next beat
        self.final = {
            (victim, killer): self._final(victim, killer)
            for victim, killer in ((x, me), (y, me), (x, y), (y, x))
        }  # fmt: skip
        n = range(len(worlds))
        self.events = {offering: [self._events(i, offering) for i in n] for offering in (True, False)}
        self.shots = {t: [self._shoot(i, t) for i in n] for t in (x, y)}

    def _final(self, victim: str, killer: str) -> list[float]:
        """Per-world value of the duel between me and the survivor from the next beat on."""
        s = self.s
        survivor = self.x if victim == self.y else self.y
        death = (HandDeath(victim, (killer,), KILL),)
        declarer = self.declared[0] if self.declared else None
        context = context_for(declarer, survivor, s.me, False)
        stances = s.stances(self.worlds, self.card, survivor, self.declared, context, death)
        return per_world(stances, self.beats - 1)

    def _shoot(self, i: int, target: str) -> float:
        """Per unit mass of world ``i``: I shoot ``target`` in this beat."""
        kx, ox, _, ky, oy, _ = self.rates[i]
        x, y, me = self.x, self.y, self.s.me
        if target == x:
            before_me = 0.5 * kx + 0.5 * ky  # shot first, my kill is void
            after_me = 0.5 * ky  # y shoots me after my shot lands
            preempt = 0.5 * oy  # y kills x first
            chain = 0.5 * ox  # x kills y first, then my shot lands on x
            rest = max(0.0, 1.0 - before_me - after_me - preempt - chain)
            return (
                0.5 * kx * self.killed_by_x[i] + 0.5 * ky * self.killed_by_y[i] + after_me * self.x_then_me[i]
                + preempt * self.final[(x, y)][i] + chain * self.y_then_x[i] + rest * self.final[(x, me)][i]
            )  # fmt: skip
        before_me = 0.5 * kx + 0.5 * ky
        after_me = 0.5 * kx
        preempt = 0.5 * ox
        chain = 0.5 * oy
        rest = max(0.0, 1.0 - before_me - after_me - preempt - chain)
        return (
            0.5 * kx * self.killed_by_x[i] + 0.5 * ky * self.killed_by_y[i] + after_me * self.y_then_me[i]
            + preempt * self.final[(y, x)][i] + chain * self.x_then_y[i] + rest * self.final[(y, me)][i]
        )  # fmt: skip

    def _events(self, i: int, offering: bool) -> tuple[float, float]:
        """Per unit mass of world ``i`` in a beat I do not shoot: (value of what ends it, P(nothing does))."""
        kx, ox, ax, ky, oy, ay = self.rates[i]
        shake = ax * ay if offering else 0.0
        total = kx + ky + ox + oy + shake
        scale = 1.0 / total if total > 1.0 else 1.0
        ended = (
            kx * self.killed_by_x[i] + ky * self.killed_by_y[i] + ox * self.final[(self.y, self.x)][i]
            + oy * self.final[(self.x, self.y)][i] + shake * self.peace[i]
        )  # fmt: skip
        return ended * scale, max(0.0, 1.0 - total * scale)

    def chain(self, mass: Sequence[float], beats: int, offering: bool) -> float:
        """The best play over ``beats`` beats from ``mass``: shoot either opponent at some beat, or
        keep waiting (offering a handshake or not) until time runs out."""
        events = self.events[offering]
        path = [list(mass)]
        for _ in range(beats):
            path.append([m * events[i][1] for i, m in enumerate(path[-1])])
        value = sum(m * self.peace[i] for i, m in enumerate(path[beats]))
        for level in range(beats - 1, -1, -1):
            mass_l = path[level]
            wait = sum(m * events[i][0] for i, m in enumerate(mass_l)) + value
            shoot = max(sum(m * shots[i] for i, m in enumerate(mass_l)) for shots in self.shots.values())
            value = max(wait, shoot)
        return value

    def first_beat(self) -> dict[str, float]:
        mass = [w for _, w in self.worlds]
        out = {f"kill:{t}": sum(m * shots[i] for i, m in enumerate(mass)) for t, shots in self.shots.items()}
        rest = self.beats - 1
        for name, offering in (("shake", True), ("hold", False)):
            events = self.events[offering]
            ended = sum(m * events[i][0] for i, m in enumerate(mass))
            after = [m * events[i][1] for i, m in enumerate(mass)]
            if rest <= 0:
                out[name] = ended + sum(m * self.peace[i] for i, m in enumerate(after))
            else:
                out[name] = ended + max(self.chain(after, rest, True), self.chain(after, rest, False))
        return out

    def after_look(self, odds: Sequence[Mapping[str, float]]) -> float:
        """This beat spent declaring and looking (no shot, no offer), then the best play with the card seen."""
        total = 0.0
        rest = self.beats - 1
        for seen in sorted({c for o in odds for c in o}):
            mass = [w * o.get(seen, 0.0) for (_, w), o in zip(self.worlds, odds, strict=True)]
            if sum(mass) <= 0.0:
                continue
            events = self.events[False]
            ended = sum(m * events[i][0] for i, m in enumerate(mass))
            after = [m * events[i][1] for i, m in enumerate(mass)]
            if rest <= 0:
                total += ended + sum(m * self.peace[i] for i, m in enumerate(after))
            else:
                total += ended + max(self.chain(after, rest, True), self.chain(after, rest, False))
        return total


class Duel3Strategy(DuelStrategy):
    variant: ClassVar[str] = "duel3"
