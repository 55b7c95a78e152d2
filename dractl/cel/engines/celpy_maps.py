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
keys of its maps at all; equality of lists and maps is still CEL's. A map with a key other than a
string is a :class:`GoMap`, whose keys are compared as Go compares them: two equal quantities are
two keys, ``1`` and ``1u`` too, ``0`` and ``""`` never meet.

An optional with a value is a new ``*types.Optional`` wherever a variable holding it is read
(``applyQualifiers`` in ``interpreter/attributes.go`` unwraps it, the attribute wraps the value
again; the engine's evaluator does the same), so ``cel.bind(x, optional.of(1), x in {x: 1})``
is false, while a map still finds its own keys (``m == m``).
A list or map bound by ``cel.bind`` to an empty value is cel-go's new mutable list or map
(``folder.ResolveName`` in ``interpreter/interpretable.go``), which shows in a message
(:class:`MutableList`, :class:`MutableMap`) and, for a device's empty map, in its lookups.
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


class MutableList(ct.ListType):
    """cel-go's ``*types.mutableList``: what ``cel.bind`` binds an empty list literal to."""


class MutableMap(ct.MapType):
    """cel-go's ``*types.mutableMap``: what ``cel.bind`` binds an empty map literal to."""


def bound(value: Any) -> Any:
    """``value`` as ``cel.bind`` binds it: an empty list or map becomes a new mutable one, also a
    device's empty ``device.capacity``, which then loses upstream's empty-map default for a
    missing domain (``cel.bind(m, device.capacity, m["d"])`` is ``no such key: d`` there)."""
    if isinstance(value, ct.ListType) and not value:
        return MutableList()
    if isinstance(value, ct.MapType) and not value:
        return MutableMap()
    return value


class _Key:
    """A key of a :class:`GoMap`: equal to another of the same Go type and value, or, for a
    pointer, to itself only."""

    __slots__ = ("hash", "kind", "value")

    def __init__(self, value: Any, kind: str) -> None:
        self.value = value
        self.kind = kind
        if kind in _POINTERS:
            self.hash = id(value)
        else:
            try:
                self.hash = hash((kind, float(value) if kind == "double" else value))
            except TypeError:
                self.hash = hash(kind)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return type(other) is _Key and other.kind == self.kind and _same_key(other.value, self.value, self.kind)


class GoMap(ct.MapType):
    """A map keyed as a Go map is (its keys held in :class:`_Key`); it shows them unwrapped.
    Python's own keys would merge an int and a uint, or compare ``0`` with ``""`` (equal
    hashes) and fail."""

    def __iter__(self) -> Any:
        for key in dict.__iter__(self):
            yield key.value

    def keys(self) -> Any:  # type: ignore[override]
        return list(self)

    def items(self) -> Any:  # type: ignore[override]
        return [(key.value, value) for key, value in dict.items(self)]

    def __getitem__(self, key: Any) -> Any:
        found, value = find(self, key)
        if not found:
            raise KeyError(key)
        return value

    def get(self, key: Any, default: Any = None) -> Any:
        found, value = find(self, key)
        return value if found else default

    def __contains__(self, key: object) -> bool:
        return contains(self, key)


def _as_go_map(mapping: dict[Any, Any]) -> None:
    entries = list(dict.items(mapping))
    dict.clear(mapping)
    mapping.__class__ = GoMap  # the same layout: only the keys' wrapping changes
    for key, value in entries:
        dict.__setitem__(mapping, _Key(key, type_name(key)), value)


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
        # cel-go's doubleToInt64Checked refuses -2^63 itself (``v <= MinInt64``)
        if _INT64_MIN < whole <= _INT64_MAX and float(whole) == float(key):
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
    """Set ``key`` (a key already there by Go's lookup is replaced). A map of string keys stays
    Python's own; the first key of another type makes it a :class:`GoMap`."""
    check_hashable(key)
    kind = type_name(key)
    if type(mapping) is not GoMap:
        if kind == "string":
            dict.__setitem__(mapping, key, value)
            return
        _as_go_map(mapping)
    dict.__setitem__(mapping, _Key(key, kind), value)


# ``%T`` of the values cel-go cannot make a qualifier of (``newQualifier`` in
# ``interpreter/attributes.go``), by CEL type name.
_MUTABLE_GO_TYPES = {MutableList: "*types.mutableList", MutableMap: "*types.mutableMap"}
_QUALIFIER_GO_TYPES = {"list": "*types.baseList", "map": "*types.baseMap", "optional_type": "*types.Optional",
                       "type": "*types.Type", "null_type": "types.Null", "bytes": "types.Bytes",
                       "google.protobuf.Duration": "types.Duration", "google.protobuf.Timestamp": "types.Timestamp",
                       "kubernetes.Quantity": "cel.Quantity", "kubernetes.Semver": "cel.Semver",
                       "kubernetes.URL": "cel.URL", "net.IP": "cel.IP", "net.CIDR": "cel.CIDR",
                       "kubernetes.NamedFormat": "cel.Format"}


def unqualified_type(key: Any) -> str | None:
    """The Go type of an index value cel-go cannot qualify a map with (None: it can)."""
    return _MUTABLE_GO_TYPES.get(type(key)) or _QUALIFIER_GO_TYPES.get(type_name(key))
