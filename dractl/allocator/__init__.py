"""The scheduler's structured allocator for ResourceClaims, with an optional trace.

Pure: no I/O, no printing. Semantics are those of
`k8s.io/dynamic-resource-allocation/structured` for the chosen Kubernetes release (1.34,
1.35, 1.36) and feature gates, including which of upstream's three implementations
(stable / incubating / experimental) runs.

Building blocks
---------------
- :class:`Inventory` — the cluster snapshot, built once: `Inventory.from_objects(objs,
  consumable_capacity=...)` takes ApiObjects or v1 dicts (DeviceClass, ResourceSlice,
  DeviceTaintRule, and ResourceClaims with `status.allocation`, whose devices are in use).
- :class:`AllocatorFeatures` — the allocator switches; `AllocatorFeatures.from_gates(release,
  features.enabled)` maps feature gates as the scheduler does (`dractl.api.releases.Features`).
- :class:`Allocator` — `Allocator(inventory, release=..., features=..., gates=...)`; pick the
  implementation with :func:`choose_implementation` (done for you; `allocator.implementation`).
- `Allocator.allocate(node, claims, *, trace=False, timeout=10.0, deadline=None) -> Outcome`
  solves the claims (defaulted, v1 shape, e.g. `ClaimInput.data`) together on one node (a
  Node manifest or :class:`NodeInfo`). Call it once per node: pools built from the same slices
  and every selector verdict are shared between calls.

Outcome
-------
`Outcome.status` is "allocated", "unschedulable", "error" (upstream's Allocate error text in
`Outcome.error`; claims without namespace are named `default/<name>`) or "timeout" (stopped at
the deadline). `Outcome.allocations` holds one resource.k8s.io/v1 AllocationResult per claim.
`Outcome.order_ambiguous` is true when upstream's implementation walks pools in Go map order
(dractl sorts them) and more than one pool could serve a request, so the scheduler might pick
other, equally valid devices. `Outcome.notes` names, one sentence each, where upstream's
arithmetic rather than the exact one shaped the allocation (`allocator.capacity`: a capacity
request rounded in int64, which wraps; a large capacity request grown while it was checked).

Trace (for `dractl explain`)
----------------------------
With `trace=True`, `Outcome.trace` is a :class:`NodeTrace`:

- `pools`: :class:`PoolTrace` per pool the node sees (`status` "ok", "incomplete", "invalid"
  with `invalid_reason`).
- `requests`: :class:`RequestTrace` per claim request, and per subrequest of a firstAvailable
  request (`request` is `req/sub`), with `claim` (`ns/name`), `device_class`, `mode`, `count`:
  - `chosen`: device IDs of the final allocation;
  - `rejections()`: `(DeviceEntry, Rejection)` for every device of the node's usable pools that
    was not chosen — selector verdicts (class / request selector N false or failing, with the
    CEL error) and the first reason the search turned a device down (in use by `ns/name`,
    picked for another request, counter exhausted with needed / left, capacity, taint not
    tolerated, constraint conflict with values and the other device, admin access, binding
    conditions). Devices the search never had to look at are not listed;
  - `candidates()`: devices whose selectors match; `picked`: devices that were part of some
    partial solution.
- `unseen_devices()`: devices of the inventory the node cannot use at all (slice for another
  node, node selector does not match, pool outdated or using a disabled feature).
- `best`: :class:`Progress`, the deepest partial solution: devices per claim, and the request
  (`request`, `claim_index`) that could not get `missing` more devices.

`Rejection.reason` is a :class:`Reason`; `Rejection.args` its raw values; `Rejection.message()`
formats it. Nothing is formatted while the search runs, and without `trace=True` nothing is
recorded.
"""

from dractl.allocator.features import (
    AllocatorFeatures,
    Behaviour,
    Implementation,
    Release,
    choose_implementation,
)
from dractl.allocator.inventory import DeviceEntry, DeviceID, Inventory, format_device_id
from dractl.allocator.nodes import NodeInfo
from dractl.allocator.solver import DEFAULT_TIMEOUT, Allocator, Outcome
from dractl.allocator.trace import NodeTrace, PoolTrace, Progress, Reason, Rejection, RequestTrace

__all__ = [
    "DEFAULT_TIMEOUT",
    "Allocator",
    "AllocatorFeatures",
    "Behaviour",
    "DeviceEntry",
    "DeviceID",
    "Implementation",
    "Inventory",
    "NodeInfo",
    "NodeTrace",
    "Outcome",
    "PoolTrace",
    "Progress",
    "Reason",
    "Rejection",
    "Release",
    "RequestTrace",
    "choose_implementation",
    "format_device_id",
]
