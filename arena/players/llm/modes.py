"""Which structured mode a server of your own takes: asked once, before the game, with a real decision.

OpenAI-compatible servers differ in what they honour (docs/llm.md has the table): llama-cpp-python's
server ignores ``tools`` under its default chat format and answers ``json_schema`` with a 500;
Ollama ignores ``tool_choice``; vLLM takes all of them. A seat on such a server (``openai:M@URL``
with no ``?structured=``) would find out by forfeiting every decision, so the check before the
game (:mod:`arena.players.llm.preflight`) asks the server one small real decision — the first
beat of a duel, which has four kinds of action, so a union schema is exercised — in each candidate
way, in order of preference (:data:`CANDIDATES`), and keeps the first that returns an action the
engine accepts (a malformed or illegal first answer gets one more try with the engine's reason, as
in a game). The choice is one line per endpoint ("http://…: tools (required): answered in prose;
using json_object with a schema"), applies to every seat of that endpoint and model, and goes into
the transcript header. ``?structured=`` forces a mode: then only that one is asked, and a request
the server refuses is the check's failure (one line, exit 2). The official OpenAI and Anthropic
APIs keep their known modes and are not asked.

Why a real decision, not a feature list: servers do not say what they ignore (a ``tools`` request
answered in prose is a 200), and what matters is whether *this model* on *this server* gives a
legal action. The probe seat's system prompt says it is a connection check with a practice duel
(``prompts/system/_probe.j2``), with no rules summary and no fact of the game to come: the question is
the server's, not the model's skill, the prompt the server must evaluate first is short, and
nothing in it is untrue whatever the game is. A server that answers ``tools`` with ``tool_choice: "required"``
in prose does not enforce ``tool_choice``, so ``tools (auto)`` — the same request to it — is not
asked. Cost: one decision per mode tried, mostly one evaluation of the probe's prompt (docs/llm.md
has the times).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from arena.engine import ActionBase, DecisionRequest, Game
from arena.players.base import GiveUp, Malformed

from .profiles import Profile
from .transport import EndpointDown, FormatStop, RequestRefused, endpoint_label

log = logging.getLogger("arena.players.llm")

#: the modes tried, best first: the API's own way to force an action; tools and our validation;
#: a schema the server enforces in the OpenAI way; in llama-cpp-python's way; the schema in words
CANDIDATES = ("tools", "tools_auto", "json_schema", "json_object", "json_text")
WORDS = {
    "tools": "tools (required)",
    "tools_auto": "tools (auto)",
    "json_schema": "json_schema",
    "json_object": "json_object with a schema",
    "json_text": "JSON in the text",
}
#: tries of a probe call (a passing fault is retried once; the wait is the seat's own timeout: a
#: server on a busy CPU evaluates the first prompt slowly, and a game would wait as long)
PROBE_ATTEMPTS = 2
#: output tokens for a probe answer: a duel action with a short speech fits; prose is cut off early
#: (a model that ignores the mode writes up to the limit: 1,024 tokens took 25 s on two cores)
PROBE_TOKENS = 160
#: what a probe answer with no tool call in it reads as (prose, or prose cut off at the limit)
NO_TOOL_CALL = ("answered in prose", f"no action within {PROBE_TOKENS} tokens")
#: the probe decision's speech limit: an action fits well within PROBE_TOKENS under a grammar
PROBE_SPEECH = 100


#: (endpoint, model) -> the mode the check picked, for the seats made after it in this process (a
#: tournament checks one player per model, then makes each game's seats)
_picked: dict[tuple[str, str], str] = {}


def remember(profile: Profile, mode: str) -> None:
    _picked[(profile.endpoint, profile.model)] = mode


def picks() -> dict[tuple[str, str], str]:
    """Every pick of this process, to hand to another (a Ray worker makes the seats of its game)."""
    return dict(_picked)


def adopt(found: dict[tuple[str, str], str]) -> None:
    """Take picks made in another process (the driver's check): the seats made here play in them."""
    _picked.update(found)


def picked(profile: Profile) -> str | None:
    """The mode the check picked for this profile's server and model in this process, if any."""
    return _picked.get((profile.endpoint, profile.model)) if profile.probed else None


@dataclass(slots=True)
class Probe:
    """What the check found for one endpoint and model."""

    label: str
    mode: str | None = None  # the mode kept (None: none worked)
    tried: list[tuple[str, str]] = field(default_factory=list)  # (mode, why it was not kept)
    refused: str | None = None  # a forced mode the server refused: the check fails with this
    seconds: float = 0.0

    def line(self) -> str:
        """``http://…: tools (required): answered in prose; using json_object with a schema``."""
        parts = [f"{WORDS[m]}: {why}" for m, why in self.tried]
        parts.append(f"using {WORDS[self.mode]}" if self.mode else "no mode worked")
        return f"{self.label}: {'; '.join(parts)}"


def probe_game(seat: str) -> tuple[Game, DecisionRequest]:
    """A fresh duel and ``seat``'s first decision in it (kinds: pass, kill, declare_cop, handshake)."""
    from arena.variants import VARIANTS

    duel = VARIANTS["duel"]
    other = "Bob" if seat != "Bob" else "Ann"
    game = duel([seat, other], duel.Options(max_speech_chars=PROBE_SPEECH), 0)
    request = next(r for r in game.pending() if r.player == seat)
    return game, request


def _why(answer: Any, game: Game, request: DecisionRequest) -> str | None:
    """Why an answer is no good (None: the engine accepts it)."""
    if isinstance(answer, ActionBase):
        return game.validate(request, answer)
    if isinstance(answer, Malformed):
        return answer.error
    if isinstance(answer, GiveUp):
        return f"no answer ({answer.why})"
    return "no answer"


def _short(why: str) -> str:
    """A reason in a few words for the one line: prose, bad JSON, a schema misfit, an illegal action."""
    if "not valid JSON" in why or "no JSON object" in why:
        return "answered in prose"
    if "cut off at the token limit" in why:
        return f"no action within {PROBE_TOKENS} tokens"
    return why if len(why) <= 120 else why[:117] + "..."


async def try_mode(player: Any, mode: str) -> str | None:
    """One real decision in ``mode`` (and one more try with the reason); None when it is accepted.

    Raises :class:`RequestRefused` when the server refuses the request itself.
    """
    from .player import LLMPlayer

    quick = player.profile.model_copy(
        update={
            "structured": mode,
            "attempts": PROBE_ATTEMPTS,
            "max_tokens": min(player.profile.max_tokens, PROBE_TOKENS),
            "prompt": "short",  # the conduct rules in brief
        }
    )
    game, request = probe_game(player.name)
    # the duel it is, said to be a connection check (prompts/system/_probe.j2): no rules summary
    # (the question states every legal answer), and no fact of the game to come, which may be
    # another variant at another table size
    seat = LLMPlayer(player.name, quick, key=getattr(player, "_key", None), spec=getattr(player, "spec", ""), variant="duel",
                     options=game.options.model_dump(mode="json"))  # fmt: skip
    seat.conversation.system_name = "_probe"
    feedback = None
    why: str | None = "no answer"
    for _ in range(2):
        answer = await seat.decide(request, game.view(player.name), feedback)
        why = _why(answer, game, request)
        if why is None or isinstance(answer, GiveUp) or _short(why) != why:
            return why  # accepted, no answer, or prose (a mode the server ignores): no second try
        feedback = why  # JSON the engine refused: one more try with its reason, as in a game
    return why


async def choose_mode(player: Any) -> Probe:
    """The first mode of :data:`CANDIDATES` (or the forced one) in which ``player``'s server gives a
    legal action; the player is not changed (the caller sets the mode on every seat it concerns)."""
    import time

    profile: Profile = player.profile
    started = time.perf_counter()
    found = Probe(endpoint_label(profile))
    forced = profile.structured if getattr(player, "forced", True) else None  # not a mode the check set
    skip: set[str] = set()
    for mode in (forced,) if forced else CANDIDATES:
        if mode in skip:
            continue
        try:
            why = await try_mode(player, mode)
        except RequestRefused as exc:
            if forced:
                found.refused = str(exc)
                break
            found.tried.append((mode, f"refused ({_short(exc.reason)})"))
            continue
        except (EndpointDown, FormatStop) as exc:
            found.tried.append((mode, _short(str(exc))))
            break
        if why is None or forced:
            found.mode = mode
            if why is not None:  # a forced mode is kept: the game's own checks stop it if it never works
                found.tried.append((mode, _short(why)))
            break
        found.tried.append((mode, _short(why)))
        if mode == "tools" and _short(why) in NO_TOOL_CALL:
            # no tool call under tool_choice "required": the server does not enforce tool_choice, so
            # a tools (auto) request is the same request to it and would get the same prose
            found.tried.append(("tools_auto", "not asked (tool_choice ignored)"))
            skip.add("tools_auto")
    found.seconds = time.perf_counter() - started
    log.info("%s (%.1f s)", found.line(), found.seconds)
    return found
