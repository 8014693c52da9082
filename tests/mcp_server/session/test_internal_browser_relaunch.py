"""A crash of the internal browser loses nothing captured, and the answer says it relaunched.

The case: after the internal browser crashed, the next call relaunched it and every earlier
entry once answered ENTRY_NOT_FOUND, with no ``relaunched`` flag. Here the browser's process group is
killed after a page logged and fetched; a read answers from the dead page; the next call that
needs a page restarts the browser and answers ``relaunched: true``; after that the old entry
still answers, console and network listings still hold what came before, and capture goes on in
the same stores (ids go on) on the new browser.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from faults_util import serving, wait_until
from lean_util import records

ANY_TIMEOUT = 60.0


def _browser_pid(profile: Path) -> int:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = [a.decode(errors="replace") for a in (entry / "cmdline").read_bytes().split(b"\0")]
        except OSError:
            continue
        if any(a == f"--user-data-dir={profile}" for a in args) and not any(a.startswith("--type=") for a in args):
            return int(entry.name)
    raise AssertionError(f"no browser process with profile {profile}")


async def _log_and_fetch(agent, name: str) -> int:
    await agent.js(f"console.log('live {name}'); await fetch('/faults/data.json?from={name}'); 1")
    for _ in range(200):
        entries = records(await agent.s("network_list", url_contains=f"from={name}"))
        if entries and entries[0].get("status") == 200:
            return int(entries[0]["id"])
        await asyncio.sleep(0.05)
    raise AssertionError(f"request of {name} not captured")


async def test_a_crash_keeps_what_was_captured_and_the_next_answer_says_relaunched(http_server, tmp_path):
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/faults/tab.html?name=before-crash"))
        old_id = await _log_and_fetch(agent, "before")
        launch = agent.manager.launch
        os.killpg(os.getpgid(_browser_pid(launch.profile_dir)), signal.SIGKILL)
        await wait_until(lambda: launch.lost is not None, what="the crash noticed")

        # Reads right after the crash answer from what the dead page captured.
        read = await agent.s("network_get", id=old_id)
        assert "from=before" in str(read)
        # The next call that needs a page restarts the browser, and says so.
        first = await agent.call("browser_session", action="get_dom")
        sc = first.structured_content
        assert not first.is_error, first.content[0].text
        assert sc["relaunched"] is True and launch.launches == 2
        assert "relaunched" in first.content[-1].text
        # What was captured before the crash is still there, now on the new browser's page.
        again = await agent.call("browser_session", action="network_get", id=old_id)
        assert not again.is_error, again.content[0].text
        assert "from=before" in str(again.structured_content) and "relaunched" not in again.structured_content
        console = await agent.s("console_list")
        assert "live before" in [e["text"] for e in records(console)]

        await agent.s("navigate", url=http_server.url("/faults/tab.html?name=after-crash"))
        new_id = await _log_and_fetch(agent, "after")
        assert new_id > old_id  # one store, ids go on
        listed = records(await agent.s("network_list", limit=100))
        urls = [e["url"] for e in listed]
        assert any("from=before" in u for u in urls) and any("from=after" in u for u in urls)
        console = await agent.s("console_list")
        texts = [e["text"] for e in records(console)]
        assert "live before" in texts and "live after" in texts
