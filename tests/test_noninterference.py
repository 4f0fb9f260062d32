"""Noninterference: what a seat can read depends only on what that seat may see.

For every variant, two games are played that differ only in something hidden from some seats (a
night move: the inspector's or detective's check, a doctor's save, a mafia shot that changes no
result; in McKay's games a face-down card nobody looks at). The pairs are found, not written by
hand: a bot game's answers become scripts (:class:`~arena.players.scripted.ScriptedPlayer`), one
silent answer (or one pair of unpicked cards) is changed, and the pair is kept when the public log
is the same. Every seat whose events read the same in both games (their numbers and decision ids
aside: those are what is under test) must then get byte-identical views over every channel:

- the seat API's JSON (``Table.seat_state``), polled after every change as a long poll sees it,
  decisions included (every seat is a served person seat answering from its script);
- the terminal screen of a person at that seat (:class:`~arena.players.human.HumanPlayer`);
- ``arena show --as`` and the ``arena report --as`` page (timestamps aside);
- and, for the public view, the watch page's JSON while the game is played.
"""

from __future__ import annotations

import asyncio
import io
import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena.engine import ActionBase, DecisionRequest, Game, View, dump_action
from arena.players.base import SyncPlayer
from arena.players.bot import BotPlayer
from arena.players.human import HumanPlayer
from arena.players.llm.prompt import Conversation, make_env
from arena.players.scripted import ScriptedPlayer
from arena.report.html import render_game
from arena.report.show import show
from arena.run.orchestrator import run, run_sync
from arena.run.transcript import TranscriptWriter, read_transcript
from arena.serve.tables import PERSON, Seat, Table
from arena.variants import VARIANTS

SEATS = {"classic": 7, "cove": 8, "village": 8, "duel": 2, "duel3": 3, "trio": 3}
MCKAY = ("duel", "duel3", "trio")
HANDS = 2
PAIRS = 2  # pairs wanted per kind of change
TRIES = 80  # changed answers tried per variant, at most
NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal")
TIME = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d)?(\.\d+)?([+-]\d\d:\d\d|Z)?|\b\d+(\.\d+)? ?(s|ms|seconds?|min)\b")


# ---- the games ----------------------------------------------------------------------------------
@dataclass
class Spec:
    """One game: the variant, its seed, McKay's hands, and each seat's answers in order."""

    variant: str
    seed: int
    hands: list[dict[str, Any]] | None
    scripts: dict[str, list[ActionBase]]

    def game(self) -> Game:
        cls = VARIANTS[self.variant]
        seats = list(NAMES[: SEATS[self.variant]])
        if self.hands is not None:
            return cls.from_scenario({"players": seats, "seed": self.seed, "hands": self.hands})
        return cls(seats, None, self.seed)


class Recording(SyncPlayer):
    """A bot that keeps every request it was asked (to know each answer's alternatives)."""

    def __init__(self, name: str, seed: int, requests: dict[int, DecisionRequest]) -> None:
        super().__init__(name)
        self.bot = BotPlayer(name, seed)
        self.requests = requests

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Any:
        self.requests[request.id] = request
        return self.bot.decide_now(request, view, feedback)


def mckay_hands(variant: str, seed: int) -> list[dict[str, Any]]:
    cls = VARIANTS[variant]
    rng = random.Random(seed)
    seats = NAMES[: SEATS[variant]]
    hands = []
    for _ in range(HANDS):
        deck = list(cls.DECK)  # type: ignore[attr-defined]
        rng.shuffle(deck)
        hands.append({"deal": dict(zip(seats, deck, strict=False)), "unpicked": deck[len(seats) :]})
    return hands


