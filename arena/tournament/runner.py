"""Runs a tournament: the design's games, concurrently, resumably, under a cost cap.

Games run on one event loop, at most ``concurrency`` at a time (a pool of workers taking the
design's games in order). A game whose seats are all built-in bots runs on the orchestrator's
synchronous fast path in a worker thread, so it never blocks the model games' calls. Where a game
is played is the executor's business: in this process (:class:`GameSession`), or as a Ray task
(:mod:`.distributed`, ``--ray``); either way this process alone writes the database.

- **One writer.** The run holds the database's lock (:mod:`.lock`) from start to end.

- **Resumable.** Every finished key in the database is skipped; a key recorded with a different
  setup (seed, options, model specs) stops the run with one line instead of mixing two designs.
- **Lossless.** The transcript is flushed event by event; a game's rows are committed in one
  transaction when it ends (after its transcript's summary is on disk). A ``kill -9`` loses at most
  the games in flight, whose partial transcripts stay listed in ``attempts``.
- **Cost cap.** Before a game starts, the accounted cost — finished games in the database plus
  what the model seats of the games in flight have spent so far — is compared with ``cost_cap``;
  once reached, no new game starts (the games in flight finish).
"""

from __future__ import annotations

import asyncio
import importlib
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import Any, Protocol

from arena.config import ConfigError
from arena.engine import Game
from arena.orchestrator import run, run_sync
from arena.players.base import SyncPlayer
from arena.transcript import TranscriptWriter, read_transcript, utc_now

from .beliefs import BeliefProbe
from .config import ModelEntry, TournamentConfig
from .db import Database, DatabaseError, GameRecord
from .design import GameSpec, build_design, deals_per_hand
from .lock import WriterLock
from .metrics import MATCH, transcript_stats

BUILTIN_KINDS = ("bot", "random")
SDK_MODULES = {"openai": "openai", "anthropic": "anthropic"}  # provider -> the module its client needs


@dataclass(slots=True)
class RunReport:
    planned: int
    skipped: int = 0
    played: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    not_started: int = 0
    cost: float = 0.0  # accounted cost of the whole database after the run
    cap_reached: bool = False
    seconds: float = 0.0

    def lines(self, config: TournamentConfig) -> list[str]:
        out = [
            f"{config.name}: {self.played} games played, {self.skipped} already finished, "
            f"{len(self.failed)} failed, {self.not_started} not started ({self.planned} in the design), {self.seconds:.1f} s",
            f"accounted cost: ${self.cost:.4f}" + (f" of the ${config.cost_cap:.2f} cap" if config.cost_cap is not None else ""),
        ]
        if self.cap_reached:
            out.append("cost cap reached: no new game was started; raise cost_cap and run the same command to go on")
        for key, error in self.failed[:5]:
            out.append(f"failed: {key}: {error}")
        out.append(f"database: {config.database}; transcripts: {config.transcripts}")
        return out


@dataclass(slots=True)
class GameOutcome:
    """What playing one game gives back: its rows, or None and why it failed."""

    record: GameRecord | None  # None: the game failed (``line`` says why)
    line: str  # the one-line result, or the error
    cost: float = 0.0


class WorkerLost(Exception):
    """The process playing a game died (a Ray worker killed, a node lost): the runner plays it again."""


class Executor(Protocol):
    """Where games are played: here (:class:`GameSession`) or on a Ray cluster (:mod:`.distributed`).

    ``play`` plays one game with its transcript at ``path`` (on the driver's disk) and calls
    ``started(time)`` when it starts; it returns the game's rows, never writes the database (the
    runner does, so one process writes it), and raises :class:`WorkerLost` when the process
    playing it died, which the runner retries up to ``tries`` times in all.
    """

    tries: int

    async def start(self) -> None:
        """Get ready (connect to a cluster): called once, only when there is a game to play."""
        ...

    async def play(self, spec: GameSpec, path: Path, started: Callable[[str], None]) -> GameOutcome: ...

    def live_cost(self) -> float:
        """Dollars spent so far by the games in flight (for the cost cap)."""
        ...

    async def aclose(self) -> None: ...


