"""The table rows of the first answer (``bench/first/measure.py``): totals first, then where the time went.

Totals have a direction (lower is better) and are judged against the peers; the parts
below them are information (a peer without outputSchemas has no schema work to compare).
Each value is the median of that step over the server's starts; medians of the parts do not
add up exactly to the median of the total.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .measure import median_of

__all__ = ["first_rows"]

MakeRow = Callable[[str, str, str | None, Callable[[dict], Any]], Any]


def _m(kind: str, field: str) -> Callable[[dict], Any]:
    return lambda r: median_of(r, kind, field)


def _ts_sum(r: dict) -> Any:
    """TS client: tools/list + first call, per start, then the median."""
    return median_of(r, "ts", "toolsListAndCallMs")


def _share(kind: str, field: str) -> Callable[[dict], Any]:
    """A client's share: its median start-to-first-answer minus the bare client's (the server's) median."""

    def value(r: dict) -> Any:
        client, server = median_of(r, kind, field), median_of(r, "wire_warm", "first_call")
        return round(client - server, 1) if client is not None and server is not None else None

    return value


def first_rows(row: MakeRow) -> list[Any]:
    """Rows built with the report's own row factory (label, unit, better, value of a result)."""
    w = "start to first answered call"
    return [
        row(w, "ms", "lower", _m("sdk_warm", "total")),
        row(w + ", cold cache (first start in a fresh HOME)", "ms", "lower", _m("sdk_cold", "total")),
        row(w + ": spawn + initialize", "ms", None, _m("sdk_warm", "initialize")),
        row(w + ": tools/list", "ms", None, _m("sdk_warm", "tools_list")),
        row(w + ": first call", "ms", None, _m("sdk_warm", "first_call")),
        row(w + ": first call, Python SDK outputSchema check + build", "ms", None, _m("sdk_warm", "schema_build")),
        row(w + ": first call, Python SDK validation", "ms", None, _m("sdk_warm", "validation")),
        row("server side (bare client): spawn to first line read", "ms", None, _m("wire_warm", "first_line_read")),
        row("server side (bare client): spawn to initialize answered", "ms", None, _m("wire_warm", "initialize")),
        row("server side (bare client): spawn to tools/list answered", "ms", None, _m("wire_warm", "tools_list")),
        row("server side (bare client): spawn to first call answered", "ms", "lower", _m("wire_warm", "first_call")),
        row(
            "server side (bare client), cold cache: spawn to first call answered",
            "ms",
            None,
            _m("wire_cold", "first_call"),
        ),
        row("Python SDK client's share (its total minus the bare client's)", "ms", None, _share("sdk_warm", "total")),
        row("TS SDK client's share (its total minus the bare client's)", "ms", None, _share("ts", "totalMs")),
        row("TS SDK client: tools/list", "ms", "lower", _m("ts", "toolsListMs")),
        row("TS SDK client: tools/list + first call", "ms", "lower", _ts_sum),
        row("TS SDK client: start to first answered call", "ms", "lower", _m("ts", "totalMs")),
        row("TS SDK client: connect (spawn + initialize)", "ms", None, _m("ts", "connectMs")),
        row("TS SDK client: ajv compile of the outputSchemas (in tools/list)", "ms", None, _m("ts", "compileMs")),
        row("TS SDK client: first call", "ms", None, _m("ts", "firstCallMs")),
        row("TS SDK client: first call, ajv validation", "ms", None, _m("ts", "validateMs")),
    ]
