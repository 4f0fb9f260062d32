"""Short generated sentences, so that a transcript of bots reads like a game.

A bot speaks through its :class:`Voice`: each kind of line has several templates, drawn with the
bot's seeded rng, and a bot uses every template of a kind once before it repeats one (the same
seed still gives the same words). Reasons come from :meth:`Memory.reasons` as tuples
(``("spared", voter, accused, n)`` …), so what a bot says is what it actually weighed; reasons of
one kind are said in one sentence. A bot never names itself: a reason about the speaker is said
in the first person.

Every sentence that states a fact of the public record (a vote, an accusation, a death, a claim)
also notes that fact, as data, in :attr:`Voice.stated`: ``tests/bot_facts.py`` checks each one
against the game's log (issue 30.10: no false statement of fact).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

TIMES = {1: "once", 2: "twice", 3: "three times"}


def pick(rng: random.Random, options: Sequence[str]) -> str:
    return options[rng.randrange(len(options))]


def times(n: int) -> str:
    return TIMES.get(n, f"{n} times")


def join_names(names: Sequence[str]) -> str:
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


class Voice:
    """One bot's words: every template of a kind is used once before any is used again."""

    def __init__(self, rng: random.Random, me: str) -> None:
        self.rng = rng
        self.me = me
        self._left: dict[str, list[int]] = {}
        self._last: dict[str, int] = {}
        #: the facts of the public record the words said so far state (see :data:`FACTS`); whoever
        #: reads them clears the list
        self.stated: list[tuple] = []

    def state(self, *facts: tuple) -> None:
        stated = self.stated
        if len(stated) > 256:  # nobody is reading: keep it small
            del stated[:128]
        stated.extend(facts)

    def pick(self, kind: str, options: Sequence[str]) -> str:
        """One of ``options`` not yet used in this round of ``kind`` (a new round never starts
        with the template that ended the last one)."""
        n = len(options)
        left = self._left.get(kind)
        if not left or left[-1] >= n:  # a new round (or a kind whose options changed)
            last = self._last.get(kind)
            left = self._left[kind] = list(range(n)) if n > 1 else [0]
            if last is not None and last < n and n > 1:
                del left[last]  # every template but the last one said, in order
                left.append(last)  # back in play, but not as the first of the round
                i = left.pop(self.rng.randrange(n - 1))
                self._last[kind] = i
                return options[i]
        i = left.pop(self.rng.randrange(len(left)))
        self._last[kind] = i
        return options[i]

    def who(self, name: str) -> str:
        """A name as the speaker says it: "I" for the speaker."""
        return "I" if name == self.me else name

    def whom(self, name: str) -> str:
        return "me" if name == self.me else name

    # ---- reasons ---------------------------------------------------------------------------------
    def reasons(self, reasons: Sequence[tuple]) -> str:
        """Reasons as sentences, those of one kind about one player merged into one."""
        merged: dict[tuple, list[tuple]] = {}
        for r in reasons:
            key = (r[0], r[1]) if r[0] in ("spared", "passed_over", "pushed") else (r,)
            merged.setdefault(key, []).append(r)
        said = [self._reason(group) for group in merged.values()]
        return " ".join(s for s in said if s)

    def _reason(self, group: list[tuple]) -> str:
        reason = group[0]
        kind = reason[0]
        if kind == "claimed_check":
            _, claimer, target, result = reason
            if claimer != self.me:
                self.state(("claimed_check", claimer, target, result))
            if claimer == self.me:
                return self.pick("own_check", (f"My check on {target} came back {result}.", f"I checked {target}: {result}."))
            return self.pick(
                "claimed_check",
                (
                    f"{claimer} checked {target}: {result}. I believe {claimer}.",
                    f"{claimer}'s check on {target} came back {result}.",
                    f"{claimer} says {target} is {result}, and I trust that check.",
                    f"Remember {claimer}'s check: {target}, {result}.",
                ),
            )
        if kind == "fake_claim":
            _, name, role = reason
            self.state(("claimed", name, role))
            return self.pick(
                "fake_claim",
                (
                    f"{name} claims the {role}, but the checks do not add up.",
                    f"There is only one {role}, and it is not {name}.",
                    f"{name}'s {role} story fell apart.",
                    f"I don't buy {name} as the {role}.",
                ),
            )
        if kind == "passed_over":  # a vote among candidates: no yes/no words
            voter = reason[1]
            self.state(*(("voted", voter, r[2], "other", r[3]) for r in group))
            saved = join_names([self.whom(r[2]) for r in group])
            n = sum(r[3] for r in group)
            return self.pick(
                "passed_over",
                (
                    f"With {saved} up for the vote, {voter} voted for someone else {times(n)}."
                    if len(group) == 1
                    else f"{voter} voted for someone else {times(n)} with {saved} up for the vote.",
                    f"{voter} kept votes away from {saved}." if n > 1 else f"{voter} steered the vote away from {saved}.",
                    f"{voter} never voted for {saved}, though {saved} was up for the vote.",
                ),
            )
        if kind == "spared":
            voter = reason[1]
            self.state(*(("voted", voter, r[2], "no", r[3]) for r in group))
            saved = join_names([self.whom(r[2]) for r in group])
            n = sum(r[3] for r in group)
            return self.pick(
                "spared",
                (
                    f"{voter} voted to spare {saved} {times(n)}; I don't trust that.",
                    # "kept", "every time": only what the record holds more than once
                    f"{voter} kept protecting {saved}." if n > 1 else f"{voter} protected {saved}.",
                    f"Every time {saved} was on the line, {voter} voted no."
                    if n > 1
                    else f"When {saved} was on the line, {voter} voted no.",
                    f"{voter} went out of the way to save {saved}.",
                ),
            )
        if kind == "pushed":
            voter = reason[1]
            out = [r[2] for r in group]
            self.state(*(("voted_out", voter, r[2], r[3]) for r in group), *(("dead", r[2]) for r in group))
            both = "both town" if len(out) == 2 else "all town" if len(out) > 2 else "town"
            return self.pick(
                "pushed",
                (
                    f"{voter} voted to get rid of {join_names(out)}, and they were {both}."
                    if len(out) > 1
                    else f"{voter} voted to get rid of {out[0]}, and {out[0]} was town.",
                    f"{voter} pushed {join_names(out)} out; that cost us {'townspeople' if len(out) > 1 else 'a townsperson'}.",
                    f"{voter} helped vote out {join_names(out)}. {both.capitalize()}.",
                    f"Look at who voted out {join_names(out)}: {voter} did.",
                ),
            )
        if kind == "pushed_me":
            _, voter, n = reason
            self.state(("voted", voter, self.me, "yes", n))
            return self.pick(
                "pushed_me",
                (
                    f"{voter} voted to get rid of me {times(n)}, and I'm town.",
                    f"{voter} wants me gone. Ask why.",
                    f"{voter} keeps voting against me, and I know what I am."
                    if n > 1
                    else f"{voter} voted against me, and I know what I am.",
                ),
            )
        if kind == "accused_me":
            _, accuser = reason
            self.state(("accused", accuser, self.me))
            return self.pick(
                "accused_me",
                (
                    f"{accuser} went after me, and I know I'm town.",
                    f"{accuser} accused me for no good reason.",
                    f"{accuser} pointed at me. I know that's wrong, so why did {accuser} do it?",
                ),
            )
        if kind == "accused_town":
            _, accuser, accused, alive = reason
            self.state(("accused", accuser, accused), ("alive" if alive else "dead", accused))
            return self.pick(
                "accused_town",
                (
                    f"{accuser} went after {accused}, who {'is' if alive else 'was'} clearly town.",
                    f"{accuser} accused {accused} for no good reason.",
                    f"{accuser} was wrong about {accused}, and maybe not by accident.",
                ),
            )
        if kind == "accused_by_victim":
            _, victim, name = reason
            self.state(("accused", victim, name), ("shot_after_accusing", victim, name))
            return self.pick(
                "accused_by_victim",
                (
                    f"{victim} accused {name}, and then {victim} was shot in the night.",
                    f"The mafia silenced {victim} right after {victim} named {name}.",
                    f"{victim} named {name} and did not live through the night.",
                ),
            )
        if kind == "pressed":
            _, accuser, accused = reason
            self.state(("pressed", accuser, accused))
            target = self.whom(accused)
            return self.pick(
                "pressed",
                (
                    f"{accuser} kept pushing {target} after the table had spared {target}.",
                    f"We cleared {target} and {accuser} went straight back at {target}. Why the hurry?",
                    f"{accuser} would not let {target} go, even after the vote.",
                ),
            )
        return ""

    # ---- lines -----------------------------------------------------------------------------------
    def accuse(
        self,
        target: str,
        reasons: Sequence[tuple],
        seconded: Sequence[str] = (),
        *,
        opened: bool = False,
        again: bool = False,
        claimed: bool = False,
    ) -> str:
        """An accusation with its reasons. ``seconded``: today's earlier accusers of ``target``;
        ``opened``: someone accused someone today already; ``again``: I accused ``target`` before;
        ``claimed``: the speech opens with my claim (its checks are my reasons: no "nobody has
        much yet")."""
        said = self.reasons(reasons)
        if again:
            self.state(("accused", self.me, target))
            lead = self.pick(
                "again",
                (
                    f"Still {target}.",
                    f"I stand by it: {target}.",
                    f"Nothing has changed my mind about {target}.",
                    f"{target} again. I haven't heard a good answer.",
                    f"I'm not letting {target} off the hook.",
                ),
            )
            return f"{lead} {said}".strip()
        if said:
            lead = self.pick(
                "lead",
                (
                    f"I accuse {target}.",
                    f"{target}, I'm calling you out.",
                    f"My vote is on {target}.",
                    f"I'm putting {target} up.",
                    f"{target} is my pick today.",
                    f"Let's look hard at {target}.",
                ),
            )
            return f"{lead} {said}"
        if claimed:
            return self.pick("claimed_lead", (f"I accuse {target}.", f"My accusation: {target}.", f"So I accuse {target}."))
        if seconded:
            self.state(*(("accused_today", a, target) for a in list(seconded)[:2]))
            who = join_names(list(seconded)[:2])
            return self.pick(
                "seconded",
                (
                    f"I'm with {who}: {target}.",
                    f"{who} made a point. I accuse {target} too.",
                    f"Let's settle it on {target}.",
                    f"Count me with {who} on {target}.",
                    f"Same read as {who}: {target}.",
                ),
            )
        if opened:
            self.state(("someone_accused_today",))
            return self.pick(
                "another",
                (
                    f"I'll add a name: {target}.",
                    f"Not convinced by the others. I accuse {target}.",
                    f"Another name for the pot: {target}.",
                    f"My own pick is {target}.",
                    f"I see it differently. {target}.",
                ),
            )
        self.state(("nobody_accused_today",))
        return self.pick(
            "first",
            (
                f"Nobody has much yet, so I'll start: I accuse {target}.",
                f"Let's see how people vote. I accuse {target}.",
                f"Somebody has to go first: {target}.",
                f"Gut feeling: {target}. I accuse.",
                f"To get things moving: {target}.",
            ),
        )

    def idle(self, suspect: str | None, *, votes_seen: bool = True) -> str:
        if suspect is None:
            return self.pick(
                "idle",
                (
                    "Nothing solid yet; I'm watching the votes." if votes_seen else "Nothing solid yet; let's see a vote.",
                    "I have no read yet. Let's hear the others.",
                    "Too early to say. Keep talking.",
                    "I'd rather listen for now.",
                    "Nobody stands out to me yet.",
                    "No accusation from me this round.",
                ),
            )
        return self.pick(
            "idle_suspect",
            (
                f"I'm not sure yet, but {suspect} worries me.",
                f"{suspect} is on my list. Not enough to accuse.",
                f"Watch {suspect}'s votes." if votes_seen else f"Keep an eye on {suspect}.",
                f"I'm leaning towards {suspect}, but I'm not ready to accuse.",
                f"{suspect} hasn't convinced me. I'll wait a little.",
            ),
        )

    def defence(self, counter: str | None, reasons: Sequence[tuple]) -> str:
        deny = self.pick(
            "deny",
            (
                "I'm town. You're wasting a vote on me.",
                "I am not mafia. Think about who started this.",
                "This is a mistake: I'm one of you.",
                "You have the wrong person.",
                "Vote me out and you lose a townsperson.",
                "I've done nothing but try to find them.",
            ),
        )
        if counter is None:
            return deny
        look = self.pick(
            "look",
            (
                f"Look at {counter} instead.",
                f"{counter} is the one you want.",
                f"If anyone, {counter}.",
                f"Ask yourselves why {counter} wants me gone.",
                f"{counter} is who I'd look at.",
            ),
        )
        return f"{deny} {look} {self.reasons(reasons)}".strip()

    def floor(self, accused: str, believe: bool) -> str:
        if believe:
            return self.pick(
                "believe",
                (
                    f"I believe {accused}. Vote no.",
                    f"I trust {accused}. Spare {accused}.",
                    f"Don't do this; {accused} is not our problem.",
                    f"We'd be making a mistake with {accused}.",
                    f"{accused} stays, as far as I'm concerned.",
                ),
            )
        return self.pick(
            "doubt",
            (
                f"Sorry, {accused}, I'm not convinced.",
                f"I have doubts about {accused}.",
                f"{accused}'s defence doesn't change my mind.",
                f"That didn't answer anything, {accused}.",
                f"I've heard nothing from {accused} that clears {accused}.",
            ),
        )

    def last_words(self, suspect: str | None) -> str:
        if suspect is None:
            return self.pick(
                "farewell",
                ("Good luck, town.", "Find them. I was one of you.", "Farewell, and watch the votes.", "You got the wrong one."),
            )
        return self.pick(
            "last_words",
            (
                f"Good luck. Watch {suspect}.",
                f"My last word: {suspect}.",
                f"I was town. If I were you I'd look at {suspect}.",
                f"Remember this when {suspect} votes next.",
                f"It's {suspect}. Don't let {suspect} talk you out of it.",
            ),
        )

    def channel(self, target: str, following: bool, why: str = "") -> str:
        if following:
            return self.pick(
                "follow", (f"Agreed: {target}.", f"{target}, then.", f"With you on {target}.", f"Fine by me: {target}.")
            )
        base = self.pick("propose", (f"Let's take {target} tonight.", f"{target}.", f"I say {target}.", f"{target} tonight."))
        return f"{base} {why}".strip()

    def claimed(self, name: str, role: str) -> str:
        """ "X claimed the doctor." (a fact of the record: noted)"""
        self.state(("claimed", name, role))
        return f"{name} claimed the {role}."

    def claim(self, role: str, checks: Mapping[str, str], latest: str | None = None) -> str:
        """Coming out as ``role`` and stating the checks (the latest one first)."""
        order = ([latest] if latest in checks else []) + [t for t in checks if t != latest]
        if not order:
            return self.pick("claim_bare", (f"I am the {role}.", f"I'll say it plainly: I am the {role}.", f"I'm the {role}."))
        first = order[0]
        head = self.pick(
            "claim",
            (
                f"I'm the {role}: I checked {first} — {checks[first]}.",
                f"{role.capitalize()} here. My check on {first} came back {checks[first]}.",
                f"Time to come out: I am the {role}, and {first} is {checks[first]}.",
                f"I'm the {role}. {first}: {checks[first]}.",
            ),
        )
        rest = [f"{t} is {checks[t]}" for t in order[1:]]
        if rest:
            head += " Before that: " + "; ".join(rest) + "."
        return head
