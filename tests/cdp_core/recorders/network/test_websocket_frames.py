"""WebSocket frames per connection, against a tiny echo server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest
from capture_util import open_tab, until
from httpserver import Reply
from websockets.asyncio.server import serve

from cdp_core.recorders.network.har import build_har


@pytest.fixture
async def echo_server():
    async def echo(ws):
        async for message in ws:
            await ws.send(message)

    async with serve(echo, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        yield f"ws://127.0.0.1:{port}/echo"


async def test_websocket_frames_listed_and_redacted(chromium, http_server, echo_server):
    http_server.route("/ws/blank.html", Reply(200, "<title>ws</title>"))
    async with open_tab(chromium, http_server.url("/ws/blank.html"), ws_max_frames=3) as tab:
        echoed = await tab.eval(
            f"""new Promise((resolve, reject) => {{
                 const ws = new WebSocket({json.dumps(echo_server)});
                 const got = [];
                 ws.onerror = () => reject('ws error');
                 ws.onopen = () => {{ ws.send('hello'); ws.send(JSON.stringify({{password: 'hunter2', msg: 'x'}})); }};
                 ws.onmessage = (m) => {{ got.push(m.data); if (got.length === 2) {{ ws.close(); resolve(got); }} }};
               }})"""
        )
        assert echoed[0] == "hello"
        entries = await until(lambda: tab.network.list(resource_types=["websocket"]), what="websocket entry")
        assert len(entries) == 1
        summary = entries[0]
        assert summary["url"] == echo_server
        assert summary["method"] == "GET"
        assert summary["status"] == 101
        await until(lambda: tab.network.get(summary["id"])["closed"], what="websocket closed")
        full = tab.network.get(summary["id"])
        assert (full["framesSent"], full["framesReceived"]) == (2, 2)
        frames = full["lastFrames"]
        assert len(frames) == 3  # bounded: only the newest three of four
        # The last frame is the echo of the JSON message (the echo always follows its send).
        assert frames[-1]["direction"] == "received"
        assert frames[-1]["preview"] == '{"password":"[redacted]","msg":"x"}'
        assert [f["direction"] for f in frames].count("received") >= 1
        assert all("hunter2" not in f["preview"] for f in frames)
        assert "hunter2" not in json.dumps(tab.network.entries())
        assert tab.network.list(resource_types=["fetch"]) == []
        har = build_har(tab.network)
        ws_entry = next(e for e in har["log"]["entries"] if e["_resourceType"] == "websocket")
        assert ws_entry["response"]["status"] == 101
        assert [m["type"] for m in ws_entry["_webSocketMessages"]][-1] == "receive"
        assert "hunter2" not in json.dumps(har)
