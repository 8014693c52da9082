"""Why an element is not seen or not clickable: a look at it and its ancestors, then the rules behind it.

One script (:data:`PROBE_JS`) walks the element and its ancestors (across shadow roots) in the
page and names what hides or blocks it: ``display: none`` (on which ancestor), ``visibility``,
``opacity: 0``, an empty box, clipped by an ``overflow`` ancestor or ``clip``, off the page,
covered at its center (``elementFromPoint``), ``pointer-events: none``, disabled, inert. It
only reads. Then the CSS domain (:class:`cdp_core.recorders.css_rules.CSSReader`, enabled for
this look only) names the rule that set each culprit property, with file:line and the SCSS/LESS
line through the sheet's source map. The same checks as the actions' actionability
(mcp_server/input/actionability.py), asked to explain instead of to wait.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cdp_core import CDPException
from cdp_core.recorders.css_rules import CSSReader, Declaration

if TYPE_CHECKING:
    from mcp_server.input.element import Element

__all__ = ["Look", "Reason", "look_at", "KEY_PROPERTIES"]

#: computed values that decide visibility, size, position, stacking and pointer events
KEY_PROPERTIES = (
    "display",
    "visibility",
    "opacity",
    "position",
    "z-index",
    "overflow-x",
    "overflow-y",
    "pointer-events",
    "transform",
    "clip-path",
)

#: the properties whose winning rule is listed (overflow once, for both axes)
RULE_PROPERTIES = tuple("overflow" if p == "overflow-x" else p for p in KEY_PROPERTIES if p != "overflow-y")

#: the property whose rule explains a reason of each kind
_PROPERTY_OF = {
    "display": "display",
    "visibility": "visibility",
    "opacity": "opacity",
    "clipped": "overflow",
    "clip": "clip-path",
    "pointer-events": "pointer-events",
}

PROBE_JS = r"""function() {
  const el = this;
  const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) || null;
  const name = (n) => {
    let s = n.tagName.toLowerCase();
    if (n.id) s += '#' + n.id;
    const cls = typeof n.className === 'string' ? n.className.trim().split(/\s+/).filter(Boolean) : [];
    if (cls.length) s += '.' + cls.slice(0, 3).join('.');
    return s.slice(0, 100);
  };
  const chain = [];
  for (let n = el; n && n.nodeType === 1 && chain.length < 200; n = up(n)) chain.push(n);
  const cs = chain.map((n) => getComputedStyle(n));
  const reasons = [];
  const notes = [];
  const add = (kind, at, more) => reasons.push(Object.assign({kind, at}, more || {}));
  const rect = el.getBoundingClientRect();
  const box = {x: Math.round(rect.x), y: Math.round(rect.y), w: Math.round(rect.width), h: Math.round(rect.height)};
  for (let i = chain.length - 1; i >= 0; i--) if (cs[i].display === 'none') add('display', i);
  const shown = !reasons.length;
  if (shown) {
    if (cs[0].visibility !== 'visible') {
      let i = 0;
      while (i + 1 < chain.length && cs[i + 1].visibility === cs[0].visibility) i++;
      add('visibility', i, {value: cs[0].visibility});
    }
    for (let i = chain.length - 1; i >= 0; i--) if (parseFloat(cs[i].opacity) === 0) add('opacity', i);
    if (el.checkVisibility && !reasons.length && !el.checkVisibility({contentVisibilityAuto: true}))
      add('content', 0);
    if (rect.width === 0 || rect.height === 0) add('size', 0);
    for (let i = 0; i < chain.length; i++) {
      const c = cs[i];
      if ((c.clipPath && /^inset\((50%|100%)/.test(c.clipPath)) || c.clip === 'rect(0px, 0px, 0px, 0px)') {
        add('clip', i);
        break;
      }
    }
    for (let i = 1; i < chain.length; i++) {
      const c = cs[i];
      if (c.overflowX === 'visible' && c.overflowY === 'visible') continue;
      if (chain[i] === document.documentElement || chain[i] === document.body) continue;
      const r = chain[i].getBoundingClientRect();
      const out = rect.right <= r.left || rect.left >= r.right || rect.bottom <= r.top || rect.top >= r.bottom;
      if (out && rect.width && rect.height) {
        add('clipped', i, {value: c.overflowX === c.overflowY ? c.overflowX : c.overflowX + ' ' + c.overflowY});
        break;
      }
    }
    const sx = scrollX, sy = scrollY;
    if (rect.width && rect.height && (rect.right + sx <= 0 || rect.bottom + sy <= 0)) add('offscreen', 0);
    else if (rect.width && rect.height &&
             (rect.bottom <= 0 || rect.top >= innerHeight || rect.right <= 0 || rect.left >= innerWidth))
      notes.push('outside the visible part of the page: scroll to see it (actions scroll it into view)');
  }
  const x = rect.left + rect.width / 2, y = rect.top + rect.height / 2;
  let hit = null;
  // the hit test skips what ignores pointer events or is inert: said as such, not as covered
  const through = cs[0].pointerEvents === 'none';
  const inert = el.closest('[inert]');
  const modal = inert ? null : el.ownerDocument.querySelector('dialog:modal');
  const outside = modal && !modal.contains(el);
  if (!reasons.length && !through && !inert && !outside && x >= 0 && y >= 0 && x < innerWidth && y < innerHeight) {
    hit = el.ownerDocument.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    let mine = false;
    for (let n = hit; n; n = n.parentNode || n.host) if (n === el) { mine = true; break; }
    if (hit && !mine) add('covered', 0, {by: name(hit), point: [Math.round(x), Math.round(y)]});
  }
  if (through) {
    let i = 0;
    while (i + 1 < chain.length && cs[i + 1].pointerEvents === 'none') i++;
    add('pointer-events', i);
  }
  const controls = ['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP', 'FIELDSET'];
  if (controls.includes(el.tagName) && el.matches(':disabled')) {
    const fs = el.hasAttribute('disabled') ? null : el.parentElement && el.parentElement.closest('fieldset:disabled');
    add('disabled', fs ? chain.indexOf(fs) : 0);
  }
  const aria = el.closest('[aria-disabled="true"]');
  if (aria) add('aria-disabled', chain.indexOf(aria));
  if (inert) add('inert', chain.indexOf(inert));
  else if (outside) add('modal', 0, {by: name(modal)});
  // never a field's value (a password): a button's caption, an aria-label or a placeholder
  const caption = ['button', 'submit', 'reset'].includes(el.type) && el.tagName === 'INPUT' ? el.value : '';
  const own = ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName) ? '' : el.innerText || el.textContent;
  const label = own || caption || el.getAttribute('aria-label') || el.getAttribute('placeholder') || '';
  const text = label.trim().replace(/\s+/g, ' ').slice(0, 60);
  const deepest = Math.max(0, ...reasons.map((r) => r.at));
  return {element: name(el), text, box, reasons, notes, names: chain.slice(0, deepest + 1).map(name)};
}"""

_ANCESTOR_JS = """function(k) {
  let n = this;
  while (k-- > 0 && n) n = n.parentElement || (n.parentNode && n.parentNode.host) || null;
  return n;
}"""

_HIT_JS = """function(x, y) {
  let hit = this.ownerDocument.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}"""


@dataclass
class Reason:
    """One thing that hides or blocks the element: what, on which element of its chain, set by which rule."""

    kind: str
    #: 0 = the element, 1 = its parent, ...
    up: int
    on: str
    value: str = ""
    by: str = ""
    point: list[int] | None = None
    rule: Declaration | None = None
    #: the covering element's snapshot uid, when it has one
    uid: int | None = None


@dataclass
class Look:
    """What :func:`look_at` found: the element's name, text, box, reasons, computed values, rules."""

    element: str
    text: str
    box: dict[str, int]
    reasons: list[Reason] = field(default_factory=list)
    computed: dict[str, str] = field(default_factory=dict)
    rules: list[Declaration] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


