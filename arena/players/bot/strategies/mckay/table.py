"""What a McKay bot knows at its seat, read incrementally from its view.

Three layers: the hand's facts (who declared and which card they lifted, my own looks, offers,
deaths, where the trio cards lie), the match (scores, bonuses, hands left), and each opponent's
*habits*: how often it kills, offers a handshake, declares, moves its card, by the card it held.
Cards are shown at the end of every hand, so a match teaches the bot who it is playing against;
the same counts give the planner its hazards and the belief its likelihoods.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from arena.engine import DecisionRequest, Event, View
from arena.variants.mckay.scoring import COP, GOOD_KILLS, KILL, MAFIA, SIMULTANEOUS, TP, HandDeath, victim_kind

CARDS = (TP, MAFIA, COP)
DECKS: dict[str, tuple[str, ...]] = {
    "duel": (TP, TP, MAFIA, MAFIA, COP),
    "duel3": (TP, TP, TP, MAFIA, MAFIA, MAFIA, COP),
    "trio": (TP, TP, MAFIA, MAFIA, COP),
}
NO_KILL = "no_kill"

#: pseudo-beats of the prior behind every (opponent, card, context) row of habits
PRIOR_WEIGHT = 8.0
#: each observed beat counts this much as evidence about a card: a player's beats are not
#: independent draws, so the naive product is tempered
TEMPER = 0.5
#: the least probability a habit gets (an odd move must not zero a card out)
FLOOR = 0.01

#: events that end the resolution of the beat a segment started with
STOPS = frozenset({"judge_ruling", "retracted", "round", "hand_over", "hand"})

Prior = Callable[[str, str], Mapping[str, float]]


@dataclass(slots=True)
class Hand:
    """The facts of the hand in play, as this seat saw them."""

    number: int = 0
    beats: int = 12
    unpicked: int = 0
    looks: dict[int, str] = field(default_factory=dict)  # my looks: position -> card
    declarers: list[str] = field(default_factory=list)  # counted declarations, first first
    offers: dict[str, int] = field(default_factory=dict)  # player -> beat of the latest handshake offer
    deaths: list[HandDeath] = field(default_factory=list)
    round: int = 1
    slots: dict[str, str | None] = field(default_factory=dict)  # trio: where each card lies
    attempts: list[tuple[str, str]] = field(default_factory=list)  # trio round 2: (killer, victim)
    observed: list[tuple[str, str, str]] = field(default_factory=list)  # (opponent, context, category)

    @property
    def dead(self) -> tuple[str, ...]:
        return tuple(d.player for d in self.deaths)


class Habits:
    """Per opponent, per card held, per context: how often each kind of move was made in a beat.

    A row is shrunk towards the same opponent's moves in that context whatever its card, and that
    towards the prior: an opponent that plays the same way with any card (``random``) is learned
    in a few hands, one whose play depends on its card as its hands of each card come in.
    """

    def __init__(self, prior: Prior) -> None:
        self.prior = prior
        self.counts: dict[tuple[str, str, str], Counter[str]] = {}
        self.pooled: dict[tuple[str, str], Counter[str]] = {}  # (opponent, context): every card
        self._rows: dict[tuple[str, str, str], dict[str, float]] = {}  # cleared whenever counts change

    def learn(self, name: str, card: str, context: str, category: str) -> None:
        for table, key in ((self.counts, (name, card, context)), (self.pooled, (name, context))):
            row = table.get(key)
            if row is None:
                row = table[key] = Counter()
            row[category] += 1
        self._rows.clear()

    def row(self, name: str, card: str, context: str) -> dict[str, float]:
        """P(``name`` holding ``card`` makes a move of each category in a beat of ``context``)."""
        key = (name, card, context)
        found = self._rows.get(key)
        if found is not None:
            return found
        out = dict(self.prior(context, card))
        for counts in (self.pooled.get((name, context)), self.counts.get(key)):
            if counts:
                n = sum(counts.values())
                cats = list(out) + [c for c in counts if c not in out]
                out = {c: (counts[c] + PRIOR_WEIGHT * out.get(c, 0.0)) / (n + PRIOR_WEIGHT) for c in cats}
        out = {c: max(FLOOR, p) for c, p in out.items()}
        self._rows[key] = out
        return out

    def p(self, name: str, card: str, context: str, category: str) -> float:
        return self.row(name, card, context).get(category, FLOOR)

    def likelihood(self, name: str, observed: Iterable[tuple[str, str, str]]) -> dict[str, float]:
        """How well each card explains ``name``'s moves this hand (tempered naive Bayes)."""
        out = dict.fromkeys(CARDS, 1.0)
        for who, context, category in observed:
            if who != name:
                continue
            for card in CARDS:
                out[card] *= self.p(name, card, context, category) ** TEMPER
        top = max(out.values())
        return {c: v / top for c, v in out.items()}


