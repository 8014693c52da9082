"""The person at WordPress's admin, over the harness's own CDP connection to the tab."""

from __future__ import annotations

import json
from typing import Any

from realapp_session import bench

person = bench("cdp_person")
wordpress = bench("wordpress")

__all__ = ["load", "log_in"]


async def load(conn: Any, url: str, ready: str) -> None:
    """Go to ``url`` as a click on a link does; wait until it loaded and ``ready`` (a selector) is there."""
    await person.go_to(conn, url, f"!!document.querySelector({json.dumps(ready)})")


async def log_in(conn: Any, site: Any) -> None:
    """No cookies, wp-login.php, the person's typed user and password, Log In: the dashboard."""
    await conn.send("Network.clearBrowserCookies")
    await conn.send("Page.navigate", {"url": site.url("wp-login.php")})
    await person.until(conn, "document.readyState === 'complete' && !!document.getElementById('wp-submit')", "no login")
    await person.type_into(conn, "document.getElementById('user_login')", wordpress.USER)
    await person.type_into(conn, "document.getElementById('user_pass')", site.password)
    await person.eval_js(conn, "document.getElementById('wp-submit').click(), true", gesture=True)
    await person.until(
        conn, "document.readyState === 'complete' && !!document.getElementById('wpadminbar')", "the login failed"
    )
