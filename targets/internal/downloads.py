"""What the internal browser downloads: saved under ``downloads_dir`` with names safe on every system.

Playwright holds each download in Chrome's temporary copy until it completes; we then copy it
under a sanitized name that never overwrites (nor writes through a planted link), or delete it
when it is over ``DOWNLOAD_MAX_BYTES``. Every outcome, error included, is listed for the agent
(``read_downloaded_file``). The user's Chrome saves to its own folder and is never watched.

Playwright's ``download`` event comes on its own connection, and may come after our own session
has seen the page begin the download (``Page.downloadWillBegin``): a reader that only waited for
the saves already started would miss it. :meth:`Downloads.settle` waits, bounded, for the
downloads the pages are known to have begun.
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from targets.hub import utc_now
from targets.policies.file_names import safe_file_name
from targets.settings import TargetSettings

if TYPE_CHECKING:
    from playwright.async_api import Download, Page

__all__ = ["Downloads"]


class Downloads:
    """The downloads of the internal browser's pages, kept across its relaunches."""

    def __init__(self, settings: TargetSettings) -> None:
        self.settings = settings
        #: url, suggestedFilename, then path, size, savedAt, or error (and size when over the cap)
        self.entries: list[dict[str, Any]] = []
        self._tasks: set[asyncio.Task[None]] = set()
        #: set (and replaced) whenever a download is saved or fails: what :meth:`settle` waits on
        self._changed = asyncio.Event()

    def watch(self, pw_page: Page) -> None:
        """Save what ``pw_page`` downloads from now on."""
        pw_page.on("download", self._on_download)

    def _on_download(self, download: Download) -> None:
        task = asyncio.get_running_loop().create_task(self._save(download))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def directory(self) -> Path:
        root = self.settings.downloads_dir
        if root is None:
            root = str(Path(os.environ.get("MCP_ARTIFACT_DIR") or ".mcp-browser-artifacts") / "downloads")
        path = Path(root)
        path.mkdir(parents=True, exist_ok=True)
        return path

    async def _save(self, download: Download) -> None:
        name = safe_file_name(download.suggested_filename)  # no separators, no CON/NUL devices
        directory = self.directory()
        path = directory / name
        stem, suffix, n = path.stem, path.suffix, 1
        while path.exists() or path.is_symlink():  # a planted (even dangling) link is never written through
            n += 1
            path = directory / f"{stem}-{n}{suffix}"
        entry: dict[str, Any] = {"url": download.url, "suggestedFilename": download.suggested_filename}
        cap = self.settings.download_max_bytes
        try:
            held = await download.path()  # Chrome's own temporary copy, once complete
            size = held.stat().st_size if held is not None else 0
            if cap and size > cap:
                await download.delete()
                entry.update(error=f"{size} bytes, over DOWNLOAD_MAX_BYTES ({cap}): not kept", size=size)
            else:
                await download.save_as(path)
                entry.update(path=str(path), size=path.stat().st_size, savedAt=utc_now())
        except Exception as exc:
            entry.update(error=str(exc))
        self.entries.append(entry)
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def settle(self, begun: Iterable[str], timeout: float = 30.0) -> list[str]:
        """Wait until every download the pages began (``begun``: their URLs, as ``Page.downloadWillBegin``
        named them, one per download) is saved or has failed, at most ``timeout`` seconds; the URLs
        still not done then (a large file still arriving)."""
        wanted = Counter(begun)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            missing = wanted - Counter(str(e.get("url") or "") for e in self.entries)
            left = deadline - loop.time()
            if not missing or left <= 0:
                return list(missing.elements())
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                pass

    async def wait(self) -> None:
        """Wait for downloads being saved (tests, read_downloaded_file)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=30)