def recorded(variant: str, seed: int) -> tuple[Spec, list[tuple[str, int, DecisionRequest]]]:
    """A bot game as scripts, and every answer of it as (seat, index in its script, request)."""
    hands = mckay_hands(variant, seed) if variant in MCKAY else None
    spec = Spec(variant, seed, hands, {})
    game = spec.game()
    requests: dict[int, DecisionRequest] = {}
    run_sync(game, {n: Recording(n, seed, requests) for n in game.seats})
    scripts: dict[str, list[ActionBase]] = {n: [] for n in game.seats}
    answers = []
    for event in game.log:
        if event.type in ("action", "forfeit"):
            seat = str(event.actor)
            answers.append((seat, len(scripts[seat]), requests[event.data["request"]]))
            scripts[seat].append(event.data["action"])
    spec.scripts = scripts
    return spec, answers


def play_scripted(spec: Spec) -> Game:
    game = spec.game()
    run_sync(game, {n: ScriptedPlayer(n, list(spec.scripts[n])) for n in game.seats})
    return game


def public(game: Game) -> list[dict[str, Any]]:
    return [_content(e.to_dict()) for e in game.log if e.to is None]


def _content(raw: dict[str, Any]) -> dict[str, Any]:
    """An event without its number and its decision id (what the numbering fix is about)."""
    out = {k: v for k, v in raw.items() if k != "seq"}
    if "data" in out and "request" in out["data"]:
        out["data"] = {k: v for k, v in out["data"].items() if k != "request"}
    return out


def seen(game: Game, seat: str) -> list[dict[str, Any]]:
    return [_content(e.to_dict()) for e in game.view(seat).events]


def changed_answers(spec: Spec, answers: list[tuple[str, int, DecisionRequest]]) -> Iterator[Spec]:
    """The same game with one silent answer changed (another legal target)."""
    for seat, index, request in answers:
        if request.talk is not None:
            continue
        action = spec.scripts[seat][index]
        option = request.option(action.kind)  # type: ignore[attr-defined]
        if option is None:
            continue
        for name, field in option.fields.items():
            if name == "floor" or field.choices is None:
                continue
            values = [*field.choices, *([None] if field.nullable else [])]
            for value in values:
                if value == getattr(action, name) or value in field.forbidden:
                    continue
                scripts = {n: list(s) for n, s in spec.scripts.items()}
                scripts[seat][index] = action.model_copy(update={name: value})
                yield Spec(spec.variant, spec.seed, spec.hands, scripts)


def changed_cards(spec: Spec) -> Iterator[Spec]:
    """The same match with two face-down (unpicked) cards of one hand swapped."""
    assert spec.hands is not None
    for number, hand in enumerate(spec.hands):
        cards = hand["unpicked"]
        for i in range(len(cards)):
            for j in range(i + 1, len(cards)):
                if cards[i] == cards[j]:
                    continue
                hands = [dict(h, unpicked=list(h["unpicked"])) for h in spec.hands]
                hands[number]["unpicked"][i], hands[number]["unpicked"][j] = cards[j], cards[i]
                yield Spec(spec.variant, spec.seed, hands, spec.scripts)


