"""emulate through a real MCP client on real Chromium: what the page sees, what the server receives,
and that the user's tab gets its own colours, viewport, user agent and network back on detach.
"""

from __future__ import annotations

import json

from faults_util import UserTabs, serving
from httpserver import Reply
from lean_util import records

import cdp_core
from targets.errors import ErrorCode
from targets.pages import emulation

#: What a page can tell about its environment.
PROBE = (
    "JSON.stringify({width: innerWidth, ratio: devicePixelRatio, agent: navigator.userAgent,"
    " dark: matchMedia('(prefers-color-scheme: dark)').matches, online: navigator.onLine,"
    " touch: navigator.maxTouchPoints})"
)
GEO = (
    "new Promise(r => navigator.geolocation.getCurrentPosition("
    "p => r([p.coords.latitude, p.coords.longitude]), e => r('error ' + e.code), {timeout: 5000}))"
)


def _routes(http_server) -> list:
    seen: list = []

    def echo(req):
        seen.append(req.headers)
        return Reply(
            200,
            json.dumps({"agent": req.headers.get("user-agent"), "test": req.headers.get("x-test")}),
            "application/json",
        )

    http_server.route("/emu/echo", echo)
    for name in ("one", "two"):
        http_server.route(f"/emu/{name}", Reply(200, f"<!doctype html><title>Emu {name}</title><p>{name}</p>"))
    return seen


async def _probe(http_url: str, target_id: str) -> dict:
    """What the tab shows now, read by the user's own DevTools client (not through our server)."""
    async with cdp_core.connect(http_url) as user:
        session = await user.attach(target_id)
        reply = await session.send("Runtime.evaluate", {"expression": PROBE, "returnByValue": True})
        echoed = await session.send(
            "Runtime.evaluate",
            {"expression": "fetch('/emu/echo').then(r => r.json())", "awaitPromise": True, "returnByValue": True},
        )
        await session.detach()
    return {**json.loads(reply["result"]["value"]), "echo": echoed["result"]["value"]}


async def test_offline_then_online_a_fetch_fails_then_succeeds(http_server, tmp_path):
    _routes(http_server)
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/emu/one"))
        offline = await agent.s("emulate", network="offline")
        assert offline["emulation"] == {"network": "offline"} and "offline" in agent.last_text
        assert await agent.js("fetch('/emu/echo').then(r => r.status, e => e.name)") == "TypeError"
        assert await agent.js("navigator.onLine") is False
        failed = records(await agent.s("network_list", url_contains="/emu/echo"))[-1]
        assert "INTERNET_DISCONNECTED" in failed["status"]  # FAILED net::ERR_INTERNET_DISCONNECTED
        status = await agent.s("get_browser_status")
        assert status["browser"]["currentPage"]["emulation"] == {"network": "offline"}
        assert "emulating network=offline" in agent.last_text

        online = await agent.s("emulate", network="none")
        assert "emulation" not in online and "No emulation" in agent.last_text
        assert await agent.js("fetch('/emu/echo').then(r => r.status, e => e.name)") == 200
        assert "emulation" not in (await agent.s("get_browser_status"))["browser"]["currentPage"]

        slow = await agent.s("emulate", network="slow_3g")
        assert slow["emulation"] == {"network": "slow_3g"}
        # 2 s of latency per request under DevTools' Slow 3G preset
        took = await agent.js(
            "(async () => { const t = performance.now(); await fetch('/emu/echo'); return performance.now() - t; })()"
        )
        assert took >= 1900
        await agent.s("emulate", network="none")


async def test_the_newer_network_api_gives_the_same_offline(http_server, tmp_path):
    # Chrome 156 still has the deprecated Network.emulateNetworkConditions; a later one may keep only the rules API.
    _routes(http_server)
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/emu/one"))
        page = await agent.manager.current_page()
        await emulation.network_by_rule(page.session, "offline")
        assert await agent.js("fetch('/emu/echo').then(r => r.status, e => e.name)") == "TypeError"
        assert await agent.js("navigator.onLine") is False
        await emulation.network_by_rule(page.session, None)
        assert await agent.js("fetch('/emu/echo').then(r => r.status, e => e.name)") == 200


