"""A model seat's history folded into a record (profile ``history = "days"``, docs/llm.md): at every
decision of bot-played games of every variant, each fact of the seat's view that the full prompt
carries — deaths and cards, votes by name, who spoke, accusations and nominations, claims, checks,
partners, scores — is found, unchanged, in the folded prompt, and so is every word said today (the
mafia channel's too) and every thought of the seat's today; every call with news is folded, and
within a day each record starts with the previous one byte for byte (its prefix stays cacheable,
on Anthropic as whole blocks); a resumed game with folded seats sends the same prompts as the
uninterrupted one."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from arena.engine import DecisionRequest, Event, View, dump_action
from arena.players.base import SyncPlayer
from arena.players.bot.player import BotPlayer
from arena.players.llm.prompt import BOUNDARIES, MOVE_EVENTS, Conversation, _quote, event_context, make_env
from arena.players.random import RandomPlayer
from arena.run.orchestrator import run_sync
from arena.variants import VARIANTS
from tests.test_prompts import INTERNAL, WORDING, _plain_part

#: events whose sentence is the same in the full prompt and in the record of earlier days
SAME_SENTENCE = frozenset({
    "role", "team", "death", "vote_result", "accusation", "check_result", "morning", "channel_result", "hand_over",
    "lot", "charged", "cleared", "spared", "trial", "acquitted", "runoff", "cop_look", "card_placed", "kill",
    "kill_void", "judge_ruling", "retracted", "handshake", "cop_declared", "declaration_void", "peek", "forfeit",
})  # fmt: skip
#: events whose sentence ends with a reminder of the rules (what comes next), left out of the record
RULE_TAIL = {"charged": ": the defence comes next", "cleared": "; the discussion goes on", "spared": "; the discussion goes on"}
#: the heading of today's part of the record (folded after an accusation or a trial's start or end)
TODAY = "Today so far, as the record keeps it"
#: what the Twins count: folds, folds whose record grew the previous one, news notes checked, facts, prompt sizes
COUNTS = ("folds", "grown", "news", "checked", "in_full", "chars_full", "chars_days")
#: the note after the record of a fold that says how many of its last entries are news to the seat
NEWS = "\n(New since your last turn: the last "
CLAIM = re.compile(r"\[claim: [^\]]*\]")
#: the speeches whose speaker is said in words, by kind ("P3 (in their defence) says:", "P3 spoke (in their defence).")
SPOKEN = {
    "discussion": "in the discussion", "defence": "in their defence", "floor": "given the floor", "last_words": "last words",
}  # fmt: skip


def sentence(event: Event, me: str, before: Event | None = None) -> str:
    """The event's own sentence as the observations block writes it (no heading, no list mark);
    ``before``: the event it follows, where its sentence depends on it (a channel's result after the night's lot)."""
    events = [event_context(e, me) for e in (before, event) if e is not None]
    text = make_env().get_template("blocks/observations.j2").render(events=events, me=me)
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    assert len(lines) == 1, text
    line = lines[0][2:]
    line = line.split(" A tie or too few accused left")[0]  # a runoff lot's reason: said once for two lots
    if event.type in RULE_TAIL:  # the fact, without the reminder of what comes next (not in the record)
        return line.split(RULE_TAIL[event.type])[0]
    return line.split(" The mafia meet on the first night")[0]  # said only when the team is still unknown


def facts(view: View, me: str) -> list[tuple[str, Any]]:
    """Every fact of the view so far, each as what a prompt must show for it; and the words of every
    speech and the seat's every thought of the current day (the record keeps them within a day)."""
    out: list[tuple[str, Any]] = []
    events = list(view.events)
    answer = ""  # the seat's latest answer as the record says it ("a handshake offer")
    today = max((e.day for e in events if e.type in BOUNDARIES), default=0)  # (cove: its night opens the day)
    spoken: dict[tuple[str, str], int] = {}  # how often each player has spoken so far, by kind of speech
    for i, event in enumerate(events):
        before = events[i - 1] if i else None
        after = events[i + 1] if i + 1 < len(events) else None
        said = event.type == "speech" and event.data.get("kind") != "channel"
        if said and event.data.get("kind") in SPOKEN:  # who spoke, and in what turn: the n-th speech of its kind
            key = ("You" if event.actor == me else str(event.actor), str(event.data["kind"]))
            spoken[key] = spoken.get(key, 0) + 1
            out.append(("spoke", (*key, spoken[key])))
        if event.type == "speech" and event.day >= today and event.data.get("text"):  # the mafia channel's too
            out.append(("words", event.data["text"]))
        thought = event.data["action"].thought if event.type == "action" else None
        if thought and event.day >= today:
            out.append(("words", thought))
        if event.type == "action" and event.actor == me:
            rendered = make_env().get_template("blocks/observations.j2").render(events=[event_context(event, me)], me=me)
            answer = rendered.split("Your answer: ", 1)[-1].strip()
        if event.type == "lot" and event.data.get("why") == "night_kill" and after is not None and after.type == "channel_result":
            continue  # the channel's result, next, says the lot
        if event.type == "channel_result" and before is not None and before.type == "lot":
            out.append(("sentence", sentence(event, me, before)))
        elif event.type in MOVE_EVENTS.values() and event.actor == me:
            out.append(("move", (sentence(event, me), answer)))  # McKay's record: the answer line states it
        elif event.type in SAME_SENTENCE:
            out.append(("sentence", sentence(event, me)))
        elif event.type == "speech" and event.data.get("kind") != "channel":
            data = event.data
            who = "You" if event.actor == me else str(event.actor)
            for field in ("nominate", "floor"):
                value = data.get(field)
                for target in value if isinstance(value, list | tuple) else [value] if value else []:
                    out.append(("speech", (who, field[:5], "you" if target == me else str(target))))
            if data.get("claim"):
                rendered = make_env().get_template("blocks/observations.j2").render(events=[event_context(event, "?")], me="?")
                bracket = CLAIM.search(rendered).group(0)  # type: ignore[union-attr]
                # the seat's own claim: in its answer (JSON) while that answer is in the prompt
                out.append(("claim", (bracket, json.dumps(data["claim"]) if event.actor == me else bracket)))
    return out


