"""Small builders shared by the tests: scripted games and answers, and the tournament runs that
put a bot beside a model seat."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.engine import Game
from arena.players.scripted import OutOfAnswers, ScriptedPlayer
from arena.run.orchestrator import run_sync
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
    cls = get_variant(variant)
    if "speaking_order" in cls.Options.model_fields:  # scripts speak in the fixed rotating order
        options = {"speaking_order": "rotate", **(options or {})}
    game = cls(seats, options, seed, deal=deal)
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


def bot_vs_model_tournament(path: Path, name: str, *, url: str, games: int, concurrency: int) -> Path:
    """Write a tournament config at ``path``: a bot against an OpenAI-style seat at ``url``, 6-seat
    classic with one discussion round; its database and transcripts beside it."""
    folder = path.parent
    path.write_text(
        "\n".join([
            f'name = "{name}"', "seed = 1", f"games = {games}", f"concurrency = {concurrency}",
            f'database = "{folder / f"{name}.sqlite"}"', f'transcripts = "{folder / "tr"}"',
            "[models]", 'bot = "bot"', f'oa = {{ spec = "openai:fake@{url}", concurrency = 8 }}',
            "[[variants]]", 'name = "classic"', "players = 6", "options = { discussion_rounds = 1 }",
        ]) + "\n"
    )  # fmt: skip
    return path


def count_rows(db: Path, table: str, where: str = "") -> int:
    """Rows of a tournament database's ``table`` (0 while the file or its schema is not there yet)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute(f"SELECT COUNT(*) FROM {table} {where}").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def fixed_order(tmp_path: Path, args: Sequence[str]) -> list[str]:
    """``arena play`` arguments for a terminal test scripted in the fixed rotating speaking order
    (day 1 opens at the first seat): a day/night variant gets a config saying so, unless the
    test gives its own; the seeded default is tested in tests/test_turns.py."""
    args = list(args)
    if args and args[0] in ("classic", "cove", "village") and "--config" not in args:
        tmp_path.mkdir(parents=True, exist_ok=True)
        config = tmp_path / "fixed-order.toml"
        config.write_text('[options]\nspeaking_order = "rotate"\n')
        args += ["--config", str(config)]
    return args
