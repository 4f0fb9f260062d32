"""How much of each model call can a provider serve from its prompt cache? One game per variant.

Every seat of a game is a model of one *style* (provider × structured-output mode) talking to
the loopback stand-in (tests/llm_server.py), which answers each request with a random instance of
the schema the request carries. Each request is then read the way a provider keys its prompt
cache: the tool definitions first, then the response format (and, on Anthropic, the tool choice,
whose change invalidates the cached messages), the system prompt and the messages in order
(Anthropic's ``cache_control`` markers left out: they are not content). A call's *cacheable
share* is the longest prefix it shares with any earlier call of the same seat in the same game,
over its length. *reuse* is its mean over the calls that have an earlier call of their seat (a
seat's first call has nothing to share with; as in tests/test_llm_games.py), and the uncached
tokens count every call, first calls whole. Tokens are counted as characters / 4, as the
stand-in does.

Printed per variant and style: model calls, decisions, prompt tokens, the mean cacheable share
per call, the uncached prompt tokens of the whole game (Σ prompt − shared prefix), rejected
answers (the engine's rejections of the random answers, each re-asked), their rate per decision,
and forfeits. A last table plays the same variant at two table sizes or match lengths, to show
that uncached tokens per decision stay flat as a game grows (linear in decisions, not quadratic).

    python benchmarks/cache_bench.py                      # every variant, every style
    python benchmarks/cache_bench.py --variants classic cove --styles openai:tools anthropic:tools
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: style -> seat spec options. OpenAI tools seats narrow the fixed tools to the kinds legal now
#: with tool_choice allowed_tools, as they do on the official endpoint (the stand-in honours it).
STYLES = {
    "openai:tools": "&allowed_tools=true",
    "anthropic:tools": "",
    "openai:json_schema": "",
    "anthropic:json_schema": "",
    "openai:json_text": "",
    "anthropic:json_text": "",
}
FAST = {"backoff": 0.001, "max_backoff": 0.01, "max_retry_after": 0.01, "retry_budget": 20.0, "timeout": 20.0}
CHUNK = 4096


def _strip(node: Any) -> Any:
    """A request part without Anthropic's cache markers."""
    if isinstance(node, dict):
        return {k: _strip(v) for k, v in node.items() if k != "cache_control"}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def cache_key(api: str, body: dict[str, Any]) -> str:
    """A request as a provider's prompt cache reads it: tools, format, (tool choice), system, messages."""
    parts = [json.dumps(_strip(body.get("tools", [])), sort_keys=True, ensure_ascii=False)]
    if api == "openai":
        parts.append(json.dumps(body.get("response_format"), sort_keys=True))
    else:
        parts.append(json.dumps(body.get("output_config"), sort_keys=True))
        parts.append(json.dumps(body.get("tool_choice"), sort_keys=True))  # a change invalidates the messages
        parts.append(json.dumps(_strip(body.get("system")), sort_keys=True, ensure_ascii=False))
    parts.extend(json.dumps(_strip(m), sort_keys=True, ensure_ascii=False) for m in body.get("messages", []))
    return "\n".join(parts)


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix (block by block, then within the first differing block)."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i : i + CHUNK] == b[i : i + CHUNK]:
        i += CHUNK
    if i >= n:
        return n
    lo, hi = i, min(i + CHUNK, n)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[i:mid] == b[i:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class PrefixSet:
    """Earlier prompts of one seat, sorted: the longest prefix shared with any of them is shared
    with a sorted neighbour, so each new prompt costs two comparisons."""

    def __init__(self) -> None:
        self.sorted: list[str] = []

    def add(self, text: str) -> int:
        i = bisect.bisect_left(self.sorted, text)
        best = 0
        for j in (i - 1, i):
            if 0 <= j < len(self.sorted):
                best = max(best, common_prefix(text, self.sorted[j]))
        self.sorted.insert(i, text)
        return best


@dataclass
class Figures:
    calls: int = 0
    decisions: int = 0
    chars: int = 0
    uncached: int = 0
    shares: list[float] = field(default_factory=list)
    rejected: int = 0
    forfeits: int = 0
    seconds: float = 0.0
    fixed_tools: bool = True  # every call of a seat sent the same tools, format and system

    @property
    def reuse(self) -> float:
        return sum(self.shares) / len(self.shares) if self.shares else 0.0


def measure(log: list[dict[str, Any]]) -> tuple[int, int, list[float], bool]:
    """(prompt chars, uncached chars, per-call shares, tools+system fixed per seat) of a game's requests."""
    seats: dict[str, PrefixSet] = {}
    heads: dict[str, str] = {}
    chars = uncached = 0
    shares = []
    fixed = True
    for entry in log:
        api, body = entry["api"], entry["body"]
        key = cache_key(api, body)
        seat = f"{api}:{entry['player']}"
        first = seat not in seats
        shared = seats.setdefault(seat, PrefixSet()).add(key)
        chars += len(key)
        uncached += len(key) - shared
        if not first:
            shares.append(shared / len(key))
        system = body.get("system") if api == "anthropic" else body["messages"][0]
        form = body.get("response_format") if api == "openai" else body.get("output_config")
        choice = body.get("tool_choice") if api == "anthropic" else None
        head = json.dumps([_strip(body.get("tools")), form, choice, _strip(system)])
        fixed &= heads.setdefault(seat, head) == head
    return chars, uncached, shares, fixed


async def play(variant: str, style: str, players: int | None, options: dict[str, Any], seed: int) -> Figures:
    from arena.players.llm import close_clients, make_llm_player
    from arena.run.orchestrator import run
    from arena.variants import VARIANTS
    from tests.llm_server import FakeModelServer

    cls = VARIANTS[variant]
    provider, mode = style.split(":")
    seats = [f"P{i}" for i in range(1, (players or cls.default_players) + 1)]
    opts = {k: v for k, v in options.items() if k in cls.Options.model_fields}
    game = cls(seats, opts, seed=seed)
    started = time.perf_counter()
    with FakeModelServer(seed=seed) as server:
        url = server.openai_url if provider == "openai" else server.anthropic_url
        spec = f"{provider}:bench-{mode}@{url}?structured={mode}{STYLES.get(style, '')}"
        full = game.options.model_dump(mode="json")
        llm = {n: make_llm_player(spec, n, seed, variant=variant, options=full, **FAST) for n in seats}
        await run(game, llm)
        await close_clients()
        log = list(server.log)
    figures = Figures(seconds=time.perf_counter() - started)
    figures.calls = len(log)
    figures.chars, figures.uncached, figures.shares, figures.fixed_tools = measure(log)
    figures.decisions = sum(1 for e in game.log if e.type in ("action", "forfeit"))
    figures.rejected = sum(1 for e in game.log if e.type == "rejected")
    figures.forfeits = sum(1 for e in game.log if e.type == "forfeit")
    return figures


def row(label: str, f: Figures) -> str:
    rate = f.rejected / f.decisions if f.decisions else 0.0
    return (
        f"{label:<24} {f.calls:>6} {f.decisions:>6} {f.chars // 4:>10,} {f.reuse:>7.1%} {f.uncached // 4:>10,} "
        f"{f.uncached // 4 / max(f.decisions, 1):>8,.0f} {f.rejected:>6} {rate:>6.1%} {f.forfeits:>5} "
        f"{'yes' if f.fixed_tools else 'no':>5}"
    )


HEADER = (
    f"{'variant / style':<24} {'calls':>6} {'decis.':>6} {'prompt tok':>10} {'reuse':>7} {'uncached':>10} "
    f"{'unc/dec':>8} {'rej.':>6} {'rej/d':>6} {'forf.':>5} {'fixed':>5}"
)


def main() -> None:
    from arena.variants import VARIANTS

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="*", default=sorted(VARIANTS))
    parser.add_argument("--styles", nargs="*", default=list(STYLES), choices=list(STYLES))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-scaling", action="store_true", help="skip the growth table")
    args = parser.parse_args()
    sizes = {"classic": 9, "cove": 10}  # the tables; the others play their default size
    print("reuse = mean cacheable share per call (after each seat's first), counting tools; uncached = prompt")
    print("tokens no earlier call of the seat shares (Σ over the game); unc/dec = uncached per decision;")
    print("rej. = rejected answers (re-asked); rej/d = rejections per decision; forf. = forfeits;")
    print("fixed = the tools, response format, tool choice (Anthropic) and system prompt of every call of a")
    print("seat were byte-identical\n")
    print(HEADER)
    totals: dict[str, list[Figures]] = {}
    for variant in args.variants:
        for style in args.styles:
            figures = asyncio.run(play(variant, style, sizes.get(variant), {}, args.seed))
            totals.setdefault(style, []).append(figures)
            print(row(f"{variant} {style}", figures), flush=True)
        print()
    if args.no_scaling:
        return
    print("Growth: uncached prompt tokens per decision as a game gets longer (openai:tools, anthropic:tools)")
    print(HEADER)
    cases = [
        ("classic", 7, {}), ("classic", 14, {}), ("cove", 7, {}), ("cove", 14, {}),
        ("duel", None, {"hands": 3}), ("duel", None, {"hands": 12}),
    ]  # fmt: skip
    for style in ("openai:tools", "anthropic:tools"):
        for variant, players, options in cases:
            figures = asyncio.run(play(variant, style, players, options, args.seed))
            size = f"{players} seats" if players else f"{options['hands']} hands"
            print(row(f"{variant} {size} {style.split(':')[0]}", figures), flush=True)


if __name__ == "__main__":
    main()
