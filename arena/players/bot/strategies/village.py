"""``village``: the first day only talks, trials go to the most accused, cards are shown on death,
the mafia agree on the night channel, the detective's hit is an arrest and the doctor guards.

Accusations decide who is tried, so town bots lean towards players already accused today by
players they trust (``herd``). A detective's "mafia" is arrested at dawn anyway, so it comes out
for its clears (to protect them), when on trial, when someone fakes its card, or late.
"""

from __future__ import annotations

from typing import ClassVar

from arena.engine import DecisionRequest

from .daynight import DayNightStrategy


class VillageStrategy(DayNightStrategy):
    variant: ClassVar[str] = "village"
    investigator: ClassVar[str] = "detective"
    herd: ClassVar[float] = 0.5
    fake_claim_chance: ClassVar[float] = 0.1

    def wants_to_accuse(self, req: DecisionRequest, top: float) -> bool:
        return self.mem.day > 1 or top >= 1.0

    def mafia_wants_to_accuse(self, req: DecisionRequest) -> bool:
        return self.mem.team_known  # day 1: partners unknown, and nothing is tried anyway

    def should_claim(self, req: DecisionRequest) -> bool:
        mem = self.mem
        if super().should_claim(req):
            return True
        clears = sum(1 for t, r in mem.my_checks.items() if r == "not mafia" and t in mem.alive)
        return not mem.my_claimed and clears >= 2 and mem.day >= 3
