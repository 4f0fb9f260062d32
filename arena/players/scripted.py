"""``scripted``: answers from a fixed list — scenarios, replays and tests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from arena.engine import ActionBase, DecisionRequest, View, parse_action

from .base import Answer, Malformed, SyncPlayer


class OutOfAnswers(Exception):
    """A scripted player was asked after its script ran out."""

    def __init__(self, player: str, request: DecisionRequest) -> None:
        super().__init__(f"{player} has no scripted answer left for {request.phase}")
        self.player = player
        self.request = request


class ScriptedPlayer(SyncPlayer):
    """Answers each request with its next scripted action; ``None`` in the script gives up."""

    spec = "scripted"

    def __init__(self, name: str, answers: Iterable[ActionBase | dict[str, Any] | None]) -> None:
        super().__init__(name)
        self.answers = [_parse(a) for a in answers]
        self.used = 0

    @property
    def exhausted(self) -> bool:
        return self.used >= len(self.answers)

    def decide_now(self, request: DecisionRequest, view: View, feedback: str | None) -> Answer:
        if self.exhausted:
            raise OutOfAnswers(self.name, request)
        answer = self.answers[self.used]
        self.used += 1
        return answer


def _parse(answer: ActionBase | dict[str, Any] | None) -> Answer:
    if answer is None or isinstance(answer, ActionBase):
        return answer
    try:
        return parse_action(answer)
    except ValidationError as exc:
        return Malformed(
            answer,
            "not a valid action: " + "; ".join(f"{'.'.join(map(str, e['loc'])) or 'action'}: {e['msg']}" for e in exc.errors()),
        )