def check_models(config: TournamentConfig) -> None:
    """Build one player per model now, so a bad spec, profile or missing key is one line up front."""
    from arena.players.registry import SpecError, make_player

    for model in config.models:
        if model.spec in BUILTIN_KINDS and model.settings:
            raise ConfigError(
                f"config error: {config.path or 'tournament'}: models.{model.name}: settings apply to model seats only"
            )
        try:
            if model.spec in BUILTIN_KINDS:
                make_player(model.spec, "check", 0)
            else:
                player = make_player(model.spec, "check", 0, **model.settings)
                # An SDK's import takes a second or two: here, not on the loop while the first games wait.
                sdk = SDK_MODULES.get(getattr(getattr(player, "profile", None), "provider", ""))
                if sdk is not None:
                    importlib.import_module(sdk)
        except (SpecError, ValueError, ImportError) as exc:
            raise ConfigError(f"config error: {config.path or 'tournament'}: models.{model.name}: {exc}") from None


def transcript_path(directory: Path, key: str) -> Path:
    """``DIR/<key with / as _>.jsonl``; a game played again after an abort gets ``-2``, ``-3`` …"""
    stem = key.replace("/", "_")
    path = directory / f"{stem}.jsonl"
    n = 1
    while path.exists():
        n += 1
        path = directory / f"{stem}-{n}.jsonl"
    return path


class _UntilProbed:
    """Forwards every notification to the transcript writer except the one after the game's end,
    which the runner sends once the belief questions in flight are answered: their call lines must
    come before the summary."""

    def __init__(self, writer: TranscriptWriter) -> None:
        self.writer = writer

    def __call__(self, game: Game) -> None:
        if not game.finished:
            self.writer(game)


class Runner:
    """One run of a tournament over its database (see the module docstring)."""

    def __init__(
        self,
        config: TournamentConfig,
        db: Database,
        echo: Callable[[str], None] | None = None,
        executor: Executor | None = None,
        progress: Callable[[int, int, float], None] | None = None,
    ) -> None:
        self.config = config
        self.db = db
        self.echo = echo or (lambda line: None)
        self.executor: Executor = executor or GameSession(config)
        self.progress = progress or (lambda done, planned, cost: None)  # (games done, planned, accounted $)
        self.spent = 0.0  # finished games' cost (database + this run)
        self.cap_reached = False

    def live_cost(self) -> float:
        return self.executor.live_cost()

    def pending(self, design: list[GameSpec]) -> list[GameSpec]:
        """The design's games not in the database yet (a changed setup for a finished key is an error)."""
        done = self.db.fingerprints()
        todo = []
        for spec in design:
            seen = done.get(spec.key)
            if seen is None:
                todo.append(spec)
            elif seen != spec.fingerprint():
                raise DatabaseError(
                    f"{self.db.path}: game {spec.key} was played with another setup (seed, options or model spec "
                    "changed); use a new database for the new setup"
                )
        return todo

    async def run(self) -> RunReport:
        config = self.config
        started = time.perf_counter()
        design = build_design(config)
        todo = self.pending(design)
        report = RunReport(planned=len(design), skipped=len(design) - len(todo))
        self.db.set_meta({"name": config.name, "config": str(config.path or ""), "seed": str(config.seed)})
        self.spent = self.db.total_cost()
        queue = deque(todo)
        total = len(design)

        async def worker() -> None:
            while queue:
                if config.cost_cap is not None and self.spent + self.live_cost() >= config.cost_cap:
                    self.cap_reached = True
                    return
                spec = queue.popleft()
                ok, text = await self.play(spec)
                if ok:
                    report.played += 1
                else:
                    report.failed.append((spec.key, text))
                done = report.skipped + report.played + len(report.failed)
                self.echo(f"[{done}/{total}] {spec.key}: " + (text if ok else f"FAILED: {text}"))
                self.progress(done, total, self.spent + self.live_cost())

        self.progress(report.skipped, total, self.spent)
        try:
            if todo:
                await self.executor.start()
                started = time.perf_counter()  # a cluster's start-up is reported apart, not as the games' time
            await asyncio.gather(*(worker() for _ in range(min(config.concurrency, len(todo)) or 1)))
        finally:
            await self.executor.aclose()
        report.not_started = len(queue)
        report.cap_reached = self.cap_reached
        report.cost = self.db.total_cost()
        report.seconds = time.perf_counter() - started
        return report

    async def play(self, spec: GameSpec) -> tuple[bool, str]:
        """Play one game through the executor and record it: (True, a one-line result) or (False, why not).

        Each try is an ``attempts`` row with its own transcript; a try whose worker died (``WorkerLost``)
        is played again, at most ``executor.tries`` times in all, so a game is recorded once or fails.
        """
        lost: list[str] = []
        for _ in range(self.executor.tries):
            path = transcript_path(self.config.transcripts, spec.key)
            attempt: list[int] = []

            def started(begun: str, path: Path = path, attempt: list[int] = attempt) -> None:
                attempt.append(self.db.start_attempt(spec.key, str(path), begun))

            try:
                outcome = await self.executor.play(spec, path, started)
            except WorkerLost as exc:
                lost.append(str(exc))
                if attempt:
                    self.db.fail_attempt(attempt[0], f"WorkerLost: {exc}")
                continue
            if outcome.record is None:
                if attempt:
                    self.db.fail_attempt(attempt[0], outcome.line)
                return False, outcome.line
            self.db.record(outcome.record)
            self.spent += outcome.cost
            return True, outcome.line
        return False, f"its worker died {len(lost)} time{'s' * (len(lost) != 1)} (last: {lost[-1]})"


