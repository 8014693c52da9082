"""The two tabs of the issue's measurement: ``/fatture`` (with an iframe) and ``/ordini``, each logging its own error.

Each page has a "Salva" button that asks ``/salvato?from=<page>``: the requests the test
server records say which page's button a click pressed (the user's check for "a wrong click").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from httpserver import Reply, Request


def _page(name: str, extra: str = "") -> str:
    return f"""<!doctype html><html><head><title>{name}</title></head><body>
<h1>{name}</h1>
<button id="salva" onclick="fetch('/salvato?from={name}'); console.error('clicked-{name}')">Salva</button>
{extra}
<script>console.error('err-{name}')</script>
</body></html>"""


@dataclass
class Apps:
    server: Any
    saved: list[str] = field(default_factory=list)
    #: requests to ``/started``: a page script says it is running
    started: list[str] = field(default_factory=list)

    def url(self, path: str) -> str:
        return str(self.server.url(path))


@pytest.fixture
def apps(http_server: Any) -> Apps:
    found = Apps(http_server)

    def saved(req: Request) -> Reply:
        found.saved.append(req.query.get("from", ["?"])[0])
        return Reply(200, "ok", "text/plain")

    http_server.route("/fatture", Reply(200, _page("fatture", '<iframe name="riga" src="/fatture/riga"></iframe>')))
    http_server.route("/fatture/riga", Reply(200, "<!doctype html><title>riga</title><p>riga 1</p>"))
    http_server.route("/ordini", Reply(200, _page("ordini")))

    def started(req: Request) -> Reply:
        found.started.append(req.path)
        return Reply(200, "ok", "text/plain")

    http_server.route("/salvato", saved)
    http_server.route("/started", started)
    return found
