"""DevTools Issues (the ``Audits`` domain) as entries of the console timeline.

Why: after a Chrome update, legacy apps break on exactly what the Issues panel reports and the
console only hints at: a cross-origin call without the right CORS header, a cookie refused for
its SameSite attributes, a script blocked by CSP, mixed content, a deprecated API, a form whose
labels point nowhere, an ad removed for its CPU use. Each ``Audits.issueAdded`` becomes one
``type: "issue"`` entry with a readable text, its ``kind`` and ``reason``, a ``severity``
(``error`` when something was blocked or refused), and what it concerns: the request (its
URL and, when captured, the network entry id) or the element (described from its node, e.g.
``input#qty name=qty2``).

Chrome reports some issues again and again (form checks rerun on every DOM change), so
identical issues are kept once per document, and one kind of problem is capped per
document (:data:`MAX_PER_REASON`) so a page of 300 unlabelled inputs does not push real
errors out of the timeline; the last kept entry counts the ones left out.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any

from ...connection import CDPSession
from ...errors import CDPException

__all__ = ["IssueTracker", "issue_entry"]

#: Entries kept per (kind, reason) per document; the rest are counted on the last one.
MAX_PER_REASON = 10
#: Node descriptions fetched at once (each a ``DOM.describeNode``); past that, the node id stays.
MAX_PENDING_DESCRIPTIONS = 32
_MAX_KEYS = 5000

_KINDS = {
    "CorsIssue": "cors",
    "MixedContentIssue": "mixedContent",
    "CookieIssue": "cookie",
    "ContentSecurityPolicyIssue": "csp",
    "DeprecationIssue": "deprecation",
    "HeavyAdIssue": "heavyAd",
    "BlockedByResponseIssue": "blockedByResponse",
    "GenericIssue": "generic",
    "QuirksModeIssue": "quirksMode",
}

_CORS = {
    "MissingAllowOriginHeader": "the response has no Access-Control-Allow-Origin header",
    "AllowOriginMismatch": "Access-Control-Allow-Origin does not name this origin",
    "MultipleAllowOriginValues": "Access-Control-Allow-Origin has several values",
    "InvalidAllowOriginValue": "Access-Control-Allow-Origin is not a valid origin",
    "WildcardOriginNotAllowed": "Access-Control-Allow-Origin '*' is not allowed with credentials",
    "InvalidAllowCredentials": "Access-Control-Allow-Credentials is not 'true' for a request with credentials",
    "PreflightInvalidStatus": "the preflight (OPTIONS) request got an error status",
    "PreflightMissingAllowOriginHeader": "the preflight response has no Access-Control-Allow-Origin header",
    "PreflightAllowOriginMismatch": "the preflight's Access-Control-Allow-Origin does not name this origin",
    "MethodDisallowedByPreflightResponse": "the method is not in the preflight's Access-Control-Allow-Methods",
    "HeaderDisallowedByPreflightResponse": "a header is not in the preflight's Access-Control-Allow-Headers",
    "PreflightDisallowedRedirect": "the preflight was redirected",
    "RedirectContainsCredentials": "a redirect URL contains credentials",
    "DisallowedByMode": "the request mode does not allow cross-origin responses",
    "CorsDisabledScheme": "cross-origin requests are not supported for this scheme",
}

_COOKIE = {
    "ExcludeSameSiteNoneInsecure": "SameSite=None without Secure",
    "ExcludeSameSiteUnspecifiedTreatedAsLax": "no SameSite attribute (treated as Lax) in a cross-site context",
    "ExcludeSameSiteLax": "SameSite=Lax in a cross-site context",
    "ExcludeSameSiteStrict": "SameSite=Strict in a cross-site context",
    "ExcludeThirdPartyPhaseout": "third-party cookies are blocked",
    "ExcludeSchemeMismatch": "set by http but sent to https or the other way round",
    "ExcludePortMismatch": "set by another port",
    "ExcludeDomainNonASCII": "non-ASCII domain",
    "WarnSameSiteNoneInsecure": "SameSite=None without Secure",
    "WarnSameSiteUnspecifiedCrossSiteContext": "no SameSite attribute in a cross-site context",
    "WarnThirdPartyPhaseout": "third-party cookie that Chrome is phasing out",
    "WarnAttributeValueExceedsMaxSize": "an attribute value is too long",
}

_FORM = {
    "FormLabelForNameError": "a label's for= names a field's name, not its id",
    "FormDuplicateIdForInputError": "several form fields share this id",
    "FormInputWithNoLabelError": "form field without a label",
    "FormAutocompleteAttributeEmptyError": "empty autocomplete attribute",
    "FormEmptyIdAndNameAttributesForInputError": "form field with neither id nor name",
    "FormAriaLabelledByToNonExistingIdError": "aria-labelledby names an id that does not exist",
    "FormInputAssignedAutocompleteValueToIdOrNameAttributeError": "an autocomplete value is used as id or name",
    "FormLabelHasNeitherForNorNestedInputError": "label with no for= and no field inside",
    "FormLabelForMatchesNonExistingIdError": "a label's for= names an id that does not exist",
    "FormInputHasWrongButWellIntendedAutocompleteValueError": "misspelt autocomplete value",
}

_CSP = {
    "kInlineViolation": "an inline script or style",
    "kEvalViolation": "eval() or new Function()",
    "kURLViolation": "a resource",
    "kSRIViolation": "a resource without the required integrity",
    "kTrustedTypesSinkViolation": "a string assigned to a Trusted Types sink",
    "kTrustedTypesPolicyViolation": "a Trusted Types policy",
    "kWasmEvalViolation": "WebAssembly compilation",
}

_HEAVY_AD = {
    "NetworkTotalLimit": "used too much network",
    "CpuTotalLimit": "used too much CPU in total",
    "CpuPeakLimit": "used too much CPU at its peak",
}


def _location(loc: Any) -> dict[str, Any] | None:
    """A ``SourceCodeLocation`` as a console location (1-based, as DevTools shows it)."""
    if not isinstance(loc, dict) or not loc.get("url"):
        return None
    return {
        "url": str(loc["url"]),
        "lineNumber": int(loc.get("lineNumber") or 0) + 1,
        "columnNumber": int(loc.get("columnNumber") or 0) + 1,
    }


def _request(req: Any) -> dict[str, Any] | None:
    if not isinstance(req, dict) or not req.get("url"):
        return None
    out: dict[str, Any] = {"url": str(req["url"])}
    if req.get("requestId"):
        out["requestId"] = str(req["requestId"])
    return out


def _words(name: str) -> str:
    """``XMLHttpRequestSynchronousInNonWorker`` -> ``XMLHttpRequest synchronous in non worker``: for unknown reasons."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    head, _, rest = spaced.partition(" ")
    return head + (" " + rest.lower() if rest else "")


