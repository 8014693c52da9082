"""Where a request's time went: queued in Chrome before it reached the network, or on the network.

A slow request is read two ways: the server was slow, or Chrome held the request back before sending
it (a background tab, too many requests to one host, a low priority). Chrome's network stack says
which in the response's ``timing`` (``ResourceReceiveResponse``): ``requestTime`` (seconds, the same
clock as the trace's ``ts``) is when the network stack took the request, and ``dnsStart``,
``connectStart``, ``sendStart`` (milliseconds after it, -1 when not done) are its steps.

- queued: from the request's start in the trace (the renderer's ``ResourceSendRequest``) to the first
  step on the network (DNS, connect or send), what DevTools splits into "Queueing" and "Stalled";
- connect: DNS, connect and TLS, only when the request opened a connection;
- transfer: from the send to the end of the response (waiting for the server and the download).

The three add up to the request's duration: renderer and network stack log on one clock, but their
marks can cross by a little (the main document's send is logged after the network stack took it),
so each part is cut to fit. No ``timing`` (memory cache, a failed request): no split.
"""

from __future__ import annotations

from typing import Any

__all__ = ["request_phases"]


def _offset(timing: dict[str, Any], key: str) -> float | None:
    value = timing.get(key)
    return float(value) if isinstance(value, int | float) and value >= 0 else None


def request_phases(timing: dict[str, Any] | None, start_us: float, end_us: float) -> dict[str, float] | None:
    """``{"queuedMs", "transferMs"}`` (and ``"connectMs"`` when a connection was opened), or None."""
    if not timing:
        return None
    base = timing.get("requestTime")
    send = _offset(timing, "sendStart")
    if not isinstance(base, int | float) or base <= 0 or send is None or end_us < start_us:
        return None
    steps = [v for v in (_offset(timing, "dnsStart"), _offset(timing, "connectStart")) if v is not None]
    first_step = min([*steps, send])
    duration = end_us - start_us
    network_at = float(base) * 1e6 + first_step * 1000
    send_at = float(base) * 1e6 + send * 1000
    queued = min(max(network_at - start_us, 0.0), duration)
    connect = min(max(send_at - max(network_at, start_us), 0.0), duration - queued)
    out = {"queuedMs": round(queued / 1000, 1)}
    if steps and connect > 0:
        out["connectMs"] = round(connect / 1000, 1)
    out["transferMs"] = round((duration - queued - connect) / 1000, 1)
    return out
