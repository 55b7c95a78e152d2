"""The fallback engine: cel-python (``celpy``), pure Python.

cel-python parses and interprets CEL but has no type checker, no cost metering and not all of
cel-go's extensions. This module adds what DRA selectors need on top of its interpreter:

* the DRA ``device`` (driver, attributes and capacity by domain, allowMultipleAllocations); a
  domain missing from ``device.attributes``/``device.capacity`` reads as an empty map, as
  upstream's outer maps do, while ``in``, ``size`` and iteration see only the real domains;
* the Kubernetes quantity and semver libraries, regex ``find``/``findAll``, DRA's ``includes``,
  cel-go's string extension, ``cel.bind``, and optional selection (``a.?b``, ``a[?k]``: a
  grammar rule added to cel-python's) with optional values;
* CEL's heterogeneous numeric equality and cross-type numeric ordering (``x == 3.0`` on an int);
* upstream's runtime error texts (``no such key: <name>``, ``got 'types.Int', expected iterable
  type``, ...);
* cel-go's type checker and its compile errors (:mod:`dractl.cel.engines.celpy_checker`);
* cel-go's actual cost, charged step by step as cel-go's cost tracker charges it, and the
  scheduler's runtime limit on it (:mod:`dractl.cel.engines.celpy_cost`); values past what
  dractl holds are refused before they are built;
* cel-go's parser limits (:mod:`dractl.cel.parse_limits`); a deep expression is walked without
  a Python frame per grammar rule, so that what cel-go parses (250 levels) evaluates here.
"""

from __future__ import annotations

import copy
import functools
import logging
import math
import operator
import re
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import celpy
import celpy.celtypes as ct
import lark
from celpy.celparser import CELParser
from celpy.evaluation import CELEvalError, Evaluator, base_functions

from dractl.api.quantity import Quantity, QuantityError, from_int, is_quantity, parse_quantity
from dractl.cel import messages, parse_limits, regex
from dractl.cel import numbers as cel_numbers
from dractl.cel.cost import COST_LIMIT_EXCEEDED, RUNTIME_COST_LIMIT
from dractl.cel.device import CelDevice, PlainDevice
from dractl.cel.engines import celpy_cost, celpy_maps, celpy_overloads, celpy_parse_errors
from dractl.cel.engines.celpy_checker import check
from dractl.cel.engines.celpy_cost import (
    CURRENT_BUDGET,
    Budget,
    CostExceeded,
    ValueTooLarge,
    charge,
)
from dractl.cel.engines.celpy_format import format_string, quote
from dractl.cel.engines.celpy_library import (
    CONVERSIONS,
    library_functions,
    list_index_of,
    list_last_index_of,
    on_string_or_list,
    size,
    sort_by_keys,
)
from dractl.cel.engines.celpy_literals import literal_list, literal_map
from dractl.cel.engines.celpy_syntax import MACROS, TYPE_IDENTIFIERS, parser_depths
from dractl.cel.engines.celpy_time import TIME_FUNCTIONS
from dractl.cel.engines.celpy_values import (
    GO_TYPES,
    NO_SUCH_OVERLOAD,
    NONE,
    CelOptional,
    CelType,
    Failure,
    cel_equal,
    equal,
    failure,
    is_number,
    is_value,
    type_name,
    type_of,
)
from dractl.cel.environment import Environment
from dractl.cel.errors import CelCompileError, CelError, CelRuntimeError
from dractl.cel.messages import go_float_text
from dractl.cel.semver import (
    Semver,
    SemverError,
    component_as_int,
    parse_semver,
    parse_semver_normalized,
)

ENGINE_NAME = "cel-python"
_ATTRIBUTE_LIST_LIMIT = 48  # resourceapi.ResourceSliceMaxAttributeValuesPerDevice
_INT64_LIMIT = 2**63

# cel-python logs every evaluation error it returns as a value; those are results here.
logging.getLogger("celpy").setLevel(logging.CRITICAL)




def _optional_entry(container: Any, key: Any) -> Any:
    """``container.?key`` / ``container[?key]``, also on an optional (chaining)."""
    if isinstance(container, CelOptional):
        if not container.present:
            return container
        container = container.value
    if isinstance(container, dict):  # a key it lacks is none; a value that is no key, an error
        unqualified = None if isinstance(key, str) else celpy_maps.unqualified_type(key)
        if unqualified is not None:
            return failure(f"invalid qualifier type: {unqualified}")
        if isinstance(container, _DomainMap):  # upstream's outer maps find every domain
            return CelOptional(container[key], True)
        found = _index(container, key)
        return NONE if isinstance(found, CELEvalError) else CelOptional(found, True)
    if isinstance(container, list):  # out of range is none; an index a list cannot take, an error
        position = _list_position(key)
        if isinstance(position, CELEvalError):
            return position
        return CelOptional(container[position], True) if 0 <= position < len(container) else NONE
    unqualified = celpy_maps.unqualified_type(key)  # a value that is no container has no entry
    return failure(f"invalid qualifier type: {unqualified}") if unqualified is not None else NONE


def _has_entry(container: Any, key: Any) -> Any:
    """``has(container.key)`` as cel-go's presence test: a map's key, a list refuses the name,
    any other value has no fields."""
    if isinstance(container, CelOptional):
        return _has_entry(container.value, key) if container.present else ct.BoolType(False)
    if isinstance(container, _DomainMap):  # upstream's outer maps find every domain
        return ct.BoolType(True)
    if isinstance(container, dict):
        return ct.BoolType(celpy_maps.contains(container, key))
    if isinstance(container, list):
        position = _list_position(key)
        return position if isinstance(position, CELEvalError) else ct.BoolType(0 <= position < len(container))
    return ct.BoolType(False)


def _optional_of(value: Any) -> Any:
    return value if isinstance(value, CELEvalError) else CelOptional(value, True)


def _optional_of_non_zero(value: Any) -> Any:
    if isinstance(value, CELEvalError):
        return value
    zero = value is None or (not isinstance(value, Quantity | Semver) and not value)
    return NONE if zero else CelOptional(value, True)


def _need_optional(function: Callable[..., Any]) -> Callable[..., Any]:
    def call(optional: Any, *args: Any) -> Any:
        if not isinstance(optional, CelOptional):
            return failure("no such overload")
        return function(optional, *args)

    return call


def _optional_value(optional: CelOptional) -> Any:
    return optional.value if optional.present else failure("optional.none() dereference")


def _optional_or(optional: CelOptional, other: Any) -> Any:
    if optional.present:
        return optional
    return other if isinstance(other, CelOptional | CELEvalError) else failure("no such overload")


_OPTIONAL_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "hasValue": _need_optional(lambda o: ct.BoolType(o.present)),
    "orValue": _need_optional(lambda o, default: o.value if o.present else default),
    "value": _need_optional(_optional_value),
    "or": _need_optional(_optional_or),
}


# -- values ---------------------------------------------------------------------------------


class _DomainMap(ct.MapType):
    """``device.attributes``/``device.capacity``: a missing domain reads as an empty map."""

    _EMPTY = ct.MapType()

    def __getitem__(self, key: Any) -> Any:
        try:
            return super().__getitem__(key)
        except (KeyError, TypeError):  # any key: upstream's mapper.Find answers every miss with its default
            return self._EMPTY


def _cel_value(value: Any) -> Any:
    if isinstance(value, bool):
        return ct.BoolType(value)
    if isinstance(value, int):
        return ct.IntType(value)
    if isinstance(value, str):
        return ct.StringType(value)
    if isinstance(value, list):
        return ct.ListType([_cel_value(v) for v in value])
    return value  # Semver and Quantity stay dractl's objects; the library functions take them


def _device_value(plain: PlainDevice) -> Any:
    attributes = _DomainMap({
        ct.StringType(domain): ct.MapType({ct.StringType(k): _cel_value(v) for k, v in values.items()})
        for domain, values in plain.attributes.items()
    })
    capacity = _DomainMap({
        ct.StringType(domain): ct.MapType({ct.StringType(k): v for k, v in values.items()})
        for domain, values in plain.capacity.items()
    })
    return ct.MapType({
        ct.StringType("driver"): ct.StringType(plain.driver),
        ct.StringType("attributes"): attributes,
        ct.StringType("capacity"): capacity,
        ct.StringType("allowMultipleAllocations"): ct.BoolType(plain.allow_multiple_allocations),
    })


def _equal(left: Any, right: Any) -> Any:
    if isinstance(left, CELEvalError):
        return left
    if isinstance(right, CELEvalError):
        return right
    same = equal(left, right)
    return failure(NO_SUCH_OVERLOAD) if same is None else ct.BoolType(same)


def _not_equal(left: Any, right: Any) -> Any:
    """cel-go's ``evalNe``: true unless the values are equal; a library value's refusal to be
    compared with another type (an error for ``==``) is not equality."""
    if isinstance(left, CELEvalError):
        return left
    if isinstance(right, CELEvalError):
        return right
    return ct.BoolType(equal(left, right) is not True)