def _cors(d: dict[str, Any], entry: dict[str, Any]) -> str:
    status = d.get("corsErrorStatus") or {}
    reason = str(status.get("corsError") or "")
    entry["reason"] = reason
    blocked = not d.get("isWarning")
    entry["severity"] = "error" if blocked else "warning"
    why = _CORS.get(reason, _words(reason) if reason else "CORS check failed")
    if status.get("failedParameter"):
        why += f" ({status['failedParameter']})"
    url = (entry.get("request") or {}).get("url", "?")
    origin = str(d.get("initiatorOrigin") or "").rstrip("/")
    return f"CORS {'blocked' if blocked else 'warning'}: {url}" + (f" from {origin}" if origin else "") + f": {why}"


def _cookie(d: dict[str, Any], entry: dict[str, Any]) -> str:
    excluded = [str(r) for r in d.get("cookieExclusionReasons") or []]
    warned = [str(r) for r in d.get("cookieWarningReasons") or []]
    reasons = excluded or warned
    entry["reason"] = ",".join(reasons)
    entry["severity"] = "error" if excluded else "warning"
    cookie = d.get("cookie") or {}
    name = cookie.get("name") or (str(d.get("rawCookieLine") or "").split("=", 1)[0][:60] or "?")
    if cookie.get("domain"):
        entry["cookie"] = {k: cookie[k] for k in ("name", "domain", "path") if cookie.get(k)}
    op = "set" if d.get("operation") == "SetCookie" else "sent"
    verb = f"not {op}" if excluded else f"{op} with a warning"
    why = "; ".join(_COOKIE.get(r, _words(r)) for r in reasons) or "cookie problem"
    url = d.get("cookieUrl") or (entry.get("request") or {}).get("url")
    return f"Cookie {name!r} {verb}" + (f" ({url})" if url else "") + f": {why}"


