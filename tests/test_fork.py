"""Fork (issue 35): a recorded game rebuilt up to a point, played on with seats swapped and a new seed.

A fork at every step of a bot game of every variant replays exactly and keeps the parent's events
up to the point; the same seed plays the same fork, another seed another; a fork cut off and
resumed ends as the uninterrupted fork (the bots' streams reseeded at the fork in both); model
seats on the loopback stand-in are not called while the game is rebuilt and a kept model seat sends
the very request it sent in the parent; a person's seat (the terminal's autopilot) plays on; the
command's errors are one line; reports say where the game was forked from.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.engine import Game
from arena.players.registry import make_player
from arena.run.fork import ForkError, boundaries, fork, locate, parse_point
from arena.run.orchestrator import play, run
from arena.run.replay import replay
from arena.run.resume import resume_sync
from arena.run.transcript import TranscriptWriter, read_transcript
from arena.variants import VARIANTS


class Crash(BaseException):
    """The process dies here (no summary is written)."""


def seats_of(cls: type[Game]) -> list[str]:
    return [f"P{i}" for i in range(1, cls.default_players + 1)]


def recorded_bot_game(folder: Path, variant: str, seed: int) -> Path:
    cls = VARIANTS[variant]
    seats = seats_of(cls)
    game = cls(seats, {}, seed)
    with TranscriptWriter(folder / f"{variant}-{seed}.jsonl", game, dict.fromkeys(seats, "bot")) as writer:
        play(game, {s: make_player("bot", s, seed) for s in seats}, [writer])
    return writer.path


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_fork_at_every_step_of_every_variant_replays_exactly(tmp_path, variant):
    parent_path = recorded_bot_game(tmp_path, variant, 4)
    parent = read_transcript(parent_path)
    steps = boundaries(parent)
    assert len(steps) > 5
    changed = 0
    every = 1 if len(steps) <= 40 else 2  # the long matches: every other step (each fork replays the whole game)
    for i, step in enumerate(steps[::every]):
        decision = step.requests[-1]  # the last decision of a parallel step forks at the step's start
        resumed = fork(parent_path, str(decision), {"P2": "bot?level=0.3"}, seed=100 + i, out=tmp_path / f"f{i}.jsonl")
        resumed.play()
        child = read_transcript(resumed.path)
        assert child.complete, (variant, i)
        assert replay(child).ok, (variant, i, replay(child).message())
        assert child.events[: step.events] == parent.events[: step.events]
        assert child.header["fork"]["request"] == step.requests[0] and child.header["players"]["P2"] == "bot?level=0.3"
        changed += child.events != parent.events
    assert changed > len(steps) // (2 * every)  # the fork plays on anew, not the recorded game


def test_points_by_day_night_hand_and_their_errors(tmp_path):
    classic = read_transcript(recorded_bot_game(tmp_path, "classic", 6))
    duel = read_transcript(recorded_bot_game(tmp_path, "duel", 6))
    assert parse_point("14") == ("decision", 14) and parse_point(" Day 2 ") == ("day", 2)
    day2 = locate(classic, "day 2")
    assert day2.boundary.day == 2 and not day2.boundary.night and day2.label == "day 2"
    night1 = locate(classic, "night 1")
    assert night1.boundary.night and night1.boundary.steps < day2.boundary.steps
    assert locate(duel, "hand 2").boundary.day == 2
    for text, words in (("dusk 2", "give a decision number"), ("day 0", "give a decision number")):
        with pytest.raises(ForkError, match=words):
            parse_point(text)
    with pytest.raises(ForkError, match="forked at hand N"):
        locate(duel, "day 2")
    with pytest.raises(ForkError, match="no decision 9999"):
        locate(classic, "9999")
    with pytest.raises(ForkError, match="no day 40"):
        locate(classic, "day 40")


def test_the_same_seed_plays_the_same_fork_and_another_seed_another(tmp_path):
    parent_path = recorded_bot_game(tmp_path, "classic", 8)
    games = {}
    for name, seed in (("a", 1), ("b", 1), ("c", 2), ("d", 3)):
        resumed = fork(parent_path, "day 2", {}, seed=seed, out=tmp_path / f"{name}.jsonl")
        resumed.play()
        games[name] = read_transcript(resumed.path).events
    assert games["a"] == games["b"]
    assert games["c"] != games["a"] or games["d"] != games["a"]


def test_a_fork_cut_off_resumes_to_the_uninterrupted_fork(tmp_path):
    """Resuming rebuilds the fork with its new seed at the fork point, and the bots' streams reseeded there."""
    for variant in ("classic", "village", "trio"):
        parent_path = recorded_bot_game(tmp_path, variant, 9)
        point = str(boundaries(read_transcript(parent_path))[4].requests[0])
        whole = fork(parent_path, point, {"P3": "random"}, seed=77, out=tmp_path / f"{variant}-whole.jsonl")
        whole.play()
        cut = fork(parent_path, point, {"P3": "random"}, seed=77, out=tmp_path / f"{variant}-cut.jsonl")
        stop = len(whole.game.log) - 15

        def crash(game: Game, stop: int = stop) -> None:
            if len(game.log) >= stop and not game.finished:
                raise Crash

        cut.observers.append(crash)
        with pytest.raises(Crash):
            cut.play()
        # play() closed the file with no summary, as after a crash
        assert not read_transcript(cut.path).complete
        resume_sync(cut.path)
        after = read_transcript(cut.path)
        assert after.events == read_transcript(whole.path).events, variant
        assert replay(after).ok


