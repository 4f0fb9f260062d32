"""What a model reads stays true and plain (issue 32's "make it stay true").

Per variant, games of bots and random players render every kind of question for every role (town,
mafia, the special roles, McKay's cards) as a model seat reads it, and each message fails on:

- a sentence said twice in the part a seat reads as the question (the state, the question, the
  notes, the standing guidance);
- the seat named in the third person in its own question ("Ann accused Fay" to Ann);
- a tool or field name, or ``null``, in prose: outside backticks, the legal-answers block (where a
  field's values are described) and the JSON schema;
- a count the seat knows exactly given as a range (a mafia seat that knows its team, the maniac);
- a role the variant does not deal, named anywhere outside other players' quoted words.

The pre-game check's probe (arena/players/llm/modes.py) is rendered here too, in every mode: it
says it is a connection check and states no fact of the game to come.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from arena.engine import DecisionRequest, View, dump_action
from arena.players.base import SyncPlayer
from arena.players.bot.player import BotPlayer
from arena.players.llm.prompt import Conversation, make_env
from arena.players.llm.schema import KindSchemas
from arena.players.random import RandomPlayer
from arena.run.orchestrator import run_sync
from arena.variants import VARIANTS

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lea", "Max", "Ned")
#: (role, group) pairs each variant must render: every role's own questions, and every group
NEEDED = {
    "classic": {
        *((r, g) for r in ("citizen", "inspector", "mafia") for g in ("discussion", "verdict")),
        ("mafia", "night_kill"), ("inspector", "check"),
        *((r, g) for r in ("citizen", "mafia") for g in ("defence", "floor", "last_words")),
    },
    "cove": {
        *((r, g) for r in ("civilian", "mistress", "detective", "doctor", "maniac", "mafia") for g in ("discussion", "vote")),
        ("mistress", "visit"), ("maniac", "night_kill"), ("detective", "check"), ("doctor", "heal"),
        ("mafia", "mafia_channel"), ("civilian", "last_words"), ("civilian", "defence"), ("civilian", "verdict"),
    },
    "village": {
        *((r, g) for r in ("villager", "detective", "doctor", "mafia") for g in ("discussion", "verdict", "vote")),
        ("mafia", "mafia_channel"), ("detective", "check"), ("doctor", "heal"), ("villager", "defence"),
    },
    "duel": {(r, "beat") for r in ("townsperson", "cop", "mafia")},
    "duel3": {(r, "beat") for r in ("townsperson", "cop", "mafia")},
    "trio": {
        *((r, "beat") for r in ("townsperson", "cop", "mafia")),
        ("townsperson", "soliloquy"), ("townsperson", "soliloquy_reply"), ("townsperson", "judge"),
    },
}  # fmt: skip
#: role words, and what a variant must deal for a prompt to name them
ROLE_WORDS = {
    "inspector": ("inspector",),
    "detective": ("detective",),
    "doctor": ("doctor",),
    "mistress": ("mistress",),
    "maniac": ("maniac",),
    "cop": ("cop",),
    "citizen": ("citizen",),
    "civilian": ("civilian",),
    "villager": ("villager",),
    "townsperson": ("townsperson", "townspeople"),
    "protected": ("doctor", "mistress"),  # "whom you protected": a protector's claim
    "saved": ("doctor",),
}
SELF_VERBS = r"(is|was|has|had|accused|accuses|declared|declares|offered|offers|nominated|nominates|killed|kills|voted|votes)"
PROSE_NAMES = re.compile(r"\b[a-z]+_[a-z_]+\b|\bnull\b")
RANGE = re.compile(r"\b(Mafia|Maniac) alive: \d+ to \d+")


class Collector(SyncPlayer):
    """Renders each request as a model seat reads it; a bot or a random player answers."""

    def __init__(self, name: str, seed: int, conv: Conversation, seen: list[tuple[str, str, str, str]]) -> None:
        super().__init__(name)
        self.inner = BotPlayer(name, seed) if seed % 2 else RandomPlayer(name, seed)
        self.conv, self.seen = conv, seen

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Any:
        schema = ""
        if self.conv.mode == "json_text":
            schema = json.dumps(KindSchemas(request.json_schema(), strict=False).union(), indent=1)
        turn = self.conv.ask(request, view, feedback, schema, fixed=self.conv.mode != "json_text")
        self.seen.append((self.name, request.role, request.group, turn["content"]))
        action = self.inner.decide_now(request, view, feedback)
        text = json.dumps(dump_action(action))
        call = {"id": f"c{request.id}", "name": action.kind, "arguments": text} if self.conv.mode == "tools" else None
        self.conv.answer(text, call)
        return action


def play(variant: str, games: int, mode: str = "tools") -> tuple[list[tuple[str, str, str, str]], list[str]]:
    """Every decision turn (seat, role, group, text) and system prompt of ``games`` games."""
    cls = VARIANTS[variant]
    seen: list[tuple[str, str, str, str]] = []
    systems: list[str] = []
    for seed in range(games):
        seats = list(NAMES[: cls.default_players])
        game = cls(seats, {"hands": 3} if "hands" in cls.Options.model_fields else {}, seed=seed)
        options = game.options.model_dump(mode="json")
        convs = {n: Conversation(n, variant, options, mode, make_env()) for n in seats}
        run_sync(game, {n: Collector(n, seed, convs[n], seen) for n in seats})
        systems += [c.system or "" for c in convs.values()]
    return seen, systems


@pytest.fixture(scope="module")
def played() -> dict[str, tuple[list[tuple[str, str, str, str]], list[str]]]:
    return {v: play(v, 16 if v in ("cove", "trio", "classic") else 10) for v in sorted(VARIANTS)}


def unquoted(text: str) -> str:
    """Without other players' quoted words and a JSON schema block (data, not the moderator's prose)."""
    text = re.sub(r"<speech from=.*?</speech>", "", text, flags=re.DOTALL)
    return re.sub(r"```json.*?```", "", text, flags=re.DOTALL)


def question_part(text: str) -> str:
    """The part of a decision turn the seat reads as its question: after the events since its last
    turn, before the legal answers."""
    if text.startswith("Since your last turn:"):
        text = text.split("\n\n", 1)[1] if "\n\n" in text else ""
    return re.split(r"^Legal now", text, maxsplit=1, flags=re.M)[0]


def prose(text: str) -> str:
    """Prose: no backticked names, no legal-answers block, no schema, no quoted words."""
    text = unquoted(text)
    text = re.sub(r"^Legal now.*?(?=^\S*(Call|Answer) |\Z)", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`]*`", "", text)


def sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z\"])|\n+", text)
    return [p.strip() for p in parts if len(p.strip()) > 12]


def deck_roles(variant: str) -> set[str]:
    """The cards this variant deals, from its own deck (every table here is public about it)."""
    cls = VARIANTS[variant]
    game = cls(list(NAMES[: cls.default_players]), {"hands": 3} if "hands" in cls.Options.model_fields else {}, seed=0)
    request = game.pending()[0]
    return {card for card, _ in request.table.deck}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_role_meets_every_kind_of_question(played, variant):
    seen, _ = played[variant]
    pairs = {(role, group) for _, role, group, _ in seen}
    assert NEEDED[variant] <= pairs, f"{variant}: never rendered {sorted(NEEDED[variant] - pairs)}"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_no_sentence_twice_in_a_question(played, variant):
    seen, _ = played[variant]
    for seat, role, group, text in seen:
        said = sentences(unquoted(question_part(text)))
        twice = {s for s in said if said.count(s) > 1}
        assert not twice, f"{variant} {seat} ({role}, {group}) reads twice: {sorted(twice)}\n{text}"
        vote_words = [s for s in said if "same time" in s]
        assert len(vote_words) <= 1, f"{variant} {group}: the simultaneous vote said twice: {vote_words}"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_seat_is_you_in_its_own_question(played, variant):
    seen, _ = played[variant]
    for seat, role, group, text in seen:
        part = unquoted(question_part(text))
        hit = re.search(rf"\b{seat}\b,? {SELF_VERBS}\b|\bnot {seat}\b|\b{seat}'s\b|\bon {seat}\b", part)
        assert hit is None, f"{variant} {seat} ({role}, {group}) named in the third person: {hit.group(0)!r}\n{part}"
        legal = unquoted(text).split("\nLegal now", 1)[-1]  # the legal answers: "not you: …", never "not Ann"
        assert not re.search(rf"\bnot {seat}\b", legal), f"{variant} {seat}: excluded by name in its own answers"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_no_tool_or_field_names_in_prose(played, variant):
    seen, systems = played[variant]
    for text in [*systems[:3], *(t for *_, t in seen)]:
        for line in prose(text).splitlines():
            hit = PROSE_NAMES.search(line)
            assert hit is None, f"{variant}: {hit.group(0)!r} in prose: {line}"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_count_the_seat_knows_is_exact(played, variant):
    seen, _ = played[variant]
    counted = 0
    told: set[str] = set()  # the mafia seats told their team so far (seen is in the order asked)
    for seat, role, _group, text in seen:
        if "\n- Your card: " in text:  # a new game for this seat name
            told.discard(seat)
        if "Your team (the mafia)" in text:
            told.add(seat)
        if role == "mafia" and "Mafia alive:" in text and "Mafia alive: " in question_part(text):
            line = next(x for x in question_part(text).splitlines() if x.startswith("Mafia alive:"))
            if seat in told:
                counted += 1
                assert " — you" in line and not RANGE.search(line.split(". Maniac")[0]), f"{variant} {seat}: {line}"
        if role == "maniac":
            for line in question_part(text).splitlines():
                assert not re.search(r"Maniac alive: \d+ to", line), f"{variant} {seat} (the maniac): {line}"
    if variant in ("classic", "cove", "village"):
        assert counted, f"{variant}: no mafia seat was shown its count"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_examples_name_only_the_variants_roles(played, variant):
    seen, systems = played[variant]
    dealt = deck_roles(variant)
    absent = {word for word, needs in ROLE_WORDS.items() if not dealt & set(needs) and word not in dealt}
    pattern = re.compile(rf"\b({'|'.join(sorted(absent))})\b", re.I) if absent else None
    if pattern is None:
        return
    for text in [*systems[:3], *(t for *_, t in seen[:400])]:
        for line in unquoted(text).splitlines():
            hit = pattern.search(line)
            assert hit is None, f"{variant} deals {sorted(dealt)}; named {hit.group(0)!r} in: {line}"


def test_the_mafia_rule_reaches_a_mafia_seat_by_day(played):
    """Classic: the rule with the team reveal, and in every day question of a mafia seat."""
    seen, _ = played["classic"]
    day_groups = ("discussion", "verdict", "defence", "floor", "last_words")
    days = [(s, g, t) for s, role, g, t in seen if role == "mafia" and g in day_groups]
    reveal = [t for s, role, g, t in seen if role == "mafia" and "Your team (the mafia)" in t]
    assert reveal and all("So by day your accusation also names your team's shot" in t for t in reveal)
    noted = [t for _, _, t in days if "your team's shot: tonight" in t]
    assert noted and len(noted) >= len(days) // 2  # a lone survivor has nobody to agree with
    # only a question that may accuse says "your accusation"; a defence, a vote or last words cannot accuse
    for _, group, text in days:
        mine = "Your accusation also names your team's shot" in text
        assert mine == (group == "discussion" and "your team's shot: tonight" in text), (group, text)
    town = [t for _, role, _, t in seen if role != "mafia"]
    assert not any("your team's shot" in t for t in town)
    # the exact count by day too: in the first day question after the team meets
    first_days = [t for t in reveal if "Day 1. You are" in t]
    assert first_days and all(re.search(r"^Mafia alive: \d — you\b", t, re.M) for t in first_days)


def test_the_channel_says_how_bot_partners_point(played):
    for variant in ("village", "cove"):
        seen, _ = played[variant]
        channel = [t for _, role, g, t in seen if g == "mafia_channel"]
        assert any("bot partners follow the first pointing" in t for t in channel), variant


# ---- the pre-game check's probe -------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["tools", "json_schema", "json_text"])
def test_the_mode_probe_says_it_is_a_check_and_nothing_untrue(mode):
    from arena.players.llm.modes import probe_game

    game, request = probe_game("Gus")
    conv = Conversation("Gus", "duel", game.options.model_dump(mode="json"), mode, make_env(), short=True)
    conv.system_name = "_probe"
    schema = json.dumps(KindSchemas(request.json_schema(), strict=False).union()) if mode == "json_text" else ""
    turn = conv.ask(request, game.view("Gus"), None, schema, fixed=mode != "json_text")
    system = conv.system or ""
    assert system.startswith("This is a connection check before a game, not the game itself.")
    for untrue in ("Seats in order", "This table:", "draw if day", "play for your team", "Play to win for your team"):
        assert untrue not in system + turn["content"], untrue
    if mode == "tools":
        assert "JSON object" not in system and "calling exactly one tool" in system
    else:
        assert "tool" not in system
    part = question_part(turn["content"])
    said = sentences(part)
    assert not {s for s in said if said.count(s) > 1}
    for line in prose(turn["content"]).splitlines():
        assert PROSE_NAMES.search(line) is None, line


def test_mckay_beats_offer_one_kill_and_say_when_a_hand_is_scored(played):
    seen, _ = played["duel3"]
    beats = [t for *_, g, t in seen if g == "beat"]
    assert not any(re.search(r"You may kill \w+ and \w+", t) for t in beats)
    assert any(re.search(r"You may kill \w+ or \w+", t) for t in beats)
    after_death = [t for t in beats if re.search(r"^Alive \(2\)", question_part(t), re.M)]
    assert after_death and all("The score changes only when the hand ends" in t for t in after_death)
    kills = [t for t in after_death if "\nYour kill of " in t]  # the killer is told what the kill will score
    assert kills and all(
        re.search(r"^Your kill of \w+ is scored when the hand ends, by the card .+: −?\d", t, re.M) for t in kills
    )
    for variant in ("duel", "duel3", "trio"):
        seen, _ = played[variant]
        assert not any("Mafia alive" in t for *_, t in seen), variant  # part of the deck is dealt: no count
        ends = [t for *_, t in seen if "Points this hand:" in t]
        assert ends and all(re.search(r"^  - You: .+[+−\d]\.$", t, re.M) for t in ends), variant


def test_cove_votes_show_the_nominations(played):
    seen, _ = played["cove"]
    votes = [t for *_, g, t in seen if g == "vote"]
    assert votes and all(re.search(r"^Nominations today: \w+ \d+ \(", question_part(t), re.M) for t in votes)


# ---- the second read (issue 32's "a new read finds nothing of this kind") ------------------------
def test_the_mafia_count_says_what_the_game_and_the_seats_checks_prove():
    """The count "Mafia alive: 0 to 2" while the game goes on in classic (the town wins when no mafia is left),
    and while the inspector's own check found a living mafia member, were untrue lower bounds."""
    from arena.engine import Event
    from arena.engine.wording import public_mafia

    deck = [("mafia", 2), ("citizen", 6), ("inspector", 1)]

    def death(seq: int, who: str) -> Event:
        return Event(seq, "death", 1, "night", "all", None, data={"player": who, "cause": "mafia"})

    deaths = [death(1, "Ann"), death(2, "Ivy")]
    assert public_mafia(deck, deaths) == "Mafia alive: 1 to 2 (2 dealt, none shown dead; 2 deaths with the card not shown)."
    check = Event(3, "check_result", 1, "night", "player:Hal", frozenset({"Hal"}), data={"target": "Dee", "result": "mafia"})
    three = [*deaths, death(4, "Bob")]
    assert public_mafia(deck, [*three, check], me="Hal", role="inspector").startswith("Mafia alive: 1 to 2 ")
    other = Event(5, "check_result", 2, "night", "player:Hal", frozenset({"Hal"}), data={"target": "Eve", "result": "mafia"})
    assert public_mafia(deck, [*three, check, other], me="Hal", role="inspector") == "Mafia alive: 2 (2 dealt, none shown dead)."
    # cove deals a maniac: the town wins only when the mafia and the maniac are gone, so 0 mafia may be true
    cove = [("mafia", 2), ("maniac", 1), ("civilian", 4)]
    assert public_mafia(cove, deaths).startswith("Mafia alive: 0 to 2 ")


