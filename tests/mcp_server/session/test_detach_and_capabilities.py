"""After an explicit detach_cdp no answer speaks about another browser's page; get_capabilities keeps the seed's keys.

The seed server's clients read ``supportsLaunch``, ``supportsCdpAttach``, ``activeTarget``,
``launch.active`` and ``cdp.active``: they are there in every get_capabilities answer, false
and null included. After detach_cdp, page reads used to start the internal browser and answer
about ``about:blank``; they now say the user's Chrome was detached. ``navigate`` may still
start the internal browser, and its answer says so.
"""

from __future__ import annotations

from faults_util import serving

SEED = ("supportsLaunch", "supportsCdpAttach", "activeTarget")


async def test_seed_keys_are_always_there(fresh_chromium, tmp_path):
    async with serving(tmp_path / "artifacts") as agent:
        caps = (await agent.s("get_capabilities"))["browser"]
        assert all(key in caps for key in SEED), caps
        assert caps["activeTarget"] is None and caps["supportsCdpAttach"] is True
        assert caps["launch"]["active"] is False and caps["cdp"]["active"] is False

        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        caps = (await agent.s("get_capabilities"))["browser"]
        assert caps["activeTarget"] == "cdp" and caps["cdp"]["active"] is True and caps["launch"]["active"] is False
        found = caps["cdp"]["found"]
        assert (found["how"], found["port"], found["via"]) == ("flag", fresh_chromium.port, "cdp_url"), found


async def test_reads_after_detach_say_so_and_navigate_says_it_started_the_internal_browser(
    fresh_chromium, http_server, tmp_path
):
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("detach_cdp")
        for action, args in (
            ("snapshot", {}),
            ("network_list", {}),
            ("console_list", {}),
            ("get_dom", {}),
            ("screenshot", {}),
            ("evaluate_js", {"expression": "location.href"}),
        ):
            result = await agent.call("browser_session", action=action, **args)
            sc = result.structured_content
            assert result.is_error and sc["code"] == "NOT_ATTACHED", (action, result.content[0].text)
            assert "detached" in sc["message"] and "attach_cdp" in sc["hint"] and "use_launch_browser" in sc["hint"]
            assert "detached" in result.content[0].text
        assert agent.manager.launch.context is None  # nothing was started behind the agent's back
        status = await agent.call("browser_session", action="get_browser_status")
        assert "detached at" in status.content[0].text and status.structured_content["browser"]["cdp"]["detachedAt"]

        moved = await agent.call("browser_session", action="navigate", url=http_server.url("/a.html"))
        assert not moved.is_error, moved.content[0].text
        assert moved.structured_content["launchedAfterDetach"] is True
        assert moved.structured_content["target"] == "launch"
        assert "started the internal browser (not the user's Chrome)" in moved.content[0].text
        snap = await agent.call("browser_session", action="snapshot")  # the internal browser is active now
        assert not snap.is_error
    assert fresh_chromium.alive
