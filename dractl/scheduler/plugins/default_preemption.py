"""DefaultPreemption (PostFilter): whether evicting Pods of lower priority would let the Pod
fit (``pkg/scheduler/framework/plugins/defaultpreemption``, ``framework/preemption``).

When no node passes Filter, the scheduler looks at every node whose status is Unschedulable
(UnschedulableAndUnresolvable means preemption cannot help there), removes the Pods of lower
``spec.priority`` and runs the Filter plugins again. A node where the Pod then fits is a
candidate: the Pods that must go are found by putting the others back, most important first.
Without a candidate the rejection carries a FitError of its own over the nodes, after
``preemption: ``; with one, upstream evicts the victims, nominates the node and returns an empty
message, and dractl names the node and the victims in ``detail``.

Not modelled: PodDisruptionBudgets (every victim counts as not violating one), extenders,
Pods nominated to a node, and the asynchronous preemption's PreEnqueue gate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dractl.records import Record
from dractl.scheduler.fit_error import fit_error
from dractl.scheduler.objects import NodeState, PodInfo, is_terminal
from dractl.scheduler.plugin import POST_FILTER, CycleState, Plugin
from dractl.scheduler.status import Code, Status, error, unresolvable, unschedulable

PREFIX = "preemption: "
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
NO_NODES = "no nodes available"
# DefaultPreemptionArgs defaults: dry-run preemption on at least this share / number of nodes.
MIN_CANDIDATE_NODES_PERCENTAGE = 10
MIN_CANDIDATE_NODES_ABSOLUTE = 100
_INT32_SHIFT = 2**31  # upstream adds MaxInt32+1 to each priority before summing


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def spec_priority(spec: Mapping[str, Any]) -> int:
    """``corev1helpers.PodPriority``: ``spec.priority``, 0 when unset (the admission plugin
    fills it in from the PriorityClass; a manifest that was never admitted may lack it)."""
    priority = spec.get("priority")
    if isinstance(priority, float) and priority.is_integer():
        return int(priority)  # JSON has one number type: kubectl sends 10.0 as 10
    return priority if isinstance(priority, int) and not isinstance(priority, bool) else 0


def pod_priority(pod: Mapping[str, Any]) -> int:
    """The priority of a Pod manifest (see :func:`spec_priority`)."""
    return spec_priority(_dict(pod.get("spec")))


def _pod_name(pod: Mapping[str, Any]) -> str:
    metadata = _dict(pod.get("metadata"))
    return f"{metadata.get('namespace') or 'default'}/{metadata.get('name') or ''}"


def _start_time(pod: Mapping[str, Any]) -> str:
    status = _dict(pod.get("status"))
    # RFC 3339 times in UTC sort as strings; a Pod not started yet counts as starting now.
    return str(status.get("startTime") or "9999")


def _terminating_by_preemption(pod: Mapping[str, Any]) -> bool:
    """Deleted (``deletionTimestamp``) with condition DisruptionTarget=True, reason
    PreemptionByScheduler: a victim of an earlier preemption still shutting down."""
    if not _dict(pod.get("metadata")).get("deletionTimestamp"):
        return False
    status = _dict(pod.get("status"))
    for condition in status.get("conditions") or []:
        if isinstance(condition, dict) and condition.get("type") == "DisruptionTarget":
            return condition.get("status") == "True" and condition.get("reason") == "PreemptionByScheduler"
    return False


def _aggregate(messages: list[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: one message as is, more in brackets."""
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


class Candidate(Record):
    """A node where the Pod fits once ``victims`` are evicted."""

    __slots__ = ("node", "victims")

    def __init__(self, node: str, victims: tuple[Mapping[str, Any], ...]) -> None:
        self.node = node
        self.victims = victims

    def rank(self) -> tuple[int, int, int]:
        """``pickOneNodeForPreemption``'s criteria after PDB violations (not modelled): the
        lowest highest victim priority, the lowest priority sum, the fewest victims."""
        priorities = [pod_priority(v) for v in self.victims]
        return max(priorities), sum(p + _INT32_SHIFT for p in priorities), len(priorities)


