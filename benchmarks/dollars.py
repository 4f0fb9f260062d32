"""What a game of model seats costs, and what a comparison of two models costs: full history vs days.

Every seat of a game is a model (``openai:tools``, the fixed tools narrowed with ``allowed_tools``)
on the loopback stand-in (tests/llm_server.py), which answers from the schema alone and reports
usage as a provider does: prompt tokens = characters / 4, cached tokens = the longest prefix the
request shares with one of the seat's recent requests, from 1 024 tokens on; every thought and
speech it answers is as long as its bound (200 and 600 characters: the answers read back are as
long as the output priced; ``--short-answers``: its own short ones). Full and days are measured on
the same game: full-history seats play it, and beside each a ``history = "days"`` twin (the game
folded into a record at every call with news, docs/llm.md) builds the request
it would send at the same decision; then the days seats play their own game on the same seed
(its rulings: the days rows' rejections and forfeits).

Printed per variant, table size and history: model calls, prompt tokens, cached share, uncached
tokens (per game), rejected answers and forfeits (per game), and dollars per game at the list
prices of the shipped profiles (configs/models.toml): OpenAI bills uncached input, cached reads at
its cached price and writes nothing; Anthropic bills reads at its cached price and writes the
uncached part of every call of 1 024 tokens or more at its cache-write price (its breakpoint sits
on the newest message, as the seats send it), the rest at the input price. Output is priced at
each decision's bound, not the stand-in's random answers: the thought at its bound (the profile's
``max_thought``, 200 characters), the speech at the decision's ``max_speech`` (600) where the
decision talks, 4 characters a token, and :data:`CALL_TOKENS` for the call's form (the tool's
name, the JSON's keys and small values): a vote 75 tokens, a speech 225 — the same for both
histories, as the same decision is asked of both. ``--answer-tokens N`` prices every call at N
instead (the flat 150 of earlier versions of the table).

Then **dollars to decide**: dollars per 9-seat classic game × the games ``until_decided`` needed
for the known truths (docs/tournaments.md, *Ground truth*: median and 80th percentile of 200 runs);
what a thought's bound costs; **where the dollars go** (each request split into the tools and
system prompt, the record, the rest of the history and the newest message, cached and uncached
tokens at their prices, and the output); and rejections and forfeits by the kind of answer.

    python benchmarks/dollars.py --seeds 1 2 3 4        # the tables of docs/llm.md (about 2 minutes)
    python benchmarks/dollars.py --cases classic:9 --seeds 1 2 3 4 --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: the shipped profiles priced (configs/models.toml), in the table's order
PROFILES = ("gpt-4.1-mini", "gpt-4.1", "haiku", "sonnet")
#: variant:seats (McKay: variant:seats:hands) — the issue's tables
CASES = ("classic:9", "classic:7", "cove:10", "village:11", "duel:2:12", "duel3:3:6", "trio:3:6")
#: games ``until_decided`` needed on classic 9 (docs/tournaments.md, with evidence): (median, 80th percentile)
UNTIL_DECIDED = {
    "bot vs random, overall (c)": (18, 18),
    "liar vs detective, both skills (a)": (225, 318),
    "ladder rungs in order, overall (b)": (1690, 2220),
}
#: thought bounds priced in the thoughts table (characters)
THOUGHT_BOUNDS = (100, 200, 300, 600, 1200)
FAST = {"backoff": 0.001, "max_backoff": 0.01, "max_retry_after": 0.01, "retry_budget": 20.0, "timeout": 20.0}
CACHE_MIN = 1024  # tokens: the shortest prompt a provider caches (OpenAI; Anthropic's Sonnet)
#: output tokens of a call's form beside its thought and speech: the tool's name, the JSON's keys,
#: punctuation and small values (`{"thought": …, "speech": …, "accuse": null, "floor": null, "claim": null}`)
CALL_TOKENS = 25
#: the stand-in's answers at the bounds the output is priced at: the profile's thought bound
#: (THOUGHT_CHARS), the games' speech bound (max_speech_chars), in characters
ANSWER_CHARS = {"thought": 200, "speech": 600}


@dataclass
class Tally:
    """One variant, size and history, summed over its games (``games`` of them)."""

    games: int = 0
    calls: int = 0
    prompt: int = 0
    cached: int = 0
    written: int = 0  # what Anthropic would write to its cache: the uncached part of calls ≥ CACHE_MIN
    output: int = 0  # output tokens at each decision's bound (answer_bound), summed over the calls
    #: PARTS -> [cached, uncached] prompt tokens: where each request's tokens sit (split)
    parts: dict[str, list[int]] = field(default_factory=dict)
    #: an answer's kind -> [decisions, rejected answers, forfeits] (the games' rulings, by kind)
    kinds: dict[str, list[int]] = field(default_factory=dict)
    decisions: int = 0
    rejected: int = 0
    forfeits: int = 0
    seconds: float = 0.0

    @property
    def share(self) -> float:
        return self.cached / self.prompt if self.prompt else 0.0

    def dollars(self, profile: Any, answer_tokens: int | None = None) -> float:
        """Dollars per game at ``profile``'s list prices, output at each decision's bound
        (``output``), or at ``answer_tokens`` a call when given."""
        anthropic = profile.provider == "anthropic"
        usage = {
            "input_tokens": self.prompt,
            "cached_tokens": self.cached,
            "cache_write_tokens": self.written if anthropic else 0,
            "output_tokens": self.output if answer_tokens is None else answer_tokens * self.calls,
        }
        return profile.cost(usage) / max(self.games, 1)


def answer_bound(request: Any, profile: Any) -> int:
    """Output tokens of an answer at the decision's bounds: the thought at the profile's bound, the
    speech at the decision's where it talks, 4 characters a token, and the call's form."""
    chars = (profile.max_thought or 0) + (request.max_speech if request.talk else 0)
    return chars // 4 + CALL_TOKENS


def case_parts(case: str) -> tuple[str, int, dict[str, Any]]:
    variant, seats, *rest = case.split(":")
    return variant, int(seats), ({"hands": int(rest[0])} if rest else {})


class Shadow:
    """A full-history seat that plays (its answers drive the game) with a ``days`` twin that is
    asked nothing: at each decision the twin builds the request it would send, and the seat's
    answer is appended to both. Both requests are counted as the stand-in counts them, so full
    and days are measured on the very same game."""

    def __init__(self, full: Any, days: Any, sent: dict[str, list[dict[str, Any]]]) -> None:
        self.name, self.full, self.days, self.sent = full.name, full, days, sent
        self.calls = full.calls
        self.output = 0  # the current decision's answer_bound
        plain = full.backend.send

        async def send(client: Any, kwargs: dict[str, Any]) -> Any:
            body = {"player": self.name, "output": self.output, **kwargs}
            sent["full"].append(json.loads(json.dumps(body, default=str)))
            return await plain(client, kwargs)

        full.backend.send = send

    async def decide(self, request: Any, view: Any, feedback: str | None) -> Any:
        self.output = answer_bound(request, self.full.profile)
        kwargs, _, _, _ = self.days.prepare(request, view, feedback)
        body = {"player": self.name, "output": self.output, **kwargs}
        self.sent["days"].append(json.loads(json.dumps(body, default=str)))
        answer = await self.full.decide(request, view, feedback)
        last = self.full.conversation.messages[-1]
        if last["role"] == "assistant":
            self.days.conversation.messages.append(dict(last))
        return answer


#: the parts of a request, in its order: the tools and system prompt (the same at every call), the
#: record of a folded seat, the rest of the history, and the newest message (events since, question)
PARTS = ("tools and system", "record", "rest of the history", "newest message")
#: the record's first words (blocks/record.j2): a folded seat's first message opens with them
RECORD = ("The game's record, as the moderator keeps it", "The game so far, as the moderator's record")
#: the line that closes a fold's record (how many of its last entries are news), and where a record
#: folded to fit a server's context ends (the news after it)
RECORD_ENDS = ("\n(New since your last turn: ", "\n\nSince your last turn")


def split(text: str, body: dict[str, Any]) -> list[int]:
    """Where each of :data:`PARTS` ends in a request's prompt text (as tests/llm_server.prompt_text lays it out)."""
    messages = body["messages"]
    system = f"system: {messages[0]['content']}"
    fixed = text.index(system) + len(system)
    record = fixed
    first = messages[1]["content"] if len(messages) > 1 and isinstance(messages[1]["content"], str) else ""
    ends = [first.find(mark) for mark in RECORD_ENDS]
    if first.startswith(RECORD) and max(ends) >= 0:
        note, news = ends
        end = first.find("\n", note + 1) if note >= 0 else news  # the note's line is the record's
        record = fixed + len("\nuser: ") + (end if end >= 0 else len(first))
    newest = max(text.rfind("\nuser: "), record)
    return [fixed, record, newest, len(text)]