def speeches(text: str, who: str, kind: str) -> int:
    """How many speeches of ``kind`` by ``who`` ("You": the seat) a prompt says: one a line ("- P3 (in
    their defence) says:", "- You spoke in your defence.", the record's "- P3 spoke (in their defence)."),
    or a name in the record's run of speeches that said only who spoke ("- Spoke in turn (in their own
    defence): P3, you and P5.")."""
    how = SPOKEN[kind]
    mine = who == "You"
    own = how.replace("their", "your")
    forms = (f"- You spoke ({own})", f"- You spoke {own}") if mine else (f"- {who} spoke ({how})", f"- {who} ({how})")
    run = f"- Spoke in turn ({how.replace('their', 'their own')}): "
    if kind == "discussion":  # the record names every kind of speech but the discussion's: "- P3 spoke [claim: …]."
        run = "- Spoke in turn: "
    unnamed = f"- {who} spoke"
    count = 0
    for line in text.splitlines():
        rest = line[len(unnamed) :] if line.startswith(unnamed) and kind == "discussion" else None
        if line.startswith(forms) or (rest is not None and (rest[:1] in (".", ",", ":") or rest[:2] == " [")):
            count += 1
        elif line.startswith(run):
            names = re.split(r", | and ", line[len(run) :].rstrip("."))
            count += names.count("you" if mine else who)
    return count


def found(fact: tuple[str, Any], text: str) -> bool:
    kind, value = fact
    if kind == "spoke":
        who, speech, nth = value
        return speeches(text, who, speech) >= nth
    if kind == "sentence":
        return value in text
    if kind in ("claim", "move"):
        return value[0] in text or value[1] in text
    if kind == "words":  # quoted, or in the seat's own answer (JSON) while that answer is in the prompt
        return _quote(value) in text or json.dumps(value)[1:-1] in text
    who, field, target = value
    return any(line.startswith(f"- {who}") and field in line and target in line for line in text.splitlines())


