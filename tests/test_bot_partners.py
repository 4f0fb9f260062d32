"""Bot mafia partners coordinate only through what every partner sees (issue 25.1).

Classic's shots are silent; the bots follow the public convention every mafia seat is told
(:mod:`arena.players.convention`), so a non-bot partner following the told words joins the team
as well as a bot: its team kills about as often as an all-bot team.
"""

from __future__ import annotations

import asyncio
import random

from arena.engine import Decision
from arena.engine.actions import Kill
from arena.players.convention import CONVENTION, lead, lead_in_view, team_note
from arena.players.human import HumanPlayer
from arena.players.llm.prompt import Conversation, make_env
from arena.players.registry import make_player
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import run_sync
from arena.variants import get_variant
from tests.followers import Follower

SEATS = list(DEFAULT_NAMES[:9])


def kill_rate(games: int, follower: str | None) -> float:
    kills = shots = 0
    for seed in range(games):
        game = get_variant("classic")(SEATS, None, seed)
        players = {p: make_player("bot", p, seed) for p in SEATS}
        if follower is not None:
            seat = random.Random(f"seat:{seed}").choice([p for p in SEATS if game.team(p) == "mafia"])
            players[seat] = Follower(seat, seed, follower)
        run_sync(game, players)
        for e in game.log:
            if e.type == "morning" and e.data["number"] >= 1:
                shots += 1
                kills += bool(e.data["killed"])
    return kills / shots


def test_bot_shots_are_the_convention_read_off_the_view() -> None:
    """Every bot mafia shot is the player the convention names in that bot's own view."""
    checked = 0
    for seed in range(60):
        game = get_variant("classic")(SEATS, None, seed)
        bots = {p: make_player("bot", p, seed) for p in SEATS}
        while not game.finished:
            pending = game.pending()
            answers = [Decision(r, bots[r.player].decide_now(r, game.view(r.player), None)) for r in pending]
            for d in answers:
                if d.request.group == "night_kill" and game.team(d.request.player) == "mafia":
                    _, named = lead_in_view(game.view(d.request.player).events, d.request.alive)
                    if named is not None:
                        assert isinstance(d.action, Kill) and d.action.target == named, (seed, d.request.player)
                        checked += 1
            game.resolve(answers)
    assert checked > 100


def test_the_convention_follows_any_partner_and_falls_back_in_the_told_order() -> None:
    team, alive = {"Ann", "Dee"}, {"Ann", "Bob", "Cid", "Dee", "Eve"}
    said = [("Ann", "Bob"), ("Cid", "Eve"), ("Dee", "Cid"), ("Eve", "Ann")]
    assert lead(said, team, alive) == "Cid"  # the team's latest, whoever of the team made it
    assert lead(said, team, alive - {"Cid"}) == "Bob"
    assert lead([("Cid", "Eve"), ("Bob", "Dee")], team, alive) == "Eve"  # nobody of the team accused
    assert lead([], team, alive, [["Bob"], ["Dee", "Eve", "Cid"]]) == "Eve"  # today's first outsider to speak
    assert lead([], team, alive - {"Eve", "Cid"}, [["Bob"], ["Dee", "Eve", "Cid"]]) == "Bob"  # an earlier day
    assert lead([], team, alive) is None


def test_a_team_with_a_non_bot_partner_kills_as_often_as_an_all_bot_team() -> None:
    """Goal of the issue: within 10 points (about 300 nights each: a standard error near 2 points)."""
    bots = kill_rate(120, None)
    for day in ("bot", "random"):
        mixed = kill_rate(120, day)
        assert abs(bots - mixed) < 0.10, f"follower ({day} day) kills {mixed:.0%}, all bots {bots:.0%}"
    assert bots > 0.9


def night_request(seed: int = 3):
    game = get_variant("classic")(SEATS, None, seed)
    bots = {p: make_player("bot", p, seed) for p in SEATS}
    while True:
        pending = game.pending()
        for r in pending:
            if r.group == "night_kill" and r.day >= 1 and game.team(r.player) == "mafia":
                return game, r
        game.resolve([Decision(r, bots[r.player].decide_now(r, game.view(r.player), None)) for r in pending])


def test_a_model_mafia_seat_is_told_its_partners_and_the_convention_at_every_night() -> None:
    game, request = night_request()
    me = request.player
    partners = [p for p in game.alive if game.team(p) == "mafia" and p != me]
    _, named = lead_in_view(game.view(me).events, request.alive)
    conversation = Conversation(me, "classic", {}, "tools", make_env())
    for _ in range(2):  # the first and a later question alike
        text = conversation.ask(request, game.view(me), None, "{}")["content"]
        assert f"Your partners: {' and '.join(partners)}." in text and CONVENTION in text
        assert f"Right now that is {named}." in text
    town = next(p for p in game.alive if game.team(p) == "town")
    assert team_note("night_kill", "citizen", game.view(town).events, request.alive, town) is None
    assert team_note("vote", "mafia", game.view(me).events, request.alive, me) is None


def test_a_person_on_the_mafia_is_told_the_same_on_the_night_screen() -> None:
    from tests.test_human import recording_console, screen_of, typed

    game, request = night_request()
    me = request.player
    console = recording_console()
    person = HumanPlayer(me, console=console, keyboard=typed("1"))
    asyncio.run(person.decide(request, game.view(me), None))
    screen = " ".join(screen_of(console).split())
    _, named = lead_in_view(game.view(me).events, request.alive)
    assert "Your partners:" in screen and CONVENTION in screen and f"Right now that is {named}." in screen
