"""The resources NodeResourcesFit weighs: a Pod's requests, a node's allocatable, and what the
Pods bound to the node already request, as the scheduler's ``framework.Resource`` holds them.

A Pod's requests follow ``PodRequests`` of ``k8s.io/component-helpers/resource``:

- regular containers and sidecars (init containers with ``restartPolicy: Always``) run side by
  side: their requests add up;
- a non-sidecar init container runs beside the sidecars declared before it: its own request plus
  theirs; the largest such value is what the init phase needs;
- per resource, the Pod requests the larger of the two;
- with the PodLevelResources gate, ``spec.resources.requests`` (cpu, memory, hugepages-*)
  replace the containers' sum for the resources it names;
- ``spec.overhead`` is added.

A Pod bound to a node counts as the scheduler's NodeInfo counts it: resized containers are read
from the Pod's status (InPlacePodVerticalScaling, on in every release dractl knows), each at the
largest of what the spec asks, what the kubelet has allocated and what runs. The Filter compares
these plain requests; the non-zero defaults (100m cpu, 200Mi memory for a container that asks
for nothing) only feed scoring, so they do not appear here.

Quantities are summed exactly (a quantity is a whole number of nano units) and rounded once at
the end, as ``Quantity.Add`` and then ``MilliValue`` / ``Value`` do: cpu in millicores, all else
in whole units, rounded up. A quantity that does not parse (the apiserver refuses such objects)
counts as absent.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from weakref import WeakKeyDictionary

from dractl.api.quantity import QuantityError, decode_quantity
from dractl.records import Record
from dractl.scheduler.objects import NodeState, is_sidecar, is_terminal

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"
HUGEPAGES_PREFIX = "hugepages-"
_NATIVE_DOMAIN = "kubernetes.io/"
_ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"

_NANO = 10**9
_NANO_PER_MILLI = 10**6

# resource name -> amount in nano units, exact
Amounts = dict[str, int]


class Resources(Record):
    """``framework.Resource``: cpu in millicores, memory and ephemeral storage in bytes, the
    number of Pods a node allows (allocatable only), and every other counted ("scalar") resource
    by name: extended resources, hugepages, ``*kubernetes.io/*`` names."""

    __slots__ = ("ephemeral_storage", "memory", "milli_cpu", "pods", "scalars")

    def __init__(self, milli_cpu: int = 0, memory: int = 0, ephemeral_storage: int = 0,
                 scalars: dict[str, int] | None = None, pods: int = 0) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.scalars: dict[str, int] = {} if scalars is None else scalars
        self.pods = pods

    @property
    def empty(self) -> bool:
        """Nothing requested: the Pod is checked for the node's pod count only. A scalar asked
        for with a zero quantity still counts as named, as in the scheduler's map."""
        return not (self.milli_cpu or self.memory or self.ephemeral_storage or self.scalars)

    def add(self, other: Resources) -> None:
        self.milli_cpu += other.milli_cpu
        self.memory += other.memory
        self.ephemeral_storage += other.ephemeral_storage
        self.pods += other.pods
        for name, value in other.scalars.items():
            self.scalars[name] = self.scalars.get(name, 0) + value

    def amount(self, name: str) -> int:
        """The value of one resource by its API name (0 when absent)."""
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.pods
        return self.scalars.get(name, 0)


class NodeUsage(Record):
    """One node as NodeResourcesFit reads it: its allocatable, what its Pods request, and how
    many Pods it runs."""

    __slots__ = ("allocatable", "pod_count", "requested")

    def __init__(self, allocatable: Resources, requested: Resources, pod_count: int) -> None:
        self.allocatable = allocatable
        self.requested = requested
        self.pod_count = pod_count


@functools.lru_cache(maxsize=1024)
def is_scalar_resource(name: str) -> bool:
    """``IsScalarResourceName``: extended resources, hugepages, names in a ``kubernetes.io``
    domain and attachable volumes; other names (``storage``, ``foo``) are not counted."""
    if name.startswith(HUGEPAGES_PREFIX) or name.startswith(_ATTACHABLE_VOLUMES_PREFIX) or _NATIVE_DOMAIN in name:
        return True
    return is_extended_resource(name)


@functools.lru_cache(maxsize=1024)
def is_extended_resource(name: str) -> bool:
    """``IsExtendedResourceName`` (``example.com/gpu``); only these can be ignored by the
    plugin's configuration."""
    # Imported when first needed: the validation package costs explain a twentieth of a
    # second to import, and most Pods ask for nothing but cpu, memory and storage.
    from dractl.api.validation.formats import is_extended_resource_name

    return is_extended_resource_name(name)


def is_pod_level_resource(name: str) -> bool:
    """The resources ``spec.resources`` may set (``IsSupportedPodLevelResource``)."""
    return name in (CPU, MEMORY) or name.startswith(HUGEPAGES_PREFIX)


# -- resource lists ----------------------------------------------------------------------------
# Quantity text -> nano units (None: does not parse). A cluster's nodes and Pods write the same
# few quantities again and again ("96", "110", "16Gi"); each is parsed once per process.
_NANO_OF_TEXT: dict[str, int | None] = {}
_CACHE_MAX = 4096


def _nano(raw: Any) -> int | None:
    if type(raw) is str:
        try:
            return _NANO_OF_TEXT[raw]
        except KeyError:
            pass
        if len(_NANO_OF_TEXT) >= _CACHE_MAX:
            _NANO_OF_TEXT.clear()
        nano = _NANO_OF_TEXT[raw] = _parsed_nano(raw)
        return nano
    return _parsed_nano(raw)


def _parsed_nano(raw: Any) -> int | None:
    try:
        quantity = decode_quantity(raw)
    except QuantityError:
        return None
    # Every parsed quantity is a whole number of nano units (apimachinery rounds finer values).
    shift = quantity.exponent + 9
    if shift >= 0:
        return quantity.unscaled * 10**shift
    return -(-quantity.unscaled // 10**-shift)


def amounts(raw: Any) -> Amounts | None:
    """A resource list (``requests``, ``overhead``, ``allocatable``) read exactly; None when it
    is absent (which differs from an empty list where a status stands in for the spec)."""
    if not isinstance(raw, dict):
        return None
    out: Amounts = {}
    for name, value in raw.items():
        nano = _nano(value)
        if nano is not None:
            out[str(name)] = nano
    return out


def _add(total: Amounts, more: Amounts | None) -> None:
    if more:
        for name, value in more.items():
            total[name] = total.get(name, 0) + value


def _raise_to(total: Amounts, other: Amounts | None) -> None:
    """Each resource of ``other`` at least as large in ``total`` (``maxResourceList``)."""
    if other:
        for name, value in other.items():
            if name not in total or value > total[name]:
                total[name] = value


def _largest(first: Amounts, *others: Amounts) -> Amounts:
    out = dict(first)
    for other in others:
        _raise_to(out, other)
    return out


def _round_up(nano: int, unit: int) -> int:
    """Rounded away from zero, as ``MilliValue`` / ``Value`` round."""
    whole, rest = divmod(abs(nano), unit)
    whole += rest != 0
    return whole if nano >= 0 else -whole


def to_resources(listed: Mapping[str, int]) -> Resources:
    """``framework.Resource`` of an exact resource list; names the scheduler does not count are
    dropped."""
    out = Resources()
    for name, nano in listed.items():
        if name == CPU:
            out.milli_cpu = _round_up(nano, _NANO_PER_MILLI)
        elif name == MEMORY:
            out.memory = _round_up(nano, _NANO)
        elif name == EPHEMERAL_STORAGE:
            out.ephemeral_storage = _round_up(nano, _NANO)
        elif name == PODS:
            out.pods = _round_up(nano, _NANO)
        elif is_scalar_resource(name):
            out.scalars[name] = _round_up(nano, _NANO)
    return out


# -- a Pod's requests --------------------------------------------------------------------------
ContainerRequests = Callable[[Mapping[str, Any]], "Amounts | None"]


def _spec_requests(container: Mapping[str, Any]) -> Amounts | None:
    resources = container.get("resources")
    return amounts(resources.get("requests")) if isinstance(resources, dict) else None


def _containers(spec: Mapping[str, Any], key: str) -> Iterable[Mapping[str, Any]]:
    listed = spec.get(key)
    return [c for c in listed if isinstance(c, dict)] if isinstance(listed, list) else ()


def aggregate_requests(spec: Mapping[str, Any], requests_of: ContainerRequests = _spec_requests) -> Amounts:
    """``AggregateContainerRequests`` over one reading of the containers' requests."""
    total: Amounts = {}
    for container in _containers(spec, "containers"):
        _add(total, requests_of(container))
    sidecars: Amounts = {}
    init_peak: Amounts = {}
    for container in _containers(spec, "initContainers"):
        own = requests_of(container)
        if is_sidecar(container):
            _add(total, own)
            _add(sidecars, own)
            _raise_to(init_peak, sidecars)
        else:
            running = dict(sidecars)
            _add(running, own)
            _raise_to(init_peak, running)
    _raise_to(total, init_peak)
    return total


def _pod_level_and_overhead(total: Amounts, spec: Mapping[str, Any], pod_level: bool) -> Amounts:
    if pod_level:
        resources = spec.get("resources")
        requested = resources.get("requests") if isinstance(resources, dict) else None
        # Pod-level requests apply once any resource they may set is named (IsPodLevelRequestsSet).
        if isinstance(requested, dict) and any(is_pod_level_resource(str(n)) for n in requested):
            for name, nano in (amounts(requested) or {}).items():
                if is_pod_level_resource(name):
                    total[name] = nano
    _add(total, amounts(spec.get("overhead")))
    return total


def pod_requests(spec: Mapping[str, Any], *, pod_level: bool) -> Resources:
    """What a Pod being scheduled requests (its spec only: it runs nowhere yet)."""
    return to_resources(_pod_level_and_overhead(aggregate_requests(spec), spec, pod_level))


def _resize_infeasible(status: Mapping[str, Any]) -> bool:
    """``IsPodResizeInfeasible``: the first PodResizePending condition says Infeasible."""
    conditions = status.get("conditions")
    for condition in conditions if isinstance(conditions, list) else ():
        if isinstance(condition, dict) and condition.get("type") == "PodResizePending":
            return condition.get("reason") == "Infeasible"
    return False


def _container_statuses(status: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    found: dict[str, Mapping[str, Any]] = {}
    # A regular container's status wins over an init container's of the same name, as the
    # lookup searches the regular ones first.
    for key in ("initContainerStatuses", "containerStatuses"):
        listed = status.get(key)
        for entry in listed if isinstance(listed, list) else ():
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                found[entry["name"]] = entry
    return found


def bound_pod_requests(pod: Mapping[str, Any], *, pod_level: bool) -> Amounts:
    """What a Pod bound to a node holds of it (``PodInfo.CalculateResource``: the Pod's status
    read for resized containers). Pod-level resizes (InPlacePodLevelResourcesVerticalScaling,
    alpha) are not modelled: pod-level requests are read from the spec."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return {}
    raw_status = pod.get("status")
    status: Mapping[str, Any] = raw_status if isinstance(raw_status, dict) else {}
    statuses = _container_statuses(status)
    infeasible = _resize_infeasible(status)
    spec_total = aggregate_requests(spec)
    if not statuses and not infeasible:
        total = spec_total  # allocated and actuated both fall back to the spec
    else:
        def allocated(container: Mapping[str, Any]) -> Amounts | None:
            entry = statuses.get(str(container.get("name")))
            if entry is not None and isinstance(entry.get("allocatedResources"), dict):
                return amounts(entry["allocatedResources"])
            return None if infeasible else _spec_requests(container)

        def actuated(container: Mapping[str, Any]) -> Amounts | None:
            entry = statuses.get(str(container.get("name")))
            running = entry.get("resources") if entry is not None else None
            if isinstance(running, dict) and isinstance(running.get("requests"), dict):
                return amounts(running["requests"])
            return allocated(container)

        allocated_total = aggregate_requests(spec, allocated)
        actuated_total = aggregate_requests(spec, actuated)
        # A resize the node cannot take never happens: the spec's new values do not count.
        total = (_largest(actuated_total, allocated_total) if infeasible
                 else _largest(spec_total, actuated_total, allocated_total))
    return _pod_level_and_overhead(total, spec, pod_level)


# -- a node ------------------------------------------------------------------------------------
# NodeState -> {pod_level: usage}. A NodeState's Node and Pods do not change once made (explain
# makes a new one for a node whose Pods differ), so what is read of them is read once.
_USAGE: WeakKeyDictionary[NodeState, dict[bool, NodeUsage]] = WeakKeyDictionary()
# A node's allocatable, as written (its (name, text) pairs) -> the usage of that node without
# Pods. The nodes of a cluster are of a few kinds: those of one kind share one reading, which
# nothing changes afterwards.
_IDLE: dict[tuple[tuple[Any, str], ...], NodeUsage] = {}


def node_usage(node: NodeState, *, pod_level: bool) -> NodeUsage:
    """The node's allocatable, its Pods' requests and their number (terminal Pods left out)."""
    if not node.pods:
        return _idle_usage(node.allocatable)
    cached = _USAGE.get(node)
    if cached is None:
        cached = _USAGE[node] = {}
    usage = cached.get(pod_level)
    if usage is None:
        requested = Resources()
        count = 0
        for pod in node.pods:
            if is_terminal(pod):
                continue
            count += 1
            # Each Pod is rounded on its own before it is added, as NodeInfo adds them.
            requested.add(to_resources(bound_pod_requests(pod, pod_level=pod_level)))
        usage = cached[pod_level] = NodeUsage(_idle_usage(node.allocatable).allocatable, requested, count)
    return usage


def _idle_usage(allocatable: Mapping[str, Any]) -> NodeUsage:
    """A node without Pods: its allocatable read, nothing requested (shared; not to be changed)."""
    key = tuple(allocatable.items())
    usage = _IDLE.get(key)
    if usage is not None:
        return usage
    usage = NodeUsage(to_resources(amounts(allocatable) or {}), Resources(), 0)
    # Only texts (what kubectl writes) are kept: 1 == 1.0 == True would mix numbers that read
    # differently (so a key with a number never finds one).
    if all(type(value) is str for _, value in key):
        if len(_IDLE) >= _CACHE_MAX:
            _IDLE.clear()
        _IDLE[key] = usage
    return usage
