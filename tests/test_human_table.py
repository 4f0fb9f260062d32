"""The human seat, part two: claims, a readable table, watching after one's death, the countdown,
and McKay's games on the wall clock (menus and whole games in process and in a real terminal)."""

from __future__ import annotations

import asyncio
import io
import os
import random
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pexpect
import pytest
from rich.console import Console
from rich.text import Text

from arena.cli import main
from arena.engine import ActionBase, Decision, DecisionRequest, Event, Game
from arena.engine.actions import Claim, DeclareCop, Kill, Pass
from arena.engine.wording import and_list
from arena.players.base import SyncPlayer
from arena.players.bot import BotPlayer
from arena.players.human import HumanPlayer
from arena.players.human.keyboard import Key
from arena.players.human.menu import parse_claim
from arena.players.human.screen import event_line
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import run
from arena.run.replay import replay
from arena.run.transcript import TranscriptWriter, read_transcript
from arena.run.wallclock import ClockError, ThinkTime, WallClock
from arena.variants import VARIANTS
from tests.helpers import fixed_order


# ---- helpers ----------------------------------------------------------------------------------------------
class Typed:
    """A keyboard typing the given lines, one per prompt, remembering the prompts."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)
        self.prompts: list[str] = []
        self.words: list[Sequence[str]] = []
        self.waiting = False

    def start(self, loop: asyncio.AbstractEventLoop, on_interrupt: Any) -> None:
        pass

    async def read(self, prompt: str, words: Sequence[str] = (), **_: Any) -> str | Key:
        await asyncio.sleep(0)
        self.prompts.append(prompt)
        self.words.append(list(words))
        return self.lines.pop(0)

    def interrupt(self) -> None:
        pass

    def close(self) -> None:
        pass


def console() -> Console:
    return Console(file=io.StringIO(), width=100, color_system=None, highlight=False)


def screen_of(out: Console) -> str:
    return out.file.getvalue()  # type: ignore[attr-defined]


def asked(variant: str, seed: int, seat: str, phase: str, players: int) -> tuple[Game, DecisionRequest]:
    """Play bots until ``seat`` is asked in ``phase``; that request."""
    game = VARIANTS[variant](list(DEFAULT_NAMES[:players]), None, seed)
    bots = {n: BotPlayer(n, seed) for n in game.seats}
    while not game.finished:
        for request in game.pending():
            if request.player == seat and request.phase == phase:
                return game, request
        game.resolve([Decision(r, bots[r.player].decide_now(r, game.view(r.player), None)) for r in game.pending()])
    raise AssertionError(f"{seat} was never asked in {phase}")


# ---- 3. claims --------------------------------------------------------------------------------------------
ROLES = ("mafia", "citizen", "inspector")
SEATS = ("Ann", "Bob", "Cid", "Fay")


@pytest.mark.parametrize(
    ("typed", "claim"),
    [
        ("claim inspector: Fay mafia", Claim(role="inspector", checks={"Fay": "mafia"})),
        ("inspector", Claim(role="inspector")),
        ("Fay mafia, bob not mafia", Claim(checks={"Fay": "mafia", "Bob": "not mafia"})),
        ("fay is town; C mafia", Claim(checks={"Fay": "not mafia", "Cid": "mafia"})),
        ("", None),
        ("none", None),
    ],
)
def test_a_claim_is_read_into_the_structure_bots_read(typed: str, claim: Claim | None) -> None:
    assert parse_claim(typed, ROLES, SEATS, "Ann") == claim


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("cop: Fay mafia", "'cop' is no card in this game: claim one of mafia, citizen, inspector"),
        ("inspector: Zed mafia", "'zed' is no seat at this table"),
        ("Fay maybe", "Fay: 'maybe' is no check result: say mafia or not mafia"),
        ("ann mafia", "a check is about another player, not yourself"),
        ("fay mafia, fay not mafia", "Fay is named twice"),
        ("citzen", "'citzen' is no card in this game: did you mean citizen? (the cards: mafia, citizen, inspector)"),
        ("inspektor: Fay mafia", "'inspektor' is no card in this game: did you mean inspector?"),
        ("inspector: Bbo mafia", "'bbo' is no seat at this table: did you mean Bob?"),
    ],
)
def test_a_wrong_claim_says_why(typed: str, why: str) -> None:
    found = parse_claim(typed, ROLES, SEATS, "Ann")
    assert isinstance(found, str) and found.startswith(why)


def test_the_claim_step_re_asks_completes_and_goes_with_the_speech() -> None:
    game, request = asked("classic", 3, "Ann", "discussion", 9)  # Ann is mafia: she lies
    out = console()
    keys = Typed("Trust me.", "cop: Bob mafia", "inspector: Bob mafia", "")
    me = HumanPlayer("Ann", console=out, keyboard=keys)
    action = asyncio.run(me.decide(request, game.view("Ann"), None))
    assert action.claim == Claim(role="inspector", checks={"Bob": "mafia"}) and action.speech == "Trust me."
    assert keys.prompts[:3] == ["say> ", "claim> ", "claim> "]
    assert {"inspector", "citizen", "Bob", "mafia"} <= set(keys.words[1])  # Tab completes roles and names
    screen = screen_of(out)
    assert "✗ 'cop' is no card in this game" in screen
    assert "Your claim, heard with your speech: 'I am the inspector; Bob is mafia'." in screen
    game.resolve([Decision(request, action)])
    speech = next(e for e in reversed(game.log) if e.type == "speech" and e.actor == "Ann")
    assert speech.to is None and speech.data["claim"] == {"role": "inspector", "checks": {"Bob": "mafia"}}


@pytest.mark.parametrize(
    ("variant", "players", "card"), [("classic", 9, "inspector"), ("cove", 8, "detective"), ("village", 8, "detective")]
)
def test_the_claim_example_names_a_card_that_checks(variant: str, players: int, card: str) -> None:
    """'civilian: Cid mafia' made no sense (a civilian has no checks): the example is a checker's."""
    game, request = asked(variant, 3, "Ann", "speeches" if variant == "cove" else "discussion", players)
    out = console()
    me = HumanPlayer("Ann", console=out, keyboard=Typed("Hello.", "", "1", "1"))
    asyncio.run(me.decide(request, game.view("Ann"), None))
    assert re.search(rf"Claim a card or what you learned\? e\.g\. '{card}: [A-Z][a-z]+ mafia'", screen_of(out)), screen_of(out)


