"""Compile results of selectors kept across runs, so that a run whose selectors were all seen
before loads no CEL engine (and no protobuf) to check them.

An entry holds what :func:`dractl.cel.compile_selector` answered for one expression in one
environment (release, CEL gates, purpose) and engine: the compile error (its text, kind and
positioned problems), or the output type, the estimated cost and the checked syntax tree as the
engine serialized it (decoded again by :mod:`dractl.cel.ast`, which needs no engine). The
program itself is not kept: a selector read back compiles for real the first time it is
evaluated on a device, so every answer is the engine's own.

The store is off unless a command turns it on (:func:`activate`; ``dractl lint`` does, in its
cache folder, named by dractl's code, the installed distributions and the Python version).
Results are collected during the run and written by :meth:`CompileStore.flush`, each to a file
of its own renamed into place; an entry that cannot be read or does not hold what is expected is
a miss.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dractl.digests import hex_digest

if TYPE_CHECKING:
    from dractl.cel.compiler import CompiledSelector
    from dractl.cel.environment import Environment
    from dractl.cel.errors import CelCompileError

    Result = CompiledSelector | CelCompileError

#: Bumped when the entries' layout changes.
ENTRY_FORMAT = 1
#: New entries written per run at most: a run of thousands of new selectors pays for the engine
#: anyway, and thousands of small files would cost more than they save.
MAX_NEW_PER_RUN = 256


class CompileStore:
    """Entries in ``folder``, one file per key; ``prepare`` creates the folder before a write."""

    def __init__(self, folder: str, identity: str, prepare: Callable[[], None]) -> None:
        self.folder = folder
        self.identity = identity
        self._prepare = prepare
        self._new: dict[str, dict[str, Any]] = {}

    def _path(self, key: tuple[object, ...]) -> tuple[str, str]:
        text = json.dumps([ENTRY_FORMAT, self.identity, *key])
        return os.path.join(self.folder, hex_digest(text.encode()) + ".json"), text

    def load(self, key: tuple[object, ...], environment: Environment) -> Result | None:
        path, text = self._path(key)
        try:
            with open(path, encoding="utf-8") as stream:
                entry = json.load(stream)
            if entry["key"] != text:
                return None
            result = _restore(entry, key, environment)
        except Exception:  # unreadable, foreign or damaged (a tree that does not decode): a miss
            return None
        with contextlib.suppress(OSError):  # recently used: pruning keeps it
            os.utime(path)
        return result

    def remember(self, key: tuple[object, ...], result: Result) -> None:
        if len(self._new) >= MAX_NEW_PER_RUN:
            return
        entry = _entry(result)
        if entry is not None:
            path, text = self._path(key)
            entry["key"] = text
            self._new[path] = entry

    def flush(self) -> int:
        """Write the entries of this run; a folder that cannot be written stores nothing."""
        if not self._new:
            return 0
        written = 0
        try:
            self._prepare()
            os.makedirs(self.folder, exist_ok=True)
            for path, entry in self._new.items():
                temporary = f"{path}.{os.getpid()}.tmp"
                try:
                    with open(temporary, "w", encoding="utf-8") as stream:
                        json.dump(entry, stream)
                    os.replace(temporary, path)
                    written += 1
                except OSError:
                    with contextlib.suppress(OSError):
                        os.unlink(temporary)
                    raise
        except OSError:
            pass
        self._new.clear()
        return written


def _entry(result: Result) -> dict[str, Any] | None:
    from dractl.cel.errors import CelCompileError

    if isinstance(result, CelCompileError):
        errors = [[e.message, e.line, e.column] for e in result.errors]
        return {"error": {"detail": result.detail, "kind": result.kind, "errors": errors}}
    serialized = getattr(result._program, "serialized", None) or None
    if result.ast is not None and serialized is None:
        return None  # a tree the store cannot write back: not kept
    return {
        "compiled": {
            "output_type": result.output_type,
            "cost": result.cost,
            "ast": serialized.hex() if serialized is not None else None,
        }
    }


def _restore(entry: dict[str, Any], key: tuple[object, ...], environment: Environment) -> Result:
    from dractl.cel.errors import CelCompileError, CelError

    if "error" in entry:
        error = entry["error"]
        detail, kind, problems = error["detail"], error["kind"], error["errors"]
        if not (isinstance(detail, str) and isinstance(kind, str) and isinstance(problems, list)):
            raise TypeError("error")
        errors = []
        for message, line, column in problems:
            if not (isinstance(message, str) and type(line) is int and type(column) is int):
                raise TypeError("errors")
            errors.append(CelError(message, line, column))
        return CelCompileError(detail, errors, kind=kind)
    from dractl.cel.compiler import CompiledSelector

    compiled = entry["compiled"]
    output_type, cost, tree = compiled["output_type"], compiled["cost"], compiled["ast"]
    if not (isinstance(output_type, str) and (cost is None or type(cost) is int)
            and (tree is None or isinstance(tree, str))):
        raise TypeError("compiled")
    expression, engine = str(key[0]), str(key[-1])
    serialized = bytes.fromhex(tree) if tree is not None else None
    program = DeferredProgram(expression, environment, engine, output_type, serialized)
    return CompiledSelector(expression, environment, engine, program, cost)


class DeferredProgram:
    """A program read back from the store: its type and tree at once, the engine's program on
    the first evaluation."""

    __slots__ = ("_environment", "_program", "ast", "engine", "expression", "output_type", "serialized")

    def __init__(self, expression: str, environment: Environment, engine: str, output_type: str,
                 serialized: bytes | None) -> None:
        self.expression = expression
        self._environment = environment
        self.engine = engine
        self.output_type = output_type
        self.serialized = serialized
        self._program: Any = None
        if serialized is not None:
            from dractl.cel.ast import decode_checked

            self.ast = decode_checked(serialized)
        else:
            self.ast = None

    def evaluate(self, device: Any) -> Any:
        if self._program is None:
            from dractl.cel.engines import get_engine

            self._program = get_engine(self.engine).compile(self.expression, self._environment)
        return self._program.evaluate(device)


_active: CompileStore | None = None


def activate(store: CompileStore | None) -> None:
    """Use ``store`` for the compilations of this process (None: no store)."""
    global _active
    _active = store


def active() -> CompileStore | None:
    return _active
