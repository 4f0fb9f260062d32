"""What the human's terminal shows: their view as sentences, the table of seats, help, and the
after-game report of the night.

Events are worded by :mod:`arena.cli.console` (the same sentences as the game printer); this module
only chooses which of the seat's own events to show and marks the private ones. Everything it
prints during a game is built from the seat's :class:`~arena.engine.View` and its requests; only
:func:`night_report`, called once the game is over, reads the whole log.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from arena.engine import DecisionRequest, Event, Game
from arena.engine.wording import (
    and_list,
    claim_text,
    death_line,
    describe_action,
    face_down,
    nominations_today,
    plain_action,
    plural,
    private_line,
    public_line,
    public_mafia,
    signed_number,
    spaced,
)

MCKAY = frozenset(("duel", "duel3", "trio"))  # the games scored in points by tables
SECRET_KINDS = frozenset(("kill", "check", "heal", "visit"))  # own answers whose effect stays hidden
PHASE_WORDS = {  # a phase as the status panel names it ("" = the heading already says it)
    "round1": "",
    "round2": "",
    "lot_last_words": "last words",
    "first_night": "",
    "mafia_channel": "mafia channel",
    "night_roles": "night",
}
NIGHT_PHASES = frozenset(("first_night", "night", "channel", "night_roles", "mafia_channel", "dawn"))
PROMPTS_ENV = "ARENA_PROMPTS"  # the same override the model players read


@dataclass(slots=True)
class Knowledge:
    """What the seat has been told about the table: its card, its team, cards shown, scores."""

    me: str
    role: str | None = None
    team: str | None = None
    mates: tuple[str, ...] = ()
    members: tuple[str, ...] = ()  # the team as told (with this seat): the exact mafia count
    revealed: dict[str, str] = field(default_factory=dict)
    scores: dict[str, int] = field(default_factory=dict)
    hand: int | None = None  # McKay's games: the hand being played
    deaths: list[Event] = field(default_factory=list)  # public deaths (the public mafia count reads them)

    def learn(self, event: Event) -> None:
        data = event.data
        if event.type == "role" and event.audience == f"player:{self.me}":
            self.role, self.team = data.get("role"), data.get("team")
        elif event.type == "team":
            self.members = tuple(data.get("members", ()))
            self.mates = tuple(n for n in self.members if n != self.me)
        elif event.type == "hand":
            self.hand = data.get("number")
            self.revealed = {}
        elif event.type == "death" and event.to is None:
            self.deaths.append(event)
            if data.get("role"):
                self.revealed[str(data.get("player"))] = str(data["role"])
        elif event.type == "hand_over":
            self.scores = dict(data.get("scores", {}))


def event_line(event: Event, me: str, day_word: str, *, full: bool = False) -> tuple[str, str] | None:
    """(line, style) for one event of ``me``'s view, or None when it adds nothing for a person.

    Rejections are skipped live (the re-ask says why) and kept in ``full`` (the ``log`` command);
    the seat's own answers are shown only where their effect stays hidden (a shot, a check).
    """
    if event.to is None:
        if event.type == "death":  # the person's own death is said to them
            return death_line(event.data, me), "bold red"
        return public_line(event, day_word)
    if event.type == "rejected" and not full:
        return None
    if event.type == "action" and not full:
        kind = plain_action(event.data.get("action")).get("kind")
        if kind not in SECRET_KINDS or day_word == "Hand":
            return None
    if event.type == "check_result" and event.data.get("result") == "frozen":
        return f"You were visited by the mistress: your check of {event.data.get('target')} is void.", "bold magenta"
    text = private_line(event)
    if text is None:
        return None
    who = event.audience.removeprefix("player:")
    if who == me:
        text = "[you]" + text.removeprefix(f"[{who}]")
    elif event.audience.startswith("team:"):
        team = event.audience.removeprefix("team:")
        text = f"[{team} only]" + text.removeprefix(f"[{event.audience}]")
    return text, "magenta"


def when(request: DecisionRequest, know: Knowledge) -> str:
    """``Day 2``, ``Night 1``, ``Hand 3`` (+ the round in trio)."""
    if know.hand is not None or request.group == "beat":
        rnd = request.info.get("round")
        return f"Hand {request.day}" + (f", round {rnd}" if rnd and rnd != 1 else "")
    return f"{'Night' if request.phase in NIGHT_PHASES else 'Day'} {request.day}"


def partners(mates: Sequence[str], alive: Sequence[str]) -> str:
    """The team mates as they are now: 'with Dee', 'with Dee (Eve is dead)', 'your partner Eve is dead'."""
    living = [m for m in mates if m in alive]
    dead = [m for m in mates if m not in alive]
    if not dead:
        return f"with {and_list(living)}"
    gone = f"{and_list(dead)} {'is' if len(dead) == 1 else 'are'} dead"
    if living:
        return f"with {and_list(living)} ({gone})"
    return f"your {'partner' if len(dead) == 1 else 'partners'} {gone}"


def status_panel(request: DecisionRequest, know: Knowledge) -> Panel:
    """The seats (alive or dead, with what this seat knows of them), its card, the clock."""
    seats = Text()
    for i, name in enumerate(request.seats):
        if i:
            seats.append("   ")
        alive = name in request.alive
        notes = []
        if name == request.player:
            notes.append("you")
            notes.append(request.role)
        elif name in know.revealed:
            notes.append(know.revealed[name])
        elif name in know.mates:
            notes.append(f"{know.team or 'team'} mate")
        if know.scores:
            notes.append(signed_number(know.scores.get(name, 0)))
        style = "bold green" if name == request.player else ("" if alive else "dim strike")
        seats.append(("" if alive else "† ") + name, style=style)
        if notes:
            seats.append(f" ({', '.join(notes)})", style="dim" if not alive else "")
    card = Text(f"Your card: {request.role}", style="bold")
    if know.team:
        card.append(f" (team {know.team})")
    if know.mates:
        card.append(" · " + partners(know.mates, request.alive))
    parts = [seats, card]
    mafia = None
    if request.table is not None and know.hand is None:
        mafia = public_mafia(request.table.deck, know.deaths, me=know.me, role=request.role, team=know.members)
    if mafia is not None and request.group != "beat":
        parts.append(Text(mafia, style="dim"))
    phase = PHASE_WORDS.get(request.phase, spaced(request.phase))
    title = " · ".join([when(request, know), *([phase] if phase else []), *([str(request.clock)] if request.clock else [])])
    return Panel(Group(*parts), title=title, title_align="left", border_style="cyan", expand=False)


# ---- help ------------------------------------------------------------------------------------
COMMANDS = (
    ("help", "the rules of this variant and these commands"),
    ("log", "everything you have seen so far"),
    ("table", "the seats and the question again"),
    ("quit", "leave the game (Ctrl-C and Ctrl-D too: each asks first)"),
    ("say WORDS", "words to go with your move, where talk is allowed (or: 2: WORDS)"),
)


def prompts_dir() -> Path:
    env = os.environ.get(PROMPTS_ENV)
    return Path(env) if env else Path(__file__).resolve().parents[3] / "prompts"


def rules_summary(variant: str | None, options: Mapping[str, Any] | None = None, block_name: str = "rules") -> str | None:
    """The variant's rules summary: the ``rules`` block of ``prompts/system/<variant>.j2`` (or
    another block of it: ``scoring``, McKay's point tables, the very rows the models read)."""
    import jinja2

    directory = prompts_dir()
    name = f"system/{variant}.j2"
    if variant is None or not (directory / name).is_file():
        name = "system/_default.j2"
    try:
        from arena.players.llm.prompt import make_env  # the prompts' own filters
        from arena.players.llm.rulebook import payoffs

        template = make_env(directory).get_template(name)
        block = template.blocks.get(block_name)
        if block is None:
            return None
        context = {"options": dict(options or {}), "variant": variant or "", "payoffs": payoffs(variant)}
        text = "".join(block(template.new_context(context)))
    except (jinja2.TemplateError, OSError):
        return None
    paragraphs: list[str] = []
    for line in text.replace("`", "").splitlines():  # re-flow the hard-wrapped bullets
        words = line.strip()
        if words.startswith("#"):  # the prompt's own heading: the screen gives its own
            continue
        row = paragraphs and paragraphs[-1].startswith("- ") and paragraphs[-1][-1:].isdigit()  # a table's row ends
        if words and paragraphs and paragraphs[-1] and not words.startswith("- ") and not row:
            paragraphs[-1] += " " + words
        else:
            paragraphs.append(words)
    return "\n".join(paragraphs).strip() or None


