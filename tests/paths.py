"""Where things are, for a test at any depth of tests/: the checkout, tests/ itself, the served pages."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
PAGES = TESTS / "pages"
