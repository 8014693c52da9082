"""Generate ``cdp_core/protocol/`` (typed CDP) from a pinned copy of Chrome's protocol description.

Chrome serves the description of the protocol it speaks at ``/json/protocol``. The copy we
generate from is checked in (``scripts/cdp_protocol.json``, with the browser build it came
from), so the generated code is reproducible and a protocol upgrade shows as a diff:

    .venv/bin/python scripts/gen_cdp_protocol.py            # regenerate from the pinned copy
    .venv/bin/python scripts/gen_cdp_protocol.py --fetch    # pin the installed Chromium's protocol, then regenerate
    .venv/bin/python scripts/gen_cdp_protocol.py --check    # exit 1 if the checked-in code is stale

One module per domain, with TypedDicts for the domain's object types, for each command's
parameters and result and for each event's parameters, plus a ``Domain`` class whose async
methods send the commands (``**params: Unpack[...Params]``) and whose class attributes name
the events (``EventName[...Event]``). Field names stay camelCase, exactly as on the wire: the
typed path returns the same dicts as ``CDPSession.send``. Experimental fields the protocol marks
required in what the browser sends are optional here, since builds differ.
"""

from __future__ import annotations

import argparse
import json
import keyword
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PINNED = ROOT / "scripts" / "cdp_protocol.json"
OUT = ROOT / "cdp_core" / "protocol"
WIDTH = 120
DOC_WIDTH = 100
GENERATED_BY = "scripts/gen_cdp_protocol.py"

#: Names the generated modules import; a protocol type with one of these names would shadow it.
IMPORTED = {
    "Any",
    "ClassVar",
    "Literal",
    "NotRequired",
    "TypeAlias",
    "TypedDict",
    "Unpack",
    "cast",
    "EventName",
    "DomainClient",
}


# -- names --------------------------------------------------------------------------------


def module_name(domain: str) -> str:
    """``DOMDebugger`` -> ``dom_debugger``, ``IndexedDB`` -> ``indexed_db``, ``CSS`` -> ``css``."""
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", domain)
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return name.lower()


def domain_class(domain: str) -> str:
    """The class of a domain's commands: ``Runtime`` -> ``RuntimeDomain`` (``Animation`` is also a type)."""
    return f"{domain}Domain"


def upper_first(name: str) -> str:
    return name[:1].upper() + name[1:]


# -- text -----------------------------------------------------------------------------------


def clean(text: str | None) -> str:
    """A description as plain text: no HTML tags or markdown links, single spaces."""
    if not text:
        return ""
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)
    text = text.replace("\\", "\\\\").replace('"""', "'''")
    return " ".join(text.split())


def flags(item: dict[str, Any]) -> str:
    marks = [m for m in ("deprecated", "experimental") if item.get(m)]
    return " ".join(f"{m.capitalize()}." for m in marks)


def docstring(lines: list[str], indent: str, args: list[tuple[str, str]] | None = None) -> list[str]:
    """A triple-quoted docstring at ``indent``, wrapped; ``args`` become an ``Args:`` list."""
    paragraphs = [p for p in lines if p]
    if not paragraphs and not args:
        return []
    width = DOC_WIDTH - len(indent)
    body: list[str] = []
    for paragraph in paragraphs:
        if body:
            body.append("")
        body.extend(textwrap.wrap(paragraph, width, break_on_hyphens=False, break_long_words=True) or [""])
    if args:
        if body:
            body.append("")
        body.append("Args:")
        for name, text in args:
            body.extend(
                textwrap.wrap(
                    f"{name}: {text}",
                    width,
                    initial_indent="    ",
                    subsequent_indent="        ",
                    break_on_hyphens=False,
                    break_long_words=True,
                )
            )
    if len(body) == 1 and len(indent) + len(body[0]) + 6 <= WIDTH:
        return [f'{indent}"""{body[0]}"""']
    out = [f'{indent}"""{body[0]}']
    out += [f"{indent}{line}" if line else "" for line in body[1:]]
    out.append(f'{indent}"""')
    return out


def comment(text: str, indent: str) -> list[str]:
    if not text:
        return []
    width = DOC_WIDTH - len(indent) - 3
    return [f"{indent}#: {line}" for line in textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=True)]


# -- types ----------------------------------------------------------------------------------


