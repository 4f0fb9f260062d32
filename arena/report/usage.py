"""Model usage in a report: the calls behind each decision, and each seat's totals."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from arena.run.transcript import Transcript


def price_unknown(spec: str, tokens: int, cost: float) -> bool:
    """Tokens were spent but no dollar was counted, by a model that is not run here: its price is unknown.

    A profile without prices counts every call at $0; that is not free, and a report must not say so.
    A local model (``local``, ``local:…``) really costs nothing but time.
    """
    return tokens > 0 and not cost and not str(spec).startswith("local")


def money(cost: float, unknown: bool = False) -> str:
    """ "$0.0123", "price unknown", or "$0.0123 + price unknown" when part of a sum could not be priced."""
    if unknown:
        return f"${cost:.4f} + price unknown" if cost else "price unknown"
    return f"${cost:.4f}"


@dataclass(slots=True)
class Call:
    """One model call behind a decision, as the player reported it."""

    attempt: int
    outcome: str
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float = 0.0
    latency: float = 0.0
    error: str = ""
    retries: list[str] = field(default_factory=list)  # the transport errors retried within this call ("HTTP 500")
    waited: float = 0.0  # seconds slept between those retries (counted in the latency)


def _short(error: str) -> str:
    """A transport error in a few words: its first clause, clipped."""
    text = error.split(":")[0].strip() or "error"
    return text if len(text) <= 40 else text[:39] + "…"


@dataclass(slots=True)
class Usage:
    """Calls of one decision (or one seat), summed for display."""

    calls: list[Call] = field(default_factory=list)
    spec: str = ""  # the seat's spec: tells a local model (free) from an unpriced one

    @property
    def price_unknown(self) -> bool:
        return price_unknown(self.spec, self.input_tokens + self.output_tokens, self.cost)

    @property
    def input_tokens(self) -> int:
        return sum(c.input_tokens for c in self.calls)

    @property
    def cached_tokens(self) -> int:
        return sum(c.cached_tokens for c in self.calls)

    @property
    def output_tokens(self) -> int:
        return sum(c.output_tokens for c in self.calls)

    @property
    def cost(self) -> float:
        return sum(c.cost for c in self.calls)

    @property
    def latency(self) -> float:
        return sum(c.latency for c in self.calls)

    @property
    def cache_share(self) -> float | None:
        """The share of prompt tokens served from the provider's cache (None without prompt tokens)."""
        return self.cached_tokens / self.input_tokens if self.input_tokens else None

    @property
    def retries(self) -> int:
        return sum(len(c.retries) for c in self.calls)

    @property
    def transport_failures(self) -> int:
        return sum(1 for c in self.calls if c.outcome == "transport_failed")

    @property
    def failures(self) -> list[str]:
        """Badges for what went wrong: calls without a usable answer by outcome ("malformed ×2", "transport
        failed ×1"), and the transport errors retried ("retried ×2: HTTP 500 ×2")."""
        counts = Counter(c.outcome for c in self.calls if c.outcome != "ok")
        out = [f"{outcome.replace('_', ' ')} ×{n}" for outcome, n in sorted(counts.items())]
        retried = Counter(_short(e) for c in self.calls for e in c.retries)
        if retried:
            out.append(f"retried ×{self.retries}: " + ", ".join(f"{e} ×{n}" if n > 1 else e for e, n in retried.most_common()))
        return out

    def text(self) -> str:
        """One line for a reader: "2 calls · 1,234 in (83% cached) · 56 out · $0.0012 · 1.4 s (0.5 s waiting to retry)"."""
        n = len(self.calls)
        parts = [f"{n} call{'s' if n != 1 else ''}", f"{self.input_tokens:,} in"]
        if self.cached_tokens and self.cache_share is not None:
            parts[-1] += f" ({self.cache_share:.0%} cached)"
        parts += [f"{self.output_tokens:,} out", money(self.cost, self.price_unknown), f"{self.latency:.1f} s"]
        waited = sum(c.waited for c in self.calls)
        if waited >= 0.05:
            parts[-1] += f" ({waited:.1f} s waiting to retry)"
        return " · ".join(parts)


