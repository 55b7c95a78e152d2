"""Regular expressions with RE2 semantics, as upstream (Go's regexp, cel-cpp's RE2) uses them.

Linear-time matching: a pattern that backtracks catastrophically in Python's ``re`` finishes in
microseconds here. Go's syntax and RE2's agree on everything selectors use.
"""

from __future__ import annotations

import functools
from typing import Any


class RegexError(ValueError):
    """A pattern RE2 rejects."""


@functools.lru_cache(maxsize=512)
def compile_re2(pattern: str) -> Any:
    import re2

    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options=options)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else "invalid pattern"
        raise RegexError(detail.decode(errors="replace") if isinstance(detail, bytes) else str(detail)) from None


def re2_error(pattern: str) -> str | None:
    """Why RE2 (as Go's regexp parses it) rejects ``pattern``, or None when it compiles."""
    go_only = go_only_error(pattern)
    if go_only is not None:
        return go_only
    try:
        compile_re2(pattern)
    except RegexError as exc:
        return str(exc) or "invalid pattern"
    return None


def go_only_error(pattern: str) -> str | None:
    """What Go's regexp/syntax refuses and C++ RE2 accepts: ``\\C`` (any byte, which Go's
    parser does not know: ``invalid escape sequence``), outside ``\\Q...\\E`` quoting."""
    index = 0
    while index < len(pattern) - 1:
        if pattern[index] != "\\":
            index += 1
            continue
        escaped = pattern[index + 1]
        if escaped == "C":
            return "invalid escape sequence: \\C"
        if escaped == "Q":  # literal text up to \E (or the end)
            end = pattern.find("\\E", index + 2)
            index = len(pattern) if end < 0 else end + 2
            continue
        index += 2
    return None


# RE2's error texts → Go's regexp/syntax texts (the apiserver compiles patterns with Go).
_GO_ERRORS = {
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "bad repetition operator": "invalid nested repetition operator",
    "trailing \\": "trailing backslash at end of expression",
    "invalid repetition size": "invalid repeat count",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid named capture group": "invalid named capture",
    "pattern too large - compile failed": "expression too large",
}


def go_regexp_error(pattern: str) -> str | None:
    """What Go's ``regexp.Compile`` says about ``pattern``, or None when it compiles.

    ``error parsing regexp: <code>: `<the offending part>```, with RE2's code translated.
    """
    error = re2_error(pattern)
    if error is None:
        return None
    code, _, fragment = error.partition(": ")
    return f"error parsing regexp: {_GO_ERRORS.get(code, code)}: `{fragment}`"


def _compiled(pattern: str) -> Any:
    """``pattern`` compiled, or the RegexError Go's regexp would give."""
    go_only = go_only_error(pattern)
    if go_only is not None:
        raise RegexError(go_only)
    return compile_re2(pattern)


def find(text: str, pattern: str) -> str:
    """``<string>.find(<regex>)``: the leftmost match, or the empty string."""
    try:
        match = _compiled(pattern).search(text)
    except RegexError as exc:
        raise ValueError(f"Illegal regex: {exc}") from None
    return match.group(0) if match else ""


def find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    """``<string>.findAll(<regex>[, <limit>])`` with Go's ``FindAllString`` semantics."""
    try:
        regex = _compiled(pattern)
    except RegexError as exc:
        raise ValueError(f"Illegal regex: {exc}") from None
    if limit == 0:
        return []
    results: list[str] = []
    position = 0
    previous_end = -1
    while position <= len(text):
        match = regex.search(text, position)
        if match is None:
            break
        start, end = match.span()
        if start == end and start == previous_end:
            # Go skips an empty match right after the previous match.
            position = start + 1
            continue
        results.append(match.group(0))
        if 0 < limit <= len(results):
            break
        previous_end = end
        position = end if end > start else end + 1
    return results
