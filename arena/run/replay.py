"""Replay: re-run a transcript from its recorded answers, with no player, and compare.

The game is rebuilt from the header (variant, seats, options, seed). Each player's recorded
answers — its ``rejected``, ``action`` and ``forfeit`` events — are offered again to the same
decisions, through the orchestrator's own :class:`~arena.run.orchestrator.Ruling`:

- a ``rejected`` event offers its ``action`` again, or its ``raw`` answer (not an action at all)
  with the recorded complaint;
- an ``action`` event offers its action (with its arrival time ``at``, at a table on the wall
  clock: McKay's games with a person, where "first come" follows those times);
- a ``forfeit`` that came after fewer than ``retries + 1`` rejections means the player gave no
  answer: no answer is offered (with the recorded reason, e.g. "no answer");
- the orchestrator's moderator notes ``player_timeout`` and ``player_error`` mark a decision the
  player timed out or failed on; they are re-emitted at the same point.

Answers are offered in the order the transcript recorded them, so games whose simultaneous
decisions were answered in parallel (language models) replay exactly too. The new event log must
equal the recorded one, event for event (``to_dict()``, as read back from JSON).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from arena.engine import Game, RulesError, parse_action
from arena.players.base import Malformed
from arena.run.orchestrator import Ruling
from arena.run.transcript import Transcript, normalise
from arena.variants import get_variant

ANSWER_EVENTS = frozenset(("rejected", "action", "forfeit", "player_timeout", "player_error"))


class ReplayError(ValueError):
    """A transcript that cannot be replayed at all (unknown variant, bad header): one line."""


@dataclass(slots=True)
class ReplayResult:
    ok: bool
    identical: int  # leading events that are identical
    recorded: int
    replayed: int
    complete: bool  # the game ran to its end
    difference: str | None = None
    aborted: str | None = None  # why a stopped game was stopped (None: finished, or crashed)

    def message(self) -> str:
        if not self.ok:
            return f"replay FAILED: {self.difference}"
        text = f"replay OK: {self.identical} events identical"
        if self.complete:
            return text
        note = f"stopped game: {self.aborted}" if self.aborted else "crashed game: the transcript has no summary"
        if self.recorded > self.identical:
            note += f"; its last {self.recorded - self.identical} events, from an unfinished step, were not replayed"
        elif self.replayed > self.recorded:
            note += f"; the record stops inside its last step, which replays {self.replayed - self.recorded} events further"
        return f"{text} ({note})"


def game_from_header(header: dict[str, Any]) -> Game:
    """The recorded game at its start: same variant, seats, options and seed."""
    try:
        cls = get_variant(str(header["variant"]))
    except KeyError as exc:
        raise ReplayError(exc.args[0]) from None
    try:
        return cls(header["seats"], header["options"], header["seed"])
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"]))
        raise ReplayError(f"header options.{where}: {first['msg']}") from None
    except (RulesError, TypeError) as exc:
        raise ReplayError(f"header: {exc}") from None


def reseeds(header: Mapping[str, Any]) -> dict[int, int]:
    """Where a forked game's randomness was seeded anew (:mod:`arena.run.fork`): steps resolved ->
    seed, from the header's ``reseeds`` (empty for a game that was never forked)."""
    out: dict[int, int] = {}
    for item in header.get("reseeds") or ():
        if isinstance(item, (list, tuple)) and len(item) == 2:
            out[int(item[0])] = int(item[1])
    return out


def reseed(game: Game, seed: int) -> None:
    """From here on the game draws from ``seed``: its generator and its per-day draws (the opener)."""
    game.seed = seed
    game.rng = random.Random(seed)


