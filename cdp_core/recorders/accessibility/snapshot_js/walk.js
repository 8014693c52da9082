// The walk: which elements and texts become lines, the per-frame entry point, the frame owner keys.

/**
 * Items in document order: element lines, and raw text pieces that pass 2 merges per block.
 * Element line: {d, r, n, k?, v?, s?, l?, h?, o?, ot?, i?, ax?}; frame owner: {d, r: "frame", k};
 * text piece: {d, r: "text", n, b (block id), lab (inside a <label>)}.
 */
/** Where the walk is: what an element's children inherit (one shape for every element, for V8). */
class Ctx {
  constructor(depth, consumed, dropText, inLabel, block, visible, cs, inMessage) {
    this.depth = depth;
    this.consumed = consumed; // normalised name of the nearest line: its text children are redundant
    this.dropText = dropText;
    this.inLabel = inLabel;
    this.block = block; // text runs merge within one block
    this.visible = visible;
    this.cs = cs; // computed style of the parent element (null at the root)
    this.inMessage = inMessage; // inside an alertdialog: its texts are shown whole
  }
}

function collect(start, opts) {
  const items = [];
  const controlNames = new Set();
  let blockIds = 0;

  const walkText = (child, ctx) => {
    if (!ctx.visible || ctx.dropText) return;
    const text = ctx.cs ? transformText(child.data, ctx.cs.textTransform) : child.data;
    const n = lowerNorm(text);
    if (!n) {
      // a space between inline runs ("<b>a</b> <i>b</i>") still separates their words
      const last = items[items.length - 1];
      if (text && last && last.r === "text" && last.b === ctx.block) last.n += " ";
      return;
    }
    if (ctx.consumed && ctx.consumed.includes(n)) return;
    const holder = child.parentElement;
    if (holder && isErrorContainer(holder)) {
      // <label class="error">, <strong class="error">: the message, acted on through its element
      const line = { d: ctx.depth, r: "error", n: norm(text), k: keyOf(holder) };
      if (opts.debug) line.ax = [roleOf(holder), accName(holder, roleOf(holder))];
      items.push(line);
      return;
    }
    if (opts.interactiveOnly) return;
    items.push({ d: ctx.depth, r: "text", n: text, b: ctx.block, lab: ctx.inLabel, w: ctx.inMessage });
  };

  const walkChildren = (node, ctx) => {
    eachFlatChild(node, (child) => {
      const type = child.nodeType;
      if (type === 1) walkElement(child, ctx);
      else if (type === 3) walkText(child, ctx);
    });
  };

  const walkElement = (el, ctx) => {
    if (hiddenSelf(el)) return;
    const tag = el.tagName;
    const cs = style(el);
    const visible = cs.visibility === "visible";
    const block = INLINE_DISPLAYS.has(cs.display) ? ctx.block : ++blockIds;
    if (tag === "IFRAME" || tag === "FRAME") {
      if (visible) items.push({ d: ctx.depth, r: "frame", k: keyOf(el) });
      return;
    }
    const base = new Ctx(ctx.depth, ctx.consumed, ctx.dropText, ctx.inLabel, block, visible, cs, ctx.inMessage);
    if (tag === "DETAILS" && !el.open) {
      const summary = el.querySelector(":scope > summary");
      if (summary) walkElement(summary, base);
      return;
    }
    if (!visible) {
      walkChildren(el, base);
      return;
    }
    const role = roleOf(el);
    const errorBox = ERROR_BOX_ROLES.has(role) && isErrorContainer(el) && gatherText(el, MAX_GATHERED_TEXT)[0] !== "";
    // a toast, a flash notice or a live region without a role: a message line, like an error box
    let kind = errorBox ? null : messageKind(el, role);
    if (kind === "live" && holdsMessages(el)) kind = null;
    if (kind !== null && gatherText(el, MAX_GATHERED_TEXT)[0] === "") kind = null;
    const messageBox = kind !== null;
    let shownRole = errorBox ? (classesOf(el).includes("alert") ? "alert" : "error") : messageBox ? (kind === "live" ? "status" : kind) : role;
    let name = null;
    let clickable = false;
    let accnameOverride = null;
    if (!errorBox && !messageBox && CLICKABLE_ROLES.has(role) && clickableSignal(el, cs, ctx.cs)) {
      const [text, inner] = gatherText(el, MAX_CLICKABLE_TEXT + 1);
      if (text && text.length <= MAX_CLICKABLE_TEXT && !inner) {
        clickable = true;
        shownRole = "clickable";
        name = accName(el, role);
        accnameOverride = name;
        name = name || text;
      }
    }
    if (role === "LabelText") {
      base.inLabel = true;
      walkChildren(el, base);
      return;
    }
    const formControl = FORM_CONTROL_TAGS.has(tag);
    if (INTERNAL_NAMES[role]) shownRole = INTERNAL_NAMES[role];
    const interactive = INTERACTIVE.has(shownRole) || formControl;
    const always = ALWAYS.has(shownRole) || errorBox || messageBox;
    const isRow = role === "row";
    // a row is its controls' context (which order an "Edit" edits): kept with interactiveOnly when
    // it holds one (dropRowsWithoutControls)
    let emit = interactive || always || isRow;
    if (!emit && NAMED.has(shownRole)) {
      name = accName(el, role);
      emit = name.trim() !== "";
    }
    if (opts.interactiveOnly && !(interactive || always || isRow)) emit = false;
    if (!emit) {
      walkChildren(el, base);
      return;
    }
    if (name === null) name = accName(el, role);
    const accname = accnameOverride !== null ? accnameOverride : name;
    let dropText = ctx.dropText;
    if (TEXT_AS_NAME.has(shownRole) || clickable) {
      if (!name.trim()) name = gatherText(el, MESSAGE_ROLES.has(shownRole) ? MAX_MESSAGE_TEXT : MAX_GATHERED_TEXT)[0];
      dropText = true;
    }
    if (isRow) {
      name = rowText(el);
      dropText = true;
    }
    // an empty live region or alert (a placeholder the page fills later) says nothing: no line
    if ((shownRole === "status" || shownRole === "log" || shownRole === "tooltip" || shownRole === "marquee" || shownRole === "alert") && !name.trim()) {
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
      // the field's name (or id): Python masks the value of token-looking fields (is_secret_field),
      // and shows it for a control without an accessible name (a legacy table form's bare inputs)
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") {
        const field = attr(el, "name") || el.id;
        if (field) line.f = field;
      }
      if (states.includes("invalid")) {
        const said = fieldError(el);
        if (said) line.e = said;
      }
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
      const inner = block === ctx.block ? ++blockIds : block;
      const inMessage = ctx.inMessage || shownRole === "alertdialog";
      walkChildren(el, new Ctx(ctx.depth + 1, lowerNorm(name) || null, dropText, false, inner, true, cs, inMessage));
    }
  };

  const root = new Ctx(0, null, false, false, 0, true, null, false);
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
      const merged = { d: item.d, r: "text", n: item.n };
      if (item.w) merged.w = 1;
      lines.push(merged);
      lastBlock = item.b;
      continue;
    }
    lines.push(item);
    lastBlock = null;
  }
  return lines;
}

