"""The scenario runner: a scripted game in, one JSON object out (format: docs/scenarios.md).

Each player answers every request with its next scripted action; a rejected answer is reported
and the next one is tried, exactly like a retry; the run stops at the first request a player
has no answer left for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.engine import Game, dump_action
from arena.engine.actions import ActionBase
from arena.players.scripted import OutOfAnswers, ScriptedPlayer
from arena.run.orchestrator import run_sync
from arena.variants import get_variant


def build_game(spec: Mapping[str, Any]) -> Game:
    return get_variant(spec["variant"]).from_scenario(spec)


def run_scenario(spec: Mapping[str, Any]) -> dict[str, Any]:
    game = build_game(spec)
    scripts = spec.get("answers", {})
    unknown = sorted(set(scripts) - set(game.seats))
    if unknown:
        raise ValueError(f"answers for unknown players: {', '.join(unknown)}")
    players = {name: ScriptedPlayer(name, scripts.get(name, [])) for name in game.seats}
    stopped_at = None
    try:
        run_sync(game, players)
    except OutOfAnswers as out:
        stopped_at = {"player": out.player, "phase": out.request.phase}
    return scenario_output(game, stopped_at)


def _action(value: Any) -> Any:
    return dump_action(value) if isinstance(value, ActionBase) else value


def scenario_output(game: Game, stopped_at: dict[str, str] | None) -> dict[str, Any]:
    checks, rejected, forfeits = [], [], []
    for event in game.log:
        if event.type == "check_result":
            (checker,) = event.to  # told to exactly one player
            checks.append({"by": checker, "target": event.data["target"], "result": event.data["result"]})
        elif event.type == "rejected":
            action = event.data.get("action", event.data.get("raw"))
            rejected.append({"player": event.actor, "action": _action(action), "reason": event.data["reason"]})
        elif event.type == "forfeit":
            forfeits.append({
                "player": event.actor, "phase": event.phase, "day": event.day,
                "action": _action(event.data["action"]), "why": event.data["why"],
            })  # fmt: skip
    out: dict[str, Any] = {
        "finished": game.finished,
        "winner": game.winner,
        "alive": list(game.alive),
        "deaths": [d.to_dict() for d in game.deaths],
        "checks": checks,
        "rejected": rejected,
        "forfeits": forfeits,
        "stopped_at": stopped_at,
    }
    out.update(game.scenario_extras())
    return out
