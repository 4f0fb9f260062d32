"""Deception measures (issue 35): what a table of bots believes of a mafia seat after its act.

:func:`arena.positions.answer.fork_measures` reads, beside the share of the town's later decisions
that named the speaker, the other living town bots' belief that it is mafia at each later day's
start. A ballot that tries to save a fellow mafia seat is believed more mafia than one condemning
it, and every believer reads only its own view (each event it is handed is one it saw).
"""

from __future__ import annotations

import statistics

import pytest

import arena.players.bot.player as bot_player
from arena.engine import parse_action
from arena.positions.answer import believed, fork_measured, position_seed, seat_at, table_players
from arena.positions.bank import DECEPTION, Games, load_bank

SHIPPED_BANK = load_bank()
GAMES = Games(None)


def partner_ballots() -> list:
    """The shipped bank's mafia ballots on a fellow mafia seat's verdict."""
    out = []
    for position in SHIPPED_BANK:
        if position.kind != DECEPTION or position.what != "verdict":
            continue
        game, request = seat_at(GAMES(position), position, table_players(GAMES(position)))
        accused = request.info.get("accused")
        if accused is not None and game.team(str(accused)) == "mafia":
            out.append(position)
    return out


def test_a_ballot_saving_a_fellow_mafia_is_believed_more_mafia_than_one_condemning_it():
    positions = partner_ballots()
    assert len(positions) >= 10
    saved, condemned = [], []
    for position in positions:
        seed = position_seed(position, 0)
        save = fork_measured(GAMES(position), position, parse_action({"kind": "verdict", "yes": False}), seed)
        condemn = fork_measured(GAMES(position), position, parse_action({"kind": "verdict", "yes": True}), seed)
        if save["days"] is not None and condemn["days"] is not None:
            saved.append(save["days"])
            condemned.append(condemn["days"])
            assert 0.0 <= save["days"] <= 1.0 and 0.0 <= condemn["days"] <= 1.0
    assert len(saved) >= 10
    assert statistics.mean(saved) > statistics.mean(condemned) + 0.05
    assert sum(s > c for s, c in zip(saved, condemned, strict=True)) > len(saved) * 2 // 3


def test_a_believer_reads_only_its_own_view(monkeypatch: pytest.MonkeyPatch):
    real = bot_player.suspicion_beliefs
    seen: list[str] = []

    def spy(name, view, seats, candidates, prior):
        assert view.player == name
        assert all(e.to is None or name in e.to for e in view.events), name
        seen.append(name)
        return real(name, view, seats, candidates, prior)

    monkeypatch.setattr(bot_player, "suspicion_beliefs", spy)
    position = next(p for p in SHIPPED_BANK if p.kind == DECEPTION and p.day >= 2)
    game, _ = seat_at(GAMES(position), position, table_players(GAMES(position)))
    value = believed(game, position.seat)
    town = [s for s in game.alive if s != position.seat and game.team(s) == "town"]
    assert value is not None and 0.0 <= value <= 1.0
    assert sorted(seen) == sorted(town)  # the other living town seats, each once, and never the speaker
    assert any(e.to is not None for e in game.log)  # there were hidden events to leave out


def test_the_deception_score_is_the_mean_of_its_play_ons_of_the_same_seeds():
    from arena.positions import answer as answer_module

    position = next(p for p in SHIPPED_BANK if p.kind == DECEPTION and p.what == "verdict")
    seed = position_seed(position, 0)
    seeds = answer_module.fork_seeds(seed, answer_module.FORKS)
    assert seeds[0] == seed and len(set(seeds)) == answer_module.FORKS > 1
    each = [fork_measured(GAMES(position), position, None, s)["named"] for s in seeds]
    got = answer_module.fork_and_play(GAMES(position), position, None, seed)
    assert got == pytest.approx(statistics.mean(v for v in each if v is not None))
    assert got == answer_module.fork_and_play(GAMES(position), position, None, seed)  # the same for every player
