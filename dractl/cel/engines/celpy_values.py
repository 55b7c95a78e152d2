"""Values of the cel-python engine: upstream's type names, equality and ordering, optionals, errors.

cel-python's own types (``celpy.celtypes``) carry CEL's int, uint, double, string, bytes, bool,
list and map; dractl's :class:`~dractl.api.quantity.Quantity` and
:class:`~dractl.cel.semver.Semver` stand for the Kubernetes types. The rules here are cel-go's:
numbers compare across int, uint and double; a Kubernetes library value compared with a value of
another type is ``no such overload`` (its ``Equal`` refuses), while a built-in value compared with
a value of another type is simply unequal.
"""

from __future__ import annotations

from typing import Any

import celpy.celtypes as ct
from celpy.evaluation import CELEvalError

from dractl.api.quantity import Quantity
from dractl.cel.semver import Semver


class Failure(CELEvalError):
    """An error whose message is already upstream's."""

    def __init__(self, message: str) -> None:
        super().__init__(message)


def failure(message: str) -> Failure:
    return Failure(message)


NO_SUCH_OVERLOAD = "no such overload"


class CelOptional:
    """cel-go's optional value: ``optional.of(x)`` or ``optional.none()``."""

    __slots__ = ("present", "value")

    def __init__(self, value: Any = None, present: bool = False) -> None:
        self.value = value
        self.present = present

    def __repr__(self) -> str:
        return f"optional.of({self.value!r})" if self.present else "optional.none()"


NONE = CelOptional()


class CelType:
    """A type as a value: what ``type(x)`` returns and ``int``, ``google.protobuf.Timestamp`` name."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelType) and self.name == other.name

    def __hash__(self) -> int:
        return hash(("type", self.name))

    def __repr__(self) -> str:
        return self.name


def type_of(value: Any) -> Any:
    """CEL's ``type(value)``."""
    return value if isinstance(value, CELEvalError) else CelType(type_name(value))

#: Values of the Kubernetes libraries; the library registers each Python class with its CEL name.
LIBRARY_TYPES: dict[type, str] = {Quantity: "kubernetes.Quantity", Semver: "kubernetes.Semver"}

_TYPE_NAMES: list[tuple[type, str]] = [
    (ct.BoolType, "bool"), (bool, "bool"), (ct.UintType, "uint"), (ct.IntType, "int"), (ct.DoubleType, "double"),
    (float, "double"), (ct.StringType, "string"), (ct.BytesType, "bytes"), (ct.ListType, "list"), (ct.MapType, "map"),
    (ct.DurationType, "google.protobuf.Duration"), (ct.TimestampType, "google.protobuf.Timestamp"),
    (type(None), "null_type"), (CelOptional, "optional_type"), (CelType, "type"),
]


def register_type_name(python_type: type, name: str) -> None:
    """A built-in CEL type another module implements (timestamps, durations): no library type."""
    _TYPE_NAMES.insert(0, (python_type, name))
GO_TYPES = {"int": "types.Int", "uint": "types.Uint", "double": "types.Double", "bool": "types.Bool",
            "string": "types.String", "bytes": "types.Bytes", "null_type": "types.Null",
            "google.protobuf.Duration": "types.Duration", "google.protobuf.Timestamp": "types.Timestamp",
            "kubernetes.Semver": "cel.Semver", "kubernetes.Quantity": "cel.Quantity"}


def register_library_type(python_type: type, name: str) -> None:
    LIBRARY_TYPES[python_type] = name


def type_name(value: Any) -> str:
    name = LIBRARY_TYPES.get(type(value))
    if name is not None:
        return name
    for python_type, name in _TYPE_NAMES:
        if isinstance(value, python_type):
            return name
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "map"
    return type(value).__name__


def is_value(value: Any) -> bool:
    """Whether ``value`` is a CEL value (not a part of a qualified name being resolved)."""
    return type(value) in LIBRARY_TYPES or isinstance(value, list | ct.MapType) or any(
        isinstance(value, python_type) for python_type, _ in _TYPE_NAMES)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool | ct.BoolType)


def equal(left: Any, right: Any) -> bool | None:
    """cel-go's ``types.Equal(left, right)``: True, False, or None for ``no such overload``; null
    equals null alone."""
    if left is None or right is None:
        return left is None and right is None
    return _equal_method(left, right)


