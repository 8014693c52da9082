"""CDP messages are decoded by msgspec, with json for what msgspec refuses (real Chrome traffic)."""

from __future__ import annotations

import json

from cdp_core.connection import decode_message


def test_fast_path_and_fallback_give_what_json_gives():
    samples = [
        b'{"id":1,"result":{"result":{"type":"string","value":"caf\xc3\xa9"}}}',
        b'{"method":"Runtime.consoleAPICalled","params":{"args":[{"type":"string","value":"a\\ud800b"}]}}',
        b'{"id":2,"result":{"big":123456789012345678901234567890}}',
        '{"id":3,"result":{"s":"\\u00e9\\n"}}',
    ]
    for raw in samples:
        assert decode_message(raw) == json.loads(raw)


async def test_a_lone_surrogate_from_the_page_reaches_us(cdp_page):
    """JS strings may hold half a surrogate pair; Chrome escapes it and the fallback decodes it."""
    async with cdp_page.events("Runtime.consoleAPICalled") as stream:
        await cdp_page.send("Runtime.enable")
        result = await cdp_page.send(
            "Runtime.evaluate", {"expression": "console.log('x\\ud800y'); 'a\\udfffb'", "returnByValue": True}
        )
        assert result["result"]["value"] == "a\udfffb"
        event = await stream.get(timeout=10)
    assert event.params["args"][0]["value"] == "x\ud800y"
