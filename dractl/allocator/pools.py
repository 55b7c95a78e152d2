"""Gathering the resource pools that one node can use (upstream's `GatherPools`).

Slices are filtered by node (nodeName, allNodes, nodeSelector, per-device node
selection), grouped into pools by driver and pool name, reduced to the newest generation,
and checked for completeness and validity. A :class:`Pool` depends only on the slices it
was built from, so pools are memoised and the same object serves every node that sees
the same slices: a network-attached pool is built once, not once per node.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dractl.allocator.features import AllocatorFeatures, Behaviour
from dractl.allocator.inventory import DeviceEntry, Inventory, SliceEntry
from dractl.allocator.nodes import NodeInfo, NodeSelectorError
from dractl.allocator.trace import Reason, Rejection


class PoolGatheringError(Exception):
    """`gather pool information: ...`; aborts the allocation on this node."""


class Pool:
    __slots__ = (
        "allocated_counters",
        "candidates",
        "counter_sets",
        "device_slices",
        "devices",
        "driver",
        "explained",
        "has_binding_conditions",
        "incomplete",
        "invalid",
        "invalid_reason",
        "name",
        "other_slices",
    )

    def __init__(
        self,
        driver: str,
        name: str,
        incomplete: bool = False,
        invalid: bool = False,
        invalid_reason: str = "",
        device_slices: list[SliceEntry] | None = None,
        other_slices: list[SliceEntry] | None = None,
        counter_sets: dict[str, dict[str, Fraction]] | None = None,
        has_binding_conditions: bool = False,
        devices: list[DeviceEntry] | None = None,
        candidates: dict[Any, list[int]] | None = None,
        allocated_counters: dict[str, dict[str, Fraction]] | None = None,
        explained: dict[Any, tuple[list[Any], list[DeviceEntry]]] | None = None,
    ) -> None:
        self.driver = driver
        self.name = name
        self.incomplete = incomplete
        self.invalid = invalid
        self.invalid_reason = invalid_reason
        self.device_slices = [] if device_slices is None else device_slices
        self.other_slices = [] if other_slices is None else other_slices
        self.counter_sets = {} if counter_sets is None else counter_sets
        self.has_binding_conditions = has_binding_conditions
        self.devices = [] if devices is None else devices
        # Per selector set: positions (in `devices`) of devices whose selectors do not say no.
        self.candidates = {} if candidates is None else candidates
        self.allocated_counters = allocated_counters
        # For explanations, per (selector set, binding enabled): the devices the selectors (or
        # disabled binding conditions) rule out, with their rejection, and the matching devices.
        # The same for every node that sees the pool.
        self.explained = {} if explained is None else explained

    @property
    def id(self) -> str:
        return f"{self.driver}/{self.name}"


def node_matches(node: NodeInfo, node_name: str | None, all_nodes: bool, selector: Any) -> bool:
    """Upstream's `NodeMatches`; raises NodeSelectorError for a selector that does not parse."""
    if node_name:
        return node.name == node_name
    if all_nodes:
        return True
    if selector is not None:
        return selector.get().matches(node)
    return False


def slice_visibility(slice_entry: SliceEntry, node: NodeInfo) -> Rejection:
    """Why a slice that was not gathered for `node` is not there (for explanations)."""
    if slice_entry.node_name:
        return Rejection(Reason.OTHER_NODE, (f"slice {slice_entry.name} is for node {slice_entry.node_name}",))
    if slice_entry.node_selector is not None:
        return Rejection(Reason.OTHER_NODE, (f"node selector of slice {slice_entry.name} does not match",))
    if slice_entry.per_device_node_selection:
        return Rejection(Reason.OTHER_NODE, (f"no device of slice {slice_entry.name} is for this node",))
    if slice_entry.per_device_node_selection is not None or slice_entry.shared_counters:
        return Rejection(Reason.SLICE_IGNORED, ("DRAPartitionableDevices is off",))
    return Rejection(Reason.POOL_OUTDATED, (f"{slice_entry.driver}/{slice_entry.pool}",))


