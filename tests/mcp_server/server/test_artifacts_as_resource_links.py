"""Files an answer writes come back as resource links a client can open, and only those can be read.

A client that shows or attaches files got nothing it could open from a path inside the text.
Each answer that wrote files now carries a ``resource_link`` per file (URI, name, MIME type,
size), and ``resources/read`` serves exactly the announced files: not the audit log, not a
file planted under the root, not an exported state (cookie values), not a file swapped for a
link after it was announced, nothing outside the root.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest
from httpserver import Reply
from mcp.shared.exceptions import MCPError

PAGE = """<!doctype html><title>Links</title>
<script>fetch('/links/api', {method: 'POST', body: JSON.stringify({n: 1})})</script><p>saved?</p>"""


def on_disk(uri: str) -> Path:
    return Path(uri.removeprefix("file://"))


def file_bytes(uri: str) -> bytes:
    return on_disk(uri).read_bytes()


def swap_for_link(uri: str, to: Path) -> None:
    on_disk(uri).unlink()
    os.symlink(to, on_disk(uri))


def links(result: Any) -> list[Any]:
    return [block for block in result.content if block.type == "resource_link"]


async def call(client: Any, action: str, **args: Any) -> Any:
    result = await client.call_tool("browser_session", {"action": action, **args})
    assert not result.is_error, result.content[0].text
    return result


@pytest.fixture
def page(http_server) -> str:
    http_server.route("/links/page.html", Reply(200, PAGE))
    http_server.route("/links/api", Reply(500, '{"success": false, "error": "duplicate key"}', "application/json"))
    return http_server.url("/links/page.html")


async def test_written_files_are_linked_and_read_back_byte_for_byte(app_client, page, tmp_path: Path):
    await call(app_client, "navigate", url=page)
    plain = await call(app_client, "console_list")
    assert links(plain) == []  # an answer that wrote nothing links nothing

    shot = await call(app_client, "screenshot")
    (link,) = links(shot)
    assert link.mime_type == "image/png" and link.size == len(file_bytes(link.uri)) > 0
    assert link.name.startswith("screenshots/")
    read = await app_client.read_resource(link.uri)
    assert base64.b64decode(read.contents[0].blob) == file_bytes(link.uri)

    har = await call(app_client, "network_export_har")
    (har_link,) = links(har)
    text = (await app_client.read_resource(har_link.uri)).contents[0].text
    assert json.loads(text)["log"]["entries"] and text.encode() == file_bytes(har_link.uri)

    # a bundle writes a folder: each of its files is linked, with its place in the folder
    bundle = await call(app_client, "debug_bundle", save_artifacts=True)
    names = sorted(b.name.rsplit("/", 1)[-1] for b in links(bundle))
    assert names == ["bundle.json", "bundle.md"], names
    assert all(b.name.startswith("debug-bundles/") for b in links(bundle))

    listed = {r.uri for r in (await app_client.list_resources()).resources}
    assert {link.uri, har_link.uri, *(b.uri for b in links(bundle))} <= listed


async def test_only_announced_files_of_ours_are_served(app_client, page, tmp_path: Path):
    await call(app_client, "navigate", url=page)
    root = tmp_path / "artifacts"
    shot = await call(app_client, "screenshot")
    (link,) = links(shot)
    state = await call(app_client, "export_state")
    assert links(state) == []  # exported cookies are never offered to the client

    planted = root / "screenshots" / "planted.png"
    planted.write_bytes(b"not announced")
    refused = [
        (root / "audit.jsonl").as_uri(),
        planted.as_uri(),
        Path("/etc/passwd").as_uri(),
        link.uri.replace("screenshots/", "screenshots/../audit.jsonl#"),
    ]
    for uri in refused:
        with pytest.raises(MCPError) as caught:
            await app_client.read_resource(uri)
        assert "cannot read" in caught.value.error.message, uri

    # an announced file swapped for a link to another file is no longer served
    swap_for_link(link.uri, root / "audit.jsonl")
    with pytest.raises(MCPError):
        await app_client.read_resource(link.uri)
    # the server goes on answering
    await call(app_client, "console_list")
