"""The tab registry of one target: order, stable ids, the one selected page, and selection rules.

Pure bookkeeping without I/O, so the rules (exactly one selected, ambiguous matches
leave the selection alone, a listing's ``page_id`` keeps meaning what the agent saw) are
easy to test and impossible to break by a slow browser.

The pages are shared by every MCP session; the selection and the listing are each session's
own (:mod:`targets.callers`): what one agent selects never moves another's.
"""

from __future__ import annotations

from typing import Any, Literal

from targets.callers import PerCaller
from targets.errors import ErrorCode, ToolFailure

from .page import PageHandle

__all__ = ["PageRegistry"]

_LIST_AGAIN = "Call list_pages to see the current tabs, then select again."


class PageRegistry:
    """Pages of one target in attach order; ``page_id`` is the index in the latest listing."""

    def __init__(self) -> None:
        self._pages: list[PageHandle] = []
        #: The caller's selected page; a session that selected nothing reads the default caller's.
        self._chosen: PerCaller[PageHandle | None] = PerCaller(None)
        #: The pages as the caller last saw them; ``page_id`` refers to this listing.
        self._listings: PerCaller[list[PageHandle] | None] = PerCaller(None, inherit=False)

    # -- membership -------------------------------------------------------------------

    def add(self, page: PageHandle) -> None:
        if page not in self._pages:
            self._pages.append(page)
        # Every session with no open selection gets the new page, whichever call noticed it.
        self._chosen.update_all(lambda chosen: page if chosen is None or chosen.closed else chosen)

    def by_target_id(self, target_id: str) -> PageHandle | None:
        for page in self._pages:
            if page.target_id == target_id and not page.closed:
                return page
        return None

    @property
    def pages(self) -> list[PageHandle]:
        """Open pages, in attach order."""
        return [p for p in self._pages if not p.closed]

    @property
    def all_pages(self) -> list[PageHandle]:
        return list(self._pages)

    @property
    def selected(self) -> PageHandle | None:
        """The caller's selected page (possibly closed since: :meth:`listing` moves on from it)."""
        return self._chosen.get()

    def clear(self) -> None:
        self._pages.clear()
        self._chosen.reset()
        self._listings.reset()

    # -- listing ----------------------------------------------------------------------

    def opener_of(self, page: PageHandle) -> PageHandle | None:
        """The open page that opened ``page`` (``window.open``, a ``target=_blank`` link), if any."""
        return self.by_target_id(page.opener_target_id) if page.opener_target_id else None

    def listing(self) -> list[dict[str, Any]]:
        """Drop closed pages, keep exactly one selected, list.

        When the selected page closed, its opener is selected if it is still open (a lookup popup
        that closed itself after filling its opener's field: the work goes on there), else the first.
        """
        selected = self._chosen.get()
        if selected is not None and selected.closed:
            selected = self.opener_of(selected)
        self._pages = [p for p in self._pages if not p.closed]
        if selected is None or selected.closed:
            selected = self._pages[0] if self._pages else None
        if selected is not self._chosen.get():
            self._chosen.set(selected)
        self._listings.set(list(self._pages))
        return [p.info(page_id=i, selected=p is selected) for i, p in enumerate(self._pages)]

    def index_of(self, page: PageHandle) -> int | None:
        pages = self.pages
        return pages.index(page) if page in pages else None

    # -- selection --------------------------------------------------------------------

    def resolve(
        self,
        *,
        page_id: int | None = None,
        stable_page_id: str | None = None,
        url_contains: str | None = None,
        title_contains: str | None = None,
    ) -> PageHandle:
        """The one page the selector names; raises without changing anything otherwise."""
        given = [
            name
            for name, value in (
                ("page_id", page_id),
                ("stable_page_id", stable_page_id),
                ("url_contains", url_contains),
                ("title_contains", title_contains),
            )
            if value is not None
        ]
        if len(given) != 1:
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                "Give exactly one of page_id, stable_page_id, url_contains, title_contains"
                + (f" (got {', '.join(given)})." if given else "."),
            )
        if page_id is not None:
            return self._by_index(page_id)
        if stable_page_id is not None:
            return self._by_stable_id(stable_page_id)
        if url_contains is not None:
            return self._by_text("url", url_contains)
        assert title_contains is not None
        return self._by_text("title", title_contains)

    def select(self, page: PageHandle) -> None:
        """Select ``page`` for the caller (its main frame): no other session's selection moves."""
        page.active_frame = None
        self._chosen.set(page)

    def _by_index(self, page_id: int) -> PageHandle:
        listing = self._listings.get()
        if listing is None:
            listing = self.pages
        if isinstance(page_id, bool) or not isinstance(page_id, int) or not 0 <= page_id < len(listing):
            raise ToolFailure(
                ErrorCode.PAGE_NOT_FOUND,
                f"No page with page_id {page_id} (the last listing had {len(listing)} page(s)).",
                hint=_LIST_AGAIN,
                page_id=page_id,
            )
        page = listing[page_id]
        if page.closed:
            raise ToolFailure(
                ErrorCode.PAGE_CLOSED,
                f"Page {page_id} ({page.stable_page_id}, {page.url}) was closed since the last listing.",
                hint=_LIST_AGAIN,
                page_id=page_id,
                stable_page_id=page.stable_page_id,
            )
        return page

    def _by_stable_id(self, stable_page_id: str) -> PageHandle:
        for page in self._pages:
            if page.stable_page_id == stable_page_id:
                if page.closed:
                    raise ToolFailure(
                        ErrorCode.PAGE_CLOSED,
                        f"Page {stable_page_id} ({page.url}) was closed.",
                        hint=_LIST_AGAIN,
                        stable_page_id=stable_page_id,
                    )
                return page
        raise ToolFailure(
            ErrorCode.PAGE_NOT_FOUND,
            f"No page {stable_page_id!r} in this target (stable ids are never reused).",
            hint=_LIST_AGAIN,
            stable_page_id=stable_page_id,
        )

    def _by_text(self, field_name: Literal["url", "title"], needle: str) -> PageHandle:
        if not needle:
            raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{field_name}_contains must not be empty.")
        wanted = needle.casefold()
        open_pages = self.pages
        matches = [p for p in open_pages if wanted in (p.url if field_name == "url" else p.title).casefold()]
        if not matches:
            raise ToolFailure(
                ErrorCode.PAGE_NOT_FOUND,
                f"No open page whose {field_name} contains {needle!r}.",
                hint=_LIST_AGAIN,
                **{f"{field_name}_contains": needle},
            )
        if len(matches) > 1:
            raise ToolFailure(
                ErrorCode.AMBIGUOUS_MATCH,
                f"{len(matches)} pages have a {field_name} containing {needle!r}; the selection is unchanged.",
                hint="Select one of the candidates by stable_page_id.",
                candidates=[p.info(page_id=open_pages.index(p), selected=p is self.selected) for p in matches],
            )
        return matches[0]
