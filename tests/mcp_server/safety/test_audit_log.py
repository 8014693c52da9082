"""Unit tests of the audit log's pure logic: redaction, bounded lines, rate limit, rotation with history."""

import json
import os
import time

from mcp_server.safety.audit import MAX_LINE_BYTES, AuditLog
from mcp_server.safety.audit_arguments import redact_arguments


def test_secret_keys_and_typed_values_are_hidden():
    args = {
        "action": "fill_uid",
        "uid": 12,
        "value": "hunter2",
        "headers": {"Authorization": "Bearer abc", "Accept": "text/html"},
        "api_key": "k-123",
        "url": "http://127.0.0.1/a",
    }
    out = redact_arguments(args)
    text = json.dumps(out)
    assert "hunter2" not in text and "Bearer abc" not in text and "k-123" not in text
    assert out["value"] == "[7 chars]" and out["uid"] == 12 and out["url"] == "http://127.0.0.1/a"
    assert out["headers"] == {"Authorization": "[redacted]", "Accept": "text/html"}


def test_urls_scripts_and_keystrokes_lose_their_secrets():
    out = redact_arguments(
        {
            "url": "https://app.test/cb?state=7&code_verifier=cv-1#access_token=tok-1&id_token=tok-2&x=keep",
            "url_contains": "?session_id=sid-1",
            "expression": (
                "document.querySelector('#pw').value = 'pw-1'; "
                "await fetch('/login', {method: 'POST', body: JSON.stringify({user: 'ada', password: 'pw-2'})}); "
                "localStorage.setItem('x', 'Bearer abcdefghijklmnop'); const apiKey = \"k-2\";"
            ),
            "predicate": "window.csrfToken === 'tok-3'",
            "fields": [{"selector": "#pw", "value": "pw-3"}],
        }
    )
    text = json.dumps(out)
    for secret in ("tok-1", "tok-2", "sid-1", "pw-1", "pw-2", "pw-3", "abcdefghijklmnop", "k-2", "tok-3", "cv-1"):
        assert secret not in text, secret
    assert "state=7" in out["url"] and "x=keep" in out["url"]
    assert "querySelector('#pw')" in out["expression"] and "user: 'ada'" in out["expression"]
    keys = [redact_arguments({"action": "press_key", "key": k})["key"] for k in ("h", "Shift+U", "Enter", "Control+A")]
    assert keys == ["[1 chars]", "[1 chars]", "Enter", "Control+A"]


def _log(tmp_path, **kwargs):
    return AuditLog(tmp_path / "audit.jsonl", **kwargs)


def _record(log, n, **extra):
    log.record(
        tool="browser_session",
        action=extra.pop("action", "list_pages"),
        arguments={"n": n, **extra.pop("arguments", {})},
        status=extra.pop("status", "ok"),
        error_code=extra.pop("error_code", None),
        duration_ms=1.5,
    )


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_lines_are_json_and_rotate_by_size_with_a_record_of_each_rotation(tmp_path):
    log = _log(tmp_path, max_bytes=600, backups=2, keep_seconds=0)
    for i in range(20):
        _record(log, i)
    current = _lines(tmp_path / "audit.jsonl")
    assert current[0]["event"] == "rotated" and current[0]["previous"] == "audit.jsonl.1"
    assert all(entry["tool"] == "browser_session" for entry in current[1:])
    assert (tmp_path / "audit.jsonl.1").exists() and (tmp_path / "audit.jsonl.2").exists()
    assert not (tmp_path / "audit.jsonl.3").exists()
    assert current[-1]["arguments"] == {"n": 19}
    assert all(p.stat().st_size <= 600 for p in tmp_path.iterdir())
    deletions = [e for p in tmp_path.iterdir() for e in _lines(p) if e.get("deleted")]
    assert deletions and deletions[-1]["deleted"]["names"] == ["audit.jsonl.2"]  # the loss is on record


def test_every_line_is_bounded_whatever_the_arguments(tmp_path):
    log = _log(tmp_path)
    wide = {f"f{i}": "v" * 10_000 for i in range(200)}
    deep: dict = {}
    node = deep
    for _ in range(500):
        node["k"] = {}
        node = node["k"]
    nested = [[["a" * 50] * 50] * 50] * 50
    for n, arguments in enumerate((wide, {"deep": deep}, {"nested": nested}, {"n": 10**200})):
        _record(log, n, arguments=arguments)
    raw = (tmp_path / "audit.jsonl").read_bytes().splitlines()
    assert len(raw) == 4 and all(len(line) <= MAX_LINE_BYTES for line in raw)
    entries = [json.loads(line) for line in raw]
    assert entries[0]["argumentsShrunk"] and "f0" in entries[0]["arguments"]


