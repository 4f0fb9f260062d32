"""Token and cost accounting, normalized across providers.

``input_tokens`` always counts the whole prompt (OpenAI's ``prompt_tokens``; Anthropic's
``input_tokens + cache_read + cache_creation``), so ``cached_tokens / input_tokens`` is the
cache hit rate on both; ``reasoning_tokens`` are part of ``output_tokens`` (billed as output).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

FIELDS = ("input_tokens", "cached_tokens", "cache_write_tokens", "output_tokens", "reasoning_tokens")


def _get(obj: Any, name: str) -> int:
    value = getattr(obj, name, None) if obj is not None else None
    return int(value) if isinstance(value, (int, float)) else 0


def _unknown(source: Any, name: str) -> dict[str, int]:
    """``{"cache_unknown": 1}`` when a server did not report its cached tokens (llama-cpp-python's
    does not, though it reuses the prefix): unknown, which a table must not show as 0%."""
    return {} if isinstance(getattr(source, name, None) if source is not None else None, int) else {"cache_unknown": 1}


def openai_usage(usage: Any) -> dict[str, int]:
    """From a chat completion's ``usage`` (``CompletionUsage``).

    A server that does not report its cache (llama-cpp-python's has no ``prompt_tokens_details``,
    though its log shows prefix hits) gets ``cache_unknown``: its share is unknown, not zero.
    """
    prompt = getattr(usage, "prompt_tokens_details", None)
    completion = getattr(usage, "completion_tokens_details", None)
    return {
        "input_tokens": _get(usage, "prompt_tokens"),
        "cached_tokens": _get(prompt, "cached_tokens"),
        "cache_write_tokens": 0,  # OpenAI writes its cache for free
        "output_tokens": _get(usage, "completion_tokens"),
        "reasoning_tokens": _get(completion, "reasoning_tokens"),
        **_unknown(prompt, "cached_tokens"),
    }


def anthropic_usage(usage: Any) -> dict[str, int]:
    """From a message's ``usage`` (Anthropic counts cache reads and writes outside input_tokens)."""
    read = _get(usage, "cache_read_input_tokens")
    written = _get(usage, "cache_creation_input_tokens")
    return {
        "input_tokens": _get(usage, "input_tokens") + read + written,
        "cached_tokens": read,
        "cache_write_tokens": written,
        "output_tokens": _get(usage, "output_tokens"),
        "reasoning_tokens": _get(getattr(usage, "output_tokens_details", None), "thinking_tokens"),
        **_unknown(usage, "cache_read_input_tokens"),
    }


@dataclass(slots=True)
class Usage:
    """Running totals of one player (what a transcript summary or an end table shows)."""

    model: str = ""
    calls: int = 0
    input_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float = 0.0
    latency: float = 0.0  # seconds the calls took, retries included (not the wait for a free call slot)
    queued: float = 0.0  # seconds waiting for a free call slot of the endpoint (the arena's own queue)
    transport_retries: int = 0
    transport_failures: int = 0  # calls given up after the retry bound (forfeits)
    malformed: int = 0  # answers that did not parse against the schema
    cache_unknown: int = 0  # calls whose server did not report cached tokens (not the same as none cached)
    priced: bool = True  # False: the profile has no prices, so ``cost`` is unknown, not free (a local model is free)

    def add(self, tokens: dict[str, int], cost: float) -> None:
        self.calls += 1
        for name in FIELDS:
            setattr(self, name, getattr(self, name) + tokens.get(name, 0))
        self.cache_unknown += int(tokens.get("cache_unknown", 0))
        self.cost += cost

    @property
    def cache_hit_rate(self) -> float:
        return self.cached_tokens / self.input_tokens if self.input_tokens else 0.0

    @property
    def cache_known(self) -> bool:
        """Whether the cached share means something: some call's server reported its cached tokens."""
        return self.cache_unknown < self.calls or not self.calls

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["cost"] = round(self.cost, 6)
        out["latency"] = round(self.latency, 3)
        out["queued"] = round(self.queued, 3)
        out["cache_hit_rate"] = round(self.cache_hit_rate, 4) if self.cache_known else None  # unknown, not 0
        if not self.priced:
            out["cost"] = None  # unknown, not 0 (a leaderboard, games.json/csv read it so)
        return out
