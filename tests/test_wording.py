"""How the console words a death: the cause must not read as the dead player's card."""

from arena.engine.events import PUBLIC, Event
from arena.engine.wording import public_line


def death(cause: str, **data: object) -> Event:
    return Event(1, "death", 2, "morning", PUBLIC, None, None, {"player": "Dee", "cause": cause, **data})


def test_a_mafia_kill_reads_as_a_cause_not_a_card() -> None:
    # "† Dee dies (mafia)." beside "(execution)" and "(lot)" read as Dee's role (a newcomer's trial)
    assert public_line(death("mafia")) == ("† Dee dies (killed by the mafia).", "bold red")


def test_a_shown_card_is_still_said_apart_from_the_cause() -> None:
    line, _ = public_line(death("mafia", role="citizen"))
    assert line == "† Dee dies (killed by the mafia) — was citizen."
