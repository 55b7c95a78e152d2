"""The default engine: cel-expr-python (Google's cel-cpp).

Type checking happens in an environment whose declarations mirror upstream's (``device`` is the
object ``kubernetes.DRADevice``; ``device.attributes`` and ``device.capacity`` are declared as
qualified variables so their map types are exact). The checked expression is then loaded into
one runtime environment whose variables are untyped, so plain Python values can be bound
without a protobuf round trip.
"""

from __future__ import annotations

import _thread
import datetime
import functools
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from cel_expr_python import cel

from dractl.api.quantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    Quantity,
    QuantityError,
    from_int,
    is_quantity,
    parse_quantity,
)
from dractl.cel import messages, named_formats, network, regex, urls
from dractl.cel import numbers as cel_numbers
from dractl.cel.analysis import DRIVER_DOMAIN, DomainLookups, domain_lookup_nodes, domain_lookups
from dractl.cel.ast import (
    CelType,
    CheckedAst,
    Expr,
    Rename,
    Wrap,
    build_bind,
    build_call,
    build_ident,
    build_map,
    build_select,
    build_string,
    call_operand,
    decode_checked,
    decode_parsed,
    rename_calls,
    replace_call_operand,
)
from dractl.cel.call_text import argument_ends
from dractl.cel.cost import COST_LIMIT_EXCEEDED, RUNTIME_COST_LIMIT, UINT64_MAX, CostEstimator
from dractl.cel.device import CelDevice, PlainDevice
from dractl.cel.engines import (
    cel_expr_descriptors,
    cel_expr_errors,
    cel_expr_fallback,
    cel_expr_operands,
    cel_expr_optionals,
    cel_expr_panics,
)
from dractl.cel.environment import Environment
from dractl.cel.errors import CelCompileError, CelError, CelRuntimeError
from dractl.cel.evaluation_bound import CEL_CPP_UNITS, SHARED_ARENA_UNITS, EvaluationBound
from dractl.cel.functions import declared_functions
from dractl.cel.semver import (
    Semver,
    SemverError,
    component_as_int,
    parse_semver,
    parse_semver_normalized,
)
from dractl.cel.source_map import expression_line_column
from dractl.cel.unsupported import LIBRARY_FUNCTIONS

ENGINE_NAME = "cel-expr-python"
_ATTRIBUTE_LIST_LIMIT = 48  # resourceapi.ResourceSliceMaxAttributeValuesPerDevice

T = cel.Type
# Quantities and semantic versions travel through cel-cpp as bytes: a tag byte and a text. A
# quantity's text is its shape (unscaled value, exponent, and ``d`` for apimachinery's decimal
# form), which ``isInteger``, ``asInteger`` and the arithmetic depend on, and the first letter
# of its format (the one of its suffix, which an operand of add() passes on); a semver's is the
# version without build metadata. Bytes cross between Python and cel-cpp without a protobuf
# conversion. Equality of two quantities is by value, so ``==``, ``!=`` and ``in`` on operands
# that may hold library values run in Python (see _runtime_renames). The checker still sees the
# typed declarations, so no bytes value of the selector's own can reach the library functions.
QUANTITY_TAG = 0x71  # "q"
SEMVER_TAG = 0x73  # "s"
_NO_SUCH_OVERLOAD = "no such overload"


@functools.lru_cache(maxsize=8192)
def quantity_token(quantity: Quantity) -> bytes:
    shape = f"{quantity.unscaled}e{quantity.exponent}" + ("" if quantity.exact_int64 else "d")
    return b"q" + shape.encode() + _FORMAT_LETTERS[quantity.format]


@functools.lru_cache(maxsize=8192)
def quantity_of_token(token: bytes) -> Quantity:
    format = _FORMATS[token[-1:]]
    text = token[1:-1].decode()
    exact = not text.endswith("d")
    unscaled, _, exponent = text.rstrip("d").partition("e")
    return Quantity(int(unscaled), int(exponent), exact, format)


_FORMATS = {b"B": BINARY_SI, b"D": DECIMAL_SI, b"E": DECIMAL_EXPONENT}
_FORMAT_LETTERS = {format: letter for letter, format in _FORMATS.items()}


@functools.lru_cache(maxsize=8192)
def semver_token(version: Semver) -> bytes:
    return b"s" + version.precedence_key.encode()


@functools.lru_cache(maxsize=8192)
def semver_of_token(token: bytes) -> Semver:
    return parse_semver(token[1:].decode())


_TOKEN_TYPES = {b"q": "kubernetes.Quantity", b"s": "kubernetes.Semver", b"i": "net.IP", b"c": "net.CIDR",
                b"f": "kubernetes.NamedFormat", b"u": "kubernetes.URL"}


def token_type_name(token: bytes) -> str:
    """The CEL type of a library value carried as bytes."""
    return _TOKEN_TYPES.get(bytes(token[:1]), "bytes")


# cel-cpp hands bytes to Python implementations as bytearray.
_BYTES_TYPES = (bytes, bytearray)


def _quantity_arg(value: Any) -> Quantity:
    if type(value) not in _BYTES_TYPES or value[:1] != b"q":
        raise ValueError(_NO_SUCH_OVERLOAD)
    return quantity_of_token(bytes(value))


def _semver_arg(value: Any) -> Semver:
    if type(value) not in _BYTES_TYPES or value[:1] != b"s":
        raise ValueError(_NO_SUCH_OVERLOAD)
    return semver_of_token(bytes(value))


@functools.lru_cache(maxsize=4096)
def _quantity_from_text(text: str) -> bytes:
    try:
        return quantity_token(parse_quantity(text))
    except QuantityError as exc:
        raise ValueError(str(exc)) from None


@functools.lru_cache(maxsize=4096)
def _semver_from_text(text: str, normalize: bool = False) -> bytes:
    try:
        version = parse_semver_normalized(text) if normalize else parse_semver(text)
    except SemverError as exc:
        raise ValueError(str(exc)) from None
    return semver_token(version)


def _is_semver(text: str, normalize: bool = False) -> bool:
    try:
        _semver_from_text(text, normalize)
    except ValueError:
        return False
    return True


def _compare(left: Any, right: Any) -> int:
    """Quantity or semver comparison: -1, 0 or 1; both arguments of the same library type."""
    if type(left) in _BYTES_TYPES and type(right) in _BYTES_TYPES and left[:1] == right[:1]:
        if left[:1] == b"q":
            return quantity_of_token(bytes(left)).compare(quantity_of_token(bytes(right)))
        if left[:1] == b"s":
            return semver_of_token(bytes(left)).compare(semver_of_token(bytes(right)))
    raise ValueError(_NO_SUCH_OVERLOAD)


def _quantity_operand(value: Any) -> Quantity:
    if type(value) is int:
        return from_int(value)
    return _quantity_arg(value)


def _add(left: Any, right: Any) -> bytes:
    return quantity_token(_quantity_arg(left).add(_quantity_operand(right)))


def _sub(left: Any, right: Any) -> bytes:
    return quantity_token(_quantity_arg(left).sub(_quantity_operand(right)))


def _as_integer(value: Any) -> int:
    result = _quantity_arg(value).as_int64()
    if result is None:
        raise ValueError("cannot convert value to integer")
    return result


def _text_argument(impl: Callable[..., Any]) -> Callable[..., Any]:
    """``impl``, which parses its first argument: any other run-time type has no overload."""
    def call(text: Any, *rest: Any) -> Any:
        if type(text) is not str:
            raise ValueError(_NO_SUCH_OVERLOAD)
        return impl(text, *rest)
    return call


class _Library:
    """The Kubernetes quantity and semver libraries and DRA's ``includes``, in Python."""

    def declarations(self, environment: Environment | None) -> list[Any]:
        """Function declarations; ``None`` means the runtime set with implementations.

        The checker gets upstream's typed overloads (without implementations); the runtime gets
        one implementation per name and arity, on dyn arguments, that dispatches on the bytes
        tag itself (cel-cpp would dispatch Python implementations by argument kind only).
        """
        if environment is None:
            return self._runtime_declarations()
        libraries = environment.libraries
        Q = T("kubernetes.Quantity")
        S = T("kubernetes.Semver")
        decls: list[Any] = []

        def fn(name: str, *overloads: tuple[str, Any, list[Any], bool]) -> None:
            decls.append(cel.FunctionDecl(name, [
                cel.Overload(oid, result, params, is_member=member) for oid, result, params, member in overloads
            ]))

        compare: dict[str, list[tuple[str, Any, list[Any], bool]]] = {
            "isGreaterThan": [], "isLessThan": [], "compareTo": []}
        if "quantity" in libraries:
            fn("quantity", ("string_to_quantity", Q, [T.STRING], False))
            fn("isQuantity", ("is_quantity_string", T.BOOL, [T.STRING], False))
            fn("sign", ("quantity_sign", T.INT, [Q], False))
            fn("asApproximateFloat", ("quantity_get_float", T.DOUBLE, [Q], True))
            fn("asInteger", ("quantity_get_int", T.INT, [Q], True))
            fn("isInteger", ("quantity_is_integer", T.BOOL, [Q], True))
            fn("add", ("quantity_add", Q, [Q, Q], True), ("quantity_add_int", Q, [Q, T.INT], True))
            fn("sub", ("quantity_sub", Q, [Q, Q], True), ("quantity_sub_int", Q, [Q, T.INT], True))
            compare["isGreaterThan"].append(("quantity_is_greater_than", T.BOOL, [Q, Q], True))
            compare["isLessThan"].append(("quantity_is_less_than", T.BOOL, [Q, Q], True))
            compare["compareTo"].append(("quantity_compare_to", T.INT, [Q, Q], True))
        if "semver" in libraries:
            fn("semver", ("string_to_semver", S, [T.STRING], False),
               ("string_bool_to_semver", S, [T.STRING, T.BOOL], False))
            fn("isSemver", ("is_semver_string", T.BOOL, [T.STRING], False),
               ("is_semver_string_bool", T.BOOL, [T.STRING, T.BOOL], False))
            fn("major", ("semver_major", T.INT, [S], True))
            fn("minor", ("semver_minor", T.INT, [S], True))
            fn("patch", ("semver_patch", T.INT, [S], True))
            compare["isGreaterThan"].append(("semver_is_greater_than", T.BOOL, [S, S], True))
            compare["isLessThan"].append(("semver_is_less_than", T.BOOL, [S, S], True))
            compare["compareTo"].append(("semver_compare_to", T.INT, [S, S], True))
        for name, overloads in compare.items():
            if overloads:
                fn(name, *overloads)
        if "k8s-lists" in libraries:
            decls.extend(_k8s_list_declarations())
        decls.extend(_network_declarations(libraries))
        if "urls" in libraries:
            decls.extend(_url_declarations())
        if "format" in libraries:
            decls.extend(_format_declarations())
        if "regex" in libraries:
            fn("find", ("string_find_string", T.STRING, [T.STRING, T.STRING], True))
            fn("findAll", ("string_find_all_string", T.List(T.STRING), [T.STRING, T.STRING], True),
               ("string_find_all_string_int", T.List(T.STRING), [T.STRING, T.STRING, T.INT], True))
        if environment.includes_function:
            fn("includes", ("dra_includes_dyn_dyn", T.BOOL, [T.DYN, T.DYN], True))
        return decls

    @staticmethod
    def _runtime_declarations() -> list[Any]:
        implementations: list[tuple[str, bool, Callable[..., Any], int]] = [
            ("quantity", False, _text_argument(_quantity_from_text), 1),
            ("isQuantity", False, _text_argument(is_quantity), 1),
            ("sign", False, lambda q: _quantity_arg(q).sign(), 1),
            ("asApproximateFloat", True, lambda q: _quantity_arg(q).as_approximate_float(), 1),
            ("asInteger", True, _as_integer, 1),
            ("isInteger", True, lambda q: _quantity_arg(q).as_int64() is not None, 1),
            ("add", True, _add, 2),
            ("sub", True, _sub, 2),
            ("isGreaterThan", True, lambda a, b: _compare(a, b) == 1, 2),
            ("isLessThan", True, lambda a, b: _compare(a, b) == -1, 2),
            ("compareTo", True, _compare, 2),
            ("semver", False, _text_argument(_semver_from_text), 1),
            ("semver", False, _text_argument(_semver_from_text), 2),
            ("isSemver", False, _text_argument(_is_semver), 1),
            ("isSemver", False, _text_argument(_is_semver), 2),
            ("major", True, lambda v: component_as_int(_semver_arg(v).major), 1),
            ("minor", True, lambda v: component_as_int(_semver_arg(v).minor), 1),
            ("patch", True, lambda v: component_as_int(_semver_arg(v).patch), 1),
            ("find", True, regex.find, 2),
            ("findAll", True, regex.find_all, 2),
            ("findAll", True, regex.find_all, 3),
            ("includes", True, _includes, 2),
        ]
        by_name: dict[str, list[Any]] = {}
        for name, member, impl, arity in implementations:
            by_name.setdefault(name, []).append(cel.Overload(
                f"dractl_{name}_{arity}", T.DYN, [T.DYN] * arity, is_member=member,
                impl=_dispatch_error(name, impl)))
        return [cel.FunctionDecl(name, overloads) for name, overloads in by_name.items()]


def go_type_name(value: Any) -> str:
    """cel-go's ``TypeName()`` of a value cel-cpp hands to Python."""
    kind = type(value)
    if kind in _BYTES_TYPES:
        return token_type_name(bytes(value[:1])) if value else "bytes"
    if kind is dict and cel_expr_optionals.is_box(value):
        return "optional_type"
    names = {str: "string", bool: "bool", int: "int", float: "double", list: "list", dict: "map",
             type(None): "null_type", datetime.timedelta: "google.protobuf.Duration",
             datetime.datetime: "google.protobuf.Timestamp"}
    return names.get(kind, kind.__name__)


class _BareNoSuchOverload(ValueError):
    """cel-go's plain "no such overload" of a value's own method (``Int.Add(String)``), which no
    dispatcher rewords."""

    def __init__(self) -> None:
        super().__init__(_NO_SUCH_OVERLOAD)