class DefaultPreemption(Plugin):
    name = "DefaultPreemption"
    extension_points = frozenset({POST_FILTER})

    def post_filter(self, cycle: CycleState, pod: PodInfo, statuses: Mapping[str, Status]) -> Status:
        if pod.spec.get("preemptionPolicy") == "Never":
            return unschedulable(PREFIX + NOT_ELIGIBLE_NEVER, detail="the Pod's preemptionPolicy is Never")
        nodes = {node.name: node for node in self.context.nodes}
        waiting_on = self._terminating_victim(pod, statuses, nodes)
        if waiting_on is not None:
            return unschedulable(PREFIX + NOT_ELIGIBLE_TERMINATING,
                                 detail=f"Pod {waiting_on} is still terminating after an earlier preemption")
        all_nodes = len(self.context.nodes) or len(statuses)
        if all_nodes == 0:
            return error(PREFIX + NO_NODES)
        # Nodes without a status of their own (outside a PreFilter result) count as
        # UnschedulableAndUnresolvable, as the scheduler's NodeToStatus map answers for them.
        potential = [nodes[name] for name, status in statuses.items()
                     if status.code is Code.UNSCHEDULABLE and name in nodes]
        candidates, failures = self._dry_run(cycle, pod, potential)
        if candidates:
            best = min(candidates, key=Candidate.rank)  # min() keeps the first of equals
            victims = ", ".join(f"{_pod_name(v)} (priority {pod_priority(v)})" for v in best.victims)
            return Status(Code.SUCCESS, detail=f"preempting {victims} on node {best.node} would make room "
                                               f"for the Pod (priority {spec_priority(pod.spec)})")
        # The scheduler's RunFilterPlugins words a plugin's error as it aborts an attempt.
        errors = [f'running "{s.plugin}" filter plugin: {s.message}' if s.plugin else s.message
                  for s in failures.values() if s.code is Code.ERROR]
        if errors:
            return error(PREFIX + _aggregate(errors))
        text = fit_error(all_nodes, (s.reasons for s in failures.values()), absent=(NOT_HELPFUL,),
                         absent_count=all_nodes - len(failures))
        return unschedulable(PREFIX + text, detail=self._explain(pod, potential, failures))

    def _terminating_victim(self, pod: PodInfo, statuses: Mapping[str, Status],
                            nodes: Mapping[str, NodeState]) -> str | None:
        """A Pod that already preempted others waits for its victims on the nominated node
        (unless that node no longer fits at all)."""
        nominated = str(pod.status.get("nominatedNodeName") or "")
        status = statuses.get(nominated)
        if not nominated or status is None or status.code is Code.UNRESOLVABLE or nominated not in nodes:
            return None
        mine = spec_priority(pod.spec)
        for other in nodes[nominated].pods:
            if pod_priority(other) < mine and _terminating_by_preemption(other):
                return _pod_name(other)
        return None

    def _dry_run(self, cycle: CycleState, pod: PodInfo,
                 potential: Sequence[NodeState]) -> tuple[list[Candidate], dict[str, Status]]:
        """``DryRunPreemption`` over the potential nodes, in order: the candidates found (it
        stops once it has as many as the scheduler would shortlist) and every other node's
        status."""
        wanted = self._candidates_wanted(len(potential))
        candidates: list[Candidate] = []
        failures: dict[str, Status] = {}
        for node in potential:
            victims, status = self._select_victims(cycle, pod, node)
            if status.success and victims:
                candidates.append(Candidate(node.name, victims))
                if len(candidates) >= wanted:
                    break
                continue
            if status.success:
                status = error(f'expected at least one victim pod on node "{node.name}"')
            failures[node.name] = status
        return candidates, failures

    def _candidates_wanted(self, potential: int) -> int:
        percentage = self.args.get("minCandidateNodesPercentage", MIN_CANDIDATE_NODES_PERCENTAGE)
        absolute = self.args.get("minCandidateNodesAbsolute", MIN_CANDIDATE_NODES_ABSOLUTE)
        return min(max(potential * int(percentage) // 100, int(absolute)), potential)

    def _select_victims(self, cycle: CycleState, pod: PodInfo,
                        node: NodeState) -> tuple[tuple[Mapping[str, Any], ...], Status]:
        """``SelectVictimsOnNode``: the fewest lower-priority Pods whose eviction lets the Pod
        pass Filter on the node, or the status that says it would not."""
        mine = spec_priority(pod.spec)
        present = [p for p in node.pods if not is_terminal(p)]
        lower = [p for p in present if pod_priority(p) < mine]
        if not lower:
            return (), unresolvable(NO_VICTIMS)
        kept = [p for p in present if pod_priority(p) >= mine]
        status = self._filter(cycle, pod, node, kept)
        if not status.success:
            return (), status
        # Reprieve the most important first: higher priority, then the longer running.
        victims: list[Mapping[str, Any]] = []
        for candidate in sorted(lower, key=lambda p: (-pod_priority(p), _start_time(p))):
            if self._filter(cycle, pod, node, [*kept, candidate]).success:
                kept.append(candidate)
            else:
                victims.append(candidate)
        return tuple(victims), status

    def _filter(self, cycle: CycleState, pod: PodInfo, node: NodeState, pods: list[Mapping[str, Any]]) -> Status:
        framework = self.context.framework
        if framework is None:
            raise ValueError("DefaultPreemption runs the Filter plugins again: Context.framework must be set")
        trial = CycleState()
        trial.update(cycle)
        trial.skipped = set(cycle.skipped)
        status: Status = framework.filter(trial, pod, NodeState(node.info, node.data, pods))
        return status

    @staticmethod
    def _explain(pod: PodInfo, potential: Sequence[NodeState], failures: Mapping[str, Status]) -> str:
        if not potential:
            return "no node was rejected only as Unschedulable, so evicting Pods cannot help on any node"
        mine = spec_priority(pod.spec)
        lacking = [n.name for n in potential if failures.get(n.name, Status(Code.SUCCESS)).reasons == (NO_VICTIMS,)]
        still = [n.name for n in potential if n.name not in lacking]
        parts = []
        if lacking:
            parts.append(f"no Pod of lower priority than {mine} runs on {', '.join(lacking)}")
        if still:
            parts.append(f"the Pod would still not fit on {', '.join(still)} without the lower-priority Pods")
        return "; ".join(parts)
