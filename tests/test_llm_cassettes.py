"""One OpenAI and one Anthropic decision replayed from vcrpy cassettes (tests/cassettes/).

By default the cassettes are only replayed: no server, no network, no key. To re-record them:

- ``ARENA_RECORD=loopback pytest tests/test_llm_cassettes.py`` records against tests/llm_server.py;
- ``ARENA_RECORD=real pytest tests/test_llm_cassettes.py`` records against the real providers
  (needs OPENAI_API_KEY and ANTHROPIC_API_KEY; models from ARENA_RECORD_OPENAI_MODEL and
  ARENA_RECORD_ANTHROPIC_MODEL, default gpt-4.1-mini and claude-haiku-4-5).

Authorization headers are filtered before anything is written (docs/llm.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from pathlib import Path

import pytest
import vcr
import yaml

from arena.players.llm import close_clients, make_llm_player
from arena.variants import VARIANTS
from tests.llm_server import FakeModelServer

CASSETTES = Path(__file__).parent / "cassettes"
RECORD = os.environ.get("ARENA_RECORD", "")
SECRET_HEADERS = ("authorization", "x-api-key", "openai-organization", "openai-project", "cookie", "set-cookie")
MODELS = {
    "openai": os.environ.get("ARENA_RECORD_OPENAI_MODEL", "gpt-4.1-mini"),
    "anthropic": os.environ.get("ARENA_RECORD_ANTHROPIC_MODEL", "claude-haiku-4-5"),
}


def recorder_vcr() -> vcr.VCR:
    return vcr.VCR(
        cassette_library_dir=str(CASSETTES),
        record_mode="all" if RECORD else "none",
        filter_headers=list(SECRET_HEADERS),
        match_on=("method", "path"),  # the host differs between a recording and a replay
        decode_compressed_response=True,
    )


def first_decision():
    cls = VARIANTS["classic"]
    # the recorded decision is P1's opening speech: day 1 opens at the first seat
    game = cls([f"P{i}" for i in range(1, 10)], {"speaking_order": "rotate"}, seed=7)
    request = game.pending()[0]
    return game, request, game.view(request.player)


@pytest.mark.skipif(RECORD not in ("", "loopback", "real"), reason="ARENA_RECORD must be loopback or real")
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_one_decision_through_the_sdk(provider, monkeypatch):
    cassette = f"{provider}_decision.yaml"
    if RECORD != "real":
        monkeypatch.setenv(f"{provider.upper()}_API_KEY", "test")
    game, request, view = first_decision()

    async def decide(spec: str):
        player = make_llm_player(spec, request.player, 7, variant="classic", attempts=1)
        with recorder_vcr().use_cassette(cassette):
            answer = await player.decide(request, view, None)
        await close_clients()
        return player, answer

    with contextlib.ExitStack() as stack:
        if RECORD == "real":
            spec = f"{provider}:{MODELS[provider]}"
        elif RECORD == "loopback":
            # a seed whose random answers are legal: the stand-in picks among all of the seat's fixed tools,
            # drawn from the request's digest, so a changed prompt may need another seed when re-recorded
            server = stack.enter_context(FakeModelServer(seed=75))
            spec = f"{provider}:{MODELS[provider]}@{server.openai_url if provider == 'openai' else server.anthropic_url}"
        else:  # replay: nothing listens here, every byte comes from the cassette
            spec = f"{provider}:{MODELS[provider]}@http://127.0.0.1:9" + ("/v1" if provider == "openai" else "")
        player, answer = asyncio.run(decide(spec))

    assert answer is not None and game.validate(request, answer) is None, answer
    (call,) = player.calls
    assert call["outcome"] == "ok" and call["usage"]["input_tokens"] > 0 and call["usage"]["output_tokens"] > 0
    assert player.conversation.messages[-1]["role"] == "assistant"

    recorded = yaml.safe_load((CASSETTES / cassette).read_text())
    (interaction,) = recorded["interactions"]
    headers = {name.lower() for name in interaction["request"]["headers"]}
    assert not headers & set(SECRET_HEADERS), "credentials must never be recorded"
    body = json.loads(interaction["request"]["body"])
    sent_tools = [t.get("name") or t["function"]["name"] for t in body["tools"]]
    assert sent_tools == list(request.repertoire.kinds)  # the seat's fixed tools: every kind it may use all game
    choice = body["tool_choice"]
    if provider == "anthropic":
        assert choice["type"] == "any"  # never changes: a change would invalidate the cached messages
    else:  # "required", or narrowed to the legal kinds without touching the tools (official endpoint)
        assert choice == "required" or [t["function"]["name"] for t in choice["allowed_tools"]["tools"]] == ["speak"]
