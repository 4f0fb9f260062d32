"""Resume (issue 22): an interrupted game goes on from its transcript, asking nobody twice.

Every variant cut mid-game and resumed ends as the uninterrupted game; every cut point of one
transcript (each line, halves of lines, a resolution written in part) resumes; a step cut after a
rejection keeps it; a process killed with SIGKILL resumes from the command line; model seats on
the loopback stand-in are not asked again (the server counts the calls), including answers given
in the step that was cut; a person seat is asked again; finished and broken files are one line.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.engine import DecisionRequest, Game, View
from arena.players.base import Malformed, SyncPlayer
from arena.players.bot import BotPlayer
from arena.players.registry import make_player
from arena.run.orchestrator import play, run
from arena.run.replay import replay
from arena.run.resume import ResumeError, prepare_resume, resume_game, resume_sync
from arena.run.transcript import TranscriptWriter, read_transcript
from arena.variants import VARIANTS
from tests.llm_server import game_calls

ROOT = Path(__file__).resolve().parent.parent


class Crash(BaseException):
    """The process dies here (a BaseException: no player error, no summary, like kill -9)."""


def seats_of(cls: type[Game]) -> list[str]:
    return [f"P{i}" for i in range(1, cls.default_players + 1)]


def events_of(game: Game) -> list[dict[str, Any]]:
    return [json.loads(json.dumps(e.to_dict(), default=str)) for e in game.log]


def bot_game(cls: type[Game], seed: int, observers: list[Any] = ()) -> Game:
    seats = seats_of(cls)
    game = cls(seats, {}, seed)
    play(game, {s: make_player("bot", s, seed) for s in seats}, list(observers))
    return game


def crash_after(events: int):
    """An observer that kills the run once the log holds ``events`` events (not at the very end)."""

    def observer(game: Game) -> None:
        if len(game.log) >= events and not game.finished:
            raise Crash

    return observer


def crashed_bot_game(tmp_path: Path, cls: type[Game], seed: int, at: int) -> Path:
    seats = seats_of(cls)
    game = cls(seats, {}, seed)
    writer = TranscriptWriter(tmp_path / f"{cls.name}-{seed}-{at}.jsonl", game, dict.fromkeys(seats, "bot"))
    with pytest.raises(Crash):
        play(game, {s: make_player("bot", s, seed) for s in seats}, [writer, crash_after(at)])
    writer._file.close()  # type: ignore[union-attr]  # the process died: nothing more is written
    return writer.path


# ---- bots: every variant -------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_variant_resumes_to_the_uninterrupted_game(tmp_path, variant):
    cls = VARIANTS[variant]
    whole = bot_game(cls, 7)
    for at in (3, len(whole.log) // 3, 2 * len(whole.log) // 3):
        path = crashed_bot_game(tmp_path, cls, 7, at)
        before = read_transcript(path)
        assert before.summary is None and 0 < len(before.events) < len(whole.log)
        resumed = resume_sync(path)
        assert events_of(resumed.game) == events_of(whole), f"{variant} cut at {at}"
        assert resumed.game.summary() == whole.summary()
        after = read_transcript(path)
        assert after.complete and after.events == events_of(whole)
        assert replay(after).ok
        assert resumed.events_rebuilt == len(before.events)


def test_bots_go_on_from_their_own_memory_not_a_fresh_start(tmp_path):
    """Without rehearsing the recorded decisions, fresh bots would play this game differently."""
    cls = VARIANTS["classic"]
    whole = bot_game(cls, 11)
    path = crashed_bot_game(tmp_path, cls, 11, len(whole.log) // 2)
    resumed = resume_sync(path)
    assert resumed.rehearsals > 0
    assert events_of(resumed.game) == events_of(whole)

    path = crashed_bot_game(tmp_path / "b", cls, 11, len(whole.log) // 2)
    fresh = prepare_resume(path, {s: _Live(BotPlayer(s, 11)) for s in seats_of(cls)})
    fresh.play()
    assert events_of(fresh.game) != events_of(whole)  # so the rehearsal is what keeps the game the same
    assert replay(read_transcript(path)).ok  # still a valid, exactly replayable game


class _Live:
    """A bot seen by the resume as an asynchronous player without a rehearsal (a fresh memory)."""

    def __init__(self, bot: BotPlayer) -> None:
        self.bot = bot
        self.name = bot.name

    async def decide(self, request: DecisionRequest, view: View, feedback: str | None) -> Any:
        return self.bot.decide_now(request, view, feedback)


def _cuts(data: bytes) -> list[int]:
    ends = [i + 1 for i in range(len(data)) if data[i : i + 1] == b"\n"]
    halves = [(a + b) // 2 for a, b in itertools.pairwise(ends)]
    return sorted(set(ends[1:] + halves))


def test_every_cut_point_of_a_transcript_resumes(tmp_path, capsys):
    """A crash can stop the file anywhere: after any line, inside one, inside a step's resolution."""
    cls = VARIANTS["cove"]
    source = tmp_path / "whole.jsonl"
    game = cls(seats_of(cls), {}, 5)
    with TranscriptWriter(source, game, dict.fromkeys(game.seats, "bot")) as writer:
        play(game, {s: make_player("bot", s, 5) for s in game.seats}, [writer])
    data = source.read_bytes()
    whole = read_transcript(source)
    resumed = finished = 0
    for cut in _cuts(data):
        path = tmp_path / "cut.jsonl"
        path.write_bytes(data[:cut])
        try:
            result = resume_sync(path)
        except ResumeError as exc:
            assert "finished" in str(exc), (cut, str(exc))
            finished += 1
            continue
        resumed += 1
        after = read_transcript(path)
        assert after.events == whole.events, cut
        assert replay(after).ok, cut
        if cut < len(data) and data[cut - 1 : cut] != b"\n":
            assert any("half-written" in n for n in result.notes()), cut
    assert resumed > 100 and finished <= 2


