"""Reports of the tables users actually build: bots, random seats, model seats, a dead endpoint and a
person who quit, side by side; games cut off mid-way and games stopped before their end.

A seat that made no model call next to one that did once crashed every page (the usage table
asked a bot seat for its ``calls``), and then a folder report stopped at the first such game.
Each transcript here must give a page (``arena report``), a terminal view (``arena show``) and a
place in a folder's index; a file that cannot be drawn costs its own page only.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.players.human import HumanPlayer
from arena.players.human.keyboard import EOF, Key
from arena.players.llm import close_clients, make_llm_player
from arena.players.registry import make_player
from arena.report.html import render_game
from arena.report.story import build_story
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import run
from arena.run.transcript import TranscriptWriter, read_transcript
from arena.variants import get_variant
from tests.llm_server import FakeModelServer
from tests.test_human import Keys, recording_console

FAST = {"backoff": 0.001, "max_backoff": 0.01, "timeout": 5.0, "price_input": 1.0, "price_output": 4.0}


@pytest.fixture(autouse=True)
def _no_real_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)


class QuitsAfter(Keys):
    """A person who answers a few questions with the first choice, then closes the terminal."""

    def __init__(self, answers: int) -> None:
        super().__init__(lambda prompt, words: "1")
        self.left = answers

    async def read(self, prompt: str, words: Sequence[str] = (), **_: Any) -> str | Key:
        self.left -= 1
        return EOF if self.left < 0 else "" if prompt == "claim> " else "1"  # no claim: Enter


def _dead_url() -> str:
    """A loopback address nobody listens on (a server started and stopped at once)."""
    with FakeModelServer(seed=0) as server:
        url = server.openai_url
    return url


def _play(directory: Path, variant: str, n: int, specs: dict[str, str], seed: int, options: dict[str, Any] | None = None) -> Path:
    """One game through the real orchestrator and transcript writer; ``specs`` overrides the bot default."""
    cls = get_variant(variant)
    game = cls(list(DEFAULT_NAMES[:n]), options or {}, seed)
    seats = {name: specs.get(name, "bot") for name in game.seats}
    opts = game.options.model_dump(mode="json")

    async def go() -> Path:
        with TranscriptWriter.create(directory, game, seats) as writer:
            players: dict[str, Any] = {}
            for name, spec in seats.items():
                if spec == "human-quit":
                    players[name] = HumanPlayer(name, console=recording_console(), keyboard=QuitsAfter(5))
                elif spec in ("bot", "random"):
                    players[name] = make_player(spec, name, seed)
                else:
                    players[name] = make_llm_player(
                        spec, name, seed, recorder=writer.recorder(name), variant=variant, options=opts, **FAST
                    )
            writer.track_usage(players)
            aborted = None
            try:
                await run(game, players, [writer])
            except Exception as exc:  # the human quit: the orchestrator stops the game
                aborted = str(exc) or type(exc).__name__
            finally:
                await close_clients()
            writer.close(game, aborted=None if game.finished else (aborted or "stopped"))
            return writer.path

    return asyncio.run(go())


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("tables")
    dead = _dead_url()
    out: dict[str, Path] = {}
    with FakeModelServer(seed=5) as server:
        openai = f"openai:fake@{server.openai_url}"
        anthropic = f"anthropic:fake@{server.anthropic_url}"
        out["model+bot"] = _play(directory, "classic", 7, {"Ann": openai}, 4)
        out["model+random+bot"] = _play(directory, "cove", 10, {"Bob": anthropic, "Cid": "random", "Dee": openai}, 2)
        out["dead model+bot"] = _play(directory, "classic", 6, {"Eve": f"openai:fake@{dead}?attempts=1"}, 3, {"max_days": 1})
        out["human quit+model+bot"] = _play(directory, "classic", 7, {"Ann": "human-quit", "Cid": openai}, 6)
        out["duel model+bot"] = _play(directory, "duel", 2, {"Ann": anthropic}, 7, {"hands": 1, "beats": 4})
        out["trio random+model"] = _play(directory, "trio", 3, {"Bob": "random", "Cid": openai}, 8, {"hands": 1})
    full = out["model+random+bot"].read_text(encoding="utf-8").splitlines(keepends=True)
    cut = directory / "cut-off.jsonl"  # the machine died mid-game: no summary, the last line half-written
    cut.write_text("".join(full[: len(full) // 2]) + full[len(full) // 2][:40], encoding="utf-8")
    out["cut off"] = cut
    return out


def test_the_tables_are_what_they_claim(tables: dict[str, Path]) -> None:
    """The fixture's games are the mixes the other tests rely on (else they would prove little)."""
    for key, path in tables.items():
        transcript = read_transcript(path)
        with_calls = {record["player"] for record in transcript.calls}
        assert with_calls and set(transcript.header["seats"]) - with_calls, f"{key}: seats with and without model calls"
    dead = read_transcript(tables["dead model+bot"])
    assert dead.calls and all(c["call"]["outcome"] != "ok" for c in dead.calls), "the dead endpoint never answered"
    assert not next(s for s in build_story(dead).seats if s.name == "Eve").usage.input_tokens
    quit_ = read_transcript(tables["human quit+model+bot"])
    assert quit_.aborted and quit_.summary is not None and not quit_.summary["finished"]
    assert read_transcript(tables["cut off"]).summary is None


