"""Workloads replica by replica, as the cluster runs them.

The scheduler places the Pods of a workload (:mod:`dractl.allocator.replicas`: how many, and
their claims) one at a time, each seeing the devices (and the consumed capacity) of the ones
placed before it.

Which node a replica gets is decided by scoring plugins dractl does not run, so it is a policy
here: ``pack`` keeps to the node of the previous replica while the replica fits there, else
takes the first feasible node in natural order; ``spread`` takes the feasible node with the
fewest replicas so far. Nodes where firstAvailable requests get earlier subrequests come first,
as the scheduler scores them.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Literal

from dractl.allocator.inputs import AllocationUnit, ClaimInput
from dractl.allocator.replicas import Workload, replica_unit, with_allocation
from dractl.records import Record

if TYPE_CHECKING:
    from dractl.allocator import Allocator, NodeInfo
    from dractl.explain.run import NodeResult, UnitResult

    Evaluate = Callable[[AllocationUnit, Sequence[NodeInfo], bool], list[NodeResult]]

Placement = Literal["pack", "spread"]
PLACEMENTS: tuple[Placement, ...] = ("pack", "spread")
REPLICAS_MAX = 10_000  # --replicas max places at most this many


class Replica(Record):
    """A replica that fits: its claims (those allocated with it) and the node it got."""

    __slots__ = ("index", "node", "pod", "unit")

    def __init__(self, index: int, pod: str, unit: AllocationUnit, node: NodeResult) -> None:
        self.index = index
        self.pod = pod  # ns/name
        self.unit = unit
        self.node = node  # allocated; its outcome holds one allocation per claim of `unit`


class WorkloadResult(Record):
    __slots__ = ("explained", "explained_index", "notes", "placed", "placement", "workload")

    def __init__(self, workload: Workload, placement: Placement, placed: list[Replica],
                 explained: UnitResult | None = None, explained_index: int | None = None,
                 notes: list[str] | None = None) -> None:
        self.workload = workload
        self.placement = placement
        self.placed = placed
        # Every node's explanation of one replica: the first that does not fit, or the one --pod
        # names.
        self.explained = explained
        self.explained_index = explained_index
        self.notes = [] if notes is None else notes

    @property
    def wanted(self) -> int | None:
        return self.workload.count

    @property
    def capped(self) -> bool:
        """--replicas max reached its cap with every replica fitting."""
        return self.workload.count is None and self.explained is None

    @property
    def unfit(self) -> bool:
        """Whether the explained replica is one that does not fit."""
        return self.explained is not None and not self.explained.feasible

    @property
    def satisfied(self) -> bool:
        if self.workload.count is None:
            return bool(self.placed)
        if self.workload.focus:
            return not self.unfit and self.explained is not None
        return len(self.placed) == self.workload.count


def place(
    workload: Workload,
    allocator: Allocator,
    nodes: Sequence[NodeInfo],
    evaluate: Evaluate,
    placement: Placement,
    on_placed: Callable[[AllocationUnit, str], None] | None = None,
) -> WorkloadResult:
    """Places the replicas one after another until all are placed or one fits nowhere; each
    replica's claims are then in use (through the allocator's allocated claims) for the next."""
    from dractl.explain.run import UnitResult, natural_key

    result = WorkloadResult(workload, placement, [])
    per_node: Counter[str] = Counter()
    shared: dict[str, ClaimInput] = {}
    full: set[str] = set()  # nodes where a replica did not fit: no later one will
    previous: str | None = None
    limit = REPLICAS_MAX if workload.count is None else workload.count
    in_order = sorted(nodes, key=lambda n: natural_key(n.name))  # node-2 before node-10
    open_nodes, known_full = in_order, 0  # the nodes not in `full` (kept for many replicas)
    for index in range(limit):
        unit = replica_unit(workload, index, shared)
        if workload.daemon_nodes is not None:
            candidates = [workload.daemon_nodes[index]]
            untried = [n for n in candidates if n.name not in full]
        else:
            candidates, untried = in_order, open_nodes
        if workload.focus and index == limit - 1:
            result.explained, result.explained_index = UnitResult(unit, evaluate(unit, candidates, True)), index
            break
        # Replicas after the first have the same claims, and every placed one takes devices:
        # a node that had no room has none later (the first may also allocate a shared claim).
        chosen = _choose(unit, untried, evaluate, placement, previous, per_node, full if index > 0 else set())
        if len(full) != known_full:
            open_nodes, known_full = [n for n in open_nodes if n.name not in full], len(full)
        if chosen is None:
            # Fits nowhere: now every node's explanation, with the trace.
            result.explained, result.explained_index = UnitResult(unit, evaluate(unit, candidates, True)), index
            break
        _commit(allocator, unit, chosen, index, shared)
        if on_placed is not None:
            on_placed(unit, chosen.node)
        result.placed.append(Replica(index, f"{workload.namespace}/{workload.pod_name(index)}", unit, chosen))
        per_node[chosen.node] += 1
        previous = chosen.node
    network = _network_pools(allocator, result.placed)
    if network and workload.daemon_nodes is None and len(result.placed) + (result.explained is not None) > 1:
        result.notes.append(
            f"replicas use devices of network-attached pools ({', '.join(network)}): which node an "
            "earlier replica got can decide whether a later one fits; the other --placement may "
            "give another answer"
        )
    return result


def _choose(
    unit: AllocationUnit,
    nodes: list[NodeInfo],
    evaluate: Evaluate,
    placement: Placement,
    previous: str | None,
    per_node: Counter[str],
    full: set[str],
) -> NodeResult | None:
    """The node the replica gets, or None when it fits on none of `nodes`; nodes it does not
    fit on go into `full`. Nodes (in natural order) are tried in the policy's order (pack: the
    previous replica's node first; spread: those with fewer replicas first) without a trace,
    and the first that fits wins, unless firstAvailable requests make some nodes better: then
    every node is tried and those where the requests got earlier subrequests win, as the
    scheduler's scoring prefers them."""
    from dractl.explain.run import _subrequest_ranks

    def preference(name: str) -> bool | int:
        return name != previous if placement == "pack" else per_node[name]

    ranks = _subrequest_ranks(unit.claims)
    ranked = any(ranks)
    fitting: list[NodeResult] = []
    # `nodes` are in natural order, which the (stable) sort and min() keep among equals.
    if placement == "pack":
        # Lazily: the first node that fits ends the walk.
        order: Iterable[NodeInfo] = itertools.chain(
            (n for n in nodes if n.name == previous), (n for n in nodes if n.name != previous))
    else:
        order = sorted(nodes, key=lambda n: per_node[n.name])
    for node in order:
        (attempt,) = evaluate(unit, [node], False)
        if attempt.allocated:
            if not ranked:
                return attempt
            fitting.append(attempt)
        elif attempt.status in ("unschedulable", "error"):
            full.add(node.name)
    if not fitting:
        return None
    return min(fitting, key=lambda r: (preference(r.node), r.fallbacks(ranks)))