class PoolGatherer:
    """Builds the pools for one node; owns the memo of pools shared between nodes."""

    def __init__(self, inventory: Inventory, features: AllocatorFeatures, behaviour: Behaviour) -> None:
        self.inventory = inventory
        self.features = features
        self.behaviour = behaviour
        self._memo: dict[tuple[Any, ...], Pool] = {}
        self._static: tuple[dict[tuple[str, str], list[SliceEntry]], list[SliceEntry], list[SliceEntry]] | None = None
        self._static_pools: dict[tuple[str, str], Pool | None] = {}

    def forget_allocated_counters(self) -> None:
        """Drops the counters left by allocated claims that pools remember (more were added)."""
        for pool in [*self._memo.values(), *self._static_pools.values()]:
            if pool is not None:
                pool.allocated_counters = None

    def gather(self, node: NodeInfo) -> tuple[list[Pool], list[SliceEntry]]:
        """The node's pools in search order, and the slices that were relevant."""
        if self._static is None:
            self._static = self._split_shared()
        static_by_pool, static_slices, conditional = self._static
        dynamic = [s for s in self.inventory.slices_on_node.get(node.name, ())
                   if self._usable(s) and self._relevant(s, node)]
        dynamic += [s for s in conditional if self._relevant(s, node)]
        grouped = self._group(dynamic)
        pools: list[Pool] = []
        for key, slices in grouped.items():
            if key in static_by_pool:
                slices = self._group(slices + static_by_pool[key])[key]
            pool = self._pool(key, slices)
            if pool is not None:
                pools.append(pool)
        for key in static_by_pool:
            if key not in grouped:
                pool = self._static_pool(key)
                if pool is not None:
                    pools.append(pool)
        # Upstream's stable variants walk a Go map here; sorting is the one repeatable order.
        pools.sort(key=lambda p: (p.driver, p.name))
        if self.behaviour.binding_pools_last:
            pools.sort(key=lambda p: p.has_binding_conditions)
        return pools, dynamic + static_slices

    def _usable(self, slice_entry: SliceEntry) -> bool:
        """Slices using partitionable-device fields are ignored while that feature is off."""
        return self.features.partitionable_devices or not (
            slice_entry.per_device_node_selection is not None
            or (self.behaviour.separate_counter_slices and bool(slice_entry.shared_counters))
        )

    def _split_shared(self) -> tuple[dict[tuple[str, str], list[SliceEntry]], list[SliceEntry], list[SliceEntry]]:
        """Shared slices that every node sees (allNodes, counter sets) and those that depend on the node."""
        static: dict[tuple[str, str], list[SliceEntry]] = {}
        static_slices: list[SliceEntry] = []
        conditional: list[SliceEntry] = []
        for slice_entry in self.inventory.slices_shared:
            if not self._usable(slice_entry):
                continue
            everywhere = (self.behaviour.separate_counter_slices and slice_entry.shared_counters) or (
                slice_entry.all_nodes and not slice_entry.node_name)
            if everywhere:
                static.setdefault((slice_entry.driver, slice_entry.pool), []).append(slice_entry)
                static_slices.append(slice_entry)
            else:
                conditional.append(slice_entry)
        return static, static_slices, conditional

    def _group(self, slices: list[SliceEntry]) -> dict[tuple[str, str], list[SliceEntry]]:
        """Slices by pool, newest generation only, in upstream's order of adding them."""
        if self.behaviour.binding_slices_last:
            ordered = sorted(slices, key=lambda s: (s.has_binding_conditions, s.input_index))
        elif self.behaviour.node_slices_first:
            ordered = sorted(slices, key=lambda s: (not s.node_name or bool(s.shared_counters), s.input_index))
        else:
            ordered = sorted(slices, key=lambda s: s.input_index)
        grouped: dict[tuple[str, str], list[SliceEntry]] = {}
        for slice_entry in ordered:
            key = (slice_entry.driver, slice_entry.pool)
            kept = grouped.get(key)
            if kept is None or slice_entry.generation > kept[0].generation:
                grouped[key] = [slice_entry]
            elif slice_entry.generation == kept[0].generation:
                kept.append(slice_entry)
        return grouped

    def _static_pool(self, key: tuple[str, str]) -> Pool | None:
        if key not in self._static_pools:
            assert self._static is not None
            self._static_pools[key] = self._pool(key, self._group(self._static[0][key])[key])
        return self._static_pools[key]

    def _relevant(self, slice_entry: SliceEntry, node: NodeInfo) -> bool:
        if self.behaviour.separate_counter_slices and slice_entry.shared_counters:
            return True
        try:
            if slice_entry.node_name or slice_entry.all_nodes or slice_entry.node_selector is not None:
                return node_matches(node, slice_entry.node_name, slice_entry.all_nodes, slice_entry.node_selector)
        except NodeSelectorError as error:
            raise PoolGatheringError(
                f"failed to perform node selection for slice {slice_entry.name}: "
                f"failed to parse node selector: {error}"
            ) from None
        if slice_entry.per_device_node_selection:
            for device in slice_entry.devices:
                try:
                    if node_matches(node, device.node_name, device.all_nodes, device.node_selector):
                        return True
                except NodeSelectorError as error:
                    raise PoolGatheringError(
                        f"failed to perform node selection for device {device.name} in slice "
                        f"{slice_entry.name}: failed to parse node selector: {error}"
                    ) from None
        return False

    def _pool(self, key: tuple[str, str], slices: list[SliceEntry]) -> Pool | None:
        behaviour = self.behaviour
        expected = slices[0].resource_slice_count
        all_slices: list[SliceEntry] | None = None
        complete = len(slices) == expected
        if not complete and behaviour.multi_host_pools:
            generation = slices[0].generation
            same_generation: list[SliceEntry] = []
            for other in self.inventory.slices_by_pool.get(key, []):
                if other.generation > generation:
                    return None  # obsolete: the driver is replacing this generation
                if other.generation == generation:
                    same_generation.append(other)
            all_slices = same_generation
            complete = len(same_generation) == expected
        memo_key = (key, tuple(s.input_index for s in slices), complete,
                    tuple(s.input_index for s in all_slices) if all_slices is not None else None)
        pool = self._memo.get(memo_key)
        if pool is None:
            pool = self._build(key, slices, complete, all_slices)
            self._memo[memo_key] = pool
        return pool

    def _build(self, key: tuple[str, str], slices: list[SliceEntry], complete: bool,
               all_slices: list[SliceEntry] | None) -> Pool:
        behaviour = self.behaviour
        pool = Pool(driver=key[0], name=key[1])
        if not behaviour.per_pool_counters:
            # Older layout: the pool keeps its devices even when incomplete.
            pool.incomplete = not complete
            pool.device_slices = list(slices)
            reason = _duplicate_device(slices)
            if reason:
                pool.invalid, pool.invalid_reason = True, reason
            return _finish(pool)
        if not complete:
            pool.incomplete = True
            return pool
        if behaviour.sorted_order:
            slices = sorted(slices, key=lambda s: s.name)
        if self.features.partitionable_devices and behaviour.separate_counter_slices:
            device_slices = [s for s in slices if not s.shared_counters]
            counter_slices = [s for s in slices if s.shared_counters]
        else:
            device_slices, counter_slices = list(slices), []
        pool.device_slices = device_slices
        reason = _duplicate_device(device_slices)
        if reason:
            return _invalid(pool, reason)
        if not self.features.partitionable_devices:
            return _finish(pool)
        counter_sets: dict[str, dict[str, Fraction]] = {}
        for counter_slice in counter_slices:
            for name, counters in counter_slice.shared_counters:
                if name in counter_sets:
                    return _invalid(pool, f"duplicate counter set name {name}")
                counter_sets[name] = counters
        pool.counter_sets = counter_sets
        reason = _unknown_counters(counter_sets, slices)
        if reason:
            return _invalid(pool, reason)
        if all_slices is not None and len(slices) != len(all_slices):
            names = {s.name for s in slices}
            pool.other_slices = [s for s in all_slices if s.name not in names]
            reason = _unknown_counters(counter_sets, pool.other_slices)
            if reason:
                return _invalid(pool, reason)
        return _finish(pool)


def _finish(pool: Pool) -> Pool:
    pool.devices = [device for s in pool.device_slices for device in s.devices]
    pool.has_binding_conditions = any(d.binding_conditions is not None for d in pool.devices)
    return pool


def _invalid(pool: Pool, reason: str) -> Pool:
    pool.invalid, pool.invalid_reason = True, reason
    pool.device_slices = []
    return pool


def _duplicate_device(slices: list[SliceEntry]) -> str:
    seen: set[str] = set()
    for slice_entry in slices:
        for device in slice_entry.devices:
            if device.name in seen:
                return f"duplicate device name {device.name}"
            seen.add(device.name)
    return ""


def _unknown_counters(counter_sets: dict[str, dict[str, Fraction]], slices: list[SliceEntry]) -> str:
    for slice_entry in slices:
        for device in slice_entry.devices:
            for set_name, counters in device.consumes_counters:
                known = counter_sets.get(set_name)
                if known is None:
                    return f"counter set {set_name} not found"
                for counter in counters:
                    if counter not in known:
                        return f"counter {counter} not found in counter set {set_name}"
    return ""
