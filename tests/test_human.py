"""The human seat: menus and re-asks in process, whole games in a real terminal (a pty), quitting,
and a hidden-information audit of everything the person's screen showed."""

from __future__ import annotations

import asyncio
import io
import json
import os
import random
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pexpect
import pytest
from rich.console import Console

from arena.cli import main
from arena.cli.console import _private, print_next_steps
from arena.engine import ActionBase, DecisionRequest, Game, View
from arena.engine.actions import Speak
from arena.players.base import SyncPlayer
from arena.players.bot import BotPlayer
from arena.players.human import HumanPlayer, seat_human
from arena.players.human.keyboard import EOF, INTERRUPT, Key
from arena.players.human.menu import match, move_entries
from arena.players.human.screen import (
    Knowledge,
    help_text,
    house_rules,
    lines_of,
    match_length,
    night_note,
    night_report,
    status_panel,
)
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import StopGame, run
from arena.run.replay import replay
from arena.run.transcript import read_transcript
from arena.variants import VARIANTS
from tests.helpers import fixed_order

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")
PROMPT = r"\n([a-z][a-z-]*)> "
TIMED_PROMPT = r"\n(?:\[ ?\d+s\] )?([a-z][a-z-]*)> "  # a question on the clock shows the seconds left


# ---- in-process helpers ---------------------------------------------------------------------------
class Keys:
    """A keyboard that answers each prompt from a function of (prompt, count): a person, scripted."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.waiting = False
        self.prompts: list[str] = []

    def start(self, loop: asyncio.AbstractEventLoop, on_interrupt: Any) -> None:
        self.on_interrupt = on_interrupt

    async def read(self, prompt: str, words: Sequence[str] = (), **_: Any) -> str | Key:
        await asyncio.sleep(0)  # a person takes a moment: the loop runs the other seats
        self.prompts.append(prompt)
        if len(self.prompts) > 50_000:
            raise RuntimeError("the human never got through")
        return self.answer(prompt, words)

    def interrupt(self) -> None:
        pass

    def close(self) -> None:
        pass


def typed(*lines: str) -> Keys:
    queue = list(lines)
    return Keys(lambda prompt, words: queue.pop(0))


def recording_console() -> Console:
    return Console(file=io.StringIO(), width=1000, color_system=None, highlight=False)


def screen_of(console: Console) -> str:
    return console.file.getvalue()  # type: ignore[attr-defined]


class Recording(HumanPlayer):
    """The human seat, remembering the questions it was asked."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.questions: list[str] = []

    async def decide(self, request: DecisionRequest, view: View, feedback: str | None) -> ActionBase:
        self.questions.append(request.question)
        return await super().decide(request, view, feedback)


class Marked(SyncPlayer):
    """A bot whose every answer carries a traceable thought, and whose team talk a traceable word.

    It also keeps the questions it was asked, so the audit can look for them on the human's screen.
    """

    def __init__(self, name: str, seed: int, questions: list[str]) -> None:
        super().__init__(name)
        self.bot = BotPlayer(name, seed)
        self.questions = questions
        self.n = 0

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Any:
        self.questions.append(request.question)
        action = self.bot.decide_now(request, view, feedback)
        if isinstance(action, ActionBase):
            self.n += 1
            update: dict[str, Any] = {"thought": f"THOUGHT-{self.name}-{self.n}"}
            if request.talk not in (None, "all"):
                update["speech"] = f"TEAMTALK-{self.name}-{self.n}"
            action = action.model_copy(update=update)
        return action


def autopilot(seed: int) -> Keys:
    """Plays a seat like a careless person: numbers, names, Enter, commands, slips of the hand."""
    rng = random.Random(seed)
    said = 0

    def answer(prompt: str, words: Sequence[str]) -> str:
        nonlocal said
        if prompt.startswith("Quit"):
            return "n"
        if prompt == "say> ":
            said += 1
            return rng.choice(["", f"HUMAN-SAYS-{said}", "I trust nobody."])
        if prompt == "claim> ":  # roles are lower case, seats capitalised
            roles = [w for w in words if w.islower() and w not in ("mafia", "not mafia", "none")] or ["mafia"]
            seats = [w for w in words if w[:1].isupper()]
            return rng.choice(["", "", f"{rng.choice(roles)}: {rng.choice(seats)} mafia", "cop: Zed", "none"])
        roll = rng.random()
        if roll < 0.1:
            return rng.choice(["zzz", "Nobody Here", "99", "0", "help", "log", "table", "say hi"])
        if roll < 0.3:
            names = [w for w in words if w not in ("quit",)]
            return rng.choice(names) if names else "1"
        if roll < 0.4:
            return ""
        if roll < 0.45:
            return f"1: HUMAN-WORDS-{said}"
        return str(rng.randint(1, 6))

    return Keys(answer)