def house_rules(variant: str | None, options: Mapping[str, Any]) -> list[str]:
    """The table's options as the sentences a model reads (``prompts/blocks/house_rules.j2``),
    never as Python values; a person's screen leaves out the model-only rule on rejected answers."""
    if not options:
        return []
    import jinja2

    from arena.players.llm.prompt import make_env  # the prompts' own filters (plural words, sizes)

    try:
        template = make_env(prompts_dir()).get_template("blocks/house_rules.j2")
        text = template.render(options={k: v for k, v in options.items() if k != "retries"}, variant=variant or "")
    except (jinja2.TemplateError, OSError):  # a broken override of the prompts must not end the game
        return []
    return [in_words(line.strip().removeprefix("- ")) for line in text.splitlines() if line.strip()]


def match_length(variant: str | None, options: Mapping[str, Any], seconds: float) -> str:
    """McKay's match on the wall clock, said up front: '10 hands × 12 beats × 10 s ≈ 20 min at most'."""
    hands, beats = int(options.get("hands", 1)), int(options.get("beats", 1))
    rounds = 2 if variant == "trio" else 1  # trio: a second round of beats after the first death
    total = hands * rounds * beats * seconds
    span = f"{total / 60:.0f} min" if total >= 90 else f"{total:.0f} s"
    shape = f"{plural(hands, 'hand')} × " + ("up to 2 rounds × " if rounds == 2 else "") + f"{plural(beats, 'beat')}"
    sooner = "when every card lies on no kill" if variant == "trio" else "at a handshake"
    return f"The match: {shape} × {seconds:g} s ≈ {span} at most (a hand ends sooner at a kill or {sooner})."


