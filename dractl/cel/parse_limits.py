"""cel-go's parser limits: the expression's size and how deeply it nests.

cel-go's parser (``parser/parser.go``, v0.26, the defaults the DRA compiler keeps) refuses:

- an expression of more than 100,000 code points, before parsing it:
  ``expression code point size exceeds limit: size: N, limit 100000``;
- an expression that nests more than 250 deep, in either of two counts (each error is reported
  alone, without a position: ``ERROR: <input>:-1:0: ...``):

  - while parsing, the depth of each grammar rule (ANTLR's ``recursionListener``): an ``expr``
    inside parentheses, brackets, braces, call arguments or the last branch of ``?:`` is one
    deeper; the left-recursive rules (operators, selections, calls, indexes) and repeated ``!``
    or ``-`` are not: ``expression recursion limit exceeded: 250``;
  - while building the syntax tree, the visitor's depth, which counts each ``?:``, comparison,
    arithmetic operator, selection, method call and index along a path (``&&``, ``||``,
    ``!``, ``-``, parentheses, literals and global calls do not): ``max recursion depth
    exceeded``. ``1 + 1 + ... + 1`` with 251 terms is too deep, ``a.b.c...`` with 251 fields.

cel-cpp's parser stops at 32 levels by a count of its own, well within upstream's; the default
engine hands such an expression to cel-python, whose parse tree :func:`nesting_error` measures.
"""

from __future__ import annotations

from dractl.cel.errors import CelCompileError, CelError

#: cel-go's ``expressionSizeCodePointLimit``.
MAX_CODE_POINTS = 100_000
#: cel-go's ``maxRecursionDepth``, for both counts.
MAX_RECURSION_DEPTH = 250


def _error(message: str) -> CelCompileError:
    # cel-go reports these at no location (common.NoLocation: line -1, column 0) and without a
    # snippet of the expression.
    return CelCompileError(
        f"compilation failed: ERROR: <input>:-1:0: {message}", [CelError(message, -1, 0)]
    )


def size_error(expression: str) -> CelCompileError | None:
    """cel-go's error for an expression of more code points than its parser takes, or None."""
    size = len(expression)
    if size <= MAX_CODE_POINTS:
        return None
    return _error(
        f"expression code point size exceeds limit: size: {size}, limit {MAX_CODE_POINTS}"
    )


def nesting_error(rule_depth: int, visitor_depth: int) -> CelCompileError | None:
    """cel-go's error for an expression whose deepest ``expr`` is ``rule_depth`` levels down
    and whose syntax tree the visitor enters ``visitor_depth`` counted nodes deep, or None."""
    if rule_depth > MAX_RECURSION_DEPTH:
        return _error(f"expression recursion limit exceeded: {MAX_RECURSION_DEPTH}")
    if visitor_depth > MAX_RECURSION_DEPTH:
        return _error("max recursion depth exceeded")
    return None
