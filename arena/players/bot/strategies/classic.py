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

from .daynight import DayNightStrategy


class ClassicStrategy(DayNightStrategy):
    variant: ClassVar[str] = "classic"
    investigator: ClassVar[str] = "inspector"
    hear_everyone: ClassVar[bool] = True
