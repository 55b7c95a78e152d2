"""The default engine: cel-expr-python (Google's cel-cpp).

Type checking happens in an environment whose declarations mirror upstream's (``device`` is the
object ``kubernetes.DRADevice``; ``device.attributes`` and ``device.capacity`` are declared as
qualified variables so their map types are exact). The checked expression is then loaded into
one runtime environment whose variables are untyped, so plain Python values can be bound
without a protobuf round trip.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings
from google.protobuf import (
    descriptor_pb2,
    descriptor_pool,
    message_factory,
    struct_pb2,
)

from dractl.cel import messages, regex
from dractl.cel.analysis import DRIVER_DOMAIN, DomainLookups, domain_lookups
from dractl.cel.ast import CheckedAst, decode_checked
from dractl.cel.cost import RUNTIME_COST_LIMIT, CostEstimator
from dractl.cel.device import CelDevice, PlainDevice
from dractl.cel.environment import Environment
from dractl.cel.errors import CelCompileError, CelError, CelRuntimeError
from dractl.cel.quantity import Quantity, QuantityError, from_int, is_quantity, parse_quantity
from dractl.cel.semver import SemverError, parse_semver, parse_semver_normalized

ENGINE_NAME = "cel-expr-python"
_ATTRIBUTE_LIST_LIMIT = 48  # resourceapi.ResourceSliceMaxAttributeValuesPerDevice

T = cel.Type
_Field = descriptor_pb2.FieldDescriptorProto


def _build_pool(with_multi_allocations: bool) -> descriptor_pool.DescriptorPool:
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(struct_pb2.DESCRIPTOR.serialized_pb)
    proto = descriptor_pb2.FileDescriptorProto(
        name="dractl/cel.proto", package="kubernetes", syntax="proto3",
        dependency=["google/protobuf/struct.proto"],
    )
    quantity = proto.message_type.add(name="Quantity")
    quantity.field.add(name="nano_units", number=1, type=_Field.TYPE_STRING, label=_Field.LABEL_OPTIONAL)
    semver = proto.message_type.add(name="Semver")
    for number, name in enumerate(("major", "minor", "patch"), start=1):
        semver.field.add(name=name, number=number, type=_Field.TYPE_UINT64, label=_Field.LABEL_OPTIONAL)
    semver.field.add(name="prerelease", number=4, type=_Field.TYPE_STRING, label=_Field.LABEL_OPTIONAL)
    device = proto.message_type.add(name="DRADevice")
    device.field.add(name="driver", number=1, type=_Field.TYPE_STRING, label=_Field.LABEL_OPTIONAL)
    for number, name in ((2, "attributes"), (3, "capacity")):
        entry = device.nested_type.add(name=name.capitalize() + "Entry")
        entry.options.map_entry = True
        entry.field.add(name="key", number=1, type=_Field.TYPE_STRING, label=_Field.LABEL_OPTIONAL)
        entry.field.add(name="value", number=2, type=_Field.TYPE_MESSAGE, label=_Field.LABEL_OPTIONAL,
                        type_name=".google.protobuf.Struct")
        device.field.add(name=name, number=number, type=_Field.TYPE_MESSAGE, label=_Field.LABEL_REPEATED,
                         type_name=f".kubernetes.DRADevice.{entry.name}")
    if with_multi_allocations:
        device.field.add(name="allowMultipleAllocations", number=4, type=_Field.TYPE_BOOL,
                         label=_Field.LABEL_OPTIONAL)
    pool.Add(proto)
    return pool


class _Library:
    """The Kubernetes quantity and semver libraries and DRA's ``includes``, in Python."""

    def __init__(self, pool: descriptor_pool.DescriptorPool) -> None:
        self.quantity_class = message_factory.GetMessageClass(pool.FindMessageTypeByName("kubernetes.Quantity"))
        self.semver_class = message_factory.GetMessageClass(pool.FindMessageTypeByName("kubernetes.Semver"))
        # Selectors compare against a handful of literals over and over: parse each once.
        self.quantity = functools.lru_cache(maxsize=4096)(self._quantity)  # type: ignore[method-assign]
        self._units_cache = functools.lru_cache(maxsize=4096)(self._quantity_of_units)

    # -- conversions -------------------------------------------------------------------
    def quantity_message(self, quantity: Quantity) -> Any:
        return self.quantity_class(nano_units=quantity.nano_units)

    def quantity_of(self, message: Any) -> Quantity:
        return self._quantity_of_units(message.nano_units)

    @staticmethod
    def _quantity_of_units(text: str) -> Quantity:
        if "/" in text:  # cannot happen for parsed quantities; kept exact anyway
            numerator, denominator = text.split("/")
            return Quantity(int(numerator) * 10**9 // int(denominator), -9, exact_int64=False)
        units = int(text or "0")
        if units % 10**9 == 0:
            whole = units // 10**9
            return Quantity(whole, 0, exact_int64=-(2**63) <= whole < 2**63)
        return Quantity(units, -9, exact_int64=-(2**63) <= units < 2**63)

    def semver_message(self, version: Any) -> Any:
        return self.semver_class(major=version.major, minor=version.minor, patch=version.patch,
                                 prerelease=".".join(str(p) for p in version.pre))

    @staticmethod
    def semver_of(message: Any) -> Any:
        text = f"{message.major}.{message.minor}.{message.patch}"
        if message.prerelease:
            text += "-" + message.prerelease
        return parse_semver(text)

    # -- implementations -----------------------------------------------------------------
    def quantity(self, text: str) -> Any:
        return self._quantity(text)

    def _quantity(self, text: str) -> Any:
        try:
            return self.quantity_message(parse_quantity(text))
        except QuantityError as exc:
            raise ValueError(str(exc)) from None

    def semver(self, text: str, normalize: bool = False) -> Any:
        try:
            version = parse_semver_normalized(text) if normalize else parse_semver(text)
        except SemverError as exc:
            raise ValueError(str(exc)) from None
        return self.semver_message(version)

    @staticmethod
    def is_semver(text: str, normalize: bool = False) -> bool:
        try:
            parse_semver_normalized(text) if normalize else parse_semver(text)
        except SemverError:
            return False
        return True

    def as_integer(self, message: Any) -> int:
        value = self.quantity_of(message).as_int64()
        if value is None:
            raise ValueError("cannot convert value to integer")
        return value

    def declarations(self, environment: Environment | None) -> list[Any]:
        """Function declarations; ``None`` means the runtime set with implementations.

        cel-cpp dispatches Python implementations by argument *kind*, so two overloads on
        different message types (Quantity and Semver ``compareTo``) would collide at run time.
        The checker therefore gets the typed overloads without implementations, and the runtime
        one implementation per name and arity that dispatches on the message type.
        """
        libraries = environment.libraries if environment else None
        Q = T("kubernetes.Quantity")
        S = T("kubernetes.Semver")
        units_of = self._units_cache

        def q_of(message: Any) -> Quantity:
            return units_of(message.nano_units)

        s_of = self.semver_of
        decls: list[Any] = []

        runtime = environment is None
        runtime_impls: dict[tuple[str, int, bool], list[tuple[list[Any], Callable[..., Any]]]] = {}

        def fn(name: str, *overloads: tuple[str, Any, list[Any], bool, Callable[..., Any]]) -> None:
            if runtime:
                for _oid, _result, params, member, impl in overloads:
                    runtime_impls.setdefault((name, len(params), member), []).append((params, impl))
                return
            decls.append(cel.FunctionDecl(name, [
                cel.Overload(oid, result, params, is_member=member)
                for oid, result, params, member, _impl in overloads
            ]))

        if libraries is None or "quantity" in libraries:
            fn("quantity", ("string_to_quantity", Q, [T.STRING], False, self.quantity))
            fn("isQuantity", ("is_quantity_string", T.BOOL, [T.STRING], False, is_quantity))
            fn("sign", ("quantity_sign", T.INT, [Q], False, lambda q: q_of(q).sign()))
            fn("asApproximateFloat", ("quantity_get_float", T.DOUBLE, [Q], True,
                                      lambda q: q_of(q).as_approximate_float()))
            fn("asInteger", ("quantity_get_int", T.INT, [Q], True, self.as_integer))
            fn("isInteger", ("quantity_is_integer", T.BOOL, [Q], True, lambda q: q_of(q).as_int64() is not None))
            fn("add",
               ("quantity_add", Q, [Q, Q], True, lambda a, b: self.quantity_message(q_of(a).add(q_of(b)))),
               ("quantity_add_int", Q, [Q, T.INT], True, lambda a, b: self.quantity_message(q_of(a).add(from_int(b)))))
            fn("sub",
               ("quantity_sub", Q, [Q, Q], True, lambda a, b: self.quantity_message(q_of(a).sub(q_of(b)))),
               ("quantity_sub_int", Q, [Q, T.INT], True, lambda a, b: self.quantity_message(q_of(a).sub(from_int(b)))))
        compare_overloads: dict[str, list[tuple[str, Any, list[Any], bool, Callable[..., Any]]]] = {
            "isGreaterThan": [], "isLessThan": [], "compareTo": []}
        if libraries is None or "quantity" in libraries:
            compare_overloads["isGreaterThan"].append(
                ("quantity_is_greater_than", T.BOOL, [Q, Q], True, lambda a, b: q_of(a).compare(q_of(b)) == 1))
            compare_overloads["isLessThan"].append(
                ("quantity_is_less_than", T.BOOL, [Q, Q], True, lambda a, b: q_of(a).compare(q_of(b)) == -1))
            compare_overloads["compareTo"].append(
                ("quantity_compare_to", T.INT, [Q, Q], True, lambda a, b: q_of(a).compare(q_of(b))))
        if libraries is None or "semver" in libraries:
            fn("semver",
               ("string_to_semver", S, [T.STRING], False, self.semver),
               ("string_bool_to_semver", S, [T.STRING, T.BOOL], False, self.semver))
            fn("isSemver",
               ("is_semver_string", T.BOOL, [T.STRING], False, self.is_semver),
               ("is_semver_string_bool", T.BOOL, [T.STRING, T.BOOL], False, self.is_semver))
            fn("major", ("semver_major", T.INT, [S], True, lambda v: int(v.major)))
            fn("minor", ("semver_minor", T.INT, [S], True, lambda v: int(v.minor)))
            fn("patch", ("semver_patch", T.INT, [S], True, lambda v: int(v.patch)))
            compare_overloads["isGreaterThan"].append(
                ("semver_is_greater_than", T.BOOL, [S, S], True, lambda a, b: s_of(a).compare(s_of(b)) == 1))
            compare_overloads["isLessThan"].append(
                ("semver_is_less_than", T.BOOL, [S, S], True, lambda a, b: s_of(a).compare(s_of(b)) == -1))
            compare_overloads["compareTo"].append(
                ("semver_compare_to", T.INT, [S, S], True, lambda a, b: s_of(a).compare(s_of(b))))
        for name, overloads in compare_overloads.items():
            if overloads:
                fn(name, *overloads)
        if libraries is None or "regex" in libraries:
            fn("find", ("string_find_string", T.STRING, [T.STRING, T.STRING], True, regex.find))
            fn("findAll",
               ("string_find_all_string", T.List(T.STRING), [T.STRING, T.STRING], True, regex.find_all),
               ("string_find_all_string_int", T.List(T.STRING), [T.STRING, T.STRING, T.INT], True, regex.find_all))
        if environment is None or environment.includes_function:
            fn("includes", ("dra_includes_dyn_dyn", T.BOOL, [T.DYN, T.DYN], True, _includes))
        for (name, arity, member), candidates in runtime_impls.items():
            decls.append(cel.FunctionDecl(name, [cel.Overload(
                f"dractl_{name}_{arity}", T.DYN, [T.DYN] * arity, is_member=member,
                impl=self._dispatcher(name, candidates))]))
        return decls

    def _dispatcher(self, name: str, candidates: list[tuple[list[Any], Callable[..., Any]]]) -> Callable[..., Any]:
        if len(candidates) == 1:
            return candidates[0][1]
        quantity_class, semver_class = self.quantity_class, self.semver_class
        by_class: dict[Any, Callable[..., Any]] = {}
        for params, impl in candidates:
            first = params[0].name()
            if first == "kubernetes.Quantity":
                by_class[quantity_class] = impl
            elif first == "kubernetes.Semver":
                by_class[semver_class] = impl
            else:  # dispatch on the second argument (semver(s) vs semver(s, normalize))
                return lambda *args: candidates[0][1](*args)

        def dispatch(*args: Any) -> Any:
            impl = by_class.get(type(args[0]))
            if impl is None or type(args[-1]) is not type(args[0]):
                raise ValueError("no such overload")
            return impl(*args)

        dispatch.__name__ = name
        return dispatch


def _cel_equal(left: Any, right: Any) -> bool:
    """CEL heterogeneous equality on plain Python values (bool is not a number)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
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
    __slots__ = ("_engine", "_list_types", "_runtime", "ast", "cost", "expression", "lookups", "min_cost",
                 "output_type")

    def __init__(self, engine: CelExprEngine, runtime: Any, output_type: str, list_types: bool,
                 ast: CheckedAst, cost: int, min_cost: int) -> None:
        self._engine = engine
        self._runtime = runtime
        self.output_type = output_type
        self._list_types = list_types
        self.ast = ast
        self.cost = cost
        self.min_cost = min_cost
        self.lookups = domain_lookups(ast)
        self.expression = ""

    def evaluate(self, device: CelDevice) -> Any:
        if self.min_cost > RUNTIME_COST_LIMIT:
            # cel-cpp does not meter cost; when even the cheapest path costs more than the
            # limit, upstream's evaluation is cancelled on every device.
            raise CelRuntimeError("operation cancelled: actual cost limit exceeded")
        lookups = self.lookups
        activation = self._engine.activation(device, self._list_types, lookups if lookups.exact else None)
        try:
            result = self._runtime.eval(activation)
        except RuntimeError as exc:
            raise CelRuntimeError(messages.runtime_message(str(exc))) from None
        kind = result.type()
        if kind == T.BOOL:
            return result.value()
        if kind == T.ERROR:
            raw = str(result.value())
            if raw.endswith("No matching overloads found : <iter_range>"):
                raise CelRuntimeError(self._not_iterable_message(activation))
            message = messages.runtime_message(raw)
            if not lookups.exact and lookups.any:
                self._refuse_if_domain_missing(device, message)
            raise CelRuntimeError(message)
        return _NonBool(_type_name(kind))

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

    def _refuse_if_domain_missing(self, device: CelDevice, message: str) -> None:
        # The engine looked a domain up in a map without upstream's empty-map default; when the
        # device lacks a looked-up domain the error may be ours, not upstream's.
        plain = device.plain(self._list_types)
        for wanted, present in ((self.lookups.attributes, plain.attributes), (self.lookups.capacity, plain.capacity)):
            for domain in wanted:
                name = plain.driver if domain == DRIVER_DOMAIN else domain
                if name not in present:
                    raise CelRuntimeError(
                        f"{message} (not supported by dractl: this selector both inspects a device map as a "
                        f"whole and looks up domain {name!r}, which this device lacks; dractl cannot "
                        "reproduce the scheduler's answer here)")


class _NonBool:
    """A result that is not a bool; the caller words the error as upstream does."""

    __slots__ = ("type_name",)

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name


def _type_name(kind: Any) -> str:
    """cel-go's ``Type().TypeName()`` of a runtime value (``list``, not ``list(int)``)."""
    name = cel_go_type_name(kind.name())
    return name.partition("(")[0] if name.startswith(("list(", "map(", "type(")) else name


class CelExprEngine:
    name = ENGINE_NAME

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pools = {flag: _build_pool(flag) for flag in (False, True)}
        self._runtime_pool = self._pools[True]
        self.library = _Library(self._runtime_pool)
        self._checkers: dict[tuple[object, ...], Any] = {}
        any_value = T.DYN
        self._runtime_env = cel.NewEnv(
            self._runtime_pool,
            variables={"device": any_value, "device.attributes": any_value, "device.capacity": any_value},
            extensions=[ext_bindings.ExtBindings(), ext_optional.ExtOptional(), ext_strings.ExtStrings(),
                        cel.CelExtension("kubernetes", self.library.declarations(None))],
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

    def _new_checker(self, environment: Environment) -> Any:
        pool = self._pools[environment.allow_multiple_allocations_field]
        attribute_type = T.DYN if environment.list_type_attributes else T("google.protobuf.Any")
        extensions: list[Any] = []
        if "bindings" in environment.libraries:
            extensions.append(ext_bindings.ExtBindings())
        if "optionals" in environment.libraries:
            extensions.append(ext_optional.ExtOptional())
        if "strings-v2" in environment.libraries:
            extensions.append(ext_strings.ExtStrings())
        extensions.append(cel.CelExtension("kubernetes", self.library.declarations(environment)))
        return cel.NewEnv(
            pool,
            variables={
                "device": T("kubernetes.DRADevice"),
                "device.attributes": T.Map(T.STRING, T.Map(T.STRING, attribute_type)),
                "device.capacity": T.Map(T.STRING, T.Map(T.STRING, T("kubernetes.Quantity"))),
            },
            extensions=extensions,
        )

    def compile(self, expression: str, environment: Environment) -> _CelExprProgram:
        checker = self._checker(environment)
        try:
            checked = checker.compile(expression)
        except RuntimeError as exc:
            issues = messages.parse_issues(str(exc))
            if not issues:
                raise CelCompileError(f"compilation failed: {messages.strip_status(str(exc))}",
                                      [CelError(messages.strip_status(str(exc)))]) from None
            raise CelCompileError("compilation failed: " + messages.format_issues(issues),
                                  [err for err, _ in issues]) from None
        output_type = _output_type_name(checked.return_type())
        serialized = checked.serialize()
        ast = decode_checked(serialized)
        runtime = self._runtime_env.deserialize(serialized)
        estimate = CostEstimator(ast, environment.list_type_attributes).estimate()
        program = _CelExprProgram(self, runtime, output_type, environment.list_type_attributes, ast,
                                  estimate.max, estimate.min)
        program.expression = expression
        return program

    @staticmethod
    def expression_text(program: _CelExprProgram) -> str:
        return program.expression

    def go_type_of(self, expression: str, activation: Any) -> str | None:
        """The Go type cel-go would hold for the value of ``expression`` (error paths only)."""
        try:
            value = self._runtime_env.compile(expression, disable_check=True).eval(activation)
        except RuntimeError:
            return None
        name = cel_go_type_name(value.type().name())
        if name.startswith(("list", "map")) or name == "any":
            return None
        go_names = {"int": "types.Int", "uint": "types.Uint", "double": "types.Double", "bool": "types.Bool",
                    "string": "types.String", "bytes": "types.Bytes", "null_type": "types.Null",
                    "google.protobuf.Duration": "types.Duration", "google.protobuf.Timestamp": "types.Timestamp",
                    "kubernetes.Semver": "cel.Semver", "kubernetes.Quantity": "cel.Quantity"}
        return go_names.get(name, name)

    # -- device conversion -------------------------------------------------------------------
    def activation(self, device: CelDevice, list_types: bool, domains: DomainLookups | None) -> Any:
        base_key = (ENGINE_NAME, list_types)
        base = device.engine_value(base_key)
        if base is None:
            base = self._convert(device.plain(list_types))
            device.set_engine_value(base_key, base)
        data, activation, attribute_domains, capacity_domains = base
        if isinstance(data, str):
            raise CelRuntimeError(data)
        if not domains:
            return activation
        missing_attributes = _resolve(domains.attributes, device.driver) - attribute_domains
        missing_capacity = _resolve(domains.capacity, device.driver) - capacity_domains
        if not missing_attributes and not missing_capacity:
            return activation
        missing = (missing_attributes, missing_capacity)
        key = (ENGINE_NAME, list_types, missing)
        cached = device.engine_value(key)
        if cached is None:
            attributes = dict(data["device.attributes"])
            capacity = dict(data["device.capacity"])
            for domain in missing_attributes:
                attributes[domain] = {}
            for domain in missing_capacity:
                capacity[domain] = {}
            cached = self._runtime_env.Activation(_device_data(data["device"], attributes, capacity))
            device.set_engine_value(key, cached)
        return cached

    def _convert(self, plain: PlainDevice) -> tuple[Any, Any, frozenset[str], frozenset[str]]:
        if plain.error is not None:
            return plain.error, None, frozenset(), frozenset()
        semver_message = self.library.semver_message
        quantity_message = self.library.quantity_message
        attributes: dict[str, dict[str, Any]] = {}
        for domain, values in plain.attributes.items():
            converted: dict[str, Any] = {}
            for ident, value in values.items():
                if isinstance(value, list):
                    converted[ident] = [semver_message(v) if not isinstance(v, int | str | bool) else v
                                        for v in value]
                elif isinstance(value, int | str | bool):
                    converted[ident] = value
                else:
                    converted[ident] = semver_message(value)
            attributes[domain] = converted
        capacity = {domain: {ident: quantity_message(q) for ident, q in values.items()}
                    for domain, values in plain.capacity.items()}
        device = {"driver": plain.driver, "allowMultipleAllocations": plain.allow_multiple_allocations}
        data = _device_data(device, attributes, capacity)
        activation = self._runtime_env.Activation(data)
        return data, activation, frozenset(attributes), frozenset(capacity)


def _resolve(domains: frozenset[str], driver: str) -> frozenset[str]:
    if DRIVER_DOMAIN in domains:
        return (domains - {DRIVER_DOMAIN}) | {driver}
    return domains


def _device_data(device: dict[str, Any], attributes: dict[str, Any], capacity: dict[str, Any]) -> dict[str, Any]:
    whole = dict(device)
    whole["attributes"] = attributes
    whole["capacity"] = capacity
    return {"device": whole, "device.attributes": attributes, "device.capacity": capacity}


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


def cel_go_type_name(binding_name: str) -> str:
    """The binding's ``LIST<INT>`` spelling → cel-go's ``list(int)``."""
    name = binding_name.strip()
    if name in _SIMPLE_TYPE_NAMES:
        return _SIMPLE_TYPE_NAMES[name]
    head, sep, rest = name.partition("<")
    if sep and rest.endswith(">"):
        arguments = ", ".join(cel_go_type_name(a) for a in _split_type_arguments(rest[:-1]))
        return f"{_GENERIC_TYPE_NAMES.get(head, head)}({arguments})"
    return name


def _output_type_name(kind: Any) -> str:
    return cel_go_type_name(kind.name())


def create_engine() -> CelExprEngine:
    return CelExprEngine()
