"""Recorded games of bots to take positions from (the shipped bank, the tests, the benchmark)."""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from arena.players.registry import make_player
from arena.run.orchestrator import run_sync
from arena.run.transcript import TranscriptWriter
from arena.variants import get_variant


def record_games(
    folder: Path,
    variant: str,
    seeds: Iterable[int],
    seat_specs: Callable[[int, list[str]], Mapping[str, str]] | None = None,
    *,
    compress: bool = False,
) -> list[Path]:
    """Play one game of ``variant`` per seed with bots (``seat_specs(seed, seats)``: seat -> spec,
    default every seat ``bot``), each written to ``folder/VARIANT-SEED.jsonl`` (``.gz`` with
    ``compress``)."""
    cls = get_variant(variant)
    seats = [f"P{i}" for i in range(1, cls.default_players + 1)]
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for seed in seeds:
        specs = dict(seat_specs(seed, seats)) if seat_specs is not None else dict.fromkeys(seats, "bot")
        game = cls(seats, {}, seed)
        path = folder / f"{variant}-{seed}.jsonl"
        path.unlink(missing_ok=True)
        with TranscriptWriter(path, game, specs) as writer:
            run_sync(game, {s: make_player(specs[s], s, seed) for s in seats}, [writer])
        if compress:
            packed = path.with_name(path.name + ".gz")
            packed.write_bytes(gzip.compress(path.read_bytes(), mtime=0))
            path.unlink()
            path = packed
        out.append(path)
    return out
