"""A plugin's answer, as the scheduling framework's ``*Status`` carries it.

The codes are those of ``k8s.io/kube-scheduler/framework`` (``Success``, ``Unschedulable``,
``UnschedulableAndUnresolvable``, ``Error``, ``Skip``) under the names dractl's JSON contract
uses. A status carries reason strings exactly as the scheduler words them; ``message`` joins
them with ", " as ``Status.Message()`` does. ``detail`` is dractl's own explanation (which taint,
which resource is short by how much): shown beside the reasons, never mixed into them, so that
the scheduler's text stays word for word.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from dractl.records import Record


class Code(StrEnum):
    SUCCESS = "schedulable"
    UNSCHEDULABLE = "unschedulable"
    UNRESOLVABLE = "unschedulable-and-unresolvable"
    ERROR = "error"
    SKIP = "skip"


class Status(Record):
    __slots__ = ("code", "detail", "outcome", "plugin", "reasons")

    def __init__(self, code: Code, reasons: tuple[str, ...] = (), plugin: str | None = None,
                 detail: str | None = None, outcome: Any = None) -> None:
        self.code = code
        self.reasons = reasons
        self.plugin = plugin  # the plugin that answered (set by the framework)
        self.detail = detail
        # The DynamicResources plugin's allocator outcome (with its trace) for the node, if any.
        self.outcome = outcome

    @property
    def success(self) -> bool:
        return self.code is Code.SUCCESS

    @property
    def rejected(self) -> bool:
        return self.code in (Code.UNSCHEDULABLE, Code.UNRESOLVABLE)

    @property
    def message(self) -> str:
        return ", ".join(self.reasons)

    def data(self) -> dict[str, Any]:
        """The contract's ``{"status", "plugin", "reasons"}``."""
        return {"status": self.code.value, "plugin": self.plugin, "reasons": list(self.reasons)}


SUCCESS = Status(Code.SUCCESS)


def unschedulable(*reasons: str, detail: str | None = None) -> Status:
    return Status(Code.UNSCHEDULABLE, reasons, detail=detail)


def unresolvable(*reasons: str, detail: str | None = None) -> Status:
    return Status(Code.UNRESOLVABLE, reasons, detail=detail)


def error(message: str, detail: str | None = None) -> Status:
    return Status(Code.ERROR, (message,), detail=detail)


def skip() -> Status:
    return Status(Code.SKIP)
