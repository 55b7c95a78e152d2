"""Run a dractl command in this process, with its standard streams captured (for tests and for
tools that call dractl many times: no new interpreter per call)."""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str
    # an exception other than SystemExit, as raised (``main`` would print it on one line)
    exception: BaseException | None = None
    exc_info: tuple[type[BaseException], BaseException, TracebackType | None] | None = None

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


class _Stream(io.TextIOWrapper):
    def getvalue(self) -> str:
        self.flush()
        return self.buffer.getvalue().decode("utf-8", "replace")  # type: ignore[attr-defined]


def invoke(args: Sequence[str], input: str | bytes | None = None) -> Result:
    """``dractl ARGS`` with ``input`` on stdin; exceptions are caught and returned, not printed."""
    from dractl.cli import run

    data = input.encode("utf-8", "surrogatepass") if isinstance(input, str) else input or b""
    stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    stdout, stderr = _Stream(io.BytesIO(), encoding="utf-8"), _Stream(io.BytesIO(), encoding="utf-8")
    saved = sys.stdin
    sys.stdin = stdin
    exception: BaseException | None = None
    exc_info = None
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                code = run(list(args))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except Exception as exc:
                exception, exc_info, code = exc, sys.exc_info(), 1
    finally:
        sys.stdin = saved
    return Result(code, stdout.getvalue(), stderr.getvalue(), exception, exc_info)  # type: ignore[arg-type]
