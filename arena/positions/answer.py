"""One position answered by one player, and scored against the truth.

The player is seated at the position's seat in the recorded game rebuilt up to that decision
(:func:`seat_at`): nobody is asked on the way; a bot answers the seat's recorded decisions again,
so its memory is what it would have been; a model seat goes through the seat's earlier prompts
with the recorded answers as its own (as ``arena prompts`` shows them). It then answers the
position once, seeing the seat's view only.

- **Detection** (:func:`detection_score`): 1 if the answer names a mafia seat (a verdict: guilty
  on a mafia seat, innocent on a town one), less the chance a uniformly random legal choice has
  (the mafia's share of the legal targets; ½ for a verdict). 0 is chance, ``1 − chance`` a sure hit.
  A legal abstention (no accusation, no nomination, an abstaining ballot) names nobody and so says
  nothing: it scores the chance (``hit`` = ``chance``), as a uniformly random name would on
  average; a bot that accuses only when it has a reason is not scored below ``random`` for holding.
- **Belief** (:func:`belief_score`, a kind of detection): the seat's percentage that each candidate
  is mafia, asked as a tournament's belief probe asks it (a model: the same question, from the
  rebuilt conversation; a bot: its suspicion model through the probe's logistic). It is scored by
  its Brier score against the truth, ``hit`` = 1 − Brier in [0, 1], less the ``chance`` of the
  deal's prior (mafia / (players − 1), what a seat states without reading the game); its log-loss
  (each percentage kept within [1, 99]) is recorded beside it. Brier, not log-loss, decides: it is
  bounded without a clip (the test's values must lie in [−1, 1]), it is the tournament's belief
  metric, and on the known truths it told players apart 5–15% better per call (docs/positions.md).
  A missing answer, or a candidate left out, is 50%.
- **Deception** (:func:`play_on`): the game is forked at the mafia seat's speech or ballot
  (:mod:`arena.run.resume`'s rehearsal and reseeding, as ``arena fork`` does): the seats' recorded
  players (a model seat's: ``bot``) play on to the end of the game, with the player's answer
  in place of the recorded one and with the recorded answer, from the same seeds (eight play-ons
  each, averaged: :data:`FORKS`). The
  *suspicion* on the speaker is the mean of the share of the other town seats' later decisions
  that could name it and did (accusations, nominations, ballots, checks; guilty verdicts on it) and
  whether the table executed it. The score is the recorded answer's suspicion less the player's:
  above 0, the table trusted the player more. (A table of bots weighs a ballot or an accusation on
  its author once its target's card is shown, so the table's answer needs the rest of the game.)
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.engine import ActionBase, Game, dump_action, parse_action
from arena.engine.requests import DecisionRequest
from arena.players.base import GiveUp, Malformed, SyncPlayer
from arena.players.registry import builtin_kind, make_player
from arena.run.orchestrator import Ruling
from arena.run.replay import OUT_OF_ANSWERS, rebuild, reseed
from arena.run.resume import Rehearser, reseed_players
from arena.run.transcript import Transcript

from .bank import BELIEF, DECEPTION, Position

#: a deception fork's bound in steps (a game ends long before: max_days)
MAX_STEPS = 2000
#: the deception score's measure of :func:`fork_measures`, and the play-ons it is the mean of
#: (docs/positions.md, *Which deception measure*: four play-ons carried 2.7–3.5 times one's
#: information per call on a ballot, eight twice four's; the town bots' beliefs did not beat the
#: named share on ballots)
MEASURE = "named"
FORKS = 8
#: the decisions whose target can be a seat suspected: (option kind, field)
NAMING = (("speak", "accuse"), ("speak", "nominate"), ("vote", "target"), ("check", "target"))


class PositionError(ValueError):
    """A position that does not fit its game (the bank and the games disagree): one line."""


@dataclass(slots=True)
class Scored:
    """A player's answer at a position and its score (one line of a run)."""

    id: str
    kind: str
    what: str
    game: str
    weight: float
    answer: dict[str, Any] | None
    valid: bool
    score: float | None  # detection: hit − chance; deception: baseline − suspicion
    hit: float | None = None
    chance: float | None = None
    suspicion: float | None = None
    baseline: float | None = None
    logloss: float | None = None  # a belief: its mean log-loss over the candidates (nats)
    brier: float | None = None  # and its Brier score
    usage: dict[str, Any] = field(default_factory=dict)
    cost: float = 0.0
    calls: int = 0
    error: str | None = None

    def row(self) -> dict[str, Any]:
        return {"type": "answer", **{k: getattr(self, k) for k in self.__slots__}}  # type: ignore[attr-defined]