def _ordering(compare: Callable[[Any, Any], bool], name: str) -> Callable[[Any, Any], Any]:
    def operator(left: Any, right: Any) -> Any:
        if isinstance(left, CELEvalError):
            return left
        if isinstance(right, CELEvalError):
            return right
        if is_number(left) and is_number(right):
            if left != left or right != right:  # NaN
                return failure("NaN values cannot be ordered")
            if type(left) is type(right) or not (isinstance(left, float) or isinstance(right, float)):
                return ct.BoolType(compare(int(left) if not isinstance(left, float) else left,
                                           int(right) if not isinstance(right, float) else right))
            # cel-go meets an integer and a double as two doubles (see dractl.cel.numbers)
            return ct.BoolType(compare(float(left), float(right)))
        if type_name(left) == type_name(right) and type_name(left) in (
                "string", "bytes", "bool", "google.protobuf.Duration", "google.protobuf.Timestamp"):
            return ct.BoolType(compare(left, right))
        return failure(messages.operator_error(name, type_name(left)))

    return operator


def _in(item: Any, container: Any) -> Any:
    if isinstance(item, CELEvalError):
        return item
    if isinstance(container, CELEvalError):
        return container
    if isinstance(container, list):
        return ct.BoolType(any(cel_equal(item, element) for element in container))
    if isinstance(container, dict):
        return ct.BoolType(celpy_maps.contains(container, item))
    return failure("no such overload")


def _index(container: Any, key: Any) -> Any:
    if isinstance(container, CELEvalError):
        return container
    if isinstance(key, CELEvalError):
        return key
    if isinstance(container, CelOptional):  # a[?k][j]: the chain stays optional
        return _optional_entry(container, key)
    if isinstance(container, dict):
        if isinstance(key, str):  # a string is a key only as itself, in Go as in Python
            try:
                return container[key]
            except KeyError:
                return failure(f"no such key: {key}")
        unqualified = celpy_maps.unqualified_type(key)
        if unqualified is not None:
            return failure(f"invalid qualifier type: {unqualified}")
        if isinstance(container, _DomainMap):
            return container[key]
        found, value = celpy_maps.find(container, key)
        return value if found else failure(f"no such key: {_go_text(key)}")
    if isinstance(container, list):
        position = _list_position(key)
        if isinstance(position, CELEvalError):
            return position
        if not 0 <= position < len(container):
            return failure(f"index out of bounds: {_go_text(key)}")
        return container[position]
    unqualified = celpy_maps.unqualified_type(key)  # cel-go qualifies any other value by key, and misses
    return failure(f"invalid qualifier type: {unqualified}" if unqualified is not None else f"no such key: {_go_text(key)}")


def _list_position(key: Any) -> Any:
    """cel-go's ``IndexOrError``: a list takes an int, and a uint or double only when it is an
    int64 exactly (``doubleToInt64Lossless`` excludes both ends of the int64 range)."""
    if not is_number(key):
        unqualified = celpy_maps.unqualified_type(key)
        if unqualified is not None:
            return failure(f"invalid qualifier type: {unqualified}")
        return failure(f"unsupported index type '{type_name(key)}' in list")
    if isinstance(key, float):
        exact = key.is_integer() and -_INT64_LIMIT < key < _INT64_LIMIT
    else:
        exact = not isinstance(key, ct.UintType) or key < _INT64_LIMIT
    return int(key) if exact else failure(f"unsupported index value {_go_text(key)} in list")


# -- the quantity and semver libraries -------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _parse_quantity_cached(text: str) -> Quantity | str:
    try:
        return parse_quantity(text)
    except QuantityError as exc:
        return str(exc)


def _quantity(text: Any) -> Any:
    if not isinstance(text, str):
        return failure("no such overload")
    parsed = _parse_quantity_cached(str(text))
    # A fresh value per call: each is a pointer of its own in cel-go (a map key only of itself).
    return failure(parsed) if isinstance(parsed, str) else copy.copy(parsed)


def _semver(text: Any, normalize: Any = False) -> Any:
    if not isinstance(text, str) or not isinstance(normalize, bool | ct.BoolType):
        return failure("no such overload")
    try:
        return parse_semver_normalized(str(text)) if normalize else parse_semver(str(text))
    except SemverError as exc:
        return failure(str(exc))


def _is_semver(text: Any, normalize: Any = False) -> Any:
    if not isinstance(text, str):
        return failure("no such overload")
    try:
        parse_semver_normalized(str(text)) if normalize else parse_semver(str(text))
    except SemverError:
        return ct.BoolType(False)
    return ct.BoolType(True)


def _is_quantity(text: Any) -> Any:
    return ct.BoolType(is_quantity(str(text))) if isinstance(text, str) else failure("no such overload")


def _on_quantity(function: Callable[[Quantity], Any]) -> Callable[[Any], Any]:
    def call(value: Any) -> Any:
        if not isinstance(value, Quantity):
            return failure("no such overload")
        return function(value)

    return call


def _on_semver(function: Callable[[Semver], Any]) -> Callable[[Any], Any]:
    def call(value: Any) -> Any:
        if not isinstance(value, Semver):
            return failure("no such overload")
        return function(value)

    return call


def _as_integer(value: Quantity) -> Any:
    result = value.as_int64()
    return failure("cannot convert value to integer") if result is None else ct.IntType(result)


def _arithmetic(name: str) -> Callable[[Any, Any], Any]:
    def call(left: Any, right: Any) -> Any:
        if not isinstance(left, Quantity):
            return failure("no such overload")
        if isinstance(right, Quantity):
            other = right
        elif is_number(right) and not isinstance(right, float | ct.UintType):
            other = from_int(int(right))
        else:
            return failure("no such overload")
        try:
            return left.add(other) if name == "add" else left.sub(other)
        except QuantityError as exc:
            return failure(str(exc))

    return call


def _comparison(result: Callable[[int], Any]) -> Callable[[Any, Any], Any]:
    def call(left: Any, right: Any) -> Any:
        if (isinstance(left, Quantity) and isinstance(right, Quantity)) or (
                isinstance(left, Semver) and isinstance(right, Semver)):
            return result(left.compare(right))
        return failure("no such overload")

    return call


def _includes(target: Any, argument: Any) -> Any:
    if isinstance(target, list):
        for index, item in enumerate(target):
            if index >= _ATTRIBUTE_LIST_LIMIT:
                return failure(
                    f"'includes' function cannot be applied to lists longer than {_ATTRIBUTE_LIST_LIMIT} values")
            if cel_equal(item, argument):
                return ct.BoolType(True)
        return ct.BoolType(False)
    return ct.BoolType(cel_equal(target, argument))


def _regex(function: Callable[..., Any], wrap: Callable[[Any], Any]) -> Callable[..., Any]:
    def call(text: Any, pattern: Any, *rest: Any) -> Any:
        if not isinstance(text, str) or not isinstance(pattern, str):
            return failure("no such overload")
        try:
            return wrap(function(str(text), str(pattern), *(int(r) for r in rest)))
        except regex.RegexError as exc:
            return failure(str(exc))

    return call


def _string_test(test: Callable[[str, str], bool]) -> Callable[[Any, Any], Any]:
    """``contains``, ``startsWith``, ``endsWith``: strings only (cel-python's would test a map's keys)."""
    def call(text: Any, other: Any) -> Any:
        for value in (text, other):
            if isinstance(value, CELEvalError):
                return value
        if not (isinstance(text, str) and isinstance(other, str)):
            return failure(NO_SUCH_OVERLOAD)
        return ct.BoolType(test(str(text), str(other)))
    return call


def _matches(text: Any, pattern: Any) -> Any:
    if not isinstance(text, str) or not isinstance(pattern, str):
        return failure("no such overload")
    error = regex.go_regexp_error(str(pattern))  # Go's regexp refuses more than RE2 (``\\C``)
    if error is not None:
        return failure(error)
    return ct.BoolType(regex.compile_re2(str(pattern)).search(str(text)) is not None)


# -- cel-go's string extension ---------------------------------------------------------------