class Twin(SyncPlayer):
    """A bot or random player whose every decision is rendered into two conversations, the full
    history and the history folded by day, and checked: no fact the full one shows is missing from
    the folded one."""

    def __init__(self, name: str, seed: int, full: Conversation, days: Conversation, log: dict[str, Any]) -> None:
        super().__init__(name)
        self.inner = BotPlayer(name, seed) if seed % 2 else RandomPlayer(name, seed)
        self.full, self.days, self.log = full, days, log
        self.previous = ""
        self.record = (-1, "")  # the day (McKay: hand) of the latest fold, and its record up to the news' note

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Any:
        news = view.events[self.days.seen :]
        for conv in (self.full, self.days):
            conv.ask(request, view, feedback, "", fixed=True)
        whole, folded = self.full.serialized(), self.days.serialized()
        if self.days.kept == 0 and self.previous:
            self.log["folds"] += 1
            text = self.days.messages[0]["content"]
            self.log["records"].append(text)
            said = [  # (a McKay move of the seat's own is said by its answer's line)
                e for e in news
                if e.type in SAME_SENTENCE and e.type not in ("lot", "channel_result")
                and not (e.type in MOVE_EVENTS.values() and e.actor == self.name)
            ]  # fmt: skip
            if said and NEWS in text:  # the entries the note counts as news hold the first news the record says
                count = text.split(NEWS, 1)[1].split()[0]
                last = text.split(NEWS, 1)[0].split("\n- ")[-(1 if count == "entry" else int(count)) :]
                assert sentence(said[0], self.name) in "\n- ".join(last), (sentence(said[0], self.name), last)
                self.log["news"] += 1
            if self.record[0] == self.days.period:  # within a day the record only grows: the previous one is cached
                assert text.startswith(self.record[1]), f"{self.name}: the record changed within day {request.day}"
                self.log["grown"] += 1
            self.record = (self.days.period, text.split(NEWS, 1)[0] if NEWS in text else "")
        else:
            assert folded.startswith(self.previous), f"{self.name}: the folded prompt changed within day {request.day}"
        for fact in facts(view, self.name):
            self.log["checked"] += 1
            if not found(fact, whole):
                self.log.setdefault("missing", []).append(fact)
                continue  # a fact the full prompt does not carry either (none so far: counted below)
            self.log["in_full"] += 1
            assert found(fact, folded), f"{self.name}, decision {request.id} (day {request.day}): {fact} lost"
        action = self.inner.decide_now(request, view, feedback)
        text = json.dumps(dump_action(action))
        for conv in (self.full, self.days):
            conv.answer(text, {"id": f"c{request.id}", "name": action.kind, "arguments": text})
        self.previous = self.days.serialized()
        self.log["chars_full"] += len(whole)
        self.log["chars_days"] += len(folded)
        return action


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_folded_history_keeps_every_fact(variant):
    cls = VARIANTS[variant]
    log: dict[str, Any] = {"records": [], **dict.fromkeys(COUNTS, 0)}
    boundaries = 0
    for seed in (1, 2, 3, 4):
        seats = [f"P{i}" for i in range(1, cls.default_players + 1)]
        game = cls(seats, {"hands": 3} if "hands" in cls.Options.model_fields else {}, seed=seed)
        options = game.options.model_dump(mode="json")
        players = {
            n: Twin(
                n,
                seed + i,
                Conversation(n, variant, options, "tools", make_env()),
                Conversation(n, variant, options, "tools", make_env(), history="days"),
                log,
            )
            for i, n in enumerate(seats)
        }
        run_sync(game, players)
        boundaries += sum(1 for e in game.log if e.type in ("day", "hand") and e.day > 1)
    assert log["in_full"] == log["checked"], f"in neither prompt (the fact list is wrong): {log.get('missing', [])[:5]}"
    assert log["in_full"] > 100 and log["folds"] > 0 and log["grown"] > 0 and log["news"] > 0 and boundaries > 0
    assert log["chars_days"] < log["chars_full"]
    for record in log["records"]:  # the record reads as the rest of the prompt does
        for line in _plain_part(record).splitlines():
            assert INTERNAL.search(line) is None, line
            for pattern, what in WORDING:
                assert not pattern.search(line), f"{what} in: {line}"