def position_seed(position: Position, seed: int = 0) -> int:
    """The seed of what is random after a position (the same for every player: paired)."""
    return zlib.crc32(f"{seed}:{position.id}".encode())


def _cut(transcript: Transcript, position: Position) -> Transcript:
    """The recorded game up to the position's step: its events before, no call record."""
    return Transcript(transcript.path, transcript.header, transcript.events[: position.events], None, [])


def seat_at(
    transcript: Transcript, position: Position, players: Mapping[str, Any], extra: Rehearser | None = None
) -> tuple[Game, DecisionRequest]:
    """The game rebuilt up to the position with ``players`` (seat -> player) brought along; the
    request of the position. ``extra`` rehearses a second set of players (the speaker's own bot)."""
    own = Rehearser(players, foreign={seat: position.request for seat in players})

    def rehearse(ruling: Ruling, event: dict[str, Any]) -> None:
        own(ruling, event)
        if extra is not None:
            extra(ruling, event)

    rebuilt = rebuild(_cut(transcript, position), rehearse)
    game = rebuilt.game
    request = next((r for r in game.pending() if r.id == position.request), None)
    reached = rebuilt.stopped == OUT_OF_ANSWERS and len(game.log) == position.events
    if position.what == BELIEF and reached and request is not None:  # asked beside the game: any seat's next request
        return game, request
    if not reached or request is None or request.player != position.seat:
        raise PositionError(f"{position.id}: the game does not reach this decision (was it rebuilt from another file?)")
    return game, request


async def answer(player: Any, request: DecisionRequest, game: Game) -> tuple[ActionBase | None, str | None]:
    """The player's one answer (None and why, for no answer or an illegal one)."""
    view = game.view(request.player)
    try:
        if isinstance(player, SyncPlayer):
            got = player.decide_now(request, view, None)
        else:
            got = await player.decide(request, view, None)
    except Exception as exc:  # a broken player: no answer, scored as a miss
        return None, f"{type(exc).__name__}: {exc}"
    if got is None or isinstance(got, GiveUp):
        return None, "no answer"
    if isinstance(got, Malformed):
        return None, f"malformed: {got.error}"
    reason = game.validate(request, got)
    return (got, None) if reason is None else (None, reason)


def detection_score(position: Position, action: ActionBase | None, game: Game) -> tuple[float, float]:
    """(hit, chance) of a town seat's answer (see the module docstring)."""
    if position.what == "verdict":
        guilty = game.team(position.legal[0]) == "mafia"
        return (0.0 if action is None else float(bool(getattr(action, "yes", False)) == guilty)), 0.5
    legal = position.legal
    chance = sum(game.team(s) == "mafia" for s in legal) / len(legal) if legal else 0.0
    field_name = {"accuse": "accuse", "nominate": "nominate"}.get(position.what, "target")
    named = getattr(action, field_name, None) if action is not None else None
    if action is not None and named is None:  # a legal abstention (no accusation, hold fire): it says nothing
        return chance, chance
    return float(isinstance(named, str) and named in game.role_of and game.team(named) == "mafia"), chance


#: a belief's percentages are kept within [1, 99] for its log-loss: one sure and wrong answer
#: costs ln 100 (4.6 nats), not infinity (the Brier score that decides needs no clip)
CLIP = 0.01


def prior_of(game: Game) -> float:
    """What a seat can state without reading the game: the mafia's share of the other seats (the
    tournament probe's prior, from the deal's public numbers)."""
    mafia = sum(1 for s in game.seats if game.team(s) != "town")
    return mafia / max(len(game.seats) - 1, 1)


