"""The layers of docs/engine.md, read from the source: lower layers never import upper ones.

Every ``import`` counts, also one inside a function (a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "arena"

# module prefix -> the arena modules it may import (its own prefix always)
ALLOWED = {
    "arena.engine": ("arena.engine",),
    "arena.variants": ("arena.engine", "arena.variants"),
    # players read a variant's pure rule tables, as a player reads the rulebook
    "arena.players": ("arena.engine", "arena.variants", "arena.players"),
    # running a game never reaches up to the command line, the tournaments or the reports
    "arena.run": ("arena.engine", "arena.variants", "arena.players", "arena.run"),
    # the server plays tables with the players and the runner, and writes reports; never the CLI
    "arena.serve": ("arena.engine", "arena.variants", "arena.players", "arena.run", "arena.report", "arena.serve"),
    # positions play recorded games on and test with the tournament's sequential statistics; never the CLI
    "arena.positions": ("arena.engine", "arena.variants", "arena.players", "arena.run", "arena.tournament", "arena.positions"),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    name = module_name(path)
    return imports_in(path.read_text(encoding="utf-8"), name, is_package=path.name == "__init__.py")


def imports_in(source: str, name: str, *, is_package: bool = False) -> set[str]:
    """Every arena module (or name in one) that the source of module ``name`` imports."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("arena"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            if module.startswith("arena"):
                found.add(module)
                found.update(f"{module}.{alias.name}" for alias in node.names)  # maybe a submodule
    return found


def graph() -> dict[str, set[str]]:
    return {module_name(path): set(imports_of(path)) for path in sorted(PACKAGE.rglob("*.py"))}


def inside(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below(layer: str) -> None:
    wrong = sorted(
        (module, target)
        for module, targets in graph().items()
        if inside(module, layer)
        for target in targets
        if target != "arena"  # the package itself: only its version
        and not any(inside(target, ok) for ok in ALLOWED[layer])
    )
    assert not wrong, f"{layer} imports upwards: {wrong}"


def test_players_never_import_the_orchestrator_the_cli_or_the_console() -> None:
    modules = graph()
    upward = ("arena.run.orchestrator", "arena.cli", "arena.cli.base", "arena.cli.console", "arena.tournament", "arena.report")
    wrong = sorted(
        (module, target)
        for module, targets in modules.items()
        if inside(module, "arena.players")
        for target in targets
        if any(inside(target, up) for up in upward)
    )
    assert not wrong


def reaches(modules: dict[str, set[str]], start: str, goal: str) -> bool:
    """Does ``start`` import ``goal``, directly or through other arena modules?"""
    seen, todo = set(), [start]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        for target in modules.get(module, ()):
            if target == goal:
                return True
            todo.append(target)
    return False


def test_the_two_cli_modules_do_not_import_each_other() -> None:
    """``arena.cli`` assembles the parser from ``arena.tournament.cli``'s commands (downwards);
    the tournament's commands never reach back into ``arena.cli`` (what both need is in
    ``arena.cli.base``), so there is no cycle between them."""
    modules = graph()
    assert not reaches(modules, "arena.tournament.cli", "arena.cli")
    assert not any(inside(m, "arena.tournament") and "arena.cli" in targets for m, targets in modules.items())
    assert not any("arena.cli" in targets for m, targets in modules.items() if m not in ("arena.__main__",))


def test_the_check_sees_lazy_and_relative_imports() -> None:
    """The reader finds an import inside a function and a relative one, so the tests above can fail."""
    source = "def f():\n    from arena.run.orchestrator import StopGame\nfrom ..base import Answer\n"
    found = imports_in(source, "arena.players.human.screen")
    assert {"arena.run.orchestrator", "arena.players.base"} <= found
    assert any(not inside(t, "arena.players") for t in found)
