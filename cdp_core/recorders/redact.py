"""Redaction shared by every recorder output and every file we write.

Why one module: the rule "never print cookie values, Authorization, Set-Cookie, API keys, tokens
or typed passwords" must hold identically in listings, full entries, HAR files, debug bundles,
console messages and the audit log, so every writer goes through these few functions instead of
re-implementing them.

Bodies are redacted on their parsed structure where there is one: a JSON body is parsed and every
value under a secret-looking key is replaced whole, whatever its length or type (a number, an
object); an urlencoded form is split into its fields; a multipart body into its parts. Text that
does not parse (a preview cut short, a console line, a WebSocket frame) goes through patterns that
take a value whole, quotes, ``=`` and all, up to its end or the end of the text. Which field
names hold a credential is decided in :mod:`.secret_names` (re-exported here).
"""

from __future__ import annotations

import fnmatch
import json
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

from .secret_names import SECRET_PART, is_plain_fact, is_secret_field, is_secret_pair

__all__ = [
    "DEFAULT_REDACT_HEADERS",
    "URL_HEADERS",
    "REDACTED",
    "HeaderRedactor",
    "body_kind",
    "redact_body",
    "redact_credentials",
    "redact_form_fields",
    "redact_json_value",
    "redact_secrets_in_text",
    "redact_tokens",
    "redact_url",
    "is_secret_field",
    "is_secret_pair",
    "redact_url_params",
    "redact_url_params_in",
    "holds_url_secret",
    "truncate_text",
]

#: Header names (``*`` globs allowed) whose values never leave the recorder: the credentials
#: themselves and the token, auth, csrf, session, secret and key families (``X-Auth-Token``,
#: ``X-CSRF-Token``, ``X-Session-Id``, ``X-Client-Secret``, ``X-Api-Key``...).
DEFAULT_REDACT_HEADERS: tuple[str, ...] = (
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "*token*",
    "*auth*",
    "*csrf*",
    "*xsrf*",
    "*session*",
    "*secret*",
    "*key*",
    "*password*",
    "*signature*",
    "*jwt*",
    "*bearer*",
)
REDACTED = "[redacted]"
#: Headers whose value is a URL (the page that sent the request, where a redirect goes): their secret
#: parameters are masked as the request's own URL is (phpMyAdmin's ``token=`` is in the Referer).
URL_HEADERS = frozenset({"referer", "location", "content-location", "origin"})

#: Cheap test before the patterns run: text without any of these has no secret to find.
_ANY_HINT = re.compile(SECRET_PART.pattern + r"|key|pin|otp|mfa|cvv|cvc|ssn|sid|sig|pw|code|eyJ|://", re.IGNORECASE)