def _dispatch_error(name: str, impl: Callable[..., Any]) -> Callable[..., Any]:
    """``impl``, whose bare "no such overload" (no overload takes these arguments) names the
    function and the argument types, as cel-go's dispatcher does."""
    def call(*args: Any) -> Any:
        try:
            return impl(*args)
        except ValueError as exc:
            if str(exc) != _NO_SUCH_OVERLOAD or type(exc) is _BareNoSuchOverload:
                raise
            raise ValueError(f"{_NO_SUCH_OVERLOAD}: {name}({', '.join(go_type_name(a) for a in args)})") from None
    return call


def _cel_equal(left: Any, right: Any) -> bool:
    """CEL heterogeneous equality on plain Python values (bool is not a number)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return cel_numbers.equal(left, right)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_cel_equal(a, b) for a, b in zip(left, right, strict=True))
    if type(left) is not type(right):
        return False
    return bool(left == right)


def _includes(target: Any, argument: Any) -> bool:
    if isinstance(target, list):
        for index, item in enumerate(target):
            if index >= _ATTRIBUTE_LIST_LIMIT:
                raise ValueError(
                    f"'includes' function cannot be applied to lists longer than {_ATTRIBUTE_LIST_LIMIT} values")
            if _cel_equal(item, argument):
                return True
        return False
    return _cel_equal(target, argument)


class _CelExprProgram:
    __slots__ = ("_engine", "_fallback", "_list_types", "_runtime", "_runtime_tree", "ast", "cost", "domains_defaulted",
                 "environment", "expression", "lookups", "min_cost", "output_type", "serialized", "whole_device")

    def __init__(self, engine: CelExprEngine, runtime_tree: bytes, output_type: str, list_types: bool,
                 ast: CheckedAst, cost: int, min_cost: int) -> None:
        self._engine = engine
        # The program that evaluates is made on the first evaluation: a lint without slices
        # never needs it, nor the runtime environment (see CelExprEngine.runtime_env).
        self._runtime_tree = runtime_tree
        self._runtime: Any = None
        self.output_type = output_type
        self._list_types = list_types
        self.ast = ast
        self.cost = cost
        self.min_cost = min_cost
        self.lookups = domain_lookups(ast)
        self.whole_device = _device_escapes(ast)
        self.domains_defaulted = False  # every domain lookup answers a missing domain as upstream
        self.expression = ""
        self.serialized = b""
        self.environment: Environment | None = None
        self._fallback: Any = None  # cel-python's program, once asked for (False: it has none)

    def evaluate(self, device: CelDevice) -> Any:
        if RUNTIME_COST_LIMIT < self.min_cost < UINT64_MAX:
            # cel-cpp does not meter cost; when even the cheapest path costs more than the
            # limit, upstream's evaluation is cancelled on every device. (A saturated estimate
            # is an estimator artefact, such as a slice whose start is after its end.)
            raise CelRuntimeError(COST_LIMIT_EXCEEDED)
        activation = device._program_inputs.get(self)
        if activation is None:
            lookups = self.lookups
            activation = self._engine.activation(device, self._list_types, lookups if lookups.exact else None,
                                                 self.whole_device)
            device.set_program_input(self, activation)
        return self._run(activation, device)

    def _run(self, activation: Any, device: CelDevice) -> Any:
        runtime = self._runtime
        if runtime is None:
            runtime = self._runtime = self._engine.runtime_env.deserialize(self._runtime_tree)
        try:
            result = runtime.eval(activation)
        except (RuntimeError, ValueError) as exc:  # cel-cpp raises ValueError for C++ length errors
            return self._failed(str(exc), device)
        value = result.value()
        if type(value) is bool:  # cheaper than asking the result for its type
            return value
        kind = result.type()
        if kind == T.ERROR:
            return self._failed(str(value), device)
        if kind == T.BYTES:
            return _NonBool(token_type_name(bytes(value)))
        return _NonBool(_type_name(kind))

    def _failed(self, raw: str, device: CelDevice) -> Any:
        """The answer on ``device`` where cel-cpp failed with ``raw``: cel-python's where cel-cpp
        could not hold a value cel-go holds (see cel_expr_fallback), else upstream's error."""
        if cel_expr_fallback.cel_cpp_runtime_limit(raw) or self._lacks_looked_up_domain(device) \
                or self._missed_domain(raw, device):
            answer = self._fallback_answer(device)
            if answer is not None:
                return answer
        raise self._error(raw, device)

    def _fallback_answer(self, device: CelDevice) -> Any:
        """cel-python's answer on ``device`` (None when there is no such program)."""
        fallback = self._fallback
        if fallback is None:
            assert self.environment is not None
            fallback = cel_expr_fallback.fallback_program(self.expression, self.environment) or False
            self._fallback = fallback
        return fallback.evaluate(device) if fallback is not False else None

    def _error(self, raw: str, device: CelDevice) -> CelRuntimeError:
        """The runtime error upstream reports for cel-cpp's error ``raw``."""
        if messages.strip_status(raw).endswith("No matching overloads found : <iter_range>"):
            lookups = self.lookups
            whole = self._engine.activation(device, self._list_types, lookups if lookups.exact else None, True)
            return CelRuntimeError(self._not_iterable_message(whole))
        message = messages.runtime_message(raw)
        if message == "Invalid timezone":
            message = self._time_zone_message() or message
        elif message.startswith(("expected a double but got", 'only "NaN", "Infinity"')):
            message = self._float_clause_message(message) or message
        missing = self._lacks_looked_up_domain(device)
        if missing is not None:
            # The engine looked a domain up in a map without upstream's empty-map default and
            # cel-python could not answer instead: the error may be ours, not upstream's.
            return CelRuntimeError(
                f"{message} (not supported by dractl: this selector both inspects a device map as a "
                f"whole and looks up domain {missing!r}, which this device lacks; dractl cannot "
                "reproduce the scheduler's answer here)")
        return CelRuntimeError(message)

    def _time_zone_message(self) -> str | None:
        """cel-go's text for the time zone argument cel-cpp refused (its own text names none)."""
        for node in self.ast.root.walk():
            if node.kind == "call" and node.name in _TIME_ZONE_ACCESSORS and node.operand is not None \
                    and len(node.args) == 1 and node.args[0].kind == "const" and type(node.args[0].value) is str:
                message = messages.time_zone_message(node.args[0].value)
                if message is not None:
                    return message
        return None

    def _float_clause_message(self, message: str) -> str | None:
        """cel-go's text for a %f or %e clause given a value that is not a double: which of the
        two it was, the selector's constant format strings tell."""
        clauses = set()
        for node in self.ast.root.walk():
            if node.kind == "call" and node.name == "format" and node.operand is not None:
                if node.operand.kind != "const" or type(node.operand.value) is not str:
                    return None
                clauses.update(re.findall(r"%(?:\.\d+)?([fe])", node.operand.value.replace("%%", "")))
        return messages.float_clause_message(message, clauses.pop()) if len(clauses) == 1 else None

    def _not_iterable_message(self, activation: Any) -> str:
        """cel-go names the Go type of a value a macro cannot iterate; find that value."""
        expression = self._engine.expression_text(self)
        for node in self.ast.root.walk():
            if node.kind != "comprehension" or node.iter_range is None or node.accu_var not in ("@result", "__result__"):
                continue
            end = self.ast.positions.get(node.id)
            # A qualified identifier (``device.attributes``) is positioned at its last dot.
            starts = [self.ast.positions[n.id] - (n.name.rfind(".") if n.kind == "ident" and "." in n.name else 0)
                      for n in node.iter_range.walk() if n.id in self.ast.positions]
            if end is None or not starts:
                continue
            dot = expression.rfind(".", 0, end)
            target = expression[min(starts):dot] if dot > min(starts) else ""
            go_type = self._engine.go_type_of(target, activation) if target else None
            if go_type is not None:
                return f"got '{go_type}', expected iterable type"
        return "expected iterable type"

    def _missed_domain(self, raw: str, device: CelDevice) -> bool:
        """Whether cel-cpp failed on a lookup of a domain ``device`` lacks that the analysis could
        not see (``cel.bind(m, device.attributes, m["d"])``): upstream's maps answer it with an
        empty map, the device's maps bound as they are do not."""
        if self.lookups.exact or self.domains_defaulted:
            return False
        message = messages.runtime_message(raw)
        if not message.startswith("no such key: "):
            return False
        name = message.removeprefix("no such key: ")
        plain = device.plain(self._list_types)
        return name not in plain.attributes or name not in plain.capacity  # either map may be the one

    def _lacks_looked_up_domain(self, device: CelDevice) -> str | None:
        """A domain this selector looks up without upstream's empty-map default (it inspects a
        device map as a whole) that ``device`` lacks, or None."""
        lookups = self.lookups
        if lookups.exact or not lookups.any or self.domains_defaulted:
            return None
        plain = device.plain(self._list_types)
        for wanted, present in ((lookups.attributes, plain.attributes), (lookups.capacity, plain.capacity)):
            for domain in wanted:
                name = plain.driver if domain == DRIVER_DOMAIN else domain
                if name not in present:
                    return name
        return None


_TIME_ZONE_ACCESSORS = frozenset({
    "getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek", "getHours", "getMinutes",
    "getSeconds", "getMilliseconds"})


class _PanickingProgram(_CelExprProgram):
    """A program with a step that panics in cel-go (see cel_expr_panics): a panic recorded
    while it ran is the answer, whatever the evaluation made of the error."""

    __slots__ = ()

    def evaluate(self, device: CelDevice) -> Any:
        cel_expr_panics.take()
        try:
            result = super().evaluate(device)
        except CelRuntimeError:
            panic = cel_expr_panics.take()
            if panic is not None:
                raise CelRuntimeError(f"internal error: {panic}") from None
            raise
        panic = cel_expr_panics.take()
        if panic is not None:
            raise CelRuntimeError(f"internal error: {panic}")
        return result


class _FallbackProgram(_CelExprProgram):
    """A checked program cel-cpp cannot run (a container holding an optional would reach a
    Python function): cel-python runs it (see cel_expr_fallback)."""

    __slots__ = ()

    def evaluate(self, device: CelDevice) -> Any:
        if RUNTIME_COST_LIMIT < self.min_cost < UINT64_MAX:
            raise CelRuntimeError(COST_LIMIT_EXCEEDED)
        return self._fallback.evaluate(device)


class _FreshProgram(_CelExprProgram):
    """A program whose evaluation may build more than a device's shared activation should keep
    (see dractl.cel.evaluation_bound): each evaluation gets an activation of its own, freed with
    everything cel-cpp built in it."""

    __slots__ = ()

    def evaluate(self, device: CelDevice) -> Any:
        if RUNTIME_COST_LIMIT < self.min_cost < UINT64_MAX:
            raise CelRuntimeError(COST_LIMIT_EXCEEDED)
        lookups = self.lookups
        activation = self._engine.activation(device, self._list_types, lookups if lookups.exact else None,
                                             self.whole_device, fresh=True)
        return self._run(activation, device)


class _FreshPanickingProgram(_PanickingProgram, _FreshProgram):
    __slots__ = ()


class _TrackedProgram(_CelExprProgram):
    """A program upstream may cancel for its actual cost, or whose evaluation cel-cpp could not
    hold (see dractl.cel.evaluation_bound): cel-python runs it, tracking cel-go's actual cost and
    the size of what it builds. Without cel-python, cel-cpp runs it in an activation of its own
    if it can hold it (its cost untracked), else it is refused."""

    __slots__ = ("units",)
    units: int  # what the evaluation may build (dractl.cel.evaluation_bound)

    def evaluate(self, device: CelDevice) -> Any:
        if RUNTIME_COST_LIMIT < self.min_cost < UINT64_MAX:
            raise CelRuntimeError(COST_LIMIT_EXCEEDED)
        answer = self._fallback_answer(device)
        if answer is not None:
            return answer
        if self.units > CEL_CPP_UNITS:
            raise CelRuntimeError(
                "not supported by dractl: this selector may build more than the default engine holds "
                f"in one evaluation ({CEL_CPP_UNITS:,} values), and cel-python, which tracks what it builds "
                "and the scheduler's cost limit, is not installed")
        lookups = self.lookups
        activation = self._engine.activation(device, self._list_types, lookups if lookups.exact else None,
                                             self.whole_device, fresh=True)
        return self._run(activation, device)


class _NonBool:
    """A result that is not a bool; the caller words the error as upstream does."""

    __slots__ = ("type_name",)

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name


def _type_name(kind: Any) -> str:
    """cel-go's ``Type().TypeName()`` of a runtime value (``list``, not ``list(int)``)."""
    name = cel_go_type_name(kind.name())
    return name.partition("(")[0] if name.startswith(("list(", "map(", "type(")) else name


# cel-cpp's own extensions that upstream's environment has, by library name, as entries of an
# environment configuration: cel-go's lists extension (cel-cpp's version 2 has every function of
# cel-go's version 3 that is not an optional-types function), sets, two-variable comprehensions.
_CONFIG_EXTENSIONS = {
    "ext-lists": "  - name: lists\n    version: 2\n",
    "sets": "  - name: sets\n",
    "two-var-comprehensions": "  - name: two-var-comprehensions\n",
    # cel.bind, optional types and the strings extension (version 2 as upstream's
    # ext.Strings(ext.StringsVersion(2)); the runtime has the latest, which runs every version's
    # functions). By name rather than with the cel_expr_python.ext modules: each of those is a
    # library of several megabytes of its own, and loading the three was a twentieth of a lint.
    "bindings": "  - name: bindings\n",
    "optionals": "  - name: optional\n",
    "strings-v2": "  - name: strings\n    version: 2\n",
}
_RUNTIME_STRINGS = "  - name: strings\n"


_ORDERINGS = {"_<_": "less", "_<=_": "less_equals", "_>_": "greater", "_>=_": "greater_equals"}


