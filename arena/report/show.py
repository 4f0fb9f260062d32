"""``arena show``: a transcript told in the terminal, in the console's own sentences.

The lines are the ones ``arena play --reveal`` prints as a game happens (``arena.console``), so a
game reads the same live and afterwards. On top of them: each claim judged against the cards and
the check results, and the model usage of each decision, both taken from the same
:class:`~arena.report.story.Story` the HTML report is built from. With ``--as NAME`` only the
events NAME could see are told (:meth:`Event.visible_to`, the engine's rule), and the seats table
shows only the cards NAME knew.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.console import _private, _public
from arena.report.story import NOTE_LINES, Answer, SeatUsage, Story, build_story
from arena.transcript import Transcript


class ShowError(ValueError):
    """A viewer name that is not a seat (one line)."""


def _answers(story: Story) -> dict[int, Answer]:
    out: dict[int, Answer] = {}
    for section in story.sections:
        for item in section.items:
            candidates = [item.answer, *(row.get("answer") for row in item.rows)]
            for answer in candidates:
                if answer is not None:
                    out[answer.seq] = answer
    return out


def _private_line(event_type: str, who: str, line: str | None, actor: str | None, data: dict) -> str | None:
    note = NOTE_LINES.get(event_type)
    if note is not None:
        return f"[{who}] {note(actor, data)}"
    return line


def show(transcript: Transcript, console: Console, viewer: str | None = None) -> None:
    """Print the game; with ``viewer``, exactly that seat's view of it."""
    story = build_story(transcript)
    seats = [seat.name for seat in story.seats]
    if viewer is not None and viewer not in seats:
        raise ShowError(f"there is no seat named {viewer!r}; seats: {', '.join(seats)}")
    answers = _answers(story)
    events = [e for e in story.events if viewer is None or e.visible_to(viewer)]
    title = f"{story.variant}, seed {story.seed}: {len(seats)} seats — {story.result}"
    console.print(Text(title, style="bold"), highlight=False)
    if viewer is not None:
        role = next((s.role for s in story.seats if s.name == viewer), "")
        console.print(
            Text(f"As seen by {viewer} ({role}): {len(events)} of {len(story.events)} events.", style="bold magenta"),
            highlight=False,
        )
    day_word = "Hand" if story.mckay else "Day"
    for event in events:
        if event.to is None:
            shown = _public(event, day_word)
            if shown is not None:
                console.print(Text(*shown), highlight=False, soft_wrap=True)
            continue
        who = event.audience.removeprefix("player:")
        line = _private_line(event.type, who, _private(event), event.actor, event.data)
        answer = answers.get(event.seq)
        extra = []
        if answer is not None and answer.claim:
            checks = (f"{c.text} {'✓' if c.true else '✗'}" + (f" ({c.note})" if c.note else "") for c in answer.claim)
            extra.append("claim: " + "; ".join(checks))
        if answer is not None and answer.usage is not None:
            extra.append(answer.usage.text())
        if line is None and extra:
            line = f"[{who}] {answer.text if answer else event.type}"
        if line is not None:
            console.print(Text(line, style="dim"), highlight=False, soft_wrap=True)
            for more in extra:
                console.print(Text(f"    {more}", style="dim"), highlight=False, soft_wrap=True)
    _seats_table(console, story, viewer)


def _seats_table(console: Console, story: Story, viewer: str | None) -> None:
    table = Table(title=f"{story.variant}, seed {story.seed}")
    columns = ["seat", "player", "score"] if story.mckay else ["seat", "player", "card", "fate"]
    usage = any(seat.usage for seat in story.seats)
    if usage:
        columns += ["calls", "tokens in", "tokens out", "cost"]
    for column in columns:
        table.add_column(column)
    for seat in story.seats:
        if story.mckay:
            row = [seat.name, seat.spec, "" if seat.score is None else str(seat.score)]
        else:
            known = viewer is None or seat.known_by is None or viewer in seat.known_by
            row = [seat.name, seat.spec, seat.role if known else "?", seat.fate]
        if usage:
            mine = viewer is None or viewer == seat.name
            u = seat.usage if mine else SeatUsage()
            row += [
                str(u.calls) if u else "",
                f"{u.input_tokens:,}" if u.input_tokens else "",
                f"{u.output_tokens:,}" if u.output_tokens else "",
                f"${u.cost:.4f}" if u.cost else "",
            ]
        table.add_row(*row)
    console.print(table)
