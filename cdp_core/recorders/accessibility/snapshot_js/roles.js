// Roles: HTML-AAM / WAI-ARIA as Chrome maps them, with its own role names and its layout-table heuristic.

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
