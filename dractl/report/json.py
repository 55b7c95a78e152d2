"""The JSON contract of ``dractl lint --format json`` (see docs/lint.md)."""

from __future__ import annotations

import json
from typing import IO, TYPE_CHECKING

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
