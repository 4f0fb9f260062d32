"""What a model seat reads, rendered for every variant (system prompt and every decision group, in
each structured-output mode) and checked for plain words: no internal names, no config dumps, no
docstring markup, payoff tables equal to the scoring code, a sentence for every option."""

from __future__ import annotations

import json
import re
from typing import Any, get_args

import pytest
from pydantic import BaseModel

from arena.engine import ActionBase, DecisionRequest, Game, View, dump_action
from arena.players.base import SyncPlayer
from arena.players.bot.player import BotPlayer
from arena.players.llm.prompt import Conversation, legal_answers, make_env
from arena.players.llm.schema import KindSchemas
from arena.players.random import RandomPlayer
from arena.run.orchestrator import run_sync
from arena.variants import VARIANTS
from arena.variants.mckay import scoring

MODES = ("tools", "json_schema", "json_text")
#: every decision group each variant can ask (the rendering must meet them all)
GROUPS = {
    "classic": {"discussion", "verdict", "defence", "floor", "last_words", "night_kill", "check"},
    "cove": {"visit", "night_kill", "mafia_channel", "check", "heal", "discussion", "vote", "defence", "verdict", "last_words"},
    "village": {"discussion", "defence", "verdict", "vote", "mafia_channel", "check", "heal"},
    "duel": {"beat"},
    "duel3": {"beat"},
    "trio": {"beat", "soliloquy", "soliloquy_reply", "judge"},
}
#: internal names that must never reach a model in plain text (phases, event types, option keys, audiences)
INTERNAL = re.compile(
    r"\b(charge_vote|execution_vote|lot_last_words|runoff_speeches|runoff_vote|both_leave|night_roles|round[12]|"
    r"soliloquy_reply|mafia_channel|night_kill|last_words|hand_over|cop_look|cop_declared|declaration_void|"
    r"card_placed|judge_ruling|vote_result|check_result|channel_result|game_over|team:\w+|player:\w+|"
    r"max_days|max_speech_chars|mafia_count|discussion_rounds|max_floor|mafia_wins_at_parity|reveal_on_death|"
    r"first_phase|announce_causes|mafia_by_players|special_roles|channel_rounds|mafia_disagreement|"
    r"max_acquittals|simultaneous_kills)\b"
)
WORDING = [
    (re.compile(r"\bphase\b", re.I), "a phase name"),
    (re.compile(r"\b[Nn]ight 0\b"), "night 0"),
    (re.compile(r"\bday \d+, phase"), "day N, phase"),
    (re.compile(r"``"), "docstring markup"),
    (re.compile(r"\byou claims\b|\byou accuses\b|\byou says\b", re.I), "a verb that does not agree"),
    (re.compile(r"metrics|checked against the truth"), "a claim said to be scored"),
    (re.compile(r"many short hands|a later declarer in trio"), "another variant's rule or a wrong match length"),
    (re.compile(r'\{"|\["|": |null;|(?:\b[a-z_]+ (?:"[^"]*"|-?\d+|\[[^\]]*\]|\{[^}]*\});\s?){2,}'), "a key/value or JSON dump"),
    (re.compile(r" = "), "a setting written as key = value"),
]


class Reader(SyncPlayer):
    """Renders each request into a conversation as a model seat would read it, then lets a bot or
    a random player answer (the answer goes back into the history as the seat's tool call)."""

    def __init__(self, name: str, seed: int, conv: Conversation, groups: set[str], fixed: bool) -> None:
        super().__init__(name)
        self.inner = BotPlayer(name, seed) if seed % 2 else RandomPlayer(name, seed)
        self.conv, self.groups, self.fixed = conv, groups, fixed

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Any:
        mode = self.conv.mode
        schema = ""
        if mode == "json_text":
            schema = json.dumps(KindSchemas(request.json_schema(), strict=False).union(), indent=1)
        self.conv.ask(request, view, feedback, schema, fixed=self.fixed)
        self.groups.add(request.group)
        action = self.inner.decide_now(request, view, feedback)
        text = json.dumps(dump_action(action))
        call = {"id": f"c{request.id}", "name": action.kind, "arguments": text} if mode == "tools" else None
        self.conv.answer(text, call)
        return action


