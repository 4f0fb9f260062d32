"""``village``: the first day only talks, trials go to the most accused, cards are shown on death,
the mafia agree on the night channel, the detective's hit is an arrest and the doctor guards.

Accusations decide who is tried; town bots still accuse their own top suspect (following the
day's first accusations would hand the trial to whoever speaks first, often mafia). A detective's
"mafia" is arrested at dawn anyway, so it comes out with its first result: its clears protect
townspeople, and a claimed detective draws the doctor.
"""

from __future__ import annotations

from typing import ClassVar

from arena.engine import DecisionRequest

from .daynight import DayNightStrategy


class VillageStrategy(DayNightStrategy):
    variant: ClassVar[str] = "village"
    investigator: ClassVar[str] = "detective"
    execute_margin: ClassVar[float] = 0.3
    fake_claim_chance: ClassVar[float] = 0.1

    def wants_to_accuse(self, req: DecisionRequest, target: str, standout: float) -> bool:
        return self.mem.day > 1 or self.mem.suspicion(target) >= 1.0

    def mafia_wants_to_accuse(self, req: DecisionRequest, target: str) -> bool:
        return self.mem.team_known  # day 1: partners unknown, and nothing is tried anyway

    def should_claim(self, req: DecisionRequest) -> bool:
        # every check is either an arrest (public anyway) or a clear worth spreading at once;
        # a claimed detective draws the doctor's guard
        return super().should_claim(req) or (bool(self.mem.my_checks) and not self.mem.my_claimed)