async def test_every_setting_reaches_the_page_and_is_undone_on_detach(fresh_chromium, http_server, tmp_path):
    seen = _routes(http_server)
    user = UserTabs(fresh_chromium.http_url)
    work = await user.open(http_server.url("/emu/one"))
    other = await user.open(http_server.url("/emu/two"))
    await user.close_all_but({work, other})
    own = await _probe(fresh_chromium.http_url, work)  # the tab as the user has it
    assert own["dark"] is False and own["online"] is True and own["echo"]["test"] is None

    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="Emu one")
        assert await agent.js("document.visibilityState") == "hidden"  # the agent's tab is in the background
        answer = await agent.s(
            "emulate",
            cpu_throttling=4,
            viewport="400x300x2,mobile,touch",
            user_agent="LegacyBrowser/1.0 (emulated)",
            color_scheme="dark",
            geolocation={"latitude": 45.4642, "longitude": 9.19},
            extra_headers={"X-Test": "from-agent", "Authorization": "Bearer s3cr3t-agent-token"},
        )
        assert answer["emulation"] == {
            "cpuThrottling": 4,
            "viewport": "400x300x2,mobile,touch",
            "userAgent": "LegacyBrowser/1.0 (emulated)",
            "colorScheme": "dark",
            "geolocation": {"latitude": 45.4642, "longitude": 9.19},
            "extraHeaders": ["Authorization", "X-Test"],
        }
        assert "undone on detach_cdp" in agent.last_text and "once it is shown" in agent.last_text
        assert "s3cr3t-agent-token" not in json.dumps(answer)  # header values are never shown

        async def sees() -> dict:
            state = json.loads(await agent.js(PROBE))
            state["echo"] = await agent.js("fetch('/emu/echo').then(r => r.json())")
            return state

        emulated = await sees()
        assert emulated["ratio"] == 2 and emulated["dark"] is True and emulated["touch"] == 5
        assert emulated["agent"] == "LegacyBrowser/1.0 (emulated)"
        assert emulated["echo"] == {"agent": "LegacyBrowser/1.0 (emulated)", "test": "from-agent"}
        assert seen[-1]["authorization"] == "Bearer s3cr3t-agent-token"
        assert await agent.js("[screen.width, screen.height]") == [400, 300]
        # Chrome holds geolocation answers of a hidden tab; the permission the page needs is there.
        assert await agent.js("navigator.permissions.query({name: 'geolocation'}).then(s => s.state)") == "granted"

        # Kept across the agent's own navigations (a new document in the same tab).
        await agent.s("navigate", url=http_server.url("/emu/two"))
        assert await sees() == emulated
        listing = (await agent.s("list_pages"))["pages"]
        assert [p.get("emulation", {}).get("colorScheme") for p in listing if p.get("selected")] == ["dark"]
        assert [p.get("emulation") for p in listing if not p.get("selected")] == [None]  # the user's other tab
        await agent.s("get_browser_status")
        assert "colorScheme=dark" in agent.last_text and "geolocation=45.4642,9.19" in agent.last_text
        # The user's other tab is not emulated.
        assert (await _probe(fresh_chromium.http_url, other))["dark"] is False

        detached = await agent.s("detach_cdp")
        assert not detached.get("chromeClosed")  # absent: false

    # After detach the user's tab has its own colours, viewport, user agent and headers again.
    assert await _probe(fresh_chromium.http_url, work) == {**own, "echo": own["echo"]}
    async with cdp_core.connect(fresh_chromium.http_url) as user_client:
        session = await user_client.attach(work)
        permission = await session.send(
            "Runtime.evaluate",
            {
                "expression": "navigator.permissions.query({name: 'geolocation'}).then(s => s.state)",
                "awaitPromise": True,
                "returnByValue": True,
            },
        )
        assert permission["result"]["value"] != "granted"  # the grant went with the override


