"""DynamicResources: the scheduler plugin of Dynamic Resource Allocation
(``pkg/scheduler/framework/plugins/dynamicresources``), with dractl's allocator as its engine.

- PreEnqueue: every claim of the Pod exists, is not being deleted, and a claim made from a
  template belongs to the Pod.
- PreFilter: Skip for a Pod with no claims and no extended resource a DeviceClass serves;
  a claim allocated and reserved for as many consumers as it can take blocks the Pod; the
  classes of the claims to allocate exist.
- Filter, per node: the extended-resource claim for the node, allocated claims available on
  the node (node selector, binding conditions), and the allocator over the claims to allocate.
- PostFilter: what the scheduler would undo so that a later attempt may fit.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from dractl.allocator.inputs import PodClaimEntry
from dractl.allocator.nodes import NodeInfo, NodeSelectorError, parse_node_selector
from dractl.api.releases import Features
from dractl.scheduler.objects import NodeState, PodInfo
from dractl.scheduler.plugin import (
    FILTER,
    POST_FILTER,
    PRE_ENQUEUE,
    PRE_FILTER,
    Context,
    CycleState,
    Plugin,
    PreFilterResult,
)
from dractl.scheduler.status import (
    SUCCESS,
    Code,
    Status,
    error,
    skip,
    unresolvable,
    unschedulable,
)

EXTENDED_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
RESERVED_FOR_MAX = 256  # ResourceClaimReservedForMaxSize
FIRST_AVAILABLE_MAX = 8  # FirstAvailableDeviceRequestMaxSize: the score of a first choice
DEFAULT_BINDING_TIMEOUT = 600.0  # DynamicResourcesArgs.bindingTimeout


class DraInputs:
    """What explain hands the plugin: the Pod's claims, every claim of the run (to find a
    leftover extended-resource claim), the DeviceClasses, and ``allocate(node, claims)``,
    the allocator with explain's trace and timeouts."""

    def __init__(self, pod_claims: Sequence[PodClaimEntry], all_claims: Sequence[Mapping[str, Any]],
                 device_classes: Mapping[str, Any], allocate: Callable[[NodeInfo, list[dict[str, Any]]], Any],
                 now: float | None = None) -> None:
        self.pod_claims = pod_claims
        self.all_claims = all_claims
        self.device_classes = device_classes
        self.allocate = allocate
        self.now = time.time() if now is None else now


class _State:
    """PreFilter's findings for Filter and PostFilter."""

    def __init__(self) -> None:
        self.claims: list[Any] = []  # the Pod's claims, then the extended-resource claim
        self.available_on: dict[int, Any] = {}  # claim index -> parsed node selector
        self.extended: dict[str, Any] | None = None  # the extended-resource claim (manifest)
        self.extended_leftover = False  # made in an earlier attempt (has a name of its own)
        self.unavailable: set[int] = set()
        # node -> the extended-resource claim made for it, and the Pod's request mappings
        self.node_claims: dict[str, tuple[dict[str, Any], list[dict[str, str]]]] = {}
        # The claims to allocate on every node (those without an allocation), as manifests
        self.pending: list[dict[str, Any]] = []
        # Whether one of them has a firstAvailable request (else every node scores 0); known
        # once a node is scored.
        self.prioritized: bool | None = None

    def settle(self, claims: list[Any], extended: dict[str, Any] | None) -> None:
        """PreFilter's findings recorded (once PreFilter succeeds)."""
        self.claims, self.extended = claims, extended
        self.pending = [_data(c) for c in claims if _allocation(c) is None]

    @property
    def empty(self) -> bool:
        return not self.claims and self.extended is None


def _data(claim: Any) -> dict[str, Any]:
    data = getattr(claim, "data", claim)
    return data if isinstance(data, dict) else {}


def _status(claim: Any) -> dict[str, Any]:
    status = _data(claim).get("status")
    return status if isinstance(status, dict) else {}


def _allocation(claim: Any) -> dict[str, Any] | None:
    allocation = _status(claim).get("allocation")
    return allocation if isinstance(allocation, dict) else None


def _name(claim: Any) -> str:
    return str(getattr(claim, "qualified_name", None) or _qualified(_data(claim)))


def _qualified(data: Mapping[str, Any]) -> str:
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    return f"{metadata.get('namespace') or 'default'}/{metadata.get('name') or ''}"


