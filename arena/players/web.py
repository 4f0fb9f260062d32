"""``person``: a seat played from a web page, as the terminal's ``human`` is played from the keyboard.

The seat waits for its answer from outside (the server's answer endpoint hands it over with
:meth:`WebSeat.deliver`) instead of reading a keyboard. Everything it shows the page comes from the
request it is asked and the seat's own view, as for every other player.

``default`` is the legal answer a timeout plays, fixed when the decision is posed: the request's
own default, or else a seeded random legal choice drawn here (the engine draws its forfeits only at
the end of a step, too late to show). So the page can say what silence will do, and that is what
happens: when the seat's time is up it answers that default itself, with a private ``thought``
saying so, and the transcript keeps it like any other answer.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.engine import KINDS, ActionBase, DecisionRequest, Event, View
from arena.engine.wording import public_mafia
from arena.players.base import Beat
from arena.players.convention import channel_rule, day_note, team_note, team_note_text, team_of, team_rule

TIMEOUT_THOUGHT = "no answer in time: the default was played"


def default_answer(request: DecisionRequest, seed: int | str, number: int | None = None) -> ActionBase:
    """The answer a timeout plays: the request's default, else a legal choice drawn from ``seed``.

    Drawn as the engine draws a forfeit (a random legal kind, a random legal value for each field
    that needs one), from the seat's own stream so that it can be shown before it is played.
    ``number`` is the seat's own number of the decision (:meth:`View.decision_number`): the page
    shows the default, so it must not depend on the engine's id, which counts every seat's decisions.
    """
    if request.default is not None:
        return request.default
    rng = random.Random(f"{seed}:default:{request.player}:{request.id if number is None else number}")
    option = request.options[rng.randrange(len(request.options))]
    values: dict[str, Any] = {}
    for name, spec in option.fields.items():
        if name == "floor" or spec.nullable:
            continue
        if spec.choices:
            values[name] = spec.choices[rng.randrange(len(spec.choices))]
    return KINDS[option.kind](**values)


def seat_notes(request: DecisionRequest, events: Sequence[Event], me: str) -> list[str]:
    """What the terminal says beside a question, for the page's panel: the mafia count as this seat
    knows it, and a mafia seat's rule for the team's victim (the night shot with the player it names
    now, the day's reminder that an accusation names the shot, the channel's order and bots' choice)."""
    table = request.table
    variant = table.variant if table is not None else None
    notes: list[str] = []
    if table is not None and variant not in MCKAY:
        count = public_mafia(table.deck, events, me=me, role=request.role, team=team_of(events))
        if count:
            notes.append(count)
    team = team_note(request.group, request.role, events, request.alive, me)
    if team is not None:
        notes.append(team_note_text(team))
    day = day_note(variant, request.group, request.role, events, request.alive, me)
    if day is not None:
        notes.append(day)
    if request.group == "mafia_channel":
        notes.append(f"On the night channel {channel_rule(variant)}.")
    return notes


def page_rules(variant: str | None, options: Mapping[str, Any], events: Sequence[Event]) -> dict[str, str | None]:
    """Standing text for a seat's page: McKay's point tables (the rows the models read) and, for a
    mafia seat told its team, how the team picks its victim."""
    from arena.players.human.screen import rules_summary  # the prompts' own blocks, as `help` shows them

    scoring = rules_summary(variant, options, "scoring") if variant in MCKAY else None
    return {"scoring": scoring, "team_rule": team_rule(variant) if team_of(events) else None}


MCKAY = frozenset(("duel", "duel3", "trio"))


@dataclass(slots=True)
class Posed:
    """The decision the seat is asked now, and what the page needs to answer it."""

    request: DecisionRequest
    default: ActionBase
    deadline: float | None  # event-loop time when the default is played (None: no limit)
    feedback: str | None = None  # the engine's reason for refusing the previous attempt
    answer: asyncio.Future[ActionBase] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class WebSeat:
    """A person's seat at a served table: ``decide`` poses the request and waits for the page.

    ``timeout`` (seconds per decision, None for no limit) is the person's time; in a beat of
    McKay's games on the wall clock the runner withdraws the question when the beat ends (then the
    request's default, a pass, is played by the runner). ``on_change`` is called whenever what the
    page shows changes (a decision posed, answered or withdrawn, a beat started).
    """

    spec = "human"

    def __init__(
        self,
        name: str,
        person: str | None = None,
        *,
        timeout: float | None = None,
        seed: int = 0,
        on_change: Callable[[], None] | None = None,
        left: dict[int, float] | None = None,
    ) -> None:
        if timeout is not None and timeout <= 0:
            raise ValueError(f"a person's time limit must be positive, not {timeout:g}")
        self.name = name
        self.person = person or name
        self.timeout = timeout
        self.seed = seed
        self.on_change = on_change or (lambda: None)
        self.posed: Posed | None = None
        self.beat: Beat | None = None
        self._deadlines: dict[int, float] = {}  # request id -> its deadline, kept across re-asks
        # request id -> seconds it had left when the server stopped (a resumed table's person keeps them)
        self.left = dict(left or {})

    @property
    def entrant(self) -> str:
        """The seat spec recorded in the transcript: people are entrants like models."""
        return f"human:{self.person}"

    async def decide(self, request: DecisionRequest, view: View, feedback: str | None) -> ActionBase:
        loop = asyncio.get_running_loop()
        deadline = None
        if self.timeout is not None:
            if request.id not in self._deadlines:
                self._deadlines[request.id] = loop.time() + self.left.pop(request.id, self.timeout)
            deadline = self._deadlines[request.id]
        beat = self.beat
        if beat is not None and request.clock is not None and request.clock.unit == "beat" and request.player in beat.players:
            deadline = beat.ends if deadline is None else min(deadline, beat.ends)
        default = default_answer(request, self.seed, view.decision_number(request.id))
        posed = self.posed = Posed(request, default, deadline, feedback)
        self.on_change()
        try:
            if self.timeout is None:
                return await posed.answer
            left = max(0.0, self._deadlines[request.id] - loop.time())
            try:
                return await asyncio.wait_for(asyncio.shield(posed.answer), left)
            except TimeoutError:
                self._deadlines.pop(request.id, None)
                return posed.default.model_copy(update={"thought": TIMEOUT_THOUGHT})
        finally:
            if self.posed is posed:
                self.posed = None
                self.on_change()

    def deadline_of(self, request_id: int) -> float | None:
        """The event-loop time the decision ``request_id`` times out (None: no limit, or not asked)."""
        return self._deadlines.get(request_id)

    def deliver(self, request_id: int, action: ActionBase) -> bool:
        """Hand over the page's answer to the decision ``request_id``; False when it is not open."""
        posed = self.posed
        if posed is None or posed.request.id != request_id or posed.answer.done():
            return False
        posed.answer.set_result(action)
        self._deadlines.pop(request_id, None)
        return True

    def beat_started(self, beat: Beat) -> None:
        """The runner starts a beat (McKay's games on the wall clock): the page counts it down."""
        self.beat = beat
        self.on_change()
