"""A dialog that opens right after ``handle_dialog`` is seen.

The case: with ``alert(1); alert(2)`` the second dialog was reported while the first was being
answered, then forgotten; the next ``snapshot`` waited 30 s on the blocked page and timed out.
Here a page on 127.0.0.1 opens two dialogs back to back; answering the first says the second
opened, the next call is refused at once with DIALOG_OPEN naming it, and answering it frees the page.
"""

from __future__ import annotations

import anyio
import pytest
from httpserver import Reply
from lean_util import answer_text
from mcp.client import Client

PAGE = """<!doctype html><title>two</title>
<button id="b" onclick="setTimeout(() => { alert('first'); confirm('second'); document.title = 'done'; }, 0)"
>go</button>"""


@pytest.fixture
async def client(app_client: Client, http_server) -> Client:
    http_server.route("/two/page.html", Reply(200, PAGE))
    return app_client


async def test_the_dialog_after_the_handled_one_is_seen(client, http_server):
    async def s(action: str, **args):
        return await client.call_tool("browser_session", {"action": action, **args})

    await s("navigate", url=http_server.url("/two/page.html"))
    await client.call_tool("browser_interact", {"action": "click", "selector": "#b"})
    with anyio.fail_after(60):  # a safety net for the test run, not a speed check
        for _ in range(5):  # the first dialog opens just after the click's answer
            blocked = await s("snapshot")
            if blocked.is_error:
                break
            await anyio.sleep(0.1)
        assert blocked.structured_content["code"] == "DIALOG_OPEN" and "first" in answer_text(blocked)
        first = await s("handle_dialog", dialog_action="accept")
        assert not first.is_error and "first" in answer_text(first), answer_text(first)
        second = await s("snapshot")  # refused at once, naming the second dialog (it used to time out)
        assert second.is_error, answer_text(second)
        assert second.structured_content["code"] == "DIALOG_OPEN" and "second" in answer_text(second)
        handled = await s("handle_dialog", dialog_action="accept")
        assert not handled.is_error and "second" in answer_text(handled), answer_text(handled)
        done = await s("snapshot")
        assert not done.is_error and "done" in answer_text(done)
