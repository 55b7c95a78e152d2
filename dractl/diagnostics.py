"""The one currency between checks and reporters."""

from __future__ import annotations

import enum
from functools import total_ordering

from dractl.records import Record


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 2, "warning": 1, "info": 0}[self.value]


@total_ordering
class Position(Record):
    """A place in an input file; line and column are 1-based. Ordered by file, line, column."""

    __slots__ = ("column", "file", "line")
    __hash__ = Record.value_hash

    def __init__(self, file: str, line: int, column: int) -> None:
        self.file = file
        self.line = line
        self.column = column

    def __lt__(self, other: Position) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.file, self.line, self.column) < (other.file, other.line, other.column)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class ObjectRef(Record):
    """Which Kubernetes object a diagnostic is about."""

    __slots__ = ("api_version", "kind", "name", "namespace")
    __hash__ = Record.value_hash

    def __init__(
        self,
        kind: str | None = None,
        name: str | None = None,
        namespace: str | None = None,
        api_version: str | None = None,
    ) -> None:
        self.kind = kind
        self.name = name
        self.namespace = namespace
        self.api_version = api_version


class Applicability(enum.StrEnum):
    """Whether ``dractl lint --fix`` applies a fix by default (``safe``: the file then says what
    its author evidently meant) or only with ``--unsafe-fixes`` (``unsafe``: the fix changes what
    the cluster grants or selects)."""

    SAFE = "safe"
    UNSAFE = "unsafe"


class TextEdit(Record):
    """Replace the text from (``line``, ``column``) up to, not including, (``end_line``,
    ``end_column``) with ``content``; 1-based lines of the file's original text (split at
    ``\n``), columns in code points, as :class:`Position`. Equal start and end: an insertion."""

    __slots__ = ("column", "content", "end_column", "end_line", "line")
    __hash__ = Record.value_hash

    def __init__(
        self, line: int, column: int, end_line: int, end_column: int, content: str
    ) -> None:
        self.line = line
        self.column = column
        self.end_line = end_line
        self.end_column = end_column
        self.content = content

    def to_json(self) -> dict[str, object]:
        return {
            "content": self.content,
            "location": {"line": self.line, "column": self.column},
            "end_location": {"line": self.end_line, "column": self.end_column},
        }


class Fix(Record):
    """A mechanical fix of a finding: edits of the finding's own file, applied together."""

    __slots__ = ("applicability", "edits", "title")
    __hash__ = Record.value_hash

    def __init__(
        self, title: str, applicability: Applicability, edits: tuple[TextEdit, ...]
    ) -> None:
        self.title = title  # what the fix does, as a code action names it
        self.applicability = applicability
        self.edits = edits

    def to_json(self) -> dict[str, object]:
        return {
            "applicability": self.applicability.value,
            "message": self.title,
            "edits": [edit.to_json() for edit in self.edits],
        }


class Diagnostic(Record):
    """A finding: a rule, where it is, and what the apiserver would say.

    ``field`` is the apiserver's field path (v1 shape, as the apiserver prints it) and ``type`` its
    error type (``Required value``, ``Invalid value``, ...), when the finding corresponds to one.
    ``fix``: edits of the diagnostic's file that remove it, when its intent is certain.
    """

    __slots__ = ("field", "fix", "hint", "message", "obj", "position", "rule", "severity", "type")
    __hash__ = Record.value_hash

    def __init__(
        self,
        rule: str,
        severity: Severity,
        message: str,
        position: Position | None = None,
        field: str | None = None,
        type: str | None = None,
        obj: ObjectRef | None = None,
        hint: str | None = None,
        fix: Fix | None = None,
    ) -> None:
        self.rule = rule
        self.severity = severity
        self.message = message
        self.position = position
        self.field = field
        self.type = type
        self.obj = ObjectRef() if obj is None else obj
        self.hint = hint
        self.fix = fix

    def sort_key(self) -> tuple[str, int, int, str, str]:
        pos = self.position
        if pos is None:
            return ("", 0, 0, self.rule, self.message)
        return (pos.file, pos.line, pos.column, self.rule, self.message)

    def to_json(self) -> dict[str, object]:
        pos = self.position
        return {
            "file": pos.file if pos else None,
            "line": pos.line if pos else None,
            "column": pos.column if pos else None,
            "rule": self.rule,
            "severity": self.severity.value,
            "message": self.message,
            "field": self.field,
            "type": self.type,
            "kind": self.obj.kind,
            "name": self.obj.name,
            "namespace": self.obj.namespace,
            "apiVersion": self.obj.api_version,
            "hint": self.hint,
            "fix": self.fix.to_json() if self.fix is not None else None,
        }
