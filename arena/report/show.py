"""``arena show``: a transcript told in the terminal, in the console's own sentences.

Public lines are the ones ``arena play`` prints as a game happens (``arena.cli.console``), so a game
reads the same live and afterwards; private lines, answers and claims are written in words
(:mod:`arena.report.words`), never as Python values. Everything comes from the same
:class:`~arena.report.story.Story` the HTML report is built from. With ``--as NAME`` the story is
that seat's own (:func:`~arena.report.story.seat_transcript`): only the events NAME could see
(:meth:`Event.visible_to`, the engine's rule), claims judged only by what NAME knew at the time,
and a seats table with only the cards NAME knew.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.engine import Event
from arena.engine.wording import public_line, signed, signed_number
from arena.report.knowledge import Statement
from arena.report.story import Answer, Item, SeatUsage, Story, audience_label, build_story, private_line
from arena.report.words import action_words, thought
from arena.run.transcript import Transcript


class ShowError(ValueError):
    """A viewer name that is not a seat, or a path that is not one transcript (one line)."""


def load(path: Path) -> Transcript:
    """The transcript at ``path``; a folder or a tournament database is one line saying what to run instead."""
    from arena.report import _is_sqlite
    from arena.run.transcript import read_transcript

    if path.is_dir():
        found = sorted(path.rglob("*.jsonl"))
        pick = f"pick one of its {len(found)} transcripts (e.g. {found[0]})" if found else "it holds no transcript (*.jsonl)"
        raise ShowError(f"{path} is a folder: arena show tells one game; {pick}, or write an index with: arena report {path}")
    if _is_sqlite(path):
        raise ShowError(
            f"{path} is a tournament database: arena show tells one game (a .jsonl transcript); "
            f"for the tournament: arena leaderboard {path}, or arena report {path}"
        )
    return read_transcript(path)


def _placed(story: Story) -> tuple[dict[int, Answer], dict[int, Item]]:
    """Answers by their event's seq, and the items that stand for an event (speeches, deaths, …)."""
    answers: dict[int, Answer] = {}
    items: dict[int, Item] = {}
    for section in story.sections:
        for item in section.items:
            if item.seq is not None:
                items[item.seq] = item
            for answer in (item.answer, *(row.get("answer") for row in item.rows)):
                if answer is not None:
                    answers[answer.seq] = answer
    return answers, items


def _verdict(statement: Statement, viewer: str | None) -> str | None:
    """ "Cid is inspector ✗ (really mafia)" as the view judges it; None when that view could not tell."""
    verdict = statement.truth
    if viewer is not None:
        verdict = next((v for names, v in statement.views if viewer in names), None)
    if verdict is None:
        return None
    mark = "✓" if verdict.true else "✗"
    return f"{statement.text} {mark}" + (f" ({verdict.note})" if verdict.note else "")


def _verdicts(item: Item | None, viewer: str | None) -> str:
    judged = [v for v in (_verdict(st, viewer) for st in (item.claims if item is not None else [])) if v]
    return "; ".join(judged)


def _who(event: Event) -> str:
    label = audience_label(event.audience)
    return event.audience.removeprefix("player:") if label.endswith(" only") else label


def _answer_line(event: Event) -> str | None:
    """A player's own answer in words; None for a plain vote or speech (the public line says it)."""
    data = event.data
    action = data.get("action") if isinstance(data.get("action"), dict) else None
    said = action_words(action, event.phase) if action is not None else ""
    mind = thought(str(action.get("thought") or "")) if action is not None else None
    if event.type == "action":
        if action is not None and action.get("kind") in ("speak", "verdict", "vote") and not (mind and mind.text):
            return None
        line = said
    elif event.type == "forfeit":
        line = f"forfeits ({data.get('why')}); the default is played: {said}"
    else:
        tried = f"“{said}”" if action is not None else f"raw {data.get('raw')!r}"
        line = f"rejected {tried}: {data.get('reason')}"
    if mind is not None and mind.text:
        line += f" — thinks: {mind.plain()}"
    return line  # the "[who]" before it is the actor


def _vote_line(item: Item) -> str:
    """A vote with its tally: "Nominees vote on …: Eve 5, Dee 1, … — Eve (Ann → Eve, …)"."""
    data = item.data
    if "yes" in data:
        yes, no = data.get("yes") or [], data.get("no") or []
        return f"{item.text} (yes: {', '.join(yes) or 'nobody'}; no: {', '.join(no) or 'nobody'})."
    votes = data.get("votes") if isinstance(data.get("votes"), dict) else {}
    tally = Counter("abstains" if t is None else str(t) for t in votes.values())
    counted = ", ".join(f"{name} {n}" for name, n in tally.most_common())
    ballots = ", ".join(f"{v} → {t if t is not None else 'abstains'}" for v, t in votes.items())
    return f"{item.text}. Tally: {counted or 'no votes'} ({ballots})."


