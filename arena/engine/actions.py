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

THOUGHT = "Your private reasoning: no other player sees it."
SPEECH = "Words you say aloud with this action, heard by the audience the question names; null to say nothing."
NAME = "A player's seat name, exactly as listed."


class ActionBase(BaseModel):
    """Fields every action may carry."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    thought: str | None = Field(None, description=THOUGHT)
    speech: str | None = Field(None, description=SPEECH)


class Claim(BaseModel):
    """A public claim, announced with a speech: everyone who hears the speech hears it; it may be a bluff."""

    # The role is a plain string at run time; a decision narrows it to the game's roles and the
    # check names to its seats (requests.Table), in the schema a model sees and in validation.
    model_config = ConfigDict(extra="forbid", frozen=True)

    role: str | None = Field(None, description="The role you say you hold, or null to claim no role.")
    checks: dict[str, Literal["mafia", "not mafia"]] = Field(
        default_factory=dict, description='Check results you say you learned: a player and "mafia" or "not mafia".'
    )


class Speak(ActionBase):
    """Speak to the audience the question names, with the choices the question allows."""

    kind: Literal["speak"] = "speak"
    speech: str = Field("", description="What you say aloud (an empty string says nothing).")
    accuse: str | None = Field(None, description="A living player you accuse, or null to accuse nobody.")
    nominate: str | None = Field(None, description="The player you nominate for the vote, or null to nominate nobody.")
    floor: tuple[str, ...] = Field((), description="Players you hand the floor to, in the order they speak.")
    claim: Claim | None = Field(
        None,
        description="An optional public claim announced with your speech: a role you say you hold and check "
        "results you say you learned. Everyone who hears you hears it; it may be a bluff. null for no claim.",
    )


class Verdict(ActionBase):
    """Vote yes or no on the question asked."""

    kind: Literal["verdict"] = "verdict"
    yes: bool = Field(description="true for yes, false for no.")


class Vote(ActionBase):
    """Vote for one of the candidates the question names."""

    kind: Literal["vote"] = "vote"
    target: str | None = Field(None, description="The candidate you vote for.")


class Kill(ActionBase):
    """Kill a player."""

    kind: Literal["kill"] = "kill"
    target: str | None = Field(None, description="The player you kill.")


class Check(ActionBase):
    """Check a player: the moderator tells you alone whether that player is mafia."""

    kind: Literal["check"] = "check"
    target: str = Field(description="The player to check.")


class Heal(ActionBase):
    """Save a player from being killed tonight."""

    kind: Literal["heal"] = "heal"
    target: str = Field(description="The player to save tonight.")


class Visit(ActionBase):
    """Visit a player tonight."""

    kind: Literal["visit"] = "visit"
    target: str = Field(description="The player to visit tonight.")


class DeclareCop(ActionBase):
    """Declare "I am the cop" and look at one face-down card."""

    kind: Literal["declare_cop"] = "declare_cop"
    position: int | None = Field(None, description="The position (1 = first) of the face-down card you look at.")


class Peek(ActionBase):
    """Look at a second face-down card."""

    kind: Literal["peek"] = "peek"
    position: int = Field(description="The position (1 = first) of the face-down card you look at.")


class Handshake(ActionBase):
    """Offer to end the hand peacefully."""

    kind: Literal["handshake"] = "handshake"


class Pass(ActionBase):
    """Do nothing this time (you may still speak where the question allows it)."""

    kind: Literal["pass"] = "pass"


class PlaceCard(ActionBase):
    """Place your kill card."""

    kind: Literal["place_card"] = "place_card"
    slot: str | None = Field(None, description='Where your card goes: a player or "no_kill".')


class Judge(ActionBase):
    """Rule which of the two killers killed first."""

    kind: Literal["judge"] = "judge"
    first: str = Field(description="The player who killed first.")


class Continue(ActionBase):
    """Let the kill stand after the victim's soliloquy."""

    kind: Literal["continue"] = "continue"


class Retract(ActionBase):
    """Take the kill back after the victim's soliloquy."""

    kind: Literal["retract"] = "retract"


ACTION_TYPES: tuple[type[ActionBase], ...] = (
    Speak, Verdict, Vote, Kill, Check, Heal, Visit, DeclareCop, Peek,
    Handshake, Pass, PlaceCard, Judge, Continue, Retract,
)  # fmt: skip

Action = Annotated[Union[ACTION_TYPES], Field(discriminator="kind")]  # noqa: UP007
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)

#: kind -> model class
KINDS: dict[str, type[ActionBase]] = {cls.model_fields["kind"].default: cls for cls in ACTION_TYPES}

#: kind -> the fields that name players, positions or slots (the ones a decision narrows)
TARGET_FIELDS: dict[str, tuple[str, ...]] = {
    kind: tuple(name for name in cls.model_fields if name not in ("kind", "thought", "speech", "claim") and name != "yes")
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
