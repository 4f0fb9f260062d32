"""``arena prompts TRANSCRIPT --seat NAME [--decision N]``: what one seat was sent, as text.

A seat a model played has a call record per request it sent (:mod:`arena.run.transcript`): the
requests are rebuilt from them exactly as the provider received them
(:func:`arena.players.llm.sent.rebuild`). A seat a bot, a person or a script played never sent
anything: the game is replayed from its recorded answers and, at each of that seat's decisions,
a model player of ``--model`` (no key, nothing is called) renders the request it would have sent,
with the seat's recorded answers standing in for the model's in the history.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from typing import Any

from arena.cli.base import CliError


@dataclass(slots=True)
class Sent:
    """One request of the seat: where in the game, and the body."""

    request: int | None
    day: Any
    phase: str
    attempt: int
    body: dict[str, Any] | None  # None: a belief question recorded before its prompt was
    belief: bool = False  # a tournament's belief question, asked beside the game (no decision)

    def heading(self, seat: str, number: int, total: int, decision: int) -> str:
        if self.belief:
            return f"=== {seat}: call {number} of {total} (belief question of day {self.day}, beside the game) ==="
        where = f"request {self.request}, {when_words(self.day, self.phase)}" + (
            f", try {self.attempt}" if self.attempt > 1 else ""
        )
        return f"=== {seat}: call {number} of {total} (decision {decision}: {where}) ==="


#: a decision's group (or, in older records, its phase) in the words a reader knows
GROUP_WORDS = {
    "night_kill": "the night shot",
    "check": "the night check",
    "heal": "the doctor's save",
    "visit": "the mistress's visit",
    "mafia_channel": "the mafia channel",
    "channel": "the mafia channel",
    "night": "the night",
    "discussion": "a discussion turn",
    "verdict": "a yes-or-no vote",
    "vote": "a vote",
    "defence": "a defence",
    "floor": "a floor speech",
    "last_words": "last words",
    "beat": "a beat",
    "soliloquy": "the soliloquy",
    "soliloquy_reply": "continue or retract",
    "judge": "the ruling on who killed first",
}
NIGHT_GROUPS = frozenset({"night_kill", "check", "heal", "visit", "mafia_channel", "channel", "night", "night_roles"})
HAND_GROUPS = frozenset({"beat", "soliloquy", "soliloquy_reply", "judge", "round1", "round2"})


def when_words(day: Any, group: str) -> str:
    """``night 1, the night shot``, ``day 2, a discussion turn``, ``hand 3, a beat``: every variant here
    numbers a night by the day it belongs to (classic's and village's night N follows day N, cove's
    comes before day N), and a McKay game's "day" is its hand."""
    unit = "night" if group in NIGHT_GROUPS else "hand" if group in HAND_GROUPS else "day"
    return f"{unit} {day}, {GROUP_WORDS.get(group, group.replace('_', ' '))}"


def _seat(transcript: Any, name: str) -> str:
    seats = [str(s) for s in transcript.header.get("seats") or []]
    for seat in seats:
        if seat.lower() == name.strip().lower():
            return seat
    raise CliError(f"{transcript.path}: no seat {name!r} (seats: {', '.join(seats)})")


def recorded(transcript: Any, seat: str) -> list[Sent]:
    """The seat's requests, rebuilt from its call records."""
    from arena.players.llm.sent import rebuild

    calls = [c["call"] for c in transcript.calls if c.get("player") == seat and isinstance(c.get("call"), dict)]
    bodies = rebuild(calls)
    out = []
    for c, b in zip(calls, bodies, strict=True):
        belief = c.get("type") == "belief_call"
        shown = None if belief and not c.get("prompt") else b
        out.append(
            Sent(c.get("request"), c.get("day"), str(c.get("group") or c.get("phase")), int(c.get("try") or 1), shown, belief)
        )
    return out


def _answer(player: Any, event: dict[str, Any], attempt: int) -> None:
    """The seat's recorded answer, put in the history as a model would have given it."""
    from arena.run.resume import recorded_answer

    recorded_answer(player, event, attempt)


