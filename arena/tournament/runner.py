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
- **Endpoints.** Every model's endpoint, key and model are checked before the first game (one
  line, nothing played, when one cannot play). An endpoint that goes down during the run (its
  breaker: docs/llm.md) stops the games using it; each is recorded as failed — its transcript
  summary says ``aborted`` and why, its ``attempts`` row the error, no ``games`` row — so the next
  run plays it again, and no new game using that endpoint starts in this run.
- **Failed games go on.** A game whose last try stopped mid-way (a ``kill -9`` of the run, an
  endpoint that went down, a crash) is resumed from its transcript (:mod:`arena.run.resume`) when
  the executor can (in this process), rather than played again from the start: the recorded
  answers rebuild it, no model call is made twice, and the transcript is the same file, now whole.
  A transcript that cannot be resumed (another setup, changed rules) is left, and the game played anew.
- **Recorded calls.** With :class:`TournamentCalls`, each game's model HTTP exchanges are recorded
  to, or replayed from, ``<key>.calls.yaml`` (one cassette per game); games are then played one
  at a time, since vcrpy patches HTTP for the whole process.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from arena.engine import Game
from arena.players.base import StopGame, SyncPlayer
from arena.players.redact import redact
from arena.run.config import ConfigError
from arena.run.orchestrator import run, run_sync
from arena.run.resume import Resumption
from arena.run.transcript import TranscriptError, TranscriptWriter, read_transcript, unused_path, utc_now

from .beliefs import BeliefProbe
from .config import ModelEntry, TournamentConfig
from .db import Database, DatabaseError, GameRecord
from .design import GameSpec, build_design, build_round, deals_per_hand
from .estimate import estimate_lines
from .lock import WriterLock
from .metrics import MATCH, Belief, Stat, game_stats, transcript_stats

CANNOT_RESUME = "cannot resume"  # an attempt's error that keeps its transcript from being resumed again
SDK_MODULES = {"openai": "openai", "anthropic": "anthropic"}  # provider -> the module its client needs


class ReplayMissing(StopGame):
    """A replayed game without its cassette, or with another game's: failed, before any call."""

    error = True


class EndpointCheckError(ValueError):
    """A model that cannot play (endpoint unreachable, key refused, unknown model): one line, nothing played."""


@dataclass(slots=True, frozen=True)
class TournamentCalls:
    """``--record-calls [DIR]`` / ``--replay-calls DIR``: one cassette per game, ``DIR/<key>.calls.yaml``."""

    mode: Literal["record", "replay"]
    folder: Path

    def path(self, key: str) -> Path:
        return self.folder / f"{key.replace('/', '_')}.calls.yaml"


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
    down: dict[str, str] = field(default_factory=dict)  # endpoint label -> why it is down
    held: int = 0  # games not started because an endpoint they need is down
    decisions: Any = None  # until_decided: the :class:`~.sequential.Decisions` at the end
    budget_spent: bool = False  # until_decided: the next round would have passed max_games

    def lines(self, config: TournamentConfig) -> list[str]:
        out = [
            f"{config.name}: {self.played} games played, {self.skipped} already finished, "
            f"{len(self.failed)} failed, {self.not_started} not started ("
            + (f"budget {self.planned}" if self.decisions is not None else f"{self.planned} in the design")
            + f"), {self.seconds:.1f} s",
            f"accounted cost: ${self.cost:.4f}" + (f" of the ${config.cost_cap:.2f} cap" if config.cost_cap is not None else ""),
        ]
        if self.cap_reached:
            out.append("cost cap reached: no new game was started; raise cost_cap and run the same command to go on")
        for label, why in self.down.items():
            out.append(
                f"endpoint down: {label}: {why}; {self.held} game(s) using it not started, the failed ones are "
                "recorded as failed: run the same command when it is back"
            )
        for key, error in self.failed[:5]:
            out.append(f"failed: {key}: {error}")
        if self.decisions is not None:
            out += self.decisions.lines()
        out.append(f"database: {config.database}; transcripts: {config.transcripts}")
        return out


