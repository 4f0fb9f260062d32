"""``cove``: pub Mafia with doctor, maniac, mistress and detective (The Cove's house rules, seed 003,
Russian). Spec: docs/rules/cove.md.

Day numbering: night N comes *before* day N, and ``game.day`` is N through both (so a night's
deaths and the next day's vote carry the same number). The game opens with night 1
(``first_phase = "night"``); with ``first_phase = "day"`` it opens with day 1 and the first night
is night 2, so night N still precedes day N. The morning after night N is numbered N. The draw
after ``max_days`` comes when day ``max_days`` ends without a winner.

A night is asked in two steps: first the mistress, the maniac, the detective and the doctor
together (one simultaneous batch), then the mafia channel, one living member at a time in seat
order. Nothing of either step reaches anyone before dawn, so the order of asking changes nothing;
the page's order (mistress, mafia, maniac, detective, doctor) is the order of *resolution* at dawn.

Readings fixed here (the page and the seed are silent):
- Teams: ``mafia``; ``maniac`` (alone); ``town`` (mistress, detective, doctor, civilians).
  Winners are named ``town``, ``mafia``, ``maniac`` or ``draw``.
- The deal: ``mafia_by_players`` (player count -> mafia; sizes given replace the page's table,
  the others keep it) and ``special_roles`` (which of the four special roles are dealt); the rest
  are civilians. A scenario may give a full ``deal``: at least one mafia, at most one of each
  special role. A deal the mafia has already won (mafia not outnumbered) is refused.
- Night killers are not announced by default: the page says "announce the dead", so a public
  ``death`` event says cause ``night`` while the record (``game.deaths``, the transcript's moderator
  note ``night_resolution``) keeps ``mafia`` / ``maniac`` / ``mistress``. Option
  ``announce_causes`` makes the public event name the killer, as some tables do.
- A player both the mafia and the maniac kill dies of cause ``mafia`` (the mafia act first).
- The doctor's limits count the player he *named*, even on a night his choice was void (the page
  says "named"): naming himself while frozen uses up his one self-save.
- The detective learns his result at dawn, even if he dies that night; so does a frozen one
  ("frozen"), so that nothing reveals a freeze before dawn.
- The mistress's visit rule is lifted on a night that begins with three or fewer alive (fewer
  than three never reaches a night). Her client dies with her only when she dies at night; a
  mistress voted out takes nobody with her.
- A channel pointing reaches the team as a ``speech`` event (kind ``channel``) carrying its
  ``target``, words or not, whether or not the member is frozen. The mafia's tie-break is a
  seeded draw among the tied in seat order; nobody is told of it.
- Day speeches start with a living seat drawn per day from the seed (option ``speaking_order``).
  Votes and the "both leave" verdict are public once counted (hands at a table). A nominee may
  vote, for himself too; the immune player votes. The first vote with no votes at all sends
  nobody out even with several nominees; in a two-way revote 0-0 is a tie (the page says so).
- "Both leave": each speaks last words and leaves in seat order; the end is checked once both
  are gone (it is one vote). A night's deaths are simultaneous: the end is checked after all.
- Forfeits: a night action is a seeded random legal choice (none may be skipped); a speech that
  must nominate is silence with a seeded random legal nominee; a vote abstains; a verdict is no;
  last words and tie speeches are silence.

Events: the ``morning`` event carries ``immune`` (today's immune player or null) and, when the
doctor saved the mistress who had visited the maniac, ``announcement`` with the page's line.
Vote results carry ``vote`` = ``nominees`` / ``revote`` / ``runoff`` / ``both_leave``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from pydantic import Field, field_validator

from arena.engine import ActionBase, DecisionRequest, FieldSpec, Game, Option, Phase, Repertoire, RulesError, TurnOptions
from arena.engine.events import team_audience
from arena.engine.game import ABSTAIN, NO, SPEAK_SILENT, VERDICT_ONLY, names_spec

SpecialRole = Literal["maniac", "mistress", "detective", "doctor"]
SPECIAL_ROLES: tuple[SpecialRole, ...] = ("maniac", "mistress", "detective", "doctor")
DEFAULT_MAFIA: dict[int, int] = {7: 2, 8: 2, 9: 2, 10: 3, 11: 3, 12: 3, 13: 4, 14: 4}
NIGHT_GROUPS = frozenset({"visit", "mafia_channel", "night_kill", "check", "heal"})
SAVED_MISTRESS = "the doctor saved the mistress from a murder; the maniac killed nobody tonight"
#: role -> the Night field its answer fills
NIGHT_SLOT = {"mistress": "visit", "maniac": "maniac", "detective": "check", "doctor": "heal"}


class CoveOptions(TurnOptions):
    first_phase: Literal["night", "day"] = Field(
        "night", description='"night": the game opens with night 1; "day": with day 1 (the first night is night 2).'
    )
    reveal_on_death: bool = Field(False, description="House rule: show a dead player's card.")
    announce_causes: bool = Field(
        False, description="House rule: a night death's announcement names the killer (mafia / maniac / mistress)."
    )
    mafia_by_players: dict[int, int] = Field(
        default_factory=lambda: dict(DEFAULT_MAFIA),
        description="Mafia members by player count (7-9: 2, 10-12: 3, 13-14: 4); sizes given replace those rows.",
    )
    special_roles: tuple[SpecialRole, ...] = Field(
        SPECIAL_ROLES, description="The special roles dealt (each once); the rest of the town are civilians."
    )

    @field_validator("mafia_by_players")
    @classmethod
    def _merge_table(cls, value: dict[int, int]) -> dict[int, int]:
        bad = sorted(n for n in value if n not in DEFAULT_MAFIA)
        if bad:
            raise ValueError(f"cove takes 7-14 players; no table row for {bad}")
        if any(count < 1 for count in value.values()):
            raise ValueError("every row needs at least one mafia")
        return {**DEFAULT_MAFIA, **value}

    @field_validator("special_roles")
    @classmethod
    def _distinct(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(value)) != len(value):
            raise ValueError("each special role is dealt at most once")
        return value


@dataclass(slots=True)
class Night:
    """Tonight's choices, kept secret until dawn."""

    visit: str | None = None  # the mistress's client
    maniac: str | None = None  # the maniac's named victim
    check: str | None = None
    heal: str | None = None
    channel: list[tuple[str, str]] = field(default_factory=list)  # (member, target), seat order


