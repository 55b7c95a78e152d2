"""Extended resources backed by DRA (KEP-5004, gate DRAExtendedResource): which DeviceClass
serves an extended resource name, which of a Pod's extended resources DRA serves on a node, and
the ResourceClaim the scheduler makes for them. Pure functions; the DynamicResources plugin
(:mod:`dractl.scheduler.plugins.dynamic_resources`) calls them.

**The mapping** (:func:`map_extended_resources`). A DeviceClass maps its
``spec.extendedResourceName`` (explicit) and ``deviceclass.resource.kubernetes.io/<class>``
(implicit). Per release:

- 1.35 and 1.36: the shared cache of ``k8s.io/dynamic-resource-allocation``
  ``deviceclass/extendedresourcecache`` (v0.35, v0.36; the two differ only in logging). Every
  class maps its implicit name; of classes naming the same explicit name, the newest
  ``metadata.creationTimestamp`` wins, equal timestamps go to the smaller name. A class without
  a timestamp counts as the oldest (Go's zero time).
- 1.34: ``extended/util.go`` of the 1.34 line built the map at every scheduling cycle from the
  class lister: a class mapped its explicit name, or its implicit name only when it had none,
  and of classes naming the same explicit name the one listed last won. The lister walks a Go
  map, so that order is random (kubernetes#133693: "For Alpha, we just picked one random device
  class"); dractl takes the last one in input order and marks the conflict as undetermined.
  The implicit names are left out altogether: 1.34's plugin only ever looked up names passing
  ``IsExtendedResourceName``, which no ``*kubernetes.io/*`` name passes, so no Pod could use
  them (kubernetes#133363, released in 1.35, made them usable).

Without the gate the scheduler maps nothing, and nothing here conflicts.

**Per node** (:func:`dra_served_resources`), for each extended resource the Pod requests (not
zero): a mapped resource the node's allocatable lacks (1.35+: or lists as 0) is served by DRA;
an unmapped one the allocatable lacks does not fit (``cannot fit resource``); anything else is
the device plugin's, which NodeResourcesFit checks. In 1.34 a listed 0 still meant the device
plugin (kubernetes#133784 changed that for 1.35).

**The claim** (:func:`extended_resource_requests`, :func:`special_claim`): one request per
container and resource, named ``container-<i>-request-<j>`` (``i`` counts init containers, then
containers; ``j`` is the resource's place among all the container's request names, sorted).
From 1.35 on (kubernetes#134882) requests follow the containers' lifetimes: regular containers
and sidecars each get their own, a non-sidecar init container first reuses those of the
long-lived containers at its index or later (they have not started yet) and asks for the rest,
and of the init containers' own requests only the largest stays, their mappings renamed to it.
In 1.34 every container asked for its whole quantity, and the claim's owner reference blocked
the Pod's deletion (``blockOwnerDeletion``, dropped in 1.35 by kubernetes#134956).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from dractl.api.quantity import QuantityError, decode_quantity, parse_quantity
from dractl.api.releases import Features
from dractl.records import Record
from dractl.scheduler.objects import PodInfo, is_sidecar
from dractl.scheduler.resources import is_extended_resource, pod_requests

GATE = "DRAExtendedResource"
IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"  # resourceapi.ResourceDeviceClassPrefix
EXTENDED_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
CANNOT_FIT = "cannot fit resource"
EXACT_COUNT = "ExactCount"

# How the winner of a conflict was chosen.
NEWER = "newer"  # the newest creationTimestamp (1.35+)
FIRST_BY_NAME = "name"  # equal (or no) creationTimestamps: the smaller name (1.35+)
UNDETERMINED = "undetermined"  # 1.34: whichever class the lister returned last

_FIRST_ALPHA = "1.34"  # the release whose scheduler code differs in the ways described above


def _first_alpha(features: Features | None) -> bool:
    return features is not None and features.release == _FIRST_ALPHA


# -- the mapping -------------------------------------------------------------------------------
class MappingConflict(Record):
    """Several DeviceClasses name the same ``extendedResourceName``: ``classes`` (sorted by
    name), the one the scheduler uses (``winner``) and why (``rule``: NEWER, FIRST_BY_NAME or
    UNDETERMINED), in ``release``."""

    __slots__ = ("classes", "release", "resource", "rule", "winner")
    __hash__ = Record.value_hash

    def __init__(self, resource: str, classes: tuple[str, ...], winner: str, rule: str, release: str) -> None:
        self.resource = resource
        self.classes = classes
        self.winner = winner
        self.rule = rule
        self.release = release

    @property
    def losers(self) -> tuple[str, ...]:
        return tuple(name for name in self.classes if name != self.winner)

    @property
    def message(self) -> str:
        """``example.com/gpu is mapped by classes a and b; b wins in 1.36 (newer)``."""
        head = f"{self.resource} is mapped by classes {_enumerate(self.classes)}"
        if self.rule == UNDETERMINED:
            return (f"{head}; in {self.release} the scheduler uses whichever it lists last, in no "
                    "fixed order")
        why = "newer" if self.rule == NEWER else "same or no creationTimestamp, first by name"
        return f"{head}; {self.winner} wins in {self.release} ({why})"


def _enumerate(names: tuple[str, ...]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class ExtendedResourceMapping(Record):
    """What the scheduler of one release makes of the DeviceClasses: resource name -> class
    name (``classes``), and the explicit names several classes claim (``conflicts``)."""

    __slots__ = ("classes", "conflicts")

    def __init__(self, classes: dict[str, str], conflicts: tuple[MappingConflict, ...] = ()) -> None:
        self.classes = classes
        self.conflicts = conflicts


# Go's zero time, which a class without creationTimestamp has: older than any real one.
_OLDEST = datetime.min.replace(tzinfo=UTC)


class _Class(Record):
    __slots__ = ("created", "explicit", "name")

    def __init__(self, name: str, explicit: str | None, created: datetime | None) -> None:
        self.name = name
        self.explicit = explicit
        self.created = created  # None: no creationTimestamp

    def age_key(self) -> datetime:
        return _OLDEST if self.created is None else self.created


def _read_classes(device_classes: Iterable[Any]) -> list[_Class]:
    """DeviceClass manifests (dicts, or objects with ``.data``) in input order; a name given
    twice keeps its last definition, as applying both would."""
    found: dict[str, _Class] = {}
    for item in device_classes:
        data = getattr(item, "data", item)
        if not isinstance(data, Mapping) or data.get("kind", "DeviceClass") != "DeviceClass":
            continue
        metadata = _as_mapping(data.get("metadata"))
        name = metadata.get("name")
        if not isinstance(name, str) or not name:
            continue
        spec = _as_mapping(data.get("spec"))
        explicit = spec.get("extendedResourceName")
        # A name the apiserver refuses (validation) maps nothing; lint reports it.
        if not isinstance(explicit, str) or not is_extended_resource(explicit):
            explicit = None
        found.pop(name, None)
        found[name] = _Class(name, explicit, _timestamp(metadata.get("creationTimestamp")))
    return list(found.values())


def _as_mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _timestamp(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    # The API writes UTC ("...Z"); a timestamp without a zone is read as UTC too.
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=UTC)


def map_extended_resources(device_classes: Iterable[Any], features: Features) -> ExtendedResourceMapping:
    """The extended resource names the scheduler of ``features.release`` serves through DRA,
    and the explicit names several classes claim (see the module's documentation)."""
    if not features.enabled(GATE):
        return ExtendedResourceMapping({})
    classes = _read_classes(device_classes)
    first_alpha = _first_alpha(features)
    mapping: dict[str, str] = {}
    if not first_alpha:
        # Implicit names are unique (one per class name) and no explicit name can take one:
        # validation refuses *kubernetes.io/* names there.
        mapping.update((IMPLICIT_PREFIX + c.name, c.name) for c in classes)
    claimants: dict[str, list[_Class]] = {}
    for c in classes:
        if c.explicit is not None:
            claimants.setdefault(c.explicit, []).append(c)
    conflicts = []
    for resource, named in claimants.items():
        if first_alpha:
            winner, rule = named[-1], UNDETERMINED
        else:
            # max keeps the first of equals: sorted by name, the smaller name wins a tie.
            winner = max(sorted(named, key=lambda c: c.name), key=_Class.age_key)
            rule = NEWER if sum(c.created == winner.created for c in named) == 1 else FIRST_BY_NAME
        mapping[resource] = winner.name
        if len(named) > 1:
            names = tuple(sorted(c.name for c in named))
            conflicts.append(MappingConflict(resource, names, winner.name, rule, features.release))
    conflicts.sort(key=lambda conflict: conflict.resource)
    return ExtendedResourceMapping(mapping, tuple(conflicts))


def extended_resource_classes(device_classes: Iterable[Any], features: Features) -> dict[str, str]:
    """Resource name -> DeviceClass name, as the scheduler of ``features.release`` maps them
    (empty without the DRAExtendedResource gate). ``Context.extended_resources`` holds it."""
    return map_extended_resources(device_classes, features).classes


# -- which names count ---------------------------------------------------------------------------
def is_dra_extended_resource(name: str, features: Features | None = None) -> bool:
    """A name DRA may serve (``IsDRAExtendedResourceName``): an extended resource name or, from
    1.35 on, an implicit ``deviceclass.resource.kubernetes.io/<class>`` name."""
    if name.startswith(IMPLICIT_PREFIX):
        return not _first_alpha(features)
    return is_extended_resource(name)


# -- the Pod and the node ------------------------------------------------------------------------
def pod_extended_requests(pod: PodInfo, features: Features | None = None) -> dict[str, int]:
    """The Pod's non-zero requests of names DRA may serve, in whole units: ``PodRequests``
    (containers, sidecars, the init phase's peak, overhead) rounded up as ``Value()`` rounds."""
    # Pod-level requests only name cpu, memory and hugepages, which no DRA name is.
    scalars = pod_requests(pod.spec, pod_level=False).scalars
    return {name: value for name, value in sorted(scalars.items())
            if value and is_dra_extended_resource(name, features)}


def dra_served_resources(requests: Mapping[str, int], allocatable: Mapping[str, Any],
                         mapping: Mapping[str, str], *,
                         features: Features | None = None) -> tuple[dict[str, str], tuple[str, ...]]:
    """Which of the Pod's extended resources DRA serves on a node: ``(served, unfit)``.

    ``requests``: :func:`pod_extended_requests`; ``allocatable``: the node's
    ``status.allocatable`` as written; ``mapping``: :func:`extended_resource_classes`.
    ``served`` maps each resource DRA serves here to its class; ``unfit`` names (sorted) the
    resources neither the node lists nor a class serves, which make the node ``cannot fit
    resource`` (the scheduler stops at the first one it meets, in map order). What is in neither
    is the device plugin's. ``features`` selects 1.34's rule; without it, the current one.
    """
    first_alpha = _first_alpha(features)
    served: dict[str, str] = {}
    unfit: list[str] = []
    for name in sorted(requests):
        if not requests[name] or not is_dra_extended_resource(name, features):
            continue
        listed = _allocatable_value(allocatable, name)
        if name in mapping and (listed is None or (not first_alpha and listed == 0)):
            served[name] = mapping[name]
        elif listed is None:
            unfit.append(name)
    return served, tuple(unfit)


def _allocatable_value(allocatable: Mapping[str, Any], name: str) -> int | None:
    """The node's allocatable of one resource in whole units, None when not listed (a value
    that does not parse, which the apiserver refuses, counts as not listed)."""
    if name not in allocatable:
        return None
    try:
        return decode_quantity(allocatable[name]).int_value()
    except QuantityError:
        return None


# -- the claim ----------------------------------------------------------------------------------
def extended_resource_requests(pod: PodInfo, served: Mapping[str, str], *,
                               features: Features | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The extended-resource claim's device requests (sorted by name) and the Pod's request
    mappings (``status.extendedResourceClaimStatus.requestMappings``) for the resources DRA
    serves on a node (``served``: resource -> class, from :func:`dra_served_resources`)."""
    containers = [*pod.init_containers, *pod.containers]
    init_count = len(pod.init_containers)
    requests: list[dict[str, Any]] = []
    mappings: list[dict[str, Any]] = []
    for resource in sorted(served):
        if _first_alpha(features):
            made, mapped = _whole_container_requests(containers, resource, served[resource])
        else:
            made, mapped = _lifetime_requests(containers, init_count, resource, served[resource])
        requests.extend(made)
        mappings.extend(mapped)
    requests.sort(key=lambda request: request["name"])
    return requests, mappings


def _whole_container_requests(containers: list[dict[str, Any]], resource: str,
                              class_name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """1.34: every container asks for its whole quantity."""
    made: list[dict[str, Any]] = []
    mapped: list[dict[str, Any]] = []
    for index, container in enumerate(containers):
        request, mappings = _container_request(index, container, resource, class_name, [])
        if request is not None:
            made.append(request)
        mapped.extend(mappings)
    return made, mapped


def _lifetime_requests(containers: list[dict[str, Any]], init_count: int, resource: str,
                       class_name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """1.35+: requests that follow the containers' lifetimes (``createRequestsAndMappings``)."""
    short_lived = [i for i in range(init_count) if not is_sidecar(containers[i])]
    long_lived = [i for i in range(len(containers)) if i >= init_count or is_sidecar(containers[i])]

    # Long-lived containers run together: each needs its own devices. Indexed by container, so
    # that an init container can see which of them start after it.
    long_requests: list[dict[str, Any] | None] = [None] * len(containers)
    long_mappings: list[dict[str, Any]] = []
    for i in long_lived:
        long_requests[i], mappings = _container_request(i, containers[i], resource, class_name, [])
        long_mappings.extend(mappings)

    # Non-sidecar init containers run one at a time, before the long-lived ones that come after
    # them start: they borrow those devices first, and one request (the largest) covers the rest.
    largest: dict[str, Any] | None = None
    own_names: set[str] = set()
    short_mappings: list[dict[str, Any]] = []
    for i in short_lived:
        request, mappings = _container_request(i, containers[i], resource, class_name, long_requests[i:])
        if request is not None:
            own_names.add(request["name"])
            if largest is None or _count(largest) < _count(request):
                largest = request
        short_mappings.extend(mappings)
    if largest is not None and len(own_names) > 1:
        for mapping in short_mappings:
            if mapping["requestName"] in own_names:
                mapping["requestName"] = largest["name"]

    made = ([largest] if largest is not None else []) + [r for r in long_requests if r is not None]
    return made, long_mappings + short_mappings


def _count(request: Mapping[str, Any]) -> int:
    return int(request["exactly"]["count"])


def _container_request(index: int, container: Mapping[str, Any], resource: str, class_name: str,
                       reusable: list[dict[str, Any] | None]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """What one container needs of one resource: the devices of ``reusable`` requests it borrows
    (in order, until it has enough) and a request of its own for the rest, if any."""
    resources = container.get("resources")
    listed = resources.get("requests") if isinstance(resources, Mapping) else None
    if not isinstance(listed, Mapping) or resource not in listed:
        return None, []
    wanted = _device_count(listed[resource])
    if not wanted:
        return None, []
    name = str(container.get("name") or "")
    mappings: list[dict[str, Any]] = []
    borrowed = 0
    for request in reusable:
        if request is None:
            continue
        borrowed += _count(request)
        mappings.append(_mapping(name, resource, request["name"]))
        if borrowed >= wanted:
            return None, mappings
    # The index among all of the container's request names (cpu and memory too), sorted:
    # request names must not depend on the order of a map.
    position = sorted(str(key) for key in listed).index(resource)
    request_name = f"container-{index}-request-{position}"
    request = {
        "name": request_name,
        "exactly": {"deviceClassName": class_name, "allocationMode": EXACT_COUNT, "count": wanted - borrowed},
    }
    mappings.append(_mapping(name, resource, request_name))
    return request, mappings


def _mapping(container: str, resource: str, request: str) -> dict[str, Any]:
    return {"containerName": container, "resourceName": resource, "requestName": request}


def _device_count(raw: Any) -> int:
    """A container's quantity as a device count: ``AsInt64`` of the quantity as the apiserver
    stores it (canonical form, so "1000m" is 1). A fraction, an overflow, zero or a value that
    does not parse asks for nothing, as ``AsInt64`` failing does upstream; validation refuses
    all but zero for an extended resource anyway."""
    try:
        stored = parse_quantity(str(decode_quantity(raw)))
    except QuantityError:
        return 0
    count = stored.as_int64()
    return count if count is not None and count > 0 else 0


def special_claim(pod: PodInfo, requests: list[dict[str, Any]], *,
                  features: Features | None = None) -> dict[str, Any]:
    """The ResourceClaim the scheduler creates at binding for the Pod's extended resources: a
    generated name, the annotation that marks it, the Pod as its controller, the requests.
    (In memory, before binding, the scheduler names it ``<extended-resources>``.)"""
    owner: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid,
                             "controller": True}
    if _first_alpha(features):
        owner["blockOwnerDeletion"] = True
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "generateName": f"{pod.name}-extended-resources-",
            "namespace": pod.namespace,
            "annotations": {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"},
            "ownerReferences": [owner],
        },
        "spec": {"devices": {"requests": requests}},
    }