def play_human(variant: str, seed: int, human: str, players: int, options: dict[str, Any] | None = None):
    cls = VARIANTS[variant]
    seats = list(DEFAULT_NAMES[:players])
    game = cls(seats, options, seed)
    console = recording_console()
    me = Recording(human, console=console, keyboard=autopilot(seed))
    others: dict[str, list[str]] = defaultdict(list)
    table: dict[str, Any] = {n: Marked(n, seed, others[n]) for n in seats if n != human}
    table[human] = me
    asyncio.run(run(game, table, [me]))
    return game, screen_of(console), me.questions, [q for qs in others.values() for q in qs]


# ---- the hidden-information audit of the screen --------------------------------------------------------
def screen_leaks(game: Game, human: str, screen: str, mine: Sequence[str], theirs: Sequence[str]) -> list[str]:
    """Everything on ``screen`` that ``human`` may not know, judged from the game's true secrets."""
    problems = []
    view = game.view(human)
    seen = {e.seq for e in view.events}
    allowed = "\n".join(text for text, _ in lines_of(view.events, human, full=True))
    problems += [f"another player's thought: {m}" for m in sorted(set(re.findall(r"THOUGHT-\w+-\d+", screen)))]
    heard = set(re.findall(r"TEAMTALK-\w+-\d+", json.dumps([e.to_dict() for e in view.events], default=str)))
    problems += [f"team talk {human} did not hear: {m}" for m in set(re.findall(r"TEAMTALK-\w+-\d+", screen)) - heard]
    for event in game.log:
        if event.seq in seen:
            continue
        line = _private(event)
        content = line.split("] ", 1)[-1] if line else ""
        if len(content) >= 10 and content in screen and content not in allowed:
            problems.append(f"a private event of {event.audience}: {content}")
    own = set(mine)
    problems += [f"another player's question: {q[:80]}" for q in set(theirs) if q not in own and q in screen]
    if not isinstance(getattr(game, "scores", None), dict):  # fixed cards: none shown unless revealed or a mate
        revealed = {e.data["player"] for e in game.log if e.type == "death" and e.to is None and "role" in e.data}
        mafia = game.team(human) == "mafia"
        for name, role in game.role_of.items():
            if name == human or name in revealed or (mafia and game.team(name) == "mafia"):
                continue
            problems += [f"{name}'s card: {role}" for shown in (f"{name} ({role}", f"{name} was {role}") if shown in screen]
    return problems


AUDIT_GAMES = [  # variant, players, options: 12 seeded games each, the person in every role in turn
    ("classic", 7, None),
    ("village", 8, None),
    ("cove", 8, None),
    ("duel", 2, {"hands": 3, "beats": 4}),
    ("duel3", 3, {"hands": 3, "beats": 4}),
    ("trio", 3, {"hands": 3, "beats": 4}),
]


def seat_for(variant: str, players: int, options: dict[str, Any] | None, seed: int) -> str:
    """The seat holding the seed's turn of the variant's roles (McKay's: every seat in turn)."""
    cls = VARIANTS[variant]
    seats = list(DEFAULT_NAMES[:players])
    deal = cls(seats, options, seed).role_of
    dealt = [role for role in cls.roles if role in deal.values()]
    if isinstance(getattr(cls(seats, options, seed), "scores", None), dict):
        return seats[seed % players]
    role = dealt[seed % len(dealt)]
    return next(name for name in seats if deal[name] == role)