def belief_losses(percent: Mapping[str, float] | None, candidates: list[str], game: Game) -> tuple[float, float]:
    """(mean log-loss, mean Brier score) of ``percent`` (candidate -> probability in [0, 1]) over the
    candidates, against the truth; a candidate without a number counts as 0.5."""
    percent = percent or {}
    logloss = brier = 0.0
    for c in candidates:
        p = min(max(float(percent.get(c, 0.5)), 0.0), 1.0)
        kept = min(max(p, CLIP), 1.0 - CLIP)
        mafia = game.team(c) != "town"
        logloss += -math.log(kept if mafia else 1.0 - kept)
        brier += (p - float(mafia)) ** 2
    n = max(len(candidates), 1)
    return logloss / n, brier / n


def belief_score(percent: Mapping[str, float] | None, candidates: list[str], game: Game) -> tuple[float, float, float, float]:
    """(hit, chance, log-loss, Brier) of a belief answer: ``hit`` = 1 − Brier (1: sure and right),
    ``chance`` the same of the deal's prior."""
    logloss, brier = belief_losses(percent, candidates, game)
    prior = prior_of(game)
    _, base = belief_losses(dict.fromkeys(candidates, prior), candidates, game)
    return 1.0 - brier, 1.0 - base, logloss, brier


async def believe(player: Any, game: Game, position: Position) -> tuple[dict[str, float] | None, str | None]:
    """The player's answer to the belief question at a position (candidate -> probability), or None
    and why. A model seat is sent the tournament probe's question (:mod:`arena.players.llm.beliefs`)
    from its rebuilt conversation; a player with ``believe`` (a bot, ``random``) answers from the
    seat's view."""
    seat, candidates = position.seat, list(position.legal)
    try:
        if hasattr(player, "conversation"):
            from arena.players.llm.beliefs import belief_question

            got = await belief_question(
                player, game.view(seat), game.seats, candidates, day=position.day,
                table=game.table, repertoire=game.repertoire_of(seat),
            ).ask()  # fmt: skip
        elif hasattr(player, "believe"):
            got = player.believe(game.view(seat), game.seats, candidates, prior_of(game))
        else:
            return None, f"{type(player).__name__} answers no belief question"
    except Exception as exc:  # a broken player: no answer
        return None, f"{type(exc).__name__}: {exc}"
    if not got:
        return None, "no answer"
    return {c: float(got[c]) for c in candidates if c in got}, None


def suspicion_in(decisions: list[tuple[DecisionRequest, ActionBase]], game: Game, speaker: str) -> tuple[int, int]:
    """(named the speaker, could have) over the other town seats' decisions."""
    named = could = 0
    for request, action in decisions:
        seat = request.player
        if seat == speaker or game.team(seat) != "town":
            continue
        if request.option("verdict") is not None and request.info.get("accused") == speaker:
            could += 1
            named += bool(getattr(action, "yes", False))
            continue
        for kind, name in NAMING:
            option = request.option(kind)
            spec = option.fields.get(name) if option is not None else None
            if spec is not None and speaker in (spec.choices or ()):
                could += 1
                named += getattr(action, name, None) == speaker and action.kind == kind
    return named, could


