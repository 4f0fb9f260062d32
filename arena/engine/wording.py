"""Events in words: the sentences every screen and report shares.

Pure functions of events and actions (no I/O, no terminal): the game printer
(:mod:`arena.cli.console`), the human's screen (:mod:`arena.players.human`) and the reports
(:mod:`arena.report`) word the same event the same way. :func:`public_line` words an event
everyone saw, :func:`private_line` one that only some players (or the moderator) saw, and
:func:`fate_text` a death ("killed by the mafia on night 1", "executed on day 2").

Each line comes with a style name (``"bold red"``, …) that a terminal may use and a page may
ignore. Event types without a sentence are still worded, generically, so new variants show up.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .actions import ActionBase, dump_action
from .events import PUBLIC, Event

PLAIN_PUBLIC = {  # type -> sentence about data["player"]
    "charged": "{} is charged.",
    "cleared": "{} is cleared; the discussion goes on.",
    "spared": "{} is spared; the discussion goes on.",
    "acquitted": "{} is acquitted.",
}
SILENT_TYPES = frozenset(("accusation",))  # already shown by the speech that made it
OWN_ANSWER_KINDS = frozenset(("speak", "verdict", "vote"))  # public anyway, through speech and vote results


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 accusation``, ``2 accusations``, ``1 hand``."""
    return f"{count} {word if count == 1 else many or word + 's'}"


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh")


def face_down(position: Any) -> str:
    """A face-down card of McKay's games by its position: ``the second face-down card``."""
    if isinstance(position, int) and 1 <= position <= len(ORDINALS):
        return f"the {ORDINALS[position - 1]} face-down card"
    return f"face-down card {position}"


def spaced(name: Any) -> str:
    """An identifier as words: ``no_kill`` -> ``no kill``, ``round1`` -> ``round 1``."""
    text = str(name).replace("_", " ")
    return "".join(f" {c}" if c.isdigit() and i and text[i - 1].isalpha() else c for i, c in enumerate(text))


def names_or_nobody(names: Any) -> str:
    return ", ".join(map(str, names)) if names else "nobody"


def and_list(names: Any) -> str:
    names = [str(n) for n in names]
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]


def plain_action(action: Any) -> dict[str, Any]:
    return dump_action(action) if isinstance(action, ActionBase) else dict(action or {})


def quoted(text: str) -> str:
    return f"'{text}'" if text else "(silent)"


def claim_text(claim: Any) -> str:
    data = claim.model_dump(exclude_defaults=True) if hasattr(claim, "model_dump") else dict(claim)
    parts = []
    if data.get("role"):
        parts.append(f"claims {data['role']}")
    parts += [f"says {name} is {result}" for name, result in data.get("checks", {}).items()]
    return "; ".join(parts)


def _generic(data: Mapping[str, Any]) -> str:
    return ", ".join(f"{key}={plain_action(v) if isinstance(v, ActionBase) else v}" for key, v in data.items())


def describe_action(action: Any) -> str:
    """``kill → Ann``, ``verdict yes``, ``declare cop, look at the first face-down card`` — an answer in a few words."""
    data = plain_action(action)
    kind = data.pop("kind", "?")
    data.pop("thought", None)
    data.pop("speech", None)
    data.pop("claim", None)
    if "yes" in data:
        return f"{kind} {'yes' if data.pop('yes') else 'no'}"
    if kind == "declare_cop":
        return "declare cop" + (f", look at {face_down(data['position'])}" if data.get("position") else "")
    if kind == "peek":
        return f"look at {face_down(data.get('position'))}"
    if kind == "place_card":
        slot = data.get("slot")
        return "take the kill card back" if slot is None else f"kill card on {spaced(slot)}"
    if kind == "judge":
        return f"rule that {data.get('first')} killed first"
    if kind == "handshake":
        return "offer a handshake"
    if not data:
        return {"kill": "holds fire", "vote": "abstains"}.get(kind, spaced(kind))
    if kind == "speak":
        return "speak"
    return f"{spaced(kind)} → " + ", ".join(
        str(v) if k in ("target", "slot", "first") else f"{spaced(k)} {v}" for k, v in data.items()
    )


