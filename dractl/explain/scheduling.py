"""The kube-scheduler's attempt to schedule one Pod, as explain runs it.

:class:`Cluster` holds what every attempt shares (the nodes with the Pods bound to them, the
DeviceClasses and the extended resources they serve, the scheduler's profiles);
:class:`Attempt` is one Pod (or one replica of a workload): PreEnqueue and PreFilter once, then
:meth:`Attempt.filter` per node, and :meth:`Attempt.verdict` over every node's status, as the
scheduler's FailedScheduling event words it. The DynamicResources plugin's Filter calls back into
explain's allocator search (``search``), so that a node's devices are explained as before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dractl.allocator.inputs import AllocationUnit, PodClaimEntry, pod_spec
from dractl.api.releases import Features
from dractl.api.workspace import Workspace
from dractl.records import Record
from dractl.scheduler.config import Profile, build_framework, default_profile, profile_for
from dractl.scheduler.framework import Framework, PreFilterOutcome, Verdict, conclude
from dractl.scheduler.objects import NodeState, PodInfo, is_terminal, with_default_requests
from dractl.scheduler.plugin import Context, CycleState
from dractl.scheduler.plugins.dynamic_resources import DraInputs, DynamicResources
from dractl.scheduler.status import Code, Status

if TYPE_CHECKING:
    from dractl.allocator import NodeInfo, Outcome


class Cluster:
    """What every scheduling attempt of a run reads: nodes (with their Node objects and the
    Pods bound to them), DeviceClasses, claims, the extended resources classes serve, and the
    scheduler's profiles by schedulerName."""

    def __init__(self, workspace: Workspace, nodes: Sequence[NodeInfo], features: Features,
                 profiles: Mapping[str, Profile] | None = None) -> None:
        self.features = features
        self.profiles = dict(profiles) if profiles is not None else {"default-scheduler": default_profile()}
        bound: dict[str, list[Mapping[str, Any]]] = {}
        for obj in workspace.by_kind.get("Pod", []):
            if obj.group != "":
                continue
            node_name = obj.get(("spec", "nodeName"))
            if isinstance(node_name, str) and node_name and not is_terminal(obj.data):
                bound.setdefault(node_name, []).append(
                    {**obj.data, "spec": with_default_requests(obj.data.get("spec") or {})})
        self.bound = bound
        # A node named only by a ResourceSlice is taken as a Node without labels, taints or
        # allocatable (the scheduler would know its Node object; the input does not have it).
        self.nodes = [NodeState(info, workspace.nodes[info.name].data if info.name in workspace.nodes
                                else {"metadata": {"name": info.name}}, bound.get(info.name, [])) for info in nodes]
        self.device_classes = {name: obj.data for name, obj in workspace.device_classes.items()}
        self.extended_resources, self.extended_conflicts = extended_mapping(workspace, features)
        self.claims = [obj.data for obj in workspace.kind("ResourceClaim")]



def requests_extended_resource(obj: Any, mapping: Mapping[str, str]) -> bool:
    """Whether a Pod (or pod template) asks for an extended resource a DeviceClass serves."""
    if not mapping:
        return False
    spec, _ = pod_spec(obj)
    if spec is None:
        return False
    for key in ("containers", "initContainers"):
        for container in spec.get(key) or []:
            resources = container.get("resources") if isinstance(container, dict) else None
            for key in ("requests", "limits"):  # a limit alone is also the request
                asked = resources.get(key) if isinstance(resources, dict) else None
                if isinstance(asked, dict) and any(name in mapping for name in asked):
                    return True
    return False


def extended_mapping(workspace: Workspace, features: Features) -> tuple[dict[str, str], list[str]]:
    """Extended resource name -> the DeviceClass that serves it, and the names two classes map."""
    from dractl.scheduler.extended import map_extended_resources

    mapped = map_extended_resources([obj.data for obj in workspace.device_classes.values()], features)
    return dict(mapped.classes), [conflict.message for conflict in mapped.conflicts]


def pod_info(unit: AllocationUnit) -> PodInfo:
    """The Pod a unit schedules: a Pod as written, or a workload's pod template named as the
    replica's Pod."""
    obj = unit.pod
    assert obj is not None
    if obj.kind == "Pod":
        data = obj.data
        return PodInfo(obj.effective_namespace or "default", obj.name or "", with_default_requests(data.get("spec") or {}),
                       data.get("metadata") or {}, data.get("status") or {}, obj)
    spec, path = pod_spec(obj)
    template = obj.get(path[:-1]) if len(path) > 1 else {}
    metadata = dict((template or {}).get("metadata") or {}) if isinstance(template, dict) else {}
    namespace = obj.effective_namespace or "default"
    name = unit.pod_name or f"{obj.name}-0"
    metadata.update(name=name, namespace=namespace)
    return PodInfo(namespace, name, with_default_requests(spec or {}), metadata, {}, obj)


class NodeVerdict(Record):
    """One node's status and where it came from ("PreFilter" or "Filter")."""

    __slots__ = ("phase", "status")

    def __init__(self, status: Status, phase: str = "Filter") -> None:
        self.status = status
        self.phase = phase


