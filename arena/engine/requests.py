"""Decision requests: what a player is asked, what it may answer, and the schema it is shown.

A request lists the legal action kinds (:class:`Option`) with the legal values of each of their
target fields (:class:`FieldSpec`). From that one description the engine both validates an
answer (``Game.validate``) and generates the narrowed pydantic model / JSON schema of exactly the
legal answers (:meth:`DecisionRequest.action_model`), so the two can never disagree.

A request also carries two things that stay the same for a whole game:

- :class:`Table`: what every player knows from the start (the seats, the cards dealt, the roles a
  structured claim may name);
- :class:`Repertoire`: every answer its player may *ever* give in this game, each field with every
  value it can take. Its schema (:meth:`Repertoire.json_schema`) is what a model seat is given as
  its tools once for the whole game, so that the tool definitions, which providers put first in
  their prompt cache, never change; each decision then narrows it in words and the engine's
  validation (docs/llm.md, "Caching").
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter, create_model

from .actions import ACTION_ADAPTER, KINDS, ActionBase, Claim

EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(slots=True, frozen=True)
class FieldSpec:
    """The legal values of one field of an action kind in one decision.

    ``choices`` None means any value of the field's type; ``forbidden`` maps living players who
    are excluded by a rule to the rule's reason, so a rejection can say exactly why.
    """

    choices: tuple[Any, ...] | None = None
    nullable: bool = False
    max_items: int | None = None  # list fields (``floor``): at most this many distinct names
    forbidden: Mapping[str, str] = field(default_factory=dict)


@dataclass(slots=True, frozen=True)
class Option:
    """One legal action kind with its narrowed fields; fields not listed must stay empty.

    ``description`` and ``descriptions`` (field -> text) describe the kind and its fields in the
    variant's own words (what null means for this game's ``kill``, what ``yes`` votes on) where
    the shared action model's words are too general; the schema a model sees uses them.
    """

    kind: str
    fields: Mapping[str, FieldSpec] = field(default_factory=dict)
    description: str = ""
    descriptions: Mapping[str, str] = field(default_factory=dict)


@dataclass(slots=True, frozen=True)
class Table:
    """What every player knows of a game from its start; one object shared by all its requests.

    ``deck``: the cards dealt, by role, in the deck's order (public in every variant here: the
    rules fix the count of each card). ``claim_roles``: the roles a structured claim may name.
    """

    variant: str
    seats: tuple[str, ...]
    deck: tuple[tuple[str, int], ...]
    claim_roles: tuple[str, ...]


@dataclass(slots=True, frozen=True)
class Repertoire:
    """Every answer one seat may ever give in one game: the kinds it can be offered, each field
    with every value it can take (names over all seats, null wherever some decision allows it).

    ``talk``: the kinds whose answers carry speech in some decision. A decision's options must fit
    inside (``covers``); the engine's validation then holds each answer to the decision itself.
    """

    options: tuple[Option, ...]
    talk: frozenset[str] = frozenset()
    table: Table | None = None

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(o.kind for o in self.options)

    def option(self, kind: str) -> Option | None:
        return next((o for o in self.options if o.kind == kind), None)

    def covers(self, request: DecisionRequest) -> str | None:
        """Why ``request`` asks for something outside this repertoire, or None when it fits."""
        for opt in request.options:
            wide = self.option(opt.kind)
            if wide is None:
                return f"kind {opt.kind!r} is not in the repertoire"
            if request.talk is not None and opt.kind not in self.talk:
                return f"{opt.kind!r} carries speech in this decision but not in the repertoire"
            for name, spec in opt.fields.items():
                outer = wide.fields.get(name)
                if outer is None:
                    return f"{opt.kind}.{name} is not in the repertoire"
                if spec.nullable and not outer.nullable:
                    return f"{opt.kind}.{name} may be null here but not in the repertoire"
                extra = set(spec.choices or ()) - set(outer.choices or ())
                if outer.choices is not None and extra:
                    return f"{opt.kind}.{name}: {sorted(extra, key=str)} not in the repertoire"
                if spec.choices is None and outer.choices is not None:
                    return f"{opt.kind}.{name} is open here but closed in the repertoire"
                if outer.max_items is not None and (spec.max_items is None or spec.max_items > outer.max_items):
                    return f"{opt.kind}.{name} takes more items here than in the repertoire"
        return None

    def action_model(self) -> Any:
        return _narrowed_union(_repertoire_key(self))

    def json_schema(self) -> dict[str, Any]:
        """The JSON schema of every answer of the repertoire (the same all game: cache it)."""
        return copy.deepcopy(_schema(_repertoire_key(self)))

    def parse(self, data: str | bytes | dict) -> ActionBase:
        """Parse an answer against the repertoire's schema, then into the shared union; the
        decision's own limits are the engine's to check (``Game.validate``)."""
        adapter = _adapter(_repertoire_key(self))
        raw = adapter.validate_json(data) if isinstance(data, (str, bytes)) else adapter.validate_python(data)
        return ACTION_ADAPTER.validate_python(raw.model_dump())


class Repertoires:
    """One game's repertoires by seat, each built on first use and then kept (its tools must not
    change). Requests carry the game's one instance rather than a built repertoire: only model
    seats read it, and building every seat's at every game start was a real share of a bot game.

    ``build`` is a method of the game, held weakly: the game holds this object, and a strong
    reference back would make every game a reference cycle, freed only by the cyclic garbage
    collector (which then ran several times as often in a run of bot games).
    """

    __slots__ = ("_build", "_built")

    def __init__(self, build: Callable[[str], Repertoire | None]) -> None:
        self._build = weakref.WeakMethod(build)  # type: ignore[arg-type]
        self._built: dict[str, Repertoire | None] = {}

    def of(self, player: str) -> Repertoire | None:
        built = self._built
        if player not in built:
            build = self._build()
            if build is None:
                raise RuntimeError(f"the game is gone: {player}'s repertoire was never read while it was played")
            built[player] = build(player)
        return built[player]

    def __deepcopy__(self, memo: dict[int, Any]) -> Repertoires:
        """A copy made with its game builds from the copied game; alone, from the same one."""
        twin = Repertoires.__new__(Repertoires)
        twin._built = copy.deepcopy(self._built, memo)
        build = self._build()
        game = None if build is None else memo.get(id(build.__self__))  # type: ignore[attr-defined]
        twin._build = weakref.WeakMethod(getattr(game, build.__name__)) if game is not None else self._build  # type: ignore[union-attr]
        return twin

    def __getstate__(self) -> dict[str, Any]:
        return {"built": self._built}  # a pickled request keeps what was built; its game stays behind

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._build = _no_game
        self._built = dict(state["built"])


def _no_game() -> None:
    """The builder of a book whose game did not come along (unpickled)."""
    return None


@dataclass(slots=True, frozen=True)
class Clock:
    """How much time is left: discussion rounds, beats, channel rounds."""

    unit: str
    left: int
    total: int

    def __str__(self) -> str:
        return f"{self.left} of {self.total} {self.unit}s left"


@dataclass(slots=True)
class DecisionRequest:
    """Everything a player needs to answer one decision, and nothing it may not know.

    ``Game.request`` passes the fields by position (it is on the hot path): add new ones last.
    """

    id: int
    player: str
    role: str
    phase: str
    day: int
    question: str
    options: tuple[Option, ...]
    seats: tuple[str, ...]
    alive: tuple[str, ...]
    talk: str | None = None  # audience of speech in this decision; None = silent
    max_speech: int = 600
    clock: Clock | None = None
    default: ActionBase | None = None  # forfeit; None = a seeded random legal choice
    group: str = ""  # e.g. "discussion", "vote": the decision kind used to pick a prompt
    info: dict[str, Any] = field(default_factory=dict)
    table: Table | None = None  # the game's public facts (shared by every request of the game)
    # the game's, for :attr:`repertoire`; left out of ==, which compares what the request says
    # (the repertoire follows from the game and the seat, both in the request)
    repertoires: Repertoires | None = field(default=None, compare=False, repr=False)

    @property
    def repertoire(self) -> Repertoire | None:
        """Everything this seat may answer in this game (None: the variant has no repertoire)."""
        book = self.repertoires
        return None if book is None else book.of(self.player)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(o.kind for o in self.options)

    def option(self, kind: str) -> Option | None:
        for opt in self.options:
            if opt.kind == kind:
                return opt
        return None

    def action_model(self) -> Any:
        """The pydantic type of exactly the legal answers (a union when several kinds)."""
        return _narrowed_union(_request_key(self))

    def json_schema(self) -> dict[str, Any]:
        """The JSON schema of the legal answers, generated from :meth:`action_model`.

        Generated once per distinct set of legal answers; each caller gets its own copy to adapt.
        """
        return copy.deepcopy(_schema(_request_key(self)))

    def parse(self, data: str | bytes | dict) -> ActionBase:
        """Parse a model's answer against the narrowed schema, then into the shared union.

        Raises ``pydantic.ValidationError`` with the exact complaint, which can be sent back.
        """
        adapter = _adapter(_request_key(self))
        raw = adapter.validate_json(data) if isinstance(data, (str, bytes)) else adapter.validate_python(data)
        return ACTION_ADAPTER.validate_python(raw.model_dump())


def _fields_key(opt: Option) -> tuple:
    return tuple(sorted((name, spec.choices, spec.nullable, spec.max_items) for name, spec in opt.fields.items()))


def _claim_key(table: Table | None) -> tuple | None:
    return (table.claim_roles, table.seats) if table is not None else None


def _request_key(request: DecisionRequest) -> tuple:
    """What the narrowed model depends on: per kind its fields, speech, and words; the claim's enums."""
    talk = request.talk is not None
    wide = request.repertoire
    options = []
    for opt in request.options:
        words = wide.option(opt.kind) if wide is not None else None  # the variant's words for the kind
        words = words or opt
        options.append((opt.kind, _fields_key(opt), talk, words.description, tuple(sorted(words.descriptions.items()))))
    return tuple(options), _claim_key(request.table) if talk else None


