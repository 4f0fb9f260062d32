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


def openai_usage(usage: Any) -> dict[str, int]:
    """From a chat completion's ``usage`` (``CompletionUsage``).

    A server that does not report its cache (llama-cpp-python's has no ``prompt_tokens_details``,
    though its log shows prefix hits) gets ``cache_unreported``: its share is unknown, not zero.
    """
    prompt = getattr(usage, "prompt_tokens_details", None)
    completion = getattr(usage, "completion_tokens_details", None)
    out = {
        "input_tokens": _get(usage, "prompt_tokens"),
        "cached_tokens": _get(prompt, "cached_tokens"),
        "cache_write_tokens": 0,  # OpenAI writes its cache for free
        "output_tokens": _get(usage, "completion_tokens"),
        "reasoning_tokens": _get(completion, "reasoning_tokens"),
    }
    if getattr(prompt, "cached_tokens", None) is None:
        out["cache_unreported"] = 1
    return out


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
    cache_unreported: int = 0  # calls whose server said nothing of its cache (not: cached nothing)
    priced: bool = True  # the profile has prices (or runs here, free): False makes a $0 cost "unknown"

    def add(self, tokens: dict[str, int], cost: float) -> None:
        self.calls += 1
        for name in FIELDS:
            setattr(self, name, getattr(self, name) + tokens.get(name, 0))
        self.cache_unreported += int(bool(tokens.get("cache_unreported")))
        self.cost += cost

    @property
    def cache_known(self) -> bool:
        """Whether the share of prompt tokens read from a cache is known: some call reported it."""
        return self.cache_unreported < self.calls or not self.calls

    @property
    def cache_hit_rate(self) -> float | None:
        """Cached / prompt tokens; None when no call's server reported its cache."""
        if not self.cache_known:
            return None
        return self.cached_tokens / self.input_tokens if self.input_tokens else 0.0

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["cost"] = round(self.cost, 6)
        out["latency"] = round(self.latency, 3)
        out["queued"] = round(self.queued, 3)
        rate = self.cache_hit_rate
        out["cache_hit_rate"] = None if rate is None else round(rate, 4)
        return out
