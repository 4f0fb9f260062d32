"""``cove``: nominations and plurality votes, a "both leave" vote on a tie, a lone maniac.

The shared brain plays the town, the mafia channel, the detective, the doctor and the mistress
(who guards like a doctor). Two things are cove's own: the maniac kills for himself (the
mafia's public ranking of dangerous players, with only himself as a partner), and the
"both leave" vote names no single accused.
"""

from __future__ import annotations

from typing import ClassVar

from arena.engine import ActionBase, DecisionRequest
from arena.engine.actions import Kill, Verdict

from ..legal import choices, safe_action
from .daynight import DayNightStrategy


class CoveStrategy(DayNightStrategy):
    variant: ClassVar[str] = "cove"
    investigator: ClassVar[str] = "detective"

    def shoot(self, req: DecisionRequest) -> ActionBase:
        mem = self.mem
        if mem.team != "maniac":
            return super().shoot(req)
        pool = [n for n in choices(req, "kill", "target") if n != mem.me]
        ranking = self.danger_ranking(pool)
        if not ranking:
            return safe_action(req, self.rng)
        return Kill(target=ranking[0], thought=f"Maniac: {ranking[0]} is the most dangerous to me.")

    def verdict(self, req: DecisionRequest) -> ActionBase:
        if req.info.get("vote") != "both_leave" or req.option("verdict") is None:
            return super().verdict(req)
        mem = self.mem
        pair = [c for c in req.info.get("candidates", ()) if c in mem.alive]
        if mem.is_mafia:
            yes = not any(c in mem.partners for c in pair)
        else:
            _, mean = self.top_and_mean(self.others())
            yes = bool(pair) and mem.me not in pair and all(not mem.confirmed_town(c) and mem.suspicion(c) >= mean for c in pair)
        return Verdict(yes=yes, thought=f"Both {' and '.join(pair)} out? {'yes' if yes else 'no'}.")
