"""cel-go's type checker for the cel-python engine, over the simplified tree of :mod:`celpy_syntax`.

cel-python parses and interprets but does not type-check, while upstream rejects an ill-typed
selector when it compiles it. This module infers cel-go's types (``list(int)``,
``map(string, any)``, ``optional_type(kubernetes.Quantity)``, type parameters bound across the
whole expression) in the DRA environment and reports what cel-go's checker reports, with its
texts and positions: undeclared references, fields ``device`` does not have, selection on values
without fields, ranges that are neither list nor map, calls and operators without a matching
overload (``found no matching overload for '_+_' applied to '(int, string)'``), macro bodies of
the wrong type, and, when the expression type-checks, cel-go's homogeneous literal validator.

Attribute values are ``google.protobuf.Any`` (``dyn`` with list-type attributes): like ``dyn``
they match every parameter, but unlike ``dyn`` they cannot be the range of a comprehension.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dractl.cel import format_check, validators
from dractl.cel.engines.celpy_syntax import (
    _MACRO_LIBRARY,
    _VARIABLE_ERRORS,
    TYPE_IDENTIFIERS,
    UNSUPPORTED,
    Node,
    _min_cost,
    _regex_ok,
    ast_literal_string,
    simplify,
)
from dractl.cel.environment import Environment
from dractl.cel.errors import CelError
from dractl.cel.functions import declared_functions
from dractl.cel.messages import UNRESOLVED_OBJECT_TYPES
from dractl.cel.regex import go_regexp_error

_NO_ACCUMULATOR_CHECK = frozenset({"optMap", "optFlatMap", "sortBy"})
# cel-go makes a constant index a qualifier when it plans the program (``newQualifier`` in
# ``interpreter/attributes.go``); only a string, int, uint, bool or double can be one.
_UNQUALIFIED_LITERALS = {"null": "types.Null", "bytes": "types.Bytes"}
_UNQUALIFIED_CONVERSIONS = {"duration": "types.Duration", "timestamp": "types.Timestamp"}


def _constant(node: Node) -> bool:
    if node.kind == "literal":
        return True
    return node.kind in ("list", "map") and all(_constant(child) for child in node.children)


def _constant_qualifier_type(index: Node, scope: dict[str, Any]) -> str | None:
    """The Go type of a constant index that cannot be a qualifier (the program fails), or None."""
    while index.kind == "call" and index.name == "dyn" and not index.member and len(index.children) == 1:
        index = index.children[0]
    if index.kind == "literal":
        return _UNQUALIFIED_LITERALS.get(index.type)
    if index.kind in ("list", "map") and _constant(index):
        return "*types.baseList" if index.kind == "list" else "*types.baseMap"
    if (index.kind == "call" and index.name in _UNQUALIFIED_CONVERSIONS and not index.member
            and len(index.children) == 1 and index.children[0].kind == "literal"
            and index.children[0].type == "string"):
        return _UNQUALIFIED_CONVERSIONS[index.name]
    if index.kind == "ident" and index.name in TYPE_IDENTIFIERS and index.name not in scope:
        return "*types.Type"
    return None


@dataclass(frozen=True)
class Type:
    """A cel-go type: a name with type parameters; ``var`` names a type variable."""

    name: str
    params: tuple[Type, ...] = ()
    var: bool = False

    def __str__(self) -> str:
        return _format(self, "any")


def _format(t: Type, any_name: str) -> str:
    if t.var:
        return "dyn"  # cel-go prints an unbound type variable as dyn
    if t.name == "any":
        return any_name
    if not t.params:
        return t.name
    return f"{t.name}({', '.join(_format(p, any_name) for p in t.params)})"


def _simple(name: str) -> Type:
    return Type(name)


INT, UINT, DOUBLE, STRING, BYTES, BOOL, NULL = (_simple(n) for n in ("int", "uint", "double", "string", "bytes",
                                                                       "bool", "null"))
DYN, ANY, ERROR = Type("dyn"), Type("any"), Type("*error*")
QUANTITY = Type("kubernetes.Quantity")


def list_of(element: Type) -> Type:
    return Type("list", (element,))


def map_of(key: Type, value: Type) -> Type:
    return Type("map", (key, value))


def optional_of(value: Type) -> Type:
    return Type("optional_type", (value,))


_ALIASES = {"Q": "kubernetes.Quantity", "S": "kubernetes.Semver", "U": "kubernetes.URL", "IP": "net.IP",
            "CIDR": "net.CIDR", "NF": "kubernetes.NamedFormat"}
_TYPE_TOKEN = re.compile(r"\s*([A-Za-z_][\w.]*|[(),])")


def parse_type(text: str) -> Type:
    """``map(string, list(A))`` → a :class:`Type`; one capital letter is a type parameter."""
    tokens = [m.group(1) for m in _TYPE_TOKEN.finditer(text)]
    position = 0

    def parse() -> Type:
        nonlocal position
        name = tokens[position]
        position += 1
        params: list[Type] = []
        if position < len(tokens) and tokens[position] == "(":
            position += 1
            while tokens[position] != ")":
                params.append(parse())
                if tokens[position] == ",":
                    position += 1
            position += 1
        if name in _ALIASES:
            return Type(_ALIASES[name])
        if len(name) == 1 and name.isupper():
            return Type(name, var=True)
        return Type(name, tuple(params))

    return parse()


@dataclass(frozen=True)
class Overload:
    member: bool
    params: tuple[Type, ...]
    result: Type


_SIGNATURE = re.compile(r"^\s*(?:(?P<target>.+?)\.)?\((?P<args>.*)\)\s*->\s*(?P<result>.+?)\s*$")


def _overloads(text: str) -> list[Overload]:
    """``T.(A, B) -> R`` (member) or ``(A, B) -> R`` (global), separated by ``;``."""
    found = []
    for signature in text.split(";"):
        match = _SIGNATURE.match(signature)
        if match is None:
            raise ValueError(f"bad signature: {signature!r}")
        args = [parse_type(a) for a in _split(match.group("args"))]
        target = match.group("target")
        if target is not None:
            args.insert(0, parse_type(target))
        found.append(Overload(target is not None, tuple(args), parse_type(match.group("result"))))
    return found


def _split(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    if text.strip():
        parts.append(text[start:])
    return parts


_COMPARABLE = ("int", "uint", "double", "bool", "duration", "timestamp", "string", "bytes")
_SUMMABLE = ("int", "uint", "double", "duration")
_ORDERING = "; ".join(
    [f"({t}, {t}) -> bool" for t in _COMPARABLE]
    + [f"({a}, {b}) -> bool" for a, b in itertools.permutations(("int", "uint", "double"), 2)])
_TIME_GETTERS = ("getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek",
                 "getHours", "getMinutes", "getSeconds", "getMilliseconds")

#: Upstream's declarations: cel-go's standard library and extensions, the Kubernetes libraries.
_DECLARATIONS: dict[str, str] = {
    "_+_": "(int, int) -> int; (uint, uint) -> uint; (double, double) -> double; (string, string) -> string; "
           "(bytes, bytes) -> bytes; (list(A), list(A)) -> list(A); (timestamp, duration) -> timestamp; "
           "(duration, timestamp) -> timestamp; (duration, duration) -> duration",
    "_-_": "(int, int) -> int; (uint, uint) -> uint; (double, double) -> double; "
           "(timestamp, timestamp) -> duration; (timestamp, duration) -> timestamp; (duration, duration) -> duration",
    "_*_": "(int, int) -> int; (uint, uint) -> uint; (double, double) -> double",
    "_/_": "(int, int) -> int; (uint, uint) -> uint; (double, double) -> double",
    "_%_": "(int, int) -> int; (uint, uint) -> uint",
    "-_": "(int) -> int; (double) -> double",
    "!_": "(bool) -> bool",
    "_==_": "(A, A) -> bool", "_!=_": "(A, A) -> bool",
    "_<_": _ORDERING, "_<=_": _ORDERING, "_>_": _ORDERING, "_>=_": _ORDERING,
    "@in": "(A, list(A)) -> bool; (A, map(A, B)) -> bool",
    "_?_:_": "(bool, A, A) -> A",
    "_[_]": "(list(A), int) -> A; (map(A, B), A) -> B",
    "_[?_]": "(list(A), int) -> optional_type(A); (map(A, B), A) -> optional_type(B); "
             "(optional_type(list(A)), int) -> optional_type(A); (optional_type(map(A, B)), A) -> optional_type(B)",
    "size": "(string) -> int; (bytes) -> int; (list(A)) -> int; (map(A, B)) -> int; string.() -> int; "
            "bytes.() -> int; list(A).() -> int; map(A, B).() -> int",
    "contains": "string.(string) -> bool", "startsWith": "string.(string) -> bool",
    "endsWith": "string.(string) -> bool",
    "matches": "(string, string) -> bool; string.(string) -> bool",
    "int": "(int) -> int; (uint) -> int; (double) -> int; (string) -> int; (timestamp) -> int; (duration) -> int",
    "uint": "(uint) -> uint; (int) -> uint; (double) -> uint; (string) -> uint",
    "double": "(double) -> double; (int) -> double; (uint) -> double; (string) -> double",
    "string": "(string) -> string; (int) -> string; (uint) -> string; (double) -> string; (bool) -> string; "
              "(bytes) -> string; (timestamp) -> string; (duration) -> string; (IP) -> string; (CIDR) -> string",
    "bool": "(bool) -> bool; (string) -> bool",
    "bytes": "(bytes) -> bytes; (string) -> bytes",
    "dyn": "(A) -> dyn",
    "type": "(A) -> type(A)",
    "duration": "(string) -> duration; (duration) -> duration",
    "timestamp": "(string) -> timestamp; (int) -> timestamp; (timestamp) -> timestamp",
    **{getter: "timestamp.() -> int; timestamp.(string) -> int" for getter in _TIME_GETTERS},
    **{getter: "timestamp.() -> int; timestamp.(string) -> int; duration.() -> int"
       for getter in ("getHours", "getMinutes", "getSeconds", "getMilliseconds")},
    # Kubernetes quantity and semver
    "quantity": "(string) -> Q", "isQuantity": "(string) -> bool", "sign": "(Q) -> int",
    "asApproximateFloat": "Q.() -> double", "asInteger": "Q.() -> int", "isInteger": "Q.() -> bool",
    "add": "Q.(Q) -> Q; Q.(int) -> Q", "sub": "Q.(Q) -> Q; Q.(int) -> Q",
    "isGreaterThan": "Q.(Q) -> bool; S.(S) -> bool", "isLessThan": "Q.(Q) -> bool; S.(S) -> bool",
    "compareTo": "Q.(Q) -> int; S.(S) -> int",
    "semver": "(string) -> S; (string, bool) -> S", "isSemver": "(string) -> bool; (string, bool) -> bool",
    "major": "S.() -> int", "minor": "S.() -> int", "patch": "S.() -> int",
    # Kubernetes regex, DRA's includes
    "find": "string.(string) -> string",
    "findAll": "string.(string) -> list(string); string.(string, int) -> list(string)",
    "includes": "A.(B) -> bool",
    # cel-go strings extension (version 2)
    "charAt": "string.(int) -> string",
    "indexOf": "string.(string) -> int; string.(string, int) -> int; list(A).(A) -> int",
    "lastIndexOf": "string.(string) -> int; string.(string, int) -> int; list(A).(A) -> int",
    "lowerAscii": "string.() -> string", "upperAscii": "string.() -> string",
    "replace": "string.(string, string) -> string; string.(string, string, int) -> string",
    "split": "string.(string) -> list(string); string.(string, int) -> list(string)",
    "substring": "string.(int) -> string; string.(int, int) -> string",
    "trim": "string.() -> string",
    "join": "list(string).() -> string; list(string).(string) -> string",
    "format": "string.(list(dyn)) -> string",
    "strings.quote": "(string) -> string",
    # Kubernetes lists library
    "sum": "; ".join(f"list({t}).() -> {t}" for t in _SUMMABLE),
    "min": "; ".join(f"list({t}).() -> {t}" for t in _COMPARABLE),
    "max": "; ".join(f"list({t}).() -> {t}" for t in _COMPARABLE),
    "isSorted": "; ".join(f"list({t}).() -> bool" for t in _COMPARABLE),
    # cel-go lists extension
    "slice": "list(A).(int, int) -> list(A)",
    "flatten": "list(list(A)).() -> list(A); list(dyn).(int) -> list(dyn)",
    "sort": "; ".join(f"list({t}).() -> list({t})" for t in _COMPARABLE),
    "@sortByAssociatedKeys": "; ".join(f"list(A).(list({t})) -> list(A)" for t in _COMPARABLE),
    "distinct": "list(A).() -> list(A)", "reverse": "list(A).() -> list(A)",
    "first": "list(A).() -> optional_type(A)", "last": "list(A).() -> optional_type(A)",
    "lists.range": "(int) -> list(int)",
    # sets
    "sets.contains": "(list(A), list(A)) -> bool", "sets.equivalent": "(list(A), list(A)) -> bool",
    "sets.intersects": "(list(A), list(A)) -> bool",
    # optional types
    "optional.of": "(A) -> optional_type(A)", "optional.ofNonZeroValue": "(A) -> optional_type(A)",
    "optional.none": "() -> optional_type(A)", "hasValue": "optional_type(A).() -> bool",
    "value": "optional_type(A).() -> A", "or": "optional_type(A).(optional_type(A)) -> optional_type(A)",
    "orValue": "optional_type(A).(A) -> A",
    "unwrapOpt": "list(optional_type(A)).() -> list(A)", "optional.unwrap": "(list(optional_type(A))) -> list(A)",
    # Kubernetes url, ip, cidr and format libraries
    "url": "(string) -> U", "isURL": "(string) -> bool",
    **{name: "U.() -> string" for name in ("getScheme", "getHost", "getHostname", "getPort", "getEscapedPath")},
    "getQuery": "U.() -> map(string, list(string))",
    "ip": "(string) -> IP; CIDR.() -> IP", "isIP": "(string) -> bool", "ip.isCanonical": "(string) -> bool",
    "family": "IP.() -> int",
    **{name: "IP.() -> bool" for name in ("isUnspecified", "isLoopback", "isLinkLocalMulticast",
                                          "isLinkLocalUnicast", "isGlobalUnicast")},
    "cidr": "(string) -> CIDR", "isCIDR": "(string) -> bool",
    "containsIP": "CIDR.(IP) -> bool; CIDR.(string) -> bool",
    "containsCIDR": "CIDR.(CIDR) -> bool; CIDR.(string) -> bool",
    "prefixLength": "CIDR.() -> int", "masked": "CIDR.() -> CIDR",
    "format.named": "(string) -> optional_type(NF)", "validate": "NF.(string) -> optional_type(list(string))",
}
_PARSED: dict[str, list[Overload]] = {}


def overloads(name: str) -> list[Overload]:
    """The overloads of ``name``; the ``format.<name>()`` constructors of named formats included."""
    found = _PARSED.get(name)
    if found is None:
        text = _DECLARATIONS.get(name)
        if text is None and name.startswith("format."):
            text = "() -> NF"
        found = _overloads(text) if text is not None else []
        _PARSED[name] = found
    return found


def _is_dyn(t: Type) -> bool:
    return not t.var and t.name in ("dyn", "any", "*error*")


#: A function the environment declares whose overloads this table does not know: it matches
#: anything and is accepted as a selector's result (never a false compile error).
UNKNOWN = Type("?")
_DYN_LIKE = frozenset({"dyn", "any", "*error*", "?"})
_DEVICE = Type("kubernetes.DRADevice")
_NULLABLE = frozenset({"null", "dyn", "any", "*error*", "?"})
# cel-go's isLegacyNullable: opaque types (optionals, IPs, CIDRs), objects (the library's values,
# the device), durations and timestamps take null; the primitive types and containers do not.
_NOT_NULLABLE = frozenset({"int", "uint", "double", "bool", "string", "bytes", "list", "map", "type"})


def _nullable(t: Type) -> bool:
    return t.name in _NULLABLE or t.name not in _NOT_NULLABLE


class _Mapping:
    """cel-go's substitutions of type variables (shared by the whole expression)."""

    def __init__(self, bindings: dict[str, Type] | None = None) -> None:
        self.bindings = dict(bindings or {})

    def copy(self) -> _Mapping:
        return _Mapping(self.bindings)

    def find(self, t: Type) -> Type | None:
        return self.bindings.get(t.name)

    def substitute(self, t: Type, vars_to_dyn: bool = False) -> Type:
        seen = 0
        while t.var and t.name in self.bindings and seen < 64:
            t = self.bindings[t.name]
            seen += 1
        if t.var:
            return DYN if vars_to_dyn else t
        if not t.params:
            return t
        return Type(t.name, tuple(self.substitute(p, vars_to_dyn) for p in t.params))

    def occurs(self, var: Type, within: Type) -> bool:
        within = self.substitute(within)
        if within.var:
            return within.name == var.name
        return any(self.occurs(var, p) for p in within.params)