def _strings(function: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        try:
            result = function(*args)
        except _StringError as exc:
            return failure(str(exc))
        except (TypeError, AttributeError):
            return failure("no such overload")
        if isinstance(result, bool):
            return ct.BoolType(result)
        if isinstance(result, int):
            return ct.IntType(result)
        if isinstance(result, str):
            return ct.StringType(result)
        if isinstance(result, list):
            return ct.ListType([ct.StringType(r) for r in result])
        return result

    return call


class _StringError(Exception):
    pass


def _need_str(*values: Any) -> None:
    for value in values:
        if not isinstance(value, str):
            raise TypeError("no such overload")


def _need_int(*values: Any) -> None:
    for value in values:
        if not isinstance(value, int) or isinstance(value, bool | ct.BoolType | ct.UintType):
            raise TypeError("no such overload")


def _char_at(text: Any, index: Any) -> str:
    _need_str(text)
    _need_int(index)
    if index < 0 or index > len(text):
        raise _StringError(f"index out of range: {index}")
    return str(text)[index:index + 1]


def _index_of(text: Any, sub: Any, start: Any = 0) -> int:
    """cel-go's indexOf (strings extension): an empty ``sub`` is found at ``start``, a start
    beyond the text finds nothing; only a negative start is an error."""
    _need_str(text, sub)
    _need_int(start)
    if not sub:
        return int(start)
    if start < 0:
        raise _StringError(f"index out of range: {start}")
    return str(text).find(str(sub), int(start)) if start < len(text) else -1


def _last_index_of(text: Any, sub: Any, end: Any = None) -> int:
    _need_str(text, sub)
    if end is None:
        return len(text) if not sub else str(text).rfind(str(sub))
    _need_int(end)
    if not sub:
        return int(end)
    if end < 0:
        raise _StringError(f"index out of range: {end}")
    if end >= len(text):
        return -1
    return str(text).rfind(str(sub), 0, int(end) + len(sub))


def _ascii_case(upper: bool) -> Callable[[Any], str]:
    def call(text: Any) -> str:
        _need_str(text)
        return "".join(
            (ch.upper() if upper else ch.lower()) if ch.isascii() else ch for ch in str(text))

    return call


def _replace(text: Any, old: Any, new: Any, limit: Any = -1) -> str:
    _need_str(text, old, new)
    _need_int(limit)
    return str(text).replace(str(old), str(new), int(limit))


def _split(text: Any, separator: Any, limit: Any = -1) -> list[str]:
    _need_str(text, separator)
    _need_int(limit)
    if limit == 0:
        return []
    if separator == "":
        chars = list(str(text))
        if limit > 0 and len(chars) > limit:
            return [*chars[: limit - 1], "".join(chars[limit - 1:])]
        return chars
    return str(text).split(str(separator), int(limit) - 1 if limit > 0 else -1)


def _substring(text: Any, start: Any, end: Any = None) -> str:
    _need_str(text)
    _need_int(start)
    length = len(text)
    stop = length if end is None else end
    if end is not None:
        _need_int(end)
    if end is not None and start > stop:
        raise _StringError(f"invalid substring range. start: {start}, end: {stop}")
    if start < 0 or start > length:
        raise _StringError(f"index out of range: {start}")
    if stop < 0 or stop > length:
        raise _StringError(f"index out of range: {stop}")
    return str(text)[int(start):int(stop)]


_UNICODE_SPACE = " \t\n\v\f\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
                 "\u2028\u2029\u202f\u205f\u3000"


def _trim(text: Any) -> str:
    _need_str(text)
    return str(text).strip(_UNICODE_SPACE)


def _join(values: Any, separator: Any = "") -> str:
    _need_str(separator)
    if not isinstance(values, list):
        raise TypeError("no such overload")
    _need_str(*values)
    return str(separator).join(str(v) for v in values)


def _reverse(text: Any) -> str:
    _need_str(text)
    return str(text)[::-1]


def _divide(left: Any, right: Any) -> Any:
    if isinstance(left, float) and isinstance(right, float) and float(right) == 0.0:  # IEEE 754, as Go
        if float(left) == 0.0 or left != left:
            return ct.DoubleType(math.nan)
        return ct.DoubleType(math.copysign(math.inf, left) * math.copysign(1.0, right))
    try:
        return operator.truediv(left, right)
    except ZeroDivisionError:
        return failure("division by zero")


def _modulo(left: Any, right: Any) -> Any:
    if isinstance(left, ct.IntType) and left == ct.IntType(-(2**63)) and right == ct.IntType(-1):
        return failure("integer overflow")
    try:
        return operator.mod(left, right)
    except ZeroDivisionError:
        return failure("modulus by zero")


def _overflowing(function: Callable[..., Any]) -> Callable[..., Any]:
    """An arithmetic operator whose int64/uint64 overflow is cel-go's error; numbers of different
    types (an int attribute plus ``1u``) have no overload, as at cel-go's run time."""

    def call(*operands: Any) -> Any:
        if len(operands) == 2 and all(is_number(o) for o in operands) and type_name(operands[0]) != type_name(
                operands[1]):
            return failure(NO_SUCH_OVERLOAD)
        try:
            return function(*operands)
        except ValueError:
            unsigned = isinstance(operands[0], ct.UintType)
            return failure("unsigned integer overflow" if unsigned else "integer overflow")

    return call


def _numeric_kind(value: Any) -> str:
    return "uint" if isinstance(value, ct.UintType) else "double" if isinstance(value, float) else "int"


_NUMBERS = (("int", "int"), ("uint", "uint"), ("double", "double"))
_DURATION, _TIMESTAMP = "google.protobuf.Duration", "google.protobuf.Timestamp"
#: The operand types cel-go's overloads of each arithmetic operator take (common/types).
_OPERAND_TYPES: dict[str, frozenset[tuple[str, ...]]] = {
    "_+_": frozenset({*_NUMBERS, ("string", "string"), ("bytes", "bytes"), ("list", "list"), (_DURATION, _DURATION),
                      (_DURATION, _TIMESTAMP), (_TIMESTAMP, _DURATION)}),
    "_-_": frozenset({*_NUMBERS, (_DURATION, _DURATION), (_TIMESTAMP, _TIMESTAMP), (_TIMESTAMP, _DURATION)}),
    "_*_": frozenset(_NUMBERS), "_/_": frozenset(_NUMBERS), "_%_": frozenset(_NUMBERS[:2]),
    "-_": frozenset({("int",), ("double",), (_DURATION,)}),
}


def _operands(function: Callable[..., Any], name: str) -> Callable[..., Any]:
    """An arithmetic operator as cel-go dispatches it: an operand's error is the result (the left
    one first), numbers of different kinds have no overload (``1 + 1u``), and where no overload
    takes the operands the error names the operator if the left one lacks its trait."""

    def call(*operands: Any) -> Any:
        for value in operands:
            if isinstance(value, CELEvalError):
                return value
        kinds = tuple(type_name(value) for value in operands)
        if kinds not in _OPERAND_TYPES[name]:
            return failure(messages.operator_error(name, kinds[0]))
        result = function(*operands)
        return ct.StringType(result) if type(result) is str else result  # Python's + makes a plain str

    return call


def _logical(decisive: bool) -> Callable[[Any, Any], Any]:
    """``_||_`` (``decisive`` True) and ``_&&_``: either operand may decide; an error or a value
    that is not a bool stands otherwise, the left one first."""

    def call(left: Any, right: Any) -> Any:
        if (_is_bool(left) and bool(left) is decisive) or (_is_bool(right) and bool(right) is decisive):
            return ct.BoolType(decisive)
        for value in (left, right):
            if not _is_bool(value):
                return value if isinstance(value, CELEvalError) else failure(NO_SUCH_OVERLOAD)
        return ct.BoolType(not decisive)

    return call


def _library(environment: Environment) -> dict[str, Callable[..., Any]]:
    functions: dict[str, Callable[..., Any]] = {
        "_==_": _equal, "_!=_": _not_equal, "_in_": _in, "_[_]": _index,
        "_<_": _ordering(lambda a, b: a < b, "_<_"), "_<=_": _ordering(lambda a, b: a <= b, "_<=_"),
        "_>_": _ordering(lambda a, b: a > b, "_>_"), "_>=_": _ordering(lambda a, b: a >= b, "_>=_"),
        "_/_": _operands(_divide, "_/_"), "_%_": _operands(_modulo, "_%_"), "matches": _matches, "size": size,
        "_&&_": _logical(False), "_||_": _logical(True), "_+_": _operands(_overflowing(operator.add), "_+_"),
        "_-_": _operands(_overflowing(operator.sub), "_-_"), "_*_": _operands(_overflowing(operator.mul), "_*_"),
        "-_": _operands(_overflowing(operator.neg), "-_"), **CONVERSIONS,
        "charAt": _strings(_char_at), "indexOf": _strings(_index_of), "lastIndexOf": _strings(_last_index_of),
        "lowerAscii": _strings(_ascii_case(False)), "upperAscii": _strings(_ascii_case(True)),
        "replace": _strings(_replace), "split": _strings(_split), "substring": _strings(_substring),
        "trim": _strings(_trim), "join": _strings(_join), "reverse": _strings(_reverse), **TIME_FUNCTIONS,
        "type": type_of, "format": format_string, "strings.quote": quote,
        "contains": _string_test(str.__contains__), "startsWith": _string_test(str.startswith),
        "endsWith": _string_test(str.endswith),
    }
    libraries = environment.libraries
    if "quantity" in libraries:
        functions.update({
            "quantity": _quantity, "isQuantity": _is_quantity,
            "sign": _on_quantity(lambda q: ct.IntType(q.sign())),
            "asInteger": _on_quantity(_as_integer),
            "isInteger": _on_quantity(lambda q: ct.BoolType(q.as_int64() is not None)),
            "asApproximateFloat": _on_quantity(lambda q: ct.DoubleType(q.as_approximate_float())),
            "add": _arithmetic("add"), "sub": _arithmetic("sub"),
        })
    if "quantity" in libraries or "semver" in libraries:
        functions.update({
            "isGreaterThan": _comparison(lambda c: ct.BoolType(c == 1)),
            "isLessThan": _comparison(lambda c: ct.BoolType(c == -1)),
            "compareTo": _comparison(ct.IntType),
        })
    if "semver" in libraries:
        functions.update({
            "semver": _semver, "isSemver": _is_semver,
            "major": _on_semver(lambda v: ct.IntType(component_as_int(v.major))),
            "minor": _on_semver(lambda v: ct.IntType(component_as_int(v.minor))),
            "patch": _on_semver(lambda v: ct.IntType(component_as_int(v.patch))),
        })
    if "regex" in libraries:
        functions["find"] = _regex(regex.find, ct.StringType)
        functions["findAll"] = _regex(regex.find_all, lambda found: ct.ListType(ct.StringType(f) for f in found))
    if environment.includes_function:
        functions["includes"] = _includes
    if "optionals" in libraries:
        functions.update(_OPTIONAL_FUNCTIONS)
    functions.update(library_functions(libraries))
    if "k8s-lists" in libraries:
        functions["indexOf"] = on_string_or_list(functions["indexOf"], list_index_of)
        functions["lastIndexOf"] = on_string_or_list(functions["lastIndexOf"], list_last_index_of)
    # Every call charges cel-go's cost (cel-python's own functions too); the names of types
    # are values, not calls.
    return {name: function if name in _TYPE_VALUES else celpy_cost.charged(name, function)
            for name, function in {**base_functions, **functions}.items()}


_TYPE_VALUES = frozenset({"list", "map", "null_type"})


# -- the interpreter -------------------------------------------------------------------------


class _Deferred:
    """A ``cel.bind`` variable's value: cel-go evaluates it (in the scope around the bind) when
    the body first reads the variable, if ever (its cost too)."""

    __slots__ = ("_evaluator", "_tree", "_value")

    def __init__(self, evaluator: _Evaluator, tree: Any) -> None:
        self._evaluator = evaluator
        self._tree = tree
        self._value: Any = _Deferred

    def get(self) -> Any:
        if self._value is _Deferred:
            self._value = celpy_maps.bound(self._evaluator.visit(self._tree))
        return self._value


class _CostPlan:
    """What cel-go plans differently from how cel-python walks the tree, by ``id`` of the node
    (the program keeps its tree, so the ids stay): constants cel-go evaluates once when it plans
    (literals of constants, conversions of constants, numbers with a minus), lookups on a value
    that is no variable (a relative attribute, one step more) and ``dyn()`` of a value that is
    not a constant (a call cel-python does not make)."""

    __slots__ = ("bare_attributes", "constants", "dyn_calls", "dynamic", "index_costs", "relative")

    def __init__(self, tree: Any, dynamic: frozenset[int] = frozenset()) -> None:
        #: calls cel-go dispatches at run time (Checked.dynamic_calls)
        self.dynamic = dynamic
        self.constants: set[int] = set()
        self.relative: set[int] = set()
        self.dyn_calls: set[int] = set()
        #: branches of ``?:`` that are attributes with constant qualifiers
        self.bare_attributes: set[int] = set()
        #: what an index costs: its relative attribute, and its qualifier unless the key is an
        #: attribute (cel-go observes that attribute instead of the qualification)
        self.index_costs: dict[int, int] = {}
        for node in tree.iter_subtrees():
            kind = node.data
            if kind == "expr" and len(node.children) == 3:
                self.bare_attributes.update(id(branch) for branch in node.children[1:] if _is_bare_attribute(branch))
            if kind in ("listinits", "mapinits") and all(
                    isinstance(child, lark.Tree) and child.data == "expr" and _is_constant(child)
                    for child in node.children):
                self.constants.add(id(node))
            elif kind == "ident_arg" and len(node.children) == 2:
                if _is_constant(node) or (node.children[0] == "type" and all(
                        isinstance(child, lark.Tree) and _is_constant(child) for child in node.children[1].children)):
                    self.constants.add(id(node.children[0]))  # the name token: function_eval sees it
                elif node.children[0] == "dyn":
                    self.dyn_calls.add(id(node))
            if kind in ("member_dot", "member_index", "member_dot_opt", "member_index_opt"):
                relative = not _is_attribute(node.children[0])
                if relative:
                    self.relative.add(id(node))
                if kind in ("member_index", "member_index_opt"):
                    self.index_costs[id(node)] = relative + (not _is_attribute(node.children[1]))
            elif kind == "expr" and _is_constant(node):
                self.constants.add(id(node))  # a macro's body: map appends it as a literal
            elif kind == "unary" and len(node.children) == 2 and node.children[0].data == "unary_neg" \
                    and _is_number_literal(node.children[1]):
                self.constants.add(id(node))


def _is_bare_attribute(tree: Any) -> bool:
    """A variable and field selections or constant indexes on it (``a``, ``a.b["c"]``)."""
    while isinstance(tree, lark.Tree):
        if tree.data in ("ident", "dot_ident"):
            return True
        if tree.data == "member_dot":
            tree = tree.children[0]
        elif tree.data == "member_index":
            if not _is_constant(tree.children[1]):
                return False
            tree = tree.children[0]
        elif tree.data == "paren_expr" or (tree.data in _WRAPPERS and len(tree.children) == 1):
            tree = tree.children[0]
        else:
            return False
    return False


def _is_number_literal(tree: Any) -> bool:
    while isinstance(tree, lark.Tree) and len(tree.children) == 1 and tree.data in _WRAPPERS:
        tree = tree.children[0]
    return isinstance(tree, lark.Tree) and tree.data == "literal" and isinstance(tree.children[0], lark.Token) \
        and tree.children[0].type in ("INT_LIT", "UINT_LIT", "FLOAT_LIT")


_OPERATORS = {
    "relation_lt": "_<_", "relation_le": "_<=_", "relation_ge": "_>=_", "relation_gt": "_>_", "relation_eq": "_==_",
    "relation_ne": "_!=_", "relation_in": "_in_", "addition_add": "_+_", "addition_sub": "_-_",
    "multiplication_mul": "_*_", "multiplication_div": "_/_", "multiplication_mod": "_%_",
}
_PASS_THROUGH = frozenset({"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication",
                           "unary", "member"})
_ATTRIBUTES = frozenset({"ident", "dot_ident", "member_dot", "member_index", "member_dot_opt", "member_index_opt"})


def _is_attribute(tree: Any) -> bool:
    """Whether cel-go plans ``tree`` as an attribute (a variable and its qualifiers; cel-go's
    parser drops parentheses)."""
    while isinstance(tree, lark.Tree):
        if tree.data in _ATTRIBUTES:
            return True
        if tree.data == "paren_expr":
            tree = tree.children[0]
            continue
        if len(tree.children) != 1 or tree.data not in _WRAPPERS:
            return False
        tree = tree.children[0]
    return False


class _Evaluator(Evaluator):
    """cel-python's interpreter with cel-go's answers where the two differ, charging cel-go's
    actual cost step by step (see celpy_cost)."""

    budget: Budget
    plan: _CostPlan
    _scratch: Any = None  # this evaluator's own copy of its base activation (set_activation)

    def set_activation(self, values: Any) -> _Evaluator:
        """The base activation with ``values`` bound. cel-python copies the whole activation
        (each of its name containers) for every step of a comprehension, most of a step's time;
        an evaluator binds the same names at every step (the device, a macro's variables), so one
        copy, made at the first step and given the step's values, binds the same."""
        scratch = self._scratch
        if scratch is None:
            scratch = self._scratch = self.base_activation.clone()
        scratch.identifiers.load_values(values)
        self.activation = scratch
        return self

    def sub_evaluator(self, ast: Any) -> _Evaluator:
        nested = _Evaluator(ast, activation=self.activation)
        nested.budget = self.budget
        nested.plan = self.plan
        return nested

    def _visit_tree(self, tree: Any) -> Any:
        # A rule with one child (``expr`` → ``conditionalor`` → ... → ``member``) only hands its
        # child on: going straight to it saves some forty frames per nesting level, which a
        # deep selector would otherwise spend on Python's recursion limit.
        while tree.data in _PASS_THROUGH and len(tree.children) == 1:
            child = tree.children[0]
            if not isinstance(child, lark.Tree):
                break
            tree = child
        return getattr(self, tree.data)(tree)

    def visit(self, tree: Any) -> Any:
        return self._visit_tree(tree)

    def _spend(self, cost: int) -> None:
        budget = self.budget
        budget.left -= cost
        if budget.left < 0:
            raise CostExceeded

    def _free(self, visit: Callable[[], Any]) -> Any:
        """``visit()`` without charging: a constant cel-go evaluates when it plans."""
        budget = self.budget
        left = budget.left
        try:
            return visit()
        finally:
            budget.left = left

    def ident_value(self, name: str, root_scope: bool = False) -> Any:
        if name not in TYPE_IDENTIFIERS:  # a type name is a constant to cel-go
            self._spend(1)
        # A name bound in this activation itself (the device, a macro's variable) is what
        # cel-python's search through packages and parent containers finds first; looked up
        # directly, without that search (which builds typing objects at every read).
        activation = self.activation
        referent = None if activation.package else dict.get(activation.identifiers, name)
        value = referent.value if referent is not None else super().ident_value(name, root_scope)
        if type(value) is _Deferred:
            value = value.get()
        if type(value) is CelOptional and value.present:
            # cel-go unwraps an optional read from a variable and wraps its value again: a new
            # *types.Optional at every read (which a map keyed by the old one does not find).
            return CelOptional(value.value, True)
        return value

    def conditionalor(self, tree: Any) -> Any:
        return self._logical(tree, True)

    def conditionaland(self, tree: Any) -> Any:
        return self._logical(tree, False)

    def _logical(self, tree: Any, decisive: bool) -> Any:
        """``||`` (``decisive`` True) and ``&&`` as cel-go evaluates them: the right operand
        only when the left one does not decide."""
        if len(tree.children) != 2:
            return super().conditionalor(tree) if decisive else super().conditionaland(tree)
        operands = []
        node = tree
        while node.data == tree.data and len(node.children) == 2:  # the chain is left-recursive
            operands.append(node.children[1])
            node = node.children[0]
        operands.append(node)
        combine = _logical(decisive)
        result: Any = _logical  # nothing yet (None is CEL's null)
        for operand in reversed(operands):  # left to right, without a frame per operator
            value = self.visit(operand)
            result = value if result is _logical else combine(result, value)
            if _is_bool(result) and bool(result) is decisive:
                return ct.BoolType(decisive)
        return result

    def expr(self, tree: Any) -> Any:
        if len(tree.children) == 3:  # cel-go: an error condition is the result, a non-bool one no overload
            condition = self.visit(tree.children[0])
            if isinstance(condition, CELEvalError):
                return condition
            if not _is_bool(condition):
                return failure(NO_SUCH_OVERLOAD)
            branch = tree.children[1] if condition else tree.children[2]
            value = self.visit(branch)
            if id(branch) in self.plan.bare_attributes:
                # cel-go resolves an attribute branch itself, not its observed step: its variable
                # is not charged (its qualifiers are)
                self.budget.left += 1
            return value
        return super().expr(tree)

    def function_eval(self, name_token: Any, exprlist: Any = None) -> Any:
        if isinstance(exprlist, CELEvalError) or any(isinstance(value, CELEvalError) for value in exprlist or ()):
            self._spend(1)  # cel-go charges the call that returns its argument's error
        if id(name_token) in self.plan.constants:
            result = self._free(lambda: super(_Evaluator, self).function_eval(name_token, exprlist))
        else:
            result = self._dispatched(name_token, super().function_eval(name_token, exprlist))
        return celpy_overloads.named(name_token.value, exprlist or [], result)

    def _dispatched(self, source: Any, result: Any) -> Any:
        """``result`` of the call made at ``source``; one cel-go dispatches at run time costs 1
        (its last charge was the call's own: the operands were evaluated before it)."""
        budget = self.budget
        if id(source) in self.plan.dynamic:
            budget.left += budget.refund
            budget.refund = 0
        if budget.left < 0:
            raise CostExceeded
        return result

    def relation(self, tree: Any) -> Any:
        return self._chain(tree)

    def addition(self, tree: Any) -> Any:
        return self._chain(tree)

    def multiplication(self, tree: Any) -> Any:
        return self._chain(tree)

    def _chain(self, tree: Any) -> Any:
        """``a + b - c ...`` (or a chain of comparisons, of products): the grammar nests it to
        the left, one level per operator; evaluated here from the left in a loop, as cel-python
        would by recursion (some ten frames per operator: a long chain would exhaust the stack)."""
        if len(tree.children) != 2:
            return self.visit(tree.children[0])
        links = []
        node = tree
        while node.data == tree.data and len(node.children) == 2:
            operator_tree, right = node.children
            links.append((node, operator_tree.data, right))
            node = operator_tree.children[0]
        value = self.visit(node)
        for link, operator_name, right_tree in reversed(links):
            if operator_name == "relation_in" and _constant_primitive_list(right_tree):
                value = self._in_constant_list(value, self.visit(right_tree))
            else:
                value = self._dispatched(link, self._operator(link, operator_name, value, self.visit(right_tree)))
        return value

    def _operator(self, tree: Any, operator_name: str, left: Any, right: Any) -> Any:
        """An operator applied as cel-python's interpreter applies it (its errors included)."""
        function = self.activation.resolve_function(_OPERATORS[operator_name])
        try:
            return function(left, right)
        except TypeError as exc:
            message = f"found no matching overload for {operator_name!r} applied to '({type(left)}, {type(right)})'"
            return CELEvalError(message, exc.__class__, exc.args, tree=tree)
        except ZeroDivisionError as exc:
            if tree.data != "multiplication":
                raise
            return CELEvalError("modulus or divide by zero", exc.__class__, exc.args, tree=tree)
        except (ValueError, OverflowError) as exc:
            if tree.data == "relation":
                raise
            return CELEvalError("return error for overflow", exc.__class__, exc.args, tree=tree)

    def primary(self, tree: Any) -> Any:
        if id(tree.children[0]) in self.plan.dyn_calls:
            self._spend(1)  # dyn(x) is a call to cel-go; cel-python passes x on
        return super().primary(tree)

    def unary(self, tree: Any) -> Any:
        if len(tree.children) != 2:
            return super().unary(tree)
        # cel-go's parser drops a pair of the same operator (``!!x`` is x), and ``-1`` is a
        # literal (a constant, no call)
        operator_tree, operand = tree.children
        count = 1
        while isinstance(operand, lark.Tree) and operand.data == "unary" and len(operand.children) == 2 \
                and operand.children[0].data == operator_tree.data:
            count += 1
            operand = operand.children[1]
        if count % 2 == 0:
            return self.visit(operand)
        if count > 1:
            return super().unary(lark.Tree("unary", [operator_tree, operand], tree.meta))
        if id(tree) in self.plan.constants:
            return self._free(lambda: super(_Evaluator, self).unary(tree))
        return super().unary(tree)

    def member_index(self, tree: Any) -> Any:
        self._spend(self.plan.index_costs.get(id(tree), 1))
        return super().member_index(tree)

    def member_object(self, tree: Any) -> Any:
        self._spend(celpy_cost.STRUCT_CREATE)
        return super().member_object(tree)

    def method_eval(self, target: Any, method_ident: Any, exprlist: Any = None) -> Any:
        # values: what cel-go's call sees (an argument list that failed is its first failure)
        values: list[Any] = [target, exprlist] if isinstance(exprlist, CELEvalError) else [target, *(exprlist or [])]
        arguments = exprlist if isinstance(exprlist, CELEvalError) else values
        if any(isinstance(value, CELEvalError) for value in values):
            self._spend(1)  # cel-go charges the call that returns its argument's error
        result = self._dispatched(method_ident, super().method_eval(target, method_ident, exprlist))
        if id(method_ident) not in self.plan.dynamic:
            celpy_cost.tracker_panic(method_ident.value, values)
        return celpy_overloads.named(method_ident.value, arguments, result)

    def member_dot_opt(self, tree: Any) -> Any:
        member_tree, name = tree.children
        member = self.visit(member_tree)
        if isinstance(member, CELEvalError):
            return member
        return self._optional_qualifier(tree, _optional_entry(member, ct.StringType(name.value)))

    def _optional_qualifier(self, tree: Any, found: Any) -> Any:
        """cel-go charges an optional qualifier only when it finds a value (and the qualifiers
        after one that found none, nothing); a relative attribute's own step either way."""
        relative = id(tree) in self.plan.relative
        if isinstance(found, CelOptional) and found.present:
            self._spend(self.plan.index_costs.get(id(tree), 2 if relative else 1))
        elif relative:
            self._spend(1)
        return found

    def member_index_opt(self, tree: Any) -> Any:
        member_tree, key_tree = tree.children
        member = self.visit(member_tree)
        key = self.visit(key_tree)
        for value in (member, key):
            if isinstance(value, CELEvalError):
                return value
        return self._optional_qualifier(tree, _optional_entry(member, key))

    def listinits(self, tree: Any) -> Any:
        if id(tree) not in self.plan.constants:
            self._spend(celpy_cost.LIST_CREATE)
        return literal_list(self, tree.children)

    def mapinits(self, tree: Any) -> Any:
        if id(tree) not in self.plan.constants:
            self._spend(celpy_cost.MAP_CREATE)
        return literal_map(self, tree.children)

    def member_dot(self, tree: Any) -> Any:
        member_tree, name = tree.children
        member = self.visit(member_tree)
        if isinstance(member, CELEvalError):
            self._spend(2 if id(tree) in self.plan.relative else 1)
            return member
        if isinstance(member, CelOptional):  # a.?b.c: the chain stays optional
            return self._optional_qualifier(tree, _optional_entry(member, ct.StringType(name.value)))
        self._spend(2 if id(tree) in self.plan.relative else 1)
        if isinstance(member, ct.MapType):
            try:
                return member[ct.StringType(name.value)]
            except KeyError:
                return failure(f"no such key: {name.value}")
        if is_value(member):
            return _index(member, ct.StringType(name.value))
        return super().member_dot(tree)  # a qualified name: google.protobuf.Timestamp

    @staticmethod
    def _in_constant_list(item: Any, container: Any) -> Any:
        """``x in [constants]``: cel-go looks the item up in the list as a hash set
        (``maybeOptimizeSetMembership``), at no cost of its own."""
        for value in (item, container):
            if isinstance(value, CELEvalError):
                return value
        celpy_maps.check_hashable(item)
        if is_number(item) and isinstance(container, list):
            # the set holds each number's other forms as cel-go converts them (dractl.cel.numbers)
            return ct.BoolType(cel_numbers.set_contains(_plain_number(item), [_plain_number(e) for e in container]))
        return _in(item, container) if _is_primitive(item) else ct.BoolType(False)

    def macro_has_eval(self, exprlist: Any) -> Any:
        selection = _selection_of(exprlist)
        if selection is None:  # the checker refuses any other argument
            return failure("invalid argument to has() macro")
        member_tree, name = selection.children
        member = self.visit(member_tree)
        if isinstance(member, CELEvalError):
            return member
        return _has_entry(member, ct.StringType(name.value))

    def member_dot_arg(self, tree: Any) -> Any:
        member_tree, name = tree.children[0], tree.children[1]
        method = name.value
        if method == "bind" and len(tree.children) > 2 and _is_ident(member_tree, "cel"):
            variable_tree, init_tree, body_tree = tree.children[2].children
            variable = _ident_name(variable_tree)
            nested = self.sub_evaluator(body_tree)
            try:
                return nested.evaluate({variable: cast(Any, _Deferred(self, init_tree))})
            except CELEvalError as exc:
                return exc
        if method in ("of", "none", "ofNonZeroValue") and _is_ident(member_tree, "optional"):
            self._spend(1)
            arguments = self.visit_children(tree.children[2]) if len(tree.children) > 2 else []
            if method == "none":
                return NONE
            return _optional_of(arguments[0]) if method == "of" else _optional_of_non_zero(arguments[0])
        arguments_tree = tree.children[2] if len(tree.children) > 2 else None
        if method in ("orValue", "or") and arguments_tree is not None and len(arguments_tree.children) == 1 \
                and self._namespaced(method) is not None:
            # cel-go plans both as short-circuits: a present optional's argument is never evaluated
            # (optional.of(1).orValue(1 / 0) is 1)
            target = self.visit(member_tree)
            if isinstance(target, CelOptional) and target.present:
                return target.value if method == "orValue" else target
            arguments = self.visit(arguments_tree)
            return self.method_eval(target, tree.children[1], arguments)
        arities = MACROS.get(method)
        if arities is not None and arguments_tree is not None and len(arguments_tree.children) in arities:
            return self._comprehension(method, member_tree, arguments_tree.children,
                                       arities[len(arguments_tree.children)])
        if method in ("min", "reduce"):  # cel-python's own macros; here functions
            return self.method_eval(*self.visit_children(tree))
        if member_tree.data in ("member", "primary"):
            namespace = _ident_text(member_tree)
            if namespace is not None:
                function = self._namespaced(f"{namespace}.{method}")
                if function is not None:
                    arguments = self.visit(arguments_tree) if arguments_tree is not None else []
                    if isinstance(arguments, CELEvalError):
                        return arguments
                    try:
                        return celpy_overloads.named(f"{namespace}.{method}", arguments, function(*arguments))
                    except TypeError:  # a number of arguments no overload takes
                        return failure(NO_SUCH_OVERLOAD)
        return super().member_dot_arg(tree)

    def _namespaced(self, name: str) -> Callable[..., Any] | None:
        try:
            return self.activation.resolve_function(name)  # type: ignore[no-any-return]
        except KeyError:
            return None

    def _comprehension(self, name: str, target_tree: Any, argument_trees: list[Any], variables: int) -> Any:
        """A comprehension macro as cel-go expands it: the loop, its short-circuits and its errors."""
        before = self.budget.left
        target = self.visit(target_tree)
        if isinstance(target, CELEvalError):
            return target
        names = [_ident_name(tree) for tree in argument_trees[:variables]]
        bodies = [self.sub_evaluator(tree) for tree in argument_trees[variables:]]
        if name in ("optMap", "optFlatMap"):
            return _optional_map(name, target, names[0], bodies[0], before - self.budget.left)
        if not isinstance(target, list | dict):
            go_type = GO_TYPES.get(type_name(target))
            return failure(f"got '{go_type}', expected iterable type" if go_type else "expected iterable type")
        # map's step appends a literal [f]: free when f is a constant (cel-go builds it once)
        literal = 0 if id(argument_trees[-1]) in self.plan.constants else celpy_cost.LIST_CREATE
        return _MACRO_LOOPS[name](_bindings(target, names), bodies, target, literal)


def _bindings(target: Any, names: list[str]) -> Iterator[dict[str, Any]]:
    """The iteration variables of each step, one step at a time (a loop the budget stops early
    never holds them all)."""
    if len(names) == 2:
        first, second = names
        if isinstance(target, list):
            return ({first: ct.IntType(index), second: item} for index, item in enumerate(target))
        return ({first: key, second: item} for key, item in target.items())
    only = names[0]
    return ({only: item} for item in target)


def _run(body: Any, binding: dict[str, Any]) -> Any:
    try:
        return body.evaluate(binding)
    except CELEvalError as exc:
        return exc


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool | ct.BoolType)