def test_every_call_with_news_folds_the_day_so_far_into_the_record_with_its_words():
    """Every call with news is folded: the earlier days without their words, today so far with every
    speech quoted, the count of the last entries that are news to the seat, then the question (no
    "Since your last turn" after a fold, no reminder of what comes next in the record)."""
    cls = VARIANTS["classic"]
    seats = [f"P{i}" for i in range(1, 10)]
    game = cls(seats, {}, seed=1)  # four days, five trials ended by a failed vote
    options = game.options.model_dump(mode="json")
    log: dict[str, Any] = {"records": [], **dict.fromkeys(COUNTS, 0)}
    convs = {n: Conversation(n, "classic", options, "tools", make_env(), history="days") for n in seats}
    players = {n: Twin(n, 7, Conversation(n, "classic", options, "tools", make_env()), convs[n], log) for n in seats}
    run_sync(game, players)
    assert max(e.day for e in game.log) >= 2
    for name, conv in convs.items():
        seen_days = {e.day for e in game.log if e.type == "day" and e.visible_to(name)}
        assert conv.period == max(seen_days | {0}) or conv.period < max(seen_days)  # dead seats stop early
    later = 0
    for folded in log["records"]:
        assert "Since your last turn:" not in folded  # the news is in the record's last entries
        record, note, question = folded.partition(NEWS)
        assert note and re.match(r"(entry|\d+ entries) above\.\)\n\n", question), folded
        news = 1 if question.startswith("entry") else int(question.split()[0])
        entries = [line for line in record.splitlines() if line.startswith("- ")]
        assert 1 <= news <= len(entries)
        assert record.startswith("The game's record, as the moderator keeps it") and "Day 1 begins" in record
        earlier, _, today = record.partition(f"{TODAY}, with the words said and your thoughts:")
        assert "<speech" not in earlier  # the words of earlier days are left out
        assert today.lstrip().startswith("- Day ")
        assert "the discussion goes on" not in today and "the defence comes next" not in today
        if "(The record above is the game before day " in earlier:
            later += 1
    assert later and log["grown"] > len(log["records"]) / 2  # most folds extend the day's previous record


def test_history_is_a_profile_option_and_reaches_the_conversation():
    from arena.players.llm import make_llm_player

    full = make_llm_player("openai:m@http://127.0.0.1:9/v1?structured=tools&history=full", "Ann", 1, variant="classic")
    assert full.conversation.history == "full"
    default = make_llm_player("openai:m@http://127.0.0.1:9/v1?structured=tools", "Ann", 1, variant="classic")
    assert default.conversation.history == "days"  # shown to lose no fact (above), and cheaper (docs/llm.md)


@pytest.mark.parametrize("extra", ["", "&context=4500&max_tokens=256"])
def test_a_resume_across_a_day_boundary_sends_the_same_prompts(tmp_path, monkeypatch, extra):
    """A classic game of folded model seats killed in day 2 or later and resumed: the stand-in
    receives exactly the prompts of the uninterrupted game (a seat's record is rebuilt byte for byte),
    also when the seats fold within a day to fit a server's context."""
    from arena.run.resume import resume_game
    from arena.run.transcript import read_transcript
    from tests import test_resume
    from tests.test_server_modes import SmallContextServer as FakeModelServer

    plain = test_resume.model_specs
    monkeypatch.setattr(test_resume, "model_specs", lambda server, seats: {
        s: spec + (f"&history=days{extra}" if spec != "bot" else "") for s, spec in plain(server, seats).items()
    })  # fmt: skip
    monkeypatch.setattr(FakeModelServer, "limit", 16_000 if extra else 10**9)
    with FakeModelServer(seed=5) as server:
        whole = asyncio.run(test_resume.model_game(server, tmp_path / "whole.jsonl", None))
        reference = list(server.log)
    assert whole.finished
    folded = [c for c in read_transcript(tmp_path / "whole.jsonl").calls if c["call"]["prompt"]["shared_messages"] == 0]
    assert any(c["call"]["day"] >= 2 for c in folded), "no model seat folded a day"
    texts = [json.dumps(c["call"]["prompt"]["new_messages"]) for c in folded]
    squeezed = ["The game so far, as the moderator's record" in t for t in texts]
    assert any(squeezed) == bool(extra), "a seat folded to fit its context only when told one"
    days: set[tuple[str, int]] = set()
    for c, text, squeeze in zip(folded, texts, squeezed, strict=True):
        again = (c["player"], c["call"]["day"]) in days
        days.add((c["player"], c["call"]["day"]))
        assert squeeze or not again or TODAY in text, "a second fold in a day, no accusation nor trial since the last"
    assert len(days) < len(folded), "no seat folded after an accusation or a trial"
    later = 0
    for crash_at in (45, 60):  # before the game's end: the stand-in's answers, so the game's length, follow the prompts' bytes
        with FakeModelServer(seed=5, port=server.port) as again:
            path = tmp_path / f"cut-{crash_at}.jsonl"
            asyncio.run(test_resume.model_game(again, path, crash_at))
            before = read_transcript(path)
            assert before.summary is None
            later += max(e["day"] for e in before.events) >= 2
            asyncio.run(resume_game(path, factory=test_resume.model_factory))
            assert sorted(e["prompt"] for e in again.log) == sorted(e["prompt"] for e in reference), crash_at
    assert later, "no cut fell after a day boundary"


