"""Transcripts (write, flush, read back) and replay (every registered variant, rejections, forfeits)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import arena
from arena.engine import DecisionRequest, Game, View
from arena.engine.actions import Kill, Speak, Verdict, Vote
from arena.players.base import Answer, Malformed, SyncPlayer
from arena.players.random import RandomPlayer
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import StopGame, play
from arena.run.replay import replay
from arena.run.transcript import TranscriptError, TranscriptWriter, normalise, read_transcript
from arena.variants import VARIANTS, get_variant


def _seats(variant: type[Game]) -> tuple[str, ...]:
    return DEFAULT_NAMES[: variant.default_players]


def _play_random(directory: Path, variant: type[Game], seed: int) -> tuple[Game, Path]:
    seats = _seats(variant)
    game = variant(seats, None, seed)
    with TranscriptWriter.create(directory, game, dict.fromkeys(seats, "random")) as writer:
        play(game, {n: RandomPlayer(n, seed) for n in seats}, [writer])
    return game, writer.path


class ScriptThenRandom(SyncPlayer):
    """Answers from a script first (actions, raw dicts, Malformed or None), then at random."""

    def __init__(self, name: str, script: list[object], seed: int = 0) -> None:
        super().__init__(name)
        self.script = list(script)
        self.fallback = RandomPlayer(name, seed)

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Answer:
        if self.script:
            answer = self.script.pop(0)
            if isinstance(answer, dict):
                return Malformed(answer, "not a valid action")
            return answer  # type: ignore[return-value]
        return self.fallback.decide_now(request, view, feedback)


# ---- writing and reading --------------------------------------------------------------------------
def test_write_and_read_back(tmp_path: Path) -> None:
    classic = get_variant("classic")
    game, path = _play_random(tmp_path, classic, 3)
    assert path.parent == tmp_path and path.name.endswith("-classic-3.jsonl")
    t = read_transcript(path)
    assert t.complete
    assert t.header["type"] == "header"
    assert t.header["variant"] == "classic" and t.header["seed"] == 3
    assert t.header["seats"] == list(_seats(classic))
    assert t.header["players"] == dict.fromkeys(_seats(classic), "random")
    assert t.header["options"] == classic.Options().model_dump(mode="json")
    assert t.header["version"] == arena.__version__
    assert t.events == [normalise(e.to_dict()) for e in game.log]
    assert t.summary is not None
    assert {k: t.summary[k] for k in game.summary()} == normalise(game.summary())
    decisions = sum(1 for e in game.log if e.type in ("action", "forfeit"))
    assert t.summary["events"] == len(game.log) and t.summary["decisions"] == decisions
    assert t.summary["forfeits"] == 0 and t.summary["rejections"] == 0
    lines = path.read_text().splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["header"] + ["event"] * len(game.log) + ["summary"]


def test_names_do_not_collide(tmp_path: Path) -> None:
    classic = get_variant("classic")
    paths = {_play_random(tmp_path, classic, 5)[1] for _ in range(3)}
    assert len(paths) == 3


class StopAfter(SyncPlayer):
    """Plays at random, then stops the whole run at its n-th decision (a crash, a human quitting)."""

    def __init__(self, name: str, n: int, script: list[object] | None = None) -> None:
        super().__init__(name)
        self.inner = ScriptThenRandom(name, script or [], 1)
        self.left = n

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Answer:
        self.left -= 1
        if self.left < 0:
            raise StopGame("stopped")
        return self.inner.decide_now(request, view, feedback)


def test_every_event_is_on_disk_before_a_crash(tmp_path: Path) -> None:
    classic = get_variant("classic")
    seats = _seats(classic)
    game = classic(seats, None, 11)
    players = {n: RandomPlayer(n, 11) for n in seats}
    players["Cid"] = StopAfter("Cid", 6)
    writer = TranscriptWriter.create(tmp_path, game, dict.fromkeys(seats, "random"))
    with pytest.raises(StopGame):
        play(game, players, [writer])
    # still open: what is on disk got there by the per-change flush alone
    t = read_transcript(writer.path)
    assert not t.complete and len(t.events) > 20
    assert t.events == [normalise(e.to_dict()) for e in game.log]
    writer.close(game)
    crashed = read_transcript(writer.path)
    assert crashed.summary is None and not crashed.complete
    assert replay(crashed).message().endswith("(crashed game: the transcript has no summary)")


def test_a_stopped_game_is_marked_and_replays(tmp_path: Path) -> None:
    classic = get_variant("classic")
    seats = _seats(classic)
    game = classic(seats, None, 11)
    players = {n: RandomPlayer(n, 11) for n in seats}
    players["Cid"] = StopAfter("Cid", 6)
    writer = TranscriptWriter.create(tmp_path, game, dict.fromkeys(seats, "random"))
    with pytest.raises(StopGame):
        play(game, players, [writer])
    writer.close(game, aborted="Cid quit")
    t = read_transcript(writer.path)
    assert t.aborted == "Cid quit" and not t.complete and t.summary is not None and not t.summary["finished"]
    result = replay(t)
    assert result.ok and result.message() == f"replay OK: {len(game.log)} events identical (stopped game: Cid quit)"


def test_close_writes_the_rejections_of_an_unfinished_batch(tmp_path: Path) -> None:
    classic = get_variant("classic")
    seats = _seats(classic)
    game = classic(seats, None, 2)
    # Ann speaks first on day 1: two answers the engine rejects, then the run stops
    players = {n: RandomPlayer(n, 2) for n in seats}
    players["Ann"] = StopAfter("Ann", 2, [Vote(target="Bob"), Vote(target="Bob")])
    writer = TranscriptWriter.create(tmp_path, game, dict.fromkeys(seats, "random"))
    with pytest.raises(StopGame):
        play(game, players, [writer])
    writer.close(game)
    t = read_transcript(writer.path)
    assert [e["type"] for e in t.events[-2:]] == ["rejected", "rejected"]
    assert t.events == [normalise(e.to_dict()) for e in game.log]
    assert replay(t).ok


def test_reader_tolerates_a_half_written_last_line(tmp_path: Path) -> None:
    _, path = _play_random(tmp_path, get_variant("classic"), 4)
    lines = path.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:40]) + "\n" + lines[40][:25])
    t = read_transcript(cut)
    assert len(t.events) == 39 and t.summary is None
    assert replay(t).ok


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("", "first line must be the header"),
        ('{"type": "event", "event": {"seq": 1}}\n', "first line must be the header"),
        ('{"type": "header", "variant": "classic"}\n', "header lacks"),
        ("not json\n{}\n", "not JSON"),
        ('{"type": "header", "variant": "classic", "options": {}, "seed": 1, "seats": [], "players": {}}\n'
         '{"type": "event", "event": {"seq": 2}}\n', "expected event number 1"),
    ],
)  # fmt: skip
def test_reader_refuses_bad_files_in_one_line(tmp_path: Path, text: str, complaint: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(TranscriptError) as info:
        read_transcript(path)
    assert complaint in str(info.value) and "\n" not in str(info.value)


# ---- replay -----------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_replay_is_identical_for_30_random_games(tmp_path: Path, variant: str) -> None:
    for seed in range(30):
        game, path = _play_random(tmp_path, VARIANTS[variant], seed)
        result = replay(read_transcript(path))
        assert result.ok, f"seed {seed}: {result.message()}"
        assert result.identical == len(game.log) and result.complete


def _with_answers(tmp_path: Path, scripts: dict[str, list[object]], seed: int = 9, **options: object) -> tuple[Game, Path]:
    classic = get_variant("classic")
    seats = _seats(classic)
    game = classic(seats, options, seed)
    players = {n: ScriptThenRandom(n, scripts.get(n, []), seed) for n in seats}
    with TranscriptWriter.create(tmp_path, game, dict.fromkeys(seats, "scripted")) as writer:
        play(game, players, [writer])
    return game, writer.path


def test_replay_with_rejections_and_forfeits(tmp_path: Path) -> None:
    scripts: dict[str, list[object]] = {
        # Ann speaks first: accuses herself (rejected), a raw non-action (rejected), then gives up
        "Ann": [Speak(accuse="Ann"), {"kind": "shout"}, None],
        # Bob: three rejected answers in a row -> forfeit after retries
        "Bob": [Verdict(yes=True), Kill(target="Ann"), Speak(speech="x", accuse="Bob")],
        # Cid: a silent vote with speech (rejected), then a fine vote
        "Cid": [Speak(speech="hi"), Speak(), Verdict(yes=True, speech="I say yes")],
    }
    game, path = _with_answers(tmp_path, scripts)
    t = read_transcript(path)
    kinds = [(e["type"], e.get("actor")) for e in t.events if e["type"] in ("rejected", "forfeit")]
    assert ("forfeit", "Ann") in kinds and ("forfeit", "Bob") in kinds
    assert sum(1 for k in kinds if k == ("rejected", "Bob")) == 3
    assert any("raw" in e["data"] for e in t.events if e["type"] == "rejected")
    assert t.summary is not None and t.summary["forfeits"] >= 2 and t.summary["rejections"] >= 6
    result = replay(t)
    assert result.ok, result.message()
    assert result.message() == f"replay OK: {len(game.log)} events identical"


class Flaky:
    """An asynchronous player (the event-loop path): errors, timeouts, raw answers, then random."""

    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self.inner = RandomPlayer(name, seed)
        self.calls = 0

    async def decide(self, request: DecisionRequest, view: View, feedback: str | None) -> Answer:
        self.calls += 1
        await asyncio.sleep(0)  # let simultaneous decisions interleave
        if self.calls % 7 == 3:
            raise RuntimeError("provider said no")
        if self.calls % 7 == 5:
            raise TimeoutError
        if self.calls % 11 == 4:
            return Malformed("{not json", "bad JSON")
        return self.inner.decide_now(request, view, feedback)


def test_replay_of_an_event_loop_game_with_errors_and_timeouts(tmp_path: Path) -> None:
    classic = get_variant("classic")
    seats = _seats(classic)
    game = classic(seats, None, 21)
    players = {n: Flaky(n, 21) for n in seats}
    with TranscriptWriter.create(tmp_path, game, dict.fromkeys(seats, "flaky")) as writer:
        play(game, players, [writer])
    t = read_transcript(writer.path)
    types = {e["type"] for e in t.events}
    assert {"player_error", "player_timeout", "rejected", "forfeit"} <= types
    result = replay(t)
    assert result.ok, result.message()


def _rewrite(path: Path, change) -> Path:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    change(lines)
    out = path.with_name("changed-" + path.name)
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return out


def test_replay_reports_the_first_difference(tmp_path: Path) -> None:
    _, path = _play_random(tmp_path, get_variant("classic"), 6)

    def flip_first_verdict(lines: list[dict]) -> None:
        for line in lines:
            event = line.get("event", {})
            if event.get("type") == "action" and event["data"]["action"]["kind"] == "verdict":
                action = event["data"]["action"]
                action["yes"] = not action.get("yes", False)
                return

    result = replay(read_transcript(_rewrite(path, flip_first_verdict)))
    assert not result.ok
    assert result.message().startswith("replay FAILED: event ")

    def other_seed(lines: list[dict]) -> None:
        lines[0]["seed"] = 7

    assert not replay(read_transcript(_rewrite(path, other_seed))).ok

    def other_winner(lines: list[dict]) -> None:
        lines[-1]["winner"] = "nobody"

    result = replay(read_transcript(_rewrite(path, other_winner)))
    assert not result.ok and "summary winner" in result.message()
