"""Compile-time checks for the cel-python engine, on a simplified form of cel-python's parse tree.

cel-python parses but does not type-check. The checks here reproduce the errors of upstream's
checker where types are evident without full inference (literals, ``device.driver``, capacity
values, results of library functions; attribute values are dyn): undeclared identifiers and
functions, fields ``device`` does not have, operators and library functions applied to values of
the wrong types (``2u + 1``, ``quantity("1").major()``), and the type of the whole expression. They also
compute a lower bound of the evaluation cost where ranges are list literals, so expressions that
upstream always cancels are cancelled here without running them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import lark

from dractl.cel.environment import Environment
from dractl.cel.errors import CelError
from dractl.cel.formats import FORMATS

#: Comprehension macros: per number of arguments, how many of them name variables.
MACROS: dict[str, dict[int, int]] = {
    "all": {2: 1, 3: 2}, "exists": {2: 1, 3: 2}, "exists_one": {2: 1, 3: 2}, "existsOne": {3: 2},
    "map": {2: 1, 3: 1}, "filter": {2: 1},
    "transformList": {3: 2, 4: 2}, "transformMap": {3: 2, 4: 2}, "transformMapEntry": {3: 2, 4: 2},
    "sortBy": {2: 1}, "optMap": {2: 1}, "optFlatMap": {2: 1},
}
#: The library a macro form needs, by (name, number of variables); the others are always there.
_MACRO_LIBRARY: dict[tuple[str, int], str] = {
    **{(name, 2): "two-var-comprehensions" for name in MACROS},
    ("sortBy", 1): "ext-lists", ("optMap", 1): "optionals", ("optFlatMap", 1): "optionals",
}
_MACRO_TYPES = {"all": "bool", "exists": "bool", "exists_one": "bool", "existsOne": "bool", "map": "list",
                "filter": "list", "transformList": "list", "sortBy": "list", "transformMap": "map",
                "transformMapEntry": "map"}
#: cel-go's parser error for a variable argument that is not a plain identifier.
_VARIABLE_ERRORS = {"sortBy": "argument is not an identifier",
                    "optMap": "optMap() variable name must be a simple identifier",
                    "optFlatMap": "optFlatMap() variable name must be a simple identifier"}

Q = "kubernetes.Quantity"
S = "kubernetes.Semver"
U = "kubernetes.URL"
IPT = "net.IP"
CIDRT = "net.CIDR"
NF = "kubernetes.NamedFormat"
_STR = "string"
#: Overloads upstream declares, as (receiver style, parameter types, result type); the receiver
#: is the first parameter. ``None`` stands for dyn (any argument, result unknown).
SIGNATURES: dict[str, list[tuple[bool, tuple[str | None, ...], str | None]]] = {
    "size": [(False, ("string",), "int"), (False, ("bytes",), "int"), (False, ("list",), "int"),
             (False, ("map",), "int"), (True, ("string",), "int"), (True, ("bytes",), "int"),
             (True, ("list",), "int"), (True, ("map",), "int")],
    "matches": [(True, (_STR, _STR), "bool"), (False, (_STR, _STR), "bool")],
    "startsWith": [(True, (_STR, _STR), "bool")],
    "endsWith": [(True, (_STR, _STR), "bool")],
    "contains": [(True, (_STR, _STR), "bool")],
    "int": [(False, (None,), "int")], "uint": [(False, (None,), "uint")],
    "double": [(False, (None,), "double")], "string": [(False, (None,), "string")],
    "bool": [(False, (None,), "bool")], "bytes": [(False, (None,), "bytes")],
    "quantity": [(False, (_STR,), Q)],
    "isQuantity": [(False, (_STR,), "bool")],
    "sign": [(False, (Q,), "int")],
    "asApproximateFloat": [(True, (Q,), "double")],
    "asInteger": [(True, (Q,), "int")],
    "isInteger": [(True, (Q,), "bool")],
    "add": [(True, (Q, Q), Q), (True, (Q, "int"), Q)],
    "sub": [(True, (Q, Q), Q), (True, (Q, "int"), Q)],
    "isGreaterThan": [(True, (Q, Q), "bool"), (True, (S, S), "bool")],
    "isLessThan": [(True, (Q, Q), "bool"), (True, (S, S), "bool")],
    "compareTo": [(True, (Q, Q), "int"), (True, (S, S), "int")],
    "semver": [(False, (_STR,), S), (False, (_STR, "bool"), S)],
    "isSemver": [(False, (_STR,), "bool"), (False, (_STR, "bool"), "bool")],
    "major": [(True, (S,), "int")], "minor": [(True, (S,), "int")], "patch": [(True, (S,), "int")],
    "find": [(True, (_STR, _STR), _STR)],
    "findAll": [(True, (_STR, _STR), "list"), (True, (_STR, _STR, "int"), "list")],
    "includes": [(True, (None, None), "bool")],
    "charAt": [(True, (_STR, "int"), _STR)],
    "indexOf": [(True, (_STR, _STR), "int"), (True, (_STR, _STR, "int"), "int"), (True, ("list", None), "int")],
    "lastIndexOf": [(True, (_STR, _STR), "int"), (True, (_STR, _STR, "int"), "int"),
                    (True, ("list", None), "int")],
    "lowerAscii": [(True, (_STR,), _STR)], "upperAscii": [(True, (_STR,), _STR)],
    "replace": [(True, (_STR, _STR, _STR), _STR), (True, (_STR, _STR, _STR, "int"), _STR)],
    "split": [(True, (_STR, _STR), "list"), (True, (_STR, _STR, "int"), "list")],
    "substring": [(True, (_STR, "int"), _STR), (True, (_STR, "int", "int"), _STR)],
    "trim": [(True, (_STR,), _STR)],
    "join": [(True, ("list",), _STR), (True, ("list", _STR), _STR)],
    "strings.quote": [(False, (_STR,), _STR)],
    "format": [(True, (_STR, "list"), _STR)],
    "sum": [(True, ("list",), None)], "min": [(True, ("list",), None)], "max": [(True, ("list",), None)],
    "isSorted": [(True, ("list",), "bool")],
    "slice": [(True, ("list", "int", "int"), "list")],
    "flatten": [(True, ("list",), "list"), (True, ("list", "int"), "list")],
    "sort": [(True, ("list",), "list")], "distinct": [(True, ("list",), "list")],
    "reverse": [(True, ("list",), "list")], "lists.range": [(False, ("int",), "list")],
    "first": [(True, ("list",), None)], "last": [(True, ("list",), None)],
    "unwrapOpt": [(True, ("list",), "list")], "optional.unwrap": [(False, ("list",), "list")],
    "sets.contains": [(False, ("list", "list"), "bool")], "sets.equivalent": [(False, ("list", "list"), "bool")],
    "sets.intersects": [(False, ("list", "list"), "bool")],
    "url": [(False, (_STR,), U)], "isURL": [(False, (_STR,), "bool")],
    **{name: [(True, (U,), _STR)] for name in ("getScheme", "getHost", "getHostname", "getPort", "getEscapedPath")},
    "getQuery": [(True, (U,), "map")],
    "ip": [(False, (_STR,), IPT), (True, (CIDRT,), IPT)], "isIP": [(False, (_STR,), "bool")],
    "ip.isCanonical": [(False, (_STR,), "bool")], "family": [(True, (IPT,), "int")],
    **{name: [(True, (IPT,), "bool")] for name in ("isUnspecified", "isLoopback", "isLinkLocalMulticast",
                                                   "isLinkLocalUnicast", "isGlobalUnicast")},
    "cidr": [(False, (_STR,), CIDRT)], "isCIDR": [(False, (_STR,), "bool")],
    "containsIP": [(True, (CIDRT, IPT), "bool"), (True, (CIDRT, _STR), "bool")],
    "containsCIDR": [(True, (CIDRT, CIDRT), "bool"), (True, (CIDRT, _STR), "bool")],
    "prefixLength": [(True, (CIDRT,), "int")], "masked": [(True, (CIDRT,), CIDRT)],
    "format.named": [(False, (_STR,), None)], "validate": [(True, (NF, _STR), None)],
    **{f"format.{name}": [(False, (), NF)] for name in FORMATS},
    "optional.of": [(False, (None,), None)],
    "optional.none": [(False, (), None)],
    "optional.ofNonZeroValue": [(False, (None,), None)],
    "hasValue": [(True, (None,), "bool")],
    "orValue": [(True, (None, None), None)],
    "value": [(True, (None,), None)],
    "or": [(True, (None, None), None)],
}
#: Functions whose name has a namespace (``optional.of(x)``, ``sets.contains(a, b)``).
NAMESPACED_FUNCTIONS = frozenset({"optional.of", "optional.none", "optional.ofNonZeroValue", "optional.unwrap",
                                  "lists.range", "sets.contains", "sets.equivalent", "sets.intersects",
                                  "ip.isCanonical", "strings.quote", "format.named",
                                  *(f"format.{name}" for name in FORMATS)})
_OPTIONAL_FUNCTIONS = frozenset({"optional.of", "optional.none", "optional.ofNonZeroValue", "hasValue", "orValue",
                                 "value", "or"})
# Types whose element types this checker does not track: they match what they are, but an
# error about them would not name them as upstream does, so none is reported.
_VAGUE = frozenset({"list", "map"})
_VAGUE_NAMES = {"list": "list(dyn)", "map": "map(dyn, dyn)"}


#: Functions of the standard environment every selector may call.
_STANDARD = frozenset({
    "size", "int", "uint", "double", "string", "bool", "bytes", "dyn", "type", "matches", "startsWith",
    "endsWith", "contains", "duration", "timestamp", "getDate", "getDayOfMonth", "getDayOfWeek",
    "getDayOfYear", "getFullYear", "getMonth", "getHours", "getMilliseconds", "getMinutes", "getSeconds",
})
_LIBRARY_FUNCTIONS: dict[str, frozenset[str]] = {
    "quantity": frozenset({"quantity", "isQuantity", "sign", "asInteger", "isInteger", "asApproximateFloat",
                           "add", "sub", "isGreaterThan", "isLessThan", "compareTo"}),
    "semver": frozenset({"semver", "isSemver", "major", "minor", "patch", "isGreaterThan", "isLessThan",
                         "compareTo"}),
    "regex": frozenset({"find", "findAll"}),
    "k8s-lists": frozenset({"sum", "min", "max", "isSorted", "indexOf", "lastIndexOf"}),
    "ext-lists": frozenset({"slice", "flatten", "sort", "distinct", "reverse", "lists.range"}),
    "optionals": frozenset({"first", "last", "unwrapOpt", "optional.unwrap"}),
    "sets": frozenset({"sets.contains", "sets.equivalent", "sets.intersects"}),
    "strings-v2": frozenset({"strings.quote"}),
    "urls": frozenset({"url", "isURL", "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath",
                       "getQuery"}),
    "ip": frozenset({"ip", "isIP", "ip.isCanonical", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
                     "isLinkLocalUnicast", "isGlobalUnicast"}),
    "format": frozenset({"format.named", "validate", *(f"format.{name}" for name in FORMATS)}),
    "cidr": frozenset({"cidr", "isCIDR", "containsIP", "containsCIDR", "prefixLength", "masked", "ip"}),
}
#: cel-go's string extension (version 2 and later), declared in every DRA environment.
STRING_EXTENSION = frozenset({"charAt", "indexOf", "lastIndexOf", "lowerAscii", "upperAscii", "replace",
                              "split", "substring", "trim", "join", "format"})
#: Declared upstream but not evaluated by the cel-python engine.
UNSUPPORTED = frozenset({"strings.quote", "format", "duration", "timestamp", "getDate", "getDayOfMonth",
                         "getDayOfWeek", "getDayOfYear", "getFullYear", "getMonth", "getHours",
                         "getMilliseconds", "getMinutes", "getSeconds"})

_NUMERIC = frozenset({"int", "uint", "double"})
_ARITHMETIC = {"addition_add": "_+_", "addition_sub": "_-_", "multiplication_mul": "_*_",
               "multiplication_div": "_/_", "multiplication_mod": "_%_"}
_RELATIONS = {"relation_lt": "_<_", "relation_le": "_<=_", "relation_gt": "_>_", "relation_ge": "_>=_",
              "relation_eq": "_==_", "relation_ne": "_!=_", "relation_in": "@in"}
_ARITHMETIC_TYPES = {
    "_+_": frozenset({"int", "uint", "double", "string", "bytes"}),
    "_-_": _NUMERIC, "_*_": _NUMERIC, "_/_": _NUMERIC, "_%_": frozenset({"int", "uint"}),
}
_ORDERED = frozenset({"int", "uint", "double", "string", "bytes", "bool"})


def declared_functions(environment: Environment) -> frozenset[str]:
    names = set(_STANDARD) | STRING_EXTENSION
    for library, functions in _LIBRARY_FUNCTIONS.items():
        if library in environment.libraries:
            names |= functions
    if environment.includes_function:
        names.add("includes")
    if "optionals" in environment.libraries:
        names |= _OPTIONAL_FUNCTIONS
    return frozenset(names)


@dataclass
class Node:
    """One node of the simplified tree; ``line``/``column`` are 1-based like cel-go's."""

    kind: str  # literal, ident, select, index, call, macro, bind, op, list, map, has, other
    line: int
    column: int
    name: str = ""  # ident name, selected field, function or operator
    type: str = ""  # literal type
    children: list[Node] = field(default_factory=list)  # operands / arguments; target first for calls
    member: bool = False  # a receiver-style call
    variable: str = ""  # macro / bind variable


