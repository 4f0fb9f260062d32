"""Tournaments and balance runs on Ray (``--ray [ADDRESS]``; ``pip install -e ".[ray]"``).

Nothing here imports Ray until a run asks for it (:meth:`Cluster.connect`), so a run without
``--ray`` never loads it.

**Tournaments** (:class:`RayExecutor`). Each game is one Ray task, a generator: it plays the game
with :class:`~.runner.GameSession` — exactly as the in-process run does — writing its transcript
to a scratch file on the worker, and yields the new transcript lines every second (the first at
once, so the header arrives as the game starts), then the game's rows. The driver appends the
lines to the transcript under ``transcripts/`` on its own disk and records the rows, so it stays
the only writer of the database and resume, the design's order, the cost cap (every chunk carries
the game's spending so far) and one-line failures mean what they mean in one process. Ray does
not retry a game task itself (``max_retries=0``): when a worker dies mid-game, the driver's
runner records that try as failed (its transcript keeps the lines that arrived) and plays the
game again, at most :data:`WORKER_TRIES` times, so a game is recorded once or reported failed.

**Per-endpoint limits, cluster-wide** (:class:`EndpointPermits`). A model endpoint's
``concurrency`` bounds the calls in flight to it from the whole cluster: one async actor per run
holds a semaphore per endpoint and every model call on every worker holds one of its permits for
the duration of the HTTP call (belief questions included). Ray's custom resources were the other
choice, and the wrong one here: a task holds its resources for its whole life, so they could only
bound *games* in flight per endpoint, not *calls* — a game's calls come in bursts (every seat
votes at once) separated by long stretches of bot and engine work. Permits are tagged with the
game's try; when a worker dies holding some, the driver hands them back (and a permit granted to
a try already given up is returned at once). A model running inside the worker (``local``) keeps
its per-process limit: every worker has its own copy of the model.

**CPUs.** A game of built-in bots or with a ``local`` model seat is CPU-bound and asks Ray for
one CPU; a game whose model seats are all remote endpoints mostly waits on the network and asks
for :data:`MODEL_GAME_CPUS`, so a node runs several at once. ``concurrency`` still bounds the
games in flight across the cluster.

**Balance** (:class:`RayChunks`). Chunks of bot games are pure functions of their seeds, so they
are ordinary Ray tasks that Ray itself retries when a worker dies; the driver sums the outcomes.

**Connecting** (:class:`Cluster`). No address starts a local Ray instance on this machine's cores
(and stops it at the end); ``auto`` joins the cluster this machine is part of (``ray start``);
``HOST:PORT`` a cluster's head node, ``ray://HOST:PORT`` through Ray Client. An address that does
not answer within :data:`CONNECT_TIMEOUT` seconds is one line (:class:`ClusterError`), not Ray's
minutes of retries.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import importlib.util
import logging
import os
import shutil
import socket
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from arena.run.transcript import utc_now

from .config import ModelEntry, TournamentConfig
from .design import GameSpec
from .runner import GameOutcome, GameSession, TournamentCalls, WorkerLost, replay_overrides

WORKER_TRIES = 3  # plays of one game when its worker keeps dying
MODEL_GAME_CPUS = 0.25  # CPUs a game of remote model seats asks for (it mostly waits on the network)
CHUNK_SECONDS = 1.0  # how often a game in flight sends its new transcript lines
CONNECT_TIMEOUT = 5.0  # seconds for an address to answer before the run gives up
LOCAL = "local"  # --ray without an address

T = TypeVar("T")
R = TypeVar("R")


class ClusterError(ValueError):
    """Ray is missing or the cluster cannot be reached (one line)."""


# ---- connecting -----------------------------------------------------------------------------------
def _host_port(address: str) -> tuple[str, int] | None:
    """``HOST:PORT`` of an address (``ray://`` stripped; Ray Client's port 10001 by default)."""
    client = address.startswith("ray://")
    rest = address.removeprefix("ray://").rstrip("/")
    host, sep, port = rest.rpartition(":")
    if not sep:
        return (rest, 10001) if client and rest else None
    try:
        return host.strip("[]"), int(port)
    except ValueError:
        return None


def _unreachable(host: str, port: int) -> str | None:
    """Why ``host:port`` does not take a TCP connection (None: it does)."""
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT):
            return None
    except TimeoutError:
        return f"no answer within {CONNECT_TIMEOUT:.0f} s"
    except OSError as exc:
        return exc.strerror or str(exc)


