"""The price before a run (arena/tournament/estimate.py): a tournament's likely dollars from the
dollars table and its design, printed before the first game, with whether cost_cap is likely
reached; and the dollars table's own arithmetic (benchmarks/dollars.py)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.players.llm.profiles import load_profiles, resolve_spec
from arena.tournament.config import parse_tournament
from arena.tournament.design import build_design
from arena.tournament.estimate import LIKELY_GAMES, OUTPUT_WORDS, estimate_lines, seat_dollars
from arena.tournament.runner import check_models, run_tournament
from tests.llm_server import FakeModelServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


def config(tmp_path: Path, **extra: Any) -> Any:
    data = {
        "name": "priced", "games": 4, "database": str(tmp_path / "p.sqlite"), "transcripts": str(tmp_path / "tr"),
        "models": {"mini": "openai:gpt-4.1-mini", "sonnet": "sonnet"},
        "variants": [{"name": "classic", "players": 9}],
        **extra,
    }  # fmt: skip
    return parse_tournament(data)


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-estimate")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-estimate")


def test_a_fixed_design_is_priced_seat_by_seat(tmp_path):
    cfg = config(tmp_path)
    (line,) = estimate_lines(cfg, check_models(cfg))
    tables = load_profiles()
    mini, sonnet = resolve_spec("gpt-4.1-mini", tables), resolve_spec("sonnet", tables)
    expected = 0.0
    for spec in build_design(cfg):
        game = spec.make_game()
        for entry in spec.assignment(game).values():
            expected += seat_dollars(mini if entry.name == "mini" else sonnet, "classic", 9, 0)
    assert f"estimated cost: ${expected:,.2f} for {len(build_design(cfg))} games" in line
    assert f"; {OUTPUT_WORDS} (docs/llm.md, Dollars)" in line and expected > 0
    # a seat of sonnet costs more than one of gpt-4.1-mini, a bigger table more than a smaller one
    assert seat_dollars(sonnet, "classic", 9, 0) > seat_dollars(mini, "classic", 9, 0) > seat_dollars(mini, "classic", 7, 0)
    # folded history costs less than the full one
    full = mini.model_copy(update={"history": "full"})
    assert seat_dollars(full, "classic", 9, 0) > seat_dollars(mini, "classic", 9, 0)


def test_the_cap_is_said_likely_reached_or_not(tmp_path):
    low = config(tmp_path, cost_cap=0.5)
    lines = estimate_lines(low, check_models(low))
    assert len(lines) == 2 and lines[1].startswith("cost_cap $0.50 likely reached after about")
    high = config(tmp_path, cost_cap=10_000.0)
    assert estimate_lines(high, check_models(high))[1] == "cost_cap $10000.00 not likely reached"
    spent = estimate_lines(high, check_models(high), spent=9_999.99)  # a resumed run counts what it spent
    assert "likely reached after about 0 more games" in spent[1]


def test_until_decided_gives_a_likely_range_within_max_games(tmp_path):
    cfg = config(tmp_path, until_decided=True, max_games=600)
    (line,) = estimate_lines(cfg, check_models(cfg))
    assert f"({LIKELY_GAMES[0]} games, a clear difference)" in line
    assert "(600 games, two close models)" in line and "at most" in line


def test_bots_cost_nothing_and_unknown_prices_are_said(tmp_path):
    bots = config(tmp_path, models={"bot": "bot", "random": "random"})
    assert estimate_lines(bots, check_models(bots)) == []
    server = config(tmp_path, models={"mine": "openai:m@http://127.0.0.1:9/v1", "bot": "bot"})
    assert estimate_lines(server, check_models(server)) == ["estimated cost: price unknown (no prices for mine)"]


def test_a_model_without_prices_costs_unknown_not_zero(tmp_path, capsys):
    """A server model with no prices: its games' lines say "price unknown", the leaderboard shows no
    cost for it (a bot's stays $0), and games.json / games.csv hold null / empty, not 0.0."""
    import csv

    from arena.cli import main
    from arena.report.tournament import report_database

    lines: list[str] = []
    with FakeModelServer(seed=5) as server:
        data = {
            "name": "unpriced", "games": 2, "concurrency": 1, "database": str(tmp_path / "u.sqlite"),
            "transcripts": str(tmp_path / "tr"),
            "models": {"bot": "bot", "srv": {"spec": f"openai:m@{server.openai_url}?structured=tools", "timeout": 20.0}},
            "variants": [{"name": "classic", "players": 6, "options": {"discussion_rounds": 1, "max_days": 2}}],
        }  # fmt: skip
        asyncio.run(run_tournament(parse_tournament(data), lines.append))
    lines = [line for line in lines if "(checked in" not in line]  # the check's line for the server comes first
    assert lines[0] == "estimated cost: price unknown (no prices for srv)"
    assert all(line.endswith("price unknown") for line in lines[1:]), lines
    assert main(["leaderboard", str(tmp_path / "u.sqlite")]) == 0
    rows = [x for x in capsys.readouterr().out.splitlines() if x.startswith("cost / game ($)")]
    assert rows and all(row.split()[-1] == "unknown" and "0.0000" in row for row in rows)  # bot $0, srv unknown
    report_database(tmp_path / "u.sqlite", tmp_path / "report")
    games = json.loads((tmp_path / "report" / "games.json").read_text())
    assert len(games) == 2 and all(g["cost"] is None for g in games)
    with (tmp_path / "report" / "games.csv").open() as file:
        assert all(row["cost"] == "" for row in csv.DictReader(file))


def test_the_estimate_is_printed_before_the_first_game(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    lines: list[str] = []
    with FakeModelServer(seed=5) as server:
        model = {"spec": f"openai:an@{server.openai_url}", "price_input": 2.0, "price_output": 8.0, "timeout": 20.0}
        data = {
            "name": "capped", "games": 4, "concurrency": 1, "cost_cap": 0.0001,
            "database": str(tmp_path / "c.sqlite"), "transcripts": str(tmp_path / "tr"),
            "models": {"bot": "bot", "an": model},
            "variants": [{"name": "classic", "players": 6, "options": {"discussion_rounds": 1, "max_days": 2}}],
        }  # fmt: skip
        report = asyncio.run(run_tournament(parse_tournament(data), lines.append))
    lines = [line for line in lines if "(checked in" not in line]  # the check's line for the server comes first
    assert report.cap_reached
    assert lines[0].startswith("estimated cost: $") and "for 4 games" in lines[0]
    assert lines[1].startswith("cost_cap $0.00 likely reached after about 0 more games")
    assert any(line.startswith("[1/4]") for line in lines[2:])


def test_the_dollars_table_prices_cache_reads_and_writes_as_each_provider_does():
    import dollars

    tally = dollars.Tally(games=1, calls=10, prompt=100_000, cached=90_000, written=10_000)
    tables = load_profiles()
    mini, haiku = resolve_spec("gpt-4.1-mini", tables), resolve_spec("haiku", tables)
    # OpenAI: 10k uncached at 0.40, 90k cached at 0.10, 10 × 150 output at 1.60 (per million)
    assert tally.dollars(mini, 150) == pytest.approx((10_000 * 0.40 + 90_000 * 0.10 + 1_500 * 1.60) / 1e6)
    # Anthropic: 90k reads at 0.10, 10k writes at 1.25, output at 5.00
    assert tally.dollars(haiku, 150) == pytest.approx((90_000 * 0.10 + 10_000 * 1.25 + 1_500 * 5.00) / 1e6)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("limit", [300, 120, 0])
def test_the_thought_bound_is_in_the_schema_and_stated_in_the_question(provider, limit):
    """The bound a profile sets (``max_thought``, 0 = none) is pydantic's ``maxLength`` on every
    tool's ``thought`` (folded into the description in OpenAI's strict mode), and the question
    states the number the schema carries."""
    from typing import Annotated

    from pydantic import Field, TypeAdapter

    from arena.players.llm import make_llm_player
    from tests.test_llm_cassettes import first_decision

    _, request, view = first_decision()
    player = make_llm_player(f"{provider}:m@http://127.0.0.1:9/v1?max_thought={limit}", request.player, 1, variant="classic")
    kwargs, _, schemas, _ = player.prepare(request, view, None)
    assert schemas.thought_limit == (limit or None)
    question = player.conversation.messages[-1]["content"]
    assert (f"Keep `thought` within {limit} characters." in question) == bool(limit)
    for tool in kwargs["tools"]:
        thought = (tool.get("input_schema") or tool["function"]["parameters"])["properties"]["thought"]
        text = json.dumps(thought)
        if not limit:
            assert "maxLength" not in text and "at most" not in text
        elif provider == "anthropic":  # sent as pydantic made it
            bounded = TypeAdapter(Annotated[str | None, Field(max_length=limit)]).json_schema()
            assert thought["anyOf"] == bounded["anyOf"]
        else:  # strict mode keeps no maxLength: the model reads it in the description
            assert f"at most {limit} characters" in text and "maxLength" not in text


def test_a_server_that_does_not_report_cached_tokens_reads_unknown_not_zero():
    """llama-cpp-python's server reuses the prefix but reports no cached tokens: the seat's usage
    counts such calls, the end-of-game table says "unknown" and the summary a null hit rate."""
    import io
    from types import SimpleNamespace

    from rich.console import Console

    from arena.cli.usage_table import print_usage
    from arena.players.llm.usage import Usage, anthropic_usage, openai_usage

    silent = openai_usage(SimpleNamespace(prompt_tokens=900, completion_tokens=30, prompt_tokens_details=None))
    told = openai_usage(
        SimpleNamespace(prompt_tokens=900, completion_tokens=30, prompt_tokens_details=SimpleNamespace(cached_tokens=0))
    )
    assert silent["cache_unknown"] == 1 and "cache_unknown" not in told and told["cached_tokens"] == 0
    assert anthropic_usage(SimpleNamespace(input_tokens=10, output_tokens=3))["cache_unknown"] == 1
    assert "cache_unknown" not in anthropic_usage(
        SimpleNamespace(input_tokens=10, output_tokens=3, cache_read_input_tokens=0, cache_creation_input_tokens=0)
    )
    rows = {}
    for name, tokens in (("Ann", silent), ("Bob", told)):
        usage = Usage(model="m")
        usage.add(tokens, 0.0)
        usage.add(tokens, 0.0)
        rows[name] = SimpleNamespace(usage=usage, spec=f"openai:m@http://127.0.0.1:8080/v1#{name}")
    assert rows["Ann"].usage.as_dict()["cache_hit_rate"] is None and rows["Bob"].usage.as_dict()["cache_hit_rate"] == 0.0
    console = Console(file=io.StringIO(), width=120, record=True)
    print_usage(console, rows, 1.0)
    text = console.export_text()
    cell = {n: [c.strip() for c in next(x for x in text.splitlines() if f"│ {n}" in x).split("│")[1:-1]][4] for n in rows}
    assert cell == {"Ann": "unknown", "Bob": "0%"}


def test_the_dollars_table_prices_each_answer_at_its_decisions_bounds_and_splits_each_request():
    """Output: the thought at the profile's bound, the speech at the decision's where it talks, 4
    characters a token, plus the call's form (the same for both histories); a request's tokens split
    into the tools and system prompt, a folded seat's record, the rest of the history and the newest
    message, in that order, covering the whole prompt."""
    from types import SimpleNamespace

    import dollars

    from tests.llm_server import prompt_text

    profile = SimpleNamespace(max_thought=200)
    vote = SimpleNamespace(talk=None, max_speech=600)
    speech = SimpleNamespace(talk="all", max_speech=600)
    assert dollars.answer_bound(vote, profile) == 50 + dollars.CALL_TOKENS
    assert dollars.answer_bound(speech, profile) == 200 + dollars.CALL_TOKENS
    record = "The game's record, as the moderator keeps it for you: …\n- Day 1 begins.\n"
    record += "(The record above is the game before day 2.)"
    body = {
        "tools": [{"type": "function", "function": {"name": "speak"}}],
        "messages": [
            {"role": "system", "content": "You are playing Mafia."},
            {"role": "user", "content": record + "\n\nSince your last turn:\n- Day 2 begins.\n\nYour turn."},
            {"role": "assistant", "content": "{}"},
            {"role": "user", "content": "Since your last turn:\n- P3 spoke.\n\nYour turn."},
        ],
    }
    text = prompt_text("openai", body)
    fixed, kept, rest, end = dollars.split(text, body)
    assert text[:fixed].endswith("You are playing Mafia.") and text[fixed:kept].strip().endswith("before day 2.)")
    assert text[rest:] == "\nuser: Since your last turn:\n- P3 spoke.\n\nYour turn." and end == len(text)
    # a fold at a call with news: the record closes with the note of its news, the question after it
    today = "\n\nToday so far, …:\n- Day 2 begins.\n(New since your last turn: the last 2 entries above.)"
    folded = {**body, "messages": [body["messages"][0], {"role": "user", "content": record + today + "\n\nYour turn."}]}
    text = prompt_text("openai", folded)
    fixed, kept, rest, end = dollars.split(text, folded)
    assert text[fixed:kept].strip().endswith("entries above.)") and text[kept:] == "\n\nYour turn." and rest == kept
    tally = dollars.Tally()
    dollars.count([{"player": "Ann", "output": 75, **body}], tally)
    assert tally.output == 75 and sum(sum(v) for v in tally.parts.values()) == pytest.approx(tally.prompt, abs=4)


def test_the_stand_in_answers_at_the_bounds_the_output_is_priced_at():
    """benchmarks/dollars.py has the stand-in answer with every thought and speech at its bound, so
    the history read back holds answers as long as the output priced; by default they stay short."""
    import random

    import dollars

    from tests.llm_server import Generator

    schema = {
        "type": "object",
        "properties": {"thought": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "speech": {"type": "string"}},
        "required": ["thought", "speech"],
    }
    for seed in range(20):
        full = Generator(random.Random(seed), "Ann", seed, dollars.ANSWER_CHARS).value(schema)
        assert len(full["thought"]) == 200 and len(full["speech"]) == 600 and full["thought"].startswith("SECRET-Ann-")
    short = [Generator(random.Random(seed), "Ann", seed).value(schema) for seed in range(20)]
    assert any(a["thought"] is None for a in short) and all(len(a["speech"]) < 100 for a in short)