# ---- 5. McKay's games on the wall clock -------------------------------------------------------------------
class Timed:
    """An async seat (a person, a model) that answers after ``delay`` seconds with ``moves`` in turn
    (then passes): its arrival time is real."""

    def __init__(self, name: str, delay: float, moves: Sequence[ActionBase]) -> None:
        self.name = name
        self.delay = delay
        self.moves = list(moves)
        self.beats: list[Any] = []

    async def decide(self, request: DecisionRequest, view: Any, feedback: str | None) -> ActionBase:
        await asyncio.sleep(self.delay)
        return self.moves.pop(0) if self.moves else Pass()

    def beat_started(self, beat: Any) -> None:
        self.beats.append(beat)


class Instant(SyncPlayer):
    """An instant seat playing ``moves`` in turn, then passing: the clock gives it a think time."""

    def __init__(self, name: str, moves: Sequence[ActionBase]) -> None:
        super().__init__(name)
        self.moves = list(moves)

    def decide_now(self, request: DecisionRequest, view: Any, feedback: str | None) -> ActionBase:
        return self.moves.pop(0) if self.moves else Pass()


def duel(options: dict[str, Any] | None = None, seed: int = 4) -> Game:
    return VARIANTS["duel"](["Ann", "Bob"], {"hands": 1, "beats": 3, **(options or {})}, seed)


def timed_game(game: Game, players: dict[str, Any], clock: WallClock | None, observers: Sequence[Any] = ()) -> Game:
    return asyncio.run(run(game, players, list(observers), clock=clock))


def test_a_quick_person_beats_a_slow_bot_and_a_slow_person_loses_to_a_quick_one() -> None:
    """Margins of most of a second, so a loaded machine waking the loop late changes nothing."""
    beat = 1.2
    quick = Timed("Ann", 0.01, [Kill(target="Bob")])
    slow_bot = Instant("Bob", [Kill(target="Ann")])
    game = timed_game(duel(), {"Ann": quick, "Bob": slow_bot}, WallClock(beat, seed=1, think={"Bob": ThinkTime(0.8, 0.9)}))
    assert [(d.player, d.cause) for d in game.deaths] == [("Bob", "kill")]  # Ann's kill came first: Bob never spoke
    ann, bob = (next(e for e in game.log if e.type == "action" and e.actor == n) for n in ("Ann", "Bob"))
    assert 0.01 <= ann.data["at"] < bob.data["at"] and 0.8 <= bob.data["at"] <= 0.9  # the times are on the record
    void = next(e for e in game.log if e.type == "kill_void")
    assert void.actor == "Bob" and void.to is None and "Ann came first" in void.data["reason"]  # told to the table

    slow = Timed("Ann", 0.8, [Kill(target="Bob")])
    quick_bot = Instant("Bob", [Kill(target="Ann")])
    game = timed_game(duel(), {"Ann": slow, "Bob": quick_bot}, WallClock(beat, seed=1, think={"Bob": ThinkTime(0.05, 0.1)}))
    assert [(d.player, d.cause) for d in game.deaths] == [("Ann", "kill")]

    both = {"Ann": Timed("Ann", 0, [Kill(target="Bob")]), "Bob": Instant("Bob", [Kill(target="Ann")])}
    untimed = timed_game(duel(), both, None)
    assert sorted(d.cause for d in untimed.deaths) == ["simultaneous", "simultaneous"]  # no clock: today's rule


def test_a_declaration_is_first_come_by_the_clock_and_says_so() -> None:
    quick = Timed("Ann", 0.01, [DeclareCop(position=1)])
    bot = Instant("Bob", [DeclareCop(position=2)])
    game = timed_game(duel(), {"Ann": quick, "Bob": bot}, WallClock(1.0, seed=2, think={"Bob": ThinkTime(0.7, 0.7)}))
    declared = next(e for e in game.log if e.type == "cop_declared")
    void = next(e for e in game.log if e.type == "declaration_void")
    assert declared.actor == "Ann" and void.actor == "Bob"
    assert re.fullmatch(r"Ann came first: 0\.\d s into the beat, Bob at 0\.7 s", void.data["reason"])


