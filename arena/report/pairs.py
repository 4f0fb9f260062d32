"""A mirrored pair side by side: the same deal played twice with the models swapped, and where the two part.

A tournament plays every deal twice, each model once on each side (``arena.tournament.design``).
The pair page shows both games' pages next to each other and lists the moments where they diverge:
the first public move that differs, and every day, night or hand whose public outcome (deaths,
votes, the hand's end) is not the same in both. Only public events are compared, so the page
tells nothing a reader of either game page could not see.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.engine import Event
from arena.engine.wording import public_line

#: words that change with every run of a model and say nothing about the moves
_NOISE = frozenset(("text", "thought", "reasoning"))


def pair_key(game_key: str) -> str:
    """The key both games of a mirrored pair share: the game's key without the side-A model."""
    return game_key.rsplit("/", 1)[0]


def pairs_of(games: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """pair key -> its two games (first the one in the design's order); a pair missing a game is left out."""
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for game in games:
        groups[pair_key(str(game["key"]))].append(game)
    return {k: g for k, g in groups.items() if len(g) == 2 and g[0]["first"] == g[1]["second"] and g[0]["seed"] == g[1]["seed"]}


def _move(event: Event) -> str:
    """A public event as a comparable move: its type, actor and data without the words of the moment."""
    data = {k: v for k, v in event.data.items() if k not in _NOISE}
    return json.dumps([event.type, event.actor, data], sort_keys=True, default=str)


@dataclass(slots=True)
class Part:
    """One day, night or hand of the pair: each game's public outcome in words, and whether they differ."""

    title: str
    seqs: tuple[int | None, int | None]
    outcomes: tuple[list[str], list[str]]

    @property
    def differs(self) -> bool:
        return self.outcomes[0] != self.outcomes[1]

    @property
    def words(self) -> tuple[str, str]:
        """Each game's outcome as one line of sentences ("… passes. Execution: …", never "passes.; Execution")."""
        return sentences(self.outcomes[0]), sentences(self.outcomes[1])


def sentences(lines: Sequence[str]) -> str:
    """Outcome lines joined: a sentence follows a full stop after a space, a phrase after "; "."""
    out = ""
    for line in (x.strip() for x in lines):
        if not line:
            continue
        out += ("" if not out else " " if out.endswith((".", "!", "?", "…")) else "; ") + line
    return out


@dataclass(slots=True)
class Divergence:
    """Where the two games of a pair part: the first differing move, and the parts that ended differently."""

    first: tuple[int | None, int | None] = (None, None)  # each game's seq of its first differing public move
    first_words: tuple[str, str] = ("", "")
    parts: list[Part] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return self.first == (None, None)


def _outcomes(events: Sequence[Event]) -> list[tuple[str, int, list[str]]]:
    """(title, seq, outcome lines) per day, night and hand: deaths, votes and the hand's end, in public words."""
    out: list[tuple[str, int, list[str]]] = []
    day_word = "Hand" if any(e.type == "hand" for e in events) else "Day"
    for e in events:
        if e.to is not None:
            continue
        if e.type in ("day", "night", "hand"):
            number = e.data.get("number", e.day)
            out.append((f"{'Hand' if e.type == 'hand' else e.type.capitalize()} {number}", e.seq, []))
        elif out and e.type in ("death", "vote_result", "hand_over", "game_over", "lot", "trial"):
            shown = public_line(e, day_word)
            out[-1][2].append(shown[0] if shown is not None else e.type)
    return out


def divergence(a: Sequence[Event], b: Sequence[Event]) -> Divergence:
    """Compare two games of one deal by their public events."""
    pa, pb = [e for e in a if e.to is None], [e for e in b if e.to is None]
    found = Divergence()
    for i in range(max(len(pa), len(pb))):
        ea, eb = (pa[i] if i < len(pa) else None), (pb[i] if i < len(pb) else None)
        if ea is None or eb is None or _move(ea) != _move(eb):
            words = tuple(_words(e) for e in (ea, eb))
            found.first = (ea.seq if ea else None, eb.seq if eb else None)
            found.first_words = (words[0], words[1])
            break
    oa, ob = _outcomes(a), _outcomes(b)
    for i in range(max(len(oa), len(ob))):
        ta = oa[i] if i < len(oa) else None
        tb = ob[i] if i < len(ob) else None
        title = (ta or tb)[0]  # type: ignore[index]
        missing = ["(not played)"]
        seqs = (ta[1] if ta else None, tb[1] if tb else None)
        found.parts.append(Part(title, seqs, (ta[2] if ta else missing, tb[2] if tb else missing)))
    return found


def _words(event: Event | None) -> str:
    if event is None:
        return "(the game is over)"
    shown = public_line(event, "Day")
    if shown is not None:
        return shown[0]
    target = event.data.get("accuse") or event.data.get("nominate")
    return f"{event.actor} {event.type}" + (f" → {target}" if target else "")
