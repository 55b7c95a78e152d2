"""Reporters: render a lint result; they never decide anything.

Each format is a module with ``report(result, ctx, out)``; :data:`FORMATS` names them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from dractl.lint.engine import LintResult
    from dractl.load import LoadResult

# --format value -> module under dractl.report
FORMATS: dict[str, str] = {
    "text": "text",
    "json": "json",
    "sarif": "sarif",
    "github": "github",
    "junit": "junit",
}


class ReportContext:
    """What a reporter may need besides the diagnostics: source texts and display options."""

    def __init__(
        self,
        loaded: LoadResult | None,
        color: bool = False,
        quiet: bool = False,
    ) -> None:
        self.loaded = loaded
        self.sources = {f.path: f.text for f in loaded.files} if loaded else {}
        self.color = color
        self.quiet = quiet
        self._lines: dict[str, list[str]] = {}

    def line(self, path: str, line: int) -> str | None:
        lines = self._lines.get(path)
        if lines is None:
            text = self.sources.get(path)
            if text is None:
                return None
            lines = self._lines[path] = text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else None


Reporter = Callable[["LintResult", "ReportContext", IO[str]], None]


def get_reporter(name: str) -> Reporter:
    module = importlib.import_module(f"dractl.report.{FORMATS[name]}")
    report: Reporter = module.report
    return report
