"""Suite-wide options: ``--update-docs`` rewrites the docs' marked sample outputs (tests/test_docs.py)."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-docs",
        action="store_true",
        default=False,
        help="rewrite the marked outputs of README.md and docs/*.md from what the commands print now",
    )
