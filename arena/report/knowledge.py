"""What one seat knew, moment by moment, and claims judged by it.

A claim is public (it rides on the speech), but whether it was true is not: judged against the
cards it is the moderator's verdict, and showing that verdict in a seat's view would tell that
player what the game never told them ("Bob is inspector; never checked"). So every seat judges
claims with its own :class:`Knowledge`, built from the events it saw (``Event.visible_to``) up
to the claim: its own card, its team, its checks, cards shown at a death, and in McKay's games
the card it looked at. A statement the seat could not judge gets no mark in its view.

The same knowledge colours names in a seat's view: :attr:`Knowledge.facts` lists, in the order
learned, which side the seat knew each player to be on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.engine import Event

#: names of one card across variants: a claim of any of them is true of the others
ROLE_FAMILIES = (
    frozenset(("citizen", "villager", "civilian", "townsperson", "townie", "town")),
    frozenset(("inspector", "detective", "cop", "sheriff")),
)
COP = "cop"  # McKay's cop card
RESET = "*"  # a fact that forgets everything: a new McKay hand deals new cards


def same_role(claimed: str, real: str) -> bool:
    """Whether a claimed role names the real card ("detective" for an inspector is true)."""
    a, b = claimed.strip().lower(), real.strip().lower()
    return a == b or any(a in family and b in family for family in ROLE_FAMILIES)


def canonical_role(claimed: str, roles: Iterable[str]) -> str | None:
    """The variant's card that a claimed role names ("detective" is classic's inspector), if any."""
    return next((role for role in roles if same_role(claimed, role)), None)


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a statement was true, and how the judge knows when it was not."""

    true: bool
    note: str = ""


@dataclass(slots=True)
class Statement:
    """One statement of a public claim ("Cid is inspector"), with each judge's verdict.

    ``truth`` is the moderator's (None in a seat's own page: the truth is not in it); ``views``
    groups the seats that judged it alike: ``(names, verdict)``. Seats that could not judge it are
    in no group.
    """

    text: str
    truth: Verdict | None = None
    views: list[tuple[list[str], Verdict]] = field(default_factory=list)


def composition(variant: str, header: Mapping[str, Any], events: Sequence[Event]) -> Counter[str]:
    """The cards in play, as the rules make them public: the end's reveal, else the variant's deck.

    Used only to know which cards are unique ("I hold the inspector card, so Bob's claim is
    false"); an unknown deck just judges fewer claims.
    """
    over = next((e for e in reversed(events) if e.type == "game_over" and e.to is None), None)
    from arena.variants import VARIANTS

    cls = VARIANTS.get(variant)
    deck = getattr(cls, "DECK", None)
    if deck is not None:  # McKay: one fixed deck, most of it dealt anew each hand
        return Counter(deck)
    if over is not None and isinstance(over.data.get("roles"), dict):
        return Counter(map(str, over.data["roles"].values()))
    try:
        game = cls(list(header.get("seats") or []), header.get("options") or {}, 0)  # type: ignore[misc]
    except Exception:  # a variant or options this version cannot build: judge without it
        return Counter()
    return Counter(game.role_of.values())