@pytest.mark.parametrize(("variant", "players", "options"), AUDIT_GAMES, ids=[g[0] for g in AUDIT_GAMES])
def test_the_human_screen_shows_nothing_the_seat_may_not_know(variant, players, options) -> None:
    roles, slips = set(), 0
    for seed in range(12):
        human = seat_for(variant, players, options, seed)
        game, screen, mine, theirs = play_human(variant, seed, human, players, options)
        assert game.finished, f"{variant} seed {seed}"
        roles.add(game.role_of[human])
        problems = screen_leaks(game, human, screen, mine, theirs)
        assert not problems, f"{variant} seed {seed} as {human}: {problems[:3]}"
        assert "[you] card: " in screen  # the capture works
        slips += screen.count("✗ ")
        spoken = [e for e in game.log if e.type == "speech" and e.to is None and e.actor != human and e.data.get("text")]
        assert all(str(e.data["text"]) in screen for e in spoken)  # public talk is all there
        heard = [e for e in game.view(human).events if e.type == "speech" and e.to is not None]
        assert all(str(e.data["text"]) in screen for e in heard if e.data.get("text"))  # and team talk heard
    assert slips > 0  # the person's slips were re-asked, not sent
    assert roles == set(VARIANTS[variant].roles) or (variant == "cove" and len(roles) >= 5), roles


def test_the_screen_audit_catches_a_leak() -> None:
    game, screen, mine, theirs = play_human("classic", 1, "Ann", 7)
    other = next(n for n in game.seats if n != "Ann" and game.team(n) != game.team("Ann"))
    hidden = next(e for e in game.log if e.to is not None and "Ann" not in e.to and e.type == "action")
    leaked = screen + (f"\nTHOUGHT-{other}-1\n{_private(hidden)}\n{other} ({game.role_of[other]})\n{theirs[-1]}\n")
    problems = screen_leaks(game, "Ann", leaked, mine, theirs)
    assert any("thought" in p for p in problems)
    assert any("private event" in p for p in problems)
    assert any("card" in p for p in problems)
    assert any("question" in p for p in problems)


# ---- menus and re-asks, in process ------------------------------------------------------------------------
def first_request(variant: str, seed: int, seat: str, phase: str, players: int) -> tuple[Game, DecisionRequest]:
    """Play bots until ``seat`` is asked in ``phase``; that request."""
    cls = VARIANTS[variant]
    fixed = {"speaking_order": "rotate"} if "speaking_order" in cls.Options.model_fields else None  # as scripted
    game = cls(list(DEFAULT_NAMES[:players]), fixed, seed)
    bots = {n: BotPlayer(n, seed) for n in game.seats}
    while not game.finished:
        pending = game.pending()
        for request in pending:
            if request.player == seat and request.phase == phase:
                return game, request
        from arena.engine import Decision

        game.resolve([Decision(r, bots[r.player].decide_now(r, game.view(r.player), None)) for r in pending])
    raise AssertionError(f"{seat} was never asked in {phase}")


def test_menus_take_numbers_names_any_case_and_prefixes_and_say_why_not() -> None:
    game, request = first_request("classic", 3, "Ann", "night", 9)  # Ann is mafia at seed 3
    entries = move_entries(request)
    assert entries[-1].label == "hold fire" and entries[0].label.startswith("kill ")
    target = entries[0].fields["target"]
    assert match(entries, "1", request) is entries[0]
    assert match(entries, target.upper(), request) is entries[0]
    assert match(entries, f"kill {target.lower()}", request) is entries[0]
    assert match(entries, target[:2].lower(), request) is entries[0]  # a unique prefix
    assert match(entries, "hold", request).label == "hold fire"
    assert match(entries, "ann", request) == "nobody may shoot himself"  # the engine's own reason
    assert match(entries, "42", request) == f"there is no choice 42: pick 1-{len(entries)}"
    assert "is not one of the choices" in match(entries, "zebra", request)
    slip = target[0] + target[2] + target[1]  # Bob -> Bbo
    assert match(entries, slip, request) == (
        f"'{slip}' is not one of the choices: did you mean {target}? (or type a number, 1-{len(entries)})"
    )
    dead = next(n for n in game.seats if not game.is_alive(n))
    assert match(entries, dead, request) == f"{dead} is dead"


def test_a_wrong_target_is_asked_again_and_the_words_are_kept() -> None:
    game, request = first_request("classic", 3, "Ann", "discussion", 9)
    console = recording_console()
    me = HumanPlayer("Ann", console=console, keyboard=typed("My honest words.", "", "Zed", "ann", "bob"))
    action = asyncio.run(me.decide(request, game.view("Ann"), None))
    assert action == Speak(speech="My honest words.", accuse="Bob")
    screen = screen_of(console)
    assert "✗ 'Zed' is not one of the choices" in screen and "✗ you cannot choose yourself here" in screen
    assert "[you] card: mafia (team mafia)" in screen and "Your card: mafia (team mafia)" in screen


