"""``village``: Mafia with a deck of cards (a Norwegian party-game page). Spec: docs/rules/village.md.

The game opens with a day of talk and no trial; then night (mafia channel, then detective and
doctor together, everything taking effect at dawn) and day (discussion, trials of the most
accused, a two-candidate vote when trials fail) alternate. Every eliminated card is shown.

Readings fixed here (the page and the seed are silent):
- Teams are ``mafia`` and ``town`` (villagers, detective, doctor), as in ``classic``.
- The deal: ``mafia_count`` (0 = the seed's table, floor(players / 3)) or ``deal``, counts per
  role; a role the deal leaves out keeps its default count (the table's mafia, one detective, one
  doctor) and villagers are the rest. A deal with no mafia, or one the mafia has already won
  (non-mafia fewer than mafia), is refused.
- A forfeited guilty/innocent vote counts as innocent (the ``NO`` of every yes/no vote in the
  arena); forfeited speech is silence; a forfeited pointing, check, save or two-candidate vote is a
  seeded random legal choice, since none of them may be skipped.
- Repeating an accusation is talk and allowed, but an accuser counts once per accused: only the
  first one makes an ``accusation`` event. Defences cannot accuse.
- Verdicts, the two-candidate vote and the detective's and doctor's actions are silent; the
  channel talks to the living mafia only; the dead are never asked and never speak.
- A channel pointing reaches the team as a ``speech`` event (kind ``channel``) carrying its
  ``target`` and ``round``, words or not; every round closes with a team ``channel_result``
  event (the round's targets, whether they agreed, and the victim once the channel is over).
- Mafia learn each other by a ``team`` event (living members) at night 1 only, before the channel.
- Night N follows day N; its morning is numbered N + 1. The doctor is never told whether his save
  mattered (a saved victim is a moderator note); the morning lists ``killed`` and ``arrested``.
- The two-candidate vote takes the living players not acquitted today, best accused first; a tie
  at the cut and any gap (fewer than two accused) are filled by a seeded draw from the next tier
  (the never-accused form the last tier); the acquitted are drawn only when nobody else is left.
- Draws of lots pick among players in seat order with ``game.rng`` (and only when there is a
  choice); a ``lot`` event names each drawn player: public for a trial, a runoff candidate or an
  execution, told to the mafia only for their night tie-break.
- The draw after ``max_days`` comes when day ``max_days`` ends without a winner.

Events added to the shared vocabulary: ``trial`` (``player``, ``accusations``), ``acquitted``
(``player``), ``runoff`` (``candidates``), ``lot`` (``among``, ``player``, ``why``) and the
team-only ``channel_result``.
"""

from __future__ import annotations

from collections import Counter
from typing import ClassVar, Literal

from pydantic import Field, NonNegativeInt, model_validator

from arena.engine import ActionBase, Clock, DecisionRequest, FieldSpec, Game, Option, Phase, Repertoire, RulesError, TurnOptions
from arena.engine.events import team_audience
from arena.engine.game import NO, VERDICT_ONLY, names_spec

DealRole = Literal["mafia", "villager", "detective", "doctor"]


class VillageOptions(TurnOptions):
    mafia_count: int = Field(0, ge=0, description="Mafia members; 0 = the seed's table, floor(players / 3).")
    deal: dict[DealRole, NonNegativeInt] = Field(
        default_factory=dict,
        description="Full deal override, cards per role (e.g. {mafia = 3, detective = 1, doctor = 1}); "
        "roles left out keep their default count, villagers are the rest.",
    )
    discussion_rounds: int = Field(2, ge=1, description="Discussion rounds each day (the moderator's 'enough talk').")
    channel_rounds: int = Field(3, ge=1, description="Mafia channel rounds per night, in all, to agree on a victim.")
    mafia_disagreement: Literal["plurality", "no_kill"] = Field(
        "plurality",
        description="If the mafia never agree: the last round's most-named target dies (seeded tie-break), or nobody.",
    )
    max_acquittals: int = Field(2, ge=0, description="Acquittals in a day before the two-candidate vote.")

    @model_validator(mode="after")
    def _one_mafia_count(self) -> VillageOptions:
        if self.mafia_count and "mafia" in self.deal:
            raise ValueError("set the mafia count either in mafia_count or in deal, not both")
        return self


