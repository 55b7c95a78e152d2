"""Mapping a position inside an expression back to the YAML file it was read from.

The loader knows where a scalar's value starts (its first character: the opening quote of a
quoted scalar, the ``|``/``>`` indicator of a block scalar). Given the source text and the
decoded expression, :func:`expression_offsets` aligns every character of the expression with
the source character it came from, undoing quoting, escapes, line folding and block
indentation.
"""

from __future__ import annotations

from bisect import bisect_right

_WHITESPACE = " \t\r\n"
_SIMPLE_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
    "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
    "L": "\u2028", "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def _skip_block_header(source: str, index: int) -> int:
    end = source.find("\n", index)
    return len(source) if end == -1 else end + 1


def expression_offsets(source: str, value_start: int, expression: str) -> list[int]:
    """For each character of ``expression``, its index in ``source`` (plus one entry for the end).

    ``value_start`` is the index in ``source`` where the scalar's value begins.
    """
    style = source[value_start : value_start + 1]
    double_quoted = style == '"'
    single_quoted = style == "'"
    i = value_start
    if double_quoted or single_quoted:
        i += 1
    elif style in ("|", ">"):
        i = _skip_block_header(source, i)
    offsets: list[int] = []
    n = len(source)
    for char in expression:
        while i < n:
            current = source[i]
            if double_quoted and current == "\\":
                following = source[i + 1 : i + 2]
                if following in ("\n", "\r"):  # escaped line break: continuation, no character
                    i += 2
                    while i < n and source[i] in " \t\r\n":
                        i += 1
                    continue
                if following in _HEX_ESCAPES:
                    offsets.append(i)
                    i += 2 + _HEX_ESCAPES[following]
                    break
                if following in _SIMPLE_ESCAPES:
                    offsets.append(i)
                    i += 2
                    break
            if current == char:
                offsets.append(i)
                i += 2 if single_quoted and char == "'" and source[i : i + 2] == "''" else 1
                break
            if current in _WHITESPACE:
                if char in " \n" and current in "\r\n":
                    offsets.append(i)
                    i += 2 if source[i : i + 2] == "\r\n" else 1  # CRLF is one line break
                    if char == "\n" and current == "\r":
                        break  # a kept line break, as an LF matches itself
                    # A folded line break stands for this character.
                    while i < n and source[i] in " \t":
                        i += 1
                    break
                i += 1
                continue
            # Out of step (should not happen for a value the loader decoded from this source):
            # point at the value's start rather than somewhere wrong.
            return [value_start] * (len(expression) + 1)
        else:
            offsets.append(value_start)
    offsets.append(i)
    return offsets


def _line_starts(text: str) -> list[int]:
    starts = [0]
    index = text.find("\n")
    while index >= 0:  # str.find, not a loop over characters: sources are whole files
        starts.append(index + 1)
        index = text.find("\n", index + 1)
    return starts


def expression_line_column(expression: str, index: int) -> tuple[int, int]:
    """Character index inside the expression → 1-based line and column (``expression_index``'s inverse)."""
    before = expression[:index]
    return before.count("\n") + 1, index - (before.rfind("\n") + 1) + 1


def expression_index(expression: str, line: int, column: int) -> int:
    """1-based line and column inside the expression → character index."""
    starts = _line_starts(expression)
    line = min(max(line, 1), len(starts))
    return min(starts[line - 1] + max(column, 1) - 1, len(expression))


def file_position(
    source: str, value_line: int, value_column: int, expression: str, line: int, column: int
) -> tuple[int, int]:
    """Where ``line:column`` of ``expression`` (both 1-based) is in ``source``.

    ``value_line``/``value_column`` (1-based) locate the scalar's value in ``source``; the
    result is a 1-based (line, column) in ``source``.
    """
    starts = _line_starts(source)
    if not 1 <= value_line <= len(starts):
        return value_line, value_column
    value_start = starts[value_line - 1] + value_column - 1
    offsets = expression_offsets(source, value_start, expression)
    index = offsets[expression_index(expression, line, column)]
    source_line = bisect_right(starts, index)
    return source_line, index - starts[source_line - 1] + 1