def rejected_first(spec: Spec, answers: list[tuple[str, int, DecisionRequest]]) -> Iterator[Spec]:
    """The same game with one answer refused once first (a private ``rejected`` event, and a retry)."""
    for seat, index, _ in answers[len(answers) // 3 :]:
        scripts = {n: list(s) for n, s in spec.scripts.items()}
        scripts[seat].insert(index, {"kind": "no_such_move"})  # type: ignore[arg-type]
        yield Spec(spec.variant, spec.seed, spec.hands, scripts)


def extra_channel_round(spec: Spec, answers: list[tuple[str, int, DecisionRequest]]) -> Iterator[Spec]:
    """``village``: a night whose mafia agreed at once, played with one more channel round first
    (the first member points elsewhere, then all point as before): more decisions, all hidden."""
    rounds: dict[tuple[int, int], list[tuple[str, int, DecisionRequest]]] = {}
    for seat, index, request in answers:
        if request.group == "mafia_channel":
            rounds.setdefault((request.day, request.info.get("round", 0)), []).append((seat, index, request))
    for (day, number), members in rounds.items():
        if number != 1 or (day, 2) in rounds or len(members) < 2:
            continue
        targets = {spec.scripts[seat][index].target for seat, index, _ in members}  # type: ignore[attr-defined]
        if len(targets) != 1:
            continue
        scripts = {n: list(s) for n, s in spec.scripts.items()}
        first, index, request = members[0]
        action = spec.scripts[first][index]
        elsewhere = next((t for t in request.options[0].fields["target"].choices or () if t not in targets), None)
        if elsewhere is None:
            continue
        scripts[first][index : index + 1] = [action.model_copy(update={"target": elsewhere}), action]
        for seat, at, _ in members[1:]:
            scripts[seat].insert(at, spec.scripts[seat][at])
        yield Spec(spec.variant, spec.seed, spec.hands, scripts)


def pairs(variant: str) -> dict[str, list[tuple[Spec, Spec, list[str]]]]:
    """Pairs of games with the same public log, and the seats that see the same events in both:
    for each kind of change (another hidden target or card, a refused answer, village's extra
    channel round) the first ``PAIRS`` that keep the public log."""
    kinds: dict[str, Callable[[Spec, Any], Iterator[Spec]]] = {"refused answer": rejected_first}
    if variant in MCKAY:
        kinds["face-down card"] = lambda spec, answers: changed_cards(spec)
    else:
        kinds["hidden target"] = changed_answers
    if variant == "village":
        kinds["extra channel round"] = extra_channel_round
    return {name: _pairs_of(variant, kind) for name, kind in kinds.items()}


def _pairs_of(variant: str, kind: Callable[[Spec, Any], Iterator[Spec]]) -> list[tuple[Spec, Spec, list[str]]]:
    found: list[tuple[Spec, Spec, list[str]]] = []
    for seed in range(1, 6):
        spec, answers = recorded(variant, seed)
        base = play_scripted(spec)
        for tried, other in enumerate(kind(spec, answers)):
            if tried >= TRIES or len(found) >= PAIRS:
                break
            try:
                game = play_scripted(other)
            except Exception:  # a change that makes a script go wrong (OutOfAnswers, …): not a pair
                continue
            if not game.finished or public(game) != public(base):
                continue
            viewers = [n for n in base.seats if seen(base, n) == seen(game, n)]
            hidden = [e.to_dict() for e in base.log] != [e.to_dict() for e in game.log]
            if viewers and (len(viewers) < len(base.seats) or hidden):  # something differs, for somebody
                found.append((spec, other, viewers))
        if len(found) >= PAIRS:
            break
    return found


# ---- the channels ---------------------------------------------------------------------------------
@dataclass
class Channels:
    api: dict[str, list[str]]  # seat -> the seat API's states, one per change of it
    watch: list[str]  # the watch page's states while the game is played
    screen: dict[str, str]  # seat -> a person's terminal screen
    shown: dict[str, str]  # seat -> arena show --as
    page: dict[str, str]  # seat -> arena report --as


def _json(state: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in state.items() if k != "times"}, sort_keys=True)


async def _served(spec: Spec, folder: Path) -> tuple[dict[str, list[str]], list[str], Path]:
    """Every seat a served person seat answering from its script; the states each poller would see."""
    game = spec.game()
    table = Table("t", game, [Seat(n, PERSON, n) for n in game.seats], folder, timeout=None, beat_seconds=20)
    players = table.build_players()
    api: dict[str, list[str]] = {n: [] for n in game.seats}
    last: dict[str, Any] = {}
    after = dict.fromkeys(game.seats, 0)
    watch: list[str] = []
    watched = {"after": 0, "version": None}

    def snap() -> None:
        for seat in game.seats:
            state = table.seat_state(seat, after[seat])
            if state["version"] != last.get(seat) or state["events"]:
                last[seat] = state["version"]
                after[seat] += len(state["events"])
                api[seat].append(_json(state))
        if not table.over and not game.finished:
            state = table.watch_state(watched["after"], False)
            if state["version"] != watched["version"] or state["events"]:
                watched["version"] = state["version"]
                watched["after"] += len(state["events"])
                watch.append(_json(state))

    scripts = {n: iter(ScriptedPlayer(n, spec.scripts[n]).answers) for n in game.seats}
    for seat, web in table.persons.items():

        def changed(seat: str = seat, web: Any = web) -> None:
            table.changed()
            snap()
            posed = web.posed
            if posed is not None and not posed.answer.done():
                posed.answer.set_result(next(scripts[seat]))

        web.on_change = changed
    path = folder / "game.jsonl"
    writer = TranscriptWriter(path, game, {n: f"human:{n}" for n in game.seats})
    await run(game, players, [writer, table, lambda g: snap()])
    writer.close(game)
    return api, watch, path