class Village(Game):
    name = "village"
    title = "Village Mafia (card rules, Norwegian party-game page)"
    min_players = 7
    max_players = 32
    default_players = 11
    roles = ("mafia", "villager", "detective", "doctor")
    team_of = {"mafia": "mafia", "villager": "town", "detective": "town", "doctor": "town"}
    Options = VillageOptions
    first_phase = "start"
    options: VillageOptions

    # ---- deal -----------------------------------------------------------------------------
    def deck(self, players: int) -> list[str]:
        deal = self.options.deal
        counts = {"mafia": self.options.mafia_count or players // 3, "detective": 1, "doctor": 1}
        counts.update({role: n for role, n in deal.items() if role != "villager"})
        villagers = players - sum(counts.values())
        if villagers < 0 or deal.get("villager", villagers) != villagers:
            raise RulesError(
                f"the deal {counts} with {deal.get('villager', 'the rest')} villagers does not fit {players} players"
            )
        cards = [role for role, n in counts.items() for _ in range(n)] + ["villager"] * villagers
        self._check_balance(cards)
        return cards

    def check_deal(self, deal: dict[str, str]) -> None:
        self._check_balance(list(deal.values()))

    @staticmethod
    def _check_balance(cards: list[str]) -> None:
        mafia = cards.count("mafia")
        if mafia == 0 or len(cards) - mafia < mafia:
            raise RulesError(f"{mafia} mafia among {len(cards)} players: the game would be over before it starts")

    def repertoire(self, player: str) -> Repertoire:
        """Speeches, trial votes and the two-candidate vote for everyone; the channel for the mafia,
        the check for the detective, the save for the doctor. Names range over every seat."""
        seats = self.seats
        options = [
            Option(
                "speak",
                {"accuse": FieldSpec(seats, nullable=True)},
                "Speak to everyone: a discussion turn or your defence.",
                {"accuse": "In a discussion turn: a living player you accuse, or null to accuse nobody."},
            ),
            Option(
                "verdict",
                description="Vote guilty or innocent on the player on trial.",
                descriptions={"yes": "true for guilty, false for innocent."},
            ),
            Option(
                "vote",
                {"target": FieldSpec(seats)},
                "Vote for one of the two candidates (no abstaining).",
                {"target": "The candidate you vote for."},
            ),
        ]
        talk = {"speak"}
        role = self.role_of[player]
        if role == "mafia":
            channel = "On the mafia channel: point at tonight's victim; your words reach the mafia only."
            words = {"target": "The living non-mafia player you point at."}
            options.append(Option("kill", {"target": FieldSpec(seats)}, channel, words))
            talk.add("kill")
        elif role == "detective":
            check = (
                "Point at a player you believe is mafia: you are told at once whether you are right, and if "
                "you are, that player is arrested at dawn."
            )
            options.append(Option("check", {"target": FieldSpec(seats)}, check))
        elif role == "doctor":
            options.append(Option("heal", {"target": FieldSpec(seats)}))
        return Repertoire(tuple(options), talk=frozenset(talk))

    def setup(self) -> None:
        self.first_speaker = self.seats[0]
        self.speaker = self.seats[0]
        self.turns_left = self.turns_total = 0
        self.accusers: dict[str, set[str]] = {}  # accused -> accusers, today
        self.tried: set[str] = set()
        self.acquitted: list[str] = []
        self.accused: str | None = None
        self.candidates: tuple[str, ...] = ()
        self.channel_round = 0
        self.channel_queue: list[str] = []
        self.pointing: dict[str, str] = {}  # member -> target, this round
        self.victim: str | None = None
        self.arrested: list[str] = []

    # ---- helpers --------------------------------------------------------------------------
    def _draw(self, pool: list[str], k: int, why: str) -> list[str]:
        """``k`` of ``pool`` by seeded lot (no draw, and no rng call, when nothing is to choose)."""
        if len(pool) <= k:
            return list(pool)
        ordered = [n for n in self.seats if n in pool]
        picked = self.rng.sample(ordered, k)
        for name in picked:
            self.public("lot", among=ordered, player=name, why=why)
        return picked

    def _count(self, name: str) -> int:
        return len(self.accusers.get(name, ()))

    def tally(self) -> dict[str, list[str]]:
        """Today's accusations, most accused first (seat order within a count): accused -> accusers
        in seat order. Public (every accusation is), so every discussion and trial question carries it."""
        ranked = sorted((n for n in self.seats if self.accusers.get(n)), key=lambda n: -self._count(n))
        return {n: [a for a in self.seats if a in self.accusers[n]] for n in ranked}

    def _start_day(self) -> None:
        self.day += 1
        self.first_speaker = self.day_opener(self.first_speaker if self.day > 1 else None)
        self.speaker = self.first_speaker
        self.turns_total = self.turns_left = self.options.discussion_rounds * len(self.alive)
        self.accusers = {}
        self.tried = set()
        self.acquitted = []
        self.phase = "discussion"
        self.public("day", number=self.day, alive=list(self.alive))

    def _end_of_day(self) -> None:
        if self.day_is_last():
            return
        self.phase = "night"

    # ---- day ------------------------------------------------------------------------------
    def _start(self, answers: dict[str, ActionBase]) -> None:
        self._start_day()

    def _ask_discussion(self) -> list[DecisionRequest]:
        speaker = self.speaker
        accuse = names_spec(self.targets(exclude=(speaker,)), nullable=True, forbidden={speaker: "you cannot accuse yourself"})
        first = self.day == 1
        return self.ask_to_speak(
            speaker,
            "Your discussion turn. You may accuse one living player; "
            + ("today is the first day: accusations are allowed, but nobody is tried or executed today."
               if first else "when the talk is over, the most accused is tried.")
            + " A new accusation adds to your earlier ones; accusing the same player again changes nothing.",
            group="discussion",
            fields={"accuse": accuse},
            clock=Clock("discussion turn", self.turns_left, self.turns_total),
            tally=self.tally(),
        )  # fmt: skip

    def _on_discussion(self, answers: dict[str, ActionBase]) -> None:
        speaker = self.speaker
        action = answers[speaker]
        again = action.accuse is not None and speaker in self.accusers.get(action.accuse, ())
        extra = {"again": True} if again else {}  # a repeated accusation counts nothing: the speech says so
        self.public("speech", actor=speaker, kind="discussion", **self.said(action), accuse=action.accuse, **extra)
        if action.accuse is not None and not again:
            self.accusers.setdefault(action.accuse, set()).add(speaker)
            self.public("accusation", actor=speaker, accused=action.accuse, count=self._count(action.accuse))
        self.turns_left -= 1
        self.speaker = self.next_seat(speaker)
        if self.turns_left > 0:
            return
        if self.day == 1:
            self._end_of_day()
        else:
            self.phase = "court"

    def _court(self, answers: dict[str, ActionBase]) -> None:
        """The moderator's next step: try the most accused untried player, or call the runoff."""
        untried = [n for n in self.alive if self._count(n) > 0 and n not in self.tried]
        if untried and len(self.acquitted) < self.options.max_acquittals:
            top = max(self._count(n) for n in untried)
            (self.accused,) = self._draw([n for n in untried if self._count(n) == top], 1, "trial")
            self.tried.add(self.accused)
            self.public("trial", player=self.accused, accusations=top)
            self.phase = "defence"
            return
        self.candidates = tuple(self._runoff_candidates())
        self.public("runoff", candidates=list(self.candidates))
        self.phase = "runoff"

    def _runoff_candidates(self) -> list[str]:
        others = [n for n in self.alive if n not in self.acquitted]
        tiers = sorted({self._count(n) for n in others}, reverse=True)
        chosen: list[str] = []
        for count in tiers:
            tier = [n for n in others if self._count(n) == count]
            chosen += self._draw(tier, 2 - len(chosen), "runoff")
            if len(chosen) == 2:
                return chosen
        return chosen + self._draw(list(self.acquitted), 2 - len(chosen), "runoff")

    def _ask_defence(self) -> list[DecisionRequest]:
        accused = self.accused
        return self.ask_to_speak(
            accused,
            f"You are on trial with {self._count(accused)} accusations. Give your defence; then every living "
            "player, you included, votes guilty or innocent. This is your last speech: if found guilty you are "
            "executed at once; if acquitted, the day goes on to the next trial or to the final vote.",
            group="defence",
            tally=self.tally(),
        )

    def _on_defence(self, answers: dict[str, ActionBase]) -> None:
        self.public("speech", actor=self.accused, kind="defence", **self.said(answers[self.accused]))
        self.phase = "verdict"

    def _verdict_question(self, voter: str) -> str:
        """The trial's vote in the voter's own words: the accused votes too."""
        on_trial = "You are on trial; you vote too." if voter == self.accused else f"{self.accused} is on trial."
        return (
            f"{on_trial} Vote yes for guilty, no for innocent; guilty needs more guilty than innocent votes. "
            "Everyone votes at the same time: nobody sees another vote before casting their own."
        )

    def _ask_verdict(self) -> list[DecisionRequest]:
        return [
            self.request(
                n,
                self._verdict_question(n),
                VERDICT_ONLY,
                group="verdict",
                default=NO,
                vote="guilty",
                accused=self.accused,
                tally=self.tally(),
            )
            for n in self.alive
        ]

    def _on_verdict(self, answers: dict[str, ActionBase]) -> None:
        guilty = [n for n in self.alive if answers[n].yes]
        innocent = [n for n in self.alive if not answers[n].yes]
        passed = len(guilty) > len(innocent)
        self.public("vote_result", vote="guilty", accused=self.accused, yes=guilty, no=innocent, passed=passed)
        if passed:
            self._execute(self.accused)
            return
        self.acquitted.append(self.accused)
        self.public("acquitted", player=self.accused)
        self.accused = None
        self.phase = "court"

    def _ask_runoff(self) -> list[DecisionRequest]:
        first, second = self.candidates
        spec = names_spec(self.candidates)
        return [
            self.request(
                n,
                f"The day must end with a conviction: vote for {first} or {second}. No abstaining; a tie is settled by "
                "lot. Everyone votes at the same time: nobody sees another vote before casting their own.",
                (Option("vote", {"target": spec}),),
                group="vote",
                candidates=list(self.candidates),
                tally=self.tally(),
            )
            for n in self.alive
        ]

    def _on_runoff(self, answers: dict[str, ActionBase]) -> None:
        votes = {n: answers[n].target for n in self.alive}
        tally = Counter(votes.values())
        top = max(tally[c] for c in self.candidates)
        tied = [c for c in self.seats if c in self.candidates and tally[c] == top]  # a lot draws in seat order
        convicted = tied[0] if len(tied) == 1 else self.rng.choice(tied)
        self.public("vote_result", vote="runoff", candidates=list(self.candidates), votes=votes, result=convicted)
        if len(tied) > 1:
            self.public("lot", among=tied, player=convicted, why="execution")
        self._execute(convicted)

    def _execute(self, name: str) -> None:
        self.accused = None
        self.candidates = ()
        self.eliminate(name, "execution", reveal=True)
        self._end_of_day()

    # ---- night ----------------------------------------------------------------------------
    def _start_night(self, answers: dict[str, ActionBase]) -> None:
        self.public("night", number=self.day)
        if self.day == 1:
            self.tell_team("mafia", "team", members=self.living("mafia"))
        self.victim = None
        self.arrested = []
        self.channel_round = 0
        self._next_channel_round()

    def _next_channel_round(self) -> None:
        self.channel_round += 1
        self.channel_queue = self.living("mafia")
        self.pointing = {}
        self.phase = "channel"

    def _ask_channel(self) -> list[DecisionRequest]:
        member = self.channel_queue[0]
        forbidden = {m: f"{m} is in the mafia: point at a living non-mafia player" for m in self.living("mafia")}
        forbidden[member] = "you cannot point at yourself: point at a living non-mafia player"
        spec = names_spec(self.targets(exclude=self.living("mafia")), forbidden=forbidden)
        rounds = self.options.channel_rounds
        if len(self.living("mafia")) == 1:  # nobody to agree with, nobody to hear
            how = "You are the last living mafia member: the player you point at is tonight's victim."
        else:
            how = "All living mafia must name the same victim. Your words reach the mafia only."
        return [
            self.request(
                member,
                f"Night channel, round {self.channel_round} of {rounds}: point at one living non-mafia player to kill. {how}",
                (Option("kill", {"target": spec}),),
                group="mafia_channel",
                talk=team_audience("mafia"),
                clock=Clock("channel round", rounds - self.channel_round + 1, rounds),
                round=self.channel_round,
            )
        ]

    def _on_channel(self, answers: dict[str, ActionBase]) -> None:
        member = self.channel_queue.pop(0)
        action = answers[member]
        self.pointing[member] = action.target
        self.tell_team(
            "mafia", "speech", actor=member, kind="channel", text=action.speech or "",
            target=action.target, round=self.channel_round,
        )  # fmt: skip
        if self.channel_queue:
            return
        named = Counter(self.pointing.values())
        agreed = len(named) == 1
        final = agreed or self.channel_round >= self.options.channel_rounds
        if not final:
            self.tell_team("mafia", "channel_result", round=self.channel_round, targets=dict(self.pointing), agreed=False)
            self._next_channel_round()
            return
        if agreed or self.options.mafia_disagreement == "plurality":
            top = max(named.values())
            (self.victim,) = self._draw_secret([t for t in self.seats if named.get(t) == top])
        self.tell_team(
            "mafia", "channel_result", round=self.channel_round, targets=dict(self.pointing),
            agreed=agreed, victim=self.victim,
        )  # fmt: skip
        self.phase = "night_roles"

    def _draw_secret(self, pool: list[str]) -> list[str]:
        """A lot the town must not hear of (the mafia's tie-break): told to the mafia only."""
        if len(pool) == 1:
            return pool
        victim = self.rng.choice(pool)
        self.tell_team("mafia", "lot", among=pool, player=victim, why="night_kill")
        return [victim]

    def _ask_night_roles(self) -> list[DecisionRequest]:
        requests = []
        for detective in self.living("detective"):
            spec = names_spec(
                self.targets(exclude=(detective,)),
                forbidden={detective: "you know your own card: check another living player"},
            )
            requests.append(
                self.request(
                    detective,
                    "Night: point at one living player you believe is mafia. You are told at once; "
                    "if you are right, that player is arrested at dawn.",
                    (Option("check", {"target": spec}),),
                    group="check",
                )
            )
        for doctor in self.living("doctor"):
            requests.append(
                self.request(
                    doctor,
                    "Night: point at one living player (yourself included) to save from the mafia tonight.",
                    (Option("heal", {"target": names_spec(self.alive)}),),
                    group="heal",
                )
            )
        return requests

    def _on_night_roles(self, answers: dict[str, ActionBase]) -> None:
        for detective in self.living("detective"):
            target = answers[detective].target
            hit = self.team(target) == "mafia"
            self.tell(detective, "check_result", target=target, result="mafia" if hit else "not mafia")
            if hit and target not in self.arrested:
                self.arrested.append(target)
        saves = {answers[d].target for d in self.living("doctor")}
        if self.victim is not None and self.victim in saves:
            self.note("saved", player=self.victim)
            self.victim = None
        self.phase = "dawn"

    def _dawn(self, answers: dict[str, ActionBase]) -> None:
        killed = [self.victim] if self.victim is not None else []
        arrested = [n for n in self.seats if n in self.arrested]
        self.public("morning", number=self.day + 1, killed=killed, arrested=arrested)
        for name in killed:
            self.eliminate(name, "mafia", reveal=True)
        for name in arrested:
            self.eliminate(name, "arrest", reveal=True)
        self.victim = None
        self.arrested = []
        if not self.check_end():
            self._start_day()

    # ---- end ------------------------------------------------------------------------------
    def winner_now(self) -> str | None:
        mafia = len(self.living("mafia"))
        if mafia == 0:
            return "town"
        if len(self.alive) - mafia < mafia:
            return "mafia"
        return None

    def scenario_extras(self) -> dict[str, object]:
        """What a scenario's reader checks besides deaths: mornings, every vote, the channel's rounds."""
        return {
            "mornings": [dict(e.data) for e in self.log if e.type == "morning"],
            "votes": [dict(e.data) for e in self.log if e.type == "vote_result"],
            "channel": [dict(e.data) for e in self.log if e.type == "channel_result"],
        }

    PHASES: ClassVar[dict[str, Phase]] = {
        "start": Phase(None, _start),
        "discussion": Phase(_ask_discussion, _on_discussion),
        "court": Phase(None, _court),
        "defence": Phase(_ask_defence, _on_defence),
        "verdict": Phase(_ask_verdict, _on_verdict),
        "runoff": Phase(_ask_runoff, _on_runoff),
        "night": Phase(None, _start_night),
        "channel": Phase(_ask_channel, _on_channel),
        "night_roles": Phase(_ask_night_roles, _on_night_roles),
        "dawn": Phase(None, _dawn),
    }
