"""Which field names hold a credential: the one predicate every redaction asks (:func:`is_secret_field`).

Split from :mod:`.redact`, which re-exports it: the word lists here decide names (``password``,
``csrf_token``, ``PHPSESSID`` hidden; ``passport_number``, ``session_timeout``, ``KeyError`` shown),
the rest of :mod:`.redact` applies the decision to headers, bodies, URLs and text.
"""

from __future__ import annotations

import functools
import re

__all__ = ["SECRET_PART", "is_secret_field", "is_secret_pair", "is_plain_fact", "secret_kind"]

#: Parts of a field name that mark a credential anywhere in it (``csrf_token``, ``PHPSESSID``,
#: ``x-auth-token``, ``client_secret``, SAML's ``SAMLResponse``); ``auth`` but not ``author``.
SECRET_PART = re.compile(
    r"pass(?:word|wd|phrase|code)?|pwd|secret|token|credential|csrf|xsrf|nonce|session|sessid|api[-_]?key|apikey"
    r"|private[-_]?key|auth(?!or(?!i[sz]ation))|cookie|bearer|jwt|verifier|saml(?:response|art)",
    re.IGNORECASE,
)
#: Whole words of a field name that mark a credential (``pw``, ``key``, ``pin``, ``otp``) but would give
#: false alarms inside other words (``keyboard``, ``shipping``, ``hotplate``, ``pwa``).
_SECRET_WORDS = frozenset(
    {"pw", "key", "keys", "pin", "otp", "totp", "mfa", "cvv", "cvc", "ssn", "sid", "sig", "signature"}
)
#: Whole words that contain a credential marker and are none (``passport`` holds ``pass``,
#: ``secretary`` ``secret``, ``tokenizer`` ``token``): a name made of them alone is no secret.
#: A word glued to others stays suspect (``userpass``, ``passporttoken``).
_BENIGN_WORDS = frozenset(
    {
        "passport", "passports", "passenger", "passengers", "compass", "bypass", "bypassed", "overpass",
        "underpass", "passage", "passive", "secretary", "secretaries", "secretariat", "tokenizer",
        "tokenizers", "tokenize", "tokenized", "tokenization", "authored", "authoring",
    }
)  # fmt: skip
#: An exception class's name (``KeyError``, ``TokenExpiredError``): what follows it is a message
_EXCEPTION_CLASS = re.compile(r"(?:[A-Z][a-z0-9]+)+(?:Error|Exception)")
#: ``session`` and ``cookie`` name a credential, unless the name is about a setting of it
#: (``session_timeout``, ``cookieConsent``) and no word of it says it holds the value itself.
_SETTING_OF = frozenset({"session", "sessions", "cookie", "cookies"})
_SETTING_WORDS = frozenset(
    {
        "timeout", "timeouts", "expires", "expiry", "expiration", "lifetime", "ttl", "length", "duration",
        "warning", "consent", "banner", "notice", "policy", "accepted", "enabled", "count", "minutes",
        "seconds",
    }
)  # fmt: skip
_VALUE_WORDS = frozenset({"id", "ids", "key", "keys", "token", "value", "secret", "hash", "string", "data", "sid"})
#: Words that make a token, nonce, session or key name a quantity or a setting of them, not their
#: value: ``tokens_count``, ``max_tokens``, ``csrf_ttl``, ``nonce_lifetime``, ``key_count``.
_QUANTITY_WORDS = _SETTING_WORDS | frozenset(
    {
        "max", "min", "num", "total", "used", "remaining", "left", "limit", "limits", "rows", "size", "len",
        "counts", "age", "ms", "enabled", "disabled", "required", "status", "type", "types", "mode",
    }
)  # fmt: skip
_LEADING_QUANTITY = frozenset({"max", "min", "num", "total", "count"})
#: Markers of the credential itself, hidden whatever the value (a numeric PIN, a password ``letmein``).
#: The other markers (token, nonce, csrf, session, auth, cookie, key, sig...) name something whose
#: value may be a plain fact (``token_type: Bearer``, ``csrf: true``, ``auth: basic``): the value decides.
_STRONG_PART = re.compile(
    r"pass(?:word|wd|phrase|code)?|pwd|secret|credential|private[-_]?key|api[-_]?key|apikey", re.IGNORECASE
)
_STRONG_WORDS = frozenset({"pw", "pin", "otp", "totp", "mfa", "cvv", "cvc", "ssn"})
#: Whole words that hold a one-time credential in real apps although no marker is in them: Moodle's
#: ``sesskey``, WordPress plugins' ``security`` (the AJAX nonce ``check_ajax_referer`` reads).
_WEAK_WORDS = frozenset({"sesskey", "security"})
#: State words a token, session or auth field reports (``active``, ``expired``, ``Bearer``): facts, not
#: credentials. A closed list: an unknown short word (``abc``) under a token's name may be the token.
_STATE_WORDS = frozenset(
    {
        "active", "inactive", "enabled", "disabled", "expired", "valid", "invalid", "pending", "revoked",
        "required", "optional", "missing", "present", "set", "unset", "ok", "error", "failed", "success",
        "any", "all", "new", "open", "closed", "locked", "unlocked", "granted", "denied", "allowed",
        "blocked", "bearer", "basic", "digest", "ntlm", "negotiate", "header", "query", "strict", "lax",
        "persistent", "temporary", "verified", "unverified", "issued", "used", "unused", "refresh",
        "access", "implicit", "hybrid", "login", "logout", "guest", "anonymous", "started", "ended",
        "none", "default", "custom", "auto", "manual", "unknown", "secure", "insecure", "local", "remote",
    }
)  # fmt: skip
#: An upper-case enum (``NOT_FOUND``, ``EXPIRED``): a state, not a credential.
_ENUM = re.compile(r"[A-Z]{2,20}(?:_[A-Z]{1,20}){0,4}")
#: A word or two in PascalCase (a key's name ``Enter``, ``ArrowDown``; a scheme ``Bearer``)
_PASCAL_WORD = re.compile(r"(?:[A-Z][a-z]{1,11}){1,2}")
_FACT_WORDS = frozenset({"", "true", "false", "null", "none", "undefined", "nan", "yes", "no", "on", "off"})
_SMALL_NUMBER = re.compile(r"-?\d{1,4}(?:\.\d+)?")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD_SPLIT = re.compile(r"[^a-z0-9]+")