class ScriptedHuman(HumanPlayer):
    """A person at the terminal who types exactly the script's answers (the screen is real)."""

    def __init__(self, name: str, script: list[ActionBase]) -> None:
        console = Console(file=io.StringIO(), width=100, color_system=None, highlight=False)
        super().__init__(name, console=console, keyboard=_Enter())
        self.script = list(ScriptedPlayer(name, script).answers)

    async def decide(self, request: DecisionRequest, view: View, feedback: str | None) -> Any:
        if not isinstance(self.script[0], ActionBase):  # a refused answer: the seat is not compared
            return self.script.pop(0)
        return await super().decide(request, view, feedback)

    async def _answer(self, request: DecisionRequest, draft: Any, again: bool) -> ActionBase:
        return self.script.pop(0)  # type: ignore[return-value]

    @property
    def screen(self) -> str:
        return self.console.file.getvalue()  # type: ignore[attr-defined]


class _Enter:
    """A keyboard that presses Enter (after a death: 'watch the rest')."""

    waiting = False

    def start(self, loop: Any, on_interrupt: Callable[[], None]) -> None:
        pass

    async def read(self, prompt: str, words: Any = (), **_: Any) -> str:
        await asyncio.sleep(0)
        return ""

    def interrupt(self) -> None:
        pass

    def close(self) -> None:
        pass


def channels(spec: Spec, folder: Path, viewers: list[str]) -> Channels:
    folder.mkdir(parents=True)
    api, watch, path = asyncio.run(_served(spec, folder))
    game = spec.game()
    humans = {n: ScriptedHuman(n, list(spec.scripts[n])) for n in game.seats}
    asyncio.run(run(game, humans, list(humans.values())))
    transcript = read_transcript(path)
    shown, page = {}, {}
    for seat in viewers:
        console = Console(file=io.StringIO(), width=100, color_system=None, highlight=False)
        show(transcript, console, seat)
        shown[seat] = console.file.getvalue()  # type: ignore[attr-defined]
        page[seat] = TIME.sub("<time>", render_game(transcript, viewer=seat))
    return Channels(api, watch, {n: h.screen for n, h in humans.items()}, shown, page)


def _first_difference(a: list[str] | str, b: list[str] | str) -> str:
    if isinstance(a, str) and isinstance(b, str):
        a, b = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"item {i}:\n  {str(x)[:600]}\n  {str(y)[:600]}"
    return f"lengths {len(a)} and {len(b)}"


@pytest.mark.parametrize("variant", list(SEATS))
def test_a_seat_reads_the_same_when_only_hidden_things_differ(variant: str, tmp_path: Path) -> None:
    kinds = pairs(variant)
    # trio's two centre cards reach no log unless the first declarer looks, and the card looked at is
    # shown at the hand's end: there its hidden differences are refused answers
    missing = [kind for kind, got in kinds.items() if not got and (variant, kind) != ("trio", "face-down card")]
    assert not missing, f"{variant}: no pair of games differing only in a {', '.join(missing)}"
    found = [pair for got in kinds.values() for pair in got]
    leaks: list[str] = []
    for number, (one, other, viewers) in enumerate(found):
        a = channels(one, tmp_path / f"{number}a", viewers)
        b = channels(other, tmp_path / f"{number}b", viewers)
        if a.watch != b.watch:
            leaks.append(f"pair {number}: the watch page: {_first_difference(a.watch, b.watch)}")
        for seat in viewers:
            for channel, x, y in (
                ("the seat API", a.api[seat], b.api[seat]),
                ("the terminal", a.screen[seat], b.screen[seat]),
                ("arena show --as", a.shown[seat], b.shown[seat]),
                ("arena report --as", a.page[seat], b.page[seat]),
            ):
                if x != y:
                    leaks.append(f"pair {number}, {seat}: {channel}: {_first_difference(x, y)}")
    assert not leaks, f"{variant}: {len(leaks)} views tell the games apart; the first:\n" + "\n".join(leaks[:3])


