"""The human seat, part two: claims, a readable table, watching after one's death, the countdown,
and McKay's games on the wall clock (menus and whole games in process and in a real terminal)."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Sequence
from typing import Any

import pytest
from rich.console import Console

from arena.config import DEFAULT_NAMES
from arena.engine import Decision, DecisionRequest, Game
from arena.engine.actions import Claim
from arena.players.bot import BotPlayer
from arena.players.human import HumanPlayer
from arena.players.human.keyboard import Key
from arena.players.human.menu import parse_claim
from arena.variants import VARIANTS


# ---- helpers ----------------------------------------------------------------------------------------------
class Typed:
    """A keyboard typing the given lines, one per prompt, remembering the prompts."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)
        self.prompts: list[str] = []
        self.words: list[Sequence[str]] = []
        self.waiting = False

    def start(self, loop: asyncio.AbstractEventLoop, on_interrupt: Any) -> None:
        pass

    async def read(self, prompt: str, words: Sequence[str] = (), **_: Any) -> str | Key:
        await asyncio.sleep(0)
        self.prompts.append(prompt)
        self.words.append(list(words))
        return self.lines.pop(0)

    def interrupt(self) -> None:
        pass

    def close(self) -> None:
        pass


def console() -> Console:
    return Console(file=io.StringIO(), width=100, color_system=None, highlight=False)


def screen_of(out: Console) -> str:
    return out.file.getvalue()  # type: ignore[attr-defined]


def asked(variant: str, seed: int, seat: str, phase: str, players: int) -> tuple[Game, DecisionRequest]:
    """Play bots until ``seat`` is asked in ``phase``; that request."""
    game = VARIANTS[variant](list(DEFAULT_NAMES[:players]), None, seed)
    bots = {n: BotPlayer(n, seed) for n in game.seats}
    while not game.finished:
        for request in game.pending():
            if request.player == seat and request.phase == phase:
                return game, request
        game.resolve([Decision(r, bots[r.player].decide_now(r, game.view(r.player), None)) for r in game.pending()])
    raise AssertionError(f"{seat} was never asked in {phase}")


# ---- 3. claims --------------------------------------------------------------------------------------------
ROLES = ("mafia", "citizen", "inspector")
SEATS = ("Ann", "Bob", "Cid", "Fay")


@pytest.mark.parametrize(
    ("typed", "claim"),
    [
        ("claim inspector: Fay mafia", Claim(role="inspector", checks={"Fay": "mafia"})),
        ("inspector", Claim(role="inspector")),
        ("Fay mafia, bob not mafia", Claim(checks={"Fay": "mafia", "Bob": "not mafia"})),
        ("fay is town; C mafia", Claim(checks={"Fay": "not mafia", "Cid": "mafia"})),
        ("", None),
        ("none", None),
    ],
)
def test_a_claim_is_read_into_the_structure_bots_read(typed: str, claim: Claim | None) -> None:
    assert parse_claim(typed, ROLES, SEATS, "Ann") == claim


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("cop: Fay mafia", "'cop' is no card in this game: claim one of mafia, citizen, inspector"),
        ("inspector: Zed mafia", "'zed' is no seat at this table"),
        ("Fay maybe", "Fay: 'maybe' is no check result: say mafia or not mafia"),
        ("ann mafia", "a check is about another player, not yourself"),
        ("fay mafia, fay not mafia", "Fay is named twice"),
    ],
)
def test_a_wrong_claim_says_why(typed: str, why: str) -> None:
    found = parse_claim(typed, ROLES, SEATS, "Ann")
    assert isinstance(found, str) and found.startswith(why)


def test_the_claim_step_re_asks_completes_and_goes_with_the_speech() -> None:
    game, request = asked("classic", 3, "Ann", "discussion", 9)  # Ann is mafia: she lies
    out = console()
    keys = Typed("Trust me.", "cop: Bob mafia", "inspector: Bob mafia", "")
    me = HumanPlayer("Ann", console=out, keyboard=keys)
    action = asyncio.run(me.decide(request, game.view("Ann"), None))
    assert action.claim == Claim(role="inspector", checks={"Bob": "mafia"}) and action.speech == "Trust me."
    assert keys.prompts[:3] == ["say> ", "claim> ", "claim> "]
    assert {"inspector", "citizen", "Bob", "mafia"} <= set(keys.words[1])  # Tab completes roles and names
    screen = screen_of(out)
    assert "✗ 'cop' is no card in this game" in screen and "Your claim: you are the inspector; Bob is mafia." in screen
    game.resolve([Decision(request, action)])
    speech = next(e for e in reversed(game.log) if e.type == "speech" and e.actor == "Ann")
    assert speech.to is None and speech.data["claim"] == {"role": "inspector", "checks": {"Bob": "mafia"}}
