"""What McKay's three real-time games share: a match of hands, the deal, the beat clock.

One :class:`McKayGame` is one match of ``hands`` hands (spec: rules/mckay.md and the "Beats"
section of rules/turns.md). Every hand is a fresh seeded deal from the variant's deck: one card
per seat, the rest face down and unpicked in positions 1..k. Each round of the clock draws a
random order of the living players that settles "first come, first served" within a beat. In a
beat every living player is asked at once (request group ``beat``, every legal kind including
``pass``, optional speech to all); the beat then resolves in the order of turns.md: speech is
published, declarations in round order, looks answered privately, then kills / cards.

Readings fixed here (the pages are silent):
- Only the players' cards are shown at the end of a hand ("flip the cards", "reveal their
  hands"); the unpicked cards never are, so what a declarer saw stays his alone.
- The round order is a moderator note: only its effects (who declared first, which kill came
  first) become public.
- At a table on the wall clock (a person playing: every answer of a beat carries ``at``, the
  seconds into the beat when it arrived), "first come" is the real arrival order and the round
  order only breaks an exact tie. The times are data on the answers (``Decision.at``), recorded
  on each ``action`` event, so the engine reads no clock and a replay comes out the same.
- The position a declarer or peeker looks at is public (the table sees which card is lifted);
  the card itself goes to the looker alone (``cop_look``).
- Every seat is dealt from one seeded shuffle of the deck; who picks first at the table changes
  nothing about the odds, so it is not modelled.
- The hand number is ``game.day``; ``deaths[].day`` is the hand of the death.
- Match winner: the highest total; a shared highest total is a ``"draw"``.

Events added to the shared vocabulary: ``hand`` (all: number, of, beats, unpicked),
``cop_declared`` (all: position, null when the declarer does not look), ``declaration_void``
(all: a same-beat second declaration in duel/duel3), ``peek`` (all: position), ``cop_look``
(the looker only: position, card, look = 1 or 2), ``hand_over`` (all: reason, roles, deaths,
points, bonus, scores); the variants add ``handshake``, ``round``, ``card_placed``, ``kill``,
``judge_ruling`` and ``retracted``.

Scenarios give ``hands`` (each hand's deal and unpicked cards) instead of ``deal`` and get
``scores``, ``bonus`` and ``hands`` back: docs/scenarios.md, section "duel, duel3, trio".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

from pydantic import Field

from arena.engine import ActionBase, Clock, DecisionRequest, FieldSpec, Game, GameOptions, Option, RulesError
from arena.engine.game import PASS, names_spec

from .scoring import COP, MAFIA, TEAM_OF, TP, HandDeath


class McKayOptions(GameOptions):
    hands: int = Field(10, ge=1, description="Hands in a match (a scenario plays exactly the hands it gives).")
    beats: int = Field(12, ge=1, description="Beats per round of the clock: 6 per minute of the seed's timer.")


Refusal = Callable[[Any, DecisionRequest], "str | None"]


class McKayGame(Game):
    """A match of hands: deal, round order, clock, declarations and looks, end of hand and match."""

    roles = (TP, MAFIA, COP)
    team_of = TEAM_OF
    first_phase = "hand"
    DECK: ClassVar[tuple[str, ...]]
    #: round number -> the phase that plays its beats
    ROUND_PHASES: ClassVar[dict[int, str]]
    #: (cards, declarers, deaths in order, alive, bonuses) -> (points of the hand, new bonuses)
    SCORING: ClassVar[Callable[..., tuple[dict[str, int], dict[str, int]]]]
    REASONS: ClassVar[Callable[..., dict[str, str]]]  # the same hand in words, one line a player
    options: McKayOptions

    def __init__(
        self,
        seats: Sequence[str],
        options: GameOptions | Mapping[str, Any] | None = None,
        seed: int = 0,
        deal: Mapping[str, str] | None = None,
        *,
        hands: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        if hands is not None and (isinstance(hands, (str, Mapping)) or not isinstance(hands, Sequence)):
            raise RulesError("hands must be a list of {deal, unpicked} objects, one per hand")
        self._script = None if hands is None else list(hands)
        if self._script is not None:
            options = self._match_of(options, len(self._script))
        super().__init__(seats, options, seed, deal)

    @classmethod
    def _match_of(cls, options: GameOptions | Mapping[str, Any] | None, hands: int) -> GameOptions:
        """Scripted hands fix the match length; a contradicting ``hands`` option is an error."""
        opts = cls._coerce_options(options)
        if hands < 1:
            raise RulesError("a match needs at least one hand")
        if "hands" in opts.model_fields_set and opts.hands != hands:
            raise RulesError(f"options.hands is {opts.hands} but {hands} hands are given")
        return opts.model_copy(update={"hands": hands})

    # ---- the deal -------------------------------------------------------------------------
    def _make_deal(self, deal: Mapping[str, str] | None) -> dict[str, str]:
        """Hand 1: scripted hands (all checked now), a given deal (the rest unpicked), or random."""
        if self._script is not None:
            if deal is not None:
                raise RulesError("give either the hands or a deal, not both")
            self._scripted = [self._check_hand(i + 1, spec) for i, spec in enumerate(self._script)]
            return self._deal_hand(1)
        self._scripted = []
        if deal is None:
            return self._deal_hand(1)
        cards = super()._make_deal(deal)
        rest = list((Counter(self.DECK) - Counter(cards.values())).elements())
        self.rng.shuffle(rest)
        self.unpicked = rest
        return cards

    def _check_hand(self, number: int, spec: Mapping[str, Any]) -> tuple[dict[str, str], list[str]]:
        if not isinstance(spec, Mapping) or "deal" not in spec or "unpicked" not in spec:
            raise RulesError(f"hand {number}: give a 'deal' and the 'unpicked' cards")
        cards = super()._make_deal(spec["deal"])
        unpicked = list(spec["unpicked"])
        if Counter(cards.values()) + Counter(unpicked) != Counter(self.DECK):
            deck = ", ".join(f"{n} {card}" for card, n in sorted(Counter(self.DECK).items()))
            raise RulesError(f"hand {number}: the deal and the unpicked cards must make up the deck ({deck})")
        return cards, unpicked

    def _deal_hand(self, number: int) -> dict[str, str]:
        """The cards of hand ``number``; sets ``unpicked`` (position 1 first)."""
        if self._scripted:
            cards, unpicked = self._scripted[number - 1]
            self.unpicked = list(unpicked)
            return dict(cards)
        deck = list(self.DECK)
        self.rng.shuffle(deck)
        n = len(self.seats)
        self.unpicked = deck[n:]
        return dict(zip(self.seats, deck[:n], strict=True))

    def public_deck(self) -> tuple[tuple[str, int], ...]:
        """The whole deck (every hand deals from it afresh), by card."""
        counts = Counter(self.DECK)
        return tuple((card, counts[card]) for card in self.roles if counts[card])

    def all_positions(self) -> tuple[int, ...]:
        """Positions of the face-down cards (the same count every hand)."""
        return tuple(range(1, len(self.DECK) - len(self.seats) + 1))

    def beat_repertoire(self) -> list[Option]:
        """The kinds of a duel / duel3 beat, with every value they can take in the match."""
        kill = "Kill your opponent." if len(self.seats) == 2 else "Kill one of the other players."
        declare = 'Declare "I am the cop" and look at one face-down card; only the hand\'s first declaration counts.'
        handshake = (
            "Offer to end the hand at once, scored with everyone alive surviving; every living player must offer, "
            "in the same beat or the next."
        )
        return [
            Option("pass", {}, "Let the beat go by (you may still speak)."),
            Option("kill", {"target": FieldSpec(self.seats)}, kill),
            Option("declare_cop", {"position": FieldSpec(self.all_positions())}, declare),
            Option("handshake", {}, handshake),
        ]

    def check_deal(self, deal: dict[str, str]) -> None:
        if not Counter(deal.values()) <= Counter(self.DECK):
            raise RulesError(f"{self.name}'s deck holds {', '.join(self.DECK)}: it cannot deal {sorted(deal.values())}")

    def setup(self) -> None:
        self.day = 1
        self.bonus: dict[str, int] = dict.fromkeys(self.seats, 0)
        self.scores: dict[str, int] = dict.fromkeys(self.seats, 0)
        self.records: list[dict[str, Any]] = []
        self._new_hand()

    def _new_hand(self) -> None:
        """Per-hand state (variants extend it)."""
        self.round = 1
        self.beat = 1
        self.order: tuple[str, ...] = ()
        self.declarers: list[str] = []
        self.looks: list[tuple[str, int]] = []
        self.hand_deaths: list[HandDeath] = []

    # ---- hands, rounds, beats -------------------------------------------------------------
    def _start_hand(self, answers: dict[str, ActionBase]) -> None:
        if self.day > 1:
            self.role_of = self._deal_hand(self.day)
            self.revive_all()  # a new hand seats everybody again
            self._new_hand()
            for name in self.seats:
                role = self.role_of[name]
                self.tell(name, "role", role=role, team=self.team_of[role], hand=self.day, variant=self.name)
        self.public("hand", number=self.day, of=self.options.hands, beats=self.options.beats, unpicked=len(self.unpicked))
        self._start_round(1)

    def _start_round(self, number: int) -> None:
        self.round = number
        self.beat = 1
        order = list(self.alive)
        self.rng.shuffle(order)
        self.order = tuple(order)
        self.note("order", round=number, order=order)
        self.phase = self.ROUND_PHASES[number]

    def clock(self) -> Clock:
        return Clock("beat", self.options.beats - self.beat + 1, self.options.beats)

    def tick(self) -> None:
        """The beat is over: the next one, or time has expired."""
        if self.beat >= self.options.beats:
            self.end_hand("time")
        else:
            self.beat += 1

    def beat_request(self, player: str, question: str, options: Iterable[Option]) -> DecisionRequest:
        head = f"Hand {self.day} of {self.options.hands}, beat {self.beat} of {self.options.beats}. "
        return self.request(
            player, head + question, options, group="beat", talk="all", default=PASS, clock=self.clock(),
            hand=self.day, round=self.round, beat=self.beat, scores=dict(self.scores), bonus=dict(self.bonus),
        )  # fmt: skip

    def positions(self) -> tuple[int, ...]:
        return tuple(range(1, len(self.unpicked) + 1))

    def kill_option(self, player: str) -> Option:
        spec = names_spec(self.targets(exclude=(player,)), forbidden={player: "you cannot kill yourself"})
        return Option("kill", {"target": spec})

    def declare_option(self) -> Option:
        return Option("declare_cop", {"position": FieldSpec(self.positions())})

    # ---- beat resolution, steps 1-3 ---------------------------------------------------------
    def publish_speech(self, answers: Mapping[str, ActionBase], kind: str = "beat") -> None:
        for name in self.seats:
            action = answers.get(name)
            if action is not None and action.speech:
                self.public("speech", actor=name, kind=kind, **self.said(action))

    def first_come(self) -> tuple[str, ...]:
        """Who came first in this beat: by arrival time where the answers carry times (a table on
        the wall clock), ties and untimed answers after them in the round's order; else the round's
        hidden order."""
        times = self.arrivals
        if not times:
            return self.order
        rank = {name: i for i, name in enumerate(self.order)}
        return tuple(sorted(self.order, key=lambda name: (times.get(name, float("inf")), rank[name])))

    def came_first(self, first: str, later: str) -> str:
        """Why ``first`` beat ``later`` within a beat, in words (the times, where there are any)."""
        times = self.arrivals
        if first in times and later in times:
            return f"{first} came first: {times[first]:.1f} s into the beat, {later} at {times[later]:.1f} s"
        return f"{first} came first"

    def resolve_looks(self, answers: Mapping[str, ActionBase]) -> None:
        """Declarations and peeks in arrival order, then each look told to the looker alone."""
        looks: list[tuple[str, int]] = []
        for name in self.first_come():
            action = answers.get(name)
            if action is None:
                continue
            if action.kind == "declare_cop":
                if self.declare(name, action.position):
                    looks.append((name, action.position))
            elif action.kind == "peek":
                self.public("peek", actor=name, position=action.position)
                looks.append((name, action.position))
        for name, position in looks:
            self.looks.append((name, position))
            seen = sum(1 for looker, _ in self.looks if looker == name)
            self.tell(name, "cop_look", position=position, card=self.unpicked[position - 1], look=seen)

    def declare(self, name: str, position: int | None) -> bool:
        """duel / duel3: only the first declaration of the hand counts. True = the declarer looks."""
        if self.declarers:
            first = self.declarers[0]
            reason = f"{first} declared first" if first not in self.arrivals else self.came_first(first, name)
            self.public("declaration_void", actor=name, reason=reason)
            return False
        self.declarers.append(name)
        self.public("cop_declared", actor=name, position=position)
        return True

    def kill(self, victim: str, by: Sequence[str], cause: str) -> None:
        """A death of this hand: public, card face down (every card is shown at the end)."""
        self.hand_deaths.append(HandDeath(victim, tuple(by), cause, self.round))
        self.eliminate(victim, cause, by=list(by))

    # ---- end of hand, end of match ----------------------------------------------------------
    def end_hand(self, reason: str) -> None:
        why = self.REASONS(self.role_of, self.declarers, self.hand_deaths, self.alive, self.bonus)
        points, self.bonus = self.SCORING(self.role_of, self.declarers, self.hand_deaths, self.alive, self.bonus)
        for name, value in points.items():
            self.scores[name] += value
        deaths = [d.to_dict() for d in self.hand_deaths]
        self.records.append({
            "deaths": deaths, "points": dict(points), "bonus": dict(self.bonus), "scores": dict(self.scores), "end": reason,
            "looks": [{"by": by, "position": p, "card": self.unpicked[p - 1]} for by, p in self.looks],
        })  # fmt: skip
        self.public(
            "hand_over", number=self.day, reason=reason, roles=dict(self.role_of), deaths=deaths,
            points=dict(points), bonus=dict(self.bonus), scores=dict(self.scores), why=why,
        )  # fmt: skip
        if len(self.records) >= self.options.hands:
            self.finish(self.winner_now(), "match")
        else:
            self.day += 1
            self.phase = "hand"

    def winner_now(self) -> str | None:
        """After the last hand: the highest total, or "draw" when it is shared."""
        if len(self.records) < self.options.hands:
            return None
        best = max(self.scores.values())
        leaders = [n for n in self.seats if self.scores[n] == best]
        return leaders[0] if len(leaders) == 1 else "draw"

    # ---- refusals with the rule's own reason ---------------------------------------------------
    def validate(self, request: DecisionRequest, action: ActionBase) -> str | None:
        return self.refusal(request, action) or super().validate(request, action)

    def refusal(self, request: DecisionRequest, action: ActionBase) -> str | None:
        """The rule behind an answer this request does not allow; None leaves it to the engine."""
        kind = action.kind
        if request.talk is None and (kind == "speak" or action.speech):
            reason = self.silence_reason(request)
            if reason is not None:
                return reason
        if request.option(kind) is None:
            why = self.REFUSALS.get(kind)
            return why(self, request) if why is not None else None
        return None

    def silence_reason(self, request: DecisionRequest) -> str | None:
        if not self.is_alive(request.player):
            return "you are dead: you stay silent until the end of the hand"
        return None

    def _no_kill(self, request: DecisionRequest) -> str | None:
        return None if self.is_alive(request.player) else "you are dead: the dead cannot kill"

    def _no_declaration(self, request: DecisionRequest) -> str | None:
        player = request.player
        if not self.is_alive(player):
            return "you are dead: the dead cannot declare"
        if player in self.declarers:
            return "you already declared cop this hand"
        if self.declarers:
            return (
                f"{self.declarers[0]} already declared cop this hand: only the first declaration "
                "counts, and there is no second look"
            )
        return None

    def _no_peek(self, request: DecisionRequest) -> str | None:
        return f"there is no second look in {self.name}: the one look comes with declare_cop"

    def _no_speak(self, request: DecisionRequest) -> str | None:
        if request.group == "beat":
            return "in a beat you talk in the speech of your action (pass, to only talk)"
        return None

    REFUSALS: ClassVar[dict[str, Refusal]] = {
        "kill": _no_kill,
        "declare_cop": _no_declaration,
        "peek": _no_peek,
        "speak": _no_speak,
    }

    # ---- scenarios --------------------------------------------------------------------------
    @classmethod
    def from_scenario(cls, spec: Mapping[str, Any]) -> Game:
        return cls(spec["players"], spec.get("options"), spec.get("seed", 0), deal=spec.get("deal"), hands=spec.get("hands"))

    def scenario_extras(self) -> dict[str, Any]:
        return {"scores": dict(self.scores), "bonus": dict(self.bonus), "hands": [dict(r) for r in self.records]}