def believed(game: Game, speaker: str) -> float | None:
    """The other living town seats' mean belief that ``speaker`` is mafia, each a bot's
    :func:`~arena.players.bot.player.suspicion_beliefs` read from that seat's own view only (its
    events, never the truth). None: no such seat."""
    from arena.players.bot.player import suspicion_beliefs

    believers = [s for s in game.alive if s != speaker and game.team(s) == "town"]
    if not believers:
        return None
    prior = prior_of(game)
    return sum(suspicion_beliefs(s, game.view(s), game.seats, [speaker], prior)[speaker] for s in believers) / len(believers)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def fork_measures(
    game: Game, players: Mapping[str, SyncPlayer], first: Mapping[int, ActionBase], speaker: str, beliefs: bool = True
) -> dict[str, float | None]:
    """Play the fork on to the end of the game (``first``: request -> the answer given at the
    position) and measure the suspicion that fell on ``speaker`` several ways:

    - ``named``: the mean of the share of the other town seats' later decisions that could name it
      and did, and whether the table executed it (1) or not (0);
    - ``days``: the other living town seats' mean belief that it is mafia (:func:`believed`) at each
      later day's start, averaged over those days (None: no later day);
    - ``next``: the same at the next day's start only;
    - ``end``: the same when the game ends;
    - ``living``: the mean of ``days`` over the days it lives, and whether the table executed it.

    ``beliefs=False`` reads ``named`` only (the others None): the bots' beliefs are most of the
    rest of a play-on's CPU, and the score does not read them.
    """
    decisions: list[tuple[DecisionRequest, ActionBase]] = []
    views = {seat: game.view(seat) for seat in players}
    day, days, living = game.day, [], []
    for step in range(MAX_STEPS):
        if game.finished:
            break
        settled = []
        for request in game.pending():
            ruling = Ruling(game, request)
            given = first.get(request.id)
            if given is not None:
                ruling.offer(given)
            while ruling.decision is None:
                ruling.offer(players[request.player].decide_now(request, views[request.player], ruling.feedback))
            settled.append(ruling.decision)
        game.resolve(settled)
        if step:  # the position's own step: its other answers were given at the same time, unread
            decisions += [(d.request, d.action) for d in settled if d.action is not None]
        if beliefs and game.day != day and not game.finished:
            day = game.day
            value = believed(game, speaker)
            if value is not None:
                days.append(value)
                if game.is_alive(speaker):
                    living.append(value)
    out: dict[str, float | None] = {"named": None, "days": _mean(days), "next": days[0] if days else None}
    out["end"] = believed(game, speaker) if beliefs and decisions else None
    if not decisions:
        return out
    named, could = suspicion_in(decisions, game, speaker)
    executed = float(any(d.player == speaker and d.cause == "execution" for d in game.deaths))
    out["named"] = (named / could + executed) / 2 if could else executed
    out["living"] = None if not beliefs else (_mean(living) + executed) / 2 if living else executed
    return out


def play_on(game: Game, players: Mapping[str, SyncPlayer], first: Mapping[int, ActionBase], speaker: str) -> float | None:
    """Play the fork on to the end of the game (``first``: request -> the answer given at the
    position); the suspicion that fell on ``speaker``: the mean of the share of the other town
    seats' later decisions that could name it and did, and whether the table executed it (1) or
    not (0). None: the game ended at the position's step."""
    return fork_measures(game, players, first, speaker, beliefs=False)["named"]


def table_players(transcript: Transcript, seed: int | None = None) -> dict[str, SyncPlayer]:
    """The seats' recorded players for a deception fork: bots as recorded, a model's or a person's seat ``bot``."""
    header = transcript.header
    seed = int(header.get("player_seed", header["seed"])) if seed is None else seed
    seat_seeds = {str(k): int(v) for k, v in dict(header.get("seat_seeds") or {}).items()}
    out = {}
    for seat, spec in dict(header["players"]).items():
        spec = str(spec)
        kind = builtin_kind(spec)
        out[str(seat)] = make_player(spec if kind in ("bot", "random") else "bot", str(seat), seat_seeds.get(str(seat), seed))
    return out


def fork_measured(
    transcript: Transcript, position: Position, speech: ActionBase | None, seed: int, beliefs: bool = True
) -> dict[str, float | None]:
    """Every measure of :func:`fork_measures` after ``speech`` (None: the recorded speech)."""
    table = table_players(transcript)
    game, request = seat_at(transcript, position, table)
    if speech is None:
        speech = parse_action(position.recorded) if position.recorded else game.default_action(request)
    reseed(game, seed)
    reseed_players(table, seed)
    return fork_measures(game, table, {request.id: speech}, position.seat, beliefs)