def test_a_rejected_answer_shows_the_engine_reason_and_enter_keeps_the_words() -> None:
    game, request = first_request("classic", 3, "Ann", "discussion", 9)
    console = recording_console()
    me = HumanPlayer("Ann", console=console, keyboard=typed("First words.", "", "", "", "", "2"))
    view = game.view("Ann")
    first = asyncio.run(me.decide(request, view, None))
    again = asyncio.run(me.decide(request, view, "a reason the engine gave"))
    assert first == Speak(speech="First words.") and again.speech == "First words." and again.accuse is not None
    screen = screen_of(console)
    assert "✗ Not accepted: a reason the engine gave" in screen and "Enter keeps: 'First words.'" in screen


def test_beats_take_words_after_a_colon_and_enter_passes() -> None:
    game, request = first_request("duel", 4, "Ann", "beat", 2)
    console = recording_console()
    me = HumanPlayer("Ann", console=console, keyboard=typed("kil bobby: sorry", "kill bob"))
    view = game.view("Ann")
    kill = asyncio.run(me.decide(request, view, None))
    assert (kill.kind, kill.target, kill.speech) == ("kill", "Bob", "sorry")  # the words outlived the slip
    assert "(your words are kept: 'sorry')" in screen_of(console)
    me2 = HumanPlayer("Ann", console=recording_console(), keyboard=typed("say hi there", ""))
    passed = asyncio.run(me2.decide(request, view, None))
    assert (passed.kind, passed.speech) == ("pass", "hi there")


def test_silent_decisions_refuse_words() -> None:
    game, request = first_request("classic", 3, "Ann", "night", 9)
    console = recording_console()
    me = HumanPlayer("Ann", console=console, keyboard=typed("1: psst", "say psst", "1"))
    action = asyncio.run(me.decide(request, game.view("Ann"), None))
    assert action.speech is None and action.kind == "kill"
    assert screen_of(console).count("✗ this decision is silent") == 2


def test_out_of_time_forfeits_to_the_default_with_a_notice() -> None:
    class Never(Keys):
        async def read(self, prompt: str, words: Sequence[str] = (), **_: Any) -> str | Key:
            self.waiting = True
            await asyncio.Event().wait()
            return ""

    game = VARIANTS["duel"](["Ann", "Bob"], {"hands": 1, "beats": 2}, 4)
    console = recording_console()
    me = HumanPlayer("Ann", console=console, timeout=0.01, keyboard=Never(None))
    asyncio.run(run(game, {"Ann": me, "Bob": BotPlayer("Bob", 4)}, [me]))
    assert game.finished
    forfeits = [e for e in game.log if e.type == "forfeit" and e.actor == "Ann"]
    assert forfeits and all(e.data["why"] == "out of time" for e in forfeits)
    screen = screen_of(console)
    assert "Time is up (0.01 s): the default answer is played for you." in screen
    assert "[you] forfeits (out of time): pass" in screen


def test_quit_between_turns_stops_the_game_at_the_next_step() -> None:
    """Ctrl-C while the bots decide asks at once; a yes stops the run with StopGame."""
    seats = list(DEFAULT_NAMES[:7])
    game = VARIANTS["classic"](seats, {"speaking_order": "rotate"}, 5)  # Ann opens day 1
    keys = Keys(lambda prompt, words: "y" if prompt.startswith("Quit") else "")
    me = HumanPlayer("Gus", console=recording_console(), keyboard=keys)

    class CtrlC(BotPlayer):
        def decide_now(self, request, view, feedback):  # type: ignore[no-untyped-def]
            if request.day == 1 and request.phase == "discussion" and not keys.prompts:
                me._on_interrupt()  # the person presses Ctrl-C while Ann speaks
            return super().decide_now(request, view, feedback)

    players: dict[str, Any] = {n: BotPlayer(n, 5) for n in seats}
    players["Ann"], players["Gus"] = CtrlC("Ann", 5), me
    with pytest.raises(StopGame, match="Gus quit the game"):
        asyncio.run(run(game, players, [me]))
    assert keys.prompts[0] == "Quit the game? [y/N] " and not game.finished


