"""The base of the McKay strategies: the table reading, and utilities from the real score tables.

An outcome (who holds which card, who declared, the deaths in order, who is alive) is valued by
handing it to the variant's own scoring function (:mod:`arena.variants.mckay.scoring`), never a
copy of its tables. The bot's utility is its points, plus what its bonus change is worth over the
hands still to play (learned from how this match uses and wipes out bonuses), less a share of
what the opponents gain the same way: the match is won on the highest total, so denying a rival
counts too, and as the hands run out the match scores shift that share onto the leader.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar

from arena.engine import ActionBase, DecisionRequest, View
from arena.variants.mckay.scoring import COP, MAFIA, TP

from ...legal import safe_action
from ...memory import Memory
from ...ties import best
from ..base import Strategy
from . import words
from .table import CARDS, Table

Scoring = Callable[..., tuple[dict[str, int], dict[str, int]]]
#: expected values this close (relative) are a tie
TIE = words.TIE


class McKayStrategy(Strategy, ABC):
    """Shared by ``duel``, ``duel3`` and ``trio``: reading, valuing outcomes, dispatching requests."""

    #: the variant's own scoring function (set by subclasses from scoring.py)
    scoring: ClassVar[Scoring]
    observes: ClassVar[bool] = True
    #: how much an opponent's gain counts against mine (the match is won on the highest total)
    rival: ClassVar[float] = 0.8
    #: before a player has been seen: hands of prior, the share of hands that wipe a bonus out
    prior_hands: ClassVar[float] = 4.0
    prior_wipe: ClassVar[float] = 0.35

    def __init__(self, memory: Memory, rng: random.Random, seed: int = 0) -> None:
        super().__init__(memory, rng, seed)
        self.me = memory.me
        self.table = Table(memory.me, memory.seats, self.variant, self.prior, type(self).context)
        self._values: dict[tuple, float] = {}
        self._values_key: tuple = ()
        self._worth: dict[str, float] = {}
        self._rivals: dict[str, float] = {}
        self.reported: set[tuple[int, int]] = set()  # (hand, position) of looks I already spoke of

    # ---- hooks ---------------------------------------------------------------------------
    @staticmethod
    @abstractmethod
    def prior(context: str, card: str) -> Mapping[str, float]:
        """What a player holding ``card`` does in a beat of ``context`` before the bot has seen it play."""

    @staticmethod
    @abstractmethod
    def context(table: Table, opponent: str) -> str:
        """The situation ``opponent`` is in, as far as its habits go."""

    @abstractmethod
    def beat(self, request: DecisionRequest) -> ActionBase:
        """The answer to one beat of the clock."""

    # ---- dispatch --------------------------------------------------------------------------
    def observe(self, view: View) -> None:
        self.table.read(view)

    def decide(self, request: DecisionRequest) -> ActionBase:
        table = self.table
        key = (table.hand.number, tuple(table.bonus.values()), table.hands_left)
        if key != self._values_key:  # outcomes are valued afresh when a bonus or the horizon moves
            self._values_key = key
            self._values = {}
            self._worth = {n: self.worth(n) for n in table.seats}
            self._rivals = self.rivals()
        if request.group == "beat":
            self.table.start_beat(request)
            return self.beat(request)
        handler = self.OTHER.get(request.group)
        if handler is None:
            return safe_action(request, self.rng)
        return handler(self, request)

    OTHER: ClassVar[dict[str, Callable[[McKayStrategy, DecisionRequest], ActionBase]]] = {}

    # ---- valuing outcomes ------------------------------------------------------------------
    def kept(self, name: str) -> list[float]:
        """P(a bonus point ``name`` holds now is still held 1, 2, … hands from now), from how often
        this match has wiped that player's bonus out."""
        table = self.table
        wipe = (table.wiped[name] + self.prior_wipe * self.prior_hands) / (table.played + self.prior_hands)
        return [(1.0 - wipe) ** h for h in range(1, table.hands_left + 1)]

    def rivals(self) -> dict[str, float]:
        """How much each opponent's gain counts against mine: evenly at the start of a match, and
        more and more on the leader among them as the hands run out (the match goes to the highest
        total, so late in it only the one ahead matters)."""
        table = self.table
        opponents = table.opponents
        done = min(1.0, table.played / table.hands) if table.hands else 1.0
        top = max(table.scores[o] for o in opponents)
        leaders = [o for o in opponents if table.scores[o] == top]
        return {
            o: self.rival * ((1.0 - done) / len(opponents) + (done / len(leaders) if o in leaders else 0.0)) for o in opponents
        }

    @abstractmethod
    def worth(self, name: str) -> float:
        """Utility of one more point of ``name``'s bonus at the end of this hand (variants say how it pays)."""

    def value(self, cards: Mapping[str, str], declared: Sequence[str], deaths: tuple, alive: Sequence[str]) -> float:
        """My utility of a hand that ends so (cards for every seat, deaths in order)."""
        outcome = (tuple(cards.items()), tuple(declared), deaths, tuple(alive))
        found = self._values.get(outcome)
        if found is not None:
            return found
        table = self.table
        before = table.bonus
        points, after = self.scoring(cards, declared, deaths, alive, before)  # pure: copies what it changes
        worth = self._worth
        me = self.me
        against = sum(w * (points[o] + worth[o] * (after[o] - before[o])) for o, w in self._rivals.items())
        result = points[me] + worth[me] * (after[me] - before[me]) - against
        self._values[outcome] = result
        return result

    # ---- beliefs ---------------------------------------------------------------------------
    @staticmethod
    def marginals(worlds: list[tuple[dict[str, str], float]]) -> dict[str, dict[str, float]]:
        """P(each opponent holds each card)."""
        out: dict[str, dict[str, float]] = {}
        for cards, p in worlds:
            for name, card in cards.items():
                row = out.setdefault(name, dict.fromkeys(CARDS, 0.0))
                row[card] += p
        return out

    def suspect(self, beliefs: Mapping[str, Mapping[str, float]]) -> str | None:
        """The opponent most likely mafia, if likely enough to say so (a tie drawn)."""
        found = best(beliefs, lambda n: beliefs[n][MAFIA], self.rng)
        return found if found is not None and beliefs[found][MAFIA] >= 0.6 else None

    def best_move(self, values: Mapping[str, float], keys: Sequence[str] | None = None) -> str:
        """The key of ``values`` (or of ``keys``) worth most. Moves of equal worth (to a relative
        :data:`TIE`) go to the kind listed first, and among the same move on different players
        (``kill:Bob`` / ``kill:Cid``, a card on Bob / on Cid) to a draw, never to seat order."""
        order = list(values if keys is None else keys)
        top = max(values[k] for k in order)
        tied = [k for k in order if values[k] >= top - TIE * (1.0 + abs(top))]
        kind = self._kind(tied[0])
        same = [k for k in tied if self._kind(k) == kind]
        return same[0] if len(same) == 1 else same[self.rng.randrange(len(same))]

    def _kind(self, key: str) -> str:
        if key.startswith("kill:"):
            return "kill"
        return "player" if key in self.table.seats else key

    # ---- words -------------------------------------------------------------------------------
    def claim(self) -> str:
        """What I say I am: the cop once I declared, otherwise a townsperson."""
        return COP if self.me in self.table.hand.declarers else TP

    def say(self, card: str, text: Callable[[str], str], claims: bool) -> tuple[str, str]:
        """My words for this beat and the private note that marks a lie in them.

        A look not yet spoken of comes first ("Card 2 is mafia.": a mafia bot calls every card it
        saw a townsperson's); otherwise ``text(claim)``, which states my claim when ``claims``.
        """
        hand = self.table.hand
        fresh = [(p, c) for p, c in hand.looks.items() if (hand.number, p) not in self.reported]
        if fresh:
            self.reported.update((hand.number, p) for p, _ in fresh)
            position, seen = fresh[-1]
            said = TP if card == MAFIA else seen
            note = (
                ""
                if said == seen
                else f"(I say card {position} is {words.card_name(said)}: a lie, it is {words.card_name(seen)}.)"
            )
            return words.look_text(self.rng, position, said), note
        claim = self.claim()
        spoken = text(claim)
        lie = claims and claim != card and words.card_name(claim) in spoken
        return spoken, f"(I say I am {words.card_name(claim)}: a lie.)" if lie else ""
