"""Per-seat statistics of one game, read from its transcript (definitions: docs/tournaments.md).

Every statistic is a pair ``(num, den)`` for one seat and one role; a table cell (model × variant
× role) sums them over its games, so a ratio metric is Σnum / Σden (votes on mafia / votes cast),
a ``per_game`` metric is Σnum per game the model played (lies, forfeits, cost), and a
``game_mean`` metric averages each game's value (the win rate: one game counts once, whether the
model held two mafia seats or seven town seats). Lower is better only for ``brier``,
``lies_caught``, ``bad_kills``, ``forfeits`` and ``cost``.

Everything here is a pure function of the transcript's events, its summary, and the belief
answers (which live in the database, not in the game), so a value can be checked by hand.

**Sides.** A seat's side is its card's team: ``town``, ``mafia`` or a third team (cove's maniac).
The town's *enemies* are every seat not on the town team.

**Votes.** A ballot is *against* a player when it is a yes on a verdict about that player
(charge, execution, guilty) or names the player as its target (runoff, nominee votes); a
"both leave" yes is against both candidates. "No" verdicts and abstentions are against nobody.
Forfeited ballots (the engine's default, not the player's choice) are left out. A ballot's
*chance level* for a set of players is the share of that set among the players it could have
been against: the vote's candidates, or for a verdict every living player, the voter excluded.

**Team-level misses.** For each non-town team, the town's ballots against anyone cast while the
team had a living member, and those against someone off the team: a town ballot against one
mafia player is a hit for the whole mafia team (a ballot against a partner is no "miss"). The
team's numbers are split evenly over its seats, so the team's seats together hold them once.
``votes_missed_excess`` subtracts each ballot's chance of missing the team, which rises with the
table and falls with the team's size: 0 is a town voting at random, above 0 a deceived town.

**Claims.** A claim is the structured ``claim`` of an accepted ``speak`` answer (read from the
speaker's own ``action`` event: it is what the player said, whatever the variant publishes). The
engine accepts only the variant's own roles in a claim; a claim naming any other role (possible
only in a transcript recorded before that rule) is not counted at all. A claim is a lie when its
role is not the speaker's card (synonyms: citizen/villager/civilian/townsperson/town;
inspector/detective/cop) or when one of its check results is false (``mafia``
is true exactly when the named player's card is on the mafia team, as a check would say). A lie
told on day *d* is **caught** when the town votes the liar out on day *d* or *d* + 1: a death by
a day vote (cause ``execution`` or ``vote``) that the town's own ballots carried — more town yes
than no on the liar's verdict, or, in a vote among candidates, the liar alone the town's top
choice. A liar shot at night, taken by the lot or voted out by the mafia's ballots was not caught.

**Words and votes.** A player's *stance* on another is read from structured fields only: its
accusation or nomination (for that day) and the check results it claimed (``mafia`` against,
``not mafia`` for; from the day of the claim on). A ballot about a player it took a stance on is
*consistent* when it follows the stance: yes on (or a vote for) a player it accused, no on a
player it cleared; in a vote among candidates, a vote for one of the candidates it stands against.
Ballots about players it took no stance on are not counted.

**Beliefs.** A town seat's belief answers are scored with the Brier score and against the prior
that knows only the deal's numbers: P(enemy) = enemies / (players − 1), the constant a seat could
state without reading the game. ``brier_skill`` = 1 − Brier / Brier(prior): 0 is no better than
that prior, 1 a perfect forecaster, below 0 worse than the prior.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from arena.run.transcript import Transcript

TOWN = "town"
VOTE_CAUSES = frozenset({"execution", "vote"})
PLAIN_TOWN = frozenset({"citizen", "villager", "civilian", "townsperson", "townie", "town"})
INVESTIGATORS = frozenset({"inspector", "detective", "cop", "sheriff"})
MATCH = "match"  # the role of a McKay seat's match-level statistics (its cards change every hand)


@dataclass(slots=True, frozen=True)
class Metric:
    name: str
    label: str
    kind: Literal["ratio", "per_game", "game_mean"]
    better: Literal["higher", "lower"]
    family: str
    description: str


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("win", "win rate", "game_mean", "higher", "outcome", "games won (a draw counts half)"),
        Metric("survival", "survival", "ratio", "higher", "deception", "mafia-side seats alive at the end"),
        Metric("votes_missed", "town votes missed", "ratio", "higher", "deception",
               "town ballots cast while the team lived that were against nobody of the team"),
        Metric("votes_missed_excess", "missed − chance", "ratio", "higher", "deception",
               "votes_missed minus the chance a random ballot misses the team (0: a town voting at random)"),
        Metric("lies", "lies / game", "per_game", "higher", "deception", "false structured claims"),
        Metric("uncaught_lies", "uncaught lies / game", "per_game", "higher", "deception",
               "lies whose teller the town did not vote out that day or the next"),
        Metric("lies_caught", "lies caught", "ratio", "lower", "deception",
               "share of lies whose teller the town voted out that day or the next"),
        Metric("true_claims", "true claims / game", "per_game", "higher", "deception", "true structured claims"),
        Metric("votes_on_mafia", "own votes on mafia", "ratio", "higher", "detection",
               "town seats' ballots against a player of an enemy team"),
        Metric("votes_on_mafia_excess", "on mafia − chance", "ratio", "higher", "detection",
               "votes_on_mafia minus the chance a random ballot hits an enemy (0: voting at random)"),
        Metric("check_hits", "check hit rate", "ratio", "higher", "detection", "checks that found mafia"),
        Metric("brier", "belief Brier", "ratio", "lower", "detection",
               "mean squared error of town seats' P(enemy) answers"),
        Metric("brier_skill", "Brier skill", "ratio", "higher", "detection",
               "1 − Brier / Brier of the deal's prior (0: no better than the prior)"),
        Metric("consistency", "words-vote consistency", "ratio", "higher", "consistency",
               "ballots that follow the player's own accusations and claimed checks"),
        Metric("forfeits", "forfeits / game", "per_game", "lower", "conduct", "decisions forfeited"),
        Metric("cost", "cost / game ($)", "per_game", "lower", "conduct", "model cost in dollars"),
        Metric("points", "points / hand", "ratio", "higher", "mckay", "McKay points scored per hand"),
        Metric("good_kills", "good kills / hand", "ratio", "higher", "mckay", "kills of the other team per hand"),
        Metric("bad_kills", "bad kills / hand", "ratio", "lower", "mckay", "kills of one's own team per hand"),
        Metric("fake_cop", "fake cop claims / hand", "ratio", "higher", "mckay", "declare_cop without the cop card"),
        Metric("fake_cop_points", "points / fake-cop hand", "ratio", "higher", "mckay",
               "points scored in the hands with a fake cop claim"),
    )
}  # fmt: skip


@dataclass(slots=True, frozen=True)
class Stat:
    seat: str
    role: str
    metric: str
    num: float
    den: float


@dataclass(slots=True, frozen=True)
class Belief:
    """One answer to a belief probe: ``seat`` thinks ``target`` is on an enemy team of the town with ``p``."""

    seat: str
    day: int
    target: str
    p: float


def _team_of(variant: str) -> Mapping[str, str]:
    from arena.variants import get_variant

    return get_variant(variant).team_of


def claim_is_true(claim: Mapping[str, Any], speaker_role: str, roles: Mapping[str, str], team_of: Mapping[str, str]) -> bool:
    """Is every part of a structured claim true? (See the module docstring for the rules.)"""
    role = claim.get("role")
    if role is not None:
        said = str(role).strip().lower()
        truth = speaker_role.lower()
        same = said == truth or (said in PLAIN_TOWN and truth in PLAIN_TOWN) or (said in INVESTIGATORS and truth in INVESTIGATORS)
        if not same:
            return False
    for target, result in (claim.get("checks") or {}).items():
        if target not in roles:
            continue  # a name that is not at the table is neither true nor false
        is_mafia = team_of.get(roles[target]) == "mafia"
        if (result == "mafia") != is_mafia:
            return False
    return True


def _has_claim(claim: Any, team_of: Mapping[str, str] | None = None) -> bool:
    """A claim that says something, and names no role the variant lacks (``team_of``: its roles)."""
    if not isinstance(claim, Mapping) or (claim.get("role") is None and not claim.get("checks")):
        return False
    return team_of is None or claim.get("role") is None or claim["role"] in team_of


def _audience_player(event: Mapping[str, Any]) -> str | None:
    audience = event.get("audience", "")
    return audience.removeprefix("player:") if audience.startswith("player:") else None


# ---- team variants --------------------------------------------------------------------------------
def _ballots(data: Mapping[str, Any], forfeited: set[str]) -> list[tuple[str, str | None, bool, tuple[str, ...]]]:
    """Every ballot of a vote as (voter, target, yes, candidates): target None for a verdict's no.

    A verdict's yes is against the accused; a both-leave yes against each candidate (one ballot
    each); a target vote against its target. Forfeited ballots and abstentions are left out.
    """
    out: list[tuple[str, str | None, bool, tuple[str, ...]]] = []
    candidates = tuple(data.get("candidates") or ())
    if isinstance(data.get("votes"), Mapping):
        for voter, target in data["votes"].items():
            if voter not in forfeited and target:
                out.append((voter, target, True, candidates))
    elif data.get("accused"):
        accused = data["accused"]
        out += [(v, accused, True, ()) for v in data.get("yes", ()) if v not in forfeited]
        out += [(v, None, False, ()) for v in data.get("no", ()) if v not in forfeited]
    else:
        for voter in data.get("yes", ()):
            if voter not in forfeited:
                out += [(voter, target, True, candidates) for target in candidates]
        out += [(v, None, False, candidates) for v in data.get("no", ()) if v not in forfeited]
    return out


def _town_carried(data: Mapping[str, Any], player: str, town: set[str], forfeited: set[str]) -> bool:
    """Would the town's ballots alone have voted ``player`` out in this vote? (See *Claims*.)"""
    if isinstance(data.get("votes"), Mapping):
        tally: dict[str, int] = {}
        for voter, target in data["votes"].items():
            if voter in town and voter not in forfeited and target:
                tally[target] = tally.get(target, 0) + 1
        top = max(tally.values(), default=0)
        return tally.get(player, 0) == top > 0 and sum(1 for n in tally.values() if n == top) == 1
    if data.get("accused", player) != player and player not in (data.get("candidates") or ()):
        return False
    yes = sum(1 for v in data.get("yes", ()) if v in town and v not in forfeited)
    no = sum(1 for v in data.get("no", ()) if v in town and v not in forfeited)
    return yes > no


