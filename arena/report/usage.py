"""Model usage in a report: the calls behind each decision, and each seat's totals."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from arena.run.transcript import Transcript


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


@dataclass(slots=True)
class Usage:
    """Calls of one decision (or one seat), summed for display."""

    calls: list[Call] = field(default_factory=list)

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
    def failures(self) -> list[str]:
        """Calls that brought no usable answer, counted by outcome ("malformed ×2")."""
        counts = Counter(c.outcome for c in self.calls if c.outcome != "ok")
        return [f"{outcome} ×{n}" for outcome, n in sorted(counts.items())]

    def text(self) -> str:
        """One line for a reader: "2 calls · 1,234 in (1,024 cached) · 56 out · $0.0012 · 1.4 s"."""
        n = len(self.calls)
        parts = [f"{n} call{'s' if n != 1 else ''}", f"{self.input_tokens:,} in"]
        if self.cached_tokens:
            parts[-1] += f" ({self.cached_tokens:,} cached)"
        parts += [f"{self.output_tokens:,} out", f"${self.cost:.4f}", f"{self.latency:.1f} s"]
        return " · ".join(parts)


@dataclass(slots=True)
class SeatUsage:
    """A seat's model usage over the whole game; all zero for a seat that made no call (a bot, a human)."""

    calls: int = 0
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0

    def __bool__(self) -> bool:
        return self.calls > 0

    @classmethod
    def of(cls, summary_usage: Any, decisions: list[Usage]) -> SeatUsage:
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
        )


def calls_by_decision(transcript: Transcript) -> dict[tuple[str, int], Usage]:
    """(seat, request id) -> the model calls made for that decision."""
    out: dict[tuple[str, int], Usage] = defaultdict(Usage)
    for record in transcript.calls:
        call = record.get("call")
        player = record.get("player")
        if not isinstance(call, dict) or not isinstance(player, str) or not isinstance(call.get("request"), int):
            continue
        usage = call.get("usage") if isinstance(call.get("usage"), dict) else {}
        out[(player, call["request"])].calls.append(
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
            )
        )
    return out
