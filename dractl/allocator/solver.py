"""The search: upstream's first-fit backtracking over claims, requests, slots and devices.

One :class:`Allocator` holds an :class:`~dractl.allocator.inventory.Inventory` and the
feature switches; :meth:`Allocator.allocate` solves a list of claims on one node, all of
them or none, and returns an :class:`Outcome`. The step order, the bookkeeping (and its
known upstream quirks, such as counters of a device that is then rejected for a taint
staying consumed) and the error texts follow
`k8s.io/dynamic-resource-allocation/structured` for the chosen release and implementation.
"""

from __future__ import annotations

import sys
import time
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal

from dractl.allocator.capacity import (
    RequestedCapacity,
    consumed_quantity,
    describe_policy,
    int64_rounding,
    violates_policy,
)
from dractl.allocator.constraints import Constraint, DistinctAttribute, MatchAttribute
from dractl.allocator.features import (
    AllocatorFeatures,
    Behaviour,
    Implementation,
    Release,
    choose_implementation,
)
from dractl.allocator.inventory import (
    DeviceEntry,
    DeviceID,
    Inventory,
    claim_ref,
    device_capacity,
    object_data,
)
from dractl.allocator.nodes import NodeInfo, NodeSelectorError
from dractl.allocator.pools import Pool, PoolGatherer, PoolGatheringError, node_matches
from dractl.allocator.quantity import Quantity, QuantityError
from dractl.allocator.selectors import Compiler, SelectorEngine, SelectorSet
from dractl.allocator.trace import NodeTrace, PoolTrace, Reason, Rejection, RequestTrace
from dractl.records import Record

ALLOCATION_RESULTS_MAX_SIZE = 32
DEFAULT_TIMEOUT = 10.0
_SHARE_ID_NAMESPACE = "6f1c2d1e-6a53-4c3e-9d55-6d7261637431"

Status = Literal["allocated", "unschedulable", "error", "timeout"]

_FAIL, _SUCCESS, _EXCEEDED = 0, 1, 2


class AllocationError(Exception):
    """An error that aborts allocation on this node (upstream returns it from Allocate)."""


class _Timeout(Exception):
    pass


class Outcome(Record):
    """The result of one :meth:`Allocator.allocate` call.

    - `status`: "allocated" (every claim got a result), "unschedulable" (no solution, no
      error), "error" (upstream's Allocate would return this error) or "timeout" (the
      search was stopped; `error` says so).
    - `allocations`: one AllocationResult (resource.k8s.io/v1 shape) per claim, in claim
      order, or None.
    - `order_ambiguous`: the implementation upstream runs visits pools in Go map order;
      dractl used sorted order, and some request had usable devices in more than one pool,
      so the scheduler might pick other, equally valid devices.
    - `notes`: where upstream's arithmetic, not the exact one, decided the result (capacity
      rounded in int64, a claim's capacity request grown while it was checked), one sentence
      each, for explanations.
    - `trace`: what the search saw, when asked for.
    """

    __slots__ = (
        "allocations",
        "error",
        "implementation",
        "node",
        "notes",
        "order_ambiguous",
        "status",
        "steps",
        "trace",
    )

    def __init__(
        self,
        node: str,
        status: Status,
        allocations: list[dict[str, Any]] | None,
        error: str | None,
        implementation: Implementation,
        order_ambiguous: bool = False,
        trace: NodeTrace | None = None,
        steps: int = 0,
        notes: tuple[str, ...] = (),
    ) -> None:
        self.node = node
        self.status = status
        self.allocations = allocations
        self.error = error
        self.implementation = implementation
        self.order_ambiguous = order_ambiguous
        self.trace = trace
        self.steps = steps
        self.notes = notes


class _Request:
    """A request without subrequests, or one subrequest (upstream's `requestData`)."""

    __slots__ = (
        "admin_access",
        "all_devices",
        "all_mode",
        "capacity_problem",
        "capacity_requests",
        "claim_index",
        "class_config",
        "class_name",
        "name",
        "num_devices",
        "parent",
        "raw",
        "request_index",
        "selected_sub",
        "selectors",
        "sub_index",
        "tolerations",
        "trace",
    )

    def __init__(
        self,
        claim_index: int,
        request_index: int,
        sub_index: int,
        name: str,
        parent: str | None,
        raw: dict[str, Any],
        class_name: str = "",
        class_config: list[dict[str, Any]] | None = None,
        selectors: SelectorSet | None = None,
        all_mode: bool = False,
        num_devices: int = 0,
        admin_access: bool = False,
        tolerations: list[dict[str, Any]] | None = None,
        capacity_requests: dict[str, RequestedCapacity] | None = None,
        capacity_problem: str | None = None,
        all_devices: list[tuple[DeviceEntry, Pool]] | None = None,
        selected_sub: int = 0,
        trace: RequestTrace | None = None,
    ) -> None:
        self.claim_index = claim_index
        self.request_index = request_index
        self.sub_index = sub_index
        self.name = name
        self.parent = parent
        self.raw = raw
        self.class_name = class_name
        self.class_config = [] if class_config is None else class_config
        self.selectors = selectors
        self.all_mode = all_mode
        self.num_devices = num_devices
        self.admin_access = admin_access
        self.tolerations = [] if tolerations is None else tolerations
        self.capacity_requests = capacity_requests
        self.capacity_problem = capacity_problem
        self.all_devices = [] if all_devices is None else all_devices
        self.selected_sub = selected_sub
        self.trace = trace

    @property
    def full_name(self) -> str:
        return f"{self.parent}/{self.name}" if self.parent is not None else self.name


