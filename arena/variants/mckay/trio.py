"""``trio``: McKay's three-player Mafia (2008). Spec: docs/rules/mckay.md, "trio".

A hand has at most two rounds of 12 beats. Round 1: each player's card lies on an opponent,
on "no_kill" or in hand (``place_card``; moved or taken back in any beat); two cards on one
player at the end of a beat kill him (both placers are the killers), all three on "no_kill"
ends the hand. Round 2 (after a round-1 death): the survivors ``kill``, put the card on
"no_kill", or pass; the first kill counts (same beat: the dead player judges), then the victim's
soliloquy beat (victim speaks alone, then the killer alone continues or retracts). Anyone may
declare cop at any time; only the hand's first declarer looks at one of the two centre cards.

Readings fixed here (the page is silent):
- Card positions are public (the cards lie face down on the table; where they lie is seen).
- A same-beat second declarer is a declarer who does not look (his position is ignored); a
  later declarer must declare with position null.
- A forfeited soliloquy reply is ``continue``: the kill was made, retracting is the act.
- A retracted kill returns the killer's card to his hand.
- In round 2 a card may only go on "no_kill" (a kill is the ``kill`` action).
"""

from __future__ import annotations

from typing import ClassVar

from arena.engine import ActionBase, DecisionRequest, FieldSpec, Option, Phase, Repertoire
from arena.engine.actions import Continue
from arena.engine.game import names_spec

from .common import McKayGame, McKayOptions
from .scoring import COP, KILL, MAFIA, TP, VOTE, trio_hand, trio_reasons

NO_KILL = "no_kill"
CONTINUE = Continue()


