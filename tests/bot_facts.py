"""Are the bots' words true to the record? (issue 30.10)

Every sentence a day/night bot says that states a fact of the public record (a vote and how often,
an accusation, a death, a night's shot after an accusation, a claim) notes that fact as data in its
:class:`~arena.players.bot.speech.Voice` (``Voice.stated``). :class:`Witness` is a bot that hands
those notes over after each decision, with the length of the log when it was asked; :func:`check`
then holds each fact against the public events up to that point. Opinions ("X was town", "I don't
trust that") and a seat's own card and checks (which a mafia bot may lie about) are not facts of
the record and are not checked. Used by ``tests/test_bot_facts.py`` and ``benchmarks/bot_facts.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from arena.engine import ActionBase, DecisionRequest, Game, View
from arena.players.bot.memory import claim_fields
from arena.players.bot.player import BotPlayer
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import run_sync
from arena.variants import get_variant

TABLES = {"classic": 9, "village": 9, "cove": 10}


@dataclass(slots=True)
class Statement:
    speaker: str
    cut: int  # the log's length when the speaker was asked: what it could know
    facts: tuple[tuple, ...]
    speech: str


class Witness(BotPlayer):
    """A bot that reports the facts its words stated (it plays exactly as the bot does)."""

    def __init__(self, name: str, seed: int, game: Game, out: list[Statement]) -> None:
        super().__init__(name, seed)
        self.game = game
        self.out = out

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> ActionBase:
        cut = len(self.game.log)
        action = super().decide_now(request, view, feedback)
        voice = getattr(self.strategy, "voice", None)
        if voice is not None and getattr(voice, "stated", None):  # (an older checkout notes no facts)
            self.out.append(Statement(self.name, cut, tuple(voice.stated), getattr(action, "speech", None) or ""))
            voice.stated.clear()
        return action


@dataclass
class Record:
    """The public record up to a point of the log."""

    day: int = 0
    dead: set[str] = field(default_factory=set)
    ballots: list[dict] = field(default_factory=list)
    accusations: list[tuple[str, str, int]] = field(default_factory=list)  # (accuser, accused, day)
    shot: dict[str, int] = field(default_factory=dict)  # night victim -> accusations made before the shot
    claims: list[tuple[str, str | None, dict]] = field(default_factory=list)

    def read(self, events: Iterable) -> Record:
        """Fold ``events`` in (the record grows as the log is read on)."""
        r = self
        for e in events:
            if e.to is not None:
                continue
            data = e.data
            if e.type == "day":
                r.day = data.get("number", r.day + 1)
            elif e.type == "death":
                r.dead.add(data["player"])
            elif e.type == "morning":
                for name in data.get("killed") or ():
                    r.shot[name] = len(r.accusations)
            elif e.type == "vote_result":
                r.ballots.append({**data, "day": r.day, "after": len(r.accusations)})
            elif e.type == "accusation":
                r.accusations.append((e.actor, data["accused"], r.day))
            elif e.type == "speech":
                if data.get("nominate"):
                    r.accusations.append((e.actor, data["nominate"], r.day))
                if data.get("claim") is not None:
                    role, checks = claim_fields(data["claim"])
                    r.claims.append((e.actor, role, checks))
        return r

    def votes(self, voter: str, accused: str, side: str, *, passed: bool = False) -> int:
        """Ballots on ``accused`` where ``voter`` voted ``side``: "no" (a yes/no vote to spare),
        "yes" (for his removal, not a charge), "other" (another candidate of a vote among
        candidates); ``passed``: only the ballots that removed him."""
        n = 0
        for b in self.ballots:
            if "accused" in b and "yes" in b:  # a yes/no vote on one accused
                if b["accused"] != accused:
                    continue
                if side == "no":
                    n += voter in b["no"]
                elif side == "yes" and b["vote"] != "charge":
                    n += voter in b["yes"] and (b.get("passed", False) or not passed)
            elif "votes" in b and accused in b.get("candidates", ()):
                choice = b["votes"].get(voter)
                if side == "other":
                    n += choice is not None and choice != accused
                elif side == "yes":
                    n += choice == accused and (b.get("result") == accused or not passed)
        return n


def falsehoods(statement: Statement, record: Record) -> list[str]:
    """The facts of ``statement`` that the record before it does not bear out."""
    wrong = []
    today = [(a, t) for a, t, d in record.accusations if d == record.day]
    for fact in statement.facts:
        kind, args = fact[0], fact[1:]
        if kind == "voted":
            voter, accused, side, n = args
            ok = record.votes(voter, accused, side) == n
        elif kind == "voted_out":
            voter, accused, n = args
            ok = record.votes(voter, accused, "yes", passed=True) == n and accused in record.dead
        elif kind == "dead":
            ok = args[0] in record.dead
        elif kind == "alive":
            ok = args[0] not in record.dead
        elif kind == "accused":
            ok = any((a, t) == args for a, t, _ in record.accusations)
        elif kind == "accused_today":
            ok = tuple(args) in today
        elif kind == "someone_accused_today":
            ok = bool(today)
        elif kind == "nobody_accused_today":
            ok = not today
        elif kind == "shot_after_accusing":
            victim, accused = args
            shot = record.shot.get(victim, -1)
            ok = any((a, t) == (victim, accused) and i < shot for i, (a, t, _) in enumerate(record.accusations))
        elif kind == "pressed":
            accuser, accused = args
            tried = [(b["day"], b["after"]) for b in record.ballots if _on(b, accused)]  # the same day, before it
            ok = any(
                (a, t) == (accuser, accused) and any(day == d and after <= i for day, after in tried)
                for i, (a, t, d) in enumerate(record.accusations)
            )
        elif kind == "claimed":
            ok = any(c == args[0] and role == args[1] for c, role, _ in record.claims)
        elif kind == "claimed_check":
            claimer, target, result = args
            ok = any(c == claimer and checks.get(target) == result for c, _, checks in record.claims)
        else:
            ok = False
        if not ok:
            wrong.append(f"{statement.speaker}: {fact} in {statement.speech!r}")
    return wrong


def _on(ballot: dict, name: str) -> bool:
    """Was ``name`` voted on in ``ballot`` (the accused, or a candidate)?"""
    return ballot.get("accused") == name or name in ballot.get("candidates", ())


def played(variant: str, seed: int) -> tuple[Game, list[Statement]]:
    seats = list(DEFAULT_NAMES[: TABLES[variant]])
    game = get_variant(variant)(seats, None, seed)
    out: list[Statement] = []
    run_sync(game, {p: Witness(p, seed, game, out) for p in seats})
    return game, out


def check(game: Game, statements: list[Statement]) -> list[str]:
    """Every fact stated in ``game`` that the record before its statement does not bear out."""
    wrong: list[str] = []
    record = Record()
    read = 0
    for st in sorted(statements, key=lambda s: s.cut):
        record.read(game.log[read : st.cut])
        read = st.cut
        wrong.extend(falsehoods(st, record))
    return wrong
