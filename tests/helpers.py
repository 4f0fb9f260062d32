"""Small builders shared by the engine and variant tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.engine import Game
from arena.orchestrator import run_sync
from arena.players.scripted import OutOfAnswers, ScriptedPlayer
from arena.variants import get_variant


def scripted_game(
    variant: str,
    deal: Mapping[str, str],
    answers: Mapping[str, Sequence[Any]],
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> tuple[Game, OutOfAnswers | None]:
    """Play a scripted game until it ends or a script runs out; returns the game and the stop."""
    seats = list(deal)
    game = get_variant(variant)(seats, options, seed, deal=deal)
    players = {n: ScriptedPlayer(n, answers.get(n, [])) for n in seats}
    try:
        run_sync(game, players)
    except OutOfAnswers as out:
        return game, out
    return game, None


def events(game: Game, type_: str) -> list[dict[str, Any]]:
    return [e.to_dict() for e in game.log if e.type == type_]


def speak(speech: str = "", **fields: Any) -> dict[str, Any]:
    return {"kind": "speak", "speech": speech, **fields}


def yes() -> dict[str, Any]:
    return {"kind": "verdict", "yes": True}


def no() -> dict[str, Any]:
    return {"kind": "verdict", "yes": False}


def kill(target: str | None) -> dict[str, Any]:
    return {"kind": "kill", "target": target}


def check(target: str) -> dict[str, Any]:
    return {"kind": "check", "target": target}
