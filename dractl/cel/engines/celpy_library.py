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
from collections.abc import Callable
from typing import Any

import celpy.celtypes as ct

from dractl.cel.engines.celpy_values import (
    NO_SUCH_OVERLOAD,
    NONE,
    CelOptional,
    Failure,
    cel_equal,
    compare,
    failure,
    type_name,
)

Function = Callable[..., Any]
_SUMMABLE = {"int": ct.IntType(0), "uint": ct.UintType(0), "double": ct.DoubleType(0.0)}
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
            return failure("integer overflow" if name == "int" else "unsigned integer overflow")
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
        return failure(NO_SUCH_OVERLOAD)
    return ct.ListType(ct.IntType(i) for i in range(max(int(count), 0)))


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
    return functions