# A quoted key, a separator and its value: a quoted string (any length, escapes, '=' included,
# possibly cut off by the end of the text), a number, true/false/null.
_QUOTED_PAIR = re.compile(
    r"""(?P<q>["'])(?P<name>[^"'\\\n]{1,100})(?P=q)(?P<sep>\s*[:=]\s*)"""
    r"""(?P<value>"(?:\\.|[^"\\])*(?:"|$)|'(?:\\.|[^'\\])*(?:'|$)|-?\d[\d.eE+-]*|true|false|null)"""
)
# JavaScript-ish: an unquoted identifier, ':' or '=', then a quoted or numeric value.
_BARE_PAIR = re.compile(
    r"""(?P<pre>(?:^|[\s{,;(.]))(?P<name>[A-Za-z_$][\w$-]{0,99})(?P<sep>\s*(?::|=(?!=))\s*)"""
    r"""(?P<value>"(?:\\.|[^"\\])*(?:"|$)|'(?:\\.|[^'\\])*(?:'|$)|`(?:\\.|[^`\\])*(?:`|$)|-?\d[\d.eE+-]*)"""
)
# ``password: hunter2`` in prose (an exception's message, a log line): a secret name, a colon, a bare word.
_PROSE_PAIR = re.compile(
    r"""(?P<pre>(?:^|[\s{,;(]))(?P<name>[A-Za-z_][\w-]{0,99})(?P<sep>[ \t]*:[ \t]*)(?P<value>[^\s"'`\[{,;)}]+)"""
)
# name=value in query strings, form bodies and log lines: the value runs to the next separator.
_FORM_PAIR = re.compile(r"(?P<pre>^|[?&\s;,#])(?P<name>[A-Za-z0-9_.\-\[\]%]{1,100})=(?P<value>[^&\s;,#]*)")
# multipart/form-data text field: name="password" CRLF (headers) CRLF CRLF value (up to the boundary)
_MULTIPART_FIELD = re.compile(r'(name="([^"]{1,100})"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n)([^\r\n]*)')
_BEARER = re.compile(r"\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=\-]{8,}", re.IGNORECASE)
# A JWT (header.payload[.signature], base64url JSON starting with "eyJ") anywhere in a text.
_JWT = re.compile(r"eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*)?")
# A long opaque run (session ids, API keys, hex or base64 digests): 24+ token characters.
_OPAQUE = re.compile(r"[A-Za-z0-9_+/-]{24,}={0,2}")
#: URL and form parameters that carry a one-time credential although their name says nothing (OAuth's
#: ``code``, CAS's ``ticket``): masked in query strings, fragments and urlencoded bodies, not as JSON keys
#: (``{"code": "NOT_FOUND"}`` is an error code).
_URL_SECRET_PARAMS = frozenset({"code", "ticket", "otp"})
# The password of a URL's userinfo (``https://user:secret@host``) inside any text.
_USERINFO = re.compile(
    r"""(?P<pre>\b[A-Za-z][A-Za-z0-9+.-]{0,30}://[^/\s:@'"`<>]{0,200}:)(?P<pw>[^/\s@'"`<>]{1,500})@"""
)
#: A URL's parameter inside any text: after ``?``, ``&``, ``#`` or ``;`` (``&amp;``); the value stops
#: at what ends it in a URL, a JSON string or an HTML attribute.
_URL_PARAM = re.compile(r"(?P<pre>[?&#;])(?P<name>[A-Za-z0-9_.\-\[\]%]{1,100})=(?P<value>[^&\s#;\"'\\<>]*)")
#: The same inside a percent-encoded URL (``goto=index.php%3Froute%3D%2F%26token%3Dabc``).
_ENCODED_PARAM = re.compile(
    r"(?P<pre>%3F|%26|%23)(?P<name>[A-Za-z0-9_.\-]{1,100})(?P<eq>%3D)(?P<value>(?:[^%&\s#\"'\\<>]|%(?!26|23)[0-9A-Fa-f]{2})*)",
    re.IGNORECASE,
)
#: What a URL needs to hold a secret at all: a query, a fragment, userinfo, a JWT or a ``Bearer`` in it.
_URL_HINT = re.compile(r"[?#@ ]|eyJ")
_FORM_BODY = re.compile(r"^[^\s=&]+=[^\s&]*(?:&[^\s=&]*(?:=[^\s&]*)?)*$")


class HeaderRedactor:
    """Redacts a configured set of header names, case-insensitively; ``*`` globs name families."""

    def __init__(self, names: Iterable[str] = DEFAULT_REDACT_HEADERS) -> None:
        cleaned = [n.strip().lower() for n in names if n and n.strip()]
        self.names = frozenset(n for n in cleaned if "*" not in n and "?" not in n)
        self.globs = tuple(n for n in cleaned if "*" in n or "?" in n)
        self._seen: dict[str, bool] = {}

    def is_redacted(self, name: str) -> bool:
        lowered = name.lower()
        known = self._seen.get(lowered)
        if known is None:
            known = lowered in self.names or any(fnmatch.fnmatchcase(lowered, g) for g in self.globs)
            if len(self._seen) < 4096:  # header names repeat; a page inventing names must not grow this
                self._seen[lowered] = known
        return known

    def headers(self, headers: Mapping[str, Any] | None) -> dict[str, str]:
        """A copy of ``headers`` with values of redacted names replaced; values as strings."""
        if not headers:
            return {}
        out: dict[str, str] = {}
        for name, value in headers.items():
            if self.is_redacted(str(name)):
                out[str(name)] = REDACTED
            elif str(name).lower() in URL_HEADERS:
                out[str(name)] = redact_url(_redact_tokens(str(value)))
            else:
                out[str(name)] = _redact_tokens(str(value))
        return out


# -- structured bodies -----------------------------------------------------------------------


