"""``duel3``: the 2007 seed's three-player variation. Spec: docs/rules/mckay.md, "duel3".

Seven cards (3 TP, 3 mafia, 1 cop; 4 unpicked), 18 beats. While all three live, kills of one
beat are applied one by one in the round's order (the arrival order at a table on the wall
clock), each only if its killer and its victim are
still alive ("no sharing responsibility"); a kill that fails so is public (``kill_void``, with
why). The first dead player's card stays face down and he
is asked nothing more; the two finalists play on as in ``duel``. The hand's first declarer, if
he declared before the first death and still lives, may ``peek`` at a second unpicked card in
any beat after it. Scoring: each death in order by the duel tables, then the survivors.

Readings fixed here (the page is silent):
- Handshake offers follow ``duel`` (an offer stands for its beat and the next) and need every
  living player; a death clears all standing offers.
- A declaration made in the beat of the first death counts as made before it (turns.md resolves
  declarations before kills).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from arena.engine import DecisionRequest, FieldSpec, Option, Phase, Repertoire

from .common import McKayGame
from .duel import Duel, DuelOptions
from .scoring import COP, KILL, MAFIA, TP


class Duel3Options(DuelOptions):
    beats: int = Field(18, ge=1, description="Beats per hand: 6 per minute of the seed's 3-minute timer.")


class Duel3(Duel):
    name = "duel3"
    title = "Three-player duel variation (McKay 2007)"
    min_players = 3
    max_players = 3
    default_players = 3
    DECK = (TP, TP, TP, MAFIA, MAFIA, MAFIA, COP)
    Options = Duel3Options

    def _new_hand(self) -> None:
        super()._new_hand()
        self.early_declaration = False  # the first declaration came before the first death

    def repertoire(self, player: str) -> Repertoire:
        peek = Option(
            "peek", {"position": FieldSpec(self.all_positions())},
            "As the hand's first declarer (declared before the first death), after the first death: look at a "
            "second face-down card.",
        )  # fmt: skip
        options = [*self.beat_repertoire()[:3], peek, self.beat_repertoire()[3]]
        return Repertoire(tuple(options), talk=frozenset(o.kind for o in options))

    def declare(self, name: str, position: int | None) -> bool:
        counted = super().declare(name, position)
        if counted:
            self.early_declaration = not self.hand_deaths
        return counted

    def _may_peek(self, player: str) -> bool:
        return (
            self.early_declaration
            and bool(self.hand_deaths)
            and self.declarers[0] == player
            and self.is_alive(player)
            and sum(1 for looker, _ in self.looks if looker == player) < 2
        )

    def extra_options(self, player: str) -> list[Option]:
        if not self._may_peek(player):
            return []
        seen = {p for looker, p in self.looks if looker == player}
        spec = FieldSpec(
            tuple(p for p in self.positions() if p not in seen),
            forbidden={p: f"you already looked at card {p}: the second look is at another card" for p in seen},
        )
        return [Option("peek", {"position": spec})]

    def beat_question(self, player: str) -> str:
        question = super().beat_question(player)
        if self.hand_deaths:
            question += f" {self.hand_deaths[0].player} is dead (card face down, silent)."
        if self._may_peek(player):
            question += " As the first declarer you may now peek at a second unpicked card."
        return question

    def resolve_kills(self, kills: list[tuple[str, str]]) -> None:
        """Three alive: one by one in first-come order (``first_come``); two alive: as ``duel``."""
        if len(self.alive) == 2:
            super().resolve_kills(kills)
            return
        for killer, victim in kills:
            if self.is_alive(killer) and self.is_alive(victim):
                self.kill(victim, (killer,), KILL)
            else:
                why = (
                    "its killer was killed first, earlier in this beat's hidden order"
                    if not self.is_alive(killer)
                    else ("its victim was already killed, earlier in this beat's hidden order")
                )
                self.public("kill_void", actor=killer, target=victim, reason=why)  # the table sees the failed kill

    def _no_peek(self, request: DecisionRequest) -> str | None:
        player = request.player
        if not self.declarers or self.declarers[0] != player:
            return "only the hand's first cop declarer may peek: there is no look without declaring"
        if not self.early_declaration:
            return "your declaration came after the first death: there is no second look"
        if not self.hand_deaths:
            return "the second look comes only after the first death"
        return "you already took your second look this hand"

    REFUSALS: ClassVar = {**McKayGame.REFUSALS, "peek": _no_peek}

    PHASES: ClassVar[dict[str, Phase]] = Duel.PHASES
