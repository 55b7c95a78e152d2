"""Applying lint's fixes (``dractl lint --fix``, ``--diff``, the editor's "fix all"), as ruff does.

A pass takes the fixes of the diagnostics a lint run reported, keeps those that do not overlap
an edit already taken in the same file (the others wait for the next pass), applies them to the
text the diagnostics were found in, reads the files again and lints the set again; passes repeat
until no fix is left or a bound is reached. Only the edited spans change, so comments and layout
stay. A file is never fixed when the loader could not read all of it (syntax errors, duplicate
keys, input limits) or when it is a template: what a fix would change there is not known. A
file that an edit would make unreadable keeps its text.

Nothing here writes: the caller writes the fixed texts (atomically, with ``dractl convert``'s
writer) or prints their diff.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from dractl.diagnostics import Applicability, Diagnostic, Fix, TextEdit
from dractl.lint.engine import NOT_READ_WHOLE, LintResult, fixable_files
from dractl.load import KubeObject, Limits, LoadResult, SourceFile, load_source
from dractl.records import Record

MAX_PASSES = 10  # a fix whose finding comes back would otherwise be applied for ever


def wanted(diagnostic: Diagnostic, unsafe: bool) -> bool:
    """Whether ``diagnostic`` has a fix that a run with (or without) ``--unsafe-fixes`` applies."""
    fix = diagnostic.fix
    return fix is not None and (unsafe or fix.applicability is Applicability.SAFE)


class FixCounts(Record):
    """How many reported diagnostics have a fix that would be applied, and how many more have
    one that only ``--unsafe-fixes`` applies (ruff's "hidden fixes")."""

    __slots__ = ("applicable", "hidden")

    def __init__(self, applicable: int = 0, hidden: int = 0) -> None:
        self.applicable = applicable
        self.hidden = hidden


def count_fixes(diagnostics: Iterable[Diagnostic], unsafe: bool) -> FixCounts:
    applicable = hidden = 0
    for diagnostic in diagnostics:
        if wanted(diagnostic, unsafe):
            applicable += 1
        elif diagnostic.fix is not None:
            hidden += 1
    return FixCounts(applicable, hidden)


# --- edits on text -------------------------------------------------------------------------------


class EditError(ValueError):
    """An edit that does not fit the text it was made for."""


def line_starts(text: str) -> list[int]:
    """The offset of the first character of each line (lines split at ``\\n``)."""
    starts = [0]
    index = text.find("\n")
    while index >= 0:
        starts.append(index + 1)
        index = text.find("\n", index + 1)
    return starts


def offset(text: str, starts: Sequence[int], line: int, column: int) -> int:
    """The offset of 1-based (``line``, ``column``) in ``text``; the end of the text counts."""
    if not 1 <= line <= len(starts) or column < 1:
        raise EditError(f"no line {line} column {column}")
    start = starts[line - 1]
    end = starts[line] - 1 if line < len(starts) else len(text)  # the line's \n, or the end
    if start + column - 1 > end:
        raise EditError(f"no column {column} on line {line}")
    return start + column - 1


def spans(
    text: str, edits: Iterable[TextEdit], starts: Sequence[int] | None = None
) -> list[tuple[int, int, str]]:
    """The edits as (start offset, end offset, content), in text order."""
    starts = line_starts(text) if starts is None else starts
    out = []
    for edit in edits:
        begin = offset(text, starts, edit.line, edit.column)
        end = offset(text, starts, edit.end_line, edit.end_column)
        if end < begin:
            raise EditError(f"an edit ends before it starts at line {edit.line}")
        out.append((begin, end, edit.content))
    out.sort(key=lambda span: (span[0], span[1]))
    return out


def _conflict(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    """Whether two edits cannot both be applied: their spans overlap, or both insert at one
    place (which would come first is not known)."""
    return (a[0] < b[1] and b[0] < a[1]) or a[0] == b[0]


def apply_spans(text: str, chosen: Sequence[tuple[int, int, str]]) -> str:
    """``text`` with non-overlapping spans (in text order) replaced."""
    pieces = []
    last = 0
    for begin, end, content in chosen:
        pieces.append(text[last:begin])
        pieces.append(content)
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def apply_fixes(text: str, fixes: Iterable[Fix]) -> tuple[str, list[Fix]]:
    """``text`` with the fixes that fit it applied, each whole or not at all, in the order given
    (a fix that overlaps one taken before it waits for another pass); and the fixes applied. A
    fix equal to one applied counts as applied: a List's items share their document."""
    starts = line_starts(text)
    taken: list[tuple[int, int, str]] = []
    applied: list[Fix] = []
    for fix in fixes:
        if fix in applied:
            applied.append(fix)
            continue
        try:
            mine = spans(text, fix.edits, starts)
        except EditError:
            continue
        overlapping = any(_conflict(a, b) for i, a in enumerate(mine) for b in mine[i + 1 :])
        if overlapping or any(_conflict(a, b) for a in mine for b in taken):
            continue
        taken.extend(mine)
        applied.append(fix)
    taken.sort(key=lambda span: (span[0], span[1]))
    return apply_spans(text, taken), applied


# --- passes over a run ---------------------------------------------------------------------------


class FixedFile(Record):
    """A file whose text the fixes changed."""

    __slots__ = ("original", "path", "real_path", "text")

    def __init__(self, path: str, real_path: str | None, original: str, text: str) -> None:
        self.path = path  # as the diagnostics name it (``<stdin>`` for standard input)
        self.real_path = real_path  # where it is on disk, None for standard input
        self.original = original
        self.text = text


class FixRun(Record):
    """The fixes of a run: the files they changed, the diagnostics whose fixes were applied (as
    reported before they were), and the set read again with the fixed texts."""

    __slots__ = ("converged", "files", "fixed", "loaded", "result")

    def __init__(
        self,
        loaded: LoadResult,
        result: LintResult,
        files: list[FixedFile],
        fixed: list[Diagnostic],
        converged: bool,
    ) -> None:
        self.loaded = loaded
        self.result = result  # the LintResult of the fixed texts: what is left
        self.files = files
        self.fixed = fixed
        self.converged = converged  # False: fixes were still left after MAX_PASSES


def fix_run(
    loaded: LoadResult,
    result: LintResult,
    lint_again: Callable[[LoadResult], LintResult],
    *,
    unsafe: bool = False,
    limits: Limits | None = None,
    max_passes: int = MAX_PASSES,
) -> FixRun:
    """Apply the fixes of ``result`` (the lint result of ``loaded``) pass after pass;
    ``lint_again`` lints a set read again from the fixed texts, with the run's settings."""
    limits = limits or Limits()
    allowed = fixable_files(loaded)
    originals = {source.path: source.text for source in loaded.files}
    seen: dict[str, set[str]] = {path: {text} for path, text in originals.items()}
    fixed: list[Diagnostic] = []
    converged = False
    for _ in range(max_passes):
        by_file: dict[str, list[Diagnostic]] = {}
        for diagnostic in result.diagnostics:
            position = diagnostic.position
            if position is not None and position.file in allowed and wanted(diagnostic, unsafe):
                by_file.setdefault(position.file, []).append(diagnostic)
        if not by_file:
            converged = True
            break
        texts = {source.path: source.text for source in loaded.files}
        applied_here: dict[str, list[Diagnostic]] = {}
        for path, diagnostics in by_file.items():
            diagnostics.sort(key=_fix_order)
            new_text, applied = apply_fixes(texts[path], [d.fix for d in diagnostics if d.fix])
            if new_text == texts[path] or new_text in seen[path]:
                allowed.discard(path)  # no progress, or back to an earlier text: stop here
                continue
            seen[path].add(new_text)
            texts[path] = new_text
            remaining = list(applied)
            applied_here[path] = []
            for diagnostic in diagnostics:
                if diagnostic.fix in remaining:
                    remaining.remove(diagnostic.fix)
                    applied_here[path].append(diagnostic)
        if not applied_here:
            converged = True
            break
        again = _read_again(loaded, texts, limits)
        broken = _newly_broken(again, applied_here)
        if broken:
            for path in broken:
                texts[path] = next(s.text for s in loaded.files if s.path == path)
                allowed.discard(path)
                del applied_here[path]
            again = _read_again(loaded, texts, limits)
        for path in applied_here:
            fixed.extend(applied_here[path])
        loaded = again
        result = lint_again(loaded)
    files = [
        FixedFile(source.path, source.real_path, originals[source.path], source.text)
        for source in loaded.files
        if source.text != originals[source.path]
    ]
    return FixRun(loaded, result, files, fixed, converged)


def _fix_order(diagnostic: Diagnostic) -> tuple[int, int, str]:
    """Fixes are taken in the order of their first edit (a document's conversion before the
    edits inside it), then by rule."""
    fix = diagnostic.fix
    assert fix is not None
    first = min(((e.line, e.column) for e in fix.edits), default=(0, 0))
    return (first[0], first[1], diagnostic.rule)


def _read_again(loaded: LoadResult, texts: dict[str, str], limits: Limits) -> LoadResult:
    """The files of ``loaded`` read from ``texts``, as lint reads them (no comments); an
    unchanged file is not read again: its objects and the loader's findings are kept."""
    again = LoadResult(
        unreadable=list(loaded.unreadable),
        skipped=list(loaded.skipped),
        diagnostics=[d for d in loaded.diagnostics if d.position is None],
    )
    objects: dict[int, list[KubeObject]] = {}
    for obj in loaded.objects:
        objects.setdefault(id(obj.document.file), []).append(obj)
    found: dict[str, list[Diagnostic]] = {}
    for diagnostic in loaded.diagnostics:
        if diagnostic.position is not None:
            found.setdefault(diagnostic.position.file, []).append(diagnostic)
    for source in loaded.files:
        text = texts[source.path]
        if text == source.text:
            again.files.append(source)
            again.objects += objects.get(id(source), [])
            again.diagnostics += found.pop(source.path, [])  # once for a path named twice
            continue
        new = SourceFile(
            source.path, text, source.format, real_path=source.real_path, bom=source.bom
        )
        load_source(new, limits, again, comments=False)
    return again


def _newly_broken(again: LoadResult, changed: Iterable[str]) -> set[str]:
    """Changed files that the loader can no longer read whole (a fix must never do that)."""
    wanted_paths = set(changed)
    return {
        d.position.file
        for d in again.diagnostics
        if d.rule in NOT_READ_WHOLE and d.position is not None and d.position.file in wanted_paths
    } | {
        source.path
        for source in again.files
        if source.path in wanted_paths and any(doc.error for doc in source.documents)
    }