def help_text(variant: str | None, options: Mapping[str, Any], team_rule: str | None = None) -> Group:
    """The rules, McKay's point tables, the mafia's rule for a mafia seat (``team_rule``), the
    house rules and the commands."""
    rules = rules_summary(variant, options)
    parts: list[Any] = [Text(f"Rules of {variant or 'this game'}", style="bold")]
    parts.append(Text(in_words(rules) if rules else "No summary found: every question lists its legal answers."))
    scoring = rules_summary(variant, options, "scoring") if variant in MCKAY else None
    if scoring:
        parts.append(Text("Scoring (points per hand)", style="bold"))
        parts.append(Text(in_words(scoring)))
    if team_rule:
        parts.append(Text("Your team's rule (mafia only)", style="bold"))
        parts.append(Text(team_rule))
    house = house_rules(variant, options)
    if house:
        parts.append(Text("House rules", style="bold"))
        parts += [Text("  " + line) for line in house]
    parts.append(Text("Commands (type them at any prompt)", style="bold"))
    parts += [Text.assemble(("  " + cmd.ljust(11), "cyan"), what) for cmd, what in COMMANDS]
    parts.append(Text("Choose by number or by name, in any case; Tab completes names."))
    return Group(*parts)


# ---- after the game ---------------------------------------------------------------------------
def night_report(game: Game) -> list[tuple[str, list[str]]]:
    """What every player did in secret, night by night (hand by hand: the looks at hidden cards).

    Reads the whole log: call it only once the game is over (or stopped) for the person too.
    """
    mckay = isinstance(getattr(game, "scores", None), dict)
    report: dict[str, list[str]] = {}
    for event in game.log:
        item = _secret_item(game, event, mckay)
        if item is not None:
            report.setdefault(item[0], []).append(item[1])
    return list(report.items())


