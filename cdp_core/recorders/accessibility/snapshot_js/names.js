// Accessible names (accname 1.2 as Chrome computes them), values, states and the text of subtrees.

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
  const pseudo = mayHavePseudoContent(el);
  const transform = style(el).textTransform;
  const only = el.firstChild;
  if (!pseudo && only && only.nodeType === 3 && !only.nextSibling && !el.shadowRoot && el.localName !== "slot") {
    return transformText(only.data, transform); // the common <a>text</a>
  }
  let out = pseudo ? pseudoText(el, "::before") : "";
  eachFlatChild(el, (child) => {
    if (child.nodeType === 3) {
      out += transformText(child.data, transform);
      return;
    }
    if (child.nodeType !== 1 || child === ctx.skip) return;
    if (child.tagName === "BR") {
      out += "\n";
      return;
    }
    if (!ctx.hidden && (hiddenSelf(child) || style(child).visibility !== "visible")) return;
    if (SKIP_TAGS.has(child.tagName)) return;
    const sub = { visited: ctx.visited, inLabelledBy: ctx.inLabelledBy, hidden: ctx.hidden, root: false, skip: ctx.skip };
    const text = nameOf(child, roleOf(child), sub);
    out += !INLINE_DISPLAYS.has(style(child).display) || REPLACED.has(child.tagName) ? " " + text + " " : text;
  });
  if (pseudo) out += pseudoText(el, "::after");
  return out;
}

const rootVisited = new Set();

function accName(el, role) {
  rootVisited.clear();
  return norm(nameOf(el, role, { visited: rootVisited, inLabelledBy: false, hidden: false, root: true }));
}

// CSS generated content (::before/::after) takes two style computations per element; when no
// stylesheet of the document can give it (all readable, none sets content there), skip them.
let pseudoInDocument = true;

function sheetsMayGiveContent(sheets) {
  for (const sheet of sheets) {
    let rules;
    try {
      rules = sheet.cssRules;
    } catch (e) {
      return true; // a cross-origin sheet cannot be read: assume it may
    }
    if (rulesMayGiveContent(rules)) return true;
  }
  return false;
}

function rulesMayGiveContent(rules) {
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i];
    if (rule.styleSheet && sheetsMayGiveContent([rule.styleSheet])) return true; // @import
    if (rule.cssRules && rule.cssRules.length && rulesMayGiveContent(rule.cssRules)) return true; // @media, nesting
    const sel = rule.selectorText;
    if (sel && /:(before|after)/i.test(sel) && rule.style) {
      const content = rule.style.getPropertyValue("content");
      if (content && content !== "none" && content !== "normal") return true;
    }
  }
  return false;
}

function mayHavePseudoContent(el) {
  if (pseudoInDocument || el.localName === "q") return true;
  return el.getRootNode() !== document; // shadow trees have stylesheets of their own
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

let ariaDisabledInDocument = true;
const DISABLEABLE = new Set(["INPUT", "SELECT", "TEXTAREA", "BUTTON", "FIELDSET", "OPTGROUP", "OPTION"]);

function isDisabled(el) {
  if (DISABLEABLE.has(el.tagName) && el.matches(":disabled")) return true;
  // aria-disabled on a container disables what is inside it (as Chrome reports it)
  if (ariaDisabledInDocument || el.getRootNode() !== document) {
    for (let e = el; e; e = flatParent(e)) if (e.getAttribute("aria-disabled") === "true") return true;
  }
  return false;
}

function isInvalid(el) {
  if (!el.hasAttributes() && !FORM_CONTROL_TAGS.has(el.tagName)) return false;
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
  if (attr(el, "draggable") === "true") states.push("draggable");
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
  let out = "";
  let interactive = false;
  let visited = 0;
  const walk = (node) => {
    const cs = style(node);
    const shown = cs.visibility === "visible" || node === el;
    eachFlatChild(node, (child) => {
      if (out.length > limit || visited >= 400) return false;
      visited++;
      if (child.nodeType === 3) {
        if (shown) out += transformText(child.data, cs.textTransform);
        return;
      }
      if (child.nodeType !== 1 || hiddenSelf(child)) return;
      const role = roleOf(child);
      if (INTERACTIVE.has(role) || FORM_CONTROL_TAGS.has(child.tagName)) interactive = true;
      if (child.tagName === "INPUT" || child.tagName === "TEXTAREA") {
        const v = valueOf(child, role, true);
        if (v) out += v;
        return;
      }
      // a block (a toast's header and body, a <br>) separates words, as it does on screen
      const block = !INLINE_DISPLAYS.has(style(child).display);
      if (block) out += " ";
      if (child.tagName !== "SELECT") walk(child);
      if (block) out += " ";
    });
  };
  walk(el);
  return [norm(out).slice(0, limit), interactive];
}

function cellsOf(row) {
  const out = [];
  const visit = (node) => {
    eachFlatChild(node, (child) => {
      if (child.nodeType !== 1 || hiddenSelf(child)) return;
      const role = roleOf(child);
      if (CELL_ROLES.has(role) || role === "LayoutTableCell") out.push(child);
      else if (role === "generic" || role === "none") visit(child);
      else out.push(child);
    });
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

/** A plain element that looks clickable: an inline handler, or a pointer cursor that starts here. */
function clickableSignal(el, cs, parentCs) {
  // onclick & co: legacy handlers; draggable / ondrop: a drag-and-drop card or lane, a drag's ends
  if (el.hasAttributes() && (el.hasAttribute("onclick") || el.hasAttribute("onmousedown") || el.hasAttribute("onmouseup") || el.hasAttribute("ondrop") || el.getAttribute("draggable") === "true")) return true;
  return cs.cursor === "pointer" && (!parentCs || parentCs.cursor !== "pointer");
}
