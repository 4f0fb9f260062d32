"""``classic``: silent simultaneous shots, charge then execution votes, the floor, the lot.

Mafia cannot talk at night here, so partners agree on a shot only through the team's public
convention (:mod:`arena.players.convention`): the team's latest accusation names the shot. Someone dies
every day anyway (the lot), so a town bot always accuses its top suspect: a trial of the best
guess beats a random draw, and the votes it produces are evidence. An accusation starts a trial
at once, so a bot with nothing to go on waits until every living seat has had its turn that day
(issue 30.9: a person at the table gets to speak on day 1).
"""

from __future__ import annotations

from typing import ClassVar

from arena.engine import DecisionRequest

from .daynight import DayNightStrategy


class ClassicStrategy(DayNightStrategy):
    variant: ClassVar[str] = "classic"
    investigator: ClassVar[str] = "inspector"

    def first_round(self, req: DecisionRequest) -> bool:
        """Has some living seat not yet had a discussion turn today? (The turns go round the
        table from the day's opener and a day ends at its one death, so after as many turns as
        there are living players everyone has spoken once; this turn is the speaker's own.)"""
        clock = req.clock
        if clock is None or clock.unit != "discussion turn" or clock.total <= 0:
            return False
        return clock.total - clock.left < len(self.mem.alive) - 1

    def holds_fire(self, req: DecisionRequest, target: str | None) -> bool:
        """An accusation starts a trial at once, so a bot without information does not open one
        before every living seat has had its turn (issue 30.9: a person gets to speak on day 1).
        Information is a claim on the table (a check result or a card to answer), my own claim
        in this speech, my own "mafia" check, or a reason to state about the target (a vote, an
        accusation, a night's kill behind it). Mafia bots hold as town bots do: an early
        accusation would otherwise mark its maker."""
        if target is None or self._claiming or not self.first_round(req):
            return False
        mem = self.mem
        if mem.claims or any(r == "mafia" and t in mem.alive for t, r in mem.my_checks.items()):
            return False
        return not mem.reasons(target)
