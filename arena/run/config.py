"""Game configs: ``configs/<variant>.toml`` (or any TOML file) -> player count, options, seats.

A config has three optional parts::

    players = 9                      # how many seats (the variant's default otherwise)
    [options]                        # the variant's house rules, checked by its ``Options`` model
    discussion_rounds = 3
    [seats]                          # seat name -> seat spec (``random``, ``bot``, ``human``, a model)
    Ann = "random"

Seats are named from :data:`DEFAULT_NAMES` in order (the first ``players`` names); every seat
not given a spec plays as ``bot``. A ``[seats]`` entry (or ``--seat NAME=SPEC`` on the command
line, which wins) assigns the seat with that name; naming a seat the table does not have is an
error rather than a silent rename, so a typo never plays a game with the wrong players.

Every error is one line, ``config error: FILE: WHERE: WHAT``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from arena.engine import Game, GameOptions

DEFAULT_NAMES: tuple[str, ...] = (
    "Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lou", "Max", "Ned", "Oda", "Pam",
    "Quin", "Rex", "Sue", "Tom", "Uma", "Val", "Wes", "Xia", "Yan", "Zoe", "Abe", "Bea", "Cal", "Dot", "Eli", "Flo",
)  # fmt: skip
DEFAULT_SPEC = "bot"
CONFIG_DIRS = (Path("configs"), Path(__file__).resolve().parent.parent / "configs")


class ConfigError(ValueError):
    """A config that cannot be used: the message is the one line to show."""


class _ConfigFile(BaseModel):
    """The shape of a config file (options are checked by the variant afterwards)."""

    model_config = ConfigDict(extra="forbid")

    players: StrictInt | None = Field(None, ge=1)
    options: dict[str, Any] = Field(default_factory=dict)
    seats: dict[str, str] = Field(default_factory=dict)


@dataclass(slots=True)
class GameConfig:
    """A checked config: ``options`` is the variant's validated options model."""

    variant: type[Game]
    options: GameOptions
    players: int | None = None
    seats: dict[str, str] = field(default_factory=dict)
    path: Path | None = None


def first_error(exc: ValidationError, prefix: str = "") -> str:
    """A pydantic error as ``where: what`` (the first one; the rest follow once it is fixed)."""
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    where = f"{prefix}.{where}" if prefix and where else prefix or where
    more = len(exc.errors()) - 1
    return f"{where}: {error['msg']}" + (f" (and {more} more)" if more else "")


def default_config_path(variant: str) -> Path | None:
    """``configs/<variant>.toml`` in the working directory, else in the source tree, if it exists."""
    for directory in CONFIG_DIRS:
        path = directory / f"{variant}.toml"
        if path.is_file():
            return path
    return None


def parse_config(variant: type[Game], data: Mapping[str, Any], source: str = "config") -> GameConfig:
    """Check already-parsed TOML data against the file shape and the variant's options."""
    try:
        raw = _ConfigFile.model_validate(dict(data))
    except ValidationError as exc:
        raise ConfigError(f"config error: {source}: {first_error(exc)}") from None
    try:
        options = variant.Options.model_validate(raw.options)
    except ValidationError as exc:
        raise ConfigError(f"config error: {source}: {first_error(exc, 'options')}") from None
    if raw.players is not None and not variant.min_players <= raw.players <= variant.max_players:
        raise ConfigError(
            f"config error: {source}: players: {variant.name} takes "
            f"{variant.min_players}-{variant.max_players} players, not {raw.players}"
        )
    for name, spec in raw.seats.items():
        if not spec.strip():
            raise ConfigError(f"config error: {source}: seats.{name}: empty seat spec")
    return GameConfig(variant, options, raw.players, dict(raw.seats))


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's table, or one :class:`ConfigError` line saying why it cannot be had."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config error: {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config error: {path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config error: {path}: {exc}") from None


def load_config(variant: type[Game], path: str | Path | None = None) -> GameConfig:
    """The config in ``path``, else the variant's default file, else the defaults."""
    if path is None:
        path = default_config_path(variant.name)
        if path is None:
            return GameConfig(variant, variant.Options())
    path = Path(path)
    config = parse_config(variant, read_toml(path), str(path))
    config.path = path
    return config


def parse_seat_arg(text: str) -> tuple[str, str]:
    """``NAME=SPEC`` from the command line."""
    name, sep, spec = text.partition("=")
    if not sep or not name.strip() or not spec.strip():
        raise ConfigError(f"bad --seat {text!r}: use NAME=SPEC, e.g. Ann=random")
    return name.strip(), spec.strip()


def parse_seat_args(texts: Iterable[str]) -> list[tuple[str, str]]:
    """Every ``--seat NAME=SPEC``, each seat at most once (a repeat is a mistake, not an override)."""
    given: dict[str, str] = {}
    for text in texts:
        name, spec = parse_seat_arg(text)
        if name in given:
            raise ConfigError(f"--seat {name} is given twice ({name}={given[name]}, {name}={spec}): give each seat once")
        given[name] = spec
    return list(given.items())


def seat_specs(
    variant: type[Game],
    players: int | None,
    config: GameConfig,
    overrides: Iterable[tuple[str, str]] = (),
    given_as: str = "--seat {name}={spec}",
) -> dict[str, str]:
    """Seat name -> spec for one game, in seat order: defaults, then the config, then overrides.
    ``given_as`` names an override in an error as its caller took it (the command line's ``--seat``,
    the server's ``seats.NAME``)."""
    count = players if players is not None else config.players if config.players is not None else variant.default_players
    if not variant.min_players <= count <= variant.max_players:
        raise ConfigError(f"{variant.name} takes {variant.min_players}-{variant.max_players} players, not {count}")
    if count > len(DEFAULT_NAMES):
        raise ConfigError(f"at most {len(DEFAULT_NAMES)} seats have default names, not {count}")
    specs = dict.fromkeys(DEFAULT_NAMES[:count], DEFAULT_SPEC)

    def no_seat(name: str) -> str:
        return f"this {count}-player table has no seat {name!r} (seats: {', '.join(specs)})"

    source = config.path or "config"
    for name, spec in config.seats.items():
        if name not in specs:
            raise ConfigError(f"config error: {source}: seats.{name}: {no_seat(name)}")
        specs[name] = spec
    for name, spec in overrides:
        if name not in specs:
            raise ConfigError(f"{given_as.format(name=name, spec=spec)}: {no_seat(name)}")
        specs[name] = spec
    return specs