def _mixed(d: dict[str, Any], entry: dict[str, Any]) -> str:
    status = str(d.get("resolutionStatus") or "")
    entry["reason"] = status
    entry["severity"] = "error" if status == "MixedContentBlocked" else "warning"
    what = {"MixedContentBlocked": "blocked", "MixedContentAutomaticallyUpgraded": "upgraded to https"}.get(
        status, "loaded (warning)"
    )
    kind = f"{d['resourceType']} " if d.get("resourceType") else ""
    return f"Mixed content {what}: {kind}{d.get('insecureURL', '?')} on the https page {d.get('mainResourceURL', '?')}"


def _csp(d: dict[str, Any], entry: dict[str, Any]) -> str:
    kind = str(d.get("contentSecurityPolicyViolationType") or "")
    entry["reason"] = kind
    report_only = bool(d.get("isReportOnly"))
    entry["severity"] = "warning" if report_only else "error"
    what = _CSP.get(kind, _words(kind.lstrip("k")) if kind else "content")
    if d.get("blockedURL"):
        what += f" {d['blockedURL']}"
    verb = "reported (report-only)" if report_only else "blocked"
    return f"CSP {d.get('violatedDirective', '?')} {verb} {what}"


def _deprecation(d: dict[str, Any], entry: dict[str, Any]) -> str:
    kind = str(d.get("type") or "")
    entry["reason"] = kind
    entry["severity"] = "warning"
    return f"Deprecated: {kind or 'a deprecated feature'} (Chrome will remove or has changed it)"


def _quirks(d: dict[str, Any], entry: dict[str, Any]) -> str:
    limited = bool(d.get("isLimitedQuirksMode"))
    entry["reason"] = "LimitedQuirksMode" if limited else "QuirksMode"
    entry["severity"] = "warning"
    d.pop("documentNodeId", None)  # the document itself: nothing to point at
    mode = "limited-quirks" if limited else "quirks"
    return f"Page in {mode} mode (no <!DOCTYPE html>): layout differs from standards mode ({d.get('url', '')})"


def _heavy_ad(d: dict[str, Any], entry: dict[str, Any]) -> str:
    reason = str(d.get("reason") or "")
    entry["reason"] = reason
    blocked = d.get("resolution") == "HeavyAdBlocked"
    entry["severity"] = "error" if blocked else "warning"
    frame = (d.get("frame") or {}).get("frameId")
    if frame:
        entry["frameId"] = frame
    why = _HEAVY_AD.get(reason, _words(reason))
    return f"Heavy ad {'removed' if blocked else 'warning'}: the ad frame {why}"


def _blocked_by_response(d: dict[str, Any], entry: dict[str, Any]) -> str:
    reason = str(d.get("reason") or "")
    entry["reason"] = reason
    entry["severity"] = "error"
    return f"Blocked by the response's headers ({_words(reason)}): {(entry.get('request') or {}).get('url', '?')}"


def _generic(d: dict[str, Any], entry: dict[str, Any]) -> str:
    kind = str(d.get("errorType") or "")
    entry["reason"] = kind
    if kind.startswith("Form"):
        entry["kind"] = "form"
        entry["severity"] = "warning"
        attr = d.get("violatingNodeAttribute")
        return "Form: " + _FORM.get(kind, _words(kind)) + (f" (attribute {attr})" if attr else "")
    entry["severity"] = "error" if "Blocked" in kind else "warning"
    url = (entry.get("request") or {}).get("url")
    return _words(kind) + (f": {url}" if url else "")


_TEXT = {
    "cors": _cors,
    "cookie": _cookie,
    "mixedContent": _mixed,
    "csp": _csp,
    "deprecation": _deprecation,
    "heavyAd": _heavy_ad,
    "blockedByResponse": _blocked_by_response,
    "generic": _generic,
    "quirksMode": _quirks,
}


