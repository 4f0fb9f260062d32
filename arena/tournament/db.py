"""The results database (SQLite): one row per finished game, per player-game and per statistic.

A game's rows are written in one transaction when the game ends, so a run killed at any moment
leaves only whole games behind; an ``attempts`` row is committed when a game starts, so the
transcript of a game cut short is still listed (its file keeps every event played). Re-running
the tournament skips every key already in ``games``.

Tables::

    games(key, variant, players, round, seed, pairing, first, second, fingerprint, winner, reason,
          days, events, cost, seconds, transcript, started, ended)
    player_games(game, seat, model, spec, role, team, side, result, alive, decisions, forfeits,
                 rejections, calls, input_tokens, output_tokens, cost)
    stats(game, seat, role, metric, num, den)        -- see arena.tournament.metrics
    beliefs(game, seat, day, target, p, truth)
    attempts(id, game, transcript, started, error)
    meta(key, value)
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .metrics import Belief, Stat

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    key TEXT PRIMARY KEY, variant TEXT NOT NULL, players INTEGER NOT NULL, round INTEGER NOT NULL,
    seed INTEGER NOT NULL, pairing TEXT NOT NULL, first TEXT NOT NULL, second TEXT NOT NULL,
    fingerprint TEXT NOT NULL, winner TEXT, reason TEXT, days INTEGER, events INTEGER,
    cost REAL NOT NULL, seconds REAL NOT NULL, transcript TEXT NOT NULL, started TEXT NOT NULL, ended TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS player_games (
    game TEXT NOT NULL REFERENCES games(key), seat TEXT NOT NULL, model TEXT NOT NULL, spec TEXT NOT NULL,
    role TEXT NOT NULL, team TEXT NOT NULL, side TEXT NOT NULL, result REAL NOT NULL, alive INTEGER NOT NULL,
    decisions INTEGER NOT NULL, forfeits INTEGER NOT NULL, rejections INTEGER NOT NULL, calls INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cost REAL NOT NULL,
    PRIMARY KEY (game, seat)
);
CREATE TABLE IF NOT EXISTS stats (
    game TEXT NOT NULL REFERENCES games(key), seat TEXT NOT NULL, role TEXT NOT NULL, metric TEXT NOT NULL,
    num REAL NOT NULL, den REAL NOT NULL, PRIMARY KEY (game, seat, role, metric)
);
CREATE TABLE IF NOT EXISTS beliefs (
    game TEXT NOT NULL REFERENCES games(key), seat TEXT NOT NULL, day INTEGER NOT NULL, target TEXT NOT NULL,
    p REAL NOT NULL, truth INTEGER NOT NULL, PRIMARY KEY (game, seat, day, target)
);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT, game TEXT NOT NULL, transcript TEXT NOT NULL, started TEXT NOT NULL,
    error TEXT
);
"""


class DatabaseError(ValueError):
    """A file that is not a tournament database, or a resume that does not match it (one line)."""


@dataclass(slots=True)
class GameRecord:
    """Everything written when one game ends."""

    game: dict[str, Any]
    players: list[dict[str, Any]]
    stats: list[Stat]
    beliefs: list[tuple[Belief, bool]]  # with the truth (target on the mafia side)


class Database:
    """A tournament database; use as a context manager or call :meth:`close`."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise DatabaseError(f"{self.path}: no such database")
        try:
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(self.path, timeout=30)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            if create:
                self.conn.executescript(SCHEMA)
            else:
                tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
                if not {"games", "player_games", "stats"} <= tables:
                    raise DatabaseError(f"{self.path}: not a tournament database (no games table)")
        except sqlite3.DatabaseError as exc:
            raise DatabaseError(f"{self.path}: {exc}") from None
        except OSError as exc:
            raise DatabaseError(f"{self.path}: {exc.strerror or exc}") from None

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- writing ----------------------------------------------------------------------------
    def set_meta(self, values: Mapping[str, str]) -> None:
        with self.conn:
            self.conn.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", values.items())

    def start_attempt(self, key: str, transcript: str, started: str) -> int:
        with self.conn:
            cur = self.conn.execute(
                "INSERT INTO attempts (game, transcript, started) VALUES (?, ?, ?)", (key, transcript, started)
            )
        return int(cur.lastrowid or 0)

    def last_attempt(self, key: str) -> tuple[str, str | None] | None:
        """The transcript and error of the game's latest try, if it had one."""
        row = self.conn.execute(
            "SELECT transcript, error FROM attempts WHERE game = ? ORDER BY id DESC LIMIT 1", (key,)
        ).fetchone()
        return None if row is None else (str(row[0]), row[1])

    def fail_attempt(self, attempt: int, error: str) -> None:
        with self.conn:
            self.conn.execute("UPDATE attempts SET error = ? WHERE id = ?", (error, attempt))

    def record(self, rec: GameRecord) -> None:
        """Write one finished game, all of its rows in one transaction."""
        key = rec.game["key"]
        with self.conn:
            cols = list(rec.game)
            self.conn.execute(
                f"INSERT INTO games ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", list(rec.game.values())
            )
            if rec.players:
                pcols = list(rec.players[0])
                self.conn.executemany(
                    f"INSERT INTO player_games ({', '.join(pcols)}) VALUES ({', '.join('?' * len(pcols))})",
                    [[p[c] for c in pcols] for p in rec.players],
                )
            self.conn.executemany(
                "INSERT INTO stats (game, seat, role, metric, num, den) VALUES (?, ?, ?, ?, ?, ?)",
                [(key, s.seat, s.role, s.metric, s.num, s.den) for s in rec.stats],
            )
            self.conn.executemany(
                "INSERT OR REPLACE INTO beliefs (game, seat, day, target, p, truth) VALUES (?, ?, ?, ?, ?, ?)",
                [(key, b.seat, b.day, b.target, b.p, int(truth)) for b, truth in rec.beliefs],
            )

    # ---- reading ----------------------------------------------------------------------------
    def fingerprints(self) -> dict[str, str]:
        """Finished game key -> fingerprint."""
        return dict(self.conn.execute("SELECT key, fingerprint FROM games"))

    def total_cost(self) -> float:
        return float(self.conn.execute("SELECT COALESCE(SUM(cost), 0) FROM games").fetchone()[0])

    def meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM meta"))

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        cur = self.conn.cursor()
        cur.row_factory = sqlite3.Row
        return list(cur.execute(sql, params))

    def games(self) -> list[sqlite3.Row]:
        return self.rows("SELECT * FROM games ORDER BY rowid")

    def player_games(self) -> list[sqlite3.Row]:
        return self.rows("SELECT * FROM player_games ORDER BY rowid")

    def stats(self) -> list[sqlite3.Row]:
        """Every statistic with its model, variant, side and round (for aggregation)."""
        return self.rows(
            "SELECT s.game, s.seat, s.role, s.metric, s.num, s.den, p.model, p.side, g.variant, g.players "
            "FROM stats s JOIN player_games p ON p.game = s.game AND p.seat = s.seat "
            "JOIN games g ON g.key = s.game ORDER BY g.rowid"
        )
