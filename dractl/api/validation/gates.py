"""Fields the apiserver silently drops on create because their feature gate is off.

Mirrors the registry strategies' ``dropDisabledFields`` (``pkg/registry/resource/*/strategy.go``
and ``resourceclaimspec/strategy.go``): with no old object on create, every gated field is
dropped when its gate is disabled, before validation runs.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

from dractl.api.paths import Key, Path
from dractl.api.releases import Features, first_default_on
from dractl.records import Record

from .limits import limits_for


class DroppedField(Record):
    """A field that was set but is dropped on create because ``gate`` is off."""

    __slots__ = ("gate", "path")
    __hash__ = Record.value_hash

    def __init__(self, path: Path, gate: str) -> None:
        self.path = path
        self.gate = gate

    @property
    def default_on_in(self) -> str | None:
        """The first known release in which the gate is on by default."""
        return first_default_on(self.gate)


def drop_disabled_fields(
    kind: str, data: dict[str, Any], features: Features
) -> tuple[dict[str, Any], list[DroppedField]]:
    """``data`` without the fields of disabled gates (a copy if any), and the fields dropped."""
    # Most objects use no disabled field: look first, copy only when something goes.
    if not _drop(kind, data, features, _Drops(mutate=False)):
        return data, []
    out = copy.deepcopy(data)
    dropped = _Drops(mutate=True)
    _drop(kind, out, features, dropped)
    return out, list(dropped)


class _Drops(list[DroppedField]):
    def __init__(self, *, mutate: bool) -> None:
        super().__init__()
        self.mutate = mutate


def _drop(kind: str, data: dict[str, Any], features: Features, dropped: _Drops) -> _Drops:
    spec = data.get("spec")
    if not isinstance(spec, dict):
        return dropped
    if kind == "ResourceClaim":
        _drop_claim_spec(spec, ("spec",), features, dropped)
    elif kind == "ResourceClaimTemplate":
        inner = spec.get("spec")
        if isinstance(inner, dict):
            _drop_claim_spec(inner, ("spec", "spec"), features, dropped)
    elif kind == "ResourceSlice":
        _drop_slice_spec(spec, features, dropped)
    elif kind == "DeviceClass" and not features.enabled("DRAExtendedResource"):
        _pop(spec, "extendedResourceName", ("spec",), "DRAExtendedResource", dropped)
    return dropped


def _pop(container: Any, key: str, parent: Path, gate: str, dropped: _Drops) -> None:
    if not isinstance(container, dict) or key not in container:
        return
    value = container.pop(key) if dropped.mutate else container[key]
    if value is not None and value != [] and value != {}:
        dropped.append(DroppedField((*parent, key), gate))


def _dicts(container: Any, key: str, parent: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    values = container.get(key) if isinstance(container, dict) else None
    if isinstance(values, list):
        for i, value in enumerate(values):
            if isinstance(value, dict):
                yield (*parent, key, i), value


def _drop_claim_spec(
    spec: dict[str, Any], prefix: Path, features: Features, dropped: _Drops
) -> None:
    devices = spec.get("devices")
    if not isinstance(devices, dict):
        return
    base = (*prefix, "devices")
    requests = list(_dicts(devices, "requests", base))
    # Order as upstream: sub-requests go first, so their tolerations are not reported twice.
    if not features.enabled("DRAPrioritizedList"):
        for path, request in requests:
            _pop(request, "firstAvailable", path, "DRAPrioritizedList", dropped)
    if not features.enabled("DRADeviceTaints"):
        for path, request in requests:
            _pop(
                request.get("exactly"),
                "tolerations",
                (*path, "exactly"),
                "DRADeviceTaints",
                dropped,
            )
            for sub_path, sub in _dicts(request, "firstAvailable", path):
                _pop(sub, "tolerations", sub_path, "DRADeviceTaints", dropped)
    if not features.enabled("DRAAdminAccess"):
        for path, request in requests:
            _pop(
                request.get("exactly"), "adminAccess", (*path, "exactly"), "DRAAdminAccess", dropped
            )
    if not features.enabled("DRAConsumableCapacity"):
        for path, constraint in _dicts(devices, "constraints", base):
            _pop(constraint, "distinctAttribute", path, "DRAConsumableCapacity", dropped)
        for path, request in requests:
            _pop(
                request.get("exactly"),
                "capacity",
                (*path, "exactly"),
                "DRAConsumableCapacity",
                dropped,
            )
            for sub_path, sub in _dicts(request, "firstAvailable", path):
                _pop(sub, "capacity", sub_path, "DRAConsumableCapacity", dropped)


_LIST_ATTRIBUTE_FIELDS = ("bools", "ints", "strings", "versions")


def _drop_slice_spec(spec: dict[str, Any], features: Features, dropped: _Drops) -> None:
    devices = list(_dicts(spec, "devices", ("spec",)))

    def each_device(gate: str, *fields: str) -> None:
        for path, device in devices:
            for name in fields:
                _pop(device, name, path, gate, dropped)

    if not features.enabled("DRADeviceTaints"):
        each_device("DRADeviceTaints", "taints")
    if not features.enabled("DRAPartitionableDevices"):
        gate = "DRAPartitionableDevices"
        _pop(spec, "sharedCounters", ("spec",), gate, dropped)
        _pop(spec, "perDeviceNodeSelection", ("spec",), gate, dropped)
        each_device(gate, "consumesCounters", "nodeName", "nodeSelector", "allNodes")
    binding_gates = [
        g
        for g in ("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus")
        if not features.enabled(g)
    ]
    if binding_gates:
        each_device(
            binding_gates[0], "bindingConditions", "bindingFailureConditions", "bindsToNode"
        )
    if not features.enabled("DRAConsumableCapacity"):
        gate = "DRAConsumableCapacity"
        for path, device in devices:
            _pop(device, "allowMultipleAllocations", path, gate, dropped)
            _each_value(
                device, "capacity", path, lambda p, c: _pop(c, "requestPolicy", p, gate, dropped)
            )
    if limits_for(features.release).list_attributes:
        if not features.enabled("DRANodeAllocatableResources"):
            each_device("DRANodeAllocatableResources", "nodeAllocatableResourceMappings")
        if not features.enabled("DRAListTypeAttributes"):

            def drop_lists(path: Path, attribute: Any) -> None:
                for name in _LIST_ATTRIBUTE_FIELDS:
                    _pop(attribute, name, path, "DRAListTypeAttributes", dropped)

            for path, device in devices:
                _each_value(device, "attributes", path, drop_lists)


def _each_value(
    container: dict[str, Any], key: str, parent: Path, action: Callable[[Path, Any], object]
) -> None:
    values = container.get(key)
    if isinstance(values, dict):
        for name, value in values.items():
            if isinstance(value, dict):
                action((*parent, key, Key(name)), value)
