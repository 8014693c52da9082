"""The lean pass and its helpers (pure logic), and the envelope that applies it to every answer."""

from __future__ import annotations

from pathlib import Path

from lean_util import assert_lean, empties
from pydantic import BaseModel

from mcp_server.envelope import ok_result
from mcp_server.lean import Keep, hoist, lean, ms_since, rows, short_url
from mcp_server.registry import ActionResult


def test_lean_drops_null_false_and_empty_but_keeps_zero_and_empty_string():
    data = {
        "a": None,
        "b": False,
        "c": [],
        "d": {},
        "e": 0,
        "f": "",
        "g": True,
        "nested": {"x": None, "y": {"z": []}, "w": [None, {"v": None, "u": 1}]},
    }
    assert lean(data) == {"e": 0, "f": "", "g": True, "nested": {"w": [None, {"u": 1}]}}


def test_keep_passes_page_data_through():
    data = {"result": Keep({"value": None, "ok": False, "items": []}), "other": None}
    assert lean(data) == {"result": {"value": None, "ok": False, "items": []}}
    assert lean({"result": Keep(None)}) == {"result": None}


def test_models_are_dumped_then_leaned():
    class M(BaseModel):
        name: str
        note: str | None = None
        flag: bool = False

    assert lean({"m": M(name="x")}) == {"m": {"name": "x"}}


def test_rows_keep_column_order_and_put_sparse_keys_last():
    entries = [
        {"id": 1, "type": "log", "text": "hi"},
        {"id": 2, "type": "error", "text": "boom", "at": "/app.js:3", "replayed": False, "stack": []},
        {"id": 3, "text": "no type", "replayed": True},
        {"id": 4, "type": None},
    ]
    assert rows(entries, ["id", "type", "text"]) == [
        [1, "log", "hi"],
        [2, "error", "boom", {"at": "/app.js:3"}],
        [3, None, "no type", {"replayed": True}],
        [4],
    ]


def test_hoist_says_the_common_value_once():
    entries = [{"id": 1, "page": "/a"}, {"id": 2, "page": "/b"}, {"id": 3, "page": "/b"}]
    assert hoist(entries, "page") == "/b"
    assert entries == [{"id": 1, "page": "/a"}, {"id": 2}, {"id": 3}]
    entries = [{"id": 1, "page": "/a"}, {"id": 2, "page": "/b"}]
    assert hoist(entries, "page", "/b") == "/b" and entries == [{"id": 1, "page": "/a"}, {"id": 2}]
    assert hoist([{"id": 1}], "page") is None


def test_short_url_keeps_only_the_path_on_the_page_origin():
    base = "http://127.0.0.1:8080/app/edit.cfm?id=3"
    assert short_url("http://127.0.0.1:8080/api/save?x=1#f", base) == "/api/save?x=1#f"
    assert short_url("http://127.0.0.1:8080", base) == "/"
    assert short_url("http://127.0.0.1:9090/api", base) == "http://127.0.0.1:9090/api"
    assert short_url("https://127.0.0.1:8080/api", base) == "https://127.0.0.1:8080/api"
    assert short_url("data:text/plain,hi", base) == "data:text/plain,hi"
    assert short_url("", base) == "" and short_url("http://x/y", None) == "http://x/y"


def test_ms_since_reads_iso_and_epoch():
    assert ms_since("2026-01-01T00:00:01.250Z", "2026-01-01T00:00:00.000Z") == 1250
    assert ms_since(1000.5, 1000.0) == 500
    assert ms_since(None, "2026-01-01T00:00:00Z") is None and ms_since("junk", 1.0) is None


def test_ok_result_is_lean_and_keeps_the_envelope(tmp_path: Path):
    result = ActionResult(
        text="2 things",
        data={"items": [{"id": 1, "note": None}], "path": tmp_path, "empty": [], "hint": "do x", "status": 7},
    )
    answer = ok_result(result, {"entryTool": "browser_session", "action": "a", "legacyTool": None})
    sc = answer.structured_content
    assert sc["schemaVersion"] == "1" and sc["status"] == "ok" and sc["message"] == "2 things"
    assert sc["adapter"] == {"entryTool": "browser_session", "action": "a"}
    assert sc["items"] == [{"id": 1}] and sc["path"] == str(tmp_path) and "empty" not in sc
    assert sc["hint"] == "do x" and sc["data_status"] == 7  # ok answers may carry a hint; status is the envelope's
    assert empties(sc) == []
    assert_lean(answer)