def _dyn_like(t: Type) -> bool:
    return not t.var and t.name in _DYN_LIKE


def _less_specific(t1: Type, t2: Type) -> bool:
    """cel-go ``isEqualOrLessSpecific``."""
    if t1.var or _dyn_like(t1):
        return True
    if t2.var or _dyn_like(t2):
        return False
    if t1.name != t2.name or len(t1.params) != len(t2.params):
        return False
    return all(_less_specific(a, b) for a, b in zip(t1.params, t2.params, strict=True))


def _most_general(t1: Type, t2: Type) -> Type:
    return t1 if _less_specific(t1, t2) else t2


def _substitution(m: _Mapping, t1: Type, t2: Type) -> tuple[bool, bool]:
    """cel-go ``isValidTypeSubstitution``: may ``t1`` stand for the variable ``t2``?"""
    if t1 == t2:
        return True, True
    bound = m.find(t2)
    if bound is not None:
        if t1 == bound:
            return True, True
        if _assignable(m, t1, bound):
            general = _most_general(t1, bound)
            if not m.occurs(t2, general):
                m.bindings[t2.name] = general
            return True, True
        return False, True
    if not m.occurs(t2, t1):
        m.bindings[t2.name] = t1
        return True, False
    return False, False


def _assignable(m: _Mapping, t1: Type, t2: Type) -> bool:
    """cel-go ``internalIsAssignable`` (``t1`` is the argument's type, ``t2`` the parameter's)."""
    if t2.var:
        valid, has_substitution = _substitution(m, t1, t2)
        if valid:
            return True
        if has_substitution:
            return False
    if t1.var:
        return _substitution(m, t2, t1)[0]
    if _dyn_like(t1) or _dyn_like(t2):
        return True
    if t1.name == "null":
        return _nullable(t2)
    if t2.name == "null":
        return _nullable(t1)
    if t1.name != t2.name or len(t1.params) != len(t2.params):
        return False
    if t1.name == "type":  # upstream compares type(int) with type(uint): any two types
        return True
    return all(_assignable(m, a, b) for a, b in zip(t1.params, t2.params, strict=True))


