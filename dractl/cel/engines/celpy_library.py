"""Kubernetes and cel-go library functions the cel-python engine adds to cel-python's own.

Each function takes and returns cel-python values and answers a wrong argument type with
``no such overload``, as cel-go's runtime dispatch does; error texts are upstream's. The
libraries, per upstream's versioned base environment: the Kubernetes lists library (``sum``,
``min``, ``max``, ``isSorted``, ``indexOf``, ``lastIndexOf``), cel-go's lists extension
(``distinct``, ``reverse``, ``flatten``, ``slice``, ``sort``, ``lists.range``; ``sortBy`` is a
macro, in the evaluator), the optional library's ``first``/``last``/``unwrapOpt`` and cel-go's
sets extension.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from typing import Any

import celpy.celtypes as ct

from dractl.cel.engines.celpy_time import TIME_CONVERSIONS, Duration
from dractl.cel.engines.celpy_values import (
    NO_SUCH_OVERLOAD,
    NONE,
    CelOptional,
    Failure,
    cel_equal,
    compare,
    failure,
    register_library_type,
    type_name,
)
from dractl.cel.formats import FORMATS, NamedFormat
from dractl.cel.messages import go_float_text
from dractl.cel.network import CIDR, IP, NetworkError, is_canonical_ip, parse_cidr, parse_ip
from dractl.cel.urls import URL, URLError, is_url, parse_url

Function = Callable[..., Any]
_SUMMABLE = {"int": ct.IntType(0), "uint": ct.UintType(0), "double": ct.DoubleType(0.0),
             "google.protobuf.Duration": Duration(0)}
_COMPARABLE = frozenset({"int", "uint", "double", "bool", "string", "bytes", "google.protobuf.Duration",
                         "google.protobuf.Timestamp"})


def _on_list(function: Function) -> Function:
    """``function`` for a list receiver; any other receiver is ``no such overload``."""

    @functools.wraps(function)
    def call(target: Any, *args: Any) -> Any:
        if not isinstance(target, list):
            return failure(NO_SUCH_OVERLOAD)
        return function(target, *args)

    return call


def _overload_error(name: str, target: Any) -> Failure:
    """cel-go's text when no overload of a member function takes ``target``'s type."""
    return failure(f"{NO_SUCH_OVERLOAD}: {name}({type_name(target)})")


# -- the Kubernetes lists library -----------------------------------------------------------------


def _sum(target: Any) -> Any:
    if not isinstance(target, list):
        return _overload_error("sum", target)
    total: Any = _SUMMABLE["int"]
    for index, item in enumerate(target):
        name = type_name(item)
        if index == 0 and name in _SUMMABLE:
            total = _SUMMABLE[name]
        if name != type_name(total) or name not in _SUMMABLE:
            return failure(NO_SUCH_OVERLOAD)
        try:
            total = type(total)(total + item)
        except ValueError:
            return failure("unsigned integer overflow" if name == "uint" else "integer overflow")
    return total


def _extreme(name: str, prefer: int) -> Function:
    def call(target: Any) -> Any:
        if not isinstance(target, list):
            return _overload_error(name, target)
        result: Any = None
        for item in target:
            if type_name(item) not in _COMPARABLE:
                return failure(NO_SUCH_OVERLOAD)
            if result is None or compare(result, item) == prefer:
                result = item
        return failure(f"{name} called on empty list") if result is None else result

    return call


def _is_sorted(target: Any) -> Any:
    if not isinstance(target, list):
        return _overload_error("isSorted", target)
    previous: Any = None
    for index, item in enumerate(target):
        if type_name(item) not in _COMPARABLE:
            return failure(NO_SUCH_OVERLOAD)
        if index and compare(previous, item) == 1:
            return ct.BoolType(False)
        previous = item
    return ct.BoolType(True)


def list_index_of(target: list[Any], item: Any) -> Any:
    for index, element in enumerate(target):
        if cel_equal(element, item):
            return ct.IntType(index)
    return ct.IntType(-1)


def list_last_index_of(target: list[Any], item: Any) -> Any:
    for index in range(len(target) - 1, -1, -1):
        if cel_equal(target[index], item):
            return ct.IntType(index)
    return ct.IntType(-1)


def on_string_or_list(for_strings: Function, for_lists: Function) -> Function:
    """``indexOf``/``lastIndexOf``: the strings extension's on a string, the lists library's on a list."""

    def call(target: Any, *args: Any) -> Any:
        if isinstance(target, list):
            return for_lists(target, *args) if len(args) == 1 else failure(NO_SUCH_OVERLOAD)
        return for_strings(target, *args)

    return call


# -- cel-go's lists extension ---------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, ct.IntType) or (type(value) is int)


def _slice(target: list[Any], start: Any, end: Any) -> Any:
    if not (_is_int(start) and _is_int(end)):
        return failure(NO_SUCH_OVERLOAD)
    if start < 0 or end < 0:
        return failure(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        return failure(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if len(target) < end:
        return failure(f"cannot slice({start}, {end}), list is length {len(target)}")
    return ct.ListType(target[int(start):int(end)])


def _flatten_into(items: list[Any], depth: int, into: list[Any]) -> None:
    for item in items:
        if isinstance(item, list) and depth > 0:
            _flatten_into(item, depth - 1, into)
        else:
            into.append(item)


def _flatten(target: list[Any], depth: Any = None) -> Any:
    if depth is None:
        depth = 1
    elif not _is_int(depth):
        return failure(NO_SUCH_OVERLOAD)
    if depth < 0:
        return failure("level must be non-negative")
    flat: list[Any] = []
    _flatten_into(target, int(depth), flat)
    return ct.ListType(flat)


def sort_by_keys(items: list[Any], keys: list[Any]) -> Any:
    """cel-go's ``@sortByAssociatedKeys``: ``items`` in the order of ``keys`` (a stable sort)."""
    if len(items) != len(keys):
        return failure("@sortByAssociatedKeys() expected a list of the same size as the associated keys list, "
                       f"but got {len(items)} and {len(keys)} elements respectively")
    if not items:
        return ct.ListType(items)
    first = type_name(keys[0])
    if first not in _COMPARABLE:
        return failure("list elements must be comparable")
    if any(type_name(key) != first for key in keys):
        return failure("list elements must have the same type")
    order = sorted(range(len(items)), key=functools.cmp_to_key(lambda i, j: compare(keys[i], keys[j]) or 0))
    return ct.ListType(items[i] for i in order)


