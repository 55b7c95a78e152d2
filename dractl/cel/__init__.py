"""DRA CEL selectors: compile, type-check, cost-check and evaluate them as Kubernetes does.

Import-light: the engines (cel-expr-python by default, cel-python as fallback) load only when a
selector is first compiled.
"""

from dractl.cel.compiler import CompiledSelector, compile_selector
from dractl.cel.device import CelDevice
from dractl.cel.errors import CelCompileError, CelError, CelRuntimeError

__all__ = [
    "CelCompileError",
    "CelDevice",
    "CelError",
    "CelRuntimeError",
    "CompiledSelector",
    "compile_selector",
]