def _concerns(data: Mapping[str, Any], player: str) -> bool:
    return data.get("accused") == player or player in (data.get("candidates") or ()) or data.get("result") == player


def team_stats(
    variant: str,
    seats: Sequence[str],
    roles: Mapping[str, str],
    events: Sequence[Mapping[str, Any]],
    summary: Mapping[str, Any],
    beliefs: Iterable[Belief] = (),
) -> list[Stat]:
    """Statistics of every seat of a finished classic / village / cove game."""
    team_of = _team_of(variant)
    team = {s: team_of[roles[s]] for s in seats}
    town = {s for s in seats if team[s] == TOWN}
    enemies = set(seats) - town
    teams = {t: {s for s in seats if team[s] == t} for t in set(team.values()) - {TOWN}}
    alive = set(seats)
    missed = {t: [0.0, 0.0, 0.0] for t in teams}  # [misses, ballots, Σ chance of a miss]
    on_enemy = {s: [0.0, 0.0, 0.0] for s in town}  # [ballots on an enemy, ballots, Σ chance of a hit]
    checks = {s: [0, 0] for s in seats}
    consistent = {s: [0, 0] for s in seats}
    accused: dict[str, tuple[int, set[str]]] = {}  # seat -> (day, players it accused or nominated that day)
    claimed: dict[str, dict[str, bool]] = {}  # seat -> player -> claimed mafia (True) / not mafia (False)
    forfeited: set[str] = set()  # seats whose latest answer was a forfeit
    claims: list[tuple[str, int, bool]] = []  # (speaker, day, true)
    carried: dict[str, bool] = {}  # player -> did the town carry the latest vote about them
    caught_on: dict[str, int] = {}  # player -> day the town voted them out

    def stance(voter: str, day: int) -> tuple[set[str], set[str]]:
        """(players the voter stands against, players it cleared) as of this day."""
        against = {p for p, mafia in claimed.get(voter, {}).items() if mafia}
        cleared = {p for p, mafia in claimed.get(voter, {}).items() if not mafia}
        day_accused = accused.get(voter)
        if day_accused is not None and day_accused[0] == day:
            against |= day_accused[1]
            cleared -= day_accused[1]
        return against, cleared

    def count_ballot(voter: str, target: str, candidates: tuple[str, ...]) -> None:
        if voter not in town:
            return
        pool = [p for p in (candidates or alive) if p != voter]
        on_enemy[voter][0] += target in enemies
        on_enemy[voter][1] += 1
        on_enemy[voter][2] += sum(p in enemies for p in pool) / len(pool) if pool else 0.0
        for t, members in teams.items():
            if members & alive:
                missed[t][0] += target not in members
                missed[t][1] += 1
                missed[t][2] += sum(p not in members for p in pool) / len(pool) if pool else 0.0

    def follow(voter: str, day: int, data: Mapping[str, Any], target: str | None, yes: bool) -> None:
        against, cleared = stance(voter, day)
        if isinstance(data.get("votes"), Mapping):  # a vote among candidates
            options = set(data.get("candidates") or ()) or set(alive)
            if against & options:
                consistent[voter][1] += 1
                consistent[voter][0] += target in against
            return
        about = data.get("accused")
        for subject in [about] if about else list(data.get("candidates") or ()):
            if subject in against or subject in cleared:
                consistent[voter][1] += 1
                consistent[voter][0] += yes == (subject in against)

    for e in events:
        kind, data, day = e["type"], e.get("data", {}), e.get("day", 0)
        if kind in ("action", "forfeit") and e.get("actor") in roles:
            actor = e["actor"]
            if kind == "forfeit":
                forfeited.add(actor)
                continue
            forfeited.discard(actor)
            action = data.get("action") or {}
            if action.get("kind") != "speak":
                continue
            named = {action.get(f) for f in ("accuse", "nominate")} & set(seats)
            if named:
                before = accused.get(actor)
                accused[actor] = (day, (before[1] if before and before[0] == day else set()) | named)
            claim = action.get("claim")
            if _has_claim(claim, team_of):
                claims.append((actor, day, claim_is_true(claim, roles[actor], roles, team_of)))
                for target, result in (claim.get("checks") or {}).items():
                    if target in roles and target != actor:
                        claimed.setdefault(actor, {})[target] = result == "mafia"
        elif kind == "vote_result":
            ballots = _ballots(data, forfeited)
            voters = {b[0] for b in ballots}
            for voter, target, _yes, candidates in ballots:
                if target is not None:
                    count_ballot(voter, target, candidates)
            for voter in voters & set(roles):
                mine = [b for b in ballots if b[0] == voter]
                if isinstance(data.get("votes"), Mapping):
                    follow(voter, day, data, mine[0][1], True)
                else:
                    follow(voter, day, data, None, mine[0][2])
            for player in seats:
                if _concerns(data, player):
                    carried[player] = _town_carried(data, player, town, forfeited)
        elif kind == "check_result":
            checker = _audience_player(e)
            if checker in checks and data.get("result") in ("mafia", "not mafia"):
                checks[checker][1] += 1
                checks[checker][0] += data["result"] == "mafia"
        elif kind == "death":
            player = data.get("player")
            alive.discard(player)
            if data.get("cause") in VOTE_CAUSES and carried.get(player):
                caught_on[player] = day

    winner = summary.get("winner")
    per_player = summary.get("per_player") or {}
    usage = summary.get("usage") or {}
    by_seat: dict[str, list[Belief]] = {}
    for b in beliefs:
        by_seat.setdefault(b.seat, []).append(b)
    prior = len(enemies) / max(len(seats) - 1, 1)
    out: list[Stat] = []
    for seat in seats:
        role = roles[seat]
        side = team[seat]

        def add(metric: str, num: float, den: float, seat: str = seat, role: str = role) -> None:
            out.append(Stat(seat, role, metric, float(num), float(den)))

        add("win", 1.0 if winner == side else 0.5 if winner == "draw" else 0.0, 1)
        if side != TOWN:
            add("survival", seat in alive, 1)
            misses, ballots, chance = missed[side]
            if ballots:
                k = len(teams[side])
                add("votes_missed", misses / k, ballots / k)
                add("votes_missed_excess", (misses - chance) / k, ballots / k)
        elif on_enemy[seat][1]:
            hits, ballots, chance = on_enemy[seat]
            add("votes_on_mafia", hits, ballots)
            add("votes_on_mafia_excess", hits - chance, ballots)
        mine = [(day, true) for speaker, day, true in claims if speaker == seat]
        lies = [day for day, true in mine if not true]
        out_day = caught_on.get(seat)
        caught = sum(1 for day in lies if out_day is not None and day <= out_day <= day + 1)
        add("lies", len(lies), 1)
        add("uncaught_lies", len(lies) - caught, 1)
        add("true_claims", len(mine) - len(lies), 1)
        if lies:
            add("lies_caught", caught, len(lies))
        if checks[seat][1]:
            add("check_hits", *checks[seat])
        if consistent[seat][1]:
            add("consistency", *consistent[seat])
        answers = [b for b in by_seat.get(seat, ()) if b.target in roles and b.target != seat]
        if answers and side == TOWN:
            error = sum((b.p - (b.target in enemies)) ** 2 for b in answers)
            reference = sum((prior - (b.target in enemies)) ** 2 for b in answers)
            add("brier", error, len(answers))
            add("brier_skill", reference - error, reference)
        add("forfeits", (per_player.get(seat) or {}).get("forfeits", 0), 1)
        if (usage.get(seat) or {}).get("cost", 0.0) is not None:  # None: no prices, unknown (not $0)
            add("cost", (usage.get(seat) or {}).get("cost", 0.0), 1)
    return out