def render(variant: str, mode: str, games: int = 12) -> tuple[list[str], set[str], list[Game]]:
    """Every system prompt and user turn of ``games`` games of ``variant`` (bots and random players)."""
    cls = VARIANTS[variant]
    texts: list[str] = []
    groups: set[str] = set()
    played = []
    for seed in range(games):
        seats = [f"P{i}" for i in range(1, cls.default_players + 1)]
        game = cls(seats, {"hands": 3} if "hands" in cls.Options.model_fields else {}, seed=seed)
        options = game.options.model_dump(mode="json")
        convs = {n: Conversation(n, variant, options, mode, make_env()) for n in seats}
        run_sync(game, {n: Reader(n, seed, convs[n], groups, fixed=mode != "json_text") for n in seats})
        played.append(game)
        for conv in convs.values():
            texts.append(conv.system or "")
            texts.extend(m["content"] for m in conv.messages if m["role"] == "user")
    return texts, groups, played


@pytest.fixture(scope="module")
def rendered() -> dict[tuple[str, str], tuple[list[str], set[str], list[Game]]]:
    return {(v, m): render(v, m, games=12 if m == "tools" else 3) for v in sorted(VARIANTS) for m in MODES}


def _plain_part(text: str) -> str:
    """A prompt without what is quoted as data: other players' speeches and a JSON schema block."""
    text = re.sub(r"<speech from=.*?</speech>", "", text, flags=re.DOTALL)
    return re.sub(r"```json.*?```", "", text, flags=re.DOTALL)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("mode", MODES)
def test_prompts_use_plain_words(rendered, variant, mode):
    texts, groups, _ = rendered[(variant, mode)]
    if mode == "tools":
        assert GROUPS[variant] <= groups, f"never rendered: {GROUPS[variant] - groups}"
    others = [v for v in VARIANTS if v != variant and v not in variant]
    for text in texts:
        plain = _plain_part(text)
        for line in plain.splitlines():
            outside = re.sub(r"`[^`]*`", "", line)  # tool and field names are written in backticks
            hit = INTERNAL.search(outside)
            assert hit is None, f"{variant}/{mode}: internal name {hit.group(0)!r} in: {line}"
            for pattern, what in WORDING:
                assert not pattern.search(outside), f"{variant}/{mode}: {what} in: {line}"
            assert not re.search(rf"\b({'|'.join(others)})\b", outside, re.I), f"{variant}: another variant named in: {line}"


def test_events_all_have_sentences(rendered):
    """Every event type a game shows a player is written as a sentence, not the generic fallback."""
    for (variant, mode), (texts, _, games) in rendered.items():
        if mode != "tools":
            continue
        types = {e.type for g in games for e in g.log}
        for text in texts:
            for t in types:
                assert f"\n- {t.replace('_', ' ')} " not in "\n" + text and f"\n- {t.replace('_', ' ')}:" not in "\n" + text, (
                    f"{variant}: event {t!r} rendered by the fallback"
                )


def test_system_prompts_state_the_public_deal():
    for variant, size, wanted in (
        ("classic", 9, "2 mafia, 6 citizens, 1 inspector"),
        ("cove", 10, "3 mafia"),
        ("village", 11, "3 mafia"),
    ):
        cls = VARIANTS[variant]
        game = cls([f"P{i}" for i in range(1, size + 1)], seed=1)
        conv = Conversation("P1", variant, game.options.model_dump(mode="json"), "tools", make_env())
        conv.start(game.pending()[0])
        assert f"This table: {size} players, dealt" in conv.system and wanted in conv.system, conv.system[-1500:]
    duel = VARIANTS["duel"](["A", "B"], seed=1)
    conv = Conversation("A", "duel", duel.options.model_dump(mode="json"), "tools", make_env())
    conv.start(duel.pending()[0])
    assert "The deck (5 cards): 2 townspeople, 2 mafia, 1 cop." in conv.system
    assert "a match of 10 hands" in conv.system and "many short hands" not in conv.system


def _system(variant: str, **options: Any) -> str:
    cls = VARIANTS[variant]
    game = cls([f"P{i}" for i in range(1, cls.default_players + 1)], options, seed=2)
    conv = Conversation("P1", variant, game.options.model_dump(mode="json"), "tools", make_env())
    conv.start(game.pending()[0])
    return conv.system or ""


