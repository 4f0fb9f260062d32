"""The docs hold when run: marked examples of README.md and docs/*.md run here, offline.

Markers (HTML comments, invisible on GitHub), each just before a fenced block:

- ``<!-- run -->`` before a ```` ```bash ```` block: the block runs as a bash script (exit 0, or
  ``<!-- run exit=N -->``); when the next block is marked ``<!-- output -->``, what the script printed
  (stdout and stderr) must equal it.
- ``<!-- run -->`` before a ```` ```text ```` block of a terminal screen: each ``$ COMMAND`` line runs
  and what follows it, up to the next ``$`` line, is what it must print.
- ``<!-- run input:`` then lines, then ``-->``: the lines are typed into the command (a person's
  seat: ``--human NAME``), then Enter to every later question.
- ``<!-- run skip: REASON -->``: a command that needs a key, a real model or a cluster; listed as
  skipped with the reason.

In an expected output a line ``…`` stands for any lines (none included); times in transcript names
(``20250101T120000Z``), the ``game time`` line's seconds and ``arena resume``'s "rebuilt in" time
match any value, and trailing spaces
are ignored. The commands run in a fresh folder per page (the repository's configs, tests, docs,
benchmarks and example transcripts linked in), with ``arena`` and ``python`` the checkout's, 80
columns, no API keys. ``pytest tests/test_docs.py --update-docs`` rewrites the marked outputs from
what the commands print now (sample screens change when prompts or bots do); an elided sample keeps
its ``…`` lines, each literal part re-read from the same place of the new output.

Also: no tracked text file holds merge-conflict markers, and docs/engine.md's event table names
every event type the engine, the variants and the orchestrator emit.
"""

from __future__ import annotations

import ast
import difflib
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "rules").glob("*.md"))]
LINKED = ("configs", "tests", "docs", "benchmarks", "prompts")
ELIDED = "…"
TIMESTAMP = re.compile(r"\d{8}T\d{6}Z")
MARKER = re.compile(r"^<!-- run(?P<opts>[^\n]*?)(?:\n(?P<input>.*?))?-->\n```(?P<lang>\w*)\n(?P<body>.*?)^```\n", re.M | re.S)
OUTPUT = re.compile(r"\n*<!-- output -->\n```\w*\n(?P<out>.*?)^```\n", re.M | re.S)
TIMEOUT = 120


@dataclass
class Step:
    """One command (or script) and what it must print; ``span``: where that text is in the page."""

    script: str
    expected: str | None
    span: tuple[int, int] | None


@dataclass
class Example:
    page: Path
    line: int
    index: int  # the page's how-manieth example: found again after a rewrite moved it
    steps: list[Step]
    stdin: str | None = None
    exit: int = 0
    skip: str | None = None
    opts: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def _screen(body: str, start: int) -> list[Step]:
    """A terminal screen: ``$ COMMAND`` lines, each followed by what it prints."""
    steps: list[Step] = []
    offset = start
    for chunk in re.split(r"(?m)^(?=\$ )", body):
        if chunk.startswith("$ "):
            command, _, out = chunk.partition("\n")
            out_start = offset + len(command) + 1
            steps.append(Step(command[2:], out.rstrip("\n"), (out_start, out_start + len(out.rstrip("\n")))))
        offset += len(chunk)
    return steps


def examples(page: Path) -> list[Example]:
    text = page.read_text(encoding="utf-8")
    found = []
    for index, match in enumerate(MARKER.finditer(text)):
        opts = match["opts"].strip()
        example = Example(page, text.count("\n", 0, match.start()) + 1, index, [])
        if opts.startswith("skip:"):
            example.skip = opts.removeprefix("skip:").strip()
        if opts.endswith("input:"):
            example.stdin = (match["input"] or "") + "\n" * 400
        code = re.match(r"exit=(\d+)", opts)
        if code:
            example.exit = int(code[1])
        body, start = match["body"], match.start("body")
        if match["lang"] == "text" and body.startswith("$ "):
            example.steps = _screen(body, start)
        else:
            after = OUTPUT.match(text, match.end())
            span = (after.start("out"), after.end("out") - 1) if after and after["out"] else None
            if after and not after["out"]:
                span = (after.start("out"), after.start("out"))
            expected = after["out"].rstrip("\n") if after else None
            example.steps = [Step(body, expected, span)]
        found.append(example)
    return found


ALL = [example for page in PAGES for example in examples(page)]


def normal(text: str) -> str:
    text = TIMESTAMP.sub("20250101T120000Z", text)
    text = re.sub(r"game time \d+ s", "game time 1 s", text)
    text = re.sub(r"rebuilt in \d+\.\d+ s", "rebuilt in 0.01 s", text)  # arena resume's note
    return "\n".join(line.rstrip() for line in text.rstrip("\n").split("\n"))


