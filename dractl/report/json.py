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
    keys that are not strings (orjson refuses them): such data is written by json.
    """
    try:
        import orjson
    except ImportError:  # pragma: no cover - a dependency; kept working without it
        return json.dumps(data, indent=2)
    if not _has_float(data):
        try:
            text = orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()
        except TypeError:
            pass
        else:
            if text.isascii() and "\x7f" not in text:
                return text
    return json.dumps(data, indent=2)


_LEAVES = (str, int, bool, type(None))


def _has_float(node: Any) -> bool:
    if isinstance(node, dict):
        children: Any = node.values()
    elif isinstance(node, list | tuple):
        children = node
    else:
        return isinstance(node, float)
    return any(child.__class__ not in _LEAVES and _has_float(child) for child in children)
