"""``duel``: McKay's two-player Mafia (2007). Spec: docs/rules/mckay.md, "duel".

A hand is one run of the clock (12 beats by default). In a beat each player may kill the
other, declare cop and look at one unpicked card (first come, first served: the hand's only
declaration), offer a handshake, or pass, always with optional speech. The hand ends at a kill,
an agreed handshake or when the beats run out; it is then scored by the kill tables and the
bonus multiplier (see :mod:`.scoring`).

Readings fixed here (the page is silent):
- A handshake offer stands for the beat it is made in and the next one ("one offers and the
  other offers in the next beat"); a kill in a beat outranks any handshake in it.
- A same-beat second declaration is void (announced as ``declaration_void``); a declaration in
  a later beat is rejected.
- Two kills in one beat are simultaneous (``simultaneous_kills``) because nothing tells who spoke
  first. At a table on the wall clock the answers' arrival times do: the earlier kill stands and
  the later killer's kill fails, told to the table (``kill_void``, with who came first); only an exact
  tie is simultaneous.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from arena.engine import ActionBase, Option, Phase, Repertoire

from .common import McKayGame, McKayOptions
from .scoring import COP, KILL, MAFIA, SIMULTANEOUS, TP, duel_hand, duel_reasons


class DuelOptions(McKayOptions):
    simultaneous_kills: Literal["both_die", "random"] = Field(
        "both_die",
        description='Two kills in one beat: "both_die" (nobody scores, both bonuses to 0) or "random" '
        "(a seeded draw of the first).",
    )


class Duel(McKayGame):
    name = "duel"
    title = "Two-player Mafia (McKay 2007)"
    min_players = 2
    max_players = 2
    default_players = 2
    DECK = (TP, TP, MAFIA, MAFIA, COP)
    Options = DuelOptions
    ROUND_PHASES: ClassVar[dict[int, str]] = {1: "beat"}
    SCORING = staticmethod(duel_hand)
    REASONS = staticmethod(duel_reasons)
    options: DuelOptions

    def _new_hand(self) -> None:
        super()._new_hand()
        self.offers: dict[str, int] = {}  # player -> the beat of his latest handshake offer

    def repertoire(self, player: str) -> Repertoire:
        options = self.beat_repertoire()
        return Repertoire(tuple(options), talk=frozenset(o.kind for o in options))

    # ---- asking -----------------------------------------------------------------------------
    def beat_options(self, player: str) -> list[Option]:
        options = [Option("pass"), self.kill_option(player)]
        if not self.declarers:
            options.append(self.declare_option())
        options.extend(self.extra_options(player))
        options.append(Option("handshake"))
        return options

    def extra_options(self, player: str) -> list[Option]:
        """Kinds a variant adds to a beat (duel3: the second look)."""
        return []

    def beat_question(self, player: str) -> str:
        others = " or ".join(self.targets(exclude=(player,)))  # one action per beat: this one or that one
        cop = (
            ("You declared cop this hand." if self.declarers[0] == player else f"{self.declarers[0]} has declared cop this hand.")
            if self.declarers
            else "Nobody has declared cop yet: the first to declare (first come, first served) looks at one of them."
        )
        offers = [n for n, b in self.offers.items() if b >= self.beat - 1 and n != player]
        shake = f" {', '.join(offers)} offered a handshake; offer one now to accept." if offers else ""
        return (
            f"Your card: {self.role_of[player]}. Unpicked face down: positions 1–{len(self.unpicked)}. {cop}{shake} "
            f"You may kill {others}, offer a handshake (every living player must offer, in this beat "
            "or the next; it ends the hand at once, scored with everyone alive surviving), or pass; speech goes "
            "to everyone."
        )

    def _ask_beat(self) -> list:
        return [self.beat_request(p, self.beat_question(p), self.beat_options(p)) for p in self.alive]

    # ---- resolving ----------------------------------------------------------------------------
    def _on_beat(self, answers: dict[str, ActionBase]) -> None:
        self.publish_speech(answers)
        self.resolve_looks(answers)
        for name in self.seats:
            action = answers.get(name)
            if action is not None and action.kind == "handshake":
                self.offers[name] = self.beat
                self.public("handshake", actor=name)
        kills = [(n, answers[n].target) for n in self.first_come() if n in answers and answers[n].kind == "kill"]
        dead_before = len(self.hand_deaths)
        self.resolve_kills(kills)
        if len(self.alive) <= 1:
            self.end_hand("kill")
            return
        if len(self.hand_deaths) > dead_before:
            self.offers.clear()  # a death changes the table: offers must be made again
        elif all(self.offers.get(n, -1) >= self.beat - 1 for n in self.alive):
            self.end_hand("handshake")
            return
        self.tick()

    def resolve_kills(self, kills: list[tuple[str, str]]) -> None:
        """Between two players: one kill stands; two in one beat are simultaneous, unless their
        arrival times tell who was first (a table on the wall clock)."""
        times = self.arrivals
        if len(kills) == 2 and all(k in times for k, _ in kills) and times[kills[0][0]] != times[kills[1][0]]:
            (first, victim), (late, target) = kills  # first_come() order: the earlier kill first
            self.kill(victim, (first,), KILL)
            self.public("kill_void", actor=late, target=target, reason=self.came_first(first, late))
            return
        if len(kills) == 2:
            if self.options.simultaneous_kills == "both_die":
                for killer, victim in kills:
                    self.kill(victim, (killer,), SIMULTANEOUS)
                return
            first = kills[self.rng.randrange(2)]
            self.note("simultaneous_draw", first=first[0], kills=[list(k) for k in kills])
            kills = [first]
        for killer, victim in kills:
            self.kill(victim, (killer,), KILL)

    PHASES: ClassVar[dict[str, Phase]] = {
        "hand": Phase(None, McKayGame._start_hand),
        "beat": Phase(_ask_beat, _on_beat),
    }
