"""Tournament configs: one TOML file names the models, the variants and sizes, and the budget.

::

    name = "demo"                  # default: the file's stem
    seed = 1                       # every game's seed derives from it
    games = 4                      # games per variant and size: a multiple of 2 × model pairings
    concurrency = 8                # games in flight at once
    cost_cap = 5.0                 # dollars; no new game starts once the accounted cost reaches it
    beliefs = false                # ask every model seat once per day for P(mafia) of each other player
    third_party = "bot"            # who plays a third side (cove's maniac): a seat spec, or "rotate"
    until_decided = false          # play rounds until every comparison is decided (arena.tournament.sequential)
    max_games = 2000               # with until_decided: the budget in games (required with it)
    evidence = true                # with until_decided: decide on decision evidence, not wins alone
    decide = ["deception:a~b", "detection"]  # with until_decided: stop once these are decided (default: all)
    decision_timeout = 300         # seconds one decision may take (model seats); none by default
    database = "transcripts/demo.sqlite"   # default transcripts/<name>.sqlite (git-ignored)
    transcripts = "transcripts/demo"       # default transcripts/<name>

    [models]                       # name -> seat spec, or a table with the spec and profile overrides
    bot = "bot"
    mini = "gpt-4.1-mini"
    local = { spec = "openai:llama3.1@http://localhost:11434/v1", concurrency = 2, timeout = 300 }

    [[variants]]
    name = "classic"
    players = [7, 9]               # or one number; default: the variant's default size
    games = 8                      # overrides the top-level count for this variant
    options = { max_days = 10 }    # house rules, checked by the variant

Paths are relative to the working directory, as for ``arena play``. Every error is one line,
``config error: FILE: WHERE: WHAT``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, field_validator

from arena.engine import Game, GameOptions
from arena.run.config import ConfigError, first_error, read_toml

MODEL_NAME = r"^[A-Za-z0-9][A-Za-z0-9._+-]*$"


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow")

    spec: str = Field(min_length=1)


class _Variant(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    players: list[StrictInt] | StrictInt | None = None
    games: StrictInt | None = Field(None, ge=2)
    options: dict[str, Any] = Field(default_factory=dict)


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, pattern=MODEL_NAME)
    seed: StrictInt = 0
    games: StrictInt = Field(2, ge=2)
    concurrency: StrictInt = Field(4, ge=1, le=1024)
    cost_cap: float | None = Field(None, ge=0)
    beliefs: bool = False
    decision_timeout: float | None = Field(None, gt=0)
    third_party: str | _Model = "bot"
    database: str | None = None
    transcripts: str | None = None
    until_decided: bool = False
    max_games: StrictInt | None = Field(None, ge=2)
    evidence: bool = True
    decide: list[str] = Field(default_factory=list)
    models: dict[str, str | _Model]
    variants: list[_Variant] = Field(min_length=1)

    @field_validator("models")
    @classmethod
    def _two_models(cls, value: dict[str, str | _Model]) -> dict[str, str | _Model]:
        if len(value) < 2:
            raise ValueError("a tournament compares at least two models")
        for name, spec in value.items():
            if not re.match(MODEL_NAME, name):
                raise ValueError(f"model name {name!r}: use letters, digits, '.', '_', '+' or '-'")
            text = spec if isinstance(spec, str) else spec.spec
            if not text.strip():
                raise ValueError(f"model {name}: empty seat spec")
            if text.strip() == "human":
                raise ValueError(f"model {name}: a tournament cannot seat a human")
        return value

    @field_validator("decide")
    @classmethod
    def _decide(cls, value: list[str]) -> list[str]:
        from .sequential import parse_ask

        for entry in value:
            parse_ask(entry)  # a ValueError names the entry and what is wrong
        return list(dict.fromkeys(entry.strip() for entry in value))

    @field_validator("third_party")
    @classmethod
    def _third_party(cls, value: str | _Model) -> str | _Model:
        text = (value if isinstance(value, str) else value.spec).strip()
        if not text:
            raise ValueError("empty seat spec")
        if text == "human":
            raise ValueError("a tournament cannot seat a human")
        return value


@dataclass(slots=True, frozen=True)
class ModelEntry:
    """One competitor: its name in tables, its seat spec and profile overrides for model seats."""

    name: str
    spec: str
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True, frozen=True)
class VariantEntry:
    """One variant of the tournament: its class, validated options, sizes and games per size."""

    cls: type[Game]
    options: GameOptions
    sizes: tuple[int, ...]
    games: int

    @property
    def name(self) -> str:
        return self.cls.name


ROTATE = "rotate"
THIRD_PREFIX = "third:"  # the model name of a fixed third party's seats (competitors' names have no ':')


@dataclass(slots=True)
class TournamentConfig:
    name: str
    seed: int
    concurrency: int
    cost_cap: float | None
    beliefs: bool
    decision_timeout: float | None
    database: Path
    transcripts: Path
    models: tuple[ModelEntry, ...]
    variants: tuple[VariantEntry, ...]
    path: Path | None = None
    #: who plays the seats of a third side (cove's maniac): a fixed player, or ``None`` to rotate the
    #: models outside the pairing (see :func:`arena.tournament.design.build_design`)
    third_party: ModelEntry | None = field(default_factory=lambda: ModelEntry(THIRD_PREFIX + "bot", "bot"))
    #: play round after round until every comparison is decided, within ``max_games`` (:mod:`.sequential`)
    until_decided: bool = False
    max_games: int | None = None
    #: decide on the decision evidence (votes, survival) as well as the wins
    evidence: bool = True
    #: the comparisons the run stops once decided (``KIND:A~B`` or ``KIND``); () for all of them
    decide: tuple[str, ...] = ()

    @property
    def pairings(self) -> list[tuple[ModelEntry, ModelEntry]]:
        """Every unordered pair of models, in config order."""
        ms = self.models
        return [(ms[i], ms[j]) for i in range(len(ms)) for j in range(i + 1, len(ms))]

    @property
    def block(self) -> int:
        """Games in one balanced round of one variant and size: each pairing, mirrored."""
        return 2 * len(self.pairings)


def parse_tournament(data: dict[str, Any], source: str = "tournament", stem: str = "tournament") -> TournamentConfig:
    """Check parsed TOML data; raises :class:`ConfigError` with one line."""
    from arena.variants import VARIANTS

    def fail(where: str) -> ConfigError:
        return ConfigError(f"config error: {source}: {where}")

    try:
        raw = _File.model_validate(data)
    except ValidationError as exc:
        raise fail(first_error(exc)) from None
    models = []
    for name, entry in raw.models.items():
        if isinstance(entry, str):
            models.append(ModelEntry(name, entry.strip()))
        else:
            models.append(ModelEntry(name, entry.spec.strip(), dict(entry.model_extra or {})))
    third = raw.third_party
    third_spec = (third if isinstance(third, str) else third.spec).strip()
    third_party: ModelEntry | None
    if third_spec == ROTATE:
        if len(models) < 3:
            raise fail("third_party: 'rotate' needs at least three models (a model outside each pairing)")
        third_party = None
    else:
        settings = {} if isinstance(third, str) else dict(third.model_extra or {})
        third_party = ModelEntry(THIRD_PREFIX + third_spec, third_spec, settings)
    block = 2 * len(models) * (len(models) - 1) // 2
    variants = []
    for i, v in enumerate(raw.variants):
        where = f"variants.{i}"
        cls = VARIANTS.get(v.name)
        if cls is None:
            raise fail(f"{where}.name: unknown variant {v.name!r} (variants: {', '.join(VARIANTS)})")
        try:
            options = cls.Options.model_validate(v.options)
        except ValidationError as exc:
            raise fail(f"{where}.{first_error(exc, 'options')}") from None
        sizes = v.players if isinstance(v.players, list) else [v.players or cls.default_players]
        if not sizes:
            raise fail(f"{where}.players: give at least one table size")
        for size in sizes:
            if not cls.min_players <= size <= cls.max_players:
                raise fail(f"{where}.players: {cls.name} takes {cls.min_players}-{cls.max_players} players, not {size}")
            try:
                cls([f"s{k}" for k in range(size)], options, 0)
            except ValueError as exc:  # RulesError: a deck that does not fit this size
                raise fail(f"{where}: {size} players: {exc}") from None
        games = v.games or raw.games
        if raw.until_decided:
            games = block  # rounds go on until decided; ``games`` does not bound them
        elif games % block:
            low, high = games // block * block, (games // block + 1) * block
            hint = f"use {low} or {high}" if low else f"use {high}"
            raise fail(
                f"{where}: {games} games per size is not a multiple of {block} "
                f"({block // 2} model pairings × 2 mirrored games); {hint}"
            )
        variants.append(VariantEntry(cls, options, tuple(dict.fromkeys(sizes)), games))
    name = raw.name or stem
    if raw.until_decided and raw.max_games is None:
        raise fail("until_decided needs a budget: give max_games, in games (e.g. max_games = 2000, or --max-games 2000)")
    if raw.max_games is not None and not raw.until_decided:
        raise fail(
            "max_games: applies with until_decided only (until_decided = true, or --until-decided); "
            "a fixed design plays `games` per variant"
        )
    if raw.decide:
        if not raw.until_decided:
            raise fail("decide: applies with until_decided only (until_decided = true, or --until-decided)")
        _check_decide(raw.decide, [m.name for m in models], [v.name for v in variants], fail)
    return TournamentConfig(
        name=name,
        seed=raw.seed,
        concurrency=raw.concurrency,
        cost_cap=raw.cost_cap,
        beliefs=raw.beliefs,
        decision_timeout=raw.decision_timeout,
        database=Path(raw.database or f"transcripts/{name}.sqlite"),
        transcripts=Path(raw.transcripts or f"transcripts/{name}"),
        models=tuple(models),
        variants=tuple(variants),
        third_party=third_party,
        until_decided=raw.until_decided,
        max_games=raw.max_games,
        evidence=raw.evidence,
        decide=tuple(raw.decide),
    )


def _check_decide(entries: list[str], models: list[str], variants: list[str], fail: Any) -> None:
    """Every ``decide`` entry names models of the config and at least one comparison of the family."""
    from .sequential import asks_for, family, parse_ask

    decisions = family(models, variants)
    for i, entry in enumerate(entries):
        kind, pair = parse_ask(entry)
        unknown = sorted((pair or set()) - set(models))
        if unknown:
            raise fail(f"decide.{i}: {entry!r}: no model {', '.join(unknown)} (models: {', '.join(models)})")
        if not any(asks_for(d, [entry]) for d in decisions):
            why = "three models or more and a team variant" if kind != "overall" else "two models"
            raise fail(f"decide.{i}: {entry!r}: this tournament has no such comparison ({kind} needs {why})")


def load_tournament(path: str | Path, overrides: Mapping[str, Any] | None = None) -> TournamentConfig:
    """Read and check a tournament TOML file (one-line :class:`ConfigError` on any problem).

    ``overrides`` (the command line's ``--until-decided``, ``--max-games``) replace top-level keys
    before the check, so a config is judged with them: ``until_decided`` in the file and the budget
    on the command line is a complete run."""
    path = Path(path)
    config = parse_tournament({**read_toml(path), **(overrides or {})}, str(path), path.stem)
    config.path = path
    return config
