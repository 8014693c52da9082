"""A crash of the internal browser loses nothing captured, and the answer says it relaunched (issue 16, finding 8).

The review: after the internal browser crashed, the next call relaunched it and every earlier
entry answered ENTRY_NOT_FOUND, with no ``relaunched`` flag. Here the browser's process group is
killed after a page logged and fetched; the next call is a plain read (``network_get`` of the
old entry): it answers with the entry and ``relaunched: true``; console and network listings
still hold what came before, and capture goes on in the same stores (ids go on) on the new
browser.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from faults_util import serving, wait_until

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
        entries = (await agent.s("network_list", url_contains=f"from={name}"))["entries"]
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

        first = await agent.call("browser_session", action="network_get", id=old_id)
        sc = first.structured_content
        assert not first.is_error, first.content[0].text
        assert sc["relaunched"] is True and launch.launches == 2
        assert "from=before" in str(sc) and "relaunched" in first.content[-1].text
        console = await agent.s("console_list")
        assert "live before" in [e["text"] for e in console["entries"]]
        assert "relaunched" not in console  # said once, by the call that restarted it

        await agent.s("navigate", url=http_server.url("/faults/tab.html?name=after-crash"))
        new_id = await _log_and_fetch(agent, "after")
        assert new_id > old_id  # one store, ids go on
        listed = (await agent.s("network_list", limit=100))["entries"]
        urls = [e["url"] for e in listed]
        assert any("from=before" in u for u in urls) and any("from=after" in u for u in urls)
        console = await agent.s("console_list")
        texts = [e["text"] for e in console["entries"]]
        assert "live before" in texts and "live after" in texts
