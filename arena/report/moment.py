"""The game at one moment: the facts a page's "moment" panel is rebuilt from as the reader steps.

Each fact is tied to its event (``seq``) and keeps that event's ``to``, so the page shows a view
only the facts that view saw (the same rule as every other element of the page), and a seat's own
page, built from that seat's events alone, holds no other fact. The script folds the facts up to
the chosen moment into: who is alive, each seat's latest claim, the votes so far in that day (or
night, or hand), and what the chosen view knows (its card, its team, its checks; in the
moderator's view every card).
"""

from __future__ import annotations

from typing import Any

from arena.engine import Event
from arena.report.words import claim_words, names


def _to(event: Event) -> list[str] | None:
    return None if event.to is None else sorted(event.to)


def _fact(event: Event, kind: str, **data: Any) -> dict[str, Any]:
    return {"seq": event.seq, "to": _to(event), "k": kind, **data}


def _card(data: dict[str, Any]) -> str:
    role, team = data.get("role"), data.get("team")
    return f"{role} ({team})" if team and team != role else str(role)


def moment_facts(events: list[Event], seats: list[str], mckay: bool) -> list[dict[str, Any]]:
    """The facts of a game in order (see the module's docstring); a small list, embedded in the page as JSON.

    ``open`` starts a day, night or hand (the votes so far start again; a McKay hand deals anew and
    everyone is alive again); ``alive`` is a list the table was told; ``death``, ``claim``, ``vote``,
    ``card``, ``team`` and ``check`` are what their names say.
    """
    from arena.report.story import vote_title

    out: list[dict[str, Any]] = [{"seq": -1, "to": None, "k": "alive", "names": list(seats)}]
    for e in events:
        t, d = e.type, e.data
        if t in ("day", "night", "hand"):
            number = d.get("number", e.day)
            title = f"Hand {number}" if t == "hand" else f"{t.capitalize()} {number}"
            out.append(_fact(e, "open", title=title, hand=t == "hand"))
            if t == "hand":
                out.append(_fact(e, "alive", names=list(seats)))
            elif d.get("alive"):
                out.append(_fact(e, "alive", names=[str(n) for n in d["alive"]]))
        elif t == "round" and d.get("alive"):
            out.append(_fact(e, "alive", names=[str(n) for n in d["alive"]]))
        elif t == "death":
            out.append(_fact(e, "death", who=str(d.get("player")), card=str(d.get("role") or "")))
        elif t == "speech" and isinstance(d.get("claim"), dict) and (d["claim"].get("role") or d["claim"].get("checks")):
            out.append(_fact(e, "claim", who=str(e.actor), text=claim_words(d["claim"])))
        elif t in ("cop_declared",):
            out.append(_fact(e, "claim", who=str(e.actor), text="declares cop"))
        elif t == "vote_result":
            out.append(_fact(e, "vote", text=vote_title(d)))
        elif t == "role":
            out.append(_fact(e, "card", who=e.audience.removeprefix("player:"), text=_card(d)))
        elif t == "team":
            out.append(_fact(e, "team", text=f"mafia team: {names(d.get('members'))}"))
        elif t == "check_result":
            out.append(_fact(e, "check", who=e.audience.removeprefix("player:"), text=f"{d.get('target')} is {d.get('result')}"))
        elif t == "cop_look":
            who = str(e.actor or e.audience.removeprefix("player:"))
            out.append(_fact(e, "check", who=who, text=f"card {d.get('position')}: {d.get('card')}"))
    return out