def _answer_events(events: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for event in events:
        if event.get("type") in ANSWER_EVENTS and "request" in event.get("data", {}):
            yield event


def _offer(game: Game, ruling: Ruling, event: dict[str, Any]) -> bool:
    """Offer one recorded answer again; False if it cannot be understood."""
    kind, data = event["type"], event["data"]
    try:
        if kind == "rejected":
            if "action" in data:
                ruling.offer(parse_action(data["action"]))
            else:
                ruling.offer(Malformed(data.get("raw"), data["reason"]))
        elif kind == "action":
            ruling.offer(parse_action(data["action"]), at=data.get("at"))
        elif kind == "forfeit":
            ruling.offer(None, data.get("why") or None, at=data.get("at"))
        elif kind == "player_timeout":
            ruling.offer(None, "out of time")
            game.note("player_timeout", actor=event.get("actor"), request=data["request"])
        else:  # player_error
            game.note("player_error", actor=event.get("actor"), request=data["request"], error=data.get("error", ""))
            ruling.offer(None, "player error")
    except (ValidationError, KeyError):
        return False
    return True


OUT_OF_ANSWERS = "out of answers"
MISFIT = "an answer that does not fit"


#: called before each recorded answer is offered again: (the ruling it goes to, the recorded event)
Rehearsal = Callable[[Ruling, dict[str, Any]], None]


@dataclass(slots=True)
class Rebuilt:
    """A game played again from its answers, and where it stopped.

    ``stopped`` is None (the game ran to its end), :data:`OUT_OF_ANSWERS` or :data:`MISFIT`; when
    the answers ran out inside a step, ``open`` holds that step's rulings (request id -> ruling,
    in request order) with the attempts already recorded: a resumed run goes on with them.
    """

    game: Game
    stopped: str | None
    open: dict[int, Ruling] = field(default_factory=dict)


def rebuild(
    transcript: Transcript,
    rehearse: Rehearsal | None = None,
    *,
    game: Game | None = None,
    resolved: Callable[[Game], None] | None = None,
    forked: Callable[[Game, int], None] | None = None,
) -> Rebuilt:
    """Play the recorded game again from its answers (see the module docstring).

    ``rehearse`` sees every recorded answer just before it is offered again, with the ruling it
    goes to (its request, the feedback the player had): :mod:`arena.run.resume` uses it to bring
    the seats' own memories (a bot's, a model's conversation) to where they were, asking no one.
    ``resolved`` is called after each step is resolved, as an observer was in the recorded run;
    ``game`` is the game at its start, if the caller made it (:func:`game_from_header`).
    A forked game (header ``reseeds``) draws from its new seed from the fork on, as it was played;
    ``forked(game, seed)`` is told there (the resume reseeds its bots' streams too).
    """
    game = game if game is not None else game_from_header(transcript.header)
    answers = _answer_events(transcript.events)
    seeds = reseeds(transcript.header)
    steps = 0
    while not game.finished:
        if steps in seeds:
            reseed(game, seeds[steps])
            if forked is not None:
                forked(game, seeds[steps])
        rulings = {request.id: Ruling(game, request) for request in game.pending()}
        first = min(rulings)
        while any(r.decision is None for r in rulings.values()):
            event = next(answers, None)
            if event is None:
                return Rebuilt(game, OUT_OF_ANSWERS, rulings)
            request_id = event["data"]["request"]
            settled_kind = event["type"] in ("action", "forfeit")  # logged when its batch was resolved
            ruling = rulings.get(request_id) if isinstance(request_id, int) else None
            if ruling is None:
                if settled_kind and isinstance(request_id, int) and request_id < first:
                    continue  # an earlier batch, already settled from its answers
                return Rebuilt(game, MISFIT)
            if ruling.decision is not None:
                if settled_kind:
                    continue
                return Rebuilt(game, MISFIT)
            if event.get("actor") != ruling.request.player:
                return Rebuilt(game, MISFIT)
            if rehearse is not None:
                rehearse(ruling, event)
            if not _offer(game, ruling, event):
                return Rebuilt(game, MISFIT)
        game.resolve([r.decision for r in rulings.values()])  # type: ignore[misc]
        steps += 1
        if resolved is not None:
            resolved(game)
    return Rebuilt(game, None)


def replay_game(transcript: Transcript) -> tuple[Game, str | None]:
    """Play the recorded game again from its answers.

    Returns the game and why the replay stopped early: None when the game ran to its end,
    :data:`OUT_OF_ANSWERS` when the recorded answers ran out (an aborted game), :data:`MISFIT`
    when a recorded answer fits no decision the replay asked (the logs differ there).
    """
    rebuilt = rebuild(transcript)
    return rebuilt.game, rebuilt.stopped


def _describe(recorded: dict[str, Any] | None, replayed: dict[str, Any] | None) -> str:
    if recorded is None:
        return f"the replay has an extra event: {replayed}"
    if replayed is None:
        return f"the replay stops before recorded event {recorded}"
    keys = [k for k in {**recorded, **replayed} if recorded.get(k) != replayed.get(k)]
    parts = [f"{k}: recorded {recorded.get(k)!r}, replayed {replayed.get(k)!r}" for k in keys]
    return f"event {recorded.get('seq')} ({recorded.get('type')}) differs: " + "; ".join(parts)


def compare(transcript: Transcript, game: Game, stopped: str | None = None) -> ReplayResult:
    """The first difference between the recorded log (and summary) and the replayed game.

    An aborted transcript may end inside a step (its answers cut short): the replay then stops
    before that step, and the recorded events it could not reach are not a difference.
    """
    recorded = transcript.events
    replayed = [normalise(e.to_dict()) for e in game.log]
    same = 0
    for a, b in zip(recorded, replayed, strict=False):
        if a != b:
            break
        same += 1
    result = ReplayResult(True, same, len(recorded), len(replayed), transcript.complete, aborted=transcript.aborted)
    unreachable_tail = not transcript.complete and stopped == OUT_OF_ANSWERS and same == len(replayed)
    # a crash while a step's events were being written: the record is a prefix of the replayed step
    cut_while_written = not transcript.complete and same == len(recorded) < len(replayed)
    if same < max(len(recorded), len(replayed)) and not (unreachable_tail or cut_while_written):
        a = recorded[same] if same < len(recorded) else None
        b = replayed[same] if same < len(replayed) else None
        result.ok, result.difference = False, _describe(a, b)
    elif transcript.summary is not None:
        now = normalise(game.summary())
        diff = [k for k in now if transcript.summary.get(k) != now[k]]
        if diff:
            k = diff[0]
            result.ok = False
            result.difference = f"summary {k}: recorded {transcript.summary.get(k)!r}, replayed {now[k]!r}"
    return result


def replay(transcript: Transcript) -> ReplayResult:
    """Replay ``transcript`` and compare the two games."""
    game, stopped = replay_game(transcript)
    return compare(transcript, game, stopped)
