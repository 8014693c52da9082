// The in-page snapshot collector: evaluated once per document in our isolated world
// ("mcp-snapshot", invisible to page scripts and untouched by the page's polyfills),
// where it defines globalThis.__mcpSnapshot. Python calls __mcpSnapshot.snapshot(opts)
// and gets back the snapshot lines of this frame as one JSON string.
//
// Why in the page: Chrome's Accessibility.getFullAXTree describes every node of the page
// (5-7 MB of JSON for 5000 elements), most of which the snapshot then drops. Here the walk,
// the roles and the accessible names are computed where the DOM is, and only the lines the
// snapshot shows cross the wire, so the cost follows the answer, not the page.
//
// Roles follow HTML-AAM / WAI-ARIA as Chrome maps them (including Chrome's own role names:
// LabelText, DisclosureTriangle, LayoutTable, Date, ...); names follow accname 1.2 with
// Chrome's choices where the spec leaves room (title before placeholder, spaces around
// block-level and replaced children, CSS generated content, hidden labels skipped). A test
// compares role and name of every reported element with Chrome's AX tree.
//
// Elements the snapshot reports get a key: a number, stable for the life of the document,
// kept in a WeakMap of this world. Python binds uids to (frame, document, key) and turns a
// key back into the element (byKey) only when an action needs it.
(() => {
  "use strict";

  // -- keys: element <-> small integer, per document --------------------------------------
  const keyByElement = new WeakMap();
  const elementByKey = new Map(); // key -> WeakRef(element)
  let nextKey = 1;

  function keyOf(el) {
    let key = keyByElement.get(el);
    if (key === undefined) {
      key = nextKey++;
      keyByElement.set(el, key);
      elementByKey.set(key, new WeakRef(el));
    }
    return key;
  }

  function byKey(key) {
    const ref = elementByKey.get(key);
    const el = ref && ref.deref();
    return el && el.isConnected ? el : null;
  }

  /** Keys whose element left the document since the last call (their uids become stale). */
  function goneKeys() {
    const gone = [];
    for (const [key, ref] of elementByKey) {
      const el = ref.deref();
      if (!el || !el.isConnected) {
        elementByKey.delete(key);
        gone.push(key);
      }
    }
    return gone;
  }

  // -- role tables (the Python side has the same sets in accessibility_build.py) ----------
  const INTERACTIVE = new Set([
    "button", "link", "textbox", "searchbox", "combobox", "listbox", "option", "checkbox", "radio",
    "switch", "slider", "spinbutton", "menuitem", "menuitemcheckbox", "menuitemradio", "tab",
    "treeitem", "clickable", "disclosure", "date", "datetime", "time",
  ]);
  const ALWAYS = new Set(["heading", "alert", "alertdialog", "dialog", "status", "log", "tooltip", "marquee"]);
  const NAMED = new Set([
    "navigation", "main", "banner", "contentinfo", "complementary", "region", "form", "search", "group",
    "radiogroup", "list", "table", "grid", "tree", "tablist", "tabpanel", "menu", "menubar", "toolbar",
    "figure", "img", "image", "article", "progressbar", "meter",
  ]);
  const LEAF = new Set(["textbox", "searchbox", "spinbutton", "slider", "checkbox", "radio", "switch", "img", "image", "meter"]);
  const TEXT_AS_NAME = new Set(["alert", "status", "log", "tooltip", "marquee", "error", "clickable"]);
  const VALUE_ROLES = new Set(["textbox", "searchbox", "combobox", "spinbutton", "slider"]);
  const FORM_CONTROL_TAGS = new Set(["INPUT", "TEXTAREA", "SELECT"]);
  const INTERNAL_NAMES = { DisclosureTriangle: "disclosure", Date: "date", DateTime: "datetime", InputTime: "time" };
  const CELL_ROLES = new Set(["cell", "gridcell", "columnheader", "rowheader"]);
  const ERROR_BOX_ROLES = new Set(["generic", "none", "paragraph", "list", ""]);
  const CLICKABLE_ROLES = new Set(["generic", "none", "paragraph", "listitem", "cell", "gridcell"]);
  const ERROR_CLASS_EXACT = new Set(["alert", "invalid-feedback", "text-danger", "has-error"]);
  const INLINE_DISPLAYS = new Set(["inline", "contents", ""]);
  const MAX_GATHERED_TEXT = 240;
  const MAX_CLICKABLE_TEXT = 100;

  // Roles whose accessible name comes from their content (ARIA "name from contents"), as
  // Chrome applies it. A native <tr> is not among them in Chrome; an ARIA row is.
  const NAME_FROM_CONTENT = new Set([
    "button", "link", "heading", "cell", "gridcell", "columnheader", "rowheader", "LayoutTableCell",
    "checkbox", "radio", "switch", "tab", "treeitem", "option", "menuitem", "menuitemcheckbox",
    "menuitemradio", "tooltip", "DisclosureTriangle", "term", "sectionhead", "comment",
  ]);
  // Every ARIA 1.2 role Chrome knows (an unknown token in role="..." falls through to the next).
  const ARIA_ROLES = new Set([
    "alert", "alertdialog", "application", "article", "banner", "blockquote", "button", "caption", "cell",
    "checkbox", "code", "columnheader", "combobox", "comment", "complementary", "contentinfo", "definition",
    "deletion", "dialog", "directory", "document", "emphasis", "feed", "figure", "form", "generic", "grid",
    "gridcell", "group", "heading", "image", "img", "insertion", "link", "list", "listbox", "listitem", "log",
    "main", "mark", "marquee", "math", "menu", "menubar", "menuitem", "menuitemcheckbox", "menuitemradio",
    "meter", "navigation", "none", "note", "option", "paragraph", "presentation", "progressbar", "radio",
    "radiogroup", "region", "row", "rowgroup", "rowheader", "scrollbar", "search", "searchbox", "sectionfooter",
    "sectionheader", "separator", "slider", "spinbutton", "status", "strong", "subscript", "suggestion",
    "superscript", "switch", "tab", "table", "tablist", "tabpanel", "term", "textbox", "time", "timer",
    "toolbar", "tooltip", "tree", "treegrid", "treeitem",
  ]);
  // ARIA attributes that make role="none"/"presentation" void (global states and properties).
  const GLOBAL_ARIA = [
    "aria-label", "aria-labelledby", "aria-describedby", "aria-live", "aria-owns", "aria-controls",
    "aria-details", "aria-keyshortcuts", "aria-roledescription", "aria-busy", "aria-current",
    "aria-disabled", "aria-errormessage", "aria-flowto", "aria-haspopup", "aria-invalid", "aria-relevant",
    "aria-atomic", "aria-describedat", "aria-dropeffect", "aria-grabbed",
  ];
  const REPLACED = new Set(["IMG", "INPUT", "SELECT", "TEXTAREA", "BUTTON", "SVG", "svg", "VIDEO", "AUDIO", "IFRAME", "CANVAS", "OBJECT", "EMBED", "METER", "PROGRESS"]);
  const SKIP_TAGS = new Set(["SCRIPT", "STYLE", "TEMPLATE", "NOSCRIPT", "HEAD", "TITLE", "META", "LINK", "BASE"]);
  const TEXT_INPUT_TYPES = new Set(["", "text", "email", "tel", "url", "password", "search"]);
  const LABELABLE = new Set(["INPUT", "SELECT", "TEXTAREA", "BUTTON", "METER", "OUTPUT", "PROGRESS"]);

  // -- small helpers -----------------------------------------------------------------------
  const norm = (s) => s.replace(/\s+/g, " ").trim();
  const lowerNorm = (s) => norm(s).toLowerCase();
  const styleCache = new Map(); // element -> CSSStyleDeclaration, for one snapshot

  function style(el) {
    let cs = styleCache.get(el);
    if (cs === undefined) {
      cs = getComputedStyle(el);
      styleCache.set(el, cs);
    }
    return cs;
  }

  function classesOf(el) {
    const c = el.getAttribute("class");
    return c ? c.split(/\s+/).filter(Boolean) : [];
  }

  function isErrorContainer(el) {
    for (const cls of classesOf(el)) {
      const low = cls.toLowerCase();
      if (ERROR_CLASS_EXACT.has(low) || low.includes("error")) return true;
    }
    return false;
  }

  /** Children in the flat tree: a shadow root replaces the light children; a slot shows what is assigned. */
  function flatChildren(node) {
    if (node.nodeType === 1) {
      if (node.shadowRoot) return node.shadowRoot.childNodes;
      if (node.localName === "slot") {
        const assigned = node.assignedNodes();
        if (assigned.length) return assigned;
      }
    }
    return node.childNodes;
  }

  function flatParent(el) {
    if (el.assignedSlot) return el.assignedSlot;
    const parent = el.parentNode;
    if (parent && parent.nodeType === 11) return parent.host || null;
    return parent && parent.nodeType === 1 ? parent : null;
  }

  function attr(el, name) {
    const v = el.getAttribute(name);
    return v === null ? null : v;
  }

  function isFocusable(el) {
    return el.hasAttribute("tabindex") || el.tabIndex >= 0;
  }

  function hasGlobalAria(el) {
    for (const name of GLOBAL_ARIA) if (el.hasAttribute(name)) return true;
    return false;
  }

  /** Hidden from the accessibility tree on its own account (not counting its ancestors). */
  function hiddenSelf(el) {
    if (SKIP_TAGS.has(el.tagName)) return true;
    if (attr(el, "aria-hidden") === "true") return true;
    if (el.hasAttribute("inert")) return true;
    if (attr(el, "hidden") === "until-found") return true;
    const cs = style(el);
    return cs.display === "none";
  }

  /** Hidden from the accessibility tree, ancestors included (for labels and references). */
  function hiddenDeep(el) {
    for (let e = el; e; e = flatParent(e)) {
      if (hiddenSelf(e)) return true;
      if (e !== el && e.localName === "details" && !e.open && !isSummaryOf(el, e)) return true;
    }
    return style(el).visibility !== "visible";
  }

  function isSummaryOf(el, details) {
    for (let e = el; e && e !== details; e = flatParent(e)) {
      if (e.localName === "summary" && e.parentNode === details && details.querySelector(":scope > summary") === e) return true;
    }
    return false;
  }

  function closestFlat(el, pred) {
    for (let e = flatParent(el); e; e = flatParent(e)) if (pred(e)) return e;
    return null;
  }

  // -- roles --------------------------------------------------------------------------------
  function explicitRole(el) {
    const raw = attr(el, "role");
    if (!raw) return null;
    for (const token of raw.trim().toLowerCase().split(/\s+/)) {
      if (ARIA_ROLES.has(token)) return token;
    }
    return null;
  }

  const SECTIONING = new Set(["article", "aside", "nav", "section"]);
  const SECTIONING_ROLES = new Set(["article", "complementary", "navigation", "region"]);

  function inSectioning(el, withMain) {
    return !!closestFlat(el, (e) => {
      const n = e.localName;
      if (SECTIONING.has(n) || (withMain && n === "main")) return true;
      const r = explicitRole(e);
      return !!r && (SECTIONING_ROLES.has(r) || (withMain && r === "main"));
    });
  }

  function hasOwnName(el) {
    const label = attr(el, "aria-label");
    if (label && label.trim()) return true;
    const ids = attr(el, "aria-labelledby");
    if (ids && ids.trim()) return true;
    return !!(attr(el, "title") || "").trim();
  }

  function isDataTable(table) {
    if (explicitRole(table)) return true;
    if (table.isContentEditable) return true;
    if (table.caption || table.tHead || table.tFoot || (attr(table, "summary") || "") !== "") return true;
    if ((attr(table, "rules") || "") !== "") return true;
    if (table.querySelector(":scope > col, :scope > colgroup")) return true;
    const rows = table.rows;
    if (rows.length >= 20) return true;
    if (rows.length <= 0) return false;
    if (rows.length === 1 && rows[0].cells.length === 1) return false;
    const tableStyle = style(table);
    const tableBg = tableStyle.backgroundColor;
    const spacing = tableStyle.borderSpacing.split(" ").every((v) => parseFloat(v) > 0);
    let valid = 0, bordered = 0, bgDiff = 0, top = 0, bottom = 0, left = 0, right = 0;
    const rowColors = [];
    for (let r = 0; r < rows.length; r++) {
      const cells = rows[r].cells;
      for (let c = 0; c < cells.length; c++) {
        const cell = cells[c];
        if (cell.tagName === "TH") return true;
        if (cell.hasAttribute("headers") || (attr(cell, "abbr") || "") || (attr(cell, "axis") || "") || (attr(cell, "scope") || "")) return true;
        const cs = style(cell);
        if (cs.display === "none" || cell.offsetWidth < 1 || cell.offsetHeight < 1) continue;
        valid++;
        if (cs.emptyCells === "hide") return true;
        const bt = parseFloat(cs.borderTopWidth) > 0 && cs.borderTopStyle !== "none";
        const bb = parseFloat(cs.borderBottomWidth) > 0 && cs.borderBottomStyle !== "none";
        const bl = parseFloat(cs.borderLeftWidth) > 0 && cs.borderLeftStyle !== "none";
        const br = parseFloat(cs.borderRightWidth) > 0 && cs.borderRightStyle !== "none";
        if ((bt && bb) || (bl && br)) bordered++;
        if (bt) top++;
        if (bb) bottom++;
        if (bl) left++;
        if (br) right++;
        const bg = cs.backgroundColor;
        if (spacing && bg !== tableBg && !/^rgba\(.*,\s*0\)$/.test(bg) && bg !== "transparent") bgDiff++;
        if (bordered >= 10 || bgDiff >= 10) return true;
        if (r < 5 && r === rowColors.length) rowColors.push(style(rows[r]).backgroundColor);
      }
    }
    if (valid <= 1) return false;
    const needed = Math.floor(valid / 2);
    if (bordered >= needed || top >= needed || bottom >= needed || left >= needed || right >= needed) return true;
    if (bgDiff >= needed) return true;
    if (rowColors.length > 2) {
      for (let k = 1; k < rowColors.length; k++) {
        if (k % 2 === 1 && rowColors[k] === rowColors[0]) return false;
        if (k % 2 === 0 && rowColors[k] !== rowColors[0]) return false;
      }
      return true;
    }
    return false;
  }

  const tableKind = new Map(); // table element -> is data table, for one snapshot

  function ownerTable(el) {
    for (let e = el.parentElement; e; e = e.parentElement) if (e.tagName === "TABLE") return e;
    return null;
  }

  /** "data", "layout" or "none" (a presentational table makes its rows and cells presentational too). */
  function tableKindOf(el) {
    const table = ownerTable(el);
    if (!table) return "layout";
    let kind = tableKind.get(table);
    if (kind === undefined) {
      kind = roleOf(table) === "none" ? "none" : isDataTable(table) ? "data" : "layout";
      tableKind.set(table, kind);
    }
    return kind;
  }

  function inAriaGrid(el) {
    const owner = closestFlat(el, (e) => {
      const r = explicitRole(e);
      return r === "grid" || r === "treegrid" || r === "table" || e.tagName === "TABLE";
    });
    const r = owner && explicitRole(owner);
    return r === "grid" || r === "treegrid";
  }

  function inGrid(el) {
    const table = ownerTable(el);
    const r = table && explicitRole(table);
    return r === "grid" || r === "treegrid";
  }

  function headerCellRole(th) {
    const scope = (attr(th, "scope") || "").toLowerCase();
    if (scope === "row" || scope === "rowgroup") return "rowheader";
    if (scope === "col" || scope === "colgroup") return "columnheader";
    const row = th.parentElement;
    if (row && row.parentElement && row.parentElement.tagName === "THEAD") return "columnheader";
    if (row && row.cells) {
      for (const cell of row.cells) if (cell.tagName === "TD") return th === row.cells[0] ? "rowheader" : "columnheader";
    }
    return "columnheader";
  }

  function inputRole(el) {
    const type = (attr(el, "type") || "").toLowerCase();
    switch (type) {
      case "search": return el.hasAttribute("list") ? "combobox" : "searchbox";
      case "number": return "spinbutton";
      case "range": return "slider";
      case "checkbox": return "checkbox";
      case "radio": return "radio";
      case "button": case "submit": case "reset": case "image": case "file": return "button";
      case "date": return "Date";
      case "datetime-local": case "month": case "week": return "DateTime";
      case "time": return "InputTime";
      case "color": return "ColorWell";
      default: return el.hasAttribute("list") ? "combobox" : "textbox";
    }
  }

  function implicitRole(el) {
    const tag = el.localName;
    switch (tag) {
      case "a": case "area": return el.hasAttribute("href") ? "link" : "generic";
      case "article": return "article";
      case "aside": return !inSectioning(el, false) || hasOwnName(el) ? "complementary" : "generic";
      case "header": return inSectioning(el, true) ? "sectionheader" : "banner";
      case "footer": return inSectioning(el, true) ? "sectionfooter" : "contentinfo";
      case "button": return "button";
      case "datalist": return "listbox";
      case "details": return "group";
      case "summary": {
        const d = el.parentElement;
        return d && d.localName === "details" && d.querySelector(":scope > summary") === el ? "DisclosureTriangle" : "generic";
      }
      case "dialog": return "dialog";
      case "fieldset": return "group";
      case "figure": return "figure";
      case "form": return "form";
      case "h1": case "h2": case "h3": case "h4": case "h5": case "h6": return "heading";
      case "hgroup": return "group";
      case "hr": return "separator";
      case "img": return "image";
      case "input": return inputRole(el);
      case "li": return "listitem";
      case "main": return "main";
      case "menu": case "ol": case "ul": return "list";
      case "meter": return "meter";
      case "nav": return "navigation";
      case "optgroup": return "group";
      case "option": return "option";
      case "output": return "status";
      case "p": return "paragraph";
      case "progress": return "progressbar";
      case "search": return "search";
      case "section": return hasOwnName(el) ? "region" : "generic";
      case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "table": return isDataTable(el) ? "table" : "LayoutTable";
      case "tbody": case "thead": case "tfoot": {
        const kind = tableKindOf(el);
        return kind === "data" ? "rowgroup" : kind === "none" ? "none" : "generic";
      }
      case "tr": {
        const kind = tableKindOf(el);
        return kind === "data" ? "row" : kind === "none" ? "none" : "LayoutTableRow";
      }
      case "td": case "th": {
        const kind = tableKindOf(el);
        if (kind === "none") return "none";
        if (kind === "layout") return "LayoutTableCell";
        if (el.tagName === "TH") return headerCellRole(el);
        return inGrid(el) ? "gridcell" : "cell";
      }
      case "textarea": return "textbox";
      case "label": return "LabelText";
      case "legend": return "Legend";
      case "caption": return "caption";
      case "figcaption": return "Figcaption";
      case "iframe": case "frame": return "Iframe";
      case "svg": return hasOwnName(el) || el.querySelector(":scope > title") ? "image" : "none";
      case "dl": return "DescriptionList";
      case "dt": case "dfn": return "term";
      case "dd": return "definition";
      case "em": return "emphasis";
      case "strong": return "strong";
      case "code": return "code";
      case "blockquote": return "blockquote";
      case "mark": return "mark";
      case "time": return "time";
      case "sub": return "subscript";
      case "sup": return "superscript";
      case "ins": return "insertion";
      case "del": case "s": return "deletion";
      case "abbr": return "Abbr";
      case "address": return "group";
      case "canvas": return "Canvas";
      case "video": return "Video";
      case "audio": return "Audio";
      default: return "generic";
    }
  }

  /** Chrome's role of an element ("none" for presentational ones). */
  function roleOf(el) {
    let role = explicitRole(el);
    if (role === "presentation" || role === "none") {
      if (isFocusable(el) || hasGlobalAria(el)) role = null;
      else return "none";
    }
    if (role === "img") return "image";
    if (role === "option" && !closestFlat(el, (e) => {
      const r = explicitRole(e);
      return r === "listbox" || r === "combobox" || e.tagName === "SELECT" || e.tagName === "DATALIST";
    })) return "generic";
    if (role === "region" || role === "form") return hasOwnName(el) ? role : "generic";
    if (role) return role;
    return implicitRole(el);
  }

  // -- accessible names (accname 1.2, as Chrome computes them) -------------------------------
  function pseudoText(el, which) {
    const content = getComputedStyle(el, which).content;
    if (!content || content === "none" || content === "normal") return "";
    // "text" / "alt text": the alternative after the slash wins; only quoted strings count.
    const slash = content.lastIndexOf('" / "');
    const src = slash >= 0 ? content.slice(slash + 4) : content;
    let out = "";
    const re = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g;
    let m;
    while ((m = re.exec(src))) out += (m[1] !== undefined ? m[1] : m[2]).replace(/\\(.)/g, "$1");
    return out;
  }

  function transformText(text, transform) {
    if (transform === "uppercase") return text.toUpperCase();
    if (transform === "lowercase") return text.toLowerCase();
    if (transform === "capitalize") return text.replace(/(^|\s)(\S)/g, (_, a, b) => a + b.toUpperCase());
    return text;
  }

  function selectedOptionsText(select) {
    const parts = [];
    for (const opt of select.selectedOptions) parts.push(optionLabel(opt));
    return parts.join(" ");
  }

  function optionLabel(opt) {
    const label = attr(opt, "label");
    return label !== null && label !== "" ? label : norm(opt.text);
  }

  /** The value of an embedded control when it is part of another element's name (accname 2C). */
  function embeddedValue(el, role) {
    if (el.tagName === "SELECT") return selectedOptionsText(el);
    if (role === "textbox" || role === "searchbox") {
      if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") return el.value;
      return el.textContent || "";
    }
    if (role === "combobox") {
      if (el.tagName === "INPUT") return el.value;
      return null;
    }
    if (role === "listbox") {
      const sel = el.querySelector('[role=option][aria-selected=true]');
      return sel ? textFromContent(sel, { visited: new Set(), hidden: false }) : "";
    }
    if (role === "slider" || role === "spinbutton" || role === "scrollbar" || role === "progressbar") {
      const text = attr(el, "aria-valuetext");
      if (text !== null) return text;
      const now = attr(el, "aria-valuenow");
      if (now !== null) return now;
      if (el.tagName === "INPUT") return el.value;
      return "";
    }
    return null;
  }

  function labelsText(el, ctx) {
    const labels = el.labels;
    if (!labels || !labels.length) return "";
    const parts = [];
    for (const label of labels) {
      if (hiddenDeep(label)) continue;
      const text = textFromContent(label, { visited: ctx.visited, hidden: false, skip: el });
      if (text.trim()) parts.push(text);
    }
    return parts.join(" ");
  }

  function buttonInputName(el) {
    const type = (attr(el, "type") || "").toLowerCase();
    const value = attr(el, "value");
    if (type === "image") {
      const alt = attr(el, "alt");
      if (alt !== null && alt.trim()) return alt;
      if (value !== null && value.trim()) return value;
      return "Submit";
    }
    if (value !== null) return value;
    if (type === "submit") return "Submit";
    if (type === "reset") return "Reset";
    return "";
  }

  /** The accessible name of ``el`` (not normalised). ``ctx``: {visited, inLabelledBy, hidden, root}. */
  function nameOf(el, role, ctx) {
    if (ctx.visited.has(el)) return "";
    ctx.visited.add(el);
    const recursing = !ctx.root;
    // 2B: aria-labelledby (not followed again inside a labelledby traversal)
    if (!ctx.inLabelledBy) {
      const ids = attr(el, "aria-labelledby");
      if (ids && ids.trim()) {
        const rootNode = el.getRootNode();
        const parts = [];
        for (const id of ids.trim().split(/\s+/)) {
          const ref = rootNode.getElementById ? rootNode.getElementById(id) : document.getElementById(id);
          if (!ref) continue;
          let text;
          if (ref === el) {
            const v = embeddedValue(el, role);
            text = v !== null ? v : "";
            if (!text) text = nameWithoutLabelledBy(el, role, ctx);
          } else {
            const hidden = hiddenDeep(ref);
            text = nameOf(ref, roleOf(ref), { visited: new Set([el]), inLabelledBy: true, hidden, root: false });
          }
          if (text && text.trim()) parts.push(text.trim());
        }
        const joined = parts.join(" ");
        if (joined.trim()) return joined;
      }
    }
    // 2C: an embedded control inside another element's name gives its value
    if (recursing) {
      const v = embeddedValue(el, role);
      if (v !== null && (LABELABLE.has(el.tagName) || INTERACTIVE.has(role))) return v;
    }
    return nameWithoutLabelledBy(el, role, ctx);
  }

  function nameWithoutLabelledBy(el, role, ctx) {
    const recursing = !ctx.root;
    // 2D: aria-label
    const ariaLabel = attr(el, "aria-label");
    if (ariaLabel && ariaLabel.trim()) return ariaLabel;
    // 2E: native text alternatives
    const tag = el.tagName;
    if (tag === "INPUT") {
      const type = (attr(el, "type") || "").toLowerCase();
      if (type === "button" || type === "submit" || type === "reset" || type === "image") {
        const labelled = labelsText(el, ctx);
        if (labelled.trim()) return labelled;
        const own = buttonInputName(el);
        if (own.trim() || type !== "image") return own || titleOf(el);
      }
    }
    if (LABELABLE.has(tag) && !recursing) {
      const labelled = labelsText(el, ctx);
      if (labelled.trim()) return labelled;
      // Chrome names an unlabelled file input after its button (in the browser's language)
      if (tag === "INPUT" && (attr(el, "type") || "").toLowerCase() === "file") return el.multiple ? "Choose Files" : "Choose File";
    }
    if (tag === "IMG" || (tag === "AREA" && !el.hasAttribute("href")) || (tag === "INPUT" && (attr(el, "type") || "").toLowerCase() === "image")) {
      const alt = attr(el, "alt");
      if (alt !== null) return alt;
    }
    if (tag === "AREA") {
      const alt = attr(el, "alt");
      if (alt !== null && alt.trim()) return alt;
    }
    if (tag === "FIELDSET") {
      const legend = el.querySelector(":scope > legend");
      if (legend) {
        const text = textFromContent(legend, { visited: ctx.visited, hidden: ctx.hidden });
        if (text.trim()) return text;
      }
    }
    if (tag === "TABLE") {
      const caption = el.caption;
      if (caption) {
        const text = textFromContent(caption, { visited: ctx.visited, hidden: ctx.hidden });
        if (text.trim()) return text;
      }
    }
    if (el.namespaceURI === "http://www.w3.org/2000/svg") {
      const title = el.querySelector(":scope > title");
      if (title && title.textContent.trim()) return title.textContent;
    }
    // 2F: name from content (the role allows it, or we are inside another element's name)
    const fromContent = NAME_FROM_CONTENT.has(role) || (role === "row" && tag !== "TR" && inAriaGrid(el)) || recursing || ctx.inLabelledBy;
    if (fromContent && tag !== "SELECT" && tag !== "TEXTAREA" && tag !== "INPUT") {
      const text = textFromContent(el, ctx);
      if (text.trim()) return text;
    }
    // 2I: tooltip attributes (Chrome does not name a generic element from its title)
    if (role !== "generic" && role !== "none") {
      const title = titleOf(el);
      if (title.trim()) return title;
    }
    if (!recursing && (role === "textbox" || role === "searchbox" || role === "combobox" || role === "spinbutton")) {
      const ph = attr(el, "placeholder") || attr(el, "aria-placeholder");
      if (ph && ph.trim()) return ph;
    }
    return "";
  }

  function titleOf(el) {
    return attr(el, "title") || "";
  }

  /** Text of ``el``'s content for a name: text nodes, children's names, CSS generated content. */
  function textFromContent(el, ctx) {
    const parts = [];
    const before = pseudoText(el, "::before");
    if (before) parts.push(before);
    const transform = style(el).textTransform;
    for (const child of flatChildren(el)) {
      if (child.nodeType === 3) {
        parts.push(transformText(child.data, transform));
        continue;
      }
      if (child.nodeType !== 1) continue;
      if (child === ctx.skip) continue;
      if (child.tagName === "BR") {
        parts.push("\n");
        continue;
      }
      if (!ctx.hidden && (hiddenSelf(child) || style(child).visibility !== "visible")) continue;
      if (SKIP_TAGS.has(child.tagName)) continue;
      const childRole = roleOf(child);
      const sub = { visited: ctx.visited, inLabelledBy: ctx.inLabelledBy, hidden: ctx.hidden, root: false, skip: ctx.skip };
      let text = nameOf(child, childRole, sub);
      const display = style(child).display;
      if (!INLINE_DISPLAYS.has(display) || REPLACED.has(child.tagName)) text = " " + text + " ";
      parts.push(text);
    }
    const after = pseudoText(el, "::after");
    if (after) parts.push(after);
    return parts.join("");
  }

  function accName(el, role) {
    return norm(nameOf(el, role, { visited: new Set(), inLabelledBy: false, hidden: false, root: true }));
  }

  // -- values and states ----------------------------------------------------------------------
  function valueOf(el, role, formControl) {
    if (el.tagName === "INPUT") {
      const type = (attr(el, "type") || "").toLowerCase();
      if (type === "password") return "\u2022".repeat(el.value.length);
      if (["checkbox", "radio", "button", "submit", "reset", "image", "file"].includes(type)) return null;
      return el.value;
    }
    if (el.tagName === "TEXTAREA") return el.value;
    if (formControl) return null;
    if (role === "slider" || role === "spinbutton") {
      const text = attr(el, "aria-valuetext");
      if (text !== null) return text;
      return attr(el, "aria-valuenow");
    }
    if (role === "textbox" || role === "searchbox") return norm(el.textContent || "");
    return null;
  }

  function isDisabled(el) {
    if (FORM_CONTROL_TAGS.has(el.tagName) || el.tagName === "BUTTON" || el.tagName === "FIELDSET" || el.tagName === "OPTGROUP" || el.tagName === "OPTION") {
      if (el.matches(":disabled")) return true;
    }
    for (let e = el; e; e = flatParent(e)) if (attr(e, "aria-disabled") === "true") return true;
    return false;
  }

  function isInvalid(el) {
    const aria = attr(el, "aria-invalid");
    if (aria !== null && aria !== "" && aria.toLowerCase() !== "false") return true;
    if (el.willValidate && el.validity && !el.validity.valid) {
      const v = el.validity;
      const onlyMissing = v.valueMissing && !(v.typeMismatch || v.patternMismatch || v.tooLong || v.tooShort
        || v.rangeUnderflow || v.rangeOverflow || v.stepMismatch || v.badInput || v.customError);
      if (!onlyMissing || el.tagName === "SELECT") return true;
      try { if (el.matches(":user-invalid")) return true; } catch (e) { /* older engines */ }
    }
    return false;
  }

  let activeElement = null;

  function statesOf(el, role, shownRole) {
    const states = [];
    const tag = el.tagName;
    const type = tag === "INPUT" ? (attr(el, "type") || "").toLowerCase() : "";
    const checkable = role === "checkbox" || role === "radio" || role === "switch" || role === "menuitemcheckbox" || role === "menuitemradio";
    if (checkable) {
      if (tag === "INPUT" && (type === "checkbox" || type === "radio")) {
        if (type === "checkbox" && el.indeterminate) states.push("mixed");
        else if (el.checked) states.push("checked");
      } else {
        const ac = attr(el, "aria-checked");
        if (ac === "true") states.push("checked");
        else if (ac === "mixed") states.push("mixed");
      }
    }
    if (attr(el, "aria-pressed") === "true") states.push("pressed");
    if (attr(el, "aria-selected") === "true" && (role === "option" || role === "tab" || role === "treeitem" || role === "gridcell" || role === "row" || role === "cell" || role === "columnheader" || role === "rowheader")) states.push("selected");
    else if (tag === "OPTION" && el.selected) states.push("selected");
    if (attr(el, "aria-expanded") === "true" || (role === "DisclosureTriangle" && el.parentElement && el.parentElement.open)) states.push("expanded");
    if (isDisabled(el)) states.push("disabled");
    if (((tag === "INPUT" && !["checkbox", "radio", "button", "submit", "reset", "image", "file", "range", "color"].includes(type)) || tag === "TEXTAREA") && el.readOnly) states.push("readonly");
    else if (attr(el, "aria-readonly") === "true") states.push("readonly");
    if ((FORM_CONTROL_TAGS.has(tag) && el.required) || attr(el, "aria-required") === "true") states.push("required");
    const invalid = isInvalid(el) || classesOf(el).includes("is-invalid");
    if (invalid && shownRole !== "alert" && shownRole !== "error") states.push("invalid");
    if (el === activeElement && el !== document.body && el !== document.documentElement) states.push("focused");
    return states;
  }

  function headingLevel(el) {
    const level = parseInt(attr(el, "aria-level") || "", 10);
    if (level > 0) return level;
    const m = /^h([1-6])$/.exec(el.localName);
    return m ? parseInt(m[1], 10) : 2;
  }

  // -- text of subtrees (row cells, alert messages, clickable labels) ---------------------------
  function gatherText(el, limit) {
    const parts = [];
    let size = 0;
    let interactive = false;
    let visited = 0;
    const walk = (node) => {
      for (const child of flatChildren(node)) {
        if (size > limit || visited >= 400) return;
        visited++;
        if (child.nodeType === 3) {
          if (style(node).visibility === "visible" || node === el) {
            const t = transformText(child.data, style(node).textTransform);
            parts.push(t);
            size += t.length;
          }
          continue;
        }
        if (child.nodeType !== 1 || hiddenSelf(child)) continue;
        const role = roleOf(child);
        if (INTERACTIVE.has(role) || FORM_CONTROL_TAGS.has(child.tagName)) interactive = true;
        if (child.tagName === "INPUT" || child.tagName === "TEXTAREA") {
          const v = valueOf(child, role, true);
          if (v) { parts.push(v); size += v.length; }
          continue;
        }
        if (child.tagName === "SELECT") continue;
        walk(child);
      }
    };
    walk(el);
    return [norm(parts.join("")).slice(0, limit), interactive];
  }

  function cellsOf(row) {
    const out = [];
    const visit = (node) => {
      for (const child of flatChildren(node)) {
        if (child.nodeType !== 1 || hiddenSelf(child)) continue;
        const role = roleOf(child);
        if (CELL_ROLES.has(role) || role === "LayoutTableCell") out.push(child);
        else if (role === "generic" || role === "none") visit(child);
        else out.push(child);
      }
    };
    visit(row);
    return out;
  }

  function rowText(row) {
    const cells = [];
    for (const cell of cellsOf(row)) {
      const [text] = gatherText(cell, 80);
      if (CELL_ROLES.has(roleOf(cell)) || text) cells.push(text);
    }
    return cells.join(" | ").replace(/[ |]+$/, "");
  }

  function selectOptions(select, maxOptions) {
    const options = [];
    let total = 0;
    let value = null;
    for (const opt of select.options) {
      total++;
      const label = optionLabel(opt);
      const optValue = opt.hasAttribute("value") ? attr(opt, "value") : label;
      const selected = opt.selected;
      if (selected && value === null) value = optValue;
      if (options.length < maxOptions) options.push({ value: optValue, label, selected });
    }
    return [options, total, value];
  }

  function clickableSignal(el, parentCursor) {
    if (el.hasAttribute("onclick") || el.hasAttribute("onmousedown") || el.hasAttribute("onmouseup")) return true;
    return style(el).cursor === "pointer" && parentCursor !== "pointer";
  }

  // -- the walk ---------------------------------------------------------------------------------
  /**
   * Items in document order: element lines, and raw text pieces that pass 2 merges per block.
   * Element line: {d, r, n, k?, v?, s?, l?, h?, o?, ot?, i?, ax?}; frame owner: {d, r: "frame", k};
   * text piece: {d, r: "text", n, b (block id), lab (inside a <label>)}.
   */
  function collect(start, opts) {
    const items = [];
    const controlNames = new Set();
    let blockIds = 0;

    const emitText = (text, ctx) => {
      if (ctx.dropText) return;
      const n = lowerNorm(text);
      if (!n) {
        // a space between inline runs ("<b>a</b> <i>b</i>") still separates their words
        if (text && items.length && items[items.length - 1].r === "text" && items[items.length - 1].b === ctx.block) {
          items[items.length - 1].n += " ";
        }
        return;
      }
      if (ctx.consumed && ctx.consumed.includes(n)) return;
      if (opts.interactiveOnly) return;
      items.push({ d: ctx.depth, r: "text", n: text, b: ctx.block, lab: ctx.inLabel });
    };

    const walkChildren = (node, ctx) => {
      for (const child of flatChildren(node)) {
        if (child.nodeType === 3) {
          if (ctx.visible) {
            const holder = child.parentElement;
            if (holder && !ctx.dropText && isErrorContainer(holder) && lowerNorm(child.data) && !(ctx.consumed && ctx.consumed.includes(lowerNorm(child.data)))) {
              // <label class="error">, <strong class="error">: the message, acted on through its element
              const line = { d: ctx.depth, r: "error", n: norm(child.data), k: keyOf(holder) };
              if (opts.debug) line.ax = [roleOf(holder), accName(holder, roleOf(holder))];
              items.push(line);
              continue;
            }
            emitText(transformText(child.data, ctx.transform), ctx);
          }
          continue;
        }
        if (child.nodeType === 1) walkElement(child, ctx);
      }
    };

    const walkElement = (el, ctx) => {
      if (hiddenSelf(el)) return;
      const tag = el.tagName;
      const cs = style(el);
      const visible = cs.visibility === "visible";
      let role = visible ? roleOf(el) : "none";
      let block = ctx.block;
      if (!INLINE_DISPLAYS.has(cs.display)) block = ++blockIds;
      const base = {
        depth: ctx.depth, consumed: ctx.consumed, dropText: ctx.dropText, inLabel: ctx.inLabel,
        block, visible, transform: cs.textTransform, cursor: cs.cursor,
      };
      if (tag === "IFRAME" || tag === "FRAME") {
        if (visible) items.push({ d: ctx.depth, r: "frame", k: keyOf(el) });
        return;
      }
      if (tag === "DETAILS" && !el.open) {
        const summary = el.querySelector(":scope > summary");
        if (summary) walkElement(summary, base);
        return;
      }
      if (!visible) {
        walkChildren(el, base);
        return;
      }
      const errorBox = isErrorContainer(el) && ERROR_BOX_ROLES.has(role) && gatherText(el, MAX_GATHERED_TEXT)[0] !== "";
      let shownRole = role;
      let name = null;
      if (errorBox) shownRole = classesOf(el).includes("alert") ? "alert" : "error";
      let clickable = false;
      let accnameOverride = null;
      if (CLICKABLE_ROLES.has(role) && !errorBox && clickableSignal(el, ctx.cursor)) {
        const [text, inner] = gatherText(el, MAX_CLICKABLE_TEXT + 1);
        if (text && text.length <= MAX_CLICKABLE_TEXT && !inner) {
          clickable = true;
          shownRole = "clickable";
          name = accName(el, role);
          accnameOverride = name;
          name = name || text;
        }
      }
      const formControl = FORM_CONTROL_TAGS.has(tag);
      if (INTERNAL_NAMES[role]) shownRole = INTERNAL_NAMES[role];
      const interactive = INTERACTIVE.has(shownRole) || formControl;
      const always = ALWAYS.has(shownRole) || errorBox;
      const isRow = role === "row";
      if (role === "LabelText") {
        walkChildren(el, { ...base, inLabel: true });
        return;
      }
      let emit = interactive || always || isRow && !opts.interactiveOnly;
      if (!emit && NAMED.has(shownRole)) {
        name = accName(el, role);
        emit = name.trim() !== "";
      }
      if (opts.interactiveOnly && !(interactive || always)) emit = false;
      if (!emit) {
        walkChildren(el, base);
        return;
      }
      if (name === null) name = accName(el, role);
      const accname = accnameOverride !== null ? accnameOverride : name;
      let dropText = ctx.dropText;
      if (TEXT_AS_NAME.has(shownRole) || clickable) {
        if (!name.trim()) name = gatherText(el, MAX_GATHERED_TEXT)[0];
        dropText = true;
      }
      if (isRow) {
        name = rowText(el);
        dropText = true;
      }
      if ((shownRole === "status" || shownRole === "log" || shownRole === "tooltip" || shownRole === "marquee") && !name.trim()) {
        walkChildren(el, base);
        return;
      }
      name = name.trim();
      const line = { d: ctx.depth, r: shownRole, n: name, k: keyOf(el) };
      if (interactive) {
        line.i = 1;
        controlNames.add(lowerNorm(accname));
      }
      if (opts.debug) line.ax = [role, norm(accname)];
      const states = statesOf(el, role, shownRole);
      if (states.length) line.s = states;
      if (role === "heading") line.l = headingLevel(el);
      if (opts.includeUrls && role === "link" && el.href) line.h = el.href;
      let descend = !LEAF.has(role) && !formControl;
      if (VALUE_ROLES.has(role) || formControl) {
        const value = valueOf(el, role, formControl);
        if (value !== null || VALUE_ROLES.has(role)) line.v = value === null ? "" : String(value);
      }
      if ((role === "combobox" || role === "listbox") && tag === "SELECT") {
        const [options, total, value] = selectOptions(el, opts.maxOptions);
        line.o = options;
        line.ot = total;
        if (role === "combobox") line.v = value || "";
        descend = false;
      }
      items.push(line);
      if (descend) {
        walkChildren(el, {
          depth: ctx.depth + 1, consumed: lowerNorm(name) || null, dropText, inLabel: false,
          block: block === ctx.block ? ++blockIds : block, visible: true, transform: cs.textTransform, cursor: cs.cursor,
        });
      }
    };

    const root = { depth: 0, consumed: null, dropText: false, inLabel: false, block: 0, visible: true, transform: "none", cursor: "auto" };
    if (start === document.documentElement || start === document.body) walkChildren(document.body || document.documentElement, root);
    else walkElement(start, root);

    // pass 2: label texts that repeat a control's name go; adjacent texts of one block merge
    const lines = [];
    let lastBlock = null;
    for (const item of items) {
      if (item.r === "text") {
        if (item.lab && controlNames.has(lowerNorm(item.n))) continue;
        const last = lines[lines.length - 1];
        if (last && last.r === "text" && lastBlock === item.b) {
          last.n += item.n;
          continue;
        }
        lines.push({ d: item.d, r: "text", n: item.n });
        lastBlock = item.b;
        continue;
      }
      lines.push(item);
      lastBlock = null;
    }
    return lines;
  }

  function essential(line) {
    return line.r === "alert" || line.r === "alertdialog" || line.r === "error" || (line.s && line.s.includes("invalid"));
  }

  /**
   * Snapshot of this frame's document. opts: {selector, interactiveOnly, includeUrls, maxOptions,
   * maxLines (cap on non-essential lines, applied here so the answer stays small), debug}.
   */
  function snapshot(opts) {
    styleCache.clear();
    tableKind.clear();
    activeElement = document.activeElement;
    while (activeElement && activeElement.shadowRoot && activeElement.shadowRoot.activeElement) {
      activeElement = activeElement.shadowRoot.activeElement;
    }
    let start = document.documentElement;
    if (opts.selector) {
      let found;
      try {
        found = document.querySelector(opts.selector);
      } catch (e) {
        return JSON.stringify({ error: "invalid-selector" });
      }
      if (!found) return JSON.stringify({ error: "no-match" });
      if (hiddenDeep(found)) return JSON.stringify({ error: "hidden" });
      start = found;
    }
    let lines = collect(start, opts);
    let omitted = 0;
    if (opts.maxLines != null) {
      const kept = [];
      let count = 0;
      for (const line of lines) {
        if (count >= opts.maxLines && !essential(line) && line.r !== "frame") {
          omitted++;
          continue;
        }
        kept.push(line);
        if (line.r !== "frame") count++;
      }
      lines = kept;
    }
    styleCache.clear();
    tableKind.clear();
    return JSON.stringify({ title: document.title, url: location.href, lines, omitted, gone: goneKeys() });
  }

  /** The key of the frame owner element ``el`` (an <iframe>), for stitching frames together. */
  function ownerKey(el) {
    return keyOf(el);
  }

  globalThis.__mcpSnapshot = { snapshot, byKey, ownerKey, version: 1 };
  return true;
})()