def _position(tree: Any) -> tuple[int, int]:
    if isinstance(tree, lark.Token):
        return tree.line or 1, tree.column or 1
    meta = tree.meta
    return getattr(meta, "line", None) or 1, getattr(meta, "column", None) or 1


def _end(tree: Any) -> tuple[int, int]:
    if isinstance(tree, lark.Token):
        return tree.end_line or 1, tree.end_column or 1
    meta = tree.meta
    return getattr(meta, "end_line", None) or 1, getattr(meta, "end_column", None) or 1


def _literal_type(token: lark.Token) -> str:
    return {"UINT_LIT": "uint", "FLOAT_LIT": "double", "INT_LIT": "int", "MLSTRING_LIT": "string",
            "STRING_LIT": "string", "BYTES_LIT": "bytes", "BOOL_LIT": "bool", "NULL_LIT": "null"}.get(
        token.type, "")


def _exprs(tree: Any) -> list[Any]:
    if tree is None:
        return []
    return [child for child in tree.children if isinstance(child, lark.Tree)]


def _ident_of(tree: lark.Tree) -> str | None:
    """The identifier an expression consists of, if that is all it is (macro variables)."""
    node = simplify(tree)
    return node.name if node.kind == "ident" else None


def simplify(tree: Any) -> Node:
    data = tree.data
    children = tree.children
    if data in ("expr", "conditionalor", "conditionaland") and len(children) == 1:
        return simplify(children[0])
    if data == "expr":
        line, column = _position(tree)
        return Node("op", line, column, "_?_:_", children=[simplify(c) for c in children])
    if data in ("conditionalor", "conditionaland"):
        left, right = children
        line, column = _end(left)  # the operator follows its left operand
        op = "_||_" if data == "conditionalor" else "_&&_"
        return Node("op", line, column + 1, op, children=[simplify(left), simplify(right)])
    if data in ("relation", "addition", "multiplication"):
        if len(children) == 1:
            return simplify(children[0])
        operator_tree, right = children
        left = simplify(operator_tree.children[0])
        op = _RELATIONS.get(operator_tree.data) or _ARITHMETIC[operator_tree.data]
        symbol = {"@in": "in"}.get(op, op.strip("_"))
        end_line, end_column = _end(operator_tree)
        return Node("op", end_line, end_column - len(symbol), op, children=[left, simplify(right)])
    if data == "unary":
        if len(children) == 1:
            return simplify(children[0])
        operator_tree, operand = children
        line, column = _position(operator_tree)
        op = "!_" if operator_tree.data == "unary_not" else "-_"
        return Node("op", line, column, op, children=[simplify(operand)])
    if data in ("member", "primary") and len(children) == 1:
        return simplify(children[0])
    if data == "paren_expr":
        return simplify(children[0])
    if data == "member_dot":
        target, name = children
        line, column = _position(name)
        return Node("select", line, column - 1, str(name), children=[simplify(target)])
    if data == "member_dot_arg":
        target, name = children[0], children[1]
        args = _exprs(children[2]) if len(children) > 2 else []
        line, column = _position(name)
        column += len(str(name))  # cel-go positions a call at its "("
        target_node = simplify(target)
        if str(name) == "bind" and target_node.kind == "ident" and target_node.name == "cel" and len(args) == 3:
            variable = _ident_of(args[0]) or ""
            return Node("bind", line, column, "cel.bind",
                        children=[simplify(args[1]), simplify(args[2]), simplify(args[0])], variable=variable)
        if target_node.kind == "ident" and f"{target_node.name}.{name}" in NAMESPACED_FUNCTIONS:
            return Node("call", line, column, f"{target_node.name}.{name}", children=[simplify(a) for a in args])
        variables = MACROS.get(str(name), {}).get(len(args))
        if variables is not None:
            names = [_ident_of(arg) for arg in args[:variables]]
            return Node("macro", line, column, str(name),
                        children=[target_node, *(simplify(a) for a in args)],
                        variable=",".join(n or "" for n in names))
        return Node("call", line, column, str(name), children=[target_node, *(simplify(a) for a in args)],
                    member=True)
    if data == "member_dot_opt":
        target, name = children
        line, column = _position(name)
        return Node("select", line, column - 2, str(name), children=[simplify(target)], variable="?")
    if data == "member_index_opt":
        target, key = children
        line, column = _position(key)
        return Node("index", line, column - 2, "_[?_]", children=[simplify(target), simplify(key)])
    if data == "member_index":
        target, key = children
        line, column = _position(key)
        return Node("index", line, column - 1, "_[_]", children=[simplify(target), simplify(key)])
    if data == "member_object":
        line, column = _position(tree)
        return Node("other", line, column, "message")
    if data == "literal":
        token = children[0]
        line, column = _position(token)
        return Node("literal", line, column, str(token), type=_literal_type(token))
    if data == "ident":
        line, column = _position(children[0])
        return Node("ident", line, column, str(children[0]))
    if data in ("ident_arg", "dot_ident_arg"):
        name = children[0]
        args = _exprs(children[1]) if len(children) > 1 else []
        line, column = _position(name)
        column += len(str(name))
        if str(name) == "has" and len(args) == 1:
            return Node("has", line, column, "has", children=[simplify(args[0])])
        return Node("call", line, column, str(name), children=[simplify(a) for a in args])
    if data == "dot_ident":
        line, column = _position(children[0])
        return Node("ident", line, column, str(children[0]))
    if data == "list_lit":
        line, column = _position(tree)
        items = _exprs(children[0]) if children else []
        return Node("list", line, column, children=[simplify(i) for i in items])
    if data == "map_lit":
        line, column = _position(tree)
        items = _exprs(children[0]) if children else []
        return Node("map", line, column, children=[simplify(i) for i in items])
    line, column = _position(tree)
    return Node("other", line, column, data, children=[simplify(c) for c in _exprs(tree)])


