"""Run the allocator for every allocation unit on every node, with the trace on."""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from dractl.allocator.inputs import (
    AllocationUnit,
    ClaimInput,
    allocator_objects,
    device_taint_rules_enabled,
    plan,
    pod_node_affinity,
    taint_rule_selectors,
)
from dractl.allocator.replicas import replica_claim_named, replica_named, workload_for
from dractl.api.releases import Features
from dractl.api.versions import GROUP, KINDS
from dractl.api.workspace import Workspace
from dractl.errors import InputError
from dractl.explain.scheduling import (
    Attempt,
    Cluster,
    NodeVerdict,
    extended_mapping,
    requests_extended_resource,
)
from dractl.explain.workloads import Placement, WorkloadResult, place
from dractl.load import Omit
from dractl.records import Record
from dractl.scheduler.status import Code

if TYPE_CHECKING:
    from collections.abc import Callable

    from dractl.allocator import Allocator, NodeInfo, Outcome
    from dractl.api.model import ApiObject
    from dractl.scheduler.framework import Verdict

    Evaluate = Callable[[AllocationUnit, Sequence[NodeInfo]], list["NodeResult"]]

DEFAULT_TIMEOUT = 10.0  # the scheduler's default filterTimeout (DynamicResourcesArgs)

# What explain leaves out of its input, unread and unchecked: what the apiserver records of who
# wrote each field (the bulk of a cluster dump), and a Node's status but for its allocatable
# (conditions, addresses, images; the scheduler's NodeResourcesFit reads only allocatable).
UNREAD = Omit(metadata=frozenset({"managedFields"}), only={("v1", "Node"): {"status": frozenset({"allocatable"})}})


class ExplainSettings(Record):
    __slots__ = ("cel_engine", "claims", "features", "jobs", "nodes", "output", "placement", "pod", "replicas",
                 "run_timeout", "scheduler_profiles", "timeout", "verbose")

    def __init__(
        self,
        features: Features | None = None,
        claims: tuple[str, ...] = (),
        pod: str | None = None,
        nodes: tuple[str, ...] = (),
        timeout: float = DEFAULT_TIMEOUT,
        run_timeout: float | None = None,
        cel_engine: str | None = None,
        replicas: int | Literal["max"] | None = None,
        placement: Placement = "pack",
        jobs: int = 1,
        output: str = "text",
        verbose: bool = False,
        scheduler_profiles: Mapping[str, Any] | None = None,
    ) -> None:
        self.features = Features() if features is None else features
        # --scheduler-config: the profiles by schedulerName (None: kube-scheduler's default one)
        self.scheduler_profiles = scheduler_profiles
        self.claims = claims  # --claim selectors
        self.pod = pod  # --pod: only this Pod of the input
        self.nodes = nodes  # --node names; empty = every node the input knows of
        # Per node, as the scheduler's filterTimeout: the search on one node is aborted after it,
        # that node is unschedulable, and every other node is still evaluated.
        self.timeout = timeout
        self.run_timeout = run_timeout  # a budget for the whole run; None: no limit
        self.cel_engine = cel_engine
        self.replicas = replicas  # --replicas: workloads' pod count overridden
        self.placement = placement  # --placement: the node each replica of a workload gets
        # Processes for the nodes of a large input: the nodes searched in other processes come
        # back rendered for `output` ("text" or "json"; with another output every node is
        # searched in this process: YAML writes values met twice as aliases, which depend on
        # what was shared where), `verbose` as the output will be.
        self.jobs = jobs
        self.output = output
        self.verbose = verbose


class Rendered:
    """What the output needs of a node searched in another process (its outcome stays there)."""

    __slots__ = ("blocker_kinds", "data", "fallbacks", "progress", "short_reason", "text")

    def __init__(self, fallbacks: int, progress: int, short_reason: str, blocker_kinds: frozenset[str],
                 data: dict[str, Any] | None, text: list[str] | None) -> None:
        self.fallbacks = fallbacks
        self.progress = progress
        self.short_reason = short_reason
        self.blocker_kinds = blocker_kinds
        self.data = data  # the node in the JSON contract (json, yaml)
        self.text = text  # its lines in detail (text; only for nodes that may be shown)


