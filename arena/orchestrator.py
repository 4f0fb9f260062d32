"""Runs a game: asks players, feeds rejections back as retries, forfeits, resolves.

Simultaneous decisions are asked concurrently (``asyncio.gather``); a game whose seats are all
:class:`~arena.players.base.SyncPlayer` runs on a synchronous fast path with no event loop.
Observers (the transcript writer, the terminal printer) are called after every change to the
log, so nothing already played is lost if a run is interrupted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence

from arena.engine import ActionBase, Decision, DecisionRequest, Game, View
from arena.players.base import Answer, GiveUp, Malformed, Player, StopGame, SyncPlayer
from arena.players.redact import redact

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

    def offer(self, answer: Answer, error: str | None = None) -> None:
        game, request = self.game, self.request
        if answer is None or isinstance(answer, GiveUp):
            self._forfeit(answer.why if isinstance(answer, GiveUp) else error or "no answer")
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
                self.decision = Decision(request, action, False, self.attempts)
                return
            game.reject(request, action, reason)
        self.attempts.append((action, reason))
        self.feedback = reason
        if len(self.attempts) > game.options.retries:
            self._forfeit(f"{len(self.attempts)} rejected answers")

    def _forfeit(self, why: str) -> None:
        # the default is drawn by Game.resolve in request order: parallel answers may arrive in any order
        self.decision = Decision(self.request, None, True, self.attempts, why)


def _views(game: Game, players: Mapping[str, object]) -> dict[str, View]:
    return {name: game.view(name) for name in players}


def _notify(observers: Sequence[Observer], game: Game) -> None:
    for observer in observers:
        observer(game)


def run_sync(game: Game, players: Mapping[str, SyncPlayer], observers: Sequence[Observer] = ()) -> Game:
    """Play ``game`` to its end with players that answer at once (no event loop)."""
    views = _views(game, players)
    _notify(observers, game)
    while not game.finished:
        decisions = []
        for request in game.pending():
            name = request.player
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
) -> Game:
    """Play ``game`` to its end, asking simultaneous decisions in parallel."""
    views = _views(game, players)
    _notify(observers, game)

    async def settle(request: DecisionRequest) -> Decision:
        ruling = Ruling(game, request)
        player = players[request.player]
        while ruling.decision is None:
            try:
                answer = await asyncio.wait_for(player.decide(request, views[request.player], ruling.feedback), decision_timeout)
            except (StopGame, KeyboardInterrupt, asyncio.CancelledError):
                raise
            except TimeoutError:
                ruling.offer(None, "out of time")
                game.note("player_timeout", actor=request.player, request=request.id)
            except Exception as exc:  # a broken player forfeits; the game goes on
                error = redact(f"{type(exc).__name__}: {exc}")  # a model seat's exception may quote its key
                game.note("player_error", actor=request.player, request=request.id, error=error)
                ruling.offer(None, "player error")
            else:
                ruling.offer(answer)
            _notify(observers, game)
        return ruling.decision

    while not game.finished:
        tasks = [asyncio.ensure_future(settle(r)) for r in game.pending()]
        try:
            decisions = await asyncio.gather(*tasks)
        except BaseException:
            # A stop (a person quit, Ctrl-C) ends the step: the other seats' questions are withdrawn
            # before the caller closes their connections, so nothing is still asking when it does.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        game.resolve(decisions)
        _notify(observers, game)
    return game


def play(game: Game, players: Mapping[str, Player], observers: Sequence[Observer] = (), **kwargs) -> Game:
    """Run ``game`` on the fast path when every seat is synchronous, else on an event loop."""
    if all(isinstance(p, SyncPlayer) for p in players.values()) and not kwargs:
        return run_sync(game, players, observers)  # type: ignore[arg-type]
    return asyncio.run(run(game, players, observers, **kwargs))