class GameSession:
    """Plays games of the design in this process: the runner's default executor, and what a Ray
    worker runs for each game it is given (see :mod:`.distributed`)."""

    tries = 1  # nothing here can die without the whole run

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self.live: dict[str, dict[str, Any]] = {}  # key -> players of a game in flight

    def live_cost(self) -> float:
        return sum(float(getattr(getattr(p, "usage", None), "cost", 0.0)) for ps in self.live.values() for p in ps.values())

    async def start(self) -> None:
        return None

    async def aclose(self) -> None:
        if "arena.players.llm" in sys.modules:
            from arena.players.llm import close_clients

            await close_clients()

    def _player(self, model: ModelEntry, seat: str, game: Game, writer: TranscriptWriter) -> Any:
        from arena.players.registry import make_player

        if model.spec in BUILTIN_KINDS:
            return make_player(model.spec, seat, game.seed)
        options = game.options.model_dump(mode="json")
        return make_player(
            model.spec, seat, game.seed, variant=game.name, options=options, recorder=writer.recorder(seat), **model.settings
        )

    async def play(self, spec: GameSpec, path: Path, started: Callable[[str], None]) -> GameOutcome:
        """Play one game with its transcript at ``path``; ``started(time)`` once that file exists."""
        config = self.config
        game = spec.make_game()
        models = spec.assignment(game)
        sides = spec.sides(game)
        seat_specs = {seat: models[seat].spec for seat in game.seats}
        try:
            writer = TranscriptWriter(path, game, seat_specs)
        except OSError as exc:
            return GameOutcome(None, f"cannot write its transcript: {exc.strerror or exc}")
        begun = writer.started.isoformat(timespec="seconds")
        started(begun)
        clock = time.perf_counter()
        probe: BeliefProbe | None = None
        try:
            players = {seat: self._player(models[seat], seat, game, writer) for seat in game.seats}
            writer.track_usage(players)
            self.live[spec.key] = players
            if config.beliefs and not deals_per_hand(spec.variant):
                probe = BeliefProbe(game, players)
            observers: list[Any] = [_UntilProbed(writer)] + ([probe] if probe is not None else [])
            if all(isinstance(p, SyncPlayer) for p in players.values()):
                await asyncio.to_thread(run_sync, game, players, observers)
            else:
                await run(game, players, observers, decision_timeout=config.decision_timeout)
            if probe is not None:
                await probe.wait()
            writer(game)
        except Exception as exc:  # a broken game is reported; the tournament goes on
            self.live.pop(spec.key, None)
            writer.close(game)
            return GameOutcome(None, f"{type(exc).__name__}: {exc}")
        writer.close(game)
        self.live.pop(spec.key, None)
        seconds = time.perf_counter() - clock
        transcript = read_transcript(writer.path)
        beliefs = probe.records if probe is not None else []
        stats = transcript_stats(transcript, beliefs)
        summary = transcript.summary or {}
        # The players' own totals, unrounded (the transcript's summary rounds dollars to 6 places).
        usage = {seat: asdict(p.usage) for seat, p in players.items() if is_dataclass(getattr(p, "usage", None))}
        per_player = summary.get("per_player") or {}
        result = {(s.seat): s.num for s in stats if s.metric == "win"}
        cost = sum(float(u.get("cost", 0.0)) for u in usage.values())
        mckay = deals_per_hand(spec.variant)
        record = GameRecord(
            game={
                "key": spec.key, "variant": spec.variant.name, "players": spec.players, "round": spec.round,
                "seed": spec.seed, "pairing": spec.pairing, "first": spec.first.name, "second": spec.second.name,
                "fingerprint": spec.fingerprint(), "winner": game.winner, "reason": game.end_reason, "days": game.day,
                "events": len(game.log), "cost": cost, "seconds": round(seconds, 3), "transcript": str(writer.path),
                "started": begun, "ended": utc_now().isoformat(timespec="seconds"),
            },
            players=[
                {
                    "game": spec.key, "seat": seat, "model": models[seat].name, "spec": models[seat].spec,
                    "role": MATCH if mckay else game.role_of[seat], "team": "-" if mckay else game.team(seat),
                    "side": sides[seat], "result": result.get(seat, 0.0), "alive": int(game.is_alive(seat)),
                    "decisions": (per_player.get(seat) or {}).get("decisions", 0),
                    "forfeits": (per_player.get(seat) or {}).get("forfeits", 0),
                    "rejections": (per_player.get(seat) or {}).get("rejections", 0),
                    "calls": (usage.get(seat) or {}).get("calls", 0),
                    "input_tokens": (usage.get(seat) or {}).get("input_tokens", 0),
                    "output_tokens": (usage.get(seat) or {}).get("output_tokens", 0),
                    "cost": float((usage.get(seat) or {}).get("cost", 0.0)),
                }
                for seat in game.seats
            ],
            stats=stats,
            beliefs=[(b, game.team(b.target) != "town") for b in beliefs],
        )  # fmt: skip
        winner = game.winner or "nobody"
        return GameOutcome(
            record,
            f"{spec.first.name} ({'mafia side' if not mckay else 'side A'}) vs {spec.second.name}: "
            f"{winner} ({game.end_reason}), {seconds:.1f} s, ${cost:.4f}",
            cost,
        )


async def run_tournament(
    config: TournamentConfig,
    echo: Callable[[str], None] | None = None,
    *,
    executor: Executor | None = None,
    progress: Callable[[int, int, float], None] | None = None,
) -> RunReport:
    """Lock the database, check the models and play every game not played yet (here, or on ``executor``).

    A database another live run is writing stops this one at once (:class:`~.lock.DatabaseBusy`).
    """
    with WriterLock(config.database):
        check_models(config)
        try:
            config.transcripts.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot write transcripts to {config.transcripts}: {exc.strerror or exc}") from None
        with Database(config.database) as db:
            return await Runner(config, db, echo, executor, progress).run()