def redact_json_value(value: Any, _depth: int = 0) -> Any:
    """A copy of parsed JSON with every value under a secret-looking key replaced whole."""
    if _depth > 200:
        return REDACTED  # deeper than any real payload: nothing in it is shown
    if isinstance(value, dict):
        return {
            k: REDACTED if is_secret_pair(str(k), v) else redact_json_value(v, _depth + 1) for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact_json_value(v, _depth + 1) for v in value]
    if isinstance(value, str):
        # JSON inside a string (``{"payload": "{\\"password\\": ...}"}``), a GraphQL document with an
        # inline ``password: "..."``, a JWT: the free-text rules see into it.
        return redact_secrets_in_text(value)
    return value


def redact_body(text: str, content_type: str | None = None) -> str:
    """A request body (or any payload) with its secrets masked, parsed by what it is.

    JSON is parsed and re-serialised compactly with secret values replaced whole; urlencoded
    forms keep every other field byte for byte; multipart bodies lose only the secret fields'
    values; anything else goes through :func:`redact_secrets_in_text`.
    """
    if not text:
        return text
    kind = body_kind(text, content_type)
    if kind == "json":
        redacted = _redact_json_text(text)
        if redacted is not None:
            return redacted
        kind = body_kind(text, content_type, json_failed=True)
    if kind == "multipart":
        return _redact_multipart(text, content_type)
    if kind == "form":
        return _redact_form(text, extra=_URL_SECRET_PARAMS)
    return redact_secrets_in_text(text)


def body_kind(text: str, content_type: str | None, *, json_failed: bool = False) -> str:
    """How a payload is parsed: ``json``, ``multipart``, ``form`` (urlencoded) or ``text``.

    By its content type, else by its look (a client that sends JSON as text/plain is common).
    ``json_failed``: it looked like JSON but did not parse; what else it is.
    """
    kind = (content_type or "").split(";", 1)[0].strip().lower()
    stripped = text.lstrip()
    if not json_failed and ("json" in kind or stripped[:1] in ("{", "[")):
        return "json"
    if kind.startswith("multipart/") or stripped.startswith("--"):
        return "multipart"
    if kind == "application/x-www-form-urlencoded" or (not kind and _FORM_BODY.match(text.strip())):
        return "form"
    return "text"


def redact_form_fields(body: str, content_type: str | None = None) -> str:
    """Mask the secret fields of a request body, keep the rest as sent (see :func:`redact_body`)."""
    return redact_body(body, content_type)


def _redact_json_text(text: str) -> str | None:
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(parsed, (dict, list)):
        return None
    return json.dumps(redact_json_value(parsed), ensure_ascii=False, separators=(",", ":"))


def _redact_form(body: str, extra: frozenset[str] = frozenset()) -> str:
    out = []
    for part in body.split("&"):
        name, sep, value = part.partition("=")
        try:
            decoded = urllib.parse.unquote_plus(name)
        except Exception:  # noqa: BLE001 - a field name that does not decode is compared as sent
            decoded = name
        if sep and _secret_param(decoded, value, extra):
            out.append(f"{name}={REDACTED}")
        elif sep:
            out.append(f"{name}={_redact_tokens(value)}")
        else:
            out.append(part)
    return "&".join(out)


def _secret_param(name: str, value: str, extra: frozenset[str] = frozenset()) -> bool:
    """A form or URL parameter to hide, judged by its name and its (percent-decoded) value."""
    try:
        decoded = urllib.parse.unquote_plus(value)
    except Exception:  # noqa: BLE001 - a value that does not decode is judged as sent
        decoded = value
    if decoded.startswith(REDACTED):
        return False  # masked already (a record shaped before, an answer passed twice)
    if name.lower() in extra:
        return not is_plain_fact(decoded)  # ``code=404`` is a status, ``code=4/0AX4...`` a grant
    return is_secret_pair(name, decoded)


def _redact_multipart(text: str, content_type: str | None) -> str:
    boundary = None
    if content_type:
        m = re.search(r'boundary="?([^";]+)"?', content_type)
        boundary = m.group(1) if m else None
    if boundary is None:
        first = text.lstrip().split("\n", 1)[0].rstrip("\r")
        boundary = first[2:] if first.startswith("--") else None
    if not boundary:
        return redact_secrets_in_text(text)
    delimiter = "--" + boundary
    pieces = text.split(delimiter)
    for index, piece in enumerate(pieces):
        head, blank, body = piece.partition("\r\n\r\n")
        if not blank:
            head, blank, body = piece.partition("\n\n")
        m = re.search(r'name="([^"]*)"', head)
        if not blank or m is None or "filename=" in head:
            continue
        if is_secret_pair(m.group(1), body.strip()):
            ending = "\r\n" if body.endswith("\r\n") else ("\n" if body.endswith("\n") else "")
            pieces[index] = f"{head}{blank}{REDACTED}{ending}"
        else:
            pieces[index] = f"{head}{blank}{_redact_tokens(body)}"
    return delimiter.join(pieces)


