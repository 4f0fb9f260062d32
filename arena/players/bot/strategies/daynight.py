"""The shared brain of the day/night variants, dispatched on the request's ``group``.

Town plays the suspicion model of :class:`Memory`: accuse and vote out the most suspicious,
never a confirmed townsperson; the investigator checks the most suspicious unchecked player and
comes out when it found mafia, when it is about to die, when someone else claims its card, or late.
Mafia plays the *public* model (what the town can know): it piles onto the town's favourite
town suspect, never votes out a partner unless he is doomed anyway, shoots the most dangerous
town player the team's public convention names (:mod:`arena.players.convention`: the team's
latest accusation, which a person or a model on the team follows as well as a bot), and may
fake-claim the investigator's card at a sensible moment. Partners share nothing but what every
partner sees: a tie between equally good choices is broken by each bot's own seeded draw.

Variants subclass this and adjust the class attributes and the few hooks marked as such.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from typing import ClassVar

from arena.engine import ActionBase, DecisionRequest
from arena.engine.actions import Check as CheckAction
from arena.engine.actions import Claim, Heal, Kill, Speak, Verdict, Visit, Vote

from ...convention import lead
from .. import speech as say
from ..legal import choices, nullable, safe_action
from ..memory import CONFIRMED, INVESTIGATORS, PROTECTORS, Memory
from ..ties import best, draw, priority, ranking
from .base import Strategy

#: (vote, accused, yes, thought) -> the Verdict, shared by every bot (votes are most decisions)
VERDICTS: dict[tuple, Verdict] = {}
#: the least spread of suspicion a case is measured in (a table with no evidence is not "tight")
SPREAD_FLOOR = 0.5
#: an anchor this high (a check, a shown card) makes a town bot vote yes without a draw
SURE = 0.9


def logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -60.0 else 0.0


def logit(p: float) -> float:
    p = min(max(p, 1e-9), 1.0 - 1e-9)
    return math.log(p / (1.0 - p))


class DayNightStrategy(Strategy):
    """Mafia-family play for any variant built from the shared decision groups."""

    variant: ClassVar[str] = "day_night"
    #: the investigating role of this variant (the card a mafia bot may fake)
    investigator: ClassVar[str] = "inspector"
    #: an investigator comes out at this many living players, whatever it found
    claim_when_alive: ClassVar[int] = 7
    #: chance per day that the designated mafia bot fakes the investigator with nobody claimed yet
    fake_claim_chance: ClassVar[float] = 0.2
    #: a charge (it only asks for a trial) is yes with probability logistic(gain × case + bias),
    #: the case in spreads of suspicion (:meth:`case_against`): a coin flip when the accused
    #: stands out from nobody
    verdict_gain: ClassVar[float] = 3.0
    charge_bias: ClassVar[float] = 0.0
    #: an execution (it ends the day) is a yes for an accused within this much suspicion of my
    #: top suspect, softened over a spread by the gain
    execute_margin: ClassVar[float] = 0.6
    execute_gain: ClassVar[float] = 6.0
    #: how much the accuser's own standing moves the case he brings (see :meth:`case_against`)
    accuser_weight: ClassVar[float] = 1.0
    trusted_accuser: ClassVar[float] = 1.0
    #: log-odds a mafia bot adds to a yes on a townsperson (it knows better, but must blend in)
    mafia_lean: ClassVar[float] = 3.0
    #: accusing is a draw too (see :meth:`wants_to_accuse`): log-odds with nobody standing out at
    #: the start of the day, per spread the top suspect stands out, and added as the day runs out
    accuse_bias: ClassVar[float] = 0.0
    accuse_gain: ClassVar[float] = 1.5
    accuse_urgency: ClassVar[float] = 3.0
    #: log-odds a mafia bot adds to accusing (a trial of a townsperson is what it wants)
    mafia_push: ClassVar[float] = 3.0
    #: a mafia bot presses a case the table rejected today only if this share voted yes
    press_share: ClassVar[float] = 0.4
    #: a player tried today is accused again only once suspicion of him rose this much
    retry_step: ClassVar[float] = 0.5
    #: a guard (doctor) with no believed investigator to protect guards itself up to this night
    self_guard_nights: ClassVar[int] = 2
    #: how much a mafia bot shies away from shooting a player its partners publicly pushed
    exposure_weight: ClassVar[float] = 1.0

    HANDLERS: ClassVar[dict[str, str]] = {
        "discussion": "discuss",
        "defence": "defend",
        "floor": "floor_speech",
        "last_words": "last_words",
        "verdict": "verdict",
        "vote": "vote",
        "night_kill": "shoot",
        "mafia_channel": "channel",
        "check": "check",
        "heal": "heal",
        "visit": "visit",
    }

    def __init__(self, memory: Memory, rng: random.Random, seed: int = 0) -> None:
        super().__init__(memory, rng, seed)
        self._tie_key: tuple = ()
        self._tie_order: dict[str, float] = {}
        self._display: dict[str, float] | None = None  # tie order of the suspects listed in a thought
        self._gut: dict[tuple[int, str], float] = {}
        self._accused: dict[str, int] = {}  # players I accused -> the day I last did
        self._stance: dict[tuple[int, str], bool] = {}  # (day, player) -> I spoke against him (else for him)
        self._claiming = False  # the speech being made carries my claim
        self._lean_figure = 0  # the case (or the gap to my top suspect) behind my latest lean, in tenths
        self.voice = say.Voice(rng, memory.me)
        self._tried: dict[tuple[int, str], float] = {}
        self._sus_version = -1
        self._stats: dict[int, tuple[object, tuple[float, float, float]]] = {}
        self.fake_checks: dict[str, str] = {}
        self._others: list[str] = []
        self._others_epoch = -1
        self._unconfirmed: list[str] = []
        self._unconfirmed_epoch = -1
        self.fake_day = -1
        self.rolled_fake_day = -1
        self._handlers: dict[str, Callable[[DayNightStrategy, DecisionRequest], ActionBase]] = {}

    def decide(self, request: DecisionRequest) -> ActionBase:
        if self.mem.dirty:
            self.mem.refresh()
        handler = self._handlers.get(request.group)
        if handler is None:
            name = self.HANDLERS.get(request.group)
            if name is None:
                return safe_action(request, self.rng)
            # looked up once per group; the class's function, not a bound method, which would
            # make every bot a reference cycle for the garbage collector
            handler = self._handlers[request.group] = getattr(type(self), name)
        return handler(self, request)

    # ---- shared helpers ------------------------------------------------------------------------
    def others(self) -> list[str]:
        """Living players other than me whom I do not know to be on my side (cached per epoch)."""
        mem = self.mem
        if self._others_epoch == mem.epoch:
            return self._others
        alive = mem.alive
        if mem.team == "mafia":
            partners = mem.partners
            found = [n for n in mem.seats if n in alive and n not in partners]
        else:
            me, anchor = mem.me, mem.anchor
            found = [n for n in mem.seats if n in alive and n != me and anchor.get(n, 0.0) > CONFIRMED]
        self._others, self._others_epoch = found, mem.epoch
        return found

    def unconfirmed(self) -> list[str]:
        """Living players not confirmed town: the pool a town voter weighs (cached per epoch)."""
        mem = self.mem
        if self._unconfirmed_epoch != mem.epoch:
            alive, anchor = mem.alive, mem.anchor
            self._unconfirmed = [n for n in mem.seats if n in alive and anchor.get(n, 0.0) > CONFIRMED]
            self._unconfirmed_epoch = mem.epoch
        return self._unconfirmed

    def sus(self) -> dict[str, float]:
        """Every seat's suspicion (:meth:`Memory.suspicion`, kept up to date by the memory); the
        statistics over pools are cached until the memory moves."""
        mem = self.mem
        if self._sus_version != mem.version:
            self._sus_version = mem.version
            self._stats = {}
        return mem.susp

    def stats(self, pool) -> tuple[float, float, float]:
        """Mean, spread (standard deviation, at least :data:`SPREAD_FLOOR`) and top of suspicion
        over ``pool`` (cached until the memory moves)."""
        mem = self.mem
        if self._sus_version != mem.version:
            self._sus_version = mem.version
            self._stats = {}
        sus = mem.susp
        cached = self._stats.get(id(pool))
        if cached is not None and cached[0] is pool:  # the cached pools (others()) are kept objects
            return cached[1]
        if not pool:
            found = (0.0, SPREAD_FLOOR, 0.0)
        else:
            total = squares = 0.0
            top = -math.inf
            for name in pool:
                v = sus[name]
                total += v
                squares += v * v
                if v > top:
                    top = v
            n = len(pool)
            mean = total / n
            found = (mean, max(SPREAD_FLOOR, math.sqrt(max(0.0, squares / n - mean * mean))), top)
        if len(self._stats) > 32:  # pools made for one question pile up while nothing moves
            self._stats.clear()
        self._stats[id(pool)] = (pool, found)
        return found

    def top_and_mean(self, pool: list[str]) -> tuple[float, float]:
        mean, _, top = self.stats(pool)
        return top, mean

    def tie_order(self) -> dict[str, float]:
        """My own seeded tie order at this moment (the day and night numbers): drawn with my rng,
        shared with nobody (partners agree only through what they all see)."""
        mem = self.mem
        key = (mem.day, mem.night)
        if key != self._tie_key:
            self._tie_order = priority(mem.seats, self.rng)
            self._tie_key = key
        return self._tie_order

    def most_suspicious(self, pool) -> str | None:
        """The top suspect of ``pool``; a tie drawn with my rng."""
        return best(pool, self.sus().__getitem__, self.rng)

    def team_lead(self, pool) -> str | None:
        """The player of ``pool`` the team's convention names: the latest accusation by any
        partner (bot or not) of a living outsider, else anyone's latest, else the first
        outsider to speak on the latest day one did (see :mod:`arena.players.convention`)."""
        mem = self.mem
        alive = [n for n in pool if n in mem.alive]
        return lead([(a, t) for a, t, _ in mem.accusations], mem.partners, alive, mem.pub.speakers)

    def least_suspicious(self, pool) -> str | None:
        sus = self.sus()
        return best(pool, lambda n: -sus[n], self.rng)

    def accusers_of(self, target: str) -> list[str]:
        """Who accused ``target`` today, first accuser first (only called when a bot speaks)."""
        mem = self.mem
        if target not in mem.accusers_today:
            return []
        day = mem.day
        out: list[str] = []
        for accuser, accused, when in reversed(mem.accusations):
            if when != day:
                break
            if accused == target and accuser not in out:
                out.append(accuser)
        return out[::-1]

    def living_partners(self) -> list[str]:
        mem = self.mem
        alive = mem.alive
        return [n for n in mem.seats if n in mem.partners and n in alive]

    def suspects_line(self, pool) -> str:
        sus, display = self.sus(), self._display
        if display is None:
            display = self._display = priority(self.mem.seats, self.rng)
        top = sorted(pool, key=lambda n: (-sus[n], display[n]))[:3]
        return ", ".join(f"{n} {sus[n]:+.1f}" for n in top)

    def mafia_line(self) -> str:
        mates = [n for n in self.living_partners() if n != self.mem.me]
        return "Mafia: " + (say.join_names(mates) + " and me." if mates else "just me.")

    # ---- claims --------------------------------------------------------------------------------
    def claim_for(self, req: DecisionRequest) -> tuple[Claim | None, str]:
        """A claim to make in this speech, with its words, or (None, "")."""
        if req.talk is None:
            return None, ""
        mem = self.mem
        if mem.is_mafia:
            return self.fake_claim(req)
        if mem.role in INVESTIGATORS:
            if not self.should_claim(req):
                return None, ""
            checks = {t: r for t, r in mem.my_checks.items() if r in ("mafia", "not mafia")}
            latest = next(reversed(mem.my_checks), None)
            text = self.voice.claim(mem.role, checks, latest)
            liars = [c for c in mem.claimers(frozenset({mem.role})) if c != mem.me and c in mem.alive]
            if liars:
                text += f" {say.join_names(liars)} lied about my card: that is the mafia."
            return Claim(role=mem.role, checks=checks), text
        if mem.role in PROTECTORS and req.group in ("defence", "last_words") and not mem.my_claimed:
            return Claim(role=mem.role), self.voice.claim(mem.role, {})
        return None, ""

    def should_claim(self, req: DecisionRequest) -> bool:
        """Hook: when a town investigator comes out (or updates its claim with new checks)."""
        mem = self.mem
        checks = mem.my_checks
        if mem.my_claimed:
            return bool(set(checks) - mem.my_claimed_checks)
        if req.group in ("defence", "last_words"):
            return True
        if any(c != mem.me for c in mem.claimers(frozenset({mem.role}))):
            return True
        if any(r == "mafia" and t in mem.alive for t, r in checks.items()):
            return True
        under_fire = mem.accusers_today.keys() | {mem.on_trial}
        if any(r == "not mafia" and t in under_fire and t in mem.alive for t, r in checks.items()):
            return True  # a player I cleared is accused: the town is about to lose a townsperson
        return bool(checks) and len(mem.alive) <= self.claim_when_alive

    def fake_claim(self, req: DecisionRequest) -> tuple[Claim | None, str]:
        """The designated mafia bot may pose as the investigator: to counter a real claim that
        exposed a partner, as a last gambit on trial, or now and then before anyone claimed."""
        mem = self.mem
        role = self.investigator
        partners = self.living_partners()
        if not partners or not mem.team_known:
            return None, ""
        if mem.my_claimed:
            return self.extend_fake(req)
        if any(p in mem.claims for p in mem.partners if p != mem.me):
            return None, ""  # one liar per team is plenty
        town_claimers = [c for c in mem.claimers() if c not in mem.partners and c in mem.alive]
        exposing = [c for c in town_claimers if any(mem.claims[c].checks.get(p) == "mafia" for p in partners)]
        exposed = {p for c in exposing for p in partners if mem.claims[c].checks.get(p) == "mafia"}
        # no secret designation: the first partner to speak after a real claim exposed one of us
        # counters it (speech is in turns, and one claim stops the others), and the dice for an
        # unprompted fake are split among the partners who may make it
        candidates = [p for p in partners if p not in exposed] or partners
        designated = mem.me if mem.me in candidates else None
        target: str | None = None
        if exposing and designated == mem.me:
            target = exposing[0]
        elif req.group == "defence" and not town_claimers:
            accuser = self.mem.last_accuser.get(mem.me)
            target = accuser if accuser not in mem.partners else None
        elif req.group == "last_words" and not town_claimers and len(partners) > 1:
            target = self.most_suspicious(list(self.others()))
        elif not mem.claimers() and designated == mem.me and mem.day >= 2 and self.rolled_fake_day != mem.day:
            self.rolled_fake_day = mem.day  # one roll of the dice a day
            if self.rng.random() < self.fake_claim_chance / len(candidates):
                target = self.most_suspicious(self.others())
        if target is None:
            return None, ""
        if len(self.fake_checks) < mem.mornings:
            self.fake_checks[target] = "mafia"  # never more checks than nights so far: that is a tell
        self.fake_day = mem.day
        return Claim(role=role, checks=dict(self.fake_checks)), self.voice.claim(role, self.fake_checks, target)

    def extend_fake(self, req: DecisionRequest) -> tuple[Claim | None, str]:
        """A fake investigator 'checks' someone new each day, like the real one would."""
        mem = self.mem
        if self.fake_day == mem.day or len(self.fake_checks) >= mem.mornings:
            return None, ""
        pool = [n for n in self.others() if n not in self.fake_checks]
        target = self.most_suspicious(pool)
        if target is None:
            return None, ""
        self.fake_checks[target] = "mafia"
        self.fake_day = mem.day
        return Claim(role=self.investigator, checks=dict(self.fake_checks)), self.voice.claim(
            self.investigator, self.fake_checks, target
        )

    # ---- talking -------------------------------------------------------------------------------
    def accuse_field(self, req: DecisionRequest) -> str | None:
        option = req.option("speak")
        if option is None:
            return None
        for name in ("accuse", "nominate"):
            if name in option.fields:
                return name
        return None

    def urgency(self, req: DecisionRequest) -> float:
        """How far the day's talk has run, 0 at its start to 1 at its last turn (the clock)."""
        clock = req.clock
        if clock is None or clock.total <= 0:
            return 0.0
        return 1.0 - clock.left / clock.total

    def holds_fire(self, req: DecisionRequest, target: str | None) -> bool:
        """Hook: does a bot keep an accusation of ``target`` to itself on this turn for want of
        information? (``classic``: until every living seat has had its turn.)"""
        return False

    def wants_to_accuse(self, req: DecisionRequest, target: str, standout: float) -> bool:
        """Hook: does a town bot accuse ``target`` on this discussion turn? A seeded draw, likelier
        the more the target stands out (in spreads of suspicion) and the later in the day."""
        x = self.accuse_gain * standout + self.accuse_bias + self.accuse_urgency * self.urgency(req)
        return self.rng.random() < logistic(x)

    def last_yes_share(self, name: str) -> float:
        """The share of yes in today's latest ballot on ``name`` (0 if none)."""
        mem = self.mem
        for b in reversed(mem.ballots):
            if b.day != mem.day:
                break
            if b.accused == name:
                voters = len(b.yes) + len(b.no)
                return len(b.yes) / voters if voters else 0.0
        return 0.0

    def tried_without_news(self, name: str) -> bool:
        """Was ``name`` tried today, and has my suspicion of him not risen since (by
        :attr:`retry_step`)? Such a charge would only get the same answer again."""
        mem = self.mem
        if name not in mem.pub.tried_today:
            return False
        day = mem.day
        for b in reversed(mem.ballots):
            if b.day != day:
                return False
            if b.accused == name:
                key = (day, name)
                now = mem.suspicion(name)
                then = self._tried.setdefault(key, now)
                return now < then + self.retry_step
        return False

    def discuss(self, req: DecisionRequest) -> ActionBase:
        if req.option("speak") is None:
            return safe_action(req, self.rng)
        mem = self.mem
        field = self.accuse_field(req)
        pool = choices(req, "speak", field) if field else ()
        must = field is not None and not nullable(req, "speak", field)
        claim, claim_line = self.claim_for(req)
        self._claiming = claim is not None
        if mem.is_mafia:
            target, line, thought = self.mafia_accusation(req, pool, must)
        else:
            target, line, thought = self.town_accusation(req, pool, must)
        text = f"{claim_line} {line}".strip() if claim_line else line
        values = {field: target} if field and target is not None else {}
        return Speak(speech=text[: req.max_speech], claim=claim, thought=thought, **values)

    def town_accusation(self, req: DecisionRequest, pool, must: bool) -> tuple[str | None, str, str]:
        mem = self.mem
        cands = [n for n in pool if not mem.confirmed_town(n)] or list(pool)
        known_mafia = [n for n in cands if mem.anchor.get(n, 0.0) >= 0.99]
        fresh = [n for n in cands if not self.tried_without_news(n)]
        target = self.most_suspicious(known_mafia or fresh or cands)
        if target is None:
            return None, self.voice.idle(None, votes_seen=bool(mem.ballots)), f"{mem.role}: nobody to accuse."
        top = self.sus()[target]
        standout = self.case_against(target, None, cands)
        thought = f"{mem.role.capitalize()}. Suspects: {self.suspects_line(cands)}."
        if not must and not known_mafia and self.holds_fire(req, target):
            suspect = target if top > 0.5 else None
            return None, self.voice.idle(suspect, votes_seen=bool(mem.ballots)), thought + " Everyone speaks first."
        if not must and not known_mafia and not (fresh and self.wants_to_accuse(req, target, standout)):
            suspect = target if top > 0.5 else None  # hedged words ("not ready to accuse"): no stance
            return None, self.voice.idle(suspect, votes_seen=bool(mem.ballots)), thought + " Waiting."
        seconded = [a for a in self.accusers_of(target) if a != mem.me]
        self.take_stance(target, against=True)
        return target, self.accusation_text(target, mem.reasons(target), seconded), thought + f" Accusing {target}."

    def accusation_text(self, target: str, reasons: list[tuple], seconded: list[str]) -> str:
        """The words of my accusation of ``target``, and a note that I made it (to say "still"
        rather than start over when I name the same player again)."""
        mem = self.mem
        if self._claiming:  # my claim in this speech already states my checks
            reasons = [r for r in reasons if not (r[0] == "claimed_check" and r[1] == mem.me)]
        before = self._accused.get(target)
        again = before is not None and mem.day - before <= 1
        self._accused[target] = mem.day
        return self.voice.accuse(target, reasons, seconded, opened=bool(mem.accusers_today), again=again, claimed=self._claiming)

    def mafia_target(self, pool) -> str | None:
        """The town player a mafia bot pushes today: whoever accuses an endangered partner,
        else the town's own favourite suspect (the public model), the same for every partner."""
        mem = self.mem
        if claim_target := next((t for t in self.fake_checks if t in pool), None):
            return claim_target
        order = self.tie_order()
        for partner in sorted(self.living_partners(), key=order.__getitem__):
            today = mem.accusers_today.get(partner, ())
            accusers = [a for a in pool if a in today]
            if accusers:
                return self.most_suspicious(accusers)
        # a believed investigator is the team's worst danger: accusing him also names him as
        # tonight's shot by the team's convention
        claimers = [c for c in mem.claimers() if c in pool and c not in mem.partners and mem.claims[c].role in INVESTIGATORS]
        if claimers:
            return self.most_suspicious(claimers)
        return self.most_suspicious([n for n in pool if n not in mem.partners])

    def mafia_accusation(self, req: DecisionRequest, pool, must: bool) -> tuple[str | None, str, str]:
        mem = self.mem
        target = self.mafia_target(pool)
        if target is None and must and pool:
            target = min(pool, key=self.tie_order().__getitem__)
        if target is None:
            return None, self.voice.idle(None, votes_seen=bool(mem.ballots)), self.mafia_line() + " Nobody to push."
        reasons = mem.reasons(target)
        thought = f"{self.mafia_line()} Pushing suspicion on {target}."
        if not must and self.holds_fire(req, target):
            return None, self.voice.idle(None, votes_seen=bool(mem.ballots)), thought + " Everyone speaks first."
        if not must and not self.mafia_wants_to_accuse(req, target):
            return None, self.voice.idle(target, votes_seen=bool(mem.ballots)), thought + " Quietly."
        self.take_stance(target, against=True)
        seconded = [a for a in self.accusers_of(target) if a not in mem.partners]
        return target, self.accusation_text(target, reasons, seconded), thought

    def mafia_wants_to_accuse(self, req: DecisionRequest, target: str) -> bool:
        """Hook: does a mafia bot accuse ``target`` on this discussion turn? As a townsperson would
        on the public case among the town, but keener (a trial of a townsperson is what it
        wants); a trial the table rejected today is pressed again only if it came close."""
        if self.tried_without_news(target) and self.last_yes_share(target) < self.press_share:
            return False
        standout = self.case_against(target, None, self.others())
        x = self.accuse_gain * standout + self.accuse_bias + self.mafia_push + self.accuse_urgency * self.urgency(req)
        return self.rng.random() < logistic(x)

    def defend(self, req: DecisionRequest) -> ActionBase:
        if req.option("speak") is None:
            return safe_action(req, self.rng)
        mem = self.mem
        claim, claim_line = self.claim_for(req)
        accuser = self.mem.last_accuser.get(mem.me)
        if mem.is_mafia:
            counter = accuser if accuser is not None and accuser not in mem.partners else self.mafia_target(self.others())
            reasons: list[tuple] = []
            thought = f"{self.mafia_line()} Deny and turn it on {counter}."
        else:
            pool = list(self.others())
            counter = accuser if accuser is not None and not mem.confirmed_town(accuser) else self.most_suspicious(pool)
            reasons = mem.reasons(counter) if counter else []
            thought = f"{mem.role.capitalize()} on trial. Suspects: {self.suspects_line(pool)}."
        text = self.voice.defence(counter, reasons)
        if counter is not None:
            self.take_stance(counter, against=True)
        if claim_line:
            text = f"{claim_line} {text}"
        return Speak(speech=text[: req.max_speech], claim=claim, floor=self.floor_for(req), thought=thought)

    def floor_for(self, req: DecisionRequest) -> tuple[str, ...]:
        """A living player who trusts me (voted to spare me today) and whom I trust more than
        most (the least suspicious such), or nobody: a doubtful friend's word saves nobody."""
        option = req.option("speak")
        spec = option.fields.get("floor") if option is not None else None
        if spec is None or not spec.max_items or not spec.choices:
            return ()
        mem = self.mem
        friends = [n for n in mem.voted_no_on(mem.me, mem.day) if n in spec.choices and n != mem.me]
        if mem.is_mafia:
            friends = [n for n in friends if n not in mem.partners]  # a partner on the floor is a tell
        if friends:
            mean, _, _ = self.stats(self.others())
            sus = mem.susp
            friends = [n for n in friends if sus[n] < mean]
        pick = self.least_suspicious(friends)
        return (pick,) if pick is not None else ()

    def floor_speech(self, req: DecisionRequest) -> ActionBase:
        mem = self.mem
        accused = req.info.get("accused") or mem.on_trial
        if accused is None or req.option("speak") is None:
            return safe_action(req, self.rng)
        claim, claim_line = self.claim_for(req)
        if mem.is_mafia:
            # a partner the team buses anyway (see mafia_verdict) gets no word of support first
            believe = accused in mem.partners and not (self.doomed(accused, "execution") and len(self.living_partners()) >= 2)
        else:
            _, mean = self.top_and_mean(self.others())
            anchor = mem.anchor.get(accused, 0.0)
            # what I know outright decides my vote (town_verdict), so it decides my words too
            believe = anchor <= CONFIRMED or (anchor < SURE and self.sus()[accused] < mean)
        text = self.voice.floor(accused, believe)
        self.take_stance(accused, against=not believe)
        if claim_line:
            text = f"{claim_line} {text}"
        return Speak(speech=text[: req.max_speech], claim=claim, thought=f"{'Back' if believe else 'Doubt'} {accused}.")

    def last_words(self, req: DecisionRequest) -> ActionBase:
        if req.option("speak") is None:
            return safe_action(req, self.rng)
        mem = self.mem
        claim, claim_line = self.claim_for(req)
        if mem.is_mafia:
            suspect = self.mafia_target(self.others())
            thought = f"{self.mafia_line()} Leaving them {suspect}."
        else:
            suspect = self.most_suspicious(list(self.others()))
            thought = f"{mem.role.capitalize()}, out. Suspects: {self.suspects_line(self.others())}."
        text = self.voice.last_words(suspect)
        if claim_line:
            text = f"{claim_line} {text}"
        return Speak(speech=text[: req.max_speech], claim=claim, thought=thought)

    # ---- weighing a case ------------------------------------------------------------------------
    def case_against(self, accused: str, accuser: str | None, pool) -> float:
        """How strong the case against ``accused`` looks, in spreads of suspicion over ``pool``:
        how far the accused stands above the mean, less a share of how far the accuser does (a
        suspect's accusation is worth less), plus a bonus when the accuser is known town."""
        mem = self.mem
        sus = mem.susp
        mean, spread, _ = self.stats(pool)
        case = (sus[accused] - mean) / spread
        if accuser is not None and accuser != mem.me and accuser != accused:
            if mem.anchor.get(accuser, 0.0) <= CONFIRMED:
                case += self.trusted_accuser
            else:
                case -= self.accuser_weight * (sus[accuser] - mean) / spread
        return case

    def take_stance(self, name: str, *, against: bool) -> None:
        """Note what my speech said about ``name`` today, so that my vote on him agrees with it
        (a town bot means what it says; a mafia bot's vote may belie it, and its thought says so)."""
        stance = self._stance
        if len(stance) > 64:
            stance.clear()
        stance[(self.mem.day, name)] = against

    def gut(self, accused: str) -> float:
        """My seeded doubt about ``accused`` today, uniform in [0, 1): drawn once per day and
        accused, so that my charge and execution votes agree, and a charge brought again gets
        the same answer unless the evidence moved."""
        key = (self.mem.day, accused)
        u = self._gut.get(key)
        if u is None:
            if len(self._gut) > 64:
                self._gut.clear()
            u = self._gut[key] = self.rng.random()
        return u

    def accuser_of(self, accused: str) -> str | None:
        return self.mem.last_accuser.get(accused)

    # ---- voting --------------------------------------------------------------------------------
    def verdict(self, req: DecisionRequest) -> ActionBase:
        if req.option("verdict") is None:
            return safe_action(req, self.rng)
        mem = self.mem
        accused = req.info.get("accused") or mem.on_trial
        kind = req.info.get("vote", "execution")
        if accused is None:
            return Verdict(yes=False, thought="No idea what this vote is about.")
        if kind == "charge" and mem.last_accuser.get(accused) == mem.me:
            yes, why = True, "my own accusation"
        else:
            p, why = self.mafia_verdict(accused, kind) if mem.team == "mafia" else self.town_verdict(accused, kind)
            u = self._gut.get((mem.day, accused))
            yes = (self.gut(accused) if u is None else u) < p
            if why is None:  # the lean's figures: rounded here, written out only for a new Verdict
                why = (self._lean_figure, round(p * 100))  # a percentage
        if mem.team == "mafia" and self._stance.get((mem.day, accused), yes) != yes:
            said = "against" if not yes else "for"
            why = f"{why[1]}% yes" if isinstance(why, tuple) else why
            why = f"{why}; a lie: I spoke {said} {accused} today"
        key = (kind, accused, yes, why)
        action = VERDICTS.get(key)
        if action is None:  # actions are immutable: equal votes share one instance
            if len(VERDICTS) > 4096:
                VERDICTS.clear()
            if isinstance(why, tuple):
                tenths, percent = why
                why = (
                    f"case {tenths / 10:+.1f}, yes {percent}%"
                    if kind == "charge"
                    else f"{tenths / 10:.1f} below my top suspect, yes {percent}%"
                )
            action = VERDICTS[key] = Verdict(yes=yes, thought=f"{kind} {accused}: {why}")
        return action

    def lean(self, accused: str, kind: str, pool) -> float:
        """P(yes) on ``accused`` over ``pool``: on a charge from the case against him, on an
        execution from how close he comes to my top suspect (the figure is kept for the thought)."""
        if kind == "charge":
            case = self.case_against(accused, self.mem.last_accuser.get(accused), pool)
            self._lean_figure = round(case * 10)  # tenths, an int: no "-0.0", and round(x, 1) is slow
            return logistic(self.verdict_gain * case + self.charge_bias)
        s = self.mem.susp[accused]
        _, spread, top = self.stats(pool) if pool else (0.0, SPREAD_FLOOR, s)
        self._lean_figure = round((top - s) * 10)
        return logistic(self.execute_gain * (s - top + self.execute_margin) / spread)

    def town_verdict(self, accused: str, kind: str) -> tuple[float, str | None]:
        """P(yes) and why (None: the lean's figures)."""
        mem = self.mem
        if accused == mem.me:
            return 0.0, "that is me"
        anchor = mem.anchor.get(accused, 0.0)
        if anchor <= CONFIRMED:
            return 0.0, "known town"
        if anchor >= SURE:
            return 1.0, "I am sure"
        against = self._stance.get((mem.day, accused))
        if against is not None:  # I said where I stand today: my vote says the same
            return (1.0, "as I said today") if against else (0.0, "I spoke for him today")
        return self.lean(accused, kind, self.others()), None

    def doomed(self, partner: str, kind: str) -> bool:
        """Is a partner going out whatever I vote (the town believes a check against him)?"""
        mem = self.mem
        if mem.anchor.get(partner, 0.0) >= 0.8:
            return True
        if kind != "charge":
            for b in reversed(mem.ballots):
                if b.accused == partner and b.day == mem.day:
                    return b.vote == "charge" and len(b.yes) >= 0.75 * (len(b.yes) + len(b.no))
        return False

    def mafia_verdict(self, accused: str, kind: str) -> tuple[float, str | None]:
        mem = self.mem
        if accused == mem.me:
            return 0.0, "that is me"
        against = self._stance.get((mem.day, accused))
        if against is not None:  # words and vote agree in public, whatever I am (issue 30.10)
            return (1.0, "as I said today") if against else (0.0, "I spoke for him today")
        if accused in mem.partners:
            # bus a doomed partner only when it buys credit for another living partner
            if self.doomed(accused, kind) and len(self.living_partners()) >= 2:
                return 1.0, "a partner, lost anyway"
            return 0.0, "a partner"
        # a townsperson: vote as the town would on what the town can know, to blend in (a yes
        # where the town says no is the loudest tell a mafia bot can give), leaning a little to yes
        if mem.confirmed_town(accused):
            return 0.0, "known town"
        return logistic(logit(self.lean(accused, kind, self.others())) + self.mafia_lean), None

    def vote(self, req: DecisionRequest) -> ActionBase:
        mem = self.mem
        cands = choices(req, "vote", "target")
        if not cands:
            return safe_action(req, self.rng)
        mine = mem.partners if mem.is_mafia else frozenset((mem.me,))
        if all(c in mine for c in cands) and nullable(req, "vote", "target"):
            return Vote(target=None, thought=f"Of {say.join_names(list(cands))}: none I would vote out. Abstaining.")
        if mem.is_mafia:
            town = [c for c in cands if c not in mem.partners]
            said = [c for c in town if self._stance.get((mem.day, c))]
            if said:  # the one I nominated or accused today: my vote says what my words said
                target = self.most_suspicious(said)
            else:
                target = self.team_lead(town) or self.most_suspicious(town or [c for c in cands if c != mem.me] or cands)
            thought = f"{self.mafia_line()} Voting {target}."
        else:
            pool = [c for c in cands if c != mem.me and not mem.confirmed_town(c)] or [c for c in cands if c != mem.me]
            # what I said today stands: a candidate I spoke against first, never one I spoke for
            said = {c: self._stance.get((mem.day, c)) for c in pool}
            pool = [c for c in pool if said[c]] or [c for c in pool if said[c] is None] or pool
            target = self.most_suspicious(pool or list(cands))
            why = "as I said today" if said.get(target) else "most suspicious"
            thought = f"Of {say.join_names(list(cands))}: {target}, {why}."
        return Vote(target=target, thought=thought)

    # ---- night ---------------------------------------------------------------------------------
    def danger_ranking(self, pool) -> list[str]:
        """Town players from most to least worth shooting, from public facts only: a channel's
        first pointer's choice, a mistress's visit, and a shot the convention leaves open.

        Worth = danger (a claimed role, votes and accusations against partners, the town's
        trust) minus exposure: how much a victim's death as a townsperson would incriminate the
        partners who voted against or accused him. Accusations made before any night or claim
        are guesses and show no danger (counting them would mark whoever speaks first on day
        1). Ties go by my own seeded order: the team agrees through the convention, not this.
        """
        mem = self.mem
        partners = mem.partners
        living = self.living_partners()
        against: dict[str, int] = {}  # a plain dict: a Counter's update and += cost more here
        for b in mem.ballots:
            if b.accused in partners:
                for voter in b.yes:
                    against[voter] = against.get(voter, 0) + 1
        for accuser, accused, _ in mem.accusations[mem.blind :]:  # a blind guess shows no danger
            if accused in partners:
                against[accuser] = against.get(accuser, 0) + 1
        failed = mem.failed_targets[-1:] if mem.failed_targets else []
        sus = self.sus()
        claims, row_of, exposure_weight = mem.claims, mem.pub.row, self.exposure_weight
        worth: dict[str, float] = {}
        for name in pool:
            if name in partners:
                continue
            info = claims.get(name)
            d = 0.0
            if info is not None and info.role in INVESTIGATORS:
                d += 100.0
            elif info is not None and info.role in PROTECTORS:
                d += 50.0
            if name in failed:
                d -= 80.0  # protected last night: try someone else
            row = row_of(name)
            exposure = sum([max(0.0, -row.get(p, 0.0)) for p in living])
            worth[name] = d + 0.5 * against.get(name, 0) - sus[name] - exposure_weight * exposure
        return ranking(worth, worth.__getitem__, self.tie_order())

    def shoot(self, req: DecisionRequest) -> ActionBase:
        mem = self.mem
        pool = choices(req, "kill", "target")
        if not mem.is_mafia:
            # a town player asked to kill (a vigilante-like role): the top suspect, if any
            target = self.most_suspicious([n for n in pool if not mem.confirmed_town(n)])
            if target is None and not nullable(req, "kill", "target"):
                return safe_action(req, self.rng)
            return Kill(target=target, thought=f"Shooting my top suspect {target}.")
        target = self.team_lead(pool)
        if target is not None:
            return Kill(target=target, thought=f"{self.mafia_line()} Shooting {target}: our latest accusation.")
        ranking = self.danger_ranking(pool)  # nobody accused yet: no convention to follow
        if not ranking:
            if nullable(req, "kill", "target"):
                return Kill(target=None, thought="No town player to shoot.")
            return safe_action(req, self.rng)
        target = ranking[0]
        return Kill(target=target, thought=f"{self.mafia_line()} Nobody accused yet; shooting {target}, the most dangerous.")

    def channel(self, req: DecisionRequest) -> ActionBase:
        """The mafia's night channel: follow the partners who spoke first tonight."""
        mem = self.mem
        pool = choices(req, "kill", "target")
        if not pool:
            return safe_action(req, self.rng)
        rnd = req.info.get("round")
        tonight = [(a, t, r) for a, t, _, r in mem.channel if t in pool]
        this_round = [t for _, t, r in tonight if r == rnd]
        if this_round:
            counts = Counter(this_round)
            top = max(counts.values())
            target = next(t for t in this_round if counts[t] == top)  # a tie: the earliest pointing
            following = True
        elif tonight:
            target = tonight[0][1]  # the first pointing of the night wins a disagreement
            following = True
        else:
            ranked = self.danger_ranking(pool)
            target = ranked[0] if ranked else draw(pool, self.rng)
            following = False
        why = ""
        info = mem.claims.get(target)
        if not following and info is not None and info.role and req.talk:
            why = self.voice.claimed(target, info.role)
        text = self.voice.channel(target, following, why) if req.talk else None
        return Kill(target=target, speech=text, thought=f"{self.mafia_line()} Tonight: {target}.")

    def check(self, req: DecisionRequest) -> ActionBase:
        mem = self.mem
        pool = choices(req, "check", "target")
        if not pool:
            return safe_action(req, self.rng)
        unchecked = [n for n in pool if n not in mem.my_checks]
        if mem.is_mafia:
            cands = [n for n in unchecked if n not in mem.partners] or list(pool)
        else:
            cands = [n for n in unchecked if not mem.confirmed_town(n)] or unchecked or list(pool)
        target = self.most_suspicious(cands)
        return CheckAction(target=target, thought=f"Checking {target}. Suspects: {self.suspects_line(cands)}.")

    def protect_target(self, pool, *, self_ok: bool) -> str | None:
        """Whom to guard: a believed investigator, else myself early on, else the most trusted."""
        mem = self.mem
        for c in mem.claimers():
            if c in pool and c != mem.me and mem.anchor.get(c, 0.0) < 0:
                return c
        if self_ok and mem.me in pool and mem.night <= self.self_guard_nights:
            return mem.me
        friends = [n for n in pool if n != mem.me]
        return self.least_suspicious(friends) or draw(pool, self.rng)

    def heal(self, req: DecisionRequest) -> ActionBase:
        pool = choices(req, "heal", "target")
        target = self.protect_target(pool, self_ok=True)
        if target is None:
            return safe_action(req, self.rng)
        return Heal(target=target, thought=f"Guarding {target}.")

    def visit(self, req: DecisionRequest) -> ActionBase:
        pool = choices(req, "visit", "target")
        mem = self.mem
        target = next(iter(self.danger_ranking(pool)), None) if mem.is_mafia else self.protect_target(pool, self_ok=False)
        if target is None:
            return safe_action(req, self.rng)
        return Visit(target=target, thought=f"Visiting {target}.")
