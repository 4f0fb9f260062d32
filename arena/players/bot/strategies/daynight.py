"""The shared brain of the day/night variants, dispatched on the request's ``group``.

Town plays the suspicion model of :class:`Memory`: accuse and vote out the most suspicious,
never a confirmed townsperson; the investigator checks the most suspicious unchecked player and
comes out when it found mafia, when it is about to die, when someone else claims its card, or late.
Mafia plays the *public* model (what the town can know): it piles onto the town's favourite
town suspect, never votes out a partner unless he is doomed anyway, shoots the most dangerous
town player by a ranking every partner computes identically, and may fake-claim the
investigator's card at a sensible moment.

Variants subclass this and adjust the class attributes and the few hooks marked as such.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import ClassVar

from arena.engine import ActionBase, DecisionRequest
from arena.engine.actions import Check as CheckAction
from arena.engine.actions import Claim, Heal, Kill, Speak, Verdict, Visit, Vote

from .. import speech as say
from ..legal import choices, nullable, safe_action
from ..memory import ANCHOR_WEIGHT, INVESTIGATORS, PROTECTORS, Memory
from .base import Strategy

EPS = 1e-9
#: (vote, accused, yes, suspicion) -> the Verdict, shared by every bot (votes are most decisions)
VERDICTS: dict[tuple, Verdict] = {}


class DayNightStrategy(Strategy):
    """Mafia-family play for any variant built from the shared decision groups."""

    variant: ClassVar[str] = "day_night"
    #: the investigating role of this variant (the card a mafia bot may fake)
    investigator: ClassVar[str] = "inspector"
    #: an investigator comes out at this many living players, whatever it found
    claim_when_alive: ClassVar[int] = 7
    #: chance per day that the designated mafia bot fakes the investigator with nobody claimed yet
    fake_claim_chance: ClassVar[float] = 0.2
    #: an execution vote passes for a town bot if the accused is this close to its top suspect
    execute_margin: ClassVar[float] = 0.6
    #: a charge vote passes for a town bot if the accused is this close to the mean suspicion
    charge_margin: ClassVar[float] = 0.0
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

    def __init__(self, memory: Memory, rng: random.Random) -> None:
        super().__init__(memory, rng)
        self.fake_checks: dict[str, str] = {}
        self._others: list[str] = []
        self._others_epoch = -1
        self._unconfirmed: list[str] = []
        self._unconfirmed_epoch = -1
        self.fake_day = -1
        self.rolled_fake_day = -1

    def decide(self, request: DecisionRequest) -> ActionBase:
        if self.mem.dirty:
            self.mem.refresh()
        name = self.HANDLERS.get(request.group)
        if name is None:
            return safe_action(request, self.rng)
        return getattr(self, name)(request)

    # ---- shared helpers ------------------------------------------------------------------------
    def others(self) -> list[str]:
        """Living players other than me whom I do not know to be on my side (cached per epoch)."""
        mem = self.mem
        if self._others_epoch == mem.epoch:
            return self._others
        alive = mem.alive
        if mem.is_mafia:
            found = [n for n in mem.seats if n in alive and n not in mem.partners]
        else:
            found = [n for n in mem.seats if n in alive and n != mem.me and not mem.confirmed_town(n)]
        self._others, self._others_epoch = found, mem.epoch
        return found

    def unconfirmed(self) -> list[str]:
        """Living players not confirmed town: the pool a town voter weighs (cached per epoch)."""
        mem = self.mem
        if self._unconfirmed_epoch != mem.epoch:
            alive = mem.alive
            self._unconfirmed = [n for n in mem.seats if n in alive and not mem.confirmed_town(n)]
            self._unconfirmed_epoch = mem.epoch
        return self._unconfirmed

    def top_and_mean(self, pool: list[str]) -> tuple[float, float]:
        if not pool:
            return 0.0, 0.0
        anchor, term = self.mem.anchor, self.mem.term
        values = [ANCHOR_WEIGHT * anchor.get(n, 0.0) + term.get(n, 0.0) for n in pool]
        return max(values), sum(values) / len(values)

    def most_suspicious(self, pool, *, seat_ties: bool = False) -> str | None:
        """The top suspect of ``pool``; ties broken by my rng (town) or by seat (shared, mafia)."""
        if not pool:
            return None
        sus = self.mem.suspicion
        best: list[str] = []
        top = -1e9
        for name in pool:
            s = sus(name)
            if s > top + EPS:
                top, best = s, [name]
            elif s > top - EPS:
                best.append(name)
        if seat_ties or len(best) == 1:
            return best[0]
        return best[self.rng.randrange(len(best))]

    def least_suspicious(self, pool) -> str | None:
        if not pool:
            return None
        sus = self.mem.suspicion
        return min(pool, key=lambda n: (sus(n), self.mem.seat_index.get(n, 0)))

    def living_partners(self) -> list[str]:
        mem = self.mem
        alive = mem.alive
        return [n for n in mem.seats if n in mem.partners and n in alive]

    def suspects_line(self, pool) -> str:
        ranked = self.mem.ranked(pool)[:3]
        return ", ".join(f"{n} {s:+.1f}" for s, n in ranked)

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
            text = say.claim_text(self.rng, mem.role, checks, latest)
            liars = [c for c in mem.claimers(frozenset({mem.role})) if c != mem.me and c in mem.alive]
            if liars:
                text += f" {say.join_names(liars)} lied about my card: that is the mafia."
            return Claim(role=mem.role, checks=checks), text
        if mem.role in PROTECTORS and req.group in ("defence", "last_words") and not mem.my_claimed:
            return Claim(role=mem.role), say.claim_text(self.rng, mem.role, {})
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
        designated = next((p for p in partners if p not in exposed), partners[0])
        target: str | None = None
        if exposing and designated == mem.me:
            target = exposing[0]
        elif req.group == "defence" and not town_claimers:
            accuser = self.mem.last_accuser.get(mem.me)
            target = accuser if accuser not in mem.partners else None
        elif req.group == "last_words" and not town_claimers and len(partners) > 1:
            target = self.most_suspicious(list(self.others()), seat_ties=True)
        elif not mem.claimers() and designated == mem.me and mem.day >= 2 and self.rolled_fake_day != mem.day:
            self.rolled_fake_day = mem.day  # one roll of the dice a day
            if self.rng.random() < self.fake_claim_chance:
                target = self.most_suspicious(self.others(), seat_ties=True)
        if target is None:
            return None, ""
        if len(self.fake_checks) < mem.mornings:
            self.fake_checks[target] = "mafia"  # never more checks than nights so far: that is a tell
        self.fake_day = mem.day
        return Claim(role=role, checks=dict(self.fake_checks)), say.claim_text(self.rng, role, self.fake_checks, target)

    def extend_fake(self, req: DecisionRequest) -> tuple[Claim | None, str]:
        """A fake investigator 'checks' someone new each day, like the real one would."""
        mem = self.mem
        if self.fake_day == mem.day or len(self.fake_checks) >= mem.mornings:
            return None, ""
        pool = [n for n in self.others() if n not in self.fake_checks]
        target = self.most_suspicious(pool, seat_ties=True)
        if target is None:
            return None, ""
        self.fake_checks[target] = "mafia"
        self.fake_day = mem.day
        return Claim(role=self.investigator, checks=dict(self.fake_checks)), say.claim_text(
            self.rng, self.investigator, self.fake_checks, target
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

    def wants_to_accuse(self, req: DecisionRequest, top: float) -> bool:
        """Hook: does a town bot accuse on this discussion turn (given its top suspicion)?"""
        return True

    def discuss(self, req: DecisionRequest) -> ActionBase:
        if req.option("speak") is None:
            return safe_action(req, self.rng)
        mem = self.mem
        field = self.accuse_field(req)
        pool = choices(req, "speak", field) if field else ()
        must = field is not None and not nullable(req, "speak", field)
        claim, claim_line = self.claim_for(req)
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
        target = self.most_suspicious(known_mafia or cands)
        if target is None:
            return None, say.idle_text(self.rng, None), f"{mem.role}: nobody to accuse."
        top = mem.suspicion(target)
        thought = f"{mem.role.capitalize()}. Suspects: {self.suspects_line(cands)}."
        if not must and not self.wants_to_accuse(req, top):
            return None, say.idle_text(self.rng, target if top > 0.5 else None), thought + " Waiting."
        seconded = sorted(mem.accusers_today.get(target, set()) - {mem.me}, key=mem.seat_index.__getitem__)
        text = say.accuse_text(self.rng, target, mem.reasons(target), seconded)
        return target, text, thought + f" Accusing {target}."

    def mafia_target(self, pool) -> str | None:
        """The town player a mafia bot pushes today: whoever accuses an endangered partner,
        else the town's own favourite suspect (the public model), the same for every partner."""
        mem = self.mem
        if claim_target := next((t for t in self.fake_checks if t in pool), None):
            return claim_target
        for partner in self.living_partners():
            today = mem.accusers_today.get(partner, ())
            accusers = [a for a in pool if a in today]
            if accusers:
                return self.most_suspicious(accusers, seat_ties=True)
        return self.most_suspicious([n for n in pool if n not in mem.partners], seat_ties=True)

    def mafia_accusation(self, req: DecisionRequest, pool, must: bool) -> tuple[str | None, str, str]:
        mem = self.mem
        target = self.mafia_target(pool)
        if target is None and must and pool:
            target = pool[0]
        if target is None:
            return None, say.idle_text(self.rng, None), self.mafia_line() + " Nobody to push."
        reasons = mem.reasons(target)
        thought = f"{self.mafia_line()} Pushing suspicion on {target}."
        if not must and not self.mafia_wants_to_accuse(req):
            return None, say.idle_text(self.rng, target), thought + " Quietly."
        seconded = sorted(mem.accusers_today.get(target, set()) - mem.partners, key=mem.seat_index.__getitem__)
        return target, say.accuse_text(self.rng, target, reasons, seconded), thought

    def mafia_wants_to_accuse(self, req: DecisionRequest) -> bool:
        """Hook: does a mafia bot accuse on this discussion turn?"""
        return True

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
        text = say.defence_text(self.rng, counter, reasons)
        if claim_line:
            text = f"{claim_line} {text}"
        return Speak(speech=text[: req.max_speech], claim=claim, floor=self.floor_for(req), thought=thought)

    def floor_for(self, req: DecisionRequest) -> tuple[str, ...]:
        """One living player who trusts me (voted to spare me today), or nobody."""
        option = req.option("speak")
        spec = option.fields.get("floor") if option is not None else None
        if spec is None or not spec.max_items or not spec.choices:
            return ()
        mem = self.mem
        friends = [n for n in mem.voted_no_on(mem.me, mem.day) if n in spec.choices and n != mem.me]
        if mem.is_mafia:
            friends = [n for n in friends if n not in mem.partners]  # a partner on the floor is a tell
        pick = self.least_suspicious(friends)
        return (pick,) if pick is not None else ()

    def floor_speech(self, req: DecisionRequest) -> ActionBase:
        mem = self.mem
        accused = req.info.get("accused") or mem.on_trial
        if accused is None or req.option("speak") is None:
            return safe_action(req, self.rng)
        claim, claim_line = self.claim_for(req)
        if mem.is_mafia:
            believe = accused in mem.partners
        else:
            _, mean = self.top_and_mean(self.others())
            believe = mem.suspicion(accused) < mean
        text = say.floor_text(self.rng, accused, believe)
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
        text = say.last_words_text(self.rng, suspect)
        if claim_line:
            text = f"{claim_line} {text}"
        return Speak(speech=text[: req.max_speech], claim=claim, thought=thought)

    # ---- voting --------------------------------------------------------------------------------
    def verdict(self, req: DecisionRequest) -> ActionBase:
        if req.option("verdict") is None:
            return safe_action(req, self.rng)
        mem = self.mem
        accused = req.info.get("accused") or mem.on_trial
        kind = req.info.get("vote", "execution")
        if accused is None:
            return Verdict(yes=False, thought="No idea what this vote is about.")
        if kind == "charge" and self.mem.last_accuser.get(accused) == mem.me:
            yes = True  # back my own accusation
        elif mem.is_mafia:
            yes = self.mafia_verdict(accused, kind)
        else:
            yes = self.town_verdict(accused, kind)
        # + 0.0 turns -0.0 into 0.0: they are one key, and the cached thought must not say "-0.0" or
        # "+0.0" after whichever came first in this process (a game's transcript is the same anywhere).
        key = (kind, accused, yes, round(mem.suspicion(accused), 1) + 0.0)
        action = VERDICTS.get(key)
        if action is None:  # actions are immutable: equal votes share one instance
            if len(VERDICTS) > 4096:
                VERDICTS.clear()
            action = VERDICTS[key] = Verdict(yes=yes, thought=f"{kind} {accused}: suspicion {key[3]:+.1f}")
        return action

    def town_verdict(self, accused: str, kind: str) -> bool:
        mem = self.mem
        if accused == mem.me or mem.confirmed_town(accused):
            return False
        s = mem.suspicion(accused)
        top, mean = self.top_and_mean(self.others())
        if kind == "charge":
            return s >= mean - self.charge_margin
        return s >= top - self.execute_margin or s >= 2.0

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

    def mafia_verdict(self, accused: str, kind: str) -> bool:
        mem = self.mem
        if accused == mem.me:
            return False
        if accused in mem.partners:
            # bus a doomed partner only when it buys credit for another living partner
            return self.doomed(accused, kind) and len(self.living_partners()) >= 2
        # a townsperson: vote as the town would on what the town can know, to blend in (a yes
        # where the town says no is the loudest tell a mafia bot can give)
        pool = self.unconfirmed()
        if mem.confirmed_town(accused):
            return False
        s = mem.suspicion(accused)
        top, mean = self.top_and_mean(pool)
        if kind == "charge":
            return s >= mean - self.charge_margin
        return s >= top - self.execute_margin or s >= 2.0

    def vote(self, req: DecisionRequest) -> ActionBase:
        mem = self.mem
        cands = choices(req, "vote", "target")
        if not cands:
            return safe_action(req, self.rng)
        if mem.is_mafia:
            town = [c for c in cands if c not in mem.partners]
            target = self.most_suspicious(town, seat_ties=True) if town else self.most_suspicious(cands, seat_ties=True)
            thought = f"{self.mafia_line()} Voting {target}."
        else:
            pool = [c for c in cands if c != mem.me and not mem.confirmed_town(c)] or [c for c in cands if c != mem.me]
            target = self.most_suspicious(pool or list(cands))
            thought = f"Most suspicious of {say.join_names(list(cands))}: {target}."
        return Vote(target=target, thought=thought)

    # ---- night ---------------------------------------------------------------------------------
    def danger_ranking(self, pool) -> list[str]:
        """Town players from most to least worth shooting, from public facts only, so that
        every partner computes the same list (seat order breaks ties).

        Worth = danger (a claimed role, votes and accusations against partners, the town's
        trust) minus exposure: how much a victim's death as a townsperson would incriminate the
        partners who voted against or accused him.
        """
        mem = self.mem
        partners = mem.partners
        living = self.living_partners()
        against: Counter[str] = Counter()
        for b in mem.ballots:
            if b.accused in partners:
                against.update(b.yes)
        for accuser, accused, _ in mem.accusations:
            if accused in partners:
                against[accuser] += 1
        failed = mem.failed_targets[-1:] if mem.failed_targets else []
        sus = mem.suspicion

        def worth(name: str) -> float:
            info = mem.claims.get(name)
            d = 0.0
            if info is not None and info.role in INVESTIGATORS:
                d += 100.0
            elif info is not None and info.role in PROTECTORS:
                d += 50.0
            if name in failed:
                d -= 80.0  # protected last night: try someone else
            row = mem.row(name)
            exposure = sum(max(0.0, -row.get(p, 0.0)) for p in living)
            return d + 0.5 * against[name] - sus(name) - self.exposure_weight * exposure

        index = mem.seat_index
        return sorted((n for n in pool if n not in partners), key=lambda n: (-worth(n), index.get(n, 0)))

    def shoot(self, req: DecisionRequest) -> ActionBase:
        mem = self.mem
        pool = choices(req, "kill", "target")
        if not mem.is_mafia:
            # a town player asked to kill (a vigilante-like role): the top suspect, if any
            target = self.most_suspicious([n for n in pool if not mem.confirmed_town(n)])
            if target is None and not nullable(req, "kill", "target"):
                return safe_action(req, self.rng)
            return Kill(target=target, thought=f"Shooting my top suspect {target}.")
        ranking = self.danger_ranking(pool)
        if not ranking:
            if nullable(req, "kill", "target"):
                return Kill(target=None, thought="No town player to shoot.")
            return safe_action(req, self.rng)
        target = ranking[0]
        return Kill(target=target, thought=f"{self.mafia_line()} Shooting {target}, the most dangerous.")

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
            target = Counter(this_round).most_common(1)[0][0]
            following = True
        elif tonight:
            target = tonight[0][1]  # the first pointing of the night wins a disagreement
            following = True
        else:
            ranking = self.danger_ranking(pool)
            target = ranking[0] if ranking else pool[0]
            following = False
        why = ""
        info = mem.claims.get(target)
        if not following and info is not None and info.role:
            why = f"{target} claimed the {info.role}."
        text = say.channel_text(self.rng, target, following, why) if req.talk else None
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
        return self.least_suspicious(friends) or (pool[0] if pool else None)

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
