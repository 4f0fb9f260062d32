"""Every ``tests/scenarios/NAME.json`` must produce exactly ``NAME.expected.json``."""

import json
from pathlib import Path

import pytest

from arena.run.scenario import run_scenario

HERE = Path(__file__).parent / "scenarios"
CASES = sorted(p for p in HERE.glob("*.json") if not p.name.endswith(".expected.json"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_scenario(path: Path) -> None:
    spec = json.loads(path.read_text())
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    assert run_scenario(spec) == expected
