"""One wording for the model prompts and a person's screens (issues 30.4–30.6 and 32): the mafia's rule
by day, the exact mafia count a mafia seat knows, McKay's point tables and the reason for each hand's
score, on the terminal, on the served seat page and in `arena prompts`."""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

from arena.cli.prompts import when_words
from arena.engine.events import PUBLIC, Event
from arena.engine.wording import public_mafia
from arena.players.bot import BotPlayer
from arena.players.convention import CHANNEL_RULE, day_note
from arena.players.human import HumanPlayer
from arena.players.human.screen import hand_table, help_text
from arena.players.random import RandomPlayer
from arena.players.web import page_rules, seat_notes
from arena.run.config import DEFAULT_NAMES
from arena.run.orchestrator import run, run_sync
from arena.variants import VARIANTS
from arena.variants.mckay import scoring
from tests.test_human import autopilot, recording_console, screen_of
from tests.test_serve import create, served

DECK = (("mafia", 2), ("citizen", 6), ("inspector", 1))


def death(player: str, to: frozenset[str] | None = None, **data: Any) -> Event:
    return Event(1, "death", 2, "morning", PUBLIC if to is None else f"player:{player}", to, None, {"player": player, **data})


# ---- the count ------------------------------------------------------------------------------------
def test_a_mafia_seat_is_told_the_exact_count_with_names() -> None:
    hidden = [death("Cid", cause="night")]  # a death with the card not shown: a range for the table
    assert public_mafia(DECK, hidden).startswith("Mafia alive: 1 to 2 (")
    assert public_mafia(DECK, hidden, me="Ann", role="mafia", team=("Ann", "Dee")) == "Mafia alive: 2 — you and Dee."
    dead_partner = [*hidden, death("Dee", cause="execution")]
    assert public_mafia(DECK, dead_partner, me="Ann", role="mafia", team=("Ann", "Dee")) == "Mafia alive: 1 — you."
    # not yet told the team (village's day 1): itself at least, while alive
    assert public_mafia(DECK, [death("Cid", cause="night"), death("Eve", cause="night")], me="Ann", role="mafia").startswith(
        "Mafia alive: 1 to 2 ("
    )
    cove = (("mafia", 2), ("maniac", 1), ("civilian", 4))
    assert public_mafia(cove, hidden, me="Kim", role="maniac").endswith("Maniac alive: 1 — you.")
    assert "Maniac alive: 0 to 1 (1 dealt, none shown dead; 1 death with the card not shown)." in public_mafia(cove, hidden)


# ---- the mafia's rule on a person's terminal --------------------------------------------------------
def test_a_person_in_the_mafia_reads_the_rule_with_the_team_and_every_day() -> None:
    cls = VARIANTS["classic"]
    seats = list(DEFAULT_NAMES[:7])
    game = cls(seats, None, 3)  # Ann and Gus are the mafia
    assert game.role_of["Ann"] == game.role_of["Gus"] == "mafia"
    console = recording_console()
    me = HumanPlayer("Ann", console=console, keyboard=autopilot(3))
    table: dict[str, Any] = {n: BotPlayer(n, 3) for n in seats if n != "Ann"}
    table["Ann"] = me
    asyncio.run(run(game, table, [me]))
    screen = screen_of(console)
    assert "So by day your accusation also names your team's shot." in screen
    assert screen.index("members: Ann, Gus") < screen.index("Your team's night shot follows one rule")
    assert "Your accusation also names your team's shot" in screen
    assert "Mafia alive: 2 — you and Gus." in screen


def test_help_shows_mckay_points_and_a_mafia_seat_its_rule() -> None:
    for variant in ("duel", "duel3", "trio"):
        console = recording_console()
        console.print(help_text(variant, VARIANTS[variant].Options().model_dump(mode="json")))
        screen = screen_of(console)
        assert "Scoring (points per hand)" in screen
        if variant == "trio":
            assert "mafia, alone: 3" in screen and "at most 3" in screen
        else:
            assert "mafia kills cop: 5" in screen and "cop kills townsperson: −10" in screen
    console = recording_console()
    console.print(help_text("classic", {}, "Your team's night shot follows one rule."))
    assert "Your team's rule (mafia only)\nYour team's night shot follows one rule." in screen_of(console)


def test_the_score_table_gives_each_hands_points_a_reason() -> None:
    data = {
        "number": 1, "roles": {"Ann": "cop", "Bob": "mafia"}, "points": {"Ann": 5, "Bob": 0}, "bonus": {"Ann": 1, "Bob": 0},
        "scores": {"Ann": 5, "Bob": 0},
        "why": {"Ann": "cop killed Bob (mafia): 5 × bonus 1: +5", "Bob": "killed by Ann: no points, bonus back to 0"},
    }  # fmt: skip
    console = recording_console()
    console.print(hand_table(data))
    screen = screen_of(console)
    assert "Ann: cop killed Bob (mafia): 5 × bonus 1: +5" in screen and "Bob: killed by Ann: no points" in screen


def _last_number(text: str) -> int:
    return int(re.findall(r"[+−]?\d+", text)[-1].replace("−", "-"))


