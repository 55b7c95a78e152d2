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
from dractl.cel.errors import CelError

# Go's time.ParseDuration: an optional sign, then number+unit pairs, or a bare "0".
_DURATION = re.compile(r"^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$")
_MAX_DURATION_SECONDS = 315_576_000_000  # CEL durations span about ±10,000 years
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
# time.RFC3339 as Go parses it (fractional seconds allowed, a zone required).
_TIMESTAMP = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
)


def _duration_ok(text: str) -> bool:
    if not _DURATION.match(text):
        return False
    seconds = sum(float(number) * _UNIT_SECONDS[unit] for number, unit in _DURATION_PART.findall(text))
    return seconds <= _MAX_DURATION_SECONDS


def _timestamp_ok(text: str) -> bool:
    match = _TIMESTAMP.match(text)
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


# (function, check) in cel-go's order; the literal is the call's first argument not counting a
# member call's target (so ``matches(a, b)`` checks ``a``, as cel-go does).
_FORMAT_CHECKS = (
    ("duration", _duration_ok),
    ("timestamp", _timestamp_ok),
    ("matches", _regex_ok),
)


def _position(ast: CheckedAst, expression: str, node: Expr) -> tuple[int, int]:
    from dractl.cel.source_map import expression_line_column

    return expression_line_column(expression, ast.positions.get(node.id, 0))


def literal_errors(ast: CheckedAst, expression: str) -> list[CelError]:
    """The errors cel-go's literal validators report, sorted by position as cel-go prints them."""
    errors: list[CelError] = []
    nodes = ast.root.walk()
    for function, check in _FORMAT_CHECKS:
        for node in nodes:
            if node.kind != "call" or node.name != function or not node.args:
                continue
            literal = node.args[0]
            if literal.kind != "const" or not isinstance(literal.value, str):
                continue
            if not check(literal.value):
                line, column = _position(ast, expression, literal)
                errors.append(CelError(f"invalid {function} argument", line, column))
    exempt = _inside_format(ast.root)
    for node in nodes:
        if node.id in exempt:
            continue
        if node.kind == "list":
            _homogeneous(ast, expression, list(node.args), errors)
        elif node.kind == "map":
            keys = [key for key, _value in node.entries if isinstance(key, Expr)]
            values = [value for _key, value in node.entries]
            _homogeneous(ast, expression, keys, errors, stop=False)
            _homogeneous(ast, expression, values, errors, stop=False)
    errors.sort(key=lambda e: (e.line, e.column))
    return errors


def _inside_format(root: Expr) -> set[int]:
    """Ids of list and map literals nested in a ``format`` call (cel-go exempts them)."""
    exempt: set[int] = set()
    for node in root.walk():
        if node.kind != "call" or node.name != "format":
            continue
        stack = list(node.args)
        while stack:
            child = stack.pop()
            if child.kind in ("list", "map"):
                exempt.add(child.id)
                stack.extend(child.children())
    return exempt


def _homogeneous(ast: CheckedAst, expression: str, elements: list[Expr], errors: list[CelError],
                 *, stop: bool = True) -> None:
    expected: CelType | None = None
    for element in elements:
        actual = ast.type_of(element)
        if actual.kind == "opaque" and actual.name == "optional_type" and actual.params:
            actual = actual.params[0]
        if expected is None:
            expected = actual
            continue
        if expected != actual:  # cel-go's IsEquivalentType: the same type, parameters included
            line, column = _position(ast, expression, element)
            errors.append(CelError(
                f"expected type '{expected}' but found '{actual}'",
                line, column))
            if stop:
                return


# The Kubernetes regex library compiles constant patterns of ``find`` and ``findAll`` when the
# program is built (cel.OptimizeRegex); a bad one fails the program, which upstream reports as
# an internal error (``program instantiation failed: ...``).
_CONSTANT_REGEX_FUNCTIONS = ("find", "findAll")


def program_error(ast: CheckedAst, expression: str) -> CelError | None:
    """Why building the program fails, as cel-go words it, at the pattern; or None."""
    from dractl.cel.regex import go_regexp_error

    for node in ast.root.walk():
        if node.kind != "call" or node.name not in _CONSTANT_REGEX_FUNCTIONS or node.operand is None:
            continue
        pattern = node.args[0] if node.args else None
        if pattern is None or pattern.kind != "const" or not isinstance(pattern.value, str):
            continue
        error = go_regexp_error(pattern.value)
        if error is not None:
            line, column = _position(ast, expression, pattern)
            return CelError(error, line, column)
    return None