# The loop steps of cel-go's macro expansions (parser/macro.go), charged as cel-go charges them:
# the loop condition before each element (``@not_strictly_false(@result)`` for ``all``, 2; with
# a ``!`` for ``exists``, 3; ``true`` for the others, 0), then the step around the body (reading
# ``@result``, adding to it), and reading the result once the loop is over. The bodies charge
# their own steps as they run.
_ALL_CONDITION, _EXISTS_CONDITION = 2, 3
_ACCUMULATOR = 1  # reading @result
_APPEND = 2  # @result + [...]: the call and the read, the literal apart
_MAP_INSERT = 3  # cel.@mapInsert(@result, k, v): the call and two reads
_ENTRY_INSERT = 2  # cel.@mapInsert(@result, entry)
_ELEMENT = 1  # reading the iteration variable in filter's [x]


Bindings = Iterator[dict[str, Any]]
Loop = Callable[[Bindings, list[Any], Any, int], Any]


def _quantifier(wanted: bool) -> Loop:
    """``all`` (stops at the first false) and ``exists`` (at the first true); an error stands
    unless a later element decides the answer."""
    condition = _ALL_CONDITION if wanted else _EXISTS_CONDITION

    def loop(bindings: Bindings, bodies: list[Any], _target: Any, _literal: int) -> Any:
        pending = None
        for binding in bindings:
            charge(condition + _ACCUMULATOR)
            value = _run(bodies[0], binding)
            if _is_bool(value):
                if bool(value) is not wanted:
                    if next(bindings, None) is not None:
                        charge(condition)  # the condition that ends the loop
                    charge(_ACCUMULATOR)
                    return ct.BoolType(not wanted)
            elif pending is None:
                pending = value if isinstance(value, CELEvalError) else failure(NO_SUCH_OVERLOAD)
        charge(_ACCUMULATOR)
        return ct.BoolType(wanted) if pending is None else pending

    return loop