def _equal_method(left: Any, right: Any) -> bool | None:
    """cel-go's ``left.Equal(right)`` (no null shortcut: a version's ``Equal(null)`` fails)."""
    if left is None:
        return right is None
    left_type = type(left)
    if left_type is type(right) and left_type in (ct.StringType, ct.BoolType, ct.IntType):
        return bool(left == right)
    if is_number(left) and is_number(right):
        if not isinstance(left, float) and not isinstance(right, float):
            return int(left) == int(right)
        return _exact_numeric_equal(left, right)
    library_type = LIBRARY_TYPES.get(left_type)
    if library_type is not None:
        if type(right) is not left_type:
            return None
        return bool(left.compare(right) == 0) if hasattr(left, "compare") else bool(left == right)
    if isinstance(left, list):
        if not isinstance(right, list):
            return False
        if len(left) != len(right):
            return False
        if len(left) > _PLAIN_LIST_LENGTH:
            plain = _plain_lists_equal(left, right)
            if plain is not None:
                return plain
        # cel-go's baseList.Equal stops at an element that is unequal, not at one whose
        # comparison fails: [semver("1.0.0")] == [1] is true
        return all(equal(a, b) is not False for a, b in zip(left, right, strict=True))
    if isinstance(left, dict):
        if not isinstance(right, dict):
            return False
        if len(left) != len(right):
            return False
        from dractl.cel.engines.celpy_maps import find  # it reads values' types from here

        for key, value in left.items():
            found, other = find(right, key)  # cel-go: otherMap.Find(key), a Go map lookup
            if not found:
                return False
            if equal(value, other) is False:  # as for lists: a failed comparison is no inequality
                return False
        return True
    if isinstance(left, CelOptional):
        if not isinstance(right, CelOptional):
            return False
        if left.present != right.present:
            return False
        return True if not left.present else _equal_method(left.value, right.value)  # Optional.Equal
    if type_name(left) != type_name(right):
        return False
    return bool(left == right)


def cel_equal(left: Any, right: Any) -> bool:
    """CEL equality where an error counts as unequal (``in``, ``includes``, ``indexOf``)."""
    return equal(left, right) is True


# Lists longer than this are first tried as lists of one plain type (a list that a selector built
# by doubling reaches 8,388,608 elements: compared element by element in Python, 13 s; as below,
# under a second).
_PLAIN_LIST_LENGTH = 64
# The element types whose CEL equality is their Python base type's (an int, uint or bool equals
# one of its own type when the numbers are equal; strings are compared by code point; doubles by
# IEEE 754, NaN unequal to itself), with that type's comparison, which runs in C.
_PLAIN_EQUALITY = {
    ct.IntType: int.__eq__,
    ct.UintType: int.__eq__,
    ct.BoolType: int.__eq__,
    ct.StringType: str.__eq__,
    ct.DoubleType: float.__eq__,
}


def _plain_lists_equal(left: list[Any], right: list[Any]) -> bool | None:
    """Whether two lists of the same length are equal, when every element of both is of one
    plain type (:data:`_PLAIN_EQUALITY`); None when they are not such lists."""
    kinds = set(map(type, left))
    if len(kinds) != 1:
        return None
    (kind,) = kinds
    same = _PLAIN_EQUALITY.get(kind)
    if same is None or set(map(type, right)) != kinds:
        return None
    return all(map(same, left, right))


def _exact_numeric_equal(left: Any, right: Any) -> bool:
    # cel-go meets an integer and a double as two doubles (dractl.cel.numbers): lossy above 2^53
    return float(left) == float(right)


_ORDERED = frozenset({"string", "bytes", "bool", "google.protobuf.Duration", "google.protobuf.Timestamp"})


def compare(left: Any, right: Any) -> int | None:
    """cel-go's ``Compare``: -1, 0 or 1, or None where the two values have no ordering."""
    if is_number(left) and is_number(right):
        if isinstance(left, float) or isinstance(right, float):
            if left != left or right != right:  # NaN: cel-go compares it as neither less nor greater
                return 0
            a, b = float(left), float(right)  # as cel-go does: see dractl.cel.numbers
        else:
            a, b = int(left), int(right)
        return (a > b) - (a < b)
    name = type_name(left)
    if name in _ORDERED and name == type_name(right):
        return (left > right) - (left < right)
    return None

