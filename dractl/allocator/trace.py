"""What the solver saw on one node: pools, candidate devices and why each was not chosen.

Recording is off unless `Allocator.allocate(..., trace=True)`. While it is on, the search
appends small tuples (a :class:`Reason` and its raw arguments); nothing is formatted
until :meth:`Rejection.message` is called. Devices that a request's selectors reject are
not recorded per node at all: their verdict is computed once per device and shared by
every node, and :meth:`RequestTrace.rejections` adds them when asked.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import Enum
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from dractl.allocator.inventory import DeviceEntry, DeviceID, format_device_id
from dractl.allocator.quantity import canonical
from dractl.records import Record

if TYPE_CHECKING:
    from dractl.allocator.inventory import Inventory, SliceEntry
    from dractl.allocator.nodes import NodeInfo
    from dractl.allocator.pools import Pool
    from dractl.allocator.selectors import SelectorSet


class Reason(Enum):
    """Why a device was not chosen for a request (or could not be seen at all)."""

    OTHER_NODE = "other-node"  # slice or device is for other nodes
    SLICE_IGNORED = "slice-ignored"  # slice uses a disabled feature or no node selection at all
    POOL_OUTDATED = "pool-outdated"  # a newer generation of the pool exists
    POOL_INCOMPLETE = "pool-incomplete"
    POOL_INVALID = "pool-invalid"
    CLASS_SELECTOR_FALSE = "class-selector-false"
    CLASS_SELECTOR_ERROR = "class-selector-error"
    REQUEST_SELECTOR_FALSE = "request-selector-false"
    REQUEST_SELECTOR_ERROR = "request-selector-error"
    BINDING_CONDITIONS = "binding-conditions"  # device has binding conditions, feature off
    IN_USE = "in-use"  # allocated to an existing claim
    IN_USE_HERE = "in-use-here"  # picked for another request / claim in this run
    ADMIN_SAME_CLAIM = "admin-same-claim"  # admin access: already picked for the same claim
    COUNTERS_DISABLED = "counters-disabled"  # consumes counters, DRAPartitionableDevices off
    COUNTER_EXHAUSTED = "counter-exhausted"
    CAPACITY_UNDEFINED = "capacity-undefined"  # request asks for a capacity the device lacks
    CAPACITY_INSUFFICIENT = "capacity-insufficient"  # or the request breaks the request policy
    TAINT_NOT_TOLERATED = "taint-not-tolerated"
    CONSTRAINT_MISSING_ATTRIBUTE = "constraint-missing-attribute"
    CONSTRAINT_CONFLICT = "constraint-conflict"
    CLAIM_LIMIT = "claim-limit"  # request would exceed 32 results for the claim
    GIVEN_BACK = "given-back"  # fitted, but what came after it did not: backtracked


class Rejection(Record):
    """One reason with its raw arguments; :meth:`message` formats it for humans."""

    __slots__ = ("args", "reason")
    __hash__ = Record.value_hash

    def __init__(self, reason: Reason, args: tuple[Any, ...] = ()) -> None:
        self.reason = reason
        self.args = args

    def message(self) -> str:
        return _FORMATTERS[self.reason](*self.args)


def _selector(kind: str) -> Any:
    def format_false(owner: str, index: int, expression: str) -> str:
        return f"{kind} selector #{index}{_of(owner)} is false: {expression}"

    return format_false


def _of(owner: str) -> str:
    # A request's own selectors need no owner: the request is named where they are listed.
    return "" if owner == "the request" else f" of {owner}"


def _selector_error(kind: str) -> Any:
    def format_error(owner: str, index: int, expression: str, error: str) -> str:
        return f"{kind} selector #{index}{_of(owner)} fails: {error}"

    return format_error


def _quantity(value: Fraction) -> str:
    """Binary suffixes when they are exact (40Gi), decimal canonical text otherwise."""
    if value.denominator == 1 and value != 0 and int(value) % 1024 == 0:
        return canonical(value, "BinarySI")
    return canonical(value)


def _taint(taint: dict[str, Any]) -> str:
    value = taint.get("value")
    text = f"{taint.get('key', '')}={value}" if value else str(taint.get("key", ""))
    return f"{text}:{taint.get('effect', '')}"


def _constraint_value(value: Any) -> str:
    if isinstance(value, frozenset | set):
        return "{" + ", ".join(sorted(map(str, value))) + "}"
    return str(value)


OWNERS_NAMED = 3  # claims named in "in use by ..." (a shared device can have thousands)


def _owners(owners: tuple[str, ...]) -> str:
    named = ", ".join(owners[:OWNERS_NAMED])
    return named + (f" and {len(owners) - OWNERS_NAMED} more" if len(owners) > OWNERS_NAMED else "")


_FORMATTERS: dict[Reason, Any] = {
    Reason.OTHER_NODE: lambda where: f"not available on this node ({where})",
    Reason.SLICE_IGNORED: lambda why: f"slice ignored: {why}",
    Reason.POOL_OUTDATED: lambda pool: f"pool {pool} has a newer generation elsewhere",
    Reason.POOL_INCOMPLETE: lambda pool: f"pool {pool} is incomplete (being updated)",
    Reason.POOL_INVALID: lambda pool, why: f"pool {pool} is invalid: {why}",
    Reason.CLASS_SELECTOR_FALSE: _selector("class"),
    Reason.CLASS_SELECTOR_ERROR: _selector_error("class"),
    Reason.REQUEST_SELECTOR_FALSE: _selector("request"),
    Reason.REQUEST_SELECTOR_ERROR: _selector_error("request"),
    Reason.BINDING_CONDITIONS: lambda: "has binding conditions, but DRADeviceBindingConditions is off",
    Reason.IN_USE: lambda owners: "in use by " + _owners(owners) if owners else "in use",
    Reason.IN_USE_HERE: lambda claim, request: f"already picked for {claim} request {request}",
    Reason.ADMIN_SAME_CLAIM: lambda: "already picked for this claim (admin access)",
    Reason.COUNTERS_DISABLED: lambda: "consumes counters, but DRAPartitionableDevices is off",
    Reason.COUNTER_EXHAUSTED: lambda counter_set, counter, needed, left: (
        f"counter {counter_set}/{counter} exhausted: needs {_quantity(needed)}, {_quantity(left)} left"
    ),
    Reason.CAPACITY_UNDEFINED: lambda names: "device has no capacity " + ", ".join(names),
    Reason.CAPACITY_INSUFFICIENT: lambda name, needed, left, owners=(), asked=None: (
        f"capacity {name} insufficient: needs {_quantity(needed)}, {_quantity(left)} left"
        + (f" (the claim asked for {_quantity(asked)}; upstream's capacity check grew its quantity by what "
           "this allocation took on devices before)" if asked is not None else "")
        + (f"; in use by {_owners(owners)}" if owners else "")
        if left is not None else f"capacity {name}: request of {_quantity(needed)} breaks the request policy"
    ),
    Reason.TAINT_NOT_TOLERATED: lambda taint: f"taint {_taint(taint)} not tolerated",
    Reason.CONSTRAINT_MISSING_ATTRIBUTE: lambda kind, attribute: f"{kind} {attribute}: device lacks the attribute",
    Reason.CONSTRAINT_CONFLICT: lambda kind, attribute, value, other, other_value: (
        f"{kind} {attribute}: {_constraint_value(value)} "
        f"{'differs from' if kind == 'matchAttribute' else 'clashes with'} {_constraint_value(other_value)} of "
        f"{format_device_id(other) if other else 'the devices picked'}"
    ),
    Reason.CLAIM_LIMIT: lambda limit: f"claim would exceed {limit} devices",
    Reason.GIVEN_BACK: lambda: "fits, but given back: the other devices needed with it were not found",
}


_CONSTRAINTS = frozenset({Reason.CONSTRAINT_CONFLICT, Reason.CONSTRAINT_MISSING_ATTRIBUTE})
_NOT_CANDIDATES = frozenset({Reason.CLASS_SELECTOR_FALSE, Reason.REQUEST_SELECTOR_FALSE})
# Not why a request falls short: devices its selectors rule out are no candidates, and a
# device given back fitted (what blocked the devices after it is the reason).
_NOT_BLOCKERS = _NOT_CANDIDATES | {Reason.GIVEN_BACK}
_GIVEN_BACK = Rejection(Reason.GIVEN_BACK)
_BINDING_CONDITIONS = Rejection(Reason.BINDING_CONDITIONS)


class PoolTrace(Record):
    __slots__ = ("devices", "driver", "invalid_reason", "pool", "status")

    def __init__(
        self,
        driver: str,
        pool: str,
        status: str,
        invalid_reason: str = "",
        devices: int = 0,
    ) -> None:
        self.driver = driver
        self.pool = pool
        self.status = status  # "ok", "incomplete", "invalid"
        self.invalid_reason = invalid_reason
        self.devices = devices


class RequestTrace(Record):
    """One request, or one subrequest of a firstAvailable request, of one claim.

    `recorded` maps devices the search turned down to the first reason; `picked` holds
    devices that were part of some partial solution; `chosen` is filled on success.
    """

    __slots__ = (
        "binding_enabled",
        "chosen",
        "claim",
        "claim_index",
        "count",
        "device_class",
        "mode",
        "picked",
        "pools",
        "recorded",
        "request",
        "selector_set",
    )

    def __init__(
        self,
        claim: str,
        claim_index: int,
        request: str,
        device_class: str,
        mode: str,
        count: int,
        recorded: dict[DeviceEntry, Rejection] | None = None,
        picked: set[DeviceEntry] | None = None,
        chosen: list[DeviceID] | None = None,
        selector_set: SelectorSet | None = None,
        pools: list[Pool] | None = None,
        binding_enabled: bool = True,
    ) -> None:
        self.claim = claim
        self.claim_index = claim_index
        self.request = request  # "req" or "req/sub"
        self.device_class = device_class
        self.mode = mode
        self.count = count
        self.recorded = {} if recorded is None else recorded
        self.picked = set() if picked is None else picked
        self.chosen = [] if chosen is None else chosen
        self.selector_set = selector_set
        self.pools = [] if pools is None else pools
        self.binding_enabled = binding_enabled

    def rejections(self, *, ruled_out: bool = True) -> Iterator[tuple[DeviceEntry, Rejection]]:
        """Every device of the node's usable pools that was not chosen, with its reason.

        Per pool: the devices the request's selectors rule out (or that have binding
        conditions while binding is off), then the others in search order, with the first
        reason the search recorded, else a selector's error, else "given back". Matching
        devices that the search never had to look at (it stopped at the first solution) are
        left out. `ruled_out=False` leaves out the first kind.
        """
        chosen = set(self.chosen)
        for pool in self.pools:
            excluded, matching = self._pool_verdicts(pool)
            if ruled_out:
                yield from excluded
            for device in matching:
                if device.id in chosen:
                    continue
                rejection = self._matching_device_rejection(device)
                if rejection is not None:
                    yield device, rejection

    def _matching_device_rejection(self, device: DeviceEntry) -> Rejection | None:
        """Why a device that the pool's selectors admit was not chosen: what the search
        recorded, else its request's selectors, else that it was picked and given back."""
        rejection = self.recorded.get(device)
        if rejection is None:
            rejection = self._selector_rejection(device)
        if rejection is None and device in self.picked:
            rejection = _GIVEN_BACK
        return rejection

    def rejection_runs(self) -> Iterator[tuple[Rejection, list[DeviceEntry]]]:
        """:meth:`rejections` with the devices of one rejection object together, as far as
        the order allows: what a pool's selectors rule out comes as one run per verdict
        (computed once for all nodes), so a large pool costs a few runs, not a loop."""
        chosen = set(self.chosen)
        for pool in self.pools:
            yield from self._pool_runs(pool)
            for device in self._pool_verdicts(pool)[1]:
                if device.id in chosen:
                    continue
                rejection = self._matching_device_rejection(device)
                if rejection is not None:
                    yield rejection, [device]

    def _pool_runs(self, pool: Pool) -> list[tuple[Rejection, list[DeviceEntry]]]:
        key = ("runs", self.selector_set, self.binding_enabled)
        found = pool.explained.get(key)
        if found is None:
            runs: dict[int, tuple[Rejection, list[DeviceEntry]]] = {}
            for device, rejection in self._pool_verdicts(pool)[0]:
                runs.setdefault(id(rejection), (rejection, []))[1].append(device)
            found = pool.explained[key] = (list(runs.values()), [])
        return found[0]

    def _selector_rejection(self, device: DeviceEntry) -> Rejection | None:
        return self.selector_set.rejection(device) if self.selector_set is not None else None

    def _pool_verdicts(self, pool: Pool) -> tuple[list[tuple[DeviceEntry, Rejection]], list[DeviceEntry]]:
        """What the selectors say of the pool's devices, computed once for all nodes.

        `(ruled out with their rejection, the others)`: a device with binding conditions
        while binding is off, or a false selector, is ruled out; a selector that fails with
        an error is not (the search meets it and stops, as upstream).
        """
        key = (self.selector_set, self.binding_enabled)
        found = pool.explained.get(key)
        if found is None:
            excluded: list[tuple[DeviceEntry, Rejection]] = []
            matching: list[DeviceEntry] = []
            for device in pool.devices:
                if device.binding_conditions and not self.binding_enabled:
                    excluded.append((device, _BINDING_CONDITIONS))
                    continue
                rejection = self._selector_rejection(device)
                if rejection is not None and rejection.reason in _NOT_CANDIDATES:
                    excluded.append((device, rejection))
                else:
                    matching.append(device)
            found = pool.explained[key] = (excluded, matching)
        return found

    def candidates(self) -> list[DeviceEntry]:
        """Devices whose selectors match this request."""
        if self.selector_set is None:
            return []
        return [d for pool in self.pools for d in self._pool_verdicts(pool)[1]
                if self.selector_set.rejection(d) is None]