def test_a_models_tool_call_ids_count_its_own_decisions() -> None:
    """A model reads its history: a tool call the server gave no id is named by the seat's own
    decision number, not the engine's id (which counts every seat's decisions)."""
    from arena.engine import Decision
    from arena.players.llm import make_llm_player
    from arena.players.llm.providers import Reply

    game = VARIANTS["classic"](list(NAMES[:7]), None, 3)
    bots = {n: BotPlayer(n, 3) for n in game.seats}
    mine: list[DecisionRequest] = []
    while not game.finished and len(mine) < 3:
        mine += [r for r in game.pending() if r.player == "Ann"]
        game.resolve([Decision(r, bots[r.player].decide_now(r, game.view(r.player), None)) for r in game.pending()])
    assert len(mine) == 3 and mine[-1].id > 3  # the engine's ids count the other seats' decisions too
    player = make_llm_player("openai:m@http://127.0.0.1:9/v1", "Ann")
    for number, request in enumerate(mine, 1):
        player.prepare(request, game.view("Ann"), None)
        call = player._call(Reply("{}", request.kinds[0], {}, {}, "tool_calls"), request.id, 1)
        assert call is not None and call["id"] == f"call_{number}_1"


class Prompted(SyncPlayer):
    """A scripted seat whose every decision is also rendered as a model seat's prompt, in both
    history modes (the record folded by day, and the whole history), the answer appended as its own."""

    def __init__(self, name: str, script: list[ActionBase], variant: str, options: dict[str, Any]) -> None:
        super().__init__(name)
        self.inner = ScriptedPlayer(name, script)
        self.convs = [Conversation(name, variant, options, "tools", make_env(), history=h) for h in ("days", "full")]
        self.prompts: list[str] = []

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Any:
        for conv in self.convs:
            conv.ask(request, view, feedback, "", fixed=True)
            self.prompts.append(conv.serialized())
        action = self.inner.decide_now(request, view, feedback)
        text = json.dumps(dump_action(action)) if isinstance(action, ActionBase) else str(action)
        for conv in self.convs:
            conv.answer(text, {"id": f"call_{request.id}", "name": getattr(action, "kind", ""), "arguments": text})
        return action


def model_prompts(spec: Spec) -> dict[str, list[str]]:
    game = spec.game()
    options = game.options.model_dump(mode="json")
    players = {n: Prompted(n, list(spec.scripts[n]), spec.variant, options) for n in game.seats}
    run_sync(game, players)
    return {n: p.prompts for n, p in players.items()}


@pytest.mark.parametrize("variant", list(SEATS))
def test_a_model_seat_is_sent_the_same_bytes_when_only_hidden_things_differ(variant: str) -> None:
    """The prompts a model seat would be sent — its history folded into a record (the default) and
    whole — are byte-identical in two games that differ only in what the seat cannot see: the
    record's counts, cuts and notes of news included."""
    found = [pair for got in pairs(variant).values() for pair in got]
    compared = 0
    for number, (one, other, viewers) in enumerate(found):
        a, b = model_prompts(one), model_prompts(other)
        for seat in viewers:
            assert a[seat] == b[seat], f"pair {number}, {seat}: {_first_difference(a[seat], b[seat])}"
            compared += len(a[seat])
    assert compared > 0
