"""The one action schema shared by every variant.

Every way a player can affect a game is one of these pydantic models, joined in a single
discriminated union on ``kind``. The JSON schema a language model is shown is generated from
these models (narrowed per decision in :mod:`arena.engine.requests`), so the schema that
validates is the schema the model sees.

Every action may carry a private ``thought`` (kept in the transcript, never shown to another
player) and, where the decision allows talk, a ``speech``.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

THOUGHT = "Your private reasoning. No other player ever sees it; the transcript keeps it."
SPEECH = "Words said aloud to this decision's audience (only where talk is allowed)."
NAME = "A player's seat name, exactly as listed."


class ActionBase(BaseModel):
    """Fields every action may carry."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    thought: str | None = Field(None, description=THOUGHT)
    speech: str | None = Field(None, description=SPEECH)


class Claim(BaseModel):
    """A structured statement about roles, checked against the truth by the metrics.

    ``role`` is the role the speaker claims for itself; ``checks`` maps a player's name to the
    result the speaker says it learned ("mafia" / "not mafia").
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: str | None = Field(None, description="The role you claim to hold.")
    checks: dict[str, Literal["mafia", "not mafia"]] = Field(
        default_factory=dict, description="Check results you claim to have learned, by name."
    )


class Speak(ActionBase):
    """A speech: a discussion turn, a defence, last words or a floor speech."""

    kind: Literal["speak"] = "speak"
    speech: str = Field("", description="What you say aloud.")
    accuse: str | None = Field(None, description="Accuse one living player (discussion only).")
    nominate: str | None = Field(None, description="Nominate one player for today's vote.")
    floor: tuple[str, ...] = Field((), description="Players you hand the floor to, in order.")
    claim: Claim | None = Field(None, description="A structured claim about roles or checks.")


class Verdict(ActionBase):
    """A yes/no vote: charge, execution, guilty, "both leave"."""

    kind: Literal["verdict"] = "verdict"
    yes: bool = Field(description="true for yes (charge / execute / guilty), false for no.")


class Vote(ActionBase):
    """A choice among candidates; ``null`` abstains where that is allowed."""

    kind: Literal["vote"] = "vote"
    target: str | None = Field(None, description="The candidate you vote for, or null.")


class Kill(ActionBase):
    """A night shot, a mafia pointing, or a real-time kill; ``null`` holds fire where allowed."""

    kind: Literal["kill"] = "kill"
    target: str | None = Field(None, description="Who you kill, or null to hold fire.")


class Check(ActionBase):
    """An inspection: the engine privately answers "mafia" or "not mafia"."""

    kind: Literal["check"] = "check"
    target: str = Field(description="The player to check.")


class Heal(ActionBase):
    """A doctor's save."""

    kind: Literal["heal"] = "heal"
    target: str = Field(description="The player to save tonight.")


class Visit(ActionBase):
    """The mistress's night visit."""

    kind: Literal["visit"] = "visit"
    target: str = Field(description="The player to visit tonight.")


class DeclareCop(ActionBase):
    """Declare "I am the cop" and look at an unpicked card."""

    kind: Literal["declare_cop"] = "declare_cop"
    position: int | None = Field(
        None,
        description="Position (1 = first) of the unpicked card to look at; null declares without "
        "looking (only where a decision allows it: a later declarer in trio).",
    )


class Peek(ActionBase):
    """Look at another unpicked card."""

    kind: Literal["peek"] = "peek"
    position: int = Field(description="Position (1 = first) of the unpicked card to look at.")


class Handshake(ActionBase):
    """Offer to end the hand peacefully."""

    kind: Literal["handshake"] = "handshake"


class Pass(ActionBase):
    """Do nothing this time (talk still allowed where the decision allows it)."""

    kind: Literal["pass"] = "pass"


class PlaceCard(ActionBase):
    """Place one's kill card on a player, on "no_kill", or take it back (``null``)."""

    kind: Literal["place_card"] = "place_card"
    slot: str | None = Field(None, description='A player name, "no_kill", or null to take it back.')


class Judge(ActionBase):
    """The dead player's ruling on who killed first."""

    kind: Literal["judge"] = "judge"
    first: str = Field(description="The player who killed first.")


class Continue(ActionBase):
    """The killer lets the kill stand after the victim's soliloquy."""

    kind: Literal["continue"] = "continue"


class Retract(ActionBase):
    """The killer takes the kill back after the victim's soliloquy."""

    kind: Literal["retract"] = "retract"


ACTION_TYPES: tuple[type[ActionBase], ...] = (
    Speak, Verdict, Vote, Kill, Check, Heal, Visit, DeclareCop, Peek,
    Handshake, Pass, PlaceCard, Judge, Continue, Retract,
)  # fmt: skip

Action = Annotated[Union[ACTION_TYPES], Field(discriminator="kind")]  # noqa: UP007
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)

#: kind -> model class
KINDS: dict[str, type[ActionBase]] = {
    cls.model_fields["kind"].default: cls for cls in ACTION_TYPES
}

#: kind -> the fields that name players, positions or slots (the ones a decision narrows)
TARGET_FIELDS: dict[str, tuple[str, ...]] = {
    kind: tuple(
        name
        for name in cls.model_fields
        if name not in ("kind", "thought", "speech", "claim") and name != "yes"
    )
    for kind, cls in KINDS.items()
}


def parse_action(data: object) -> ActionBase:
    """Validate a JSON string or a plain dict into an action (raises pydantic.ValidationError)."""
    if isinstance(data, (str, bytes)):
        return ACTION_ADAPTER.validate_json(data)
    return ACTION_ADAPTER.validate_python(data)


def dump_action(action: ActionBase) -> dict:
    """The action as a compact JSON-ready dict (defaults left out, ``kind`` always kept)."""
    return {"kind": action.kind, **action.model_dump(exclude_defaults=True, mode="json")}  # type: ignore[attr-defined]
