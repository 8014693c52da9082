"""Which field names hold a credential: the one predicate every redaction asks (:func:`is_secret_field`).

Split from :mod:`.redact`, which re-exports it: the word lists here decide names (``password``,
``csrf_token``, ``PHPSESSID`` hidden; ``passport_number``, ``session_timeout``, ``KeyError`` shown),
the rest of :mod:`.redact` applies the decision to headers, bodies, URLs and text.
"""

from __future__ import annotations

import functools
import re

__all__ = ["SECRET_PART", "is_secret_field"]

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
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD_SPLIT = re.compile(r"[^a-z0-9]+")


@functools.lru_cache(maxsize=4096)
def is_secret_field(name: str) -> bool:
    """True for names like ``password``, ``pwd``, ``api_key``, ``csrf_token``, ``accessToken``, ``pin``.

    The one predicate for field names everywhere: request bodies, console objects, snapshot
    values of hidden inputs, ``get_dom``'s hidden inputs and the audit log's arguments.
    """
    if _EXCEPTION_CLASS.fullmatch(name):
        return False  # an exception's name before its message (Python's KeyError: 'qty'), not a field
    words = _WORD_SPLIT.split(_CAMEL.sub("_", name).lower())
    if any(word in _SECRET_WORDS for word in words):
        return True
    if not SECRET_PART.search(name):
        return False
    if not any(word in _BENIGN_WORDS or word in _SETTING_OF for word in words):
        return True  # the common case: no word that could clear it
    # Each word that holds a credential marker must be one of the known harmless words, or a
    # session/cookie word qualified by a setting (and no word of the name says id, key, value...).
    setting = any(word in _SETTING_WORDS for word in words) and not any(word in _VALUE_WORDS for word in words)
    for word in words:
        if not SECRET_PART.search(word) or word in _BENIGN_WORDS or (setting and word in _SETTING_OF):
            continue
        return True
    # Markers may also straddle words (``pass_word``): the name without its harmless words decides.
    rest = "".join(w for w in words if w not in _BENIGN_WORDS and not (setting and w in _SETTING_OF))
    return bool(SECRET_PART.search(rest))
