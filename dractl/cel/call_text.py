"""Reading a call's arguments in the author's expression text, where a tree has no position for them."""

from __future__ import annotations


def argument_ends(text: str, start: int) -> list[int]:
    """Where each argument of the call whose ``(`` ends before ``start`` ends: the index of its
    top-level ``,`` or of the closing bracket (the text's end if there is none). Brackets and
    commas inside strings (any CEL quoting, raw strings too) do not count."""
    ends: list[int] = []
    depth, quote, raw, index = 0, "", False, start
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\" and not raw:
                index += 1
            elif text.startswith(quote, index):
                index += len(quote) - 1
                quote = ""
        elif char in "\"'":
            quote = text[index:index + 3] if text[index:index + 3] in ('"""', "'''") else char
            raw = "r" in _string_prefix(text, index).lower()
            index += len(quote) - 1
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif char == "," and depth == 0:
            ends.append(index)
        index += 1
    ends.append(min(index, len(text)))
    return ends


def _string_prefix(text: str, quote_at: int) -> str:
    """The ``r``/``b`` letters that make the string starting at ``quote_at`` raw or bytes."""
    begin = quote_at
    while begin > 0 and quote_at - begin < 2 and text[begin - 1] in "rRbB":
        begin -= 1
    if begin > 0 and (text[begin - 1].isalnum() or text[begin - 1] == "_"):
        return ""  # the letters end a name: no prefix
    return text[begin:quote_at]
