"""Workloads replica by replica, as the cluster runs them.

The resource-claim controller makes one claim per Pod from each template the pod template
names (``<pod>-<claim>``), and the scheduler places the Pods one at a time, each seeing the
devices (and the consumed capacity) of the ones placed before it. A claim the template names
directly (``resourceClaimName``) is one claim for every replica: allocated with the first and
then in use, on the nodes its allocation allows.

How many Pods: ``spec.replicas`` of a Deployment, ReplicaSet or StatefulSet (default 1);
``spec.parallelism`` of a Job (default 1, at most ``completions``) or of a CronJob's job
template; one per node that a DaemonSet's node selector and required node affinity match.
Replica ``n`` is the pod ``<workload>-<n>`` (a StatefulSet's own names; the other controllers
add random suffixes).

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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from dractl.errors import InputError
from dractl.explain.inputs import (
    POD_CLAIM_NAME_ANNOTATION,
    AllocationUnit,
    ClaimInput,
    generated_claim_name,
)

if TYPE_CHECKING:
    from dractl.allocator import Allocator, NodeInfo
    from dractl.api.model import ApiObject
    from dractl.api.workspace import Workspace
    from dractl.explain.run import NodeResult, UnitResult

Placement = Literal["pack", "spread"]
PLACEMENTS: tuple[Placement, ...] = ("pack", "spread")
REPLICAS_MAX = 10_000  # --replicas max places at most this many
WORKLOAD_KINDS = {
    ("apps", "Deployment"),
    ("apps", "ReplicaSet"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("batch", "Job"),
    ("batch", "CronJob"),
}

# evaluate(unit, nodes, trace) -> one NodeResult per node, in node order
Evaluate = Callable[[AllocationUnit, Sequence["NodeInfo"], bool], list["NodeResult"]]


@dataclass
class Workload:
    """A workload whose Pods are placed one after another."""

    unit: AllocationUnit  # its pod template, as `plan` made it (claims named after the workload)
    count: int | None  # Pods to place; None: until one does not fit (--replicas max)
    source: str  # where the count comes from ("spec.replicas", "--replicas", ...)
    daemon_nodes: list[NodeInfo] | None = None  # DaemonSet: the node of each replica
    focus: bool = False  # --pod names the last replica: explained on every node, fit or not

    @property
    def obj(self) -> ApiObject:
        assert self.unit.pod is not None
        return self.unit.pod

    @property
    def namespace(self) -> str:
        return self.obj.effective_namespace or "default"

    @property
    def name(self) -> str:
        return self.obj.name or "pod"

    @property
    def title(self) -> str:
        return self.unit.title

    def pod_name(self, index: int) -> str:
        return f"{self.name}-{index}"


@dataclass
class Replica:
    """A replica that fits: its claims (those allocated with it) and the node it got."""

    index: int
    pod: str  # ns/name
    unit: AllocationUnit
    node: NodeResult  # allocated; its outcome holds one allocation per claim of `unit`


@dataclass
class WorkloadResult:
    workload: Workload
    placement: Placement
    placed: list[Replica]
    # Every node's explanation of one replica: the first that does not fit, or the one --pod names.
    explained: UnitResult | None = None
    explained_index: int | None = None
    notes: list[str] = field(default_factory=list)

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


def pod_count(obj: ApiObject) -> tuple[int, str]:
    """How many Pods a workload other than a DaemonSet runs, and the field that says so."""
    if obj.kind == "Job":
        return _job_pods(obj, ("spec",))
    if obj.kind == "CronJob":
        return _job_pods(obj, ("spec", "jobTemplate", "spec"))
    replicas = _integer(obj, ("spec", "replicas"))
    return (1 if replicas is None else replicas), "spec.replicas"


def _job_pods(obj: ApiObject, spec: tuple[str, ...]) -> tuple[int, str]:
    parallelism = _integer(obj, (*spec, "parallelism"))
    completions = _integer(obj, (*spec, "completions"))
    where = ".".join((*spec, "parallelism"))
    count = 1 if parallelism is None else parallelism
    if completions is not None and completions < count:
        return completions, ".".join((*spec, "completions"))
    return count, where


def _integer(obj: ApiObject, path: tuple[str, ...]) -> int | None:
    value = obj.get(path)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(
            f"{obj.position(path)}: {obj.kind} {obj.qualified_name}: {'.'.join(path)} must be a "
            f"non-negative integer, not {value!r}"
        )
    return value


def daemon_nodes(obj: ApiObject, nodes: Sequence[NodeInfo]) -> list[NodeInfo]:
    """The nodes a DaemonSet runs a Pod on: those its pod template's nodeSelector and required
    node affinity match (node taints are not modelled)."""
    from dractl.allocator.nodes import NodeSelectorError, parse_node_selector

    spec_path = ("spec", "template", "spec")
    labels = obj.get((*spec_path, "nodeSelector")) or {}
    affinity_path = (*spec_path, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    affinity = obj.get(affinity_path)
    selector = None
    if isinstance(affinity, dict) and affinity.get("nodeSelectorTerms"):
        try:
            selector = parse_node_selector(affinity)
        except NodeSelectorError as exc:
            raise InputError(
                f"{obj.position(affinity_path)}: {obj.kind} {obj.qualified_name}: invalid node affinity: {exc}"
            ) from None
    return [
        node
        for node in nodes
        if all(node.labels.get(str(k)) == str(v) for k, v in labels.items())
        and (selector is None or selector.matches(node))
    ]


def replica_named(workspace: Workspace, pod: str) -> tuple[ApiObject, int] | None:
    """The workload and replica index that `--pod [NS/]NAME` means when NAME is no Pod of the
    input but ``<workload>-<n>``: replica n of a workload of the input."""
    wanted = pod if "/" in pod else f"default/{pod}"
    namespace, _, name = wanted.partition("/")
    if any(obj.kind == "Pod" and obj.group == "" and obj.qualified_name == wanted for obj in workspace.checked):
        return None
    for obj in workspace.checked:
        if (obj.group, obj.kind) not in WORKLOAD_KINDS or not obj.name:
            continue
        if (obj.effective_namespace or "default") != namespace or not name.startswith(obj.name + "-"):
            continue
        index = name[len(obj.name) + 1:]
        if index.isdigit() and str(int(index)) == index:
            return obj, int(index)
    return None


def workload_for(
    unit: AllocationUnit,
    replicas: int | Literal["max"] | None,
    nodes: Sequence[NodeInfo],
    notes: list[str],
    focus: int | None = None,
) -> Workload | None:
    """The unit as a workload placed replica by replica, or None to explain it as one Pod on
    every node (a Pod; a workload of exactly one Pod unless `--replicas` asks for more).
    `focus`: the replica --pod names, placed after the ones before it and explained in full."""
    obj = unit.pod
    if obj is None or (obj.group, obj.kind) not in WORKLOAD_KINDS:
        if obj is not None and replicas is not None:
            notes.append(f"--replicas does not apply to {unit.title}: a Pod is one Pod")
        return None
    if obj.kind == "DaemonSet":
        if replicas is not None:
            notes.append(f"--replicas does not apply to {unit.title}: it runs one Pod per matching node")
        matching = daemon_nodes(obj, nodes)
        if focus is not None:
            if focus >= len(matching):
                raise InputError(
                    f"{unit.title} runs {len(matching)} Pod{'s' if len(matching) != 1 else ''} (one per node its "
                    f"node selector matches): it has no replica {focus}"
                )
            return Workload(unit, focus + 1, "--pod", matching, focus=True)
        return Workload(unit, len(matching), "its node selector", matching)
    if focus is not None:
        if replicas is not None:
            notes.append(f"--replicas does not apply with --pod: replica {focus} of {unit.title} is explained")
        return Workload(unit, focus + 1, "--pod", focus=True)
    if replicas == "max":
        return Workload(unit, None, "--replicas max")
    if replicas is not None:
        return Workload(unit, replicas, "--replicas")
    count, source = pod_count(obj)
    return Workload(unit, count, source) if count != 1 else None


def replica_unit(workload: Workload, index: int, shared: dict[str, ClaimInput]) -> AllocationUnit:
    """Replica `index`'s claims: one made from each template for its pod, and the claims named
    directly, unless an earlier replica allocated them (`shared`: then they are in use)."""
    pod = workload.pod_name(index)
    claims: list[ClaimInput] = []
    preallocated = list(workload.unit.preallocated)
    for claim in workload.unit.claims:
        if claim.template is not None:
            claims.append(_renamed(claim, pod))
        elif claim.qualified_name in shared:
            preallocated.append(shared[claim.qualified_name])
        else:
            claims.append(claim)
    return AllocationUnit(
        f"{workload.title} replica {index} (pod {workload.namespace}/{pod})",
        claims,
        pod=workload.unit.pod,
        preallocated=preallocated,
    )


def _renamed(claim: ClaimInput, pod: str) -> ClaimInput:
    """The claim the controller makes from the same template for another pod (claims are read,
    never changed: the spec is shared)."""
    name = generated_claim_name(pod, claim.data["metadata"]["annotations"][POD_CLAIM_NAME_ANNOTATION])
    data = {**claim.data, "metadata": {**claim.data["metadata"], "name": name}}
    return ClaimInput(claim.namespace, name, data, claim.source, claim.template)


def with_allocation(claim: ClaimInput, allocation: dict[str, Any]) -> ClaimInput:
    """The claim with `status.allocation` (the rest shared with `claim`)."""
    data = {**claim.data, "status": {"allocation": allocation}}
    return ClaimInput(claim.namespace, claim.name, data, claim.source, claim.template)


def place(
    workload: Workload,
    allocator: Allocator,
    nodes: Sequence[NodeInfo],
    evaluate: Evaluate,
    placement: Placement,
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
