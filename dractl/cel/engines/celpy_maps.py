"""Map keys in the cel-python engine as cel-go holds them: in a Go map keyed by the value.

cel-go builds a map (a literal, ``transformMap``, ``transformMapEntry``) as a Go
``map[ref.Val]ref.Val`` and finds a key there by Go's map lookup (``refValMapAccessor.Find`` in
``common/types/map.go``), so what a key is depends on its Go type, not on CEL equality:

- a value type (int, uint, double, string, bool, null, duration, timestamp, IP, CIDR, a type) is
  found by an equal value of the same Go type; an int is also found as a uint of the same value
  and back, a double that is an integer as that int or uint (never the other way round);
- a list, a map, an optional, a quantity or a URL is a pointer there: a key only of itself.
  ``{[1]: 2}`` is a map of one entry and ``[1] in {[1]: 2}`` is false (another list);
  ``cel.bind(l, [1], l in {l: 2})`` is true;
- a semantic version or a format (structs holding slices) and bytes cannot be hashed: Go panics
  (``hash of unhashable type cel.Semver``), which ends the evaluation (:class:`GoPanic`).

cel-python's lists and maps get Python's identity hash here (a pointer's), so that they can be
keys of its maps at all; equality of lists and maps is still CEL's.
"""

from __future__ import annotations

from typing import Any

import celpy.celtypes as ct

from dractl.cel.engines.celpy_values import is_number, type_name

_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1

# cel-go holds these as pointers (``*baseList``, ``*baseMap``, ``*types.Optional``,
# ``cel.Quantity{*resource.Quantity}``, ``cel.URL{*url.URL}``).
_POINTERS = frozenset({"list", "map", "optional_type", "kubernetes.Quantity", "kubernetes.URL"})
_UNHASHABLE = {"kubernetes.Semver": "cel.Semver", "kubernetes.NamedFormat": "cel.Format", "bytes": "types.Bytes"}

ct.ListType.__hash__ = object.__hash__  # type: ignore[assignment,method-assign]
ct.MapType.__hash__ = object.__hash__  # type: ignore[assignment,method-assign]


class GoPanic(BaseException):
    """A panic in cel-go: ``Program.Eval`` recovers it as ``internal error: <panic>``, whatever
    an ``||`` or a macro around the failing step would have made of an error. A BaseException,
    so that no handler of cel-python turns it into an error value."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def check_hashable(key: Any) -> None:
    """Raise cel-go's panic for a key Go cannot hash."""
    go_type = _UNHASHABLE.get(type_name(key))
    if go_type is not None:
        raise GoPanic(f"runtime error: hash of unhashable type {go_type}")


def _same_key(stored: Any, key: Any, kind: str) -> bool:
    if kind in _POINTERS:
        return stored is key
    if type_name(stored) != kind:
        return False
    if kind == "double":
        return float(stored) == float(key)
    return bool(stored == key)


def find(mapping: dict[Any, Any], key: Any) -> tuple[bool, Any]:
    """(found, value) of ``key`` in ``mapping`` as cel-go's Go map lookup finds it."""
    check_hashable(key)
    if not mapping:
        return False, None
    kind = type_name(key)
    candidates = [(key, kind)]
    if kind == "double" and is_number(key) and float(key).is_integer():
        whole = int(key)
        if _INT64_MIN <= whole <= _INT64_MAX and float(whole) == float(key):
            candidates.append((whole, "int"))
        if 0 <= whole <= _UINT64_MAX:
            candidates.append((whole, "uint"))
    elif kind == "int" and int(key) >= 0:
        candidates.append((int(key), "uint"))
    elif kind == "uint" and int(key) <= _INT64_MAX:
        candidates.append((int(key), "int"))
    for wanted, wanted_kind in candidates:
        for stored, value in mapping.items():
            if _same_key(stored, wanted, wanted_kind):
                return True, value
    return False, None


def contains(mapping: dict[Any, Any], key: Any) -> bool:
    return find(mapping, key)[0]


def insert(mapping: dict[Any, Any], key: Any, value: Any) -> None:
    """Set ``key`` (a key already there by Go's lookup is replaced)."""
    check_hashable(key)
    kind = type_name(key)
    for stored in list(mapping):
        if _same_key(stored, key, kind):
            del mapping[stored]
    mapping[key] = value


# ``%T`` of the values cel-go cannot make a qualifier of (``newQualifier`` in
# ``interpreter/attributes.go``), by CEL type name.
_QUALIFIER_GO_TYPES = {"list": "*types.baseList", "map": "*types.baseMap", "optional_type": "*types.Optional",
                       "type": "*types.Type", "null_type": "types.Null", "bytes": "types.Bytes",
                       "google.protobuf.Duration": "types.Duration", "google.protobuf.Timestamp": "types.Timestamp",
                       "kubernetes.Quantity": "cel.Quantity", "kubernetes.Semver": "cel.Semver",
                       "kubernetes.URL": "cel.URL", "net.IP": "cel.IP", "net.CIDR": "cel.CIDR",
                       "kubernetes.NamedFormat": "cel.Format"}


def unqualified_type(key: Any) -> str | None:
    """The Go type of an index value cel-go cannot qualify a map with (None: it can)."""
    return _QUALIFIER_GO_TYPES.get(type_name(key))