def _commit(
    allocator: Allocator, unit: AllocationUnit, chosen: NodeResult, index: int, shared: dict[str, ClaimInput]
) -> None:
    """The replica's claims become allocated claims of the cluster: in use by "replica N"."""
    assert chosen.outcome is not None and chosen.outcome.allocations is not None
    for claim, allocation in zip(unit.claims, chosen.outcome.allocations, strict=True):
        allocated = with_allocation(claim, allocation)
        if claim.template is None:
            shared[claim.qualified_name] = allocated
            allocator.add_allocated([allocated.data])
        else:
            allocator.add_allocated([allocated.data], owner=f"replica {index} ({claim.qualified_name})")


def _network_pools(allocator: Allocator, placed: list[Replica]) -> list[str]:
    """Pools of the allocated devices whose slices are not bound to one node by name."""
    slices_by_pool = allocator.inventory.slices_by_pool
    pools: set[str] = set()
    for replica in placed:
        for allocation in (replica.node.outcome.allocations if replica.node.outcome else None) or []:
            for entry in (allocation.get("devices") or {}).get("results") or []:
                key = (str(entry.get("driver")), str(entry.get("pool")))
                if any(not s.node_name for s in slices_by_pool.get(key, ())):
                    pools.add("/".join(key))
    return sorted(pools)