class DomainWriter:
    """Turns one domain of the description into the source of its module."""

    def __init__(self, domain: dict[str, Any], all_types: dict[str, dict[str, dict[str, Any]]], source: str) -> None:
        self.domain = domain
        self.name: str = domain["domain"]
        self.module = module_name(self.name)
        self.class_name = domain_class(self.name)
        self.all_types = all_types
        self.source = source
        self.referenced: set[str] = set()  # other domains whose types we name
        self.local_types = {t["id"] for t in domain.get("types", [])}
        self.names: set[str] = set()
        self.typing: set[str] = set()  # names the module imports from typing

    def claim(self, name: str) -> str:
        if name in self.names or name in IMPORTED:
            raise SystemExit(f"{self.name}: generated name {name!r} is used twice")
        self.names.add(name)
        return name

    def ref(self, ref: str) -> str:
        """A ``$ref`` (``NodeId`` or ``DOM.NodeId``) as a Python type expression."""
        if "." in ref:
            domain, type_id = ref.split(".", 1)
            if domain != self.name:
                if type_id not in self.all_types.get(domain, {}):
                    raise SystemExit(f"{self.name}: unknown type {ref}")
                self.referenced.add(domain)
                return f"_{module_name(domain)}.{type_id}"
            ref = type_id
        if ref not in self.local_types:
            raise SystemExit(f"{self.name}: unknown type {ref}")
        return ref

    def type_of(self, spec: dict[str, Any]) -> str:
        """The Python type of a property, parameter or array item."""
        if "$ref" in spec:
            return self.ref(spec["$ref"])
        kind = spec.get("type")
        if "enum" in spec:
            self.typing.add("Literal")
            return "Literal[" + ", ".join(json.dumps(v) for v in spec["enum"]) + "]"
        if kind in ("string", "binary"):  # binary: base64 text
            return "str"
        if kind == "integer":
            return "int"
        if kind == "number":
            return "float"
        if kind == "boolean":
            return "bool"
        if kind == "any":
            self.typing.add("Any")
            return "Any"
        if kind == "object":
            self.typing.add("Any")
            return "dict[str, Any]"
        if kind == "array":
            return f"list[{self.type_of(spec['items'])}]"
        raise SystemExit(f"{self.name}: cannot type {spec!r}")

    # -- emitting ---------------------------------------------------------------------------

    def field_lines(self, fields: list[dict[str, Any]], *, incoming: bool) -> list[str]:
        """TypedDict body lines; ``incoming`` (sent by the browser) relaxes experimental required fields."""
        lines: list[str] = []
        for field in fields:
            note = " ".join(x for x in (flags(field), clean(field.get("description"))) if x)
            lines += comment(note, "    ")
            annotation = self.type_of(field)
            optional = field.get("optional") or (incoming and field.get("experimental"))
            if optional:
                self.typing.add("NotRequired")
                annotation = f"NotRequired[{annotation}]"
            lines += wrap_annotation(f"    {field['name']}: ", annotation)
        return lines or ["    pass"]

    def typed_dict(self, name: str, doc: list[str], fields: list[dict[str, Any]], *, incoming: bool) -> list[str]:
        if any(keyword.iskeyword(f["name"]) or not f["name"].isidentifier() for f in fields):
            return self.functional_typed_dict(name, doc, fields, incoming=incoming)
        self.typing.add("TypedDict")
        out = [f"class {self.claim(name)}(TypedDict):"]
        out += docstring(doc, "    ")
        out += self.field_lines(fields, incoming=incoming)
        return out

    def functional_typed_dict(
        self, name: str, doc: list[str], fields: list[dict[str, Any]], *, incoming: bool
    ) -> list[str]:
        """``TypedDict("Name", {...})`` for keys that are Python keywords (``not``, ``or``)."""
        self.typing.add("TypedDict")
        out = comment(" ".join(doc), "")
        out.append(f"{self.claim(name)} = TypedDict(")
        out.append(f'    "{name}",')
        out.append("    {")
        for field in fields:
            annotation = self.type_of(field)
            if field.get("optional") or (incoming and field.get("experimental")):
                self.typing.add("NotRequired")
                annotation = f"NotRequired[{annotation}]"
            out.append(f'        "{field["name"]}": "{annotation}",')
        out.append("    },")
        out.append(")")
        return out

    def type_definition(self, spec: dict[str, Any]) -> list[str]:
        doc = [" ".join(x for x in (flags(spec), clean(spec.get("description"))) if x)]
        if spec.get("type") == "object" and spec.get("properties"):
            return self.typed_dict(spec["id"], doc, spec["properties"], incoming=True)
        annotation = self.type_of({k: v for k, v in spec.items() if k != "id"})
        out = comment(doc[0], "")
        if has_ref(spec):
            annotation = json.dumps(annotation)  # names a type defined later or in another module
        self.typing.add("TypeAlias")
        out += wrap_annotation(f"{self.claim(spec['id'])}: TypeAlias = ", annotation)
        return out

    def command(self, cmd: dict[str, Any]) -> tuple[list[str], list[str]]:
        """The TypedDicts of one command, and its method."""
        name = cmd["name"]
        method = f"{self.name}.{name}"
        defs: list[str] = []
        params = cmd.get("parameters", [])
        returns = cmd.get("returns", [])
        params_type = result_type = None
        if params:
            if any(p["name"] == "self" for p in params):
                raise SystemExit(f"{method}: a parameter named self")
            params_type = f"{upper_first(name)}Params"
            defs += self.typed_dict(params_type, [f"Parameters of ``{method}``."], params, incoming=False)
            defs += ["", ""]
        if returns:
            result_type = f"{upper_first(name)}Result"
            defs += self.typed_dict(result_type, [f"Result of ``{method}``."], returns, incoming=True)
            defs += ["", ""]
        signature = f"self, **params: Unpack[{params_type}]" if params_type else "self"
        if params_type:
            self.typing.add("Unpack")
        if result_type:
            self.typing.add("cast")
        returned = result_type or "None"
        body = [f"    async def {name}({signature}) -> {returned}:"]
        if len(body[0]) > WIDTH:
            body = [f"    async def {name}(", f"        {signature}", f"    ) -> {returned}:"]
        doc = [" ".join(x for x in (flags(cmd), clean(cmd.get("description"))) if x) or f"``{method}``."]
        args = [
            (
                p["name"] + (" (optional)" if p.get("optional") else ""),
                " ".join(x for x in (flags(p), clean(p.get("description"))) if x) or "-",
            )
            for p in params
        ]
        body += docstring(doc, "        ", args)
        send = f'self._send("{method}", params)' if params_type else f'self._send("{method}")'
        if result_type:
            line = f'        return cast("{result_type}", await {send})'
            if len(line) > WIDTH:
                line = f'        return cast(\n            "{result_type}",\n            await {send},\n        )'
            body.append(line)
        else:
            body.append(f"        await {send}")
        return defs, body

    def event(self, event: dict[str, Any]) -> tuple[list[str], list[str]]:
        name = event["name"]
        method = f"{self.name}.{name}"
        if keyword.iskeyword(name):
            raise SystemExit(f"{method}: an event named like a Python keyword")
        type_name = f"{upper_first(name)}Event"
        doc = [" ".join(x for x in (flags(event), clean(event.get("description"))) if x)]
        defs = self.typed_dict(
            type_name, [f"Parameters of the ``{method}`` event.", *doc], event.get("parameters", []), incoming=True
        )
        self.typing.add("ClassVar")
        attr = comment(doc[0], "    ")
        line = f'    {name}: ClassVar[EventName[{type_name}]] = EventName("{method}")'
        if len(line) > WIDTH:
            line = f'    {name}: ClassVar[EventName[{type_name}]] = EventName(\n        "{method}"\n    )'
        attr.append(line)
        return defs + ["", ""], attr

    def render(self) -> str:
        d = self.domain
        body: list[str] = []
        for spec in d.get("types", []):
            body += self.type_definition(spec) + ["", ""]
        methods: list[str] = []
        for cmd in d.get("commands", []):
            defs, method = self.command(cmd)
            body += defs
            methods += method + [""]
        attrs: list[str] = []
        for ev in d.get("events", []):
            defs, attr = self.event(ev)
            body += defs
            attrs += attr
        summary = clean(d.get("description")) or f"The {self.name} domain."
        body.append(f"class {self.claim(self.class_name)}(DomainClient):")
        body += docstring(
            [f"The ``{self.name}`` commands (async methods) and events (``EventName`` attributes).", summary], "    "
        )
        body.append("")
        if attrs:
            body += attrs + [""]
        body += methods
        while body and body[-1] == "":
            body.pop()
        code = "\n".join(body)

        used = [n for n in TYPING_NAMES if n in self.typing]
        if self.referenced:
            used = ["TYPE_CHECKING", *used]
        head = [
            f"The ``{self.name}`` domain of the Chrome DevTools Protocol: typed commands, events and types.",
            " ".join(x for x in (flags(d), summary) if x),
            f"Generated by {GENERATED_BY} from {self.source}; do not edit.",
        ]
        out = docstring(head, "")
        out += ["", "from __future__ import annotations", ""]
        out += wrap_import("from typing import ", used)
        out.append("")
        if "EventName[" in code:
            out.append("from ..events import EventName")
        out += ["from ..typed import DomainClient", ""]
        if self.referenced:
            out.append("if TYPE_CHECKING:")
            for other in sorted(self.referenced, key=module_name):
                out.append(f"    from . import {module_name(other)} as _{module_name(other)}")
            out.append("")
        out += wrap_list("__all__ = ", sorted(self.names))
        out += ["", ""]
        return "\n".join(out) + "\n" + code + "\n"