def test_refused_calls_beyond_the_rate_are_summarised(tmp_path):
    clock = [1000.0]
    log = _log(tmp_path, refused_per_minute=10, clock=lambda: clock[0])
    _record(log, 0, action="navigate", arguments={"url": "http://127.0.0.1/evidence"})
    for i in range(500):
        _record(log, i, action="get_dom", status="error", error_code="INVALID_ARGUMENT", arguments={"x": "y" * 3000})
        clock[0] += 0.01
    clock[0] += 30
    _record(log, 1, action="list_pages")
    entries = _lines(tmp_path / "audit.jsonl")
    assert entries[0]["arguments"]["url"] == "http://127.0.0.1/evidence"
    full = [e for e in entries if e.get("action") == "get_dom"]
    summaries = [e for e in entries if e.get("event") == "refused-calls-summarised"]
    assert len(full) == 10  # the burst allowance
    assert sum(s["count"] for s in summaries) == 490 and len(summaries) <= 2
    assert summaries[0]["calls"] == {"browser_session/get_dom/INVALID_ARGUMENT": summaries[0]["count"]}
    assert entries[-1]["action"] == "list_pages"
    assert not (tmp_path / "audit.jsonl.1").exists()  # the burst did not even fill one file


def test_rotation_keeps_the_last_hour_until_the_total_cap(tmp_path):
    log = _log(tmp_path, max_bytes=1000, backups=2, keep_seconds=3600, max_total_bytes=20_000)
    _record(log, 0, action="navigate", arguments={"url": "http://127.0.0.1/evidence"})
    for i in range(25):  # a flood of valid calls: more backups are kept since all are young
        _record(log, i, arguments={"pad": "p" * 200})
    files = sorted(tmp_path.glob("audit.jsonl*"))
    assert len(files) > 3
    assert any("evidence" in p.read_text() for p in files)
    for i in range(200):  # past the total cap, the oldest go, and the record says so
        _record(log, i, arguments={"pad": "p" * 200})
    total = sum(p.stat().st_size for p in tmp_path.glob("audit.jsonl*"))
    assert total <= 20_000
    records = [e for p in tmp_path.glob("audit.jsonl*") for e in _lines(p) if e.get("event") == "rotated"]
    assert any(r.get("deleted") for r in records)
    # Files older than keep_seconds beyond `backups` are dropped at the next rotations.
    aged = time.time() - 7200
    for p in tmp_path.glob("audit.jsonl.*"):
        os.utime(p, (aged, aged))
    before = len(list(tmp_path.glob("audit.jsonl.*")))
    for i in range(10):
        _record(log, i, arguments={"pad": "p" * 200})
    after = list(tmp_path.glob("audit.jsonl.*"))
    assert len(after) < before / 2 and sum(p.stat().st_mtime <= aged + 1 for p in after) <= 1
    assert all(len(line) <= MAX_LINE_BYTES for p in tmp_path.iterdir() for line in p.read_bytes().splitlines())


def test_two_servers_sharing_one_log_keep_writing_to_the_current_file(tmp_path):
    """The file is held open between lines; a rotation by another process, or a user moving the
    log away, must not send later lines into a backup or into the moved file."""
    path = tmp_path / "audit.jsonl"
    first = AuditLog(path, max_bytes=600)
    second = AuditLog(path, max_bytes=600)

    def call(log: AuditLog, n: int) -> None:
        log.record(tool="t", action=f"a{n}", arguments={"n": n}, status="ok", error_code=None, duration_ms=1.0)

    call(first, 0)
    for n in range(1, 12):  # the second one fills and rotates the file several times
        call(second, n)
    call(first, 12)
    newest = [json.loads(x) for x in path.read_text().splitlines()]
    assert newest[-1]["action"] == "a12", "the first log's line went to a rotated file"
    path.rename(tmp_path / "moved.jsonl")
    call(first, 13)
    assert [json.loads(x)["action"] for x in path.read_text().splitlines()] == ["a13"]
    assert "a13" not in (tmp_path / "moved.jsonl").read_text()
    actions = []
    for f in sorted(tmp_path.iterdir()):
        actions += [json.loads(x).get("action") for x in f.read_text().splitlines()]
    assert sorted(a for a in actions if a) == sorted(f"a{n}" for n in range(14)), "a line was lost"
    first.close()
    second.close()


def test_audit_lines_are_strict_json_even_with_infinity_in_the_arguments(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl")
    log.record(tool="t", action="wait_for", arguments={"timeout_ms": float("inf"), "x": [float("nan")]},
               status="ok", error_code=None, duration_ms=float("inf"))  # fmt: skip
    line = (tmp_path / "audit.jsonl").read_text().strip()

    def refuse(name: str) -> None:
        raise AssertionError(f"non-standard JSON constant {name} in {line}")

    entry = json.loads(line, parse_constant=refuse)
    assert entry["action"] == "wait_for" and entry["arguments"]["timeout_ms"] == "inf"


def test_a_failing_audit_write_is_reported_not_silent():
    from mcp_server.safety.audit import write_failures

    log = AuditLog("/dev/full")  # every write fails with ENOSPC
    log.record(tool="t", action="a", arguments={}, status="ok", error_code=None, duration_ms=1.0)
    log.record(tool="t", action="b", arguments={}, status="ok", error_code=None, duration_ms=1.0)
    said = [f for f in write_failures() if "/dev/full" in f and "2 lines lost" in f]
    assert len(said) == 1 and "No space left" in said[0], said
    log.close()
    assert not [f for f in write_failures() if "/dev/full" in f]