@pytest.mark.parametrize("variant", ["classic", "village"])
def test_no_seat_reads_a_mafia_count_of_zero_while_the_game_goes_on(played, variant):
    seen, _ = played[variant]
    texts = [t for *_, t in seen if "Mafia alive:" in t]
    assert texts and not any(re.search(r"^Mafia alive: 0\b", t, re.M) for t in texts)


@pytest.mark.parametrize("variant", ["village", "cove"])
def test_the_channel_says_each_rule_and_reason_once_in_a_message(played, variant):
    """The channel rule was said with the team reveal and again in the same message's question; the
    legal line said "point at a living non-mafia player" once per excluded partner."""
    seen, _ = played[variant]
    channel = [t for _, role, g, t in seen if g == "mafia_channel"]
    assert channel
    for text in channel:
        assert text.count("bot partners follow the first pointing") <= 1, text
        legal = text.split("\nLegal now", 1)[-1].split("\n")[1]
        assert legal.count("living non-mafia player") <= 1, legal


def test_coves_channel_rule_speaks_of_no_rounds(played):
    """Cove's channel is one pass a night: its mafia were told bot partners follow "the player named
    most so far this round … when a new round starts", rounds cove does not have, while its bots
    follow the night's first pointing (arena/players/bot/strategies/daynight.py: channel)."""
    seen, _ = played["cove"]
    told = [t for _, role, g, t in seen if role == "mafia" and "bot partners follow the first pointing" in t]
    assert told and not any(re.search(r"\bround\b", unquoted(t).split("bot partners", 1)[1].split("\n")[0]) for t in told)
    assert all("the player the night's first pointing named" in t for t in told)


