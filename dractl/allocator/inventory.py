"""The allocator's input structures, built once from v1-shaped objects and shared by every node.

:class:`Inventory` indexes DeviceClasses, ResourceSlices (devices, counters, node
selection), DeviceTaintRules and the devices already in use (from claims whose
`status.allocation` is set). Everything that does not depend on the node — parsed
quantities, node selectors, CEL inputs, selector verdicts — is computed at most once here
and reused by every :meth:`Allocator.allocate <dractl.allocator.solver.Allocator.allocate>` call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any

from dractl.allocator.capacity import violates_policy
from dractl.allocator.nodes import NodeSelector, NodeSelectorError, parse_node_selector
from dractl.allocator.quantity import Quantity, QuantityError
from dractl.records import Record

DeviceID = tuple[str, str, str]
"""(driver, pool, device), upstream's `DeviceID`."""


_NO_COUNTERS: list[tuple[str, dict[str, Fraction]]] = []


def format_device_id(device_id: DeviceID) -> str:
    return "/".join(device_id)


def claim_ref(claim: Mapping[str, Any]) -> str:
    """`namespace/name` as klog prints claims; a claim without namespace is in `default`."""
    metadata = claim.get("metadata") or {}
    return f"{metadata.get('namespace') or 'default'}/{metadata.get('name') or ''}"


def object_data(obj: Any) -> dict[str, Any]:
    """The v1-shaped dict of an `ApiObject` (its `.data`) or of a plain manifest dict."""
    data = getattr(obj, "data", obj)
    if not isinstance(data, dict):
        raise TypeError(f"expected a Kubernetes object, got {type(obj).__name__}")
    return data


def object_kind(obj: Any) -> str:
    kind = getattr(obj, "kind", None)
    if kind is None:
        kind = object_data(obj).get("kind")
    return str(kind or "")


class ParsedSelector:
    """A node selector parsed on first use; a parse error is kept and re-raised."""

    __slots__ = ("_error", "_parsed", "raw")

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = raw
        self._parsed: NodeSelector | None = None
        self._error: NodeSelectorError | None = None

    def get(self) -> NodeSelector:
        if self._parsed is None and self._error is None:
            try:
                self._parsed = parse_node_selector(self.raw)
            except NodeSelectorError as error:
                self._error = error
        if self._error is not None:
            raise self._error
        assert self._parsed is not None
        return self._parsed


class CapacityEntry(Record):
    __slots__ = (
        "default",
        "has_policy",
        "has_range",
        "range_max",
        "range_min",
        "range_step",
        "valid_values",
        "value",
    )

    def __init__(
        self,
        value: Quantity,
        default: Quantity | None,
        valid_values: tuple[Quantity, ...] | None,
        range_min: Quantity | None,
        range_max: Quantity | None,
        range_step: Quantity | None,
        has_policy: bool,
        has_range: bool,
    ) -> None:
        self.value = value
        self.default = default
        self.valid_values = valid_values
        self.range_min = range_min
        self.range_max = range_max
        self.range_step = range_step
        self.has_policy = has_policy
        self.has_range = has_range


class DeviceEntry:
    """One device of one slice, with what the allocator needs from it parsed once."""

    __slots__ = (
        "all_nodes",
        "allow_multiple_allocations",
        "attributes",
        "binding_conditions",
        "binding_failure_conditions",
        "binds_to_node",
        "capacity_problem",
        "capacity_raw",
        "cel_device",
        "consumes_counters",
        "id",
        "idle_fit",
        "index",
        "name",
        "node_name",
        "node_selector",
        "parsed_capacity",
        "raw",
        "slice",
        "taints",
    )

    def __init__(
        self,
        id: DeviceID,
        name: str,
        slice: SliceEntry,
        index: int,
        raw: dict[str, Any],
        attributes: dict[str, Any],
        capacity_raw: dict[str, Any],
        consumes_counters: list[tuple[str, dict[str, Fraction]]],
        taints: list[dict[str, Any]],
        binding_conditions: list[str] | None,
        binding_failure_conditions: list[str] | None,
        binds_to_node: bool,
        allow_multiple_allocations: bool | None,
        node_name: str | None,
        all_nodes: bool,
        node_selector: ParsedSelector | None,
        parsed_capacity: dict[str, CapacityEntry] | None = None,
        capacity_problem: str | None = None,
        idle_fit: bool = False,
        cel_device: Any = None,
    ) -> None:
        self.id = id
        self.name = name
        self.slice = slice
        self.index = index
        self.raw = raw
        self.attributes = attributes
        self.capacity_raw = capacity_raw
        self.consumes_counters = consumes_counters
        self.taints = taints
        self.binding_conditions = binding_conditions
        self.binding_failure_conditions = binding_failure_conditions
        self.binds_to_node = binds_to_node
        self.allow_multiple_allocations = allow_multiple_allocations
        self.node_name = node_name
        self.all_nodes = all_nodes
        self.node_selector = node_selector
        # Parsed on first use by :func:`device_capacity` (most devices never need it).
        self.parsed_capacity = parsed_capacity
        self.capacity_problem = capacity_problem
        # Whether a request without capacity requests fits while nothing of the device is used.
        self.idle_fit = idle_fit
        self.cel_device = cel_device


