"""Allocator feature switches, and which upstream implementation they select.

Upstream (`k8s.io/dynamic-resource-allocation/structured`) ships three implementations of
the allocator — *stable*, *incubating* and *experimental* — and `NewAllocator` takes the
first one, in that order, whose supported features are a superset of the enabled ones.
Each Kubernetes release has its own copy of all three, so the code that runs depends on
the release **and** on the feature gates. :class:`Behaviour` records, as named switches,
every difference between those nine variants that changes a result or an error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal

from dractl.records import Record

Release = Literal["1.34", "1.35", "1.36"]
Implementation = Literal["stable", "incubating", "experimental"]
RELEASES: tuple[Release, ...] = ("1.34", "1.35", "1.36")
IMPLEMENTATIONS: tuple[Implementation, ...] = ("stable", "incubating", "experimental")


class AllocatorFeatures(Record):
    """The allocator's `Features` switches.

    From 1.35 on, `device_binding_and_status` is one switch (upstream
    `DeviceBindingAndStatus`, gates DRADeviceBindingConditions **and**
    DRAResourceClaimDeviceStatus). 1.34 has the two switches `device_binding` and
    `device_status`, each required by itself: with DRAResourceClaimDeviceStatus on
    (its default), 1.34 always runs the experimental implementation.
    """

    __slots__ = (
        "admin_access",
        "consumable_capacity",
        "device_binding",
        "device_binding_and_status",
        "device_status",
        "device_taints",
        "list_type_attributes",
        "partitionable_devices",
        "prioritized_list",
    )
    __hash__ = Record.value_hash

    def __init__(
        self,
        admin_access: bool = False,
        prioritized_list: bool = False,
        partitionable_devices: bool = False,
        device_taints: bool = False,
        consumable_capacity: bool = False,
        device_binding_and_status: bool = False,
        list_type_attributes: bool = False,
        device_binding: bool = False,
        device_status: bool = False,
    ) -> None:
        self.admin_access = admin_access
        self.prioritized_list = prioritized_list
        self.partitionable_devices = partitionable_devices
        self.device_taints = device_taints
        self.consumable_capacity = consumable_capacity
        self.device_binding_and_status = device_binding_and_status
        self.list_type_attributes = list_type_attributes
        self.device_binding = device_binding
        self.device_status = device_status

    @classmethod
    def from_gates(cls, release: Release, enabled: Callable[[str], bool] | Mapping[str, bool]) -> AllocatorFeatures:
        """Maps feature gates to switches as the scheduler's DynamicResources plugin does.

        `enabled` answers whether a gate is on (defaults included), or is a mapping of
        every relevant gate to its effective value.
        """
        is_on: Callable[[str], bool]
        if isinstance(enabled, Mapping):
            gate_map = enabled

            def is_on(name: str) -> bool:
                return bool(gate_map.get(name, False))

        else:
            is_on = enabled
        binding = is_on("DRADeviceBindingConditions")
        status = is_on("DRAResourceClaimDeviceStatus")
        return cls(
            admin_access=is_on("DRAAdminAccess"),
            prioritized_list=is_on("DRAPrioritizedList"),
            partitionable_devices=is_on("DRAPartitionableDevices"),
            device_taints=is_on("DRADeviceTaints"),
            consumable_capacity=is_on("DRAConsumableCapacity"),
            device_binding_and_status=release != "1.34" and binding and status,
            list_type_attributes=release == "1.36" and is_on("DRAListTypeAttributes"),
            device_binding=release == "1.34" and binding,
            device_status=release == "1.34" and status,
        )

    def enabled_names(self) -> frozenset[str]:
        return frozenset(name for name in self._fields if getattr(self, name))

    @property
    def binding_enabled(self) -> bool:
        """Whether devices with binding conditions may be allocated."""
        return self.device_binding_and_status or (self.device_binding and self.device_status)


_SUPPORTED: dict[tuple[Release, Implementation], frozenset[str]] = {
    ("1.34", "stable"): frozenset(),
    ("1.34", "incubating"): frozenset({"admin_access", "prioritized_list", "partitionable_devices", "device_taints"}),
    ("1.34", "experimental"): frozenset(
        {"admin_access", "prioritized_list", "partitionable_devices", "device_taints",
         "device_binding", "device_status", "consumable_capacity"}
    ),
    ("1.35", "stable"): frozenset(),
    ("1.35", "incubating"): frozenset({"admin_access", "prioritized_list", "partitionable_devices", "device_taints"}),
    ("1.35", "experimental"): frozenset(
        {"admin_access", "prioritized_list", "partitionable_devices", "device_taints",
         "device_binding_and_status", "consumable_capacity"}
    ),
    ("1.36", "stable"): frozenset({"admin_access", "prioritized_list", "partitionable_devices", "device_taints"}),
    ("1.36", "incubating"): frozenset(
        {"admin_access", "prioritized_list", "partitionable_devices", "device_taints",
         "device_binding_and_status", "consumable_capacity"}
    ),
    ("1.36", "experimental"): frozenset(
        {"admin_access", "prioritized_list", "partitionable_devices", "device_taints",
         "device_binding_and_status", "consumable_capacity", "list_type_attributes"}
    ),
}


def choose_implementation(release: Release, features: AllocatorFeatures) -> Implementation:
    """The implementation upstream's `NewAllocator` picks: the first that supports every enabled switch."""
    wanted = features.enabled_names()
    for implementation in IMPLEMENTATIONS:
        if wanted <= _SUPPORTED[(release, implementation)]:
            return implementation
    raise ValueError(f"internal error: no allocator available for feature set {sorted(wanted)}")


