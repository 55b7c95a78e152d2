"""Workloads as the Pods they run, and each Pod's claims.

The resource-claim controller makes one claim per Pod from each template the pod template
names (``<pod>-<claim>``). A claim the template names directly (``resourceClaimName``) is one
claim for every replica: allocated with the first and then in use, on the nodes its allocation
allows.

How many Pods: ``spec.replicas`` of a Deployment, ReplicaSet or StatefulSet (default 1);
``spec.parallelism`` of a Job (default 1, at most ``completions``) or of a CronJob's job
template; one per node that a DaemonSet's node selector and required node affinity match.
Replica ``n`` is the pod ``<workload>-<n>`` (a StatefulSet's own names; the other controllers
add random suffixes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from dractl.allocator.inputs import (
    POD_CLAIM_NAME_ANNOTATION,
    AllocationUnit,
    ClaimInput,
    generated_claim_name,
    pod_node_affinity,
    pod_spec,
)
from dractl.errors import InputError
from dractl.records import Record

if TYPE_CHECKING:
    from dractl.allocator.nodes import NodeInfo
    from dractl.api.model import ApiObject
    from dractl.api.workspace import Workspace

WORKLOAD_KINDS = {
    ("apps", "Deployment"),
    ("apps", "ReplicaSet"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("batch", "Job"),
    ("batch", "CronJob"),
}

# evaluate(unit, nodes, trace) -> one NodeResult per node, in node order


class Workload(Record):
    """A workload whose Pods are placed one after another."""

    __slots__ = ("count", "daemon_nodes", "focus", "source", "unit")

    def __init__(
        self,
        unit: AllocationUnit,
        count: int | None,
        source: str,
        daemon_nodes: list[NodeInfo] | None = None,
        focus: bool = False,
    ) -> None:
        self.unit = unit  # its pod template, as `plan` made it (claims named after the workload)
        self.count = count  # Pods to place; None: until one does not fit (--replicas max)
        self.source = source  # where the count comes from ("spec.replicas", "--replicas", ...)
        self.daemon_nodes = daemon_nodes  # DaemonSet: the node of each replica
        self.focus = focus  # --pod names the last replica: explained on every node, fit or not

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
    affinity = pod_node_affinity(obj)
    return [node for node in nodes if affinity is None or affinity.matches(node)]


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


def replica_claim_named(workspace: Workspace, selector: str) -> tuple[ApiObject, int, str] | None:
    """The workload, the replica index and the name `plan` gives the claim (``NS/<workload>-<claim>``)
    that `--claim [NS/]NAME` means when NAME is no claim of the input but the one the
    resource-claim controller makes from a template for replica n: ``<workload>-<n>-<claim>``."""
    wanted = selector if "/" in selector else f"default/{selector}"
    if wanted in workspace.claims:
        return None
    namespace, _, name = wanted.partition("/")
    for obj in workspace.checked:
        if (obj.group, obj.kind) not in WORKLOAD_KINDS or not obj.name or not name.startswith(obj.name + "-"):
            continue
        if (obj.effective_namespace or "default") != namespace:
            continue
        index = name[len(obj.name) + 1:].partition("-")[0]
        if not index.isdigit() or str(int(index)) != index:
            continue
        spec, _ = pod_spec(obj)
        for entry in (spec or {}).get("resourceClaims") or []:
            if not isinstance(entry, dict) or not entry.get("resourceClaimTemplateName"):
                continue
            claim = str(entry.get("name"))
            if generated_claim_name(f"{obj.name}-{index}", claim) == name:
                return obj, int(index), f"{namespace}/{generated_claim_name(obj.name, claim)}"
    return None


def workload_for(
    unit: AllocationUnit,
    replicas: int | Literal["max"] | None,
    nodes: Sequence[NodeInfo],
    notes: list[str],
    focus: int | None = None,
    focus_option: str = "--pod",
) -> Workload | None:
    """The unit as a workload placed replica by replica, or None to explain it as one Pod on
    every node (a Pod; a workload of exactly one Pod unless `--replicas` asks for more).
    `focus`: the replica that `focus_option` (--pod, or --claim naming its claim) names, placed
    after the ones before it and explained in full."""
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
            return Workload(unit, focus + 1, focus_option, matching, focus=True)
        return Workload(unit, len(matching), "its node selector", matching)
    if focus is not None:
        if replicas is not None:
            notes.append(f"--replicas does not apply with {focus_option}: replica {focus} of {unit.title} is explained")
        return Workload(unit, focus + 1, focus_option, focus=True)
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
        pod_name=pod,
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
