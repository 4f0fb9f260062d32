"""The game at a glance: a strip row per day and night, a voter × target grid per vote, the
kill cards after each trio beat, and each seat's stated beliefs as a days × players heatmap.

Everything here is built from what the story builder has already placed; nothing decides who
may see what (each entry keeps its event's ``to``, and the page hides it like the event).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.report.words import slot_words

#: (seq, to, text): one entry of a strip cell, shown to whoever saw its event
Entry = tuple[int, list[str] | None, str]


@dataclass(slots=True)
class Glance:
    """One day's or night's row of the strip."""

    kind: str  # "day" or "night"
    number: Any
    accused: dict[str, list[str]] = field(default_factory=dict)  # accused or nominated -> by whom, in order
    court: list[Entry] = field(default_factory=list)  # charged, on trial, runoffs, lots
    votes: list[dict[str, Any]] = field(default_factory=list)  # each vote in short: seq, to, kind, text, css
    deaths: list[dict[str, Any]] = field(default_factory=list)
    checks: list[Entry] = field(default_factory=list)  # checks and looks (private to the checker)
    notes: list[Entry] = field(default_factory=list)  # saves (moderator only)
    claims: list[tuple[int, list[str] | None, str, list[Any]]] = field(default_factory=list)  # seq, to, speaker, statements

    def accusers(self) -> list[tuple[str, str]]:
        """Each accused (or nominated) player with who did it, repeats counted: ("Gus", "Bob ×3, Dee")."""
        out = []
        for target, by in self.accused.items():
            counts = Counter(by)
            out.append((target, ", ".join(f"{n} ×{k}" if k > 1 else n for n, k in counts.items())))
        return out

    def vote_groups(self) -> list[tuple[str, list[dict[str, Any]]]]:
        """The day's votes by kind, in the order they came ("charge": [Gus 1–5, Bob 2–4, …])."""
        groups: dict[str, list[dict[str, Any]]] = {}
        for vote in self.votes:
            groups.setdefault(vote["kind"], []).append(vote)
        return list(groups.items())

    def steps(self) -> list[dict[str, Any]]:
        """Trials and votes in the order they came, each trial with the votes that decided it.

        One step per court entry (a trial, a runoff, a lot) holding the votes after it, so that
        "Kim on trial" and "guilty: Kim 7–2" read together; votes before any court entry (a
        nominees vote) make steps of their own, grouped by kind.
        """
        timeline = sorted([(seq, 0, (to, text)) for seq, to, text in self.court] + [(v["seq"], 1, v) for v in self.votes])
        out: list[dict[str, Any]] = []
        for _, kind, entry in timeline:
            if kind == 0:
                out.append({"court": entry, "votes": []})
                continue
            if not out:
                out.append({"court": None, "votes": []})
            groups = out[-1]["votes"]
            if groups and groups[-1][0] == entry["kind"]:
                groups[-1][1].append(entry)
            else:
                groups.append((entry["kind"], [entry]))
        return out

    def empty(self) -> bool:
        return not (self.accused or self.court or self.votes or self.deaths or self.checks or self.notes or self.claims)


def vote_grid(
    data: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], seats: Sequence[str], nominations: Mapping[str, list[str]]
) -> dict[str, Any]:
    """Columns (targets, or yes / no), each voter's column, the tallies and cove's nominations.

    Targets come in the vote's own order of candidates when it gives one, else in seat order;
    "abstains" is a column of its own when somebody abstained.
    """
    if "yes" in data:
        columns: list[Any] = ["yes", "no"]
    else:
        order = {name: i for i, name in enumerate(seats)}
        named = [str(c) for c in data.get("candidates") or []]
        voted = {str(r["target"]) for r in rows if r.get("target") is not None}
        columns = named + sorted(voted - set(named), key=lambda n: (order.get(n, len(order)), n))
        if any(r.get("target") is None for r in rows):
            columns.append(None)
    tally = {str(c): 0 for c in columns}
    for row in rows:
        tally[str(row.get("target"))] = tally.get(str(row.get("target")), 0) + 1
    top = max(tally.values(), default=0)
    nominated = {c: list(nominations.get(str(c), [])) for c in columns if c is not None and nominations.get(str(c))}
    return {
        "columns": [{"key": str(c), "label": "abstains" if c is None else str(c)} for c in columns],
        "tally": tally, "top": top, "nominated": nominated,
    }  # fmt: skip


def beat_slots(slots: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Where each trio kill card lies after a beat: ``[("Ann", "on Cid"), ("Bob", "in hand")]``."""
    return [(name, slot_words(slot)) for name, slot in slots.items()]


def belief_grids(beliefs: Sequence[Mapping[str, Any]], seats: Sequence[str], viewer: str | None) -> list[dict[str, Any]]:
    """Per answering seat: its P(mafia) of every other seat, day by day (a seat's own page: its own only).

    ``mafia`` lists the targets on the mafia side (the outline in the review page); a seat's own
    page never gets it, since the answers' truth is not that seat's to know.
    """
    by_seat: dict[str, dict[str, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    mafia: dict[str, set[str]] = defaultdict(set)
    days: dict[str, set[int]] = defaultdict(set)
    for b in beliefs:
        seat, target = str(b.get("seat")), str(b.get("target"))
        if viewer is not None and seat != viewer:
            continue
        try:
            day, p = int(b.get("day")), float(b.get("p"))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
        by_seat[seat][target][day] = p
        days[seat].add(day)
        if b.get("truth") and viewer is None:
            mafia[seat].add(target)
    order = {name: i for i, name in enumerate(seats)}
    out = []
    for seat in sorted(by_seat, key=lambda n: (order.get(n, len(order)), n)):
        targets = sorted(by_seat[seat], key=lambda n: (order.get(n, len(order)), n))
        out.append({
            "seat": seat, "days": sorted(days[seat]), "targets": targets, "mafia": sorted(mafia[seat]),
            "cells": {t: dict(by_seat[seat][t]) for t in targets},
        })  # fmt: skip
    return out


def vote_short(seq: int, to: list[str] | None, data: Mapping[str, Any]) -> dict[str, Any]:
    """A vote for the strip: "charge" · "Gus 1–5" (failed), "nominees" · "→ Eve", "runoff" · "tie"."""
    kind = str(data.get("vote") or "vote").replace("_", " ")
    if "yes" in data:
        yes, no = len(data.get("yes") or []), len(data.get("no") or [])
        on = f"{data['accused']} " if data.get("accused") else ""
        return {"seq": seq, "to": to, "kind": kind, "text": f"{on}{yes}–{no}", "css": "pass" if data.get("passed") else "fail"}
    result = data.get("result")
    if result is not None:
        text = f"→ {result}"
    else:
        text = "tie: " + ", ".join(map(str, data.get("tied") or [])) if data.get("tied") else "nobody"
    return {"seq": seq, "to": to, "kind": kind, "text": text, "css": "pass" if result is not None else "fail"}