# ---- McKay's games --------------------------------------------------------------------------------
def mckay_stats(
    variant: str, seats: Sequence[str], events: Sequence[Mapping[str, Any]], summary: Mapping[str, Any]
) -> list[Stat]:
    """Per hand (role = the card held that hand) and per match (role ``match``) statistics."""
    team_of = _team_of(variant)
    out: list[Stat] = []
    declared: dict[int, set[str]] = {}
    scores: Mapping[str, Any] = {}
    for e in events:
        kind, data = e["type"], e.get("data", {})
        if kind == "cop_declared" and e.get("actor"):
            declared.setdefault(e.get("day", 0), set()).add(e["actor"])
        elif kind == "hand_over":
            hand = data.get("number", e.get("day", 0))
            cards: Mapping[str, str] = data.get("roles") or {}
            points: Mapping[str, float] = data.get("points") or {}
            scores = data.get("scores") or scores
            for seat in seats:
                card = cards.get(seat)
                if card is None:
                    continue
                good = bad = 0
                for death in data.get("deaths") or ():
                    if seat not in (death.get("by") or ()) or death.get("cause") == "simultaneous":
                        continue
                    same = team_of.get(cards.get(death.get("player"), ""), TOWN) == team_of.get(card, TOWN)
                    bad += same
                    good += not same
                fake = seat in declared.get(hand, set()) and card != "cop"
                got = float(points.get(seat, 0))
                out.extend((
                    Stat(seat, card, "points", got, 1),
                    Stat(seat, card, "good_kills", good, 1),
                    Stat(seat, card, "bad_kills", bad, 1),
                    Stat(seat, card, "fake_cop", fake, 1),
                ))  # fmt: skip
                if fake:
                    out.append(Stat(seat, card, "fake_cop_points", got, 1))
    winner = summary.get("winner")
    best = max((float(v) for v in scores.values()), default=0.0)
    per_player = summary.get("per_player") or {}
    usage = summary.get("usage") or {}
    for seat in seats:
        if winner == seat:
            won = 1.0
        elif winner == "draw" and float(scores.get(seat, -1e9)) == best:
            won = 0.5
        else:
            won = 0.0
        out.append(Stat(seat, MATCH, "win", won, 1))
        out.append(Stat(seat, MATCH, "forfeits", float((per_player.get(seat) or {}).get("forfeits", 0)), 1))
        if (usage.get(seat) or {}).get("cost", 0.0) is not None:  # None: no prices, unknown (not $0)
            out.append(Stat(seat, MATCH, "cost", float((usage.get(seat) or {}).get("cost", 0.0)), 1))
    return out