def test_a_beat_nobody_answers_in_passes_at_its_end_and_everyone_is_told_of_it() -> None:
    ann = Timed("Ann", 5.0, [])  # far slower than the beat
    bob = Instant("Bob", [])
    game = duel({"beats": 2})
    timed_game(game, {"Ann": ann, "Bob": bob}, WallClock(0.15, seed=3, think={"Bob": ThinkTime(1.0, 1.0)}))
    passes = [e for e in game.log if e.type == "action"]
    assert passes and all(e.data["action"].kind == "pass" and e.data["at"] == 0.15 for e in passes)
    assert game.finished and game.log[-2].data["reason"] == "time"
    assert [b.label for b in ann.beats] == ["Hand 1, beat 1 of 2", "Hand 1, beat 2 of 2"]
    assert all(b.players == ("Ann", "Bob") and b.ends - b.started == pytest.approx(0.15) for b in ann.beats)


def test_a_think_time_is_seeded_per_seat() -> None:
    a, b = WallClock(10, seed=7), WallClock(10, seed=7)
    first = [a.think_time("Bob") for _ in range(5)]
    b.think_time("Cid")  # another seat's draw changes nothing for Bob
    assert first == [b.think_time("Bob") for _ in range(5)]
    assert all(2 <= t <= 8 for t in first)  # 20-80 % of the beat by default
    assert ThinkTime.parse("2-6") == ThinkTime(2, 6) and ThinkTime.parse("3") == ThinkTime(3, 3)
    with pytest.raises(ClockError):
        ThinkTime.parse("6-2")


def record(tmp_path: Path, game: Game, players: dict[str, Any], clock: WallClock) -> Any:
    writer = TranscriptWriter(tmp_path / f"{game.name}.jsonl", game, dict.fromkeys(game.seats, "bot"))
    timed_game(game, players, clock, [writer])
    writer.close(game)
    return read_transcript(writer.path)


def test_a_timed_game_replays_exactly_from_its_transcript(tmp_path: Path) -> None:
    game = VARIANTS["duel3"](["Ann", "Bob", "Cid"], {"hands": 2, "beats": 3}, 11)
    players = {"Ann": Timed("Ann", 0.01, [Kill(target="Bob")]), "Bob": BotPlayer("Bob", 11), "Cid": BotPlayer("Cid", 11)}
    transcript = record(tmp_path, game, players, WallClock(0.2, seed=11))
    times = [e["data"]["at"] for e in transcript.events if e["type"] == "action"]
    assert len(times) > 6 and all(0 <= t <= 0.2 for t in times)
    assert replay(transcript).ok


def test_a_replay_follows_the_recorded_times(tmp_path: Path) -> None:
    """The same answers at other times make another game: a replay must use the times."""
    players = {"Ann": Timed("Ann", 0.01, [Kill(target="Bob")]), "Bob": Instant("Bob", [Kill(target="Ann")])}
    transcript = record(tmp_path, duel(), players, WallClock(1.0, seed=1, think={"Bob": ThinkTime(0.6, 0.6)}))
    assert transcript.summary["deaths"][0]["player"] == "Bob" and replay(transcript).ok
    for event in transcript.events:
        if event["type"] == "action" and event["actor"] == "Ann":
            event["data"]["at"] = 0.9  # after Bob's kill
    result = replay(transcript)
    assert not result.ok and "Ann" in (result.difference or "")


# ---- 4. reading the table, in process --------------------------------------------------------------------
INTERNAL = [  # what a person must never read: field names, null, key=value dumps, plurals of one
    (re.compile(r"\b[a-z]+_[a-z_]+\b"), "a snake_case name"),
    (re.compile(r"\(null\)|\bnull\b"), "null"),
    (re.compile(r"\w=\S"), "key=value"),
    (re.compile(r"\bround\d"), "a phase name"),
    (re.compile(r"\b1 (accusations|hands|days|nights|votes)\b"), "a plural of one"),
    (re.compile(r"looks at card \d"), "a card position"),
]


def internal_names(screen: str) -> list[str]:
    """Lines of ``screen`` showing an internal name; players' own words (quoted speech) are theirs."""
    found = []
    for line in screen.splitlines():
        said = re.sub(r"'[^']*'", "''", line)  # speech is the speaker's, not ours
        found += [f"{why}: {line.strip()}" for pattern, why in INTERNAL if pattern.search(said)]
    return found


def test_the_check_for_internal_names_finds_them() -> None:
    old = "[mafia only] channel_result: round=1, targets={'Bob': 'Gus'}, agreed=False\nNight: hold fire (null).\n"
    old += "Trial of Bob (1 accusations).\n╭─ Hand 1 · round1 ─╮\nAnn looks at card 1.\nBob: 'my_words = fine'\n"
    assert len({line.split(": ", 1)[1] for line in internal_names(old)}) == 5