class Attempt:
    """One scheduling attempt of one Pod."""

    def __init__(self, cluster: Cluster, unit: AllocationUnit,
                 search: Callable[[NodeInfo, list[dict[str, Any]]], Outcome], extra_pods: Mapping[str, list[Any]] | None = None) -> None:
        self.cluster = cluster
        self.unit = unit
        self.pod = pod_info(unit)
        self.notes: list[str] = []
        profile = profile_for(cluster.profiles, self.pod.scheduler_name)
        self.profile = profile
        entries = unit.entries or [PodClaimEntry(c.name, c, made=True) for c in [*unit.claims, *unit.preallocated]]
        self.dra = DraInputs(entries, cluster.claims, cluster.device_classes, search)
        extra = extra_pods or {}
        own = (self.pod.namespace, self.pod.name)
        nodes = []
        for node in cluster.nodes:
            # Only the node the Pod itself is bound to, and nodes with replicas placed on them,
            # differ from the cluster's (the Pod does not compete with itself).
            if node.name != self.pod.node_name and not extra.get(node.name):
                nodes.append(node)
                continue
            pods = [p for p in node.pods if _identity(p) != own] + list(extra.get(node.name, ()))
            nodes.append(NodeState(node.info, node.data, pods))
        self.nodes = {node.name: node for node in nodes}
        self.context = Context(cluster.features, nodes, dra=self.dra, extended_resources=cluster.extended_resources)
        self.framework: Framework | None = build_framework(profile, self.context) if profile is not None else None
        self.cycle = CycleState()
        self.pre_enqueue: Status | None = None
        self.pre_filter = PreFilterOutcome(Status(Code.SUCCESS))
        if self.framework is None:
            self.notes.append(f"Pod {self.pod.qualified_name} names schedulerName {self.pod.scheduler_name}, "
                              "which no profile of the scheduler configuration serves: kube-scheduler leaves it alone")
            return
        for plugin in self.framework.all_plugins:
            if not plugin.evaluated:
                note = plugin.note(self.pod)
                if note:
                    self.notes.append(note)
        if any(p.name == "NodeResourcesFit" for p in self.framework.plugins("Filter")) and _requests_any(self.pod):
            unknown = [n.name for n in nodes if not n.allocatable_known]
            if unknown:
                shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
                self.notes.append(
                    f"node {shown}: no status.allocatable in the input (kubectl get nodes -o yaml has it): "
                    "NodeResourcesFit is not evaluated there")
        self.pre_enqueue = self.framework.pre_enqueue(self.pod)
        if self.pre_enqueue is None:
            self.pre_filter = self.framework.pre_filter(self.cycle, self.pod)

    @property
    def runs(self) -> bool:
        """Whether nodes are evaluated at all (the Pod entered the scheduling cycle)."""
        return self.framework is not None and self.pre_enqueue is None

    def filter(self, node: NodeInfo) -> NodeVerdict:
        """The node's status: PreFilter's where PreFilter decided, else the Filter plugins'."""
        assert self.framework is not None
        pre = self.pre_filter
        if not pre.status.success and pre.status.code is not Code.SKIP:
            return NodeVerdict(pre.status, "PreFilter")
        if pre.nodes is not None and node.name not in pre.nodes:
            assert pre.absent is not None
            return NodeVerdict(pre.absent, "PreFilter")
        state = self.nodes.get(node.name) or NodeState(node)
        return NodeVerdict(self.framework.filter(self.cycle, self.pod, state))

    @property
    def filter_timeout(self) -> float | None:
        """The profile's DynamicResources filterTimeout (seconds; 0: none), if configured."""
        plugin = self.dra_plugin()
        return None if plugin is None else plugin.filter_timeout

    def dra_plugin(self) -> DynamicResources | None:
        if self.framework is None:
            return None
        return next((p for p in self.framework.all_plugins if isinstance(p, DynamicResources)), None)

    def verdict(self, statuses: Mapping[str, NodeVerdict], feasible: Sequence[str],
                scores: Mapping[str, int] | None = None) -> Verdict:
        """The attempt's outcome; among ``feasible`` nodes (explain's order) the one with the
        highest DynamicResources score is selected (the only score dractl computes)."""
        if self.framework is None:
            return Verdict()
        if self.pre_enqueue is not None:
            return Verdict(pre_enqueue=self.pre_enqueue)
        filtered = {name: v.status for name, v in statuses.items() if v.phase == "Filter"}
        if not self.pre_filter.status.success and self.pre_filter.status.code is not Code.SKIP:
            filtered = {name: v.status for name, v in statuses.items()}
        ranked = list(feasible)
        if scores:
            ranked.sort(key=lambda name: -scores.get(name, 0))
        verdict = conclude(self.framework, self.cycle, self.pod, self.pre_filter, filtered,
                           len(self.cluster.nodes), ranked)
        return verdict

    def dra_score(self, allocations: Sequence[Mapping[str, Any]] | None) -> int:
        plugin = self.dra_plugin()
        return 0 if plugin is None else plugin.score(self.cycle, allocations)

    def special_claim(self, node: str) -> tuple[dict[str, Any], list[dict[str, str]]] | None:
        plugin = self.dra_plugin()
        state = self.nodes.get(node)
        if plugin is None or state is None:
            return None
        return plugin.extended_claim(self.cycle, self.pod, state)


def _identity(pod: Mapping[str, Any]) -> tuple[str, str]:
    metadata = pod.get("metadata") if isinstance(pod.get("metadata"), dict) else {}
    return (str(metadata.get("namespace") or "default"), str(metadata.get("name") or ""))


def _requests_any(pod: PodInfo) -> bool:
    """Whether the Pod asks for any resource (then what a node can hold matters)."""
    for container in [*pod.containers, *pod.init_containers]:
        resources = container.get("resources")
        if isinstance(resources, dict) and (resources.get("requests") or resources.get("limits")):
            return True
    pod_level = pod.spec.get("resources")
    return bool(pod.spec.get("overhead")) or (isinstance(pod_level, dict) and bool(pod_level.get("requests")))
