"""What cel-go does with constants when it builds a program, where that can fail.

Upstream builds every selector's program with ``cel.EvalOptions(cel.OptOptimize)`` (apiserver
``pkg/cel/environment/base.go``); DRA's compiler reports a failure there as ``program
instantiation failed: <error>`` (an internal error), whatever the expression would do at run
time. The planner (cel-go ``interpreter/decorators.go``) works bottom-up, in source order:

- a list or map literal of constants is a constant;
- a type conversion (``int``, ``uint``, ``double``, ``string``, ``bool``, ``bytes``,
  ``duration``, ``timestamp``, ``dyn``, ``type``) of a constant is evaluated; an error
  (``int("x")``, ``uint(-1)``, ``string(b"\\xff")``, ``int(double("NaN"))``) fails the program,
  even where the expression would never evaluate it (``false && int("x") == 1``);
- a constant pattern of ``matches`` and of the Kubernetes ``find``/``findAll`` is compiled; a bad
  one fails the program (``matches(device.driver, "[")``);
- a type name the runtime does not know (``google.protobuf.Any``) fails it too;
- a constant index (``m[[1]]``, ``m[null]``) is made a qualifier, which only a string, int,
  uint, bool or double can be (``newQualifier`` in ``interpreter/attributes.go``): any other
  constant fails the program with ``invalid qualifier type: <its Go type>``.

The conversions follow cel-go's ``ConvertToType`` and Go's ``strconv`` parsers.
"""

from __future__ import annotations

import math
import re
from typing import Any

from dractl.cel.ast import CheckedAst, Expr
from dractl.cel.errors import CelError
from dractl.cel.source_map import expression_line_column

_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1
_MIN_UNIX_TIME, _MAX_UNIX_TIME = -62135596800, 253402300799  # years 1 to 9999
_INT_OVERFLOW, _UINT_OVERFLOW = "integer overflow", "unsigned integer overflow"
_CONVERSIONS = frozenset({"bool", "bytes", "double", "duration", "dyn", "int", "string", "timestamp", "type",
                          "uint"})
_GO_TYPES = {"int": "int", "uint": "uint", "double": "double", "string": "string", "bool": "bool",
             "bytes": "bytes", "duration": "google.protobuf.Duration", "timestamp": "google.protobuf.Timestamp"}
# (function name, position of the pattern among the call's operands, target first)
_REGEX_FUNCTIONS = {"matches": 1, "find": 1, "findAll": 1}
_RUNTIME_TYPES = frozenset({"google.protobuf.Timestamp", "google.protobuf.Duration"})


class _NotConstant:
    pass


NOT_CONSTANT = _NotConstant()


class _Uint(int):
    pass


class _Bytes(bytes):
    pass


class _Pairs(tuple):  # type: ignore[type-arg]
    """A map constant: its (key, value) pairs."""


class BuildError(Exception):
    def __init__(self, message: str, node: Expr) -> None:
        super().__init__(message)
        self.message = message
        self.node = node


def _go_type(value: Any) -> str:
    if value is None:
        return "null_type"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, _Uint):
        return "uint"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes):
        return "bytes"
    if isinstance(value, _Pairs):
        return "map"
    return "list"


# -- Go's strconv ---------------------------------------------------------------------------------

# Patterns as text, compiled on first use by re's cache: few selectors have such literals.
_DECIMAL_FLOAT = r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?"
_HEX_FLOAT = r"[+-]?0[xX]([0-9a-fA-F]+(\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+"
_UNDERSCORE = r"(?<![0-9a-fA-FxX])_|_(?![0-9a-fA-F])"


def go_parse_float(text: str) -> float | None:
    """``strconv.ParseFloat(text, 64)``, or None where Go reports an error (syntax or range)."""
    lowered = text.lower()
    unsigned = lowered.lstrip("+-") if lowered[:1] in "+-" and len(lowered) > 1 else lowered
    if lowered[:1] in "+-" and lowered[1:2] in "+-":
        return None
    if unsigned in ("inf", "infinity"):
        return -math.inf if lowered.startswith("-") else math.inf
    if lowered == "nan":
        return math.nan
    if "_" in text:  # only between digits (or after a base prefix)
        if re.search(_UNDERSCORE, text):
            return None
        text = text.replace("_", "")
    if re.fullmatch(_DECIMAL_FLOAT, text):
        value = float(text)
    elif re.fullmatch(_HEX_FLOAT, text):
        try:
            value = float.fromhex(text)
        except OverflowError:
            return None
    else:
        return None
    return None if math.isinf(value) else value