def test_a_runoff_lot_is_explained_once_and_names_the_seat_you():
    """Two lots filling village's final vote said their long reason twice in one message, and named
    the seat itself in the third person in the pool ("A lot among Ann, … and Kim" to Kim)."""
    from arena.engine import Event
    from arena.players.llm.prompt import event_context

    among = ["Ann", "Bob", "Kim"]
    lots = [
        Event(1, "lot", 3, "discussion", "all", None, data={"why": "runoff", "among": among, "player": "Bob"}),
        Event(2, "lot", 3, "discussion", "all", None, data={"why": "runoff", "among": among, "player": "Kim"}),
    ]
    text = make_env().get_template("blocks/observations.j2").render(events=[event_context(e, "Kim") for e in lots], me="Kim")
    assert text.count("A tie or too few accused left a place open") == 1, text
    assert "A lot among Ann, Bob and you puts you in the final vote." in text and "Kim" not in text, text


def test_a_claims_check_results_are_said_to_be_deduced_where_no_card_checks_a_player(played):
    """Trio's claims note offered "check results you say you learned" where no card checks a player."""
    for variant in sorted(VARIANTS):
        _, systems = played[variant]
        with_claims = [s for s in systems if "## Claims" in s]
        checker = bool(deck_roles(variant) & {"inspector", "detective"})
        for system in with_claims:
            assert ("No card in this game checks a player" in system) != checker, variant
    assert any("## Claims" in s for s in played["trio"][1])