def stop_reason(report: RunReport) -> str:
    """Why an until_decided run stopped: everything asked for decided, the budget, the cost cap, or
    a round not played whole (failed games, an endpoint down)."""
    from .sequential import STOP_BUDGET, STOP_CAP, STOP_DECIDED, STOP_INCOMPLETE

    if report.decisions is not None and report.decisions.done:
        return STOP_DECIDED
    if report.cap_reached:
        return STOP_CAP
    if report.budget_spent:
        return STOP_BUDGET
    return STOP_INCOMPLETE


@dataclass(slots=True)
class GameOutcome:
    """What playing one game gives back: its rows, or None and why it failed."""

    record: GameRecord | None  # None: the game failed (``line`` says why)
    line: str  # the one-line result, or the error
    cost: float = 0.0
    down: tuple[str, str] | None = None  # (endpoint key, why) when the game stopped because its endpoint is down
    calls_reused: int = 0  # a resumed game: model calls of the earlier try not made again
    learned: bool = False  # stopped by a server's refusal that named its context: resumed at once, folding to fit


class WorkerLost(Exception):
    """The process playing a game died (a Ray worker killed, a node lost): the runner plays it again."""


class Executor(Protocol):
    """Where games are played: here (:class:`GameSession`) or on a Ray cluster (:mod:`.distributed`).

    ``play`` plays one game with its transcript at ``path`` (on the driver's disk) and calls
    ``started(time)`` when it starts; it returns the game's rows, never writes the database (the
    runner does, so one process writes it), and raises :class:`WorkerLost` when the process
    playing it died, which the runner retries up to ``tries`` times in all. ``isolated``: every
    game plays in a process of its own (so recording calls, which patches HTTP process-wide, need
    not play one game at a time). ``resumes``: ``play(..., resume=True)`` is understood: ``path``
    is then an earlier try's unfinished transcript, and the game goes on from it.
    """

    tries: int
    isolated: bool
    resumes: bool

    async def start(self) -> None:
        """Get ready (connect to a cluster): called once, only when there is a game to play."""
        ...

    async def play(self, spec: GameSpec, path: Path, started: Callable[[str], None], resume: bool = False) -> GameOutcome: ...

    def live_cost(self) -> float:
        """Dollars spent so far by the games in flight (for the cost cap)."""
        ...

    async def aclose(self) -> None: ...


def replay_overrides(calls: TournamentCalls | None) -> dict[str, Any]:
    """Profile fields for every model seat: a replay needs no key."""
    return {"api_key_env": ""} if calls is not None and calls.mode == "replay" else {}


