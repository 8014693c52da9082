"""The server's redirects that brought a navigation where it ended, read from the captured requests.

Why: a business app whose session expired answers the page the agent asked for with a 302 to its
login page. The navigation "worked" (HTTP 200, title "Login"), and only a reader who compares the
URL it asked for with the one it got sees what happened. The answer says it: each hop of the
main document's redirect chain, with its status.
"""

from __future__ import annotations

from typing import Any

from mcp_server.answers.listing import same_doc

__all__ = ["MAX_HOPS", "server_redirects"]

#: Hops named at most (a redirect loop is cut by Chrome at 20).
MAX_HOPS = 10


def server_redirects(network: Any, final_url: str, since_id: int) -> list[dict[str, Any]]:
    """``[{url, status}]``, oldest first, of the redirects that ended at ``final_url`` after ``since_id``."""
    if network is None or not final_url:
        return []
    docs = network.list(resource_types=["document"], since_id=since_id)
    by_id = {d["id"]: d for d in docs}
    end = next((d for d in reversed(docs) if same_doc(d.get("url"), final_url)), None)
    hops: list[dict[str, Any]] = []
    while end is not None and end.get("redirectedFrom") in by_id and len(hops) < MAX_HOPS:
        end = by_id[end["redirectedFrom"]]
        hops.append({"url": end["url"], "status": end.get("status")})
    return hops[::-1]
