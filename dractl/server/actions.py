"""Code actions: each finding's fix as a quick fix, "Fix all dractl safe fixes" (what
``dractl lint --fix`` does to the file), and "Convert this document to v1" with ``dractl
convert``'s machinery on the buffer's text (comments and layout kept; nothing offered when the
conversion would lose a field).

Quick fixes come from the last lint run, which the request brings up to date first, so their
edits fit the text the editor shows. Safe fixes are the preferred action of their finding; an
unsafe one (it changes what the cluster grants) is offered but never preferred.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lsprotocol import types

from dractl.records import Record

if TYPE_CHECKING:
    from dractl.diagnostics import Diagnostic, Fix, TextEdit
    from dractl.load import Document, Limits
    from dractl.server.server import DractlServer
    from dractl.server.workspace import Snapshot

TARGET = "v1"
FIX_ALL = "source.fixAll.dractl"
FIX_ALL_TITLE = "Fix all dractl safe fixes"
# Findings whose fix is the conversion of their document (lint's editor runs do not work it out:
# the conversion is offered from the buffer when asked for).
VERSION_RULES = frozenset(("DRA400", "DRA401", "DRA402"))
KINDS = [types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite, FIX_ALL]


class Replacement(Record):
    """The buffer's text from the start of line ``start`` to (``end_line``, ``end_column``)
    (0-based, characters) becomes ``text``."""

    __slots__ = ("end_column", "end_line", "start", "text", "title")

    def __init__(self, title: str, start: int, end_line: int, end_column: int, text: str) -> None:
        self.title = title
        self.start = start
        self.end_line = end_line
        self.end_column = end_column
        self.text = text


def conversions(path: str, text: str, first_line: int, last_line: int) -> list[Replacement]:
    """A conversion to v1 of each document of the buffer that lines ``first_line`` to
    ``last_line`` (0-based, inclusive) touch and that convert would change."""
    from dractl.convert.engine import Options, Status, convert_file
    from dractl.load import SourceFile, load_text

    loaded = load_text(text, path)  # with comments: convert keeps them
    if not loaded.files or loaded.files[0].template:
        return []
    source = loaded.files[0]
    out = []
    for document in source.documents:
        start = document.start_line
        end_line, end_column = _end(document)
        last = end_line - 1 if end_column == 0 else end_line
        if document.raw is None or last < first_line or start > last_line:
            continue
        alone = SourceFile(path, document.text, source.format, documents=[document], real_path=path)
        converted = convert_file(alone, Options(TARGET))
        if converted.status is not Status.CONVERTED:
            continue
        what = _what(document)
        out.append(
            Replacement(f"Convert {what} to {TARGET}", start, end_line, end_column, converted.text)
        )
    return out


def to_v1(document: Document) -> str | None:
    from dractl.convert.engine import convert_document

    return convert_document(document, TARGET)


def fixed_text(snapshot: Snapshot, path: str, text: str, limits: Limits | None) -> str | None:
    """The buffer with every safe fix applied, as ``dractl lint --fix`` of the file would
    leave it (conversions included); None when nothing changes. The file is linted alone, with
    the settings of its run: the rules with fixes judge one object at a time."""
    from dractl.lint.engine import LintResult, lint
    from dractl.lint.fix import fix_run
    from dractl.load import Limits, LoadResult, SourceFile, load_source

    limits = limits or Limits()
    read = next((f for f in snapshot.loaded.files if f.path == path), None)
    fmt = read.format if read is not None else "json" if path.lower().endswith(".json") else "yaml"
    real_path = read.real_path if read is not None else None
    loaded = LoadResult()
    load_source(SourceFile(path, text, fmt, real_path=real_path), limits, loaded, comments=False)

    def again(files: LoadResult) -> LintResult:
        return lint(files, snapshot.settings, converter=to_v1)

    run = fix_run(loaded, again(loaded), again, limits=limits)
    return run.files[0].text if run.files else None


# --- the LSP request ---------------------------------------------------------------------------


def code_actions(ls: DractlServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The actions for a range of a buffer, of the kinds the client asks for."""
    from dractl.server.keys import key_of

    uri = params.text_document.uri
    path = key_of(uri)  # as the lint run names the document: a file's path, else its URI
    buffer = ls.workspace.get_text_document(uri)
    lines = buffer.source.split("\n")
    units = ls.workspace.position_codec.client_num_units

    def position(line: int, column: int) -> types.Position:
        text = lines[line] if line < len(lines) else ""
        return types.Position(line=line, character=units(text[:column]))

    where = buffer.range_from_client_units(params.range)
    only = params.context.only

    def wanted(kind: str) -> bool:
        return only is None or any(kind == k or kind.startswith(f"{k}.") for k in only)

    snapshot = ls.flush(uri) if wanted(types.CodeActionKind.QuickFix) or wanted(FIX_ALL) else None
    actions: list[types.CodeAction] = []
    converted_here: set[int] = set()  # documents (by first line) already offered as a quick fix
    if snapshot is not None and wanted(types.CodeActionKind.QuickFix):
        lsp = _lsp_diagnostic(ls, snapshot)
        for diagnostic in _findings_at(snapshot, path, where.start.line, where.end.line):
            if diagnostic.fix is not None:
                edits = [_text_edit(edit, position) for edit in diagnostic.fix.edits]
                actions.append(_quick_fix(diagnostic.fix, edits, uri, lsp(diagnostic)))
            elif diagnostic.rule in VERSION_RULES:
                assert diagnostic.position is not None
                line = diagnostic.position.line - 1
                for found in conversions(path, buffer.source, line, line):
                    if found.start in converted_here:
                        continue
                    converted_here.add(found.start)
                    action = _conversion(found, uri, position, types.CodeActionKind.QuickFix)
                    action.diagnostics = [lsp(diagnostic)]
                    action.is_preferred = True
                    actions.append(action)
    if wanted(types.CodeActionKind.RefactorRewrite):
        for found in conversions(path, buffer.source, where.start.line, where.end.line):
            if found.start not in converted_here:
                kind = types.CodeActionKind.RefactorRewrite
                actions.append(_conversion(found, uri, position, kind))
    # "Fix all" lints the file again pass after pass: only for a client that asks for it by kind
    # (a source action menu, fix on save), not for every light bulb.
    asked = only is not None and wanted(FIX_ALL)
    if snapshot is not None and asked and _has_safe_fix(snapshot, path):
        from dractl.server.isolated import run

        # forked, as the checks are: the CEL engine leaks what a lint of slices evaluates
        fixed = run(lambda: fixed_text(snapshot, path, buffer.source, ls.limits))
        if fixed is not None:
            edit = _changed_lines(buffer.source, fixed, position)
            actions.append(
                types.CodeAction(
                    title=FIX_ALL_TITLE,
                    kind=FIX_ALL,
                    edit=types.WorkspaceEdit(changes={uri: [edit]}),
                )
            )
    return actions