def _node_id(details: dict[str, Any]) -> int | None:
    for key in ("violatingNodeId", "nodeId", "documentNodeId"):
        value = details.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def issue_entry(issue: dict[str, Any]) -> dict[str, Any]:
    """One ``Audits.InspectorIssue`` as a console entry (without id, timestamp and page fields)."""
    code = str(issue.get("code") or "Issue")
    details_all = issue.get("details") or {}
    details = dict(next((v for v in details_all.values() if isinstance(v, dict)), {}))
    kind = _KINDS.get(code) or (code.removesuffix("Issue")[:1].lower() + code.removesuffix("Issue")[1:] or "issue")
    entry: dict[str, Any] = {"type": "issue", "kind": kind, "source": "audits"}
    request = _request(details.get("request"))
    if request:
        entry["request"] = request
    location = _location(details.get("sourceCodeLocation") or details.get("location"))
    if location:
        entry["location"] = location
    render = _TEXT.get(kind)
    if render is not None:
        text = render(details, entry)
    else:
        entry["severity"] = "error" if "Blocked" in json.dumps(details) else "warning"
        scalars = [f"{k}={v}" for k, v in details.items() if isinstance(v, str | int | float | bool)]
        text = f"{_words(code.removesuffix('Issue'))}" + (f": {', '.join(scalars)[:300]}" if scalars else "")
    node = _node_id(details)
    if node is not None:
        entry["nodeId"] = node
    entry["text"] = text
    return entry


def describe_node(node: dict[str, Any]) -> str:
    """``input#email name=email type=text``: what a user finds the element by (from ``DOM.describeNode``)."""
    name = str(node.get("localName") or node.get("nodeName") or "node").lower()
    raw = node.get("attributes") or []
    attrs = dict(zip(raw[::2], raw[1::2], strict=False))
    out = name + (f"#{attrs['id']}" if attrs.get("id") else "")
    for key in ("name", "type", "for", "src", "href"):
        if attrs.get(key):
            out += f" {key}={str(attrs[key])[:80]}"
    return out


class IssueTracker:
    """Per page: turns ``Audits.issueAdded`` into entries, once per document, and names their elements.

    ``request_ids`` (set by whoever also records the network) maps a CDP request id to the
    network entry id an agent can pass to ``network_get``.
    """

    def __init__(self) -> None:
        self.request_ids: Callable[[str], int | None] | None = None
        self._keys: set[str] = set()
        self._groups: dict[tuple[str, str], dict[str, Any]] = {}  # (kind, reason) -> its last kept entry
        self._counts: dict[tuple[str, str], int] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def forget(self) -> None:
        """The page loaded a new document: the same issue is news again."""
        self._keys.clear()
        self._groups.clear()
        self._counts.clear()

    def entry(self, issue: dict[str, Any], session: CDPSession) -> dict[str, Any] | None:
        """The entry to add to the timeline, or None (a repeat, or past the cap: counted on the last one)."""
        key = json.dumps([issue.get("code"), issue.get("details")], sort_keys=True, default=str)
        if key in self._keys:
            return None
        if len(self._keys) > _MAX_KEYS:
            self._keys.clear()
        self._keys.add(key)
        entry = issue_entry(issue)
        group = (entry["kind"], str(entry.get("reason") or ""))
        count = self._counts.get(group, 0) + 1
        self._counts[group] = count
        if count > MAX_PER_REASON:
            last = self._groups.get(group)
            if last is not None:
                last["omitted"] = count - MAX_PER_REASON
            return None
        self._groups[group] = entry
        request = entry.get("request")
        request_id = request.pop("requestId", None) if request else None  # CDP's id: of no use to an agent
        if request and request_id and self.request_ids is not None:
            try:
                found = self.request_ids(request_id)
            except Exception:  # noqa: BLE001 - a lookup must never lose the issue
                found = None
            if found is not None:
                request["networkId"] = found
                entry["text"] += f" (network #{found})"
        node = entry.pop("nodeId", None)  # a backend node id: the element's description is what helps
        if node is not None and len(self._tasks) < MAX_PENDING_DESCRIPTIONS:
            self._spawn(self._describe(entry, node, session))
        return entry

    def _spawn(self, coro: Any) -> None:
        try:
            task = asyncio.get_running_loop().create_task(coro)
        except RuntimeError:  # no loop (unit use): the node id stays
            coro.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _describe(self, entry: dict[str, Any], node: int, session: CDPSession) -> None:
        try:
            reply = await session.send("DOM.describeNode", {"backendNodeId": node}, timeout=5)
        except (CDPException, TimeoutError):
            return  # the node is gone (or the page): the text still says what is wrong
        element = describe_node(reply.get("node") or {})
        entry["element"] = element
        entry["text"] = f"{entry['text']} [{element}]"

    async def settle(self, timeout: float = 1.0) -> None:
        """Wait (bounded) until pending element descriptions are in (before a listing)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)
