"""Seat specs and model profiles: which provider, model, endpoint, key variable, prices, limits.

A spec is either a profile name from ``configs/models.toml`` (``sonnet``) or
``provider:model[@base_url][?key=value&...]`` (``openai:gpt-4.1-mini``,
``openai:llama3.1@http://localhost:11434/v1?structured=json_text``) or a model run in this process
(``local``, ``local:smollm2``, ``local:/path/to/any.gguf``: see :mod:`arena.players.llm.local`).
Everything is checked here, before a game starts, so a typo or a missing key costs one clear line instead of a forfeited game.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qsl

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arena.players.redact import install_log_redaction, register_key
from arena.players.registry import SpecError

PROVIDERS = ("openai", "anthropic", "local")
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
PROFILES_ENV = "ARENA_MODELS"
#: a model run in this process: no key, one call at a time, no transient faults to retry
LOCAL_DEFAULTS: dict[str, Any] = {
    "api_key_env": "", "structured": "json_schema", "max_tokens": 256, "attempts": 1, "concurrency": 1, "prompt": "short",
}  # fmt: skip

#: the default bound of a ``thought`` in characters (docs/llm.md, *Dollars*: chosen by what it costs)
THOUGHT_CHARS = 200

#: a server of your own (``@URL``): often one process on a CPU that answers one call at a time, so
#: one call in flight per endpoint and a long wait for each (a queue of seven seats' prompts)
SERVER_DEFAULTS: dict[str, Any] = {"concurrency": 1, "timeout": 600.0, "retry_budget": 1800.0}


class Profile(BaseModel):
    """Everything needed to call one model; prices are dollars per million tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = ""
    provider: Literal["openai", "anthropic", "local"]
    model: str = Field(min_length=1)
    base_url: str | None = None
    api_key_env: str = ""  # "" = the endpoint needs no key
    temperature: float | None = Field(None, ge=0, le=2)
    repeat_penalty: float | None = Field(None, ge=1, le=3, description="Local models: penalty on repeated tokens.")
    max_tokens: int = Field(1024, ge=16)
    structured: Literal["tools", "tools_auto", "json_schema", "json_object", "json_text"] | None = Field(
        None,
        description="How the action schema travels (docs/llm.md); None: tools for the official APIs, and for a "
        "server of your own (@URL) the first mode the check before the game finds working (arena.players.llm.modes).",
    )
    strict: bool | None = None  # None: strict for OpenAI tools / json_schema, plain for Anthropic
    allowed_tools: bool | None = Field(
        None,
        description="OpenAI tools: narrow the fixed tools to the kinds legal now (tool_choice allowed_tools); "
        "None: on for the official endpoint only (other servers may not know it).",
    )
    price_input: float = Field(0.0, ge=0)
    price_cached: float | None = Field(None, ge=0)  # None = same as input
    price_cache_write: float | None = Field(None, ge=0)  # None = input (x1.25 for Anthropic)
    price_output: float = Field(0.0, ge=0)
    timeout: float = Field(60.0, gt=0, description="Seconds before one HTTP call is abandoned.")
    attempts: int = Field(6, ge=1, le=50, description="Transport tries per model call.")
    backoff: float = Field(1.0, ge=0, description="First retry wait in seconds (exponential, jittered).")
    max_backoff: float = Field(30.0, ge=0, description="Longest wait between tries.")
    max_retry_after: float = Field(60.0, ge=0, description="Cap on a server's Retry-After.")
    retry_budget: float = Field(180.0, gt=0, description="Seconds for all tries of one call.")
    concurrency: int = Field(8, ge=1, le=256, description="Calls in flight per provider endpoint.")
    down_after: int = Field(
        3, ge=1, description="Consecutive calls given up on one endpoint, across the table, that stop the game."
    )
    check_timeout: float = Field(3.0, gt=0, description="Seconds for each request of the check before the game.")
    context: int | None = Field(
        None,
        ge=512,
        description="Context window in tokens: a local model's (None: its own); a server's (None: unknown), which "
        "the seat fits by folding its history to a record of the game so far when a prompt would not fit.",
    )
    prompt: Literal["full", "short"] = Field("full", description="System prompt: short = conduct rules in brief, seat last.")
    max_thought: int = Field(
        THOUGHT_CHARS,
        ge=0,
        description="Characters a `thought` may have, in the schema and the question (0: no bound). Output costs "
        "4-8x input: at 200 a classic game's thoughts cost about a fifth of its input or less (docs/llm.md, Dollars).",
    )
    history: Literal["full", "days"] = Field(
        "days",
        description="The game so far: full = every turn word for word; days = at each new day (hand) the earlier "
        "days become a fixed record of their facts, and after each accusation or trial's start or end the day so "
        "far joins it with its words and thoughts; the rest of the day word for word (docs/llm.md, Dollars).",
    )

    @property
    def mode(self) -> str:
        """The structured mode in use: the one set, else tools (a probed server's is set by the check)."""
        return self.structured or "tools"

    @property
    def probed(self) -> bool:
        """Whether the check before the game picks the mode: a server of your own, no mode set."""
        return self.provider == "openai" and self.base_url is not None and self.structured is None

    @property
    def strict_schema(self) -> bool:
        if self.strict is not None:
            return self.strict
        return self.provider == "openai"

    @property
    def endpoint(self) -> str:
        """The key that shares a concurrency limit (and a connection pool)."""
        return f"{self.provider}|{self.base_url or 'default'}"

    def cost(self, usage: Mapping[str, int]) -> float:
        """Dollars for one call's normalized usage (see :mod:`arena.players.llm.usage`)."""
        cached = usage.get("cached_tokens", 0)
        written = usage.get("cache_write_tokens", 0)
        fresh = max(usage.get("input_tokens", 0) - cached - written, 0)
        cached_price = self.price_input if self.price_cached is None else self.price_cached
        if self.price_cache_write is not None:
            write_price = self.price_cache_write
        else:
            write_price = self.price_input * (1.25 if self.provider == "anthropic" else 1.0)
        dollars = (
            fresh * self.price_input
            + cached * cached_price
            + written * write_price
            + usage.get("output_tokens", 0) * self.price_output
        )
        return dollars / 1_000_000


