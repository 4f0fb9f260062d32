"""HTML reports: one self-contained page per game, and an index page over many games.

Pages are rendered from jinja2 templates (``templates/``) with the CSS and the script inline, so
a report is one file that opens anywhere, offline, with nothing fetched from a network.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2

import arena
from arena.report.charts import game_charts
from arena.report.story import Story, build_story
from arena.report.words import BONUS_MEANING
from arena.run.transcript import Transcript

TEMPLATES = Path(__file__).parent / "templates"


@cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,  # speeches and thoughts are players' words: never markup
        undefined=jinja2.StrictUndefined,
        trim_blocks=False,
        keep_trailing_newline=True,
    )


def _title(variant: str) -> str:
    from arena.variants import VARIANTS

    cls = VARIANTS.get(variant)
    return cls.title if cls is not None and cls.title else variant


def house_rules(story: Story) -> list[str]:
    """The table's options as the sentences a player is told (the terminal's help, the models'
    prompt), not as configuration words: a seat's page is read by the person who played it."""
    from arena.players.human.screen import house_rules as sentences

    options = story.header.get("options")
    return sentences(story.variant, options) if isinstance(options, dict) else []


def render_story(
    story: Story, *, source: str = "", index_link: str = "", transcript_link: str = "", mirror_link: str = "", pair_link: str = ""
) -> str:
    """The game page for an already built story (a tournament's game: with links to its mirror game
    and to the pair's page, on the review page only)."""
    return (
        environment()
        .get_template("game.html.j2")
        .render(
            story=story,
            title=_title(story.variant),
            source=source,
            index_link=index_link,
            transcript_link=transcript_link if story.viewer is None else "",  # a seat's page links nothing it may not read
            mirror_link=mirror_link if story.viewer is None else "",
            pair_link=pair_link if story.viewer is None else "",
            version=arena.__version__,
            bonus=BONUS_MEANING.get(story.variant, "") if story.mckay else "",
            charts=game_charts(story),
            house_rules=house_rules(story),
        )
    )


def render_game(transcript: Transcript, *, index_link: str = "", viewer: str | None = None, transcript_link: str = "") -> str:
    """The game page of one transcript: every view (for review), or with ``viewer`` that seat's own page."""
    story = build_story(transcript, viewer)
    return render_story(story, source=transcript.path.name, index_link=index_link, transcript_link=transcript_link)


def render_index(title: str, games: list[dict[str, Any]], stats: dict[str, Any], skipped: list[str]) -> str:
    """The index page over many games (see :mod:`arena.report.folder`)."""
    return (
        environment()
        .get_template("index.html.j2")
        .render(title=title, games=games, stats=stats, skipped=skipped, version=arena.__version__)
    )