def _sort(target: list[Any]) -> Any:
    return sort_by_keys(target, target)


def _distinct(target: list[Any]) -> Any:
    unique: list[Any] = []
    for item in target:
        if not any(cel_equal(item, seen) for seen in unique):
            unique.append(item)
    return ct.ListType(unique)


def _reverse(target: list[Any]) -> Any:
    return ct.ListType(reversed(target))


def lists_range(count: Any) -> Any:
    if not _is_int(count):
        return failure(f"{NO_SUCH_OVERLOAD}: lists.range({type_name(count)})")
    # int.__new__: the numbers are in range, and cel-python's own constructor checks each one
    # at some microseconds (a range of a million is that many seconds)
    make = int.__new__
    return ct.ListType([make(ct.IntType, i) for i in range(max(int(count), 0))])


def _first(target: list[Any]) -> Any:
    return CelOptional(target[0], True) if target else NONE


def _last(target: list[Any]) -> Any:
    return CelOptional(target[-1], True) if target else NONE


def _unwrap(target: list[Any]) -> Any:
    if not all(isinstance(item, CelOptional) for item in target):
        return failure(NO_SUCH_OVERLOAD)
    return ct.ListType(item.value for item in target if item.present)


# -- cel-go's sets extension ----------------------------------------------------------------------


def _sets(function: Callable[[list[Any], list[Any]], bool]) -> Function:
    def call(left: Any, right: Any) -> Any:
        if not isinstance(left, list) or not isinstance(right, list):
            return failure(NO_SUCH_OVERLOAD)
        return ct.BoolType(function(left, right))

    return call