def _extension_config(libraries: frozenset[str], checker: bool = False) -> Any:
    entries = "".join(entry for library, entry in _CONFIG_EXTENSIONS.items() if library in libraries)
    if not checker:
        entries = entries.replace(_CONFIG_EXTENSIONS["strings-v2"], _RUNTIME_STRINGS)
    text = "extensions:\n" + entries if entries else ""
    if checker and "format" in libraries:
        text += _FORMAT_OPTIONAL_FUNCTIONS
    if checker and "cross-type-numeric-comparisons" in libraries:
        # cel-cpp's checker has no cross-type numeric orderings; its standard orderings make way
        # for cel-go's full set (_ordering_declarations). Only the checker: the runtime has them.
        text += "stdlib:\n  exclude_functions:\n" + "".join(f"    - name: {name}\n" for name in _ORDERINGS)
    return cel.NewEnvConfigFromYaml(text) if text else None


def _ordering_declarations() -> list[Any]:
    """cel-go's ``_<_``, ``_<=_``, ``_>_``, ``_>=_`` with CrossTypeNumericComparisons, with its overload ids."""
    same = [("bool", T.BOOL), ("int64", T.INT), ("uint64", T.UINT), ("double", T.DOUBLE), ("string", T.STRING),
            ("bytes", T.BYTES), ("timestamp", T.TIMESTAMP), ("duration", T.DURATION)]
    numbers = [("int64", T.INT), ("uint64", T.UINT), ("double", T.DOUBLE)]
    decls = []
    for function, prefix in _ORDERINGS.items():
        overloads = [cel.Overload(f"{prefix}_{name}", T.BOOL, [kind, kind]) for name, kind in same]
        overloads += [cel.Overload(f"{prefix}_{left}_{right}", T.BOOL, [left_kind, right_kind])
                      for left, left_kind in numbers for right, right_kind in numbers if left != right]
        decls.append(cel.FunctionDecl(function, overloads))
    return decls


def _probe_declaration(probe: cel_expr_errors.Probe, number: int) -> Any:
    """An overload of ``probe.function`` with the probe's parameter types (a type parameter of
    its own for a parameter of any type)."""
    params = [T(f"~P{index}") if param is None else _binding_type(param) for index, param in enumerate(probe.params)]
    return cel.FunctionDecl(probe.function, [cel.Overload(f"dractl_probe_{number}", T.DYN, params,
                                                          is_member=probe.member)])


_BINDING_TYPES = {"int": T.INT, "uint": T.UINT, "double": T.DOUBLE, "bool": T.BOOL, "string": T.STRING,
                  "bytes": T.BYTES, "null_type": T.NULL, "dyn": T.DYN, "google.protobuf.Timestamp": T.TIMESTAMP,
                  "google.protobuf.Duration": T.DURATION, "any": T("google.protobuf.Any")}


def _binding_type(spelling: str) -> Any:
    """A type as cel-cpp's messages spell it (``list(T%1)``, ``optional_type(int)``) → the binding's."""
    spelling = spelling.strip()
    if spelling.startswith("T%"):
        return T(f"~T{spelling[2:]}")
    head, paren, rest = spelling.partition("(")
    if not paren:
        return _BINDING_TYPES.get(spelling) or T(spelling)
    params = [_binding_type(part) for part in cel_expr_errors.split_arguments(rest[:-1])]
    if head == "list":
        return T.List(params[0])
    if head == "map":  # the binding takes no type parameter as a map key; dyn accepts the bound one
        key = T.DYN if cel_expr_errors.split_arguments(rest[:-1])[0].startswith("T%") else params[0]
        return T.Map(key, params[1])
    if head == "type":
        return T.Type(params[0])
    return T.AbstractType(head, params)


def _map_insert_entry(target: Any, key: Any, value: Any) -> dict[Any, Any]:
    if key in target:
        raise ValueError(f"insert failed: key {key} already exists")
    return {**target, key: value}


def _map_insert_map(target: Any, entries: Any) -> dict[Any, Any]:
    for key in entries:
        if key in target:
            raise ValueError(f"insert failed: key {key} already exists")
    return {**target, **entries}


# transformMap and transformMapEntry expand to calls of ``cel.@mapInsert``, which cel-cpp's
# extension declares but does not implement at run time; the runtime calls ours instead.
_MAP_INSERT = cel.FunctionDecl("dractl.@mapInsert", [
    cel.Overload("dractl_map_insert_entry", T.DYN, [T.DYN, T.DYN, T.DYN], impl=_map_insert_entry),
    cel.Overload("dractl_map_insert_map", T.DYN, [T.DYN, T.DYN], impl=_map_insert_map),
])


_GO_TYPES = {b"q"[0]: "cel.Quantity", b"s"[0]: "cel.Semver", b"i"[0]: "cel.IP", b"c"[0]: "cel.CIDR",
             b"f"[0]: "cel.Format", b"u"[0]: "cel.URL"}
_ORDERED_TAGS = frozenset(b"qs")  # library values whose equality is by value, not by text


def _library_value(value: Any) -> bool:
    return type(value) in _BYTES_TYPES and bool(value) and value[0] in _GO_TYPES


def _go_equal(left: Any, right: Any) -> bool:
    """cel-go's ``types.Equal(left, right)``: a library value compared with a value of another
    type is an error, not false (its ``Equal`` says no such overload); lists and maps compare
    element by element, an element that cannot be compared does not make them unequal."""
    if left is None or right is None:
        return left is None and right is None
    kind = type(left)
    if kind is dict and cel_expr_optionals.is_box(left):  # cel-go's Optional.Equal
        if not (type(right) is dict and cel_expr_optionals.is_box(right)):
            return False
        (has, value), (other_has, other) = cel_expr_optionals.unbox(left), cel_expr_optionals.unbox(right)
        if has and other_has and other is None and _library_value(value):
            raise ValueError(_NO_SUCH_OVERLOAD)  # Optional.Equal calls the value's Equal: no null shortcut
        return has == other_has if not (has and other_has) else _go_equal(value, other)
    if type(right) is dict and cel_expr_optionals.is_box(right):
        if _library_value(left):
            raise ValueError(_NO_SUCH_OVERLOAD)
        return False
    if kind in _BYTES_TYPES:
        if left and left[0] in _GO_TYPES:
            if type(right) not in _BYTES_TYPES or right[:1] != left[:1]:
                raise ValueError(_NO_SUCH_OVERLOAD)
            if left[0] in _ORDERED_TAGS:
                return _compare(left, right) == 0
            if left[:1] == b"u":  # cel-go compares URLs as they print
                return str(_url_arg(left)) == str(_url_arg(right))
            return left == right
        return type(right) in _BYTES_TYPES and not _library_value(right) and left == right
    if kind is bool or type(right) is bool:
        return kind is bool and type(right) is bool and left == right
    if kind is int or kind is float:
        return type(right) in (int, float) and cel_numbers.equal(left, right)
    if kind is list:
        if type(right) is not list or len(left) != len(right):
            return False
        for mine, theirs in zip(left, right, strict=True):
            try:
                if not _go_equal(mine, theirs):
                    return False
            except ValueError:
                continue
        return True
    if kind is dict:
        if type(right) is not dict or len(left) != len(right):
            return False
        for key, mine in left.items():
            if key not in right:
                return False
            try:
                if not _go_equal(mine, right[key]):
                    return False
            except ValueError:
                continue
        return True
    return bool(type(right) is kind and left == right)


def _go_not_equal(left: Any, right: Any) -> bool:
    try:
        return not _go_equal(left, right)
    except ValueError:
        return True


def _unhashable(item: Any) -> str | None:
    """The Go type of ``item`` when a Go map cannot hash it (a version, a format, bytes)."""
    if type(item) in _BYTES_TYPES:
        if not item or item[0] not in _GO_TYPES:
            return "types.Bytes"
        return _GO_TYPES[item[0]] if item[0] in cel_expr_panics.UNHASHABLE_TOKENS else None
    return None


def _hash_panic(item: Any) -> None:
    """cel-go's panic where a Go map lookup hashes ``item`` (see cel_expr_panics)."""
    go_type = _unhashable(item)
    if go_type is not None:
        message = f"runtime error: hash of unhashable type {go_type}"
        cel_expr_panics.record(message)
        raise ValueError(f"internal error: {message}")


def _map_has_key(container: dict[Any, Any], item: Any) -> bool:
    """cel-go's ``Find`` in a map literal's Go map: the key itself, then an int, uint or
    integral double of the same value; a bool is never a number."""
    if type(item) is bool:
        return any(type(key) is bool and key == item for key in container)
    if type(item) is float:
        whole = cel_numbers.integral_key(item)
        if whole is None:
            return False
        item = whole
    if type(item) in (int, str):
        return any(type(key) is type(item) and key == item for key in container)
    return False


def _go_in(item: Any, container: Any) -> bool:
    if type(container) is dict:
        _hash_panic(item)
        return _map_has_key(container, item)
    if type(container) is not list:
        raise ValueError(_NO_SUCH_OVERLOAD)
    for element in container:
        try:
            if _go_equal(item, element):
                return True
        except ValueError:
            continue
    return False


def _go_in_constant_list(item: Any, container: Any) -> bool:
    """cel-go looks ``item`` up in a constant list of primitives as a hash set
    (``maybeOptimizeSetMembership``): a version, a format or bytes do not hash (a panic); any
    other value that is no primitive is in no such set."""
    _hash_panic(item)
    if _library_value(item) or type(item) in (list, dict) or item is None:
        return False
    if type(item) in (int, float) and type(container) is list:
        return cel_numbers.set_contains(item, container)
    return _go_in(item, container)


# -- the Kubernetes lists library (apiserver pkg/cel/library/lists.go) --------------------------

_COMPARABLE = {"int": T.INT, "uint": T.UINT, "double": T.DOUBLE, "bool": T.BOOL, "duration": T.DURATION,
               "timestamp": T.TIMESTAMP, "string": T.STRING, "bytes": T.BYTES}
_SUMMABLE = ("int", "uint", "double", "duration")
_ZERO: dict[str, Any] = {"int": 0, "uint": 0, "double": 0.0, "duration": datetime.timedelta(0)}
_INT64 = (-(2**63), 2**63 - 1)


def _k8s_list_declarations() -> list[Any]:
    member = True
    decls = [
        cel.FunctionDecl("isSorted", [cel.Overload(f"list_{name}_is_sorted_bool", T.BOOL, [T.List(kind)], is_member=member)
                                      for name, kind in _COMPARABLE.items()]),
        cel.FunctionDecl("sum", [cel.Overload(f"list_{name}_sum_{name}", _COMPARABLE[name], [T.List(_COMPARABLE[name])],
                                              is_member=member) for name in _SUMMABLE]),
    ]
    for function in ("max", "min"):
        decls.append(cel.FunctionDecl(function, [
            cel.Overload(f"list_{name}_{function}_{name}", kind, [T.List(kind)], is_member=member)
            for name, kind in _COMPARABLE.items()]))
    # Upstream declares indexOf(list(A), A) with a type parameter, which cel-expr-python cannot
    # declare; one overload per element type upstream's values can have stands in for it.
    elements = {**_COMPARABLE, "quantity": T("kubernetes.Quantity"), "semver": T("kubernetes.Semver"),
                "list": T.List(T.DYN), "map": T.Map(T.DYN, T.DYN)}
    for function, overload in (("indexOf", "list_a_index_of_int"), ("lastIndexOf", "list_a_last_index_of_int")):
        decls.append(cel.FunctionDecl(function, [
            cel.Overload(f"{overload}_{name}", T.INT, [T.List(kind), kind], is_member=member)
            for name, kind in elements.items()]))
    return decls


def _need_list(value: Any) -> list[Any]:
    if type(value) is not list:
        raise ValueError(_NO_SUCH_OVERLOAD)
    return value


def _orderable(value: Any) -> bool:
    return type(value) in (int, float, bool, str, bytes, bytearray, datetime.timedelta, datetime.datetime) \
        and not _library_value(value)


def _go_compare(left: Any, right: Any) -> int | None:
    """cel-go ``Compare`` of two values of comparable types; None where it is an error."""
    if (type(left) is bool) != (type(right) is bool):
        return None
    numbers = (int, float)
    if type(left) in numbers and type(right) in numbers and type(left) is not type(right):
        return cel_numbers.compare(left, right)
    if (type(left) in numbers and type(right) in numbers) or type(left) is type(right):
        try:
            return (left > right) - (left < right)
        except TypeError:
            return None
    return None


def _list_is_sorted(values: Any) -> bool:
    previous: Any = None
    for index, value in enumerate(_need_list(values)):
        if not _orderable(value):
            raise ValueError(_NO_SUCH_OVERLOAD)
        if index and _go_compare(previous, value) == 1:
            return False
        previous = value
    return True


def _list_sum(zero: str) -> Callable[[Any], Any]:
    def call(values: Any) -> Any:
        total = _ZERO[zero]
        for value in _need_list(values):
            if type(value) is not type(total) or type(value) is bool:
                raise _BareNoSuchOverload
            total = total + value
            if type(total) is int and not _INT64[0] <= total <= _INT64[1]:
                raise ValueError("integer overflow")
        return total
    return call


def _list_extreme(name: str, prefer: int) -> Callable[[Any], Any]:
    def call(values: Any) -> Any:
        result: Any = None
        found = False
        for value in _need_list(values):
            if not _orderable(value):
                raise ValueError(_NO_SUCH_OVERLOAD)
            if not found:
                result, found = value, True
            elif _go_compare(result, value) == prefer:
                result = value
        if not found:
            raise ValueError(f"{name} called on empty list")
        return cel_expr_operands.dyn_result(result)
    return call


# -- cel-go's strings extension where cel-cpp's differs: errors that name the index ---------------


def _need_str(*values: Any) -> None:
    if any(type(v) is not str for v in values):
        raise ValueError(_NO_SUCH_OVERLOAD)


def _need_int(*values: Any) -> None:
    if any(type(v) is not int for v in values):
        raise ValueError(_NO_SUCH_OVERLOAD)


