"""``classic``: Mafia by the referee's rules (Kuba, 1997). Spec: docs/rules/classic.md.

Readings fixed here (the page is silent):
- Charge and execution votes are public once counted (hands are raised at a table).
- A forfeited yes/no vote counts as "no"; a forfeited shot holds fire; forfeited speech is silence.
- The inspector may not check himself (he knows his card); defences and floor speeches cannot
  accuse; the floor goes to living players other than the accused, each named once.
- A deal needs exactly one inspector and at least one mafia, and must leave the game undecided
  (town not fewer than the mafia; more, with ``mafia_wins_at_parity``): anything else is refused.
- Night N follows day N; the special first night is night 0. The draw after ``max_days`` comes
  when day ``max_days`` ends without a winner.
"""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

from pydantic import Field

from arena.engine import ActionBase, Clock, DecisionRequest, Game, Option, Phase, Repertoire, RulesError, TurnOptions
from arena.engine.game import HOLD_FIRE, NO, VERDICT_ONLY, names_spec
from arena.engine.requests import FieldSpec


class ClassicOptions(TurnOptions):
    mafia_count: int | None = Field(None, ge=1, description="Mafia members; default floor((players + 1) / 4).")
    discussion_rounds: int = Field(3, ge=1, description="Discussion rounds before the referee's lot.")
    max_floor: int = Field(2, ge=0, le=2, description="Players the charged may hand the floor to.")
    mafia_wins_at_parity: bool = Field(False, description="House rule: mafia also wins at equal numbers.")
    reveal_on_death: bool = Field(False, description="House rule: show a dead player's card.")