def test_each_reason_adds_up_to_the_points_the_tables_gave() -> None:
    for variant in ("duel", "duel3", "trio"):
        cls = VARIANTS[variant]
        for seed in range(12):
            seats = list(DEFAULT_NAMES[: cls.default_players])
            game = cls(seats, {"hands": 3}, seed)
            players = {n: BotPlayer(n, seed) if seed % 2 else RandomPlayer(n, seed) for n in seats}
            run_sync(game, players)
            for event in (e for e in game.log if e.type == "hand_over"):
                for name, why in event.data["why"].items():
                    points = event.data["points"][name]
                    if variant == "trio":
                        assert _last_number(why) == points, (why, points)
                        continue
                    # duel, duel3: each part's points (a kill's product or flat points, the survivors')
                    parts = [p for p in why.split("; ") if not p.startswith(("killed by", "died in"))]
                    total = sum(_last_number(p.replace(" flat, bonus back to 0", "")) for p in parts)
                    assert total == points, (why, points)


# ---- the day note, the channel, the seat page ---------------------------------------------------------
def test_the_day_note_is_for_a_classic_mafia_seat_with_a_partner_only() -> None:
    team = Event(1, "team", 0, "first_night", "team:mafia", frozenset({"Ann", "Dee"}), None, {"members": ["Ann", "Dee"]})
    accuse = Event(2, "accusation", 1, "discussion", PUBLIC, None, "Dee", {"accused": "Bob"})
    alive = ("Ann", "Bob", "Cid", "Dee")
    note = day_note("classic", "verdict", "mafia", [team, accuse], alive, "Ann")
    assert note is not None and note.startswith("You cannot accuse in this answer, but the day's accusations")
    assert "names Bob" in note
    turn = day_note("classic", "discussion", "mafia", [team, accuse], alive, "Ann")
    assert turn is not None and turn.startswith("Your accusation also names your team's shot") and "names Bob" in turn
    assert day_note("classic", "verdict", "citizen", [accuse], alive, "Bob") is None
    assert day_note("classic", "night_kill", "mafia", [team, accuse], alive, "Ann") is None  # the night says it all
    assert day_note("cove", "vote", "mafia", [team, accuse], alive, "Ann") is None  # a channel, not a silent shot
    assert "bot partners follow the first pointing" in CHANNEL_RULE


async def test_the_seat_page_carries_the_notes_and_mckays_points(tmp_path) -> None:
    async with served(tmp_path) as client:
        made = await create(client, variant="classic", players=7, seed=3, seats={"Ann": "person:Ann"})
        token = made["seats"]["Ann"]["token"]
        notes: list[str] = []
        rules: dict[str, Any] = {}
        after = 0
        for _ in range(400):
            url = f"/api/tables/{made['table']}/seat?after={after}&wait=10"
            state = await (await client.get(url, headers={"X-Seat-Token": token})).json()
            rules = state.get("rules") or rules
            if state["events"]:
                after = state["events"][-1]["seq"]
            if state["over"]:
                break
            decision = state["decision"]
            if decision is not None:
                notes += decision["notes"]
                if "Your accusation also names your team's shot" in " ".join(notes) and rules.get("team_rule"):
                    break
                body = {"decision": decision["id"], "action": dict(decision["default"])}
                await client.post(f"/api/tables/{made['table']}/seat/answer", json=body, headers={"X-Seat-Token": token})
        assert "Mafia alive: 2 — you and Gus." in notes
        assert any(n.startswith("Your accusation also names your team's shot") for n in notes)
        assert rules["team_rule"].startswith("Your team's night shot follows one rule")
    duel = page_rules("duel", {}, [])
    assert "mafia kills cop: 5" in duel["scoring"] and duel["team_rule"] is None


def test_seat_notes_name_the_channel_rule_for_a_mafia_seat() -> None:
    cls = VARIANTS["village"]
    game = cls(list(DEFAULT_NAMES[:8]), None, 1)
    bots = {n: BotPlayer(n, 1) for n in game.seats}
    from arena.engine import Decision

    for _ in range(500):
        pending = game.pending()
        channel = next((r for r in pending if r.group == "mafia_channel"), None)
        if channel is not None:
            notes = seat_notes(channel, game.view(channel.player).events, channel.player)
            assert f"On the night channel {CHANNEL_RULE}." in notes
            assert any(n.startswith("Mafia alive: ") and " — you" in n for n in notes)
            return
        game.resolve([Decision(r, bots[r.player].decide_now(r, game.view(r.player), None)) for r in pending])
    raise AssertionError("no channel question")


# ---- arena prompts' headings -----------------------------------------------------------------------
def test_arena_prompts_says_night_and_the_words_a_reader_knows() -> None:
    assert when_words(1, "night_kill") == "night 1, the night shot"
    assert when_words(2, "discussion") == "day 2, a discussion turn"
    assert when_words(3, "beat") == "hand 3, a beat"
    assert "_" not in when_words(1, random.choice(["mafia_channel", "last_words", "soliloquy_reply"]))
    assert scoring.duel_reasons  # the reasons live beside the tables they explain