def test_a_cut_last_line_gets_a_one_line_note_from_the_command(tmp_path, capsys):
    path = crashed_bot_game(tmp_path, VARIANTS["classic"], 3, 40)
    with path.open("a", encoding="utf-8") as file:
        file.write('{"type": "event", "event": {"seq": 9')  # the power went out here
    assert main(["resume", str(path), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "dropped a half-written last line (36 bytes)" in err
    assert read_transcript(path).complete
    assert main(["replay", str(path)]) == 0


# ---- a step cut after a rejection ----------------------------------------------------------------------
class Clumsy(SyncPlayer):
    """A bot that first answers its ``slip``-th decision with an illegal action; ``crash`` dies on the retry."""

    def __init__(self, name: str, seed: int, slip: int, crash: bool) -> None:
        super().__init__(name)
        self.bot = BotPlayer(name, seed)
        self.slip, self.crash = slip, crash
        self.asked = 0

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Any:
        self.asked += 1
        if self.asked == self.slip:
            return Malformed("(nonsense)", "not an action")
        if self.asked == self.slip + 1 and self.crash:
            raise Crash
        return self.bot.decide_now(request, view, feedback)


def test_a_step_cut_after_a_rejection_keeps_it(tmp_path):
    cls = VARIANTS["classic"]
    seats = seats_of(cls)

    def table(crash: bool) -> dict[str, Any]:
        return {s: Clumsy(s, 4, 3, crash) if s == "P3" else BotPlayer(s, 4) for s in seats}

    whole = cls(seats, {}, 4)
    play(whole, table(False))
    game = cls(seats, {}, 4)
    writer = TranscriptWriter(tmp_path / "t.jsonl", game, dict.fromkeys(seats, "bot"))
    with pytest.raises(Crash):
        play(game, table(True), [writer])
    writer._file.close()  # type: ignore[union-attr]
    assert read_transcript(writer.path).events[-1]["type"] == "rejected"  # the crash came on the retry

    def factory(spec: str, name: str, seed: int, **_: Any) -> Any:
        return Clumsy(name, seed, 3, False) if name == "P3" else BotPlayer(name, seed)

    resumed = prepare_resume(writer.path, factory=factory)
    [begun] = [r for r in resumed.opened.values() if r.attempts]
    assert begun.request.player == "P3" and begun.feedback  # asked again with the engine's reason
    assert "1 decision(s) of the cut step already begun" in resumed.notes()[-1]
    resumed.play()
    assert events_of(resumed.game) == events_of(whole)
    assert replay(read_transcript(writer.path)).ok


# ---- refusals: one line each -----------------------------------------------------------------------------
def test_a_finished_transcript_is_refused_with_exit_2(tmp_path, capsys):
    assert main(["play", "cove", "--seed", "2", "--quiet", "--transcripts", str(tmp_path)]) == 0
    [path] = tmp_path.glob("*.jsonl")
    capsys.readouterr()
    before = path.read_bytes()
    assert main(["resume", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "the game is finished" in err
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "no such file"),
        ("not json\n", "not JSON"),
        ('{"type": "event"}\n', "the first line must be the header"),
        ("VARIANT", "unknown variant"),
        ("CHANGED", "does not rebuild from its answers"),
        ("PEOPLE", "2 people played this table (P1, P2): one terminal seats one person"),
    ],
)
def test_bad_files_are_one_line(tmp_path, capsys, content, words):
    path = tmp_path / "t.jsonl"
    if content in ("VARIANT", "CHANGED", "PEOPLE"):
        source = crashed_bot_game(tmp_path, VARIANTS["classic"], 6, 60)
        lines = source.read_text(encoding="utf-8").splitlines()
        header = json.loads(lines[0])
        if content == "VARIANT":
            header["variant"] = "chess"
        elif content == "PEOPLE":  # a table served to two people (human:NAME seats)
            header["players"].update({"P1": "human:ann", "P2": "human:bob"})
        else:
            header["seed"] = 99  # another deal: the recorded answers no longer fit the game
        path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    before = path.read_bytes() if path.exists() else None
    assert main(["resume", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and words in err, err
    assert (path.read_bytes() if path.exists() else None) == before  # nothing changed


def test_a_stopped_game_goes_on_and_can_stop_again(tmp_path):
    """A game stopped on purpose (its summary says ``aborted``) resumes too: the summary goes."""
    cls = VARIANTS["classic"]
    whole = bot_game(cls, 8)
    path = crashed_bot_game(tmp_path, cls, 8, 50)
    game_so_far = read_transcript(path)
    with path.open("a", encoding="utf-8") as file:
        summary = {"type": "summary", "finished": False, "events": len(game_so_far.events), "aborted": "Ann quit the game"}
        file.write(json.dumps(summary) + "\n")
    assert read_transcript(path).aborted
    resumed = prepare_resume(path)
    assert any("Ann quit the game" in n for n in resumed.notes())
    resumed.play()
    after = read_transcript(path)
    assert after.complete and after.events == events_of(whole) and len(after.events) > len(game_so_far.events)


# ---- a process killed with SIGKILL -----------------------------------------------------------------------
SLOW_GAME = """
import sys, time
from pathlib import Path
from arena.players.registry import make_player
from arena.run.orchestrator import play, run
from arena.run.transcript import TranscriptWriter
from arena.variants import VARIANTS

cls = VARIANTS["village"]
seats = [f"P{i}" for i in range(1, cls.default_players + 1)]
game = cls(seats, {}, 21)
writer = TranscriptWriter(Path(sys.argv[1]), game, dict.fromkeys(seats, "bot"))
play(game, {s: make_player("bot", s, 21) for s in seats}, [writer, lambda g: time.sleep(0.01)])
writer.close(game)
"""


def test_a_game_killed_with_sigkill_resumes_from_the_command_line(tmp_path, capsys):
    path = tmp_path / "killed.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", SLOW_GAME, str(path)], env=env)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not path.exists() or path.read_text(encoding="utf-8").count("\n") < 60):
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    cut = read_transcript(path)
    assert cut.summary is None and len(cut.events) >= 59
    whole = bot_game(VARIANTS["village"], 21)
    assert len(cut.events) < len(whole.log)
    assert main(["resume", str(path), "--quiet"]) == 0
    assert "resuming after" in capsys.readouterr().err
    after = read_transcript(path)
    assert after.complete and after.events == events_of(whole)
    assert main(["replay", str(path)]) == 0


