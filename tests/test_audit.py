"""Hidden-information audit: over many seeded bot games of every variant, no player's view holds
an event that player may not see, and the "legal now" text a model seat is given for each decision
tells it nothing its view does not.

The audit does not trust the view filter: it re-derives, from the game's own truth (roles,
teams), who may know each private fact, and every private event type must have a rule here —
a variant that adds a private event type without one fails this test until it is audited.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from typing import Any

import pytest

from arena.engine import DecisionRequest, Event, FieldSpec, Game, Option, View
from arena.players.base import SyncPlayer
from arena.players.llm.prompt import legal_answers
from arena.players.registry import make_player
from arena.players.scripted import OutOfAnswers, ScriptedPlayer
from arena.run.orchestrator import run_sync
from arena.variants import VARIANTS

GAMES = 200


def _own(game: Game, event: Event, viewer: str) -> bool:
    return event.to == frozenset((viewer,)) and event.actor in (None, viewer)


def _mafia_only(game: Game, event: Event, viewer: str) -> bool:
    return game.team(viewer) == "mafia"


def _team(game: Game, event: Event, viewer: str) -> bool:
    members = set(event.data.get("members", ()))
    return viewer in members and all(game.team(m) == game.team(viewer) for m in members)


def _checker(game: Game, event: Event, viewer: str) -> bool:
    return _own(game, event, viewer) and game.role_of[viewer] in ("inspector", "detective")


#: private event type -> may this viewer hold it?
PRIVATE_RULES: dict[str, Callable[[Game, Event, str], bool]] = {
    "role": lambda g, e, p: _own(g, e, p) and e.data.get("player", p) == p,
    "team": _team,
    "check_result": _checker,
    "action": _own,
    "forfeit": _own,
    "rejected": _own,
    "speech": lambda g, e, p: e.data.get("kind") == "channel" and _mafia_only(g, e, p),
    "channel_result": _mafia_only,
    "cop_look": _own,  # McKay: the card a declarer looked at, told to him alone
    # village: the mafia's night tie-break is told to the mafia only (every other lot is public)
    "lot": lambda g, e, p: e.data.get("why") == "night_kill" and _mafia_only(g, e, p),
}


def _reveals_on_death(game: Game) -> bool:
    return game.name == "village" or bool(getattr(game.options, "reveal_on_death", False))


#: variants whose dead never come back nor act (turns.md: the dead see only public events)
DEAD_SEE_PUBLIC_ONLY = frozenset({"classic", "village", "cove"})


def audit(game: Game) -> list[str]:
    problems = []
    died = {e.data["player"]: e.seq for e in game.log if e.type == "death"}
    for name in game.seats:
        for event in game.view(name).events:
            if event.to is not None and game.name in DEAD_SEE_PUBLIC_ONLY and event.seq > died.get(name, event.seq):
                problems.append(f"{name} is dead but was told {event.to_dict()}")
                continue
            if event.to is None:
                if event.type == "death" and "role" in event.data and not _reveals_on_death(game):
                    problems.append(f"{name} saw a dead player's card: {event.to_dict()}")
                continue
            if name not in event.to:
                problems.append(f"{name} holds an event addressed to others: {event.to_dict()}")
                continue
            rule = PRIVATE_RULES.get(event.type)
            if rule is None:
                problems.append(f"private event type {event.type!r} has no audit rule")
            elif not rule(game, event, name):
                problems.append(f"{name} may not see {event.to_dict()}")
    return problems


def _sizes(cls: type[Game]) -> list[int]:
    return sorted({cls.min_players, cls.default_players, cls.max_players if cls.max_players <= 14 else 14})


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_no_view_holds_an_event_its_player_may_not_see(variant: str) -> None:
    cls = VARIANTS[variant]
    sizes = _sizes(cls)
    for seed in range(GAMES):
        size = sizes[seed % len(sizes)]
        seats = [f"P{i}" for i in range(1, size + 1)]
        game = cls(seats, seed=seed)
        run_sync(game, {n: make_player("bot", n, seed) for n in seats})
        assert game.finished
        problems = audit(game)
        assert not problems, f"{variant} seed {seed}: {problems[:3]}"


def test_the_mafia_tie_break_lot_is_audited() -> None:
    """Bots agree at night, so the random games never draw the village mafia's tie-break lot:
    a scripted split channel does, and its team-only ``lot`` must pass the audit (and only it)."""
    deal = {"Ann": "mafia", "Bob": "mafia", "Cid": "detective", "Dan": "doctor",
            "Eve": "villager", "Fay": "villager", "Gus": "villager"}  # fmt: skip
    answers: dict[str, list[dict[str, Any]]] = {n: [{"kind": "speak"}] for n in deal}
    for member, target in (("Ann", "Eve"), ("Bob", "Fay")):
        answers[member] += [{"kind": "kill", "target": target}] * 3  # three rounds, never agreeing
    answers["Cid"].append({"kind": "check", "target": "Gus"})
    answers["Dan"].append({"kind": "heal", "target": "Gus"})
    game = VARIANTS["village"](list(deal), {"discussion_rounds": 1}, seed=0, deal=deal)
    with contextlib.suppress(OutOfAnswers):
        run_sync(game, {n: ScriptedPlayer(n, a) for n, a in answers.items()})
    (lot,) = [e for e in game.log if e.type == "lot"]
    assert lot.to == {"Ann", "Bob"} and lot.data["why"] == "night_kill"
    assert audit(game) == []
    game._emit("lot", "player:Cid", frozenset(("Cid",)), None, dict(lot.data))  # a town player told of it
    assert [p for p in audit(game) if "may not see" in p]


def test_the_audit_catches_a_leak() -> None:
    cls = VARIANTS["classic"]
    seats = [f"P{i}" for i in range(1, 10)]
    game = cls(seats, seed=1)
    run_sync(game, {n: make_player("random", n, 1) for n in seats})
    town = next(n for n in seats if game.team(n) == "town")
    mafia = game.living("mafia") or [n for n in seats if game.team(n) == "mafia"]
    game._emit("team", "team:mafia", frozenset((town, *mafia)), None, {"members": [town, *mafia]})
    game._emit("death", "all", None, None, {"player": mafia[0], "cause": "x", "role": "mafia"})
    game._emit("secret", "player:P1", frozenset(("P1",)), None, {})
    dead = game.deaths[0].player
    game._emit("team", "team:mafia", frozenset((dead,)), None, {"members": [dead]})
    problems = audit(game)
    assert any("may not see" in p for p in problems)
    assert any("card" in p for p in problems)
    assert any("no audit rule" in p for p in problems)
    assert any(p.startswith(f"{dead} is dead but was told") for p in problems)


# ---- the answers legal now, as a model seat reads them ---------------------------------------------
LEGAL_GAMES = 40
NAME_FIELDS = frozenset({"target", "accuse", "nominate", "floor", "first", "slot"})  # fields that name players


class LegalReader(SyncPlayer):
    """A bot that, before answering, renders the "legal now" text a model seat would get."""

    def __init__(self, name: str, seed: int, seen: list[tuple[DecisionRequest, int, str]]) -> None:
        super().__init__(name)
        self.bot = make_player("bot", name, seed)
        self.seen = seen

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Any:
        self.seen.append((request, len(view.events), legal_answers(request)))
        return self.bot.decide_now(request, view, feedback)


def _knows_card(game: Game, viewer: str, other: str, upto: int) -> bool:
    """May ``viewer`` know ``other``'s card or team, from the first ``upto`` events of its view?"""
    if other == viewer:
        return True
    for event in game.view(viewer).events[:upto]:
        if event.type == "team" and other in event.data.get("members", ()):
            return True
        if event.type == "death" and event.data.get("player") == other and "role" in event.data:
            return True
    return False