class NodeResult(Record):
    __slots__ = ("error", "node", "outcome", "rendered", "scheduler", "score", "status")

    def __init__(self, node: str, status: str, error: str | None, outcome: Outcome | None,
                 rendered: Rendered | None = None, scheduler: NodeVerdict | None = None, score: int = 0) -> None:
        self.node = node
        self.score = score  # the DynamicResources plugin's score of a node that passes
        # The scheduler's status of the node and the plugin that decided it (Pods only).
        self.scheduler = scheduler
        # "allocated" | "unschedulable" | "error" | "timeout" (the per-node timeout stopped the
        # search: unschedulable, as the scheduler has it) | "not-evaluated" (the run's budget
        # was spent before or during this node's search)
        self.status = status
        self.error = error
        # None when the node was not searched (the run's budget was spent, or a claim of the pod
        # is already allocated for other nodes), or searched in another process
        self.outcome = outcome
        self.rendered = rendered  # searched in another process: what the output needs

    @property
    def timed_out(self) -> bool:
        return self.status in ("timeout", "not-evaluated")

    @property
    def allocated(self) -> bool:
        return self.status == "allocated"

    def fallbacks(self, ranks: list[dict[str, int]]) -> int:
        """How far down their firstAvailable lists the allocated claims went (0: every
        request got its first choice). The scheduler scores such nodes lower from 1.35 on."""
        if self.rendered is not None:
            return self.rendered.fallbacks
        if self.outcome is None or not self.outcome.allocations:
            return 0
        total = 0
        for rank, allocation in zip(ranks, self.outcome.allocations, strict=False):
            for entry in (allocation.get("devices") or {}).get("results") or []:
                total += rank.get(str(entry.get("request")), 0)
        return total

    @property
    def progress(self) -> int:
        """Devices found by the deepest partial solution (for ordering near misses)."""
        if self.rendered is not None:
            return self.rendered.progress
        if self.outcome is None or self.outcome.trace is None:
            return -1
        return self.outcome.trace.best.devices


def natural_key(name: str) -> tuple[tuple[int, int, str] | tuple[int, str], ...]:
    """Orders node-2 before node-10.

    A run of digits is ordered by its length without leading zeros, then as text: the order of
    the numbers, without reading them (``int()`` refuses more than 4,300 digits)."""
    return tuple(
        (0, len(part.lstrip("0")), part.lstrip("0")) if part.isdigit() else (1, part)
        for part in re.split(r"(\d+)", name) if part
    )


class UnitResult(Record):
    __slots__ = ("attempt", "nodes", "special", "unit", "verdict")

    def __init__(self, unit: AllocationUnit, nodes: list[NodeResult], attempt: Attempt | None = None) -> None:
        self.unit = unit
        self.nodes = nodes
        self.attempt = attempt  # the scheduler's attempt for a Pod (None for claims of their own)
        self.verdict: Verdict | None = None
        # The extended-resource claim for the selected node, its request mappings and allocation.
        self.special: tuple[dict[str, Any], list[dict[str, str]], dict[str, Any] | None] | None = None
        if attempt is not None:
            self.conclude(attempt)

    def conclude(self, attempt: Attempt) -> None:
        """The scheduler's verdict over the unit's nodes (again after a node was searched anew)."""
        statuses = {n.node: n.scheduler for n in self.nodes if n.scheduler is not None}
        feasible = [n.node for n in self.ordered() if n.allocated]
        scores = {n.node: n.score for n in self.nodes if n.allocated}
        self.verdict = attempt.verdict(statuses, feasible, scores)
        selected = self.verdict.selected
        if selected is not None:
            made = attempt.special_claim(selected)
            if made is not None:
                chosen = next((n for n in self.nodes if n.node == selected), None)
                allocation = None
                if chosen is not None and chosen.outcome is not None and chosen.outcome.allocations:
                    allocation = chosen.outcome.allocations[-1]
                self.special = (made[0], made[1], allocation)

    @property
    def feasible(self) -> list[NodeResult]:
        return [n for n in self.nodes if n.allocated]

    @property
    def schedulable(self) -> bool:
        """A Pod: the scheduler would place it (no error, a node fits); claims of their own:
        some node can allocate them."""
        if self.verdict is not None:
            return self.verdict.selected is not None
        return bool(self.feasible)

    def ordered(self) -> list[NodeResult]:
        """Feasible nodes first (those where firstAvailable requests got more preferred
        subrequests before the others), then the nearest misses, then by name."""
        ranks = _subrequest_ranks(self.unit.claims)
        return sorted(
            self.nodes,
            key=lambda n: (not n.allocated, n.fallbacks(ranks), -n.progress, natural_key(n.node)),
        )


