"""Human output: a clickable ``file:line:col`` header per diagnostic, then a code frame.

The frame shows the source line with the offending token underlined (like ruff and rustc), the
apiserver's field path and error type, and the hint. Colour uses plain ANSI escapes, only when
the report context asks for it (a terminal, ``--color``, ``NO_COLOR``). As ruff's, a header
marks a finding ``--fix`` would fix with ``[*]``, and lines after the summary say how many were
fixed and how many ``--fix`` (or ``--unsafe-fixes``) would fix.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

from dractl.report.escape import visible, visible_message

if TYPE_CHECKING:
    from dractl.diagnostics import Diagnostic
    from dractl.lint.engine import LintResult
    from dractl.report import ReportContext

_RESET = "\x1b[0m"
_STYLES = {
    "error": "\x1b[1;31m",
    "warning": "\x1b[1;33m",
    "info": "\x1b[1;34m",
    "bold": "\x1b[1m",
    "dim": "\x1b[2m",
    "gutter": "\x1b[34m",
    "help": "\x1b[36m",
    "ok": "\x1b[1;32m",
}
MAX_SOURCE_WIDTH = 120  # longer source lines are cut around the column


class _Painter:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, style: str, text: str) -> str:
        return f"{_STYLES[style]}{text}{_RESET}" if self.color and text else text


def report(result: LintResult, ctx: ReportContext, out: IO[str]) -> None:
    paint = _Painter(ctx.color)
    errors_only = ctx.quiet
    for diagnostic in result.diagnostics:
        if errors_only:
            if diagnostic.severity.value == "error":
                out.write(_header(diagnostic, paint, result.unsafe_fixes) + "\n")
            continue
        out.write(render(diagnostic, ctx, paint, unsafe_fixes=result.unsafe_fixes))
    summary = result.summary
    if not ctx.quiet or summary["errors"]:
        out.write(summary_line(summary, paint) + "\n")
    if not ctx.quiet:
        for line in fix_lines(result):
            out.write(line + "\n")


def fix_lines(result: LintResult) -> list[str]:
    """What ``--fix`` did, and what it (or ``--unsafe-fixes``) would do with what is left."""
    from dractl.lint.fix import count_fixes

    lines = []
    if result.fixed:
        files = _count(result.fixed_files, "file")
        lines.append(f"Fixed {_count(result.fixed, 'finding')} in {files}.")
    counts = count_fixes(result.diagnostics, result.unsafe_fixes)
    hidden = ""
    if counts.hidden:
        fixes = _count(counts.hidden, "hidden fix", plural="hidden fixes")
        hidden = f"{fixes} can be enabled with the `--unsafe-fixes` option"
    if counts.applicable:
        option = "`--fix --unsafe-fixes` options" if result.unsafe_fixes else "`--fix` option"
        tail = f" ({hidden})" if hidden else ""
        lines.append(f"[*] {counts.applicable} fixable with the {option}{tail}.")
    elif hidden:
        lines.append(f"No fixes available ({hidden}).")
    return lines


def render(
    diagnostic: Diagnostic,
    ctx: ReportContext,
    paint: _Painter | None = None,
    *,
    unsafe_fixes: bool = False,
) -> str:
    """One diagnostic: header, code frame, field and help lines, then a blank line."""
    paint = paint or _Painter(False)
    lines = [_header(diagnostic, paint, unsafe_fixes)]
    position = diagnostic.position
    source = ctx.line(position.file, position.line) if position is not None else None
    notes = []
    if diagnostic.field and diagnostic.type and diagnostic.field not in diagnostic.message:
        notes.append(f"{paint('dim', 'field:')} {visible(diagnostic.field)} ({diagnostic.type})")
    if diagnostic.hint:
        notes.append(f"{paint('help', 'help:')} {visible(diagnostic.hint)}")
    if position is not None and source is not None:
        number = str(position.line)
        pad = " " * len(number)
        bar = paint("gutter", "|")
        shown, column = _window(source.expandtabs(1), position.column)
        width = token_width(shown, column)
        # escapes are wider than the characters they show: the underline moves with them
        before, token = (
            visible(shown[: column - 1]),
            visible(shown[column - 1 : column - 1 + width]),
        )
        shown = before + token + visible(shown[column - 1 + width :])
        underline = " " * len(before) + "^" * max(len(token), 1)
        lines.append(f"{pad} {bar}")
        lines.append(f"{paint('gutter', number)} {bar} {shown}".rstrip())
        lines.append(f"{pad} {bar} {paint(diagnostic.severity.value, underline)}")
        lines.extend(f"{pad} {paint('gutter', '=')} {note}" for note in notes)
    else:
        lines.extend(f"  {paint('gutter', '=')} {note}" for note in notes)
    return "\n".join(lines) + "\n\n"


def _header(d: Diagnostic, paint: _Painter, unsafe_fixes: bool = False) -> str:
    from dractl.lint.fix import wanted

    where = visible(str(d.position), one_line=True) if d.position else "<input>"
    severity = d.severity.value
    message = visible_message(d.message)
    fixable = f"{paint('help', '[*]')} " if wanted(d, unsafe_fixes) else ""
    rule = paint("dim", d.rule)
    return f"{paint('bold', where)}: {paint(severity, severity)} {rule} {fixable}{message}"


def summary_line(summary: dict[str, int], paint: _Painter | None = None) -> str:
    paint = paint or _Painter(False)
    parts = [_count(summary["errors"], "error"), _count(summary["warnings"], "warning")]
    if summary.get("infos"):
        parts.append(_count(summary["infos"], "info", plural="info"))
    checked = f"{_count(summary['objects'], 'object')} in {_count(summary['files'], 'file')}"
    style = "error" if summary["errors"] else ("warning" if summary["warnings"] else "ok")
    return f"{paint(style, ', '.join(parts))} ({checked})"


def _count(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def _window(line: str, column: int) -> tuple[str, int]:
    """Cut a long source line around ``column``; return the text and the column inside it."""
    if len(line) <= MAX_SOURCE_WIDTH:
        return line, column
    start = max(0, column - 1 - MAX_SOURCE_WIDTH // 3)
    end = start + MAX_SOURCE_WIDTH
    text = line[start:end]
    if start > 0:
        text = "…" + text
        column = column - start + 1
    if end < len(line):
        text += "…"
    return text, column


def token_width(line: str, column: int) -> int:
    """How many characters the YAML token at ``column`` (1-based) spans on ``line``.

    A quoted scalar runs to its closing quote, a key to its colon, a plain scalar to the end of
    the line (or to ``,``/``]``/``}`` in flow style, or to a comment); at least 1.
    """
    start = column - 1
    if start >= len(line):
        return 1
    first = line[start]
    if first in "'\"":
        i = start + 1
        while i < len(line):
            if first == '"' and line[i] == "\\":
                i += 2
                continue
            if line[i] == first:
                if first == "'" and i + 1 < len(line) and line[i + 1] == "'":
                    i += 2
                    continue
                return i - start + 1
            i += 1
        return len(line) - start
    if first == "#":  # a comment (suppression directives): all of it
        return len(line.rstrip()) - start
    if first in "-[{|>":
        return 1
    in_flow = any(ch in "[{" for ch in line[:start])
    end = start
    while end < len(line):
        ch = line[end]
        if ch == ":" and (end + 1 == len(line) or line[end + 1] in " \t"):
            break
        if ch == "#" and line[end - 1] in " \t":
            break
        if in_flow and ch in ",]}":
            break
        end += 1
    return max(len(line[start:end].rstrip()), 1)