def speech_line(event: Event, day_word: str = "Day") -> str:
    data = event.data
    kind = data.get("kind", "")
    who = event.actor or "?"
    label = f"{day_word} {event.day} — {who}" + ("" if kind in ("", "discussion", "beat") else f" ({spaced(kind)})")
    if event.audience != PUBLIC:
        label = f"{who} to the {event.audience.removeprefix('team:')}" if kind == "channel" else who
    notes = []
    if data.get("accuse"):
        again = " again: already counted, this changes nothing" if data.get("again") else ""
        notes.append(f"accuses {data['accuse']}{again}")
    if data.get("nominate"):
        notes.append(f"nominates {data['nominate']}")
    if data.get("floor"):
        notes.append(f"hands the floor to {names_or_nobody(data['floor'])}")
    if data.get("target") is not None and kind == "channel":
        notes.append(f"points at {data['target']}" + (f", round {data['round']}" if data.get("round") else ""))
    if data.get("claim"):
        notes.append(claim_text(data["claim"]))
    text = f"{label}: {quoted(str(data.get('text', '')))}"
    return text + (f" ({'; '.join(notes)})" if notes else "")


VOTE_NAMES = {"nominees": "the vote", "both_leave": "the vote on both leaving", "runoff": "the runoff vote"}


def vote_result_line(data: Mapping[str, Any]) -> str:
    vote = spaced(data.get("vote", ""))
    on = f" on {data['accused']}" if data.get("accused") else ""
    if not on and data.get("candidates"):
        on = f" on {and_list(data['candidates'])}"
    if data.get("vote") == "both_leave":  # not "Both leave vote on Cid and Fay"
        on = f" on whether both {and_list(data.get('candidates', []))} leave"
        vote = ""
    if "yes" in data:
        outcome = "passes" if data.get("passed") else "fails"
        yes, no = data.get("yes", []), data.get("no", [])
        counts = f"{len(yes)} yes ({names_or_nobody(yes)}), {len(no)} no ({names_or_nobody(no)})"
        return f"{(vote + ' vote').strip().capitalize()}{on}: {counts} — {outcome}."
    votes = data.get("votes", {})
    cast = ", ".join(f"{voter}→{target if target is not None else 'abstain'}" for voter, target in votes.items())
    result = data.get("result")
    counts: dict[str, int] = {}
    for target in votes.values():
        if target is not None:
            counts[str(target)] = counts.get(str(target), 0) + 1
    tally = " · ".join(f"{name} {n}" for name, n in sorted(counts.items(), key=lambda item: -item[1]))
    if result is not None:
        outcome = f"result: {result}"
    elif data.get("tied"):
        outcome = f"a tie between {and_list(data['tied'])}"
    else:
        outcome = "result: none"
    return f"{vote.capitalize()} vote{on}: {cast or 'no votes'}" + (f" (count: {tally})" if tally else "") + f" — {outcome}."


MINUS = "−"  # one minus sign on every screen and in every prompt (never the hyphen)


def signed_number(value: int) -> str:
    """``+3``, ``−5``, ``0``: a score as every screen and prompt writes it."""
    return f"+{value}" if value > 0 else str(value).replace("-", MINUS)


