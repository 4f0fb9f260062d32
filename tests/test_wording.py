"""How the console words a death: the cause must not read as the dead player's card."""

from arena.engine.events import PUBLIC, Event
from arena.engine.wording import private_line, public_line, public_mafia, signed_number


def death(cause: str, **data: object) -> Event:
    return Event(1, "death", 2, "morning", PUBLIC, None, None, {"player": "Dee", "cause": cause, **data})


def test_a_mafia_kill_reads_as_a_cause_not_a_card() -> None:
    # "† Dee dies (mafia)." beside "(execution)" and "(lot)" read as Dee's role (a newcomer's trial)
    assert public_line(death("mafia")) == ("† Dee dies (killed by the mafia).", "bold red")


def test_a_shown_card_is_still_said_apart_from_the_cause() -> None:
    line, _ = public_line(death("mafia", role="citizen"))
    assert line == "† Dee dies (killed by the mafia) — was citizen."


# ---- issue 25.5 and 26: what a person reads --------------------------------------------------------
def event(type_: str, actor: str | None = None, to: frozenset[str] | None = None, **data: object) -> Event:
    return Event(1, type_, 2, "day", PUBLIC if to is None else "player:Ann", to, actor, data)


def test_village_counts_accusations_as_they_come_and_says_a_repeat_counts_nothing() -> None:
    assert public_line(event("accusation", "Bob", accused="Cid", count=2)) == ("Cid now has 2 accusations today.", "dim")
    assert public_line(event("accusation", "Bob", accused="Cid")) is None  # classic: the speech already says it
    line, _ = public_line(event("speech", "Bob", kind="discussion", text="Cid again.", accuse="Cid", again=True))
    assert "accuses Cid again: already counted, this changes nothing" in line


def test_a_tied_vote_shows_its_count_before_the_revote() -> None:
    votes = {"Ann": "Bob", "Bob": "Cid", "Cid": "Bob", "Dee": "Cid", "Eve": None}
    line, _ = public_line(
        event("vote_result", vote="nominees", candidates=["Bob", "Cid"], votes=votes, result=None, tied=["Bob", "Cid"])
    )
    assert "(count: Bob 2 · Cid 2) — a tie between Bob and Cid." in line
    both = event("vote_result", vote="both_leave", candidates=["Cid", "Fay"], yes=["Ann"], no=["Bob"], passed=False)
    assert public_line(both)[0].startswith("Vote on whether both Cid and Fay leave: 1 yes (Ann), 1 no (Bob)")


def test_cards_causes_and_failed_kills_read_as_words() -> None:
    assert private_line(event("role", to=frozenset({"Ann"}), role="mafia", team="mafia")) == "[Ann] card: mafia (team mafia)"
    assert public_line(death("mistress"))[0] == "† Dee dies (died with the mistress: her client dies with her)."
    void = event("kill_void", "Bob", target="Ann", reason="its killer was killed first, earlier in this beat's hidden order")
    assert public_line(void)[0] == "Bob's kill of Ann fails (its killer was killed first, earlier in this beat's hidden order)."
    shots = private_line(event("shots", to=frozenset({"Ann"}), shots={"Ann": "Fay", "Dee": "Gus"}, victim=None))
    assert shots.endswith("victim: nobody: a kill needs more than half of the living mafia on the same player")


def test_one_minus_sign_in_scores() -> None:
    line, _ = public_line(
        event("hand_over", number=1, reason="kill", roles={"Ann": "cop"}, points={"Ann": -5}, scores={"Ann": -1})
    )
    assert "Ann −5" in line and "Ann −1" in line and "-" not in line.replace("—", "")
    assert signed_number(-12) == "−12" and signed_number(3) == "+3" and signed_number(0) == "0"


def test_the_public_mafia_count_reads_only_public_deaths() -> None:
    deck = (("mafia", 2), ("citizen", 6), ("inspector", 1))
    assert public_mafia(deck, []) == "Mafia alive: 2 (2 dealt, none shown dead)."
    shown = [event("death", player="Bob", cause="execution", role="mafia")]
    assert public_mafia(deck, shown) == "Mafia alive: 1 (2 dealt, 1 shown dead)."
    hidden = [
        event("death", player="Cid", cause="night"),
        event("death", player="Dee", cause="mafia", to=frozenset({"Dee"}), role="mafia"),
    ]
    assert public_mafia(deck, hidden) == "Mafia alive: 1 to 2 (2 dealt, none shown dead; 1 death with the card not shown)."
    assert public_mafia((("townsperson", 2),), []) is None
