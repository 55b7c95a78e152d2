"""NodeResourcesFit: whether a node has room for the Pod's requests
(``pkg/scheduler/framework/plugins/noderesources/fit.go``).

- PreFilter: the Pod's requests (:func:`dractl.scheduler.resources.pod_requests`), once per Pod.
- Filter, per node, in this order: one more Pod than the node allows is ``Too many pods``; a Pod
  requesting nothing is checked for nothing else; then cpu, memory, ephemeral-storage and every
  other requested resource by name, each only when requested (a zero request is not checked),
  each ``Insufficient <name>`` when the request exceeds what the node's Pods leave of its
  allocatable. Resources the configuration ignores (``ignoredResources``,
  ``ignoredResourceGroups``: extended resources only) are not checked, nor, with
  DRAExtendedResource, an extended resource a DeviceClass serves on a node whose allocatable
  does not list it (DynamicResources allocates it).
- The node is UnschedulableAndUnresolvable when some short resource's request alone exceeds the
  node's allocatable (no preemption can free that much; a full pod count never counts so),
  Unschedulable otherwise.

The scheduler visits the scalar resources in Go map order, which is random; here they come in
name order, so that the reasons of one run are those of the next.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.api.quantity import BINARY_SI, DECIMAL_SI, Quantity
from dractl.records import Record
from dractl.scheduler.objects import NodeState, PodInfo
from dractl.scheduler.plugin import FILTER, PRE_FILTER, Context, CycleState, Plugin, PreFilterResult
from dractl.scheduler.resources import (
    CPU,
    EPHEMERAL_STORAGE,
    HUGEPAGES_PREFIX,
    MEMORY,
    PODS,
    NodeUsage,
    Resources,
    is_extended_resource,
    node_usage,
    pod_requests,
)
from dractl.scheduler.status import SUCCESS, Status, error, unresolvable, unschedulable

TOO_MANY_PODS = "Too many pods"
_STATE_KEY = "PreFilterNodeResourcesFit"  # upstream's CycleState key, named in its error


class Shortfall(Record):
    """One resource the node lacks (``InsufficientResource``): the Pod's request, what the
    node's Pods already request, and the node's allocatable."""

    __slots__ = ("capacity", "name", "requested", "used")

    def __init__(self, name: str, requested: int, used: int, capacity: int) -> None:
        self.name = name
        self.requested = requested
        self.used = used
        self.capacity = capacity

    @property
    def reason(self) -> str:
        return TOO_MANY_PODS if self.name == PODS else f"Insufficient {self.name}"

    @property
    def unresolvable(self) -> bool:
        """Larger than the whole node: removing Pods cannot help. A full pod count can be."""
        return self.name != PODS and self.requested > self.capacity

    def describe(self) -> str:
        if self.name == PODS:
            if self.capacity <= 0:
                return "pods: the node allows none (its status.allocatable has no pods)"
            return f"pods: {self.used} of {self.capacity} allowed already run"
        requested, capacity = _shown(self.name, self.requested), _shown(self.name, self.capacity)
        if self.unresolvable:
            return f"{self.name}: requested {requested}, more than the node's allocatable {capacity}"
        free = _shown(self.name, max(self.capacity - self.used, 0))
        return f"{self.name}: requested {requested}, {free} of {capacity} free"


def _shown(name: str, value: int) -> str:
    """An amount as a quantity would be written: ``1500m``, ``2``, ``8Gi``."""
    if name == CPU:
        return str(Quantity(value, -3, True, DECIMAL_SI))
    if name in (MEMORY, EPHEMERAL_STORAGE) or name.startswith(HUGEPAGES_PREFIX):
        return str(Quantity(value, 0, True, BINARY_SI))
    return str(value)


class NodeResourcesFit(Plugin):
    name = "NodeResourcesFit"
    extension_points = frozenset({PRE_FILTER, FILTER})

    def __init__(self, context: Context, args: Mapping[str, Any] | None = None) -> None:
        super().__init__(context, args)
        self.ignored = _names(self.args.get("ignoredResources"))
        self.ignored_groups = _names(self.args.get("ignoredResourceGroups"))
        self.pod_level = self.features.enabled("PodLevelResources")
        self.dra_extended = self.features.enabled("DRAExtendedResource")
        # The last node usage found to have room for the last request: nodes of one kind
        # without Pods share their usage (see node_usage), and are weighed once.
        self._fits: tuple[NodeUsage, Resources] | None = None

    def pre_filter(self, cycle: CycleState, pod: PodInfo) -> PreFilterResult:
        cycle[self.name] = pod_requests(pod.spec, pod_level=self.pod_level)
        return PreFilterResult(SUCCESS)

    def filter(self, cycle: CycleState, pod: PodInfo, node: NodeState) -> Status:
        request = cycle.get(self.name)
        if not isinstance(request, Resources):
            return error(f'error reading "{_STATE_KEY}" from cycleState: not found')
        if not node.allocatable_known:
            # A Node written by hand (or named only by a slice): what it holds is unknown, and
            # explain notes that this plugin is not evaluated there rather than call it full.
            return SUCCESS
        usage = node_usage(node, pod_level=self.pod_level)
        fits = self._fits
        if fits is not None and fits[0] is usage and fits[1] is request:
            return SUCCESS
        shortfalls = self.shortfalls(request, usage)
        if not shortfalls:
            self._fits = (usage, request)
            return SUCCESS
        reasons = tuple(s.reason for s in shortfalls)
        detail = "; ".join(s.describe() for s in shortfalls)
        if any(s.unresolvable for s in shortfalls):
            return unresolvable(*reasons, detail=detail)
        return unschedulable(*reasons, detail=detail)

    def shortfalls(self, request: Resources, node: NodeUsage) -> list[Shortfall]:
        """Every resource the node lacks for ``request``, in the scheduler's order."""
        allocatable, used = node.allocatable, node.requested
        out: list[Shortfall] = []
        if node.pod_count + 1 > allocatable.pods:
            out.append(Shortfall(PODS, 1, node.pod_count, allocatable.pods))
        if request.empty:
            return out
        for name in (CPU, MEMORY, EPHEMERAL_STORAGE):
            wanted = request.amount(name)
            if wanted > 0 and wanted > allocatable.amount(name) - used.amount(name):
                out.append(Shortfall(name, wanted, used.amount(name), allocatable.amount(name)))
        for name in sorted(request.scalars):
            wanted = request.scalars[name]
            if wanted == 0 or self._ignores(name) or self._left_to_dra(name, allocatable):
                continue
            capacity = allocatable.scalars.get(name, 0)
            if wanted > capacity - used.scalars.get(name, 0):
                out.append(Shortfall(name, wanted, used.scalars.get(name, 0), capacity))
        return out

    def _ignores(self, name: str) -> bool:
        if not (self.ignored or self.ignored_groups) or not is_extended_resource(name):
            return False
        return name in self.ignored or name.split("/", 1)[0] in self.ignored_groups

    def _left_to_dra(self, name: str, allocatable: Resources) -> bool:
        """With DRAExtendedResource, a resource the node's device plugins do not offer but a
        DeviceClass serves is DynamicResources' to allocate (``shouldDelegateResourceToDRA``)."""
        if not self.dra_extended or allocatable.scalars.get(name, 0) > 0:
            return False
        return name in self.context.extended_resources


def _names(raw: Any) -> frozenset[str]:
    return frozenset(str(n) for n in raw) if isinstance(raw, list) else frozenset()
