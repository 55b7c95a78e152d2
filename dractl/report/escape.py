"""Control characters made visible: text from the inputs never drives the terminal.

A value, a file name or a ``--pod`` argument may hold ESC (``\x1b[2J`` clears the screen, an OSC
sequence sets the window title or a link), CSI (0x9b, the same in one byte), backspace (which
hides what was printed before it) or NUL. Each such character is written as Python writes it in
a string literal (``\x1b``, ``\x9b``, ``\ud800`` for a lone surrogate, which no encoding can
write), so the reader sees that it is there; XML (JUnit) cannot hold most of them at all.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls, lone surrogates, and the line and paragraph
# separators and bidirectional overrides that reorder what a terminal or editor shows.
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff]")
_INVISIBLE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, one_line: bool = False) -> str:
    """``text`` with its control characters written as escapes (tab and newline kept, unless
    ``one_line``)."""
    pattern = _INVISIBLE_LINE if one_line else _INVISIBLE
    if pattern.search(text) is None:  # the common case: no copy
        return text
    return pattern.sub(_escape, text)


# What JSON written with ensure_ascii=False still holds raw (it escapes C0 controls itself).
_INVISIBLE_IN_JSON = re.compile("[\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff]")


def json_visible(text: str) -> str:
    """JSON text with DEL, C1 controls, lone surrogates and the characters that reorder lines
    written as ``\\u`` escapes: the same JSON values, and nothing raw for a terminal or a
    viewer (outside strings JSON holds none of them)."""
    if _INVISIBLE_IN_JSON.search(text) is None:
        return text
    return _INVISIBLE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# The lines a message may start on its own: a CEL compiler's error and its excerpt (cel-go's
# ``ERROR: <input>:1:18: ...`` then `` | device.driver ==`` and `` | ....^``).
_MESSAGE_LINE = re.compile(r"ERROR: <input>:-?\d+:-?\d+: | \|")


def visible_message(text: str) -> str:
    """:func:`visible` for a diagnostic's message: a newline is kept where a CEL error or its
    excerpt starts a line, and written as ``\\x0a`` elsewhere (a value that holds one, such as a
    kind ``"Device\\nClass"``), so that every line of a report still starts as its form says."""
    if "\n" not in text:
        return visible(text)
    first, *rest = text.split("\n")
    parts = [visible(first)]
    for line in rest:
        shown = visible(line)
        parts.append(("\n" if _MESSAGE_LINE.match(line) else "\\x0a") + shown)
    return "".join(parts)


_SGR = re.compile(r"\x1b\[[0-9;]*m")


def visible_but_colors(text: str) -> str:
    """:func:`visible`, keeping colour sequences (SGR: ``ESC [ ... m``) as they are, for output
    that a renderer coloured itself. Input can then only change colours, never move the cursor,
    clear the screen or set a title."""
    if _INVISIBLE.search(text) is None:
        return text
    parts: list[str] = []
    end = 0
    for match in _SGR.finditer(text):
        parts += (visible(text[end : match.start()]), match.group())
        end = match.end()
    parts.append(visible(text[end:]))
    return "".join(parts)
