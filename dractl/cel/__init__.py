"""DRA CEL selectors: compile, type-check, cost-check and evaluate them as Kubernetes does.

Import-light: the engines (cel-expr-python by default, cel-python as fallback) load only when a
selector is first compiled.
"""

from dractl.cel.compiler import CompiledSelector, compile_selector
from dractl.cel.device import CelDevice
from dractl.cel.errors import CelCompileError, CelError, CelRuntimeError


def engine_description() -> str:
    """The engine ``compile_selector`` uses by default, for ``dractl --version``."""
    from dractl.cel.engines import FALLBACK_ENGINE, engine_available, resolve_engine_name

    chosen = resolve_engine_name(None)
    fallback = "available" if engine_available(FALLBACK_ENGINE) else "not installed"
    return f"{chosen} (fallback {FALLBACK_ENGINE}: {fallback})"


__all__ = [
    "CelCompileError",
    "CelDevice",
    "CelError",
    "CelRuntimeError",
    "CompiledSelector",
    "compile_selector",
    "engine_description",
]