def _secret_item(game: Game, event: Event, mckay: bool) -> tuple[str, str] | None:
    data = event.data
    if mckay:
        if event.type != "cop_look":
            return None
        (looker,) = event.to or {"?"}
        return f"Hand {event.day}", f"{looker} looked at {face_down(data.get('position'))}: {data.get('card')}"
    night = f"Night {event.day}"
    if event.type in ("action", "forfeit"):
        action = plain_action(data.get("action"))
        if action.get("kind") not in SECRET_KINDS or event.actor is None:
            return None
        late = f" (forfeit: {data.get('why')})" if event.type == "forfeit" else ""
        return night, f"{event.actor} ({game.role_of.get(event.actor, '?')}): {describe_action(action)}{late}"
    if event.type == "check_result":
        (checker,) = event.to or {"?"}
        return night, f"{checker} learned: {data.get('target')} is {data.get('result')}"
    if event.type == "saved":
        return night, f"the doctor saved {data.get('player')}"
    return None


def print_night_report(console: Any, game: Game) -> None:
    """The report under a heading, once the game is over: nothing is secret any more."""
    report = night_report(game)
    if not report:
        return
    mckay = isinstance(getattr(game, "scores", None), dict)
    console.print(Text("Looks at the face-down cards" if mckay else "What everyone did at night", style="bold"))
    for heading, items in report:
        console.print(Text.assemble((f"  {heading}: ", "bold"), "; ".join(items)), highlight=False)


def lines_of(events: Iterable[Event], me: str, *, full: bool = False) -> list[tuple[str, str]]:
    """Every line the seat's events make (``log``), with the day word of McKay's hands."""
    day_word = "Day"
    out = []
    for event in events:
        if event.type == "hand":
            day_word = "Hand"
        line = event_line(event, me, day_word, full=full)
        if line is not None:
            out.append(line)
    return out


def menu_lines(labels: Sequence[str]) -> list[Text]:
    return [Text.assemble((f"{i:>3} ", "bold cyan"), label) for i, label in enumerate(labels, 1)]


# ---- before a vote ----------------------------------------------------------------------------
VOTE_GROUPS = frozenset(("vote", "verdict"))


def _today(events: Sequence[Event]) -> list[Event]:
    """The public events since the last day began (the whole view before the first day)."""
    start = 0
    for i, event in enumerate(events):
        if event.type == "day" and event.to is None:
            start = i
    return [e for e in events[start:] if e.to is None]


def nomination_tally(events: Sequence[Event]) -> str | None:
    """Today's nominations (cove), most nominated first: 'Bob 2 (Ann, Cid) · Eve 1 (Dee)'."""
    ranked = nominations_today(events)
    return " · ".join(f"{name} {len(who)} ({', '.join(who)})" for name, who in ranked) or None


def accusation_tally(tally: Mapping[str, Sequence[str]]) -> str:
    """Village's running count from a request: 'Bob 2 (Ann, Cid) · Eve 1 (Dee)'."""
    if not tally:
        return "none yet"
    return " · ".join(f"{name} {len(by)} ({', '.join(by)})" for name, by in tally.items())


NO_KILL = {  # why a night can end with nobody dead, as the rules allow it (no secret told)
    "classic": "a kill needs more than half of the living mafia on the same player: their shots did not agree",
    "village": "the doctor saved the mafia's victim",
    "cove": "a victim was protected by the mistress or saved by the doctor, or a kill was void",
}


def night_note(variant: str | None, options: Mapping[str, Any], data: Mapping[str, Any]) -> str | None:
    """A morning in words a newcomer needs: why nobody died, or why two died in one night (cove)."""
    killed = list(data.get("killed") or [])
    if not killed:
        why = NO_KILL.get(variant or "")
        if why and variant == "village" and options.get("mafia_disagreement") == "no_kill":
            why += ", or the mafia never agreed on one"
        return f"Nobody died: {why}." if why else None
    if variant == "cove" and len(killed) > 1:
        return (
            "More than one death: the mafia and the maniac each kill, and whoever the mistress visited "
            "dies with her (unless he is the maniac)."
        )
    return None