class Table:
    """One seat's reading of a McKay match."""

    def __init__(self, me: str, seats: Sequence[str], variant: str, prior: Prior, context: Callable[[Table, str], str]) -> None:
        self.me = me
        self.seats = tuple(seats)
        self.opponents = tuple(s for s in self.seats if s != me)
        self.variant = variant
        self.deck = DECKS[variant]
        self.habits = Habits(prior)
        self.context_of = context
        self.cursor = 0
        self.hands = 1
        self.hand = Hand()
        self.bonus: dict[str, int] = dict.fromkeys(self.seats, 0)
        self.scores: dict[str, int] = dict.fromkeys(self.seats, 0)
        # the match so far, per player: hands seen, base points of good kills (duel tables), hands
        # that ended with the bonus at 0 (what a bonus point is worth depends on both)
        self.played = 0
        self.good: dict[str, int] = dict.fromkeys(self.seats, 0)
        self.wiped: dict[str, int] = dict.fromkeys(self.seats, 0)
        self.beat = 0  # the beat of my latest beat request
        self.segment: list[Event] = []  # events since my latest beat request
        self.contexts: dict[str, str] = {}  # each living opponent's context at that request

    # ---- reading ---------------------------------------------------------------------------
    def read(self, view: View) -> None:
        new = view.since(self.cursor)
        self.cursor += len(new)
        for event in new:
            handler = READERS.get(event.type)
            if handler is not None:
                handler(self, event)
            if self.contexts and event.type in SEGMENT_TYPES:
                self.segment.append(event)

    def start_beat(self, request: DecisionRequest) -> None:
        """A beat request: file what the opponents did in my previous beat, note their contexts now."""
        beat = int(request.info.get("beat", 0))
        rnd = int(request.info.get("round", 1))
        if self.contexts:
            self._file(consecutive=rnd == self.hand.round and beat == self.beat + 1)
        self.hand.round = rnd
        self.beat = beat
        self.contexts = {o: self.context_of(self, o) for o in self.opponents if o in request.alive}
        self.segment = []

    def _file(self, consecutive: bool) -> None:
        """Categorise each opponent's move in the beat the segment starts with (one move a beat)."""
        moves: dict[str, str] = {}
        stopped = False
        died = False
        for e in self.segment:
            if e.type in STOPS or (e.type == "speech" and e.data.get("kind") == "soliloquy"):
                stopped = True
                break
            if died and e.type != "death":
                stopped = True
                break
            if e.type == "death":
                died = True
            category = self._category(e)
            if category is not None:
                who, move = category
                if who in self.contexts and who not in moves:
                    moves[who] = move
        if not (consecutive or stopped):
            return
        for who, context in self.contexts.items():
            self.hand.observed.append((who, context, moves.get(who, "idle")))
        self.contexts = {}

    def _category(self, e: Event) -> tuple[str, str] | None:
        data = e.data
        kind = e.type
        if kind == "death":
            by = data.get("by") or []
            if data.get("cause") in ("kill", SIMULTANEOUS) and len(by) == 1:
                return by[0], "kill_me" if data.get("player") == self.me else "kill_other"
            return None
        if kind == "kill":
            return e.actor, "kill_me" if data.get("target") == self.me else "kill_other"
        if kind in ("cop_declared", "declaration_void"):
            return e.actor, "declare"
        if kind == "peek":
            return e.actor, "peek"
        if kind == "handshake":
            return e.actor, "shake"
        if kind == "card_placed":
            slot = data.get("slot")
            if slot is None:
                return e.actor, "hand"
            if slot == NO_KILL:
                return e.actor, NO_KILL
            return e.actor, "on_me" if slot == self.me else "on_other"
        return None

    # ---- handlers --------------------------------------------------------------------------
    def _on_hand(self, e: Event) -> None:
        data = e.data
        self.hands = int(data.get("of", self.hands))
        self.hand = Hand(
            number=int(data.get("number", 0)), beats=int(data.get("beats", 12)), unpicked=int(data.get("unpicked", 0))
        )
        self.hand.slots = dict.fromkeys(self.seats)
        self.contexts = {}
        self.segment = []
        self.beat = 0

    def _on_round(self, e: Event) -> None:
        self.hand.round = int(e.data.get("number", 1))
        self.hand.slots = dict.fromkeys(self.seats)

    def _on_declared(self, e: Event) -> None:
        self.hand.declarers.append(e.actor)

    def _on_look(self, e: Event) -> None:
        self.hand.looks[int(e.data["position"])] = e.data["card"]

    def _on_handshake(self, e: Event) -> None:
        self.hand.offers[e.actor] = self.beat

    def _on_death(self, e: Event) -> None:
        data = e.data
        by = tuple(data.get("by") or ())
        self.hand.deaths.append(HandDeath(data["player"], by, data.get("cause", "kill"), self.hand.round))
        self.hand.offers.clear()

    def _on_placed(self, e: Event) -> None:
        self.hand.slots[e.actor] = e.data.get("slot")

    def _on_kill(self, e: Event) -> None:
        self.hand.attempts.append((e.actor, e.data.get("target")))
        self.hand.slots[e.actor] = e.data.get("target")

    def _on_retracted(self, e: Event) -> None:
        self.hand.slots[e.actor] = None  # the card goes back to the killer's hand

    def _on_hand_over(self, e: Event) -> None:
        data = e.data
        if self.contexts:  # the hand ended in the beat after my last request (or I died in it)
            self._file(consecutive=True)
            self.segment = []
        roles = data.get("roles") or {}
        for who, context, category in self.hand.observed:
            card = roles.get(who)
            if card is not None:
                self.habits.learn(who, card, context, category)
        self.hand.observed = []
        self.bonus = {n: int(v) for n, v in (data.get("bonus") or self.bonus).items()}
        self.scores = {n: int(v) for n, v in (data.get("scores") or self.scores).items()}
        self.played += 1
        for name in self.seats:
            if self.bonus.get(name, 0) == 0:
                self.wiped[name] += 1
        declared = set(self.hand.declarers)
        for death in data.get("deaths") or ():
            by = death.get("by") or []
            victim = death.get("player")
            if death.get("cause") == KILL and len(by) == 1 and by[0] in roles and victim in roles:
                column = victim_kind(roles[victim], victim in declared)
                self.good[by[0]] += GOOD_KILLS.get((roles[by[0]], column), 0)

    # ---- derived ---------------------------------------------------------------------------
    @property
    def hands_left(self) -> int:
        """Hands still to come after this one."""
        return max(0, self.hands - self.hand.number)

    def likelihoods(self) -> dict[str, dict[str, float]]:
        return {o: self.habits.likelihood(o, self.hand.observed) for o in self.opponents}

    def worlds(self, card: str) -> list[tuple[dict[str, str], float]]:
        """Every assignment of cards to the opponents with its probability, given my card, my looks
        and how each opponent has played this hand."""
        like = self.likelihoods()
        hidden = self.hidden(card)
        out: list[tuple[dict[str, str], float]] = []

        def deal(i: int, left: Counter[str], cards: dict[str, str], weight: float) -> None:
            if i == len(self.opponents):
                out.append((dict(cards), weight))
                return
            name = self.opponents[i]
            for c in CARDS:
                n = left[c]
                if n <= 0:
                    continue
                w = weight * n * like.get(name, {}).get(c, 1.0)
                if w <= 0.0:
                    continue
                left[c] -= 1
                cards[name] = c
                deal(i + 1, left, cards, w)
                left[c] += 1
                del cards[name]

        deal(0, hidden, {}, 1.0)
        total = sum(w for _, w in out)
        return [(cards, w / total) for cards, w in out] if total > 0 else []

    def hidden(self, card: str) -> Counter[str]:
        """The cards I have not seen: the deck less mine and the ones I looked at."""
        left = Counter(self.deck)
        left[card] -= 1
        for seen in self.hand.looks.values():
            left[seen] -= 1
        return left

    def look_odds(self, card: str, world: Mapping[str, str]) -> dict[str, float]:
        """P(an unpicked card I have not seen is ``c``) in ``world``."""
        left = self.hidden(card)
        for c in world.values():
            left[c] -= 1
        n = sum(left.values())
        return {c: left[c] / n for c in CARDS if left[c] > 0} if n > 0 else {}

    def unseen_positions(self) -> list[int]:
        return [p for p in range(1, self.hand.unpicked + 1) if p not in self.hand.looks]


SEGMENT_TYPES = frozenset(
    {"death", "kill", "cop_declared", "declaration_void", "peek", "handshake", "card_placed", "speech", *STOPS}
)

READERS: dict[str, Callable[[Table, Event], None]] = {
    "hand": Table._on_hand,
    "round": Table._on_round,
    "cop_declared": Table._on_declared,
    "cop_look": Table._on_look,
    "handshake": Table._on_handshake,
    "death": Table._on_death,
    "card_placed": Table._on_placed,
    "kill": Table._on_kill,
    "retracted": Table._on_retracted,
    "hand_over": Table._on_hand_over,
}
