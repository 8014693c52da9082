"""Which of ``debug_bundle``'s optional sections matter to the failure at hand.

Why: every section costs the agent tokens on every bundle (the snapshot and storage names can
be much of a diagnosis that needs neither). By default the bundle carries the
accessibility snapshot only when the page shows a form error (a field the browser calls invalid,
``aria-invalid``, a visible alert or error message) that the on-screen section could not quote
(it quotes alerts, messages and invalid fields whole, with their uids), and storage key and cookie names only when
storage is involved (an error or a failing request mentions storage, cookies, a session, a login
or CSRF, or a request was refused 401/403/419). The rules read the page and the captured errors,
never a particular site; ``include_snapshot`` / ``include_storage`` ask for a section either way,
and the answer names what it left out.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from cdp_core.errors import CDPException

if TYPE_CHECKING:
    from targets import PageHandle

__all__ = ["shows_form_error", "storage_involved", "STORAGE_WORDS", "AUTH_STATUSES"]

#: Words in an error that point at storage, cookies or a login (the state storage holds)
STORAGE_WORDS = re.compile(
    r"\b(?:local|session)Storage\b|\bindexedDB\b|cookie|\bcsrf|\bxsrf|\bsession\b|\bjwt\b|"
    r"\b(?:access|auth|bearer|refresh)[ _-]?token|\bunauthori[sz]ed\b|\bforbidden\b|"
    r"\bnot (?:logged|signed) in\b|\blog(?:ged)?[ -]?(?:in|out)\b|\bsign(?:ed)?[ -]?in\b|\bquota\b",
    re.IGNORECASE,
)
#: Statuses that say the request's credentials (cookies, a token from storage) were refused
AUTH_STATUSES = frozenset({401, 403, 419, 440})

_NETWORK_LISTS = ("failed", "httpErrors", "serverErrors", "appErrors")
_NETWORK_TEXTS = ("url", "failureText", "serverError", "appError", "responsePreview", "statusText")


def storage_involved(bundle: dict[str, Any]) -> bool:
    """Whether a console error or a failing request of ``bundle`` involves storage or a login."""
    console = bundle.get("console") or {}
    for entry in console.get("errors") or []:
        said = " ".join([str(entry.get("text") or ""), *map(str, entry.get("stackTop") or [])])
        if STORAGE_WORDS.search(said):
            return True
    network = bundle.get("network") or {}
    for key in _NETWORK_LISTS:
        for item in network.get(key) or []:
            if item.get("status") in AUTH_STATUSES:
                return True
            if STORAGE_WORDS.search(" ".join(str(item.get(k) or "") for k in _NETWORK_TEXTS)):
                return True
    return False


#: Counts what a person would see as a form error: invalid fields (read without firing ``invalid``
#: events), ``aria-invalid`` fields, and visible alerts or error messages that have text.
_FORM_ERROR = """(() => {
  const shown = e => !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length)
    && getComputedStyle(e).visibility !== "hidden";
  const fields = [...document.querySelectorAll("input,select,textarea")]
    .filter(e => e.willValidate && !e.validity.valid && shown(e));
  const marked = [...document.querySelectorAll("[aria-invalid=true]")].filter(shown);
  const said = [...document.querySelectorAll(
    "[role=alert],[role=alertdialog],.error,.errors,.alert-danger,.alert-error,.invalid-feedback," +
    ".field-error,.error-message,.has-error,.is-invalid")].filter(e => shown(e) && e.textContent.trim());
  return fields.length + marked.length + said.length;
})()"""


async def shows_form_error(page: PageHandle) -> bool:
    """Whether the page shows a form error now (False when the page cannot be read)."""
    try:
        reply = await page.session.send(
            "Runtime.evaluate", {"expression": _FORM_ERROR, "returnByValue": True, "silent": True}, timeout=5
        )
    except CDPException:
        return False
    if reply.get("exceptionDetails"):
        return False
    return bool(reply.get("result", {}).get("value"))