@pytest.mark.parametrize(("variant", "size"), [("classic", 9), ("cove", 10), ("village", 11)])
def test_folded_seats_keep_tools_and_system_fixed_and_most_of_each_prompt_cached(variant, size):
    """On the stand-in (its prefix cache from 1 024 tokens), folded seats of both providers send the
    same tools and system prompt all game, and ≥ 85% of their prompt tokens are cache reads (84% on
    cove; three games each: the stand-in's random games vary, a short cove game more than most)."""
    from arena.players.llm import close_clients, make_llm_player
    from arena.run.orchestrator import run
    from tests.llm_server import FakeModelServer, reuse
    from tests.test_llm_cache import FAST

    async def play(seed: int) -> tuple[dict[str, Any], list[Any]]:
        cls = VARIANTS[variant]
        seats = [f"P{i}" for i in range(1, size + 1)]
        game = cls(seats, {}, seed=seed)
        options = game.options.model_dump(mode="json")
        with FakeModelServer(seed=seed) as server:
            players = {}
            for i, name in enumerate(seats):
                url, narrow = (server.openai_url, "&allowed_tools=true") if i % 2 else (server.anthropic_url, "")
                spec = f"{'openai' if i % 2 else 'anthropic'}:fake@{url}?structured=tools{narrow}&history=days"
                players[name] = make_llm_player(spec, name, seed, variant=variant, options=options, **FAST)
            await run(game, players)
            await close_clients()
            return reuse(server.log), list(players.values())

    cached = prompt = folds = 0
    for seed in (1, 2, 3):
        seats, players = asyncio.run(play(seed))
        assert all(figures["fixed"] for figures in seats.values())
        cached += sum(p.usage.cached_tokens for p in players)
        prompt += sum(p.usage.input_tokens for p in players)
        folds += sum(r["prompt"]["shared_messages"] == 0 and r["day"] >= 2 for p in players for r in p.calls)
    # cove's days are a few calls each, so its fold calls weigh more: 0.864 here (0.806 on the games of an
    # earlier wording: the stand-in's games follow the prompts' bytes), 0.791 in docs/llm.md's table
    assert cached / prompt >= (0.84 if variant == "cove" else 0.85) and folds, (cached / prompt, folds)


def _small(tmp_path, spec_extra: str):
    from tests.test_server_modes import SmallContextServer, play, transcript

    tmp_path.mkdir(exist_ok=True)
    with SmallContextServer(seed=2) as server:
        code = play(tmp_path, f"openai:m@{server.openai_url}?structured=tools&max_tokens=256{spec_extra}")
    return code, transcript(tmp_path) if list((tmp_path / "tr").glob("*.jsonl")) else None