def _exists_one(bindings: Bindings, bodies: list[Any], _target: Any, _literal: int) -> Any:
    count = 0
    error = None
    for binding in bindings:
        value = _run(bodies[0], binding)
        if isinstance(value, CELEvalError) or not _is_bool(value):
            # cel-go's step is `p ? @result + 1 : @result`: an error stays the accumulator
            error = error or (value if isinstance(value, CELEvalError) else failure(NO_SUCH_OVERLOAD))
            continue
        if value:
            charge(_APPEND)  # `@result` alone, the other branch, is an attribute: uncharged
        count += bool(value)
    charge(_ACCUMULATOR + 1)  # @result == 1
    return error if error is not None else ct.BoolType(count == 1)


def _selected(bodies: list[Any], binding: dict[str, Any]) -> Any:
    """The filter of a three-argument map or four-argument transform: True, False or an error."""
    if len(bodies) == 1:
        return True
    keep = _run(bodies[0], binding)
    if isinstance(keep, CELEvalError):
        return keep
    return bool(keep) if _is_bool(keep) else failure(NO_SUCH_OVERLOAD)


def _transformed(bindings: Bindings, bodies: list[Any], step: int) -> Iterator[tuple[dict[str, Any], Any]]:
    """(binding, value of the last body) for each binding the filter keeps, in order; a value
    may be an error, which is the comprehension's answer (the caller returns it after
    :func:`_after_error`). ``step``: what the step charges around a kept value."""
    for binding in bindings:
        keep = _selected(bodies, binding)
        if keep is False:  # `@result`, an attribute branch of ?:, uncharged
            continue
        if keep is True:
            charge(step)
            yield binding, _run(bodies[-1], binding)
        else:
            yield binding, keep