# ---- model seats on the loopback stand-in: no call made twice ----------------------------------------------
MODEL_SEATS = 3  # P1-P3 are models (both SDKs, three structured-output modes), the rest bots


def model_factory(spec: str, name: str, seed: int, **extra: Any) -> Any:
    from tests.test_llm_games import FAST

    return make_player(spec, name, seed, **extra, **({} if spec in ("bot", "random") else FAST))


def model_specs(server: Any, seats: list[str]) -> dict[str, str]:
    from tests.test_llm_games import spec

    return {s: spec(server, i) if i < MODEL_SEATS else "bot" for i, s in enumerate(seats)}


async def model_game(server: Any, path: Path, crash_at: int | None, answered: bool = False) -> Game:
    """A classic game with model seats, written to ``path``; killed at the ``crash_at``-th change, or
    with ``answered`` at the first change from then on where a model's answer is not yet ruled on."""
    from arena.players.llm import close_clients

    cls = VARIANTS["classic"]
    seats = seats_of(cls)
    game = cls(seats, {}, 13)
    specs = model_specs(server, seats)
    writer = TranscriptWriter(path, game, specs)
    asked: Counter[int] = Counter()  # request -> model answers recorded

    def recorder(seat: str) -> Any:
        def record(call: dict[str, Any]) -> None:
            asked[call["request"]] += 1
            writer.record_call(seat, call)

        return record

    options = game.options.model_dump(mode="json")
    players = {
        s: model_factory(
            spec, s, 13, **({} if spec == "bot" else {"variant": "classic", "options": options, "recorder": recorder(s)})
        )
        for s, spec in specs.items()
    }
    changes = 0

    def killer(g: Game) -> None:
        nonlocal changes
        changes += 1
        if crash_at is not None and changes >= crash_at:
            rejected = Counter(e.data.get("request") for e in g.log if e.type == "rejected")
            if not answered or any(asked[r.id] > rejected[r.id] for r in g.pending()):
                raise Crash

    try:
        await run(game, players, [writer, killer])
        writer.close(game)
    except Crash:
        writer._file.close()  # type: ignore[union-attr]
    finally:
        await close_clients()
    return game


