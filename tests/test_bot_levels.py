"""``bot?mafia=L&town=L`` / ``bot?level=L``: a bot below full strength, per side (issue 23.1)."""

from __future__ import annotations

import random

import pytest

import arena.players.bot.player as bot_player
from arena.players.registry import SpecError, bot_levels, is_builtin, make_player
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import run_sync
from arena.variants import get_variant
from tests.test_bot_fairness import renamer, same_audience

TABLES = [("classic", 9, None), ("village", 9, None), ("cove", 10, None), ("duel", 2, {"hands": 2}),
          ("duel3", 3, {"hands": 2}), ("trio", 3, {"hands": 2})]  # fmt: skip


def play(variant: str, seats: list[str], seed: int, spec: str, options: dict | None = None):
    game = get_variant(variant)(seats, options, seed)
    run_sync(game, {p: make_player(spec, p, seed) for p in seats})
    return game


def test_levels_parse_per_side_and_for_both() -> None:
    assert bot_levels("bot?mafia=1&town=0.2") == {"mafia": 1.0, "town": 0.2}
    assert bot_levels("bot?level=0.25") == {"mafia": 0.25, "town": 0.25}
    assert bot_levels("bot?town=0") == {"mafia": 1.0, "town": 0.0}
    assert bot_levels("bot") == {"mafia": 1.0, "town": 1.0}
    player = make_player("bot?mafia=0.5", "Ann", 3)
    assert player.levels == {"mafia": 0.5, "town": 1.0} and player.spec == "bot"
    assert is_builtin("bot?level=0.5") and is_builtin("random") and not is_builtin("openai:gpt-4.1-mini")


@pytest.mark.parametrize(
    ("spec", "words"),
    [("bot?level=2", "between 0 and 1"), ("bot?skill=1", "use level=L"), ("bot?level=x", "not a number"),
     ("bot?level=0.5&mafia=1", "not both"), ("bot?town=1&town=0", "twice"), ("random?level=0.5", "only bot")],
)  # fmt: skip
def test_a_bad_level_is_one_line(spec: str, words: str) -> None:
    with pytest.raises(SpecError, match=words) as caught:
        make_player(spec, "Ann", 0)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("variant", "n", "options"), TABLES)
def test_full_strength_is_todays_bot(variant: str, n: int, options: dict | None) -> None:
    seats = list(DEFAULT_NAMES[:n])
    for seed in range(3):
        plain = play(variant, seats, seed, "bot", options)
        full = play(variant, seats, seed, "bot?mafia=1&town=1", options)
        assert [e.to_dict() for e in plain.log] == [e.to_dict() for e in full.log]


@pytest.mark.parametrize(("variant", "n", "options"), TABLES)
def test_a_level_is_deterministic_and_blind_to_names(variant: str, n: int, options: dict | None) -> None:
    """Same seed, same game; the seats renamed, the same game up to the names (the coin hangs on the
    seat's position and the seed, as the bot's own draws do)."""
    names = list(DEFAULT_NAMES[:n])
    renamed = names[:]
    random.Random(n).shuffle(renamed)
    rename = renamer(names, renamed)
    for seed in range(3):
        a = play(variant, names, seed, "bot?mafia=0.5&town=0.3", options)
        again = play(variant, names, seed, "bot?mafia=0.5&town=0.3", options)
        b = play(variant, renamed, seed, "bot?mafia=0.5&town=0.3", options)
        assert [e.to_dict() for e in a.log] == [e.to_dict() for e in again.log]
        mapped = [same_audience(rename(e.to_dict())) for e in a.log]
        assert mapped == [same_audience(e.to_dict()) for e in b.log]


@pytest.mark.parametrize(("variant", "n", "options"), TABLES)
def test_each_side_plays_at_its_own_level(variant: str, n: int, options: dict | None, monkeypatch) -> None:
    """``mafia=0&town=1``: every decision on a non-town card (the mafia, cove's maniac, a McKay hand's
    mafia card) is a random move, and none on a town card; ``mafia=1&town=0`` the reverse."""
    drawn: list[str] = []
    real = bot_player.random_action

    def counting(request, rng, made=None):
        drawn.append("random")
        return real(request, rng, made)

    monkeypatch.setattr(bot_player, "random_action", counting)
    seats = list(DEFAULT_NAMES[:n])
    for spec, random_side in (("bot?mafia=0&town=1", "other"), ("bot?mafia=1&town=0", "town")):
        teams = {"town": 0, "other": 0}
        random_on = {"town": 0, "other": 0}
        for seed in range(3):
            game = get_variant(variant)(seats, options, seed)
            players = {p: make_player(spec, p, seed) for p in seats}

            def watch(player, decide, teams=teams, random_on=random_on):
                def decide_now(request, view, feedback):
                    before = len(drawn)
                    answer = decide(request, view, feedback)
                    side = "town" if player.memory.team in ("town", "") else "other"
                    teams[side] += 1
                    random_on[side] += len(drawn) - before
                    return answer

                return decide_now

            for p in players.values():
                p.decide_now = watch(p, p.decide_now)
            run_sync(game, players)
        other = "town" if random_side == "other" else "other"
        assert random_on[random_side] == teams[random_side] > 0
        assert random_on[other] == 0


def test_the_levels_order_the_mafia_side() -> None:
    """A full-strength mafia beats a random one against the same town, deal for deal (classic 7)."""
    seats = list(DEFAULT_NAMES[:7])
    wins = {}
    for spec in ("bot?mafia=1&town=1", "bot?mafia=0&town=1"):
        wins[spec] = sum(play("classic", seats, seed, spec).winner == "mafia" for seed in range(40))
    assert wins["bot?mafia=1&town=1"] > wins["bot?mafia=0&town=1"] + 5
