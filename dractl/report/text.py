"""Human output: one line per diagnostic, then the source line with a caret (like ruff, rustc)."""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from dractl.diagnostics import Diagnostic
    from dractl.lint.engine import LintResult
    from dractl.report import ReportContext

_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}


def report(result: LintResult, ctx: ReportContext, out: IO[str]) -> None:
    console = Console(
        file=out,
        force_terminal=ctx.color,
        no_color=not ctx.color,
        highlight=False,
        soft_wrap=True,
        width=10_000,
    )
    if not ctx.quiet:
        for diagnostic in result.diagnostics:
            _print(console, diagnostic, ctx)
    summary = result.summary
    parts = [
        f"{summary['errors']} error{'s' if summary['errors'] != 1 else ''}",
        f"{summary['warnings']} warning{'s' if summary['warnings'] != 1 else ''}",
    ]
    if summary["infos"]:
        parts.append(f"{summary['infos']} info")
    checked = (
        f"{summary['objects']} object{'s' if summary['objects'] != 1 else ''} in "
        f"{summary['files']} file{'s' if summary['files'] != 1 else ''}"
    )
    style = "bold red" if summary["errors"] else "bold green"
    if not ctx.quiet or summary["errors"]:
        console.print(f"[{style}]{', '.join(parts)}[/] ({checked})")


def _print(console: Console, d: Diagnostic, ctx: ReportContext) -> None:
    where = str(d.position) if d.position else "<input>"
    sev = d.severity.value
    head = f"[bold]{escape(where)}[/]: [{_STYLE[sev]}]{sev}[/] [dim]{d.rule}[/] {escape(d.message)}"
    console.print(head)
    if d.field and d.type and d.field not in d.message:
        console.print(f"  [dim]field:[/] {escape(d.field)} [dim]({d.type})[/]")
    if d.position is not None:
        source = ctx.line(d.position.file, d.position.line)
        if source is not None:
            number = str(d.position.line)
            pad = " " * len(number)
            console.print(f"[blue]{pad} |[/]")
            console.print(f"[blue]{number} |[/] {escape(source.expandtabs(1))}")
            caret = " " * (d.position.column - 1) + "^"
            console.print(f"[blue]{pad} |[/] [{_STYLE[sev]}]{caret}[/]")
    if d.hint:
        console.print(f"  [cyan]help:[/] {escape(d.hint)}")
