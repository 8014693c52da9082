"""The slow "report page" the trace tests load: a 300 ms busy loop and 20 fetches.

Shared by the cdp_core-level and the MCP-level trace tests (and the trace benchmark).
"""

from __future__ import annotations

import asyncio
from typing import Any

from httpserver import Reply, TestServer

BUSY_MS = 300
FETCHES = 20

PAGE = f"""<!doctype html>
<html><head><title>Slow report</title><script src="/trace/app.js"></script></head>
<body><h1>Quarterly report</h1><div id="rows"></div>
<script>
for (let i = 0; i < {FETCHES}; i++) {{
  fetch('/trace/data?i=' + i).then(r => r.text()).then(t => {{
    document.getElementById('rows').textContent += t;
    window.fetchesDone = (window.fetchesDone || 0) + 1;
  }});
}}
</script></body></html>"""

APP = f"""function busyLoop() {{
  const t0 = performance.now();
  while (performance.now() - t0 < {BUSY_MS}) {{}}
  window.busyDone = true;
}}
window.addEventListener('load', () => setTimeout(busyLoop, 20));
"""


async def wait_busy_done(session: Any, timeout: float = 20.0) -> None:
    """Wait until the busy loop has run and every fetch finished (polling; no fixed sleep, so a
    slow CI cannot race it: under load the fetches may still be in flight after the loop)."""
    done = f"!!window.busyDone && window.fetchesDone === {FETCHES}"
    async with asyncio.timeout(timeout):
        while True:
            reply = await session.send("Runtime.evaluate", {"expression": done, "returnByValue": True})
            if reply["result"].get("value"):
                return
            await asyncio.sleep(0.05)


def install(server: TestServer) -> str:
    """Register the routes; return the page URL."""
    server.route("/trace/report.html", Reply(200, PAGE))
    server.route("/trace/app.js", Reply(200, APP, "application/javascript"))
    server.route("/trace/data", Reply(200, "row;", "text/plain"))
    return server.url("/trace/report.html")


# -- the page of the performance-insight tests ---------------------------------------------
#
# A legacy dashboard as it loads: a stylesheet that takes 600 ms (render-blocking: nothing
# paints before it), a hero image that is the LCP element (400 ms to load), a script from
# another site (the "vendor" on localhost: a third party to 127.0.0.1) that runs a 120 ms
# loop, and a banner inserted after load that pushes the content down (a layout shift).

STYLE_MS = 600
IMAGE_MS = 400
VENDOR_BUSY_MS = 120

INSIGHTS_PAGE = """<!doctype html>
<html><head><title>Dashboard</title>
<link rel="stylesheet" href="/insights/slow.css">
<script src="{vendor}"></script>
</head><body>
<div id="banner-slot"></div>
<h1>Dashboard ordini</h1>
<img id="hero" src="/insights/hero.png" width="800" height="400" alt="hero">
<p>Riepilogo del mese.</p>
<script>
addEventListener("load", () => setTimeout(() => {{
  const b = document.createElement("div");
  b.style.height = "180px"; b.textContent = "Avviso: manutenzione";
  document.getElementById("banner-slot").appendChild(b);
  window.insightsDone = true;
}}, 300));
</script>
</body></html>"""

VENDOR = f"""function vendorTracking() {{
  const t0 = performance.now();
  while (performance.now() - t0 < {VENDOR_BUSY_MS}) {{}}
}}
vendorTracking();
"""


def _png(width: int, height: int) -> bytes:
    """A solid PNG of the given size (LCP counts an image's intrinsic area, so it must be real)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" + b"\x30\x60\x90" * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


HERO_PNG = _png(800, 400)


def install_insights(server: TestServer, vendor_host: str = "localhost") -> str:
    """Register the insight page's routes (the vendor script on another host); return the page URL."""
    import time

    def slow(ms: int, reply: Reply):
        def handler(_req: Any) -> Reply:
            time.sleep(ms / 1000)
            return reply

        return handler

    vendor_url = server.url("/insights/vendor.js").replace("127.0.0.1", vendor_host)
    server.route("/insights/page.html", Reply(200, INSIGHTS_PAGE.format(vendor=vendor_url)))
    server.route("/insights/slow.css", slow(STYLE_MS, Reply(200, "body { font-family: serif; }", "text/css")))
    server.route("/insights/hero.png", slow(IMAGE_MS, Reply(200, HERO_PNG, "image/png")))
    server.route("/insights/vendor.js", Reply(200, VENDOR, "application/javascript"))
    return server.url("/insights/page.html")


# A page whose LCP is text and whose content moves twice: a web font that arrives late (the
# text reflows in the new font) and an image without width/height that pushes the text down.
FONT_MS = 400
SHIFTS_PAGE = """<!doctype html>
<html><head><title>Articolo</title>
<style>
@font-face { font-family: Lenta; src: url(/shifts/lenta.ttf); font-display: swap; }
body { font: 22px Lenta, serif; width: 700px; }
</style></head><body>
<img src="/shifts/photo.png" alt="foto">
<p>Il rapporto trimestrale mostra una crescita degli ordini in tutte le regioni, con un aumento
marcato nel nord e una flessione contenuta nelle isole. I tempi di consegna sono scesi.</p>
<p>Le note seguono la tabella riepilogativa del mese e gli allegati del fornitore principale.</p>
</body></html>"""


def install_shifts(server: TestServer, font_file: str = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf") -> str:
    """Register the shifting article's routes; return the page URL."""
    import time
    from pathlib import Path

    font = Path(font_file).read_bytes()

    def slow(ms: int, reply: Reply):
        def handler(_req: Any) -> Reply:
            time.sleep(ms / 1000)
            return reply

        return handler

    server.route("/shifts/article.html", Reply(200, SHIFTS_PAGE))
    server.route("/shifts/lenta.ttf", slow(FONT_MS, Reply(200, font, "font/ttf")))
    server.route("/shifts/photo.png", slow(700, Reply(200, _png(640, 160), "image/png")))
    return server.url("/shifts/article.html")
