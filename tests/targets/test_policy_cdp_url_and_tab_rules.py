"""Pure rules of the targets package: URL policy, CDP URL checks, tab registry selection."""

from __future__ import annotations

from pathlib import Path

import pytest

from targets import PageHandle, ToolFailure
from targets.pages.registry import PageRegistry
from targets.policies.policy import UrlPolicy
from targets.users_chrome.cdp import check_cdp_url, chrome_command_hint

# -- URL policy -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "url", "allowed"),
    [
        ("http://127.0.0.1:8000/app", "http://127.0.0.1:8000/app/x?y=1", True),
        ("http://127.0.0.1:8000/app", "http://127.0.0.1:8001/app", False),
        ("example.com", "https://example.com/", True),
        ("example.com", "http://shop.example.com:8080/cart", True),
        ("example.com", "https://notexample.com/", False),
        ("https://*.example.com/*", "https://api.example.com/v1", True),
        ("https://*.example.com/*", "http://api.example.com/v1", False),
    ],
)
def test_allowed_urls_patterns(pattern: str, url: str, allowed: bool) -> None:
    assert UrlPolicy(allowed_urls=[pattern]).check_url(url).allowed is allowed


def test_empty_allowlist_admits_http_and_internal_schemes_always_pass() -> None:
    open_policy = UrlPolicy()
    assert open_policy.check_url("https://anything.test/").allowed
    strict = UrlPolicy(allowed_urls=["example.com"])
    for url in ("about:blank", "data:text/html,hi", "blob:https://example.com/1"):
        assert strict.check_url(url).allowed


def test_file_urls_need_opt_in_and_stay_inside_roots(tmp_path: Path) -> None:
    inside = tmp_path / "site" / "index.html"
    assert not UrlPolicy().check_url(inside.as_uri()).allowed
    assert "ALLOW_FILE_URLS" in UrlPolicy().check_url(inside.as_uri()).reason
    assert UrlPolicy(allow_file_urls=True).check_url("file:///etc/hostname").allowed
    rooted = UrlPolicy(allow_file_urls=True, allowed_file_roots=[str(tmp_path / "site")])
    assert rooted.check_url(inside.as_uri()).allowed
    assert not rooted.check_url((tmp_path / "other.html").as_uri()).allowed
    assert not rooted.check_url(f"file://{tmp_path}/site/../other.html").allowed


def test_block_media_and_when_interception_is_needed() -> None:
    policy = UrlPolicy(block_media=True)
    assert not policy.check_request("http://127.0.0.1/p.png", "Image").allowed
    assert not policy.check_request("http://127.0.0.1/v.mp4", "Media").allowed
    assert policy.check_request("http://127.0.0.1/app.js", "Script").allowed
    assert UrlPolicy().active is False  # defaults install no interception at all
    assert UrlPolicy(allowed_urls=["example.com"]).active and policy.active


# -- CDP URLs -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:9222", "http://localhost:9222", "ws://127.0.0.1:9222/devtools/browser/x", "http://[::1]:9"],
)
def test_loopback_cdp_urls_pass(url: str) -> None:
    assert check_cdp_url(url, allow_remote=False)


def test_remote_cdp_urls_need_the_opt_in() -> None:
    with pytest.raises(ToolFailure) as info:
        check_cdp_url("http://debug-box.invalid:9222", allow_remote=False)
    assert info.value.code == "NOT_ALLOWED"
    assert check_cdp_url("http://debug-box.invalid:9222", allow_remote=True)
    with pytest.raises(ToolFailure) as bad:
        check_cdp_url("ftp://127.0.0.1:9222", allow_remote=False)
    assert bad.value.code == "INVALID_ARGUMENT"


def test_chrome_command_hint_names_the_port_and_a_dedicated_profile() -> None:
    hint = chrome_command_hint("http://127.0.0.1:9333")
    assert "--remote-debugging-port=9333" in hint and "--user-data-dir=" in hint
    assert "--remote-debugging-address=127.0.0.1" in hint


# -- registry -------------------------------------------------------------------------------


def _page(n: int, url: str, title: str) -> PageHandle:
    return PageHandle(f"p{n}", f"T{n}", "cdp", session=None, attached_at="t", url=url, title=title)  # type: ignore[arg-type]


def _registry() -> tuple[PageRegistry, list[PageHandle]]:
    reg = PageRegistry()
    pages = [
        _page(1, "http://127.0.0.1/a.html", "Page A"),
        _page(2, "http://127.0.0.1/b.html", "Page B"),
        _page(3, "http://127.0.0.1/clienti/edit.cfm?id=123", "Modifica cliente"),
    ]
    for p in pages:
        reg.add(p)
    return reg, pages


def test_first_page_is_selected_and_exactly_one_is() -> None:
    reg, pages = _registry()
    listing = reg.listing()
    assert [p["selected"] for p in listing] == [True, False, False]
    assert [p["page_id"] for p in listing] == [0, 1, 2]


def test_selection_rules() -> None:
    reg, pages = _registry()
    reg.listing()
    reg.select(reg.resolve(url_contains="EDIT.CFM"))
    assert reg.selected is pages[2]
    with pytest.raises(ToolFailure) as ambiguous:
        reg.resolve(url_contains=".html")
    assert ambiguous.value.code == "AMBIGUOUS_MATCH"
    assert [c["stable_page_id"] for c in ambiguous.value.details["candidates"]] == ["p1", "p2"]
    assert reg.selected is pages[2]
    assert reg.resolve(title_contains="page b") is pages[1]
    assert reg.resolve(stable_page_id="p1") is pages[0]
    for kwargs, code in (
        ({}, "INVALID_ARGUMENT"),
        ({"page_id": 0, "url_contains": "a"}, "INVALID_ARGUMENT"),
        ({"page_id": 7}, "PAGE_NOT_FOUND"),
        ({"stable_page_id": "p99"}, "PAGE_NOT_FOUND"),
        ({"title_contains": "nope"}, "PAGE_NOT_FOUND"),
    ):
        with pytest.raises(ToolFailure) as info:
            reg.resolve(**kwargs)
        assert info.value.code == code


def test_page_id_refers_to_the_last_listing_and_closed_tabs_say_list_again() -> None:
    reg, pages = _registry()
    reg.listing()
    pages[1].closed = True
    with pytest.raises(ToolFailure) as info:
        reg.resolve(page_id=1)
    assert info.value.code == "PAGE_CLOSED" and "list_pages" in (info.value.hint or "")
    assert reg.resolve(page_id=2) is pages[2]  # still the index the agent saw
    listing = reg.listing()
    assert [p["stable_page_id"] for p in listing] == ["p1", "p3"]
    assert reg.resolve(page_id=1) is pages[2]


def test_selecting_resets_the_active_frame_and_closed_selection_moves_on_list() -> None:
    reg, pages = _registry()
    reg.select(pages[1])
    pages[1].active_frame = "F1"
    reg.select(pages[1])
    assert pages[1].active_frame is None
    pages[1].closed = True
    listing = reg.listing()
    assert [p["stable_page_id"] for p in listing if p["selected"]] == ["p1"]