class Explanation(Record):
    __slots__ = ("implementation", "notes", "release", "units", "workloads")

    def __init__(self, release: str, implementation: str, units: list[UnitResult],
                 notes: list[str] | None = None, workloads: list[WorkloadResult] | None = None) -> None:
        self.release = release
        self.implementation = implementation
        self.units = units
        self.notes = [] if notes is None else notes
        self.workloads = [] if workloads is None else workloads  # placed replica by replica

    @property
    def satisfiable(self) -> bool:
        return all(u.schedulable for u in self.units) and all(w.satisfied for w in self.workloads)


def _nodes(workspace: Workspace, names: tuple[str, ...]) -> list[NodeInfo]:
    from dractl.allocator import NodeInfo

    known = {name: NodeInfo.from_object(obj) for name, obj in sorted(workspace.nodes.items())}
    for slice_ in workspace.slices:
        node_name = slice_.get(("spec", "nodeName"))
        if isinstance(node_name, str) and node_name and node_name not in known:
            known[node_name] = NodeInfo(node_name)
    if names:
        missing = [n for n in names if n not in known]
        if missing and known:
            raise InputError(
                f"node {', '.join(missing)} is not in the input (no Node object and no "
                f"ResourceSlice for it); known nodes: {', '.join(sorted(known)[:10])}"
            )
        return [known.get(n) or NodeInfo(n) for n in names]
    if not known:
        raise InputError(
            "no nodes in the input: add Node objects (kubectl get nodes -o yaml) or name one "
            "with --node"
        )
    return [known[n] for n in sorted(known)]