def _num(points: int) -> str:
    return f"+{points}" if points > 0 else str(points).replace("-", "−")


def test_payoff_tables_are_the_scoring_codes():
    words = {scoring.TP: "townsperson", scoring.MAFIA: "mafia", scoring.COP: "cop",
             scoring.TP_CLAIMING: "townsperson pretending to be the cop",
             scoring.MAFIA_CLAIMING: "mafia pretending to be the cop"}  # fmt: skip
    for variant in ("duel", "duel3"):
        system = _system(variant)
        for (killer, victim), points in scoring.GOOD_KILLS.items():
            assert f"\n- {words[killer]} kills {words[victim]}: {points}\n" in system
        for (killer, victim), points in scoring.BAD_KILLS.items():
            assert f"\n- {words[killer]} kills {words[victim]}: {_num(points)}\n" in system
        rows = len(scoring.GOOD_KILLS) + len(scoring.BAD_KILLS) + (len(scoring.SURVIVOR_PAIRS) if variant == "duel3" else 0)
        assert len(re.findall(r"\n- [\w ]+ (kills|beside) [\w ]+: [+−]?\d+(?=\n)", system)) == rows
        nobody = ", ".join(f"{words[c]} {_num(p)}" for c, p in scoring.NOBODY_DIES.items())
        assert f"every bonus rises by 1, and {nobody}." in system
        assert "bonus first rises by 1, then the killer scores the points below times the\nnew bonus" in system
        assert (
            "victim's bonus drops to 0" in system and "does not count as a declaration at all (not even as pretending)" in system
        )
        assert "trio" not in system
    for (own, other), points in scoring.SURVIVOR_PAIRS.items():
        assert f"\n- {words[own]} beside {words[other]}: {_num(points)}\n" in _system("duel3")
    trio = _system("trio")
    undeclared = "undeclared cop (scoring as a townsperson)"  # the only holder of the row: two townspeople in the deck
    row = r"\n- (townsperson|mafia|cop|undeclared cop \(scoring as a townsperson\)), ([\w ]+): (\d+)"
    alive_rows = [("townsperson" if r == undeclared else r, s, p) for r, s, p in re.findall(row, trio)]
    assert len(alive_rows) == len(scoring.TRIO_ALIVE)
    assert sorted(int(p) for *_, p in alive_rows) == sorted(scoring.TRIO_ALIVE.values())
    singular = {"townspeople": "townsperson", "mafia": "mafia", "cops": "cop"}

    def cards(situation: str) -> tuple[str, ...]:
        if situation == "alone":
            return ()
        two = re.fullmatch(r"with two (\w+) alive", situation)
        if two:
            return (singular[two.group(1)],) * 2
        return tuple(sorted(re.findall(r"a (\w+)", situation)))

    table = {(r, cards(s)): int(p) for r, s, p in alive_rows}
    assert table == {
        (words[role], tuple(sorted(words[o] for o in others))): p for (role, others), p in scoring.TRIO_ALIVE.items()
    }
    assert f"(at most {scoring.TRIO_BONUS_CAP})" in trio and "not a multiplier" in trio
    assert "killed in round 1 by the cop and the other townsperson scores 4" in trio
    assert f"\n- {undeclared}, with two townspeople alive: 2\n" in trio and "\n- townsperson, with two townspeople" not in trio
    assert "an undeclared cop scores in every row as a townsperson" in " ".join(trio.split())


def _option_values(field: Any) -> list[Any]:
    annotation = field.annotation
    args = [a for a in get_args(annotation) if a is not type(None)]
    if annotation is bool:
        return [True, False]
    values = [field.get_default(call_default_factory=True)]
    literal = [a for a in get_args(annotation) if isinstance(a, str)] or [
        a for arg in args for a in get_args(arg) if isinstance(a, str)
    ]
    values += literal
    if annotation is int or int in args:
        values += [1, 3]
    return values


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_option_is_a_sentence(variant):
    """Each option of the variant's options model, at each of a few values, is one plain rule."""
    cls = VARIANTS[variant]
    template = make_env().get_template("blocks/house_rules.j2")
    model: type[BaseModel] = cls.Options
    defaults = cls.Options().model_dump(mode="json")
    mckay = variant in ("duel", "duel3", "trio")
    for name, field in model.model_fields.items():
        for value in _option_values(field):
            try:
                options = cls.Options.model_validate({**defaults, name: value}).model_dump(mode="json")
            except ValueError:
                continue
            text = template.render(options={name: options[name]}, variant=variant).strip()
            if mckay and name == "max_days":
                assert text == "", "a match has no day limit: no rule to state"
                continue
            assert text.startswith("- ") and text.count("\n") == 0 and text.endswith("."), (name, value, text)
            raw = name in text if "_" in name else f"{name}:" in text or f"{name} =" in text
            assert not raw and ": {" not in text and "[" not in text, (name, value, text)