def _char_at(text: Any, index: Any) -> str:
    _need_str(text)
    _need_int(index)
    if index < 0 or index > len(text):
        raise ValueError(f"index out of range: {index}")
    return text[index] if index < len(text) else ""


def _substring(text: Any, start: Any, end: Any = None) -> str:
    _need_str(text)
    if end is None:
        _need_int(start)
        if start < 0 or start > len(text):
            raise ValueError(f"index out of range: {start}")
        return text[start:]
    _need_int(start, end)
    if start > end:
        raise ValueError(f"invalid substring range. start: {start}, end: {end}")
    for index in (start, end):
        if index < 0 or index > len(text):
            raise ValueError(f"index out of range: {index}")
    return text[start:end]


def _string_index_of(text: str, sub: Any, offset: Any = 0, last: bool = False) -> int:
    _need_str(sub)
    _need_int(offset)
    if sub == "":
        return offset if not last or offset != -1 else len(text)
    if offset < 0:
        raise ValueError(f"index out of range: {offset}")
    if offset >= len(text):
        return -1
    if last:
        return text.rfind(sub, 0, min(offset, len(text) - len(sub)) + len(sub))
    return text.find(sub, offset)


def _index_of(target: Any, item: Any, offset: Any = None) -> int:
    if type(target) is str:
        return _string_index_of(target, item, 0 if offset is None else offset)
    if offset is not None:
        raise ValueError(_NO_SUCH_OVERLOAD)
    return _list_index_of(target, item)


def _last_index_of(target: Any, item: Any, offset: Any = None) -> int:
    if type(target) is str:
        if offset is None:
            _need_str(item)
            return len(target) if item == "" else target.rfind(item)
        return _string_index_of(target, item, offset, last=True)
    if offset is not None:
        raise ValueError(_NO_SUCH_OVERLOAD)
    return _list_last_index_of(target, item)


_STRING_OVERLOADS = {
    "string_char_at_int": "dractl.charAt", "string_substring_int": "dractl.substring",
    "string_substring_int_int": "dractl.substring3", "string_index_of_string": "dractl.indexOf",
    "string_index_of_string_int": "dractl.indexOf3", "string_last_index_of_string": "dractl.lastIndexOf",
    "string_last_index_of_string_int": "dractl.lastIndexOf3",
}


def _strings_runtime() -> list[Any]:
    functions: list[tuple[str, int, Callable[..., Any]]] = [
        ("dractl.charAt", 2, _char_at), ("dractl.substring", 2, _substring), ("dractl.substring3", 3, _substring),
        ("dractl.indexOf3", 3, _index_of), ("dractl.lastIndexOf3", 3, _last_index_of)]
    # cel-go declares these with bindings: a call no overload takes names the function and types
    return [cel.FunctionDecl(name, [cel.Overload(name.replace(".", "_"), T.DYN, [T.DYN] * arity, is_member=True,
                                                 impl=_dispatch_error(name.removeprefix("dractl.").rstrip("3"), impl))])
            for name, arity, impl in functions]


def _list_index_of(values: Any, item: Any) -> int:
    for index, value in enumerate(_need_list(values)):
        try:
            if _go_equal(value, item):
                return index
        except ValueError:
            continue
    return -1


def _list_last_index_of(values: Any, item: Any) -> int:
    values = _need_list(values)
    for index in range(len(values) - 1, -1, -1):
        try:
            if _go_equal(values[index], item):
                return index
        except ValueError:
            continue
    return -1


def _k8s_list_runtime() -> list[Any]:
    functions: dict[str, Callable[..., Any]] = {
        "dractl.isSorted": _list_is_sorted, "dractl.max": _list_extreme("max", -1),
        "dractl.min": _list_extreme("min", 1), "dractl.indexOf": _index_of,
        "dractl.lastIndexOf": _last_index_of,
        **{f"dractl.sum_{name}": _list_sum(name) for name in _SUMMABLE},
    }
    return [cel.FunctionDecl(name, [cel.Overload(name.replace(".", "_"),
                                                 T.DURATION if name.endswith("_duration") else T.DYN,
                                                 [T.DYN] * (2 if name.endswith("ndexOf") else 1), is_member=True,
                                                 impl=_dispatch_error(name[7:].partition("_")[0], impl))])
            for name, impl in functions.items()]


def _k8s_list_runtime_name(name: str, overloads: list[str]) -> str | None:
    """The runtime function of a call the checker resolved to Kubernetes list overloads (and for
    ``indexOf``/``lastIndexOf`` of a dyn target, the strings extension's)."""
    strings = {_STRING_OVERLOADS[o] for o in overloads if o in _STRING_OVERLOADS}
    lists = [o for o in overloads if o not in _STRING_OVERLOADS]
    if strings and not lists:
        return strings.pop() if len(strings) == 1 else None
    if not lists or not all(o.startswith("list_") and not o.startswith("list_sets") for o in lists):
        return None
    if strings and strings != {f"dractl.{name}"}:
        return None
    if name == "sum":
        kinds = {o.rpartition("_")[2] for o in overloads}
        # With a dyn target cel-go dispatches to the first overload, int's.
        return f"dractl.sum_{kinds.pop() if len(kinds) == 1 else 'int'}"
    if name in ("isSorted", "max", "min", "indexOf", "lastIndexOf"):
        return f"dractl.{name}"
    return None


# -- the Kubernetes ip and cidr libraries (apiserver pkg/cel/library/ip.go, cidr.go) -------------
# An IP travels as b"i" + its canonical text, a CIDR as b"c" + address/bits as written.


def _ip_token(text: Any) -> bytes:
    _need_str(text)  # before the cache: a list or bytes does not hash
    return _ip_token_of(text)


@functools.lru_cache(maxsize=4096)
def _ip_token_of(text: str) -> bytes:
    try:
        return b"i" + str(network.parse_ip(text)).encode()
    except network.NetworkError as exc:
        raise ValueError(str(exc)) from None


def _cidr_token(text: Any) -> bytes:
    _need_str(text)  # before the cache: a list or bytes does not hash
    return _cidr_token_of(text)


@functools.lru_cache(maxsize=4096)
def _cidr_token_of(text: str) -> bytes:
    try:
        return b"c" + str(network.parse_cidr(text)).encode()
    except network.NetworkError as exc:
        raise ValueError(str(exc)) from None


def _ip_arg(value: Any) -> network.IP:
    if type(value) not in _BYTES_TYPES or value[:1] != b"i":
        raise ValueError(_NO_SUCH_OVERLOAD)
    return network.parse_ip(bytes(value[1:]).decode())


def _cidr_arg(value: Any) -> network.CIDR:
    if type(value) not in _BYTES_TYPES or value[:1] != b"c":
        raise ValueError(_NO_SUCH_OVERLOAD)
    return network.parse_cidr(bytes(value[1:]).decode())


def _is_valid(parse: Callable[[str], Any]) -> Callable[[Any], bool]:
    def call(text: Any) -> bool:
        _need_str(text)
        try:
            parse(text)
        except ValueError:
            return False
        return True
    return call


def _contains_ip(cidr: Any, other: Any) -> bool:
    if type(other) is str:
        try:
            other = _ip_token(other)
        except ValueError:
            raise _BareNoSuchOverload from None  # upstream checks the parse result's type
    return _cidr_arg(cidr).contains_ip(_ip_arg(other))


def _contains_cidr(cidr: Any, other: Any) -> bool:
    if type(other) is str:
        other = _cidr_token(other)
    return _cidr_arg(cidr).contains_cidr(_cidr_arg(other))


def _is_canonical(text: Any) -> bool:
    _ip_token(text)  # upstream's parse error first
    return network.is_canonical_ip(text)


#: overload id → (runtime function, member call, arity with the target, implementation).
_NETWORK_RUNTIME: dict[str, tuple[str, bool, int, Callable[..., Any]]] = {
    "string_to_ip": ("dractl.ip", False, 1, _ip_token),
    "is_ip": ("dractl.isIP", False, 1, _is_valid(_ip_token)),
    "ip_is_canonical": ("dractl.ip.isCanonical", False, 1, _is_canonical),
    "ip_family": ("dractl.family", True, 1, lambda v: _ip_arg(v).family),
    "ip_is_unspecified": ("dractl.isUnspecified", True, 1, lambda v: _ip_arg(v).is_unspecified),
    "ip_is_loopback": ("dractl.isLoopback", True, 1, lambda v: _ip_arg(v).is_loopback),
    "ip_is_link_local_multicast": ("dractl.isLinkLocalMulticast", True, 1,
                                   lambda v: _ip_arg(v).is_link_local_multicast),
    "ip_is_link_local_unicast": ("dractl.isLinkLocalUnicast", True, 1, lambda v: _ip_arg(v).is_link_local_unicast),
    "ip_is_global_unicast": ("dractl.isGlobalUnicast", True, 1, lambda v: _ip_arg(v).is_global_unicast),
    "ip_to_string": ("dractl.ip_string", False, 1, lambda v: str(_ip_arg(v))),
    "string_to_cidr": ("dractl.cidr", False, 1, _cidr_token),
    "is_cidr": ("dractl.isCIDR", False, 1, _is_valid(_cidr_token)),
    "cidr_contains_ip_string": ("dractl.containsIP", True, 2, _contains_ip),
    "cidr_contains_ip_ip": ("dractl.containsIP", True, 2, _contains_ip),
    "cidr_contains_cidr_string": ("dractl.containsCIDR", True, 2, _contains_cidr),
    "cidr_contains_cidr": ("dractl.containsCIDR", True, 2, _contains_cidr),
    "cidr_ip": ("dractl.cidr_ip", True, 1, lambda v: b"i" + str(_cidr_arg(v).address).encode()),
    "cidr_prefix_length": ("dractl.prefixLength", True, 1, lambda v: _cidr_arg(v).bits),
    "cidr_masked": ("dractl.masked", True, 1, lambda v: b"c" + str(_cidr_arg(v).masked()).encode()),
    "cidr_to_string": ("dractl.cidr_string", False, 1, lambda v: str(_cidr_arg(v))),
}
#: string() of an IP or CIDR whose static type is dyn: the text upstream's String() gives.
_NETWORK_TEXT: dict[bytes, Callable[[Any], str]] = {b"i": lambda v: str(_ip_arg(v)), b"c": lambda v: str(_cidr_arg(v))}
_NETWORK_FUNCTIONS = frozenset({"ip", "isIP", "ip.isCanonical", "family", "isUnspecified", "isLoopback",
                                "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast", "string", "cidr",
                                "isCIDR", "containsIP", "containsCIDR", "prefixLength", "masked", "url", "isURL",
                                "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery"})


# -- the Kubernetes url library (apiserver pkg/cel/library/urls.go): b"u" + the URL as Go prints it


def _url_token(text: Any) -> bytes:
    _need_str(text)  # before the cache: a list or bytes does not hash
    return _url_token_of(text)


@functools.lru_cache(maxsize=4096)
def _url_token_of(text: str) -> bytes:
    try:
        urls.parse_url(text)
    except urls.URLError as exc:
        raise ValueError(str(exc)) from None
    return b"u" + text.encode()


def _url_arg(value: Any) -> urls.URL:
    if type(value) not in _BYTES_TYPES or value[:1] != b"u":
        raise ValueError(_NO_SUCH_OVERLOAD)
    return urls.parse_url(bytes(value[1:]).decode())


def _is_url(text: Any) -> bool:
    if type(text) is not str:
        raise ValueError(_NO_SUCH_OVERLOAD)
    return urls.is_url(text)


_URL_RUNTIME: dict[str, tuple[str, bool, int, Callable[..., Any]]] = {
    "string_to_url": ("dractl.url", False, 1, _url_token),
    "is_url_string": ("dractl.isURL", False, 1, _is_url),
    "url_get_scheme": ("dractl.getScheme", True, 1, lambda v: _url_arg(v).scheme),
    "url_get_host": ("dractl.getHost", True, 1, lambda v: _url_arg(v).host),
    "url_get_hostname": ("dractl.getHostname", True, 1, lambda v: _url_arg(v).hostname),
    "url_get_port": ("dractl.getPort", True, 1, lambda v: _url_arg(v).port),
    "url_get_escaped_path": ("dractl.getEscapedPath", True, 1, lambda v: _url_arg(v).escaped_path),
    "url_get_query": ("dractl.getQuery", True, 1, lambda v: _url_arg(v).query()),
}
_NETWORK_RUNTIME.update(_URL_RUNTIME)


def _url_declarations() -> list[Any]:
    url = T("kubernetes.URL")
    decls = [cel.FunctionDecl("url", [cel.Overload("string_to_url", url, [T.STRING])]),
             cel.FunctionDecl("isURL", [cel.Overload("is_url_string", T.BOOL, [T.STRING])])]
    for name, oid in (("getScheme", "url_get_scheme"), ("getHost", "url_get_host"),
                      ("getHostname", "url_get_hostname"), ("getPort", "url_get_port"),
                      ("getEscapedPath", "url_get_escaped_path")):
        decls.append(cel.FunctionDecl(name, [cel.Overload(oid, T.STRING, [url], is_member=True)]))
    decls.append(cel.FunctionDecl("getQuery", [cel.Overload(
        "url_get_query", T.Map(T.STRING, T.List(T.STRING)), [url], is_member=True)]))
    return decls