def _equivalent(t1: Type, t2: Type) -> bool:
    return t1 == t2


_GO_TYPE_NAMES = {"any": "google.protobuf.Any", "timestamp": "google.protobuf.Timestamp",
                  "duration": "google.protobuf.Duration", "null": "null_type"}
#: cel-go's literal validators: the check of a string literal, of an int literal.
_TIME_LITERALS: dict[str, tuple[Callable[[str], bool], Callable[[int], bool] | None]] = {
    "duration": (validators.duration_literal_ok, None),
    "timestamp": (validators.timestamp_literal_ok, validators.timestamp_seconds_ok),
}
_DEVICE_FIELDS = {"driver": STRING, "allowMultipleAllocations": BOOL}
_RANGE_ERROR = "expression of type '{}' cannot be range of a comprehension (must be list, map, or dynamic)"
_INT_LIMIT = 1 << 63
_UINT_LIMIT = 1 << 64


@dataclass
class Checked:
    errors: list[CelError]
    unsupported: list[CelError]
    output_type: str
    min_cost: int
    #: Why cel-go fails to build the program (a constant regex it cannot compile), if it does.
    program_error: CelError | None = None
    #: ``id()`` of the sources (:attr:`Node.source`) of calls more than one overload of which
    #: takes the arguments' types: cel-go dispatches them at run time, and charges them as
    #: calls of no known overload.
    dynamic_calls: frozenset[int] = frozenset()