def _words(name: str) -> list[str]:
    """A name's segments: split on ``_ - . [ ]``, spaces and camelCase (``auth[token]``, ``csrfToken``)."""
    return [w for w in _WORD_SPLIT.split(_CAMEL.sub("_", name).lower()) if w]


@functools.lru_cache(maxsize=4096)
def secret_kind(name: str) -> str | None:
    """``"strong"`` (a password, a PIN: hidden whatever the value), ``"weak"`` (a token, nonce, session
    or key: hidden unless the value is a plain fact, see :func:`is_secret_pair`) or ``None`` (no secret).

    A marker counts as a whole segment (``csrf_token``, ``X-WP-Nonce``) or glued into a word that is no
    known harmless one (``_wpnonce``, ``PHPSESSID``, ``userpass``); not inside ``passport``, ``author``.
    ``session`` and ``cookie`` qualifying another word name a setting of it (``session_max_rows``,
    ``session_timeout``, ``cookie_consent``), unless a word says it holds the value itself (``session_id``,
    ``session_timeout_id``); a weak name that ends or starts with a quantity names how many or how long
    (``tokens_count``, ``max_tokens``, ``csrf_ttl``).
    """
    if _EXCEPTION_CLASS.fullmatch(name):
        return None  # an exception's name before its message (Python's KeyError: 'qty'), not a field
    words = _words(name)
    if not words:
        return None
    if any(word in _STRONG_WORDS for word in words):
        return "strong"
    valued = any(word in _VALUE_WORDS for word in words)
    # how many or how long: the name ends in a quantity (tokens_count, csrf_ttl) or starts with one (max_tokens)
    quantity = words[-1] in _QUANTITY_WORDS or (len(words) > 1 and words[0] in _LEADING_QUANTITY)
    # session/cookie qualifying the name's last word: a setting of the session (session_max_rows)
    setting = not valued and (quantity or words[-1] not in _SETTING_OF)
    markers: list[str] = []
    for word in words:
        if word in _SECRET_WORDS or word in _WEAK_WORDS:
            markers.append(word)
        elif word in _BENIGN_WORDS or (setting and word in _SETTING_OF):
            continue
        elif SECRET_PART.search(word):
            markers.append(word)
    # Markers may also straddle words (``pass_word``, ``api_key``): the name without its harmless words.
    rest = "".join(w for w in words if w not in _BENIGN_WORDS and not (setting and w in _SETTING_OF))
    if not markers:
        if not SECRET_PART.search(rest):
            return None
        markers.append(rest)
    if any(_STRONG_PART.search(marker) for marker in markers) or _STRONG_PART.search(rest):
        return "strong"
    return None if quantity else "weak"


def is_secret_field(name: str) -> bool:
    """True for names like ``password``, ``pwd``, ``api_key``, ``csrf_token``, ``accessToken``, ``pin``.

    The one predicate for field names where no value is at hand (and the strict one: a weak name
    counts whatever its value): request bodies, console objects, snapshot values of hidden inputs,
    ``get_dom``'s hidden inputs and the audit log's arguments. With the value, :func:`is_secret_pair`.
    """
    return secret_kind(name) is not None


def is_plain_fact(value: object) -> bool:
    """A value that tells a fact and is no credential: ``true``, ``null``, a small number (a count, a
    flag), a known state word (``active``, ``Bearer``) or an upper-case enum (``NOT_FOUND``). Anything
    else (digits mixed with letters, a long run, an unknown word) may be the token itself."""
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        return abs(value) < 10_000
    if not isinstance(value, str):
        return False
    text = value.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        text = text[1:-1]
    if text.lower() in _FACT_WORDS or _SMALL_NUMBER.fullmatch(text):
        return True
    return text.lower() in _STATE_WORDS or bool(_ENUM.fullmatch(text) or _PASCAL_WORD.fullmatch(text))


def is_secret_pair(name: str, value: object) -> bool:
    """Whether ``value`` under ``name`` is hidden: a strong name always, a weak one unless the value is
    a plain fact (``csrf_enabled``'s ``true``, ``token_type``'s ``Bearer``, ``session``'s ``active``),
    so a nonce named after its action (``save_post_nonce``, ``_wpnonce``, ``X-WP-Nonce``) is hidden
    when its value has a token's shape."""
    kind = secret_kind(name)
    if kind is None:
        return False
    return kind == "strong" or not is_plain_fact(value)