@pytest.mark.parametrize("variant", ["classic", "cove", "village"])
def test_the_events_about_the_seat_say_you(played, variant):
    """The events since a seat's last turn said "Cid accuses Hal.", "Hal is cleared", "Vote on the
    charge against Hal" to Hal: the seat in the third person, where its question already says "you"."""
    seen, _ = played[variant]
    about = 0
    for seat, _role, _group, text in seen:
        for line in unquoted(text).splitlines():
            if not line.startswith("- "):
                continue
            hit = re.search(
                rf"\baccuses {seat}\b|\b{seat} now has\b|^- {seat} is (charged|cleared|spared|on trial|acquitted)\b"
                rf"|\b(against|execution of|guilt of) {seat}:|\bnominat(es|ing) {seat}\b|\bfloor to ([\w, ]+and )?{seat}\b",
                line,
            )
            assert hit is None, f"{variant} {seat}: {line}"
            about += bool(re.search(r"accuses you\b|nominat(es|ing) you\b|^- You are (charged|cleared|spared|on trial)", line))
    assert about, variant


@pytest.mark.parametrize("variant", ["classic", "cove", "village"])
def test_a_vote_lists_the_seat_as_you_in_its_own_prompt(played, variant):
    """The voters of a vote, read by one of them: "no: Dee, Gus and you", "you → Bob", never "Hal"."""
    seen, _ = played[variant]
    listed = 0
    for seat, _role, _group, text in seen:
        for line in unquoted(text).splitlines():
            if not line.startswith("- Vote"):
                continue
            for part in re.findall(r"\b(?:yes|no): ([^;.]*)", line):
                listed += "you" in part.split(", ") or part.endswith(" you")
                assert not re.search(rf"\b{seat}\b", part), f"{variant} {seat} listed by name: {line}"
            assert not re.search(rf"\b{seat} →", line), f"{variant} {seat} votes by name: {line}"
    if variant != "cove":
        assert listed, f"{variant}: no seat read itself in a voter list"