def _contains_all(left: list[Any], right: list[Any]) -> bool:
    return all(any(cel_equal(a, b) for a in left) for b in right)


def _intersects(left: list[Any], right: list[Any]) -> bool:
    return any(cel_equal(a, b) for a in left for b in right)


#: Functions called with a namespace (``lists.range(3)``, ``sets.contains(a, b)``), by full name.
NAMESPACED: dict[str, dict[str, Function]] = {
    "ext-lists": {"lists.range": lists_range},
    "sets": {
        "sets.contains": _sets(_contains_all),
        "sets.equivalent": _sets(lambda a, b: _contains_all(a, b) and _contains_all(b, a)),
        "sets.intersects": _sets(_intersects),
    },
}


def library_functions(libraries: frozenset[str]) -> dict[str, Function]:
    """The member and global functions of ``libraries`` (names of ``environment.LIBRARY_INTRODUCED``)."""
    functions: dict[str, Function] = {}
    if "k8s-lists" in libraries:
        functions.update({
            "sum": _sum, "min": _extreme("min", 1), "max": _extreme("max", -1), "isSorted": _is_sorted,
        })
    if "ext-lists" in libraries:
        functions.update({
            "slice": _on_list(_slice), "flatten": _on_list(_flatten), "sort": _on_list(_sort),
            "distinct": _on_list(_distinct), "reverse": _on_list(_reverse),
        })
    if "optionals" in libraries:
        functions.update({"first": _on_list(_first), "last": _on_list(_last), "unwrapOpt": _on_list(_unwrap),
                          "optional.unwrap": _on_list(_unwrap)})
    for library, namespaced in NAMESPACED.items():
        if library in libraries:
            functions.update(namespaced)
    for library, network in NETWORK_FUNCTIONS.items():
        if library in libraries:
            functions.update(network)
    if "ip" in libraries and "cidr" not in libraries:
        functions["ip"] = _parse_ip_value
    return functions


# -- type conversions and size, with cel-go's errors ------------------------------------------------

_INT64 = (-(2**63), 2**63 - 1)
_UINT64_MAX = 2**64 - 1
_DECIMAL = re.compile(r"[+-]?[0-9]+\Z")
_GO_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
             "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}


def _conversion_overload(name: str, value: Any) -> Failure:
    return failure(f"{NO_SUCH_OVERLOAD}: {name}({type_name(value)})")


def _conversion_error(source: str, target: str) -> Failure:
    return failure(f"type conversion error from '{source}' to '{target}'")


def to_int(value: Any) -> Any:
    name = type_name(value)
    if name in ("int", "uint"):
        return ct.IntType(int(value)) if _INT64[0] <= value <= _INT64[1] else failure("integer overflow")
    if name == "double":
        value = float(value)
        # cel-go refuses the bounds themselves: float64(MaxInt64) rounds up to 2^63.
        if value != value or not -9.223372036854775808e18 < value < 9.223372036854775807e18:
            return failure("integer overflow")
        return ct.IntType(int(value))
    if name == "string":
        text = str(value)
        if not _DECIMAL.match(text):
            return _conversion_error("string", "int")
        number = int(text)
        return ct.IntType(number) if _INT64[0] <= number <= _INT64[1] else _conversion_error("string", "int")
    if name == "google.protobuf.Timestamp":
        return ct.IntType(value.seconds)
    if name == "google.protobuf.Duration":
        return ct.IntType(value.nanos)
    return _conversion_overload("int", value)


def to_uint(value: Any) -> Any:
    name = type_name(value)
    if name in ("int", "uint"):
        return ct.UintType(int(value)) if 0 <= value <= _UINT64_MAX else failure("unsigned integer overflow")
    if name == "double":
        value = float(value)
        if value != value or not 0 <= value < 1.8446744073709552e19:
            return failure("unsigned integer overflow")
        return ct.UintType(int(value))
    if name == "string":
        text = str(value)
        if not _DECIMAL.match(text) or text[0] == "-" or int(text) > _UINT64_MAX:
            return _conversion_error("string", "uint")
        return ct.UintType(int(text))
    return _conversion_overload("uint", value)