def signed(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{name} {signed_number(v)}" if isinstance(v, int) else f"{name} {v}" for name, v in values.items())


MCKAY_LINES = {  # McKay's real-time games: type -> line about actor and data
    "handshake": lambda who, d: f"{who} offers a handshake.",
    "cop_declared": lambda who, d: (
        f"{who} declares cop" + (f" and looks at {face_down(d['position'])}." if d.get("position") else ".")
    ),
    "declaration_void": lambda who, d: f"{who}'s declaration is void ({d.get('reason')}).",
    "peek": lambda who, d: f"{who} looks at {face_down(d.get('position'))}.",
    "card_placed": lambda who, d: (
        f"{who} " + ("takes the kill card back." if d.get("slot") is None else f"places the kill card on {spaced(d['slot'])}.")
    ),
    "kill": lambda who, d: f"{who} kills {d.get('target')}!",
    "judge_ruling": lambda who, d: f"{who} rules that {d.get('first')} killed first.",
    "retracted": lambda who, d: f"{who} takes back the kill on {d.get('target')}.",
    "kill_void": lambda who, d: f"{who}'s kill of {d.get('target')} fails ({d.get('reason') or 'one of them is already dead'}).",
}
HAND_ENDS = {  # why a hand of McKay's games ended
    "kill": "a kill",
    "handshake": "a handshake",
    "time": "time ran out",
    "no_kill": "every card on no kill",
    "time_during_soliloquy": "time ran out during the soliloquy",
}
GAME_ENDS = {"max_days": "the day limit", "nobody alive": "nobody is left alive"}
LOT_REASONS = {  # village: what a draw of lots decided
    "trial": "who is tried",
    "runoff": "who goes to the runoff",
    "execution": "who is executed",
    "night_kill": "the mafia's tied night target",
}
PUBLIC_CAUSES = {
    "simultaneous": "a simultaneous kill",
    "night": "in the night",
    "kill": "killed",
    "mafia": "killed by the mafia",  # not "(mafia)": beside "(execution)" it read as the card
    "maniac": "killed by the maniac",
    "mistress": "died with the mistress: her client dies with her",
    "arrest": "arrested by the detective",
}
BY_CAUSES = {"kill": "killed by {}", "simultaneous": "a simultaneous kill by {}", "vote": "the kill cards of {}"}


def death_line(data: Mapping[str, Any], me: str | None = None) -> str:
    """``† Ann dies (executed) — was mafia.``; to ``me`` when it is their own: ``† You die …``."""
    if me is not None and data.get("player") == me:
        card = f" — you were {data['role']}" if data.get("role") else ""
        return f"† You die ({death_cause(data)}){card}."
    card = f" — was {data['role']}" if data.get("role") else ""
    return f"† {data.get('player')} dies ({death_cause(data)}){card}."


def death_cause(data: Mapping[str, Any]) -> str:
    """A public death's cause in words, with the killers where the table saw them (McKay's games)."""
    cause = str(data.get("cause"))
    if data.get("by") and cause in BY_CAUSES:
        return BY_CAUSES[cause].format(and_list(data["by"]))
    return PUBLIC_CAUSES.get(cause, spaced(cause))


def game_over_text(winner: Any, reason: Any) -> str:
    """``town wins``, ``Ann wins the match``, ``a draw (the day limit)``."""
    draw = winner in (None, "draw")
    if reason == "match":
        return "the match is a draw" if draw else f"{winner} wins the match"
    outcome = "a draw" if draw else f"{winner} wins"
    return outcome if reason == "win" or not reason else f"{outcome} ({GAME_ENDS.get(str(reason), spaced(reason))})"


def morning_line(data: Mapping[str, Any]) -> str:
    killed = list(data.get("killed") or [])
    parts = [f"{names_or_nobody(killed)} {'was' if len(killed) < 2 else 'were'} killed"]
    if data.get("arrested"):
        arrested = list(data["arrested"])
        parts.append(f"{and_list(arrested)} {'was' if len(arrested) < 2 else 'were'} arrested")
    if data.get("immune"):
        parts.append(f"{data['immune']} is immune today")
    if data.get("announcement"):
        parts.append(str(data["announcement"]))
    for key, value in data.items():  # a variant's extras this function does not know yet
        if key not in ("number", "killed", "arrested", "immune", "announcement") and value not in (None, [], ""):
            shown = names_or_nobody(value) if isinstance(value, (list, tuple)) else value
            parts.append(f"{spaced(key)}: {shown}")
    return f"Morning of day {data.get('number', '')}: {'; '.join(parts)}."


def channel_line(data: Mapping[str, Any]) -> str:
    """A round of village's mafia channel, for the mafia: who pointed at whom, and the outcome."""
    targets = ", ".join(f"{member} → {target}" for member, target in (data.get("targets") or {}).items())
    head = f"Channel round {data.get('round')}: {targets or 'nobody pointed'}"
    if data.get("agreed"):
        return f"{head}; agreed on {data.get('victim')}." if data.get("victim") else f"{head}; agreed."
    if "victim" in data:
        return f"{head}; no agreement: " + (f"the victim is {data['victim']}." if data.get("victim") else "nobody is killed.")
    return f"{head}; no agreement yet."


def public_line(event: Event, day_word: str = "Day") -> tuple[str, str] | None:
    """(line, style) for an event everyone saw, or None to print nothing."""
    t, data = event.type, event.data
    if t == "accusation" and isinstance(data.get("count"), int):  # village: the running count
        return f"{data.get('accused')} now has {plural(data['count'], 'accusation')} today.", "dim"
    if t in SILENT_TYPES:
        return None
    if t == "day":
        return f"── Day {data.get('number', event.day)} ── alive: {names_or_nobody(data.get('alive'))}", "bold"
    if t == "night":
        return f"── Night {data.get('number', event.day)} ──", "bold blue"
    if t == "morning":
        return morning_line(data), "bold"
    if t == "speech":
        return speech_line(event, day_word), ""
    if t == "hand":
        return f"── Hand {data.get('number')} of {data.get('of')} ── {data.get('beats')} beats", "bold"
    if t == "round":
        return f"── Round {data.get('number')} ── alive: {names_or_nobody(data.get('alive'))}", "bold"
    if t == "hand_over":
        cards = ", ".join(f"{n} {r}" for n, r in data.get("roles", {}).items())
        why = HAND_ENDS.get(str(data.get("reason")), spaced(data.get("reason")))
        return (
            f"Hand {data.get('number')} over ({why}): cards {cards}; "
            f"points {signed(data.get('points', {}))}; scores {signed(data.get('scores', {}))}."
        ), "bold green"
    if t in MCKAY_LINES:
        return MCKAY_LINES[t](event.actor, data), "yellow"
    if t == "vote_result":
        return vote_result_line(data), "cyan"
    if t == "death":
        return death_line(data), "bold red"
    if t == "lot":
        why = f" ({LOT_REASONS.get(str(data['why']), spaced(data['why']))})" if data.get("why") else ""
        return f"The lot falls on {data.get('player')}{why}.", "yellow"
    if t == "trial":
        accusations = data.get("accusations")
        count = plural(accusations, "accusation") if isinstance(accusations, int) else f"{accusations} accusations"
        return f"Trial of {data.get('player')} ({count}).", "yellow"
    if t == "runoff":
        return f"Runoff between {and_list(data.get('candidates', []))}.", "yellow"
    if t in PLAIN_PUBLIC:
        return PLAIN_PUBLIC[t].format(data.get("player")), "yellow"
    if t == "game_over":
        return f"Game over: {game_over_text(data.get('winner'), data.get('reason'))}.", "bold green"
    return fallback_line(event), ""


def fallback_line(event: Event) -> str:
    """``type: actor: key=value, …`` for events this printer has no sentence for."""
    parts = [p for p in (event.actor, _generic(event.data)) if p]
    return ": ".join([event.type, *parts])


def private_line(event: Event) -> str | None:
    """The line for an event only some players (or the moderator) saw, or None."""
    t, data = event.type, event.data
    who = event.audience.removeprefix("player:")
    if t == "role":
        return f"[{who}] card: {data.get('role')} (team {data.get('team')})"
    if t == "team":
        return f"[{who}] members: {names_or_nobody(data.get('members'))}"
    if t == "check_result":
        if data.get("result") == "frozen":  # cove: the mistress visited the detective
            return f"[{who}] was visited by the mistress: the check of {data.get('target')} is void"
        return f"[{who}] check: {data.get('target')} is {data.get('result')}"
    if t == "speech":
        return f"[{who}] {speech_line(event)}"
    if t in ("action", "forfeit", "rejected"):
        action = data.get("action")
        thought = plain_action(action).get("thought") if action is not None else None
        if t == "action":
            if plain_action(action).get("kind") in OWN_ANSWER_KINDS and not thought:
                return None
            line = f"[{who}] {describe_action(action)}"
        elif t == "forfeit":
            line = f"[{who}] forfeits ({data.get('why')}): {describe_action(action)}"
        else:
            answer = describe_action(action) if action is not None else f"raw {data.get('raw')!r}"
            line = f"[{who}] rejected {answer}: {data.get('reason')}"
        return line + (f" — thinks: {quoted(thought)}" if thought else "")
    if t == "cop_look":
        return f"[{who}] {face_down(data.get('position'))} is: {data.get('card')}"
    if t == "channel_result":
        return f"[{who}] {channel_line(data)}"
    if t == "shots":
        shots = ", ".join(f"{m}→{target or 'holds fire'}" for m, target in data.get("shots", {}).items())
        victim = data.get("victim")
        why = "" if victim else ": a kill needs more than half of the living mafia on the same player"
        return f"[{who}] shots: {shots}; victim: {victim or 'nobody'}{why}"
    return f"[{who}] {fallback_line(event)}"


# ---- deaths ---------------------------------------------------------------------------------------
#: phases in which a death is a night's (the variants' night steps and their dawns)
NIGHT_PHASES = frozenset(("first_night", "night", "channel", "night_roles", "mafia_channel", "dawn"))
#: a death's cause (``Death.cause``, the truth) -> what happened, in words
DEATH_VERBS = {
    "execution": "executed",
    "vote": "voted out",
    "lot": "executed by lot",
    "arrest": "arrested",
    "mafia": "killed by the mafia",
    "maniac": "killed by the maniac",
    "mistress": "died with the mistress",
    "night": "killed",
    "kill": "killed",
    "simultaneous": "killed in a simultaneous kill",
}


def fate_text(cause: str, day: int, phase: str) -> str:
    """A death in the variant's own numbering: "killed by the mafia on night 1", "executed on day 2".

    ``day`` is the death's ``game.day`` and ``phase`` the phase it happened in (the ``death``
    event's): night N is the night numbered N by the variant (classic: after day N, its first
    night is 0; cove: before day N), so the words match the game's "Night N" headings.
    """
    verb = DEATH_VERBS.get(cause, f"died ({cause.replace('_', ' ')})")
    return f"{verb} on {'night' if phase in NIGHT_PHASES else 'day'} {day}"


# ---- the mafia count a seat is shown ---------------------------------------------------------------
#: the cards whose living count a seat of a day/night game is shown (cove deals a maniac too)
COUNTED_CARDS = (("mafia", "Mafia"), ("maniac", "Maniac"))


def _alive_line(
    card: str, word: str, dealt: int, deaths: list[Event], me: str | None, known: set[str], floor: int
) -> tuple[str, int, int]:
    """One card's living count (with its least and most): exact, with names, when the seat knows
    every holder (its own card and its team); else the table's count, a range when a card was not
    shown (``floor``: holders the seat knows alive)."""
    dead = {str(e.data.get("player")) for e in deaths}
    if known:
        alive = [n for n in sorted(known, key=lambda n: (n != me, n)) if n not in dead]
        named = and_list("you" if n == me else n for n in alive)
        return f"{word} alive: {len(alive)}" + (f" — {named}." if alive else "."), len(alive), len(alive)
    shown = sum(1 for e in deaths if e.data.get("role") == card)
    hidden = sum(1 for e in deaths if e.data.get("role") is None)
    most = dealt - shown
    least = min(most, max(floor, most - hidden))
    shown_words = f"{shown} shown dead" if shown else "none shown dead"
    if least == most:
        return f"{word} alive: {most} ({dealt} dealt, {shown_words}).", least, most
    hidden_words = f"{plural(hidden, 'death')} with the card not shown"
    return f"{word} alive: {least} to {most} ({dealt} dealt, {shown_words}; {hidden_words}).", least, most


def public_mafia(deck: Any, events: Any, *, me: str | None = None, role: str | None = None, team: Any = ()) -> str | None:
    """How many mafia (and, in cove, maniacs) are alive, as this seat can tell.

    The table's count: the cards dealt (``deck``: ``(card, count)`` pairs, public in every variant
    here) minus the public deaths whose card was shown; deaths with a hidden card leave a range.
    A seat that knows every holder says the exact count with the names: a mafia seat told its
    ``team`` (the living mafia when they met), a maniac (``role``) about himself. A mafia seat
    not yet told its partners counts itself: at least one is alive while it is; so does each
    living player the seat's own checks found mafia, and, where no maniac is dealt, the game going
    on (the town wins when no mafia is left); where a maniac is dealt too and both counts may be 0,
    it says they cannot both be while the game goes on. None when the deck deals none of these cards."""
    counts = dict((card, n) for card, n in deck or ())
    deaths = [e for e in events if e.type == "death" and e.to is None]
    dead = {str(e.data.get("player")) for e in deaths}
    # the seat's own checks that found a mafia member (a check's answer is true; the maniac shows "not mafia")
    caught = {str(e.data.get("target")) for e in events if e.type == "check_result" and e.data.get("result") == "mafia"}
    lines: list[tuple[str, int, int]] = []
    for card, word in COUNTED_CARDS:
        dealt = counts.get(card, 0)
        if not dealt:
            continue
        known: set[str] = set()
        if card == "mafia" and role == "mafia" and team:
            known = {str(n) for n in team}
        elif role == card and dealt == 1 and me is not None:
            known = {me}
        mine = role == card and me is not None and all(e.data.get("player") != me for e in deaths)
        floor = (1 if mine else 0) + len(caught - dead) if card == "mafia" else (1 if mine else 0)
        if card == "mafia" and not counts.get("maniac"):
            floor = max(floor, 1)  # the town wins when no mafia is left: while the game goes on, one is
        lines.append(_alive_line(card, word, dealt, deaths, me, known, floor))
    text = " ".join(line for line, _, _ in lines)
    if len(lines) == 2 and lines[0][1] == lines[1][1] == 0:
        # cove: the town wins when neither the mafia nor the maniac is left, so while the game goes on one is
        text += " They cannot both be 0 while the game goes on."
    return text or None


# ---- today's nominations (cove) ------------------------------------------------------------------
def nominations_today(events: Any) -> list[tuple[str, list[str]]]:
    """Today's public nominations, most nominated first: ``[("Bob", ["Ann", "Cid"]), …]`` (the
    events since the last day began; ties keep the order of the first nomination)."""
    events = list(events)
    start = max((i for i, e in enumerate(events) if e.type == "day" and e.to is None), default=0)
    by: dict[str, list[str]] = {}
    for event in events[start:]:
        nominee = event.data.get("nominate") if event.type == "speech" and event.to is None else None
        if nominee and event.actor:
            by.setdefault(str(nominee), []).append(event.actor)
    return sorted(by.items(), key=lambda item: -len(item[1]))
