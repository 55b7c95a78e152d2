"""Errors raised by the CEL layer, with positions inside the expression."""

from __future__ import annotations

from dractl.records import Record


class CelError(Record):
    """One problem in an expression; ``line`` and ``column`` are 1-based, inside the expression."""

    __slots__ = ("column", "line", "message")
    __hash__ = Record.value_hash

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        self.message = message
        self.line = line
        self.column = column

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.message}"


class CelCompileError(Exception):
    """The expression does not compile in the selected environment.

    ``detail`` is the text the apiserver puts after ``Invalid value: "<expr>": `` (for example
    ``compilation failed: ERROR: <input>:1:3: Syntax error: ...``); ``errors`` are the individual
    problems with their positions.
    """

    def __init__(self, detail: str, errors: list[CelError], *, kind: str = "invalid") -> None:
        super().__init__(detail)
        self.detail = detail
        self.errors = errors
        #: "invalid" (apiserver Invalid value), "internal", or "unsupported" (dractl cannot
        #: evaluate what the expression uses; never reported as an apiserver rejection).
        self.kind = kind


class CelRuntimeError(Exception):
    """Evaluating the expression on a device failed; the message is the one upstream prints."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