TYPING_NAMES = ("Any", "ClassVar", "Literal", "NotRequired", "TypeAlias", "TypedDict", "Unpack", "cast")


def wrap_import(prefix: str, names: list[str]) -> list[str]:
    line = prefix + ", ".join(names)
    if len(line) <= WIDTH:
        return [line]
    return [prefix + "(", *[f"    {n}," for n in names], ")"]


def has_ref(spec: dict[str, Any]) -> bool:
    return "$ref" in spec or ("items" in spec and has_ref(spec["items"]))


def wrap_annotation(prefix: str, annotation: str) -> list[str]:
    """``prefix + annotation``, breaking a long ``Literal[...]`` into one value per line."""
    line = prefix + annotation
    if len(line) <= WIDTH:
        return [line]
    at = annotation.find("Literal[")
    if at < 0 or annotation.startswith('"'):
        return [line + "  # noqa: E501"]
    values, end = literal_values(annotation, at + len("Literal["))
    indent = " " * (len(prefix) - len(prefix.lstrip()))
    out = [f"{prefix}{annotation[: at + len('Literal[')]}"]
    out += [f"{indent}    {json.dumps(v)}," for v in values]
    out.append(f"{indent}]{annotation[end + 1 :]}")
    return out


def literal_values(text: str, pos: int) -> tuple[list[str], int]:
    """The JSON strings of a ``Literal[...]`` starting at ``pos``, and the index of its ``]``."""
    decoder = json.JSONDecoder()
    values: list[str] = []
    while True:
        while text[pos] in ", ":
            pos += 1
        if text[pos] == "]":
            return values, pos
        value, pos = decoder.raw_decode(text, pos)
        values.append(value)


