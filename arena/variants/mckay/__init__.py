"""Joe McKay's small-table games, played as matches of scored hands (spec: rules/mckay.md).

``common`` holds what they share (the match, the deal with unpicked cards, the beat clock and
round order, declarations and looks, end of hand, scenario hooks), ``scoring`` every table as
data, and there is one module per game. The scenario format: docs/scenarios.md.
"""

from .duel import Duel
from .duel3 import Duel3
from .trio import Trio

__all__ = ["Duel", "Duel3", "Trio"]
