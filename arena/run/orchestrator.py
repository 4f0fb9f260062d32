"""Runs a game: asks players, feeds rejections back as retries, forfeits, resolves.

Simultaneous decisions are asked concurrently (``asyncio.gather``); a game whose seats are all
:class:`~arena.players.base.SyncPlayer` runs on a synchronous fast path with no event loop.
Observers (the transcript writer, the terminal printer) are called after every change to the
log, so nothing already played is lost if a run is interrupted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.engine import ActionBase, Decision, DecisionRequest, Game, View
from arena.players.base import Answer, Beat, GiveUp, Malformed, Player, StopGame, SyncPlayer
from arena.players.redact import redact
from arena.run.wallclock import WallClock

__all__ = ["Observer", "Ruling", "StopGame", "play", "run", "run_sync"]
Observer = Callable[[Game], None]


class Ruling:
    """Settles one decision: validates each attempt, keeps the reasons, forfeits at the limit."""

    __slots__ = ("attempts", "decision", "feedback", "game", "request")

    def __init__(self, game: Game, request: DecisionRequest) -> None:
        self.game = game
        self.request = request
        self.attempts: list[tuple[ActionBase | None, str | None]] = []
        self.decision: Decision | None = None
        self.feedback: str | None = None

    def offer(self, answer: Answer, error: str | None = None, *, at: float | None = None) -> None:
        """One attempt; ``at`` is when it arrived, in seconds into the beat (a table on the wall clock)."""
        game, request = self.game, self.request
        if answer is None or isinstance(answer, GiveUp):
            self._forfeit(answer.why if isinstance(answer, GiveUp) else error or "no answer", at)
            return
        if isinstance(answer, Malformed):
            reason: str | None = answer.error
            game.reject(request, None, reason, raw=answer.raw)
            action = None
        else:
            action = answer
            reason = game.validate(request, action)
            if reason is None:
                self.attempts.append((action, None))
                self.decision = Decision(request, action, False, self.attempts, at=at)
                return
            game.reject(request, action, reason)
        self.attempts.append((action, reason))
        self.feedback = reason
        if len(self.attempts) > game.options.retries:
            self._forfeit(f"{len(self.attempts)} rejected answers")  # no time: a replay rebuilds it from the rejections

    def _forfeit(self, why: str, at: float | None = None) -> None:
        # the default is drawn by Game.resolve in request order: parallel answers may arrive in any order
        self.decision = Decision(self.request, None, True, self.attempts, why, at=at)


def _views(game: Game, players: Mapping[str, object]) -> dict[str, View]:
    return {name: game.view(name) for name in players}


def _notify(observers: Sequence[Observer], game: Game) -> None:
    for observer in observers:
        observer(game)


def _begun(game: Game, opened: Mapping[int, Ruling] | None) -> dict[int, Ruling]:
    """The rulings of the step a resumed game stopped in (:mod:`arena.run.resume`), if it is this one."""
    if not opened:
        return {}
    pending = {r.id for r in game.pending()}
    return {rid: ruling for rid, ruling in opened.items() if rid in pending and ruling.game is game}


def run_sync(
    game: Game,
    players: Mapping[str, SyncPlayer],
    observers: Sequence[Observer] = (),
    *,
    opened: Mapping[int, Ruling] | None = None,
) -> Game:
    """Play ``game`` to its end with players that answer at once (no event loop).

    ``opened``: the rulings of a step already begun (a resumed game, :mod:`arena.run.resume`): their
    recorded attempts count, and a settled one is not asked again.
    """
    views = _views(game, players)
    begun = _begun(game, opened)
    _notify(observers, game)
    while not game.finished:
        decisions = []
        for request in game.pending():
            name = request.player
            ruling = begun.pop(request.id, None)  # type: ignore[assignment]
            if ruling is None:
                answer = players[name].decide_now(request, views[name], None)
                if isinstance(answer, ActionBase) and game.validate(request, answer) is None:
                    decisions.append(Decision(request, answer, False, [(answer, None)]))
                    continue  # the common case, without a Ruling
                ruling = Ruling(game, request)
                ruling.offer(answer)
            while ruling.decision is None:
                _notify(observers, game)  # a rejection is on the log: write it before asking again
                ruling.offer(players[name].decide_now(request, views[name], ruling.feedback))
            decisions.append(ruling.decision)
        game.resolve(decisions)
        _notify(observers, game)
    return game


async def run(
    game: Game,
    players: Mapping[str, Player],
    observers: Sequence[Observer] = (),
    *,
    decision_timeout: float | None = None,
    clock: WallClock | None = None,
    opened: Mapping[int, Ruling] | None = None,
) -> Game:
    """Play ``game`` to its end, asking simultaneous decisions in parallel.

    A step's decisions are asked together, in rounds: every seat still owing an answer is asked at
    once, and the round's answers are then ruled on in request order (rejections logged, retries
    prepared), so the log never depends on which answer arrived first.

    With ``clock`` (McKay's games with a person at the table) every beat lasts its seconds on the
    wall clock and each answer goes to the engine with its arrival time (:mod:`arena.run.wallclock`):
    there, when an answer arrives is part of it.
    Observers with an ``async hold(game)`` method may keep the next step waiting (the person's
    screen, paging the rest of a game after their death), and with an ``async
    before_resolve(game, pending, decisions)`` a step's resolution (a served table's night floor).
    ``opened``: the rulings of a step already begun (a resumed game, :mod:`arena.run.resume`): their
    recorded attempts count, and a settled one is not asked again.
    """
    views = _views(game, players)
    begun = _begun(game, opened)
    _notify(observers, game)
    loop = asyncio.get_running_loop()
    watchers = list({id(w): w for w in (*players.values(), *observers) if hasattr(w, "beat_started")}.values())
    holders = [o for o in observers if hasattr(o, "hold")]
    floors = [o for o in observers if hasattr(o, "before_resolve")]

    def ruling_for(request: DecisionRequest) -> Ruling:
        return begun.pop(request.id, None) or Ruling(game, request)

    async def settle_in_beat(request: DecisionRequest, beat: Beat) -> Decision:
        """One answer within the beat: when it arrives is part of the answer."""
        assert clock is not None
        ruling = ruling_for(request)
        player = players[request.player]
        while ruling.decision is None:
            left = beat.ends - loop.time()
            answer: Answer = None
            arrives: float | None = None  # an instant player's drawn moment: its arrival, however late the loop wakes
            try:
                if isinstance(player, SyncPlayer):  # an instant player thinks for a seeded moment
                    answer = player.decide_now(request, views[request.player], ruling.feedback)
                    arrives = loop.time() + clock.think_time(request.player)
                    if arrives >= beat.ends:
                        raise TimeoutError
                    await asyncio.sleep(arrives - loop.time())
                elif left > 0:
                    answer = await asyncio.wait_for(player.decide(request, views[request.player], ruling.feedback), left)
                else:
                    raise TimeoutError
            except (StopGame, KeyboardInterrupt, asyncio.CancelledError):
                raise
            except TimeoutError:  # nothing in time: the beat passes the player by (its default, at the end)
                if request.default is None:
                    ruling.offer(None, "the beat was over", at=beat.seconds)
                else:
                    ruling.offer(request.default, at=beat.seconds)
            except Exception as exc:  # a broken player forfeits; the game goes on
                error = redact(f"{type(exc).__name__}: {exc}")  # a model seat's exception may quote its key
                game.note("player_error", actor=request.player, request=request.id, error=error)
                ruling.offer(None, "player error")
            else:
                now = loop.time() if arrives is None else arrives
                ruling.offer(answer, at=min(now - beat.started, beat.seconds))
            _notify(observers, game)
        return ruling.decision

    async def attempt(ruling: Ruling) -> tuple[Answer, str | None]:
        """One try at a decision: the answer, or None and the moderator note's error (nothing logged)."""
        request = ruling.request
        player = players[request.player]
        try:
            answer = await asyncio.wait_for(player.decide(request, views[request.player], ruling.feedback), decision_timeout)
        except (StopGame, KeyboardInterrupt, asyncio.CancelledError):
            raise
        except TimeoutError:
            return None, None
        except Exception as exc:  # a broken player forfeits; the game goes on
            return None, redact(f"{type(exc).__name__}: {exc}")  # a model seat's exception may quote its key
        return answer, ""

    def rule(ruling: Ruling, answer: Answer, error: str | None) -> None:
        request = ruling.request
        if error is None:
            ruling.offer(None, "out of time")
            game.note("player_timeout", actor=request.player, request=request.id)
        elif error:
            game.note("player_error", actor=request.player, request=request.id, error=error)
            ruling.offer(None, "player error")
        else:
            ruling.offer(answer)

    async def settle(request: DecisionRequest) -> Decision:
        """One untimed decision on its own (beside a timed beat's): tries until it is settled."""
        ruling = ruling_for(request)
        while ruling.decision is None:
            rule(ruling, *await attempt(ruling))
            _notify(observers, game)
        return ruling.decision  # type: ignore[return-value]

    async def gathered(tasks: list[asyncio.Future[Any]]) -> list[Any]:
        try:
            return await asyncio.gather(*tasks)
        except BaseException:
            # A stop (a person quit, Ctrl-C) ends the step: the other seats' questions are withdrawn
            # before the caller closes their connections, so nothing is still asking when it does.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    async def settle_in_rounds(pending: list[DecisionRequest]) -> list[Decision]:
        """Every seat still owing an answer at once; the round ruled on in request order, not arrival."""
        rulings = [ruling_for(r) for r in pending]
        waiting = [r for r in rulings if r.decision is None]
        while waiting:
            outcomes = await gathered([asyncio.ensure_future(attempt(r)) for r in waiting])
            for ruling, (answer, error) in zip(waiting, outcomes, strict=True):
                rule(ruling, answer, error)
            _notify(observers, game)  # a rejection is on the log: written before the seat is asked again
            waiting = [r for r in waiting if r.decision is None]
        return [r.decision for r in rulings]  # type: ignore[misc]

    while not game.finished:
        pending = game.pending()
        beat = None
        if clock is not None and any(clock.timed(r) for r in pending):
            beat = clock.start(pending, loop.time())
            for watcher in watchers:
                watcher.beat_started(beat)  # type: ignore[attr-defined]
        if beat is None:
            decisions = await settle_in_rounds(pending)
        else:  # a beat on the wall clock: when each answer arrives is part of it
            tasks = [
                asyncio.ensure_future(settle_in_beat(r, beat) if clock.timed(r) else settle(r))  # type: ignore[union-attr]
                for r in pending
            ]
            decisions = await gathered(tasks)
        for floor in floors:
            await floor.before_resolve(game, pending, decisions)  # type: ignore[attr-defined]
        game.resolve(decisions)
        _notify(observers, game)
        for holder in holders:
            await holder.hold(game)  # type: ignore[attr-defined]
    return game


def play(
    game: Game,
    players: Mapping[str, Player],
    observers: Sequence[Observer] = (),
    *,
    opened: Mapping[int, Ruling] | None = None,
    **kwargs,
) -> Game:
    """Run ``game`` on the fast path when every seat is synchronous, else on an event loop."""
    if all(isinstance(p, SyncPlayer) for p in players.values()) and not kwargs:
        return run_sync(game, players, observers, opened=opened)  # type: ignore[arg-type]
    if opened:
        kwargs["opened"] = opened
    return asyncio.run(run(game, players, observers, **kwargs))
