"""Reporters: render a lint result; they never decide anything."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from dractl.lint.engine import LintResult
    from dractl.load import LoadResult


class ReportContext:
    """What a reporter may need besides the diagnostics: source texts and display options."""

    def __init__(self, loaded: LoadResult | None, color: bool = False, quiet: bool = False) -> None:
        self.sources = {f.path: f.text for f in loaded.files} if loaded else {}
        self.color = color
        self.quiet = quiet

    def line(self, path: str, line: int) -> str | None:
        text = self.sources.get(path)
        if text is None:
            return None
        lines = text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else None


Reporter = Callable[["LintResult", "ReportContext", IO[str]], None]


def get_reporter(name: str) -> Reporter:
    if name == "text":
        from dractl.report.text import report
    elif name == "json":
        from dractl.report.json import report
    else:
        raise KeyError(name)
    return report


FORMATS = ("text", "json")