def test_village_says_a_nights_lot_and_the_days_last_vote_once_in_a_message(played):
    """The channel's result carries the night's lot ("a lot among … makes Kim tonight's victim"), with no
    second line saying the victim again; the final vote's event does not repeat the question's words."""
    seen, _ = played["village"]
    lots = 0
    for seat, _role, group, text in seen:
        said = unquoted(text)
        assert said.count("tonight's victim.") <= 1, f"village {seat} ({group}) reads the victim twice:\n{said}"
        assert said.count("The day must end with a conviction") <= 1, f"village {seat} ({group}):\n{said}"
        lots += "no agreement: a lot among" in said
    assert lots, "village: no night's lot was read"


def test_cove_says_seat_order_once_in_a_channel_message(played):
    """Cove's channel question says the members answer in seat order; the team's rule beside it
    (with the reveal, or as the guidance on a later night) said it again."""
    seen, _ = played["cove"]
    channel = [text for _, _, group, text in seen if group == "mafia_channel"]
    assert channel
    for text in channel:
        assert unquoted(text).count("seat order") == 1, text


@pytest.mark.parametrize("variant", ["duel", "trio"])
def test_a_beat_says_a_kill_can_fail_only_where_the_seat_may_kill(played, variant):
    """Trio's round 1 kills with cards at the beat's end; its beats said "a kill can fail because its
    killer is killed first" there too."""
    seen, _ = played[variant]
    said = 0
    for seat, _role, group, text in seen:
        if group != "beat" or "This is one beat of the clock" not in text:
            continue
        said += 1
        may_kill = "\n- `kill`" in text.split("\nLegal now", 1)[-1]
        assert ("a kill can fail because its killer is killed first" in text) == may_kill, f"{variant} {seat}:\n{text}"
    assert said