def go_format_g(value: float) -> str:
    """``fmt.Sprintf("%g", value)``: the shortest digits, exponent form below 1e-4 or from 1e6."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0"
    from decimal import Decimal  # only for doubles in messages: decimal costs start-up

    digits_tuple = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(str(d) for d in digits_tuple.digits)
    point = len(digits) + int(digits_tuple.exponent)  # digits before the decimal point
    exponent = point - 1
    if exponent < -4 or exponent >= 6:  # strconv's 'g' with the shortest precision decides at 6
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


_GO_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
             "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}
_DECIMAL_INT = r"[+-]?[0-9]+"
_DECIMAL_UINT = r"[0-9]+"


def _conversion_error(source: str, target: str) -> str:
    return f"type conversion error from '{source}' to '{_GO_TYPES[target]}'"


def _convert(function: str, value: Any) -> Any:
    """cel-go's conversion of a constant: the value, NOT_CONSTANT for a value this module does not
    model (durations, timestamps, types), or an error message (str inside a tuple)."""
    kind = _go_type(value)
    if function == "dyn":
        return value
    if function == "type":
        return NOT_CONSTANT
    if kind in ("null_type", "list", "map"):
        return (f"no such overload: {function}({kind})",)
    if function == "int":
        if kind == "int":
            return value
        if kind == "uint":
            return int(value) if value <= _INT64_MAX else (_INT_OVERFLOW,)
        if kind == "double":
            if math.isnan(value) or math.isinf(value) or not (-9.223372036854775808e18 < value < 9.223372036854775808e18):
                return (_INT_OVERFLOW,)
            return int(value)
        if kind == "string":
            if re.fullmatch(_DECIMAL_INT, value) and _INT64_MIN <= int(value) <= _INT64_MAX:
                return int(value)
            return (_conversion_error("string", "int"),)
    elif function == "uint":
        if kind == "int":
            return _Uint(value) if value >= 0 else (_UINT_OVERFLOW,)
        if kind == "uint":
            return value
        if kind == "double":
            if math.isnan(value) or math.isinf(value) or not (0 <= value < 1.8446744073709552e19):
                return (_UINT_OVERFLOW,)
            return _Uint(int(value))
        if kind == "string":
            if re.fullmatch(_DECIMAL_UINT, value) and int(value) <= _UINT64_MAX:
                return _Uint(int(value))
            return (_conversion_error("string", "uint"),)
    elif function == "double":
        if kind in ("int", "uint"):
            return float(value)
        if kind == "double":
            return value
        if kind == "string":
            parsed = go_parse_float(value)
            return (_conversion_error("string", "double"),) if parsed is None else parsed
    elif function == "string":
        if kind == "string":
            return value
        if kind == "bool":
            return "true" if value else "false"
        if kind in ("int", "uint"):
            return str(int(value))
        if kind == "double":
            return go_format_g(value)
        if kind == "bytes":
            try:
                return bytes(value).decode("utf-8")
            except UnicodeDecodeError:
                return ("invalid UTF-8 in bytes, cannot convert to string",)
    elif function == "bool":
        if kind == "bool":
            return value
        if kind == "string":
            return _GO_BOOLS[value] if value in _GO_BOOLS else (_conversion_error("string", "bool"),)
    elif function == "bytes":
        if kind == "bytes":
            return value
        if kind == "string":
            return _Bytes(value.encode())
    elif function == "timestamp":
        if kind == "int":
            return NOT_CONSTANT if _MIN_UNIX_TIME <= value <= _MAX_UNIX_TIME else ("timestamp overflow",)
        if kind == "string":
            from dractl.cel.validators import timestamp_literal_ok

            return NOT_CONSTANT if timestamp_literal_ok(value) else (_conversion_error("string", "timestamp"),)
    elif function == "duration" and kind == "string":
        from dractl.cel.validators import duration_literal_ok

        return NOT_CONSTANT if duration_literal_ok(value) else (_conversion_error("string", "duration"),)
    elif function == "duration" and kind == "int":
        return (_conversion_error("int", "duration"),)  # declared, but cel-go's Int converts to no duration
    return (f"no such overload: {function}({kind})",)


def _map_key(value: Any) -> object:
    """``value`` as a key of the Go map cel-go builds a map literal in: a list or map is a
    pointer there, so every one is a key of its own."""
    if isinstance(value, list | _Pairs):
        return object()
    return (_go_type(value), value)


# Go types (``%T``) of the constants cel-go cannot make a qualifier of.
_UNQUALIFIED_GO_TYPES = {"null_type": "types.Null", "bytes": "types.Bytes", "list": "*types.baseList",
                         "map": "*types.baseMap"}
_UNQUALIFIED_CONVERSIONS = {"duration": "types.Duration", "timestamp": "types.Timestamp"}


def _constant_qualifier_type(index: Expr, value: Any, ast: CheckedAst) -> str | None:
    """The Go type of a constant index that cannot be a qualifier, or None."""
    if value is not NOT_CONSTANT:
        return _UNQUALIFIED_GO_TYPES.get(_go_type(value))
    while index.kind == "call" and index.name == "dyn" and index.operand is None and len(index.args) == 1:
        index = index.args[0]
    if (index.kind == "call" and index.name in _UNQUALIFIED_CONVERSIONS and index.operand is None
            and len(index.args) == 1 and index.args[0].kind == "const" and type(index.args[0].value) is str):
        return _UNQUALIFIED_CONVERSIONS[index.name]  # a valid literal: an invalid one failed already
    if index.kind == "ident" and ast.type_of(index).kind == "type":
        return "*types.Type"
    return None


# -- the planner ------------------------------------------------------------------------------------


def _constant_of_literal(value: Any) -> Any:
    """A literal of the checked tree as this module's value."""
    type_name = type(value).__name__
    if type_name == "_Unsigned":
        return _Uint(value)
    if type_name == "_Bytes":
        return _Bytes(value)
    return value