def test_a_server_seat_told_its_context_folds_to_fit_and_the_game_ends_by_the_rules(tmp_path, capsys):
    """On a server that refuses prompts over its context (2,048 tokens here: 12,000 characters of
    messages), a game whose seats know nothing stops at the first refusal; told ``?context=``, each
    seat folds its history to a record of the game so far whenever a prompt would not fit, and the
    game is played to its end (and a seat's record still carries every fact: test above). The seats
    keep the full history (folded into a record, this short game's prompts may never reach the limit)."""
    code, cut = _small(tmp_path / "blind", "&history=full")
    assert code == 1 and "over the model's context" in cut.summary["aborted"]
    err = capsys.readouterr().err
    assert "arena resume the transcript: the seat now folds its history to fit the 2,048 tokens the server named" in err
    code, whole = _small(tmp_path / "told", "&history=full&context=4096")
    assert code == 0 and whole.complete
    calls = [c["call"] for c in whole.calls]
    squeezed = []
    for seat in {c["player"] for c in calls}:
        own = [c for c in calls if c["player"] == seat]
        pairs = zip(own[1:], own, strict=False)
        squeezed += [c for c, before in pairs if c["prompt"]["shared_messages"] == 0 and c["day"] == before["day"]]
    assert squeezed, "no seat folded within a day"
    assert all(c["outcome"] != "transport_failed" for c in calls)
    assert any("The game so far, as the moderator's record" in json.dumps(c["prompt"]["new_messages"]) for c in squeezed)


def test_a_game_no_folding_fits_stops_at_the_first_call_in_one_line(tmp_path, capsys):
    code, cut = _small(tmp_path, "&context=1024")
    assert code == 2 and cut is None  # the check before the game asks as a seat would: no game started
    err = [x for x in capsys.readouterr().err.splitlines() if x.startswith("arena: error:")]
    assert len(err) == 1 and "with its history folded to a record of the game so far;" in err[0]
    assert "fit (context 1,024 less" in err[0] and "(no game was started)" in err[0]
    assert "start the server with a larger context (llama-cpp-python: --n_ctx 8192" in err[0]
    assert "?context=" not in err[0].split("fit (context")[1]  # folding cannot help: only room does


def test_a_seat_learns_the_context_a_refusal_names_and_the_resumed_game_ends_by_the_rules(tmp_path, capsys):
    """Untold, the seat's first prompt over the server's context is refused and the game stops;
    the refusal names the context (4,096 tokens here), the call's record keeps it, and `arena
    resume` goes on with the seat folding its history to fit it: the game ends by the rules."""
    from arena.cli import main
    from tests.test_server_modes import SmallContextServer, play, transcript

    class Named(SmallContextServer):  # 12,000 characters of messages: about 4,096 tokens at 3 a token
        FULL = SmallContextServer.FULL.replace("2048 tokens", "4096 tokens")

    with Named(seed=2) as server:  # a seed whose refusal falls on a decision's first try (prompt bytes pick it)
        assert play(tmp_path, f"openai:m@{server.openai_url}?structured=tools&max_tokens=256&history=full") == 1
        err = [x for x in capsys.readouterr().err.splitlines() if x.startswith("arena: error:")]
        assert len(err) == 1 and "arena resume the transcript: the seat now folds its history to fit the 4,096 tokens" in err[0]
        cut = transcript(tmp_path)
        refused = [c["call"] for c in cut.calls if c["call"]["outcome"] == "transport_failed"]
        assert [c["context"] for c in refused] == [4096]
        (path,) = (tmp_path / "tr").glob("*.jsonl")
        assert main(["resume", str(path), "--quiet"]) == 0
    whole = transcript(tmp_path)
    assert whole.complete and not [c for c in whole.calls[len(cut.calls) :] if c["call"]["outcome"] == "transport_failed"]
    after = [c["call"] for c in whole.calls[len(cut.calls) :]]
    assert any(c["prompt"]["shared_messages"] == 0 and c["request"] == refused[0]["request"] for c in after)


# ---- the second read of the prompts (issue 32): what a fold must not lose or say twice ----------
#: a night move as the record says it (prompts/blocks/observations.j2's act())
MOVE_WORDS = {"visit": "a visit to {}", "heal": "a save of {}", "check": "a check of {}", "kill": "a kill of {}"}