def test_tools_have_no_kind_and_no_null_that_the_schema_lacks():
    for variant in sorted(VARIANTS):
        cls = VARIANTS[variant]
        game = cls([f"P{i}" for i in range(1, cls.default_players + 1)], seed=4)
        for seat in game.seats:
            schemas = KindSchemas(game.repertoire_of(seat).json_schema(), strict=True)
            for kind in schemas.kinds:
                params = schemas.tool_parameters(kind)
                assert "kind" not in params["properties"] and "kind" not in params.get("required", [])
                for name, prop in params["properties"].items():
                    branches = prop.get("anyOf", [prop])
                    nullable = any(b.get("type") == "null" for b in branches)
                    words = (prop.get("description") or "") + (params.get("description") or "" if name == "target" else "")
                    if name in ("target", "position", "slot", "first") and not nullable:
                        assert "null" not in words and "hold fire" not in words, (variant, seat, kind, name, words)


def test_claim_is_described_as_an_optional_public_claim_that_may_be_a_bluff():
    cls = VARIANTS["classic"]
    game = cls([f"P{i}" for i in range(1, 10)], seed=1)
    schema = game.repertoire_of("P1").json_schema()
    text = json.dumps(schema)
    assert "may be a bluff" in text and "optional public claim" in text
    assert "metrics" not in text and "``" not in text and "checked" not in text


def test_legal_answers_say_what_the_fixed_tools_do_not():
    cls = VARIANTS["classic"]
    game = cls([f"P{i}" for i in range(1, 10)], seed=1)
    request = game.pending()[0]
    text = legal_answers(request)
    assert "`speak`, with `accuse`" in text and "or null to accuse nobody" in text
    assert "leave `floor` empty" in text and "Not legal now: `verdict`" in text
    exact = legal_answers(request, mode="json_text", fixed=False)
    assert "Not legal now" not in exact and "floor" not in exact


def test_village_day_one_and_the_classic_defence_say_what_the_rules_say():
    texts, _, _ = render("village", "tools", games=1)
    day1 = [t for t in texts if "Your discussion turn" in t and "\nDay 1." in t]
    assert day1 and all("nobody is tried or executed today" in t and "trial to start now" not in t for t in day1)
    texts, _, _ = render("classic", "tools", games=6)
    defences = [t for t in texts if "You are charged." in t]
    assert defences
    for text in defences:
        assert "your last words if you are executed" in text
        assert "discussion resumes with" in text or "the referee's lot picks" in text
        assert "a trial uses none" in text or "no discussion turns are left" in text


def test_forfeits_and_earlier_answers_read_as_words(rendered):
    texts, _, _ = rendered[("classic", "tools")]
    forfeits = [line for t in texts for line in t.splitlines() if line.startswith("- You gave no valid answer")]
    assert all(" for you." in line and "{" not in line for line in forfeits)


def test_the_decision_kinds_cover_every_action_a_prompt_names():
    """The names a prompt gives the kinds are the engine's kinds (no stale tool names)."""
    kinds = {cls.model_fields["kind"].default for cls in ActionBase.__subclasses__()}
    texts, _, _ = render("trio", "tools", games=2)
    for text in texts:
        for name in re.findall(r"`([a-z_]+)`", text):
            assert name in kinds or name in ("thought", "speech", "claim", "accuse", "nominate", "floor", "target",
                                              "position", "slot", "first", "yes", "action", "kind", "null"), name  # fmt: skip


# ---- issues 25.4 and 26: what a model must be told ------------------------------------------------
MCKAY = ("duel", "duel3", "trio")
TALLY = re.compile(r"^Accusations today: (none yet|.+)\.$", re.M)
#: village's discussion and trial questions (each must carry the day's tally)
TALLY_QUESTIONS = ("Your discussion turn", "You are on trial", "is on trial. Vote", "must end with a conviction: vote")