def explain(workspace: Workspace, settings: ExplainSettings) -> Explanation:
    from dractl.allocator import Allocator, Inventory

    features = settings.features
    skipped = _unserved_objects(workspace)
    notes: list[str] = []
    replica = replica_named(workspace, settings.pod) if settings.pod else None
    claims, focus_option = settings.claims, "--pod"
    if settings.pod is None or replica is not None:
        claims, named = _replica_claims(workspace, claims)
        if replica is None:
            replica, focus_option = named, "--claim"
        elif named is not None and (named[0] is not replica[0] or named[1] != replica[1]):
            raise InputError(
                f"--claim names a claim of {named[0].qualified_name} replica {named[1]}, not of --pod {settings.pod}"
            )
    mapping, conflicts = extended_mapping(workspace, features)
    wanted_pod = None if settings.pod is None else (settings.pod if "/" in settings.pod else f"default/{settings.pod}")

    def scheduled(obj: ApiObject) -> bool:
        # The Pod named by --pod is explained whatever it asks for; others when a DeviceClass
        # serves an extended resource they ask for.
        return (obj.kind == "Pod" and obj.qualified_name == wanted_pod) or requests_extended_resource(obj, mapping)

    if replica is None:
        units = plan(workspace, claims, notes, pod=settings.pod, scheduled=scheduled, lenient=settings.pod is not None)
    else:
        # --pod names a replica of a workload (or --claim its claim): that workload, up to that replica.
        units = [u for u in plan(workspace, claims, notes, scheduled=scheduled) if u.pod is replica[0]]
    for conflict in conflicts:
        notes.append(str(conflict))
    if not units:
        raise InputError(
            "nothing to explain: the input has no unallocated ResourceClaim, "
            "ResourceClaimTemplate, or Pod/workload with resourceClaims"
            + (f"; {skipped}" if skipped else "")
        )
    missing_classes = sorted(
        {
            name
            for unit in units
            for claim in unit.claims
            for name in _class_names(claim.data)
            if name not in workspace.device_classes
        }
    )
    if missing_classes:
        notes.append(
            f"DeviceClass {', '.join(missing_classes)} is not in the input: "
            "add it (kubectl get deviceclasses -o yaml)"
        )
    if skipped:
        notes.append(skipped)
    notes.extend(_rejected_by_apiserver(workspace, units, features))
    rules = sorted(
        {
            obj.qualified_name or obj.name or "?"
            for obj in workspace.all
            if obj.group == GROUP and obj.kind == "DeviceTaintRule"
        }
    )
    if rules and not device_taint_rules_enabled(features):
        gate = "DRADeviceTaints" if features.release == "1.34" else "DRADeviceTaintRules"
        notes.append(
            f"DeviceTaintRule {', '.join(rules)} ignored: the scheduler applies DeviceTaintRules "
            f"only with {gate}, which is off in Kubernetes {features.release} "
            f"(--feature-gates {gate}=true)"
        )
    inventory = Inventory.from_objects(
        allocator_objects(workspace, features),
        consumable_capacity=features.enabled("DRAConsumableCapacity"),
        taint_rule_cel=taint_rule_selectors(features),
    )
    compiler = None
    if settings.cel_engine is not None:
        from dractl.cel import compile_selector

        compiler = functools.partial(compile_selector, release=features.release, gates=features.gates,
                                     purpose="stored", engine=settings.cel_engine)
    allocator = Allocator(inventory, release=features.release, gates=features.gates,  # type: ignore[arg-type]
                          compiler=compiler)
    nodes = _nodes(workspace, settings.nodes)
    run_deadline = None if settings.run_timeout is None else time.monotonic() + settings.run_timeout
    for unit in units:
        if unit.pod is not None:
            # An affinity the scheduler cannot parse (the apiserver rejects it) is bad input.
            pod_node_affinity(unit.pod)
    cluster = Cluster(workspace, nodes, features, settings.scheduler_profiles) if any(
        u.pod is not None for u in units) else None
    # By the unit's id, with the unit kept alive beside its attempt: a workload's replica units
    # come and go, and a new one could otherwise take a freed one's id.
    attempts: dict[int, tuple[AllocationUnit, Attempt]] = {}
    tracing: dict[int, bool] = {}
    placed_pods: dict[str, list[Any]] = {}  # node -> the replicas placed there so far

    def attempt_for(unit: AllocationUnit, trace: bool) -> Attempt:
        tracing[id(unit)] = trace  # a workload's replicas are tried without a trace first
        known = attempts.get(id(unit))
        attempt = known[1] if known is not None and known[0] is unit else None
        if attempt is None:
            assert cluster is not None

            def search(node: NodeInfo, claims: list[dict[str, Any]]) -> Outcome:
                return _allocate(allocator, node, claims, settings, run_deadline, tracing[id(unit)],
                                 attempt.filter_timeout)

            attempt = Attempt(cluster, unit, search, placed_pods)
            attempts[id(unit)] = (unit, attempt)
            for note in attempt.notes:
                if note not in notes:
                    notes.append(note)
        return attempt

    def evaluate(unit: AllocationUnit, nodes: Sequence[NodeInfo], trace: bool = True) -> list[NodeResult]:
        if unit.pod is not None:
            attempt = attempt_for(unit, trace)
            if not attempt.runs:
                return []
            return [_scheduled(attempt, node, settings, run_deadline) for node in nodes]
        return [_search(allocator, node, unit, settings, run_deadline, trace) for node in nodes]

    def on_placed(unit: AllocationUnit, node: str) -> None:
        # A placed replica holds its node's ports, resources and a pod slot for the next ones.
        known = attempts.get(id(unit))
        if known is not None and known[0] is unit:
            attempt = known[1]
            manifest = {"metadata": dict(attempt.pod.metadata), "spec": attempt.pod.spec}
            placed_pods.setdefault(node, []).append(manifest)

    results = []
    workloads = []
    for unit in units:
        workload = workload_for(unit, settings.replicas, nodes, notes, replica[1] if replica else None, focus_option)
        if workload is not None:
            workloads.append(place(workload, allocator, nodes, evaluate, settings.placement, on_placed))
            explained = workloads[-1].explained
            if explained is not None and explained.unit.pod is not None:
                explained.attempt = attempt_for(explained.unit, True)
                explained.conclude(explained.attempt)
            continue
        attempt = attempt_for(unit, True) if unit.pod is not None else None
        if _forks(settings, nodes) and (attempt is None or attempt.runs):
            result = UnitResult(unit, _evaluate_forked(evaluate, unit, nodes, settings), attempt)
            selected = result.verdict.selected if result.verdict is not None else None
            if attempt is not None and result.special is not None and result.special[2] is None and selected:
                # The selected node was searched in another process: search it again here for
                # the extended-resource claim's allocation.
                (again,) = evaluate(unit, [n for n in nodes if n.name == selected])
                result.nodes = [again if n.node == selected else n for n in result.nodes]
                result.conclude(attempt)
            results.append(result)
        else:
            results.append(UnitResult(unit, evaluate(unit, nodes), attempt))
    return Explanation(features.release, str(allocator.implementation), results, notes, workloads)


