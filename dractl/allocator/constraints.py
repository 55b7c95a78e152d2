"""Claim constraints: matchAttribute and distinctAttribute, with upstream's bookkeeping.

`add` is called when a device is about to be picked and `remove` when the search gives
it back. As upstream, a matchAttribute constraint with list-type attributes keeps the
running intersection of values and does not widen it again on `remove`; only when the
last device leaves does the next device start afresh.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.allocator.inventory import DeviceEntry, DeviceID
from dractl.allocator.trace import Reason

_SCALAR_KINDS = ("string", "int", "bool", "version")
_SET_ORDER = (("ints", "int"), ("bools", "bool"), ("strings", "string"), ("versions", "version"),
              ("int", "int"), ("bool", "bool"), ("string", "string"), ("version", "version"))

AttributeSet = tuple[str, frozenset[Any]]


def lookup_attribute(device: DeviceEntry, name: str) -> Mapping[str, Any] | None:
    """A fully qualified attribute; `<driver>/<id>` also finds the bare `<id>` of that driver."""
    attributes = device.attributes
    found = attributes.get(name)
    if found is not None:
        return found
    prefix, slash, short = name.partition("/")
    if not slash or prefix != device.id[0]:
        return None
    return attributes.get(short)


def attribute_as_set(attribute: Mapping[str, Any]) -> AttributeSet | None:
    for key, kind in _SET_ORDER:
        value = attribute.get(key)
        if value is None:
            continue
        if key.endswith("s"):
            if len(value) == 0:
                continue
            return kind, frozenset(value)
        return kind, frozenset((value,))
    return None


def _scalar(attribute: Mapping[str, Any]) -> tuple[str, Any] | None:
    for kind in _SCALAR_KINDS:
        if attribute.get(kind) is not None:
            return kind, attribute[kind]
    return None


def _applies(names: frozenset[str], request: str, subrequest: str) -> bool:
    if not names:
        return True
    if not subrequest:
        return request in names
    return request in names or f"{request}/{subrequest}" in names


class Constraint:
    kind = ""
    attribute_name: str

    def add(self, request: str, subrequest: str, device: DeviceEntry) -> bool:
        raise NotImplementedError

    def remove(self, request: str, subrequest: str, device: DeviceEntry) -> None:
        raise NotImplementedError

    def explain(self, request: str, subrequest: str, device: DeviceEntry) -> tuple[Any, ...]:
        """Reason and arguments for a device that `add` just refused (cold path)."""
        raise NotImplementedError


class MatchAttribute(Constraint):
    kind = "matchAttribute"

    def __init__(self, attribute: str, requests: list[str], list_types: bool) -> None:
        self.attribute_name = attribute
        self.requests = frozenset(requests)
        self.list_types = list_types
        self.value: Mapping[str, Any] | None = None
        self.intersection: AttributeSet | None = None
        self.count = 0
        self.first_device: DeviceID | None = None

    def add(self, request: str, subrequest: str, device: DeviceEntry) -> bool:
        if self.requests and not _applies(self.requests, request, subrequest):
            return True
        attribute = lookup_attribute(device, self.attribute_name)
        if attribute is None:
            return False
        if self.count == 0:
            if self.list_types:
                self.intersection = attribute_as_set(attribute)
                if self.intersection is None:
                    return False
            else:
                self.value = attribute
            self.count = 1
            self.first_device = device.id
            return True
        if self.list_types:
            candidate = attribute_as_set(attribute)
            current = self.intersection
            if candidate is None or current is None or candidate[0] != current[0] or not (candidate[1] & current[1]):
                return False
            self.intersection = (current[0], current[1] & candidate[1])
        else:
            scalar = _scalar(attribute)
            if scalar is None:
                return False
            assert self.value is not None
            if self.value.get(scalar[0]) is None or self.value[scalar[0]] != scalar[1]:
                return False
            if scalar[0] == "int" and isinstance(scalar[1], bool) != isinstance(self.value[scalar[0]], bool):
                return False
        self.count += 1
        return True

    def remove(self, request: str, subrequest: str, device: DeviceEntry) -> None:
        if self.requests and not _applies(self.requests, request, subrequest):
            return
        self.count -= 1

    def explain(self, request: str, subrequest: str, device: DeviceEntry) -> tuple[Any, ...]:
        attribute = lookup_attribute(device, self.attribute_name)
        if attribute is None:
            return Reason.CONSTRAINT_MISSING_ATTRIBUTE, self.kind, self.attribute_name
        if self.list_types:
            mine = attribute_as_set(attribute)
            theirs = self.intersection
            return (Reason.CONSTRAINT_CONFLICT, self.kind, self.attribute_name,
                    mine[1] if mine else None, self.first_device, theirs[1] if theirs else None)
        mine_scalar = _scalar(attribute)
        theirs_scalar = _scalar(self.value or {})
        return (Reason.CONSTRAINT_CONFLICT, self.kind, self.attribute_name,
                mine_scalar[1] if mine_scalar else None, self.first_device,
                theirs_scalar[1] if theirs_scalar else None)


class DistinctAttribute(Constraint):
    kind = "distinctAttribute"

    def __init__(self, attribute: str, requests: list[str], list_types: bool) -> None:
        self.attribute_name = attribute
        self.requests = frozenset(requests)
        self.list_types = list_types
        # One value per request name: a second device of the same request replaces the first.
        self.values: dict[str, tuple[Mapping[str, Any], DeviceID]] = {}
        self.count = 0

    def add(self, request: str, subrequest: str, device: DeviceEntry) -> bool:
        if self.requests and not _applies(self.requests, request, subrequest):
            return True
        attribute = lookup_attribute(device, self.attribute_name)
        if attribute is None:
            return False
        if self.count == 0:
            self.values[request] = (attribute, device.id)
            self.count = 1
            return True
        if self._clash(attribute) is not None:
            return False
        self.values[request] = (attribute, device.id)
        self.count += 1
        return True

    def _clash(self, attribute: Mapping[str, Any]) -> tuple[Mapping[str, Any], DeviceID] | None:
        """The stored value this attribute collides with (or a sentinel for an unknown type)."""
        if self.list_types:
            mine = attribute_as_set(attribute)
            if mine is None:
                return ({}, ("", "", ""))
            for stored, owner in self.values.values():
                theirs = attribute_as_set(stored)
                if theirs is not None and theirs[0] == mine[0] and mine[1] & theirs[1]:
                    return stored, owner
            return None
        scalar = _scalar(attribute)
        for stored, owner in self.values.values():
            if scalar is None:
                return ({}, ("", "", ""))
            if stored.get(scalar[0]) is not None and stored[scalar[0]] == scalar[1]:
                return stored, owner
        return None

    def remove(self, request: str, subrequest: str, device: DeviceEntry) -> None:
        if self.requests and not _applies(self.requests, request, subrequest):
            return
        self.values.pop(request, None)
        self.count -= 1

    def explain(self, request: str, subrequest: str, device: DeviceEntry) -> tuple[Any, ...]:
        attribute = lookup_attribute(device, self.attribute_name)
        if attribute is None:
            return Reason.CONSTRAINT_MISSING_ATTRIBUTE, self.kind, self.attribute_name
        clash = self._clash(attribute)
        stored, owner = clash if clash is not None else ({}, None)
        mine = _scalar(attribute) or (None, None)
        theirs = _scalar(stored) or (None, None)
        if self.list_types:
            mine_set, theirs_set = attribute_as_set(attribute), attribute_as_set(stored)
            return (Reason.CONSTRAINT_CONFLICT, self.kind, self.attribute_name,
                    mine_set[1] if mine_set else None, owner, theirs_set[1] if theirs_set else None)
        return Reason.CONSTRAINT_CONFLICT, self.kind, self.attribute_name, mine[1], owner, theirs[1]