# -- free text -------------------------------------------------------------------------------


def _redact_tokens(text: str) -> str:
    """Bearer/Basic credentials and JWTs wherever they stand, whatever field they are in."""
    if "eyJ" in text:
        text = _JWT.sub(REDACTED, text)
    if " " in text:
        text = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    return text


def redact_credentials(text: str) -> str:
    """JWTs and ``Bearer``/``Basic`` credentials masked by their value alone (a field's value, a header
    under any name): what docs/security.md promises wherever they appear."""
    return _redact_tokens(text) if text else text


def _masked_value(value: str) -> str:
    """``REDACTED`` in the value's own quotes (an unterminated one stays unterminated: the text was cut)."""
    quote = value[:1]
    if quote in ("'", '"', "`"):
        closed = len(value) > 1 and value.endswith(quote) and not value.endswith("\\" + quote)
        return f"{quote}{REDACTED}{quote if closed else ''}"
    return REDACTED


def redact_secrets_in_text(text: str) -> str:
    """Mask secret pairs inside free text: JSON/JS (``"password": "..."``, ``token = '...'``), ``key=value``
    pairs, multipart fields, URL passwords (``https://u:secret@host``), ``Bearer ...`` credentials and
    JWTs. Values are taken whole, of any length.
    """
    if not text or not _ANY_HINT.search(text):
        return text  # the common case, one scan instead of several substitutions

    def quoted(m: re.Match[str]) -> str:
        if not is_secret_pair(m.group("name"), m.group("value")):
            return m.group(0)
        return f"{m.group('q')}{m.group('name')}{m.group('q')}{m.group('sep')}{_masked_value(m.group('value'))}"

    def bare(m: re.Match[str]) -> str:
        if not is_secret_pair(m.group("name"), m.group("value")):
            return m.group(0)
        return f"{m.group('pre')}{m.group('name')}{m.group('sep')}{_masked_value(m.group('value'))}"

    def form(m: re.Match[str], nested: bool = False) -> str:
        name = m.group("name")
        try:
            name = urllib.parse.unquote_plus(name)
        except Exception:  # noqa: BLE001 - compared as sent
            pass
        value = m.group("value")
        in_url = m.group("pre") in ("?", "&", "#")
        secret = _secret_param(name, value, _URL_SECRET_PARAMS if in_url else frozenset())
        if secret and not value.startswith(("[redacted]", '"', "'")):
            return f"{m.group('pre')}{m.group('name')}={REDACTED}"
        if not nested and "=" in value:
            # A URL in code (``location='/?pw=...'``): its first parameter sits inside this value.
            return f"{m.group('pre')}{m.group('name')}={_FORM_PAIR.sub(lambda n: form(n, True), value)}"
        return m.group(0)

    def prose(m: re.Match[str]) -> str:
        if m.group("value") == REDACTED or not is_secret_pair(m.group("name"), m.group("value")):
            return m.group(0)
        return f"{m.group('pre')}{m.group('name')}{m.group('sep')}{REDACTED}"

    def multipart(m: re.Match[str]) -> str:
        return f"{m.group(1)}{REDACTED}" if is_secret_pair(m.group(2), m.group(3)) else m.group(0)

    text = _QUOTED_PAIR.sub(quoted, text)
    text = _BARE_PAIR.sub(bare, text)
    text = _MULTIPART_FIELD.sub(multipart, text)
    text = _PROSE_PAIR.sub(prose, text)
    text = _FORM_PAIR.sub(form, text)
    if "://" in text:
        text = _USERINFO.sub(lambda m: f"{m.group('pre')}{REDACTED}@", text)
    return _redact_tokens(text)