def test_coves_counts_say_the_mafia_and_the_maniac_cannot_both_be_zero(played):
    """Cove's "Mafia alive: 0 to 3 … Maniac alive: 0 to 1 …" let both be 0, which the game going on
    rules out (the town wins when neither is left)."""
    from arena.engine import Event
    from arena.engine.wording import public_mafia

    cove = [("mafia", 2), ("maniac", 1), ("civilian", 4)]
    death = {"cause": "mafia"}
    deaths = [Event(i, "death", 1, "night", "all", None, data={"player": n, **death}) for i, n in enumerate(("Ann", "Bob"))]
    assert public_mafia(cove, deaths).endswith("They cannot both be 0 while the game goes on.")
    assert "cannot both" not in (public_mafia(cove, deaths[:1]) or "")  # the mafia: at least 1 of 2 with one card hidden
    both = 0
    for seat, _role, _group, text in played["cove"][0]:
        for line in question_part(text).splitlines():
            if re.match(r"Mafia alive: 0\b.*Maniac alive: 0\b", line):
                both += 1
                assert line.endswith(" They cannot both be 0 while the game goes on."), f"cove {seat}: {line}"
    assert both


@pytest.mark.parametrize("variant", ["classic", "village"])
def test_a_vote_on_the_seat_reads_your(played, variant):
    """ "Vote on the guilt of you" / "the execution of you" read as "your guilt", "your execution"."""
    seen, _ = played[variant]
    for seat, _role, _group, text in seen:
        assert not re.search(r"Vote on (the guilt|the execution) of you\b", text), f"{variant} {seat}:\n{text}"