def to_double(value: Any) -> Any:
    name = type_name(value)
    if name in ("int", "uint", "double"):
        return ct.DoubleType(float(value))
    if name == "string":
        text = str(value)
        try:
            number = float(text)
            # Go's ParseFloat refuses surrounding space and a finite text beyond the double range.
            if text.strip() != text or (number in (math.inf, -math.inf) and "inf" not in text.lower()):
                raise ValueError(text)
            return ct.DoubleType(number)
        except (ValueError, OverflowError):
            return _conversion_error("string", "double")
    return _conversion_overload("double", value)


def to_string(value: Any) -> Any:
    name = type_name(value)
    if name == "string":
        return value
    if name in ("int", "uint"):
        return ct.StringType(str(int(value)))
    if name == "double":
        return ct.StringType(go_float_text(float(value)))
    if name == "bool":
        return ct.StringType("true" if value else "false")
    if name == "bytes":
        try:
            return ct.StringType(bytes(value).decode("utf-8"))
        except UnicodeDecodeError:
            return failure("invalid UTF-8 in bytes, cannot convert to string")
    if name in ("google.protobuf.Timestamp", "google.protobuf.Duration", "net.IP", "net.CIDR"):
        return ct.StringType(str(value))
    return _conversion_overload("string", value)


def to_bool(value: Any) -> Any:
    name = type_name(value)
    if name == "bool":
        return value
    if name == "string":
        found = _GO_BOOLS.get(str(value))
        return _conversion_error("string", "bool") if found is None else ct.BoolType(found)
    return _conversion_overload("bool", value)


def to_bytes(value: Any) -> Any:
    name = type_name(value)
    if name == "bytes":
        return value
    if name == "string":
        return ct.BytesType(str(value).encode("utf-8"))
    return _conversion_overload("bytes", value)


def size(value: Any) -> Any:
    if isinstance(value, str | list | dict):
        return ct.IntType(len(value))
    if isinstance(value, bytes):
        return ct.IntType(len(value))
    if type_name(value) in ("google.protobuf.Duration", "google.protobuf.Timestamp"):
        return failure(NO_SUCH_OVERLOAD)  # receiver types answer a function they lack themselves
    return failure(f"{NO_SUCH_OVERLOAD}: size")


CONVERSIONS: dict[str, Function] = {"int": to_int, "uint": to_uint, "double": to_double, "string": to_string,
                                    "bool": to_bool, "bytes": to_bytes, **TIME_CONVERSIONS}


# -- the Kubernetes url, ip and cidr libraries --------------------------------------------------

register_library_type(URL, "kubernetes.URL")
register_library_type(IP, "net.IP")
register_library_type(CIDR, "net.CIDR")
register_library_type(NamedFormat, "kubernetes.NamedFormat")


def _from_string(parse: Callable[[str], Any], error: type[Exception]) -> Function:
    def call(text: Any) -> Any:
        if not isinstance(text, str):
            return failure(NO_SUCH_OVERLOAD)
        try:
            return parse(str(text))
        except error as exc:
            return failure(str(exc))

    return call


def _test_string(test: Callable[[str], bool]) -> Function:
    def call(text: Any) -> Any:
        if not isinstance(text, str):
            return failure(NO_SUCH_OVERLOAD)
        return ct.BoolType(test(str(text)))

    return call


def _getter(kind: type, read: Callable[[Any], Any]) -> Function:
    def call(value: Any) -> Any:
        if not isinstance(value, kind):
            return failure(NO_SUCH_OVERLOAD)
        return read(value)

    return call


def _is_ip(text: str) -> bool:
    try:
        parse_ip(text)
    except NetworkError:
        return False
    return True


def _is_cidr(text: str) -> bool:
    try:
        parse_cidr(text)
    except NetworkError:
        return False
    return True