class Checker:
    """Types one expression's tree; ``errors`` are cel-go's, sorted by position."""

    def __init__(self, environment: Environment) -> None:
        self.environment = environment
        self.functions = declared_functions(environment)
        self.attribute = DYN if environment.list_type_attributes else ANY
        self.device_fields = {"driver", "attributes", "capacity"}
        if environment.allow_multiple_allocations_field:
            self.device_fields.add("allowMultipleAllocations")
        self.mapping = _Mapping()
        self.fresh = itertools.count()
        self.errors: list[CelError] = []
        #: Errors of cel-go's parser (macro arguments, literals): reported instead of the checker's.
        self.syntax_errors: list[CelError] = []
        self.unsupported: list[CelError] = []
        #: (element nodes, their types) of every list and map literal, for the validator.
        self.aggregates: list[tuple[list[Node], list[Type], bool]] = []  # (elements, types, one error only)
        self.literal_errors: list[CelError] = []
        self.inside_format = False
        self.types: dict[int, Type] = {}  # by id() of the node
        #: ``"literal".format([...])`` calls, which cel-go's format validator checks.
        self.format_calls: list[Node] = []
        self.program_errors: list[CelError] = []
        self.dynamic_calls: set[int] = set()

    # --- helpers ---------------------------------------------------------------------------------

    def error(self, node: Node, message: str) -> Type:
        self.errors.append(CelError(message, node.line, node.column))
        return ERROR

    def syntax_error(self, node: Node, message: str) -> Type:
        self.syntax_errors.append(CelError(message, node.line, node.column))
        return ERROR

    def new_var(self) -> Type:
        return Type(f"_var{next(self.fresh)}", var=True)

    def resolved(self, t: Type) -> Type:
        return self.mapping.substitute(t)

    def shown(self, t: Type) -> str:
        return str(self.mapping.substitute(t, vars_to_dyn=True))

    def resolve_overload(self, node: Node, name: str, args: list[Type], member: bool) -> Type:
        """cel-go ``resolveOverload``: the result type, or an error naming the argument types."""
        if any(t == ERROR for t in args):
            return ERROR
        result: Type | None = None
        matched = 0
        for overload in overloads(name):
            if overload.member != member or len(overload.params) != len(args):
                continue
            fresh: dict[str, Type] = {}
            params = [self._instantiate(p, fresh) for p in overload.params]
            trial = self.mapping.copy()
            if all(_assignable(trial, a, p) for a, p in zip(args, params, strict=True)):
                self.mapping = trial
                matched += 1
                found = self.mapping.substitute(self._instantiate(overload.result, fresh))
                if result is None:
                    result = found
                elif not _dyn_like(result) and found != result:
                    result = DYN
        if matched > 1 and node.source is not None:
            self.dynamic_calls.add(id(node.source))
        if result is None:
            shown = [self.shown(t) for t in args]
            listed = f"{shown[0]}.({', '.join(shown[1:])})" if member else f"({', '.join(shown)})"
            return self.error(node, f"found no matching overload for '{name}' applied to '{listed}'")
        return result

    def _instantiate(self, t: Type, fresh: dict[str, Type]) -> Type:
        if t.var:
            if t.name not in fresh:
                fresh[t.name] = self.new_var()
            return fresh[t.name]
        if not t.params:
            return t
        return Type(t.name, tuple(self._instantiate(p, fresh) for p in t.params))

    # --- nodes -----------------------------------------------------------------------------------

    def type_of(self, node: Node, scope: dict[str, Type]) -> Type:
        found = self._infer(node, scope)
        self.types[id(node)] = found
        return found

    def _infer(self, node: Node, scope: dict[str, Type]) -> Type:
        kind = node.kind
        if kind == "literal":
            return self._literal(node)
        if kind == "ident":
            if node.name in scope:
                return scope[node.name]
            if node.name == "device":
                return _DEVICE
            if self._type_identifier(node.name):
                return _TYPE_VALUE
            return self.error(node, f"undeclared reference to '{node.name}' (in container '')")
        if kind == "select":
            dotted = _dotted_name(node)
            if dotted is not None and dotted.partition(".")[0] not in scope and self._type_identifier(dotted):
                return _TYPE_VALUE  # google.protobuf.Timestamp, net.IP
            return self._select(node, scope)
        if kind == "has":
            operand = node.children[0]
            if operand.kind != "select" or operand.variable:
                self.syntax_error(operand, "invalid argument to has() macro")
                return BOOL
            self._select(operand, scope, at=node)  # cel-go reports its errors at the macro
            return BOOL
        if kind == "index":
            target, key = (self.type_of(child, scope) for child in node.children)
            unqualified = _constant_qualifier_type(node.children[1], scope)
            if unqualified is not None:
                self.program_errors.append(CelError(f"invalid qualifier type: {unqualified}", node.line, node.column))
            return self.resolve_overload(node, node.name, [target, key], False)
        if kind == "macro":
            return self._macro(node, scope)
        if kind == "bind":
            if "bindings" not in self.environment.libraries:
                self.error(node, "undeclared reference to 'cel.bind' (in container '')")
            if not node.variable:
                return self.syntax_error(node.children[2], "cel.bind() variable names must be simple identifiers")
            value = self.type_of(node.children[0], scope)
            return self.type_of(node.children[1], {**scope, node.variable: value})
        if kind == "call":
            return self._call(node, scope)
        if kind == "op":
            return self._operator(node, scope)
        if kind == "list":
            types = [self.type_of(child, scope) for child in node.children]
            if not self.inside_format:
                self.aggregates.append((node.children, types, True))
            return list_of(self._join(types))
        if kind == "optional":  # [?x]: the element is what the optional holds
            return self._optional_entry(node.children[0], self.type_of(node.children[0], scope))
        if kind == "map":
            types = []
            for key, value in zip(node.children[0::2], node.children[1::2], strict=True):
                if key.kind == "optional":  # {?k: v}: the value is an optional
                    types += [self.type_of(key.children[0], scope),
                              self._optional_entry(value, self.type_of(value, scope))]
                else:
                    types += [self.type_of(key, scope), self.type_of(value, scope)]
            keys, values = node.children[0::2], node.children[1::2]
            if not self.inside_format:
                self.aggregates.append((keys, types[0::2], False))
                self.aggregates.append((values, types[1::2], False))
            return map_of(self._join(types[0::2]), self._join(types[1::2]))
        self.unsupported.append(CelError(f"the cel-python engine does not evaluate {node.name} expressions",
                                         node.line, node.column))
        for child in node.children:
            self.type_of(child, scope)
        return UNKNOWN

    def _type_identifier(self, name: str) -> bool:
        if name not in TYPE_IDENTIFIERS:
            return False
        library = TYPE_IDENTIFIERS[name]
        return library is None or library in self.environment.libraries

    def _optional_entry(self, node: Node, t: Type) -> Type:
        t = self.resolved(t)
        if t.name == "optional_type" and not t.var:
            return t.params[0]
        if t.var or _dyn_like(t) or t == ERROR:
            return DYN if t != ERROR else ERROR
        return self.error(node, f"expected type 'optional_type({self.shown(t)})' but found '{self.shown(t)}'")

    def _literal(self, node: Node) -> Type:
        if node.type in ("int", "uint"):
            text = node.name.rstrip("uU")
            try:
                value = int(text, 16) if text.lower().startswith("0x") else int(text)
            except ValueError:
                value = 0
            limit = _INT_LIMIT if node.type == "int" else _UINT_LIMIT
            if value >= limit and not (node.type == "int" and value == limit and node.variable == "-"):
                return self.syntax_error(node, f"invalid {node.type} literal")
        return Type(node.type) if node.type else UNKNOWN

    def _join(self, types: list[Type]) -> Type:
        """cel-go ``joinTypes`` over a literal's elements (keys or values)."""
        joined: Type | None = None
        for current in types:
            if joined is None:
                joined = current
            elif _assignable(self.mapping, joined, current):
                joined = _most_general(joined, current)
            else:
                return DYN  # upstream allows mixed literals here; its validator reports them later
        return joined if joined is not None else self.new_var()

    def _select(self, node: Node, scope: dict[str, Type], at: Node | None = None) -> Type:
        target_node = node.children[0]
        optional = node.variable == "?"
        if target_node.kind == "ident" and target_node.name == "device" and "device" not in scope:
            target = _DEVICE
        else:
            target = self.resolved(self.type_of(target_node, scope))
        wrapped = target.name == "optional_type" and not target.var
        if wrapped:
            target = self.resolved(target.params[0])
        result = self._field(node, target, at or node)
        return optional_of(result) if (optional or wrapped) and result != ERROR else result

    def _field(self, node: Node, target: Type, at: Node) -> Type:
        if target == _DEVICE:
            if node.name not in self.device_fields:
                return self.error(at, f"undefined field '{node.name}'")
            if node.name in _DEVICE_FIELDS:
                return _DEVICE_FIELDS[node.name]
            value = QUANTITY if node.name == "capacity" else self.attribute
            return map_of(STRING, map_of(STRING, value))
        if target.var or _dyn_like(target):
            return DYN if target != UNKNOWN else UNKNOWN
        if target.name == "map":
            return target.params[1]
        if target.name in UNRESOLVED_OBJECT_TYPES and not target.params:
            return self.error(at, f"unexpected failed resolution of '{target.name}'")
        return self.error(at, f"type '{self.shown(target)}' does not support field selection")

    def _macro(self, node: Node, scope: dict[str, Type]) -> Type:
        names = node.variable.split(",")
        target_node, arguments = node.children[0], node.children[1:]
        library = _MACRO_LIBRARY.get((node.name, len(names)))
        if library is not None and library not in self.environment.libraries:
            # Without its library the macro is an ordinary (undeclared) call.
            self.type_of(target_node, scope)
            self.error(node, f"undeclared reference to '{node.name}' (in container '')")
            for argument in arguments:
                self.type_of(argument, scope)
            return ERROR
        for name, argument in zip(names, arguments, strict=False):
            if not name:
                return self.syntax_error(argument, _VARIABLE_ERRORS.get(node.name, "argument must be a simple name"))
        if len(names) == 2 and names[0] == names[1]:
            return self.syntax_error(arguments[1], f"duplicate variable name: {names[1]}")
        if node.name not in _NO_ACCUMULATOR_CHECK:
            # cel-go's parser macros and comprehensions extension (parser/macro.go,
            # ext/comprehensions.go); optMap, optFlatMap and sortBy do not check.
            for name, argument in zip(names, arguments, strict=False):
                if name == "__result__":
                    return self.syntax_error(argument, "iteration variable overwrites accumulator variable")
        target = self.resolved(self.type_of(target_node, scope))
        bodies = arguments[len(names):]
        if node.name in ("optMap", "optFlatMap"):
            return self._optional_macro(node, target, names[0], bodies[0], scope)
        variables = self._range_variables(target_node, target, len(names))
        inner = {**scope, **dict(zip(names, variables, strict=True))}
        body_types = [self.type_of(body, inner) for body in bodies]
        name = node.name
        if name in ("all", "exists"):
            if not _assignable(self.mapping, body_types[0], BOOL):
                self.error(bodies[0], f"expected type 'bool' but found '{self.shown(body_types[0])}'")
            return BOOL
        if name in ("exists_one", "existsOne"):
            self._filter(node, body_types[0], INT)
            return BOOL
        element = variables[-1]
        if name == "filter":
            result = list_of(element)
            self._filter(node, body_types[0], result)
            return result
        if name == "sortBy":
            self.resolve_overload(node, "@sortByAssociatedKeys", [target, list_of(body_types[0])], True)
            return list_of(element)
        if name in ("map", "transformList"):
            result = list_of(body_types[-1])
        elif name == "transformMap":
            result = map_of(variables[0], body_types[-1])
        else:  # transformMapEntry: the entry is a map literal
            entry = self.resolved(body_types[-1])
            result = entry if entry.name == "map" else map_of(DYN, DYN)
        if len(body_types) > 1:
            self._filter(node, body_types[0], result)
        return result

    def _filter(self, node: Node, predicate: Type, accumulator: Type) -> None:
        """A macro's filter is the condition of cel-go's ``_?_:_`` over the accumulator."""
        self.resolve_overload(node, "_?_:_", [predicate, accumulator, accumulator], False)

    def _range_variables(self, target_node: Node, target: Type, count: int) -> list[Type]:
        if target.var or target.name in ("dyn", "*error*", "?"):
            return [DYN] * count if target != ERROR else [ERROR] * count
        if target.name == "list":
            return [INT, target.params[0]] if count == 2 else [target.params[0]]
        if target.name == "map":
            return list(target.params) if count == 2 else [target.params[0]]
        self.error(target_node, _RANGE_ERROR.format(self.shown(target)))
        return [ERROR] * count

    def _optional_macro(self, node: Node, target: Type, name: str, body: Node, scope: dict[str, Type]) -> Type:
        if target.name == "optional_type" and not target.var:
            value = target.params[0]
        elif target.var or _dyn_like(target):
            value = DYN
        else:
            self.error(node, f"found no matching overload for 'hasValue' applied to '{self.shown(target)}.()'")
            value = ERROR
        result = self.type_of(body, {**scope, name: value})
        return optional_of(result) if node.name == "optMap" else result

    def _call(self, node: Node, scope: dict[str, Type]) -> Type:
        name = node.name
        outer_format = self.inside_format
        self.inside_format = outer_format or name == "format"  # cel-go's validator exempts format's arguments
        args = [self.type_of(child, scope) for child in node.children]
        self.inside_format = outer_format
        if name == "matches" and "literal-validators" in self.environment.libraries:
            pattern = node.children[1] if node.member and len(node.children) > 1 else node.children[0]
            if pattern.kind == "literal" and pattern.type == "string" and not _regex_ok(pattern.name):
                self.literal_errors.append(CelError("invalid matches argument", pattern.line, pattern.column))
        if "literal-validators" in self.environment.libraries and name in _TIME_LITERALS and not node.member:
            self._time_literal(name, node.children[0] if node.children else None)
        if (name == "format" and node.member and len(node.children) == 2 and node.children[1].kind == "list"
                and node.children[0].kind == "literal" and node.children[0].type == "string"):
            self.format_calls.append(node)
        pattern_node = _undyn(node.children[1]) if len(node.children) > 1 else None
        if (pattern_node is not None and pattern_node.kind == "literal" and pattern_node.type == "string"
                and (name == "matches" or (name in ("find", "findAll") and node.member
                                           and "regex" in self.environment.libraries))):
            self._constant_pattern(pattern_node)
        if name not in self.functions:
            namespace, dot, function = name.rpartition(".")
            if dot and not node.member:
                # ``lists.range(0)`` without the library: cel-go resolves ``lists`` as a variable.
                column = node.column - len(name)
                self.errors.append(CelError(f"undeclared reference to '{namespace}' (in container '')",
                                            node.line, max(column, 1)))
                return self.error(node, f"undeclared reference to '{function}' (in container '')")
            return self.error(node, f"undeclared reference to '{name}' (in container '')")
        if name in UNSUPPORTED:
            self.unsupported.append(CelError(f"the cel-python engine does not implement '{name}'",
                                             node.line, node.column))
        if not overloads(name):
            return UNKNOWN
        return self.resolve_overload(node, name, args, node.member)

    def _constant_pattern(self, literal: Node) -> None:
        """cel-go compiles a constant pattern when it builds the program; Go's error fails it."""
        try:
            error = go_regexp_error(ast_literal_string(literal.name))
        except ValueError:
            return
        if error is not None:
            self.program_errors.append(CelError(error, literal.line, literal.column))

    def _time_literal(self, name: str, literal: Node | None) -> None:
        """cel-go's duration and timestamp literal validators."""
        if literal is None or literal.kind != "literal":
            return
        if literal.type == "string":
            try:
                valid = _TIME_LITERALS[name][0](ast_literal_string(literal.name))
            except ValueError:
                return
        elif literal.type == "int" and _TIME_LITERALS[name][1] is not None:
            valid = _TIME_LITERALS[name][1](int(literal.name, 0) if literal.name.lower().startswith("0x")
                                            else int(literal.name))
        else:
            return
        if not valid:
            self.literal_errors.append(CelError(f"invalid {name} argument", literal.line, literal.column))

    def _operator(self, node: Node, scope: dict[str, Type]) -> Type:
        op = node.name
        if op == "-_" and node.children[0].kind == "literal":
            node.children[0].variable = "-"  # -9223372036854775808 is a valid literal
        types = [self.type_of(child, scope) for child in node.children]
        if op in ("_&&_", "_||_"):
            for child, t in zip(node.children, types, strict=True):
                if t != ERROR and not _assignable(self.mapping, t, BOOL):
                    self.error(child, f"expected type 'bool' but found '{self.shown(t)}'")
            return BOOL
        return self.resolve_overload(node, op, types, False)

    # --- after checking --------------------------------------------------------------------------

    def validate_literals(self) -> list[CelError]:
        """cel-go's homogeneous aggregate literal validator, on the final types."""
        found = list(self.literal_errors)
        for elements, types, stop in self.aggregates:
            final = [self.mapping.substitute(t, vars_to_dyn=True) for t in types]
            for element, actual in zip(elements[1:], final[1:], strict=True):
                if not _equivalent(final[0], actual):
                    at = element.children[0] if element.kind == "optional" else element  # [?x]: at x
                    found.append(CelError(f"expected type '{final[0]}' but found '{actual}'", at.line, at.column))
                    if stop:
                        break
        verify = format_check.verifier(self._go_type, self._elements)
        for call in self.format_calls:
            try:
                text = ast_literal_string(call.children[0].name)
            except ValueError:
                continue
            problem = format_check.call_error(text, call.children[1].children, verify)
            if problem is not None:
                message, argument = problem
                at = argument if argument is not None else call
                found.append(CelError(message, at.line, at.column))
        return sorted(found, key=lambda e: (e.line, e.column))

    def _go_type(self, node: Node) -> tuple[str, str]:
        """A node's kind and Go type name, as cel-go's format validator compares them."""
        t = self.mapping.substitute(self.types.get(id(node), DYN), vars_to_dyn=True)
        if _dyn_like(t) and t.name != "any":
            return "dyn", "dyn"
        name = _GO_TYPE_NAMES.get(t.name, t.name)
        return name, name

    @staticmethod
    def _elements(node: Node) -> list[Node]:
        return node.children if node.kind in ("list", "map") else []