def test_end_of_input_is_not_a_yes_and_input_ended_for_good_stops_the_game() -> None:
    """A second end of input answers the question no; the third in a row (a closed pipe) stops the
    game as the input's end, not as the person's quitting."""
    game, request = first_request("classic", 3, "Ann", "discussion", 9)
    console = recording_console()
    keys = Keys(lambda prompt, words: EOF)
    me = HumanPlayer("Ann", console=console, keyboard=keys)
    with pytest.raises(StopGame, match="Ann's input ended"):
        asyncio.run(me.decide(request, game.view("Ann"), None))
    screen = screen_of(console)
    assert keys.prompts[1] == "Quit the game? [y/N] " and "yes" not in screen
    assert "no (end of input is not an answer)" in screen and "Back to the game." in screen
    assert "The input has ended: the game stops here" in screen


def test_a_second_ctrl_c_or_ctrl_d_at_the_question_is_a_no() -> None:
    game, request = first_request("classic", 3, "Ann", "discussion", 9)
    answers = iter([INTERRUPT, INTERRUPT, EOF, EOF, "Hello.", "", ""])
    keys = Keys(lambda prompt, words: next(answers))
    me = HumanPlayer("Ann", console=recording_console(), keyboard=keys)
    action = asyncio.run(me.decide(request, game.view("Ann"), None))
    assert keys.prompts.count("Quit the game? [y/N] ") == 2 and action.speech == "Hello."


def test_ctrl_d_asks_and_no_goes_back_to_the_game() -> None:
    game, request = first_request("classic", 3, "Ann", "discussion", 9)
    answers = iter([EOF, "n", "Hello.", "", ""])
    keys = Keys(lambda prompt, words: next(answers))
    me = HumanPlayer("Ann", console=recording_console(), keyboard=keys)
    action = asyncio.run(me.decide(request, game.view("Ann"), None))
    assert keys.prompts[1] == "Quit the game? [y/N] " and action.speech == "Hello."


def test_help_and_log_answer_and_ask_again() -> None:
    game, request = first_request("cove", 2, "Ann", "speeches", 8)
    console = recording_console()
    me = HumanPlayer("Ann", console=console, keyboard=typed("help", "log", "Hello.", "", "2"))
    me.variant = "cove"
    action = asyncio.run(me.decide(request, game.view("Ann"), None))
    assert action.speech == "Hello." and action.nominate is not None
    screen = screen_of(console)
    assert "Rules of cove" in screen and "Pub Mafia with special roles" in screen and "Commands" in screen
    assert "everything you have seen" in screen


def test_night_report_lists_every_secret_move_after_the_game() -> None:
    game, *_ = play_human("classic", 3, "Ann", 9)
    report = dict(night_report(game))
    shots = [e for e in game.log if e.type in ("action", "forfeit") and e.data["action"].kind == "kill"]
    assert sum(len(items) for items in report.values()) >= len(shots) > 0
    inspector = next(n for n, r in game.role_of.items() if r == "inspector")
    assert any(item.startswith(f"{inspector} learned: ") for items in report.values() for item in items)