class Mover(SyncPlayer):
    """A bot or random player with a folded history that keeps its own night moves: at every
    decision each earlier one must be in the prompt, in the record or as its tool call."""

    def __init__(self, name: str, seed: int, conv: Conversation, log: dict[str, Any]) -> None:
        super().__init__(name)
        self.inner = BotPlayer(name, seed) if seed % 2 else RandomPlayer(name, seed)
        self.conv, self.log, self.moves = conv, log, []

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Any:
        turn = self.conv.ask(request, view, feedback, "", fixed=True)
        if self.conv.kept == 0 and self.moves:
            self.log["folds"].append((self.name, request.role, request.group, turn["content"]))
        text = self.conv.serialized()
        for kind, target, call in self.moves:
            said = MOVE_WORDS[kind].format(target) in text or f"you pointed at {target}" in text
            where = f"{self.name} ({request.role}), day {request.day}"
            assert said or call in text, f"{where}: {kind} {target} lost\n{turn['content']}"
        action = self.inner.decide_now(request, view, feedback)
        data = dump_action(action)
        text = json.dumps({k: v for k, v in data.items() if k != "kind"})
        if data.get("kind") in MOVE_WORDS and data.get("target"):
            self.moves.append((data["kind"], data["target"], f"{action.kind}({text})"))
        self.conv.answer(text, {"id": f"c{request.id}", "name": action.kind, "arguments": text})
        return action


def _folded_games(variant: str, seeds: tuple[int, ...]) -> list[tuple[str, str, str, str]]:
    cls = VARIANTS[variant]
    log: dict[str, Any] = {"folds": []}
    for seed in seeds:
        seats = [f"P{i}" for i in range(1, cls.default_players + 1)]
        game = cls(seats, {"hands": 3} if "hands" in cls.Options.model_fields else {}, seed=seed)
        options = game.options.model_dump(mode="json")
        convs = {n: Conversation(n, variant, options, "tools", make_env(), history="days") for n in seats}
        run_sync(game, {n: Mover(n, seed + i, convs[n], log) for i, n in enumerate(seats)})
    return log["folds"]


def test_cove_folds_at_the_night_so_no_night_move_is_lost():
    """Cove's night N comes before day N: folded at day N, the seat's own night-N move (a visit, a
    save, a check, the maniac's kill) was in neither the record nor the kept messages, and the
    night's rejections were shown again out of their question."""
    folds = _folded_games("cove", (1, 2, 3))
    assert folds
    night = [text for _, role, group, text in folds if group in ("visit", "heal", "check", "night_kill")]
    assert night and all(re.search(r"^\(The record above is the game before night \d+\.\)$", text, re.M) for text in night)
    for *_, text in folds:
        today = text.split("\n\n", 1)[-1]
        assert "The moderator rejected your answer" not in today


@pytest.mark.parametrize("variant", ["classic", "cove", "village"])
def test_a_folded_day_states_the_mafia_count_again(variant):
    """The count was repeated by day only when it changed since the previous prompt, and a fold
    forgot the prompt but not the count: a mafia seat's "Mafia alive: 1 — you." was gone all day."""
    folds = _folded_games(variant, (1, 2))
    assert folds
    for seat, role, group, text in folds:
        assert "\nMafia alive: " in text, f"{variant} {seat} ({role}, {group}): no count after the fold\n{text}"


def test_the_record_names_a_channel_kill_once_and_a_hand_by_its_number():
    folds = _folded_games("village", (1, 2))
    records = [text.split("\n\n", 1)[0] for *_, text in folds]
    for record in records:
        lines = record.splitlines()
        for i, line in enumerate(lines[:-1]):
            target = re.fullmatch(r"- Your answer: a kill of (\w+)\.", line)
            assert not (target and lines[i + 1] == f"- On the mafia channel you pointed at {target.group(1)}."), record
    hands = _folded_games("duel3", (1,))
    assert hands and all(re.search(r"^\(The record above is the game before hand \d+\.\)$", text, re.M) for *_, text in hands)


@pytest.mark.parametrize("variant", ["duel", "duel3", "trio"])
def test_a_folded_hand_numbers_the_seats_beats_and_says_its_moves_in_words(variant):
    """The record of a McKay hand listed "Your answer: a pass." per beat with no beat number (the
    timing a hand turns on was lost) and a move as its tool's name ("Your answer: place card.")."""
    folds = _folded_games(variant, (1, 2))
    assert folds
    for *_, text in folds:
        record = text.split("\n\nSince your last turn:", 1)[0]
        assert not re.search(r"Your answer: (place card|declare cop|handshake|peek)\.", record), record
        assert "\n- Beat 1. " in record, record
        for part in re.split(r"(?:Hand \d+ of \d+|Round \d+) begins: ", record)[1:]:  # trio counts a round's beats
            beats = [int(n) for n in re.findall(r"^- Beat (\d+)\. ", part, re.M)]
            assert beats == list(range(1, len(beats) + 1)), record