def _after_error(steps: Iterator[Any], error: CELEvalError) -> CELEvalError:
    """``error``, once the remaining steps ran: cel-go's comprehension goes on after a step made
    its accumulator an error (the loop condition of these macros is ``true``), so a later step
    can still panic (:class:`celpy_maps.GoPanic`), which is the answer then."""
    for _ in steps:
        pass
    charge(_ACCUMULATOR)  # the result, @result
    return error


def _map_list(bindings: Bindings, bodies: list[Any], _target: Any, literal: int) -> Any:
    result: list[Any] = []
    steps = _transformed(bindings, bodies, _APPEND + literal)
    for _binding, value in steps:
        if isinstance(value, CELEvalError):
            return _after_error(steps, value)
        result.append(value)
    charge(_ACCUMULATOR)
    return ct.ListType(result)


def _filter(bindings: Bindings, bodies: list[Any], _target: Any, _literal: int) -> Any:
    result = []
    error = None
    for binding in bindings:
        keep = _run(bodies[0], binding)
        if isinstance(keep, CELEvalError) or not _is_bool(keep):
            # `p ? @result + [x] : @result`: the error is the accumulator, the loop goes on
            error = error or (keep if isinstance(keep, CELEvalError) else failure(NO_SUCH_OVERLOAD))
            continue
        if keep:
            charge(_APPEND + celpy_cost.LIST_CREATE + _ELEMENT)
            result.append(next(iter(binding.values())))
    charge(_ACCUMULATOR)
    return error if error is not None else ct.ListType(result)


