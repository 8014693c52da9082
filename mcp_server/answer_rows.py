"""``rows(answer, key)``: a list answer of the MCP tools as plain dicts, one per row.

Lists in ``structuredContent`` are written as rows to stay lean (mcp_server/lean.py): the
names once in ``columns``, each row the values in that order (trailing missing ones left
out), a trailing object with the row's sparse keys, and what every row shares said once in
``shared``. Test authors want dicts; this reads them back without knowing those rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["record", "rows"]


def _structured(answer: Any) -> Mapping[str, Any]:
    if isinstance(answer, Mapping):
        return answer
    data = getattr(answer, "structured_content", None)  # an mcp CallToolResult
    if data is None:
        data = getattr(answer, "structuredContent", None)
    if not isinstance(data, Mapping):
        raise TypeError(f"rows() reads a tool answer's structuredContent (a dict), not {type(answer).__name__}")
    return data


def record(row: Any, columns: list[str]) -> dict[str, Any]:
    """One row as a dict: its columns by name, then its trailing object's keys (an object row as is)."""
    if isinstance(row, Mapping):  # an entry written as an object already
        return dict(row)
    out: dict[str, Any] = {}
    for i, value in enumerate(row):
        if isinstance(value, Mapping) and (i >= len(columns) or i == len(row) - 1):
            out.update(value)
        elif i < len(columns) and value is not None:
            out[columns[i]] = value
    return out


def rows(answer: Any, key: str = "entries") -> list[dict[str, Any]]:
    """The rows under ``key`` (``entries``, ``requests``, ``tabs``...) as dicts; ``[]`` when absent.

    ``answer`` is a ``CallToolResult`` or its ``structuredContent``. The ``shared`` values
    are added to every row that does not carry its own.
    """
    data = _structured(answer)
    listed = data.get(key) or []
    columns = list(data.get("columns") or [])
    shared = data.get("shared") or {}
    return [{**shared, **record(row, columns)} for row in listed]