def test_model_seats_are_not_asked_again(tmp_path):
    """Killed at several points (between steps and between the rounds of a parallel step), the resumed
    game sends the stand-in exactly the calls the uninterrupted game sent, and ends the same."""
    from tests.llm_server import FakeModelServer

    with FakeModelServer(seed=5) as server:
        whole = asyncio.run(model_game(server, tmp_path / "whole.jsonl", None))
        reference = list(server.log)
    assert whole.finished and len(reference) > 20
    reused = 0
    for crash_at, answered in ((9, False), (31, True)):
        with FakeModelServer(seed=5, port=server.port) as again:  # same port: the header's specs point here
            path = tmp_path / f"cut-{crash_at}.jsonl"
            asyncio.run(model_game(again, path, crash_at, answered))
            before = read_transcript(path)
            assert before.summary is None and before.calls
            made = len(again.log)
            assert made == len(before.calls)
            resumed = asyncio.run(resume_game(path, factory=model_factory))
            assert resumed.calls_reused == made
            reused += resumed.answers_reused
            assert len(again.log) == len(reference), f"cut at change {crash_at}: a call was repeated or lost"
            assert sorted(e["prompt"] for e in again.log) == sorted(e["prompt"] for e in reference)  # the same prompts
        after = read_transcript(path)
        assert after.events == events_of(whole), crash_at
        assert replay(after).ok
        assert len(after.calls) == len(reference)
        usage = after.summary["usage"]
        assert sum(u["calls"] for u in usage.values()) == len(reference)  # the recorded calls count in the totals
    assert reused > 0  # at least one cut fell between the answers of a parallel step and its resolution