async def _object_call(element: Element, function: str, *args: Any) -> str | None:
    """``function`` on the element returning a node: its remote object id (None when it returned nothing)."""
    reply = await element.session.send(
        "Runtime.callFunctionOn",
        {
            "objectId": element.object_id,
            "functionDeclaration": function,
            "arguments": [{"value": a} for a in args],
        },
        timeout=10,
    )
    return (reply.get("result") or {}).get("objectId")


async def _release(element: Element, object_id: str) -> None:
    try:
        await element.session.send("Runtime.releaseObject", {"objectId": object_id}, timeout=5)
    except CDPException:
        pass


async def look_at(element: Element, *, load_map: Any = None, uid_of: Any = None) -> Look:
    """Look at ``element`` and its ancestors; name what hides or blocks it and the rules behind.

    ``load_map`` loads a stylesheet's source map (see :class:`CSSReader`); ``uid_of(session,
    object_id)`` gives the snapshot uid of a covering element (None: it has none).
    """
    raw = await element.call(PROBE_JS) or {}
    names = raw.get("names") or []
    look = Look(
        str(raw.get("element") or ""), str(raw.get("text") or ""), raw.get("box") or {}, notes=raw.get("notes") or []
    )
    for item in raw.get("reasons") or []:
        up = int(item.get("at") or 0)
        look.reasons.append(
            Reason(
                kind=str(item["kind"]),
                up=up,
                on=names[up] if up < len(names) else "",
                value=str(item.get("value") or ""),
                by=str(item.get("by") or ""),
                point=item.get("point"),
            )
        )
    async with CSSReader(element.session, load_map=load_map) as css:
        node = await css.node_id(object_id=element.object_id)
        look.computed = await css.computed(node, KEY_PROPERTIES)
        if look.computed.get("overflow-x") == look.computed.get("overflow-y"):
            look.computed["overflow"] = look.computed.pop("overflow-x", "")
            look.computed.pop("overflow-y", None)
        own = await css.matched(node)
        for prop in RULE_PROPERTIES:
            decl = await css.winner(own, prop)
            if decl is not None and decl.origin != "user-agent":
                look.rules.append(decl)
        for reason in look.reasons:
            await _explain(element, css, reason, own, look.box)
    for reason in look.reasons:
        if reason.kind == "covered" and reason.point and uid_of is not None:
            hit = await _object_call(element, _HIT_JS, *reason.point)
            if hit is not None:
                try:
                    reason.uid = await uid_of(element.session, hit)
                finally:
                    await _release(element, hit)
    return look


