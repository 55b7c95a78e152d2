"""The JSON contract of ``dractl lint --format json`` (see docs/lint.md)."""

from __future__ import annotations

import json
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dractl.lint.engine import LintResult
    from dractl.report import ReportContext

SCHEMA_VERSION = 1


def report(result: LintResult, ctx: ReportContext, out: IO[str]) -> None:
    payload = {
        "version": SCHEMA_VERSION,
        "diagnostics": [d.to_json() for d in result.diagnostics],
        "summary": result.summary,
    }
    json.dump(payload, out, indent=2)
    out.write("\n")


def dumps(data: Any) -> str:
    """``json.dumps(data, indent=2)``: the same text, written by orjson where it writes the same.

    The standard library's encoder is pure Python once it indents (an explanation of 1,000 nodes
    takes 0.1 s); orjson takes a twentieth of that. The two differ on floats (exponents, NaN),
    on characters beyond ASCII and DEL (which json escapes), on integers beyond 64 bits and on
    keys that are not strings (orjson refuses them): such data is written by json, and so is
    small data (importing orjson, with the uuid and platform modules it imports, costs more
    than json takes for a few thousand values).
    """
    if _size_without_floats(data) < _ORJSON_FROM:
        return json.dumps(data, indent=2)
    try:
        import orjson
    except ImportError:  # pragma: no cover - a dependency; kept working without it
        return json.dumps(data, indent=2)
    try:
        text = orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()
    except TypeError:
        return json.dumps(data, indent=2)
    if text.isascii() and "\x7f" not in text:
        return text
    return json.dumps(data, indent=2)


_ORJSON_FROM = 20_000  # containers and values
_LEAVES = (str, int, bool, type(None))
_FLOAT = -(10**18)  # a float anywhere makes the count negative


def _size_without_floats(node: Any) -> int:
    """The number of containers and values in ``node``, or a negative number if one is a float."""
    if isinstance(node, dict):
        children: Any = node.values()
    elif isinstance(node, list | tuple):
        children = node
    else:
        return _FLOAT if isinstance(node, float) else 1
    total = 1
    for child in children:
        total += 1 if child.__class__ in _LEAVES else _size_without_floats(child)
    return total
