"""compile_selector: the one entry point for compiling and evaluating DRA CEL selectors."""

from __future__ import annotations

import _thread
from typing import TYPE_CHECKING, Any

from dractl.cel.environment import CEL_GATES, Purpose, environment_for
from dractl.cel.errors import CelCompileError, CelError, CelRuntimeError

if TYPE_CHECKING:
    from dractl.cel.ast import CheckedAst
    from dractl.cel.device import CelDevice
    from dractl.cel.engines import Program
    from dractl.cel.environment import Environment

# Output types a selector may have: bool, or the unknown type of an attribute value
# (``any``; with DRAListTypeAttributes attribute values are ``dyn``).
_UNKNOWN_OUTPUT_TYPES = ("any",)


class CompiledSelector:
    """A compiled selector; ``evaluate`` answers whether a device matches."""

    __slots__ = ("_evaluate", "_program", "cost", "engine", "environment", "expression", "output_type")

    def __init__(self, expression: str, environment: Environment, engine: str, program: Program,
                 cost: int | None) -> None:
        self.expression = expression
        self.environment = environment
        self.engine = engine
        self._program = program
        # program.evaluate, bound once (this runs per device and selector), after a first call
        # that looks whether the selector names the device at all (see _first_evaluation)
        self._evaluate = self._first_evaluation
        self.output_type = program.output_type
        #: Estimated worst-case cost as upstream's estimator computes it (None when unknown).
        self.cost = cost

    @property
    def ast(self) -> CheckedAst | None:
        """The checked syntax tree, when the engine provides one (for static analysis)."""
        return getattr(self._program, "ast", None)

    def _first_evaluation(self, device: CelDevice) -> Any:
        """The program's answer on ``device``; a selector that never names the device has the
        same answer on every device that converts (a selector that grows a list of millions of
        elements takes seconds each time): that answer, value or error, is kept and given for
        every such device. A device the scheduler cannot convert (an attribute without a value)
        fails whatever the selector, as it fails upstream, and is evaluated as before."""
        ast = self.ast
        if ast is None or ast.references_device():
            self._evaluate = self._program.evaluate
            return self._evaluate(device)
        list_types = self.environment.list_type_attributes
        if device.plain(list_types).error is not None:
            return self._program.evaluate(device)  # not kept: try again on the next device
        program = self._program
        try:
            answer = program.evaluate(device)
        except CelRuntimeError as error:
            failure = error

            def fails(device: CelDevice) -> Any:
                if device.plain(list_types).error is not None:
                    return program.evaluate(device)
                raise failure.with_traceback(None)

            self._evaluate = fails
            raise

        def answers(device: CelDevice) -> Any:
            return answer if device.plain(list_types).error is None else program.evaluate(device)

        self._evaluate = answers
        return answer

    def evaluate(self, device: CelDevice) -> bool:
        """True or False, or :class:`CelRuntimeError` with upstream's message."""
        result = self._evaluate(device)
        if type(result) is bool:
            return result
        type_name = getattr(result, "type_name", type(result).__name__)
        raise CelRuntimeError(
            f"CEL result of type {type_name} could not be converted to bool: {_conversion_error(type_name)}"
        )

    def __repr__(self) -> str:
        return f"CompiledSelector({self.expression!r}, engine={self.engine!r}, release={self.environment.release!r})"


# cel-go's ConvertToNative(bool) error per value type (common/types/*.go); the wording differs
# from type to type.
_CONVERSION_ERRORS = {
    "string": "unsupported native conversion from string to 'bool'",
    "int": "unsupported type conversion from 'int' to bool",
    "uint": "unsupported type conversion from 'uint' to bool",
    "double": "type conversion error from Double to 'bool'",
    "bytes": "type conversion error from Bytes to 'bool'",
    "list": "type conversion error from list to 'bool'",
    "map": "type conversion error from map to 'bool'",
    "null_type": "type conversion error from 'null_type' to 'bool'",
    "google.protobuf.Duration": "type conversion error from 'Duration' to 'bool'",
    "google.protobuf.Timestamp": "type conversion error from 'Timestamp' to 'bool'",
    "kubernetes.Quantity": "type conversion error from 'Quantity' to 'bool'",
    "kubernetes.Semver": "type conversion error from 'Semver' to 'bool'",
}


