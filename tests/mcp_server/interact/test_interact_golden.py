"""Golden answers of the interact feature: by selector, by annotate label, by snapshot uid."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from golden import Golden

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def _uids(g: Golden) -> dict[str, int]:
    """name -> uid of the form's controls, from a snapshot (not compared: the snapshot feature's)."""
    result = await g.call("snapshot")
    text = result.content[0].text
    return {name: int(uid) for uid, name in re.findall(r'\[uid=(\d+)\] \w+ "([^"]+)"', text)}


async def test_by_selector(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/form.html"))
    await g.check("click", tool="browser_interact", selector="#save")
    await g.check("fill", tool="browser_interact", selector="#town", value="Milan")
    await g.check("hover", tool="browser_interact", selector="#save")
    await g.check("press_key", tool="browser_interact", key="Tab")
    await g.check("scroll", tool="browser_interact", direction="down", amount=300)
    await g.check("click", scenario="missing", tool="browser_interact", error=True, selector="#nope", timeout_ms=300)


async def test_followup(g: Golden, http_server) -> None:
    """What followed a click: the request it started and the console error after it."""
    await g.call("navigate", url=http_server.url("/golden/followup.html"))
    await g.check("click", scenario="followup", tool="browser_interact", selector="#load")


async def test_by_label(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/form.html"))
    labelled = await g.check("annotate")
    save = [row[0] for row in labelled["elements"] if "Save" in row]
    await g.check("click_by_id", element_id=save[0])


async def test_by_uid(g: Golden, http_server) -> None:
    (g.artifacts / "uploads").mkdir(parents=True, exist_ok=True)
    (g.artifacts / "uploads" / "invoice.txt").write_text("total 12\n")
    await g.call("navigate", url=http_server.url("/golden/form.html"))
    uid = await _uids(g)
    i = "browser_interact"
    await g.check("fill_uid", tool=i, uid=uid["Customer"], value="ACME SRL")
    await g.check("hover_uid", tool=i, uid=uid["Town"])
    await g.check("press_uid", tool=i, uid=uid["Town"], key="End")
    await g.check("type_text", tool=i, uid=uid["Town"], text=" N")
    await g.check(
        "fill_form",
        tool=i,
        fields=[{"uid": uid["Customer"], "value": "ACME SPA"}, {"uid": uid["Town"], "value": "Turin"}],
    )
    await g.check("select_option", tool=i, uid=uid["Land"], values=["de"])
    await g.check("drag", tool=i, from_uid=uid["drag me"], to_uid=uid["Drop here"])
    await g.check("upload_file", tool=i, uid=uid["Document"], paths=["invoice.txt"])
    await g.check("click_uid", tool=i, uid=uid["Save"])
