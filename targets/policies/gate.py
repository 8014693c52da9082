"""The policy's answers to the agent: a URL it may not open, a tab it may not act in, as ToolFailures.

:class:`UrlPolicy` says yes or no; this gate turns a no into BLOCKED_BY_POLICY with the hint the
agent can act on. The user's Chrome has no interception, so there only the rule on local files
and browser-internal pages applies (``local_only``).
"""

from __future__ import annotations

from targets.errors import ErrorCode, ToolFailure
from targets.pages.page import PageHandle

from .policy import UrlPolicy

__all__ = ["PolicyGate"]

_ADJUST = "Adjust ALLOWED_URLS / ALLOW_FILE_URLS / ALLOWED_FILE_ROOTS, or use an allowed URL."


class PolicyGate:
    """Refusals of URLs and tabs, by the policy of the internal browser (both browsers ask it)."""

    def __init__(self, policy: UrlPolicy) -> None:
        self.policy = policy

    def check_url(self, url: str, *, local_only: bool = False) -> None:
        """Refuse a URL the agent may not open; ``local_only``: the user's Chrome, where only the
        rule on local files and browser-internal pages applies (ALLOWED_URLS needs interception)."""
        verdict = self.policy.check_local(url) if local_only else self.policy.check_url(url)
        if not verdict.allowed:
            raise ToolFailure(
                ErrorCode.BLOCKED_BY_POLICY,
                f"Navigation to {url} is not allowed: {verdict.reason}.",
                hint=_ADJUST,
                url=url,
            )

    def check_tab(self, page: PageHandle, *, doing: str = "act") -> None:
        """Refuse to act in a tab that shows a browser-internal or local page (both browsers).

        A ``chrome://`` tab the user has open carries privileged APIs (``chrome.settingsPrivate``
        switched Safe Browsing off in the review), a ``file:`` tab local files: listing such a tab
        is fine, selecting it, running script or reading and typing in it is not. http(s) pages,
        localhost included (where the apps live), ``about:blank`` and ``data:`` are never refused.
        """
        verdict = self.policy.check_local(page.url) if page.url else None
        if verdict is None or verdict.allowed:
            return
        raise ToolFailure(
            ErrorCode.BLOCKED_BY_POLICY,
            f"Tab {page.stable_page_id} shows {page.url[:200]}: the server does not {doing} in it ({verdict.reason}).",
            hint="Select another tab (list_pages, select_page) or navigate this one to a web page.",
            url=page.url[:200],
        )