class DynamicResources(Plugin):
    name = "DynamicResources"
    extension_points = frozenset({PRE_ENQUEUE, PRE_FILTER, FILTER, POST_FILTER})

    def __init__(self, context: Context, args: Mapping[str, Any] | None = None) -> None:
        super().__init__(context, args)
        # Read once, not per node.
        self.binding = self.features.enabled("DRADeviceBindingConditions") and self.features.enabled(
            "DRAResourceClaimDeviceStatus")

    @property
    def filter_timeout(self) -> float | None:
        """DynamicResourcesArgs.filterTimeout in seconds (0: no limit), None when not configured."""
        return go_duration(self.args.get("filterTimeout"))

    @property
    def inputs(self) -> DraInputs | None:
        dra = self.context.dra
        return dra if isinstance(dra, DraInputs) else None

    # -- PreEnqueue -----------------------------------------------------------------------
    def pre_enqueue(self, pod: PodInfo) -> Status:
        inputs = self.inputs
        if inputs is None:
            return SUCCESS
        for entry in inputs.pod_claims:
            if entry.problem is not None:
                return unresolvable(entry.problem)
            if entry.claim is None:
                continue
            metadata = _data(entry.claim).get("metadata") or {}
            if metadata.get("deletionTimestamp"):
                return unresolvable(f'resourceclaim "{metadata.get("name")}" is being deleted')
            if entry.from_template and not entry.made and not _owned_by(metadata, pod):
                return unresolvable(
                    f"ResourceClaim {_name(entry.claim)} was not created for pod {pod.qualified_name} (pod is not owner)"
                )
        return SUCCESS

    # -- PreFilter ------------------------------------------------------------------------
    def pre_filter(self, cycle: CycleState, pod: PodInfo) -> PreFilterResult:
        state = _State()
        cycle[self.name] = state
        inputs = self.inputs
        if inputs is None:
            return PreFilterResult(skip())
        rejected = self.pre_enqueue(pod)
        if not rejected.success:
            return PreFilterResult(rejected)
        # Recorded in the state only once PreFilter succeeds, as upstream does: PostFilter then
        # finds "no new claims to deallocate".
        claims = [entry.claim for entry in inputs.pod_claims if entry.claim is not None]
        extended: dict[str, Any] | None = None
        if self.context.extended_resources and self._requests_mapped_resource(cycle, pod):
            leftover = _extended_claim_of(pod, inputs.all_claims)
            extended = leftover if leftover is not None else {}
            state.extended_leftover = leftover is not None
        if not claims and extended is None:
            return PreFilterResult(skip())
        for index, claim in enumerate(claims):
            allocation = _allocation(claim)
            reserved = [r for r in _status(claim).get("reservedFor") or [] if isinstance(r, dict)]
            if allocation is not None and len(reserved) >= RESERVED_FOR_MAX and not any(
                r.get("uid") == pod.uid for r in reserved
            ):
                return PreFilterResult(unresolvable("resourceclaim in use"))
            if allocation is not None:
                selector = allocation.get("nodeSelector")
                if isinstance(selector, dict):
                    try:
                        state.available_on[index] = parse_node_selector(selector)
                    except NodeSelectorError as exc:
                        return PreFilterResult(error(str(exc)))
                continue
            problem = self._check_requests(claim, inputs)
            if problem is not None:
                return PreFilterResult(problem)
        state.settle(claims, extended)
        return PreFilterResult(SUCCESS)

    def _requests_mapped_resource(self, cycle: CycleState, pod: PodInfo) -> bool:
        from dractl.scheduler.extended import pod_extended_requests

        requests = pod_extended_requests(pod, self.features)
        cycle["DynamicResources/extended"] = requests
        return any(quantity and name in self.context.extended_resources for name, quantity in requests.items())

    def _check_requests(self, claim: Any, inputs: DraInputs) -> Status | None:
        spec = _data(claim).get("spec") or {}
        requests = (spec.get("devices") or {}).get("requests") or []
        for request in requests if isinstance(requests, list) else []:
            if not isinstance(request, dict):
                continue
            name = str(request.get("name") or "")
            exactly = request.get("exactly")
            alternatives = request.get("firstAvailable")
            if isinstance(exactly, dict):
                problem = _check_class(str(exactly.get("deviceClassName") or ""), name, inputs)
            elif isinstance(alternatives, list) and alternatives:
                if not self.features.enabled("DRAPrioritizedList"):
                    return unresolvable(f"resource claim {_name(claim)}, request {name}: has subrequests, "
                                        "but the DRAPrioritizedList feature is disabled")
                problem = None
                for sub in alternatives:
                    if isinstance(sub, dict):
                        problem = _check_class(str(sub.get("deviceClassName") or ""), f"{name}/{sub.get('name')}", inputs)
                        if problem is not None:
                            break
            else:
                return unresolvable(f"resource claim {_name(claim)}, request {name}: unknown request type")
            if problem is not None:
                return problem
        return None

    # -- Filter ---------------------------------------------------------------------------
    def filter(self, cycle: CycleState, pod: PodInfo, node: NodeState) -> Status:
        state: _State | None = cycle.get(self.name)
        inputs = self.inputs
        if state is None or inputs is None or state.empty:
            return SUCCESS
        node_claim: dict[str, Any] | None = None
        if state.extended is not None:
            if state.extended_leftover and ((state.extended.get("spec") or {}).get("devices") or {}).get("requests"):
                return unresolvable("cannot schedule extended resource claim",
                                    detail=f"the extended-resource claim {_qualified(state.extended)} "
                                    "was made in an earlier attempt; the scheduler deletes it and starts over")
            served = self._served_on(cycle, pod, node)
            if isinstance(served, Status):
                return served
            if served:
                node_claim, mappings = _claim_for_node(pod, served, self.features)
                state.node_claims[node.name] = (node_claim, mappings)
        if node_claim is None and not state.claims:
            return SUCCESS  # the device plugin serves every extended resource here
        unavailable: list[tuple[int, str]] = []
        binding = self.binding
        for index, claim in enumerate(state.claims):
            selector = state.available_on.get(index)
            if selector is not None and not selector.matches(node.info):
                unavailable.append((index, f"claim {_name(claim)} is already allocated for other nodes"))
                continue
            if binding and _allocation(claim) is not None and self._binding_blocked(claim, inputs):
                unavailable.append((index, f"claim {_name(claim)}: its binding conditions failed or were "
                                    "not met in time"))
        to_allocate = list(state.pending)
        if node_claim is not None:
            to_allocate.append(node_claim)
        outcome = None
        if to_allocate:
            outcome = inputs.allocate(node.info, to_allocate)
            if outcome.status == "timeout":
                return Status(Code.ERROR, (f"node {node.name}: timed out trying to allocate devices",),
                              outcome=outcome)
            if outcome.status == "error":
                text = str(outcome.error)
                code = Code.ERROR if "CEL runtime error" in text else Code.UNRESOLVABLE
                return Status(code, (text,), outcome=outcome)
            if outcome.status != "allocated":
                return Status(Code.UNRESOLVABLE, ("cannot allocate all claims",), outcome=outcome)
        if unavailable:
            state.unavailable.update(index for index, _ in unavailable)
            # The devices the search found here are of no use: leave them out of the explanation.
            return unresolvable("resourceclaim not available on the node",
                                detail="; ".join(why for _, why in unavailable))
        return Status(Code.SUCCESS, outcome=outcome)

    def _served_on(self, cycle: CycleState, pod: PodInfo, node: NodeState) -> dict[str, str] | Status:
        """The extended resources DRA serves on this node (resource -> class), or the rejection."""
        from dractl.scheduler.extended import dra_served_resources

        requests = cycle.get("DynamicResources/extended") or {}
        served, missing = dra_served_resources(requests, node.allocatable, self.context.extended_resources,
                                               features=self.features)
        if missing:
            return unresolvable("cannot fit resource",
                                detail=f"{missing[0]}: neither in the node's allocatable nor served by a DeviceClass")
        return served

    def _binding_blocked(self, claim: Any, inputs: DraInputs) -> bool:
        """A binding failure condition is true, or the binding conditions are not all met once
        the binding timeout has passed since the allocation."""
        allocation = _allocation(claim) or {}
        devices = {
            (d.get("driver"), d.get("pool"), d.get("device")): {
                c.get("type"): c.get("status") for c in d.get("conditions") or [] if isinstance(c, dict)
            }
            for d in _status(claim).get("devices") or [] if isinstance(d, dict)
        }
        ready = True
        for result in (allocation.get("devices") or {}).get("results") or []:
            if not isinstance(result, dict) or not result.get("bindingConditions"):
                continue
            conditions = devices.get((result.get("driver"), result.get("pool"), result.get("device")), {})
            if any(conditions.get(c) == "True" for c in result.get("bindingFailureConditions") or []):
                return True
            if not all(conditions.get(c) == "True" for c in result.get("bindingConditions") or []):
                ready = False
        if ready:
            return False
        stamp = _timestamp(allocation.get("allocationTimestamp"))
        configured = go_duration(self.args.get("bindingTimeout"))
        timeout = DEFAULT_BINDING_TIMEOUT if configured is None else configured
        return stamp is not None and stamp + timeout < inputs.now

    # -- PostFilter -----------------------------------------------------------------------
    def post_filter(self, cycle: CycleState, pod: PodInfo, statuses: Mapping[str, Status]) -> Status:
        state: _State | None = cycle.get(self.name)
        if state is None or state.empty:
            return unschedulable("no new claims to deallocate")
        for index in sorted(state.unavailable):
            claim = state.claims[index]
            reserved = [r for r in _status(claim).get("reservedFor") or [] if isinstance(r, dict)]
            if not reserved or (len(reserved) == 1 and reserved[0].get("uid") == pod.uid):
                return unschedulable("deallocation of ResourceClaim completed", detail=f"deallocate: {_name(claim)}")
        if state.extended_leftover and state.extended is not None:
            return unschedulable("deletion of ResourceClaim completed", detail=f"delete: {_qualified(state.extended)}")
        return unschedulable("still not schedulable")

    # -- scoring --------------------------------------------------------------------------
    def score(self, cycle: CycleState, allocations: Sequence[Mapping[str, Any]] | None) -> int:
        """The plugin's Score for a node: per subrequest allocated, 8 minus its place in the
        firstAvailable list (the scheduler prefers nodes where claims get earlier choices)."""
        state: _State | None = cycle.get(self.name)
        if state is None or not allocations:
            return 0
        if state.prioritized is None:
            state.prioritized = any(
                isinstance(request, dict) and isinstance(request.get("firstAvailable"), list)
                for claim in state.pending
                for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []
            )
        if not state.prioritized:
            return 0
        total = 0
        for claim, allocation in zip(state.pending, allocations, strict=False):
            used = {str(r.get("request")) for r in (allocation.get("devices") or {}).get("results") or []
                    if isinstance(r, dict) and "/" in str(r.get("request"))}
            requests = ((_data(claim).get("spec") or {}).get("devices") or {}).get("requests") or []
            for request in requests:
                if not isinstance(request, dict) or not isinstance(request.get("firstAvailable"), list):
                    continue
                for place, sub in enumerate(request["firstAvailable"]):
                    if isinstance(sub, dict) and f"{request.get('name')}/{sub.get('name')}" in used:
                        total += FIRST_AVAILABLE_MAX - place
        return total

    def extended_claim(self, cycle: CycleState, pod: PodInfo, node: NodeState
                       ) -> tuple[dict[str, Any], list[dict[str, str]]] | None:
        """The extended-resource claim the scheduler makes for the Pod on the node and the
        Pod's request mappings, or None when the node needs none."""
        state: _State | None = cycle.get(self.name)
        if state is None or state.extended is None or state.extended_leftover:
            return None
        if node.name in state.node_claims:
            return state.node_claims[node.name]
        served = self._served_on(cycle, pod, node)
        return None if isinstance(served, Status) or not served else _claim_for_node(pod, served, self.features)