class _Planner:
    def __init__(self, ast: CheckedAst, libraries: frozenset[str]) -> None:
        self.ast = ast
        self.regex = "regex" in libraries

    def plan(self, node: Expr) -> Any:
        """The constant ``node`` folds to, or NOT_CONSTANT; raises BuildError where cel-go fails."""
        kind = node.kind
        if kind == "const":
            return _constant_of_literal(node.value)
        if kind == "ident":
            self._check_type_name(node)
            return NOT_CONSTANT
        if kind == "list":
            elements = [self.plan(element) for element in node.args]
            return NOT_CONSTANT if any(e is NOT_CONSTANT for e in elements) else elements
        if kind == "map":
            pairs = []
            for key, value in node.entries:
                folded_key = self.plan(key) if isinstance(key, Expr) else NOT_CONSTANT
                pairs.append((folded_key, self.plan(value)))
            constant = all(k is not NOT_CONSTANT and v is not NOT_CONSTANT for k, v in pairs)
            # duplicate keys make an error value, which this module does not model
            if constant and len({_map_key(k) for k, _v in pairs}) == len(pairs):
                return _Pairs(pairs)
            return NOT_CONSTANT
        if kind == "call":
            return self._plan_call(node)
        for child in node.children():
            self.plan(child)
        return NOT_CONSTANT

    def _plan_call(self, node: Expr) -> Any:
        operands = ([node.operand] if node.operand is not None else []) + node.args
        values = [self.plan(operand) for operand in operands]
        name = node.name
        if name in _CONVERSIONS and node.operand is None and len(values) == 1:
            if values[0] is NOT_CONSTANT:
                return NOT_CONSTANT
            result = _convert(name, values[0])
            if isinstance(result, tuple) and not isinstance(result, _Pairs):
                raise BuildError(result[0], node)
            return result
        if name in ("_[_]", "_[?_]") and len(operands) == 2:
            qualifier = _constant_qualifier_type(operands[1], values[1], self.ast)
            if qualifier is not None:
                raise BuildError(f"invalid qualifier type: {qualifier}", node)
        pattern_at = _REGEX_FUNCTIONS.get(name)
        # matches: cel-go's own optimisation, both forms; find/findAll: the Kubernetes library's,
        # member calls only (with the regex library in the environment)
        if (pattern_at is not None and len(values) > pattern_at and isinstance(values[pattern_at], str)
                and (name == "matches" or (self.regex and node.operand is not None))):
            from dractl.cel.regex import go_regexp_error

            error = go_regexp_error(values[pattern_at])
            if error is not None:
                raise BuildError(error, operands[pattern_at])
        return NOT_CONSTANT

    def _check_type_name(self, node: Expr) -> None:
        """A type name the checker resolves but cel-go's runtime type registry lacks."""
        reference = self.ast.references.get(node.id, "")
        if (reference.startswith("google.protobuf.") and reference not in _RUNTIME_TYPES
                and self.ast.type_of(node).kind == "type"):
            raise BuildError(f"reference to undefined type: {reference}", node)


def program_error(ast: CheckedAst, expression: str, libraries: frozenset[str]) -> CelError | None:
    """Why cel-go fails to build the program of ``ast`` (the first failure it meets), or None."""
    try:
        _Planner(ast, libraries).plan(ast.root)
    except BuildError as failure:
        line, column = expression_line_column(expression, ast.positions.get(failure.node.id, 0))
        return CelError(failure.message, line, column)
    except RecursionError:
        return None
    return None
