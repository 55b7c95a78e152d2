"""DRA32x: ResourceSlices of one pool that do not fit together.

A pool is every ResourceSlice with the same `spec.driver` and `spec.pool.name`. The scheduler
only uses the slices of the newest `pool.generation`; older ones are stale and ignored here too.
Counter sets: Kubernetes 1.34 keeps `sharedCounters` in the slice of the devices that consume
them (and the apiserver checks the references); from 1.35 on a slice holds either
`sharedCounters` or `devices`, and devices consume the counter sets of any slice of their pool,
which only the scheduler checks.

Which slices form a pool: the `--context` slices and the linted slices of related folders (one
folder holds the other). A repository's sibling folders often hold example slices of separate
clusters that reuse pool names (`node-1`); they are not one pool.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dractl.api.model import ApiObject
from dractl.api.paths import Key
from dractl.api.validation.formats import is_dns1123_label
from dractl.diagnostics import Severity
from dractl.lint.engine import Finding, LintContext
from dractl.lint.registry import rule
from dractl.lint.rules._common import (
    did_you_mean,
    folder,
    folder_order,
    key_position,
    mention,
    related_folders,
    within,
)
from dractl.records import Record


class Pool(Record):
    __slots__ = ("driver", "generation", "name", "replaced", "slices")

    def __init__(
        self,
        driver: str,
        name: str,
        generation: int,
        slices: list[ApiObject],
        replaced: list[tuple[ApiObject, ApiObject]] | None = None,
    ) -> None:
        self.driver = driver
        self.name = name
        self.generation = generation
        self.slices = slices  # of the newest generation, in input order
        # (slice of this pool, the slice of the same name that replaces it): what a reader
        # of the files may take for part of the pool (a duplicate name, DRA330/DRA331)
        self.replaced = [] if replaced is None else replaced

    @property
    def id(self) -> str:
        return f"{self.driver}/{self.name}"


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def current_pools(ctx: LintContext, here: str | None = None) -> list[Pool]:
    """Every pool with the slices of its newest generation (computed once per run and view).

    With ``here``, only the slices seen from that folder: the `--context` ones and the linted
    ones of a folder that holds it or that it holds.
    """
    key = ("slices.current_pools", here)
    if key not in ctx.cache:
        ws = ctx.workspace
        seen = [
            o
            for o in ws.slices
            if here is None or ws.is_context(o) or related_folders(folder(o), here)
        ]
        # One slice per name, as the cluster would hold it: a linted slice replaces the
        # --context copy of itself, and of two linted copies the last one applied wins.
        winners: dict[str, ApiObject] = {}
        for obj in sorted(seen, key=lambda o: not ws.is_context(o)):  # stable: context first
            winners[obj.name or f"#{id(obj)}"] = obj
        kept = {id(o) for o in winners.values()}
        pools = []
        in_view = {id(o) for o in seen}  # once: a stream holds thousands of one-slice pools
        for (driver, name), all_slices in ws.pools.items():
            slices = [s for s in all_slices if id(s) in kept]
            if not slices:
                continue
            replaced = [
                (s, winners[s.name or f"#{id(s)}"])
                for s in all_slices
                if id(s) in in_view and id(s) not in kept
            ]
            generation = max(_int(s.get(("spec", "pool", "generation"))) or 0 for s in slices)
            newest = [
                s
                for s in slices
                if (_int(s.get(("spec", "pool", "generation"))) or 0) == generation
            ]
            pools.append(Pool(driver, name, generation, newest, replaced))
        ctx.cache[key] = pools
    result: list[Pool] = ctx.cache[key]
    return result


def _count(obj: ApiObject) -> int | None:
    return _int(obj.get(("spec", "pool", "resourceSliceCount")))


def _devices(obj: ApiObject) -> Iterator[tuple[int, dict[str, Any]]]:
    devices = obj.get(("spec", "devices"))
    if isinstance(devices, list):
        for j, device in enumerate(devices):
            if isinstance(device, dict):
                yield j, device


def _counter_sets(obj: ApiObject) -> Iterator[tuple[int, str, dict[str, Any]]]:
    sets = obj.get(("spec", "sharedCounters"))
    if isinstance(sets, list):
        for k, counter_set in enumerate(sets):
            if isinstance(counter_set, dict) and isinstance(counter_set.get("name"), str):
                counters = counter_set.get("counters")
                yield k, counter_set["name"], counters if isinstance(counters, dict) else {}


def _first_checked(ctx: LintContext, slices: list[ApiObject]) -> ApiObject | None:
    return next((s for s in slices if not ctx.workspace.is_context(s)), None)


def pool_views(ctx: LintContext) -> Iterator[tuple[str, list[Pool]]]:
    """``(folder, the pools seen from it)`` for every folder holding linted slices.

    A rule reports, in each view, only on the slices of that folder: every slice is judged
    once, with the pools it belongs to.
    """
    ws = ctx.workspace
    folders = sorted({folder(o) for o in ws.slices if not ws.is_context(o)}, key=folder_order)
    for here in folders:
        yield here, current_pools(ctx, here)


def _in(obj: ApiObject, here: str) -> bool:
    return folder(obj) == here


@rule("DRA320", "pool-slice-count-mismatch", Severity.WARNING, scope="set")
def pool_slice_count_mismatch(ctx: LintContext) -> Iterator[Finding]:
    """Slices of one pool and generation disagree on `resourceSliceCount`.

    Why:
    Every slice of a pool states how many slices the pool has. The scheduler believes the first
    slice it sees, so with disagreeing counts whether the pool counts as complete depends on
    the order the slices happen to be listed in. A driver that publishes such slices is
    usually in the middle of a botched update; bump `pool.generation` when the count changes.
    Linted slices of sibling folders are not one pool (for this rule and DRA321-DRA323): a
    repository's folders of example clusters often reuse pool names.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpus-a
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 2}
          devices: [{name: gpu-0}]
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpus-b
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 3}
          devices: [{name: gpu-1}]
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpus-b
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 2}
          devices: [{name: gpu-1}]
    """
    for here, pools in pool_views(ctx):
        yield from _slice_count_mismatch(pools, here)


def _slice_count_mismatch(pools: list[Pool], here: str) -> Iterator[Finding]:
    for pool in pools:
        first = next((s for s in pool.slices if _count(s) is not None), None)
        if first is None:
            continue
        expected = _count(first)
        for obj in pool.slices:
            count = _count(obj)
            if count is None or count == expected or not _in(obj, here):
                continue
            yield Finding(
                f'pool "{pool.id}" generation {pool.generation}: this slice says '
                f"resourceSliceCount {count}, {mention(first, 'slice')} says "
                f"{expected}; the scheduler believes whichever it reads first",
                ("spec", "pool", "resourceSliceCount"),
                obj=obj,
            )


@rule("DRA321", "pool-incomplete", Severity.WARNING, scope="set")
def pool_incomplete(ctx: LintContext) -> Iterator[Finding]:
    """A pool has fewer (or more) slices than its `resourceSliceCount` declares.

    Why:
    The scheduler treats a pool whose slices do not all exist as incomplete ("being
    updated"): `allocationMode: All` requests on it fail, and since Kubernetes 1.35 none of its
    devices are allocated at all. Either a slice is missing from the inputs or the count is
    wrong.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpus
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 2}
          devices: [{name: gpu-0}, {name: gpu-1}]
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpus
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 1}
          devices: [{name: gpu-0}, {name: gpu-1}]
    Upstream:
    kubernetes/dynamic-resource-allocation structured/internal: GatherPools (IsIncomplete).
    """
    reported: set[tuple[str, frozenset[int]]] = set()
    for here, pools in pool_views(ctx):
        for pool in pools:
            # A pool seen alike from several related folders is reported once.
            seen = (pool.id, frozenset(id(s) for s in pool.slices))
            if seen not in reported:
                found = _incomplete(ctx, pool, here)
                if found is not None:
                    reported.add(seen)
                    yield found


def _incomplete(ctx: LintContext, pool: Pool, here: str) -> Finding | None:
    counts = {_count(s) for s in pool.slices} - {None}
    if len(counts) != 1:
        return None  # missing counts are schema errors, disagreeing ones DRA320
    (declared,) = counts
    have = len(pool.slices)
    if have == declared or declared is None or declared < 1:
        return None  # a count below 1 is the apiserver's to reject
    obj = _first_checked(ctx, [s for s in pool.slices if _in(s, here)])
    if obj is None:
        return None
    if have < declared:
        detail = f"the inputs hold only {have} of its {declared} slices"
    else:
        detail = f"the inputs hold {have} slices, but resourceSliceCount is {declared}"
    return Finding(
        f'pool "{pool.id}" generation {pool.generation} is incomplete: {detail}; the '
        "scheduler treats it as being updated (allocationMode All fails, and newer "
        "schedulers allocate none of its devices)",
        ("spec", "pool", "resourceSliceCount"),
        obj=obj,
    )


@rule("DRA322", "pool-duplicate-device", Severity.ERROR, scope="set")
def pool_duplicate_device(ctx: LintContext) -> Iterator[Finding]:
    """Two slices of one pool publish a device with the same name.

    Why:
    Device names must be unique within a pool, across all of its slices. The scheduler marks a
    pool with duplicate names invalid ("duplicate device name") and allocates none of its
    devices. (Duplicates within one slice are rejected by the apiserver.)

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpus-a
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 2}
          devices: [{name: gpu-0}]
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpus-b
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 2}
          devices: [{name: gpu-0}]
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpus-b
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 2}
          devices: [{name: gpu-1}]
    Upstream:
    kubernetes/dynamic-resource-allocation structured/internal: validateDeviceNames.
    """
    for here, pools in pool_views(ctx):
        yield from _duplicate_devices(pools, here)


def _duplicate_devices(pools: list[Pool], here: str) -> Iterator[Finding]:
    for pool in pools:
        seen: dict[str, ApiObject] = {}
        for obj in pool.slices:
            names_here: set[str] = set()
            for j, device in _devices(obj):
                name = device.get("name")
                if not isinstance(name, str) or name in names_here:
                    continue
                names_here.add(name)
                other = seen.get(name)
                if other is None:
                    seen[name] = obj
                    continue
                if not _in(obj, here):
                    continue
                yield Finding(
                    f'device "{name}" is also published by {mention(other, "slice")} '
                    f'of pool "{pool.id}": the scheduler marks the pool '
                    "invalid and allocates none of its devices",
                    ("spec", "devices", j, "name"),
                    obj=obj,
                )


@rule("DRA323", "pool-counter-set-not-found", Severity.ERROR, scope="set")
def pool_counter_set_not_found(ctx: LintContext) -> Iterator[Finding]:
    """A device consumes counters from a counter set (or a counter) its pool does not define.

    Why:
    Partitionable devices draw on shared counters (`consumesCounters` naming a `sharedCounters`
    set). From Kubernetes 1.35 on, counter sets live in slices of their own and devices consume
    the sets of any slice of their pool, so the apiserver cannot check the reference: the
    scheduler marks a pool whose devices name an unknown counter set or counter, or that
    defines a set twice, invalid ("counter set X not found") and allocates none of its
    devices. When the slice that defines the set shares its name with another slice, which
    replaces it (DRA330, DRA331), the finding names both. A set name the apiserver rejects is
    DRA102's finding. (In Kubernetes 1.34 a device consumes counters of its own slice only, and the
    apiserver checks that itself: DRA132. Without the DRAPartitionableDevices gate the fields
    are dropped: DRA410.)

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-counters
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 2}
          sharedCounters:
          - name: gpu-0-counters
            counters:
              memory: {value: 80Gi}
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-partitions
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 2}
          devices:
          - name: gpu-0-half-0
            consumesCounters:
            - counterSet: gpu-0-counter
              counters:
                memory: {value: 40Gi}
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-partitions
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 2}
          devices:
          - name: gpu-0-half-0
            consumesCounters:
            - counterSet: gpu-0-counters
              counters:
                memory: {value: 40Gi}
    Upstream:
    kubernetes/dynamic-resource-allocation structured/internal: getAndValidateCounterSets,
    validateDeviceCounterConsumption.
    """
    if ctx.features.release == "1.34" or not ctx.features.enabled("DRAPartitionableDevices"):
        return
    for here, pools in pool_views(ctx):
        yield from _counter_set_references(pools, here)


def _counter_set_references(pools: list[Pool], here: str) -> Iterator[Finding]:
    for pool in pools:
        pool_sets: dict[str, tuple[ApiObject, dict[str, Any]]] = {}
        for obj in pool.slices:
            for k, name, counters in _counter_sets(obj):
                other = pool_sets.get(name)
                if other is None:
                    pool_sets[name] = (obj, counters)
                elif other[0] is not obj and _in(obj, here):  # twice in one slice: apiserver
                    yield Finding(
                        f'counter set "{name}" is also defined by {mention(other[0], "slice")} '
                        f'of pool "{pool.id}": the scheduler marks the pool '
                        "invalid (duplicate counter set name)",
                        ("spec", "sharedCounters", k, "name"),
                        obj=obj,
                    )
        for obj in pool.slices:
            if not _in(obj, here):
                continue
            for j, device in _devices(obj):
                consumptions = device.get("consumesCounters")
                if not isinstance(consumptions, list):
                    continue
                for c, consumption in enumerate(consumptions):
                    if isinstance(consumption, dict):
                        yield from _check_consumption(obj, pool, (j, c), consumption, pool_sets)


def _check_consumption(
    obj: ApiObject,
    pool: Pool,
    at: tuple[int, int],
    consumption: dict[str, Any],
    pool_sets: dict[str, tuple[ApiObject, dict[str, Any]]],
) -> Iterator[Finding]:
    path = ("spec", "devices", at[0], "consumesCounters", at[1])
    set_name = consumption.get("counterSet")
    if not isinstance(set_name, str) or not set_name:
        return
    if is_dns1123_label(set_name):
        return  # not a name a counter set can have: the apiserver rejects it (DRA102)
    found = pool_sets.get(set_name)
    if found is None:
        dropped = next(
            (
                (gone, winner)
                for gone, winner in pool.replaced
                if any(name == set_name for _, name, _ in _counter_sets(gone))
            ),
            None,
        )
        if dropped is not None:
            gone, winner = dropped
            why = (
                f": {mention(gone, 'slice')} defines it, but {mention(winner, 'slice')} has the "
                "same name and replaces it (a slice name is unique: the last one applied wins)"
            )
        else:
            why = ": the scheduler marks the pool invalid and allocates none of its devices"
            why += did_you_mean(set_name, pool_sets)
        yield Finding(
            f'no slice of pool "{pool.id}" defines counter set "{set_name}"{why}',
            (*path, "counterSet"),
            obj=obj,
            hint="give each slice a name of its own" if dropped is not None else None,
        )
        return
    counters = found[1]
    consumed = consumption.get("counters")
    if not isinstance(consumed, dict):
        return
    for counter in consumed:
        if counter not in counters:
            counter_path = (*path, "counters", Key(counter))
            yield Finding(
                f'counter "{counter}" is not in counter set "{set_name}" (it has '
                + (", ".join(f'"{c}"' for c in counters) or "no counters")
                + "): the scheduler marks the pool invalid",
                counter_path,
                obj=obj,
                position=key_position(obj, counter_path),
            )


@rule("DRA324", "slice-node-unknown", Severity.INFO, scope="set")
def slice_node_unknown(ctx: LintContext) -> Iterator[Finding]:
    """A ResourceSlice names a node that is not among the inputs' Nodes.

    Why:
    When the inputs include the cluster's Nodes (for example a `--context` dump), a slice for
    a node that is not one of them is stale or misspelled: its devices are offered on no node.
    Checked only when the inputs hold Nodes: every `--context` Node, and the linted Nodes of
    the slice's own folder or a folder above it (another folder's Nodes may belong to another
    example cluster).

    Bad:
        apiVersion: v1
        kind: Node
        metadata:
          name: node-1
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-01-gpus
        spec:
          driver: gpu.example.com
          nodeName: node-01
          pool: {name: node-01, generation: 1, resourceSliceCount: 1}
          devices: [{name: gpu-0}]
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpus
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 1}
          devices: [{name: gpu-0}]
    """
    ws = ctx.workspace
    if not ws.nodes:
        return
    by_folder: dict[str, set[str]] = {}
    for obj in ws.slices:
        if ws.is_context(obj):
            continue
        here = folder(obj)
        if here not in by_folder:
            by_folder[here] = {
                name
                for name, node in ws.nodes.items()
                if ws.is_context(node) or within(here, folder(node))
            }
        nodes = by_folder[here]
        if not nodes:
            continue
        among = f"{len(nodes)} Node{'s' if len(nodes) != 1 else ''} of the inputs"
        node = obj.get(("spec", "nodeName"))
        if isinstance(node, str) and node and node not in nodes:
            yield Finding(
                f'node "{node}" is not among the {among}',
                ("spec", "nodeName"),
                obj=obj,
            )
        for j, device in _devices(obj):
            node = device.get("nodeName")
            if isinstance(node, str) and node and node not in nodes:
                yield Finding(
                    f'device "{device.get("name")}": node "{node}" is not among the {among}',
                    ("spec", "devices", j, "nodeName"),
                    obj=obj,
                )
