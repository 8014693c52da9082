"""Shared helpers of the snapshot tests: open a tab, load a page, generate a big page."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import cdp_core
from cdp_core import CDPSession


@contextlib.asynccontextmanager
async def open_tab(chromium) -> AsyncIterator[tuple[cdp_core.Browser, CDPSession]]:
    """A tab of our own on the session browser, closed at the end."""
    browser = await cdp_core.connect(chromium.http_url)
    session = await browser.new_page("about:blank")
    await session.send("Page.enable")
    try:
        yield browser, session
    finally:
        try:
            await browser.close_target(session.target_info.get("targetId", ""))
        finally:
            await browser.close()


async def load(session: CDPSession, url: str) -> None:
    """Navigate and wait for the load event."""
    async with session.events("Page.loadEventFired") as stream:
        await session.send("Page.navigate", {"url": url})
        async for _ in stream:
            break


def big_page(elements: int = 5000) -> str:
    """A legacy-style page of about ``elements`` elements: headings, tables, forms, links."""
    parts = ["<!doctype html><html><head><title>Big</title></head><body>"]
    count = 0
    section = 0
    while count < elements:
        section += 1
        parts.append(f"<h2>Sezione {section}</h2><p>Testo descrittivo della sezione {section}.</p>")
        parts.append("<table><tr><th>Codice</th><th>Descrizione</th><th>Azioni</th></tr>")
        for row in range(5):
            parts.append(
                f"<tr><td>C{section}-{row}</td><td>Articolo {row} della sezione {section}</td>"
                f'<td><a href="/a.html?id={section}-{row}">Apri</a></td></tr>'
            )
        parts.append("</table><form>")
        for field in range(3):
            parts.append(
                f'<label for="f{section}-{field}">Campo {field}</label>'
                f'<input id="f{section}-{field}" name="f{field}" value="v{section}">'
            )
        parts.append('<select aria-label="Stato"><option>Aperto</option><option>Chiuso</option></select>')
        parts.append("<button type=button>Salva</button></form><div><div><span></span></div></div>")
        count = sum(part.count("<") - part.count("</") - part.count("<!") for part in parts)
    parts.append("</body></html>")
    return "".join(parts)
