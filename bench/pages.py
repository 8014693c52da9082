"""The benchmark's pages, generated and served on 127.0.0.1 by the tests' ``TestServer``.

Every page carries markers the harness can count in a server's answer (``Button 0042``,
``bench-msg-1999``, ``/bench/req?i=499``), so "how much of the page did the answer
carry" is measured, not guessed. The traffic page reports to ``/bench/done`` once every
fetch has its response, so the harness knows when the browser has seen everything.
"""

from __future__ import annotations

import html
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from httpserver import Reply, Request, TestServer  # noqa: E402

__all__ = ["BenchPages", "BIG_ROWS", "BIG_KINDS", "TRAFFIC_REQUESTS", "TRAFFIC_MESSAGES"]

#: The big page has this many rows of ``len(BIG_KINDS) + 1`` elements (a ``li`` holding one of each kind).
BIG_ROWS = 1000
BIG_KINDS = ("Link", "Button", "Field", "Text")
TRAFFIC_REQUESTS = 500
TRAFFIC_MESSAGES = 2000

FORM_HTML = """<!doctype html>
<html lang="it"><head><meta charset="utf-8"><title>Modifica cliente</title></head>
<body>
<h1>Modifica cliente</h1>
<form id="f" onsubmit="return false">
  <label>Ragione sociale <input name="ragione" value="ACME SRL"></label>
  <label>Partita IVA <input name="piva" value="01234567890"></label>
  <label>Provincia
    <select name="provincia">
      <option value="">--</option><option>MI</option><option>TO</option><option>RM</option>
    </select>
  </label>
  <label><input type="checkbox" name="attivo" checked> Attivo</label>
  <label>Note <textarea name="note">Cliente storico</textarea></label>
  <button type="submit">Salva</button>
  <a href="/bench/blank.html">Annulla</a>
</form>
<div role="alert">Provincia obbligatoria</div>
</body></html>
"""

BLANK_HTML = "<!doctype html><html><head><title>Blank</title></head><body><p>blank</p></body></html>"

TRAFFIC_HTML = """<!doctype html>
<html><head><meta charset="utf-8"><title>Traffic</title></head>
<body><h1>Traffic</h1><p id="state">running</p>
<script>
for (let i = 0; i < %(messages)d; i++) console.log("bench-msg-" + i);
(async () => {
  const all = [];
  for (let i = 0; i < %(requests)d; i++) all.push(fetch("/bench/req?i=" + i).then(r => r.text()).catch(() => ""));
  await Promise.all(all);
  document.getElementById("state").textContent = "done";
  await fetch("/bench/done");
})();
</script>
</body></html>
"""


def big_html(rows: int = BIG_ROWS) -> str:
    """``rows`` list items, each with a link, a button, a labelled input and a text span."""
    parts = ['<!doctype html><html><head><meta charset="utf-8"><title>Big page</title></head><body>']
    parts.append("<h1>Big page</h1><ul>")
    for i in range(rows):
        n = f"{i:04d}"
        parts.append(
            f'<li><a href="/bench/blank.html#{n}">Link {n}</a><button>Button {n}</button>'
            f'<input aria-label="Field {n}" value=""><span>Text {n}</span></li>'
        )
    parts.append("</ul></body></html>")
    return "".join(parts)


@dataclass
class TrafficWait:
    """How many ``/bench/req`` and ``/bench/done`` hits the server has seen so far."""

    requests: int = 0
    done: int = 0


class BenchPages:
    """A ``TestServer`` with the benchmark routes; counts traffic hits for :meth:`wait_traffic_done`."""

    def __init__(self) -> None:
        self.server = TestServer()
        self.counts = TrafficWait()
        self._cond = threading.Condition()
        big = big_html()
        self.server.route("/bench/form.html", Reply(body=FORM_HTML))
        self.server.route("/bench/big.html", Reply(body=big))
        self.server.route("/bench/blank.html", Reply(body=BLANK_HTML))
        traffic = TRAFFIC_HTML % {"messages": TRAFFIC_MESSAGES, "requests": TRAFFIC_REQUESTS}
        self.server.route("/bench/traffic.html", Reply(body=traffic))
        self.server.route("/bench/req", self._req)
        self.server.route("/bench/done", self._done)
        self.server.route("/favicon.ico", Reply(status=204, content_type="image/x-icon"))

    def _req(self, req: Request) -> Reply:
        with self._cond:
            self.counts.requests += 1
        i = html.escape(req.query.get("i", ["?"])[0])
        return Reply(body=f'{{"i": "{i}"}}', content_type="application/json")

    def _done(self, _req: Request) -> Reply:
        with self._cond:
            self.counts.done += 1
            self._cond.notify_all()
        return Reply(body="ok", content_type="text/plain")

    def start(self) -> BenchPages:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    def url(self, path: str) -> str:
        return self.server.url(path)

    def done_count(self) -> int:
        with self._cond:
            return self.counts.done

    def wait_traffic_done(self, previous_done: int, timeout: float) -> bool:
        """Block until the traffic page reported done once more than ``previous_done``."""
        with self._cond:
            return self._cond.wait_for(lambda: self.counts.done > previous_done, timeout)
