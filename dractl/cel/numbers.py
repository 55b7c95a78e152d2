"""How cel-go (v0.26, the version upstream pins) compares numbers of different types.

An int or uint compared with a double is converted to a double first (``compareDoubleInt`` and
``compareDoubleUint`` in ``common/types/compare.go`` compare ``d`` with ``Double(i)`` once ``d``
is inside the integer's range, and ``float64(i)`` is never outside it). The conversion rounds
above 2^53, so ``dyn(9007199254740993) == 9007199254740992.0`` and ``9223372036854775807 ==
dyn(9223372036854775807.0)`` are true upstream, where an exact comparison says false. An int
compared with a uint is exact (``compareIntUint``).

Python holds a CEL int and uint as ``int`` and a double as ``float``; bools are no numbers here
(callers treat them apart, as CEL does).
"""

from __future__ import annotations

import math

_INT64_MIN = -(2**63)
_UINT64_END = 2**64


def mixed(left: object, right: object) -> bool:
    """Whether one operand is an integer and the other a double (bools excluded)."""
    kinds = (type(left), type(right))
    return (kinds == (int, float)) or (kinds == (float, int))


def equal(left: int | float, right: int | float) -> bool:
    """cel-go's equality of two numbers: NaN equals nothing, an integer meets a double as a
    double."""
    if type(left) is float or type(right) is float:
        return float(left) == float(right)  # NaN compares false
    return left == right


def compare(left: int | float, right: int | float) -> int:
    """cel-go's ``Compare`` of two numbers (-1, 0, 1); the caller refuses NaN first."""
    if type(left) is float or type(right) is float:
        left, right = float(left), float(right)
    return (left > right) - (left < right)


def integral_key(value: float) -> int | None:
    """The int or uint a double stands for as a map key or set element, or None.

    cel-go converts a double key only where the conversion is lossless and inside the range
    (``doubleToInt64Checked`` refuses ``v <= MinInt64``, so -2^63 never becomes an int key;
    ``doubleToUint64Checked`` refuses ``v >= 2^64``); a uint key takes 2^63 .. 2^64-1.
    """
    if math.isnan(value) or math.isinf(value) or not value.is_integer():
        return None
    whole = int(value)
    return whole if _INT64_MIN < whole < _UINT64_END else None


def set_contains(item: int | float, elements: list[object]) -> bool:
    """``item in [...]`` where the list is a constant of primitives: cel-go's hash set
    (``maybeOptimizeSetMembership`` in ``interpreter/planner.go``) holds each element, each
    integer's double form and each double's lossless int and uint forms, and finds ``item`` by
    type and value (so an int is found by its rounded double, a double by the int it is)."""
    for element in elements:
        if type(element) is bool:
            continue
        if type(item) is float and type(element) is float:
            if item == element:
                return True
        elif type(item) is float and type(element) is int:
            if item == float(element):
                return True
        elif type(item) is int and type(element) is float:
            if integral_key(element) == item:
                return True
        elif type(item) is int and type(element) is int and item == element:
            return True
    return False