def test_village_discussion_and_trial_questions_show_the_days_tally(rendered):
    texts, _, _ = rendered[("village", "tools")]
    asked = [t for t in texts if any(q in t for q in TALLY_QUESTIONS) and "Answer the same question again" not in t]
    assert asked
    counted = 0
    for text in asked:
        found = TALLY.search(text)
        assert found, text[-800:]
        if found.group(1) == "none yet":
            continue
        counted += 1
        counts = []
        for item in found.group(1).split("; "):
            name, n, by = re.fullmatch(r"(\w+) (\d+) \((.+)\)", item).groups()
            accusers = re.split(r", | and ", by)
            assert int(n) == len(accusers) == len(set(accusers)) and name not in accusers, item
            counts.append(int(n))
        assert counts == sorted(counts, reverse=True), found.group(0)
    assert counted
    questions = [t for t in asked if "Your discussion turn" in t]
    assert all("accusing the same player again changes nothing" in t for t in questions)
    assert any("again: that changes nothing (each accuser counts once per accused)" in t for t in texts)


def test_village_says_how_a_lot_fills_the_final_vote_and_when_the_mafia_meet(rendered):
    system = " ".join(_system("village").split())
    assert "a seeded lot fills it from the next most accused" in system
    assert "an unaccused player can be drawn into the final vote" in system
    assert "they meet on the first night" in system
    texts, _, _ = rendered[("village", "tools")]
    drawn = 0
    for text in texts:  # the reason once for the lots of one message (a second one says only what it drew)
        lots = [line for line in text.splitlines() if line.startswith("- A lot among") and "final vote" in line]
        drawn += len(lots)
        assert not lots or "seeded lot from the next most accused" in lots[0]
    assert drawn
    day1_mafia = [t for t in texts if "- Your card: mafia (team mafia)." in t and "\nDay 1." in t]
    assert day1_mafia and all("The mafia meet on the first night" in t for t in day1_mafia)


@pytest.mark.parametrize("variant", MCKAY)
def test_mckay_beat_questions_show_the_match_score_and_one_minus_sign(rendered, variant):
    texts, _, _ = rendered[(variant, "tools")]
    beats = [t for t in texts if re.search(r"Hand \d+ of \d+, beat \d+ of \d+\.", t)]
    assert beats
    score = re.compile(r"^Match score: (\w+ (\+[1-9]\d*|−[1-9]\d*|0)(, |\. ))+Bonus: (\w+ \d+(, |\.$))+", re.M)
    for text in beats:
        assert score.search(text), text[-600:]
    assert any(re.search(r"^Match score: .*[+−][1-9]", t, re.M) for t in beats), "never a score but 0"
    for text in texts:
        assert not re.search(r"(?<![\w-])-\d", _plain_part(text)), "a hyphen as a minus sign"


@pytest.mark.parametrize("variant", MCKAY)
def test_mckay_prompts_say_each_player_scores_for_himself(rendered, variant):
    for mode in MODES:
        texts, _, _ = rendered[(variant, mode)]
        for text in texts:
            assert "win for your team" not in text and "play for your team" not in text
    for short in (False, True):
        cls = VARIANTS[variant]
        game = cls([f"P{i}" for i in range(1, cls.default_players + 1)], seed=2)
        conv = Conversation("P1", variant, game.options.model_dump(mode="json"), "tools", make_env(), short=short)
        conv.start(game.pending()[0])
        system = " ".join((conv.system or "").split())
        assert "win for your team" not in system and ("scores for himself" in system), system[:600]


def test_duel3_beats_say_the_order_and_report_a_kill_that_failed(rendered):
    texts, _, _ = rendered[("duel3", "tools")]
    guidance = [t for t in texts if "This is one beat of the clock" in t]
    assert guidance and all("drawn at random and kept hidden" in t for t in guidance)
    assert any("fails: its killer was killed first, earlier in this beat's hidden order" in t for t in texts)
    offers = [t for t in texts if "offer a handshake (" in t]
    assert offers and all("it ends the hand at once, scored with everyone alive surviving" in t for t in offers)


