"""A captured request as the page may send it again: method, URL, body, and only the headers a script may set.

Why a module of its own: sending a failing save again from its page (to check a patch) must
send what the page sent, with the cookies the browser adds, and nothing a script cannot set.
The Fetch standard's forbidden request headers (``Cookie``, ``Host``, ``Origin``, ``Referer``,
``Content-Length``, ``Sec-*``, ``Proxy-*``...) are the browser's to add: a ``fetch()`` naming them
is refused or has them silently replaced, so they are left out here and named in ``left_to_browser``.
Values are raw (the caller shows only redacted previews).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...connection import CDPSession
from .model import Entry, header

__all__ = ["Resend", "FORBIDDEN_HEADERS", "page_may_set", "resend_of"]

#: The Fetch standard's forbidden request-header names, plus ``User-Agent``, which Chrome sets itself.
FORBIDDEN_HEADERS = frozenset(
    {
        "accept-charset",
        "accept-encoding",
        "access-control-request-headers",
        "access-control-request-method",
        "access-control-request-private-network",
        "connection",
        "content-length",
        "cookie",
        "cookie2",
        "date",
        "dnt",
        "expect",
        "host",
        "keep-alive",
        "origin",
        "referer",
        "set-cookie",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "via",
        "user-agent",
    }
)
_FORBIDDEN_PREFIXES = ("sec-", "proxy-", ":")


def page_may_set(name: str) -> bool:
    """Whether a page's script may set this request header itself (else the browser does)."""
    low = name.strip().lower()
    return bool(low) and low not in FORBIDDEN_HEADERS and not low.startswith(_FORBIDDEN_PREFIXES)


@dataclass(frozen=True)
class Resend:
    """What sending entry ``entry_id`` again from its page would send, and where it would run."""

    entry_id: int
    method: str
    url: str
    #: the headers the page set, raw (never printed as they are)
    headers: dict[str, str]
    #: the header names of the original left to the browser (cookies, origin, sizes...)
    left_to_browser: tuple[str, ...]
    #: the request body as sent; None when there was none or it is unknown (``body_known``)
    body: bytes | None
    #: False when the request carried a body that was not captured (too large, gone from Chrome)
    body_known: bool
    content_type: str | None
    #: ``include`` when the original carried cookies (cross-site ones too), else the fetch default
    credentials: str
    resource_type: str
    frame_kind: str
    frame_id: str | None
    document_url: str
    session: CDPSession


def resend_of(e: Entry, body: bytes | None, body_known: bool) -> Resend:
    """The :class:`Resend` of a stored entry, given its request body (read by the caller)."""
    headers: dict[str, str] = {}
    left: list[str] = []
    for name, value in (e.request_headers or {}).items():
        if page_may_set(str(name)):
            headers[str(name)] = str(value)
        else:
            left.append(str(name))
    sent = e.request_extra_headers or {}
    return Resend(
        entry_id=e.id,
        method=e.method.upper(),
        url=e.url.split("#", 1)[0],
        headers=headers,
        left_to_browser=tuple(left),
        body=body,
        body_known=body_known,
        content_type=header(e.request_headers, "content-type"),
        credentials="include" if header(sent, "cookie") is not None else "same-origin",
        resource_type=e.resource_type,
        frame_kind=e.frame_kind,
        frame_id=e.frame_id,
        document_url=e.document_url,
        session=e.session,
    )