_parse_ip_value = _from_string(parse_ip, NetworkError)
_parse_cidr_value = _from_string(parse_cidr, NetworkError)


def _ip(value: Any) -> Any:
    """``ip("10.0.0.1")``, and ``cidr.ip()``: the prefix's address."""
    if isinstance(value, CIDR):
        return IP(value.address)
    return _parse_ip_value(value)


def _is_canonical(text: Any) -> Any:
    if not isinstance(text, str):
        return failure(NO_SUCH_OVERLOAD)
    try:
        return ct.BoolType(is_canonical_ip(str(text)))
    except NetworkError:
        try:
            parse_ip(str(text))
        except NetworkError as exc:
            return failure(str(exc))
        raise


def _contains(parse: Function, kind: type, test: Callable[[CIDR, Any], bool]) -> Function:
    def call(network: Any, other: Any) -> Any:
        if isinstance(other, str):
            other = parse(other)
            if isinstance(other, Failure):
                return other
        if not isinstance(network, CIDR) or not isinstance(other, kind):
            return failure(NO_SUCH_OVERLOAD)
        return ct.BoolType(test(network, other))

    return call


def _query(value: URL) -> Any:
    return ct.MapType({ct.StringType(k): ct.ListType(ct.StringType(v) for v in vs) for k, vs in value.query().items()})


def _format_named(name: Any) -> Any:
    if not isinstance(name, str):
        return failure(NO_SUCH_OVERLOAD)
    found = FORMATS.get(str(name))
    return NONE if found is None else CelOptional(found, True)


def _validate(named: Any, text: Any) -> Any:
    if not isinstance(named, NamedFormat) or not isinstance(text, str):
        return failure(NO_SUCH_OVERLOAD)
    errors = named.validate(str(text))
    return CelOptional(ct.ListType(ct.StringType(e) for e in errors), True) if errors else NONE


def _constant_format(named: NamedFormat) -> Function:
    return lambda: named


NETWORK_FUNCTIONS: dict[str, dict[str, Function]] = {
    "format": {
        "format.named": _format_named, "validate": _validate,
        **{f"format.{name}": _constant_format(named) for name, named in FORMATS.items()},
    },
    "urls": {
        "url": _from_string(parse_url, URLError), "isURL": _test_string(is_url),
        "getScheme": _getter(URL, lambda u: ct.StringType(u.scheme)),
        "getHost": _getter(URL, lambda u: ct.StringType(u.host)),
        "getHostname": _getter(URL, lambda u: ct.StringType(u.hostname)),
        "getPort": _getter(URL, lambda u: ct.StringType(u.port)),
        "getEscapedPath": _getter(URL, lambda u: ct.StringType(u.escaped_path)),
        "getQuery": _getter(URL, _query),
    },
    "ip": {
        "ip": _ip, "isIP": _test_string(_is_ip), "ip.isCanonical": _is_canonical,
        "family": _getter(IP, lambda ip: ct.IntType(ip.family)),
        "isUnspecified": _getter(IP, lambda ip: ct.BoolType(ip.is_unspecified)),
        "isLoopback": _getter(IP, lambda ip: ct.BoolType(ip.is_loopback)),
        "isLinkLocalMulticast": _getter(IP, lambda ip: ct.BoolType(ip.is_link_local_multicast)),
        "isLinkLocalUnicast": _getter(IP, lambda ip: ct.BoolType(ip.is_link_local_unicast)),
        "isGlobalUnicast": _getter(IP, lambda ip: ct.BoolType(ip.is_global_unicast)),
    },
    "cidr": {
        "cidr": _parse_cidr_value, "isCIDR": _test_string(_is_cidr),
        "containsIP": _contains(_parse_ip_value, IP, lambda n, ip: n.contains_ip(ip)),
        "containsCIDR": _contains(_parse_cidr_value, CIDR, lambda n, other: n.contains_cidr(other)),
        "prefixLength": _getter(CIDR, lambda n: ct.IntType(n.bits)),
        "masked": _getter(CIDR, lambda n: n.masked()),
    },
}