def default_profiles_path() -> Path:
    env = os.environ.get(PROFILES_ENV)
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[3] / "configs" / "models.toml"
    return repo if repo.exists() else Path("configs") / "models.toml"


def load_profiles(path: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """The raw profile tables of a models file (an absent default file means no profiles)."""
    file = Path(path) if path is not None else default_profiles_path()
    if not file.exists():
        if path is not None:
            raise SpecError(f"model profiles file {str(file)!r} does not exist")
        return {}
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SpecError(f"cannot read model profiles {str(file)!r}: {exc}") from None
    profiles = data.get("profiles", {})
    if not isinstance(profiles, dict) or not all(isinstance(v, dict) for v in profiles.values()):
        raise SpecError(f"{file}: [profiles.NAME] tables expected")
    return profiles


def _build(name: str, fields: Mapping[str, Any], where: str) -> Profile:
    try:
        return Profile.model_validate({"name": name, **fields})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'profile'}: {e['msg']}" for e in exc.errors())
        raise SpecError(f"{where}: {problems}") from None


def resolve_spec(spec: str, profiles: Mapping[str, Mapping[str, Any]], overrides: Mapping[str, Any] | None = None) -> Profile:
    """Turn a seat spec into a checked :class:`Profile` (raises :class:`SpecError`)."""
    spec = spec.strip()
    overrides = dict(overrides or {})
    if spec == "local" and spec not in profiles:
        spec = "local:smollm2"  # the embedded default model
    if ":" not in spec:
        if spec not in profiles:
            known = ", ".join(sorted(profiles)) or "none"
            raise SpecError(f"unknown model profile {spec!r} (profiles: {known}; or use provider:model)")
        return _build(spec, {**profiles[spec], **overrides}, f"profile {spec!r}")
    provider, _, rest = spec.partition(":")
    provider = provider.strip().lower()
    if provider not in PROVIDERS:
        raise SpecError(f"unknown provider {provider!r} in {spec!r}; use one of: {', '.join(PROVIDERS)}")
    rest, _, query = rest.partition("?")
    model, _, base_url = rest.partition("@") if provider != "local" else (rest, "", "")  # a path may hold an @
    model, base_url = model.strip(), base_url.strip() or None
    if not model:
        raise SpecError(f"{spec!r} names no model (e.g. {provider}:MODEL)")
    if provider == "local":
        fields = {**LOCAL_DEFAULTS, "provider": provider, "model": model}
        return _build(spec, {**fields, **_query(spec, query), **overrides}, f"seat spec {spec!r}")
    if base_url is not None and not base_url.startswith(("http://", "https://")):
        raise SpecError(f"{spec!r}: the base URL after @ must start with http:// or https://")
    fields: dict[str, Any] = {}
    if base_url is None:  # a known model keeps its profile's prices and settings
        for table in profiles.values():
            if table.get("provider") == provider and table.get("model") == model and not table.get("base_url"):
                fields = dict(table)
                break
    fields.update(provider=provider, model=model)
    if base_url is not None:
        fields["base_url"] = base_url
        fields.setdefault("api_key_env", "")
        fields.update({k: v for k, v in SERVER_DEFAULTS.items() if k not in fields})
    else:
        fields.setdefault("api_key_env", DEFAULT_KEY_ENV[provider])
    fields.update(_query(spec, query))
    fields.update(overrides)
    return _build(spec, fields, f"seat spec {spec!r}")


def _query(spec: str, query: str) -> dict[str, str]:
    try:
        return dict(parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)))
    except ValueError:
        raise SpecError(f"{spec!r}: options after ? must look like key=value&key=value") from None


def api_key(profile: Profile) -> str | None:
    """The key from the environment, or None when the endpoint needs none; SpecError if missing."""
    if not profile.api_key_env:
        return None
    value = os.environ.get(profile.api_key_env, "").strip()
    if not value:
        raise SpecError(
            f"{profile.name or profile.model}: set {profile.api_key_env} in the environment (keys are read from there only)"
        )
    register_key(value)  # from now on it is removed from every error text, record and log line
    install_log_redaction()
    return value
