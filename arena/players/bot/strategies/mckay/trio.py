"""``trio``: where to lay the card, whether to declare, and the round-2 showdown, by expected value.

Round 1 is a game of joining: a player dies only when the other two cards lie on him, so my card
decides whether a card already lying on someone becomes a death. For each place my card can go
the bot weighs, over every deal of the opponents' cards, where their cards will lie at the end of
the beat (each opponent keeps or moves its card at its habitual rates) and what follows: a death
(scored with the real tables, together with the round-2 duel it leaves), all three cards on
no_kill (the hand ends), or another beat. Another beat is valued as if every card then kept to
its habits until one of those endings or time.

Round 2 is :func:`.plan.plan` with trio's payoffs (no_kill lying on the table is a standing offer
of peace). The cop always declares (he scores as the cop only so); anyone else declares only to be
the first, for the look at a centre card, when that look is worth a beat.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from arena.engine import ActionBase, DecisionRequest
from arena.engine.actions import Continue, DeclareCop, Judge, Kill, Pass, PlaceCard, Retract, Speak
from arena.variants.mckay.scoring import COP, KILL, MAFIA, TP, VOTE, HandDeath, trio_hand

from ...legal import choices, nullable
from . import words
from .common import McKayStrategy
from .plan import Stance, after_look, per_world, plan
from .table import NO_KILL, Table

Worlds = list[tuple[dict[str, str], float]]

#: round 1, per card: on me, on the other opponent, on no_kill, back in hand, declare (else idle)
ROUND1 = {
    TP: (0.08, 0.08, 0.15, 0.04, 0.05),
    MAFIA: (0.10, 0.10, 0.12, 0.04, 0.08),
    COP: (0.08, 0.08, 0.10, 0.04, 0.40),
}
#: round 2, per card: kill me, on no_kill, back in hand, declare (else idle)
ROUND2 = {
    TP: (0.10, 0.30, 0.03, 0.02),
    MAFIA: (0.20, 0.20, 0.03, 0.04),
    COP: (0.12, 0.25, 0.03, 0.10),
}
#: the smallest gain in expected value that makes a non-cop spend a beat declaring for the look
LOOK_MARGIN = 0.05


def trio_prior(context: str, card: str) -> Mapping[str, float]:
    if context == "r1":
        on_me, on_other, no_kill, hand, declare = ROUND1[card]
        out = {"on_me": on_me, "on_other": on_other, NO_KILL: no_kill, "hand": hand, "declare": declare}
    else:
        kill, no_kill, hand, declare = ROUND2[card]
        out = {"kill_me": kill, NO_KILL: no_kill, "hand": hand, "declare": declare}
    out["idle"] = max(0.0, 1.0 - sum(out.values()))
    return out


def trio_context(table: Table, opponent: str) -> str:
    return f"r{table.hand.round}"


class TrioStrategy(McKayStrategy):
    variant: ClassVar[str] = "trio"
    scoring = staticmethod(trio_hand)
    prior = staticmethod(trio_prior)
    context = staticmethod(trio_context)

    def worth(self, name: str) -> float:
        """The bonus is added to every hand's score: a point kept pays once per hand it lasts."""
        return sum(self.kept(name))

    # ---- round 2 (and what round 1 expects of it) -------------------------------------------
    def duel_stances(self, worlds: Worlds, card: str, opp: str, declared: Sequence[str], first: HandDeath) -> list[Stance]:
        """Round 2 between me and ``opp`` after the round-1 death ``first``, world by world."""
        me = self.me
        habits = self.table.habits
        out = []
        for world, weight in worlds:
            cards = {me: card, **world}
            held = world[opp]
            kill = self.value(cards, declared, (first, HandDeath(opp, (me,), KILL, 2)), (me,))
            killed = self.value(cards, declared, (first, HandDeath(me, (opp,), KILL, 2)), (opp,))
            out.append(
                Stance(
                    weight=weight,
                    kill=kill,
                    killed=killed,
                    both=0.5 * (kill + killed),  # the dead player judges who was first
                    peace=self.value(cards, declared, (first,), (me, opp)),
                    hazard=habits.p(opp, held, "r2", "kill_me"),
                    offer=habits.p(opp, held, "r2", NO_KILL),
                )
            )
        return out

    def round2_values(self, worlds: Worlds, card: str, declared: Sequence[str]) -> dict[str, list[float]]:
        """Per opponent: the per-world value of round 2 against the other one after his death."""
        me = self.me
        x, y = self.table.opponents
        clock = self.table.hand.beats
        out = {}
        for dead, survivor in ((x, y), (y, x)):
            stances = self.duel_stances(worlds, card, survivor, declared, HandDeath(dead, (me, survivor), VOTE, 1))
            out[dead] = per_world(stances, clock)
        return out

    # ---- round 1 -----------------------------------------------------------------------------
    def moves(self, opp: str, other: str, held: str, slot: str | None) -> dict[str | None, float]:
        """Where ``opp``'s card lies at the end of this beat, by its habits when holding ``held``;
        ``slot`` is where it lies now (a beat without a move leaves it there)."""
        habits = self.table.habits
        p = {c: habits.p(opp, held, "r1", c) for c in ("on_me", "on_other", NO_KILL, "hand", "declare", "idle")}
        total = sum(p.values())
        out: dict[str | None, float] = {}
        for category, target in (("on_me", self.me), ("on_other", other), (NO_KILL, NO_KILL), ("hand", None)):
            out[target] = out.get(target, 0.0) + p[category] / total
        out[slot] = out.get(slot, 0.0) + (p["declare"] + p["idle"]) / total
        return out

    def places(self, opp: str, other: str, held: str) -> dict[str | None, float]:
        """Where ``opp``'s card lies after it has moved, whatever it lay on before: over many beats a
        card is found where its moves take it."""
        habits = self.table.habits
        p = {c: habits.p(opp, held, "r1", c) for c in ("on_me", "on_other", NO_KILL, "hand")}
        total = sum(p.values())
        return {self.me: p["on_me"] / total, other: p["on_other"] / total, NO_KILL: p[NO_KILL] / total, None: p["hand"] / total}

    def round1(
        self, card: str, worlds: Worlds, declared: Sequence[str], beats: int, after: Mapping[str, list[float]]
    ) -> dict[str | None, float]:
        """Expected value of each place for my card in this beat (then the best standing place);
        ``after``: the round-2 value per world after each opponent's death (:meth:`round2_values`)."""
        me = self.me
        table = self.table
        x, y = table.opponents
        slots = table.hand.slots
        everyone = (me, x, y)
        mine = (x, y, NO_KILL, None)
        per_world = []
        for i, (world, weight) in enumerate(worlds):
            cards = {me: card, **world}
            ends = {
                x: after[x][i],
                y: after[y][i],
                me: self.value(cards, declared, (HandDeath(me, (x, y), VOTE, 1),), (x, y)),
                NO_KILL: self.value(cards, declared, (), everyone),
            }
            per_world.append((world, weight, ends))
        # another beat: every card keeps to its habits until an ending or time (best standing place)
        standing = {s: 0.0 for s in mine}
        later: dict[str | None, list[float]] = {s: [] for s in mine}
        for world, weight, ends in per_world:
            mx = self.places(x, y, world[x])
            my = self.places(y, x, world[y])
            for s in mine:
                v = self._standing(s, mx, my, ends, beats - 1)
                later[s].append(v)
                standing[s] += weight * v
        named = {self._slot_name(s): v for s, v in standing.items()}
        best_later = self._slot(self.best_move(named))
        values = dict.fromkeys(mine, 0.0)
        for i, (world, weight, ends) in enumerate(per_world):
            mx = self.moves(x, y, world[x], slots.get(x))
            my = self.moves(y, x, world[y], slots.get(y))
            cont = later[best_later][i]
            for s in mine:
                values[s] += weight * self._beat(s, mx, my, ends, cont)
        return values

    def _endings(self, mine: str | None, mx: Mapping, my: Mapping) -> dict[str, float]:
        """P(each ending of this beat) with my card on ``mine`` and the others' cards landing by
        ``mx`` / ``my``: a player dies when the two other cards lie on him, so an opponent can die
        only under my card, and all three on no_kill ends the hand."""
        me = self.me
        x, y = self.table.opponents
        out = {me: mx.get(me, 0.0) * my.get(me, 0.0)}
        if mine == x:
            out[x] = my.get(x, 0.0)
        elif mine == y:
            out[y] = mx.get(y, 0.0)
        elif mine == NO_KILL:
            out[NO_KILL] = mx.get(NO_KILL, 0.0) * my.get(NO_KILL, 0.0)
        return out

    def _beat(self, mine: str | None, mx: Mapping, my: Mapping, ends: Mapping, cont: float) -> float:
        rates = self._endings(mine, mx, my)
        return sum(r * ends[e] for e, r in rates.items()) + (1.0 - sum(rates.values())) * cont

    def _standing(self, mine: str | None, mx: Mapping, my: Mapping, ends: Mapping, beats: int) -> float:
        """My card kept on ``mine`` while the others draw their places afresh each beat."""
        timeout = ends[NO_KILL]  # time out: all alive, as at no_kill
        if beats <= 0:
            return timeout
        rates = self._endings(mine, mx, my)
        p = sum(rates.values())
        if p <= 0.0:
            return timeout
        stay = (1.0 - p) ** beats
        per_end = sum(r * ends[e] for e, r in rates.items()) / p
        return (1.0 - stay) * per_end + stay * timeout

    # ---- answering -------------------------------------------------------------------------
    def beat(self, request: DecisionRequest) -> ActionBase:
        card = request.role
        table = self.table
        worlds = table.worlds(card)
        if not worlds:
            return Pass()
        if table.hand.round == 1:
            return self.play_round1(request, card, worlds)
        return self.play_round2(request, card, worlds)

    def declare(self, request: DecisionRequest, card: str, worlds: Worlds, values: Mapping[str, float]) -> ActionBase:
        positions = choices(request, "declare_cop", "position")
        position = positions[self.rng.randrange(len(positions))] if positions else None
        if position is None and not nullable(request, "declare_cop", "position"):
            return Pass()
        why = (
            "The cop scores as the cop only if he declares."
            if card == COP
            else "(a lie: I am not the cop; the look is worth a beat)"
        )
        thought = words.thought("declare", values, self.marginals(worlds), why)
        return DeclareCop(position=position, speech=words.declare_text(self.rng, position), thought=thought)

    def may_declare(self, request: DecisionRequest, card: str) -> bool:
        """The cop declares (he scores as the cop only so); anyone else only for the first look."""
        if request.option("declare_cop") is None:
            return False
        if card == COP:
            return True
        return bool(choices(request, "declare_cop", "position")) and bool(self.table.unseen_positions())

    def chosen(self, values: Mapping[str, float], card: str) -> str:
        """The best move; a lie about the cop's card must beat the honest moves by a margin (its
        risks are not all in the model: a second claimer draws suspicion to both)."""
        best = self.best_move(values)
        if best == "declare" and card != COP:
            honest = self.best_move(values, [k for k in values if k != "declare"])
            if values["declare"] < values[honest] + LOOK_MARGIN:
                return honest
        return best

    def play_round1(self, request: DecisionRequest, card: str, worlds: Worlds) -> ActionBase:
        table = self.table
        beats = request.clock.left if request.clock is not None else 1
        declared = tuple(table.hand.declarers)
        # the round-2 duel each death leaves, planned without knowing the world, valued per world
        after = self.round2_values(worlds, card, declared)
        raw = self.round1(card, worlds, declared, beats, after)
        values = {self._slot_name(s): v for s, v in raw.items()}
        here = table.hand.slots.get(self.me)
        if self.may_declare(request, card):
            claimed = (*declared, self.me)
            # the cop's own scoring changes with his declaration: round 2 is valued again
            later = self.round2_values(worlds, card, claimed) if card == COP else after
            if choices(request, "declare_cop", "position") and table.unseen_positions():
                values["declare"] = self.look_value(card, worlds, declared, beats, here, later)
            else:
                values["declare"] = self.round1(card, worlds, claimed, beats, later)[here]
        best = self.chosen(values, card)
        if best == "declare":
            return self.declare(request, card, worlds, values)
        beliefs = self.marginals(worlds)
        slot = None if best == "hand" else best
        speech, note = self.say(card, lambda _: words.place_text(self.rng, slot), claims=False)
        thought = words.join(words.thought(best, values, beliefs), note)
        if slot == here:
            return Pass(speech=speech, thought=thought)
        return PlaceCard(slot=slot, speech=speech, thought=thought)

    @staticmethod
    def _slot_name(slot: str | None) -> str:
        return "hand" if slot is None else slot

    @staticmethod
    def _slot(name: str) -> str | None:
        return None if name == "hand" else name

    def look_value(
        self, card: str, worlds: Worlds, declared: Sequence[str], beats: int, here: str | None, after: Mapping[str, list[float]]
    ) -> float:
        """This beat spent declaring (my card stays where it lies), then the best play with the card seen."""
        table = self.table
        odds = [table.look_odds(card, world) for world, _ in worlds]
        declared_after = (*declared, self.me)
        total = 0.0
        for seen in sorted({c for o in odds for c in o}):
            mass = [(world, w * o.get(seen, 0.0)) for (world, w), o in zip(worlds, odds, strict=True)]
            if sum(w for _, w in mass) <= 0.0:
                continue
            values = self.round1(card, mass, declared_after, beats, after)
            total += values[here]
        return total

    def play_round2(self, request: DecisionRequest, card: str, worlds: Worlds) -> ActionBase:
        table = self.table
        hand = table.hand
        opp = next(o for o in table.opponents if o in request.alive)
        beats = request.clock.left if request.clock is not None else 1
        first = hand.deaths[0]
        declared = tuple(hand.declarers)
        stances = self.duel_stances(worlds, card, opp, declared, first)
        standing = hand.slots.get(opp) == NO_KILL
        totals = plan(stances, beats, standing).totals()
        values = {f"kill:{opp}": totals["kill"], NO_KILL: totals["shake"], "wait": totals["hold"]}
        if beats <= 1 and not standing and hand.slots.get(self.me) != NO_KILL:
            del values[NO_KILL]  # the last beat: an offer of peace nobody could answer in time is not made
        if self.may_declare(request, card):
            claimed = self.duel_stances(worlds, card, opp, (*declared, self.me), first)
            if choices(request, "declare_cop", "position") and table.unseen_positions():
                odds = [table.look_odds(card, world) for world, _ in worlds]
                values["declare"] = after_look(claimed, odds, beats)
            else:
                values["declare"] = plan(claimed, beats).totals()["hold"]
        best = self.chosen(values, card)
        if best == "declare":
            return self.declare(request, card, worlds, values)
        beliefs = self.marginals(worlds)
        thought = words.thought(best, values, beliefs)
        here = hand.slots.get(self.me)
        rng = self.rng
        if best.startswith("kill:"):
            guess = max(beliefs[opp], key=lambda c: beliefs[opp][c])
            return Kill(target=opp, speech=words.kill_text(rng, opp, guess), thought=thought)
        if best == NO_KILL:
            speech, note = self.say(card, lambda _: words.place_text(rng, NO_KILL), claims=False)
            thought = words.join(thought, note)
            if here == NO_KILL:
                return Pass(speech=speech, thought=thought)
            return PlaceCard(slot=NO_KILL, speech=speech, thought=thought)
        suspect = self.suspect(beliefs)
        speech, note = self.say(card, lambda claim: words.wait_text(rng, claim, suspect), claims=True)
        thought = words.join(thought, note)
        if here == NO_KILL:  # waiting means taking the standing offer back
            return PlaceCard(slot=None, speech=speech, thought=thought)
        return Pass(speech=speech, thought=thought)

    # ---- soliloquy and judging --------------------------------------------------------------
    def soliloquy(self, request: DecisionRequest) -> ActionBase:
        killer = next((k for k, v in reversed(self.table.hand.attempts) if v == self.me), None) or "you"
        claim = self.claim()
        lie = ": a lie" if claim != request.role else ""
        return Speak(
            speech=words.soliloquy_text(self.rng, killer, claim),
            thought=f"Asking {killer} to retract; I say I am {words.card_name(claim)}{lie}.",
        )

    def reply(self, request: DecisionRequest) -> ActionBase:
        """Let the kill stand unless playing round 2 on is worth more."""
        table = self.table
        hand = table.hand
        card = request.role
        victim = next((v for k, v in reversed(hand.attempts) if k == self.me), None)
        worlds = table.worlds(card)
        if victim is None or not worlds or not hand.deaths:
            return Continue()
        first = hand.deaths[0]
        declared = tuple(hand.declarers)
        stances = self.duel_stances(worlds, card, victim, declared, first)
        now = sum(st.weight * st.kill for st in stances)
        beats = request.clock.left - 1 if request.clock is not None else 0
        later = max(plan(stances, beats).totals().values()) if beats > 0 else sum(st.weight * st.peace for st in stances)
        values = {"continue": now, "retract": later}
        thought = words.thought("continue" if now >= later else "retract", values, self.marginals(worlds))
        return Continue(thought=thought) if now >= later else Retract(thought=thought)

    def judge(self, request: DecisionRequest) -> ActionBase:
        """Dead, my points are settled: rule for the kill that leaves the opponents with least."""
        table = self.table
        hand = table.hand
        contest = choices(request, "judge", "first")
        worlds = table.worlds(request.role)
        if not contest or not hand.deaths or not worlds:
            return Judge(first=contest[0]) if contest else Pass()
        first = hand.deaths[0]
        declared = tuple(hand.declarers)
        values = {}
        for killer in contest:
            victim = next(c for c in contest if c != killer)
            values[killer] = sum(
                w
                * self.value(
                    {self.me: request.role, **world}, declared, (first, HandDeath(victim, (killer,), KILL, 2)), (killer,)
                )
                for world, w in worlds
            )
        best = self.best_move(values)
        return Judge(first=best, thought=words.thought(best, values, self.marginals(worlds)))

    OTHER: ClassVar = {"soliloquy": soliloquy, "soliloquy_reply": reply, "judge": judge}
