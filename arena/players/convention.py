"""How mafia partners agree on a silent shot: a public convention every partner can follow.

In ``classic`` the mafia shoot at night without talking, and a shot kills only if the partners
agree. Bots used to agree through a draw they shared in secret, which a person or a model on their
team could not read. Now every mafia seat, bot or not, is told the same rule and can apply it to
what it has seen:

    Shoot the living player (not one of us) named by our team's latest public accusation,
    whichever of us made it; if none of us has accused such a player, the one named by the
    latest accusation anyone made; if nobody has, the first of them to speak today (in any
    speech), or on the latest earlier day one spoke.

Everything it reads is public (accusations, deaths) or known to every partner (who the partners
are), so a non-bot partner's accusation leads the bots exactly as a bot's does. A person reads it
on the night screen and a model in its night question (``prompts/blocks/team_shot.j2``), with
the player it names right now; and since a day's accusation picks the night's shot, it is told
with the team reveal (:func:`team_rule`) and reminded in every day question (:func:`day_note`).

Village's and cove's mafia talk on a channel instead; bot partners there follow the first
pointing (:data:`CHANNEL_RULE`), which every mafia seat is told the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.engine import Event

#: the rule in words, as every mafia seat is told it
CONVENTION = (
    "each of you shoots the living player (not one of you) "
    "named by your team's latest public accusation, whoever of you made it; if none of you has accused such "
    "a player, the one named by the latest accusation anyone made; if nobody has accused a living player, "
    "the first living player (not one of you) who spoke today, or on the latest earlier day one spoke"
)


#: how bot partners point on a mafia channel (village, cove): ``DayNightBot.channel``
CHANNEL_RULE = (
    "partners are asked in seat order, and bot partners follow the first pointing: each points at the "
    "player named most so far this round (a tie: the one named first), at the night's first pointing "
    "when a new round starts, and chooses for itself only when nobody has pointed yet tonight"
)
#: cove's channel has one pass a night (no rounds): a bot partner follows the night's first pointing
#: (its channel question says the members answer in seat order, so the rule does not say it again)
CHANNEL_RULE_ONE_PASS = (
    "bot partners follow the first pointing: each points at the "
    "player the night's first pointing named, and chooses for itself only when nobody has pointed yet tonight"
)
#: the variants whose mafia shoot in silence by :data:`CONVENTION` (the others talk on a channel)
SILENT_SHOT = frozenset({"classic"})
CHANNEL = frozenset({"village", "cove"})
#: a day/night game's questions asked by day (the day's accusation picks the night's shot)
DAY_GROUPS = frozenset({"discussion", "verdict", "vote", "defence", "floor", "last_words"})
#: the day questions whose answer may accuse (in the others the seat cannot name the shot itself)
ACCUSING_GROUPS = frozenset({"discussion"})


def team_rule(variant: str | None) -> str | None:
    """What a mafia seat is told with its team: how the team picks its victim (None: no rule)."""
    if variant in SILENT_SHOT:
        return (
            f"Your team's night shot follows one rule that every partner, bot or not, applies: {CONVENTION}. "
            "So by day your accusation also names your team's shot."
        )
    if variant in CHANNEL:
        return f"On the night channel {channel_rule(variant)}."
    return None


def channel_rule(variant: str | None) -> str:
    """How bot partners point on the mafia channel, as every mafia seat is told it: village's
    rounds follow the round's most named, cove's single pass the night's first pointing."""
    return CHANNEL_RULE_ONE_PASS if variant == "cove" else CHANNEL_RULE


