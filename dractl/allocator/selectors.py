"""CEL selectors of a class plus a request, evaluated at most once per device.

Upstream evaluates selectors per node and per Allocate call; the result does not depend
on the node, so a :class:`SelectorSet` (one per distinct class + request selector list)
keeps a verdict per device and every node shares it. Nor does it depend on the device's
name: devices with the same driver, attributes, capacity and allowMultipleAllocations (a
large cluster repeats a few kinds of device on every node) share one evaluation. The order is upstream's: class
selectors first, then the request's; the first false or failing selector decides, and
later ones are not evaluated. Errors are kept as data and raised by the solver only at
the moment upstream would have met them, so a failing selector on a device that the
search never looks at is, as upstream, no error.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from dractl.allocator.inventory import DeviceEntry
from dractl.allocator.trace import Reason, Rejection
from dractl.records import Record


class CompiledSelector(Protocol):
    def evaluate(self, device: Any) -> bool: ...


Compiler = Callable[[str], CompiledSelector]
DeviceFactory = Callable[[DeviceEntry, bool], Any]


class Verdict(Record):
    """A selector that is false (`error` None) or failed; `compile_error` tells which kind."""

    __slots__ = ("compile_error", "error", "expression", "from_class", "index")
    __hash__ = Record.value_hash

    def __init__(
        self,
        from_class: bool,
        index: int,
        expression: str,
        error: str | None = None,
        compile_error: bool = False,
    ) -> None:
        self.from_class = from_class
        self.index = index
        self.expression = expression
        self.error = error
        self.compile_error = compile_error

    def error_text(self, owner: str) -> str:
        kind = "compile" if self.compile_error else "runtime"
        return f"{owner}: selector #{self.index}: CEL {kind} error: {self.error}"


MATCH = None

# `device.driver == "name"` is most DeviceClasses' only selector. Its value is plain string
# equality on the driver, so it is answered without building the device's CEL input.
_DRIVER_EQUALS = re.compile(r'^\s*(?:device\.driver\s*==\s*"([^"\\]*)"|"([^"\\]*)"\s*==\s*device\.driver)\s*$')


_SCALAR_KINDS = ("int", "bool", "string", "version")
_LIST_KINDS = ("ints", "bools", "strings", "versions")
_versions: dict[str, bool] = {}


def _valid_version(text: Any) -> bool:
    key = str(text)
    found = _versions.get(key)
    if found is None:
        from dractl.cel.semver import SemverError, parse_semver

        try:
            parse_semver(key)
            found = True
        except SemverError:
            found = False
        _versions[key] = found
    return found


def cel_convertible(device: DeviceEntry, list_types: bool) -> bool:
    """Whether the scheduler can hand this device to CEL at all.

    Upstream converts every attribute and capacity before evaluating any selector, so a
    device with, say, an attribute without a value fails every selector, even
    `device.driver == "x"`. Only convertible devices take the driver fast path.
    """
    for attribute in device.attributes.values():
        if not isinstance(attribute, Mapping):
            return False
        kind = None
        if list_types:
            kind = next((k for k in _LIST_KINDS if attribute.get(k) is not None), None)
        if kind is None:
            kind = next((k for k in _SCALAR_KINDS if attribute.get(k) is not None), None)
        if kind is None:
            return False
        if kind == "version" and not _valid_version(attribute[kind]):
            return False
        if kind == "versions" and not all(_valid_version(v) for v in attribute[kind]):
            return False
    from dractl.allocator.inventory import device_capacity

    device_capacity(device)
    return device.capacity_problem is None


def driver_literal(expression: str) -> str | None:
    """The driver name when the expression is exactly a driver comparison."""
    match = _DRIVER_EQUALS.match(expression)
    if match is None:
        return None
    return match.group(1) if match.group(1) is not None else match.group(2)


class _CompiledOrError:
    __slots__ = ("compiled", "error")

    def __init__(self, compiled: CompiledSelector | None, error: str | None) -> None:
        self.compiled = compiled
        self.error = error


class SelectorEngine:
    """Compiles each expression once; builds the CEL input of each device once."""

    def __init__(
        self,
        compiler: Compiler | None = None,
        *,
        release: str = "1.36",
        gates: Mapping[str, bool] | None = None,
        sees_allow_multiple: bool = True,
        list_types: bool = False,
    ) -> None:
        self._list_types = list_types
        self._convertible: dict[DeviceEntry, bool] = {}
        self._compiler = compiler
        self._release = release
        self._gates = dict(gates or {})
        self._compiled: dict[str, _CompiledOrError] = {}
        self._sets: dict[tuple[str, tuple[str | None, ...], tuple[str | None, ...]], SelectorSet] = {}
        self._drivers: dict[str, str | None] = {}
        self._sees_allow_multiple = sees_allow_multiple
        self._device_factory: Callable[..., Any] | None = None
        self._twins: dict[tuple[str, str, str, bool], DeviceEntry] = {}
        self._twin_of: dict[DeviceEntry, DeviceEntry] = {}

    def twin(self, device: DeviceEntry) -> DeviceEntry:
        """The first device seen whose CEL input (what a selector can read, see
        :meth:`cel_device`) is the same as this one's; the device itself if it is the first.

        The values come from YAML or JSON (strings, numbers, booleans, null, lists and
        mappings), whose `repr` tells them apart exactly (`1`, `1.0` and `True` differ); a
        mapping written in another key order only misses the match.
        """
        found = self._twin_of.get(device)
        if found is None:
            allow_multiple = bool(device.allow_multiple_allocations) if self._sees_allow_multiple else False
            key = (device.id[0], repr(device.attributes), repr(device.capacity_raw), allow_multiple)
            found = self._twins.setdefault(key, device)
            self._twin_of[device] = found
        return found

    def compile(self, expression: str) -> _CompiledOrError:
        entry = self._compiled.get(expression)
        if entry is None:
            try:
                entry = _CompiledOrError(self._compile(expression), None)
            except Exception as error:  # any failure to compile is upstream's "CEL compile error"
                entry = _CompiledOrError(None, str(error))
            self._compiled[expression] = entry
        return entry

    def driver_literal(self, expression: str) -> str | None:
        found = self._drivers.get(expression, "")
        if found == "":
            found = driver_literal(expression)
            self._drivers[expression] = found
        return found

    def convertible(self, device: DeviceEntry) -> bool:
        found = self._convertible.get(device)
        if found is None:
            found = cel_convertible(device, self._list_types)
            self._convertible[device] = found
        return found

    def _compile(self, expression: str) -> CompiledSelector:
        if self._compiler is not None:
            return self._compiler(expression)
        from dractl.cel import compile_selector

        return compile_selector(expression, release=self._release, gates=self._gates, purpose="stored")

    def cel_device(self, device: DeviceEntry) -> Any:
        cached = device.cel_device
        if cached is not None and cached[0] is self:
            return cached[1]
        if self._device_factory is None:
            from dractl.cel import CelDevice

            self._device_factory = CelDevice
        allow_multiple = bool(device.allow_multiple_allocations) if self._sees_allow_multiple else False
        value = self._device_factory(
            driver=device.id[0],
            attributes=device.attributes,
            capacity=device.capacity_raw,
            allow_multiple_allocations=allow_multiple,
        )
        device.cel_device = (self, value)
        return value

    def selector_set(
        self, class_name: str, class_selectors: list[str | None], request_selectors: list[str | None]
    ) -> SelectorSet:
        key = (class_name, tuple(class_selectors), tuple(request_selectors))
        found = self._sets.get(key)
        if found is None:
            found = SelectorSet(self, class_name, list(class_selectors), list(request_selectors))
            self._sets[key] = found
        return found


class SelectorSet:
    """The selectors of one class and one request; `verdict(device)` is cached per device."""

    __slots__ = ("_drivers_only", "_rejections", "_verdicts", "class_name", "class_selectors", "engine",
                 "request_selectors")

    def __init__(
        self, engine: SelectorEngine, class_name: str, class_selectors: list[str | None],
        request_selectors: list[str | None],
    ) -> None:
        self.engine = engine
        self.class_name = class_name
        self.class_selectors = class_selectors
        self.request_selectors = request_selectors
        self._verdicts: dict[DeviceEntry, Verdict | None] = {}
        self._rejections: dict[Verdict, Rejection] = {}
        # Whether every selector is a driver comparison (or empty), answered without CEL for
        # the devices CEL can take: then a device's own verdict costs less than finding its twin.
        self._drivers_only = all(
            expression is None or engine.driver_literal(expression) is not None
            for expression in (*class_selectors, *request_selectors)
        )

    def verdict(self, device: DeviceEntry) -> Verdict | None:
        """None when every selector is true."""
        try:
            return self._verdicts[device]
        except KeyError:
            pass
        if self._drivers_only and self.engine.convertible(device):
            verdict = self._evaluate(device, True) or self._evaluate(device, False)
            self._verdicts[device] = verdict
            return verdict
        twin = self.engine.twin(device)
        if twin is not device:
            verdict = self.verdict(twin)
        else:
            verdict = self._evaluate(device, True) or self._evaluate(device, False)
        self._verdicts[device] = verdict
        return verdict

    def _evaluate(self, device: DeviceEntry, from_class: bool) -> Verdict | None:
        selectors = self.class_selectors if from_class else self.request_selectors
        for index, expression in enumerate(selectors):
            if expression is None:
                continue  # rejected before the search as "CEL expression empty"
            driver = self.engine.driver_literal(expression)
            if driver is not None and self.engine.convertible(device):
                if device.id[0] != driver:
                    return Verdict(from_class, index, expression)
                continue
            compiled = self.engine.compile(expression)
            if compiled.error is not None:
                return Verdict(from_class, index, expression, compiled.error, compile_error=True)
            assert compiled.compiled is not None
            try:
                matches = compiled.compiled.evaluate(self.engine.cel_device(device))
            except Exception as error:  # upstream: any evaluation error aborts the allocation
                return Verdict(from_class, index, expression, str(error))
            if not matches:
                return Verdict(from_class, index, expression)
        return MATCH

    def rejection(self, device: DeviceEntry) -> Rejection | None:
        verdict = self.verdict(device)
        if verdict is None:
            return None
        # One Rejection per verdict: devices that fail alike share it.
        found = self._rejections.get(verdict)
        if found is None:
            found = self._rejections[verdict] = self._rejection(verdict)
        return found

    def _rejection(self, verdict: Verdict) -> Rejection:
        owner = f"class {self.class_name}" if verdict.from_class else "the request"
        if verdict.error is None:
            reason = Reason.CLASS_SELECTOR_FALSE if verdict.from_class else Reason.REQUEST_SELECTOR_FALSE
            return Rejection(reason, (owner, verdict.index, verdict.expression))
        reason = Reason.CLASS_SELECTOR_ERROR if verdict.from_class else Reason.REQUEST_SELECTOR_ERROR
        return Rejection(reason, (owner, verdict.index, verdict.expression, verdict.error))