Positioner = Callable[[int, int], types.Position]  # 0-based line and character -> client's


def _findings_at(snapshot: Snapshot, path: str, first: int, last: int) -> list[Diagnostic]:
    """The run's findings in ``path`` on 0-based lines ``first`` to ``last``."""
    return [
        d
        for d in snapshot.result.diagnostics
        if d.position is not None
        and d.position.file == path
        and first <= d.position.line - 1 <= last
    ]


def _has_safe_fix(snapshot: Snapshot, path: str) -> bool:
    from dractl.diagnostics import Applicability

    return any(
        d.position is not None
        and d.position.file == path
        and (
            (d.fix is not None and d.fix.applicability is Applicability.SAFE)
            or d.rule in VERSION_RULES
        )
        for d in snapshot.result.diagnostics
    )


def _lsp_diagnostic(
    ls: DractlServer, snapshot: Snapshot
) -> Callable[[Diagnostic], types.Diagnostic]:
    """The finding as the server published it (an action names the diagnostics it fixes)."""
    from dractl.server.diagnostics import to_lsp

    converter = ls.converter(snapshot)
    files = {f.path for f in snapshot.loaded.files}
    return lambda diagnostic: to_lsp(diagnostic, converter, files)


def _text_edit(edit: TextEdit, position: Positioner) -> types.TextEdit:
    return types.TextEdit(
        range=types.Range(
            start=position(edit.line - 1, edit.column - 1),
            end=position(edit.end_line - 1, edit.end_column - 1),
        ),
        new_text=edit.content,
    )


def _quick_fix(
    fix: Fix, edits: list[types.TextEdit], uri: str, diagnostic: types.Diagnostic
) -> types.CodeAction:
    from dractl.diagnostics import Applicability

    safe = fix.applicability is Applicability.SAFE
    return types.CodeAction(
        title=fix.title if safe else f"{fix.title} (unsafe)",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        is_preferred=safe,
        edit=types.WorkspaceEdit(changes={uri: edits}),
    )


def _conversion(found: Replacement, uri: str, position: Positioner, kind: str) -> types.CodeAction:
    edit = types.TextEdit(
        range=types.Range(
            start=types.Position(line=found.start, character=0),
            end=position(found.end_line, found.end_column),
        ),
        new_text=found.text,
    )
    return types.CodeAction(
        title=found.title, kind=kind, edit=types.WorkspaceEdit(changes={uri: [edit]})
    )


def _changed_lines(before: str, after: str, position: Positioner) -> types.TextEdit:
    """One edit that turns ``before`` into ``after``, spanning the whole lines that differ
    (the editor keeps the cursor and folds of the lines around them)."""
    old, new = before.split("\n"), after.split("\n")
    same = min(len(old), len(new))
    head = 0
    while head < same - 1 and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < same - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    if tail:
        # lines head to len(old) - tail (exclusive) become new ones: whole lines and their breaks
        end = types.Position(line=len(old) - tail, character=0)
        text = "".join(line + "\n" for line in new[head : len(new) - tail])
    else:
        end = position(len(old) - 1, len(old[-1]))
        text = "\n".join(new[head:])
    return types.TextEdit(
        range=types.Range(start=types.Position(line=head, character=0), end=end), new_text=text
    )


def _end(document: Document) -> tuple[int, int]:
    """Where the document's text ends: the start of the line after it, or the end of its last
    line when the file ends without a line break."""
    text = document.text
    last = text.rpartition("\n")[2]
    return document.start_line + text.count("\n"), len(last)


def _what(document: Document) -> str:
    raw = document.raw
    if isinstance(raw, dict):
        kind = raw.get("kind")
        metadata = raw.get("metadata")
        name = metadata.get("name") if isinstance(metadata, dict) else None
        if isinstance(kind, str):
            return f"{kind} {name}" if isinstance(name, str) else kind
    return "this document"