# Fewer nodes are searched faster in one process than forking and rendering apart cost.
FORK_MIN_NODES = 200


def _forks(settings: ExplainSettings, nodes: Sequence[NodeInfo]) -> bool:
    """Whether the nodes are searched in several processes: not with a budget for the whole
    run (which nodes it leaves unsearched would depend on how the work was shared)."""
    from dractl.forking import can_fork

    return (
        settings.jobs > 1 and len(nodes) >= max(FORK_MIN_NODES, 2) and settings.run_timeout is None
        and settings.output in ("text", "json") and can_fork()
    )


def _evaluate_forked(evaluate: Evaluate, unit: AllocationUnit, nodes: Sequence[NodeInfo],
                     settings: ExplainSettings) -> list[NodeResult]:
    """``evaluate(unit, nodes)`` with contiguous parts of the nodes searched in forked children,
    which send back each node rendered for the output (:class:`Rendered`); the first part is
    searched here meanwhile. The first node is searched before forking, so that the selectors
    are compiled (and the CEL engine loaded) once. A child that fails leaves its part to this
    process."""
    from dractl.forking import NO_ANSWER, fork, processes

    parts = _parts(len(nodes), processes(settings.jobs, len(nodes), FORK_MIN_NODES // 2))
    results = evaluate(unit, nodes[:1])
    children = []
    for start, end in parts[1:]:
        part = nodes[start:end]
        children.append((fork(lambda part=part: _rendered(evaluate(unit, part), unit, settings)), part))
    results += evaluate(unit, nodes[1 : parts[0][1]])
    # This part rendered too, while the children still work (their parts take as long, and
    # rendering them takes place there).
    for result, (*_, fallbacks, progress, reason, kinds, data, text, _verdict, _score) in zip(
        results, _rendered(results, unit, settings), strict=True
    ):
        result.rendered = Rendered(fallbacks, progress, reason, frozenset(kinds), data, text)
    for child, part in children:
        answer = NO_ANSWER if child is None else child.answer()
        if answer is NO_ANSWER or not isinstance(answer, list) or len(answer) != len(part):
            results += evaluate(unit, part)
            continue
        for node, status, error, fallbacks, progress, reason, kinds, data, text, verdict, score in answer:
            rendered = Rendered(fallbacks, progress, reason, frozenset(kinds), data, text)
            results.append(NodeResult(node, status, error, None, rendered, _verdict_from(verdict), score))
    return results


def _parts(count: int, jobs: int) -> list[tuple[int, int]]:
    """``jobs`` contiguous ranges of about equal length covering ``range(count)``."""
    size, extra = divmod(count, jobs)
    bounds, start = [], 0
    for index in range(jobs):
        end = start + size + (1 if index < extra else 0)
        if end > start:
            bounds.append((start, end))
        start = end
    return bounds


def _rendered(results: list[NodeResult], unit: AllocationUnit, settings: ExplainSettings) -> list[Any]:
    """The nodes of one part as plain data: what :class:`Rendered` holds, for the output."""
    from dractl.explain.render import (
        blocker_kinds,
        detail_candidates,
        node_data,
        node_text,
        short_reason,
    )

    unit_result = UnitResult(unit, results)
    ranks = _subrequest_ranks(unit.claims)
    text = settings.output == "text"
    with_text: set[int] = set()
    if text and not settings.verbose:
        with_text = {id(result) for result in detail_candidates(unit_result.ordered())}
    out = []
    for result in results:
        data = None if text else node_data(result, unit_result, settings.verbose)
        lines = (list(node_text(result, unit_result, settings.verbose))
                 if text and (settings.verbose or id(result) in with_text) else None)
        out.append((result.node, result.status, result.error, result.fallbacks(ranks), result.progress,
                    short_reason(result), sorted(blocker_kinds(result)), data, lines, _verdict_data(result.scheduler),
                    result.score))
    return out


def _verdict_data(verdict: NodeVerdict | None) -> tuple[str, str | None, tuple[str, ...], str | None, str] | None:
    """A node's scheduler status as plain data, to come back from a forked process."""
    if verdict is None:
        return None
    status = verdict.status
    return (status.code.value, status.plugin, tuple(status.reasons), status.detail, verdict.phase)


def _verdict_from(data: Any) -> NodeVerdict | None:
    if data is None:
        return None
    from dractl.scheduler.status import Status

    code, plugin, reasons, detail, phase = data
    return NodeVerdict(Status(Code(code), tuple(reasons), plugin, detail), phase)


def _replica_claims(
    workspace: Workspace, selectors: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[ApiObject, int] | None]:
    """`--claim` selectors with those naming the claim of one replica of a workload
    (``<workload>-<n>-<claim>``) turned into the claim of the workload's unit, and that replica,
    which is explained as `--pod <workload>-<n>` would."""
    out: list[str] = []
    replica: tuple[ApiObject, int] | None = None
    for selector in selectors:
        found = replica_claim_named(workspace, selector)
        if found is None:
            out.append(selector)
            continue
        obj, index, claim = found
        if replica is not None and (replica[0] is not obj or replica[1] != index):
            raise InputError(
                f"--claim names claims of two replicas ({replica[0].qualified_name} replica {replica[1]}, "
                f"{obj.qualified_name} replica {index}): name the claims of one replica"
            )
        replica = (obj, index)
        out.append(claim)
    return tuple(out), replica


def _allocate(allocator: Allocator, node: NodeInfo, claims: list[dict[str, Any]], settings: ExplainSettings,
              run_deadline: float | None, trace: bool, filter_timeout: float | None = None) -> Outcome:
    """The allocator's search on one node, stopped by the per-node timeout (the scheduler
    configuration's filterTimeout where it sets one, 0 for none; else --timeout) or the run's
    budget."""
    timeout = settings.timeout if filter_timeout is None else (filter_timeout if filter_timeout > 0 else float("inf"))
    node_deadline = time.monotonic() + timeout
    deadline = node_deadline if run_deadline is None else min(node_deadline, run_deadline)
    return allocator.allocate(node, claims, trace=trace, deadline=deadline, timeout=None)


def _scheduled(attempt: Attempt, node: NodeInfo, settings: ExplainSettings, run_deadline: float | None) -> NodeResult:
    """One node as the scheduler's Filter plugins see it for the attempt's Pod."""
    if run_deadline is not None and time.monotonic() >= run_deadline:
        return NodeResult(node.name, "not-evaluated", _run_budget_spent(settings), None)
    verdict = attempt.filter(node)
    status = verdict.status
    outcome = status.outcome
    if status.success:
        score = attempt.dra_score(outcome.allocations) if outcome is not None and outcome.allocations else 0
        return NodeResult(node.name, "allocated", None, outcome, scheduler=verdict, score=score)
    if outcome is not None and outcome.status == "timeout":
        spent = run_deadline is not None and time.monotonic() >= run_deadline
        if spent:
            return NodeResult(node.name, "not-evaluated", _run_budget_spent(settings), outcome)
        return NodeResult(node.name, "timeout", _timed_out(settings), outcome, scheduler=verdict)
    if status.code is Code.ERROR:
        return NodeResult(node.name, "error", status.message, outcome, scheduler=verdict)
    if status.plugin == "DynamicResources" and outcome is not None and outcome.status == "unschedulable":
        error = None  # the allocator's trace says why
    elif status.plugin == "DynamicResources" and outcome is not None and outcome.error:
        error = outcome.error
    else:
        error = f"{status.plugin}: {status.message}" + (f" ({status.detail})" if status.detail else "")
    return NodeResult(node.name, "unschedulable", error, outcome, scheduler=verdict)


def _timed_out(settings: ExplainSettings) -> str:
    return (f"timed out trying to allocate devices (the search stopped after --timeout {settings.timeout:g}s; "
            "the explanation covers what it saw until then)")


def _search(allocator: Allocator, node: NodeInfo, unit: AllocationUnit, settings: ExplainSettings,
            run_deadline: float | None, trace: bool = True) -> NodeResult:
    """One node's Filter: the search, stopped by the per-node timeout or the run's budget."""
    if run_deadline is not None and time.monotonic() >= run_deadline:
        return NodeResult(node.name, "not-evaluated", _run_budget_spent(settings), None)
    node_deadline = time.monotonic() + settings.timeout
    deadline = node_deadline if run_deadline is None else min(node_deadline, run_deadline)
    outcome: Outcome = allocator.allocate(
        node, [c.data for c in unit.claims], trace=trace, deadline=deadline, timeout=None
    )
    if outcome.status != "timeout":
        return NodeResult(node.name, outcome.status, outcome.error, outcome)
    if deadline < node_deadline:
        return NodeResult(node.name, "not-evaluated", _run_budget_spent(settings), outcome)
    # The scheduler's Filter turns the allocator's "filter operation aborted: context deadline
    # exceeded" into this reason, and the node is unschedulable.
    return NodeResult(
        node.name,
        "timeout",
        f"timed out trying to allocate devices (the search stopped after --timeout {settings.timeout:g}s; "
        "the explanation covers what it saw until then)",
        outcome,
    )


def _run_budget_spent(settings: ExplainSettings) -> str:
    return f"not evaluated: the run's time limit of {settings.run_timeout:g}s (--run-timeout) was reached"


def _rejected_by_apiserver(
    workspace: Workspace, units: list[AllocationUnit], features: Features
) -> list[str]:
    """Notes on the claims, templates and classes explained that the apiserver would refuse.

    The scheduler never sees such an object, and the allocator's answer for it (often an
    error such as "CEL expression empty") says little about the mistake; the note names the
    first problem with its position. Slices are left to `dractl lint`: a dump holds many.
    """
    from dractl.api.defaults import apply_defaults
    from dractl.api.validation import check_create

    sources: dict[int, ApiObject] = {}
    for unit in units:
        for claim in unit.claims:
            sources.setdefault(id(claim.source), claim.source)
            for name in _class_names(claim.data):
                device_class = workspace.device_classes.get(name)
                if device_class is not None:
                    sources.setdefault(id(device_class), device_class)
    notes = []
    for obj in sources.values():
        if not obj.dra:
            continue
        errors = check_create(obj.kind, apply_defaults(obj.kind, obj.data, obj.version), features).errors
        if not errors:
            continue
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        notes.append(
            f"{obj.position(errors[0].where)}: {obj.kind} {obj.qualified_name}: the apiserver would "
            f"reject it: {errors[0]}{more}; dractl lint shows every problem"
        )
    return notes


def _subrequest_ranks(claims: list[ClaimInput]) -> list[dict[str, int]]:
    """Per claim, `request/subrequest` -> the subrequest's position in its firstAvailable list."""
    out = []
    for claim in claims:
        spec = claim.data.get("spec")
        devices = spec.get("devices") if isinstance(spec, dict) else None
        requests = devices.get("requests") if isinstance(devices, dict) else None
        ranks: dict[str, int] = {}
        for request in requests if isinstance(requests, list) else []:
            if not isinstance(request, dict) or not isinstance(request.get("firstAvailable"), list):
                continue
            for index, sub in enumerate(request["firstAvailable"]):
                if isinstance(sub, dict):
                    ranks[f"{request.get('name')}/{sub.get('name')}"] = index
        out.append(ranks)
    return out


def _unserved_objects(workspace: Workspace) -> str | None:
    """A note on resource.k8s.io objects in versions that no supported release serves.

    The apiserver of 1.34 and later knows nothing of them (`dractl lint` says what to do), so
    the scheduler never sees them either: explain leaves them out, and says so.
    """
    skipped = [
        obj
        for obj in workspace.all
        if obj.group == GROUP
        and obj.kind in KINDS
        and not obj.dra
    ]
    if not skipped:
        return None
    named = ", ".join(
        f"{obj.kind} {obj.qualified_name or obj.name} ({obj.api_version})" for obj in skipped[:5]
    )
    more = f" and {len(skipped) - 5} more" if len(skipped) > 5 else ""
    return (
        "left out (an API version that Kubernetes 1.34 and later do not serve; dractl lint says "
        f"how to update them): {named}{more}"
    )


def _class_names(claim: dict[str, Any]) -> list[str]:
    out = []
    spec = claim.get("spec")
    devices = spec.get("devices") if isinstance(spec, dict) else None
    requests = devices.get("requests") if isinstance(devices, dict) else None
    for request in requests if isinstance(requests, list) else []:
        if not isinstance(request, dict):
            continue
        exactly = request.get("exactly")
        if isinstance(exactly, dict) and exactly.get("deviceClassName"):
            out.append(str(exactly["deviceClassName"]))
        for sub in request.get("firstAvailable") or []:
            if isinstance(sub, dict) and sub.get("deviceClassName"):
                out.append(str(sub["deviceClassName"]))
    return out