class Cove(Game):
    name = "cove"
    title = "Cove pub Mafia (doctor, maniac, mistress, detective)"
    min_players = 7
    max_players = 14
    default_players = 10
    roles = ("mafia", "maniac", "mistress", "detective", "doctor", "civilian")
    team_of = {
        "mafia": "mafia", "maniac": "maniac", "mistress": "town",
        "detective": "town", "doctor": "town", "civilian": "town",
    }  # fmt: skip
    Options = CoveOptions
    first_phase = "start"
    options: CoveOptions

    # ---- deal -----------------------------------------------------------------------------
    def deck(self, players: int) -> list[str]:
        mafia = self.options.mafia_by_players[players]
        specials = list(self.options.special_roles)
        civilians = players - mafia - len(specials)
        if civilians < 0:
            raise RulesError(f"{mafia} mafia and {len(specials)} special roles do not fit {players} players")
        cards = ["mafia"] * mafia + specials + ["civilian"] * civilians
        self._check_balance(cards)
        return cards

    def check_deal(self, deal: dict[str, str]) -> None:
        counts = Counter(deal.values())
        doubled = [role for role in SPECIAL_ROLES if counts[role] > 1]
        if doubled:
            raise RulesError(f"each special role is dealt at most once, not {', '.join(doubled)} twice")
        self._check_balance(list(deal.values()))

    @staticmethod
    def _check_balance(cards: list[str]) -> None:
        mafia = cards.count("mafia")
        if mafia == 0 or len(cards) - mafia <= mafia:
            raise RulesError(f"{mafia} mafia among {len(cards)} players: the game would be over before it starts")

    def repertoire(self, player: str) -> Repertoire:
        """Day speeches, votes and the "both leave" verdict for everyone; each night role its own
        action (the mafia's on their channel, with words for the team). Names range over every seat."""
        seats = self.seats
        nominate = (
            "In your day speech: the player you nominate for the vote; null only when the question says you can nominate nobody."
        )
        options = [
            Option(
                "speak",
                {"nominate": FieldSpec(seats, nullable=True)},
                "Speak to everyone: your day speech, a tie speech or last words.",
                {"nominate": nominate},
            ),
            Option(
                "vote",
                {"target": FieldSpec(seats, nullable=True)},
                "Vote for one of the candidates the question names.",
                {"target": "The candidate you vote for, or null to abstain."},
            ),
            Option(
                "verdict",
                description='Vote yes or no on "both leave" after a tied revote.',
                descriptions={"yes": "true for both tied players to leave the game, false for both to stay."},
            ),
        ]
        talk = {"speak"}
        role = self.role_of[player]
        if role == "mafia":
            channel = "On the mafia channel: name tonight's victim; your words reach the mafia only."
            words = {"target": "The living non-mafia player you name as tonight's victim."}
            options.append(Option("kill", {"target": FieldSpec(seats)}, channel, words))
            talk.add("kill")
        elif role == "maniac":
            options.append(
                Option("kill", {"target": FieldSpec(seats)}, "Your night kill.", {"target": "The player you kill tonight."})
            )
        elif role in NIGHT_SLOT:
            options.append(Option(NIGHT_SLOT[role], {"target": FieldSpec(seats)}))
        return Repertoire(tuple(options), talk=frozenset(talk))

    def setup(self) -> None:
        self.night = Night()
        self.channel_queue: list[str] = []
        self.last_client: str | None = None  # the mistress's client last night
        self.last_patient: str | None = None  # the player the doctor named last night
        self.doctor_named_self = False
        self.immune: str | None = None  # today's immune player
        self.first_speaker: str | None = None
        self.speakers: list[str] = []
        self.nominees: set[str] = set()
        self.candidates: tuple[str, ...] = ()
        self.leavers: list[str] = []

    # ---- helpers --------------------------------------------------------------------------
    def _one(self, role: str) -> str | None:
        """The living holder of a single role, if any."""
        holders = self.living(role)
        return holders[0] if holders else None

    def _die(self, name: str, cause: str) -> None:
        """Remove a player; a night killer stays secret in public unless ``announce_causes``."""
        shown = cause if cause == "vote" or self.options.announce_causes else "night"
        self.eliminate(name, cause, reveal=self.options.reveal_on_death, public_cause=shown)

    def check_end(self) -> bool:
        """As the base, plus the page's draw when nobody is left alive."""
        if not self.finished and not self.alive:
            self.finish("draw", "nobody alive")
        return super().check_end()

    def validate(self, request: DecisionRequest, action: ActionBase) -> str | None:
        """A night action may not be skipped: say so for ``pass`` and a null target."""
        if request.group in NIGHT_GROUPS:
            option = request.options[0]
            skipped = action.kind == "pass" or (action.kind == option.kind and getattr(action, "target", "") is None)
            if skipped:
                legal = ", ".join(option.fields["target"].choices or ())
                return f"nobody may skip a night action: {option.kind} one of {legal}"
        return super().validate(request, action)

    def _speech(self, speaker: str, action: ActionBase, kind: str, **data: object) -> None:
        self.public("speech", actor=speaker, kind=kind, **self.said(action), **data)

    # ---- start, night ---------------------------------------------------------------------
    def _start(self, answers: dict[str, ActionBase]) -> None:
        self.tell_team("mafia", "team", members=self.living("mafia"))
        self.day = 1
        if self.options.first_phase == "night":
            self._begin_night()
        else:
            self._begin_day()

    def _begin_night(self) -> None:
        self.night = Night()
        self.public("night", number=self.day)
        self.phase = "night"

    def _ask_night(self) -> list[DecisionRequest]:
        return [ask(self, player) for role, ask in self._NIGHT_ASK.items() for player in self.living(role)]

    def _ask_visit(self, mistress: str) -> DecisionRequest:
        forbidden = {mistress: "you cannot visit yourself"}
        last = self.last_client
        lifted = len(self.alive) <= 3
        if last is not None and not lifted and self.is_alive(last):
            forbidden[last] = f"you visited {last} last night; you may not visit the same player two nights running"
        return self.request(
            mistress,
            f"Night {self.day}: visit one living player other than yourself. Tonight your client cannot be killed "
            "by the mafia or the maniac (but dies with you if you die), his own night action is void, and he is "
            "immune in tomorrow's vote. No visiting the same player two nights running, unless the night begins "
            "with three players alive. If you visit the maniac, he kills you.",
            (Option("visit", {"target": names_spec(self.targets(exclude=forbidden), forbidden=forbidden)}),),
            group="visit",
        )

    def _ask_maniac(self, maniac: str) -> DecisionRequest:
        forbidden = {maniac: "you cannot kill yourself"}
        return self.request(
            maniac,
            f"Night {self.day}: name one living player other than yourself to kill. You may not skip.",
            (Option("kill", {"target": names_spec(self.targets(exclude=(maniac,)), forbidden=forbidden)}),),
            group="night_kill",
        )

    def _ask_check(self, detective: str) -> DecisionRequest:
        forbidden = {detective: "you cannot check yourself"}
        return self.request(
            detective,
            f'Night {self.day}: check one living player other than yourself; at dawn you are told "mafia" or "not mafia".',
            (Option("check", {"target": names_spec(self.targets(exclude=(detective,)), forbidden=forbidden)}),),
            group="check",
        )

    def _ask_heal(self, doctor: str) -> DecisionRequest:
        forbidden: dict[str, str] = {}
        if self.last_patient is not None and self.is_alive(self.last_patient):
            forbidden[self.last_patient] = (
                f"you named {self.last_patient} last night; you may not name the same patient two nights running"
            )
        if self.doctor_named_self:
            forbidden[doctor] = "you have already named yourself once; the doctor may name himself only once per game"
        return self.request(
            doctor,
            f"Night {self.day}: name one living player to save from being killed tonight. Not the player you named "
            "last night; yourself only once per game.",
            (Option("heal", {"target": names_spec(self.targets(exclude=forbidden), forbidden=forbidden)}),),
            group="heal",
        )

    #: role -> its night question, asked in the page's order (all together, before the channel)
    _NIGHT_ASK: ClassVar[dict[str, Callable[[Cove, str], DecisionRequest]]] = {
        "mistress": _ask_visit,
        "maniac": _ask_maniac,
        "detective": _ask_check,
        "doctor": _ask_heal,
    }

    def _on_night(self, answers: dict[str, ActionBase]) -> None:
        night = self.night
        for player, action in answers.items():
            setattr(night, NIGHT_SLOT[self.role_of[player]], action.target)
        self.last_client = night.visit
        if night.heal is not None:
            self.last_patient = night.heal
            self.doctor_named_self |= night.heal == self._one("doctor")
        self.channel_queue = self.living("mafia")
        self.phase = "mafia_channel" if self.channel_queue else "dawn"  # the mafia may be gone, the maniac not

    def _ask_channel(self) -> list[DecisionRequest]:
        member = self.channel_queue[0]
        mafia = self.living("mafia")
        forbidden = {m: f"{m} is in the mafia: name a living non-mafia player" for m in mafia}
        forbidden[member] = "you cannot kill yourself: name a living non-mafia player"
        return [
            self.request(
                member,
                f"Night {self.day}, mafia channel: name one living non-mafia player to kill. Members answer in seat "
                "order; the most-named target dies (a tie is drawn by lot). Your words reach the mafia only.",
                (Option("kill", {"target": names_spec(self.targets(exclude=mafia), forbidden=forbidden)}),),
                group="mafia_channel",
                talk=team_audience("mafia"),
            )
        ]

    def _on_channel(self, answers: dict[str, ActionBase]) -> None:
        member = self.channel_queue.pop(0)
        action = answers[member]
        self.night.channel.append((member, action.target))
        self.tell_team("mafia", "speech", actor=member, kind="channel", text=action.speech or "", target=action.target)
        if not self.channel_queue:
            self.phase = "dawn"

    def _mafia_victim(self, frozen: str | None) -> str | None:
        """The most-named target among members not frozen tonight; a seeded draw breaks a tie."""
        named = Counter(target for member, target in self.night.channel if member != frozen)
        if not named:
            return None
        top = max(named.values())
        tied = [n for n in self.seats if named.get(n) == top]
        return tied[0] if len(tied) == 1 else tied[self.rng.randrange(len(tied))]

    def _dawn(self, answers: dict[str, ActionBase]) -> None:
        night = self.night
        client = night.visit
        mistress, maniac = self._one("mistress"), self._one("maniac")
        detective, doctor = self._one("detective"), self._one("doctor")
        # 1. victims (the client is protected from the mafia and the maniac)
        mafia_victim = self._mafia_victim(client)
        maniac_void = maniac is None or client == maniac or mafia_victim == maniac
        dead: dict[str, str] = {}
        if mafia_victim is not None and mafia_victim != client:
            dead[mafia_victim] = "mafia"
        if not maniac_void and night.maniac != client:
            dead.setdefault(night.maniac, "maniac")
        visited_maniac = mistress is not None and client == maniac
        if visited_maniac:
            dead.setdefault(mistress, "maniac")
        # 2. the doctor's save, against any killer, unless he is frozen
        patient = night.heal if doctor is not None and doctor != client else None
        saved = dead.pop(patient, None) if patient is not None else None
        # 3. the client dies with the mistress, unless he is the maniac
        if mistress in dead and client is not None and not visited_maniac:
            dead[client] = "mistress"
        if detective is not None:
            result = "frozen" if detective == client else ("mafia" if self.team(night.check) == "mafia" else "not mafia")
            self.tell(detective, "check_result", target=night.check, result=result)
        self.note(
            "night_resolution", visit=client, channel=dict(night.channel), mafia_victim=mafia_victim,
            maniac_target=night.maniac, maniac_void=maniac_void, check=night.check, heal=night.heal,
            heal_void=doctor is not None and doctor == client, saved=patient if saved else None, dead=dead,
        )  # fmt: skip
        # 4. announce
        killed = [n for n in self.seats if n in dead]
        self.immune = client if client is not None and client not in dead else None
        extra = {"announcement": SAVED_MISTRESS} if visited_maniac and saved else {}
        self.public("morning", number=self.day, killed=killed, immune=self.immune, **extra)
        for name in killed:
            self._die(name, dead[name])
        self.night = Night()
        if not self.check_end():
            self._begin_day()

    # ---- day ------------------------------------------------------------------------------
    def _begin_day(self) -> None:
        first = self.first_speaker = self.day_opener(self.first_speaker)
        alive = self.alive
        start = alive.index(first)
        self.speakers = list(alive[start:] + alive[:start])
        self.nominees = set()
        self.public("day", number=self.day, alive=list(alive))
        self.phase = "speeches"

    def _ask_speech(self) -> list[DecisionRequest]:
        speaker = self.speakers[0]
        forbidden: dict[str, str] = {}
        if self.immune is not None:
            forbidden[self.immune] = f"{self.immune} is immune today and cannot be nominated"
        forbidden[speaker] = "you cannot nominate yourself"
        legal = self.targets(exclude=forbidden)
        if legal:
            option = Option("speak", {"nominate": names_spec(legal, forbidden=forbidden)})
            if self.immune is None:
                immune = "nobody is immune today"
            elif self.immune == speaker:  # told to the immune speaker, not as if of someone else
                immune = "you are immune today"
            else:
                immune = f"not {self.immune}, immune today"
            question = f"Your speech. You must nominate one living player (not yourself; {immune})."
        else:
            option = Option("speak")
            question = "Your speech. Nobody can be nominated by you today, so your speech has no nomination."
        return [
            self.request(
                speaker, question + " The vote among the nominees follows the last speech.",
                (option,), group="discussion", talk="all", default=None if legal else SPEAK_SILENT,
                immune=self.immune, nominees=[n for n in self.seats if n in self.nominees],
            )
        ]  # fmt: skip

    def _on_speech(self, answers: dict[str, ActionBase]) -> None:
        speaker = self.speakers.pop(0)
        action = answers[speaker]
        self._speech(speaker, action, "discussion", nominate=action.nominate)
        if action.nominate is not None:
            self.nominees.add(action.nominate)
        if self.speakers:
            return
        self.candidates = tuple(n for n in self.seats if n in self.nominees)
        if self.candidates:
            self.phase = "vote"
        else:
            self._end_day()

    def _ask_vote(self) -> list[DecisionRequest]:
        names = ", ".join(self.candidates)
        question = {
            "vote": f"Vote for one nominee ({names}) or abstain (null). The single highest count leaves the game.",
            "revote": f"Revote among the tied ({names}), or abstain (null). A tie of three or more again: nobody leaves.",
            "runoff_vote": f"Revote between {names}, or abstain (null). A tie goes to a vote on whether both leave.",
        }[self.phase] + " Everyone votes at the same time: nobody sees another vote before casting their own."
        spec = names_spec(self.candidates, nullable=True)
        return [
            self.request(n, question, (Option("vote", {"target": spec}),), group="vote", default=ABSTAIN,
                         candidates=list(self.candidates))
            for n in self.alive
        ]  # fmt: skip

    def _count(self, answers: dict[str, ActionBase]) -> tuple[list[str], int, dict[str, str | None]]:
        """The tied leaders, their count, and the ballots."""
        votes = {n: answers[n].target for n in self.alive}
        counts = Counter(t for t in votes.values() if t is not None)
        top = max(counts.values(), default=0)
        return [c for c in self.candidates if counts[c] == top], top, votes

    def _announce(self, vote: str, votes: dict[str, str | None], result: str | None, tied: list[str]) -> None:
        self.public("vote_result", vote=vote, candidates=list(self.candidates), votes=votes, result=result, tied=tied)

    def _on_vote(self, answers: dict[str, ActionBase]) -> None:
        leaders, top, votes = self._count(answers)
        if top == 0:
            leaders = []  # no votes at all: nobody leaves
        self._announce("nominees", votes, leaders[0] if len(leaders) == 1 else None, leaders if len(leaders) > 1 else [])
        self._after_count(leaders, on_many="revote")

    def _on_revote(self, answers: dict[str, ActionBase]) -> None:
        leaders, _top, votes = self._count(answers)  # 0 votes: all three or more tie, nobody leaves
        self._announce("revote", votes, leaders[0] if len(leaders) == 1 else None, leaders if len(leaders) > 1 else [])
        self._after_count(leaders, on_many=None)

    def _after_count(self, leaders: list[str], on_many: str | None) -> None:
        """One leader leaves; two go to the runoff; more revote once (``on_many``) or stay."""
        if len(leaders) == 1:
            self._send_out(leaders)
        elif len(leaders) == 2:
            self.candidates = tuple(leaders)
            self.speakers = list(leaders)
            self.phase = "runoff_speeches"
        elif leaders and on_many is not None:
            self.candidates = tuple(leaders)
            self.phase = on_many
        else:
            self._end_day()

    def _ask_runoff_speech(self) -> list[DecisionRequest]:
        other = next(c for c in self.candidates if c != self.speakers[0])
        return self.ask_to_speak(
            self.speakers[0],
            f"You and {other} tied at the top. Speak once more; then everyone revotes between you. If that "
            "revote ties too, everyone votes on whether you both leave.",
            group="defence",
            candidates=list(self.candidates),
        )

    def _on_runoff_speech(self, answers: dict[str, ActionBase]) -> None:
        speaker = self.speakers.pop(0)
        self._speech(speaker, answers[speaker], "defence")
        if not self.speakers:
            self.phase = "runoff_vote"

    def _on_runoff_vote(self, answers: dict[str, ActionBase]) -> None:
        leaders, _top, votes = self._count(answers)
        alone = len(leaders) == 1  # 0-0 leaves both as leaders: a tie
        self._announce("runoff", votes, leaders[0] if alone else None, [] if alone else list(self.candidates))
        if alone:
            self._send_out(leaders)
        else:
            self.phase = "both_leave"

    def _ask_both_leave(self) -> list[DecisionRequest]:
        first, second = self.candidates
        return [
            self.request(
                n, f"The revote between {first} and {second} tied. Vote yes for both to leave the game, no for both "
                "to stay; both leave with more than half of the living players voting yes. Everyone votes at the "
                "same time: nobody sees another vote before casting their own.",
                VERDICT_ONLY, group="verdict", default=NO, vote="both_leave", candidates=list(self.candidates),
            )
            for n in self.alive
        ]  # fmt: skip

    def _on_both_leave(self, answers: dict[str, ActionBase]) -> None:
        yes = [n for n in self.alive if answers[n].yes]
        passed = len(yes) * 2 > len(self.alive)
        self.public(
            "vote_result", vote="both_leave", candidates=list(self.candidates), yes=yes,
            no=[n for n in self.alive if n not in yes], passed=passed,
        )  # fmt: skip
        if passed:
            self._send_out(list(self.candidates))
        else:
            self._end_day()

    def _send_out(self, leavers: list[str]) -> None:
        self.leavers = [n for n in self.seats if n in leavers]
        self.phase = "last_words"

    def _ask_last_words(self) -> list[DecisionRequest]:
        return self.ask_to_speak(self.leavers[0], "The vote sends you out of the game. Say your last words.", group="last_words")

    def _on_last_words(self, answers: dict[str, ActionBase]) -> None:
        leaver = self.leavers.pop(0)
        self._speech(leaver, answers[leaver], "last_words")
        self._die(leaver, "vote")
        if not self.leavers:
            self._end_day()

    def _end_day(self) -> None:
        self.immune = None
        self.candidates = ()
        if self.day_is_last():
            return
        self.day += 1
        self._begin_night()

    # ---- end ------------------------------------------------------------------------------
    def winner_now(self) -> str | None:
        mafia = len(self.living("mafia"))
        maniac = self._one("maniac") is not None
        others = len(self.alive) - mafia
        if mafia == 0 and not maniac:
            return "town"
        if maniac and mafia == 0 and others <= 2:
            return "maniac"  # alone, or alone with exactly one non-mafia player
        if mafia > others or (mafia == others and not maniac):
            return "mafia"
        return None

    # ---- scenarios ------------------------------------------------------------------------
    def scenario_extras(self) -> dict[str, object]:
        return {
            "mornings": [dict(e.data) for e in self.log if e.type == "morning"],
            "votes": [dict(e.data) for e in self.log if e.type == "vote_result"],
        }

    PHASES: ClassVar[dict[str, Phase]] = {
        "start": Phase(None, _start),
        "night": Phase(_ask_night, _on_night),
        "mafia_channel": Phase(_ask_channel, _on_channel),
        "dawn": Phase(None, _dawn),
        "speeches": Phase(_ask_speech, _on_speech),
        "vote": Phase(_ask_vote, _on_vote),
        "revote": Phase(_ask_vote, _on_revote),
        "runoff_speeches": Phase(_ask_runoff_speech, _on_runoff_speech),
        "runoff_vote": Phase(_ask_vote, _on_runoff_vote),
        "both_leave": Phase(_ask_both_leave, _on_both_leave),
        "last_words": Phase(_ask_last_words, _on_last_words),
    }