class SliceEntry:
    __slots__ = (
        "all_nodes",
        "devices",
        "driver",
        "generation",
        "has_binding_conditions",
        "input_index",
        "name",
        "node_name",
        "node_selector",
        "per_device_node_selection",
        "pool",
        "raw",
        "resource_slice_count",
        "shared_counters",
    )

    def __init__(
        self,
        name: str,
        input_index: int,
        driver: str,
        pool: str,
        generation: int,
        resource_slice_count: int,
        node_name: str | None,
        all_nodes: bool,
        node_selector: ParsedSelector | None,
        per_device_node_selection: bool | None,
        shared_counters: list[tuple[str, dict[str, Fraction]]],
        devices: list[DeviceEntry],
        has_binding_conditions: bool,
        raw: dict[str, Any],
    ) -> None:
        self.name = name
        self.input_index = input_index
        self.driver = driver
        self.pool = pool
        self.generation = generation
        self.resource_slice_count = resource_slice_count
        self.node_name = node_name
        self.all_nodes = all_nodes
        self.node_selector = node_selector
        self.per_device_node_selection = per_device_node_selection
        self.shared_counters = shared_counters
        self.devices = devices
        self.has_binding_conditions = has_binding_conditions
        self.raw = raw


class ClassEntry(Record):
    __slots__ = ("config", "name", "raw", "selectors")

    def __init__(
        self,
        name: str,
        selectors: list[str | None],
        config: list[dict[str, Any]],
        raw: dict[str, Any],
    ) -> None:
        self.name = name
        self.selectors = selectors
        self.config = config
        self.raw = raw


class AllocatedState(Record):
    """Devices in use, as the scheduler gathers them from allocated claims.

    Results with `adminAccess: true` do not count. With DRAConsumableCapacity, a result
    with a `shareID` is a shared allocation (its `consumedCapacity` adds up per device);
    otherwise every result takes its device exclusively.
    """

    __slots__ = ("aggregated_capacity", "devices", "owners", "shared", "shared_devices")

    def __init__(
        self,
        devices: set[DeviceID] | None = None,
        shared: set[tuple[DeviceID, str]] | None = None,
        shared_devices: set[DeviceID] | None = None,
        aggregated_capacity: dict[DeviceID, dict[str, Fraction]] | None = None,
        owners: dict[DeviceID, list[str]] | None = None,
    ) -> None:
        self.devices = set() if devices is None else devices
        self.shared = set() if shared is None else shared
        self.shared_devices = set() if shared_devices is None else shared_devices
        self.aggregated_capacity = {} if aggregated_capacity is None else aggregated_capacity
        self.owners = {} if owners is None else owners

    def is_allocated(self, device_id: DeviceID) -> bool:
        """Upstream's `IsDeviceAllocated`: exclusively, shared or with capacity in use."""
        return device_id in self.devices or device_id in self.shared_devices or device_id in self.aggregated_capacity

    def add(self, claim: Mapping[str, Any], consumable_capacity: bool, owner: str | None = None) -> None:
        """Adds the devices of one claim's `status.allocation`."""
        allocation = (claim.get("status") or {}).get("allocation") or {}
        owner = owner or claim_ref(claim)
        for result in (allocation.get("devices") or {}).get("results") or []:
            if result.get("adminAccess"):
                continue
            device_id: DeviceID = (str(result.get("driver") or ""), str(result.get("pool") or ""),
                                   str(result.get("device") or ""))
            self.owners.setdefault(device_id, []).append(owner)
            share_id = result.get("shareID")
            if consumable_capacity and share_id is not None:
                self.shared.add((device_id, str(share_id)))
                self.shared_devices.add(device_id)
                consumed = result.get("consumedCapacity")
                if consumed is not None:
                    total = self.aggregated_capacity.setdefault(device_id, {})
                    for name, value in consumed.items():
                        total[str(name)] = total.get(str(name), Fraction(0)) + _fraction(value)
                continue
            self.devices.add(device_id)


