"""Unit tests of the audit log's pure logic: redaction and rotation."""

import json

from mcp_server.audit import AuditLog, redact_arguments


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


def test_lines_are_json_and_rotate_by_size(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl", max_bytes=600, backups=2)
    for i in range(20):
        log.record(
            tool="browser_session",
            action="list_pages",
            arguments={"n": i},
            status="ok",
            error_code=None,
            duration_ms=1.5,
        )
    current = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert current and all(entry["tool"] == "browser_session" for entry in current)
    assert (tmp_path / "audit.jsonl.1").exists() and (tmp_path / "audit.jsonl.2").exists()
    assert not (tmp_path / "audit.jsonl.3").exists()
    assert current[-1]["arguments"] == {"n": 19}
    assert all(p.stat().st_size <= 600 for p in tmp_path.iterdir())