def require_ray() -> None:
    """A one-line :class:`ClusterError` when Ray is not installed (checked before any file is written)."""
    if importlib.util.find_spec("ray") is None:
        raise ClusterError('--ray needs Ray: pip install -e ".[ray]"')


@dataclass(slots=True)
class Cluster:
    """A connection to Ray: started here (a local instance), joined, or the caller's own."""

    address: str  # as given: local, auto, HOST:PORT or ray://HOST:PORT
    cpus: int = 0
    nodes: int = 0
    seconds: float = 0.0  # start-up (or connection) cost, reported apart from the games
    owned: bool = False  # ray.init was ours: ray.shutdown at the end
    client: bool = False  # connected through Ray Client (ray://): no streamed results

    @classmethod
    def connect(cls, address: str | None = None, *, num_cpus: int | None = None) -> Cluster:
        """Start or join Ray (see the module docstring); a Ray already initialised here is used as it is."""
        require_ray()
        address = address or LOCAL
        started = time.perf_counter()
        import ray

        owned = False
        if not ray.is_initialized():
            if address not in (LOCAL, "auto"):
                where = _host_port(address)
                if where is None:
                    raise ClusterError(f"--ray {address}: use auto, HOST:PORT or ray://HOST:PORT")
                why = _unreachable(*where)
                if why is not None:
                    raise ClusterError(f"cannot reach the Ray cluster at {address}: {why}")
            if address.startswith("ray://") and importlib.util.find_spec("grpc") is None:
                raise ClusterError('ray:// addresses need Ray Client: pip install -e ".[ray]"')
            options: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": True}
            if address == LOCAL:
                options.update(num_cpus=num_cpus, include_dashboard=False)
            try:
                ray.init(address=address, **options)
            except (ConnectionError, ValueError, RuntimeError, OSError) as exc:
                if address == "auto" and isinstance(exc, ConnectionError):
                    raise ClusterError(
                        "--ray auto: no Ray cluster runs on this machine and RAY_ADDRESS is not set (ray start --head starts one)"
                    ) from None
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                hint = ""
                if address not in (LOCAL, "auto") and not os.environ.get("RAY_AUTH_MODE"):
                    hint = " (a cluster started with token authentication needs RAY_AUTH_MODE=token here too)"
                raise ClusterError(f"cannot reach the Ray cluster at {address}: {first}{hint}") from None
            owned = True
        resources = ray.cluster_resources()
        nodes = sum(1 for node in ray.nodes() if node.get("Alive"))
        client = bool(ray.util.client.ray.is_connected())
        return cls(address, int(resources.get("CPU", 0)), nodes, time.perf_counter() - started, owned, client)

    def describe(self) -> str:
        where = "a local Ray instance" if self.address == LOCAL else f"the Ray cluster at {self.address}"
        return (
            f"Ray: {where}, {self.nodes} node{'s' * (self.nodes != 1)}, {self.cpus} CPUs; "
            f"start-up {self.seconds:.1f} s (not counted in the games' time)"
        )

    def close(self) -> None:
        if self.owned:
            import ray

            ray.shutdown()
            self.owned = False


_remotes: dict[str, Any] = {}


def _remote(name: str, target: Any, **options: Any) -> Any:
    """``ray.remote(target)`` made once per process (Ray is imported only once a run asks for it)."""
    if name not in _remotes:
        import ray

        _remotes[name] = ray.remote(**options)(target) if options else ray.remote(target)
    return _remotes[name]


