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
//
// The collector is four files evaluated as one script (collector.py joins them inside one
// function scope, in this order): dom.js (keys, tables, DOM helpers), roles.js, names.js (accessible
// names, values, states), walk.js (the walk, the lines, the entry points).

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

// -- role tables (build.py has the same sets for the accessibility-tree path) ----------
const INTERACTIVE = new Set([
  "button", "link", "textbox", "searchbox", "combobox", "listbox", "option", "checkbox", "radio",
  "switch", "slider", "spinbutton", "menuitem", "menuitemcheckbox", "menuitemradio", "tab",
  "treeitem", "clickable", "disclosure", "date", "datetime", "time",
]);
const ALWAYS = new Set(["heading", "alert", "alertdialog", "dialog", "status", "log", "tooltip", "marquee", "toast", "notice"]);
const NAMED = new Set([
  "navigation", "main", "banner", "contentinfo", "complementary", "region", "form", "search", "group",
  "radiogroup", "list", "table", "grid", "tree", "tablist", "tabpanel", "menu", "menubar", "toolbar",
  "figure", "img", "image", "article", "progressbar", "meter",
]);
const LEAF = new Set(["textbox", "searchbox", "spinbutton", "slider", "checkbox", "radio", "switch", "img", "image", "meter"]);
const TEXT_AS_NAME = new Set(["alert", "status", "log", "tooltip", "marquee", "error", "clickable", "toast", "notice"]);
const VALUE_ROLES = new Set(["textbox", "searchbox", "combobox", "spinbutton", "slider"]);
const FORM_CONTROL_TAGS = new Set(["INPUT", "TEXTAREA", "SELECT"]);
const INTERNAL_NAMES = { DisclosureTriangle: "disclosure", Date: "date", DateTime: "datetime", InputTime: "time" };
const CELL_ROLES = new Set(["cell", "gridcell", "columnheader", "rowheader"]);
const ERROR_BOX_ROLES = new Set(["generic", "none", "paragraph", "list", ""]);
const CLICKABLE_ROLES = new Set(["generic", "none", "paragraph", "listitem", "cell", "gridcell"]);
const ERROR_CLASS_EXACT = new Set(["alert", "invalid-feedback", "text-danger", "has-error"]);
const INLINE_DISPLAYS = new Set(["inline", "contents", ""]);
const MAX_GATHERED_TEXT = 240;
// What a message line (an alert, a status, a toast, an error) carries out of the page: its whole
// text, which the server shows up to a few hundred characters, saying how long it was.
const MAX_MESSAGE_TEXT = 2001;
// Lines that say what the page tells the person: shown whole, collected by messagesOnly.
const MESSAGE_ROLES = new Set(["alert", "alertdialog", "error", "status", "log", "toast", "notice"]);
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

function classString(el) {
  const c = el.className;
  return typeof c === "string" ? c : el.getAttribute("class") || "";
}

function classesOf(el) {
  const c = classString(el);
  return c ? c.split(/\s+/).filter(Boolean) : [];
}

const ERROR_HINT = /error|alert|invalid-feedback|text-danger|has-error/i;

function isErrorContainer(el) {
  const c = classString(el);
  if (!c || !ERROR_HINT.test(c)) return false;
  for (const cls of classesOf(el)) {
    const low = cls.toLowerCase();
    if (ERROR_CLASS_EXACT.has(low) || low.includes("error")) return true;
  }
  return false;
}

// -- messages on screen: toasts, flash notices, live regions ------------------------------
// Class names of the common toast and notice widgets (whole class tokens, case aside): Bootstrap
// .toast, toastr, Notyf, Noty, iziToast, jQuery toast, React-Toastify, Vuetify, Material, Element,
// Ant Design, Bulma .notification, GitHub/Rails .flash, WordPress .notice-error, Semantic UI's
// ".ui negative message". A token that merely contains the word ("toast-container",
// "cookie-notice", "flash-sale", "message-list") is not one: a container holds the messages.
const TOAST_CLASS = /^(toast|toastr|snackbar|notification|notyf__toast|noty_bar|izitoast|jq-toast-single|toastify__toast|v-snack__wrapper|mdc-snackbar__surface|mat-mdc-snack-bar-container|el-message|el-notification|ant-message-notice|ant-notification-notice|swal2-toast)$/;
const NOTICE_CLASS = /^(flash|flash[-_](messages?|error|alert|notice|success|warn|warning|info)|notice[-_](error|warning|success|info)|callout-danger|callout-warning)$/;
const MESSAGE_SEVERITY = new Set(["negative", "warning", "success", "positive", "info"]);