@pytest.mark.parametrize("variant", ["duel", "duel3", "trio"])
def test_a_folded_hand_says_each_of_the_seats_moves_once(variant):
    """The record said a move twice ("Beat 2. Your answer: a handshake offer." then "You offer a
    handshake.") and followed a beat answer with words by a content-free "You spoke."."""
    folds = _folded_games(variant, (1, 2))
    echoes = ("You offer a handshake.", 'You declare "I am the cop"', "You put your card", "You kill ", "You look at card")
    answered = 0
    for *_, text in folds:
        record = text.split("\n\nSince your last turn:", 1)[0]
        answered += record.count("Your answer: ")
        assert "- You spoke." not in record, record
        for echo in echoes:
            assert f"\n- {echo}" not in record, record
    assert answered


def test_a_seat_learns_the_context_a_sibling_was_refused_from_its_first_call_not_made():
    """Seats on one server learn the context any of them was refused: a seat refused itself folds
    from that decision; another from its first call the recording lacks (a question of the round
    the refusal stopped is asked again, and must fit), its recorded calls rebuilt as sent."""
    from arena.players.llm import make_llm_player

    def seat(name: str):
        return make_llm_player("openai:m@http://127.0.0.1:9/v1?structured=tools", name, 1, variant="classic")

    calls = [
        {"player": "Edi", "request": 12}, {"player": "Mia", "request": 20},
        {"player": "Edi", "request": 20}, {"player": "Mia", "request": 27, "context": 4096},
    ]  # fmt: skip
    mia, edi = seat("Mia"), seat("Edi")
    for player in (mia, edi):
        player.learn_recorded(calls)
        assert player.profile.context == 4096
    assert (mia._fit_from, edi._fit_from) == (27, 21)


def test_anthropic_reads_the_previous_record_back_as_whole_blocks():
    """Anthropic caches whole blocks: a folded record is sent as blocks cut where the day's earlier
    folds' records ended, its last one the cache breakpoint, so each fold's blocks start with the
    previous fold's record blocks byte for byte and the next call reads them back from the cache."""
    from arena.players.llm.providers import AnthropicBackend

    class Seat(SyncPlayer):
        def __init__(self, name: str, seed: int, conv: Conversation, log: dict[str, int]) -> None:
            super().__init__(name)
            self.inner, self.conv, self.log, self.before = BotPlayer(name, seed), conv, log, (-1, [])

        def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Any:
            self.conv.ask(request, view, feedback, "", fixed=True)
            body = AnthropicBackend.history(self.conv.messages)
            marks = [b for turn in body for b in turn["content"] if "cache_control" in b]
            assert len(marks) <= 3  # with the system block's, Anthropic's limit of four
            if self.conv.kept == 0 and "cuts" in self.conv.messages[0]:
                blocks = [b["text"] for b in body[0]["content"]]
                record = blocks[: next(i for i, b in enumerate(body[0]["content"]) if "cache_control" in b) + 1]
                assert "".join(record) == self.conv.recorded and not blocks[len(record)].startswith("- ")
                period, before = self.before
                if period == self.conv.period and before:
                    assert blocks[: len(before)] == before, "the previous record is not among this fold's blocks"
                    self.log["read back"] += 1
                self.before = (self.conv.period, record)
            action = self.inner.decide_now(request, view, feedback)
            text = json.dumps(dump_action(action))
            self.conv.answer(text, {"id": f"c{request.id}", "name": action.kind, "arguments": text})
            return action

    log = {"read back": 0}
    for variant in ("classic", "village"):
        cls = VARIANTS[variant]
        seats = [f"P{i}" for i in range(1, cls.default_players + 1)]
        game = cls(seats, {}, seed=2)
        options = game.options.model_dump(mode="json")
        players = {
            n: Seat(n, 3 + i, Conversation(n, variant, options, "tools", make_env(), history="days"), log)
            for i, n in enumerate(seats)
        }
        run_sync(game, players)
    assert log["read back"] > 20