class Behaviour(Record):
    """Every result-changing difference between upstream's release × implementation variants."""

    __slots__ = (
        "binding_pools_last",
        "binding_slices_last",
        "combinations",
        "counters_see_shared_allocations",
        "distinct_attribute",
        "implementation",
        "knows_consumable_capacity",
        "multi_host_pools",
        "node_selector_names_target",
        "node_slices_first",
        "only_known_taint_effects",
        "per_pool_counters",
        "release",
        "result_tolerations",
        "separate_counter_slices",
        "shared_devices_skip_counters",
        "skip_unusable_pools",
        "sorted_order",
    )
    __hash__ = Record.value_hash

    def __init__(
        self,
        release: Release,
        implementation: Implementation,
        sorted_order: bool,
        combinations: bool,
        per_pool_counters: bool,
        skip_unusable_pools: bool,
        multi_host_pools: bool,
        separate_counter_slices: bool,
        binding_pools_last: bool,
        binding_slices_last: bool,
        node_slices_first: bool,
        only_known_taint_effects: bool,
        result_tolerations: bool,
        node_selector_names_target: bool,
        distinct_attribute: bool,
        shared_devices_skip_counters: bool,
        counters_see_shared_allocations: bool,
        knows_consumable_capacity: bool,
    ) -> None:
        self.release = release
        self.implementation = implementation
        # Pools are sorted by driver and pool name, slices within a pool by name. Without it
        # upstream visits pools in Go map order (unspecified); dractl then sorts as well and
        # reports that another, equally valid choice may exist.
        self.sorted_order = sorted_order
        # A slot of a request only scans devices after the previous slot's device
        # (combinations instead of permutations).
        self.combinations = combinations
        # Counters are tracked per pool (counter sets may sit in their own slices, devices of
        # the pool on other nodes count). Without it: per slice, only that slice's devices.
        self.per_pool_counters = per_pool_counters
        # Incomplete and invalid pools are skipped by ExactCount requests; "invalid resource
        # pools were encountered" when nothing fits. Without it: incomplete pools are used and
        # reaching an invalid pool is an error.
        self.skip_unusable_pools = skip_unusable_pools
        # A pool whose slice count does not match is looked up across all slices (multi-host
        # pools, newer generations on other nodes).
        self.multi_host_pools = multi_host_pools
        # Slices with `sharedCounters` are always relevant and hold no allocatable devices
        # (1.35+ layout).
        self.separate_counter_slices = separate_counter_slices
        # Pools holding devices with binding conditions come after the others.
        self.binding_pools_last = binding_pools_last
        # Slices holding devices with binding conditions are added after the others.
        self.binding_slices_last = binding_slices_last
        # The node's own slices (nodeName, no counter sets) are gathered before the shared ones
        # (allNodes, nodeSelector, counter sets), each in input order: the first slice of a pool
        # in that order gives the `resourceSliceCount` that decides whether it is complete
        # (v0.36 incubating/experimental split the slices by node in NewAllocator).
        self.node_slices_first = node_slices_first
        # Only NoSchedule / NoExecute taints must be tolerated (effect None is ignored).
        self.only_known_taint_effects = only_known_taint_effects
        # Result entries carry the request's tolerations.
        self.result_tolerations = result_tolerations
        # The result's node selector names the target node (and `bindsToNode` pins it);
        # otherwise it names the slice's / device's nodeName.
        self.node_selector_names_target = node_selector_names_target
        self.distinct_attribute = distinct_attribute
        # A multi-allocatable device that already has capacity in use skips the counter check.
        self.shared_devices_skip_counters = shared_devices_skip_counters
        # In-use for counters includes shared allocations and consumed capacity.
        self.counters_see_shared_allocations = counters_see_shared_allocations
        # The implementation has the consumable-capacity code: CEL sees
        # `device.allowMultipleAllocations`, and capacity requests are refused when the
        # feature is off.
        self.knows_consumable_capacity = knows_consumable_capacity

    @classmethod
    def of(cls, release: Release, implementation: Implementation) -> Behaviour:
        newest = release == "1.36"
        beyond_stable = implementation != "stable"
        experimental = implementation == "experimental"
        per_pool = (newest or (release == "1.35" and beyond_stable))
        consumable = experimental or (newest and beyond_stable)
        return cls(
            release=release,
            implementation=implementation,
            sorted_order=newest and beyond_stable,
            combinations=newest and beyond_stable,
            per_pool_counters=per_pool,
            skip_unusable_pools=release != "1.34",
            multi_host_pools=release != "1.34",
            separate_counter_slices=per_pool,
            binding_pools_last=experimental or (newest and beyond_stable),
            binding_slices_last=experimental and not newest,
            node_slices_first=newest and beyond_stable,
            only_known_taint_effects=per_pool,
            result_tolerations=per_pool,
            node_selector_names_target=experimental or (newest and beyond_stable),
            distinct_attribute=experimental or (newest and beyond_stable),
            shared_devices_skip_counters=consumable and release != "1.34",
            counters_see_shared_allocations=newest and beyond_stable,
            knows_consumable_capacity=consumable,
        )