def _transform_map(bindings: Bindings, bodies: list[Any], _target: Any, _literal: int) -> Any:
    result = ct.MapType()
    steps = _transformed(bindings, bodies, _MAP_INSERT)
    for binding, value in steps:
        if isinstance(value, CELEvalError):
            return _after_error(steps, value)
        celpy_maps.insert(result, next(iter(binding.values())), value)
    charge(_ACCUMULATOR)
    return result


def _transform_map_entry(bindings: Bindings, bodies: list[Any], _target: Any, _literal: int) -> Any:
    result = ct.MapType()
    steps = _transformed(bindings, bodies, _ENTRY_INSERT)
    for _binding, entry in steps:
        if isinstance(entry, CELEvalError):
            return _after_error(steps, entry)
        if not isinstance(entry, dict):
            return _after_error(steps, failure(NO_SUCH_OVERLOAD))
        for key, value in entry.items():
            if celpy_maps.contains(result, key):
                return _after_error(steps, failure(f"insert failed: key {_go_text(key)} already exists"))
            celpy_maps.insert(result, key, value)
    charge(_ACCUMULATOR)
    return result


def _sort_by(bindings: Bindings, bodies: list[Any], target: Any, literal: int) -> Any:
    # cel-go: cel.bind(@__sortBy_input__, target,
    #     @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(x, key)))
    charge(2 * _ACCUMULATOR)
    keys = _map_list(bindings, bodies, target, literal)
    if isinstance(keys, CELEvalError):
        return keys
    if not isinstance(target, list):
        return failure(NO_SUCH_OVERLOAD)
    charge(celpy_cost.call_cost("@sortByAssociatedKeys", (target, keys), None))
    return sort_by_keys(target, keys)


def _optional_map(name: str, target: Any, variable: str, body: Any, target_cost: int) -> Any:
    """``optMap``/``optFlatMap``: cel-go's ``opt.hasValue() ? optional.of(cel.bind(v,
    opt.value(), body)) : optional.none()`` (no ``optional.of`` for optFlatMap), which evaluates
    the target a second time for ``value()``."""
    if not isinstance(target, CelOptional):
        return failure(NO_SUCH_OVERLOAD)
    charge(1)  # hasValue()
    if not target.present:
        charge(1)  # optional.none()
        return NONE
    charge(1 + target_cost + (1 if name == "optMap" else 0))  # value() of the target again, optional.of()
    value = _run(body, {variable: target.value})
    if isinstance(value, CELEvalError):
        return value
    if name == "optMap":
        return CelOptional(value, True)
    return value if isinstance(value, CelOptional) else failure(NO_SUCH_OVERLOAD)


#: Conversions cel-go evaluates when it plans a call of them on constants, by the kind they make.
_FOLDED_CONVERSIONS = {"int": "INT_LIT", "uint": "UINT_LIT", "double": "FLOAT_LIT", "string": "STRING_LIT",
                       "bool": "BOOL_LIT", "bytes": "BYTES_LIT", "dyn": None}
_PRIMITIVE_LITERALS = frozenset({"INT_LIT", "UINT_LIT", "FLOAT_LIT", "STRING_LIT", "MLSTRING_LIT", "BOOL_LIT"})


def _only_child(tree: Any) -> Any:
    while isinstance(tree, lark.Tree) and len(tree.children) == 1 and tree.data not in ("literal", "list_lit"):
        tree = tree.children[0]
    return tree


def _folded_kind(tree: Any) -> str | None:
    """The literal kind an element that ``_is_constant`` accepts folds to (``dyn(1.5)``: a float,
    ``int('1')``: an int), or None where that is no literal kind (a list, a duration)."""
    tree = _only_child(tree)
    if tree.data == "literal":
        return str(tree.children[0].type)
    if tree.data == "ident_arg" and str(tree.children[0]) in _FOLDED_CONVERSIONS and len(tree.children[1].children) == 1:
        return _FOLDED_CONVERSIONS[str(tree.children[0])] or _folded_kind(tree.children[1].children[0])
    return None


def _plain_number(value: Any) -> Any:
    """A CEL number as Python's own int or float (what dractl.cel.numbers takes); other values
    (a bool, a string) as they are."""
    if not is_number(value):
        return value
    return float(value) if isinstance(value, float) else int(value)


def _constant_primitive_list(tree: Any) -> bool:
    """Whether ``tree`` is a non-empty list literal of constants of primitive types (no bytes, no
    null), which cel-go turns into a hash set for ``in``."""
    tree = _only_child(tree)
    if not (isinstance(tree, lark.Tree) and tree.data == "list_lit" and tree.children):
        return False
    elements = tree.children[0].children if isinstance(tree.children[0], lark.Tree) else []
    return bool(elements) and all(
        isinstance(e, lark.Tree) and e.data == "expr" and _is_constant(e) and _folded_kind(e) in _PRIMITIVE_LITERALS
        for e in elements)


def _is_primitive(value: Any) -> bool:
    return type_name(value) in ("bool", "int", "uint", "double", "string")


def _selection_of(tree: Any) -> Any:
    """The ``member_dot`` tree that a has() argument's chain of one-child rules wraps, or None."""
    while isinstance(tree, lark.Tree):
        if tree.data == "member_dot":
            return tree
        if len(tree.children) != 1:
            return None
        tree = tree.children[0]
    return None


def _go_text(value: Any) -> str:
    """A value as Go's ``%v`` prints it in cel-go's messages."""
    if isinstance(value, bool | ct.BoolType):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float_text(float(value))
    return str(value)


_MACRO_LOOPS: dict[str, Loop] = {
    "all": _quantifier(True), "exists": _quantifier(False), "exists_one": _exists_one, "existsOne": _exists_one,
    "map": _map_list, "transformList": _map_list, "filter": _filter, "transformMap": _transform_map,
    "transformMapEntry": _transform_map_entry, "sortBy": _sort_by,
}


def _is_ident(tree: Any, name: str) -> bool:
    while tree.data in ("member", "primary") and len(tree.children) == 1:
        tree = tree.children[0]
    return bool(tree.data == "ident" and tree.children[0].value == name)


def _ident_text(tree: Any) -> str | None:
    """The identifier ``tree`` consists of, if that is all it is."""
    while tree.data in ("member", "primary") and len(tree.children) == 1:
        tree = tree.children[0]
    return str(tree.children[0].value) if tree.data == "ident" else None

def _ident_name(tree: Any) -> str:
    found = list(tree.find_data("ident"))
    return str(found[0].children[0].value) if found else ""


class _Runner(celpy.Runner):
    _base: Any = None
    _plan: _CostPlan | None = None
    dynamic_calls: frozenset[int] = frozenset()

    def evaluate(self, context: Any) -> Any:
        # The base activation (functions and type annotations) is only ever cloned, never
        # changed, by an evaluation: build it once per program.
        base = self._base
        if base is None:
            base = self._base = self.new_activation()
        plan = self._plan
        if plan is None:
            plan = self._plan = _CostPlan(self.ast, self.dynamic_calls)
        evaluator = _Evaluator(ast=self.ast, activation=base)
        evaluator.budget = Budget()
        evaluator.plan = plan
        token = CURRENT_BUDGET.set(evaluator.budget)
        try:
            result = evaluator.evaluate(context)
        finally:
            CURRENT_BUDGET.reset(token)
        if evaluator.budget.left < 0:  # the last step was a call whose check waited (celpy_cost.charged)
            raise CostExceeded
        return result


# -- the engine ------------------------------------------------------------------------------

_RUNTIME_MESSAGES = {
    "divide by zero": "division by zero",
    "modulus or divide by zero": "modulus by zero",
    "return error for overflow": "integer overflow",
}


def _runtime_message(error: CELEvalError) -> str:
    message = str(error.args[0]) if error.args else "evaluation error"
    if isinstance(error, Failure):
        return message
    if message.startswith(("found no matching overload", "no such overload")):
        return "no such overload"
    if message == "no such key" and len(error.args) > 2 and error.args[2]:
        return f"no such key: {error.args[2][0]}"
    return messages.runtime_message(_RUNTIME_MESSAGES.get(message, message))