def wrap_list(prefix: str, names: list[str]) -> list[str]:
    out = [prefix + "["]
    out += [f'    "{n}",' for n in names]
    out.append("]")
    return out


# -- the package ----------------------------------------------------------------------------


def render_package(protocol: dict[str, Any]) -> dict[str, str]:
    """``{file name: source}`` for every module of ``cdp_core/protocol/``."""
    pinned = protocol.get("x-pinned-from", {})
    browser = pinned.get("Browser", "an unknown browser")
    version = protocol["version"]
    proto = f"{version['major']}.{version['minor']}"
    source = f"{browser} (protocol {proto})"
    domains = sorted(protocol["domains"], key=lambda d: d["domain"])
    all_types = {d["domain"]: {t["id"]: t for t in d.get("types", [])} for d in domains}
    files: dict[str, str] = {}
    for d in domains:
        files[f"{module_name(d['domain'])}.py"] = DomainWriter(d, all_types, source).render()
    files["__init__.py"] = render_init(domains, browser, proto)
    return files


def render_init(domains: list[dict[str, Any]], browser: str, proto: str) -> str:
    out = [
        '"""Typed access to every command and event of the Chrome DevTools Protocol.',
        "",
        "    cdp = page.cdp                                    # or CDP(session, timeout=...)",
        '    result = await cdp.Runtime.evaluate(expression="1+1", returnByValue=True)',
        '    result["result"].get("value")                     # EvaluateResult, RemoteObject: TypedDicts',
        "    async with page.events(cdp.Page.loadEventFired) as loads: ...",
        "",
        "Each domain is a module of its own (``cdp_core.protocol.runtime``...), imported the first time",
        "its attribute is used, so the server and scripts that never touch the typed path pay nothing for",
        "it. The dicts are the ones ``CDPSession.send`` returns, keys camelCase as on the wire; the types",
        "only tell a type checker (mypy, pyright) what is in them.",
        "",
        f"Generated by {GENERATED_BY} from {browser} (protocol {proto}); do not edit.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import TYPE_CHECKING",
        "",
        "from ..connection import DEFAULT_TIMEOUT",
        "",
        "if TYPE_CHECKING:",
        "    from ..connection import CDPSession",
    ]
    for mod in sorted(module_name(d["domain"]) for d in domains):
        out.append(f"    from . import {mod} as _{mod}")
    out += [
        "",
        '__all__ = ["BROWSER", "CDP", "DOMAINS", "PROTOCOL_VERSION"]',
        "",
        "#: The browser build whose ``/json/protocol`` these types were generated from.",
        f"BROWSER = {json.dumps(browser)}",
        f"PROTOCOL_VERSION = {json.dumps(proto)}",
    ]
    out.append("#: The domains, as the protocol names them (attributes of :class:`CDP`).")
    out += ["DOMAINS = (", *[f'    "{d["domain"]}",' for d in domains], ")"]
    out += [
        "",
        "",
        "class CDP:",
        '    """Every domain of the protocol, bound to one session: ``await CDP(page).Page.navigate(url=...)``.',
        "",
        "    ``timeout`` applies to every command sent through it (``None`` waits forever).",
        '    """',
        "",
        '    __slots__ = ("_session", "_timeout")',
        "",
        "    def __init__(self, session: CDPSession, *, timeout: float | None = DEFAULT_TIMEOUT) -> None:",
        "        self._session = session",
        "        self._timeout = timeout",
        "",
        "    def __repr__(self) -> str:",
        '        return f"<CDP {self._session!r}>"',
    ]
    for d in domains:
        mod = module_name(d["domain"])
        summary = clean(d.get("description")).split(". ")[0].rstrip(".") or f"The {d['domain']} domain"
        out += [
            "",
            "    @property",
            f"    def {d['domain']}(self) -> _{mod}.{domain_class(d['domain'])}:",
        ]
        out += docstring([f"{flags(d)} {summary}.".strip()], "        ")
        out += [
            f"        from .{mod} import {domain_class(d['domain'])}",
            "",
            f"        return {domain_class(d['domain'])}(self._session, self._timeout)",
        ]
    return "\n".join(out) + "\n"