def _fraction(value: Any) -> Fraction:
    return _parse_quantity(value).value


_quantities: dict[Any, Quantity] = {}


def _parse_quantity(value: Any) -> Quantity:
    """Quantity.parse, remembered: slices repeat the same few values many times."""
    key = (type(value), value)
    found = _quantities.get(key)
    if found is None:
        found = Quantity.parse(value)
        if len(_quantities) < 65536:
            _quantities[key] = found
    return found


def _counter_sets(raw_sets: Iterable[Any]) -> list[tuple[str, dict[str, Fraction]]]:
    sets: list[tuple[str, dict[str, Fraction]]] = []
    for raw in raw_sets or []:
        raw = raw or {}
        counters = {
            str(name): _fraction((counter or {}).get("value", "0"))
            for name, counter in (raw.get("counters") or {}).items()
        }
        sets.append((str(raw.get("name") or raw.get("counterSet") or ""), counters))
    return sets


def _capacity(raw_capacity: Mapping[str, Any]) -> dict[str, CapacityEntry]:
    parsed: dict[str, CapacityEntry] = {}
    for name, entry in (raw_capacity or {}).items():
        entry = entry or {}
        policy = entry.get("requestPolicy")
        valid_range = (policy or {}).get("validRange")
        default = (policy or {}).get("default")
        valid_values = (policy or {}).get("validValues")
        parsed[str(name)] = CapacityEntry(
            value=_parse_quantity(entry.get("value", "0")),
            default=_parse_quantity(default) if default is not None else None,
            valid_values=tuple(Quantity.parse(v) for v in valid_values) if valid_values is not None else None,
            range_min=Quantity.parse(valid_range["min"]) if valid_range and valid_range.get("min") is not None else None,
            range_max=Quantity.parse(valid_range["max"]) if valid_range and valid_range.get("max") is not None else None,
            range_step=Quantity.parse(valid_range["step"]) if valid_range and valid_range.get("step") is not None else None,
            has_policy=policy is not None,
            has_range=valid_range is not None,
        )
    return parsed


def device_capacity(device: DeviceEntry) -> dict[str, CapacityEntry]:
    """The device's capacities with their request policies, parsed once."""
    if device.parsed_capacity is None:
        try:
            device.parsed_capacity = _capacity(device.capacity_raw)
        except (QuantityError, TypeError, KeyError, AttributeError) as error:
            device.parsed_capacity, device.capacity_problem = {}, str(error)
        device.idle_fit = all(_idle_fit(entry) for entry in device.parsed_capacity.values())
    return device.parsed_capacity


def _idle_fit(entry: CapacityEntry) -> bool:
    """A request that names no capacity takes the policy default, or else all of it."""
    taken = entry.default if entry.default is not None else entry.value
    if taken.value > entry.value.value or violates_policy(taken, entry):
        return False
    # With a policy and no default, the full check decides (fast path only for the plain cases).
    return not entry.has_policy or entry.default is not None