def check_models(config: TournamentConfig, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build one player per model now, so a bad spec, profile or missing key is one line up front.

    Returns model name -> that player (for the endpoint check); ``overrides`` are profile fields
    for every model seat (a replay needs no key).
    """
    from arena.players.registry import SpecError, is_builtin, make_player

    checked: dict[str, Any] = {}
    third = (config.third_party,) if config.third_party is not None else ()
    for model in (*config.models, *third):
        where = "third_party" if model in third else f"models.{model.name}"
        if is_builtin(model.spec) and model.settings:
            raise ConfigError(f"config error: {config.path or 'tournament'}: {where}: settings apply to model seats only")
        try:
            if is_builtin(model.spec):
                checked[model.name] = make_player(model.spec, "check", 0)
            else:
                player = make_player(model.spec, "check", 0, **{**model.settings, **(overrides or {})})
                checked[model.name] = player
                # An SDK's import takes a second or two: here, not on the loop while the first games wait.
                sdk = SDK_MODULES.get(getattr(getattr(player, "profile", None), "provider", ""))
                if sdk is not None:
                    importlib.import_module(sdk)
        except (SpecError, ValueError, ImportError) as exc:
            raise ConfigError(f"config error: {config.path or 'tournament'}: {where}: {exc}") from None
    return checked


def endpoints_of(checked: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Model name -> (endpoint key, endpoint in words) for the models behind an HTTP endpoint."""
    out = {}
    for name, player in checked.items():
        profile = getattr(player, "profile", None)
        if profile is not None and profile.provider != "local":
            from arena.players.llm.transport import endpoint_label

            out[name] = (profile.endpoint, endpoint_label(profile))
    return out


async def check_endpoints(checked: dict[str, Any], echo: Callable[[str], None] | None = None) -> None:
    """Every model's endpoint, key and model, in parallel (raises :class:`EndpointCheckError`).

    ``echo`` gets one line per server of your own, as ``arena play`` prints it: the structured mode
    the check picked and the seconds it took (the games' seats then play in that mode).
    """
    models = {name: p for name, p in checked.items() if getattr(getattr(p, "profile", None), "provider", "local") != "local"}
    if not models:
        return
    from arena.players.llm.preflight import preflight

    probes: list[Any] = []
    problems = await preflight(models, probes)
    if problems:
        raise EndpointCheckError("; ".join(p.line("model") for p in problems) + " (no game was started)")
    for probe in probes:
        (echo or (lambda line: None))(f"{probe.line()} (checked in {probe.seconds:.1f} s)")


def seat_modes_of(spec: GameSpec, game: Game, overrides: Mapping[str, Any]) -> dict[str, str]:
    """Each model seat's structured mode in this game (seat -> mode), for its transcript's header.

    The same record ``arena play`` writes: a resumed game's seats play in the recorded modes. Read
    from the seats' profiles and the check's picks (in a Ray worker, the picks the driver handed it),
    before the seats themselves are made (they need the transcript's recorder).
    """
    from arena.players.registry import is_builtin

    models = spec.assignment(game)
    specs = {seat: models[seat] for seat in game.seats if not is_builtin(models[seat].spec)}
    if not specs:
        return {}
    from arena.players.llm import load_profiles, resolve_spec
    from arena.players.llm.modes import picked

    tables = load_profiles()
    out = {}
    for seat, model in specs.items():
        profile = resolve_spec(model.spec, tables, {**model.settings, **overrides})
        out[seat] = picked(profile) or profile.mode
    return out


def transcript_path(directory: Path, key: str) -> Path:
    """``DIR/<key with / as _>.jsonl``; a game played again after an abort gets ``-2``, ``-3`` …"""
    return unused_path(directory, key.replace("/", "_"))


def tournament_header(spec: GameSpec, game: Game, models: dict[str, ModelEntry]) -> dict[str, Any]:
    """What a tournament's transcript says about its game: the entrant in each seat, who had which side.

    Seat specs alone cannot tell two entrants of one spec apart (``bot`` and ``bot2 = "bot"``); the
    report names each seat's entrant from here.
    """
    sides = spec.sides(game)
    return {
        "key": spec.key, "round": spec.round, "pairing": spec.pairing,
        "entrants": {seat: models[seat].name for seat in game.seats},
        "sides": {side: models[seat].name for seat, side in sides.items()},
    }  # fmt: skip


def game_record(
    spec: GameSpec,
    game: Game,
    stats: list[Stat],
    beliefs: list[Belief],
    usage: Mapping[str, Mapping[str, Any]],
    per_player: Mapping[str, Mapping[str, Any]],
    *,
    seconds: float,
    transcript: str,
    started: str,
    ended: str,
) -> GameRecord:
    """The database rows of one finished game of the design (a pure function of what was played)."""
    models = spec.assignment(game)
    sides = spec.sides(game)
    result = {s.seat: s.num for s in stats if s.metric == "win"}
    cost = sum(float(u.get("cost", 0.0)) for u in usage.values())
    mckay = deals_per_hand(spec.variant)
    return GameRecord(
        game={
            "key": spec.key, "variant": spec.variant.name, "players": spec.players, "round": spec.round,
            "seed": spec.seed, "pairing": spec.pairing, "first": spec.first.name, "second": spec.second.name,
            "fingerprint": spec.fingerprint(), "winner": game.winner, "reason": game.end_reason, "days": game.day,
            "events": len(game.log), "cost": cost, "seconds": round(seconds, 3), "transcript": transcript,
            "started": started, "ended": ended,
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


def play_builtin(spec: GameSpec, *, beliefs: bool = False) -> GameRecord:
    """Play one game of the design whose seats are all built-in players, in memory (no transcript).

    The same game, seat for seat, as the runner plays for ``spec``; used where thousands of bot
    games are needed fast (calibration of the leaderboard's tests). No global state: the game and its
    rows are a function of ``spec`` alone (apart from the clock times), ready for any process.
    """
    from arena.players.registry import make_player
    from arena.run.transcript import summary_record

    started = utc_now().isoformat(timespec="seconds")
    clock = time.perf_counter()
    game = spec.make_game()
    models = spec.assignment(game)
    players = {seat: make_player(models[seat].spec, seat, spec.player_seed) for seat in game.seats}
    probe = BeliefProbe(game, players) if beliefs and not deals_per_hand(spec.variant) else None
    run_sync(game, players, [probe] if probe is not None else [])
    summary = summary_record(game, usage={})
    records = probe.records if probe is not None else []
    stats = game_stats(spec.variant.name, game, summary, records)
    return game_record(
        spec, game, stats, records, {}, summary.get("per_player") or {}, seconds=time.perf_counter() - clock,
        transcript="", started=started, ended=utc_now().isoformat(timespec="seconds"),
    )  # fmt: skip


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
        *,
        endpoints: dict[str, tuple[str, str]] | None = None,
        calls: TournamentCalls | None = None,
        executor: Executor | None = None,
        progress: Callable[[int, int, float], None] | None = None,
    ) -> None:
        self.config = config
        self.db = db
        self.echo = echo or (lambda line: None)
        self.executor: Executor = executor or GameSession(config, calls)
        self.progress = progress or (lambda done, planned, cost: None)  # (games done, planned, accounted $)
        self.spent = 0.0  # finished games' cost (database + this run)
        self.cap_reached = False
        self.endpoints = endpoints or {}  # model name -> (endpoint key, label)
        self.down: dict[str, str] = {}  # endpoint key -> why it is down
        self.held = 0
        self.calls = calls

    def blocked(self, spec: GameSpec) -> bool:
        """Whether a game needs an endpoint that went down in this run."""
        models = (spec.first, spec.second, *((spec.third,) if spec.third is not None else ()))
        return any(self.endpoints.get(m.name, ("", ""))[0] in self.down for m in models)

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
        if config.until_decided:
            return await self.run_until_decided()
        started = time.perf_counter()
        design = build_design(config)
        todo = self.pending(design)
        report = RunReport(planned=len(design), skipped=len(design) - len(todo))
        self.db.set_meta({
            "name": config.name, "config": str(config.path or ""), "seed": str(config.seed),
            "transcripts": str(config.transcripts.resolve()),  # where the games are, from any folder (arena report)
        })  # fmt: skip
        self.spent = self.db.total_cost()
        queue = deque(todo)
        total = len(design)
        self.progress(report.skipped, total, self.spent)
        try:
            if todo:
                await self.executor.start()
                started = time.perf_counter()  # a cluster's start-up is reported apart, not as the games' time
            await self.drain(queue, report, total)
        finally:
            await self.executor.aclose()
        report.not_started = len(queue) + self.held
        return self.finish(report, started)

    async def drain(self, queue: deque[GameSpec], report: RunReport, total: int, stage: str = "") -> None:
        """Play the queued games, ``concurrency`` at a time, until the queue is empty or the cap is reached.

        Each game's line counts ``[done/total]`` (``stage`` after it: an until_decided run's round,
        whose total is the games through that round, since nobody knows how many rounds will follow).
        """
        config = self.config

        async def worker() -> None:
            while queue:
                if config.cost_cap is not None and self.spent + self.live_cost() >= config.cost_cap:
                    self.cap_reached = True
                    return
                spec = queue.popleft()
                if self.blocked(spec):  # left for the next run
                    self.held += 1
                    continue
                ok, text = await self.play(spec)
                if ok:
                    report.played += 1
                else:
                    report.failed.append((spec.key, text))
                done = report.skipped + report.played + len(report.failed)
                where = f"[{done}/{total}{', ' + stage if stage else ''}]"
                self.echo(f"{where} {spec.key}: " + (text if ok else f"FAILED: {text}"))
                self.progress(done, total, self.spent + self.live_cost())

        workers = min(config.concurrency, len(queue)) or 1
        if self.calls is not None and workers > 1 and not self.executor.isolated:
            workers = 1
            self.echo(f"{self.calls.mode}ing calls: games are played one at a time (vcrpy patches HTTP for the whole process)")
        await asyncio.gather(*(worker() for _ in range(workers)))

    async def run_until_decided(self) -> RunReport:
        """``until_decided``: round after round on the pairings still undecided (:mod:`.sequential`).

        Round r is scheduled from the decisions after rounds 1 … r − 1 as the database holds them, so
        a resumed run schedules the same rounds and skips the games already played. It stops when
        every comparison is decided, when the next round would pass ``max_games``, at the cost cap,
        or when a round could not be played whole (failed games: run the same command again).
        """
        from .results import Results
        from .sequential import decide

        config = self.config
        budget = config.max_games or 0
        started = time.perf_counter()
        self.db.set_meta(
            {"name": config.name, "config": str(config.path or ""), "seed": str(config.seed),
             "transcripts": str(config.transcripts.resolve()), "until_decided": "1",
             "max_games": str(budget), "evidence": "1" if config.evidence else "0",
             "decide": json.dumps(list(config.decide)), "stop_reason": ""}
        )  # fmt: skip
        self.spent = self.db.total_cost()
        report = RunReport(planned=budget)
        models = sorted(m.name for m in config.models)
        variants = sorted(v.name for v in config.variants)
        begun = False
        try:
            r = 0
            while True:
                r += 1
                state = decide(
                    Results.from_db(self.db), evidence=config.evidence, before=r, models=models, variants=variants,
                    ask=config.decide,
                )  # fmt: skip
                report.decisions = state
                if state.done:
                    break
                specs = build_round(config, r, state.needed_pairings(models))
                todo = self.pending(specs)
                report.skipped += len(specs) - len(todo)
                finished = report.skipped + report.played
                if finished + len(todo) > budget:
                    report.budget_spent = True
                    break
                if not begun and todo:
                    await self.executor.start()
                    started, begun = time.perf_counter(), True
                queue = deque(todo)
                failed = len(report.failed)
                await self.drain(queue, report, finished + len(todo), f"round {r}, at most {budget}")
                if queue or self.held or self.cap_reached or len(report.failed) > failed:
                    report.not_started = len(queue) + self.held
                    break
            report.decisions = decide(
                Results.from_db(self.db), evidence=config.evidence, models=models, variants=variants, ask=config.decide
            )
        finally:
            await self.executor.aclose()
        report.cap_reached = self.cap_reached
        report.decisions.max_games = budget
        report.decisions.stop_reason = reason = stop_reason(report)
        self.db.set_meta({"stop_reason": reason})
        return self.finish(report, started)

    def finish(self, report: RunReport, started: float) -> RunReport:
        """The report's closing figures: endpoints down, the cap, the database's cost, the time."""
        report.held = self.held
        labels = {key: label for key, label in self.endpoints.values()}
        report.down = {labels.get(key, key): why for key, why in self.down.items()}
        report.cap_reached = self.cap_reached
        report.cost = self.db.total_cost()
        report.seconds = time.perf_counter() - started
        return report

    def resumable(self, spec: GameSpec) -> Path | None:
        """The unfinished transcript of the game's last try, if it can go on (see the module docstring)."""
        if self.calls is not None or not getattr(self.executor, "resumes", False):
            return None  # a cassette holds one try's calls whole; Ray workers start from nothing
        last = self.db.last_attempt(spec.key)
        if last is None or (last[1] or "").startswith(CANNOT_RESUME):
            return None
        path = Path(last[0])
        try:
            header = read_transcript(path)
        except (TranscriptError, OSError):
            return None
        if header.complete:
            return None
        game = spec.make_game()
        models = spec.assignment(game)
        setup = {
            "variant": game.name, "seed": game.seed, "seats": list(game.seats),
            "players": {seat: models[seat].spec for seat in game.seats}, "options": game.options.model_dump(mode="json"),
        }  # fmt: skip
        return path if all(header.header.get(k) == v for k, v in setup.items()) else None

    async def play(self, spec: GameSpec) -> tuple[bool, str]:
        """Play one game through the executor and record it: (True, a one-line result) or (False, why not).

        Each try is an ``attempts`` row with its own transcript; a try whose worker died (``WorkerLost``)
        is played again, at most ``executor.tries`` times in all, so a game is recorded once or fails.
        A game stopped by a server's refusal that named its context goes on at once from its transcript,
        the refused seat now folding its history to fit (docs/llm.md, *Fitting a server's context*).
        """
        lost: list[str] = []
        relearned = 0  # stops by a context a server named: each seat learns once, then folds to fit it
        while len(lost) < self.executor.tries:
            earlier = self.resumable(spec)
            path = earlier or transcript_path(self.config.transcripts, spec.key)
            attempt: list[int] = []

            def started(begun: str, path: Path = path, attempt: list[int] = attempt) -> None:
                attempt.append(self.db.start_attempt(spec.key, str(path), begun))

            try:
                if earlier is not None:
                    outcome = await self.executor.play(spec, path, started, resume=True)
                else:
                    outcome = await self.executor.play(spec, path, started)
            except WorkerLost as exc:
                lost.append(str(exc))
                if attempt:
                    self.db.fail_attempt(attempt[0], f"WorkerLost: {exc}")
                continue
            if outcome.record is None:
                if attempt:
                    self.db.fail_attempt(attempt[0], outcome.line)
                if outcome.down is not None:  # no new game using that endpoint starts in this run
                    self.down.setdefault(*outcome.down)
                if outcome.learned and relearned < spec.players and self.resumable(spec) is not None:
                    relearned += 1  # the seat now knows its server's context: go on from the transcript
                    continue
                return False, outcome.line
            self.db.record(outcome.record)
            self.spent += outcome.cost
            return True, outcome.line
        return False, f"its worker died {len(lost)} time{'s' * (len(lost) != 1)} (last: {lost[-1]})"


class GameSession:
    """Plays games of the design in this process: the runner's default executor, and what a Ray
    worker runs for each game it is given (see :mod:`.distributed`)."""

    tries = 1  # nothing here can die without the whole run
    isolated = False
    resumes = True

    def __init__(self, config: TournamentConfig, calls: TournamentCalls | None = None) -> None:
        self.config = config
        self.calls = calls
        self.overrides = replay_overrides(calls)
        self.live: dict[str, dict[str, Any]] = {}  # key -> players of a game in flight

    def live_cost(self) -> float:
        return sum(float(getattr(getattr(p, "usage", None), "cost", 0.0)) for ps in self.live.values() for p in ps.values())

    async def start(self) -> None:
        return None

    async def aclose(self) -> None:
        if "arena.players.llm" in sys.modules:
            from arena.players.llm import close_clients

            await close_clients()

    def _player(self, model: ModelEntry, seat: str, game: Game, seed: int, writer: TranscriptWriter) -> Any:
        from arena.players.registry import is_builtin, make_player

        if is_builtin(model.spec):
            return make_player(model.spec, seat, seed)
        options = game.options.model_dump(mode="json")
        settings = {**model.settings, **self.overrides}
        return make_player(model.spec, seat, seed, variant=game.name, options=options, recorder=writer.recorder(seat), **settings)

    @contextlib.contextmanager
    def _cassette(self, spec: GameSpec, game: Game, seat_specs: dict[str, str]) -> Iterator[None]:
        """Record or replay this game's model calls (``--record-calls`` / ``--replay-calls``)."""
        if self.calls is None:
            yield
            return
        from arena.players.llm.cassette import calls_cassette, game_stamp, read_stamp, stamp, stamp_mismatch

        path = self.calls.path(spec.key)
        here = game_stamp(game, seat_specs)
        if self.calls.mode == "replay":
            if not path.is_file():
                raise ReplayMissing(f"no recorded calls for this game: {path}")
            try:
                why = stamp_mismatch(path, read_stamp(path), here)
            except ValueError as exc:
                raise ReplayMissing(str(exc)) from None
            if why:
                raise ReplayMissing(why)
        with calls_cassette(path, self.calls.mode) as cassette:
            if self.calls.mode == "record":
                stamp(cassette, here)
            yield

    def _resume(self, spec: GameSpec, path: Path) -> tuple[Resumption, BeliefProbe | None]:
        """The earlier try's game at ``path``, rebuilt (with its belief probe) and ready to go on."""
        from arena.players.registry import is_builtin, make_player
        from arena.run.resume import prepare_resume

        models = spec.assignment(spec.make_game())
        calls = read_transcript(path).calls
        probes: list[BeliefProbe] = []

        def factory(kind: str, seat: str, seed: int, **extra: Any) -> Any:
            model = models[seat]
            if is_builtin(model.spec):
                return make_player(model.spec, seat, seed)
            return make_player(model.spec, seat, seed, **extra, **{**model.settings, **self.overrides})

        def watch(game: Game, players: Mapping[str, Any]) -> list[Any]:
            if not self.config.beliefs or deals_per_hand(spec.variant):
                return []
            probe = BeliefProbe(game, players)
            probe.replaying(calls)
            probes.append(probe)
            return [probe]

        resumption = prepare_resume(path, factory=factory, seed=spec.player_seed, watch=watch)
        resumption.observers.clear()  # the session passes its own observers
        for probe in probes:
            probe.recorded = None  # from here on, live questions
        return resumption, probes[0] if probes else None

    async def play(self, spec: GameSpec, path: Path, started: Callable[[str], None], resume: bool = False) -> GameOutcome:
        """Play one game with its transcript at ``path``; ``started(time)`` once that file exists.
        ``resume``: ``path`` is an earlier try's unfinished transcript; the game goes on from it."""
        config = self.config
        opened: dict[int, Any] = {}
        reused = 0
        probe: BeliefProbe | None = None
        if resume:
            from arena.run.resume import ResumeError

            try:
                resumption, probe = self._resume(spec, path)
            except ResumeError as exc:
                return GameOutcome(None, f"{CANNOT_RESUME}: {exc}")
            game, writer, opened, reused = resumption.game, resumption.writer, resumption.opened, resumption.calls_reused
            models = spec.assignment(game)
            seat_specs = {seat: models[seat].spec for seat in game.seats}
            begun = utc_now().isoformat(timespec="seconds")
        else:
            game = spec.make_game()
            models = spec.assignment(game)
            seat_specs = {seat: models[seat].spec for seat in game.seats}
            try:
                writer = TranscriptWriter(
                    path,
                    game,
                    seat_specs,
                    extra={
                        "tournament": tournament_header(spec, game, models),
                        "player_seed": spec.player_seed,
                        **({"structured": modes} if (modes := seat_modes_of(spec, game, self.overrides)) else {}),
                    },
                )
            except OSError as exc:
                return GameOutcome(None, f"cannot write its transcript: {exc.strerror or exc}")
            begun = writer.started.isoformat(timespec="seconds")
        started(begun)
        clock = time.perf_counter()
        try:
            if resume:
                players = resumption.players
            else:
                players = {seat: self._player(models[seat], seat, game, spec.player_seed, writer) for seat in game.seats}
                if config.beliefs and not deals_per_hand(spec.variant):
                    probe = BeliefProbe(game, players)
            writer.track_usage(players)
            self.live[spec.key] = players
            observers: list[Any] = [_UntilProbed(writer)] + ([probe] if probe is not None else [])
            if all(isinstance(p, SyncPlayer) for p in players.values()):
                await asyncio.to_thread(run_sync, game, players, observers, opened=opened)
            else:
                with self._cassette(spec, game, seat_specs):
                    await run(game, players, observers, decision_timeout=config.decision_timeout, opened=opened)
                    if probe is not None:
                        await probe.wait()
            writer(game)
        except StopGame as exc:  # an endpoint went down, a replay left its recording: failed, played again next run
            self.live.pop(spec.key, None)
            if probe is not None:  # belief questions still in flight are withdrawn, not left to the loop
                for task in probe.tasks:
                    task.cancel()
                await probe.wait()
            error = redact(str(exc) or type(exc).__name__)
            writer.close(game, aborted=error)
            endpoint = getattr(exc, "endpoint", None)
            down = (endpoint, getattr(exc, "cause", error)) if endpoint is not None else None
            return GameOutcome(None, error, down=down, learned=getattr(exc, "learned", None) is not None)
        except Exception as exc:  # a broken game is reported; the tournament goes on
            self.live.pop(spec.key, None)
            writer.close(game)
            return GameOutcome(None, redact(f"{type(exc).__name__}: {exc}"))
        writer.close(game)
        self.live.pop(spec.key, None)
        seconds = time.perf_counter() - clock
        transcript = read_transcript(writer.path)
        beliefs = probe.records if probe is not None else []
        stats = transcript_stats(transcript, beliefs)
        # The players' own totals (the transcript's summary rounds dollars to 6 places); the dollars
        # to 10, which drops only the float noise of the order the calls were added in (a resumed
        # seat adds its recorded calls first), so a resumed game's rows equal an uncut one's.
        usage = {seat: asdict(p.usage) for seat, p in players.items() if is_dataclass(getattr(p, "usage", None))}
        for totals in usage.values():
            totals["cost"] = round(float(totals.get("cost", 0.0)), 10)
        record = game_record(
            spec, game, stats, beliefs, usage, (transcript.summary or {}).get("per_player") or {},
            seconds=seconds, transcript=str(writer.path), started=begun, ended=utc_now().isoformat(timespec="seconds"),
        )  # fmt: skip
        cost = record.game["cost"]
        dollars = f"${cost:.4f}"
        if not all(u.get("priced", True) for u in usage.values()):  # a seat without prices: unknown, not $0
            dollars = f"{dollars} + price unknown" if cost else "price unknown"
        mckay = deals_per_hand(spec.variant)
        winner = game.winner or "nobody"
        if mckay and game.winner in models:  # a McKay match is won by a seat: name its entrant too
            winner = f"{game.winner} of {models[game.winner].name}"
        again = f", resumed ({reused} model calls not made again)" if resume else ""
        return GameOutcome(
            record,
            f"{spec.first.name} ({'mafia side' if not mckay else 'side A'}) vs {spec.second.name}: "
            f"{winner} ({game.end_reason}), {seconds:.1f} s, {dollars}{again}",
            cost,
            calls_reused=reused,
        )


async def run_tournament(
    config: TournamentConfig,
    echo: Callable[[str], None] | None = None,
    *,
    calls: TournamentCalls | None = None,
    executor: Executor | None = None,
    progress: Callable[[int, int, float], None] | None = None,
) -> RunReport:
    """Lock the database, check the models and their endpoints, and play every game not played yet
    (here, or on ``executor``).

    A database another live run is writing stops this one at once (:class:`~.lock.DatabaseBusy`).
    """
    with WriterLock(config.database):
        replaying = calls is not None and calls.mode == "replay"
        checked = check_models(config, replay_overrides(calls))
        if not replaying:  # a replay never touches the network
            await check_endpoints(checked, echo)
        try:
            config.transcripts.mkdir(parents=True, exist_ok=True)
            if calls is not None and calls.mode == "record":
                calls.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot write to {exc.filename or config.transcripts}: {exc.strerror or exc}") from None
        with Database(config.database) as db:
            if echo is not None and not replaying:  # the price before the first game (a replay costs nothing)
                for line in estimate_lines(config, checked, db.total_cost()):
                    echo(line)
            runner = Runner(config, db, echo, endpoints=endpoints_of(checked), calls=calls, executor=executor, progress=progress)
            return await runner.run()