class _Result(Record):
    __slots__ = ("consumed", "device", "request", "share_id")

    def __init__(
        self,
        request: _Request,
        device: DeviceEntry,
        share_id: str | None,
        consumed: dict[str, Quantity | RequestedCapacity] | None,
    ) -> None:
        self.request = request
        self.device = device
        self.share_id = share_id
        self.consumed = consumed

    @property
    def id(self) -> DeviceID:
        return self.device.id


class Allocator:
    """Upstream's structured allocator for one release, one set of features and one inventory.

    `compiler` turns a CEL expression into an object with `.evaluate(cel_device)`; by
    default `dractl.cel.compile_selector(expr, release=..., gates=..., purpose="stored")`.
    The allocator can be used for many nodes; selector verdicts and pools are shared.
    """

    def __init__(
        self,
        inventory: Inventory,
        *,
        release: Release = "1.36",
        features: AllocatorFeatures | None = None,
        gates: Mapping[str, bool] | None = None,
        compiler: Compiler | None = None,
        implementation: Implementation | None = None,
    ) -> None:
        self.inventory = inventory
        self.release: Release = release
        self.features = features if features is not None else AllocatorFeatures.from_gates(release, gates or {})
        self.implementation: Implementation = implementation or choose_implementation(release, self.features)
        self.behaviour = Behaviour.of(release, self.implementation)
        self.gatherer = PoolGatherer(inventory, self.features, self.behaviour)
        self.selectors = SelectorEngine(
            compiler, release=release, gates=gates, sees_allow_multiple=self.behaviour.knows_consumable_capacity,
            list_types=self.features.list_type_attributes,
        )

    def add_allocated(self, claims: Sequence[Any], owner: str | None = None) -> None:
        """Counts more allocated claims (v1 shape, with `status.allocation`) as in use for every
        later `allocate` call, as a new inventory holding them would (see
        :meth:`Inventory.add_allocated`): how the scheduler sees the pods it placed before."""
        self.inventory.add_allocated(claims, owner)
        self.gatherer.forget_allocated_counters()

    def allocate(
        self,
        node: Any,
        claims: Sequence[Any],
        *,
        trace: bool = False,
        timeout: float | None = DEFAULT_TIMEOUT,
        deadline: float | None = None,
    ) -> Outcome:
        """Solves `claims` (unallocated, v1 shape) together on `node` (a Node or NodeInfo).

        The search stops at `deadline` (a `time.monotonic()` value) or after `timeout`
        seconds, whichever comes first; None disables that bound.
        """
        node_info = NodeInfo.from_object(node)
        limit = deadline
        if timeout is not None:
            by_timeout = time.monotonic() + timeout
            limit = by_timeout if limit is None else min(limit, by_timeout)
        run = _Run(self, node_info, [object_data(c) for c in claims], trace, limit)
        _ensure_recursion_depth(run.claims)
        return run.execute()