def _repertoire_key(repertoire: Repertoire) -> tuple:
    options = tuple(
        (o.kind, _fields_key(o), o.kind in repertoire.talk, o.description, tuple(sorted(o.descriptions.items())))
        for o in repertoire.options
    )
    return options, _claim_key(repertoire.table) if repertoire.talk else None


@lru_cache(maxsize=4096)
def _adapter(key: tuple) -> TypeAdapter[Any]:
    return TypeAdapter(_narrowed_union(key))


@lru_cache(maxsize=4096)
def _schema(key: tuple) -> dict[str, Any]:
    return _adapter(key).json_schema()


@lru_cache(maxsize=4096)
def _narrowed_union(key: tuple) -> Any:
    options, claim = key
    models = [_narrowed_model(*option, claim) for option in options]
    if len(models) == 1:
        return models[0]
    from typing import Annotated, Union

    return Annotated[Union[tuple(models)], Field(discriminator="kind")]  # noqa: UP007


@lru_cache(maxsize=64)
def _claim_model(claim_roles: tuple[str, ...], seats: tuple[str, ...]) -> type:
    """``Claim`` with the game's claimable roles and its seats as enums (the values stay strings)."""
    fields = Claim.model_fields
    role = Literal[claim_roles] if claim_roles else str  # type: ignore[valid-type]
    seat = Literal[seats] if seats else str  # type: ignore[valid-type]
    return create_model(
        "ClaimAnswer",
        __config__=ConfigDict(extra="forbid", title="Claim"),
        __doc__=Claim.__doc__,
        role=(role | None, Field(None, description=fields["role"].description)),
        checks=(
            dict[seat, Literal["mafia", "not mafia"]],  # type: ignore[valid-type]
            Field(default_factory=dict, description=fields["checks"].description),
        ),
    )