class Knowledge:
    """One seat's knowledge of the cards, fed with the events it saw, in order."""

    def __init__(self, name: str, seats: Sequence[str], team_of: Mapping[str, str], deck: Counter[str]) -> None:
        self.name = name
        self.seats = list(seats)
        self.team_of = dict(team_of)
        self.deck = deck
        two_sides = set(team_of.values()) <= {"town", "mafia"}
        self.not_mafia = "town" if two_sides else "notmafia"  # what "not mafia" says of a side
        self.cards: dict[str, tuple[str, str]] = {}  # seat -> (card, how it is known)
        self.sides: dict[str, tuple[str, str]] = {}  # seat -> ("mafia" / "town" / "maniac" / "notmafia", how)
        self.dead: set[str] = set()
        self.cop_away = ""  # McKay: how this seat knows the cop card lies face down
        self.facts: list[tuple[int, str, str]] = []  # (seq, seat, side) as learned; (seq, RESET, "") after a hand

    # ---- learning ------------------------------------------------------------------------------
    def _side(self, seq: int, seat: str, side: str, how: str, *, strong: bool = False) -> None:
        if seat in self.sides and not strong:
            return
        if self.sides.get(seat, ("", ""))[0] != side:
            self.facts.append((seq, seat, side))
        self.sides[seat] = (side, how)

    def _card(self, seq: int, seat: str, card: str, how: str) -> None:
        self.cards[seat] = (card, how)
        self._side(seq, seat, self.team_of.get(card, card), how, strong=True)

    def see(self, event: Event) -> None:
        """Learn what ``event`` tells this seat (call it only for events the seat saw)."""
        t, data = event.type, event.data
        if t == "hand_over":  # McKay: the next hand deals new cards (its own are dealt before its header)
            self.cards, self.sides, self.dead, self.cop_away = {}, {}, set(), ""
            self.facts.append((event.seq, RESET, ""))
        elif t == "role" and event.audience == f"player:{self.name}":
            self._card(event.seq, self.name, str(data.get("role")), "your card")
        elif t == "team":
            team = event.audience.removeprefix("team:")
            members = [str(m) for m in data.get("members") or []]
            mine = self.name in members
            for member in members:
                self._side(event.seq, member, team, "your team" if mine else f"told: {team} team", strong=True)
            if mine and team == "mafia":  # the whole living team is named: everyone else is not mafia
                for seat in self.seats:
                    if seat not in members and seat not in self.dead:
                        self._side(event.seq, seat, self.not_mafia, "not on your team")
        elif t == "check_result" and event.to is not None and self.name in event.to:
            result, target = data.get("result"), str(data.get("target"))
            if result in ("mafia", "not mafia"):
                side = "mafia" if result == "mafia" else self.not_mafia
                self._side(event.seq, target, side, "your check", strong=target not in self.cards)
        elif t == "death" and event.to is None:
            player = str(data.get("player"))
            self.dead.add(player)
            if data.get("role"):
                self._card(event.seq, player, str(data["role"]), "card shown at death")
        elif t == "cop_look" and data.get("card") == COP:
            self.cop_away = f"you saw the cop card face down (card {data.get('position')})"

    # ---- judging ---------------------------------------------------------------------------------
    def _is_mafia(self, seat: str) -> tuple[bool, str] | None:
        side = self.sides.get(seat)
        if side is None:
            return None
        return side[0] == "mafia", side[1]

    def _card_note(self, seat: str) -> str:
        card, how = self.cards[seat]
        return f"your card is {card}" if seat == self.name else f"{seat}'s card is {card} ({how})"

    def judge_role(self, speaker: str, claimed: str) -> Verdict | None:
        """``speaker`` says they hold ``claimed``: true, false, or None when this seat cannot tell."""
        card = self.cards.get(speaker)
        if card is not None:
            true = same_role(claimed, card[0])
            return Verdict(true, "" if true else self._card_note(speaker))
        role = canonical_role(claimed, self.team_of)
        side = self._is_mafia(speaker)
        if role is not None and side is not None:
            claims_mafia = self.team_of[role] == "mafia"
            if claims_mafia != side[0]:
                return Verdict(False, f"{speaker} is {'mafia' if side[0] else 'not mafia'} ({side[1]})")
        if role is not None and self.deck.get(role) == 1:
            holder = next((s for s, (c, _) in self.cards.items() if s != speaker and c == role), None)
            if holder is not None:
                if holder == self.name:
                    return Verdict(False, f"you hold the only {role} card")
                return Verdict(False, f"{holder} holds the only {role} card ({self.cards[holder][1]})")
        return None

    def judge_check(self, target: str, result: str) -> Verdict | None:
        """Someone says a check showed ``target`` is ``result`` ("mafia" / "not mafia")."""
        side = self._is_mafia(target)
        if side is None:
            return None
        actual = "mafia" if side[0] else "not mafia"
        return Verdict(result == actual, "" if result == actual else f"{target} is {actual} ({side[1]})")

    def judge_cop(self, declarer: str) -> Verdict | None:
        """McKay: ``declarer`` says "I am the cop"."""
        card = self.cards.get(declarer)
        if card is not None:
            true = card[0] == COP
            return Verdict(true, "" if true else self._card_note(declarer))
        mine = self.cards.get(self.name)
        if mine is not None and mine[0] == COP:
            return Verdict(False, "you hold the cop card")
        if self.cop_away:
            return Verdict(False, self.cop_away)
        return None

    # ---- for the page ----------------------------------------------------------------------------
    def side_of(self, seat: str) -> tuple[str, str] | None:
        """What this seat knows of ``seat``: its card if known, else its side ("mafia", "not mafia")."""
        card = self.cards.get(seat)
        if card is not None:
            return card
        side = self.sides.get(seat)
        if side is None:
            return None
        return ("mafia" if side[0] == "mafia" else "not mafia"), side[1]


def group_views(verdicts: Mapping[str, Verdict | None]) -> list[tuple[list[str], Verdict]]:
    """Seats that judged a statement alike, in seat order: ``[(names, verdict), …]``."""
    groups: dict[Verdict, list[str]] = {}
    for name, verdict in verdicts.items():
        if verdict is not None:
            groups.setdefault(verdict, []).append(name)
    return [(names, verdict) for verdict, names in groups.items()]