/**
 * With interactiveOnly, the rows that hold no control (nor an iframe) go; what was inside one
 * moves up a level. Mirrored by build.drop_rows_without_controls for the AX source.
 */
function dropRowsWithoutControls(lines) {
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.r !== "row") {
      out.push(line);
      continue;
    }
    let end = i + 1;
    let holds = false;
    for (; end < lines.length && lines[end].d > line.d; end++) {
      if (lines[end].i || lines[end].r === "frame") holds = true;
    }
    if (holds) out.push(line);
    else for (let j = i + 1; j < end; j++) lines[j].d -= 1;
  }
  return out;
}

function essential(line) {
  return line.r === "alert" || line.r === "alertdialog" || line.r === "error" || line.r === "toast" || line.r === "notice" || (line.s && line.s.includes("invalid"));
}

/**
 * messagesOnly: what the page tells the person now, and nothing else (the frames stay, to be
 * stitched): message lines with text that the person can see, invalid fields. An alertdialog
 * says its text too.
 */
function onScreen(lines) {
  const out = [];
  for (const line of lines) {
    if (line.r === "frame") {
      out.push(line);
      continue;
    }
    const invalid = line.s && line.s.includes("invalid");
    if (!(MESSAGE_ROLES.has(line.r) && line.n) && !invalid) continue;
    const el = line.k ? byKey(line.k) : null;
    if (!el || faint(el)) continue;
    if (line.r === "alertdialog") {
      const text = gatherText(el, MAX_MESSAGE_TEXT)[0];
      if (text && !lowerNorm(text).startsWith(lowerNorm(line.n))) line.n = line.n ? line.n + ": " + text : text;
      else if (text) line.n = text;
    }
    line.d = 0;
    out.push(line);
  }
  return out;
}

/**
 * Snapshot of this frame's document. opts: {selector, interactiveOnly, includeUrls, maxOptions,
 * maxLines (cap on non-essential lines, applied here so the answer stays small), debug}.
 */
function snapshot(opts) {
  styleCache.clear();
  tableKind.clear();
  pseudoInDocument = sheetsMayGiveContent(document.styleSheets) || sheetsMayGiveContent(document.adoptedStyleSheets || []);
  ariaDisabledInDocument = !!document.querySelector("[aria-disabled=true]");
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
  if (opts.interactiveOnly) lines = dropRowsWithoutControls(lines);
  if (opts.messagesOnly) lines = onScreen(lines);
  let omitted = 0;
  if (opts.maxLines != null && !opts.messagesOnly) {
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
  for (const line of lines) boundFields(line);
  return JSON.stringify({
    title: bounded(document.title),
    url: bounded(location.href),
    lines,
    omitted,
    gone: goneKeys(),
  });
}

// Longest string a line field carries out of the page. The server shows at most a few hundred
// characters of any of them; without this bound a 60 MB text node (or aria-label, or URL) came
// out whole and the server held several copies of it (issue 16: memory bounds of big reads).
const MAX_FIELD_CHARS = 2000;

function bounded(s) {
  return typeof s === "string" && s.length > MAX_FIELD_CHARS ? s.slice(0, MAX_FIELD_CHARS) + "\u2026" : s;
}

function boundFields(obj) {
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (typeof value === "string") obj[key] = bounded(value);
    else if (Array.isArray(value)) {
      for (const item of value) if (item && typeof item === "object") boundFields(item);
    }
  }
}

/** The key of the frame owner element ``el`` (an <iframe>), for stitching frames together. */
function ownerKey(el) {
  return keyOf(el);
}

globalThis.__mcpSnapshot = { snapshot, byKey, ownerKey, version: 1 };
