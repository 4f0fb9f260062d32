"""A player answers a bank's positions once each: ``arena positions run BANK --player SPEC -o RUN.jsonl``.

The run file is JSON lines: a ``header`` (bank, player, seed, started), one ``answer`` per position
(:class:`arena.positions.answer.Scored`: the answer, its score, and for a model its calls, tokens and
dollars), and a ``summary`` (positions asked, calls, tokens, dollars, why it stopped and, against
another run, the comparison). Positions are asked in the bank's order, game by game, so a model's
positions of one seat share its prompt's prefix in the provider's cache.

With ``against`` (another player's run over the same bank) the comparison is updated after each
game; ``until_decided`` asks no more positions of a skill once it is decided, and stops once every
skill the bank holds is (:mod:`.compare`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.players.registry import builtin_kind
from arena.tournament.sequential import UNDECIDED

from .answer import Scored, fork_and_play, fresh_player, position_seed, score
from .bank import Games, Position, load_bank, numbered_lines
from .compare import TARGET, Comparison, by_game

FORMAT = 1
TOKENS = ("input_tokens", "cached_tokens", "cache_write_tokens", "output_tokens")


class RunError(ValueError):
    """A run file that cannot be read, or one that does not fit (one line)."""


def read_run(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A run's header and its answer rows."""
    header: dict[str, Any] | None = None
    rows = []
    for number, line in numbered_lines(path, RunError, "run"):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RunError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise RunError(f"{path}:{number}: not a run record")
        if row.get("type") == "header":
            header = row
        elif row.get("type") == "answer":
            rows.append(row)
    if header is None or "player" not in header:
        raise RunError(f"{path}: not a positions run (no header line naming its player)")
    return header, rows


@dataclass(slots=True)
class RunResult:
    """What a run did: its answers, totals, and (against another run) the comparison."""

    player: str
    rows: list[dict[str, Any]]
    stopped: str  # "bank" (all asked), "max" (--max), "decided" (until_decided)
    usage: dict[str, float] = field(default_factory=dict)
    comparison: Comparison | None = None

    def summary(self) -> dict[str, Any]:
        return {
            "type": "summary",
            "positions": len(self.rows),
            "games": len(by_game(self.rows)),
            "stopped": self.stopped,
            "usage": self.usage,
            "comparison": self.comparison.as_json() if self.comparison is not None else None,
        }


def _add(usage: dict[str, float], scored: Scored) -> None:
    usage["calls"] = usage.get("calls", 0) + scored.calls
    usage["cost"] = round(usage.get("cost", 0.0) + scored.cost, 6)
    for key in TOKENS:
        usage[key] = usage.get(key, 0) + int(scored.usage.get(key) or 0)


async def run_bank(
    spec: str,
    bank: Path | None = None,
    out: Path | None = None,
    *,
    max_positions: int | None = None,
    seed: int = 0,
    against: tuple[str, Mapping[str, Mapping[str, Any]]] | None = None,
    until_decided: bool = False,
    target: float = TARGET,
    make: Callable[[Position, Any], Any] | None = None,
    positions: list[Position] | None = None,
    baselines: dict[str, float | None] | None = None,
) -> RunResult:
    """Ask ``spec`` every position of ``bank`` (default: the shipped bank) once, write ``out``.

    ``against``: (the other player's spec, its answers by position id); ``make(position, game)``
    builds the player of each position (default: a fresh player of ``spec``); ``positions``:
    the bank already loaded; ``baselines``: the recorded speeches' suspicions by position id,
    shared between runs of the same seed (they are the same for every player).
    """
    cache = {} if baselines is None else baselines

    def baseline(position: Position) -> float | None:
        if position.id not in cache:
            cache[position.id] = fork_and_play(games(position), position, None, position_seed(position, seed))
        return cache[position.id]

    positions = load_bank(bank) if positions is None else positions
    total = len(positions)
    if max_positions is not None:
        positions = positions[:max_positions]
    make = make or fresh_player(spec, seed)
    games = Games(bank)
    comparison = Comparison(spec, against[0], target=target) if against is not None else None
    kinds = {p.kind for p in positions}
    file = None
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        file = out.open("w", encoding="utf-8")
        header = {"type": "header", "format": FORMAT, "bank": str(bank) if bank else "(shipped)", "player": spec, "seed": seed}
        file.write(json.dumps({**header, "started": datetime.now(UTC).isoformat(timespec="seconds")}) + "\n")
    rows: list[dict[str, Any]] = []
    usage: dict[str, float] = {}
    stopped = "max" if len(positions) < total else "bank"
    game_rows: list[dict[str, Any]] = []
    try:
        for i, position in enumerate(positions):
            settled = until_decided and comparison is not None and comparison.skills[position.kind].status != UNDECIDED
            if not settled:  # a skill already decided is asked no more
                scored = await score(games(position), position, make, seed=seed, baseline=baseline)
                row = scored.row()
                rows.append(row)
                game_rows.append(row)
                _add(usage, scored)
                if file is not None:
                    file.write(json.dumps(row, ensure_ascii=False) + "\n")
                    file.flush()
            last_of_game = i + 1 == len(positions) or positions[i + 1].game != position.game
            if comparison is not None and last_of_game:
                theirs = against[1]  # type: ignore[index]
                comparison.add_game([(r, theirs[r["id"]]) for r in game_rows if r["id"] in theirs])
                if until_decided and comparison.done(kinds):
                    stopped = "decided"
                    break
            if last_of_game:
                game_rows = []
        result = RunResult(spec, rows, stopped, usage, comparison)
        if file is not None:
            file.write(json.dumps(result.summary(), ensure_ascii=False) + "\n")
        return result
    finally:
        if file is not None:
            file.close()
        if builtin_kind(spec) is None:
            from arena.players.llm import close_clients

            await close_clients()