def test_the_judge_question_says_what_the_ruling_does(rendered):
    texts, groups, _ = rendered[("trio", "tools")]
    judged = [t for t in texts if "You judge who was first" in t]
    assert "judge" in groups and judged
    assert all("the other's kill never happened, so the other is the victim" in " ".join(t.split()) for t in judged)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_system_prompts_have_no_glued_sentences(variant):
    cls = VARIANTS[variant]
    game = cls([f"P{i}" for i in range(1, cls.default_players + 1)], seed=2)
    for mode in MODES:
        for short in (False, True):
            conv = Conversation("P1", variant, game.options.model_dump(mode="json"), mode, make_env(), short=short)
            conv.start(game.pending()[0])
            glued = re.search(r"\w\.[A-Z]", conv.system or "")
            assert glued is None, f"{variant}/{mode}/short={short}: {conv.system[glued.start() - 40 : glued.end() + 20]!r}"


def test_decision_turns_have_no_glued_sentences(rendered):
    for (variant, mode), (texts, _, _) in rendered.items():
        for text in texts:
            glued = re.search(r"\w\.[A-Z]", _plain_part(text))
            assert glued is None, f"{variant}/{mode}: {text[glued.start() - 40 : glued.end() + 20]!r}"


#: words of the JSON-schema machinery that must never reach a model as a description
JARGON = re.compile(
    r"propertyNames|key/value|null to leave it out|\(default|\bdefault \[|\bitems\b|\$ref|additionalProperties|anyOf|"
    r"maxItems|minItems|\benum\b|\bschema\b"
)


def _descriptions(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["description"]] if isinstance(node.get("description"), str) else []
        return own + [d for value in node.values() for d in _descriptions(value)]
    if isinstance(node, list):
        return [d for value in node for d in _descriptions(value)]
    return []


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_tool_descriptions_are_in_game_words(variant):
    cls = VARIANTS[variant]
    game = cls([f"P{i}" for i in range(1, cls.default_players + 1)], seed=4)
    for seat in game.seats:
        for strict in (True, False):
            schemas = KindSchemas(game.repertoire_of(seat).json_schema(), strict=strict)
            for kind in schemas.kinds:
                for text in _descriptions(schemas.tool_parameters(kind)):
                    assert not JARGON.search(text), (variant, kind, strict, text)
            for text in _descriptions(schemas.union()):
                assert not JARGON.search(text), (variant, strict, text)
    if variant == "classic":  # classic has no nominations, in its tools or its prompts
        assert "nominat" not in json.dumps(KindSchemas(game.repertoire_of("P1").json_schema(), strict=True).union())


def test_classic_cove_and_night_questions_say_the_game_at_hand(rendered):
    classic, _, _ = rendered[("classic", "tools")]
    assert not any("nominat" in _plain_part(t) for t in classic)
    floors = [t for t in classic if "handed you the floor" in t]
    assert floors and all("during their defence" in t and "during their last words" not in t for t in floors)
    cove, _, _ = rendered[("cove", "tools")]
    speeches = [t for t in cove if "Your speech. You must nominate" in t]
    assert speeches and all("immune today" in t for t in speeches)
    assert any("nobody is immune today" in t for t in speeches) and any("Nobody is immune in today's vote." in t for t in cove)
    for variant in ("classic", "cove", "village"):
        texts, _, _ = rendered[(variant, "tools")]
        nights = [t for t in texts if re.search(r"^Night \d+\. You are", t, re.M)]
        # the table's count, or a mafia seat's exact one (it knows its team): "Mafia alive: 2 — you and P4."
        counted = r"^Mafia alive: (\d+( to \d+)? \(\d+ dealt, |\d+ — you\b)"
        assert nights and all(re.search(counted, t, re.M) for t in nights), variant


def test_every_night_question_of_a_mafia_seat_names_its_partners(rendered):
    """Issue 25: a mafia seat reads who its partners are at every night question, not only the first."""
    for variant in ("classic", "cove", "village"):
        texts, _, _ = rendered[(variant, "tools")]
        mafia_nights = [t for t in texts if re.search(r"^Night \d+\. You are P\d+; your card: mafia\.", t, re.M)]
        assert mafia_nights, variant
        assert all(re.search(r"^Your partners: ", t, re.M) for t in mafia_nights), variant