class CelPythonProgram:
    __slots__ = ("_answer", "_list_types", "_runner", "build_error", "cost", "device_free", "expression", "min_cost",
                 "output_type")

    def __init__(self, runner: _Runner, output_type: str, list_types: bool, min_cost: int, expression: str) -> None:
        self._runner = runner
        self.output_type = output_type
        self._list_types = list_types
        self.min_cost = min_cost
        #: Whether the selector never reads ``device``: its answer is then the same on every
        #: device the engine can hold, and is worked out once (an answer that costs close to the
        #: limit takes this interpreter seconds).
        self.device_free = False
        self._answer: tuple[bool, Any] | None = None
        #: cel-python has no cost estimator; the conformance cost column is not checked.
        self.cost: int | None = None
        self.expression = expression
        #: Why cel-go fails to build this program (reported once the selector's type is accepted).
        self.build_error: CelError | None = None

    def evaluate(self, device: CelDevice) -> Any:
        if self.min_cost > RUNTIME_COST_LIMIT:
            raise CelRuntimeError(COST_LIMIT_EXCEEDED)
        key = (ENGINE_NAME, self._list_types)
        value = device.engine_value(key)
        if value is None:
            plain = device.plain(self._list_types)
            value = plain.error if plain.error is not None else _device_value(plain)
            device.set_engine_value(key, value)
        if isinstance(value, str):
            raise CelRuntimeError(value)
        answer = self._answer
        if answer is None:
            answer = self._evaluate(value)
            if self.device_free:
                self._answer = answer
        failed, outcome = answer
        if failed:
            raise CelRuntimeError(outcome)
        return outcome

    def _evaluate(self, device: Any) -> tuple[bool, Any]:
        """(False, the value) or (True, upstream's error)."""
        try:
            result = self._runner.evaluate({"device": device})
        except CELEvalError as exc:
            return True, _runtime_message(exc)
        except celpy_maps.GoPanic as panic:
            return True, f"internal error: {panic.message}"
        except CostExceeded:
            return True, COST_LIMIT_EXCEEDED
        except ValueTooLarge as exc:
            return True, exc.message
        except RecursionError:
            return True, "max recursion depth exceeded"
        if isinstance(result, bool | ct.BoolType):
            return False, bool(result)
        return False, _NonBool(type_name(result))


class _NonBool:
    __slots__ = ("type_name",)

    def __init__(self, name: str) -> None:
        self.type_name = name


class CelPythonEngine:
    name = ENGINE_NAME
    #: Libraries of ``dractl.cel.unsupported`` this engine evaluates: their errors are upstream's.
    implemented_libraries = frozenset({"urls", "k8s-lists", "sets", "ip", "cidr", "two-var-comprehensions",
                                       "ext-lists", "format"})

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parser = _optional_syntax_parser()
        limit = sys.getrecursionlimit()
        self._environment = celpy.Environment(
            runner_class=_Runner, annotations={name: CelType(name) for name in TYPE_IDENTIFIERS})
        # cel-python sets the limit to 2500; never lower one raised elsewhere (the allocator's).
        sys.setrecursionlimit(max(limit, sys.getrecursionlimit()))
        self._functions: dict[tuple[object, ...], dict[str, Callable[..., Any]]] = {}

    def compile(self, expression: str, environment: Environment) -> CelPythonProgram:
        with self._lock:  # the lark parser keeps state while parsing
            try:
                tree = self._parser.parse(expression)
            except lark.exceptions.UnexpectedInput as exc:
                raise _syntax_error(expression, exc) from None
            except lark.exceptions.LarkError as exc:
                raise _syntax_error(expression, exc) from None
        too_deep = parse_limits.nesting_error(*parser_depths(tree))
        if too_deep is not None:
            raise too_deep
        try:
            _root, checked = check(tree, environment)
        except RecursionError:
            raise CelCompileError("compilation failed: expression too deeply nested",
                                  [CelError("expression too deeply nested")]) from None
        if checked.errors:
            issues = [(err, messages.snippet_for(expression, err.line, err.column)) for err in checked.errors]
            raise CelCompileError("compilation failed: " + messages.format_issues(issues), checked.errors)
        if checked.unsupported:
            first = checked.unsupported[0]
            raise CelCompileError(f"{first.message} (use the cel-expr-python engine)", checked.unsupported,
                                  kind="unsupported")
        functions = self._functions.get(environment.cache_key)
        if functions is None:
            functions = _library(environment)
            self._functions[environment.cache_key] = functions
        runner = cast(_Runner, self._environment.program(tree, functions=functions))
        runner.dynamic_calls = checked.dynamic_calls
        program = CelPythonProgram(runner, checked.output_type, environment.list_type_attributes, checked.min_cost,
                                   expression)
        program.device_free = not any(
            isinstance(token, lark.Token) and token.type == "IDENT" and token.value == "device"
            for node in tree.iter_subtrees() for token in node.children)
        folded = _fold_constant_conversions(tree, runner)
        program.build_error = CelError(folded) if folded is not None else checked.program_error
        return program


_WRAPPERS = frozenset({"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication",
                       "unary", "member", "primary", "paren_expr", "exprlist"})


def _is_constant(tree: Any) -> bool:
    """A literal, or a conversion (or ``dyn``) of constants: what cel-go evaluates when it plans."""
    while tree.data in _WRAPPERS and len(tree.children) == 1 and isinstance(tree.children[0], lark.Tree):
        tree = tree.children[0]  # a loop: a deep expression would exhaust the stack
    if tree.data == "literal":
        return True
    children = tree.children
    if tree.data == "ident_arg" and len(children) == 2 and (children[0] in CONVERSIONS or children[0] == "dyn"):
        return all(isinstance(child, lark.Tree) and _is_constant(child) for child in children[1].children)
    if tree.data in ("list_lit", "map_lit"):  # a literal of constants is planned as one constant
        entries = children[0].children if children and isinstance(children[0], lark.Tree) else []
        return all(isinstance(child, lark.Tree) and child.data == "expr" and _is_constant(child) for child in entries)
    return False


def _fold_constant_conversions(tree: Any, runner: _Runner) -> str | None:
    """cel-go evaluates a type conversion of constants when it builds the program: its error is
    then the program's (``program instantiation failed: integer overflow``), not a device's."""
    for primary in tree.find_data("primary"):
        call = primary.children[0]
        if not (isinstance(call, lark.Tree) and call.data == "ident_arg" and call.children[0] in CONVERSIONS
                and _is_constant(call)):
            continue
        evaluator = _Evaluator(ast=primary, activation=runner.new_activation())
        evaluator.budget = Budget()
        evaluator.plan = _CostPlan(primary)
        value = evaluator.visit(primary)
        if isinstance(value, CELEvalError):
            return _runtime_message(value)
    return None


def _keyword(token: lark.Token) -> lark.Token:
    """cel-python's ``true``/``false`` as literals, keeping their positions (its callback drops them)."""
    literal = CELParser.ambiguous_literals(token)
    return token if literal is token else lark.Token.new_borrow_pos(literal.type, literal.value, token)


#: cel-go's list and map literals: optional entries (``[?x]``, ``{?k: v}``) and a trailing comma.
_LITERAL_RULES = {
    'list_lit       : "[" [exprlist] "]"': 'list_lit       : "[" [listinits] "]" | "[" "," "]"\n'
                                           'listinits      : (expr | opt_entry) ("," (expr | opt_entry))* [","]\n'
                                           'opt_entry      : "?" expr',
    'map_lit        : "{" [mapinits] "}"': 'map_lit        : "{" [mapinits] "}" | "{" "," "}"',
    'mapinits       : expr ":" expr ("," expr ":" expr)*':
        'mapinits       : (expr | opt_entry) ":" expr ("," (expr | opt_entry) ":" expr)* [","]',
}


def _optional_syntax_parser() -> lark.Lark:
    """cel-python's grammar plus cel-go's optional field selection and indexing (``a.?b``,
    ``a[?k]``), optional literal entries and trailing commas in literals."""
    grammar = (Path(celpy.__file__).parent / "cel.lark").read_text()
    for rule, replacement in _LITERAL_RULES.items():
        grammar = grammar.replace(rule, replacement)
    member_rule = "member         : member_dot | member_dot_arg | member_index | member_object | primary"
    if member_rule in grammar:
        grammar = grammar.replace(member_rule, (
            "member         : member_dot | member_dot_arg | member_index | member_object"
            " | member_dot_opt | member_index_opt | primary\n"
            'member_dot_opt : member ".?" IDENT\n'
            'member_index_opt : member "[?" expr "]"'))
    return lark.Lark(
        grammar, parser="lalr", start="expr", g_regex_flags=re.M,
        lexer_callbacks={"IDENT": _keyword}, propagate_positions=True,
        maybe_placeholders=False, priority="invert",
    )


def _syntax_error(expression: str, exc: Exception) -> CelCompileError:
    detail, line, column = celpy_parse_errors.syntax_error(expression, exc)
    err = CelError("Syntax error: " + detail, line, column)
    detail = messages.format_issues([(err, messages.snippet_for(expression, line, column))])
    return CelCompileError(f"compilation failed: {detail}", [err])


def create_engine() -> CelPythonEngine:
    return CelPythonEngine()


__all__ = ["CelPythonEngine", "CelPythonProgram", "cel_equal", "create_engine", "type_name"]