def count(bodies: list[dict[str, Any]], tally: Tally) -> None:
    """Prompt and cached tokens of each request, as the stand-in's prefix cache counts them."""
    from tests.llm_server import CACHE_ENTRIES, _usage, prompt_text

    recent: dict[str, list[str]] = {}
    for body in bodies:
        text = prompt_text("openai", body)
        seat = recent.setdefault(body["player"], [])
        usage = _usage(text, seat)
        seat.append(text)
        del seat[:-CACHE_ENTRIES]
        prompt, cached = usage["total"], usage["cached"]
        tally.calls += 1
        tally.output += body["output"]
        tally.prompt += prompt
        tally.cached += cached
        tally.written += prompt - cached if prompt >= CACHE_MIN else 0
        start = 0
        for part, end in zip(PARTS, split(text, body), strict=True):
            here = tally.parts.setdefault(part, [0, 0])
            held = max(0, min(end, cached * 4) - start)  # the part's characters within the cached prefix
            here[0] += held // 4
            here[1] += (end - start - held) // 4
            start = end


def rulings(game: Any, tally: Tally) -> None:
    tally.games += 1
    tally.decisions += sum(1 for e in game.log if e.type in ("action", "forfeit"))
    tally.rejected += sum(1 for e in game.log if e.type == "rejected")
    tally.forfeits += sum(1 for e in game.log if e.type == "forfeit")
    for e in game.log:
        if e.type in ("action", "forfeit", "rejected"):
            action = e.data.get("action")
            counts = tally.kinds.setdefault(getattr(action, "kind", None) or "not an action", [0, 0, 0])
            counts[0 if e.type == "action" else 1 if e.type == "rejected" else 2] += 1
            counts[0] += e.type == "forfeit"  # a forfeit is a decision too