def would_be(transcript: Any, seat: str, spec: str) -> list[Sent]:
    """What a model seat of ``spec`` would have been sent at each of the seat's decisions."""
    from arena.players.llm import LLMPlayer, load_profiles, resolve_spec
    from arena.players.registry import SpecError
    from arena.run.orchestrator import Ruling
    from arena.run.replay import MISFIT, _answer_events, _offer, game_from_header

    try:
        profile = resolve_spec(spec, load_profiles(), {"api_key_env": ""})
    except SpecError as exc:
        raise CliError(f"--model {spec}: {exc}") from None
    game = game_from_header(transcript.header)
    player = LLMPlayer(
        seat, profile, key=None, seed=game.seed, spec=spec, variant=game.name, options=game.options.model_dump(mode="json")
    )
    view = game.view(seat)
    out: list[Sent] = []
    tries: dict[int, int] = {}

    def ask(ruling: Ruling) -> None:
        request = ruling.request
        tries[request.id] = tries.get(request.id, 0) + 1
        kwargs = player.prepare(request, view, ruling.feedback)[0]
        out.append(Sent(request.id, request.day, str(request.group or request.phase), tries[request.id], kwargs))

    answers = _answer_events(transcript.events)
    while not game.finished:
        rulings = {request.id: Ruling(game, request) for request in game.pending()}
        first = min(rulings)
        asked: set[int] = set()
        for ruling in rulings.values():  # every seat is asked at the start of the step
            if ruling.request.player == seat:
                ask(ruling)
                asked.add(ruling.request.id)
        while any(r.decision is None for r in rulings.values()):
            event = next(answers, None)
            if event is None:
                return out  # a stopped game: its last step was never settled
            request_id = event["data"]["request"]
            ruling = rulings.get(request_id) if isinstance(request_id, int) else None
            if ruling is None or ruling.decision is not None:
                if event["type"] in ("action", "forfeit") and isinstance(request_id, int) and request_id < first:
                    continue
                if ruling is not None and event["type"] in ("action", "forfeit"):
                    continue
                raise CliError(f"{transcript.path}: the replay left the recorded game ({MISFIT})")
            mine = ruling.request.player == seat
            if mine and request_id not in asked:  # asked again, with the reason of the rejection
                ask(ruling)
            asked.discard(request_id)
            if not _offer(game, ruling, event):
                raise CliError(f"{transcript.path}: the replay left the recorded game ({MISFIT})")
            if mine:
                _answer(player, event, tries[request_id])
        game.resolve([r.decision for r in rulings.values()])  # type: ignore[misc]
    return out


def cmd_prompts(args: argparse.Namespace) -> int:
    from arena.players.llm.sent import render
    from arena.run.replay import ReplayError
    from arena.run.transcript import TranscriptError, read_transcript

    try:
        transcript = read_transcript(args.file)
    except TranscriptError as exc:
        raise CliError(str(exc)) from None
    seat = _seat(transcript, args.seat)
    sent = recorded(transcript, seat)
    note = None
    if not sent:
        try:
            sent = would_be(transcript, seat, args.model)
        except ReplayError as exc:
            raise CliError(f"{transcript.path}: {exc}") from None
        spec = transcript.header.get("players", {}).get(seat, "?")
        note = f"# {seat} ({spec}) sent no model call: what {args.model} would have been sent, nothing was called"
    decisions: list[int] = []  # each call's decision number (1-based, in the order first asked)
    order: dict[Any, int] = {}
    for item in sent:
        if item.belief:  # not a decision: listed in full, never picked by --decision
            decisions.append(0)
            continue
        order.setdefault(item.request, len(order) + 1)
        decisions.append(order[item.request])
    chosen = list(range(len(sent)))
    if args.decision is not None:
        if not order:
            raise CliError(f"{seat} made no decision in {transcript.path}")
        if not 1 <= args.decision <= len(order):
            raise CliError(f"{seat} has no decision {args.decision} in {transcript.path} (decisions: 1–{len(order)})")
        chosen = [i for i in chosen if decisions[i] == args.decision]
    if args.json:
        for i in chosen:
            if sent[i].body is not None:
                print(json.dumps(sent[i].body, ensure_ascii=False))
        return 0
    if note:
        print(note)
    for i in chosen:
        previous = sent[i - 1].body if args.decision is None and i > 0 else None
        print(sent[i].heading(seat, i + 1, len(sent), decisions[i]))
        body = sent[i].body
        print(
            render(body, previous)
            if body is not None
            else "(its request was not recorded: a transcript from before belief questions kept theirs)"
        )
    return 0


def add_command(sub: Any) -> None:
    """``arena prompts`` on the command line's subcommands."""
    p = sub.add_parser("prompts", help="print what one seat was sent (or, for a bot's seat, would have been sent)")
    p.add_argument("file", help="transcript (.jsonl)")
    p.add_argument("--seat", required=True, metavar="NAME", help="the seat (Ann, Bob, …)")
    p.add_argument(
        "--decision", type=int, metavar="N",
        help="only the seat's Nth decision, every request of it in full (default: all, each after the first as what changed)",
    )  # fmt: skip
    p.add_argument(
        "--model", default="openai:gpt-4.1-mini", metavar="SPEC",
        help="for a seat no model played: the model whose requests to render (default openai:gpt-4.1-mini; nothing is sent)",
    )  # fmt: skip
    p.add_argument("--json", action="store_true", help="each request as one JSON line, as the provider received it")
    p.set_defaults(func=cmd_prompts)