def claims_so_far(events: Sequence[Event]) -> list[str]:
    """Each speaker's latest public claim: 'Cid (day 2): inspector; Bob is mafia'."""
    latest: dict[str, str] = {}
    for event in events:
        if event.type == "speech" and event.to is None and event.actor and event.data.get("claim"):
            latest.pop(event.actor, None)  # re-insert: the latest claims come last
            latest[event.actor] = f"{event.actor} (day {event.day}): {claim_text(event.data['claim'])}"
    return list(latest.values())


def recap(request: DecisionRequest, events: Sequence[Event]) -> list[Text]:
    """Before a vote: what is voted on, who is alive, the nominations and what was claimed."""
    info = request.info
    lines: list[Text] = []
    if "tally" in info:  # village: the day's accusations, most accused first
        lines.append(Text.assemble(("Accusations today: ", "bold"), accusation_tally(info["tally"])))
    if request.group not in VOTE_GROUPS:
        return lines
    if info.get("accused"):
        accused = str(info["accused"])
        accusers = [e.actor for e in _today(events) if e.type == "accusation" and e.data.get("accused") == accused]
        by = f" (accused by {and_list(dict.fromkeys(a for a in accusers if a))})" if any(accusers) else ""
        lines.append(Text.assemble(("On trial: ", "bold"), f"{accused}{by}"))
    elif info.get("candidates"):
        lines.append(Text.assemble(("On the vote: ", "bold"), and_list(info["candidates"])))
    tally = nomination_tally(events)
    if tally:
        lines.append(Text.assemble(("Nominations today: ", "bold"), tally))
    lines.append(Text.assemble((f"Alive ({len(request.alive)}): ", "bold"), ", ".join(request.alive)))
    claims = claims_so_far(events)
    lines.append(Text.assemble(("Claims: ", "bold"), "; ".join(claims) if claims else "nobody has claimed anything"))
    return lines


# ---- words for people ----------------------------------------------------------------------------
PEOPLE_WORDS = (  # the engine's questions are also read by models; a person reads them without field names
    ("declare with position null", "declare without looking"),
    (" (null)", ""),
    ("(null)", ""),
    ("declare_cop", "declare cop"),
    ("place_card", "place your card"),
    ("no_kill", "no kill"),
)


def for_people(text: str) -> str:
    """A question as a person reads it: no ``(null)``, no snake-case action names."""
    for internal, plain in PEOPLE_WORDS:
        text = text.replace(internal, plain)
    return text


def in_words(text: str) -> str:
    """The rules summary (written for the models) for a person: field names become words."""
    text = for_people(text)
    return " ".join(spaced(word) if "_" in word else word for word in text.split(" "))


def hand_table(data: Mapping[str, Any]) -> Group:
    """The score table after a hand of McKay's games (a ``hand_over`` event): cards, points, bonus,
    total; then one line per player saying how the tables gave those points (``why``)."""
    table = Table(title=f"after hand {data.get('number')}", title_justify="left", show_edge=False, pad_edge=False)
    for column in ("seat", "card", "points", "bonus", "score"):
        table.add_column(column, justify="left" if column in ("seat", "card") else "right")
    points, bonus, scores = data.get("points", {}), data.get("bonus", {}), data.get("scores", {})
    for name, card in data.get("roles", {}).items():
        table.add_row(
            name, str(card), signed_number(points.get(name, 0)), str(bonus.get(name, "")), signed_number(scores.get(name, 0))
        )
    why = data.get("why") or {}
    lines = [Text.assemble((f"  {name}: ", "bold"), str(reason)) for name, reason in why.items()]
    note = Text(
        "points: this hand's, by the tables (help shows them); bonus: after the hand; score: the match total", style="dim"
    )
    return Group(table, *lines, note)