# ---- per-endpoint permits -------------------------------------------------------------------------
class EndpointPermits:
    """A Ray actor: the calls in flight to each model endpoint, cluster-wide, at most its limit.

    A permit is a ``ticket`` held by a ``holder`` (one try of one game). ``release_holder`` hands
    back every permit of a try whose worker died; a ticket released before it was granted (its
    call was cancelled while waiting) is handed back the moment it is granted.
    """

    def __init__(self) -> None:
        self.limits: dict[str, asyncio.Semaphore] = {}
        self.held: dict[str, tuple[str, str]] = {}  # ticket -> (endpoint, holder)
        self.cancelled: set[str] = set()
        self.gone: set[str] = set()  # holders given up
        self.out: dict[str, int] = {}
        self.most: dict[str, int] = {}

    async def acquire(self, endpoint: str, limit: int, holder: str, ticket: str) -> bool:
        if holder in self.gone or ticket in self.cancelled:
            self.cancelled.discard(ticket)
            return False
        semaphore = self.limits.setdefault(endpoint, asyncio.Semaphore(limit))  # the first caller's limit, as in-process
        await semaphore.acquire()
        if holder in self.gone or ticket in self.cancelled:
            self.cancelled.discard(ticket)
            semaphore.release()
            return False
        self.held[ticket] = (endpoint, holder)
        self.out[endpoint] = self.out.get(endpoint, 0) + 1
        self.most[endpoint] = max(self.most.get(endpoint, 0), self.out[endpoint])
        return True

    def release(self, ticket: str) -> None:
        if ticket not in self.held:
            self.cancelled.add(ticket)  # not granted yet: give it back when it is
            return
        endpoint, _ = self.held.pop(ticket)
        self.out[endpoint] -= 1
        self.limits[endpoint].release()

    def release_holder(self, holder: str) -> int:
        """Hand back every permit of ``holder`` (its game is over, or its worker died)."""
        self.gone.add(holder)
        tickets = [t for t, (_, h) in self.held.items() if h == holder]
        for ticket in tickets:
            self.release(ticket)
        return len(tickets)

    def peak(self) -> dict[str, int]:
        """The most permits ever out at once, per endpoint."""
        return dict(self.most)


class _Permit:
    """One model call's permit from the run's :class:`EndpointPermits` actor."""

    def __init__(self, permits: Any, endpoint: str, limit: int, holder: str) -> None:
        self.permits, self.endpoint, self.limit, self.holder = permits, endpoint, limit, holder
        self.ticket = uuid.uuid4().hex

    async def __aenter__(self) -> None:
        try:
            granted = await self.permits.acquire.remote(self.endpoint, self.limit, self.holder, self.ticket)
        except asyncio.CancelledError:  # e.g. a decision timeout while waiting: never keep the permit
            self.permits.release.remote(self.ticket)
            raise
        if not granted:
            raise RuntimeError("this game was given up: no more model calls")

    async def __aexit__(self, *exc: object) -> None:
        await self.permits.release.remote(self.ticket)


def _shared_limit(permits: Any, holder: str) -> Callable[[Any], Any]:
    def limit(profile: Any) -> _Permit | None:
        if profile.provider == "local":  # a model inside this worker: its own per-process limit
            return None
        return _Permit(permits, profile.endpoint, profile.concurrency, holder)

    return limit


# ---- one game, on a worker ------------------------------------------------------------------------
@dataclass(slots=True)
class Chunk:
    """New transcript lines of a game in flight, and what its model seats have spent so far."""

    text: str
    cost: float


class _Tail:
    """Reads the complete lines appended to a file since the last read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def read(self) -> str:
        try:
            with self.path.open("rb") as file:
                file.seek(self.offset)
                data = file.read()
        except FileNotFoundError:
            return ""
        end = data.rfind(b"\n") + 1
        self.offset += end
        return data[:end].decode("utf-8")


@dataclass(slots=True)
class Cassette:
    """A recorded game's model calls (``--record-calls``), for the driver to keep."""

    text: str


@dataclass(slots=True)
class GameTask:
    """One try of one game, as the driver hands it to a worker."""

    spec: GameSpec
    transcript: str  # where the driver keeps the transcript (it goes into the game's row)
    holder: str  # tags the endpoint permits of this try
    calls: str | None = None  # "record" / "replay" the game's model calls
    cassette_path: str = ""  # the driver's cassette file (named in messages)
    cassette: str | None = None  # replay: that file's text
    #: the structured modes the driver's check picked, per (endpoint, model): the worker's seats on a
    #: server of its own play in them (the worker process has no check of its own)
    modes: dict[tuple[str, str], str] = field(default_factory=dict)


