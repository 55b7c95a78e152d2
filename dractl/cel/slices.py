"""Devices of ResourceSlices (v1 shape) as selector inputs."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from dractl.cel.device import CelDevice
from dractl.records import Record


class SliceDevice(Record):
    __slots__ = ("device", "driver", "name", "pool", "slice_name")
    __hash__ = Record.value_hash

    def __init__(
        self,
        driver: str,
        pool: str,
        name: str,
        device: CelDevice,
        slice_name: str,
    ) -> None:
        self.driver = driver
        self.pool = pool
        self.name = name
        self.device = device
        #: Name of the slice object the device came from, for messages.
        self.slice_name = slice_name


def devices_of_slice(data: Mapping[str, Any], *, consumable_capacity: bool) -> Iterator[SliceDevice]:
    """Every device of one ResourceSlice given as plain v1 data.

    With DRAConsumableCapacity off the apiserver drops ``allowMultipleAllocations`` and the
    scheduler never passes it, so a selector then reads it as false whatever the slice says."""
    spec = data.get("spec") if isinstance(data.get("spec"), Mapping) else {}
    assert isinstance(spec, Mapping)
    driver = str(spec.get("driver") or "")
    pool_spec = spec.get("pool")
    pool = str(pool_spec.get("name") or "") if isinstance(pool_spec, Mapping) else ""
    metadata = data.get("metadata") if isinstance(data.get("metadata"), Mapping) else {}
    assert isinstance(metadata, Mapping)
    slice_name = str(metadata.get("name") or "")
    devices = spec.get("devices")
    if not isinstance(devices, list):
        return
    for entry in devices:
        if not isinstance(entry, Mapping):
            continue
        attributes = entry.get("attributes") if isinstance(entry.get("attributes"), Mapping) else {}
        capacity = entry.get("capacity") if isinstance(entry.get("capacity"), Mapping) else {}
        multiple = entry.get("allowMultipleAllocations") if consumable_capacity else None
        yield SliceDevice(
            driver=driver,
            pool=pool,
            name=str(entry.get("name") or ""),
            device=CelDevice(driver, attributes, capacity, multiple if isinstance(multiple, bool) else None),
            slice_name=slice_name,
        )


def devices_of_slices(slices: Iterable[Mapping[str, Any]], *, consumable_capacity: bool) -> list[SliceDevice]:
    return [device for data in slices for device in devices_of_slice(data, consumable_capacity=consumable_capacity)]