def _taint_rule_matches(rule: Mapping[str, Any], device: DeviceEntry,
                        cel_match: Callable[[str, DeviceEntry], bool] | None,
                        classes: Mapping[str, ClassEntry]) -> bool:
    selector = rule.get("deviceSelector") or {}
    for key, value in (("driver", device.id[0]), ("pool", device.id[1]), ("device", device.id[2])):
        wanted = selector.get(key)
        if wanted is not None and wanted != value:
            return False
    if cel_match is None:
        return True
    # 1.34's DeviceTaintSelector also selects by DeviceClass and CEL selectors (both removed
    # in 1.35): a class that does not exist, a false selector or a CEL error means the rule
    # does not apply to the device, as the scheduler's slice tracker decides.
    class_name = selector.get("deviceClassName")
    expressions: list[str | None] = []
    if class_name is not None:
        device_class = classes.get(str(class_name))
        if device_class is None:
            return False
        expressions.extend(device_class.selectors)
    expressions.extend(((s or {}).get("cel") or {}).get("expression") for s in selector.get("selectors") or [])
    return all(expression is None or cel_match(expression, device) for expression in expressions)


def taint_rule_cel_matcher(release: str, gates: Mapping[str, bool] | None = None) -> Callable[[str, DeviceEntry], bool]:
    """CEL for 1.34's DeviceTaintRule selectors: true when the expression holds for the device."""

    def matches(expression: str, device: DeviceEntry) -> bool:
        from dractl.cel import CelDevice, compile_selector

        try:
            compiled = compile_selector(expression, release=release, gates=dict(gates or {}), purpose="stored")
            return bool(compiled.evaluate(CelDevice(driver=device.id[0], attributes=device.attributes,
                                                    capacity=device.capacity_raw)))
        except Exception:  # compile or runtime error: the rule does not apply (upstream skips it)
            return False

    return matches