class Autopilot:
    """A quick, careless person: numbers, names, Enter, commands; never in a hurry to quit."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.waiting = False
        self.deadlines: list[float | None] = []

    def start(self, loop: asyncio.AbstractEventLoop, on_interrupt: Any) -> None:
        pass

    async def read(self, prompt: str, words: Sequence[str] = (), *, deadline: float | None = None, **_: Any) -> str | Key:
        await asyncio.sleep(0)
        self.deadlines.append(deadline)
        rng = self.rng
        if prompt.startswith("Quit"):
            return "n"
        if prompt == "claim> ":
            return rng.choice(["", "mafia: " + next(w for w in words if w[:1].isupper()) + " mafia"])
        if prompt in ("say> ", "watch> "):
            return rng.choice(["", "Hello there."])
        return rng.choice(["", "1", "2", "3", "help", "log", "table", "zzz"])

    def interrupt(self) -> None:
        pass

    def close(self) -> None:
        pass


def play_as_person(variant: str, players: int, seed: int, options: dict[str, Any] | None = None, clock: Any = None):
    game = VARIANTS[variant](list(DEFAULT_NAMES[:players]), options, seed)
    out = console()
    keys = Autopilot(seed)
    me = HumanPlayer("Ann", console=out, keyboard=keys)
    table: dict[str, Any] = {n: BotPlayer(n, seed) for n in game.seats if n != "Ann"}
    table["Ann"] = me
    asyncio.run(run(game, table, [me], clock=clock))
    return game, screen_of(out), keys


SCREEN_GAMES = [
    ("classic", 7, None, None),
    ("village", 8, None, None),
    ("cove", 8, None, None),
    ("duel", 2, {"hands": 2, "beats": 3}, 0.05),
    ("duel3", 3, {"hands": 2, "beats": 3}, 0.05),
    ("trio", 3, {"hands": 2, "beats": 3}, 0.05),
]


@pytest.mark.parametrize(("variant", "players", "options", "beat"), SCREEN_GAMES, ids=[g[0] for g in SCREEN_GAMES])
def test_no_internal_name_on_the_screen_of_a_whole_game(variant: str, players: int, options: Any, beat: Any) -> None:
    for seed in range(4):
        clock = WallClock(beat, seed=seed) if beat else None
        game, screen, keys = play_as_person(variant, players, seed, options, clock)
        assert game.finished and "[you] card: " in screen
        assert not internal_names(screen), f"{variant} seed {seed}: {internal_names(screen)[:5]}"
        if beat:  # the wall clock: each beat said, every question of a beat given its deadline
            assert re.search(r"Hand 1, beat 1 of 3 · 0\.05 s · you(,| and) ", screen)
            assert any(d is not None for d in keys.deadlines)


def test_a_frozen_check_says_the_mistress_came() -> None:
    event = Event(9, "check_result", 2, "dawn", "player:Ann", frozenset({"Ann"}), None, {"target": "Eve", "result": "frozen"})
    assert event_line(event, "Ann", "Day") == (
        "You were visited by the mistress: your check of Eve is void.",
        "bold magenta",
    )


def test_a_vote_comes_with_a_recap_of_the_trial_the_living_and_the_claims() -> None:
    game, request = asked("classic", 3, "Ann", "charge_vote", 9)
    out = console()
    me = HumanPlayer("Ann", console=out, keyboard=Typed("yes"))
    asyncio.run(me.decide(request, game.view("Ann"), None))
    screen = screen_of(out)
    accuser = next(e.actor for e in reversed(game.log) if e.type == "accusation")
    assert f"On trial: {request.info['accused']} (accused by {accuser})" in screen
    assert f"Alive ({len(game.alive)}): {', '.join(game.alive)}" in screen and "Claims: " in screen


def test_cove_tallies_the_nominations() -> None:
    game, request = asked("cove", 2, "Ann", "vote", 8)
    out = console()
    me = HumanPlayer("Ann", console=out, keyboard=Typed("1"))
    asyncio.run(me.decide(request, game.view("Ann"), None))
    screen = screen_of(out)
    nominated = [e.data["nominate"] for e in game.log if e.type == "speech" and e.data.get("nominate")]
    top = max(set(nominated), key=nominated.count)
    assert re.search(rf"Nominations today: {top} {nominated.count(top)} \(", screen)
    assert f"On the vote: {and_list(request.info['candidates'])}" in screen


def dies(variant: str, players: int, seeds: range) -> tuple[int, Any]:
    """A seed at which the person (Ann, answering at random) dies before the end."""
    for seed in seeds:
        game, screen, _ = play_as_person(variant, players, seed)
        death = next((e.seq for e in game.log if e.type == "death" and e.data["player"] == "Ann"), None)
        if death is not None and sum(1 for e in game.log[death:] if e.type in ("day", "night")) >= 3:
            return seed, (game, screen)
    raise AssertionError("Ann never died early")


def test_after_ones_death_the_rest_comes_a_day_or_night_at_a_time() -> None:
    _, (_, screen) = dies("classic", 7, range(30))
    died = screen.index("You are out for the rest of the game.")
    rest = screen[died:]
    assert "Enter to watch the rest, or q to skip to the result." in rest
    parts = rest.split("Enter for more, or q to skip to the result.")
    headings = [len(re.findall(r"^── (Day|Night) ", part, re.M)) for part in parts[1:]]
    assert headings and all(n <= 1 for n in headings)  # one day or night per part


def test_q_skips_to_the_result() -> None:
    seed, _ = dies("classic", 7, range(30))
    game = VARIANTS["classic"](list(DEFAULT_NAMES[:7]), None, seed)
    out = console()
    keys = Autopilot(seed)
    plain_read = keys.read

    async def read(prompt: str, words: Sequence[str] = (), **kwargs: Any) -> str | Key:
        return "q" if prompt == "watch> " else await plain_read(prompt, words, **kwargs)

    keys.read = read  # type: ignore[method-assign]
    me = HumanPlayer("Ann", console=out, keyboard=keys)
    table: dict[str, Any] = {n: BotPlayer(n, seed) for n in game.seats if n != "Ann"}
    table["Ann"] = me
    asyncio.run(run(game, table, [me]))
    screen = screen_of(out)
    after = screen.split("Skipping to the result…", 1)[1]
    assert after.strip() == "" and "Game over" not in after  # nothing more is printed: the CLI shows the result


# ---- a real terminal ----------------------------------------------------------------------------------------
ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[78]|\r")
PROMPT = r"\n(?:\[ ?\d+s\] )?([a-z][a-z-]*)> "


def spawn(tmp_path: Path, *args: str, columns: int = 160, term: str = "dumb") -> pexpect.spawn:
    env = {**os.environ, "TERM": term, "COLUMNS": str(columns), "PYTHONUNBUFFERED": "1"}
    child = pexpect.spawn(
        sys.executable, ["-m", "arena", "play", *fixed_order(tmp_path, args), "--transcripts", str(tmp_path)],
        cwd=str(ROOT), env=env, encoding="utf-8", timeout=30, dimensions=(50, columns),
    )  # fmt: skip
    child.logfile_read = io.StringIO()
    return child


def shown(child: pexpect.spawn) -> str:
    return ANSI.sub("", child.logfile_read.getvalue())


def test_a_claim_in_a_terminal_reaches_the_table(tmp_path: Path) -> None:
    child = spawn(tmp_path, "classic", "--seed", "3", "--human", "Ann")
    child.expect(PROMPT)  # Ann speaks first
    child.sendline("Listen to me.")
    child.expect(r"Claim a card or what you learned\? e\.g\. '[a-z]+: \w+ mafia' \(Enter for no\s+claim\):")
    child.expect(PROMPT)
    child.send("ins\t")  # Tab completes the role
    child.sendline(": Zed mafia")
    child.expect("✗ 'zed' is no seat at this table")
    child.expect(PROMPT)
    child.sendline("inspector: Bob mafia")
    child.expect(r"Your claim, heard with your speech: 'I am the inspector; Bob is mafia'\.")
    child.expect(PROMPT)  # accuse
    child.sendline("")
    child.expect(r"Day 1 — Ann: 'Listen to me\.' \(claims inspector; says Bob is mafia\)")
    child.expect(PROMPT)  # Ctrl-D at the next question ends the game
    child.sendeof()  # Ctrl-D asks first; only a typed yes quits
    child.expect(r"Quit the game\? \[y/N\] ")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    screen = shown(child)
    assert "claim> ins\binspector" in screen or "claim> inspector" in screen
    transcript = read_transcript(next(tmp_path.glob("*.jsonl")))
    speech = next(e for e in transcript.events if e["type"] == "speech" and e.get("actor") == "Ann")
    assert speech["data"]["claim"] == {"role": "inspector", "checks": {"Bob": "mafia"}}
    assert replay(transcript).ok


def test_long_lines_wrap_at_word_boundaries(tmp_path: Path) -> None:
    words = "I was at home all night long and I can prove it, ask anybody at this table, truly anybody at all."
    child = spawn(tmp_path, "classic", "--seed", "3", "--human", "Ann", columns=60, term="xterm")
    child.expect(PROMPT)
    child.sendline(words)
    child.expect(PROMPT)
    child.sendline("")  # no claim
    child.expect(PROMPT)
    child.sendline("")  # nobody accused
    child.expect("Day 1 — Bob")
    child.expect(PROMPT)
    child.sendeof()  # Ctrl-D asks first; only a typed yes quits
    child.expect(r"Quit the game\? \[y/N\] ")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    screen = shown(child)
    said = screen[screen.index("Day 1 — Ann: ") :]
    said = said[: said.index("'", said.index("'") + 1) + 1]
    lines = said.split("\n")
    assert len(lines) > 1 and all(len(line) <= 60 for line in lines)  # wrapped to the terminal ...
    assert " ".join(line.strip() for line in lines) == f"Day 1 — Ann: '{words}'"  # ... between words, none cut


def test_ctrl_c_keeps_the_half_typed_words(tmp_path: Path) -> None:
    child = spawn(tmp_path, "classic", "--seed", "3", "--human", "Ann", term="xterm")
    child.expect(PROMPT)
    child.send("half typed")
    child.expect("half typed")  # on screen: read by the line editor (Ctrl-C flushes what is not)
    child.sendintr()
    child.expect(r"Quit the game\? \[y/N\] ")
    child.sendline("n")
    child.expect("Back to the game.")
    child.expect("say> half typed")  # the line comes back as it was
    child.sendline(" and finished")
    child.expect(PROMPT)
    child.sendline("")
    child.expect(PROMPT)
    child.sendline("")
    child.expect("Day 1 — Ann: 'half typed and finished'")
    child.expect(PROMPT)
    child.sendeof()  # Ctrl-D asks first; only a typed yes quits
    child.expect(r"Quit the game\? \[y/N\] ")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()


def test_a_time_limit_counts_down_on_screen(tmp_path: Path) -> None:
    child = spawn(tmp_path, "classic", "--seed", "3", "--human", "Ann", "--human-timeout", "3")
    child.expect(r"\[ 3s\] say> ")
    child.send("too sl")
    child.expect(r"\[ 2s\] say> too sl")  # redrawn each second, with what is typed
    child.expect(r"\[ 1s\] say> too sl")
    child.expect(r"— time is up; not sent: 'too sl'")
    child.expect("Time is up")
    # the next question (another turn to talk, or a vote) starts empty: the words were for the last one
    child.expect(r"\[ 3s\] [a-z]+> ", timeout=60)
    child.expect(r"\[ 2s\] [a-z]+> ([^\r\n\x1b]*)")
    assert "too sl" not in child.match.group(1)
    child.sendeof()  # Ctrl-D asks first; only a typed yes quits
    child.expect(r"Quit the game\? \[y/N\] ")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    transcript = read_transcript(next(tmp_path.glob("*.jsonl")))
    first = next(e for e in transcript.events if e["type"] in ("action", "forfeit") and e.get("actor") == "Ann")
    assert first["type"] == "forfeit" and first["data"]["why"] == "out of time"


def test_a_beat_on_the_wall_clock_counts_down_and_passes_the_slow(tmp_path: Path) -> None:
    """A bot slower than the beat never acts; the person's half-typed kill is not sent, is said not
    to be, and does not reappear in the next beat (an answer belongs to its question)."""
    config = tmp_path / "duel.toml"
    config.write_text("players = 2\n[options]\nhands = 1\nbeats = 2\n")
    out = tmp_path / "games"
    # A loaded machine may skip a redraw of the countdown, so only its first and last marks are
    # expected; the beats are long enough that the typing lands inside them anyway.
    child = spawn(out, "duel", "--seed", "4", "--human", "Ann", "--config", str(config), "--beat-seconds", "4", "--think", "20")
    child.expect(r"Hand 1, beat 1 of 2 · 4 s · you and Bob may act")
    child.expect(r"\[ 4s\] move> ")
    child.send("kill B")
    child.expect("kill B")  # on screen: read by the line editor
    child.expect(r"— time is up; not sent: 'kill B'")
    child.expect(r"Hand 1, beat 2 of 2 · 4 s · you and Bob may act")
    child.expect(r"\[ 4s\] move> ")
    child.sendline("kill Bob")
    child.expect(pexpect.EOF)
    child.close()
    screen = shown(child)
    assert "† Bob dies (killed by Ann)." in screen and "after hand 1" in screen
    transcript = read_transcript(next(out.glob("*.jsonl")))
    assert transcript.header["clock"] == {"beat_seconds": 4.0, "think": {"default": "20"}}
    passes = [e for e in transcript.events if e["type"] == "action" and e["data"]["action"]["kind"] == "pass"]
    assert passes and all(e["data"]["at"] == 4.0 for e in passes)  # whoever did not act passed at the beat's end
    kill = next(e for e in transcript.events if e["type"] == "action" and e["data"]["action"]["kind"] == "kill")
    assert kill["actor"] == "Ann" and 0 < kill["data"]["at"] < 4
    assert replay(transcript).ok


def test_a_line_typed_while_no_question_is_open_answers_nothing(tmp_path: Path) -> None:
    """Ann passes at once; Bob answers 2 s into each beat, so for 2 s Ann has no question. A '2'
    typed then (kill Bob in either beat's menu) is named and dropped when the next beat asks."""
    config = tmp_path / "duel.toml"
    config.write_text("players = 2\n[options]\nhands = 1\nbeats = 2\n")
    out = tmp_path / "games"
    child = spawn(out, "duel", "--seed", "4", "--human", "Ann", "--config", str(config), "--beat-seconds", "4", "--think", "2")
    child.expect(r"\[ 4s\] move> ")
    child.sendline("1")
    child.expect("sent: pass")
    child.send("2\n")  # no question is open: beat 1 is answered, beat 2 not begun
    child.expect(r"Hand 1, beat 2 of 2 · 4 s · you and Bob may act")
    child.expect(r"\(not sent: '2', typed before this question\)")
    child.expect(r"\[ 4s\] move> ")
    child.expect(pexpect.EOF)  # nothing more typed: beat 2 passes Ann by
    child.close()
    transcript = read_transcript(next(out.glob("*.jsonl")))
    mine = [e["data"]["action"]["kind"] for e in transcript.events if e["type"] == "action" and e.get("actor") == "Ann"]
    assert mine == ["pass", "pass"], mine
    assert replay(transcript).ok


def test_after_death_enter_watches_and_q_skips(tmp_path: Path) -> None:
    """Played until the person dies (a few seeds at most), answering with the first choice."""
    for seed in range(1, 20):
        child = spawn(tmp_path / str(seed), "classic", "--seed", str(seed), "--human", "Ann", "--players", "6")
        watched = 0
        while child.expect([PROMPT, pexpect.EOF]) == 0:
            prompt = child.match.group(1)
            if prompt == "watch":
                watched += 1
                child.sendline("" if watched == 1 else "q")
            else:
                child.sendline("" if prompt in ("say", "claim", "accuse", "floor") else "1")
        child.close()
        screen = shown(child)
        if watched > 1:  # died with at least two days or nights left: Enter once, then q
            break
    else:
        raise AssertionError("the person never died early")
    assert "You are out for the rest of the game.\nEnter to watch the rest, or q to skip to the result." in screen
    assert "† You die (" in screen and "† Ann dies" not in screen  # their own death, said to them
    watching, skipped = screen.split("watch> ")[1:3]
    assert re.search(r"^── (Day|Night) \d", watching, re.M) and "Enter for more, or q to skip to the result." in watching
    assert skipped.startswith("q\nSkipping to the result…\n") and "── " not in skipped.split("Result: ")[0]
    assert "Result: " in screen and child.exitstatus == 0


def test_a_repeated_seat_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["play", "classic", "--seat", "Bob=random", "--seat", "Bob=bot", "--transcripts", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and err == "arena: error: --seat Bob is given twice (Bob=random, Bob=bot): give each seat once\n"
    assert main(["play", "classic", "--human", "bob", "--seat", "Bob=random", "--transcripts", str(tmp_path)]) == 2
    assert "name the same seat" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.jsonl"))


def test_a_match_prints_a_score_table_after_every_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "duel", "--hands", "3", "--seed", "2", "--transcripts", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert [int(n) for n in re.findall(r"after hand (\d+)", out)] == [1, 2, 3]
    assert out.count("seat ┃ card") == 3 and "Result: " in out and "(after 3 hands)." in out


@pytest.mark.parametrize(("flag", "value"), [("--beat-seconds", "5"), ("--think", "2-3")])
def test_clock_flags_need_a_person_at_a_mckay_table(tmp_path: Path, capsys: pytest.CaptureFixture[str], flag, value) -> None:
    assert main(["play", "duel", flag, value, "--transcripts", str(tmp_path)]) == 2
    assert "needs a person at a duel, duel3 or trio table" in capsys.readouterr().err
    assert main(["play", "duel", "--human", "Ann", "--think", "Zed=2", "--transcripts", str(tmp_path)]) == 2
    assert "no seat 'Zed'" in capsys.readouterr().err


TERMINAL_GAMES = [  # variant, extra arguments: a whole game each, the person answering plainly
    ("classic", ["--players", "7"]),
    ("village", ["--players", "8"]),
    ("cove", ["--players", "8"]),
    ("duel", ["--hands", "2", "--beat-seconds", "0.6", "--think", "0.1-0.3"]),
    ("duel3", ["--hands", "1", "--beat-seconds", "0.6", "--think", "0.1-0.3"]),
    ("trio", ["--hands", "2", "--beat-seconds", "0.6", "--think", "0.1-0.3"]),
]


@pytest.mark.parametrize(("variant", "extra"), TERMINAL_GAMES, ids=[g[0] for g in TERMINAL_GAMES])
def test_no_internal_name_in_a_whole_game_in_a_terminal(tmp_path: Path, variant: str, extra: list[str]) -> None:
    child = spawn(tmp_path, variant, "--seed", "5", "--human", "Ann", *extra, columns=200, term="xterm")
    asked = 0
    while child.expect([PROMPT, pexpect.EOF], timeout=60) == 0:
        asked += 1
        prompt = child.match.group(1)
        child.sendline("" if prompt in ("say", "claim", "accuse", "floor", "watch", "move") else "1")
    child.close()
    screen = shown(child)
    assert child.exitstatus == 0 and asked and "Result: " in screen, screen[-1500:]
    assert not internal_names(screen.split("Result: ")[0]), internal_names(screen)[:5]
    assert replay(read_transcript(next(tmp_path.glob("*.jsonl")))).ok


COUNTDOWN_LINE = """
import asyncio, sys
from arena.players.human.keyboard import TerminalKeyboard
keyboard = TerminalKeyboard()
async def game():
    loop = asyncio.get_running_loop()
    keyboard.start(loop, lambda: None)
    keyboard.show_status("Hand 1, beat 4 of 18 · Bob and Cid may act", loop.time() + 2.5, "Hand 1, beat 4 of 18 · done")
    await asyncio.sleep(1.6)
    with keyboard.above_prompt():
        print("NEWS")
    line = await keyboard.read("move> ", [], deadline=loop.time() + 3)
    print("GOT", repr(line))
keyboard.play(lambda: asyncio.run(game()))
"""


def test_a_beat_without_a_question_counts_down_on_its_own_line(tmp_path: Path) -> None:
    """A dead person (or one waiting out another's soliloquy) still sees the beat run out."""
    script = tmp_path / "countdown.py"
    script.write_text(COUNTDOWN_LINE, encoding="utf-8")
    env = {**os.environ, "TERM": "dumb", "PYTHONPATH": str(ROOT)}
    child = pexpect.spawn(sys.executable, [str(script)], env=env, encoding="utf-8", timeout=20, dimensions=(24, 100))
    child.logfile_read = io.StringIO()
    child.expect(r"\[ 3s\] Hand 1, beat 4 of 18 · Bob and Cid may act")
    child.expect(r"\r\[ 2s\] Hand 1, beat 4 of 18")  # redrawn in place
    child.expect(r"\rHand 1, beat 4 of 18 · done\s*\r\nNEWS\r\n")  # news ends it on a line of its own
    child.expect(r"\[ 3s\] move> ")
    child.sendline("x")
    child.expect("GOT 'x'")
    child.expect(pexpect.EOF)


@pytest.mark.parametrize("variant", ["duel", "duel3"])
def test_every_hand_opens_with_its_menu_and_every_answer_is_confirmed_at_once(variant: str) -> None:
    """The menu is shown on each hand's first beat even when it equals the last one shown (it
    was not), each answer of a beat is confirmed at once, and the match length comes first."""
    players = {"duel": 2, "duel3": 3}[variant]
    for seed in range(3):
        _, screen, _ = play_as_person(variant, players, seed, {"hands": 3, "beats": 3}, WallClock(0.05, seed=seed))
        assert screen.index("The match: 3 hands × 3 beats × 0.05 s") < screen.index("Hand 1, beat 1 of 3")
        hands = re.split(r"\n(?=Hand \d, beat 1 of 3 · )", screen)[1:]
        assert len(hands) == 3
        for hand in hands:
            first_beat = re.split(r"\nHand \d, beat 2 of 3 · ", hand)[0]
            assert re.search(r"^\s+1 pass\s", first_beat, re.M), first_beat
        sent = re.findall(r"^sent: (.+) — resolves at the end of the beat$", screen, re.M)
        assert sent and all(re.fullmatch(r"pass|kill \w+|offer a handshake|declare cop.*|look at .*", s) for s in sent), sent


def test_a_village_mafia_member_is_told_the_partners_come_on_the_first_night() -> None:
    game, screen, _ = play_as_person("village", 8, 3)
    assert game.role_of["Ann"] == "mafia"
    lines = screen.splitlines()
    card = lines.index("[you] card: mafia (team mafia)")
    assert lines[card + 1] == "The mafia meet on the first night: that is when you learn your partners."


def test_the_menu_comes_back_whenever_it_has_scrolled_off_the_screen() -> None:
    """help in beat 1 scrolls the menu away: it is shown again right under help. Beat 2 has the
    same choices, still on screen: no menu. Before beat 3 a run of news pushes them off: shown."""
    game = duel({"beats": 4})
    out = Console(file=io.StringIO(), width=100, height=24, color_system=None, highlight=False)
    me = HumanPlayer("Ann", console=out, keyboard=Typed("help", "1", "1", "1"))
    screens = []
    for beat in range(3):
        if beat == 2:  # news between beats (in duel3 and trio: speeches, kills, a declaration)
            for n in range(30):
                me._print(Text(f"news {n}"))
        requests = game.pending()
        mine = next(r for r in requests if r.player == "Ann")
        start = len(screen_of(out))
        action = asyncio.run(me.decide(mine, game.view("Ann"), None))
        screens.append(screen_of(out)[start:])
        game.resolve([Decision(r, action if r is mine else Pass()) for r in requests])
    first, second, third = screens
    menu = re.compile(r"^\s+1 pass\s", re.M)
    after_help = first[first.index("Commands (type them") :]
    assert menu.search(after_help), after_help[-600:]  # the choices again, right under help
    assert not menu.search(second), second  # still on screen above
    assert menu.search(third), third  # scrolled away by the news


def test_a_reply_in_a_running_beat_gets_at_least_half_a_beat_and_says_what_is_left() -> None:
    """trio: the victim's soliloquy took 18 s of a 20 s beat; the killer's reply gets 10 s, and
    the killer's screen says the beat is continued, with the seconds left (not '20 s')."""
    game = VARIANTS["trio"](["Ann", "Bob", "Cid"], {"hands": 3, "beats": 6}, 0)
    bots = {n: BotPlayer(n, 0) for n in game.seats}
    while not any(r.group == "soliloquy" for r in game.pending()):
        game.resolve([Decision(r, bots[r.player].decide_now(r, game.view(r.player), None)) for r in game.pending()])
    soliloquy = game.pending()
    game.resolve([Decision(r, bots[r.player].decide_now(r, game.view(r.player), None)) for r in soliloquy])
    reply = game.pending()
    (killer,) = (r.player for r in reply)
    assert [r.group for r in reply] == ["soliloquy_reply"]

    clock = WallClock(20, seed=0)
    beat = clock.start(soliloquy, 100.0)
    assert beat.ends == 120.0
    late = clock.start(reply, 118.0)
    assert (late.label, late.started, late.ends) == (beat.label, 100.0, 128.0)  # half a beat from now, not 2 s
    quick = WallClock(20, seed=0)
    quick.start(soliloquy, 100.0)
    assert quick.start(reply, 103.0).ends == 120.0  # a short soliloquy: the reply has the rest of the beat

    out = console()
    me = HumanPlayer(killer, console=out, keyboard=Typed())

    async def told() -> None:
        now = asyncio.get_running_loop().time()
        talk = WallClock(20, seed=0)
        talk.start(soliloquy, now - 18)
        me.beat_started(talk.start(reply, now))

    asyncio.run(told())
    assert re.search(rf"{re.escape(beat.label)} · continued: 10 s left · you may act", screen_of(out)), screen_of(out)


def test_arena_show_writes_match_scores_signed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As the hand lines and the end table of `arena play` do: +5, −3, 0."""
    assert main(["play", "duel", "--hands", "3", "--seed", "2", "--quiet", "--transcripts", str(tmp_path)]) == 0
    path = next(tmp_path.glob("*.jsonl"))
    scores = [e for e in read_transcript(path).events if e["type"] == "hand_over"][-1]["data"]["scores"]
    assert any(v != 0 for v in scores.values()), scores
    capsys.readouterr()
    assert main(["show", str(path)]) == 0
    table = capsys.readouterr().out.split("┃ seat ┃")[-1]
    for name, score in scores.items():
        shown = f"+{score}" if score > 0 else str(score).replace("-", "−")
        assert re.search(rf"│ {name}\s+│ \S+\s+│ {re.escape(shown)}\s+│", table), table