def show(transcript: Transcript, console: Console, viewer: str | None = None) -> None:
    """Print the game; with ``viewer``, exactly that seat's view of it."""
    seats = [str(s) for s in transcript.header.get("seats") or []]
    if viewer is not None and viewer not in seats:
        raise ShowError(f"there is no seat named {viewer!r}; seats: {', '.join(seats)}")
    story = build_story(transcript, viewer)
    answers, items = _placed(story)

    def say(text: str, style: str = "") -> None:
        console.print(Text(text, style=style), highlight=False, soft_wrap=True)

    title = f"{story.variant}" + (f", seed {story.seed}" if viewer is None else "") + f": {len(seats)} seats — {story.result}"
    say(title, "bold")
    parent = story.forked_from()
    if parent is not None:
        say(f"Forked from {story.header['fork'].get('parent')} at {story.header['fork'].get('at')}.", "bold")
    if viewer is not None:
        own = next((s for s in story.seats if s.name == viewer), None)
        card = f" ({own.role})" if own is not None and own.role and not story.mckay else ""  # a McKay card changes every hand
        say(f"As seen by {viewer}{card}: {len(story.events)} events.", "bold magenta")  # not "of N": N counts hidden ones
    day_word = "Hand" if story.mckay else "Day"
    for event in story.events:
        item = items.get(event.seq)
        if event.to is None:
            _public_event(say, event, item, day_word, viewer)
            continue
        answer = answers.get(event.seq)
        if event.type in ("action", "forfeit", "rejected"):
            line = _answer_line(event)
        elif event.type == "speech" and item is not None:
            notes = item.data.get("notes") or []
            line = f"{item.actor} ({item.data.get('kind')}): '{item.text}'" + (f" ({'; '.join(notes)})" if notes else "")
        else:
            line = private_line(event)
        extra = []
        if _verdicts(item, viewer):
            extra.append("claim: " + _verdicts(item, viewer))
        if answer is not None and answer.usage is not None:
            extra.append(answer.usage.text())
        if line is None and extra:
            line = "answers"
        if line is not None:
            say(f"[{_who(event)}] {line}", "dim")
            for more in extra:
                say(f"    {more}", "dim")
    _seats_table(console, story, viewer)


def _public_event(say: Any, event: Event, item: Item | None, day_word: str, viewer: str | None) -> None:
    """A line everyone saw, with the story's wording where it has its own (deaths, the end, votes, claims)."""
    if item is not None and event.type in ("death", "game_over"):
        say(item.text, "bold red" if event.type == "death" else "bold green")
        if event.type == "game_over" and item.data.get("roles"):
            say("The cards: " + ", ".join(f"{n} {r}" for n, r in item.data["roles"].items()) + ".", "green")
        return
    if item is not None and event.type == "vote_result":
        say(_vote_line(item), "cyan")
        return
    shown = public_line(event, day_word)
    if shown is None:
        return
    text, style = shown
    if item is not None and item.kind == "line":  # the story's own wording ("puts the kill card on "no kill"")
        text = item.text
    if event.type == "hand_over" and item is not None:
        data = item.data
        cards = ", ".join(f"{n} {c}" for n, c in (data.get("roles") or {}).items())
        text = (
            f"{item.text}. Cards: {cards}; points {signed(data.get('points') or {})}; totals {signed(data.get('scores') or {})}."
        )
    marks = _verdicts(item, viewer)
    if marks:
        text += f"  [judged: {marks}]"
    say(text, style)


def _seats_table(console: Console, story: Story, viewer: str | None) -> None:
    table = Table(title=story.variant + (f", seed {story.seed}" if viewer is None else f", as seen by {viewer}"))
    columns = ["seat", "player", "score"] if story.mckay else ["seat", "player", "card", "fate"]
    usage = any(seat.usage for seat in story.seats)
    if usage:
        columns += ["calls", "tokens in", "tokens out", "cost"]
    for column in columns:
        table.add_column(column)
    for seat in story.seats:
        if story.mckay:
            row = [seat.name, seat.spec, "" if seat.score is None else signed_number(seat.score)]
        else:
            known = viewer is None or seat.known_by is None or viewer in seat.known_by
            card = seat.role + (f" ({seat.team})" if seat.team and seat.team not in (seat.role, "notmafia") else "")
            fate = seat.fate + (f" (really: {seat.true_fate})" if seat.true_fate and viewer is None else "")
            row = [seat.name, seat.spec, card if known and seat.role else "?", fate]
        if usage:
            mine = viewer is None or viewer == seat.name
            u = seat.usage if mine else SeatUsage()
            row += [
                str(u.calls) if u else "",
                f"{u.input_tokens:,}" if u.input_tokens else "",
                f"{u.output_tokens:,}" if u.output_tokens else "",
                u.cost_text(),
            ]
        table.add_row(*row)
    console.print(table)