class Inventory:
    """Classes, slices and in-use devices of one cluster snapshot (v1 shape)."""

    def __init__(
        self,
        *,
        classes: Iterable[Any] = (),
        slices: Iterable[Any] = (),
        allocated_claims: Iterable[Any] = (),
        device_taint_rules: Iterable[Any] = (),
        consumable_capacity: bool = False,
        taint_rule_cel: Callable[[str, DeviceEntry], bool] | None = None,
    ) -> None:
        # `taint_rule_cel`: evaluates the deviceClassName / selectors of DeviceTaintRules
        # (Kubernetes 1.34 only, see taint_rule_cel_matcher); None ignores those fields.
        self.taint_rule_cel = taint_rule_cel
        self.classes: dict[str, ClassEntry] = {}
        for obj in classes:
            data = object_data(obj)
            spec = data.get("spec") or {}
            name = str((data.get("metadata") or {}).get("name") or "")
            selectors = [((s or {}).get("cel") or {}).get("expression") if (s or {}).get("cel") is not None else None
                         for s in spec.get("selectors") or []]
            self.classes[name] = ClassEntry(name, selectors, list(spec.get("config") or []), data)
        self.device_taint_rules = [object_data(rule).get("spec") or {} for rule in device_taint_rules]
        self.slices: list[SliceEntry] = [self._slice(object_data(obj), index) for index, obj in enumerate(slices)]
        self.slices_on_node: dict[str, list[SliceEntry]] = {}
        self.slices_shared: list[SliceEntry] = []
        self.slices_by_pool: dict[tuple[str, str], list[SliceEntry]] = {}
        for entry in self.slices:
            if entry.node_name and not entry.shared_counters:
                self.slices_on_node.setdefault(entry.node_name, []).append(entry)
            else:
                self.slices_shared.append(entry)
            self.slices_by_pool.setdefault((entry.driver, entry.pool), []).append(entry)
        # Devices of slices that name their node (and hold no counter sets): every other node
        # counts them as "for another node" (explanations, without a loop per node).
        self.node_slice_devices = sum(len(e.devices) for entries in self.slices_on_node.values() for e in entries)
        self.consumable_capacity = consumable_capacity
        self.allocated_claims = [object_data(claim) for claim in allocated_claims]
        self.allocated = self._allocated_state(self.allocated_claims, consumable_capacity)

    @classmethod
    def from_objects(cls, objects: Iterable[Any], *, consumable_capacity: bool = False,
                     taint_rule_cel: Callable[[str, DeviceEntry], bool] | None = None) -> Inventory:
        """Sorts objects by kind; claims count only when `status.allocation` is set."""
        classes, slices, claims, rules = [], [], [], []
        for obj in objects:
            kind = object_kind(obj)
            if kind == "DeviceClass":
                classes.append(obj)
            elif kind == "ResourceSlice":
                slices.append(obj)
            elif kind == "ResourceClaim" and ((object_data(obj).get("status") or {}).get("allocation")):
                claims.append(obj)
            elif kind == "DeviceTaintRule":
                rules.append(obj)
        return cls(classes=classes, slices=slices, allocated_claims=claims, device_taint_rules=rules,
                   consumable_capacity=consumable_capacity, taint_rule_cel=taint_rule_cel)

    def _slice(self, data: dict[str, Any], input_index: int) -> SliceEntry:
        spec = data.get("spec") or {}
        pool = spec.get("pool") or {}
        driver = str(spec.get("driver") or "")
        pool_name = str(pool.get("name") or "")
        node_selector = spec.get("nodeSelector")
        per_device = spec.get("perDeviceNodeSelection")
        counter_problem = None
        try:
            shared_counters = _counter_sets(spec.get("sharedCounters") or [])
        except QuantityError as error:  # a value dractl cannot evaluate: as for capacities
            shared_counters, counter_problem = [], str(error)
        entry = SliceEntry(
            name=str((data.get("metadata") or {}).get("name") or ""),
            input_index=input_index,
            driver=driver,
            pool=pool_name,
            generation=int(pool.get("generation") or 0),
            resource_slice_count=int(pool.get("resourceSliceCount") or 0),
            node_name=spec.get("nodeName") or None,
            all_nodes=bool(spec.get("allNodes")),
            node_selector=ParsedSelector(node_selector) if node_selector is not None else None,
            per_device_node_selection=None if per_device is None else bool(per_device),
            shared_counters=shared_counters,
            devices=[],
            has_binding_conditions=False,
            raw=data,
        )
        for index, raw in enumerate(spec.get("devices") or []):
            entry.devices.append(self._device(entry, index, raw or {}))
            if counter_problem is not None:
                entry.devices[-1].capacity_problem = counter_problem
        entry.has_binding_conditions = any(d.binding_conditions is not None for d in entry.devices)
        return entry

    def _device(self, slice_entry: SliceEntry, index: int, raw: dict[str, Any]) -> DeviceEntry:
        name = str(raw.get("name") or "")
        device_selector = raw.get("nodeSelector")
        problem = None
        try:
            consumes_counters = [
                (str((c or {}).get("counterSet") or ""),
                 {str(n): _fraction((v or {}).get("value", "0")) for n, v in ((c or {}).get("counters") or {}).items()})
                for c in raw["consumesCounters"] or []
            ] if raw.get("consumesCounters") else _NO_COUNTERS
        except QuantityError as error:  # a value dractl cannot evaluate: as for capacities
            consumes_counters, problem = _NO_COUNTERS, str(error)
        device = DeviceEntry(
            id=(slice_entry.driver, slice_entry.pool, name),
            name=name,
            slice=slice_entry,
            index=index,
            raw=raw,
            attributes=raw.get("attributes") or {},
            capacity_raw=raw.get("capacity") or {},
            consumes_counters=consumes_counters,
            capacity_problem=problem,
            taints=raw.get("taints") or [],
            binding_conditions=raw.get("bindingConditions"),
            binding_failure_conditions=raw.get("bindingFailureConditions"),
            binds_to_node=bool(raw.get("bindsToNode")),
            allow_multiple_allocations=raw.get("allowMultipleAllocations"),
            node_name=raw.get("nodeName") or None,
            all_nodes=bool(raw.get("allNodes")),
            node_selector=ParsedSelector(device_selector) if device_selector is not None else None,
        )
        for rule in self.device_taint_rules:
            if rule.get("taint") and _taint_rule_matches(rule, device, self.taint_rule_cel, self.classes):
                device.taints = [*device.taints, dict(rule["taint"])]
        return device

    def add_allocated(self, claims: Iterable[Any], owner: str | None = None) -> None:
        """Counts the devices of more allocated claims as in use, as if they had been in the
        snapshot from the start; `owner` names them in "in use by ..." instead of the claim."""
        for claim in claims:
            data = object_data(claim)
            self.allocated_claims.append(data)
            self.allocated.add(data, self.consumable_capacity, owner)

    @staticmethod
    def _allocated_state(claims: list[dict[str, Any]], consumable_capacity: bool) -> AllocatedState:
        state = AllocatedState()
        for claim in claims:
            state.add(claim, consumable_capacity)
        return state