def redact_url(url: str) -> str:
    """A URL without its password (``user:pw@``) and without the values of secret-named query and
    fragment parameters (``?token=``, ``?access_token=``, ``#id_token=``, an encoded ``%26token%3D``
    in a ``goto=`` parameter), judged by name and value as form fields are. Unchanged, byte for byte,
    when it holds none: what every record, list line, HAR and file shows of a captured URL."""
    if not url or not _URL_HINT.search(url):
        return url  # the common case: nothing after a path
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return redact_secrets_in_text(url)
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        netloc = (user.split(":", 1)[0] + f":{REDACTED}@" if ":" in user else user + "@") + host
    query = _redact_params(parts.query, url_params=True)
    fragment = _redact_params(parts.fragment, url_params=True)
    path = _redact_tokens(parts.path)
    if (netloc, path, query, fragment) == (parts.netloc, parts.path, parts.query, parts.fragment):
        return url
    return urllib.parse.urlunsplit((parts.scheme, netloc, path, query, fragment))


def redact_url_params(text: str) -> str:
    """``text`` with the values of secret-named URL parameters masked wherever a URL stands in it: a
    trace's JSON line, a console message, a stack, an error, an answer. Only ``?name=``, ``&name=``,
    ``#name=`` (``&amp;`` and percent-encoded ``%26name%3D`` too) are touched, values only: a JSON
    text stays valid JSON, a trace stays loadable."""
    if not text or ("=" not in text and "%3" not in text.upper()):
        return text

    def plain(m: re.Match[str]) -> str:
        value = m.group("value")
        if value.startswith(REDACTED) or not _secret_param(m.group("name"), value, _URL_SECRET_PARAMS):
            return m.group(0)
        return f"{m.group('pre')}{m.group('name')}={REDACTED}"

    if "=" in text:
        text = _URL_PARAM.sub(plain, text)
    if "%3" in text.upper():
        text = _ENCODED_PARAM.sub(_encoded_param, text)
    return text


def holds_url_secret(text: str) -> bool:
    """Whether :func:`redact_url_params` would change ``text``: one scan, for a caller that would
    otherwise copy a whole structure to find nothing (every answer asks)."""
    if not text or ("=" not in text and "%3" not in text.upper()):
        return False
    for m in _URL_PARAM.finditer(text):
        value = m.group("value")
        if not value.startswith(REDACTED) and _secret_param(m.group("name"), value, _URL_SECRET_PARAMS):
            return True
    if "%3" in text.upper():
        for m in _ENCODED_PARAM.finditer(text):
            if _secret_param(m.group("name"), urllib.parse.unquote(m.group("value")), _URL_SECRET_PARAMS):
                return True
    return False


def redact_url_params_in(value: Any, _depth: int = 0) -> Any:
    """A copy of JSON-like data (dicts, lists, strings) with :func:`redact_url_params` applied to every
    string value; keys, numbers and the shape stay (a bundle file, an answer's structured content)."""
    if isinstance(value, str):
        return redact_url_params(value)
    if _depth > 200:
        return value
    if isinstance(value, dict):
        return {k: redact_url_params_in(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_url_params_in(v, _depth + 1) for v in value]
    return value


def _redact_params(text: str, *, url_params: bool = False) -> str:
    if "=" not in text:
        return _redact_tokens(text)
    out = _redact_form(text, extra=_URL_SECRET_PARAMS if url_params else frozenset())
    return _ENCODED_PARAM.sub(_encoded_param, out) if "%3" in out.upper() else out


def _encoded_param(m: re.Match[str]) -> str:
    if not _secret_param(m.group("name"), urllib.parse.unquote(m.group("value")), _URL_SECRET_PARAMS):
        return m.group(0)
    return f"{m.group('pre')}{m.group('name')}{m.group('eq')}%5Bredacted%5D"


def _opaque(m: re.Match[str]) -> str:
    run = m.group(0)
    # Words (camelCase identifiers, kebab-case names) have no digits; tokens mix letters and digits.
    has_digit = any(c.isdigit() for c in run)
    has_alpha = any(c.isalpha() for c in run)
    return REDACTED if has_digit and has_alpha else run


def redact_tokens(text: str) -> str:
    """Mask what looks like a credential by its shape alone: JWTs and long runs mixing letters and digits.

    For values whose name says nothing (a ``localStorage`` key ``"state"`` holding a session id):
    the name-based rules above cannot see those.
    """
    return _OPAQUE.sub(_opaque, _JWT.sub(REDACTED, text))


def truncate_text(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters and whether it was cut."""
    if len(text) <= limit:
        return text, False
    return text[:limit], True
