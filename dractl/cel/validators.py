"""cel-go's literal validators, which the Kubernetes base environment enables from 1.29 on.

``cel.ASTValidators(ValidateDurationLiterals(), ValidateTimestampLiterals(),
ValidateRegexLiterals(), ValidateHomogeneousAggregateLiterals())`` run after type checking and
turn a bad literal into a compile error: ``invalid duration argument``, ``invalid timestamp
argument``, ``invalid matches argument``, and ``expected type 'A' but found 'B'`` for a list or map
literal whose elements differ in type. Engines that do not run them (cel-cpp has none) get them
here, on the checked syntax tree.
"""

from __future__ import annotations

import re
from datetime import datetime

from dractl.cel.ast import CelType, CheckedAst, Expr
from dractl.cel.engines.cel_expr_errors import go_type_name
from dractl.cel.errors import CelError

_UNIT_NANOSECONDS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 1_000_000_000,
                     "m": 60_000_000_000, "h": 3_600_000_000_000}
_DURATION_PART = r"([0-9]*)(?:\.([0-9]*))?([^0-9.]*)"  # compiled when a selector has a duration
_MIN_UNIX_TIME, _MAX_UNIX_TIME = -62135596800, 253402300799  # cel-go's timestamp range: years 1 to 9999
# time.RFC3339 as Go parses it (fractional seconds allowed, a zone required).
_TIMESTAMP = r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})([.,]\d+)?(Z|[+-]\d{2}:\d{2})$"


def duration_literal_ok(text: str) -> bool:
    """Whether Go's ``time.ParseDuration`` takes ``text``: number+unit pairs (or a bare ``0``)
    whose sum fits int64 nanoseconds (about ±292 years)."""
    body = text[1:] if text[:1] in "+-" else text
    if body == "0":
        return True
    if not body:
        return False
    total = 0
    position = 0
    while position < len(body):
        part = re.compile(_DURATION_PART).match(body, position)
        if part is None or part.end() == position:
            return False
        whole, fraction, unit = part.group(1), part.group(2), part.group(3)
        if (not whole and not fraction) or unit not in _UNIT_NANOSECONDS:
            return False
        scale = _UNIT_NANOSECONDS[unit]
        value = int(whole or "0")
        if value > (1 << 63) // scale:
            return False
        value *= scale
        if fraction:  # Go keeps the digits that fit int64 and adds the fraction in float64
            kept = 0
            digits = 0
            for digit in fraction:
                if kept > ((1 << 63) - 1) // 10:
                    break
                kept = kept * 10 + int(digit)
                digits += 1
            value += int(float(kept) * (scale / 10 ** digits))
            if value > 1 << 63:
                return False
        total += value
        if total > 1 << 63:
            return False
        position = part.end()
    return text.startswith("-") or total <= (1 << 63) - 1


def timestamp_literal_ok(text: str) -> bool:
    """Whether cel-go's ``timestamp(text)`` succeeds: RFC 3339 as Go parses it, years 1 to 9999."""
    match = re.match(_TIMESTAMP, text)
    if not match:
        return False
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    try:
        datetime(year, month, day, hour, minute, min(second, 59))
    except ValueError:
        return False
    return 1 <= year <= 9999 and hour < 24 and minute < 60 and second < 60


def _regex_ok(text: str) -> bool:
    from dractl.cel.regex import re2_error

    return re2_error(text) is None


def timestamp_seconds_ok(seconds: int) -> bool:
    """Whether ``timestamp(<int>)`` is in cel-go's range (years 1 to 9999)."""
    return _MIN_UNIX_TIME <= seconds <= _MAX_UNIX_TIME


# (function, check of a string literal, check of an int literal) in cel-go's order; the literal is
# the call's first argument not counting a member call's target (so ``matches(a, b)`` checks
# ``a``, as cel-go does).
_FORMAT_CHECKS = (
    ("duration", duration_literal_ok, lambda _seconds: False),  # cel-go converts no int to a duration
    ("timestamp", timestamp_literal_ok, timestamp_seconds_ok),
    ("matches", _regex_ok, None),
)


def _position(ast: CheckedAst, expression: str, node: Expr) -> tuple[int, int]:
    from dractl.cel.source_map import expression_line_column

    return expression_line_column(expression, ast.positions.get(node.id, 0))


def literal_errors(ast: CheckedAst, expression: str) -> list[CelError]:
    """The errors cel-go's literal validators report, sorted by position as cel-go prints them."""
    errors: list[CelError] = []
    nodes = ast.root.walk()
    for function, check_text, check_int in _FORMAT_CHECKS:
        for node in nodes:
            if node.kind != "call" or node.name != function or not node.args:
                continue
            literal = node.args[0]
            if literal.kind != "const":
                continue
            value = literal.value
            if isinstance(value, str):
                valid = check_text(value)
            elif check_int is not None and isinstance(value, int) and not isinstance(value, bool):
                valid = check_int(value)
            else:
                continue
            if not valid:
                line, column = _position(ast, expression, literal)
                errors.append(CelError(f"invalid {function} argument", line, column))
    exempt = _inside_format(ast.root)
    for node in nodes:
        if node.id in exempt:
            continue
        if node.kind == "list":
            _homogeneous(ast, expression, list(node.args), node.optional_entries, errors)
        elif node.kind == "map":
            keys = [key for key, _value in node.entries if isinstance(key, Expr)]
            values = [value for _key, value in node.entries]
            _homogeneous(ast, expression, keys, frozenset(), errors, stop=False)
            _homogeneous(ast, expression, values, node.optional_entries, errors, stop=False)
    errors.sort(key=lambda e: (e.line, e.column))
    return errors


def _inside_format(root: Expr) -> set[int]:
    """Ids of list and map literals nested in a ``format`` call, its target included (cel-go
    exempts the whole call)."""
    exempt: set[int] = set()
    for node in root.walk():
        if node.kind != "call" or node.name != "format":
            continue
        exempt.update(child.id for child in node.walk() if child.kind in ("list", "map"))
    return exempt


def _homogeneous(ast: CheckedAst, expression: str, elements: list[Expr], optional: frozenset[int],
                 errors: list[CelError], *, stop: bool = True) -> None:
    """cel-go's homogeneous literal check; an optional entry (``?x``) counts as its value's type."""
    expected: CelType | None = None
    for index, element in enumerate(elements):
        if index in optional and element.kind == "call" and element.name == "optional.none" and not element.args:
            continue  # its type is the other elements' (cel-go binds its parameter to theirs)
        actual = ast.type_of(element)
        if index in optional and actual.kind == "opaque" and actual.name == "optional_type" and actual.params:
            actual = actual.params[0]
        if expected is None:
            expected = actual
            continue
        if expected != actual:  # cel-go's IsEquivalentType: the same type, parameters included
            line, column = _position(ast, expression, element)
            errors.append(CelError(
                f"expected type '{go_type_name(expected)}' but found '{go_type_name(actual)}'",
                line, column))
            if stop:
                return
