"""The one currency between checks and reporters."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 2, "warning": 1, "info": 0}[self.value]


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """A place in an input file; line and column are 1-based."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class ObjectRef:
    """Which Kubernetes object a diagnostic is about."""

    kind: str | None = None
    name: str | None = None
    namespace: str | None = None
    api_version: str | None = None


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A finding: a rule, where it is, and what the apiserver would say.

    ``field`` is the apiserver's field path (v1 shape, as the apiserver prints it) and ``type`` its
    error type (``Required value``, ``Invalid value``, ...), when the finding corresponds to one.
    """

    rule: str
    severity: Severity
    message: str
    position: Position | None = None
    field: str | None = None
    type: str | None = None
    obj: ObjectRef = dataclasses.field(default_factory=ObjectRef)
    hint: str | None = None

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
        }