def day_note(variant: str | None, group: str, role: str, events: Sequence[Event], alive: Iterable[str], me: str) -> str | None:
    """The reminder in a day question of a mafia seat in a silent-shot game: its accusation also
    names the team's shot (in a question where it cannot accuse, the day's accusations still do),
    and whom the rule names now (None for any other question)."""
    if variant not in SILENT_SHOT or role != "mafia" or group not in DAY_GROUPS:
        return None
    alive = tuple(alive)
    team, named = lead_in_view(events, alive)
    if not [n for n in team if n != me and n in alive]:
        return None  # alone: nobody to agree with
    now = f"right now it names {named}" if named else "right now it names nobody"
    rule = (
        "tonight each of you shoots the player named by your team's latest accusation of a living player outside "
        f"the team (else the latest anyone made, else the first outsider to speak); {now}."
    )
    if group in ACCUSING_GROUPS:
        return f"Your accusation also names your team's shot: {rule}"
    return f"You cannot accuse in this answer, but the day's accusations still pick your team's shot: {rule}"


def accusations(events: Iterable[Event]) -> list[tuple[str, str]]:
    """(accuser, accused) of every public accusation or nomination, in order."""
    found: list[tuple[str, str]] = []
    for e in events:
        if e.to is not None or e.actor is None:
            continue
        if e.type == "accusation":  # classic, village (the speech that made it says so too)
            found.append((e.actor, e.data["accused"]))
        elif e.type == "speech" and e.data.get("nominate"):  # cove
            found.append((e.actor, e.data["nominate"]))
    return found


def team_of(events: Iterable[Event]) -> tuple[str, ...]:
    """The mafia team as last told to this view (empty: not told, not on the team)."""
    team: tuple[str, ...] = ()
    for e in events:
        if e.type == "team" and e.to is not None and "members" in e.data:
            team = tuple(e.data["members"])
    return team


def lead(
    said: Sequence[tuple[str, str]], team: Iterable[str], alive: Iterable[str], speakers: Sequence[Sequence[str]] = ()
) -> str | None:
    """The player the convention names: from ``said`` (accuser, accused) in order, the team's
    latest accusation of a living outsider, else anyone's, else the first living outsider who
    spoke on the latest day one did (``speakers``: each day's speakers in speaking order)."""
    team, alive = set(team), set(alive)
    fallback: str | None = None
    for accuser, accused in reversed(said):
        if accused in team or accused not in alive:
            continue
        if accuser in team:
            return accused
        if fallback is None:
            fallback = accused
    for day in reversed(speakers):
        if fallback is not None:
            break
        fallback = next((n for n in day if n in alive and n not in team), None)
    return fallback


def speakers_by_day(events: Sequence[Event]) -> list[list[str]]:
    """Who spoke in public each day (any speech), first speech first."""
    found: list[list[str]] = []
    for e in events:
        if e.type == "day":
            found.append([])
        elif found and e.type == "speech" and e.to is None and e.actor is not None and e.actor not in found[-1]:
            found[-1].append(e.actor)
    return found


def lead_in_view(events: Sequence[Event], alive: Iterable[str]) -> tuple[tuple[str, ...], str | None]:
    """(the team, the player the convention names now) from one player's view."""
    team = team_of(events)
    return team, lead(accusations(events), team, alive, speakers_by_day(events))


def team_note(group: str, role: str, events: Sequence[Event], alive: Iterable[str], me: str) -> dict | None:
    """What a mafia seat is told at a silent night shot (``night_kill``): its living partners,
    the convention, and the player it names now; None for any other question."""
    if group != "night_kill" or role != "mafia":
        return None
    alive = tuple(alive)
    team, named = lead_in_view(events, alive)
    partners = [n for n in team if n != me and n in alive]
    return {"partners": partners, "convention": CONVENTION, "lead": named}


def team_note_text(note: dict) -> str:
    """The note in one paragraph, for the terminal."""
    partners = note["partners"]
    team = "Your partners: " + (", ".join(partners) if partners else "none left: you shoot alone") + "."
    if not partners:
        return team
    now = f" Right now that is {note['lead']}." if note["lead"] else " Right now it names nobody: no one has spoken yet."
    return f"{team} Your team agrees on the shot without talking: {note['convention']}.{now}"