/**
 * "toast", "notice" or "live" (a generic aria-live region) for an element that shows the person
 * a message without an ARIA role saying so; null otherwise. Only generic boxes qualify: a link
 * or list item classed "notification" is a control or an entry of a list, not a message.
 */
function messageKind(el, role) {
  if (!ERROR_BOX_ROLES.has(role)) return null;
  const classes = classesOf(el);
  let message = false;
  let severity = false;
  for (const cls of classes) {
    const low = cls.toLowerCase();
    if (TOAST_CLASS.test(low)) return "toast";
    if (NOTICE_CLASS.test(low)) return "notice";
    if (low === "message") message = true;
    else if (MESSAGE_SEVERITY.has(low)) severity = true;
  }
  if (message && severity) return "notice";
  const live = el.hasAttributes() ? attr(el, "aria-live") : null;
  if (live === "polite" || live === "assertive") return "live";
  return null;
}

// An aria-live region that holds its messages (a toast container) is not one itself.
const MESSAGE_INSIDE = "[role=alert],[role=alertdialog],[role=status],[role=log],[aria-live],.toast,.snackbar,.notification,.alert,.flash,.notice";

function holdsMessages(el) {
  try {
    return !!el.querySelector(MESSAGE_INSIDE);
  } catch (e) {
    return false;
  }
}

/** Text of the elements named by an id-list attribute (aria-errormessage, aria-describedby) that are shown. */
function idsText(el, name) {
  const ids = attr(el, name);
  if (!ids) return "";
  const root = el.getRootNode();
  const parts = [];
  for (const id of ids.split(/\s+/)) {
    if (!id) continue;
    const target = root.getElementById ? root.getElementById(id) : document.getElementById(id);
    if (target && target !== el && !hiddenDeep(target)) parts.push(gatherText(target, MAX_MESSAGE_TEXT)[0]);
  }
  return norm(parts.join(" "));
}

/**
 * What an invalid field says is wrong: its aria-errormessage, the browser's own validation
 * message (setCustomValidity's text, "Please fill out this field."), or, for an aria-invalid
 * field, what describes it. Reading validationMessage fires no event.
 */
function fieldError(el) {
  const own = idsText(el, "aria-errormessage");
  if (own) return own;
  if (el.willValidate && el.validity && !el.validity.valid && el.validationMessage) return norm(el.validationMessage);
  const aria = attr(el, "aria-invalid");
  if (aria && aria.toLowerCase() !== "false") return idsText(el, "aria-describedby");
  return "";
}

/** Shown to screen readers only, or not at all: a 1-pixel box (".sr-only"), or fully transparent. */
function faint(el) {
  const rect = el.getBoundingClientRect();
  if (rect.width <= 1 || rect.height <= 1) return true;
  for (let e = el; e; e = flatParent(e)) if (style(e).opacity === "0") return true;
  return false;
}

/**
 * Calls fn(child) for each child in the flat tree (a shadow root replaces the light children,
 * a slot shows what is assigned to it); fn returning false stops. Sibling pointers, not
 * NodeList iterators: this is the hottest loop of the walk.
 */
function eachFlatChild(node, fn) {
  if (node.localName === "slot") {
    const assigned = node.assignedNodes();
    if (assigned.length) {
      for (let i = 0; i < assigned.length; i++) if (fn(assigned[i]) === false) return;
      return;
    }
  }
  for (let c = (node.shadowRoot || node).firstChild; c; c = c.nextSibling) if (fn(c) === false) return;
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
  if (el.hasAttributes()) {
    if (el.getAttribute("aria-hidden") === "true" || el.hasAttribute("inert")) return true;
    if (el.getAttribute("hidden") === "until-found") return true;
  }
  return style(el).display === "none";
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
