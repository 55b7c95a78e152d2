"""GitHub Actions workflow commands: one annotation per diagnostic on the pull request's files.

The syntax is ``::error file=F,line=L,col=C,title=DRA123::message``, with the escaping of the
Actions toolkit: in the message ``%``, ``\\r`` and ``\\n``; in property values also ``:`` and ``,``.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from dractl.diagnostics import Diagnostic
    from dractl.lint.engine import LintResult
    from dractl.report import ReportContext

from dractl.report.escape import visible

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    # other control characters would reach the log viewer raw: made visible as in the text report
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return visible(escaped)


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic) -> str:
    properties = []
    if d.position is not None and d.position.file != "<stdin>":
        properties += [
            f"file={escape_property(d.position.file)}",
            f"line={d.position.line}",
            f"col={d.position.column}",
        ]
    properties.append(f"title={escape_property(d.rule)}")
    message = d.message
    if d.field and d.type and d.field not in message:
        message += f"\nfield: {d.field} ({d.type})"
    if d.hint:
        message += f"\nhelp: {d.hint}"
    return f"::{COMMANDS[d.severity.value]} {','.join(properties)}::{escape_data(message)}"


def report(result: LintResult, ctx: ReportContext, out: IO[str]) -> None:
    for diagnostic in result.diagnostics:
        out.write(annotation(diagnostic) + "\n")
