"""Newcomer help on what the loader reports: where a template starts, which key was misspelt.

The loader says *that* a document is a template (DRA003) or lacks `apiVersion`/`kind` (DRA004)
and points at the document's first line. Someone new to Kubernetes needs *where*: the first
`{{` of the template, and the key written instead (`apiversion`: keys are case-sensitive).
The loader keeps no tree for such documents, so this reads the document's text; it changes a
diagnostic's message and position only, never whether there is one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from dractl.diagnostics import Diagnostic, Position
from dractl.lint.rules._common import did_you_mean
from dractl.records import replace

if TYPE_CHECKING:
    from dractl.load import LoadResult
    from dractl.load.documents import Document

# A key at the top of a YAML document (column 1), quoted or not.
_TOP_KEY_RE = re.compile(
    r"""^(?:"([^"\n]*)"|'([^'\n]*)'|([^\s#'"{\[\-?:][^:\n#]*?))[ \t]*:(?:[ \t]|$)""", re.M
)
_MISSING_RE = re.compile(
    r"^not a Kubernetes object: (apiVersion|kind)(?: and (kind))? (?:is|are) missing"
)


def refine(diagnostics: Iterable[Diagnostic], loaded: LoadResult) -> Iterator[Diagnostic]:
    """The loader's diagnostics, DRA003 and DRA004 made more precise where the text allows."""
    for d in diagnostics:
        if d.rule in ("DRA003", "DRA004") and d.position is not None:
            doc = _document(loaded, d.position)
            if doc is not None:
                d = _template_start(d, doc) if d.rule == "DRA003" else _misspelt_key(d, doc)
        yield d


def _document(loaded: LoadResult, position: Position) -> Document | None:
    """The document the diagnostic is in: the one that starts on its line (the loader places
    DRA003 there), else the one whose lines hold it (DRA004 is at the first key)."""
    for source in loaded.files:
        if source.path != position.file:
            continue
        for doc in source.documents:
            if doc.start_line + 1 == position.line:
                return doc
        for doc in source.documents:
            lines = doc.text.count("\n") + (0 if doc.text.endswith("\n") else 1)
            if doc.start_line + 1 <= position.line <= doc.start_line + max(lines, 1):
                return doc
    return None


def _template_start(d: Diagnostic, doc: Document) -> Diagnostic:
    offset = doc.text.find("{{")
    if offset < 0:
        return d
    before = doc.text[:offset]
    line = doc.start_line + before.count("\n") + 1
    column = offset - (before.rfind("\n") + 1) + 1
    return replace(d, position=Position(d.position.file, line, column))  # type: ignore[union-attr]


def _misspelt_key(d: Diagnostic, doc: Document) -> Diagnostic:
    match = _MISSING_RE.match(d.message)
    if match is None or d.position is None or d.position.column != 1:
        return d  # an item of a List, or another complaint: the document's own keys say nothing
    keys: dict[str, tuple[int, int]] = {}
    for key in _TOP_KEY_RE.finditer(doc.text):
        name = next(g for g in key.groups() if g is not None).strip()
        before = doc.text[: key.start()]
        keys.setdefault(name, (doc.start_line + before.count("\n") + 1, 1))
    found: list[tuple[str, str]] = []
    for wanted in filter(None, match.groups()):
        written = next((k for k in keys if k.lower() == wanted.lower() and k != wanted), None)
        if written is None:
            suggestion = did_you_mean(wanted, keys)
            named = suggestion.split('"')[1] if suggestion and suggestion.count('"') >= 2 else None
            written = named if named in keys else None
        if written is not None:
            found.append((wanted, written))
    if not found:
        return d
    text = "; ".join(
        f'found "{written}" instead of "{wanted}"'
        + (" (keys are case-sensitive)" if written.lower() == wanted.lower() else "")
        for wanted, written in found
    )
    line, column = keys[found[0][1]]
    return replace(
        d,
        message=f"{d.message}: {text}",
        position=Position(d.position.file, line, column),
        hint=f"rename {found[0][1]} to {found[0][0]}",
    )