def _narrowed_model(kind: str, fields: tuple, talk: bool, doc: str, words: tuple, claim: tuple | None) -> type:
    base = KINDS[kind]
    specs = {name: (choices, nullable, max_items) for name, choices, nullable, max_items in fields}
    described = dict(words)

    def about(name: str, info: Any) -> str | None:
        return described.get(name) or info.description

    definitions: dict[str, Any] = {"kind": (Literal[kind], ...)}  # required: the model must say which
    for name, info in base.model_fields.items():
        if name == "kind":
            continue
        if name == "speech":
            if kind == "speak":
                definitions[name] = (str, Field(..., description=about(name, info)))
            elif talk:
                definitions[name] = (str | None, Field(None, description=about(name, info)))
            continue
        if name in ("thought", "yes"):
            definitions[name] = (info.annotation, Field(info.default, description=about(name, info)))
            continue
        if name == "claim":
            if not talk:
                continue
            claim_type = _claim_model(*claim) if claim is not None else Claim
            definitions[name] = (claim_type | None, Field(None, description=about(name, info)))
            continue
        if name not in specs:
            continue  # a target field this decision does not use: left out, so it is refused
        choices, nullable, max_items = specs[name]
        value_type: Any = info.annotation
        if choices is not None:
            value_type = Literal[tuple(choices)] if choices else None
        if name == "floor":
            definitions[name] = (
                tuple[value_type, ...] if value_type is not None else tuple[()],
                Field((), max_length=max_items, description=about(name, info)),
            )
        elif nullable:
            definitions[name] = (
                (value_type | None) if value_type is not None else None,
                Field(None, description=about(name, info)),
            )
        else:
            definitions[name] = (value_type, Field(..., description=about(name, info)))
    return create_model(
        f"{base.__name__}Answer",
        __config__=ConfigDict(extra="forbid", title=base.__name__),
        __doc__=doc or base.__doc__,
        **definitions,
    )