#: The type of a type name used as a value (``int``): cel-go compares it with any ``type(x)``.
_TYPE_VALUE = Type("type", (DYN,))


def _dotted_name(node: Node) -> str | None:
    """``google.protobuf.Timestamp`` for a chain of field selections on an identifier."""
    parts = []
    while node.kind == "select" and not node.variable:
        parts.append(node.name)
        node = node.children[0]
    return ".".join([node.name, *reversed(parts)]) if node.kind == "ident" else None


def output_name(t: Type) -> str:
    """The selector's type as the DRA compiler names it (``any`` stays ``any``: it is accepted)."""
    if t.name in ("any", "?") and not t.var:
        return "any"
    if t.name == "null" and not t.var:
        return "null_type"
    if t.name in ("timestamp", "duration") and not t.var:  # its overload messages say "timestamp"
        return f"google.protobuf.{t.name.capitalize()}"
    return _format(t, "google.protobuf.Any")


def check(tree: Any, environment: Environment) -> tuple[Node, Checked]:
    root = simplify(tree)
    checker = Checker(environment)
    output = checker.type_of(root, {})
    errors = sorted(checker.syntax_errors or checker.errors, key=lambda e: (e.line, e.column))
    if not errors and "literal-validators" in environment.libraries:
        errors = checker.validate_literals()
    final = checker.mapping.substitute(output, vars_to_dyn=True)
    program_error = checker.program_errors[0] if checker.program_errors else None
    return root, Checked(errors, checker.unsupported, output_name(final), _min_cost(root), program_error,
                         frozenset(checker.dynamic_calls))


def _undyn(node: Node) -> Node:
    """``node`` without the ``dyn()`` around it: cel-go plans ``dyn("[")`` as the constant."""
    while node.kind == "call" and node.name == "dyn" and not node.member and len(node.children) == 1:
        node = node.children[0]
    return node
