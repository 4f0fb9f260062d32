"""The ``bot`` in McKay's games (``duel``, ``duel3``, ``trio``): legal, better than random, sensible.

Every game is seeded, so each assertion is deterministic; the score margins were measured on these
seeds and are asserted with wide headroom (see each test).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.engine import ActionBase, Decision, DecisionRequest, Game
from arena.engine.actions import DeclareCop, Kill, Pass, Peek, PlaceCard
from arena.players.bot import BotPlayer
from arena.players.bot.strategies import STRATEGIES
from arena.players.bot.strategies.mckay import Duel3Strategy, DuelStrategy, TrioStrategy
from arena.players.registry import make_player
from arena.run.orchestrator import run_sync
from arena.variants import get_variant

SEATS = ("Ann", "Bob", "Cid")
SIZE = {"duel": 2, "duel3": 3, "trio": 3}


def match(variant: str, specs: list[str], seed: int, hands: int) -> Game:
    seats = list(SEATS[: len(specs)])
    game = get_variant(variant)(seats, {"hands": hands}, seed)
    run_sync(game, {name: make_player(spec, name, seed) for name, spec in zip(seats, specs, strict=True)})
    return game


def illegal(game: Game) -> list[dict]:
    return [e.to_dict() for e in game.log if e.type in ("rejected", "forfeit")]


def test_each_mckay_variant_has_its_strategy() -> None:
    assert STRATEGIES["duel"] is DuelStrategy
    assert STRATEGIES["duel3"] is Duel3Strategy
    assert STRATEGIES["trio"] is TrioStrategy


# ---- legality -----------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", sorted(SIZE))
def test_bots_only_make_legal_moves(variant: str) -> None:
    """30 matches: all bots on even seeds, one bot among random players on odd ones."""
    n = SIZE[variant]
    for seed in range(30):
        specs = ["bot"] * n if seed % 2 == 0 else ["random"] * n
        specs[seed % n] = "bot"
        game = match(variant, specs, seed, hands=4)
        assert game.finished, f"{variant} seed {seed}"
        assert illegal(game) == [], f"{variant} seed {seed}"


def test_bot_actions_carry_their_reasoning_and_words() -> None:
    """Every beat answer thinks in expected values; where the table may hear it, the bot talks."""
    for variant in sorted(SIZE):
        game = match(variant, ["bot"] * SIZE[variant], 3, hands=3)
        beats = [e for e in game.log if e.type == "action" and e.phase not in ("judge", "soliloquy", "soliloquy_reply")]
        assert beats, variant
        for e in beats:
            action = e.data["action"]
            assert action.thought and action.thought.startswith("EV "), (variant, action)
            assert action.speech, (variant, action)


def test_a_fake_cop_claim_is_a_lie_the_bot_knows_it_tells() -> None:
    """Mafia and townspeople bots do claim the cop's card when the look is worth it (duel)."""
    fakes = []
    for seed in range(6):
        game = match("duel", ["bot", "bot"], seed, hands=10)
        cards: dict[str, str] = {}
        for e in game.log:
            if e.type == "role":
                cards.update(dict.fromkeys(e.to, e.data["role"]))
            elif e.type == "action" and e.data["action"].kind == "declare_cop" and cards[e.actor] != "cop":
                fakes.append(e.data["action"])
    assert fakes
    for action in fakes:
        assert "cop" in action.speech.lower()
        assert "a lie" in action.thought


def test_the_same_seed_gives_the_same_match() -> None:
    for variant in sorted(SIZE):
        a = match(variant, ["bot"] * SIZE[variant], 11, hands=3)
        b = match(variant, ["bot"] * SIZE[variant], 11, hands=3)
        assert [e.to_dict() for e in a.log] == [e.to_dict() for e in b.log], variant


DIGEST = """
import hashlib, json
from tests.test_bots_mckay import SIZE, match
h = hashlib.sha256()
for variant in sorted(SIZE):
    for seed in range(3):
        h.update(json.dumps([e.to_dict() for e in match(variant, ["bot"] * SIZE[variant], seed, 3).log], default=str).encode())
print(h.hexdigest())
"""


def test_matches_do_not_depend_on_the_process_hash_seed() -> None:
    root = Path(__file__).resolve().parent.parent
    digests = {
        subprocess.run(
            [sys.executable, "-c", DIGEST], cwd=root, env={**os.environ, "PYTHONHASHSEED": str(k)},
            capture_output=True, text=True, check=True,
        ).stdout
        for k in (1, 2)
    }  # fmt: skip
    assert len(digests) == 1


# ---- strength -----------------------------------------------------------------------------------
def margin(variant: str, matches: int = 6, hands: int = 50) -> float:
    """Over seeded matches of one bot among random players (the bot's seat rotating): the bot's
    total score minus the mean random seat's total, summed over the matches."""
    n = SIZE[variant]
    total = 0.0
    for seed in range(matches):
        specs = ["random"] * n
        specs[seed % n] = "bot"
        game = match(variant, specs, seed, hands)
        scores = [game.scores[name] for name in SEATS[:n]]
        bot = scores[seed % n]
        total += bot - (sum(scores) - bot) / (n - 1)
    return total