# ---- model seats on the loopback stand-in ------------------------------------------------------------
def test_model_seats_fork_without_calls_and_replay_exactly(tmp_path):
    from arena.players.llm import close_clients
    from tests.llm_server import FakeModelServer, game_calls
    from tests.test_resume import model_factory, model_game, model_specs

    with FakeModelServer(seed=5) as server:
        parent_path = tmp_path / "parent.jsonl"
        asyncio.run(model_game(server, parent_path, None))
        parent = read_transcript(parent_path)
        steps = boundaries(parent)
        newcomer = model_specs(server, seats_of(VARIANTS["classic"]))["P1"]
        compared = newcomer_played = 0

        def kept_asked(step: Any) -> bool:  # a kept model seat is asked (the game's course follows the prompts' bytes)
            return any(c["player"] in ("P2", "P3") and c["call"].get("request") in step.requests for c in parent.calls)

        early = next(s for s in steps[3:] if kept_asked(s))
        middle = next(s for s in steps[len(steps) // 2 :] if kept_asked(s))
        for n, step in enumerate((early, middle)):
            before = len(game_calls(server.log))
            resumed = fork(
                parent_path, str(step.requests[0]), {"P1": "bot", "P5": newcomer},
                seed=n, out=tmp_path / f"fork{n}.jsonl", factory=model_factory,
            )  # fmt: skip
            assert len(game_calls(server.log)) == before  # rebuilding called nobody
            answered = [e for e in parent.events[: step.events] if e["type"] == "action" and e.get("actor") == "P5"]
            seat = resumed.players["P5"]
            if seat.profile.history == "days" and answered:  # the game before its latest fold: in the record
                mark = seat.conversation.mark  # where the news after the latest fold start (its answers since: retries)
                answered = [e for e in answered if e["day"] == answered[-1]["day"] and e["seq"] >= mark]
            history = seat.conversation.messages
            assert len([m for m in history if m["role"] == "assistant"]) == len(answered)  # the recorded answers, as its own

            async def go(resumed: Any = resumed) -> None:
                try:
                    await resumed.run()
                finally:
                    await close_clients()

            asyncio.run(go())
            child = read_transcript(resumed.path)
            assert child.complete and replay(child).ok
            assert child.events[: step.events] == parent.events[: step.events]
            # a kept model seat sends, at the step asked again, exactly what it sent in the parent
            for seat in ("P2", "P3"):
                first = step.requests[0]
                was = [c["call"] for c in parent.calls if c["player"] == seat and c["call"].get("request") in step.requests]
                now = [c["call"] for c in child.calls if c["player"] == seat and c["call"].get("request") in step.requests]
                if was and now:
                    keys = ("request", "try", "prompt", "params")  # the stand-in answers a body seen before anew
                    assert {k: was[0].get(k) for k in keys} == {k: now[0].get(k) for k in keys}, (seat, first)
                    compared += 1
            # the newcomer was called once it was asked: an accepted answer, or a forfeit after rejected ones
            played = any(e["type"] in ("action", "forfeit") and e.get("actor") == "P5" for e in child.events[step.events :])
            assert any(c["player"] == "P5" for c in child.calls) == played
            newcomer_played += played
        assert compared >= 2 and newcomer_played  # (whether P5 lives to play after a fork follows the prompts' bytes)


# ---- a person's seat --------------------------------------------------------------------------------------
def test_a_person_seat_forks_and_replays(tmp_path):
    from arena.players.human import HumanPlayer
    from tests.test_human import autopilot, recording_console

    cls = VARIANTS["classic"]
    seats = seats_of(cls)
    game = cls(seats, {}, 17)
    person = HumanPlayer("P2", console=recording_console(), keyboard=autopilot(17))
    with TranscriptWriter(tmp_path / "person.jsonl", game, {s: "human" if s == "P2" else "bot" for s in seats}) as writer:
        asyncio.run(run(game, {s: person if s == "P2" else make_player("bot", s, 17) for s in seats}, [writer, person]))
    kept = fork(
        writer.path, "day 2", {"P4": "random"}, seed=3, out=tmp_path / "kept.jsonl",
        player_kwargs={"P2": {"console": recording_console(), "keyboard": autopilot(18)}},
    )  # fmt: skip
    asyncio.run(kept.run())
    child = read_transcript(kept.path)
    assert child.complete and replay(child).ok and child.header["players"]["P2"] == "human"
    swapped = fork(writer.path, "night 1", {"P2": "bot"}, seed=3, out=tmp_path / "swapped.jsonl")
    swapped.play()
    assert replay(read_transcript(swapped.path)).ok


# ---- the command ----------------------------------------------------------------------------------------
def test_the_command_forks_replays_and_reports(tmp_path, capsys):
    parent_path = recorded_bot_game(tmp_path, "cove", 2)
    out = tmp_path / "child.jsonl"
    assert main(["fork", str(parent_path), "--at", "day 2", "--seat", "p1=random", "--seed", "4", "-o", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert f"forked {parent_path} at day 2, seed 4" in err
    assert main(["replay", str(out)]) == 0 and "replay OK" in capsys.readouterr().out
    assert main(["report", str(out)]) == 0
    page = out.with_suffix(".html").read_text(encoding="utf-8")
    assert f'Forked from <a href="{parent_path.stem}.html"><code>{parent_path.name}</code></a> at day 2' in page
    assert main(["report", str(out), "--as", "P3"]) == 0
    own = (tmp_path / "child.P3.html").read_text(encoding="utf-8")
    assert "Forked from" in own and '"reseeds"' not in own and "played by" not in own
    capsys.readouterr()
    for argv, words in (
        (["--at", "day 2"], "name at least one seat"),
        (["--at", "dawn", "--seat", "P1=bot"], "give a decision number"),
        (["--at", "day 2", "--seat", "Zed=bot"], "no seat 'Zed'"),
        (["--at", "day 2", "--seat", "P1=nosuchmodel"], "seat P1 (nosuchmodel)"),
        (["--at", "hand 2", "--seat", "P1=bot"], "forked at day N"),
    ):
        assert main(["fork", str(parent_path), *argv, "--quiet"]) == 2, argv
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and words in lines[0], (argv, lines)
    assert main(["fork", str(tmp_path / "missing.jsonl"), "--at", "1", "--seat", "P1=bot"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_a_fork_whose_model_endpoint_is_down_is_one_line_and_leaves_no_file(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    parent_path = recorded_bot_game(tmp_path, "classic", 3)
    out = tmp_path / "dead.jsonl"
    argv = ["fork", str(parent_path), "--at", "day 2", "--seat", "P1=openai:some-model@http://127.0.0.1:9/v1", "-o", str(out)]
    assert main([*argv, "--quiet"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert "P1" in lines[-1] and lines[-1].startswith("arena: error:")
    assert not out.exists()