@dataclass(slots=True)
class SeatUsage:
    """A seat's model usage over the whole game; all zero for a seat that made no call (a bot, a human)."""

    calls: int = 0
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    spec: str = ""
    latency: float = 0.0
    retries: int = 0  # transport errors retried
    transport_failures: int = 0  # calls given up after the retries (each a forfeit)

    @property
    def cache_share(self) -> float | None:
        return self.cached_tokens / self.input_tokens if self.input_tokens else None

    def __bool__(self) -> bool:
        return self.calls > 0

    @property
    def price_unknown(self) -> bool:
        return price_unknown(self.spec, self.input_tokens + self.output_tokens, self.cost)

    def cost_text(self) -> str:
        """The seat's dollars, "price unknown", or "" for a seat that made no model call."""
        return money(self.cost, self.price_unknown) if self.price_unknown or self.cost else ""

    @classmethod
    def of(cls, summary_usage: Any, decisions: list[Usage], spec: str = "") -> SeatUsage:
        """The summary's figures where the game wrote them, else the seat's call records added up.

        A summary is missing (a cut-off game) or partial (an aborted one, an older transcript) as
        often as it is whole, so every field falls back on its own.
        """
        calls = [c for u in decisions for c in u.calls]
        record = summary_usage if isinstance(summary_usage, dict) else {}

        def pick(key: str, counted: float) -> Any:
            value = record.get(key)
            return value if isinstance(value, int | float) and not isinstance(value, bool) else counted

        return cls(
            calls=int(pick("calls", len(calls))),
            input_tokens=int(pick("input_tokens", sum(c.input_tokens for c in calls))),
            cached_tokens=int(pick("cached_tokens", sum(c.cached_tokens for c in calls))),
            output_tokens=int(pick("output_tokens", sum(c.output_tokens for c in calls))),
            cost=float(pick("cost", sum(c.cost for c in calls))),
            spec=spec,
            latency=float(pick("latency", sum(c.latency for c in calls))),
            retries=int(pick("transport_retries", sum(len(c.retries) for c in calls))),
            transport_failures=int(pick("transport_failures", sum(1 for c in calls if c.outcome == "transport_failed"))),
        )


def calls_by_decision(transcript: Transcript) -> dict[tuple[str, int], Usage]:
    """(seat, request id) -> the model calls made for that decision."""
    specs = transcript.header.get("players") if isinstance(transcript.header.get("players"), dict) else {}
    out: dict[tuple[str, int], Usage] = {}
    for record in transcript.calls:
        call = record.get("call")
        player = record.get("player")
        if not isinstance(call, dict) or not isinstance(player, str) or not isinstance(call.get("request"), int):
            continue
        usage = call.get("usage") if isinstance(call.get("usage"), dict) else {}
        key = (player, call["request"])
        if key not in out:
            out[key] = Usage(spec=str(specs.get(player, "")))
        out[key].calls.append(
            Call(
                attempt=int(call.get("try") or 1),
                outcome=str(call.get("outcome") or "?"),
                input_tokens=int(usage.get("input_tokens") or 0),
                cached_tokens=int(usage.get("cached_tokens") or 0),
                output_tokens=int(usage.get("output_tokens") or 0),
                reasoning_tokens=int(usage.get("reasoning_tokens") or 0),
                cost=float(call.get("cost") or 0.0),
                latency=float(call.get("latency") or 0.0),
                error=str(call.get("error") or ""),
                retries=[str(r.get("error") or "?") for r in call.get("retries") or [] if isinstance(r, dict)],
                waited=sum(float(r.get("wait") or 0.0) for r in call.get("retries") or [] if isinstance(r, dict)),
            )
        )
    return out