@dataclass
class Checked:
    errors: list[CelError]
    unsupported: list[CelError]
    output_type: str
    min_cost: int


class _Checker:
    def __init__(self, environment: Environment) -> None:
        self.environment = environment
        self.functions = declared_functions(environment)
        self.device_fields = {"driver", "attributes", "capacity"}
        if environment.allow_multiple_allocations_field:
            self.device_fields.add("allowMultipleAllocations")
        self.errors: list[CelError] = []
        self.unsupported: list[CelError] = []
        #: cel-go's literal validators (reported only when the expression type-checks).
        self.literal_errors: list[CelError] = []
        self.inside_format = False

    def error(self, node: Node, message: str) -> None:
        self.errors.append(CelError(message, node.line, node.column))

    def type_of(self, node: Node, scope: frozenset[str]) -> str | None:
        """Check ``node``; return its type when evident (``None``: dyn or unknown)."""
        kind = node.kind
        if kind == "literal":
            return node.type
        if kind == "ident":
            if node.name not in scope and node.name != "device":
                self.error(node, f"undeclared reference to '{node.name}' (in container '')")
            return None
        if kind == "select":
            target = node.children[0]
            if target.kind == "ident" and target.name == "device" and "device" not in scope:
                if node.name not in self.device_fields:
                    self.error(node, f"undefined field '{node.name}'")
                    return None
                return {"driver": "string", "allowMultipleAllocations": "bool"}.get(node.name)
            self._select_target(target, scope)
            return self._map_value_type(target, scope)
        if kind == "has":
            operand = node.children[0]
            if operand.kind == "select":
                self._select_target(operand.children[0], scope)
            else:
                self.error(node, "invalid argument to has() macro")
            return "bool"
        if kind == "index":
            for child in node.children:
                self.type_of(child, scope)
            return self._map_value_type(node.children[0], scope)
        if kind == "macro":
            return self._macro(node, scope)
        if kind == "bind":
            if "bindings" not in self.environment.libraries:
                self.error(node, "undeclared reference to 'cel.bind' (in container '')")
            if not node.variable:
                self.error(node.children[2], "cel.bind() variable names must be simple identifiers")
                return None
            self.type_of(node.children[0], scope)
            return self.type_of(node.children[1], scope | {node.variable})
        if kind == "call":
            return self._call(node, scope)
        if kind == "op":
            return self._operator(node, scope)
        if kind == "list":
            types = [self.type_of(child, scope) for child in node.children]
            self._homogeneous(node.children, types, stop=True)
            if types and types[0] is not None and types[0] not in _VAGUE and all(t == types[0] for t in types):
                return f"list({types[0]})"
            return "list"
        if kind == "map":
            types = [self.type_of(child, scope) for child in node.children]
            self._homogeneous(node.children[0::2], types[0::2], stop=False)
            self._homogeneous(node.children[1::2], types[1::2], stop=False)
            return "map"
        self.unsupported.append(CelError(f"the cel-python engine does not evaluate {node.name} expressions",
                                         node.line, node.column))
        return None

    def _macro(self, node: Node, scope: frozenset[str]) -> str | None:
        names = node.variable.split(",")
        target, arguments = node.children[0], node.children[1:]
        library = _MACRO_LIBRARY.get((node.name, len(names)))
        if library is not None and library not in self.environment.libraries:
            # Without its library the macro is an ordinary (undeclared) call.
            self.type_of(target, scope)
            self.error(node, f"undeclared reference to '{node.name}' (in container '')")
            for argument in arguments:
                self.type_of(argument, scope)
            return None
        for name, argument in zip(names, arguments, strict=False):
            if not name:
                message = _VARIABLE_ERRORS.get(node.name, "argument must be a simple name")
                self.error(argument, message)
                return None
        if len(names) == 2 and names[0] == names[1]:
            self.error(arguments[1], f"duplicate variable name: {names[1]}")
            return None
        self.type_of(target, scope)
        inner = scope | set(names)
        body_types = [self.type_of(argument, inner) for argument in arguments[len(names):]]
        predicate = body_types[0] if node.name in ("all", "exists", "filter") or len(body_types) > 1 else None
        if predicate is not None and predicate != "bool" and predicate not in _VAGUE:
            body = arguments[len(names)]
            self.error(body, f"expected type 'bool' but found '{predicate}'")
        return _MACRO_TYPES.get(node.name)

    def _homogeneous(self, elements: list[Node], types: list[str | None], *, stop: bool) -> None:
        """cel-go's homogeneous aggregate literal validator, where every element's type is evident."""
        if self.inside_format or not all(t is not None and t not in _VAGUE for t in types):
            return
        for element, actual in zip(elements[1:], types[1:], strict=True):
            if actual != types[0]:
                self.literal_errors.append(CelError(f"expected type '{types[0]}' but found '{actual}'",
                                                    element.line, element.column))
                if stop:
                    return

    def _select_target(self, target: Node, scope: frozenset[str]) -> None:
        self.type_of(target, scope)

    def _map_value_type(self, container: Node, scope: frozenset[str]) -> str | None:
        """The type of an entry of ``container``: a quantity in a domain of ``device.capacity``,
        a map for a domain of either outer map."""
        if _is_device_map(container, scope):
            return "map"
        if container.kind in ("select", "index") and _is_device_map(container.children[0], scope):
            outer = container.children[0]
            return Q if outer.name == "capacity" else None
        return None

    def _call(self, node: Node, scope: frozenset[str]) -> str | None:
        name = node.name
        outer_format = self.inside_format
        self.inside_format = outer_format or name == "format"  # cel-go exempts format's arguments
        argument_types = [self.type_of(child, scope) for child in node.children]
        self.inside_format = outer_format
        if name == "matches" and "literal-validators" in self.environment.libraries:
            pattern = node.children[1] if node.member and len(node.children) > 1 else node.children[0]
            if pattern.kind == "literal" and pattern.type == "string" and not _regex_ok(pattern.name):
                self.literal_errors.append(CelError("invalid matches argument", pattern.line, pattern.column))
        signatures = SIGNATURES.get(name)
        declared = name in self.functions
        if declared and signatures is not None:
            declared = any(member == node.member for member, _params, _result in signatures)
        if not declared:
            self.error(node, f"undeclared reference to '{name}' (in container '')")
            return None
        if name in UNSUPPORTED:
            self.unsupported.append(CelError(f"the cel-python engine does not implement '{name}'",
                                             node.line, node.column))
        if signatures is None:
            return None
        candidates = [
            result for member, params, result in signatures
            if member == node.member and len(params) == len(argument_types)
            and all(p is None or a is None or p == a or p == _base(a) for p, a in zip(params, argument_types,
                                                                                        strict=True))
        ]
        if name.startswith("sets.") and len({t for t in argument_types if t and t not in _VAGUE}) > 1:
            candidates = []  # the two lists' element types differ
        if not candidates:
            if not any(member == node.member and len(params) == len(argument_types)
                       for member, params, _result in signatures):
                argument_types = [_VAGUE_NAMES.get(t, t) or "dyn" for t in argument_types]
            if all(t is not None and t not in _VAGUE for t in argument_types):
                listed = ", ".join(str(t) for t in argument_types[node.member:])
                receiver = f"{argument_types[0]}." if node.member else ""
                self.error(node, f"found no matching overload for '{name}' applied to '{receiver}({listed})'")
            return None
        return candidates[0] if len(set(candidates)) == 1 else None

    def _operator(self, node: Node, scope: frozenset[str]) -> str | None:
        op = node.name
        types = [self.type_of(child, scope) for child in node.children]
        known = all(t is not None for t in types)
        if op in ("_&&_", "_||_", "!_"):
            if known and any(t != "bool" for t in types):
                self._no_overload(node, types)
            return "bool"
        if op == "_?_:_":
            condition, then, otherwise = types
            if condition is not None and condition != "bool":
                self._no_overload(node, types)
            return then if then == otherwise else None
        if op == "-_":
            if known and types[0] not in ("int", "double"):
                self._no_overload(node, types)
            return types[0]
        if op == "@in":
            return "bool"
        if op in ("_==_", "_!=_"):
            if known and not _same_type(types[0], types[1]):
                self._no_overload(node, types)
            return "bool"
        if op in ("_<_", "_<=_", "_>_", "_>=_"):
            if known:
                left, right = types
                numeric = left in _NUMERIC and right in _NUMERIC
                if not numeric and (left != right or left not in _ORDERED):
                    self._no_overload(node, types)
            return "bool"
        allowed = _ARITHMETIC_TYPES.get(op)
        if allowed is not None:
            if known and op == "_+_" and _base(str(types[0])) == _base(str(types[1])) == "list":
                if _same_type(types[0], types[1]):
                    return types[0] if types[0] != "list" else types[1]
                self._no_overload(node, types)
                return None
            if known:
                left, right = types
                if left != right or left not in allowed:
                    self._no_overload(node, types)
                    return None
                return left
            return None
        return None

    def _no_overload(self, node: Node, types: list[str | None]) -> None:
        self.error(node, f"found no matching overload for '{node.name}' applied to "
                         f"'({', '.join(t or 'dyn' for t in types)})'")