def test_seat_human_picks_one_seat_in_any_case() -> None:
    specs = dict.fromkeys(["Ann", "Bob", "Cid"], "bot")
    assert seat_human(specs, "bob") == ({"Ann": "bot", "Bob": "human", "Cid": "bot"}, "Bob")
    assert seat_human(specs, None) == (specs, None)
    with pytest.raises(ValueError, match="no seat 'Zed'"):
        seat_human(specs, "Zed")
    with pytest.raises(ValueError, match="one human seat per terminal"):
        seat_human({**specs, "Cid": "human"}, "Ann")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--human", "Zed"], "this table has no seat 'Zed'"),
        (["--human", "Ann", "--seat", "Bob=human"], "one human seat per terminal"),
        (["--human-timeout", "5"], "--human-timeout needs a human seat"),
        (["--human", "Ann", "--human-timeout", "0"], "time limit must be positive"),
    ],
)
def test_bad_human_options_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv, message) -> None:
    assert main(["play", "classic", "--seed", "1", "--transcripts", str(tmp_path), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


# ---- a real terminal ------------------------------------------------------------------------------------
def spawn(tmp_path: Path, *args: str) -> pexpect.spawn:
    env = {**os.environ, "TERM": "dumb", "COLUMNS": "160", "PYTHONUNBUFFERED": "1"}  # dumb: no colours to strip
    child = pexpect.spawn(
        sys.executable, ["-m", "arena", "play", *fixed_order(tmp_path, args), "--transcripts", str(tmp_path)],
        cwd=str(ROOT), env=env, encoding="utf-8", timeout=30, dimensions=(60, 160),
    )  # fmt: skip
    child.logfile_read = io.StringIO()
    return child


def shown(child: pexpect.spawn) -> str:
    return ANSI.sub("", child.logfile_read.getvalue())


def finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def transcript_of(tmp_path: Path):
    (path,) = tmp_path.glob("*.jsonl")
    return read_transcript(path)


def test_a_whole_classic_game_in_a_terminal(tmp_path: Path) -> None:
    child = spawn(tmp_path, "classic", "--seed", "3", "--human", "ann")
    slips = {"accuse": ["Zed", "ann", "c\t"], "verdict": ["maybe"], "kill": ["Ann"], "say": ["help"]}  # c, Tab: Cid
    good = {"say": "I am just a citizen, trust me.", "claim": "", "accuse": "2", "verdict": "yes", "kill": "1", "check": "1"}
    good["floor"] = ""
    asked = []
    while child.expect([PROMPT, pexpect.EOF]) == 0:
        prompt = child.match.group(1)
        asked.append(prompt)
        child.sendline(slips[prompt].pop(0) if slips.get(prompt) else good.get(prompt, "1"))
    child.close()
    screen = shown(child)
    playing, _, after = screen.partition("Result: ")
    assert child.exitstatus == 0, screen[-2000:]
    assert "Classic Mafia (referee's rules, Kuba 1997): 9 players, seed 3" in playing  # a chosen seed is no secret
    assert "[you] card: mafia (team mafia)" in playing and "[mafia only] members: Ann, Dee" in playing
    assert "✗ 'Zed' is not one of the choices" in playing and "✗ you cannot choose yourself here" in playing
    assert "Day 1 — Ann: 'I am just a citizen, trust me.' (accuses Cid)" in playing  # words kept over two slips
    assert "accuse> c\bCid" in playing  # Tab completed the name
    assert "✗ 'maybe' is not one of the choices: type a number (1-2) or a name" in playing
    assert "Rules of classic" in playing and "Classic Mafia by the referee's rules" in playing
    if "kill" in asked:
        assert "✗ nobody may shoot himself" in playing and "[you] kill → " in playing
    assert not re.search(r"\[(Bob|Cid|Dee|Eve|Fay|Gus|Hal|Ivy)\]|thinks:|learned:", playing)
    assert re.search(r"Dee\W+bot\W+mafia", after) and re.search(r"Hal\W+bot\W+inspector", after)
    assert "What everyone did at night" in after and re.search(r"Hal learned: \w+ is", after)
    assert "transcript: " in after and "classic, seed 3" in after
    transcript = transcript_of(tmp_path)
    assert transcript.complete and transcript.header["players"]["Ann"] == "human"
    assert replay(transcript).ok


def test_a_whole_duel_match_in_a_terminal(tmp_path: Path) -> None:
    """On the wall clock: 3-second beats, the bot answering 2 s into each, the person at once."""
    config = tmp_path / "duel.toml"
    config.write_text("players = 2\n[options]\nhands = 2\nbeats = 3\n")
    out = tmp_path / "games"
    child = spawn(out, "duel", "--seed", "4", "--human", "Ann", "--config", str(config), "--beat-seconds", "3", "--think", "2")
    first = ["zzz", "say I am the cop", "declare 9", "declare 1"]
    while child.expect([TIMED_PROMPT, pexpect.EOF]) == 0:
        child.sendline(first.pop(0) if first else "")
    child.close()
    screen = shown(child)
    assert child.exitstatus == 0, screen[-2000:]
    playing, _, after = screen.partition("Result: ")
    assert "[you] card: mafia (team mafia)" in playing and "── Hand 1 of 2 ── 3 beats" in playing
    assert "Hand 1 · beat · 3 of 3 beats left" in playing  # the clock
    assert "Hand 1, beat 1 of 3 · 3 s · you and Bob may act" in playing  # the wall clock
    assert "✗ 'zzz' is not one of the choices: type a number (1-6) or a name" in playing
    assert "✗ 'declare 9' is not one of the choices" in playing
    assert "Hand 1 — Ann: 'I am the cop'" in playing and "Ann declares cop and looks at the first face-down card." in playing
    assert re.search(r"\[you\] the first face-down card is: \w+", playing) and "Hand 2 over" in playing
    assert "[Bob]" not in playing and "thinks:" not in playing
    assert re.search(r"Ann\W+human\W+-?\d+", after) and "Looks at the face-down cards" in after
    assert re.search(r"Hand 1: Ann looked at the first face-down card: \w+", after)
    transcript = transcript_of(out)
    assert transcript.complete and replay(transcript).ok


def test_ctrl_c_asks_once_then_quits_and_the_transcript_is_marked_aborted(tmp_path: Path) -> None:
    child = spawn(tmp_path, "classic", "--seed", "3", "--human", "Ann")
    child.expect(PROMPT)
    child.send("half typed")
    child.sendintr()
    child.expect(r"Quit the game\? \[y/N\] ")
    child.sendline("n")
    child.expect("Back to the game.")
    child.expect(PROMPT)
    child.sendintr()
    child.expect(r"Quit the game\? \[y/N\] ")
    child.sendline("y")
    assert finish(child) == 1
    screen = shown(child)
    assert "The game was stopped before its end" in screen and "Traceback" not in screen
    after = screen.partition("The game was stopped before its end")[2]
    # it can be resumed: Ann's card and her partner's, no other (seed 3: Ann and Dee are the mafia)
    assert re.search(r"Ann\W+human\W+mafia", after) and re.search(r"Dee\W+bot\W+mafia \(your team\)", after)
    assert all(re.search(rf"{name}\W+bot\W+\?", after) for name in ("Bob", "Cid", "Eve", "Fay", "Gus", "Hal", "Ivy"))
    assert "What everyone did at night" not in after and "arena resume" in after
    transcript = transcript_of(tmp_path)
    assert transcript.aborted == "Ann quit the game" and not transcript.complete
    assert transcript.summary is not None and transcript.summary["finished"] is False
    assert replay(transcript).ok


def test_end_of_input_quits_and_reveal_is_refused_for_a_human_game(tmp_path: Path) -> None:
    child = spawn(tmp_path, "classic", "--human", "Ann", "--reveal")  # Ann speaks first whatever the seed
    child.expect(PROMPT)
    child.sendeof()  # Ctrl-D asks; a second one is a no, not a yes
    child.expect(r"Quit the game\? \[y/N\] ")
    child.sendeof()
    child.expect("Back to the game.")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(r"Quit the game\? \[y/N\] ")
    child.sendline("yes")
    assert finish(child) == 1
    screen = shown(child)
    playing, _, after = screen.partition("The game was stopped before its end")
    assert "9 players; you are Ann (the seed is shown at the end)" in playing and "seed" not in playing.split("end)", 1)[1]
    assert "seed" not in after  # a stopped game can be resumed: the seed (it fixes the deal) stays hidden
    assert "--reveal is ignored: Ann is played by a person, who sees only that seat." in screen
    assert "no (end of input is not an answer)" in screen and "yes (end of input)" not in screen
    assert not re.search(r"\[(Bob|Cid|Dee|Hal)\]", screen)
    assert transcript_of(tmp_path).aborted == "Ann quit the game"


# ---- issue 25.5: what a person is told -----------------------------------------------------------------
PYTHON_VALUES = re.compile(r"\bNone\b|\bTrue\b|\bFalse\b|\{'|\['|\{\"|\w+_\w+| = ")


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_help_states_the_rules_and_house_rules_in_sentences(variant: str) -> None:
    cls = VARIANTS[variant]
    for options in (cls.Options(), cls.Options(**({"mafia_by_players": {"7": 2, "8": 3}} if variant == "cove" else {}))):
        console = recording_console()
        console.print(help_text(variant, options.model_dump(mode="json")))
        screen = screen_of(console)
        rules = screen[: screen.index("Commands (type them")]
        assert "No summary found" not in rules and "House rules\n" in rules, rules[-400:]
        house = rules[rules.index("House rules\n") :]
        assert not PYTHON_VALUES.search(house), PYTHON_VALUES.search(house)
        assert all(line.rstrip().endswith(".") for line in house.splitlines()[1:] if line.startswith("  ")), house


def test_the_table_panel_shows_the_public_mafia_count() -> None:
    _, request = first_request("classic", 3, "Ann", "discussion", 9)
    console = recording_console()
    know = Knowledge("Ann")
    console.print(status_panel(request, know))
    assert "Mafia alive: 2 (2 dealt, none shown dead)." in screen_of(console)


def test_the_panel_names_living_partners_and_says_who_is_dead() -> None:
    """Not '· with Eve' after Eve died."""
    game, request = first_request("classic", 3, "Ann", "night", 9)
    dead = next(n for n in game.seats if not game.is_alive(n))
    living = next(n for n in request.alive if n != "Ann")
    for mates, said in [
        ((living,), f"with {living}"),
        ((living, dead), f"with {living} ({dead} is dead)"),
        ((dead,), f"your partner {dead} is dead"),
    ]:
        console = recording_console()
        console.print(status_panel(request, Knowledge("Ann", role="mafia", team="mafia", mates=mates)))
        assert f"Your card: mafia (team mafia) · {said}" in screen_of(console), screen_of(console)


def test_a_night_without_a_kill_and_two_deaths_in_cove_are_explained() -> None:
    assert night_note("classic", {}, {"killed": []}) == (
        "Nobody died: a kill needs more than half of the living mafia on the same player: their shots did not agree."
    )
    assert "or the mafia never agreed" in night_note("village", {"mafia_disagreement": "no_kill"}, {"killed": []})
    assert "dies with her" in night_note("cove", {}, {"killed": ["Bob", "Fay"]})
    assert night_note("classic", {}, {"killed": ["Bob"]}) is None


def test_the_end_screen_names_the_commands_that_read_the_game_again(tmp_path: Path) -> None:
    console = recording_console()
    print_next_steps(console, tmp_path / "g.jsonl", "Ann")
    screen = screen_of(console)
    for command in (f"arena show {tmp_path / 'g.jsonl'}", f"arena report {tmp_path / 'g.jsonl'} --as Ann"):
        assert command in screen
    assert f"arena show {tmp_path / 'g.jsonl'} --as Ann" in screen


def test_the_read_again_block_wraps_between_words_on_a_narrow_screen() -> None:
    path = Path("/home/someone/games/20261206T163850Z-classic-1234567.jsonl")
    console = Console(file=io.StringIO(), width=60, color_system=None, highlight=False)
    print_next_steps(console, path, "Ann")
    lines = screen_of(console).splitlines()
    commands = [f"arena show {path}", f"arena show {path} --as Ann", f"arena report {path} --as Ann", f"arena report {path}"]
    assert [line.strip() for line in lines if line.strip().startswith("arena ")] == commands  # each whole, to copy
    words = [line for line in lines[1:] if not line.strip().startswith("arena ")]
    assert words and all(len(line) <= 60 for line in words)  # the explanations wrap at the width ...
    text = " ".join(" ".join(words).split())
    assert "a page of what Ann saw, safe to send to that player" in text  # ... between words, none cut
    assert "the whole story, every card and night action shown" in text


def test_a_match_on_the_wall_clock_says_its_length_up_front() -> None:
    assert match_length("duel", {"hands": 10, "beats": 12}, 10) == (
        "The match: 10 hands × 12 beats × 10 s ≈ 20 min at most (a hand ends sooner at a kill or at a handshake)."
    )
    assert "10 hands × up to 2 rounds × 12 beats" in match_length("trio", {"hands": 10, "beats": 12}, 10)


def test_a_seats_page_states_the_house_rules_in_sentences_not_config_words(tmp_path: Path) -> None:
    """Ann's page showed 'mafia_count = null · speaking_order = "seeded"': a person reads the
    sentences the terminal's help shows; the review page keeps the options as written too."""
    from arena.report.html import render_game

    assert main(["play", "classic", "--seed", "3", "--quiet", "--transcripts", str(tmp_path)]) == 0
    transcript = read_transcript(next(tmp_path.glob("*.jsonl")))
    page = render_game(transcript, viewer="Ann")
    rules = page[page.index('<details class="options">') :]
    rules = rules[: rules.index("</details>")]
    assert "<summary>house rules</summary><ul><li>" in rules and not PYTHON_VALUES.search(rules), rules
    options = transcript.header["options"]
    assert rules.count("<li>") == len(house_rules("classic", options))
    review = render_game(transcript)
    assert "<code>speaking_order = &#34;seeded&#34;</code>" in review or "<code>speaking_order = " in review