def _conversion_error(type_name: str) -> str:
    return _CONVERSION_ERRORS.get(type_name, f"type conversion error from '{type_name}' to 'bool'")


_cache: dict[tuple[object, ...], CompiledSelector | CelCompileError] = {}
_cache_lock = _thread.allocate_lock()  # threading's Lock; the module costs start-up


def compile_selector(
    expression: str,
    *,
    release: str,
    gates: dict[str, bool] | None = None,
    purpose: Purpose = "new",
    engine: str | None = None,
) -> CompiledSelector:
    """Compile a selector as the apiserver (``purpose="new"``) or scheduler (``"stored"``) does.

    Raises :class:`CelCompileError` with positioned errors. Results (and failures) are cached per
    expression, release, CEL-relevant gates, purpose and engine.
    """
    from dractl.cel.engines import get_engine, resolve_engine_name

    engine_name = resolve_engine_name(engine)
    relevant_gates = tuple(bool((gates or {}).get(name, False)) for name in CEL_GATES)
    key = (expression, release, relevant_gates, purpose, engine_name)
    cached = _cache.get(key)
    if cached is None:
        from dractl.cel.compile_store import active

        environment = environment_for(release, gates, purpose)
        store = active()
        cached = store.load(key, environment) if store is not None else None
        if cached is None:
            cached = _compile_uncached(expression, environment, engine_name, get_engine(engine_name))
            if store is not None:
                store.remember(key, cached)
        with _cache_lock:
            _cache[key] = cached
    if isinstance(cached, CelCompileError):
        raise cached
    return cached


def _compile_uncached(expression: str, environment: Environment, engine_name: str,
                      engine: Any) -> CompiledSelector | CelCompileError:
    from dractl.cel.parse_limits import size_error

    too_long = size_error(expression)
    if too_long is not None:
        return too_long
    try:
        program = engine.compile(expression, environment)
    except CelCompileError as exc:
        from dractl.cel.unsupported import reclassify

        return reclassify(exc, environment, engine_name, getattr(engine, "implemented_libraries", frozenset()))
    ast = getattr(program, "ast", None)
    if ast is not None:
        from dractl.cel import messages
        from dractl.cel.format_check import format_call_errors
        from dractl.cel.validators import literal_errors

        # cel-go runs the validators in the order the environment added them and prints every
        # error sorted by position.
        invalid = literal_errors(ast, expression) if "literal-validators" in environment.libraries else []
        if "strings-v2" in environment.libraries:
            invalid = sorted(invalid + format_call_errors(ast, expression), key=lambda e: (e.line, e.column))
        if invalid:
            issues = [(err, messages.snippet_for(expression, err.line, err.column)) for err in invalid]
            return CelCompileError("compilation failed: " + messages.format_issues(issues), invalid)
    output = program.output_type
    list_types = environment.list_type_attributes
    if output != "bool" and output not in _UNKNOWN_OUTPUT_TYPES and not (list_types and output == "dyn"):
        message = f"must evaluate to bool or the unknown type, not {output}"
        return CelCompileError(message, [CelError(message, 1, 1)])
    build_error = getattr(program, "build_error", None)  # an engine that finds it itself
    if build_error is not None:
        return CelCompileError(f"program instantiation failed: {build_error.message}", [build_error], kind="internal")
    if ast is not None:
        from dractl.cel.program_build import program_error

        failure = program_error(ast, expression, environment.libraries)
        if failure is not None:
            detail = f"program instantiation failed: {failure.message}"
            return CelCompileError(detail, [failure], kind="internal")
    return CompiledSelector(expression, environment, engine_name, program, getattr(program, "cost", None))


def clear_cache() -> None:
    with _cache_lock:
        _cache.clear()


__all__ = ["CelCompileError", "CelRuntimeError", "CompiledSelector", "compile_selector"]