def play_game(config: TournamentConfig, task: GameTask, permits: Any) -> Iterator[Any]:
    """The Ray task of one game: yields :class:`Chunk` s as it is played, then its :class:`GameOutcome`
    (a recording's :class:`Cassette` just before it).

    The worker writes the transcript, and a cassette, to a scratch folder and sends them; the
    driver keeps them where an in-process run would.
    """
    if task.modes:  # (a bots' game does not import the model seats' code)
        from arena.players.llm import modes

        modes.adopt(task.modes)
    scratch = Path(tempfile.mkdtemp(prefix="arena-game-"))
    calls = TournamentCalls(task.calls, scratch) if task.calls in ("record", "replay") else None  # type: ignore[arg-type]
    if calls is not None and task.cassette is not None:
        calls.path(task.spec.key).write_text(task.cassette, encoding="utf-8")
    session = GameSession(config, calls)
    spec = task.spec
    path = scratch / "transcript.jsonl"
    tail = _Tail(path)
    context = contextvars.copy_context()
    if permits is not None:
        from arena.players.llm.player import shared_limit

        context.run(shared_limit.set, _shared_limit(permits, task.holder))
    loop = asyncio.new_event_loop()
    try:
        game = loop.create_task(session.play(spec, path, lambda begun: None), context=context)
        wait = 0.05  # the header goes out at once, then a chunk a second
        while not game.done():
            loop.run_until_complete(asyncio.wait({game}, timeout=wait))
            wait = CHUNK_SECONDS
            if game.done():
                break  # the rest goes out with the outcome
            text = tail.read()
            if text:
                yield Chunk(text, session.live_cost())
        outcome: GameOutcome = game.result()
        loop.run_until_complete(session.aclose())
        text = tail.read()
        if text:
            yield Chunk(text, outcome.cost)
        if outcome.record is not None:
            outcome.record.game["transcript"] = task.transcript
        if calls is not None:
            cassette = calls.path(spec.key)
            outcome.line = outcome.line.replace(str(cassette), task.cassette_path)  # name the driver's file
            if calls.mode == "record" and cassette.is_file():
                yield Cassette(cassette.read_text(encoding="utf-8"))
        yield outcome
    finally:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for t in pending:
            t.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_default_executor())  # the bot games' thread: the worker lives on
        loop.close()
        shutil.rmtree(scratch, ignore_errors=True)


def _models_of(spec: GameSpec) -> list[ModelEntry]:
    """The models a game seats, whatever fields the design gives them (two sides, a third party, …)."""
    found: list[ModelEntry] = []
    for item in dataclasses.fields(spec):
        value = getattr(spec, item.name)
        values = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else [value]
        found.extend(v for v in values if isinstance(v, ModelEntry))
    return found


def play_game_whole(config: TournamentConfig, task: GameTask, permits: Any) -> list[Any]:
    """:func:`play_game` for a driver on Ray Client, which cannot stream: everything at the end."""
    return list(play_game(config, task, permits))


