"""The rules engine: state, event log, seeded RNG, phase dispatch, validation, forfeits.

A variant subclasses :class:`Game` and contributes roles, a deal, a table of phases
(``PHASES``: phase name -> :class:`Phase`) and its resolution and end rules. The base class
owns everything shared: the event log and its audiences, the decision cycle (ask a batch,
validate each answer, resolve the batch together), forfeits, deaths and the end of the game.

No I/O, no clocks, no network: the same seed and the same answers give the same game.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from .actions import KINDS, TARGET_FIELDS, ActionBase, Kill, Pass, Speak, Verdict, Vote
from .events import MODERATOR, PUBLIC, Event, View, player_audience, team_audience
from .requests import Clock, DecisionRequest, FieldSpec, Option, Repertoire, Repertoires, Table


class GameOptions(BaseModel):
    """Options every variant has. Variants extend this with their own house rules."""

    model_config = ConfigDict(extra="forbid")

    retries: int = Field(2, ge=0, le=10, description="Re-asks after a rejected answer before a forfeit.")
    max_days: int = Field(20, ge=1, description="After this many days the game is a draw.")
    max_speech_chars: int = Field(600, ge=1, description="Longest speech accepted, in characters.")


class TurnOptions(GameOptions):
    """Options of the variants whose days are talked through in turns (classic, cove, village)."""

    speaking_order: Literal["seeded", "rotate"] = Field(
        "seeded",
        description=(
            "Who opens each day's talk: 'seeded' draws a living seat per day from the game seed (every seat "
            "gets the first turns equally often); 'rotate' starts day 1 at the first seat, each later day one "
            "living seat further."
        ),
    )


@dataclass(slots=True, frozen=True)
class Phase:
    """One row of a variant's phase table.

    ``ask(game)`` returns the decision requests of this step (empty: nothing to ask);
    ``resolve(game, answers)`` applies the answers (name -> action) and moves ``game.phase`` on.
    """

    ask: Callable[[Any], list[DecisionRequest]] | None
    resolve: Callable[[Any, dict[str, ActionBase]], None]


@dataclass(slots=True)
class Decision:
    """One settled decision: the request, the applied action, and whether it was forfeited."""

    request: DecisionRequest
    action: ActionBase | None  # None for a forfeit until the game draws its default
    forfeit: bool = False
    attempts: list[tuple[ActionBase | None, str | None]] = field(default_factory=list)
    why: str = ""  # for a forfeit: "3 rejected answers", "no answer", "out of time"
    # Seconds into the beat when the answer arrived, at a table on the wall clock (a person at
    # one of McKay's games); None where nobody keeps time. Data like the action: recorded on the
    # action's event and offered again by a replay, so the engine itself never reads a clock.
    at: float | None = None


@dataclass(slots=True, frozen=True)
class Death:
    player: str
    cause: str
    day: int

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "cause": self.cause, "day": self.day}


class RulesError(ValueError):
    """A setup that the variant's rules do not allow (player count, deal, names)."""


SPEAK_SILENT = Speak(speech="")
ABSTAIN = Vote(target=None)
NO = Verdict(yes=False)
HOLD_FIRE = Kill(target=None)
PASS = Pass()
#: the options of every yes/no vote: one shared tuple (options are immutable), not one per voter
VERDICT_ONLY = (Option("verdict"),)