def matches(expected: str, actual: str) -> bool:
    parts = [re.escape(line) if line != ELIDED else r"(?:[^\n]*\n)*?" for line in normal(expected).split("\n")]
    pattern = ""
    for line, part in zip(normal(expected).split("\n"), parts, strict=True):
        pattern += part if line == ELIDED else part + r"\n"
    return re.fullmatch(pattern, normal(actual) + "\n") is not None


def updated(expected: str, actual: str) -> str:
    """The expected text with its literal parts re-read from ``actual`` (``…`` lines kept)."""
    lines = normal(actual).split("\n")
    if ELIDED not in expected.split("\n"):
        return "\n".join(lines)
    out: list[str] = []
    at = 0
    segments = re.split(r"(?m)^…$", expected)
    for index, segment in enumerate(segments):
        seg = [s for s in segment.strip("\n").split("\n")] if segment.strip("\n") else []
        if index:
            out.append(ELIDED)
        if not seg:
            continue
        last = index == len(segments) - 1
        where = max(range(at, len(lines)), key=lambda i: _likeness(lines[i], normal(seg[0])), default=None)
        if index == 0:  # the text starts with it
            where = 0
        elif last:  # the text ends with it
            where = max(at, len(lines) - len(seg))
        where = at if where is None else where
        out.extend(lines[where : where + len(seg)])
        at = where + len(seg)
    return "\n".join(out)


def _likeness(line: str, wanted: str) -> float:
    """How much a printed line looks like the one a sample had there (1.0: the same)."""
    return difflib.SequenceMatcher(None, line, wanted).ratio()


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, Path]:
    return {}


def _folder(folders: dict[Path, Path], page: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The page's working folder (shared by its examples, in order) and the environment."""
    if page not in folders:
        work = tmp_path_factory.mktemp(page.stem)
        for name in LINKED:
            (work / name).symlink_to(ROOT / name)
        (work / "transcripts").mkdir()
        (work / "transcripts" / "examples").symlink_to(ROOT / "transcripts" / "examples")
        bin_dir = work / ".bin"
        bin_dir.mkdir()
        for name, line in (("arena", f'exec "{sys.executable}" -m arena "$@"'), ("python", f'exec "{sys.executable}" "$@"')):
            (bin_dir / name).write_text(f"#!/bin/sh\n{line}\n")
            (bin_dir / name).chmod(0o755)
        folders[page] = work
    work = folders[page]
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k not in ("ARENA_MODELS",)}
    env.update(
        PATH=f"{work / '.bin'}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(ROOT),
        COLUMNS="80",
        LINES="40",
        TERM="dumb",
        NO_COLOR="1",
        PYTHONHASHSEED="0",
    )
    return work, env


@pytest.mark.parametrize("example", ALL, ids=[e.name for e in ALL])
def test_example(example: Example, folders, tmp_path_factory, request) -> None:
    if example.skip:
        pytest.skip(example.skip)
    work, env = _folder(folders, example.page, tmp_path_factory)
    update = request.config.getoption("--update-docs")
    rewrites: list[tuple[int, str]] = []
    for number, step in enumerate(example.steps):
        run = subprocess.run(
            ["bash", "-c", step.script],
            cwd=work,
            env=env,
            input=example.stdin,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            stdin=None if example.stdin is not None else subprocess.DEVNULL,
        )
        printed = run.stdout + run.stderr
        for folder in {str(work.resolve()), str(work)}:  # a path the command made absolute reads as from the folder
            printed = printed.replace(folder + os.sep, "")
        assert run.returncode == example.exit, f"{example.name}: `{step.script}` exit {run.returncode}\n{printed[-2000:]}"
        if step.expected is None:
            continue
        if matches(step.expected, printed):
            continue
        if update and step.span is not None:
            rewrites.append((number, updated(step.expected, printed)))
            continue
        assert normal(printed) == normal(step.expected), f"{example.name}: `{step.script}` printed something else"
    if rewrites:  # where the example is now: an earlier rewrite of the page may have moved it
        text = example.page.read_text(encoding="utf-8")
        steps = examples(example.page)[example.index].steps
        for number, new in sorted(rewrites, reverse=True):
            start, end = steps[number].span  # type: ignore[misc]
            text = text[:start] + new + ("\n" if start == end and new else "") + text[end:]  # an empty block had no line
        example.page.write_text(text, encoding="utf-8")