class Progress(Record):
    """The deepest point the search reached: results so far and the slot it could not fill."""

    __slots__ = ("claim_index", "devices", "missing", "request", "results")

    def __init__(
        self,
        devices: int = -1,
        results: list[list[DeviceID]] | None = None,
        claim_index: int = 0,
        request: str = "",
        missing: int = 0,
    ) -> None:
        self.devices = devices
        self.results = [] if results is None else results
        self.claim_index = claim_index
        self.request = request
        self.missing = missing


class NodeTrace(Record):
    __slots__ = (
        "best",
        "implementation",
        "inventory",
        "node",
        "node_info",
        "pool_objects",
        "pools",
        "requests",
        "steps",
        "visible_slices",
    )

    def __init__(
        self,
        node: str,
        implementation: str,
        pools: list[PoolTrace] | None = None,
        requests: list[RequestTrace] | None = None,
        best: Progress | None = None,
        steps: int = 0,
        inventory: Inventory | None = None,
        node_info: NodeInfo | None = None,
        visible_slices: set[SliceEntry] | None = None,
        pool_objects: list[Pool] | None = None,
    ) -> None:
        self.node = node
        self.implementation = implementation
        self.pools = [] if pools is None else pools
        self.requests = [] if requests is None else requests
        self.best = Progress() if best is None else best
        self.steps = steps
        self.inventory = inventory
        self.node_info = node_info
        self.visible_slices = set() if visible_slices is None else visible_slices
        self.pool_objects = [] if pool_objects is None else pool_objects

    def request(self, claim: str, request: str) -> RequestTrace | None:
        for entry in self.requests:
            if entry.claim == claim and entry.request == request:
                return entry
        return None

    def unseen_devices(self, slices: Iterable[SliceEntry] | None = None) -> Iterator[tuple[DeviceEntry, Rejection]]:
        """Devices of the inventory (or of `slices`) that this node cannot use at all, and why.

        Slices for other nodes, slices that use a disabled feature, and devices of pools
        that are incomplete, invalid or replaced by a newer generation.
        """
        if self.inventory is None or self.node_info is None:
            return
        from dractl.allocator.pools import slice_visibility

        usable = {device for pool in self.pool_objects for device in pool.devices}
        status = {(p.driver, p.pool): p for p in self.pools}
        for slice_entry in self.inventory.slices if slices is None else slices:
            if slice_entry not in self.visible_slices:
                rejection = slice_visibility(slice_entry, self.node_info)
            else:
                pool = status.get((slice_entry.driver, slice_entry.pool))
                pool_id = f"{slice_entry.driver}/{slice_entry.pool}"
                if pool is not None and pool.status == "incomplete":
                    rejection = Rejection(Reason.POOL_INCOMPLETE, (pool_id,))
                elif pool is not None and pool.status == "invalid":
                    rejection = Rejection(Reason.POOL_INVALID, (pool_id, pool.invalid_reason))
                else:
                    rejection = Rejection(Reason.POOL_OUTDATED, (pool_id,))
            for device in slice_entry.devices:
                if device not in usable:
                    yield device, rejection

    def blockers(self) -> list[tuple[Reason, str, int]]:
        """Why the request of the deepest partial solution (`best`) got no more devices.

        `(reason, what, devices)` over that request's candidate devices, constraints first
        (named by kind and attribute, whatever the values), then by number of devices.
        Devices its selectors rule out (no candidates) and devices given back after they
        fitted are left out.
        """
        best = self.best
        counts: dict[tuple[Reason, str], int] = {}
        for entry in self.requests:
            if entry.claim_index != best.claim_index or entry.request != best.request:
                continue
            # With binding on, what is ruled out is ruled out by selectors: no blocker there.
            for _device, rejection in entry.rejections(ruled_out=not entry.binding_enabled):
                if rejection.reason in _NOT_BLOCKERS:
                    continue
                if rejection.reason in _CONSTRAINTS:
                    what = f"{rejection.args[0]} {rejection.args[1]}"
                else:
                    what = rejection.message()
                key = (rejection.reason, what)
                counts[key] = counts.get(key, 0) + 1
        ordered = sorted(counts.items(), key=lambda item: (item[0][0] not in _CONSTRAINTS, -item[1], item[0][1]))
        return [(reason, what, count) for (reason, what), count in ordered]

    def unseen_counts(self) -> list[tuple[Reason, int]]:
        """How many devices :meth:`unseen_devices` would list, per reason, largest first.

        Counted per slice, not per device: a cluster of 1,000 nodes has thousands of devices
        that each node cannot see.
        """
        if self.inventory is None or self.node_info is None:
            return []
        from dractl.allocator.pools import slice_visibility

        usable_slices = {s for pool in self.pool_objects if not pool.incomplete and not pool.invalid
                         for s in pool.device_slices}
        usable: set[DeviceEntry] | None = None
        status = {(p.driver, p.pool): p.status for p in self.pools}
        inventory = self.inventory
        own = inventory.slices_on_node.get(self.node_info.name, [])
        # Slices that name another node: counted at once, not looped over per node.
        other = inventory.node_slice_devices - sum(len(e.devices) for e in own)
        counts: dict[Reason, int] = {Reason.OTHER_NODE: other} if other else {}
        for slice_entry in (*own, *inventory.slices_shared):
            if slice_entry not in self.visible_slices:
                reason = Reason.OTHER_NODE if slice_entry.node_name else slice_visibility(slice_entry, self.node_info).reason
                counts[reason] = counts.get(reason, 0) + len(slice_entry.devices)
                continue
            if not slice_entry.devices or slice_entry in usable_slices:
                continue  # every device of a slice of a usable pool is usable
            if usable is None:
                usable = {device for pool in self.pool_objects for device in pool.devices}
            pool = status.get((slice_entry.driver, slice_entry.pool))
            reason = (Reason.POOL_INCOMPLETE if pool == "incomplete" else Reason.POOL_INVALID if pool == "invalid"
                      else Reason.POOL_OUTDATED)
            unused = sum(1 for device in slice_entry.devices if device not in usable)
            if unused:
                counts[reason] = counts.get(reason, 0) + unused
        return sorted(counts.items(), key=lambda item: (-item[1], item[0].value))

    def record_progress(self, results: list[list[Any]], claim_index: int, request: str, missing: int) -> None:
        total = sum(len(r) for r in results)
        if total > self.best.devices:
            self.best = Progress(total, [[entry.id for entry in r] for r in results], claim_index, request, missing)