def merge(stats: Iterable[Stat]) -> list[Stat]:
    """One statistic per (seat, role, metric): McKay's hands with the same card are summed."""
    acc: dict[tuple[str, str, str], list[float]] = {}
    for s in stats:
        slot = acc.setdefault((s.seat, s.role, s.metric), [0.0, 0.0])
        slot[0] += s.num
        slot[1] += s.den
    return [Stat(seat, role, metric, num, den) for (seat, role, metric), (num, den) in acc.items()]


def game_stats(variant: str, game: Any, summary: Mapping[str, Any], beliefs: Iterable[Belief] = ()) -> list[Stat]:
    """Every seat's statistics of a finished game held in memory (``Game``), as from its transcript."""
    from arena.variants import get_variant

    from .design import deals_per_hand

    seats = list(game.seats)
    events = [e.to_dict() for e in game.log]
    if deals_per_hand(get_variant(variant)):
        return merge(mckay_stats(variant, seats, events, summary))
    return merge(team_stats(variant, seats, dict(game.role_of), events, summary, beliefs))


def transcript_stats(transcript: Transcript, beliefs: Iterable[Belief] = ()) -> list[Stat]:
    """Every seat's statistics of a finished game's transcript (one per seat, role and metric)."""
    from .design import deals_per_hand

    if transcript.summary is None:
        raise ValueError(f"{transcript.path}: the game did not finish (no summary)")
    from arena.variants import get_variant

    variant = transcript.header["variant"]
    seats = list(transcript.header["seats"])
    summary = transcript.summary
    if deals_per_hand(get_variant(variant)):
        return merge(mckay_stats(variant, seats, transcript.events, summary))
    return merge(team_stats(variant, seats, summary["roles"], transcript.events, summary, beliefs))
