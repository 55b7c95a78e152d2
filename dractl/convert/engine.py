"""Converting loaded files: plan each document, rewrite the ones that change, check the result.

Every rewritten document is read back with the project's loader and compared with what the plan
says the object must become; the in-place text edit is kept only when they agree, otherwise the
document is written anew in the file's style (and that is checked the same way).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from dractl.api.paths import format_path
from dractl.convert.apply import apply_to_data, apply_to_tree
from dractl.convert.plan import (
    Edit,
    Finding,
    Insert,
    SetScalar,
    SetVersion,
    Severity,
    TreePath,
    plan_document,
)
from dractl.diagnostics import Position
from dractl.load import Document, Limits, LoadResult, SourceFile, load_source


@dataclass(frozen=True)
class Options:
    target: str = "v1"
    allow_lossy: bool = False
    apply_defaults: bool = False


class Status(enum.Enum):
    CONVERTED = "converted"  # the text changes
    UNCHANGED = "unchanged"  # nothing to convert
    BLOCKED = "blocked"  # a field would be lost (exit 1); nothing written
    FAILED = "failed"  # unreadable, removed version, malformed (exit 2); nothing written
    SKIPPED = "skipped"  # a template: left alone


@dataclass(frozen=True)
class Message:
    severity: Severity
    position: Position
    text: str

    def __str__(self) -> str:
        return f"{self.position}: {self.severity.value}: {self.text}"


@dataclass
class FileConversion:
    source: SourceFile
    text: str
    status: Status
    messages: list[Message] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.status is Status.CONVERTED


class ConversionError(Exception):
    """A document that cannot be rewritten; ``position`` says where, when known."""

    def __init__(self, message: str, position: Position | None = None) -> None:
        super().__init__(message)
        self.position = position


def convert_loaded(loaded: LoadResult, options: Options) -> list[FileConversion]:
    """Convert every file of ``loaded``, in order."""
    return [convert_file(source, options) for source in loaded.files]


def convert_read_fast(loaded: LoadResult, options: Options, limits: Limits) -> list[FileConversion]:
    """:func:`convert_loaded` for files read without comments (``load_paths(comments=False)``,
    libyaml's reader, ten times faster on large inputs): a file with nothing to convert is
    answered from that reading (unchanged, its text as it was); a file with something to
    convert, a finding or a problem is read again with its comments, which convert keeps, and
    converted from that reading, as if it had been read so in the first place."""
    results = []
    for source in loaded.files:
        if source.template or not _needs_round_trip(source, options):
            results.append(convert_file(source, options))
            continue
        again = SourceFile(source.path, source.text, source.format, real_path=source.real_path, bom=source.bom)
        load_source(again, limits, LoadResult(), comments=True)
        results.append(convert_file(again, options))
    return results


def _needs_round_trip(source: SourceFile, options: Options) -> bool:
    """Whether converting ``source`` may do more than keep its text: a document to edit, a
    finding to report (with the comment-keeping reader's positions), or one it cannot read."""
    if options.apply_defaults:
        return True
    for document in source.documents:
        if document.error is not None:
            return True
        if document.raw is None:
            continue
        plan = plan_document(document.raw, options.target, allow_lossy=options.allow_lossy)
        if plan.edits or plan.findings or plan.blocked:
            return True
    return False


def convert_file(source: SourceFile, options: Options) -> FileConversion:
    """Convert every document of ``source``; unchanged documents keep their exact text."""
    if source.template:
        message = Message(
            Severity.SKIPPED,
            Position(source.path, 1, 1),
            "Helm or Go template ({{ ... }}): left unchanged; convert the templates' output or "
            "edit the template by hand",
        )
        return FileConversion(source, source.text, Status.SKIPPED, [message])
    messages: list[Message] = []
    pieces: list[str] = []
    failed = blocked = False
    for document in source.documents:
        if document.error is not None:
            position = document.error_position or Position(source.path, document.start_line + 1, 1)
            messages.append(Message(Severity.ERROR, position, document.error))
            failed = True
            pieces.append(document.text)
            continue
        if document.raw is None:
            pieces.append(document.text)
            continue
        plan = plan_document(document.raw, options.target, allow_lossy=options.allow_lossy)
        messages += [_message(document, finding) for finding in plan.findings]
        if any(f.severity is Severity.ERROR for f in plan.findings):
            failed = True
        elif plan.blocked:
            blocked = True
        if failed or blocked:
            pieces.append(document.text)
            continue
        try:
            text, warnings = _rewrite(document, plan.edits, options)
            pieces.append(text)
            messages += warnings
        except ConversionError as error:
            position = error.position or document.position(())
            messages.append(Message(Severity.ERROR, position, str(error)))
            failed = True
            pieces.append(document.text)
    if failed:
        return FileConversion(source, source.text, Status.FAILED, messages)
    if blocked:
        return FileConversion(source, source.text, Status.BLOCKED, messages)
    text = "".join(pieces)
    status = Status.CONVERTED if text != source.text else Status.UNCHANGED
    return FileConversion(source, text, status, messages)


def convert_document(document: Document, target: str = "v1") -> str | None:
    """One document of a lint run (read without comments) converted to ``target`` as
    ``dractl convert`` writes it: read again with its comments, which convert keeps. None when
    convert would not write it (a field would be lost, or it cannot be rewritten). Lint's
    version fixes and the editor's quick fixes use it."""
    file = document.file
    source = SourceFile(file.path, document.text, file.format, real_path=file.real_path)
    loaded = LoadResult()
    load_source(source, Limits(), loaded, comments=True)
    if loaded.failed or source.template:
        return None
    converted = convert_file(source, Options(target))
    return converted.text if converted.status is Status.CONVERTED else None


def _message(document: Document, finding: Finding) -> Message:
    return Message(finding.severity, document.position(finding.path), finding.message)


def _rewrite(document: Document, edits: list[Edit], options: Options) -> tuple[str, list[Message]]:
    """The new text of ``document`` and warnings about its layout."""
    defaults = options.apply_defaults
    if not edits and not defaults:
        return document.text, []
    _refuse_merge_keys(document, edits)
    _refuse_shared_mappings(document, edits)
    expected = apply_to_data(document.raw, edits)
    if defaults:
        expected = _defaulted(document.raw, expected, options.target)
    if expected == apply_to_data(document.raw, []):
        return document.text, []
    if document.file.format == "json":
        if all(isinstance(edit, SetVersion) for edit in edits) and not defaults:
            return _checked(_edit_in_place(document, edits), expected, document), []
        from dractl.convert.emit import emit_json

        return _checked(emit_json(expected, document.text), expected, document), []
    text, why = _edit_or_emit(
        document, document.text, document.raw, edits, apply_to_data(document.raw, edits)
    )
    if defaults:
        reread = _reread(text, document)
        default_edits = _default_edits(reread, expected)
        text, why_defaults = _edit_or_emit(document, text, reread, default_edits, expected)
        why = why or why_defaults
    messages = []
    if why is not None:
        messages.append(
            Message(
                Severity.NOTE,
                document.position(()),
                f"document written anew in the file's indentation ({why})",
            )
        )
    return text, messages + _comment_warnings(document, text)


def _refuse_merge_keys(document: Document, edits: list[Edit]) -> None:
    """Mappings filled from a YAML merge key (``<<: *anchor``) cannot be restructured in text."""
    for edit in edits:
        node = document.raw
        for part in edit.path:
            if getattr(node, "merge", None):
                break
            node = node[part]
        if getattr(node, "merge", None):
            raise ConversionError(
                "a YAML merge key (<<) fills this mapping, which must be restructured; "
                "write its fields out, then convert again",
                document.position(edit.path),
            )


def _refuse_shared_mappings(document: Document, edits: list[Edit]) -> None:
    """A mapping that a YAML alias repeats (``&r {...}`` then ``*r``) is one node in two places:
    the edits of both places would restructure it twice, and the text has one of it to edit."""
    seen: dict[int, tuple[Any, ...]] = {}
    for edit in edits:
        node = document.raw
        for part in edit.path:
            node = node[part]
        first = seen.setdefault(id(node), edit.path)
        if first != edit.path:
            raise ConversionError(
                f"a YAML alias makes {format_path(first)} and {format_path(edit.path)} one "
                "mapping, which must be restructured in each place; write it out where the alias "
                "is, then convert again",
                document.position(first),
            )


def _comment_warnings(document: Document, text: str) -> list[Message]:
    from dractl.convert.textedit import count_comments

    lost = count_comments(document.text) - count_comments(text)
    if lost <= 0:
        return []
    return [
        Message(
            Severity.WARNING,
            document.position(()),
            f"{lost} comment{'s' if lost != 1 else ''} could not be kept: the layout needed "
            "the whole document to be written anew",
        )
    ]


def _edit_or_emit(
    document: Document, text: str, tree: Any, edits: list[Edit], expected: Any
) -> tuple[str, str | None]:
    """The edited text, and why it had to be written anew (None when edited in place)."""
    from dractl.convert.emit import detect_indentation, emit_yaml
    from dractl.convert.textedit import Unsupported, edit_text

    if not edits:
        return text, None
    indentation = detect_indentation(tree)
    try:
        edited = edit_text(text, tree, edits, indent=indentation.mapping)
        quick = _same_after_edits(text, edited, edits)
        if quick or (quick is None and _reads_as(edited, expected, document)):
            return edited, None
        why = "an in-place edit did not read back as the converted object"
    except Unsupported as error:
        why = str(error)
    emitted = emit_yaml(apply_to_tree(tree, edits), text, indentation)
    return _checked(emitted, expected, document), why


def _edit_in_place(document: Document, edits: list[Edit]) -> str:
    from dractl.convert.textedit import Unsupported, edit_text

    try:
        return edit_text(document.text, document.raw, edits)
    except Unsupported as error:
        raise ConversionError(f"cannot rewrite this document: {error}") from error


def _reread(text: str, document: Document) -> Any:
    """The tree of a rewritten document, read by the project's loader."""
    from dractl.load import load_text

    path = "<converted>.json" if document.file.format == "json" else "<converted>"
    result = load_text(text, path)
    trees = [d.raw for d in result.files[0].documents if d.raw is not None]
    if result.failed or len(trees) != 1:
        return _UNREADABLE
    return trees[0]


_UNREADABLE = object()


def _reads_as(text: str, expected: Any, document: Document) -> bool:
    tree = _reread(text, document)
    return tree is not _UNREADABLE and apply_to_data(tree, []) == expected


def _same_after_edits(before: str, after: str, edits: list[Edit]) -> bool | None:
    """Whether ``after`` reads as ``before`` with ``edits`` applied, by libyaml (fast; the edits
    move text but never rewrite a scalar, so any YAML 1.1 reader compares them fairly); None
    when that cannot be decided here."""
    try:
        import yaml
    except ImportError:
        return None
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        old = yaml.load(before, Loader=loader)
        new = yaml.load(after, Loader=loader)
        return apply_to_data(new, []) == apply_to_data(old, edits)
    # RecursionError: libyaml builds a recursive alias (`a: &a {b: *a}`) as a real cycle
    except (yaml.YAMLError, KeyError, IndexError, TypeError, ValueError, RecursionError):
        return None


def _checked(text: str, expected: Any, document: Document) -> str:
    if not _reads_as(text, expected, document):
        raise ConversionError(
            "internal error: the converted document does not read back as the converted object; "
            "nothing was written for this file (please report it)"
        )
    return text


# --- defaults ------------------------------------------------------------------------------------


def _defaulted(raw: Any, converted: Any, target: str) -> Any:
    """``converted`` with the apiserver's defaults for the object's own (source) version."""
    from dractl.api.defaults import apply_defaults
    from dractl.convert.plan import split_api_version

    if not isinstance(raw, dict):
        return converted
    if raw.get("kind") in ("List",) or str(raw.get("kind", "")).endswith("List"):
        items = converted.get("items")
        raw_items = raw.get("items")
        if isinstance(items, list) and isinstance(raw_items, list):
            converted = dict(converted)
            converted["items"] = [
                _defaulted(r, c, target) if isinstance(r, dict) else c
                for r, c in zip(raw_items, items, strict=False)
            ]
        return converted
    parts = split_api_version(raw.get("apiVersion"))
    kind = raw.get("kind")
    if parts is None or parts[0] != "resource.k8s.io" or not isinstance(kind, str):
        return converted
    source_version = parts[1]
    as_v1 = apply_to_data(converted, plan_document(converted, "v1").edits)
    defaulted = apply_defaults(kind, as_v1, source_version)
    if target == "v1":
        return defaulted
    return apply_to_data(defaulted, plan_document(defaulted, target).edits)


def _default_edits(tree: Any, expected: Any) -> list[Edit]:
    """Scalar insertions and replacements that turn ``tree`` into ``expected``."""
    edits: list[Edit] = []

    def walk(node: Any, want: Any, path: TreePath) -> None:
        if isinstance(node, dict) and isinstance(want, dict):
            for key, value in want.items():
                if key not in node:
                    edits.append(Insert(path, key, value))
                elif isinstance(value, dict | list):
                    walk(node[key], value, (*path, key))
                elif apply_to_data(node[key], []) != value:
                    edits.append(SetScalar(path, key, value))
        elif isinstance(node, list) and isinstance(want, list):
            for index, (item, wanted) in enumerate(zip(node, want, strict=False)):
                walk(item, wanted, (*path, index))

    walk(tree, expected, ())
    return edits
