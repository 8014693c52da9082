"""Downloads: planted symlinks are neither listed nor written through; a size cap.

The attack: the downloads listing followed a planted symlink (it listed and sized a file outside
the artifacts), a dangling symlink named like the next download was written through (the file
landed outside), and a 400 MB download was saved whole. Here a page on 127.0.0.1 downloads files
into a downloads folder holding such links; a second server has a small DOWNLOAD_MAX_BYTES.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from httpserver import Reply
from mcp.client import Client

from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings

PAGE = """<!doctype html><title>dl</title><p>downloads</p>
<script>
function save(name, size) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob(["x".repeat(size)], {type: "text/plain"}));
  a.download = name;
  document.body.appendChild(a);
  a.click();
}
</script>"""


@pytest.fixture
def page(http_server) -> str:
    http_server.route("/dl/page.html", Reply(200, PAGE))
    return http_server.url("/dl/page.html")


async def _session(root: Path, **settings: Any) -> AsyncIterator[tuple[Client, Any]]:
    manager, server = build_app(Settings(artifact_dir=str(root), **settings))
    try:
        async with Client(server) as client:
            yield client, manager
    finally:
        await manager.close()


async def _call(client: Client, action: str, **args: Any) -> tuple[dict[str, Any], str]:
    result = await client.call_tool("browser_session", {"action": action, **args})
    text = "\n".join(getattr(b, "text", "") for b in result.content)
    assert not result.is_error, text
    return result.structured_content or {}, text


async def _download(client: Client, manager: Any, name: str, size: int) -> None:
    await _call(client, "evaluate_js", expression=f"save({name!r}, {size}); 1")
    for _ in range(100):  # the download event trails the click
        launch = manager.launch
        if launch is not None and any(d.get("suggestedFilename") == name for d in launch.downloads):
            break
        await _call(client, "evaluate_js", expression="new Promise(r => setTimeout(() => r(1), 50))")
    await manager.launch.wait_downloads()


async def test_planted_symlinks_are_not_listed_or_written_through(tmp_path: Path, page: str):
    root = tmp_path / "artifacts"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("outside-secret " * 100)
    downloads = root / "downloads"
    downloads.mkdir(parents=True)
    (downloads / "link.txt").symlink_to(outside / "secret.txt")
    (downloads / "dir-link").symlink_to(outside, target_is_directory=True)
    (downloads / "report.txt").symlink_to(outside / "landed.txt")  # dangling: named like the next download
    async for client, manager in _session(root):
        await _call(client, "navigate", url=page)
        await _download(client, manager, "report.txt", 2000)
        listing, text = await _call(client, "read_downloaded_file")
    assert not (outside / "landed.txt").exists()  # the download did not go through the dangling link
    assert "secret" not in text and "link" not in text, text
    saved = [row[0] for row in listing["files"]]
    assert len(saved) == 1 and saved[0].startswith("report-") and saved[0].endswith(".txt"), saved
    assert (downloads / saved[0]).stat().st_size == 2000


async def test_a_download_over_the_cap_is_not_kept(tmp_path: Path, page: str):
    root = tmp_path / "artifacts"
    async for client, manager in _session(root, download_max_bytes=1000):
        await _call(client, "navigate", url=page)
        await _download(client, manager, "big.txt", 5000)
        await _download(client, manager, "small.txt", 500)
        listing, _ = await _call(client, "read_downloaded_file")
        entries = {d["suggestedFilename"]: d for d in manager.launch.downloads}
    assert [row[0] for row in listing["files"]] == ["small.txt"]
    assert "DOWNLOAD_MAX_BYTES" in entries["big.txt"]["error"] and entries["big.txt"]["size"] == 5000
