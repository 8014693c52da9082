"""Keys as Chrome's ``Input.dispatchKeyEvent`` wants them, and key combinations like ``Control+a``.

A US layout, enough for what an agent types into a business form: named keys (Enter, Tab,
Escape, arrows, Backspace, Delete, Home/End, PageUp/PageDown, F1-F12, Space), the modifiers,
letters, digits and the usual punctuation. Text goes in through ``Input.insertText`` instead
(any script, no layout needed); these are for the keys a page reacts to.
"""

from __future__ import annotations

from dataclasses import dataclass

from cdp_core import CDPSession

__all__ = ["Key", "parse_combo", "press_combo", "MODIFIER_BITS", "UnknownKey"]

#: CDP modifier bit masks.
MODIFIER_BITS = {"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}
_ALIASES = {
    "ctrl": "Control",
    "control": "Control",
    "cmd": "Meta",
    "command": "Meta",
    "meta": "Meta",
    "win": "Meta",
    "alt": "Alt",
    "option": "Alt",
    "shift": "Shift",
    "esc": "Escape",
    "return": "Enter",
    "del": "Delete",
    "space": " ",
    "spacebar": " ",
    "up": "ArrowUp",
    "down": "ArrowDown",
    "left": "ArrowLeft",
    "right": "ArrowRight",
    "pgup": "PageUp",
    "pgdn": "PageDown",
    "ins": "Insert",
}


class UnknownKey(ValueError):
    """A key name we do not know."""


@dataclass(frozen=True)
class Key:
    key: str
    code: str
    key_code: int
    text: str = ""
    location: int = 0


_NAMED: dict[str, Key] = {
    "Backspace": Key("Backspace", "Backspace", 8),
    "Tab": Key("Tab", "Tab", 9),
    "Enter": Key("Enter", "Enter", 13, "\r"),
    "Shift": Key("Shift", "ShiftLeft", 16, location=1),
    "Control": Key("Control", "ControlLeft", 17, location=1),
    "Alt": Key("Alt", "AltLeft", 18, location=1),
    "Pause": Key("Pause", "Pause", 19),
    "CapsLock": Key("CapsLock", "CapsLock", 20),
    "Escape": Key("Escape", "Escape", 27),
    " ": Key(" ", "Space", 32, " "),
    "PageUp": Key("PageUp", "PageUp", 33),
    "PageDown": Key("PageDown", "PageDown", 34),
    "End": Key("End", "End", 35),
    "Home": Key("Home", "Home", 36),
    "ArrowLeft": Key("ArrowLeft", "ArrowLeft", 37),
    "ArrowUp": Key("ArrowUp", "ArrowUp", 38),
    "ArrowRight": Key("ArrowRight", "ArrowRight", 39),
    "ArrowDown": Key("ArrowDown", "ArrowDown", 40),
    "Insert": Key("Insert", "Insert", 45),
    "Delete": Key("Delete", "Delete", 46),
    "Meta": Key("Meta", "MetaLeft", 91, location=1),
    "ContextMenu": Key("ContextMenu", "ContextMenu", 93),
    **{f"F{n}": Key(f"F{n}", f"F{n}", 111 + n) for n in range(1, 13)},
}
# Punctuation of a US keyboard: (unshifted, shifted, code, keyCode).
_PUNCT = [
    ("-", "_", "Minus", 189),
    ("=", "+", "Equal", 187),
    ("[", "{", "BracketLeft", 219),
    ("]", "}", "BracketRight", 221),
    ("\\", "|", "Backslash", 220),
    (";", ":", "Semicolon", 186),
    ("'", '"', "Quote", 222),
    (",", "<", "Comma", 188),
    (".", ">", "Period", 190),
    ("/", "?", "Slash", 191),
    ("`", "~", "Backquote", 192),
]
_DIGIT_SHIFTED = ")!@#$%^&*("


def _char_key(char: str) -> Key:
    if "a" <= char.lower() <= "z" and len(char) == 1:
        return Key(char, f"Key{char.upper()}", ord(char.upper()), char)
    if char.isdigit() and len(char) == 1:
        return Key(char, f"Digit{char}", ord(char), char)
    if char in _DIGIT_SHIFTED:
        digit = str(_DIGIT_SHIFTED.index(char))
        return Key(char, f"Digit{digit}", ord(digit), char)
    for plain, shifted, code, key_code in _PUNCT:
        if char in (plain, shifted):
            return Key(char, code, key_code, char)
    if len(char) == 1:
        return Key(char, "", 0, char)  # any other character: its text is what counts
    raise UnknownKey(char)


def key_for(name: str) -> Key:
    """The definition of one key name (``Enter``, ``a``, ``ArrowDown``, ``Control``...)."""
    if name in _NAMED:
        return _NAMED[name]
    alias = _ALIASES.get(name.lower())
    if alias is not None:
        return _NAMED[alias]
    for known in _NAMED:
        if known.lower() == name.lower():
            return _NAMED[known]
    return _char_key(name)


def parse_combo(combo: str) -> tuple[list[Key], Key]:
    """``"Control+Shift+ArrowLeft"`` -> ([Control, Shift], ArrowLeft); ``"+"`` and ``"Control++"`` work."""
    if not combo:
        raise UnknownKey(combo)
    parts = combo.split("+")
    tokens: list[str] = []
    for i, part in enumerate(parts):
        if part == "" and i == len(parts) - 1 and tokens and tokens[-1] == "":
            tokens[-1] = "+"
        else:
            tokens.append(part)
    tokens = [t for t in tokens if t != ""] or ["+"]
    keys = [key_for(t) for t in tokens]
    *mods, main = keys
    for mod in mods:
        if mod.key not in MODIFIER_BITS:
            raise UnknownKey(f"{mod.key} is not a modifier (Control, Shift, Alt, Meta) in {combo!r}")
    return mods, main


async def press_combo(session: CDPSession, combo: str, *, timeout: float = 10.0) -> None:
    """Hold the modifiers, press and release the key, release the modifiers (in the focused element)."""
    mods, main = parse_combo(combo)
    bits = 0
    for mod in mods:
        bits |= MODIFIER_BITS[mod.key]
        await _key_event(session, "rawKeyDown", mod, bits, timeout)
    shifted_upper = main.text and (bits & MODIFIER_BITS["Shift"]) and main.text.isalpha()
    text = main.text.upper() if shifted_upper else main.text
    # With Control/Alt/Meta held a key types nothing (Control+a selects all); Shift still types.
    typing = bool(text) and not bits & (MODIFIER_BITS["Control"] | MODIFIER_BITS["Alt"] | MODIFIER_BITS["Meta"])
    down: dict[str, object] = {"type": "keyDown" if typing else "rawKeyDown"}
    if typing:
        down.update(text=text, unmodifiedText=main.text)
    await _key_event(session, str(down["type"]), main, bits, timeout, extra=down)
    await _key_event(session, "keyUp", main, bits, timeout)
    for mod in reversed(mods):
        bits &= ~MODIFIER_BITS[mod.key]
        await _key_event(session, "keyUp", mod, bits, timeout)


async def _key_event(
    session: CDPSession, kind: str, key: Key, modifiers: int, timeout: float, extra: dict[str, object] | None = None
) -> None:
    params: dict[str, object] = {
        "type": kind,
        "key": key.key,
        "code": key.code,
        "windowsVirtualKeyCode": key.key_code,
        "nativeVirtualKeyCode": key.key_code,
        "modifiers": modifiers,
    }
    if key.location:
        params["location"] = key.location
    if extra:
        params.update({k: v for k, v in extra.items() if k != "type"})
    await session.send("Input.dispatchKeyEvent", params, timeout=timeout)