def test_a_dead_endpoint_refuses_the_resume_and_leaves_the_file_as_it_was(tmp_path, capsys):
    """``arena resume`` of a game cut mid-line whose model endpoint is down: one line, exit 2, and the
    transcript byte for byte as it was (the repair used to be written before the endpoint check)."""
    from tests.llm_server import FakeModelServer

    with FakeModelServer(seed=5) as server:
        path = tmp_path / "cut.jsonl"
        asyncio.run(model_game(server, path, 9))
    with path.open("ab") as file:
        file.write(b'{"type": "event", "event": {"se')  # a half-written last line, to be dropped by a resume
    before = path.read_bytes()
    capsys.readouterr()
    assert main(["resume", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot reach" in err[0] and "no game was started" in err[0]
    assert path.read_bytes() == before


# ---- a person seat -------------------------------------------------------------------------------------------
def test_a_person_seat_is_asked_again_and_sees_the_game_so_far(tmp_path):
    from arena.players.human import HumanPlayer
    from tests.test_human import autopilot, recording_console, screen_of

    cls = VARIANTS["classic"]
    seats = seats_of(cls)
    game = cls(seats, {}, 17)
    writer = TranscriptWriter(tmp_path / "person.jsonl", game, {s: "human" if s == "P2" else "bot" for s in seats})
    first = HumanPlayer("P2", console=recording_console(), keyboard=autopilot(17))
    table: dict[str, Any] = {s: first if s == "P2" else make_player("bot", s, 17) for s in seats}
    with pytest.raises(Crash):
        asyncio.run(run(game, table, [writer, first, crash_after(45)]))
    writer._file.close()  # type: ignore[union-attr]
    cut = read_transcript(writer.path)
    asked_before = len(first.keyboard.prompts)  # type: ignore[attr-defined]
    assert asked_before > 0 and cut.summary is None

    console, keys = recording_console(), autopilot(18)
    resumption = prepare_resume(writer.path, player_kwargs={"P2": {"console": console, "keyboard": keys}})
    person = resumption.players["P2"]
    assert isinstance(person, HumanPlayer) and keys.prompts == []  # rebuilding asked the person nothing
    resumption.observers.append(person)
    asyncio.run(resumption.run())
    assert resumption.game.finished and keys.prompts  # asked again, live
    screen = screen_of(console)
    my_role = game.role_of["P2"]
    assert my_role in screen  # the screen starts with what P2 had seen before the cut
    after = read_transcript(writer.path)
    assert after.complete and after.events[: len(cut.events)] == cut.events
    assert any(e["type"] == "action" and e.get("actor") == "P2" for e in after.events[len(cut.events) :])
    assert replay(after).ok


def test_a_person_in_a_terminal_killed_with_sigkill_and_resumed(tmp_path):
    """`arena play --human` in a real terminal (a pty), killed mid-game; `arena resume` asks the person again."""
    import pexpect

    from tests.test_human import ANSI, PROMPT

    good = {"say": "Just a citizen.", "claim": "", "accuse": "2", "verdict": "yes", "kill": "1", "check": "1", "floor": ""}
    env = {**os.environ, "TERM": "dumb", "COLUMNS": "160", "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}

    def spawn(*args: str) -> Any:
        child = pexpect.spawn(sys.executable, ["-m", "arena", *args], cwd=str(ROOT), env=env, encoding="utf-8", timeout=30)
        child.logfile_read = io.StringIO()
        return child

    child = spawn("play", "classic", "--seed", "3", "--human", "ann", "--transcripts", str(tmp_path))
    for _ in range(4):
        child.expect(PROMPT)
        child.sendline(good.get(child.match.group(1), "1"))
    child.expect(PROMPT)  # the fifth question is on the screen: the power goes out
    child.kill(signal.SIGKILL)
    child.close()
    assert child.signalstatus == signal.SIGKILL
    [path] = tmp_path.glob("*.jsonl")
    cut = read_transcript(path)
    assert cut.summary is None and cut.header["players"]["Ann"] == "human"

    child = spawn("resume", str(path))
    asked = 0
    while child.expect([PROMPT, pexpect.EOF]) == 0:
        asked += 1
        child.sendline(good.get(child.match.group(1), "1"))
    child.close()
    screen = ANSI.sub("", child.logfile_read.getvalue())
    assert child.exitstatus == 0, screen[-2000:]
    assert asked > 0 and "resuming after" in screen and "Result: " in screen
    assert "Read this game again:" in screen and f"arena report {path} --as Ann" in screen  # as after `arena play`
    after = read_transcript(path)
    assert after.complete and after.events[: len(cut.events)] == cut.events
    assert replay(after).ok


# ---- tournaments: a game that failed mid-way goes on ---------------------------------------------------------
def tournament(server: Any, tmp_path: Path, name: str) -> Any:
    from arena.tournament.config import parse_tournament
    from tests.test_tournament_run import FAST

    oa = {"spec": f"openai:fake-oa@{server.openai_url}", "price_input": 2.0, "price_output": 8.0, **FAST, "attempts": 2}
    return parse_tournament({
        "name": name, "seed": 2, "games": 2, "concurrency": 1, "beliefs": True,
        "database": str(tmp_path / f"{name}.sqlite"), "transcripts": str(tmp_path / f"tr-{name}"),
        "models": {"bot": "bot", "oa": oa},
        "variants": [{"name": "classic", "players": 6, "options": {"discussion_rounds": 1}}],
    })  # fmt: skip


@pytest.fixture(scope="module")
def uncut(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, int, Path, Any]:
    """The two-game tournament played once with its endpoint up: (its port, its game calls, its
    directory, its rows), which the cut runs below are compared with."""
    from arena.tournament.runner import run_tournament
    from tests.llm_server import FakeModelServer

    where = tmp_path_factory.mktemp("uncut")
    with FakeModelServer(seed=6) as server:
        whole = asyncio.run(run_tournament(tournament(server, where, "whole")))
        reference = len(game_calls(server.log))
        port = server.port
    assert whole.played == 2
    return port, reference, where, tournament_rows(where / "whole.sqlite")


def tournament_rows(database: Path) -> Any:
    import sqlite3

    with sqlite3.connect(database) as db:
        return (
            sorted((key, read_transcript(path).events) for key, path in db.execute("SELECT key, transcript FROM games")),
            db.execute("SELECT game, seat, result, decisions, calls, cost FROM player_games ORDER BY game, seat").fetchall(),
            db.execute("SELECT game, seat, day, target, p FROM beliefs ORDER BY game, seat, day, target").fetchall(),
        )


# Where the endpoint dies (its calls counted with each run's endpoint check), in the first game (one
# bot, five model seats, three days) or the second (one model seat, three days). 7, 10: day 1's belief
# questions, asked beside the first speeches, partly answered (day 1 is the day the game starts in: the
# rebuild never showed it to the probe, so the resumed run asked all of them again); 20: the charge
# vote's simultaneous ballots; 75: the second game's first calls, its belief question lost in the
# outage (never asked again, so a belief row was missing); 83: the same on its day 2; -4: four calls
# before the end, the last day's ballots. The games follow the prompts' bytes (the stand-in's answers):
# a cut where the outage's forfeits end the first game before three calls in a row are given up (27,
# with the prompts of history = days folded at every call) lets that game finish as played.
@pytest.mark.parametrize("fail_after", [7, 10, 20, 75, 83, -4])
def test_a_tournament_game_whose_endpoint_died_is_resumed_not_replayed(tmp_path, uncut, fail_after):
    """The endpoint dies mid-game: the game fails (its transcript aborted). The next run resumes it:
    it sends only the calls the first try had not made (no prompt answered before the cut is sent
    again), and the games, their rows and their beliefs are those of a run that never failed."""
    import sqlite3

    from arena.tournament.runner import run_tournament
    from tests.llm_server import FakeModelServer, Gate

    port, reference, _, whole = uncut
    # a negative cut counts back from the last call (the prompts' wording sets the games' length)
    gate = Gate(fail_after=fail_after if fail_after > 0 else reference + fail_after)
    with FakeModelServer(seed=6, port=port, gate=gate) as server:
        config = tournament(server, tmp_path, "cut")
        first = asyncio.run(run_tournament(config))
        in_first_game = first.played == 0
        expected = (0, 1, 1) if in_first_game else (1, 1, 0)
        assert (first.played, len(first.failed), first.not_started) == expected and "endpoint down" in first.failed[0][1]
        answered = game_calls(server.log)  # the stand-in logs only the calls it answered
        spent = len(answered)
        assert 0 < spent < reference
        gate.fail_after = None  # the endpoint is back
        again = asyncio.run(run_tournament(config))
        resumed = game_calls(server.log)[spent:]
    assert again.played == 2 - first.played
    sent_before = {json.dumps(e["body"], sort_keys=True) for e in answered}
    asked_again = [e["player"] for e in resumed if json.dumps(e["body"], sort_keys=True) in sent_before]
    assert not asked_again  # nothing paid for twice
    assert len(resumed) == reference - spent  # only the calls the first try had not made
    cut = tournament_rows(tmp_path / "cut.sqlite")
    assert cut == whole and whole[2]  # beliefs were asked, and kept across the cut
    with sqlite3.connect(tmp_path / "cut.sqlite") as db:
        attempts = db.execute("SELECT transcript, error FROM attempts ORDER BY id").fetchall()
    assert len(attempts) == 3
    failed, resumed_try = (attempts[0], attempts[1]) if in_first_game else (attempts[1], attempts[2])
    assert failed[0] == resumed_try[0] and failed[1] and resumed_try[1] is None
    assert replay(read_transcript(resumed_try[0])).ok


@pytest.mark.parametrize("fail_after", [10, 40])
def test_arena_resume_of_a_game_whose_endpoint_died_asks_only_what_was_lost(tmp_path, capsys, fail_after):
    """``arena play`` with model seats (``history = "days"``, the default) until the endpoint dies,
    then ``arena resume``: no prompt answered before is sent again, every call not made is, and the
    game is the uncut one event for event. 10: a seat's call fails in the charge vote's first round
    beside answers that were rejected: the round is asked again as it was (its answers recalled), not
    the lost seat's try a round late (the rejections came out in another order); 40: day 2."""
    from tests.llm_server import FakeModelServer, Gate

    (tmp_path / "short.toml").write_text("players = 6\n[options]\ndiscussion_rounds = 1\nmax_days = 3\n")

    def play(url: str, out: Path) -> int:
        spec = f"openai:fake-oa@{url}?backoff=0.001&max_backoff=0.01&attempts=2"  # no waits between retries
        argv = ["play", "classic", "--seed", "3", "--config", str(tmp_path / "short.toml"), "--quiet"]
        return main([*argv, "--transcripts", str(out), "--seats", f"{spec},bot,{spec},{spec},bot,{spec}"])

    with FakeModelServer(seed=6) as server:
        assert play(server.openai_url, tmp_path / "whole") == 0
        reference, port = len(game_calls(server.log)), server.port
    gate = Gate(fail_after=fail_after)
    with FakeModelServer(seed=6, port=port, gate=gate) as server:
        assert play(server.openai_url, tmp_path / "cut") == 1
        answered = game_calls(server.log)
        (path,) = (tmp_path / "cut").glob("*.jsonl")
        gate.fail_after = None
        assert main(["resume", str(path), "--quiet"]) == 0
        resumed = game_calls(server.log)[len(answered) :]
    capsys.readouterr()
    sent_before = {json.dumps(e["body"], sort_keys=True) for e in answered}
    assert not [e["player"] for e in resumed if json.dumps(e["body"], sort_keys=True) in sent_before]
    assert len(resumed) == reference - len(answered)
    (whole,) = (tmp_path / "whole").glob("*.jsonl")
    after = read_transcript(path)
    assert after.events == read_transcript(whole).events and replay(after).ok


# ---- McKay's games on the wall clock ------------------------------------------------------------------------
def test_a_wall_clock_game_resumes_after_its_last_recorded_beat(tmp_path):
    """A duel on the wall clock (beats of real seconds; bots answer at seeded moments) killed mid-match:
    the resume rebuilds to the last recorded beat with the header's clock, the bots' think-time streams
    go on where they were, the cut beat starts again in full, and the transcript replays exactly."""
    from arena.run.wallclock import ThinkTime, WallClock

    cls = VARIANTS["duel"]
    seats = seats_of(cls)
    game = cls(seats, {"hands": 4}, 9)
    clock = WallClock(0.03, seed=9, think={"P1": ThinkTime(0.001, 0.02)})
    writer = TranscriptWriter(tmp_path / "clock.jsonl", game, dict.fromkeys(seats, "bot"), extra={"clock": clock.describe()})
    bots = {s: make_player("bot", s, 9) for s in seats}
    with pytest.raises(Crash):
        asyncio.run(run(game, bots, [writer, crash_after(30)], clock=clock))
    writer._file.close()  # type: ignore[union-attr]
    cut = read_transcript(writer.path)
    timed = [e for e in cut.events if e["type"] == "action" and "at" in e["data"]]
    assert timed and cut.summary is None

    resumption = prepare_resume(writer.path)
    assert resumption.clock is not None and resumption.clock.seconds == 0.03
    assert str(resumption.clock.think.get("P1")) == "0.001-0.02"
    # each bot drew one think time per recorded attempt in a beat: the next draw is the one an unbroken run makes
    fresh = WallClock(0.03, seed=9, think={"P1": ThinkTime(0.001, 0.02)})
    for seat in seats:
        drawn = sum(
            1
            for e in cut.events
            if e.get("actor") == seat and e["type"] in ("action", "rejected", "forfeit") and "request" in e["data"]
            and e["data"]["request"] in {t["data"]["request"] for t in timed}
        )  # fmt: skip
        for _ in range(drawn):
            fresh.think_time(seat)
        assert resumption.clock.think_time(seat) == fresh.think_time(seat), seat
    resumption.writer.close()  # its writer holds the transcript's lock until closed
    asyncio.run(prepare_resume(writer.path).run())
    after = read_transcript(writer.path)
    assert after.complete and after.events[: len(cut.events)] == cut.events
    assert any("at" in e["data"] for e in after.events[len(cut.events) :] if e["type"] == "action")  # beats went on
    assert replay(after).ok


def test_a_tournament_game_cut_off_resumes_from_the_command_line_as_it_was_played(tmp_path, capsys):
    """A tournament seats its players with a per-game seed, not the deal's: ``arena resume`` of one of
    its transcripts (leveled bots on both sides) ends as the tournament's game did, with the seed read
    from the header or, in a header from before it was recorded, derived from the game's key."""
    from arena.tournament.config import parse_tournament
    from arena.tournament.runner import run_tournament

    config = parse_tournament({
        "name": "lv", "seed": 3, "games": 2, "concurrency": 1,
        "database": str(tmp_path / "lv.sqlite"), "transcripts": str(tmp_path / "tr"),
        "models": {"liar": "bot?mafia=1&town=0.2", "det": "bot?mafia=0.2&town=1"},
        "variants": [{"name": "classic", "players": 7}],
    })  # fmt: skip
    assert asyncio.run(run_tournament(config)).played == 2
    paths = sorted((tmp_path / "tr").glob("*.jsonl"))
    whole = read_transcript(paths[0])
    assert whole.header["player_seed"] != whole.header["seed"]
    lines = paths[0].read_text(encoding="utf-8").splitlines(keepends=True)
    old_header = json.dumps({k: v for k, v in whole.header.items() if k != "player_seed"}) + "\n"
    for name, header in (("new", lines[0]), ("old", old_header)):
        cut = tmp_path / f"{name}.jsonl"
        cut.write_text(header + "".join(lines[1 : len(lines) // 3]), encoding="utf-8")
        assert main(["resume", str(cut), "--quiet"]) == 0
        assert read_transcript(cut).events == whole.events, name
    capsys.readouterr()


def test_a_transcript_whose_writer_is_open_is_not_resumed(tmp_path, capsys):
    """A game still being written (its writer open: a live table, another resume) is refused in one
    line, and its file is not repaired under the writer; once the writer is gone it resumes."""
    from arena.cli import main

    cls = VARIANTS["classic"]
    seats = seats_of(cls)
    game = cls(seats, {}, 4)
    writer = TranscriptWriter(tmp_path / "live.jsonl", game, dict.fromkeys(seats, "bot"))
    with pytest.raises(Crash):
        asyncio.run(run(game, {s: make_player("bot", s, 4) for s in seats}, [writer, crash_after(40)]))
    writer._file.write('{"type": "event", "ev')  # type: ignore[union-attr]  # a line being written
    writer._file.flush()  # type: ignore[union-attr]
    before = writer.path.read_bytes()
    assert main(["resume", str(writer.path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "another process is playing this game" in err[0] and writer.path.read_bytes() == before
    writer._file.close()  # type: ignore[union-attr]  # the writer's process died
    assert main(["resume", str(writer.path), "--quiet"]) == 0
    assert read_transcript(writer.path).complete
