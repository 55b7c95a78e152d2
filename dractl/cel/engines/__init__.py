"""CEL engines behind one interface; each is imported only when chosen."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from dractl.cel.device import CelDevice
    from dractl.cel.environment import Environment

DEFAULT_ENGINE = "cel-expr-python"
FALLBACK_ENGINE = "cel-python"
ENGINES = (DEFAULT_ENGINE, FALLBACK_ENGINE)

_MODULES = {
    DEFAULT_ENGINE: ("dractl.cel.engines.cel_expr", "cel_expr_python"),
    FALLBACK_ENGINE: ("dractl.cel.engines.celpy_engine", "celpy"),
}


#: The distribution that provides each engine (for messages).
MODULE_PACKAGES = {DEFAULT_ENGINE: "cel-expr-python", FALLBACK_ENGINE: "cel-python"}


class EngineUnavailable(RuntimeError):
    """The requested engine's package cannot be imported."""


class Program(Protocol):
    """A compiled selector in one engine."""

    output_type: str

    def evaluate(self, device: CelDevice) -> Any: ...


class Engine(Protocol):
    name: str

    def compile(self, expression: str, environment: Environment) -> Program: ...


_loaded: dict[str, Engine] = {}


def engine_available(name: str) -> bool:
    try:
        importlib.import_module(_MODULES[name][1])
    except ImportError:
        return False
    return True


def resolve_engine_name(name: str | None) -> str:
    """``None`` picks the default engine, or the fallback when the default cannot be imported."""
    if name is None:
        return DEFAULT_ENGINE if engine_available(DEFAULT_ENGINE) else FALLBACK_ENGINE
    if name not in _MODULES:
        raise ValueError(f"unknown CEL engine {name!r}; choose one of {', '.join(ENGINES)}")
    return name


def validate_engine_name(name: str | None, source: str) -> str | None:
    """``name`` when it names an installed engine (``None``: the default choice), else a usage
    error naming ``source`` (an option or a configuration key)."""
    if name is None:
        return None
    from dractl.errors import UsageError

    if name not in _MODULES:
        raise UsageError(f"{source}: unknown CEL engine {name!r}; choose one of {', '.join(ENGINES)}")
    if not engine_available(name):
        raise UsageError(f"{source}: CEL engine {name} is not installed (python package {MODULE_PACKAGES[name]})")
    return name


def get_engine(name: str) -> Engine:
    engine = _loaded.get(name)
    if engine is None:
        module_name, package = _MODULES[name]
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise EngineUnavailable(f"CEL engine {name} is not installed (python package {package}): {exc}") from exc
        engine = module.create_engine()
        _loaded[name] = engine
    return engine