def test_bot_outscores_random_in_duel() -> None:
    # measured on these seeds: +507 over 6 matches of 50 hands
    assert margin("duel") >= 200


def test_bot_outscores_random_in_duel3() -> None:
    # measured on these seeds: +1360 (single matches swing by about 100 either way: two random
    # players' multipliers run away now and then)
    assert margin("duel3") >= 450


def test_bot_outscores_random_in_trio() -> None:
    # measured on these seeds: +774 (every match between +100 and +160)
    assert margin("trio") >= 350


# ---- crafted situations -------------------------------------------------------------------------
Answer = Callable[[DecisionRequest], ActionBase]


def one_hand(variant: str, deal: dict[str, str], unpicked: list[str]) -> Game:
    return get_variant(variant)(list(deal), None, 0, hands=[{"deal": deal, "unpicked": unpicked}])


def step(game: Game, answers: dict[str, Answer]) -> dict[str, ActionBase]:
    """Answer every pending request (each answer must be legal) and resolve the batch."""
    decisions, out = [], {}
    for request in game.pending():
        action = answers[request.player](request)
        assert game.validate(request, action) is None, (request.player, action)
        decisions.append(Decision(request, action))
        out[request.player] = action
    game.resolve(decisions)
    return out


def bot_answer(game: Game, name: str) -> Answer:
    bot = BotPlayer(name, 1)
    return lambda request: bot.decide_now(request, game.view(name), None)


def passing(_: DecisionRequest) -> ActionBase:
    return Pass()


def test_a_duel_cop_declares_at_once() -> None:
    game = one_hand("duel", {"Ann": "cop", "Bob": "townsperson"}, ["townsperson", "mafia", "mafia"])
    action = step(game, {"Ann": bot_answer(game, "Ann"), "Bob": passing})["Ann"]
    assert isinstance(action, DeclareCop)
    assert action.position in (1, 2, 3)
    assert action.speech and "cop" in action.speech.lower()


@pytest.mark.parametrize("bob", ["mafia", "townsperson"])
def test_a_duel_cop_who_saw_a_townsperson_shoots(bob: str) -> None:
    """Card 1 is a townsperson, so Bob holds one of {townsperson, mafia, mafia}: the kill is worth
    0 on average against the cop's -2 for a peaceful end (what Bob really holds does not matter)."""
    rest = "mafia" if bob == "townsperson" else "townsperson"
    game = one_hand("duel", {"Ann": "cop", "Bob": bob}, ["townsperson", "mafia", rest])
    step(game, {"Ann": lambda r: DeclareCop(position=1), "Bob": passing})
    action = step(game, {"Ann": bot_answer(game, "Ann"), "Bob": passing})["Ann"]
    assert action == Kill(target="Bob", speech=action.speech, thought=action.thought)
    assert "mafia 67%" in action.thought


@pytest.mark.parametrize(
    ("ann", "unpicked"),
    [
        # card 1 is mafia: Bob is mafia one time in three, and shooting a townsperson costs the cop 10
        ("cop", ["mafia", "townsperson", "mafia"]),
        # a mafia that faked the claim and saw the cop: Bob is the other mafia one time in three
        # (-12), a townsperson otherwise (+2); a quiet hand pays the mafia 2
        ("mafia", ["cop", "townsperson", "mafia"]),
    ],
)
def test_a_duel_bot_never_shoots_when_the_shot_is_clearly_bad(ann: str, unpicked: list[str]) -> None:
    game = one_hand("duel", {"Ann": ann, "Bob": "townsperson"}, unpicked)
    step(game, {"Ann": lambda r: DeclareCop(position=1), "Bob": passing})
    answer = bot_answer(game, "Ann")
    kinds = []
    while not game.finished:
        kinds.append(step(game, {"Ann": answer, "Bob": passing})["Ann"].kind)
    assert len(kinds) == 11 and "kill" not in kinds


def test_a_duel3_cop_who_saw_two_townspeople_shoots_the_finalist() -> None:
    """After one look (a townsperson) Bob is mafia 3 times in 5 and the cop looks again; after a
    second townsperson Bob is mafia 3 times in 4: worth a shot."""
    deal = {"Ann": "cop", "Bob": "mafia", "Cid": "townsperson"}
    game = one_hand("duel3", deal, ["townsperson", "townsperson", "mafia", "mafia"])
    step(game, {"Ann": lambda r: DeclareCop(position=1), "Bob": passing, "Cid": passing})
    step(game, {"Ann": passing, "Bob": lambda r: Kill(target="Cid"), "Cid": passing})
    look = step(game, {"Ann": bot_answer(game, "Ann"), "Bob": passing})["Ann"]
    assert isinstance(look, Peek)
    game = one_hand("duel3", deal, ["townsperson", "townsperson", "mafia", "mafia"])
    step(game, {"Ann": lambda r: DeclareCop(position=1), "Bob": passing, "Cid": passing})
    step(game, {"Ann": passing, "Bob": lambda r: Kill(target="Cid"), "Cid": passing})
    step(game, {"Ann": lambda r: Peek(position=2), "Bob": passing})
    shot = step(game, {"Ann": bot_answer(game, "Ann"), "Bob": passing})["Ann"]
    assert isinstance(shot, Kill) and shot.target == "Bob"
    assert "Bob: mafia 75%" in shot.thought