async def _explain(element: Element, css: CSSReader, reason: Reason, own: dict[str, Any], box: dict[str, int]) -> None:
    """Find the declaration behind ``reason`` on the element of the chain it names."""
    prop = _PROPERTY_OF.get(reason.kind)
    if reason.kind == "size":
        prop = "width" if not box.get("w") else "height"
    if prop is None:
        return
    matched = own
    holder = None
    try:
        if reason.up:
            holder = await _object_call(element, _ANCESTOR_JS, reason.up)
            if holder is None:
                return
            matched = await css.matched(await css.node_id(object_id=holder))
        reason.rule = await css.winner(matched, prop)
        if reason.rule is None and prop == "clip-path":
            reason.rule = await css.winner(matched, "clip")
        if reason.rule is not None and not _sets(reason, reason.rule.value):
            reason.rule = None  # the cascade gave another value (a rule we cannot see won): name none
    except CDPException:
        return  # the ancestor went away meanwhile: the reason stands without its rule
    finally:
        if holder is not None:
            await _release(element, holder)


def _sets(reason: Reason, value: str) -> bool:
    """Whether a declared ``value`` is the one the reason names (a var() or calc() is taken as it)."""
    value = value.strip().lower()
    if "var(" in value or "calc(" in value or reason.kind not in ("display", "visibility", "opacity", "pointer-events"):
        return True
    if reason.kind == "opacity":
        try:
            return float(value.rstrip("%")) == 0
        except ValueError:
            return True
    wanted = reason.value if reason.kind == "visibility" else "none"
    return value == wanted