# ---- the driver's side ----------------------------------------------------------------------------
def _write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` whole (a reader never sees half a cassette)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_name(path.name + ".part")
    scratch.write_text(text, encoding="utf-8")
    os.replace(scratch, path)


def _cause(exc: BaseException) -> str:
    """A Ray error in one line: the class and the first line of its message."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException) and not isinstance(cause, type(exc)):
        exc = cause
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first[:200]}" if first else type(exc).__name__


class RayExecutor:
    """The runner's executor on Ray (see the module docstring): one task per game, this process writes."""

    tries = WORKER_TRIES
    isolated = True  # a game per worker process: recording calls need not serialise the games
    resumes = False  # a worker starts from nothing: a try that failed mid-way is played again whole

    def __init__(
        self,
        config: TournamentConfig,
        address: str | None = None,
        *,
        echo: Callable[[str], None] | None = None,
        calls: TournamentCalls | None = None,
    ) -> None:
        self.config = config
        self.address = address
        self.echo = echo or (lambda line: None)
        self.calls = calls
        self.cluster: Cluster | None = None
        self.permits: Any = None
        self.live: dict[str, float] = {}
        self._config_ref: Any = None
        self._cpus: dict[str, float] = {}  # model name -> CPUs a game with it asks for

    async def start(self) -> None:
        """Connect (start-up cost reported through ``echo``) and make the permits actor if a model needs it."""
        if self.cluster is not None:
            return
        self.cluster = Cluster.connect(self.address)
        self.echo(self.cluster.describe())
        import ray

        self._config_ref = ray.put(self.config)
        third = getattr(self.config, "third_party", None)
        models = (*self.config.models, *((third,) if third is not None else ()))
        providers = {m.name: self._provider(m, replay_overrides(self.calls)) for m in models}
        if any(p not in ("builtin", "local") for p in providers.values()):
            actor = _remote("EndpointPermits", EndpointPermits, num_cpus=0, max_restarts=0)
            self.permits = actor.remote()
        self._cpus = {name: 1.0 if p in ("builtin", "local") else MODEL_GAME_CPUS for name, p in providers.items()}

    @staticmethod
    def _provider(model: ModelEntry, overrides: dict[str, Any]) -> str:
        from arena.players.registry import is_builtin

        if is_builtin(model.spec):
            return "builtin"
        from arena.players.registry import make_player

        player = make_player(model.spec, "check", 0, **{**model.settings, **overrides})
        return str(getattr(getattr(player, "profile", None), "provider", "builtin"))

    def live_cost(self) -> float:
        return sum(self.live.values())

    async def play(self, spec: GameSpec, path: Path, started: Callable[[str], None]) -> GameOutcome:
        import ray

        await self.start()
        try:
            path.open("x").close()  # the name is this try's, even if no line ever arrives
        except OSError as exc:
            return GameOutcome(None, f"cannot write its transcript: {exc.strerror or exc}")
        started(utc_now().isoformat(timespec="seconds"))
        from arena.players.llm import modes

        task = GameTask(spec, str(path), uuid.uuid4().hex, modes=modes.picks())
        if self.calls is not None:
            cassette = self.calls.path(spec.key)
            task.calls, task.cassette_path = self.calls.mode, str(cassette)
            if self.calls.mode == "replay" and cassette.is_file():
                task.cassette = cassette.read_text(encoding="utf-8")
        cpus = max((self._cpus.get(m.name, 1.0) for m in _models_of(spec)), default=1.0)
        outcome: GameOutcome | None = None
        try:
            with path.open("a", encoding="utf-8") as out:
                async for item in self._items(cpus, (self._config_ref, task, self.permits)):
                    if isinstance(item, Chunk):
                        out.write(item.text)
                        out.flush()
                        self.live[spec.key] = item.cost
                    elif isinstance(item, Cassette) and self.calls is not None:
                        _write_atomically(self.calls.path(spec.key), item.text)
                    else:
                        outcome = item
        except ray.exceptions.RayTaskError as exc:  # the game's code failed: a failed game, not a lost worker
            return GameOutcome(None, _cause(exc))
        except ray.exceptions.RayError as exc:
            raise WorkerLost(_cause(exc)) from None
        finally:
            self.live.pop(spec.key, None)
            if self.permits is not None:
                self.permits.release_holder.remote(task.holder)
        if outcome is None:
            raise WorkerLost("the game's task ended without a result")
        return outcome

    async def _items(self, cpus: float, args: tuple[Any, ...]) -> AsyncIterator[Any]:
        """What the game's task yields, as it comes (through Ray Client, all at the end)."""
        import ray

        if self.cluster is not None and self.cluster.client:  # Ray Client cannot stream a task's results
            whole = _remote("play_game_whole", play_game_whole, max_retries=0)
            for item in await asyncio.to_thread(ray.get, whole.options(num_cpus=cpus).remote(*args)):
                yield item
            return
        task = _remote("play_game", play_game, max_retries=0)
        async for ref in task.options(num_cpus=cpus).remote(*args):
            yield await ref

    async def aclose(self) -> None:
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None


# ---- balance --------------------------------------------------------------------------------------
class RayChunks:
    """Maps a pure function over jobs as Ray tasks, at most ``in_flight`` at once (``arena balance --ray``)."""

    def __init__(self, address: str | None = None) -> None:
        self.address = address
        self.cluster: Cluster | None = None

    def connect(self) -> Cluster:
        if self.cluster is None:
            self.cluster = Cluster.connect(self.address)
        return self.cluster

    def workers(self) -> int:
        return max(1, self.connect().cpus)

    def describe(self) -> str:
        return self.connect().describe()

    def map_unordered(self, fn: Callable[[T], R], jobs: Sequence[T], in_flight: int) -> Iterator[R]:
        """``fn(job)`` for every job, in the order they finish; Ray retries a job whose worker died."""
        import ray

        self.connect()
        remote = _remote(f"chunk:{fn.__module__}.{fn.__qualname__}", fn, num_cpus=1, max_retries=WORKER_TRIES - 1)
        todo = list(jobs)
        todo.reverse()
        pending: list[Any] = []
        while todo or pending:
            while todo and len(pending) < max(1, in_flight):
                pending.append(remote.remote(todo.pop()))
            done, pending = ray.wait(pending, num_returns=1)
            try:
                yield ray.get(done[0])
            except ray.exceptions.RayError as exc:
                raise ClusterError(f"a Ray task failed: {_cause(exc)}") from None

    def close(self) -> None:
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
