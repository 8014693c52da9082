"""Pure pairing and redaction logic of the recorders, driven by hand-made CDP events.

The orders below were all seen from real Chromium (ExtraInfo before or after its main
event, or missing; redirect hops under one requestId; responseReceived then
loadingFailed); the real-browser tests cover the common paths, these pin the rare ones.
"""

from __future__ import annotations

from typing import Any

from cdp_core.events import CDPEvent
from cdp_core.recorders.network import NetworkRecorder
from cdp_core.recorders.redact import HeaderRedactor, redact_form_fields, redact_secrets_in_text


class FakeSession:
    session_id = "S1"
    target_info = {"targetId": "T1", "url": "http://127.0.0.1/app"}
    closed = False


def feed(rec: NetworkRecorder, events: list[tuple[str, dict[str, Any]]]) -> None:
    session = FakeSession()
    for method, params in events:
        rec._events.on_event(session, "page", CDPEvent(method, params, "S1"))  # type: ignore[arg-type]


def will_send(rid: str, url: str, ts: float, redirect: dict | None = None, method: str = "GET") -> tuple:
    params: dict[str, Any] = {
        "requestId": rid,
        "request": {"url": url, "method": method, "headers": {"Accept": "*/*"}},
        "timestamp": ts,
        "wallTime": 1_700_000_000 + ts,
        "initiator": {"type": "other"},
        "type": "Fetch",
        "frameId": "T1",
    }
    if redirect is not None:
        params["redirectResponse"] = redirect
    return ("Network.requestWillBeSent", params)


def response(rid: str, url: str, status: int, ts: float, headers: dict | None = None) -> tuple:
    resp = {"url": url, "status": status, "statusText": "", "headers": headers or {}, "mimeType": "text/plain"}
    return ("Network.responseReceived", {"requestId": rid, "timestamp": ts, "type": "Fetch", "response": resp})


def resp_extra(rid: str, headers: dict, status: int) -> tuple:
    return ("Network.responseReceivedExtraInfo", {"requestId": rid, "headers": headers, "statusCode": status})


def req_extra(rid: str, headers: dict) -> tuple:
    return ("Network.requestWillBeSentExtraInfo", {"requestId": rid, "headers": headers})


def finished(rid: str, ts: float, size: int = 10) -> tuple:
    return ("Network.loadingFinished", {"requestId": rid, "timestamp": ts, "encodedDataLength": size})


def test_extra_info_before_or_after_or_missing_lands_on_the_right_entry():
    rec = NetworkRecorder(eager_body_budget=0)
    feed(
        rec,
        [
            # A: both ExtraInfo events before their main events
            req_extra("A", {"Cookie": "a=1", "X-Raw": "a"}),
            will_send("A", "http://127.0.0.1/a", 1.0),
            resp_extra("A", {"Set-Cookie": "s=1", "X-Resp": "a"}, 200),
            response("A", "http://127.0.0.1/a", 200, 1.1, {"X-Resp": "filtered"}),
            finished("A", 1.2),
            # B: both after
            will_send("B", "http://127.0.0.1/b", 2.0),
            response("B", "http://127.0.0.1/b", 404, 2.1, {"X-Resp": "filtered"}),
            req_extra("B", {"X-Raw": "b"}),
            resp_extra("B", {"X-Resp": "b"}, 404),
            finished("B", 2.2),
            # C: none at all (cache)
            will_send("C", "http://127.0.0.1/c", 3.0),
            response("C", "http://127.0.0.1/c", 200, 3.1, {"X-Resp": "c-main"}),
            finished("C", 3.3),
        ],
    )
    a, b, c = (rec.get(e["id"]) for e in rec.list())
    assert a["requestHeaders"]["X-Raw"] == "a" and a["requestHeaders"]["Cookie"] == "[redacted]"
    assert a["responseHeaders"]["X-Resp"] == "a" and a["responseHeaders"]["Set-Cookie"] == "[redacted]"
    assert b["requestHeaders"]["X-Raw"] == "b" and b["responseHeaders"]["X-Resp"] == "b"
    assert c["responseHeaders"]["X-Resp"] == "c-main" and c["requestHeaders"] == {"Accept": "*/*"}
    assert [x["durationMs"] for x in (a, b, c)] == [200.0, 200.0, 300.0]


def test_redirect_hops_get_their_own_extra_info():
    rec = NetworkRecorder(eager_body_budget=0)
    hop1 = {"url": "http://127.0.0.1/r1", "status": 302, "headers": {"Location": "/r2"}, "mimeType": ""}
    feed(
        rec,
        [
            will_send("R", "http://127.0.0.1/r1", 1.0),
            req_extra("R", {"X-Req": "1"}),
            resp_extra("R", {"Location": "/r2", "X-Hop": "1"}, 302),
            req_extra("R", {"X-Req": "2"}),  # the second hop's, before its requestWillBeSent
            will_send("R", "http://127.0.0.1/r2", 1.1, redirect=hop1),
            resp_extra("R", {"X-Hop": "2"}, 200),
            response("R", "http://127.0.0.1/r2", 200, 1.2),
            finished("R", 1.3),
        ],
    )
    first, second = (rec.get(e["id"]) for e in rec.list())
    assert (first["status"], second["status"]) == (302, 200)
    assert second["redirectedFrom"] == first["id"] and first["redirectedTo"] == second["id"]
    assert first["responseHeaders"]["X-Hop"] == "1" and second["responseHeaders"]["X-Hop"] == "2"
    assert first["requestHeaders"]["X-Req"] == "1" and second["requestHeaders"]["X-Req"] == "2"
    assert first["finished"] and first["durationMs"] == 100.0