def legal_problems(game: Game, seen: list[tuple[DecisionRequest, int, str]]) -> list[str]:
    problems = []
    words = {*game.roles, *game.team_of.values()}
    for request, upto, text in seen:
        viewer = request.player
        for option in request.options:
            for name, spec in option.fields.items():
                if spec.choices is None or name not in NAME_FIELDS:
                    continue
                # a living player left out of the choices: a rule the player is told, or not a candidate
                candidates = set(request.info.get("candidates") or request.alive)
                unexplained = (
                    set(request.alive) - set(spec.choices) - {viewer} - set(spec.forbidden) - (set(request.alive) - candidates)
                )
                if unexplained:
                    problems.append(
                        f"{viewer} {request.group}: {option.kind}.{name} leaves out {sorted(unexplained)} unexplained"
                    )
        plain = re.sub(r"`[^`]*`", "", text)
        for clause in re.split(r"[;\n]", plain):
            named = [s for s in game.seats if re.search(rf"\b{re.escape(s)}\b", clause)]
            if not named or not any(re.search(rf"\b{re.escape(w)}\b", clause) for w in words):
                continue
            for other in named:
                if not _knows_card(game, viewer, other, upto):
                    problems.append(f"{viewer} may not know {other}'s card, but is told: {clause.strip()}")
    return problems


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_legal_answers_text_holds_nothing_hidden(variant: str) -> None:
    """The "legal now" text of every request (what a model seat is told it may answer) names a
    player's role only where its player may know it, and leaves no living player out of a choice
    without a reason the player is given (or the candidates the vote is about)."""
    cls = VARIANTS[variant]
    sizes = _sizes(cls)
    for seed in range(LEGAL_GAMES):
        seats = [f"P{i}" for i in range(1, sizes[seed % len(sizes)] + 1)]
        game = cls(seats, seed=seed)
        seen: list[tuple[DecisionRequest, int, str]] = []
        run_sync(game, {n: LegalReader(n, seed, seen) for n in seats})
        assert seen and game.finished
        problems = legal_problems(game, seen)
        assert not problems, f"{variant} seed {seed}: {problems[:3]}"


def test_the_legal_answers_audit_catches_a_leak() -> None:
    cls = VARIANTS["classic"]
    seats = [f"P{i}" for i in range(1, 10)]
    game = cls(seats, seed=1)
    town = next(n for n in seats if game.team(n) == "town")
    mafia = next(n for n in seats if game.team(n) == "mafia")
    others = tuple(s for s in seats if s not in (town, mafia))
    hidden = Option("kill", {"target": FieldSpec(others, forbidden={town: "not yourself"})})
    request = game.request(town, "Shoot.", [hidden], group="night_kill")
    problems = legal_problems(game, [(request, 0, legal_answers(request))])
    assert any("leaves out" in p for p in problems)
    reason = Option("kill", {"target": FieldSpec((*others, town), forbidden={mafia: f"{mafia} is in the mafia"})})
    told = game.request(town, "Shoot.", [reason], group="night_kill")
    assert any("may not know" in p for p in legal_problems(game, [(told, 0, legal_answers(told))]))
