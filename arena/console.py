"""Terminal printing: a game as it happens, its result, the variants.

:class:`Printer` is an orchestrator observer like the transcript writer. It shows the public
events as readable lines ("Day 2 — Bob: 'I think Cid is lying.' (accuses Cid)"); with
``reveal`` it also shows what only some players (or the moderator) saw: cards, the mafia's
team, night actions, checks, thoughts, rejections and forfeits, marked ``[who saw it]``.
Event types it does not know are still printed, generically, so new variants show up at once.
Text is printed as plain ``Text`` (never parsed as markup), since speeches are players' words.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.engine import ActionBase, Event, Game, dump_action
from arena.engine.events import PUBLIC

PLAIN_PUBLIC = {  # type -> sentence about data["player"]
    "charged": "{} is charged.",
    "cleared": "{} is cleared; the discussion goes on.",
    "spared": "{} is spared; the discussion goes on.",
    "acquitted": "{} is acquitted.",
}
SILENT_TYPES = frozenset(("accusation",))  # already shown by the speech that made it
OWN_ANSWER_KINDS = frozenset(("speak", "verdict", "vote"))  # public anyway, through speech and vote results


def _names(names: Any) -> str:
    return ", ".join(map(str, names)) if names else "nobody"


def _and(names: Any) -> str:
    names = [str(n) for n in names]
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]


def _plain(action: Any) -> dict[str, Any]:
    return dump_action(action) if isinstance(action, ActionBase) else dict(action or {})


def _quote(text: str) -> str:
    return f"'{text}'" if text else "(silent)"


def _claim(claim: Any) -> str:
    data = claim.model_dump(exclude_defaults=True) if hasattr(claim, "model_dump") else dict(claim)
    parts = []
    if data.get("role"):
        parts.append(f"claims {data['role']}")
    parts += [f"says {name} is {result}" for name, result in data.get("checks", {}).items()]
    return "; ".join(parts)


def _generic(data: Mapping[str, Any]) -> str:
    return ", ".join(f"{key}={_plain(v) if isinstance(v, ActionBase) else v}" for key, v in data.items())


def describe_action(action: Any) -> str:
    """``kill → Ann``, ``verdict yes``, ``speak`` — an answer in a few words."""
    data = _plain(action)
    kind = data.pop("kind", "?")
    data.pop("thought", None)
    data.pop("speech", None)
    if "yes" in data:
        return f"{kind} {'yes' if data.pop('yes') else 'no'}"
    if not data:
        return {"kill": "holds fire", "vote": "abstains"}.get(kind, kind)
    return f"{kind} → " + ", ".join(str(v) if k in ("target", "slot", "first") else f"{k}={v}" for k, v in data.items())


def _speech(event: Event, day_word: str = "Day") -> str:
    data = event.data
    kind = data.get("kind", "")
    who = event.actor or "?"
    label = f"{day_word} {event.day} — {who}" + ("" if kind in ("", "discussion") else f" ({kind.replace('_', ' ')})")
    if event.audience != PUBLIC:
        label = f"{who} ({kind.replace('_', ' ')})" if kind else who
    notes = []
    if data.get("accuse"):
        notes.append(f"accuses {data['accuse']}")
    if data.get("nominate"):
        notes.append(f"nominates {data['nominate']}")
    if data.get("floor"):
        notes.append(f"hands the floor to {_names(data['floor'])}")
    if data.get("target") is not None and kind == "channel":
        notes.append(f"points at {data['target']}")
    if data.get("claim"):
        notes.append(_claim(data["claim"]))
    text = f"{label}: {_quote(str(data.get('text', '')))}"
    return text + (f" ({'; '.join(notes)})" if notes else "")


def _vote_result(data: Mapping[str, Any]) -> str:
    vote = str(data.get("vote", "")).replace("_", " ")
    on = f" on {data['accused']}" if data.get("accused") else ""
    if not on and data.get("candidates"):
        on = f" on {_and(data['candidates'])}"
    if "yes" in data:
        outcome = "passes" if data.get("passed") else "fails"
        yes, no = data.get("yes", []), data.get("no", [])
        return f"{vote.capitalize()} vote{on}: {len(yes)} yes ({_names(yes)}), {len(no)} no ({_names(no)}) — {outcome}."
    votes = data.get("votes", {})
    cast = ", ".join(f"{voter}→{target if target is not None else 'abstain'}" for voter, target in votes.items())
    result = data.get("result")
    return f"{vote.capitalize()} vote{on}: {cast or 'no votes'} — result: {result if result is not None else 'none'}."


def _signed(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{name} {value:+d}" if isinstance(value, int) else f"{name} {value}" for name, value in values.items())


MCKAY_LINES = {  # McKay's real-time games: type -> line about actor and data
    "handshake": lambda who, d: f"{who} offers a handshake.",
    "cop_declared": lambda who, d: f"{who} declares cop" + (f" and looks at card {d['position']}." if d.get("position") else "."),
    "declaration_void": lambda who, d: f"{who}'s declaration is void ({d.get('reason')}).",
    "peek": lambda who, d: f"{who} looks at card {d.get('position')}.",
    "card_placed": lambda who, d: f"{who} "
    + ("takes the kill card back." if d.get("slot") is None else f"places the kill card on {d['slot']}."),
    "kill": lambda who, d: f"{who} kills {d.get('target')}!",
    "judge_ruling": lambda who, d: f"{who} rules that {d.get('first')} killed first.",
    "retracted": lambda who, d: f"{who} takes back the kill on {d.get('target')}.",
}


def _public(event: Event, day_word: str = "Day") -> tuple[str, str] | None:
    """(line, style) for an event everyone saw, or None to print nothing."""
    t, data = event.type, event.data
    if t in SILENT_TYPES:
        return None
    if t == "day":
        return f"── Day {data.get('number', event.day)} ── alive: {_names(data.get('alive'))}", "bold"
    if t == "night":
        return f"── Night {data.get('number', event.day)} ──", "bold blue"
    if t == "morning":
        killed = list(data.get("killed") or [])
        deaths = f"{_names(killed)} {'was' if len(killed) < 2 else 'were'} killed"
        extras = "".join(
            f"; {key}: {_names(value) if isinstance(value, (list, tuple)) or value is None else value}"
            for key, value in data.items()
            if key not in ("number", "killed")
        )
        return f"Morning of day {data.get('number', '')}: {deaths}{extras}.", "bold"
    if t == "speech":
        return _speech(event, day_word), ""
    if t == "hand":
        return f"── Hand {data.get('number')} of {data.get('of')} ── {data.get('beats')} beats", "bold"
    if t == "round":
        return f"── Round {data.get('number')} ── alive: {_names(data.get('alive'))}", "bold"
    if t == "hand_over":
        cards = ", ".join(f"{n} {r}" for n, r in data.get("roles", {}).items())
        return (
            f"Hand {data.get('number')} over ({data.get('reason')}): cards {cards}; "
            f"points {_signed(data.get('points', {}))}; scores {_signed(data.get('scores', {}))}."
        ), "bold green"
    if t in MCKAY_LINES:
        return MCKAY_LINES[t](event.actor, data), "yellow"
    if t == "vote_result":
        return _vote_result(data), "cyan"
    if t == "death":
        card = f" — was {data['role']}" if data.get("role") else ""
        return f"† {data.get('player')} dies ({data.get('cause')}){card}.", "bold red"
    if t == "lot":
        why = f" ({data['why']})" if data.get("why") else ""
        return f"The lot falls on {data.get('player')}{why}.", "yellow"
    if t == "trial":
        return f"Trial of {data.get('player')} ({data.get('accusations')} accusations).", "yellow"
    if t == "runoff":
        return f"Runoff between {_and(data.get('candidates', []))}.", "yellow"
    if t in PLAIN_PUBLIC:
        return PLAIN_PUBLIC[t].format(data.get("player")), "yellow"
    if t == "game_over":
        winner = data.get("winner")
        won = "a draw" if winner in (None, "draw") else f"{winner} wins"
        return f"Game over: {won} ({data.get('reason')}).", "bold green"
    return _fallback(event), ""


def _fallback(event: Event) -> str:
    """``type: actor: key=value, …`` for events this printer has no sentence for."""
    parts = [p for p in (event.actor, _generic(event.data)) if p]
    return ": ".join([event.type, *parts])


def _private(event: Event) -> str | None:
    """The line for an event only some players (or the moderator) saw, or None."""
    t, data = event.type, event.data
    who = event.audience.removeprefix("player:")
    if t == "role":
        return f"[{who}] card: {data.get('role')} ({data.get('team')})"
    if t == "team":
        return f"[{who}] members: {_names(data.get('members'))}"
    if t == "check_result":
        return f"[{who}] check: {data.get('target')} is {data.get('result')}"
    if t == "speech":
        return f"[{who}] {_speech(event)}"
    if t in ("action", "forfeit", "rejected"):
        action = data.get("action")
        thought = _plain(action).get("thought") if action is not None else None
        if t == "action":
            if _plain(action).get("kind") in OWN_ANSWER_KINDS and not thought:
                return None
            line = f"[{who}] {describe_action(action)}"
        elif t == "forfeit":
            line = f"[{who}] forfeits ({data.get('why')}): {describe_action(action)}"
        else:
            answer = describe_action(action) if action is not None else f"raw {data.get('raw')!r}"
            line = f"[{who}] rejected {answer}: {data.get('reason')}"
        return line + (f" — thinks: {_quote(thought)}" if thought else "")
    if t == "cop_look":
        return f"[{who}] looks at card {data.get('position')}: {data.get('card')}"
    if t == "shots":
        shots = ", ".join(f"{m}→{target or 'holds fire'}" for m, target in data.get("shots", {}).items())
        return f"[{who}] shots: {shots}; victim: {data.get('victim') or 'nobody'}"
    return f"[{who}] {_fallback(event)}"


class Printer:
    """Observer that prints each new event once, as the game goes."""

    def __init__(self, console: Console, *, reveal: bool = False) -> None:
        self.console = console
        self.reveal = reveal
        self.day_word = "Day"  # "Hand" in McKay's games, where game.day counts hands
        self._seen = 0

    def __call__(self, game: Game) -> None:
        log = game.log
        for event in log[self._seen :]:
            if event.type == "hand":
                self.day_word = "Hand"
            if event.to is None:
                line = _public(event, self.day_word)
                if line is not None:
                    self.console.print(Text(*line), highlight=False, soft_wrap=True)
            elif self.reveal:
                text = _private(event)
                if text is not None:
                    self.console.print(Text(text, style="dim"), highlight=False, soft_wrap=True)
        self._seen = len(log)


def fate(game: Game, name: str) -> str:
    for death in game.deaths:
        if death.player == name:
            return f"died day {death.day} ({death.cause})"
    return "alive"


def print_result(console: Console, game: Game, specs: Mapping[str, str], transcript: Path | None) -> None:
    """Winner, every seat's card and fate, and where the transcript is."""
    if game.finished:
        winner = "draw" if game.winner in (None, "draw") else f"{game.winner} wins"
        days = "hands" if isinstance(getattr(game, "scores", None), dict) else "days"
        console.print(Text(f"Result: {winner} ({game.end_reason}) after {game.day} {days}.", style="bold"))
    else:
        console.print(Text("The game was stopped before its end.", style="bold yellow"))
    table = Table(title=f"{game.name}, seed {game.seed}")
    scores = getattr(game, "scores", None)  # McKay's games: a match of hands, won on points
    columns = ("seat", "player", "score", "last card") if isinstance(scores, dict) else ("seat", "player", "role", "team", "fate")
    for column in columns:
        table.add_column(column)
    for name in game.seats:
        role = game.role_of[name]
        if isinstance(scores, dict):
            table.add_row(name, specs.get(name, "?"), str(scores.get(name, "")), role)
        else:
            table.add_row(name, specs.get(name, "?"), role, game.team_of[role], fate(game, name))
    console.print(table)
    if transcript is not None:
        console.print(Text(f"transcript: {transcript}"), highlight=False)


def print_variants(console: Console, variants: Mapping[str, type[Game]]) -> None:
    table = Table(title="variants")
    for column in ("variant", "players", "default", "title"):
        table.add_column(column)
    for name, cls in variants.items():
        table.add_row(name, f"{cls.min_players}-{cls.max_players}", str(cls.default_players), cls.title)
    console.print(table)