def fetch_protocol() -> dict[str, Any]:
    """The installed Chromium's ``/json/protocol``, with the ``/json/version`` it came from."""
    import httpx

    sys.path.insert(0, str(ROOT))
    from cdp_core.chromium import ChromiumProcess

    with ChromiumProcess.start() as chrome:
        with httpx.Client(trust_env=False, timeout=30) as client:
            version = client.get(f"{chrome.cdp_url}/json/version").json()
            protocol: dict[str, Any] = client.get(f"{chrome.cdp_url}/json/protocol").json()
    keep = ("Browser", "Protocol-Version", "V8-Version", "WebKit-Version")
    return {"x-pinned-from": {k: version.get(k, "") for k in keep}, **protocol}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fetch", action="store_true", help="pin the installed Chromium's /json/protocol first")
    p.add_argument("--check", action="store_true", help="exit 1 if cdp_core/protocol/ differs from the pinned copy")
    ns = p.parse_args(argv)
    if ns.fetch:
        PINNED.write_text(json.dumps(fetch_protocol(), indent=1) + "\n", encoding="utf-8")
        print(f"pinned {PINNED.relative_to(ROOT)}")
    protocol = json.loads(PINNED.read_text(encoding="utf-8"))
    files = render_package(protocol)
    existing = {p.name for p in OUT.glob("*.py")} if OUT.exists() else set()
    if ns.check:
        stale = sorted(
            name
            for name in set(files) | existing
            if name not in files or name not in existing or (OUT / name).read_text(encoding="utf-8") != files[name]
        )
        if stale:
            print(f"cdp_core/protocol/ is stale ({', '.join(stale[:5])}...): run {GENERATED_BY}", file=sys.stderr)
            return 1
        return 0
    OUT.mkdir(exist_ok=True)
    for name in existing - set(files):
        (OUT / name).unlink()
    for name, text in files.items():
        (OUT / name).write_text(text, encoding="utf-8")
    lines = sum(text.count("\n") for text in files.values())
    print(f"wrote {len(files)} modules ({lines} lines) to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