class Game:
    """Base of every variant. Subclasses set the class attributes and ``PHASES``."""

    name: ClassVar[str]
    title: ClassVar[str] = ""
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    roles: ClassVar[tuple[str, ...]]
    team_of: ClassVar[Mapping[str, str]]  # role -> team
    Options: ClassVar[type[GameOptions]] = GameOptions
    PHASES: ClassVar[Mapping[str, Phase]]
    first_phase: ClassVar[str]
    default_players: ClassVar[int] = 9
    #: the roles a structured claim may name (None: every role of the variant)
    claim_roles: ClassVar[tuple[str, ...] | None] = None

    def __init__(
        self,
        seats: Sequence[str],
        options: GameOptions | Mapping[str, Any] | None = None,
        seed: int = 0,
        deal: Mapping[str, str] | None = None,
    ) -> None:
        self.options = self._coerce_options(options)
        self.seats: tuple[str, ...] = tuple(seats)
        self._check_seats()
        self.seed = seed
        self.rng = random.Random(seed)
        self.log: list[Event] = []
        self.day = 0
        self.phase = self.first_phase
        self.finished = False
        self.winner: str | None = None
        self.end_reason = ""
        self.deaths: list[Death] = []
        self._alive: dict[str, bool] = {name: True for name in self.seats}
        self._alive_cache: tuple[str, ...] | None = None
        self._others_cache: dict[str, tuple[str, ...]] = {}
        self._private = {name: (player_audience(name), frozenset((name,))) for name in self.seats}
        self._pending: list[DecisionRequest] = []
        self._next_request_id = 1
        self.arrivals: dict[str, float] = {}  # the batch being resolved: player -> Decision.at (timed answers)
        self.role_of: dict[str, str] = self._make_deal(deal)
        self.setup()
        self.table = Table(self.name, self.seats, self.public_deck(), self.claim_roles or self.roles)
        self._repertoires = Repertoires(self._build_repertoire)
        for name in self.seats:
            self.tell(name, "role", role=self.role_of[name], team=self.team_of[self.role_of[name]], variant=self.name)
        self._advance()

    # ---- set-up -------------------------------------------------------------------------
    @classmethod
    def _coerce_options(cls, options: GameOptions | Mapping[str, Any] | None) -> GameOptions:
        if options is None:
            return cls.Options()
        if isinstance(options, GameOptions):
            return options
        return cls.Options.model_validate(dict(options))

    def _check_seats(self) -> None:
        n = len(self.seats)
        if not self.min_players <= n <= self.max_players:
            raise RulesError(f"{self.name} takes {self.min_players}-{self.max_players} players, not {n}")
        if len(set(self.seats)) != n:
            raise RulesError("seat names must be distinct")
        for name in self.seats:
            if not name or not name.strip() or name in ("all", "moderator", "no_kill"):
                raise RulesError(f"{name!r} cannot be a seat name")

    def _make_deal(self, deal: Mapping[str, str] | None) -> dict[str, str]:
        if deal is None:
            cards = list(self.deck(len(self.seats)))
            self.rng.shuffle(cards)
            return dict(zip(self.seats, cards, strict=True))
        missing = [n for n in self.seats if n not in deal]
        extra = [n for n in deal if n not in self._alive]
        if missing or extra:
            raise RulesError(f"the deal must give every seat one role (missing: {missing}, unknown: {extra})")
        for name, role in deal.items():
            if role not in self.roles:
                raise RulesError(f"{name}: unknown role {role!r} for {self.name} (roles: {', '.join(self.roles)})")
        self.check_deal(dict(deal))
        return dict(deal)

    def deck(self, players: int) -> list[str]:
        """The cards dealt for this many players (one per seat)."""
        raise NotImplementedError

    def check_deal(self, deal: dict[str, str]) -> None:
        """Reject a given deal that the variant cannot play (override where needed)."""

    def setup(self) -> None:
        """Variant state initialised after the deal, before the first event."""

    def public_deck(self) -> tuple[tuple[str, int], ...]:
        """The cards dealt, by role in ``roles`` order: known to everyone from the start (the rules
        and the options fix every count). Variants that deal from a larger deck override it."""
        counts = Counter(self.role_of.values())
        return tuple((role, counts[role]) for role in self.roles if counts[role])

    def repertoire(self, player: str) -> Repertoire | None:
        """Every answer ``player`` may ever be asked for in this game (see :class:`Repertoire`).

        Override it: a model seat is then given one fixed set of tools for the whole game, which
        keeps its prompt cache. None (the default) gives it each decision's exact schema instead.
        Every decision's options must fit inside (tests/test_repertoire.py checks the variants).
        """
        return None

    def repertoire_of(self, player: str) -> Repertoire | None:
        """The player's repertoire, built once per game on first use (its tools must not change)."""
        return self._repertoires.of(player)

    def _build_repertoire(self, player: str) -> Repertoire | None:
        wide = self.repertoire(player)
        return None if wide is None else dataclasses.replace(wide, table=self.table)

    # ---- queries --------------------------------------------------------------------------
    def is_alive(self, name: str) -> bool:
        return self._alive.get(name, False)

    @property
    def alive(self) -> tuple[str, ...]:
        """Living players in seat order (cached: it is read on every request)."""
        if self._alive_cache is None:
            self._alive_cache = tuple(n for n in self.seats if self._alive[n])
        return self._alive_cache

    def others(self, name: str) -> tuple[str, ...]:
        """Living players other than ``name``, in seat order (cached until the next death)."""
        cached = self._others_cache.get(name)
        if cached is None:
            cached = self._others_cache[name] = tuple(n for n in self.alive if n != name)
        return cached

    def living(self, role_or_team: str) -> list[str]:
        """Living players of a role or of a team, in seat order."""
        return [
            n for n in self.seats
            if self._alive[n] and (self.role_of[n] == role_or_team or self.team_of[self.role_of[n]] == role_or_team)
        ]  # fmt: skip

    def team(self, name: str) -> str:
        return self.team_of[self.role_of[name]]

    def view(self, name: str) -> View:
        return View(name, self.role_of[name], self.log)

    def pending(self) -> list[DecisionRequest]:
        """The decisions to settle now (asked together; one item for a sequential step)."""
        return list(self._pending)

    def day_opener(self, previous: str | None) -> str:
        """The living seat who opens today's talk. ``seeded`` (the default): a draw per day from the
        game seed, on a generator of its own so that no other seeded draw moves; ``rotate``: the
        first living seat on day 1, then one living seat after ``previous``."""
        if getattr(self.options, "speaking_order", "rotate") == "seeded":
            alive = self.alive
            return alive[random.Random(f"opener:{self.seed}:{self.day}").randrange(len(alive))]
        if previous is None:
            first = self.seats[0]
            return first if self._alive[first] else self.next_seat(first)
        return self.next_seat(previous)

    def next_seat(self, name: str, *, alive_only: bool = True) -> str:
        """The seat after ``name`` (living ones only by default)."""
        i = self.seats.index(name)
        n = len(self.seats)
        for step in range(1, n + 1):
            candidate = self.seats[(i + step) % n]
            if not alive_only or self._alive[candidate]:
                return candidate
        return name

    # ---- events ---------------------------------------------------------------------------
    def _emit(self, type_: str, audience: str, to: frozenset[str] | None, actor: str | None, data: dict) -> Event:
        event = Event(len(self.log) + 1, type_, self.day, self.phase, audience, to, actor, data)
        self.log.append(event)
        return event

    def public(self, type_: str, actor: str | None = None, **data: Any) -> Event:
        return self._emit(type_, PUBLIC, None, actor, data)

    def tell(self, name: str, type_: str, actor: str | None = None, **data: Any) -> Event:
        label, to = self._private[name]
        return self._emit(type_, label, to, actor, data)

    def tell_team(self, team: str, type_: str, actor: str | None = None, **data: Any) -> Event:
        return self._emit(type_, team_audience(team), frozenset(self.living(team)), actor, data)

    def note(self, type_: str, actor: str | None = None, **data: Any) -> Event:
        """An event only the moderator (the transcript) sees."""
        return self._emit(type_, MODERATOR, frozenset(), actor, data)

    @staticmethod
    def said(action: ActionBase) -> dict[str, Any]:
        """The public part of a speech: its words and, when given, its structured claim."""
        data: dict[str, Any] = {"text": action.speech or ""}
        claim = getattr(action, "claim", None)
        if claim is not None:
            data["claim"] = claim.model_dump(exclude_defaults=True)
        return data

    # ---- requests -------------------------------------------------------------------------
    def request(
        self,
        player: str,
        question: str,
        options: Iterable[Option],
        *,
        group: str,
        talk: str | None = None,
        default: ActionBase | None = None,
        clock: Clock | None = None,
        **info: Any,
    ) -> DecisionRequest:
        # positional, in field order: keywords cost a bot game several per cent (most of its
        # decisions are votes, each its own request)
        req = DecisionRequest(
            self._next_request_id,
            player,
            self.role_of[player],
            self.phase,
            self.day,
            question,
            tuple(options),
            self.seats,
            self.alive,
            talk,
            self.options.max_speech_chars,
            clock,
            default,
            group,
            info,
            self.table,
            self._repertoires,
        )
        self._next_request_id += 1
        return req

    def ask_to_speak(
        self, player: str, question: str, *, group: str, fields: Mapping[str, FieldSpec] | None = None, **kwargs: Any
    ) -> list[DecisionRequest]:
        """One public speech turn (``speak`` with ``fields``), forfeited as silence."""
        option = Option("speak", dict(fields or {}))
        return [self.request(player, question, (option,), group=group, talk=PUBLIC, default=SPEAK_SILENT, **kwargs)]

    def targets(self, exclude: Iterable[str] = (), *, among: Iterable[str] | None = None) -> tuple[str, ...]:
        """Living players in seat order, minus ``exclude`` (optionally only those in ``among``)."""
        if among is not None:
            keep = set(among)
            pool = tuple(n for n in self.alive if n in keep)
        else:
            pool = self.alive
        if isinstance(exclude, tuple) and len(exclude) == 1:
            skip = exclude[0]
            return tuple(n for n in pool if n != skip)
        skip_set = set(exclude)
        return tuple(n for n in pool if n not in skip_set)

    # ---- validation -----------------------------------------------------------------------
    def validate(self, request: DecisionRequest, action: ActionBase) -> str | None:
        """Why ``action`` is not a legal answer to ``request``, or None when it is."""
        kind = action.kind  # type: ignore[attr-defined]
        for option in request.options:  # request.option(kind), inlined: every answer passes here
            if option.kind == kind:
                break
        else:
            legal = ", ".join(request.kinds)
            return f"'{kind}' is not allowed now; legal: {legal}"
        speech = action.speech
        if speech:
            if kind != "speak" and request.talk is None:
                return "this decision is silent: no speech allowed"
            if len(speech) > request.max_speech:
                return f"speech is {len(speech)} characters; the limit is {request.max_speech}"
        claim = getattr(action, "claim", None) if kind == "speak" else None
        if claim is not None:
            if request.talk is None:
                return "this decision is silent: no claim allowed"
            reason = self._check_claim(request, claim)
            if reason is not None:
                return reason
        reason = self._check_fields(request, option, action)
        if reason is None:
            reason = self.check_action(request, action)
        return reason

    def _check_fields(self, request: DecisionRequest, option: Option, action: ActionBase) -> str | None:
        kind = option.kind
        for name in TARGET_FIELDS[kind]:
            value = getattr(action, name)
            spec = option.fields.get(name)
            if spec is None:
                if value not in (None, ()):
                    return f"'{name}' is not allowed in this decision"
                continue
            if name == "floor":
                if spec.max_items is not None and len(value) > spec.max_items:
                    return f"the floor goes to at most {spec.max_items} players, not {len(value)}"
                if len(set(value)) != len(value):
                    return "the floor names a player twice"
                for item in value:
                    if spec.choices is not None and item not in spec.choices:
                        return self.explain(request, name, item, spec)
                continue
            if value is None:
                if not spec.nullable:
                    choices = ", ".join(map(str, spec.choices or ()))
                    return f"{kind} needs a {name}" + (f": one of {choices}" if choices else "")
                continue
            if spec.choices is not None and value not in spec.choices:
                return self.explain(request, name, value, spec)
        return None

    @staticmethod
    def _check_claim(request: DecisionRequest, claim: Any) -> str | None:
        """A claim names only the game's roles and its seats (whatever it says of them)."""
        table = request.table
        if table is None:
            return None
        if claim.role is not None and claim.role not in table.claim_roles:
            return f"claim.role {claim.role!r} is not a role of this game; a claim may name: {', '.join(table.claim_roles)}"
        for name in claim.checks:
            if name not in table.seats:
                return f"claim.checks names {name!r}, who is not at this table; seats: {', '.join(table.seats)}"
        return None

    def explain(self, request: DecisionRequest, field_name: str, value: Any, spec: FieldSpec) -> str:
        """A precise reason why ``value`` is not a legal ``field_name`` (no hidden facts)."""
        if value in spec.forbidden:
            return spec.forbidden[value]
        legal = ", ".join(map(str, spec.choices or ())) or "none"
        if isinstance(value, str) and value not in self._alive and value != "no_kill":
            if field_name in ("position",):
                return f"{value!r} is not a position; legal: {legal}"
            return f"there is no player named {value!r}; legal: {legal}"
        if isinstance(value, str) and value in self._alive and not self._alive[value]:
            return f"{value} is dead; legal: {legal}"
        if value == request.player:
            return f"you cannot name yourself as {field_name} here; legal: {legal}"
        return f"{value} is not a legal {field_name} here; legal: {legal}"

    def check_action(self, request: DecisionRequest, action: ActionBase) -> str | None:
        """Variant rules that span fields (override where needed)."""
        return None

    # ---- forfeits -------------------------------------------------------------------------
    def default_action(self, request: DecisionRequest) -> ActionBase:
        """The forfeit: the request's default, else a seeded random legal choice."""
        if request.default is not None:
            return request.default
        option = request.options[self.rng.randrange(len(request.options))]
        values: dict[str, Any] = {}
        for name, spec in option.fields.items():
            if name == "floor" or spec.nullable:
                continue
            if spec.choices:
                values[name] = spec.choices[self.rng.randrange(len(spec.choices))]
        return KINDS[option.kind](**values)

    # ---- the decision cycle -----------------------------------------------------------------
    def reject(self, request: DecisionRequest, action: ActionBase | None, reason: str, raw: Any = None) -> None:
        """Log a rejected answer (seen by the player it was told to, and the transcript).

        ``raw`` keeps an answer that was not an action at all, so a replay can offer it again.
        """
        data: dict[str, Any] = {"request": request.id, "reason": reason}
        if action is not None:
            data["action"] = action
        else:
            data["raw"] = raw
        self.tell(request.player, "rejected", actor=request.player, **data)

    def resolve(self, decisions: Sequence[Decision]) -> None:
        """Apply a settled batch: every pending request must be answered, in any order."""
        pending = self._pending
        by_id = {d.request.id: d for d in decisions}
        if len(by_id) != len(pending) or any(r.id not in by_id for r in pending):
            raise RuntimeError("resolve() needs exactly one decision per pending request")
        answers: dict[str, ActionBase] = {}
        arrivals: dict[str, float] = {}
        private = self._private
        for req in pending:
            decision = by_id[req.id]
            player = req.player
            if decision.forfeit:
                if decision.action is None:  # drawn here, in request order, so arrival order never matters
                    decision.action = self.default_action(req)
                type_, data = "forfeit", {"request": req.id, "action": decision.action, "why": decision.why}
            else:
                type_, data = "action", {"request": req.id, "action": decision.action}
            if decision.at is not None:  # a table on the wall clock: when the answer came is part of the record
                data["at"] = arrivals[player] = round(decision.at, 3)
            label, to = private[player]
            self._emit(type_, label, to, player, data)  # as tell(), without a call per decision
            answers[player] = decision.action
        self.arrivals = arrivals
        self._pending = []
        self.PHASES[self.phase].resolve(self, answers)
        self._advance()

    def _advance(self) -> None:
        while not self.finished and not self._pending:
            handler = self.PHASES[self.phase]
            requests = handler.ask(self) if handler.ask is not None else []
            if requests:
                self._pending = requests
                return
            handler.resolve(self, {})

    # ---- deaths and the end -----------------------------------------------------------------
    def eliminate(self, name: str, cause: str, *, reveal: bool = False, public_cause: str | None = None, **data: Any) -> None:
        """Remove a player from play with a public announcement (the card shown if ``reveal``).

        ``cause`` is the truth kept in ``deaths``; ``public_cause`` is what the table is told when
        the variant hides who killed (e.g. ``night``).
        """
        if not self._alive[name]:
            return
        self._alive[name] = False
        self._alive_cache = None
        self._others_cache.clear()
        self.deaths.append(Death(name, cause, self.day))
        if reveal:
            data["role"] = self.role_of[name]
        self.public("death", player=name, cause=public_cause or cause, **data)

    def revive_all(self) -> None:
        """Everyone back in play (a new hand of a match); the caches of the living set follow."""
        self._alive = dict.fromkeys(self.seats, True)
        self._alive_cache = None
        self._others_cache.clear()

    def winner_now(self) -> str | None:
        """The winning side if the game is over now, else None (override)."""
        raise NotImplementedError

    def check_end(self) -> bool:
        """End the game if a side has won; returns True when it is over."""
        if self.finished:
            return True
        winner = self.winner_now()
        if winner is not None:
            self.finish(winner, "win")
        return self.finished

    def day_is_last(self) -> bool:
        """At the end of a day: end the game on a win or on the ``max_days`` draw; True when over."""
        if self.check_end():
            return True
        if self.day >= self.options.max_days:
            self.finish("draw", "max_days")
        return self.finished

    def finish(self, winner: str | None, reason: str) -> None:
        self.finished = True
        self.winner = winner
        self.end_reason = reason
        self._pending = []
        self.public("game_over", winner=winner, reason=reason, roles=dict(self.role_of))

    # ---- scenarios ------------------------------------------------------------------------
    @classmethod
    def from_scenario(cls, spec: Mapping[str, Any]) -> Game:
        """Build a game from a scenario's ``players``, ``options``, ``seed`` and ``deal``
        (variants whose scenarios carry more, such as McKay's ``hands``, override this)."""
        return cls(spec["players"], spec.get("options"), spec.get("seed", 0), deal=spec.get("deal"))

    def scenario_extras(self) -> dict[str, Any]:
        """Variant-specific keys added to a scenario's output (scores, hands, …)."""
        return {}

    def summary(self) -> dict[str, Any]:
        return {
            "finished": self.finished,
            "winner": self.winner,
            "reason": self.end_reason,
            "days": self.day,
            "alive": list(self.alive),
            "roles": dict(self.role_of),
            "deaths": [d.to_dict() for d in self.deaths],
        }


def names_spec(choices: Iterable[str], *, nullable: bool = False, forbidden: Mapping[str, str] | None = None) -> FieldSpec:
    return FieldSpec(tuple(choices), nullable=nullable, forbidden=forbidden or {})