def _check_class(class_name: str, request: str, inputs: DraInputs) -> Status | None:
    if not class_name:
        return error(f"request {request}: unsupported request type")
    if class_name not in inputs.device_classes:
        return unresolvable(f"request {request}: device class {class_name} does not exist")
    return None


def _owned_by(metadata: Mapping[str, Any], pod: PodInfo) -> bool:
    """resourceclaim.IsForPod: the Pod is the claim's controller owner (by UID)."""
    for owner in metadata.get("ownerReferences") or []:
        if isinstance(owner, dict) and owner.get("controller") is True:
            return owner.get("uid") == pod.metadata.get("uid") and owner.get("kind") == "Pod"
    return False


def _extended_claim_of(pod: PodInfo, claims: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The extended-resource claim an earlier attempt made for the Pod (annotation and
    controller owner), if any."""
    for data in claims:
        metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        if (metadata.get("annotations") or {}).get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) != "true":
            continue
        for owner in metadata.get("ownerReferences") or []:
            if (isinstance(owner, dict) and owner.get("name") == pod.name and owner.get("controller") is True
                    and owner.get("uid") == pod.metadata.get("uid")):
                return dict(data)
    return None


def _claim_for_node(pod: PodInfo, served: Mapping[str, str], features: Features
                    ) -> tuple[dict[str, Any], list[dict[str, str]]]:
    from dractl.scheduler.extended import extended_resource_requests, special_claim

    requests, mappings = extended_resource_requests(pod, served, features=features)
    claim = special_claim(pod, requests, features=features)
    # The scheduler's in-memory name until the claim is created with generateName at binding.
    claim.setdefault("metadata", {}).setdefault("name", "<extended-resources>")
    return claim, mappings


def _timestamp(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


def go_duration(value: Any) -> float | None:
    """A ``metav1.Duration`` of the scheduler configuration (Go's ``time.ParseDuration``:
    ``10s``, ``1m30s``, ``500ms``) in seconds; None when absent or not a duration."""
    if not isinstance(value, str) or not value:
        return None
    text = value.lstrip("+-")
    sign = -1.0 if value.startswith("-") else 1.0
    if text == "0":
        return 0.0
    total, at = 0.0, 0
    for match in _DURATION_PART.finditer(text):
        if match.start() != at:
            return None
        total += float(match.group(1)) * _DURATION_UNITS[match.group(2)]
        at = match.end()
    return sign * total if at == len(text) and at else None