async def test_network_offline_is_undone_on_detach_too(fresh_chromium, http_server, tmp_path):
    _routes(http_server)
    user = UserTabs(fresh_chromium.http_url)
    work = await user.open(http_server.url("/emu/one"))
    await user.close_all_but({work})
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("emulate", network="offline")
        assert await agent.js("navigator.onLine") is False
        await agent.s("detach_cdp")
    after = await _probe(fresh_chromium.http_url, work)
    assert after["online"] is True and after["echo"]["agent"].startswith("Mozilla/")


async def test_internal_browser_geolocation_and_viewport_none(http_server, tmp_path):
    _routes(http_server)
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/emu/one"))
        await agent.s("emulate", geolocation={"latitude": -33.8688, "longitude": 151.2093})
        assert await agent.js(GEO) == [-33.8688, 151.2093]
        await agent.s("emulate", geolocation="none")
        assert await agent.js("navigator.permissions.query({name: 'geolocation'}).then(s => s.state)") != "granted"
        own = await agent.js("[innerWidth, innerHeight]")
        await agent.s("emulate", viewport="390x844x3,mobile")
        assert await agent.js("[screen.width, devicePixelRatio]") == [390, 3]
        assert await agent.js("innerWidth") == 980  # mobile, no <meta name=viewport>: the 980 px layout
        await agent.s("emulate", viewport="none", cpu_throttling=2.5)
        assert await agent.js("[innerWidth, innerHeight]") == own
        assert (await agent.s("get_browser_status"))["browser"]["currentPage"]["emulation"] == {"cpuThrottling": 2.5}
        cleared = await agent.s("emulate", cpu_throttling=1)
        assert "emulation" not in cleared


async def test_bad_values_change_nothing(http_server, tmp_path):
    _routes(http_server)
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/emu/one"))
        await agent.s("emulate", color_scheme="dark")
        bad_calls = [
            ({"viewport": "huge", "color_scheme": "light"}, "viewport"),
            ({"viewport": "0x100"}, "out of range"),
            ({"cpu_throttling": 50}, "cpu_throttling"),
            ({"network": "3g"}, "network"),
            ({"geolocation": {"latitude": 91, "longitude": 0}}, "geolocation"),
            ({"geolocation": {"lat": 1, "lon": 2}}, "geolocation"),
            ({"extra_headers": {"X-Bad": "a\r\nInjected: 1"}}, "extra header"),
            ({"user_agent": "two\nlines"}, "user_agent"),
        ]
        for args, mentioned in bad_calls:
            failure = await agent.err("emulate", ErrorCode.INVALID_ARGUMENT, **args)
            assert mentioned in failure["message"], failure
            assert await agent.js("matchMedia('(prefers-color-scheme: dark)').matches") is True
        status = await agent.s("get_browser_status")
        assert status["browser"]["currentPage"]["emulation"] == {"colorScheme": "dark"}
        unchanged = await agent.s("emulate")  # no setting: says what is set, changes nothing
        assert unchanged["emulation"] == {"colorScheme": "dark"} and "nothing changed" in agent.last_text


async def test_emulation_reaches_a_cross_origin_iframe(http_server, tmp_path):
    http_server.route(
        "/emu/parent",
        Reply(
            200,
            f'<!doctype html><title>Parent</title><iframe src="http://localhost:{http_server.port}/emu/child"></iframe>',
        ),
    )
    http_server.route("/emu/child", Reply(200, "<!doctype html><title>Child</title>child"))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/emu/parent"))
        await agent.s("emulate", color_scheme="dark", user_agent="FrameAgent/2")
        # A frame created after the emulation gets it too (its own renderer, its own session).
        await agent.js(
            f"new Promise(r => {{ const f = document.createElement('iframe'); f.onload = r;"
            f" f.src = 'http://localhost:{http_server.port}/emu/child?late=1'; document.body.append(f); }})"
        )
        page = await agent.manager.current_page()
        frames = [r.session for r in page.sessions if r.kind == "iframe"]
        assert len(frames) == 2
        for session in frames:
            reply = await session.send(
                "Runtime.evaluate",
                {
                    "expression": "[navigator.userAgent, matchMedia('(prefers-color-scheme: dark)').matches]",
                    "returnByValue": True,
                },
            )
            assert reply["result"]["value"] == ["FrameAgent/2", True]