def by_kind(results: dict[str, dict[str, Tally]]) -> list[str]:
    """Rejected answers and forfeits per decision, by the kind of answer: the full seats' games
    against the folded seats' own (a rejection counted under the kind it answered with)."""
    head = ["case", "kind", "decisions full (days)", "rejected per decision", "forfeited"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case, by in results.items():
        variant, size, options = case_parts(case)
        label = f"{variant} {size}" + (f", {options['hands']} hands" if options else "")
        full, days = by["full"].kinds, by["alone"].kinds
        for kind in sorted(set(full) | set(days)):
            f, d = full.get(kind, [0, 0, 0]), days.get(kind, [0, 0, 0])
            rate = f"{f[1] / max(f[0], 1):.3f} ({d[1] / max(d[0], 1):.3f})"
            lost = f"{f[2] / max(f[0], 1):.1%} ({d[2] / max(d[0], 1):.1%})"
            lines.append(f"| {label} | {kind} | {f[0]} ({d[0]}) | {rate} | {lost} |")
    return lines


async def play(case: str, seed: int, full: Tally, days: Tally, legal: Tally, short: bool = False) -> None:
    """One game of ``case`` played by full-history seats with their days twins (counted into
    ``full`` and ``days``), and one played by days seats alone (its rulings into ``legal``). The
    stand-in answers with every thought and speech at its bound (:data:`ANSWER_CHARS`), as the
    output is priced, so the history holds answers as long as those priced; ``short``: its own
    short random ones (a 38-character thought half the time, a speech of 3-9 words)."""
    from arena.players.llm import close_clients, make_llm_player
    from arena.run.orchestrator import run
    from arena.variants import VARIANTS
    from tests.llm_server import FakeModelServer

    variant, size, options = case_parts(case)
    cls = VARIANTS[variant]
    seats = [f"P{i}" for i in range(1, size + 1)]
    sent: dict[str, list[dict[str, Any]]] = {"full": [], "days": []}
    started = time.perf_counter()
    for alone in (False, True):
        game = cls(seats, options, seed=seed)
        opts = game.options.model_dump(mode="json")
        with FakeModelServer(seed=seed, answer_chars=None if short else ANSWER_CHARS) as server:
            spec = f"openai:bench@{server.openai_url}?structured=tools&allowed_tools=true"

            def seat(name: str, history: str, spec: str = spec, opts: dict[str, Any] = opts) -> Any:
                return make_llm_player(f"{spec}&history={history}", name, seed, variant=variant, options=opts, **FAST)

            if alone:
                players: dict[str, Any] = {n: seat(n, "days") for n in seats}
            else:
                players = {n: Shadow(seat(n, "full"), seat(n, "days"), sent) for n in seats}
            await run(game, players)
            await close_clients()
        rulings(game, legal if alone else full)
    count(sent["full"], full)
    count(sent["days"], days)
    days.games += 1
    full.seconds += time.perf_counter() - started


def measure(cases: list[str], seeds: list[int], short: bool = False) -> dict[str, dict[str, Tally]]:
    """Per case: ``full`` and ``days`` (the same games), ``alone`` (days seats playing their own games)."""
    out: dict[str, dict[str, Tally]] = {}
    for case in cases:
        tallies = out.setdefault(case, {"full": Tally(), "days": Tally(), "alone": Tally()})
        for seed in seeds:
            asyncio.run(play(case, seed, tallies["full"], tallies["days"], tallies["alone"], short))
    return out


def priced() -> dict[str, Any]:
    from arena.players.llm.profiles import load_profiles, resolve_spec

    tables = load_profiles()
    return {name: resolve_spec(name, tables) for name in PROFILES}


def table(results: dict[str, dict[str, Tally]], answer_tokens: int | None) -> list[str]:
    """The markdown table docs/llm.md quotes: tokens and dollars of the same games; rejections and
    forfeits of full seats (those games) and of days seats (their own games, same seeds)."""
    profiles = priced()
    head = ["case", "history", "calls", "prompt tokens", "cached", "uncached", "output", "rej./dec.", "forf."]
    head += [f"$ {p}" for p in PROFILES]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case, by in results.items():
        variant, size, options = case_parts(case)
        label = f"{variant} {size}" + (f", {options['hands']} hands" if options else "")
        for history in ("full", "days"):
            t, legal = by[history], by["full" if history == "full" else "alone"]
            n = max(t.games, 1)
            row = [label, history, f"{t.calls / n:,.0f}", f"{t.prompt / n:,.0f}", f"{t.share:.1%}"]
            output = t.output if answer_tokens is None else answer_tokens * t.calls
            row += [f"{(t.prompt - t.cached) / n:,.0f}", f"{output / n:,.0f}", f"{legal.rejected / max(legal.decisions, 1):.3f}"]
            row += [f"{legal.forfeits / max(legal.games, 1):.1f}"]
            row += [f"{t.dollars(profiles[p], answer_tokens):.3f}" for p in PROFILES]
            lines.append("| " + " | ".join(row) + " |")
        ratios = [
            by["days"].dollars(profiles[p], answer_tokens) / max(by["full"].dollars(profiles[p], answer_tokens), 1e-12)
            for p in PROFILES
        ]
        lines.append(f"| {label} | days ÷ full | | | | | | | | " + " | ".join(f"{r:.2f}" for r in ratios) + " |")
    return lines


def to_decide(results: dict[str, dict[str, Tally]], answer_tokens: int | None) -> list[str]:
    """Dollars per classic-9 game × the games until_decided needed (median – 80th percentile)."""
    base = results.get("classic:9")
    if not base:
        return []
    profiles = priced()
    head = ["comparison (games: median – 80%)", "history", *PROFILES]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for what, (median, high) in UNTIL_DECIDED.items():
        for history in ("full", "days"):
            cells = []
            for p in PROFILES:
                per_game = base[history].dollars(profiles[p], answer_tokens)
                cells.append(f"{per_game * median:,.0f}–{per_game * high:,.0f}")
            lines.append(f"| {what} ({median}–{high}) | {history} | " + " | ".join(cells) + " |")
    return lines


def thoughts(results: dict[str, dict[str, Tally]]) -> list[str]:
    """What a thought bound costs in output per classic-9 game (a thought of the bound, 4 characters a
    token, at every call), beside the game's input dollars with history = days."""
    base = results.get("classic:9")
    if not base:
        return []
    profiles = priced()
    days = base["days"]
    head = ["thought bound (characters)", "tokens a call", *(f"$ {p} (share of input)" for p in PROFILES)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for bound in THOUGHT_BOUNDS:
        tokens = bound / 4
        cells = []
        for p in PROFILES:
            output = days.calls / max(days.games, 1) * tokens * profiles[p].price_output / 1e6
            cells.append(f"{output:.3f} ({output / max(days.dollars(profiles[p], 0), 1e-12):.0%})")
        lines.append(f"| {bound} | {tokens:.0f} | " + " | ".join(cells) + " |")
    return lines


def shares(results: dict[str, dict[str, Tally]], answer_tokens: int | None) -> list[str]:
    """Where a game's dollars go at gpt-4.1-mini, per part of the requests (cached and uncached
    tokens at their prices) and the output, full and days; and what days would have to cost for
    half of full."""
    profile = priced()["gpt-4.1-mini"]
    head = ["case", "history", *PARTS, "output", "all"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case, by in results.items():
        variant, size, options = case_parts(case)
        label = f"{variant} {size}" + (f", {options['hands']} hands" if options else "")
        for history in ("full", "days"):
            t = by[history]
            n = max(t.games, 1)
            cells = []
            for part in PARTS:
                cached, uncached = t.parts.get(part, [0, 0])
                cost = profile.cost({"input_tokens": cached + uncached, "cached_tokens": cached}) / n
                cells.append(f"{cost:.3f}")
            output = t.output if answer_tokens is None else answer_tokens * t.calls
            cells.append(f"{profile.cost({'output_tokens': output}) / n:.3f}")
            cells.append(f"{t.dollars(profile, answer_tokens):.3f}")
            lines.append(f"| {label} | {history} | " + " | ".join(cells) + " |")
    return lines


def report(results: dict[str, dict[str, Tally]], answer_tokens: int | None) -> None:
    print("\n".join(table(results, answer_tokens)))
    decide = to_decide(results, answer_tokens)
    if decide:
        print("\nDollars to decide (classic 9, every seat one of the two models compared):\n")
        print("\n".join(decide))
        print("\nThoughts: output dollars per classic-9 game by the thought's bound (history = days):\n")
        print("\n".join(thoughts(results)))
    print("\nWhere the dollars go (gpt-4.1-mini, per game):\n")
    print("\n".join(shares(results, answer_tokens)))
    print("\nRejections and forfeits by the kind of answer, full (days: the folded seats' own games):\n")
    print("\n".join(by_kind(results)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="*", default=list(CASES), help="variant:seats[:hands]")
    parser.add_argument("--seeds", nargs="*", type=int, default=[1, 2])
    parser.add_argument("--answer-tokens", type=int, help="output tokens priced per call (default: each decision's bound)")
    parser.add_argument(
        "--short-answers", action="store_true",
        help="the stand-in's own short answers in the history (the table before answers at their bounds)",
    )  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write the measured totals here")
    parser.add_argument("--from-json", type=Path, help="print the tables of totals written by --json (no game played)")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.from_json:
        saved = json.loads(args.from_json.read_text())
        results = {c: {h: Tally(**t) for h, t in r.items()} for c, r in saved["results"].items()}
        report(results, args.answer_tokens if args.answer_tokens is not None else saved.get("answer_tokens"))
        return
    results = measure(args.cases, args.seeds, args.short_answers)
    print(f"{len(args.seeds)} game(s) per case and history (seeds {', '.join(map(str, args.seeds))}); every seat a model")
    priced_at = "each decision's bound" if args.answer_tokens is None else f"{args.answer_tokens} tokens a call"
    print(f"on the loopback stand-in; output priced at {priced_at}; dollars per game.\n")
    report(results, args.answer_tokens)
    print(f"\n{time.perf_counter() - started:.0f} s")
    if args.json:
        data = {c: {h: asdict(t) for h, t in r.items()} for c, r in results.items()}
        args.json.write_text(json.dumps({"answer_tokens": args.answer_tokens, "results": data}, indent=1))


if __name__ == "__main__":
    main()