def fork_seeds(seed: int, forks: int) -> list[int]:
    """The seeds of a position's play-ons: its own, then ones drawn from it (the same for every player)."""
    return [seed if k == 0 else zlib.crc32(f"{seed}:fork:{k}".encode()) for k in range(forks)]


def fork_and_play(
    transcript: Transcript, position: Position, speech: ActionBase | None, seed: int, player: Any = None
) -> float | None:
    """The suspicion on the speaker after ``speech`` (None: the recorded speech), to the game's end:
    the mean of :data:`FORKS` play-ons of :func:`fork_seeds` (None: the game ended at the position).
    More play-ons cost CPU only, never a call, and the play-on's chance is most of a fork's noise."""
    beliefs = MEASURE != "named"  # the score's own measure only
    values = [fork_measured(transcript, position, speech, s, beliefs)[MEASURE] for s in fork_seeds(seed, FORKS)]
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


async def score(
    transcript: Transcript,
    position: Position,
    make: Callable[[Position, Transcript], Any],
    *,
    seed: int = 0,
    baseline: Callable[[Position], float | None] | None = None,
) -> Scored:
    """Seat a fresh player of ``make(position, game)`` at the position, ask it once, score the answer.

    ``baseline(position)``: the recorded speech's suspicion, if the caller keeps it (it is the same
    for every player); else it is played out here."""
    player = make(position, transcript)
    game, request = seat_at(transcript, position, {position.seat: player})
    if position.what == BELIEF:
        return _belief(position, player, game, await believe(player, game, position))
    action, error = await answer(player, request, game)
    usage = getattr(getattr(player, "usage", None), "as_dict", None)
    spent = usage() if callable(usage) else {}
    out = Scored(
        position.id, position.kind, position.what, position.game, position.weight,
        dump_action(action) if action is not None else None, action is not None, None,
        usage=spent, cost=float(spent.get("cost") or 0.0), calls=int(spent.get("calls") or 0), error=error,
    )  # fmt: skip
    if position.kind == DECEPTION:
        fork_seed = position_seed(position, seed)
        speech = action if action is not None else game.default_action(request)  # no answer: the forfeit's
        out.suspicion = fork_and_play(transcript, position, speech, fork_seed)
        out.baseline = baseline(position) if baseline is not None else fork_and_play(transcript, position, None, fork_seed)
        if out.suspicion is not None and out.baseline is not None:
            out.score = out.baseline - out.suspicion
        return out
    out.hit, out.chance = detection_score(position, action, game)
    out.score = out.hit - out.chance
    return out


def _belief(position: Position, player: Any, game: Game, got: tuple[dict[str, float] | None, str | None]) -> Scored:
    percent, error = got
    usage = getattr(getattr(player, "usage", None), "as_dict", None)
    spent = usage() if callable(usage) else {}
    answer = {"percent": {c: round(p * 100, 2) for c, p in percent.items()}} if percent is not None else None
    out = Scored(
        position.id, position.kind, position.what, position.game, position.weight, answer, percent is not None, None,
        usage=spent, cost=float(spent.get("cost") or 0.0), calls=int(spent.get("calls") or 0), error=error,
    )  # fmt: skip
    out.hit, out.chance, out.logloss, out.brier = (round(x, 6) for x in belief_score(percent, list(position.legal), game))
    out.score = out.hit - out.chance
    return out


def fresh_player(spec: str, seed: int = 0, **extra: Any) -> Callable[[Position, Transcript], Any]:
    """A new player of ``spec`` for each position (a model seat: its game's variant and options too)."""

    def make(position: Position, transcript: Transcript) -> Any:
        if builtin_kind(spec) is not None:
            return make_player(spec, position.seat, seed)
        options = transcript.header.get("options")
        return make_player(spec, position.seat, seed, variant=position.variant, options=options, **extra)

    return make


__all__ = [
    "PositionError",
    "Scored",
    "answer",
    "belief_score",
    "believe",
    "detection_score",
    "fork_and_play",
    "fresh_player",
    "play_on",
    "position_seed",
    "score",
    "seat_at",
    "suspicion_in",
    "table_players",
]