@pytest.mark.parametrize(
    "key",
    ["model+bot", "model+random+bot", "dead model+bot", "human quit+model+bot", "duel model+bot", "trio random+model", "cut off"],
)
def test_every_mixed_table_gives_a_page_and_a_terminal_view(
    tables: dict[str, Path], key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tables[key]
    story = build_story(read_transcript(path))
    html = render_game(read_transcript(path))
    assert html.startswith("<!DOCTYPE html>")
    if story.calls:
        assert "tokens out" in html  # the usage table, with empty cells for seats that made no call
    assert main(["report", str(path), "-o", str(tmp_path / "page.html")]) == 0
    assert main(["show", str(path)]) == 0
    for seat in story.seats:
        assert main(["show", str(path), "--as", seat.name]) == 0
        assert main(["report", str(path), "--as", seat.name, "-o", str(tmp_path / f"{seat.name}.html")]) == 0
        own = build_story(read_transcript(path), seat.name)
        assert {s.name for s in own.seats if s.usage} <= {seat.name}, "a seat's page counts only its own model calls"
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err


def test_a_folder_of_every_table_and_a_broken_file(
    tables: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "all"
    folder.mkdir()
    for path in tables.values():
        (folder / path.name).write_bytes(path.read_bytes())
    (folder / "not-a-game.jsonl").write_text("{\n", encoding="utf-8")
    assert main(["report", str(folder)]) == 0
    out = capsys.readouterr()
    assert f"({len(tables)} games; 1 unreadable" in out.out
    warnings = [line for line in out.err.splitlines() if line.strip()]
    assert len(warnings) == 1 and warnings[0].startswith("warning: skipped") and "not-a-game.jsonl" in warnings[0]
    pages = list((folder / "report" / "games").glob("*.html"))
    assert len(pages) == len(tables)
    assert (folder / "report" / "index.html").read_text(encoding="utf-8").count('href="games/') == len(tables)


def test_a_game_that_cannot_be_drawn_costs_its_own_page_only(
    tables: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever goes wrong in one game's page (here: a story that fails to build), the rest is written."""
    import arena.report.folder as folder_module

    real = folder_module.build_story
    poisoned = tables["duel model+bot"].name

    def fragile(transcript: Any, *args: Any, **kwargs: Any) -> Any:
        if transcript.path.name == poisoned:
            raise KeyError("calls")
        return real(transcript, *args, **kwargs)

    monkeypatch.setattr(folder_module, "build_story", fragile)
    folder = tmp_path / "some"
    folder.mkdir()
    for path in tables.values():
        (folder / path.name).write_bytes(path.read_bytes())
    assert main(["report", str(folder)]) == 0
    out = capsys.readouterr()
    warnings = out.err.strip().splitlines()
    assert len(warnings) == 1 and poisoned in warnings[0] and "KeyError" in warnings[0]
    assert len(list((folder / "report" / "games").glob("*.html"))) == len(tables) - 1


def test_a_tournament_of_bots_and_a_model_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model-vs-bot tournament: the report's game pages mix seats with and without calls."""
    monkeypatch.chdir(tmp_path)
    with FakeModelServer(seed=9) as server:
        config = tmp_path / "t.toml"
        config.write_text(
            f'name = "mixed"\nseed = 1\ngames = 2\ndatabase = "mixed.sqlite"\ntranscripts = "tx"\n'
            f'[models]\nbot = "bot"\nfake = "openai:fake@{server.openai_url}?timeout=5&backoff=0.001"\n'
            '[[variants]]\nname = "classic"\nplayers = 7\n',
            encoding="utf-8",
        )
        assert main(["tournament", str(config), "--quiet"]) == 0
    assert main(["report", "mixed.sqlite"]) == 0
    out = capsys.readouterr()
    assert "without a page" not in out.out and not out.err.strip()
    pages = list((tmp_path / "mixed-report" / "games").glob("*.html"))
    assert pages and all("tokens out" in p.read_text(encoding="utf-8") for p in pages)


def test_a_tournaments_index_names_each_models_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two entrants of one model name on two servers: the index shows each one's spec with its
    endpoint beside its name (and the leaderboard's first line), and never the key it sent."""
    monkeypatch.chdir(tmp_path)
    key = "sk-arena-test-0123456789abcdef"
    monkeypatch.setenv("ARENA_TEST_SERVER_KEY", key)
    with FakeModelServer(seed=4) as one, FakeModelServer(seed=5) as two:
        specs = {name: f"openai:m@{server.openai_url}" for name, server in (("first", one), ("second", two))}
        config = tmp_path / "t.toml"
        config.write_text(
            'name = "servers"\nseed = 1\ngames = 2\ndatabase = "servers.sqlite"\ntranscripts = "tx"\n[models]\n'
            + "".join(
                f'{name} = {{ spec = "{spec}", api_key_env = "ARENA_TEST_SERVER_KEY", timeout = 5, backoff = 0.001 }}\n'
                for name, spec in specs.items()
            )
            + '[[variants]]\nname = "classic"\nplayers = 6\noptions = { discussion_rounds = 1, max_days = 2 }\n',
            encoding="utf-8",
        )
        assert main(["tournament", str(config), "--quiet"]) == 0
    assert specs["first"] != specs["second"]
    assert main(["report", "servers.sqlite"]) == 0
    capsys.readouterr()
    html = (tmp_path / "servers-report" / "index.html").read_text(encoding="utf-8")
    models = html[html.index('id="models"') :].split("</table>")[0]
    for name, spec in specs.items():
        assert f'title="its games">{name}</a></td><td><code>{spec}</code></td>' in models, models
    assert key not in html
    assert main(["leaderboard", "servers.sqlite", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["specs"] == specs


def test_a_spec_is_shown_without_any_key() -> None:
    from arena.players.redact import REDACTED, redact_spec

    assert redact_spec("openai:smollm2@http://127.0.0.1:18080/v1") == "openai:smollm2@http://127.0.0.1:18080/v1"
    assert redact_spec("bot") == "bot"
    shown = redact_spec("openai:m@https://me:hunter2-secret@host:8443/v1?temperature=0&api_key=abc&token=xyz")
    assert shown == f"openai:m@https://host:8443/v1?temperature=0&api_key={REDACTED}&token={REDACTED}"
