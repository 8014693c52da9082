"""The pytest plugin's per-test folders: one folder per test, whatever the length of its id.

Why: folder names were node ids cut at 150 characters, so two long parametrised ids shared a
folder and one test's set-up (which clears stale evidence) deleted the other test's screenshot.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from mcp_server.pytest_plugin import _artifacts_dir


def _item(nodeid: str, root: Path) -> SimpleNamespace:
    config = SimpleNamespace(getoption=lambda name, default=None: str(root), rootpath=root)
    return SimpleNamespace(nodeid=nodeid, config=config)


def test_two_long_ids_with_the_same_head_get_two_folders(tmp_path: Path) -> None:
    head = "tests/test_checkout.py::test_the_order_total[" + "x" * 200
    first, second = _artifacts_dir(_item(head + "-a]", tmp_path)), _artifacts_dir(_item(head + "-b]", tmp_path))
    assert first != second
    assert all(len(path.name.encode()) <= 200 for path in (first, second))  # still a legal file name


def test_a_short_id_keeps_its_readable_name(tmp_path: Path) -> None:
    assert _artifacts_dir(_item("tests/test_a.py::test_b", tmp_path)) == tmp_path / "tests-test_a.py-test_b"
