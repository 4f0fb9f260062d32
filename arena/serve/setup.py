"""A new table's request checked (``POST /api/tables``'s body): variant, seats, house rules, times.

Every problem is a :class:`~arena.serve.tables.TableError` 400 with one line saying what is wrong.
"""

from __future__ import annotations

import secrets
import tomllib
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from arena.engine import Game
from arena.run.config import ConfigError, first_error, load_config, parse_config, seat_specs
from arena.run.wallclock import DEFAULT_BEAT_SECONDS
from arena.serve.people import DEFAULT_START_WAIT
from arena.serve.tables import DEFAULT_PERSON_TIMEOUT, PERSON, Seat, TableError

#: what a new table's request may hold (docs/serve.md)
KEYS = frozenset(
    {"variant", "players", "seed", "seats", "options", "config", "timeout", "beat_seconds", "pace", "start_wait", "night_seconds"}
)


@dataclass
class TableSetup:
    """A checked request for a new table."""

    variant: type[Game]
    options: Any
    seed: int
    seats: list[Seat]
    timeout: float | None = DEFAULT_PERSON_TIMEOUT
    beat_seconds: float = DEFAULT_BEAT_SECONDS
    pace: float = 0.0
    start_wait: float | None = DEFAULT_START_WAIT
    night_seconds: float | None = None  # None: DEFAULT_NIGHT_SECONDS at a table with a person, else 0


def _person_name(seat: str, spec: str) -> str | None:
    if spec == PERSON:
        return seat
    head, sep, name = spec.partition(":")
    if head == PERSON and sep:
        name = " ".join(name.split())
        if not name or len(name) > 40 or not name.isprintable():
            raise TableError(400, f"seats.{seat}: a person's name is 1-40 printable characters")
        return name
    return None


def check_setup(body: Any) -> TableSetup:
    """``POST /api/tables``'s body as a table set-up, or a 400 saying what is wrong (one line)."""
    from arena.variants import VARIANTS

    if not isinstance(body, dict):
        raise TableError(400, "the body must be a JSON object")
    unknown = sorted(set(body) - KEYS)
    if unknown:
        raise TableError(400, f"unknown key {unknown[0]!r}")
    name = body.get("variant")
    if not isinstance(name, str) or name not in VARIANTS:
        raise TableError(400, f"variant must be one of {', '.join(VARIANTS)}")
    variant = VARIANTS[name]
    players = body.get("players")
    if players is not None and (not isinstance(players, int) or isinstance(players, bool)):
        raise TableError(400, "players must be a whole number")
    seed = body.get("seed")
    if seed is None:
        seed = secrets.randbelow(1_000_000)
    elif not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise TableError(400, "seed must be a whole number from 0")
    given = body.get("seats") or {}
    if not isinstance(given, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in given.items()):
        raise TableError(400, "seats must map seat names to specs (person, bot, random or provider:model)")
    try:
        config = load_config(variant)
        text = body.get("config")
        if text is not None:
            if not isinstance(text, str):
                raise TableError(400, "config must be TOML text")
            try:
                config = parse_config(variant, tomllib.loads(text), "config")
            except tomllib.TOMLDecodeError as exc:
                raise TableError(400, f"config: {exc}") from None
        options = body.get("options")
        if options is not None:
            if not isinstance(options, dict):
                raise TableError(400, "options must be an object of house rules")
            try:
                config.options = variant.Options.model_validate({**config.options.model_dump(), **options})
            except ValidationError as exc:
                raise TableError(400, first_error(exc, "options")) from None
        specs = seat_specs(variant, players, config, [(k, v.strip()) for k, v in given.items()], given_as="seats.{name}")
    except ConfigError as exc:
        raise TableError(400, str(exc).removeprefix("config error: ")) from None
    seats = []
    for seat, spec in specs.items():
        if not spec:
            raise TableError(400, f"seats.{seat}: empty seat spec")
        person = _person_name(seat, spec)
        if person is None and spec == "human":
            raise TableError(400, f"seats.{seat}: a person at a served table is 'person' (or 'person:NAME')")
        seats.append(Seat(seat, PERSON if person is not None else spec, person))
    timeout = body.get("timeout", DEFAULT_PERSON_TIMEOUT)
    if timeout is not None and (not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not 0 < timeout <= 86400):
        raise TableError(400, "timeout must be seconds (0-86400] per decision of a person, or null for no limit")
    beat = body.get("beat_seconds", DEFAULT_BEAT_SECONDS)
    if not isinstance(beat, (int, float)) or isinstance(beat, bool) or not 0.2 <= beat <= 600:
        raise TableError(400, "beat_seconds must be 0.2-600")
    pace = body.get("pace", 0)
    if not isinstance(pace, (int, float)) or isinstance(pace, bool) or not 0 <= pace <= 60:
        raise TableError(400, "pace must be 0-60 seconds between steps")
    wait = body.get("start_wait", DEFAULT_START_WAIT)
    if wait is not None and (not isinstance(wait, (int, float)) or isinstance(wait, bool) or not 0 <= wait <= 86400):
        raise TableError(400, "start_wait must be seconds (0-86400) to wait for the people, or null to wait for them all")
    night = body.get("night_seconds")
    if night is not None and (not isinstance(night, (int, float)) or isinstance(night, bool) or not 0 <= night <= 600):
        raise TableError(400, "night_seconds must be 0-600 seconds a night lasts at least, or null for the default")
    timeout = None if timeout is None else float(timeout)
    start_wait = None if wait is None else float(wait)
    night = None if night is None else float(night)
    return TableSetup(variant, config.options, seed, seats, timeout, float(beat), float(pace), start_wait, night)