def test_a_sample_with_elisions_matches_and_updates() -> None:
    printed = "intro\n[you] card: mafia\nDay 1 — Bob: 'Ann is my pick.'\nmiddle\nResult: town wins (after 2 days).\nend  \n"
    sample = "…\n[you] card: mafia\nDay 1 — Bob: 'My vote is on Ann.'\n…\nResult: town wins (after 3 days).\n…"
    assert matches("…\n[you] card: mafia\n…\nend", printed) and matches("…", printed)
    assert not matches(sample, printed) and not matches("[you] card: mafia\n…", printed)
    again = updated(sample, printed)
    assert again == "…\n[you] card: mafia\nDay 1 — Bob: 'Ann is my pick.'\n…\nResult: town wins (after 2 days).\n…"
    assert matches(again, printed)
    assert matches("transcripts/20250101T120000Z-x.jsonl\ngame time 1 s", "transcripts/20261203T065125Z-x.jsonl\ngame time 7 s")


def test_the_docs_have_run_examples() -> None:
    """The marks are found: the README's sample screens and the docs' commands are among them."""
    pages = {e.page.name for e in ALL}
    assert {"README.md", "llm.md", "reports.md", "tournaments.md", "scenarios.md"} <= pages
    commands = [line for e in ALL if not e.skip for step in e.steps for line in step.script.splitlines()]
    assert sum(1 for line in commands if line.startswith(("arena ", "python "))) >= 25


# ---- merge-conflict markers ------------------------------------------------------------------------
CONFLICT = re.compile(r"^<{7} .*\n(?:.*\n)*?^={7}\n(?:.*\n)*?^>{7} ", re.M)


def conflicts(text: str) -> bool:
    return CONFLICT.search(text) is not None


def test_conflict_markers_are_recognised() -> None:
    assert conflicts("a\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> main\nb\n")
    assert not conflicts("Title\n=======\n\n<<<<<<<< not one\n")  # a setext heading is no conflict


def test_no_tracked_file_holds_merge_conflict_markers() -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    bad = []
    for name in filter(None, files):
        path = ROOT / name.decode()
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary, or deleted in the work tree
        if conflicts(text):
            bad.append(name.decode())
    assert not bad, f"merge-conflict markers in {bad}"


# ---- the event table of docs/engine.md ----------------------------------------------------------------
def emitted_types() -> set[str]:
    """Every event type passed as a literal to public/tell/tell_team/note in the engine, the
    variants and the orchestrator (where the log is written)."""
    found: set[str] = set()
    for folder in ("engine", "variants", "run"):
        for path in (ROOT / "arena" / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                    continue
                position = {"public": 0, "note": 0, "tell": 1, "tell_team": 1}.get(node.func.attr)
                if position is None or len(node.args) <= position:
                    continue
                arg = node.args[position]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.add(arg.value)
    return found


def documented_types() -> set[str]:
    text = (ROOT / "docs" / "engine.md").read_text(encoding="utf-8")
    section = text.split("## Events (shared vocabulary)")[1].split("\n## ")[0]
    rows = [row for row in section.splitlines() if row.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`(\w+)`", row.split("|")[1])}


def test_engine_md_lists_every_event_type() -> None:
    from arena.players.registry import make_player
    from arena.run.orchestrator import play
    from arena.variants import VARIANTS

    seen = set(emitted_types()) | {"action", "forfeit", "rejected"}  # the decisions' own, written by Game.resolve
    for cls in VARIANTS.values():  # and what games log, whatever wrote it
        seats = [f"P{i}" for i in range(cls.default_players)]
        for seed in range(3):
            game = cls(seats, None, seed)
            play(game, {s: make_player("random" if seed else "bot", s, seed) for s in seats})
            seen |= {event.type for event in game.log}
    missing = sorted(seen - documented_types())
    assert not missing, f"docs/engine.md's event table lacks {missing}"


def test_every_documented_server_command_has_the_tested_options() -> None:
    """The README's and docs/llm.md's llama-cpp-python commands start the server as the tests and
    benchmarks do (tests/real_server.SERVER_OPTIONS): a command without ``--logits_all false`` ran
    Gemma's server out of 24 GB."""
    from tests.real_server import SERVER_OPTIONS

    wanted = [f"{name} {value}" for name, value in zip(SERVER_OPTIONS[::2], SERVER_OPTIONS[1::2], strict=True)]
    commands = []
    for page in (ROOT / "README.md", ROOT / "docs" / "llm.md"):
        text = page.read_text().replace("\\\n", " ")
        commands += [line for line in text.splitlines() if line.startswith("python -m llama_cpp.server")]
    assert len(commands) >= 3, commands
    for command in commands:
        assert all(option in " ".join(command.split()) for option in wanted), command