def test_a_trio_mafia_who_saw_the_cop_in_the_centre_shoots_the_false_cop() -> None:
    """Ann (mafia) looked first and saw the cop's card, so Cid's later claim is a lie: Cid holds a
    townsperson's card two times in three, and a mafia alone scores 3 against 0 beside a
    townsperson, more than the 5 of sparing a partner one time in three."""
    deal = {"Ann": "mafia", "Bob": "townsperson", "Cid": "townsperson"}
    game = one_hand("trio", deal, ["cop", "mafia"])
    step(game, {"Ann": lambda r: DeclareCop(position=1), "Bob": passing, "Cid": passing})
    step(game, {"Ann": passing, "Bob": passing, "Cid": lambda r: DeclareCop(position=None)})
    step(game, {"Ann": lambda r: PlaceCard(slot="Bob"), "Bob": passing, "Cid": lambda r: PlaceCard(slot="Bob")})
    assert game.phase == "round2"
    action = step(game, {"Ann": bot_answer(game, "Ann"), "Cid": passing})["Ann"]
    assert isinstance(action, Kill) and action.target == "Cid"
    assert "cop" not in action.thought.split("Cid:")[1]


def test_a_mafia_bot_lies_about_the_card_it_saw_and_knows_it() -> None:
    game = one_hand("duel", {"Ann": "mafia", "Bob": "townsperson"}, ["cop", "mafia", "townsperson"])
    step(game, {"Ann": lambda r: DeclareCop(position=1), "Bob": passing})
    action = step(game, {"Ann": bot_answer(game, "Ann"), "Bob": passing})["Ann"]
    assert action.speech in ("Card 1 is a townsperson.", "I looked: card 1 is a townsperson.")
    assert "a lie, it is the cop" in action.thought


# ---- offers made in time (issue 25.3) -------------------------------------------------------------
def stepped(variant: str, specs: list[str], seed: int, hands: int) -> list[tuple[DecisionRequest, ActionBase, dict, int]]:
    """A match played step by step: every bot's (request, action, offers made so far, beat)."""
    seats = list(SEATS[: len(specs)])
    game = get_variant(variant)(seats, {"hands": hands}, seed)
    players = {name: make_player(spec, name, seed) for name, spec in zip(seats, specs, strict=True)}
    out = []
    while not game.finished:
        pending = game.pending()
        offers = dict(getattr(game, "offers", {}))
        answers = [Decision(r, players[r.player].decide_now(r, game.view(r.player), None)) for r in pending]
        beat = getattr(game, "beat", 0)
        out += [(d.request, d.action, offers, beat) for d in answers if isinstance(players[d.request.player], BotPlayer)]
        game.resolve(answers)
    return out


def test_no_bot_offers_a_handshake_nobody_can_answer_in_time() -> None:
    """On a round's last beat an offer stands only if every other living player offered in the
    beat before (then it accepts); otherwise nobody could answer it, and no bot makes it. (Before
    the fix, 26 of the 31 last-beat answers of these duel matches were such offers; duel3 hands
    seldom reach their last beat.)"""
    last_beat = 0
    for variant, seed in [(v, s) for v in ("duel", "duel3") for s in range(40)]:
        n = SIZE[variant]
        specs = ["bot"] * n if seed % 2 == 0 else ["random"] * (n - 1) + ["bot"]
        for request, action, offers, beat in stepped(variant, specs, seed, hands=3):
            if request.clock is None or request.clock.left != 1 or request.group != "beat":
                continue
            last_beat += 1
            if action.kind == "handshake":
                others = [o for o in request.alive if o != request.player]
                assert all(offers.get(o) == beat - 1 for o in others), (variant, seed, request.player, offers, beat)
    assert last_beat >= 10


def test_the_thought_shows_enough_digits_to_tell_the_best_from_the_next() -> None:
    from arena.players.bot.strategies.mckay import words

    assert words.values_text({"Ann": 1.4213, "Cid": 1.4198}) == "Ann +1.421, Cid +1.420"
    assert words.values_text({"Ann": 3.37, "Cid": 3.33}) == "Ann +3.37, Cid +3.33"
    tie = words.thought("Ann", {"Ann": 1.5, "Cid": 1.5}, {})
    assert "-> Ann (a tie, drawn)" in tie
    assert "(a tie" not in words.thought("Ann", {"Ann": 1.5001, "Cid": 1.5}, {})