class Classic(Game):
    name = "classic"
    title = "Classic Mafia (referee's rules, Kuba 1997)"
    min_players = 6
    max_players = 18
    default_players = 9
    roles = ("mafia", "citizen", "inspector")
    team_of = {"mafia": "mafia", "citizen": "town", "inspector": "town"}
    Options = ClassicOptions
    first_phase = "first_night"
    options: ClassicOptions

    # ---- deal -----------------------------------------------------------------------------
    def deck(self, players: int) -> list[str]:
        mafia = self.options.mafia_count or (players + 1) // 4
        if mafia >= players - 1:
            raise RulesError(f"{mafia} mafia leave no town for {players} players")
        cards = ["mafia"] * mafia + ["inspector"] + ["citizen"] * (players - mafia - 1)
        self._check_balance(cards)
        return cards

    def check_deal(self, deal: dict[str, str]) -> None:
        inspectors = list(deal.values()).count("inspector")
        if inspectors != 1:
            raise RulesError(f"the deal needs exactly one inspector, not {inspectors}")
        self._check_balance(list(deal.values()))

    def _check_balance(self, cards: list[str]) -> None:
        """Refuse a deal the end rule has already decided (no mafia, or the mafia already winning)."""
        mafia = cards.count("mafia")
        town = len(cards) - mafia
        if mafia == 0 or town < mafia or (self.options.mafia_wins_at_parity and town == mafia):
            raise RulesError(f"{mafia} mafia among {len(cards)} players: the game would be over before it starts")

    def repertoire(self, player: str) -> Repertoire:
        """Speeches and yes/no votes for everyone; the night shot for the mafia, the check for the
        inspector. Names range over every seat; each decision says which are legal now."""
        seats = self.seats
        speak_fields = {"accuse": FieldSpec(seats, nullable=True)}
        words = {"accuse": "In a discussion turn: a living player you accuse (a trial starts at once), or null to accuse nobody."}
        if self.options.max_floor:
            speak_fields["floor"] = FieldSpec(seats, max_items=self.options.max_floor)
            words["floor"] = "In your defence: living players you hand the floor to, in the order they speak (empty for nobody)."
        options = [
            Option(
                "speak", speak_fields, "Speak to everyone: a discussion turn, a defence, a floor speech or last words.", words
            ),
            Option(
                "verdict",
                description="Vote yes or no on the accused: to charge, then to execute.",
                descriptions={"yes": "true to charge (or execute) the accused, false to clear (or spare)."},
            ),
        ]
        role = self.role_of[player]
        if role == "mafia":
            shot = FieldSpec(seats, nullable=True)
            words = {"target": "The player you shoot, or null to hold fire."}
            options.append(Option("kill", {"target": shot}, "Your night shot: shoot one living player, or hold fire.", words))
        elif role == "inspector":
            options.append(Option("check", {"target": FieldSpec(seats)}))
        return Repertoire(tuple(options), talk=frozenset({"speak"}))

    def setup(self) -> None:
        self.first_speaker = self.seats[0]
        self.speaker = self.seats[0]
        self.turns_left = 0
        self.turns_total = 0
        self.accuser: str | None = None
        self.accused: str | None = None
        self.floor_queue: list[str] = []
        self.lot_victim: str | None = None

    # ---- helpers --------------------------------------------------------------------------
    def _voters(self) -> tuple[str, ...]:
        return self.others(self.accused)

    def _speech(self, speaker: str, action: ActionBase, kind: str, **data: object) -> None:
        self.public("speech", actor=speaker, kind=kind, **self.said(action), **data)

    def _start_day(self) -> None:
        self.day += 1
        self.first_speaker = self.day_opener(self.first_speaker if self.day > 1 else None)
        self.speaker = self.first_speaker
        self.turns_total = self.turns_left = self.options.discussion_rounds * len(self.alive)
        self.phase = "discussion"
        self.public("day", number=self.day, alive=list(self.alive))

    def _resume_discussion(self) -> None:
        """After a failed charge or execution: the speaker after the accuser, or the lot."""
        self.speaker = self.next_seat(self.accuser)
        self.accuser = self.accused = None
        self.phase = "discussion" if self.turns_left > 0 else "lot"

    def _end_of_day(self) -> None:
        if self.day_is_last():
            return
        self.phase = "night"
        self.public("night", number=self.day)

    def _majority(self, answers: dict[str, ActionBase], voters: tuple[str, ...], vote: str) -> bool:
        yes = [n for n in voters if answers[n].yes]
        passed = len(yes) * 2 > len(voters)
        self.public(
            "vote_result", vote=vote, accused=self.accused, yes=yes,
            no=[n for n in voters if n not in yes], passed=passed,
        )  # fmt: skip
        return passed

    def _verdict_question(self, voter: str, vote: str) -> str:
        """The vote in the voter's own words: "You accused Fay" to the accuser."""
        accuser = "You" if voter == self.accuser else self.accuser
        return (
            f"{accuser} accused {self.accused}. Vote yes to charge {self.accused}, no to clear."
            if vote == "charge"
            else f"{self.accused} is charged. Vote yes to execute {self.accused}, no to spare."
        ) + " Everyone votes at the same time: nobody sees another vote before casting their own."

    def _verdict_requests(self, vote: str) -> list[DecisionRequest]:
        return [
            self.request(
                n, self._verdict_question(n, vote), VERDICT_ONLY, group="verdict", default=NO, vote=vote, accused=self.accused
            )
            for n in self._voters()
        ]

    # ---- phases ---------------------------------------------------------------------------
    def _first_night(self, answers: dict[str, ActionBase]) -> None:
        self.public("night", number=0)
        self.tell_team("mafia", "team", members=self.living("mafia"))
        self._start_day()

    def _ask_discussion(self) -> list[DecisionRequest]:
        accuse = names_spec(self.others(self.speaker), nullable=True)
        return self.ask_to_speak(
            self.speaker,
            "Your discussion turn. You may accuse one living player; a trial starts at once.",
            group="discussion",
            fields={"accuse": accuse},
            clock=Clock("discussion turn", self.turns_left, self.turns_total),
        )

    def _on_discussion(self, answers: dict[str, ActionBase]) -> None:
        speaker = self.speaker
        action = answers[speaker]
        self._speech(speaker, action, "discussion", accuse=action.accuse)
        self.turns_left -= 1
        if action.accuse is not None:
            self.accuser, self.accused = speaker, action.accuse
            self.public("accusation", actor=speaker, accused=action.accuse)
            self.phase = "charge_vote"
            return
        self.speaker = self.next_seat(speaker)
        if self.turns_left <= 0:
            self.phase = "lot"

    def _ask_charge(self) -> list[DecisionRequest]:
        return self._verdict_requests("charge")

    def _on_charge(self, answers: dict[str, ActionBase]) -> None:
        if self._majority(answers, self._voters(), "charge"):
            self.public("charged", player=self.accused)
            self.phase = "defence"
        else:
            self.public("cleared", player=self.accused)
            self._resume_discussion()

    def _ask_defence(self) -> list[DecisionRequest]:
        floor = FieldSpec(self.others(self.accused), max_items=self.options.max_floor)
        fields = {"floor": floor} if self.options.max_floor else {}
        hand_on = (
            f" You may hand the floor to up to {self.options.max_floor} living players, who speak after you in the order named."
            if self.options.max_floor
            else ""
        )
        if self.turns_left > 0:
            failing = (
                f"the discussion resumes with {self.next_seat(self.accuser)}, the speaker after your accuser, with "
                f"{self.turns_left} discussion turns left (a trial uses none)"
            )
        else:
            failing = "no discussion turns are left, so the referee's lot picks a living player to die"
        return self.ask_to_speak(
            self.accused,
            f"You are charged. This is your defence, and your last words if you are executed.{hand_on} The "
            f"execution vote follows at once: more than half of the voters yes and you die; otherwise {failing}.",
            group="defence",
            fields=fields,
            clock=Clock("discussion turn", self.turns_left, self.turns_total),
        )

    def _on_defence(self, answers: dict[str, ActionBase]) -> None:
        action = answers[self.accused]
        self._speech(self.accused, action, "defence", floor=list(action.floor))
        self.floor_queue = list(action.floor)
        self.phase = "floor" if self.floor_queue else "execution_vote"

    def _ask_floor(self) -> list[DecisionRequest]:
        speaker = self.floor_queue[0]
        return self.ask_to_speak(
            speaker,
            f"{self.accused} handed you the floor during their defence. Speak once.",
            group="floor",
            accused=self.accused,
        )

    def _on_floor(self, answers: dict[str, ActionBase]) -> None:
        speaker = self.floor_queue.pop(0)
        self._speech(speaker, answers[speaker], "floor", accused=self.accused)
        if not self.floor_queue:
            self.phase = "execution_vote"

    def _ask_execution(self) -> list[DecisionRequest]:
        return self._verdict_requests("execution")

    def _on_execution(self, answers: dict[str, ActionBase]) -> None:
        if self._majority(answers, self._voters(), "execution"):
            self.eliminate(self.accused, "execution", reveal=self.options.reveal_on_death)
            self.accuser = self.accused = None
            self._end_of_day()
        else:
            self.public("spared", player=self.accused)
            self._resume_discussion()

    def _draw_lot(self, answers: dict[str, ActionBase]) -> None:
        alive = self.alive
        self.lot_victim = alive[self.rng.randrange(len(alive))]
        self.public("lot", player=self.lot_victim)
        self.phase = "lot_last_words"

    def _ask_lot_words(self) -> list[DecisionRequest]:
        return self.ask_to_speak(
            self.lot_victim, "Time ran out and the referee's lot fell on you. Say your last words.", group="last_words"
        )

    def _on_lot_words(self, answers: dict[str, ActionBase]) -> None:
        victim = self.lot_victim
        self._speech(victim, answers[victim], "last_words")
        self.lot_victim = None
        self.eliminate(victim, "lot", reveal=self.options.reveal_on_death)
        self._end_of_day()

    def _ask_night(self) -> list[DecisionRequest]:
        requests = []
        for shooter in self.living("mafia"):
            spec = names_spec(
                self.others(shooter), nullable=True,
                forbidden={shooter: "nobody may shoot himself"},
            )  # fmt: skip
            requests.append(
                self.request(
                    shooter,
                    "Night: shoot one living player or hold fire. The kill needs more than "
                    "half of the living mafia on the same target. No talking.",
                    (Option("kill", {"target": spec}),),
                    group="night_kill",
                    default=HOLD_FIRE,
                )
            )
        for inspector in self.living("inspector"):
            spec = names_spec(
                self.others(inspector),
                forbidden={inspector: "you know your own card: check someone else"},
            )
            requests.append(
                self.request(
                    inspector,
                    "Night: point at one living player; you will be told privately whether they are mafia.",
                    (Option("check", {"target": spec}),),
                    group="check",
                )
            )
        return requests

    def _on_night(self, answers: dict[str, ActionBase]) -> None:
        shooters = self.living("mafia")
        shots = Counter(answers[m].target for m in shooters if answers[m].target is not None)
        victim = next((t for t, n in shots.items() if n * 2 > len(shooters)), None)
        self.note("shots", shots={m: answers[m].target for m in shooters}, victim=victim)
        for inspector in self.living("inspector"):
            target = answers[inspector].target
            result = "mafia" if self.team(target) == "mafia" else "not mafia"
            self.tell(inspector, "check_result", target=target, result=result)
        self.public("morning", number=self.day + 1, killed=[victim] if victim else [])
        if victim is not None:
            self.eliminate(victim, "mafia", reveal=self.options.reveal_on_death)
            if self.check_end():
                return
        self._start_day()

    # ---- end ------------------------------------------------------------------------------
    def winner_now(self) -> str | None:
        mafia = len(self.living("mafia"))
        town = len(self.alive) - mafia
        if mafia == 0:
            return "town"
        if town < mafia or (self.options.mafia_wins_at_parity and town == mafia):
            return "mafia"
        return None

    PHASES: ClassVar[dict[str, Phase]] = {
        "first_night": Phase(None, _first_night),
        "discussion": Phase(_ask_discussion, _on_discussion),
        "charge_vote": Phase(_ask_charge, _on_charge),
        "defence": Phase(_ask_defence, _on_defence),
        "floor": Phase(_ask_floor, _on_floor),
        "execution_vote": Phase(_ask_execution, _on_execution),
        "lot": Phase(None, _draw_lot),
        "lot_last_words": Phase(_ask_lot_words, _on_lot_words),
        "night": Phase(_ask_night, _on_night),
    }
