"""Lint's diagnostics as LSP diagnostics: rule ID as the code with a link to its documentation,
the severity, the token's range and, for findings that name other objects' places, related
information pointing there."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from lsprotocol import types

from dractl.diagnostics import Diagnostic, Position, Severity
from dractl.server.positions import token_span

if TYPE_CHECKING:
    from dractl.server.workspace import Snapshot

SOURCE = "dractl"
_SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}
# Cross-object messages name the other object's place as "FILE:LINE" or "FILE:LINE:COLUMN"
# (DRA310: 'namespace "x" at ns.yaml:8'); the file must be one of the run's.
_PLACE_RE = re.compile(r"(?P<file>[^\s\"'()`,;]+):(?P<line>\d+)(?::(?P<column>\d+))?")

Units = Callable[[str], int]  # client code units of a string (UTF-16 unless negotiated)


def rule_url(rule_id: str) -> str:
    from dractl.lint.docs import RULES_URL

    return f"{RULES_URL}#{rule_id.lower()}"


class Converter:
    """Turns positions of a snapshot's files into LSP ranges in the client's units."""

    def __init__(self, texts: Mapping[str, str], units: Units, uri: Callable[[str], str]) -> None:
        self._texts = texts
        self._lines: dict[str, list[str]] = {}
        self.units = units
        self.uri = uri

    def line(self, path: str, line: int) -> str:
        """0-based ``line`` of ``path`` ('' beyond the end or for an unknown file)."""
        lines = self._lines.get(path)
        if lines is None:
            lines = self._lines[path] = self._texts.get(path, "").splitlines()
        return lines[line] if 0 <= line < len(lines) else ""

    def position(self, path: str, line: int, column: int) -> types.Position:
        """0-based line and character column as the client counts them."""
        return types.Position(line=line, character=self.units(self.line(path, line)[:column]))

    def token_range(self, position: Position) -> types.Range:
        """The token a 1-based position starts, as a range."""
        line = max(position.line - 1, 0)
        start, end = token_span(self.line(position.file, line), position.column)
        return types.Range(
            start=self.position(position.file, line, start),
            end=self.position(position.file, line, end),
        )


def by_file(snapshot: Snapshot, converter: Converter) -> dict[str, list[types.Diagnostic]]:
    """Every diagnostic of the run under its file's path (every file read is a key)."""
    out: dict[str, list[types.Diagnostic]] = {f.path: [] for f in snapshot.loaded.files}
    files = set(out)
    for diagnostic in snapshot.result.diagnostics:
        if diagnostic.position is None:
            continue  # no place to show it: lint prints such findings without a position
        out.setdefault(diagnostic.position.file, []).append(to_lsp(diagnostic, converter, files))
    return out


def to_lsp(diagnostic: Diagnostic, converter: Converter, files: Iterable[str]) -> types.Diagnostic:
    assert diagnostic.position is not None
    message = diagnostic.message
    if diagnostic.field:
        message += f"\nfield: {diagnostic.field}" + (
            f" ({diagnostic.type})" if diagnostic.type else ""
        )
    if diagnostic.hint:
        message += f"\nhint: {diagnostic.hint}"
    return types.Diagnostic(
        range=converter.token_range(diagnostic.position),
        message=message,
        severity=_SEVERITIES[diagnostic.severity],
        code=diagnostic.rule,
        code_description=types.CodeDescription(href=rule_url(diagnostic.rule)),
        source=SOURCE,
        related_information=_related(diagnostic, converter, set(files)) or None,
    )


def _related(
    diagnostic: Diagnostic, converter: Converter, files: set[str]
) -> list[types.DiagnosticRelatedInformation]:
    """The other places a cross-object finding names: ``related`` when a Diagnostic carries it
    (a sequence of (Position, message)), else the ``FILE:LINE`` places its message names."""
    places: list[tuple[Position, str]] = list(getattr(diagnostic, "related", None) or ())
    if not places:
        for match in _PLACE_RE.finditer(diagnostic.message):
            path = match["file"]
            if path not in files:
                continue
            line = int(match["line"])
            column = (
                int(match["column"]) if match["column"] else _first_column(converter, path, line)
            )
            places.append(
                (Position(path, line, column), _clause(diagnostic.message, match.start()))
            )
    return [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=converter.uri(p.file), range=converter.token_range(p)),
            message=text,
        )
        for p, text in places
    ]


def _clause(message: str, end: int) -> str:
    """What the message says is at a place: the words before it back to the clause's start
    ('(namespace "gpu" at ns.yaml:8' -> 'namespace "gpu"')."""
    start = max(message.rfind(mark, 0, end) for mark in "(;:,") + 1
    text = message[start:end].strip()
    text = text.removesuffix(" at").removesuffix(" in").strip()
    return text or message


def _first_column(converter: Converter, path: str, line: int) -> int:
    text = converter.line(path, line - 1)
    return len(text) - len(text.lstrip()) + 1