class _Run:
    """One Allocate call (upstream's `allocator` struct)."""

    def __init__(self, owner: Allocator, node: NodeInfo, claims: list[dict[str, Any]], trace: bool,
                 deadline: float | None) -> None:
        self.owner = owner
        self.behaviour = owner.behaviour
        self.features = owner.features
        self.inventory = owner.inventory
        self.allocated = owner.inventory.allocated
        self.node = node
        self.claims = claims
        self.claim_refs = [claim_ref(c) for c in claims]
        self.deadline = deadline
        self.trace = NodeTrace(node.name, owner.implementation, inventory=owner.inventory, node_info=node) if trace else None
        self.pools: list[Pool] = []
        self.requests: dict[tuple[int, int, int], _Request] = {}
        self.constraints: list[list[Constraint]] = [[] for _ in claims]
        self.results: list[list[_Result]] = [[] for _ in claims]
        self.allocating: dict[DeviceID, set[int]] = {}
        self.allocating_capacity: dict[DeviceID, dict[str, Fraction]] = {}
        self.consumed_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        self.available_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        self.steps = 0
        self.shares = 0
        self.consumable = owner.features.consumable_capacity

    # ----------------------------------------------------------------- driver

    def execute(self) -> Outcome:
        try:
            outcome = self._execute()
        except AllocationError as error:
            outcome = self._outcome("error", None, str(error))
        except _Timeout:
            outcome = self._outcome(
                "timeout", None,
                "filter operation aborted: context deadline exceeded (the search was stopped; "
                "the explanation covers what it saw until then)",
            )
        if self.trace is not None:
            self.trace.steps = self.steps
        return outcome

    def _outcome(self, status: Status, allocations: list[dict[str, Any]] | None, error: str | None,
                 notes: tuple[str, ...] = ()) -> Outcome:
        return Outcome(self.node.name, status, allocations, error, self.owner.implementation,
                       self._order_ambiguous(), self.trace, self.steps, notes)

    def _execute(self) -> Outcome:
        try:
            self.pools, relevant = self.owner.gatherer.gather(self.node)
        except PoolGatheringError as error:
            raise AllocationError(f"gather pool information: {error}") from None
        if self.trace is not None:
            self.trace.visible_slices = set(relevant)
            self.trace.pool_objects = self.pools
            self.trace.pools = [
                PoolTrace(p.driver, p.name, "incomplete" if p.incomplete else "invalid" if p.invalid else "ok",
                          p.invalid_reason, len(p.devices))
                for p in self.pools
            ]
        self._prepare()
        result = self._one(0, 0, 0, 0, False, None)
        if result != _SUCCESS:
            if self.behaviour.skip_unusable_pools and any(p.invalid for p in self.pools):
                return self._outcome("error", None, "invalid resource pools were encountered")
            return self._outcome("unschedulable", None, None)
        return self._outcome("allocated", self._build_results(), None, self._capacity_notes())

    # ------------------------------------------------------------- preparing

    def _prepare(self) -> None:
        for claim_index, claim in enumerate(self.claims):
            ref = self.claim_refs[claim_index]
            devices = (claim.get("spec") or {}).get("devices") or {}
            min_devices = 0
            for request_index, raw in enumerate(devices.get("requests") or []):
                raw = raw or {}
                name = str(raw.get("name") or "")
                subrequests = raw.get("firstAvailable") or []
                if not self.features.prioritized_list and subrequests:
                    raise AllocationError(
                        f"claim {ref}, request {name}: has subrequests, but the DRAPrioritizedList feature is disabled")
                if not self.consumable and self.behaviour.knows_consumable_capacity:
                    if (raw.get("exactly") or {}).get("capacity") is not None:
                        raise AllocationError(f"claim {ref}, request {name}: has capacity requests, "
                                              "but the DRAConsumableCapacity feature is disabled")
                    for sub in subrequests:
                        if (sub or {}).get("capacity") is not None:
                            raise AllocationError(f"claim {ref}, subrequest {(sub or {}).get('name', '')}: has capacity "
                                                  "requests, but the DRAConsumableCapacity feature is disabled")
                if subrequests:
                    smallest = None
                    for sub_index, sub in enumerate(subrequests):
                        request = _Request(claim_index, request_index, sub_index, str((sub or {}).get("name") or ""),
                                           name, sub or {})
                        self._validate(request, is_sub=True)
                        self.requests[(claim_index, request_index, sub_index)] = request
                        smallest = request.num_devices if smallest is None else min(smallest, request.num_devices)
                    min_devices += smallest or 0
                else:
                    request = _Request(claim_index, request_index, 0, name, None, raw.get("exactly") or {})
                    self._validate(request, is_sub=False)
                    self.requests[(claim_index, request_index, 0)] = request
                    min_devices += request.num_devices
            if min_devices > ALLOCATION_RESULTS_MAX_SIZE:
                raise AllocationError(f"claim {ref}: number of requested devices {min_devices} exceeds the claim "
                                      f"limit of {ALLOCATION_RESULTS_MAX_SIZE}")
            for index, raw_constraint in enumerate(devices.get("constraints") or []):
                raw_constraint = raw_constraint or {}
                requests = [str(r) for r in raw_constraint.get("requests") or []]
                if raw_constraint.get("matchAttribute") is not None:
                    self.constraints[claim_index].append(
                        MatchAttribute(str(raw_constraint["matchAttribute"]), requests,
                                       self.features.list_type_attributes))
                elif raw_constraint.get("distinctAttribute") is not None and self.behaviour.distinct_attribute:
                    self.constraints[claim_index].append(
                        DistinctAttribute(str(raw_constraint["distinctAttribute"]), requests,
                                          self.features.list_type_attributes))
                else:
                    raise AllocationError(f"claim {ref}, constraint #{index}: empty constraint "
                                          "(unsupported constraint type?)")

    def _validate(self, request: _Request, *, is_sub: bool) -> None:
        ref = self.claim_refs[request.claim_index]
        raw = request.raw
        selectors = raw.get("selectors") or []
        for index, selector in enumerate(selectors):
            if (selector or {}).get("cel") is None:
                raise AllocationError(f"claim {ref}, request {request.name}, selector #{index}: "
                                      "CEL expression empty (unsupported selector type?)")
        has_admin = not is_sub and raw.get("adminAccess") is not None
        if not self.features.admin_access and has_admin:
            raise AllocationError(f"claim {ref}, request {request.name}: admin access is requested, "
                                  "but the feature is disabled")
        request.admin_access = not is_sub and bool(raw.get("adminAccess"))
        class_name = str(raw.get("deviceClassName") or "")
        if not class_name:
            raise AllocationError(f"claim {ref}, request {request.name}: missing device class name "
                                  "(unsupported request type?)")
        device_class = self.inventory.classes.get(class_name)
        if device_class is None:
            raise AllocationError(f"claim {ref}, request {request.name}: could not retrieve device class "
                                  f'{class_name}: deviceclass.resource.k8s.io "{class_name}" not found')
        request.class_name = class_name
        request.class_config = device_class.config
        request.selectors = self.owner.selectors.selector_set(
            class_name, device_class.selectors, [((s or {}).get("cel") or {}).get("expression") for s in selectors])
        request.tolerations = list(raw.get("tolerations") or [])
        capacity = (raw.get("capacity") or {}).get("requests") if raw.get("capacity") is not None else None
        if capacity is not None:
            try:
                request.capacity_requests = {str(k): RequestedCapacity(Quantity.parse(v))
                                             for k, v in capacity.items()}
            except QuantityError as error:
                raise AllocationError(f"claim {ref}, request {request.name}: {error}") from None
        elif raw.get("capacity") is not None:
            request.capacity_requests = {}
        mode = raw.get("allocationMode")
        if self.trace is not None:
            request.trace = RequestTrace(ref, request.claim_index, request.full_name, class_name, str(mode),
                                         int(raw.get("count") or 0), selector_set=request.selectors,
                                         pools=[p for p in self.pools if not p.incomplete and not p.invalid],
                                         binding_enabled=self.features.binding_enabled)
            self.trace.requests.append(request.trace)
        if mode == "ExactCount":
            request.num_devices = int(raw.get("count") or 0)
        elif mode == "All":
            request.all_mode = True
            self._collect_all(request, ref)
            request.num_devices = len(request.all_devices)
        else:
            raise AllocationError(f"claim {ref}, request {request.name}: unsupported count mode {mode or ''}")

    def _collect_all(self, request: _Request, ref: str) -> None:
        for pool in self.pools:
            if pool.incomplete:
                raise AllocationError(f"claim {ref}, request {request.name}: asks for all devices, but resource pool "
                                      f"{pool.id} is currently being updated")
            if pool.invalid:
                raise AllocationError(f"claim {ref}, request {request.name}: asks for all devices, but resource pool "
                                      f"{pool.id} is currently invalid")
            for device in pool.devices:
                if not self._selectable(request, device):
                    continue
                if self.consumable and self._capacity_fits(request, device) is not True:
                    continue
                request.all_devices.append((device, pool))

    # ------------------------------------------------------------- selection

    def _selectable(self, request: _Request, device: DeviceEntry) -> bool:
        """Upstream's isSelectable: binding conditions, selectors, per-device node selection."""
        if device.binding_conditions and not self.features.binding_enabled:
            self._reject(request, device, Reason.BINDING_CONDITIONS)
            return False
        assert request.selectors is not None
        verdict = request.selectors.verdict(device)
        if verdict is not None:
            if verdict.error is not None:
                owner = f"class {request.class_name}" if verdict.from_class else \
                    f"claim {self.claim_refs[request.claim_index]}"
                raise AllocationError(verdict.error_text(owner))
            return False
        if device.slice.per_device_node_selection:
            try:
                matches = node_matches(self.node, device.node_name, device.all_nodes, device.node_selector)
            except NodeSelectorError as error:
                raise AllocationError(f"failed to parse node selector: {error}") from None
            if not matches:
                self._reject(request, device, Reason.OTHER_NODE, f"device {device.name} is for other nodes")
                return False
        return True

    def _candidates(self, pool: Pool, request: _Request) -> list[int]:
        """Positions in `pool.devices` that a request's selectors do not rule out (shared by all nodes)."""
        selector_set = request.selectors
        key = (selector_set, self.features.binding_enabled)
        found = pool.candidates.get(key)
        if found is None:
            assert selector_set is not None
            binding = self.features.binding_enabled
            found = [
                position for position, device in enumerate(pool.devices)
                if (binding or not device.binding_conditions)
                and (selector_set.verdict(device) is None or selector_set.verdict(device).error is not None)  # type: ignore[union-attr]
            ]
            pool.candidates[key] = found
        return found

    # ----------------------------------------------------------------- search

    def _one(self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: tuple[int, int] | None) -> int:
        self.steps += 1
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _Timeout
        if ci >= len(self.claims):
            return _SUCCESS
        requests = ((self.claims[ci].get("spec") or {}).get("devices") or {}).get("requests") or []
        if ri >= len(requests):
            result = self._one(ci + 1, 0, 0, 0, False, None)
            return _FAIL if result == _EXCEEDED else result
        request = self.requests[(ci, ri, si)]
        if not in_sub and request.parent is not None:
            all_exceeded = True
            sub = 0
            while (ci, ri, sub) in self.requests:
                result = self._one(ci, ri, sub, di, True, None)
                if result == _EXCEEDED:
                    sub += 1
                    continue
                all_exceeded = False
                if result == _SUCCESS:
                    self.requests[(ci, ri, 0)].selected_sub = sub
                    return _SUCCESS
                sub += 1
            return _EXCEEDED if all_exceeded else _FAIL

        if request.all_mode and not request.all_devices:
            return _FAIL
        if di >= request.num_devices:
            return self._one(ci, ri + 1, 0, 0, False, None)
        if len(self.results[ci]) + request.num_devices - di > ALLOCATION_RESULTS_MAX_SIZE:
            return _EXCEEDED
        if self.trace is not None:
            self.trace.record_progress(self.results, ci, request.full_name, request.num_devices - di)

        if request.all_mode:
            device, pool = request.all_devices[di]
            undo = self._allocate_device(request, device, pool, must=True)
            if undo is None:
                return _FAIL
            result = self._one(ci, ri, si, di + 1, in_sub, None)
            if result != _SUCCESS:
                undo()
            return result

        start_pool, start_position = start if start is not None else (0, 0)
        pools = self.pools
        skip_unusable = self.behaviour.skip_unusable_pools
        combinations = self.behaviour.combinations
        admin = request.admin_access
        allocating = self.allocating
        allocated_devices = self.allocated.devices
        tracing = self.trace is not None
        for pool_index in range(start_pool, len(pools)):
            pool = pools[pool_index]
            if pool.incomplete or pool.invalid:
                if skip_unusable:
                    continue
                if pool.invalid:
                    raise AllocationError(f"pool {pool.name} is invalid: {pool.invalid_reason}")
            positions = self._candidates(pool, request)
            begin = bisect_left(positions, start_position) if pool_index == start_pool else 0
            devices = pool.devices
            for position in positions[begin:] if begin else positions:
                device = devices[position]
                device_id = device.id
                if admin:
                    if ci in allocating.get(device_id, ()):
                        if tracing:
                            self._reject(request, device, Reason.ADMIN_SAME_CLAIM)
                        continue
                elif device_id in allocated_devices or allocating.get(device_id):
                    if tracing:
                        self._reject_in_use(request, device)
                    continue
                if not self._selectable(request, device):
                    continue
                if self.consumable and self._capacity_fits(request, device) is not True:
                    continue
                undo = self._allocate_device(request, device, pool, must=False)
                if undo is None:
                    continue
                result = self._one(ci, ri, si, di + 1, in_sub,
                                   (pool_index, position + 1) if combinations else None)
                if result == _SUCCESS:
                    return _SUCCESS
                undo()
                if result == _EXCEEDED:
                    return _EXCEEDED
        return _FAIL

    def _allocate_device(self, request: _Request, device: DeviceEntry, pool: Pool, *,
                         must: bool) -> Callable[[], None] | None:
        """Upstream's allocateDevice: the undo function on success, None when the device cannot be used."""
        ci = request.claim_index
        device_id = device.id
        multi = self.consumable and device.allow_multiple_allocations is True
        if not multi and request.admin_access and ci in self.allocating.get(device_id, ()):
            self._reject(request, device, Reason.ADMIN_SAME_CLAIM)
            return None
        if not request.admin_access and (device_id in self.allocated.devices or self.allocating.get(device_id)):
            self._reject_in_use(request, device)
            return None
        if not self.features.partitionable_devices and device.consumes_counters:
            self._reject(request, device, Reason.COUNTERS_DISABLED)
            return None
        skip_counters = (self.behaviour.shared_devices_skip_counters and multi
                         and (device_id in self.allocated.aggregated_capacity or device_id in self.allocating_capacity))
        if not skip_counters and device.consumes_counters and not self._take_counters(request, device, pool):
            return None
        if self.features.device_taints:
            taint = self._blocking_taint(device, request)
            if taint is not None:
                self._reject(request, device, Reason.TAINT_NOT_TOLERATED, taint)
                return None
        base = request.parent if request.parent is not None else request.name
        sub = request.name if request.parent is not None else ""
        constraints = self.constraints[ci]
        for index, constraint in enumerate(constraints):
            if not constraint.add(base, sub, device):
                if must:
                    raise AllocationError(
                        f"claim {self.claim_refs[ci]}, request {request.name}: cannot add device "
                        f"{'/'.join(device_id)} because a claim constraint would not be satisfied")
                if self._untold(request, device):
                    self._reject(request, device, *constraint.explain(base, sub, device))
                for previous in constraints[:index]:
                    previous.remove(base, sub, device)
                return None
        holders = self.allocating.setdefault(device_id, set())
        if not multi:
            holders.add(ci)
        share_id: str | None = None
        consumed: dict[str, Quantity | RequestedCapacity] | None = None
        if self.consumable:
            if self._capacity_fits(request, device) is not True:
                return None
            if multi:
                # A RequestedCapacity here is the claim's own quantity: the result shows what it
                # has grown to when the allocation is written (upstream shares it the same way).
                consumed = {name: consumed_quantity((request.capacity_requests or {}).get(name), entry)
                            for name, entry in device_capacity(device).items()}
                share_id = self._share_id(ci, device_id)
                usage = self.allocating_capacity.setdefault(device_id, {})
                for name, quantity in consumed.items():
                    usage[name] = usage.get(name, Fraction(0)) + quantity.value
        results = self.results[ci]
        previous_count = len(results)
        results.append(_Result(request, device, share_id, consumed or None))
        if request.trace is not None:
            request.trace.picked.add(device)

        def undo() -> None:
            for constraint in constraints:
                constraint.remove(base, sub, device)
            holders.discard(ci)
            if multi:
                if consumed:
                    usage = self.allocating_capacity.get(device_id)
                    if usage is not None:
                        for name, quantity in consumed.items():
                            if name in usage:
                                usage[name] -= quantity.value
                        if all(v == 0 for v in usage.values()):
                            del self.allocating_capacity[device_id]
            elif self.features.partitionable_devices and device.consumes_counters:
                self._return_counters(device, pool)
            del results[previous_count:]

        return undo

    # ----------------------------------------------------------- bookkeeping

    def _counter_scope(self, device: DeviceEntry, pool: Pool) -> str:
        return pool.name if self.behaviour.per_pool_counters else device.slice.name

    def _available(self, scope: str, device: DeviceEntry, pool: Pool) -> dict[str, dict[str, Fraction]]:
        # Keyed like upstream: by pool name (or slice name), so the first pool of a name wins.
        available = self.available_counters.get(scope)
        if available is not None:
            return available
        if self.behaviour.per_pool_counters:
            if pool.allocated_counters is None:
                pool.allocated_counters = self._counters_after_allocated(
                    dict(pool.counter_sets), [d for s in pool.device_slices + pool.other_slices for d in s.devices])
            available = pool.allocated_counters
        else:
            available = self._counters_after_allocated(dict(device.slice.shared_counters), device.slice.devices)
        self.available_counters[scope] = available
        return available

    def _counters_after_allocated(self, counter_sets: dict[str, dict[str, Fraction]],
                                  devices: Iterable[DeviceEntry]) -> dict[str, dict[str, Fraction]]:
        available = {name: dict(counters) for name, counters in counter_sets.items()}
        in_use = self.allocated.is_allocated if self.behaviour.counters_see_shared_allocations else \
            self.allocated.devices.__contains__
        for device in devices:
            if not device.consumes_counters or not in_use(device.id):
                continue
            for set_name, counters in device.consumes_counters:
                target = available.get(set_name)
                if target is None:
                    continue
                for name, value in counters.items():
                    if name in target:
                        target[name] -= value
        return available

    def _take_counters(self, request: _Request, device: DeviceEntry, pool: Pool) -> bool:
        scope = self._counter_scope(device, pool)
        available = self._available(scope, device, pool)
        consumed = self.consumed_counters.setdefault(scope, {})
        for set_name, counters in device.consumes_counters:
            target = consumed.setdefault(set_name, {})
            for name, value in counters.items():
                target[name] = target.get(name, Fraction(0)) + value
        for set_name, counters in available.items():
            used = consumed.get(set_name, {})
            for name, value in counters.items():
                if value < used.get(name, 0):
                    if self._untold(request, device):
                        needed = dict(dict(device.consumes_counters).get(set_name, {})).get(name, Fraction(0))
                        self._reject(request, device, Reason.COUNTER_EXHAUSTED, set_name, name, needed,
                                     value - (used.get(name, Fraction(0)) - needed))
                    self._return_counters(device, pool)
                    return False
        return True

    def _return_counters(self, device: DeviceEntry, pool: Pool) -> None:
        consumed = self.consumed_counters.get(self._counter_scope(device, pool), {})
        for set_name, counters in device.consumes_counters:
            target = consumed.setdefault(set_name, {})
            for name, value in counters.items():
                target[name] = target.get(name, Fraction(0)) - value

    def _capacity_fits(self, request: _Request, device: DeviceEntry) -> bool | None:
        """Upstream's CmpRequestOverCapacity: None when the request names an unknown capacity."""
        wanted = request.capacity_requests or {}
        if not device.capacity_raw and not wanted:
            return True
        capacity = device_capacity(device)
        if not wanted and device.idle_fit and device.id not in self.allocating_capacity \
                and device.id not in self.allocated.aggregated_capacity:
            return True
        missing = [name for name in wanted if name not in capacity]
        if missing:
            self._reject(request, device, Reason.CAPACITY_UNDEFINED, missing)
            return None
        allocated = self.allocated.aggregated_capacity.get(device.id, {})
        allocating = self.allocating_capacity.get(device.id, {})
        for name, entry in capacity.items():
            taken = consumed_quantity(wanted.get(name), entry)
            consumed = taken.quantity if isinstance(taken, RequestedCapacity) else taken
            if violates_policy(consumed, entry):
                self._reject(request, device, Reason.CAPACITY_INSUFFICIENT, name, consumed.value, None)
                return False
            during = allocating.get(name)
            if name not in allocated and during is not None and isinstance(taken, RequestedCapacity) \
                    and taken.shared:
                # Upstream adds what this call already took on the device into the claim's own
                # quantity (CmpRequestOverCapacity: `clone[name] = ptr.To(consumed)`, then Add).
                taken.grow(during)
                total = taken.value
            else:
                total = allocated.get(name, Fraction(0)) + consumed.value + (during or Fraction(0))
            if total > entry.value.value:
                if self._untold(request, device):
                    left = entry.value.value - allocated.get(name, Fraction(0)) - allocating.get(name, Fraction(0))
                    # A request grown by earlier checks: the message names what the claim asked for.
                    asked = taken.original.value if isinstance(taken, RequestedCapacity) \
                        and taken.original.value != consumed.value else None
                    self._reject(request, device, Reason.CAPACITY_INSUFFICIENT, name, consumed.value, left,
                                 tuple(self.allocated.owners.get(device.id, ())), asked)
                return False
        return True

    def _blocking_taint(self, device: DeviceEntry, request: _Request) -> dict[str, Any] | None:
        only_known = self.behaviour.only_known_taint_effects
        for taint in device.taints:
            if only_known and taint.get("effect") not in ("NoSchedule", "NoExecute"):
                continue
            if not any(_tolerates(toleration, taint) for toleration in request.tolerations):
                return taint
        return None

    def _share_id(self, claim_index: int, device_id: DeviceID) -> str:
        # Upstream draws a random UUID; a name-based one keeps explanations repeatable. The claim
        # is part of the name: claims allocated one after another must not share IDs.
        self.shares += 1
        name = f"{self.node.name}/{self.claim_refs[claim_index]}/{'/'.join(device_id)}/{self.shares}"
        import uuid  # here: its import (platform and more) would cost every explain 5 ms

        return str(uuid.uuid5(uuid.UUID(_SHARE_ID_NAMESPACE), name))

    # ----------------------------------------------------------------- trace

    @staticmethod
    def _untold(request: _Request, device: DeviceEntry) -> bool:
        """Whether the trace wants a reason for this device (only the first one is kept)."""
        return request.trace is not None and device not in request.trace.recorded

    def _reject(self, request: _Request, device: DeviceEntry, reason: Reason, *args: Any) -> None:
        entry = request.trace
        if entry is not None and device not in entry.recorded:
            entry.recorded[device] = Rejection(reason, args)

    def _reject_in_use(self, request: _Request, device: DeviceEntry) -> None:
        if not self._untold(request, device):
            return
        holders = self.allocating.get(device.id)
        if holders:
            holder = min(holders)
            picked = next((r.request.full_name for r in self.results[holder] if r.id == device.id), "")
            self._reject(request, device, Reason.IN_USE_HERE, self.claim_refs[holder], picked)
        else:
            self._reject(request, device, Reason.IN_USE, tuple(self.allocated.owners.get(device.id, ())))

    def _order_ambiguous(self) -> bool:
        if self.behaviour.sorted_order:
            return False
        for request in self.requests.values():
            if request.selectors is None:
                continue
            usable = 0
            for pool in self.pools:
                if not pool.incomplete and not pool.invalid and self._candidates(pool, request):
                    usable += 1
                    if usable > 1:
                        return True
        return False

    # ---------------------------------------------------------------- result

    def _build_results(self) -> list[dict[str, Any]]:
        allocations = []
        for ci, claim in enumerate(self.claims):
            devices_out: list[dict[str, Any]] = []
            for entry in self.results[ci]:
                devices_out.append(self._result_entry(entry))
            allocation: dict[str, Any] = {"devices": {"results": devices_out}}
            config = self._configs(ci, claim)
            if config:
                allocation["devices"]["config"] = config
            node_selector = self._node_selector(ci, claim)
            if node_selector is not None:
                allocation["nodeSelector"] = node_selector
            allocations.append(allocation)
        return allocations

    def _capacity_notes(self) -> tuple[str, ...]:
        """Where upstream's capacity arithmetic, not the exact one, shaped the allocation."""
        notes: list[str] = []
        for ci, results in enumerate(self.results):
            for entry in results:
                request = entry.request
                for name, requested in (request.capacity_requests or {}).items():
                    capacity = device_capacity(entry.device).get(name)
                    if capacity is None:
                        continue
                    where = f"claim {self.claim_refs[ci]}, request {request.full_name}, device {'/'.join(entry.id)}"
                    rounding = int64_rounding(requested.original, capacity)
                    if rounding is not None:
                        exact, upstream = rounding
                        beyond = f", more than the device's {capacity.value}" if exact > capacity.value.value else ""
                        notes.append(
                            f"{where}: capacity {name}: {requested.original} is taken as {upstream} because "
                            f"upstream rounds it to the policy ({describe_policy(capacity)}) in int64 arithmetic, "
                            f"which wraps (exactly: {Quantity.of(exact, 'BinarySI')}{beyond}); the scheduler "
                            "allocates the device all the same")
                    if requested.quantity.value != requested.original.value:
                        notes.append(
                            f"{where}: capacity {name}: {requested.original} is recorded as {requested.quantity}: "
                            "upstream's capacity check adds what earlier requests of this allocation took on the "
                            "device into the claim's own quantity (shared for values too large for an int64 "
                            f"mantissa; policy {describe_policy(capacity)}), and the scheduler writes that value; "
                            "its claim object keeps the grown value, so nodes it checks later in the same "
                            "attempt start from it and may no longer fit")
        return tuple(dict.fromkeys(notes))

    def _result_entry(self, entry: _Result) -> dict[str, Any]:
        request = entry.request
        out: dict[str, Any] = {
            "request": request.full_name,
            "driver": entry.id[0],
            "pool": entry.id[1],
            "device": entry.id[2],
        }
        if request.admin_access:
            out["adminAccess"] = True
        if self.behaviour.result_tolerations and request.tolerations:
            out["tolerations"] = [dict(t) for t in request.tolerations]
        if self.features.binding_enabled:
            if entry.device.binding_conditions:
                out["bindingConditions"] = list(entry.device.binding_conditions)
            if entry.device.binding_failure_conditions:
                out["bindingFailureConditions"] = list(entry.device.binding_failure_conditions)
        if entry.share_id is not None:
            out["shareID"] = entry.share_id
        if entry.consumed:
            out["consumedCapacity"] = {name: str(q) for name, q in entry.consumed.items()}
        if request.trace is not None and entry.id not in request.trace.chosen:
            request.trace.chosen.append(entry.id)
        return out

    def _configs(self, ci: int, claim: dict[str, Any]) -> list[dict[str, Any]]:
        config: list[dict[str, Any]] = []
        spans: dict[str, tuple[int, int]] = {}
        requests = ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []
        for ri in range(len(requests)):
            request = self.requests[(ci, ri, 0)]
            if request.parent is not None:
                request = self.requests[(ci, ri, request.selected_sub)]
            span = spans.get(request.class_name)
            if span is not None:
                for index in range(*span):
                    config[index]["requests"].append(request.full_name)
                continue
            begin = len(config)
            for class_config in request.class_config:
                entry = {"source": "FromClass", "requests": [request.full_name]}
                entry.update({k: v for k, v in (class_config or {}).items()})
                config.append(entry)
            spans[request.class_name] = (begin, len(config))
        for claim_config in ((claim.get("spec") or {}).get("devices") or {}).get("config") or []:
            claim_config = claim_config or {}
            names = claim_config.get("requests") or []
            body = {k: v for k, v in claim_config.items() if k != "requests"}

            def entry_for(names: list[Any] = names, body: dict[str, Any] = body) -> dict[str, Any]:
                out: dict[str, Any] = {"source": "FromClaim"}
                if names:
                    out["requests"] = list(names)
                out.update(body)
                return out

            if not names:
                config.append(entry_for())
                continue
            for ri, raw in enumerate(requests):
                request_name = (raw or {}).get("name")
                if request_name in names:
                    config.append(entry_for())
                    continue
                request = self.requests[(ci, ri, 0)]
                if request.parent is None:
                    continue
                chosen = self.requests[(ci, ri, request.selected_sub)]
                if chosen.full_name in names:
                    config.append(entry_for())
        return config

    def _node_selector(self, ci: int, claim: dict[str, Any]) -> dict[str, Any] | None:
        match_fields: list[dict[str, Any]] = []
        match_expressions: list[dict[str, Any]] = []
        for entry in self.results[ci]:
            device = entry.device
            if device.slice.per_device_node_selection:
                node_name, selector = device.node_name, device.node_selector
            else:
                node_name, selector = device.slice.node_name, device.slice.node_selector
            binds = self.behaviour.node_selector_names_target and device.binds_to_node
            if node_name is not None or binds:
                target = self.node.name if self.behaviour.node_selector_names_target else node_name
                return {"nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [target]}]}]}
            if selector is not None:
                terms = selector.raw.get("nodeSelectorTerms") or []
                if len(terms) == 1:
                    _merge_requirements((terms[0] or {}).get("matchFields") or [], match_fields)
                    _merge_requirements((terms[0] or {}).get("matchExpressions") or [], match_expressions)
                elif len(terms) > 1:
                    name = (claim.get("metadata") or {}).get("name") or ""
                    raise AllocationError(f"create NodeSelector for claim {name}: unsupported "
                                          f"ResourceSlice.NodeSelector with {len(terms)} terms")
        if not match_fields and not match_expressions:
            return None
        term: dict[str, Any] = {}
        if match_expressions:
            term["matchExpressions"] = match_expressions
        if match_fields:
            term["matchFields"] = match_fields
        return {"nodeSelectorTerms": [term]}


def _ensure_recursion_depth(claims: list[dict[str, Any]]) -> None:
    """The search recurses a few frames per claim, request and device slot."""
    slots = 0
    for claim in claims:
        requests = ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []
        slots += 2 + 3 * len(requests) + ALLOCATION_RESULTS_MAX_SIZE
    needed = 200 + 4 * slots
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)


def _merge_requirements(source: list[Any], target: list[dict[str, Any]]) -> None:
    for requirement in source:
        requirement = requirement or {}
        values = set(map(str, requirement.get("values") or []))
        duplicate = any(
            existing.get("key") == requirement.get("key") and existing.get("operator") == requirement.get("operator")
            and set(map(str, existing.get("values") or [])) == values
            for existing in target
        )
        if not duplicate:
            copied: dict[str, Any] = {"key": requirement.get("key"), "operator": requirement.get("operator")}
            if requirement.get("values"):
                copied["values"] = list(requirement["values"])
            target.append(copied)


def _tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """resourceclaim.ToleratesTaint."""
    effect = toleration.get("effect") or ""
    if effect and effect != (taint.get("effect") or ""):
        return False
    key = toleration.get("key") or ""
    if key and key != (taint.get("key") or ""):
        return False
    operator = toleration.get("operator") or ""
    if operator in ("", "Equal"):
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return operator == "Exists"