class Trio(McKayGame):
    name = "trio"
    title = "Three-player Mafia (McKay 2008)"
    min_players = 3
    max_players = 3
    default_players = 3
    DECK = (TP, TP, MAFIA, MAFIA, COP)
    Options = McKayOptions
    ROUND_PHASES: ClassVar[dict[int, str]] = {1: "round1", 2: "round2"}
    SCORING = staticmethod(trio_hand)
    REASONS = staticmethod(trio_reasons)

    def _new_hand(self) -> None:
        super()._new_hand()
        self.slots: dict[str, str | None] = dict.fromkeys(self.seats)  # where each card lies
        self.call: tuple[str, str] | None = None  # a round-2 kill awaiting its soliloquy
        self.contest: tuple[str, ...] = ()  # two same-beat killers awaiting the judge

    def repertoire(self, player: str) -> Repertoire:
        seats = self.seats
        slot = 'The player your card goes on, or "no_kill"; null takes it back into your hand.'
        position = "The centre card you look at (1 = first), or null to declare without looking (after someone else declared)."
        beat = [
            Option("pass", {}, "Let the beat go by (you may still speak)."),
            Option(
                "place_card",
                {"slot": FieldSpec((*seats, NO_KILL), nullable=True)},
                "Place your kill card, move it or take it back.",
                {"slot": slot},
            ),
            Option(
                "declare_cop",
                {"position": FieldSpec(self.all_positions(), nullable=True)},
                'Declare "I am the cop"; only the hand\'s first declarer looks at a centre card.',
                {"position": position},
            ),
            Option(
                "kill", {"target": FieldSpec(seats)}, "In round 2: kill the other survivor.", {"target": "The player you kill."}
            ),
        ]
        judge = "As the dead player of round 1: rule which of the two killers killed first."
        others = [
            Option("speak", {}, "Your soliloquy: the one speech a victim gives before the killer decides."),
            Option("judge", {"first": FieldSpec(seats)}, judge),
            Option("continue", {}, "As the killer after the soliloquy: let the kill stand (the victim dies, the hand ends)."),
            Option("retract", {}, "As the killer after the soliloquy: take the kill back (play goes on)."),
        ]
        return Repertoire((*beat, *others), talk=frozenset({"pass", "place_card", "declare_cop", "kill", "speak"}))

    def _start_round(self, number: int) -> None:
        super()._start_round(number)
        self.slots = dict.fromkeys(self.seats)  # cards come back to hand
        self.public("round", number=number, beats=self.options.beats, alive=list(self.alive))

    def declare(self, name: str, position: int | None) -> bool:
        """Anyone may declare, also after another; only the hand's first declarer looks."""
        looks = not self.declarers
        self.declarers.append(name)
        self.public("cop_declared", actor=name, position=position if looks else None)
        return looks

    # ---- asking -----------------------------------------------------------------------------
    def _declare_options(self, player: str) -> list[Option]:
        if player in self.declarers:
            return []
        if not self.declarers:
            return [self.declare_option()]
        reason = f"only the first declarer of the hand ({self.declarers[0]}) looks at a centre card: declare with position null"
        spec = FieldSpec((), nullable=True, forbidden=dict.fromkeys(self.positions(), reason))
        return [Option("declare_cop", {"position": spec})]

    def _place_option(self, player: str) -> Option:
        forbidden = {player: "you cannot place your card on yourself"}
        if self.round == 1:
            choices: tuple[str, ...] = (*self.targets(exclude=(player,)), NO_KILL)
        else:
            choices = (NO_KILL,)
            for other in self.targets(exclude=(player,)):
                forbidden[other] = f"in round 2 a card goes only on no_kill: kill {other} with the kill action"
        return Option("place_card", {"slot": FieldSpec(choices, nullable=True, forbidden=forbidden)})

    def _table(self, player: str) -> str:
        """Where each living player's card lies, as ``player`` reads it ("your card on no kill")."""
        spots = []
        for name in self.alive:
            slot = self.slots[name]
            where = "in hand" if slot is None else "on " + ("you" if slot == player else slot.replace("_", " "))
            spots.append(f"{'your' if name == player else name + chr(39) + 's'} card {where}")
        declared = f" Declared cop: {', '.join(self.declarers)}." if self.declarers else ""
        spots[0] = spots[0][:1].upper() + spots[0][1:]  # "Your card in hand; …" opens a sentence
        return "; ".join(spots) + "." + declared

    def _ask_round1(self) -> list[DecisionRequest]:
        requests = []
        for player in self.alive:
            question = (
                f"Round 1. Your card: {self.role_of[player]}. {self._table(player)} Place your card on an "
                "opponent, on no kill, or take it back; two cards on one player at the end of a "
                "beat kill him, three on no kill end the hand. You may declare cop (the first declarer "
                "looks at one of the two centre cards), or pass; speech goes to everyone."
            )
            options = [Option("pass"), self._place_option(player), *self._declare_options(player)]
            requests.append(self.beat_request(player, question, options))
        return requests

    def _ask_round2(self) -> list[DecisionRequest]:
        requests = []
        judge = self.hand_deaths[0].player
        for player in self.alive:
            question = (
                f"Round 2 ({judge} is dead, silent, card face down). Your card: {self.role_of[player]}. "
                f"{self._table(player)} The first to kill gets the kill (then the victim's soliloquy and your "
                "choice to continue or retract); both cards on no kill end the hand. You may also declare "
                "cop, or pass; speech goes to everyone."
            )
            options = [Option("pass"), self.kill_option(player), self._place_option(player), *self._declare_options(player)]
            requests.append(self.beat_request(player, question, options))
        return requests

    def _ask_judge(self) -> list[DecisionRequest]:
        judge = self.hand_deaths[0].player
        first, second = self.contest
        return [
            self.request(
                judge,
                f"{first} and {second} killed each other in the same beat. You judge who was first (no tie): the one "
                "you name has the kill and the other's kill never happened, so the other is the victim (his "
                "soliloquy, then the killer lets the kill stand or takes it back).",
                (Option("judge", {"first": names_spec(self.contest)}),),
                group="judge",
            )
        ]

    def _ask_soliloquy(self) -> list[DecisionRequest]:
        killer, victim = self.call
        return self.ask_to_speak(
            victim,
            f"{killer} killed you. This beat is your soliloquy: appeal to {killer}, who then continues (you die) or retracts.",
            group="soliloquy",
            clock=self.clock(),
        )

    def _ask_reply(self) -> list[DecisionRequest]:
        killer, victim = self.call
        return [
            self.request(
                killer,
                f"{victim} has spoken. continue: {victim} dies and the hand ends; retract: play goes on.",
                (Option("continue"), Option("retract")),
                group="soliloquy_reply",
                default=CONTINUE,
                clock=self.clock(),
            )
        ]

    # ---- resolving ----------------------------------------------------------------------------
    def _move_cards(self, answers: dict[str, ActionBase]) -> None:
        for name in self.seats:
            action = answers.get(name)
            if action is not None and action.kind == "place_card":
                self.slots[name] = action.slot
                self.public("card_placed", actor=name, slot=action.slot)

    def _on_round1(self, answers: dict[str, ActionBase]) -> None:
        self.publish_speech(answers)
        self.resolve_looks(answers)
        self._move_cards(answers)
        slots = self.slots
        victim = next((p for p in self.alive if sum(1 for s in slots.values() if s == p) >= 2), None)
        if victim is not None:
            self.kill(victim, [n for n in self.seats if slots[n] == victim], VOTE)
            self._start_round(2)
        elif all(slots[n] == NO_KILL for n in self.alive):
            self.end_hand("no_kill")
        else:
            self.tick()

    def _on_round2(self, answers: dict[str, ActionBase]) -> None:
        self.publish_speech(answers)
        self.resolve_looks(answers)
        self._move_cards(answers)
        kills = [(n, answers[n].target) for n in self.first_come() if n in answers and answers[n].kind == "kill"]
        for killer, victim in kills:
            self.slots[killer] = victim
            self.public("kill", actor=killer, target=victim)
        if len(kills) == 2:
            self.contest = tuple(k for k, _ in kills)
            self.phase = "judge"
        elif kills:
            self._call_kill(*kills[0])
        elif all(self.slots[n] == NO_KILL for n in self.alive):
            self.end_hand("no_kill")
        else:
            self.tick()

    def _call_kill(self, killer: str, victim: str) -> None:
        """The kill counts: the soliloquy is the next beat, unless time has run out."""
        if self.beat >= self.options.beats:
            self.kill(victim, (killer,), KILL)
            self.end_hand("time_during_soliloquy")
            return
        self.call = (killer, victim)
        self.beat += 1
        self.phase = "soliloquy"

    def _on_judge(self, answers: dict[str, ActionBase]) -> None:
        judge = self.hand_deaths[0].player
        first = answers[judge].first
        self.public("judge_ruling", actor=judge, first=first)
        (victim,) = (k for k in self.contest if k != first)
        self.contest = ()
        self.slots[victim] = None  # the second kill never happened
        self._call_kill(first, victim)

    def _on_soliloquy(self, answers: dict[str, ActionBase]) -> None:
        _, victim = self.call
        self.public("speech", actor=victim, kind="soliloquy", **self.said(answers[victim]))
        self.phase = "soliloquy_reply"

    def _on_reply(self, answers: dict[str, ActionBase]) -> None:
        killer, victim = self.call
        self.call = None
        if answers[killer].kind == "continue":
            self.kill(victim, (killer,), KILL)
            self.end_hand("kill")
            return
        self.public("retracted", actor=killer, target=victim)
        self.slots[killer] = None
        self.phase = "round2"
        self.tick()

    # ---- refusals -----------------------------------------------------------------------------
    def silence_reason(self, request: DecisionRequest) -> str | None:
        if self.call is not None and request.player == self.call[0]:
            return f"{self.call[1]} is giving a soliloquy: you may not speak now"
        return super().silence_reason(request)

    def _no_kill(self, request: DecisionRequest) -> str | None:
        if not self.is_alive(request.player):
            return "you are dead: the dead cannot kill"
        if self.call is not None:
            return "no kills during a soliloquy"
        if self.round == 1:
            return "in round 1 a kill takes two cards: place your card on a player (place_card)"
        return None

    def _no_handshake(self, request: DecisionRequest) -> str | None:
        return "trio has no handshake: put your card on no_kill"

    def _no_declaration(self, request: DecisionRequest) -> str | None:
        if self.call is not None and self.is_alive(request.player):
            return "no declarations during a soliloquy"
        return super()._no_declaration(request)

    REFUSALS: ClassVar = {
        **McKayGame.REFUSALS,
        "kill": _no_kill,
        "handshake": _no_handshake,
        "declare_cop": _no_declaration,
    }

    PHASES: ClassVar[dict[str, Phase]] = {
        "hand": Phase(None, McKayGame._start_hand),
        "round1": Phase(_ask_round1, _on_round1),
        "round2": Phase(_ask_round2, _on_round2),
        "judge": Phase(_ask_judge, _on_judge),
        "soliloquy": Phase(_ask_soliloquy, _on_soliloquy),
        "soliloquy_reply": Phase(_ask_reply, _on_reply),
    }
