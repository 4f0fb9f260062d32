"""The rules engine: actions, events and views, decision requests, the game base. Pure: no I/O."""

from .actions import ACTION_ADAPTER, KINDS, Action, ActionBase, dump_action, parse_action
from .events import Event, View
from .game import Death, Decision, Game, GameOptions, Phase, RulesError, TurnOptions
from .requests import Clock, DecisionRequest, FieldSpec, Option, Repertoire, Repertoires, Table

__all__ = [
    "ACTION_ADAPTER", "KINDS", "Action", "ActionBase", "Clock", "Death", "Decision",
    "DecisionRequest", "Event", "FieldSpec", "Game", "GameOptions", "Option", "Phase",
    "Repertoire", "Repertoires", "RulesError", "Table", "TurnOptions", "View", "dump_action", "parse_action",
]  # fmt: skip
