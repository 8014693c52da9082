"""Which declaration wins and where it is written (pure logic of cdp_core/recorders/css_rules.py).

The browser tests (tests/mcp_server/inspect/test_pick_highlight_and_css_styles.py) show the
answers on real pages; these pin the cascade order the reader applies to
CSS.getMatchedStylesForNode's answer, and the line arithmetic for inline <style> sheets and
source maps, on hand-made replies shaped like Chrome's.
"""

from __future__ import annotations

from typing import Any

import paths

from cdp_core.recorders.css_rules import CSSReader
from cdp_core.sourcemap import parse_source_map

LOOKING = paths.PAGES / "looking"


def rule(selector: str, props: list[dict[str, Any]], *, origin: str = "regular", sheet: str = "s1") -> dict:
    return {
        "rule": {
            "styleSheetId": sheet,
            "origin": origin,
            "selectorList": {"text": selector},
            "style": {"cssProperties": props},
        }
    }


def prop(name: str, value: str, line: int = 0, col: int = 2, **more: Any) -> dict[str, Any]:
    return {"name": name, "value": value, "range": {"startLine": line, "startColumn": col}, **more}


def reader(headers: dict[str, dict[str, Any]] | None = None, load_map: Any = None) -> CSSReader:
    css = CSSReader(session=None, load_map=load_map)  # type: ignore[arg-type]  # winner() sends nothing
    css.headers = headers or {"s1": {"styleSheetId": "s1", "sourceURL": "http://h/app.css"}}
    return css


async def test_later_rules_win_and_important_beats_them():
    matched = {
        "matchedCSSRules": [
            rule("div", [prop("display", "block")], origin="user-agent"),
            rule(".a", [prop("display", "none", 3)]),
            rule(".b", [prop("display", "flex", 7)]),
        ]
    }
    won = await reader().winner(matched, "display")
    assert (won.selector, won.value, won.where) == (".b", "flex", "http://h/app.css:8")
    matched["matchedCSSRules"][1]["rule"]["style"]["cssProperties"][0]["important"] = True
    won = await reader().winner(matched, "display")
    assert (won.selector, won.important, won.line) == (".a", True, 4)


async def test_inline_style_and_the_hidden_attribute_rank_where_the_cascade_puts_them():
    matched = {
        "attributesStyle": {"cssProperties": [{"name": "display", "value": "none"}]},
        "matchedCSSRules": [rule("div", [prop("display", "block")], origin="user-agent")],
    }
    won = await reader().winner(matched, "display")
    assert (won.selector, won.origin, won.value) == ("[hidden]", "attribute", "none")
    matched["matchedCSSRules"].append(rule(".shown", [prop("display", "grid", 1)]))
    assert (await reader().winner(matched, "display")).selector == ".shown"
    matched["inlineStyle"] = {"cssProperties": [prop("display", "inline")]}
    won = await reader().winner(matched, "display")
    assert (won.where, won.value) == ("its style attribute", "inline")


async def test_disabled_invalid_and_rangeless_longhands_are_not_the_declaration():
    props = [
        prop("display", "none", 2),
        {"name": "display", "value": "none"},  # the longhand Chrome expands, with no place in the file
        prop("display", "grid", 3, disabled=True),
        prop("display", "bogus", 4, parsedOk=False),
    ]
    won = await reader().winner({"matchedCSSRules": [rule(".x", props)]}, "display")
    assert (won.value, won.line) == ("none", 3)
    assert await reader().winner({"matchedCSSRules": [rule(".x", props)]}, "opacity") is None


async def test_an_inline_style_sheet_counts_lines_from_the_document():
    headers = {"s1": {"sourceURL": "http://h/page.html", "startLine": 5, "startColumn": 7}}
    first = await reader(headers).winner({"matchedCSSRules": [rule(".a", [prop("display", "none", 0, 4)])]}, "display")
    assert (first.line, first.column) == (6, 12)  # same line as <style>: the tag's column counts
    later = await reader(headers).winner({"matchedCSSRules": [rule(".a", [prop("display", "none", 3, 4)])]}, "display")
    assert (later.line, later.column) == (9, 5)


async def test_a_sheet_with_a_source_map_names_the_scss_line():
    """The committed sass build: `display: none` of .panel.collapsed is line 5 of look.css, line 8 of look.scss."""
    asked: list[tuple[str, str]] = []

    async def load_map(ref: str, base: str) -> Any:
        asked.append((ref, base))
        return parse_source_map((LOOKING / "look.css.map").read_text(), "http://h/looking/look.css.map")

    css_lines = (LOOKING / "look.css").read_text().splitlines()
    line0 = next(i for i, text in enumerate(css_lines) if "display: none" in text)
    headers = {"s1": {"sourceURL": "http://h/looking/look.css", "sourceMapURL": "look.css.map"}}
    matched = {"matchedCSSRules": [rule(".panel.collapsed", [prop("display", "none", line0, 2)])]}
    won = await reader(headers, load_map).winner(matched, "display")
    scss = (LOOKING / "look.scss").read_text().splitlines()
    scss_line = next(i for i, text in enumerate(scss) if "display: none" in text) + 1
    assert won.line == line0 + 1 and won.source == f"/looking/look.scss:{scss_line}"
    assert asked == [("look.css.map", "http://h/looking/look.css")]
