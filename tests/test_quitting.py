"""A person's game stopped before its end shows that person nothing new, and a look at the whole of it
is recorded: ``arena resume`` then refuses to seat the person again (issue 30, item 3)."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena.cli import main
from arena.cli.console import print_next_steps, print_stopped
from arena.engine import DecisionRequest, Game, View
from arena.players.base import StopGame, SyncPlayer
from arena.players.bot import BotPlayer
from arena.players.human import HumanPlayer
from arena.players.human.keyboard import INTERRUPT
from arena.run.orchestrator import run_sync
from arena.run.transcript import TranscriptWriter, read_transcript
from arena.variants import VARIANTS

SEATS = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus")


class QuitsAt(SyncPlayer):
    """A bot standing in for a person who quits at their ``at``-th decision."""

    def __init__(self, name: str, seed: int, at: int) -> None:
        super().__init__(name)
        self.bot, self.at, self.asked = BotPlayer(name, seed), at, 0

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Any:
        self.asked += 1
        if self.asked >= self.at:
            raise StopGame(f"{self.name} quit the game")
        return self.bot.decide_now(request, view, feedback)


def stopped(
    tmp_path: Path, variant: str = "classic", seats: tuple[str, ...] = SEATS, at: int = 3, seed: int = 4
) -> tuple[Game, Path]:
    """A game Ann (a person, in the transcript) stopped at her ``at``-th decision."""
    options = {"hands": 2} if variant in ("duel", "duel3", "trio") else None
    game = VARIANTS[variant](list(seats), options, seed)
    players: dict[str, Any] = {n: BotPlayer(n, seed) for n in seats}
    players["Ann"] = QuitsAt("Ann", seed, at)
    path = tmp_path / "game.jsonl"
    writer = TranscriptWriter(path, game, {n: "human" if n == "Ann" else "bot" for n in seats})
    with pytest.raises(StopGame):
        run_sync(game, players, [writer])
    writer.close(game, aborted="Ann quit the game")
    assert not game.finished
    return game, path


def screen(print_it: Any, *args: Any, **kwargs: Any) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    print_it(console, *args, **kwargs)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_the_stop_screen_shows_only_what_the_person_was_shown(tmp_path: Path) -> None:
    game, path = stopped(tmp_path, at=4)
    specs = {n: "human" if n == "Ann" else "bot" for n in game.seats}
    shown = screen(print_stopped, game, specs, path, "Ann")
    view = game.view("Ann").events
    partners = {m for e in view if e.type == "team" for m in e.data["members"]}
    revealed = {e.data["player"] for e in view if e.type == "death" and e.to is None and e.data.get("role")}
    for name in game.seats:
        row = next(line for line in shown.splitlines() if re.search(rf"│ {name} ", line))
        card = game.role_of[name]
        if name == "Ann" or name in revealed:
            assert card in row, row
        elif name in partners:
            assert "(your team)" in row, row
        else:
            assert re.search(r"│ \? ", row) and card not in row.split("│")[3], row
    assert "seed" not in shown and str(game.seed) not in shown.replace(str(path), "")


def test_a_stopped_mckay_hand_keeps_its_cards_hidden(tmp_path: Path) -> None:
    game, path = stopped(tmp_path, "duel", ("Ann", "Bob"), at=3)
    shown = screen(print_stopped, game, {"Ann": "human", "Bob": "bot"}, path, "Ann")
    bob = next(line for line in shown.splitlines() if "│ Bob " in line)
    assert bob.rstrip(" │").endswith("?") and game.role_of["Bob"] not in bob  # this hand's card of Bob: not shown
    assert game.role_of["Ann"] in next(line for line in shown.splitlines() if "│ Ann " in line)


def test_the_next_steps_of_a_stopped_game_offer_resume_and_the_persons_own_view(tmp_path: Path) -> None:
    text = screen(print_next_steps, tmp_path / "g.jsonl", "Ann", finished=False)
    assert "arena resume" in text and "--as Ann" in text and "will not seat Ann again" in text
    assert not re.search(r"arena (show|report) \S+g\.jsonl  —", text)  # the whole game is not offered as a step
    assert "arena resume" not in screen(print_next_steps, tmp_path / "g.jsonl", "Ann")


def test_a_look_at_the_whole_unfinished_game_is_recorded_and_resume_refuses_the_person(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, path = stopped(tmp_path)
    assert main(["show", str(path), "--as", "Ann"]) == 0  # her own view: nothing new
    assert main(["report", str(path), "--as", "Ann"]) == 0
    assert read_transcript(path).looked == []
    capsys.readouterr()
    assert main(["show", str(path)]) == 0  # every card
    looked = read_transcript(path).looked
    assert [look["by"] for look in looked] == ["arena show"]
    assert main(["report", str(path), "--as", "Bob"]) == 0  # another seat's secrets
    assert [look["by"] for look in read_transcript(path).looked] == ["arena show", "arena report --as Bob"]
    capsys.readouterr()
    before = path.read_bytes()
    assert main(["resume", str(path)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0 and "more of this unfinished game than Ann saw was shown (arena show," in error
    assert "Ann cannot be seated again" in error
    assert path.read_bytes() == before  # nothing repaired or written


def test_a_finished_game_or_one_without_a_person_records_no_look(tmp_path: Path) -> None:
    game = VARIANTS["classic"](list(SEATS), None, 2)
    path = tmp_path / "done.jsonl"
    with TranscriptWriter(path, game, {n: "human" if n == "Ann" else "bot" for n in SEATS}) as writer:
        run_sync(game, {n: BotPlayer(n, 2) for n in SEATS}, [writer])
    assert main(["show", str(path)]) == 0 and main(["report", str(path)]) == 0
    assert read_transcript(path).looked == []


class Clocked:
    """A keyboard that keeps each prompt with the deadline it was given, answering from a list."""

    def __init__(self, answers: list[Any]) -> None:
        self.answers, self.asked, self.waiting = answers, [], False

    def start(self, loop: Any, on_interrupt: Any) -> None:
        pass

    async def read(
        self, prompt: str, words: Any = (), *, deadline: float | None = None, aside: bool = False, question: object = None
    ) -> Any:
        await asyncio.sleep(0)
        self.asked.append((prompt, deadline))
        return self.answers.pop(0)

    def interrupt(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_the_question_to_quit_is_not_on_the_clock() -> None:
    """Ctrl-C at a question with a time limit: 'Quit the game?' has no countdown of its own (it is not
    drawn on the timed prompt's line, nor withdrawn with it); a no goes back to the question."""
    game = VARIANTS["duel"](["Ann", "Bob"], {"hands": 1}, 3)
    request = next(r for r in game.pending() if r.player == "Ann")
    keys = Clocked([INTERRUPT, "n", "1"])
    me = HumanPlayer("Ann", console=Console(file=io.StringIO(), color_system=None), timeout=60, keyboard=keys)
    action = asyncio.run(me.decide(request, game.view("Ann"), None))
    assert action.kind == "pass"
    (move, timed), (quit_, untimed), (again, timed_again) = keys.asked
    assert quit_ == "Quit the game? [y/N] " and untimed is None
    assert timed is not None and timed_again == timed and move == again


def test_quit_works_while_watching_a_mckay_hand_after_ones_death() -> None:
    """Out of a hand (dead in it), the person is asked nothing; a watch> prompt still takes quit."""
    from arena.engine import Decision
    from arena.players.base import Beat

    for seed in range(40):  # a duel3 hand in which Ann dies first and the hand goes on
        game = VARIANTS["duel3"](["Ann", "Bob", "Cid"], {"hands": 1}, seed)
        bots = {n: BotPlayer(n, seed) for n in game.seats}
        while not game.finished and game.is_alive("Ann"):
            game.resolve([Decision(r, bots[r.player].decide_now(r, game.view(r.player), None)) for r in game.pending()])
        if not game.finished:
            break
    else:
        pytest.skip("no duel3 hand in which Ann died first")
    keys = Clocked(["hello", "quit", "y"])
    console = Console(file=io.StringIO(), color_system=None, width=200)
    me = HumanPlayer("Ann", console=console, keyboard=keys)

    async def watch() -> None:
        me(game)  # the death on screen: out of this hand
        loop = asyncio.get_running_loop()
        me.beat_started(Beat("Hand 1, beat 9 of 18", ("Bob", "Cid"), 10.0, loop.time(), loop.time() + 10))
        assert me._watch is not None
        await me._watch
        with pytest.raises(StopGame):
            me(game)

    asyncio.run(watch())
    screen = console.file.getvalue()  # type: ignore[attr-defined]
    assert [p for p, _ in keys.asked] == ["watch> ", "watch> ", "Quit the game? [y/N] "]
    assert "You are out for the rest of this hand" in screen and "nothing to answer until the next" in screen


def test_a_persons_game_being_played_is_not_shown_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = VARIANTS["classic"](list(SEATS), None, 2)
    path = tmp_path / "live.jsonl"
    with TranscriptWriter(path, game, {n: "human" if n == "Ann" else "bot" for n in SEATS}) as writer:
        writer(game)  # being played: the writer holds the file
        assert main(["show", str(path)]) == 2 and main(["report", str(path)]) == 2
        assert capsys.readouterr().err.count("another process is playing this game") == 2
        assert main(["show", str(path), "--as", "Ann"]) == 0  # her own view is hers
    assert read_transcript(path).looked == []