def _network_declarations(libraries: frozenset[str]) -> list[Any]:
    ip, cidr = T("net.IP"), T("net.CIDR")
    overloads: dict[str, list[Any]] = {}

    def add(name: str, oid: str, result: Any, params: list[Any], member: bool) -> None:
        overloads.setdefault(name, []).append(cel.Overload(oid, result, params, is_member=member))

    if "ip" in libraries:
        add("ip", "string_to_ip", ip, [T.STRING], False)
        add("isIP", "is_ip", T.BOOL, [T.STRING], False)
        add("ip.isCanonical", "ip_is_canonical", T.BOOL, [T.STRING], False)
        add("family", "ip_family", T.INT, [ip], True)
        for name, oid in (("isUnspecified", "ip_is_unspecified"), ("isLoopback", "ip_is_loopback"),
                          ("isLinkLocalMulticast", "ip_is_link_local_multicast"),
                          ("isLinkLocalUnicast", "ip_is_link_local_unicast"),
                          ("isGlobalUnicast", "ip_is_global_unicast")):
            add(name, oid, T.BOOL, [ip], True)
        add("string", "ip_to_string", T.STRING, [ip], False)
    if "cidr" in libraries:
        add("cidr", "string_to_cidr", cidr, [T.STRING], False)
        add("isCIDR", "is_cidr", T.BOOL, [T.STRING], False)
        add("containsIP", "cidr_contains_ip_string", T.BOOL, [cidr, T.STRING], True)
        add("containsIP", "cidr_contains_ip_ip", T.BOOL, [cidr, ip], True)
        add("containsCIDR", "cidr_contains_cidr_string", T.BOOL, [cidr, T.STRING], True)
        add("containsCIDR", "cidr_contains_cidr", T.BOOL, [cidr, cidr], True)
        add("ip", "cidr_ip", ip, [cidr], True)
        add("prefixLength", "cidr_prefix_length", T.INT, [cidr], True)
        add("masked", "cidr_masked", cidr, [cidr], True)
        add("string", "cidr_to_string", T.STRING, [cidr], False)
    return [cel.FunctionDecl(name, decls) for name, decls in overloads.items()]


#: Runtime names that are not the function's own (named in cel-go's no-overload texts).
_NETWORK_NAMES = {"dractl.cidr_ip": "ip", "dractl.ip_string": "string", "dractl.cidr_string": "string"}


def _network_runtime() -> list[Any]:
    by_name: dict[str, Any] = {}
    for name, member, arity, impl in _NETWORK_RUNTIME.values():
        by_name.setdefault(name, cel.Overload(name.replace(".", "_"), T.DYN, [T.DYN] * arity, is_member=member,
                                              impl=_dispatch_error(_NETWORK_NAMES.get(name, name[7:]), impl)))
    return [cel.FunctionDecl(name, [overload]) for name, overload in by_name.items()]


def _network_runtime_name(overloads: list[str]) -> str | None:
    names = {_NETWORK_RUNTIME[o][0] if o in _NETWORK_RUNTIME else None for o in overloads}
    return names.pop() if len(names) == 1 else None


# -- the Kubernetes format library (apiserver pkg/cel/library/format.go) ---------------------------
# A format travels as b"f" + its name. Upstream's validate and format.named return optionals,
# which a Python implementation cannot make: the runtime calls
# optional.ofNonZeroValue(<list of errors, or b"" for no format>) instead.


def _format_validate(target: Any, text: Any) -> list[str]:
    if type(target) not in _BYTES_TYPES or target[:1] != b"f":
        raise ValueError(_NO_SUCH_OVERLOAD)
    if type(text) is not str:
        raise ValueError(_NO_SUCH_OVERLOAD)
    return named_formats.FORMATS[bytes(target[1:]).decode()](text)


def _format_named(name: Any) -> bytes:
    if type(name) is not str:
        raise ValueError(_NO_SUCH_OVERLOAD)
    return b"f" + name.encode() if name in named_formats.FORMATS else b""


def _format_declarations() -> list[Any]:
    named_format = T("kubernetes.NamedFormat")
    return [cel.FunctionDecl(f"format.{name}", [cel.Overload(f"format.{name}", named_format, [])])
            for name in named_formats.FORMATS]


# validate and format.named return optionals, a type the binding's function declarations cannot
# name (they would be dyn): the checker declares them through its configuration.
_FORMAT_OPTIONAL_FUNCTIONS = """functions:
  - name: validate
    overloads:
      - id: format-validate
        target:
          type_name: kubernetes.NamedFormat
        args:
          - type_name: string
        return:
          type_name: optional_type
          params:
            - type_name: list
              params:
                - type_name: string
  - name: format.named
    overloads:
      - id: format-named
        args:
          - type_name: string
        return:
          type_name: optional_type
          params:
            - type_name: kubernetes.NamedFormat
"""


def _format_runtime() -> list[Any]:
    decls = [
        cel.FunctionDecl("dractl.format_validate", [cel.Overload("dractl_format_validate", T.DYN, [T.DYN, T.DYN],
                                                                 is_member=True, impl=_format_validate)]),
        cel.FunctionDecl("dractl.format_named", [cel.Overload("dractl_format_named", T.DYN, [T.DYN],
                                                              impl=_format_named)]),
    ]
    for name in named_formats.FORMATS:
        token = b"f" + name.encode()
        decls.append(cel.FunctionDecl(f"dractl.format.{name}", [cel.Overload(
            f"dractl_format_{name}", T.BYTES, [], impl=lambda token=token: token)]))
    return decls


def _lists_range(count: Any) -> list[int]:
    _need_int(count)
    return list(range(count)) if count > 0 else []  # cel-cpp fails to reserve a negative size


def _go_ordering(operator: str, wanted: Callable[[int], bool]) -> Callable[[Any, Any], bool]:
    """An ordering of two operands whose static types say nothing: a library value on the left
    has no ordering (``no such overload: _<_``), mismatched types have none either."""
    def call(left: Any, right: Any) -> bool:
        if not _orderable(left):  # null, a list, a map, an optional, a library value: no Comparer
            raise ValueError(f"{_NO_SUCH_OVERLOAD}: {operator}")
        if (type(left) is float and left != left) or (type(right) is float and right != right):
            raise ValueError("NaN values cannot be ordered")  # cel-go's Double.Compare
        result = _go_compare(left, right) if _orderable(left) and _orderable(right) else None
        if result is None:
            raise ValueError(_NO_SUCH_OVERLOAD)
        return wanted(result)
    return call


_ORDERING_TESTS: dict[str, Callable[[int], bool]] = {
    "_<_": lambda r: r < 0, "_<=_": lambda r: r <= 0, "_>_": lambda r: r > 0, "_>=_": lambda r: r >= 0}
_ORDERING_RUNTIME = [
    cel.FunctionDecl(f"dractl.@{name}", [cel.Overload(f"dractl_ordering_{index}", T.BOOL, [T.DYN, T.DYN],
                                                      impl=_go_ordering(name, test))])
    for index, (name, test) in enumerate(_ORDERING_TESTS.items())]
_LISTS_RANGE = cel.FunctionDecl("dractl.lists.range", [
    cel.Overload("dractl_lists_range", T.DYN, [T.DYN], impl=_dispatch_error("lists.range", _lists_range))])


