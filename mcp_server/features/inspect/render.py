"""A :class:`~.looking_probe.Look` in words and as data: the same facts in both renderings, at the same size.

Text::

    button#cancel "Cancel" [uid=12]: hidden
    - display:none on its parent div.panel.collapsed: .panel.collapsed {display: none} at http://h/look.html:4
    box 0x0 at (0,0); display=inline-block visibility=visible opacity=1 position=static ...
    rules: display: inline-block (.btn at http://h/app.css:10 from src/app.scss:7)

JSON: ``{element, text, uid, verdict, reasons: [{why, on, up, rule, at, source}], box: [x, y, w, h],
computed: {...}, rules: [[prop, value, selector, at, source?]], notes}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cdp_core.recorders.css_rules import Declaration

if TYPE_CHECKING:  # the probe (facts) builds a Look; rendering only reads it
    from mcp_server.features.inspect.probe import Look, Reason

__all__ = ["verdict_of", "reason_text", "look_text", "look_data", "rule_text"]

_VERDICT = {
    "display": "hidden",
    "visibility": "hidden",
    "content": "hidden",
    "opacity": "transparent",
    "size": "empty box",
    "clip": "clipped",
    "clipped": "clipped",
    "offscreen": "off-screen",
    "covered": "covered",
    "pointer-events": "ignores clicks",
    "disabled": "disabled",
    "aria-disabled": "disabled",
    "inert": "inert",
    "modal": "inert",
}

#: computed values left out when initial (the tool description says so): only what is set shows
_QUIET = {
    "visibility": "visible",
    "opacity": "1",
    "position": "static",
    "z-index": "auto",
    "overflow": "visible",
    "overflow-x": "visible",
    "overflow-y": "visible",
    "pointer-events": "auto",
    "transform": "none",
    "clip-path": "none",
}


def verdict_of(look: Look) -> str:
    return _VERDICT.get(look.reasons[0].kind, "blocked") if look.reasons else "visible and clickable"


def _who(reason: Reason) -> str:
    if reason.up == 0:
        return "itself"
    if reason.up == 1:
        return f"its parent {reason.on}"
    return f"its ancestor {reason.on} ({reason.up} levels up)"


def _why(reason: Reason, box: dict[str, int]) -> str:
    """The short name of what hides or blocks it (the JSON ``why``)."""
    kind = reason.kind
    if kind in ("display", "visibility", "opacity", "pointer-events"):
        value = {"display": "none", "opacity": "0", "pointer-events": "none"}.get(kind, reason.value)
        return f"{kind}:{value}"
    return {
        "content": "not rendered (content-visibility or a closed <details>)",
        "size": f"empty box ({box.get('w', 0)}x{box.get('h', 0)})",
        "clip": "cut to nothing by clip/clip-path",
        "clipped": f"outside an overflow:{reason.value} box",
        "offscreen": f"off the page at ({box.get('x', 0)},{box.get('y', 0)})",
        "covered": f"covered by {reason.by}",
        "disabled": "disabled",
        "aria-disabled": "aria-disabled=true",
        "inert": "inert",
        "modal": f"outside the open modal {reason.by}",
    }.get(kind, kind)


def rule_text(rule: Declaration) -> str:
    important = " !important" if rule.important else ""
    text = f"{rule.selector} {{{rule.prop}: {rule.value}{important}}} at {rule.where}"
    return text + (f" (from {rule.source})" if rule.source else "")


def reason_text(reason: Reason, box: dict[str, int]) -> str:
    """One reason as a sentence: what, on which element, set where."""
    text = _why(reason, box)
    if reason.kind == "covered":
        if reason.uid is not None:
            text += f" [uid={reason.uid}]"
        if reason.point:
            text += f" at its center ({reason.point[0]},{reason.point[1]}): a click lands there"
    elif reason.up or reason.kind in ("display", "visibility", "opacity", "pointer-events"):
        text += f" on {_who(reason)}"
    if reason.rule is not None:
        text += f": {rule_text(reason.rule)}"
    return text


def _head(look: Look, uid: int | None) -> str:
    head = look.element + (f' "{look.text}"' if look.text else "")
    return head + (f" [uid={uid}]" if uid is not None else "")


def look_text(look: Look, uid: int | None = None) -> str:
    lines = [f"{_head(look, uid)}: {verdict_of(look)}"]
    lines += [f"- {reason_text(r, look.box)}" for r in look.reasons]
    lines += [f"- {note}" for note in look.notes]
    box = look.box
    values = " ".join(f"{k}={v}" for k, v in look.computed.items() if _QUIET.get(k) != v)
    lines.append(f"box {box.get('w', 0)}x{box.get('h', 0)} at ({box.get('x', 0)},{box.get('y', 0)}); {values}")
    if look.rules:
        lines.append("rules: " + "; ".join(f"{r.prop}: {r.value} ({_rule_place(r)})" for r in look.rules))
    return "\n".join(lines)


def _rule_place(rule: Declaration) -> str:
    text = f"{rule.selector} at {rule.where}"
    return text + (f" from {rule.source}" if rule.source else "")


def _reason_data(reason: Reason, box: dict[str, int]) -> dict[str, Any]:
    out: dict[str, Any] = {"why": _why(reason, box)}
    if reason.up:
        out["on"] = reason.on
        out["up"] = reason.up
    if reason.uid is not None:
        out["uid"] = reason.uid
    if reason.point:
        out["point"] = reason.point
    if reason.rule is not None:
        out.update(_rule_data(reason.rule))
    return out


def _rule_data(rule: Declaration) -> dict[str, Any]:
    out: dict[str, Any] = {"rule": rule.selector, "value": rule.value, "at": rule.where}
    if rule.important:
        out["important"] = True
    if rule.source:
        out["source"] = rule.source
    return out


def look_data(look: Look, uid: int | None = None) -> dict[str, Any]:
    box = look.box
    data: dict[str, Any] = {"element": look.element}
    if look.text:
        data["text"] = look.text
    if uid is not None:
        data["uid"] = uid
    data["verdict"] = verdict_of(look)
    if look.reasons:
        data["reasons"] = [_reason_data(r, box) for r in look.reasons]
    if look.notes:
        data["notes"] = list(look.notes)
    data["box"] = [box.get("x", 0), box.get("y", 0), box.get("w", 0), box.get("h", 0)]
    data["computed"] = {k: v for k, v in look.computed.items() if _QUIET.get(k) != v}
    if look.rules:
        data["rules"] = [[r.prop, r.value, r.selector, r.where, *([r.source] if r.source else [])] for r in look.rules]
    return data