def _base(type_name: str | None) -> str | None:
    """``list`` for ``list(int)``: the kind a parameterized type is of."""
    return type_name.partition("(")[0] if type_name else type_name


def _same_type(left: str | None, right: str | None) -> bool:
    """Equal types, where a list or map whose element types are not tracked matches any of its kind."""
    if left == right:
        return True
    return (left in _VAGUE or right in _VAGUE) and _base(left) == _base(right)


def _is_device_map(node: Node, scope: frozenset[str]) -> bool:
    """``device.attributes`` or ``device.capacity`` (with ``device`` not a local variable)."""
    if node.kind != "select" or node.name not in ("attributes", "capacity"):
        return False
    target = node.children[0]
    return target.kind == "ident" and target.name == "device" and "device" not in scope


def _min_cost(node: Node) -> int:
    """A lower bound of cel-go's cost: one per variable, field, index and call; ranges that are
    list literals multiply their macro's body."""
    kind = node.kind
    own = 1 if kind in ("ident", "select", "index", "call", "has") else 0
    if kind == "op" and node.name not in ("_&&_", "_||_", "_?_:_"):
        own = 1
    if kind == "macro":
        target, bodies = node.children[0], node.children[1 + len(node.variable.split(",")):]
        count = len(target.children) if target.kind == "list" else 0
        return _min_cost(target) + count * (sum(_min_cost(body) for body in bodies) + 1)
    if kind == "bind":  # the variable's name costs nothing
        return sum(_min_cost(child) for child in node.children[:2])
    if kind == "op" and node.name in ("_&&_", "_||_"):
        return min(_min_cost(child) for child in node.children)
    if kind == "op" and node.name == "_?_:_":
        condition, then, otherwise = node.children
        return _min_cost(condition) + min(_min_cost(then), _min_cost(otherwise))
    return own + sum(_min_cost(child) for child in node.children)


def _regex_ok(literal: str) -> bool:
    from dractl.cel.regex import re2_error

    try:
        text = ast_literal_string(literal)
    except ValueError:
        return True  # not a plain string literal this checker can decode; the run decides
    return re2_error(text) is None


def ast_literal_string(token: str) -> str:
    """The value of a CEL string literal token (quotes, raw prefix and escapes)."""
    from celpy.evaluation import celstr

    return str(celstr(lark.Token("STRING_LIT", token)))


def check(tree: lark.Tree, environment: Environment) -> tuple[Node, Checked]:
    root = simplify(tree)
    checker = _Checker(environment)
    output = checker.type_of(root, frozenset())
    errors = checker.errors
    if not errors and "literal-validators" in environment.libraries:
        errors = sorted(checker.literal_errors, key=lambda e: (e.line, e.column))
    return root, Checked(errors, checker.unsupported, output or "any", _min_cost(root))