def test_response_then_loading_failed_is_a_failed_entry_with_its_status():
    rec = NetworkRecorder(eager_body_budget=0)
    feed(
        rec,
        [
            will_send("F", "http://127.0.0.1/f", 1.0),
            response("F", "http://127.0.0.1/f", 404, 1.1),
            ("Network.loadingFailed", {"requestId": "F", "timestamp": 1.5, "errorText": "net::ERR_ABORTED"}),
            ("Network.policyUpdated", {}),  # no requestId: ignored
            ("Network.loadingFinished", {"requestId": "unknown", "timestamp": 2.0}),
        ],
    )
    (entry,) = rec.list()
    assert entry["failed"] and entry["status"] == 404 and entry["failureText"] == "net::ERR_ABORTED"
    assert rec.list(failed_only=True) == [entry]
    assert rec.list(status_min=500) == []


def test_header_redaction_is_case_insensitive_and_configurable():
    redactor = HeaderRedactor(["Authorization", "X-Api-Key", " cookie "])
    out = redactor.headers({"authorization": "Bearer t", "COOKIE": "a=1", "x-api-key": "k", "Accept": "*/*"})
    assert out == {"authorization": "[redacted]", "COOKIE": "[redacted]", "x-api-key": "[redacted]", "Accept": "*/*"}


def test_password_looking_form_fields_are_masked_and_the_rest_kept():
    assert redact_form_fields("id=123&provincia=") == "id=123&provincia="
    assert redact_form_fields("user=mario&password=segreto&pwd2=x") == "user=mario&password=[redacted]&pwd2=[redacted]"
    assert redact_form_fields("j_password=a&api_key=b&note=ok") == "j_password=[redacted]&api_key=[redacted]&note=ok"
    assert redact_form_fields('{"user":"m","password":"s"}') == '{"user":"m","password":"[redacted]"}'
    assert redact_secrets_in_text("nothing secret here") == "nothing secret here"


def test_requests_that_never_end_do_not_pile_up():
    rec = NetworkRecorder(max_entries=10, eager_body_budget=0)
    feed(rec, [will_send(f"N{i}", f"http://127.0.0.1/stream/{i}", float(i)) for i in range(20_000)])
    assert len(rec) == 10 and rec.evicted == 19_990
    assert len(rec._events.chains) <= rec._events.chain_limit <= 20_000
    assert [e["url"] for e in rec.list()][-1] == "http://127.0.0.1/stream/19999"


def test_multipart_text_fields_masked_file_parts_kept():
    body = (
        '--B\r\nContent-Disposition: form-data; name="user"\r\n\r\nmario\r\n'
        '--B\r\nContent-Disposition: form-data; name="password"\r\n\r\nsegreto\r\n'
        '--B\r\nContent-Disposition: form-data; name="file"; filename="x.txt"\r\nContent-Type: text/plain\r\n\r\n'
        "password=visible-in-file-content\r\n--B--"
    )
    out = redact_form_fields(body)
    assert 'name="user"\r\n\r\nmario' in out
    assert 'name="password"\r\n\r\n[redacted]' in out and "segreto" not in out


def test_request_headers_read_before_their_extra_info_are_said_to_be_provisional():
    """Chrome may report the headers as sent (the Cookie among them) after the response: a read in
    between shows the provisional ones and says so, in the record and in what the model reads."""
    from mcp_server.answers.network import network_record

    rec = NetworkRecorder(eager_body_budget=0)
    answered = ("Network.responseReceived", {**response("P", "http://127.0.0.1/p", 200, 1.1)[1], "hasExtraInfo": True})
    feed(rec, [will_send("P", "http://127.0.0.1/p", 1.0)])
    (entry_id,) = [e["id"] for e in rec.list()]
    assert rec.get(entry_id)["requestHeadersProvisional"]  # in flight: nothing said yet
    feed(rec, [answered, finished("P", 1.2)])
    early = rec.get(entry_id)
    assert early["requestHeadersProvisional"] and "Cookie" not in early["requestHeaders"]
    text, record = network_record(early, "http://127.0.0.1/app", None)
    assert record["requestHeadersProvisional"] is True
    assert "request headers (provisional: Chrome has not yet reported the headers as sent" in text

    feed(rec, [req_extra("P", {"Accept": "*/*", "Cookie": "sid=1"})])
    late = rec.get(entry_id)
    assert not late["requestHeadersProvisional"] and late["requestHeaders"]["Cookie"] == "[redacted]"
    text, record = network_record(late, "http://127.0.0.1/app", None)
    assert not record["requestHeadersProvisional"] and "provisional" not in text

    # Chrome said no ExtraInfo will come (memory cache, data: URLs): the headers held are all there is.
    cached = ("Network.responseReceived", {**response("C", "http://127.0.0.1/c", 200, 2.1)[1], "hasExtraInfo": False})
    feed(rec, [will_send("C", "http://127.0.0.1/c", 2.0), cached, finished("C", 2.2)])
    assert not rec.get(rec.list()[-1]["id"])["requestHeadersProvisional"]
