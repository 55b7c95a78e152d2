"""The ``device`` a selector sees, built from one ResourceSlice device.

A :class:`CelDevice` converts its attributes and capacities once into plain values and once
per engine into that engine's values, and keeps both, so a run that evaluates many selectors
on one device converts it only once.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from dractl.api.quantity import Quantity, QuantityError, parse_quantity
from dractl.cel.semver import Semver, SemverError, parse_semver

_SCALAR_KINDS = ("int", "bool", "string", "version")
_LIST_KINDS = ("ints", "bools", "strings", "versions")


class DeviceConversionError(Exception):
    """An attribute or capacity the scheduler cannot hand to CEL; message as upstream's."""


def split_qualified_name(name: str, driver: str) -> tuple[str, str]:
    """``domain/id``; a name without a domain belongs to the driver's domain."""
    domain, sep, ident = name.partition("/")
    if not sep:
        return driver, name
    return domain, ident


# Devices of one cluster repeat the same few versions and quantities; each text is parsed once
# (the values are immutable). Failures are not cached: they are rare and end the evaluation.
@functools.lru_cache(maxsize=16384)
def _parsed_version(text: str) -> Semver:
    return parse_semver(text)


@functools.lru_cache(maxsize=16384)
def _parsed_quantity(text: str) -> Quantity:
    return parse_quantity(text)


def _version(text: Any) -> Semver:
    try:
        return _parsed_version(text if type(text) is str else str(text))
    except SemverError as exc:
        raise DeviceConversionError(f"parse semantic version: {exc}") from None


def _attribute_value(attribute: Any, list_types: bool) -> Any:
    if type(attribute) is not dict and not isinstance(attribute, Mapping):
        raise DeviceConversionError("unsupported attribute value")
    if list_types:
        for kind in _LIST_KINDS:
            values = attribute.get(kind)
            if values is not None:
                return [_version(v) for v in values] if kind == "versions" else list(values)
    for kind in _SCALAR_KINDS:
        value = attribute.get(kind)
        if value is not None:
            return _version(value) if kind == "version" else value
    raise DeviceConversionError("unsupported attribute value")


def _capacity_value(capacity: Any) -> Quantity:
    value = capacity.get("value") if type(capacity) is dict or isinstance(capacity, Mapping) else capacity
    try:
        return _parsed_quantity(value if type(value) is str else str(value))
    except QuantityError as exc:
        raise DeviceConversionError(str(exc)) from None


class PlainDevice:
    """Engine-independent view: domain → id → value, or the conversion error."""

    __slots__ = ("allow_multiple_allocations", "attributes", "capacity", "driver", "error")

    def __init__(
        self,
        driver: str,
        attributes: dict[str, dict[str, Any]],
        capacity: dict[str, dict[str, Quantity]],
        allow_multiple_allocations: bool,
        error: str | None,
    ) -> None:
        self.driver = driver
        self.attributes = attributes
        self.capacity = capacity
        self.allow_multiple_allocations = allow_multiple_allocations
        self.error = error


class CelDevice:
    """One device as input to selectors.

    ``attributes`` and ``capacity`` are the v1 ResourceSlice maps (``{name: {int|bool|string|
    version: x}}``, with 1.36 list kinds ``ints|bools|strings|versions``; ``{name: {value:
    Quantity}}``), with or without domain prefix on the names.
    """

    __slots__ = ("_engine_values", "_plain", "_program_inputs", "allow_multiple_allocations", "attributes",
                 "capacity", "driver")

    def __init__(
        self,
        driver: str,
        attributes: Mapping[str, Any] | None = None,
        capacity: Mapping[str, Any] | None = None,
        allow_multiple_allocations: bool | None = None,
    ) -> None:
        self.driver = driver
        self.attributes = dict(attributes or {})
        self.capacity = dict(capacity or {})
        self.allow_multiple_allocations = allow_multiple_allocations
        self._plain: dict[bool, PlainDevice] = {}
        self._engine_values: dict[tuple[object, ...], Any] = {}
        self._program_inputs: dict[object, Any] = {}

    def plain(self, list_types: bool) -> PlainDevice:
        """The converted device; list attribute values only when DRAListTypeAttributes is on."""
        cached = self._plain.get(list_types)
        if cached is not None:
            return cached
        attributes: dict[str, dict[str, Any]] = {}
        capacity: dict[str, dict[str, Quantity]] = {}
        error: str | None = None
        for name, attribute in self.attributes.items():
            try:
                value = _attribute_value(attribute, list_types)
            except DeviceConversionError as exc:
                # Upstream converts every attribute before evaluating, so one bad attribute
                # fails every selector on this device.
                error = f"attribute {name}: {exc}"
                break
            domain, ident = split_qualified_name(name, self.driver)
            attributes.setdefault(domain, {})[ident] = value
        for name, entry in self.capacity.items():
            try:
                quantity = _capacity_value(entry)
            except DeviceConversionError as exc:
                error = error or f"capacity {name}: {exc}"
                break
            domain, ident = split_qualified_name(name, self.driver)
            capacity.setdefault(domain, {})[ident] = quantity
        plain = PlainDevice(
            self.driver, attributes, capacity, bool(self.allow_multiple_allocations), error
        )
        self._plain[list_types] = plain
        return plain

    def engine_value(self, key: tuple[object, ...]) -> Any:
        return self._engine_values.get(key)

    def set_engine_value(self, key: tuple[object, ...], value: Any) -> None:
        self._engine_values[key] = value

    def program_input(self, program: object) -> Any:
        """What one compiled program evaluates this device with (built from an engine value)."""
        return self._program_inputs.get(program)

    def set_program_input(self, program: object, value: Any) -> None:
        self._program_inputs[program] = value

    def __repr__(self) -> str:
        return f"CelDevice(driver={self.driver!r}, attributes={self.attributes!r}, capacity={self.capacity!r})"