def _duration_milliseconds(value: datetime.timedelta) -> int:
    """cel-go's ``getMilliseconds()`` of a duration is the whole duration in milliseconds,
    truncated toward zero (Go's ``Duration.Milliseconds``); cel-cpp's is the milliseconds within
    the second. cel-cpp hands the duration over truncated to microseconds, which leaves the
    milliseconds as they are."""
    micros = (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds
    return abs(micros) // 1000 * (1 if micros >= 0 else -1)


def _milliseconds_of_dyn(value: Any) -> int:
    """``getMilliseconds()`` of a value whose type is known only at run time."""
    if type(value) is datetime.timedelta:
        return _duration_milliseconds(value)
    if type(value) is datetime.datetime:
        return value.microsecond // 1000
    raise ValueError(_NO_SUCH_OVERLOAD)


def _go_duration_text(text: str) -> str:
    """cel-cpp's ``string()`` of a duration (``1.500s``, exact to the nanosecond) → cel-go's."""
    import decimal  # only for durations: decimal costs start-up

    return cel_expr_operands.go_duration_text(int(decimal.Decimal(text.removesuffix("s")).scaleb(9)))


_GO_DURATION_TEXT = cel.FunctionDecl("dractl.go_duration_text", [
    cel.Overload("dractl_go_duration_text", T.STRING, [T.STRING], impl=_go_duration_text)])
_DURATION_MILLISECONDS = cel.FunctionDecl("dractl.duration_milliseconds", [
    cel.Overload("dractl_duration_milliseconds", T.INT, [T.DURATION], is_member=True, impl=_duration_milliseconds)])
_DYN_MILLISECONDS = cel.FunctionDecl("dractl.dyn_milliseconds", [
    cel.Overload("dractl_dyn_milliseconds", T.INT, [T.DYN], is_member=True,
                 impl=_dispatch_error("getMilliseconds", _milliseconds_of_dyn))])


_EQUALITY = cel.FunctionDecl("dractl.@equals", [
    cel.Overload("dractl_equals", T.BOOL, [T.DYN, T.DYN], impl=_go_equal)])
_NOT_EQUAL = cel.FunctionDecl("dractl.@not_equals", [
    cel.Overload("dractl_not_equals", T.BOOL, [T.DYN, T.DYN], impl=_go_not_equal)])
_IN = cel.FunctionDecl("dractl.@in", [cel.Overload("dractl_in", T.BOOL, [T.DYN, T.DYN], impl=_go_in)])
_IN_CONSTANT_LIST = cel.FunctionDecl("dractl.@in_constant_list", [
    cel.Overload("dractl_in_constant_list", T.BOOL, [T.DYN, T.DYN], impl=_go_in_constant_list)])

#: Functions the runtime environment implements under another name than the checker's, so
#: that their implementations do not collide with cel-cpp's declarations of the same name.
_RUNTIME_NAMES = {"cel.@mapInsert": "dractl.@mapInsert", "lists.range": "dractl.lists.range"}
_LIBRARY_TYPE_NAMES = ("kubernetes.Quantity", "kubernetes.Semver", "net.IP", "net.CIDR", "kubernetes.URL",
                       "kubernetes.NamedFormat")
_K8S_LIST_FUNCTIONS = frozenset({"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "charAt", "substring"})


def _may_hold_library_value(kind: CelType | None) -> bool:
    """Whether a value of static type ``kind`` may be or contain a library value."""
    if kind is None:
        return True
    if kind.kind in ("list", "map") or kind.name == "optional_type":
        return any(_may_hold_library_value(param) for param in kind.params)
    return kind.kind in ("dyn", "any", "type_param", "error") or (
        kind.kind == "message" and kind.name in _LIBRARY_TYPE_NAMES)


#: Conversions cel-go evaluates when it plans a call of them on constants.
_FOLDED_CONVERSIONS = frozenset({"int", "uint", "double", "string", "bool", "bytes", "dyn"})
_PRIMITIVE_KINDS = frozenset({"bool", "int", "uint", "double", "string"})


def _constant_primitive_list(ast: CheckedAst, node: Expr) -> bool:
    """Whether ``node`` is a non-empty list literal cel-go plans as a constant of primitives (no
    bytes): literals and conversions of them (``[dyn(1.5)]``, ``[int('1')]``, not ``[1 + 1]``)."""
    def folded(element: Expr) -> bool:
        if element.kind == "const":
            return True
        return element.kind == "call" and element.operand is None and element.name in _FOLDED_CONVERSIONS \
            and len(element.args) == 1 and folded(element.args[0])

    def kind_of(element: Expr) -> str:
        while element.kind == "call" and element.name == "dyn":
            element = element.args[0]
        return ast.type_of(element).kind

    return node.kind == "list" and bool(node.args) and not node.optional_entries and all(
        folded(element) and kind_of(element) in _PRIMITIVE_KINDS for element in node.args)


def _checked_or_dyn(ast: CheckedAst, node: Expr) -> CelType | None:
    """``node``'s checked type, or None (unknown) where cel-cpp inferred it from the other side
    of an equality: the value of an optional of dyn (``l[?0].value() == 0``, ``.orValue(0)``)
    is typed as the other operand, although at run time it may be a version or a quantity."""
    if node.kind == "call" and node.name in ("value", "orValue") and node.operand is not None:
        operand = ast.types.get(node.operand.id)
        if operand is None or operand.kind in ("dyn", "any") or (
                operand.name == "optional_type" and any(p.kind in ("dyn", "any") for p in operand.params)):
            return None
    return ast.types.get(node.id)


def _may_be_double(kind: CelType | None) -> bool:
    # An operand of unknown type is a double only where the selector makes one: attribute
    # values never are, and a typical selector compares attributes with int literals natively.
    return kind is not None and kind.kind == "double"


def _unknown_scalar(kind: CelType | None) -> bool:
    return kind is None or kind.kind in ("dyn", "any", "type_param")


def _runtime_renames(ast: CheckedAst) -> dict[int, Rename]:
    """The calls of ``ast`` the runtime environment runs under another name: equality and
    membership where cel-go's answer differs from cel-cpp's (an operand that may be a library
    value, a quantity inside a container), and functions cel-cpp does not implement."""
    renames: dict[int, Rename] = {}
    types = ast.types
    next_id = max((node.id for node in ast.root.walk()), default=0) + 1
    for node in ast.root.walk():
        if node.kind != "call":
            continue
        name = node.name
        if name in _RUNTIME_NAMES:
            renames[node.id] = _RUNTIME_NAMES[name]
        elif name == "string" and ast.overloads.get(node.id) == ["duration_to_string"]:
            renames[node.id] = ("dractl.go_duration_text", "string", next_id)
            next_id += 1
        elif name == "getMilliseconds" and not node.args and "duration_to_milliseconds" in ast.overloads.get(node.id, []):
            # cel-cpp's is the milliseconds within the second, cel-go's the whole duration's
            only_duration = ast.overloads.get(node.id) == ["duration_to_milliseconds"]
            renames[node.id] = "dractl.duration_milliseconds" if only_duration else "dractl.dyn_milliseconds"
        elif name.startswith("format.") or name == "validate":
            overloads = ast.overloads.get(node.id, [])
            if overloads == ["format-validate"]:
                renames[node.id] = ("optional.ofNonZeroValue", "dractl.format_validate", next_id)
                next_id += 1
            elif overloads == ["format-named"]:
                renames[node.id] = ("optional.ofNonZeroValue", "dractl.format_named", next_id)
                next_id += 1
            elif overloads == [name]:
                renames[node.id] = f"dractl.{name}"
        elif name in _NETWORK_FUNCTIONS and _network_runtime_name(ast.overloads.get(node.id, [])) is not None:
            renames[node.id] = _network_runtime_name(ast.overloads.get(node.id, []))  # type: ignore[assignment]
        elif name in _K8S_LIST_FUNCTIONS:
            runtime_name = _k8s_list_runtime_name(name, ast.overloads.get(node.id, []))
            if runtime_name is not None:
                renames[node.id] = runtime_name
        elif name in cel_expr_operands.CONVERSION_CHECKS and node.operand is None and len(node.args) == 1:
            kind = types.get(node.args[0].id)
            if _unknown_scalar(kind) or (kind is not None and kind.kind == "string"):
                renames[node.id] = (name, cel_expr_operands.CONVERSION_CHECKS[name], next_id)
                next_id += 1
        elif name in cel_expr_operands.OPERAND_CHECKS or name in cel_expr_operands.REPLACEMENTS:
            operand = node.operand if node.operand is not None else (node.args[0] if len(node.args) == 1 else None)
            if operand is None or not _unknown_scalar(types.get(operand.id)):
                continue
            if name in cel_expr_operands.REPLACEMENTS:
                renames[node.id] = cel_expr_operands.REPLACEMENTS[name]
            else:
                renames[node.id] = (name, cel_expr_operands.OPERAND_CHECKS[name], next_id)
                next_id += 1
        elif name in _ORDERING_TESTS and len(node.args) == 2:
            left, right = (types.get(arg.id) for arg in node.args)
            # cel-cpp orders NaN (false); cel-go refuses to
            if (_unknown_scalar(left) and _unknown_scalar(right)) or _may_be_double(left) or _may_be_double(right):
                renames[node.id] = f"dractl.@{name}"
        elif name in ("_==_", "_!=_", "@in") and len(node.args) == 2:
            left, right = (_checked_or_dyn(ast, arg) for arg in node.args)
            if not (_may_hold_library_value(left) or "kubernetes.Quantity" in f"{left}{right}"):
                continue
            if name == "@in":
                renames[node.id] = "dractl.@in_constant_list" if _constant_primitive_list(ast, node.args[1]) \
                    else "dractl.@in"
            else:
                renames[node.id] = "dractl.@equals" if name == "_==_" else "dractl.@not_equals"
    return renames


def _addition_guards(ast: CheckedAst) -> dict[int, Wrap]:
    """``a + b`` where cel-cpp could concatenate two bytes that are not both bytes to cel-go (a
    version or quantity is bytes here): checked first, as cel-go's traits answer it."""
    found: dict[int, Wrap] = {}
    for node in ast.root.walk():
        if node.kind == "call" and node.name == "_+_" and len(node.args) == 2:
            left, right = (ast.types.get(arg.id) for arg in node.args)
            if (_unknown_scalar(left) and _may_be_bytes(right)) or (_unknown_scalar(right) and _may_be_bytes(left)):
                found[node.id] = _checked_addition
    return found


def _may_be_bytes(kind: CelType | None) -> bool:
    return _unknown_scalar(kind) or (kind is not None and kind.kind == "bytes")


def _checked_addition(expr: bytes, fresh: Callable[[], int]) -> bytes:
    left, right = f"@dractl.addend{fresh()}", f"@dractl.addend{fresh()}"

    def library(name: str) -> bytes:  # && absorbs the no-overload error of a value that is no bytes
        return build_call(fresh, "_&&_", build_call(fresh, "_==_", build_call(fresh, "type", build_ident(fresh, name)),
                                                    build_ident(fresh, "bytes")),
                          build_call(fresh, "dractl.library_token", build_ident(fresh, name)))

    def fail(text: str) -> bytes:
        return build_call(fresh, "dractl.no_overload", build_string(fresh, text))

    added = replace_call_operand(replace_call_operand(expr, 0, build_ident(fresh, left)), 1, build_ident(fresh, right))
    body = build_call(fresh, "_?_:_", library(left), fail(f"{_NO_SUCH_OVERLOAD}: _+_"),
                      build_call(fresh, "_?_:_", library(right), fail(_NO_SUCH_OVERLOAD), added))
    return build_bind(fresh, left, call_operand(expr, 0), build_bind(fresh, right, call_operand(expr, 1), body))


def _no_overload(text: str) -> bool:
    raise ValueError(text)


#: Runtime functions implemented in Python whose int arguments may be a uint at run time
#: (``'abc'.charAt(dyn(1u))``): cel-expr-python hands a uint to Python as an int, and cel-go
#: takes only an int there. (runtime name → the function upstream's error names)
_INT_ARGUMENTS = {"dractl.charAt": "charAt", "dractl.substring": "substring", "dractl.substring3": "substring",
                  "dractl.indexOf3": "indexOf", "dractl.lastIndexOf3": "lastIndexOf", "dractl.lists.range": "lists.range"}


def _uint_guards(ast: CheckedAst, renames: dict[int, Rename]) -> dict[int, Wrap]:
    """Calls of ``_INT_ARGUMENTS`` with an argument of unknown type: a uint there is cel-go's
    ``no such overload: charAt(string, uint)``, checked before the call."""
    found: dict[int, Wrap] = {}
    for node, runtime_name, _operands in _python_run_calls(ast, renames):
        function = _INT_ARGUMENTS.get(runtime_name)
        if function is None:
            continue
        positions = [i for i, arg in enumerate(node.args) if _unknown_scalar(ast.types.get(arg.id))]
        if positions:
            operands = ([node.operand] if node.operand is not None else []) + node.args
            found[node.id] = _uint_refused(function, positions, [ast.types.get(o.id) for o in operands],
                                           node.operand is not None)
    return found


def _uint_refused(function: str, positions: list[int], kinds: list[CelType | None], member: bool) -> Wrap:
    def wrap(expr: bytes, fresh: Callable[[], int]) -> bytes:
        names = {position: f"@dractl.int{fresh()}" for position in positions}
        call = expr
        for position, name in names.items():
            call = replace_call_operand(call, position, build_ident(fresh, name))
        body = call
        for position, name in reversed(names.items()):
            shown = [cel_expr_errors.go_type_name(k) if k is not None else "dyn" for k in kinds]
            shown[position + member] = "uint"
            text = f"{_NO_SUCH_OVERLOAD}: {function}({', '.join(shown)})"
            test = build_call(fresh, "_==_", build_call(fresh, "type", build_ident(fresh, name)),
                              build_ident(fresh, "uint"))
            body = build_call(fresh, "_?_:_", test, build_call(fresh, "dractl.no_overload", build_string(fresh, text)),
                              body)
        for position, name in reversed(names.items()):
            body = build_bind(fresh, name, call_operand(expr, position), body)
        return body
    return wrap


def _handover_guards(ast: CheckedAst) -> dict[int, Wrap]:
    """Calls cel-cpp answers otherwise than cel-go for some values, checked at run time:
    ``matches`` of a pattern only Go refuses fails as upstream's; ``format`` and ``split``
    hand a device on which they meet such a value to cel-python (cel_expr_fallback.HANDOVER),
    only where cel-python is installed (without it cel-cpp's answer stands)."""
    from dractl.cel.engines import FALLBACK_ENGINE, engine_available

    # Asked only when a format or split call is there: importing cel-python costs a selector
    # without them (most of them) about 40 ms.
    handover: bool | None = None
    found: dict[int, Wrap] = {}
    makes_optionals = cel_expr_optionals.makes_optionals(ast.types)
    for node in ast.root.walk():
        if node.kind == "call" and node.name == "matches" and len(node.args) == (1 if node.operand else 2):
            pattern = node.args[-1]
            if pattern.kind != "const":  # a constant pattern is checked when the selector compiles
                # both operands, in order: a failing text is reported before the pattern
                found[node.id] = _checked_first("dractl.regex_plain", (-1, 0) if node.operand else (0, 1))
            continue
        if node.kind != "call" or node.operand is None or node.name not in ("format", "split"):
            continue
        if handover is None:
            handover = engine_available(FALLBACK_ENGINE)
        if not handover:
            continue
        if node.name == "format" and len(node.args) == 1:
            # a container holding an optional cannot reach Python (see _optional_boxes)
            if not (makes_optionals and cel_expr_optionals.may_hold_optional(ast.types.get(node.args[0].id))):
                found[node.id] = _checked_first("dractl.format_plain", (0,))
        elif node.name == "split" and len(node.args) in (1, 2):
            found[node.id] = _checked_first("dractl.split_plain", (-1, 0))
    return found


def _checked_first(check: str, positions: tuple[int, ...]) -> Wrap:
    """``check(operands) ? call : call``: the check raises the handover error or is true."""
    def wrap(expr: bytes, fresh: Callable[[], int]) -> bytes:
        test = build_call(fresh, check, *(call_operand(expr, position) for position in positions))
        return build_call(fresh, "_?_:_", test, expr, expr)
    return wrap


def _format_plain(arguments: Any) -> bool:
    """Whether cel-cpp formats ``arguments`` as cel-go does; else the handover error. cel-go
    writes doubles with Go's fmt (``%e`` of 1e300, ``%f`` and ``%s`` of infinities, a double in a
    list as ``%g``) and fails on bytes that are not UTF-8; cel-cpp writes its own texts."""
    if _needs_go_format(arguments):
        raise ValueError(cel_expr_fallback.HANDOVER)
    return True


def _needs_go_format(value: Any) -> bool:
    kind = type(value)
    if kind is float:
        return True
    if kind in _BYTES_TYPES and not _library_value(value):
        try:
            bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return True
        return False
    if kind is list:
        return any(_needs_go_format(item) for item in value)
    if kind is dict:
        return any(_needs_go_format(key) or _needs_go_format(item) for key, item in value.items())
    return False


def _regex_plain(text: Any, pattern: Any) -> bool:
    """A pattern Go's regexp refuses fails with upstream's text, also one cel-cpp's RE2 takes
    (``\\C``)."""
    if type(text) is str and type(pattern) is str:
        error = regex.go_regexp_error(pattern)  # compiled once (cached), as cel-cpp will
        if error is not None:
            raise ValueError(error)
    return True


def _split_plain(text: Any, separator: Any) -> bool:
    """Go's ``strings.Split("", "")`` is empty, cel-cpp's split of it holds one empty string."""
    if text == "" and separator == "":
        raise ValueError(cel_expr_fallback.HANDOVER)
    return True


_ADDITION_CHECKS = [
    cel.FunctionDecl("dractl.format_plain", [cel.Overload("dractl_format_plain", T.BOOL, [T.DYN],
                                                          impl=_format_plain)]),
    cel.FunctionDecl("dractl.regex_plain", [cel.Overload("dractl_regex_plain", T.BOOL, [T.DYN, T.DYN],
                                                         impl=_regex_plain)]),
    cel.FunctionDecl("dractl.split_plain", [cel.Overload("dractl_split_plain", T.BOOL, [T.DYN, T.DYN],
                                                         impl=_split_plain)]),
    cel.FunctionDecl("dractl.library_token", [cel.Overload("dractl_library_token", T.BOOL, [T.BYTES],
                                                           impl=lambda value: _library_value(value))]),
    cel.FunctionDecl("dractl.no_overload", [cel.Overload("dractl_no_overload", T.DYN, [T.STRING], impl=_no_overload)]),
]


def _domain_default(lookup: Expr, key: Expr | str) -> Wrap:
    """``device.attributes[key]`` (or ``.key``, ``[?key]``, ``.?key``) as upstream's outer maps
    answer it: a domain the device lacks is an empty map (an optional of one)."""
    outer = lookup.operand if lookup.kind == "select" else lookup.args[0]
    assert outer is not None
    optional = lookup.kind == "call" and lookup.name in ("_[?_]", "_?._")

    def wrap(expr: bytes, fresh: Callable[[], int]) -> bytes:
        if isinstance(key, str):
            key_expr = build_string(fresh, key)
        elif key.kind == "const":
            key_expr = build_string(fresh, key.value)
        elif key.kind == "ident":
            key_expr = build_ident(fresh, key.name)
        else:  # device.driver
            key_expr = build_select(fresh, build_ident(fresh, "device"), "driver")
        present = build_call(fresh, "@in", key_expr, build_ident(fresh, outer.name))
        empty = build_map(fresh)
        return build_call(fresh, "_?_:_", present, expr, build_call(fresh, "optional.of", empty) if optional else empty)
    return wrap


#: Functions the runtime environment runs in Python under their checker's name.
_PYTHON_FUNCTIONS = frozenset({
    "quantity", "isQuantity", "sign", "asApproximateFloat", "asInteger", "isInteger", "add", "sub", "isGreaterThan",
    "isLessThan", "compareTo", "semver", "isSemver", "major", "minor", "patch", "find", "findAll", "includes"})
_EQUALITY_RENAMES = frozenset({"dractl.@equals", "dractl.@not_equals", "dractl.@in", "dractl.@in_constant_list"})


def _python_run_calls(ast: CheckedAst, renames: dict[int, Rename]) -> Iterator[tuple[Expr, str, list[Expr]]]:
    """The calls the runtime runs in Python: (node, runtime name, operands)."""
    for node in ast.root.walk():
        if node.kind != "call":
            continue
        rename = renames.get(node.id)
        runtime_name = rename[1] if isinstance(rename, tuple) else rename or node.name
        if runtime_name.startswith("dractl.") or runtime_name in _PYTHON_FUNCTIONS:
            yield node, runtime_name, ([node.operand] if node.operand is not None else []) + node.args


def _optional_domain_lookup_by_non_string(ast: CheckedAst) -> bool:
    """Whether ``device.attributes[?k]`` or ``device.capacity[?k]`` has a key that may not be a
    string at run time: upstream's outer maps answer every key with an empty map (``mapper.Find``
    in k8s.io/dynamic-resource-allocation ``cel/compile.go``), cel-cpp's find no such key."""
    for node in ast.root.walk():
        if node.kind == "call" and node.name == "_[?_]" and len(node.args) == 2 and node.args[0].kind == "ident" \
                and node.args[0].name in ("device.attributes", "device.capacity"):
            kind = ast.types.get(node.args[1].id)
            if kind is None or kind.kind != "string":
                return True
    return False


def _refuse_optionals_in_containers(ast: CheckedAst, renames: dict[int, Rename], expression: str) -> None:
    """cel-expr-python ends the process when a list or map holding an optional reaches a Python
    function, and a box cannot be put inside a container natively: refuse such an expression."""
    carriers = cel_expr_optionals.optional_carriers(ast.root, ast.types)
    for node, _, operands in _python_run_calls(ast, renames):
        if any(cel_expr_optionals.optional_in_container(operand, ast.types, carriers) for operand in operands):
            line, column = expression_line_column(expression, ast.positions.get(node.id, 0))
            what = f"the operator {node.name.strip('_@')}" if node.name[0] in "_@" else f"{node.name}()"
            detail = (f"not supported by dractl: {what} of a list or map holding an optional value "
                      "cannot be evaluated by the CEL engine cel-expr-python (use --cel-engine cel-python)")
            raise CelCompileError(detail, [CelError(detail, line, column)], kind="unsupported")


def _compares_optionals_of_library_values(ast: CheckedAst) -> bool:
    """Whether the selector compares lists or maps that may hold optionals of library values
    (``[optional.of(dyn(v))] == [optional.of(1)]``): cel-go's element comparison fails there and
    does not make the containers unequal, cel-cpp's is false, and the comparison cannot run in
    Python (see _optional_boxes)."""
    for node in ast.root.walk():
        if node.kind == "call" and node.name in ("_==_", "_!=_", "@in") and len(node.args) == 2:
            for arg in node.args:
                kind = ast.types.get(arg.id)
                if kind is not None and kind.kind in ("list", "map") and cel_expr_optionals.may_hold_optional(kind) \
                        and _may_hold_library_value(kind):
                    return True
    return False


def _optional_boxes(ast: CheckedAst, renames: dict[int, Rename]) -> dict[int, Wrap]:
    """In an expression that makes optionals: the operands of calls run in Python that may be
    optionals at run time, to be boxed (see cel_expr_optionals). Equality and membership of
    containers that may hold optionals stay cel-cpp's (``renames`` loses them): a box cannot
    be put inside a list or map natively."""
    boxes: dict[int, Wrap] = {}
    for node, runtime_name, operands in list(_python_run_calls(ast, renames)):
        kinds = [ast.types.get(operand.id) for operand in operands]
        if runtime_name in _EQUALITY_RENAMES and any(
                kind is not None and kind.kind in ("list", "map") and cel_expr_optionals.may_hold_optional(kind)
                for kind in kinds):
            del renames[node.id]
            continue
        for operand, kind in zip(operands, kinds, strict=True):
            if cel_expr_optionals.may_be_optional(kind):
                boxes[operand.id] = cel_expr_optionals.boxed
    return boxes


def _shadowed_map_keys(ast: CheckedAst) -> frozenset[int]:
    """Key ids of map literal entries a later entry with the same constant key replaces: cel-go
    builds the map entry by entry, so the last one wins, where cel-cpp fails the whole map
    ("duplicate key in map"). Only entries whose value cannot fail are left out."""
    shadowed: set[int] = set()
    for node in ast.root.walk():
        if node.kind != "map" or len(node.entries) < 2:
            continue
        last: dict[tuple[str, Any], Expr] = {}
        for key, value in node.entries:
            if not isinstance(key, Expr) or key.kind != "const":
                continue
            identity = (str(ast.type_of(key)), key.value)
            earlier = last.get(identity)
            if earlier is not None:
                shadowed.add(earlier.id)
            last[identity] = key if value.kind in ("const", "ident") else _UNSHADOWABLE
    shadowed.discard(_UNSHADOWABLE.id)
    return frozenset(shadowed)


_UNSHADOWABLE = Expr(-1, "const")


def _always_true(ast: CheckedAst) -> frozenset[int]:
    """Ids of subexpressions the runtime replaces by ``true``:

    - ``has(device.attributes.<domain>)``, ``has(device.capacity.<domain>)``: upstream's device
      maps answer every domain (an empty map for one the device lacks), so the test is true even
      where dractl hands cel-cpp the plain maps (a selector that inspects a map as a whole);
    - the loop condition of a comprehension that may stop early (``exists``, ``all``) in an
      expression with ``cel.bind``. cel-cpp evaluates a bound variable lazily in a slot, and
      after a comprehension that stopped early a later ``cel.bind`` can read a stale value
      (``[1, 2].exists(v, v == 1) && cel.bind(z, 7, z == 7)`` is false). Run to the end, the
      comprehension gives the same answer (its step absorbs an error once decided).
    """
    found: set[int] = set()
    comprehensions = []
    for node in ast.root.walk():
        if node.kind == "comprehension":
            comprehensions.append(node)
        elif (node.kind == "select" and node.test_only and node.operand is not None
              and node.operand.kind == "ident" and node.operand.name in ("device.attributes", "device.capacity")
              and "device" not in _comprehension_names(ast.root)):
            found.add(node.id)
    if any(node.iter_var == "#unused" for node in comprehensions):
        for node in comprehensions:
            condition = node.loop_condition
            if node.iter_var != "#unused" and condition is not None and not (
                    condition.kind == "const" and condition.value is True):
                found.add(condition.id)
    return frozenset(found)


def _comprehension_names(root: Expr) -> set[str]:
    return {name for node in root.walk() if node.kind == "comprehension"
            for name in (node.iter_var, node.iter_var2, node.accu_var) if name}


_EXISTS_ONE = r"\bexists_one\("


def _two_variable_exists_one(expression: str) -> str:
    """cel-go also spells the two-variable ``existsOne`` macro ``exists_one``; cel-cpp knows only
    the one-variable ``exists_one``. The three-argument form is respelled ``existsOne (``: same
    length, so every position stays the author's."""
    if "exists_one" not in expression:
        return expression
    text = expression
    for match in re.finditer(_EXISTS_ONE, expression):
        if len(argument_ends(expression, match.end())) == 3:
            text = text[:match.start()] + "existsOne (" + text[match.end():]
    return text


def _refuse_private_type_names(ast: CheckedAst, expression: str) -> None:
    """The library types are messages of this engine's descriptor pool, so their names resolve
    as type literals; upstream's do not (``kubernetes`` is undeclared). Nor is ``dyn`` a type
    name in cel-go."""
    for node in ast.root.walk():
        reference = ast.references.get(node.id, "")
        if node.kind == "ident" and reference == "dyn" and ast.type_of(node).kind == "type":
            line, column = expression_line_column(expression, ast.positions.get(node.id, 0))
            err = CelError("undeclared reference to 'dyn' (in container '')", line, column)
            issues = [(err, messages.snippet_for(expression, line, column))]
            raise CelCompileError("compilation failed: " + messages.format_issues(issues), [err])
        if node.kind != "ident" or not reference.startswith("kubernetes."):
            continue
        if reference == "kubernetes.DRADevice":
            detail = "program instantiation failed: reference to undefined type: kubernetes.DRADevice"
            raise CelCompileError(detail, [CelError(detail)], kind="internal")
        offset = ast.positions.get(node.id, 0)
        start = expression.rfind("kubernetes", 0, offset + 1)
        line, column = expression_line_column(expression, max(start, 0))
        err = CelError("undeclared reference to 'kubernetes' (in container '')", line, column)
        issues = [(err, messages.snippet_for(expression, line, column))]
        raise CelCompileError("compilation failed: " + messages.format_issues(issues), [err])


#: Element types a list may have for cel-go's ``flatten()`` (declared for ``list(list(T))``):
#: lists, and types a list is assignable to.
_FLATTENABLE_ELEMENTS = frozenset({"list", "dyn", "any", "type_param", "error"})


def _refuse_flatten_of_flat_lists(ast: CheckedAst, expression: str) -> None:
    """cel-go declares ``flatten()`` for a list of lists only (``flatten(depth)`` for any list);
    cel-cpp's takes every list, so ``[true, false].flatten()`` compiles there and not upstream."""
    for node in ast.root.walk():
        if node.kind != "call" or node.name != "flatten" or node.args or node.operand is None:
            continue
        if ast.overloads.get(node.id) != ["list_flatten"]:
            continue
        target = ast.type_of(node.operand)
        if target.kind != "list" or not target.params or target.params[0].kind in _FLATTENABLE_ELEMENTS:
            continue
        line, column = expression_line_column(expression, ast.positions.get(node.id, 0))
        err = CelError(f"found no matching overload for 'flatten' applied to "
                       f"'{cel_expr_errors.go_type_name(target)}.()'", line, column)
        raise CelCompileError("compilation failed: " + messages.format_issues(
            [(err, messages.snippet_for(expression, line, column))]), [err])


class CelExprEngine:
    name = ENGINE_NAME
    #: Every library of upstream's environment is declared here (see unsupported.py).
    implemented_libraries = frozenset(LIBRARY_FUNCTIONS)

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()  # threading.Lock without importing threading
        self._pools = {flag: cel_expr_descriptors.DescriptorPool(flag) for flag in (False, True)}
        self._runtime_pool = self._pools[True]
        self.library = _Library()
        self._checkers: dict[tuple[object, ...], Any] = {}
        self._runtime_env: Any = None

    @property
    def runtime_env(self) -> Any:
        """The environment programs evaluate in, made on first use: its variables are untyped
        and it holds the Python implementations of the library."""
        env = self._runtime_env
        if env is None:
            with self._lock:
                env = self._runtime_env
                if env is None:
                    with cel_expr_descriptors.protobuf_on_demand():
                        env = self._runtime_env = self._new_runtime_env(T.DYN)
        return env

    def _new_runtime_env(self, any_value: Any) -> Any:
        return cel.NewEnv(
            self._runtime_pool,
            config=_extension_config(frozenset(_CONFIG_EXTENSIONS)),
            variables={"device": any_value, "device.attributes": any_value, "device.capacity": any_value},
            extensions=[cel.CelExtension("kubernetes", [*self.library.declarations(None), _MAP_INSERT, _EQUALITY,
                                                          _NOT_EQUAL, _IN, _IN_CONSTANT_LIST,
                                                          *_k8s_list_runtime(), *_network_runtime(),
                                                          *_strings_runtime(), *_format_runtime(),
                                                          *_ORDERING_RUNTIME, _LISTS_RANGE, _DURATION_MILLISECONDS, _DYN_MILLISECONDS,
                                                          _GO_DURATION_TEXT,
                                                          *cel_expr_panics.DECLARATIONS, *_ADDITION_CHECKS,
                                                          *cel_expr_operands.declarations(
                                                              token_type_name, _library_value, go_type_name,
                                                              _NETWORK_TEXT)])],
        )

    def _checker(self, environment: Environment) -> Any:
        key = environment.cache_key
        checker = self._checkers.get(key)
        if checker is None:
            with self._lock:
                checker = self._checkers.get(key)
                if checker is None:
                    checker = self._new_checker(environment)
                    self._checkers[key] = checker
        return checker

    def _new_checker(self, environment: Environment, probes: Sequence[cel_expr_errors.Probe] = (),
                     unknown_variables: Sequence[str] = ()) -> Any:
        """The checker for ``environment``; the probes and variables of any type are declared
        only to learn the types of an expression that does not compile (cel_expr_errors)."""
        pool = self._pools[environment.allow_multiple_allocations_field]
        attribute_type = T.DYN if environment.list_type_attributes else T("google.protobuf.Any")
        extensions: list[Any] = []
        declarations = self.library.declarations(environment)
        if "cross-type-numeric-comparisons" in environment.libraries:
            declarations += _ordering_declarations()
        extensions.append(cel.CelExtension("kubernetes", declarations))
        if probes:
            extensions.append(cel.CelExtension("dractl-probe", [_probe_declaration(p, i) for i, p in enumerate(probes)]))
        with cel_expr_descriptors.protobuf_on_demand():
            return cel.NewEnv(
                pool,
                config=_extension_config(environment.libraries, checker=True),
                variables={
                    "device": T("kubernetes.DRADevice"),
                    "device.attributes": T.Map(T.STRING, T.Map(T.STRING, attribute_type)),
                    "device.capacity": T.Map(T.STRING, T.Map(T.STRING, T("kubernetes.Quantity"))),
                    **{name: T.DYN for name in unknown_variables},
                },
                extensions=extensions,
            )

    def compile(self, expression: str, environment: Environment) -> _CelExprProgram:
        checker = self._checker(environment)
        source = _two_variable_exists_one(expression) if "two-var-comprehensions" in environment.libraries \
            else expression
        try:
            checked = checker.compile(source)
        except RuntimeError as exc:
            if cel_expr_fallback.cel_cpp_nesting_limit(str(exc)):
                return cel_expr_fallback.nested_program(expression, environment)  # type: ignore[no-any-return]
            error = self._compile_error(str(exc), expression, source, environment)
            if cel_expr_fallback.cel_cpp_limit(error, expression):
                fallback = cel_expr_fallback.fallback_program(expression, environment)
                if fallback is not None:
                    return fallback  # type: ignore[no-any-return]
            raise error from None
        output_type = _output_type_name(checked.return_type())
        serialized = checked.serialize()
        ast = decode_checked(serialized)
        unreported = cel_expr_errors.sort_by_errors(ast, expression, lambda text: self._parsed(text, checker))
        if unreported:
            issues = [(err, messages.snippet_for(expression, err.line, err.column)) for err in unreported]
            raise CelCompileError("compilation failed: " + messages.format_issues(issues), unreported)
        _refuse_private_type_names(ast, expression)
        _refuse_flatten_of_flat_lists(ast, expression)
        renames = _runtime_renames(ast)
        guards = cel_expr_panics.guards(ast.root, ast.overloads,
                                        lambda key: _may_hold_library_value(ast.types.get(key.id)))
        guards.update(_addition_guards(ast))
        guards.update(_uint_guards(ast, renames))
        for node_id, wrap in _handover_guards(ast).items():
            guards.setdefault(node_id, wrap)
        fallback = None
        if _optional_domain_lookup_by_non_string(ast):
            fallback = cel_expr_fallback.fallback_program(expression, environment)
        if cel_expr_optionals.makes_optionals(ast.types):
            if _compares_optionals_of_library_values(ast):
                fallback = fallback or cel_expr_fallback.fallback_program(expression, environment)
            guards.update(_optional_boxes(ast, renames))
            try:
                _refuse_optionals_in_containers(ast, renames, expression)
            except CelCompileError:
                fallback = fallback or cel_expr_fallback.fallback_program(expression, environment)
                if fallback is None:
                    raise
        lookups = domain_lookups(ast)
        domains_defaulted = False
        if not lookups.exact and lookups.any:
            # The device's maps are bound as they are (they are inspected as a whole): each domain
            # lookup gets upstream's empty-map default in the expression instead.
            nodes, domains_defaulted = domain_lookup_nodes(ast)
            guards.update({node.id: _domain_default(node, key) for node, key in nodes})
        runtime_tree = rename_calls(
            serialized, renames, _shadowed_map_keys(ast), _always_true(ast), guards,
            first_fresh_id=max((node.id for node in ast.root.walk()), default=0) + len(renames) + 1)
        estimate = CostEstimator(ast, environment.list_type_attributes).estimate()
        bound, units = EvaluationBound(ast, environment.list_type_attributes).measure()
        # Only a program that can panic as cel-go does looks for a recorded panic.
        panicking = guards or any(name in ("dractl.@in_constant_list", "dractl.@in") for name in renames.values())
        kind: type[_CelExprProgram] = _PanickingProgram if panicking else _CelExprProgram
        if fallback is not None:
            kind = _FallbackProgram
        elif bound.max > RUNTIME_COST_LIMIT or units > CEL_CPP_UNITS:
            kind = _TrackedProgram
        elif units > SHARED_ARENA_UNITS:
            kind = _FreshPanickingProgram if panicking else _FreshProgram
        program = kind(self, runtime_tree, output_type, environment.list_type_attributes, ast, estimate.max, estimate.min)
        if isinstance(program, _TrackedProgram):
            program.units = units
        program.domains_defaulted = domains_defaulted
        program.expression = expression
        program.environment = environment
        program._fallback = fallback
        program.serialized = serialized  # the tree as the engine wrote it (dractl.cel.compile_store)
        return program

    @staticmethod
    def _parsed(text: str, checker: Any) -> CheckedAst | None:
        """The parsed tree of ``text`` (None when it does not parse)."""
        try:
            return decode_parsed(checker.compile(text, disable_check=True).serialize())
        except RuntimeError:
            return None

    def _compile_error(self, report: str, expression: str, source: str, environment: Environment) -> CelCompileError:
        """cel-cpp's failure to compile ``source`` (the engine's spelling of ``expression``, of the
        same length) as upstream reports it."""
        parsed = self._parsed(source, self._checker(environment))

        def check(probes: Sequence[cel_expr_errors.Probe], variables: Sequence[str]) -> CheckedAst | None:
            try:
                return decode_checked(self._new_checker(environment, probes, variables).compile(source).serialize())
            except RuntimeError:
                return None

        errors = cel_expr_errors.upstream_errors(report, expression, parsed, declared_functions(environment), check)
        if not errors:
            detail = messages.strip_status(report)
            return CelCompileError(f"compilation failed: {detail}", [CelError(detail)])
        issues = [(err, messages.snippet_for(expression, err.line, err.column)) for err in errors]
        return CelCompileError("compilation failed: " + messages.format_issues(issues), errors)

    @staticmethod
    def expression_text(program: _CelExprProgram) -> str:
        return program.expression

    def go_type_of(self, expression: str, activation: Any) -> str | None:
        """The Go type cel-go would hold for the value of ``expression`` (error paths only)."""
        try:
            value = self.runtime_env.compile(expression, disable_check=True).eval(activation)
        except RuntimeError:
            return None
        name = cel_go_type_name(value.type().name())
        if name == "bytes":
            name = token_type_name(value.value())
        if name.startswith(("list", "map")) or name == "any":
            return None
        go_names = {"int": "types.Int", "uint": "types.Uint", "double": "types.Double", "bool": "types.Bool",
                    "string": "types.String", "bytes": "types.Bytes", "null_type": "types.Null",
                    "google.protobuf.Duration": "types.Duration", "google.protobuf.Timestamp": "types.Timestamp",
                    "kubernetes.Semver": "cel.Semver", "kubernetes.Quantity": "cel.Quantity"}
        return go_names.get(name, name)

    # -- device conversion -------------------------------------------------------------------
    def activation(self, device: CelDevice, list_types: bool, domains: DomainLookups | None,
                   whole_device: bool, fresh: bool = False) -> Any:
        """The activation a program evaluates ``device`` with.

        ``domains``: looked-up domains the device lacks are bound to empty maps (``None``: the
        device's maps as they are). ``whole_device``: ``device`` itself carries the attribute and
        capacity maps (only needed when the expression uses ``device`` other than for its scalar
        fields; the checked expression reads ``device.attributes`` as its own variable).
        ``fresh``: a new activation, not the device's shared one (what cel-cpp builds in it is
        freed with it).
        """
        attributes_key, capacity_key, lean_key, whole_key = _CONVERSION_KEYS[list_types]
        attributes = device.engine_value(attributes_key)
        if attributes is None:
            converted = self._convert_directly(device, list_types) or self._convert(device.plain(list_types))
            if isinstance(converted, str):
                device.set_engine_value(attributes_key, converted)
                raise CelRuntimeError(converted)
            attributes, capacity = converted
            device.set_engine_value(attributes_key, attributes)
            device.set_engine_value(capacity_key, capacity)
        elif isinstance(attributes, str):
            raise CelRuntimeError(attributes)
        else:
            capacity = device.engine_value(capacity_key)
        if domains:
            missing_attributes = _missing(domains.attributes, device.driver, attributes)
            missing_capacity = _missing(domains.capacity, device.driver, capacity)
            if missing_attributes or missing_capacity:
                key = (ENGINE_NAME, list_types, missing_attributes, missing_capacity, whole_device)
                padded = None if fresh else device.engine_value(key)
                if padded is None:
                    padded = self._new_activation(
                        device, {**attributes, **{d: {} for d in missing_attributes}},
                        {**capacity, **{d: {} for d in missing_capacity}}, whole_device)
                    if not fresh:
                        device.set_engine_value(key, padded)
                return padded
        if fresh:
            return self._new_activation(device, attributes, capacity, whole_device)
        key = whole_key if whole_device else lean_key
        activation = device.engine_value(key)
        if activation is None:
            activation = self._new_activation(device, attributes, capacity, whole_device)
            device.set_engine_value(key, activation)
        return activation

    def _new_activation(self, device: CelDevice, attributes: dict[str, Any], capacity: dict[str, Any],
                        whole_device: bool) -> Any:
        # A device without its maps holds only scalars, which the garbage collector ignores.
        fields: dict[str, Any] = {"driver": device.driver,
                                  "allowMultipleAllocations": bool(device.allow_multiple_allocations)}
        if whole_device:
            fields["attributes"] = attributes
            fields["capacity"] = capacity
        return self.runtime_env.Activation(
            {"device": fields, "device.attributes": attributes, "device.capacity": capacity})

    def _convert_directly(self, device: CelDevice, list_types: bool) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The common case in one pass with per-text caches: every attribute has exactly one
        value kind and every text parses. ``None`` leaves anything else to ``_convert``, which
        also words the errors."""
        driver = device.driver
        attributes: dict[str, dict[str, Any]] = {}
        scalar_kinds = _PLAIN_SCALAR_KINDS
        for name, attribute in device.attributes.items():
            if not isinstance(attribute, dict) or len(attribute) != 1:
                return None
            ((kind, value),) = attribute.items()
            if value is None:
                return None
            if kind not in scalar_kinds:
                converter = _VERSION_CONVERTERS.get(kind) if not list_types else _LIST_CONVERTERS.get(kind)
                if converter is None:
                    return None
                value = converter(value)
                if value is None:
                    return None
            slash = name.find("/")
            if slash < 0:
                domain, ident = driver, name
            else:
                domain, ident = name[:slash], name[slash + 1:]
            values = attributes.get(domain)
            if values is None:
                attributes[domain] = {ident: value}
            else:
                values[ident] = value
        capacity: dict[str, dict[str, Any]] = {}
        for name, entry in device.capacity.items():
            text = entry.get("value") if isinstance(entry, dict) else entry
            token = _quantity_token_of_text(text) if type(text) is str else None
            if token is None:
                return None
            slash = name.find("/")
            if slash < 0:
                domain, ident = driver, name
            else:
                domain, ident = name[:slash], name[slash + 1:]
            quantities = capacity.get(domain)
            if quantities is None:
                capacity[domain] = {ident: token}
            else:
                quantities[ident] = token
        return attributes, capacity

    @staticmethod
    def _convert(plain: PlainDevice) -> tuple[dict[str, Any], dict[str, Any]] | str:
        """The attribute and capacity maps of a converted device, or its conversion error."""
        if plain.error is not None:
            return plain.error
        attributes: dict[str, dict[str, Any]] = {}
        for domain, values in plain.attributes.items():
            converted: dict[str, Any] = {}
            for ident, value in values.items():
                kind = type(value)
                if kind is Semver:
                    converted[ident] = semver_token(value)
                elif kind is list:
                    converted[ident] = [semver_token(v) if type(v) is Semver else v for v in value]
                else:
                    converted[ident] = value
            attributes[domain] = converted
        capacity = {domain: {ident: quantity_token(q) for ident, q in values.items()}
                    for domain, values in plain.capacity.items()}
        return attributes, capacity


@functools.lru_cache(maxsize=16384)
def _version_token_of_text(text: str) -> bytes | None:
    try:
        return semver_token(parse_semver(text))
    except SemverError:
        return None


@functools.lru_cache(maxsize=16384)
def _quantity_token_of_text(text: str) -> bytes | None:
    try:
        return quantity_token(parse_quantity(text))
    except QuantityError:
        return None


def _version_value(value: Any) -> bytes | None:
    return _version_token_of_text(value) if type(value) is str else None


def _version_list(values: Any) -> list[bytes] | None:
    if not isinstance(values, list):
        return None
    tokens = [_version_value(v) for v in values]
    return None if None in tokens else tokens


def _plain_list(values: Any) -> list[Any] | None:
    return list(values) if isinstance(values, list) else None


# Attribute value kinds the direct conversion takes (anything unusual goes through PlainDevice).
_PLAIN_SCALAR_KINDS = frozenset({"string", "int", "bool"})
_VERSION_CONVERTERS: dict[str, Callable[[Any], Any]] = {"version": _version_value}
_LIST_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "version": _version_value, "strings": _plain_list, "ints": _plain_list, "bools": _plain_list,
    "versions": _version_list}


_NOTHING: frozenset[str] = frozenset()


def _missing(domains: frozenset[str], driver: str, present: dict[str, Any]) -> frozenset[str]:
    """The looked-up domains (``DRIVER_DOMAIN`` standing for the device's driver) a device lacks."""
    missing = [d for d in domains if (driver if d == DRIVER_DOMAIN else d) not in present]
    if not missing:
        return _NOTHING
    return frozenset(driver if d == DRIVER_DOMAIN else d for d in missing)


_CONVERSION_KEYS = {
    list_types: tuple((ENGINE_NAME, list_types, part) for part in ("attributes", "capacity", "lean", "whole"))
    for list_types in (False, True)
}


def _device_escapes(ast: CheckedAst) -> bool:
    """Whether the expression uses ``device`` other than for ``device.driver`` and
    ``device.allowMultipleAllocations`` (binding it, iterating it, ...)."""
    selects: dict[int, str] = {}
    for node in ast.root.walk():
        if node.kind == "select" and node.operand is not None:
            selects[node.operand.id] = node.name
    return any(
        node.kind == "ident" and node.name == "device"
        and selects.get(node.id) not in ("driver", "allowMultipleAllocations")
        for node in ast.root.walk()
    )


_SIMPLE_TYPE_NAMES = {
    "BOOL": "bool", "INT": "int", "UINT": "uint", "DOUBLE": "double", "STRING": "string", "BYTES": "bytes",
    "DYN": "dyn", "NULL": "null_type", "DURATION": "google.protobuf.Duration",
    "TIMESTAMP": "google.protobuf.Timestamp",
    # The Python binding has no name for google.protobuf.Any and reports it as ERROR; a real type
    # error never reaches here because compile() raised it already.
    "ERROR": "any",
}
_GENERIC_TYPE_NAMES = {"LIST": "list", "MAP": "map", "TYPE": "type", "OPTIONAL_TYPE": "optional_type"}


def _split_type_arguments(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current = ""
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def cel_go_type_name(binding_name: str, any_name: str = "any") -> str:
    """The binding's ``LIST<INT>`` spelling → cel-go's ``list(int)``; ``any_name`` names
    google.protobuf.Any inside another type."""
    name = binding_name.strip()
    if name in _SIMPLE_TYPE_NAMES:
        return _SIMPLE_TYPE_NAMES[name]
    head, sep, rest = name.partition("<")
    if sep and rest.endswith(">"):
        arguments = ", ".join(any_name if a == "ERROR" else cel_go_type_name(a, any_name)
                              for a in _split_type_arguments(rest[:-1]))
        return f"{_GENERIC_TYPE_NAMES.get(head, head)}({arguments})"
    return name


def _output_type_name(kind: Any) -> str:
    """The selector's type as the DRA compiler names it (``Type.String()``): an attribute value
    is ``any`` (which it accepts), but ``google.protobuf.Any`` inside another type."""
    return cel_go_type_name(kind.name(), "google.protobuf.Any")


def create_engine() -> CelExprEngine:
    return CelExprEngine()
