"""From the objects a user passes to the claims the scheduler would allocate together.

A Pod (or a workload's pod template) is one unit: its claims are allocated together on a node,
as the scheduler does. A ``resourceClaimTemplateName`` becomes a claim as the resource-claim
controller would create it (named ``<pod>-<claim>`` here, shortened as the controller shortens
it: :func:`generated_claim_name`; the controller then adds five random characters).
Claims and templates that no pod references form one more unit, allocated together in input
order. Claims with ``status.allocation`` are not allocated again: their devices are in use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from dractl.api.core_schemas import DEVICE_TAINT_RULE_VERSIONS
from dractl.api.defaults import apply_defaults
from dractl.api.model import ApiObject
from dractl.api.releases import Features
from dractl.api.versions import GROUP
from dractl.api.workspace import Workspace
from dractl.errors import InputError
from dractl.records import Record

if TYPE_CHECKING:
    from dractl.allocator.nodes import NodeInfo, NodeSelector

POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"


class ClaimInput(Record):
    """A claim to allocate: v1-shaped, defaulted ResourceClaim data."""

    __slots__ = ("data", "name", "namespace", "source", "template")

    def __init__(
        self,
        namespace: str,
        name: str,
        data: dict[str, Any],
        source: ApiObject,
        template: str | None = None,
    ) -> None:
        self.namespace = namespace
        self.name = name
        self.data = data
        self.source = source  # the claim, or the template it was made from
        self.template = template  # ``ns/name`` of the template it was made from

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def allocated(self) -> bool:
        status = self.data.get("status")
        return isinstance(status, dict) and isinstance(status.get("allocation"), dict)


class AllocationUnit(Record):
    """Claims the scheduler allocates together (one pod's claims)."""

    __slots__ = ("claims", "entries", "pod", "pod_name", "preallocated", "title")

    def __init__(
        self,
        title: str,
        claims: list[ClaimInput],
        pod: ApiObject | None = None,
        preallocated: list[ClaimInput] | None = None,
        entries: list[PodClaimEntry] | None = None,
        pod_name: str | None = None,
    ) -> None:
        self.title = title
        self.pod_name = pod_name  # a workload's replica: the name of its Pod
        self.claims = claims
        self.pod = pod
        self.preallocated = [] if preallocated is None else preallocated  # referenced, already allocated
        # A Pod's spec.resourceClaims as the scheduler resolves them, in order (Pods only).
        self.entries = [] if entries is None else entries


class PodClaimEntry(Record):
    """One entry of a Pod's ``spec.resourceClaims``: the claim it resolves to, or why it does
    not (the scheduler's PreEnqueue text), or neither (the controller decided that no claim is
    needed). ``made``: dractl made the claim from its template, as the controller would."""

    __slots__ = ("claim", "from_template", "made", "name", "problem")

    def __init__(self, name: str, claim: ClaimInput | None = None, problem: str | None = None,
                 from_template: bool = False, made: bool = False) -> None:
        self.name = name
        self.claim = claim
        self.problem = problem
        self.from_template = from_template
        self.made = made


def pod_spec(obj: ApiObject) -> tuple[dict[str, Any] | None, tuple[Any, ...]]:
    """The pod spec of a Pod or workload and its path in the object."""
    if obj.group not in ("", "apps", "batch"):
        return None, ()
    if obj.kind == "Pod":
        path: tuple[Any, ...] = ("spec",)
    elif obj.kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"):
        path = ("spec", "template", "spec")
    elif obj.kind == "CronJob":
        path = ("spec", "jobTemplate", "spec", "template", "spec")
    else:
        return None, ()
    spec = obj.get(path)
    return (spec if isinstance(spec, dict) else None), path


class PodNodeAffinity(Record):
    """The nodes a Pod may run on, as the scheduler's NodeAffinity filter decides before the
    DRA filter runs: every label of ``nodeSelector``, and one term of the required node affinity."""

    __slots__ = ("labels", "owner", "required")
    __hash__ = Record.value_hash

    def __init__(self, owner: str, labels: dict[str, str], required: NodeSelector | None) -> None:
        self.owner = owner  # "the Pod's" or "the pod template's"
        self.labels = labels
        self.required = required

    def matches(self, node: NodeInfo) -> bool:
        return self.excludes(node) is None

    def excludes(self, node: NodeInfo) -> str | None:
        """Why the node is not one the Pod may run on, or None."""
        for key, value in self.labels.items():
            have = node.labels.get(key)
            if have != value:
                has = f"the node has {key}={have}" if have is not None else f"the node has no label {key}"
                return f"excluded by {self.owner} nodeSelector ({key}={value}: {has})"
        if self.required is not None and not self.required.matches(node):
            return f"excluded by {self.owner} required node affinity (no nodeSelectorTerm matches the node)"
        return None


def pod_node_affinity(obj: ApiObject) -> PodNodeAffinity | None:
    """The nodeSelector and required node affinity of a Pod or a workload's pod template; None
    when they allow every node. Raises :class:`InputError` for an affinity the scheduler cannot
    parse."""
    from dractl.allocator.nodes import NodeSelectorError, parse_node_selector

    spec, path = pod_spec(obj)
    if spec is None:
        return None
    labels = spec.get("nodeSelector") or {}
    affinity_path = (*path, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    affinity = obj.get(affinity_path)
    required = None
    if isinstance(affinity, dict) and affinity.get("nodeSelectorTerms"):
        try:
            required = parse_node_selector(affinity)
        except NodeSelectorError as exc:
            raise InputError(
                f"{obj.position(affinity_path)}: {obj.kind} {obj.qualified_name}: invalid node affinity: {exc}"
            ) from None
    if not labels and required is None:
        return None
    owner = "the Pod's" if obj.kind == "Pod" else "the pod template's"
    return PodNodeAffinity(owner, {str(k): str(v) for k, v in labels.items()}, required)


def claim_from_object(obj: ApiObject) -> ClaimInput:
    data = apply_defaults(obj.kind, obj.data, obj.version)
    return ClaimInput(obj.effective_namespace or "default", obj.name or "", data, obj)


def claim_from_template(template: ApiObject, pod_name: str, claim_name: str) -> ClaimInput:
    data = apply_defaults(template.kind, template.data, template.version)
    spec = data.get("spec") if isinstance(data.get("spec"), dict) else {}
    meta = spec.get("metadata") if isinstance(spec.get("metadata"), dict) else {}
    namespace = template.effective_namespace or "default"
    name = generated_claim_name(pod_name, claim_name)
    annotations = dict(meta.get("annotations") or {})
    annotations[POD_CLAIM_NAME_ANNOTATION] = claim_name
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": dict(meta.get("labels") or {}),
            "annotations": annotations,
        },
        "spec": spec.get("spec") if isinstance(spec.get("spec"), dict) else {},
    }
    return ClaimInput(namespace, name, claim, template, template.qualified_name)


def generated_claim_name(pod_name: str, claim_name: str) -> str:
    """``<pod>-<claim>``: the resource-claim controller's base name for a claim it makes from a
    template, both parts shortened in proportion past 57 characters as it does (it then adds
    five random characters, which dractl cannot know and leaves out).

    The controller's ``generateName`` is ``<pod>-<claim>-`` while that has at most 57
    characters; beyond, each part keeps ``len(part) * 57 // len("<pod>-<claim>-")`` of its
    characters and the random ones follow the claim's part without a hyphen. Shortened names
    can coincide (two claims of one pod, or replicas whose index was cut off): upstream's random
    characters tell them apart, in dractl only their order in the pod does."""
    base = f"{pod_name}-{claim_name}-"
    if len(base) <= _MAX_BASE_NAME:
        return base[:-1]
    return (
        pod_name[: len(pod_name) * _MAX_BASE_NAME // len(base)]
        + "-"
        + claim_name[: len(claim_name) * _MAX_BASE_NAME // len(base)]
    )


_MAX_BASE_NAME = 57  # room for five random characters in a name of 63


def matches(selector: str, claim: ClaimInput) -> bool:
    """``--claim NAME`` matches in ``default``; ``--claim NS/NAME`` exactly. A claim made
    from a template also answers to the template's name (its own name is only dractl's)."""
    wanted = selector if "/" in selector else f"default/{selector}"
    return wanted in (claim.qualified_name, claim.template)


def _latest(objects: Iterable[ApiObject], notes: list[str] | None) -> set[int]:
    """Ids of the objects that count: of several definitions of one object, the last one, as
    applying the files in order would leave it; a note names the others."""
    latest: dict[tuple[str, str, str], ApiObject] = {}
    earlier: dict[tuple[str, str, str], list[ApiObject]] = {}
    for obj in objects:
        key = (obj.group, obj.kind, obj.qualified_name)
        if key in latest:
            earlier.setdefault(key, []).append(latest[key])
        latest[key] = obj
    if notes is not None:
        for key, replaced in earlier.items():
            kept = latest[key]
            where = ", ".join(str(o.position()) for o in replaced)
            notes.append(
                f"{kept.kind} {kept.qualified_name} is defined more than once: explained as defined last "
                f"({kept.position()}), not as at {where}"
            )
    return {id(obj) for obj in latest.values()}


def plan(
    workspace: Workspace,
    claim_selectors: Iterable[str] = (),
    notes: list[str] | None = None,
    pod: str | None = None,
    scheduled: Callable[[ApiObject], bool] | None = None,
    lenient: bool = False,
) -> list[AllocationUnit]:
    """The allocation units for the objects under check (context objects are only references).

    Raises :class:`InputError` naming what is missing when a pod references a claim or template
    that is not in the input. Of an object defined more than once, the last definition counts
    (`notes`, when given, gets a line saying so). `pod` (``[NAMESPACE/]NAME``) keeps only that
    Pod's unit: the other objects of a cluster dump are context (their allocated claims are in
    use), and other pods' missing claims or templates are no error.

    ``scheduled`` (explain with the scheduler's plugins): a Pod for which ``scheduled(pod)`` is
    true (the one named by ``pod``, or one asking for an extended resource a DeviceClass serves)
    is a unit even without claims. ``lenient``: a claim or template that is not in the input is
    what the scheduler's PreEnqueue reports (recorded in the unit's ``entries``), not an error.
    """
    selectors = list(claim_selectors)
    wanted_pod = None if pod is None else (pod if "/" in pod else f"default/{pod}")
    units: list[AllocationUnit] = []
    referenced: set[str] = set()
    counted = _latest(
        (
            obj
            for obj in workspace.checked
            if obj.name
            and (
                pod_spec(obj)[0] is not None
                or (obj.dra and obj.kind in ("ResourceClaim", "ResourceClaimTemplate"))
            )
        ),
        notes,
    )
    for obj in workspace.checked:
        spec, spec_path = pod_spec(obj)
        if spec is None:
            continue
        wanted = scheduled is not None and scheduled(obj)
        if not isinstance(spec.get("resourceClaims"), list) and not wanted:
            continue
        if obj.name and id(obj) not in counted:
            continue
        if wanted_pod is not None and (obj.kind != "Pod" or obj.qualified_name != wanted_pod):
            continue
        namespace = obj.effective_namespace or "default"
        pod_name = obj.name or "pod"
        generated = _generated_claims(obj)
        unit = AllocationUnit(f"{obj.kind.lower()} {namespace}/{pod_name}", [], pod=obj)
        for index, entry in enumerate(spec.get("resourceClaims") or []):
            if not isinstance(entry, dict):
                continue
            claim_name = entry.get("name")
            entry_path = (*spec_path, "resourceClaims", index)
            if entry.get("resourceClaimName"):
                key = f"{namespace}/{entry['resourceClaimName']}"
                found = workspace.claims.get(key)
                if found is None and lenient:
                    unit.entries.append(PodClaimEntry(str(claim_name), problem=(
                        f'resourceclaim.resource.k8s.io "{entry["resourceClaimName"]}" not found')))
                    continue
                if found is None:
                    raise InputError(
                        f"{obj.position((*entry_path, 'resourceClaimName'))}: "
                        f"{obj.kind} {namespace}/{pod_name}: ResourceClaim {key} "
                        f"(claim {claim_name!r}) is not in the input; add it "
                        "(kubectl get resourceclaims -A -o yaml)"
                    )
                referenced.add(key)
                claim = claim_from_object(found)
                (unit.preallocated if claim.allocated else unit.claims).append(claim)
                unit.entries.append(PodClaimEntry(str(claim_name), claim))
            elif entry.get("resourceClaimTemplateName"):
                made = generated.get(str(claim_name), _NOT_MADE)
                if made is None:
                    continue  # the controller decided that no claim is needed
                key = f"{namespace}/{entry['resourceClaimTemplateName']}"
                if made is not _NOT_MADE and f"{namespace}/{made}" in workspace.claims:
                    # Made already (a cluster dump): that claim, allocated or not, is the one.
                    referenced.update((f"{namespace}/{made}", "template:" + key))
                    claim = claim_from_object(workspace.claims[f"{namespace}/{made}"])
                    claim.template = key
                    (unit.preallocated if claim.allocated else unit.claims).append(claim)
                    unit.entries.append(PodClaimEntry(str(claim_name), claim, from_template=True))
                    continue
                template = workspace.claim_templates.get(key)
                if template is None and lenient:
                    problem = (f'pod "{namespace}/{pod_name}": ResourceClaim not created yet' if made is _NOT_MADE
                               else f'resourceclaim.resource.k8s.io "{made}" not found')
                    unit.entries.append(PodClaimEntry(str(claim_name), problem=problem, from_template=True))
                    continue
                if template is None:
                    raise InputError(
                        f"{obj.position((*entry_path, 'resourceClaimTemplateName'))}: "
                        f"{obj.kind} {namespace}/{pod_name}: ResourceClaimTemplate {key} "
                        f"(claim {claim_name!r}) is not in the input; add it "
                        "(kubectl get resourceclaimtemplates -A -o yaml)"
                    )
                referenced.add("template:" + key)
                claim = claim_from_template(template, pod_name, str(claim_name))
                if made is not _NOT_MADE:
                    claim.name = claim.data["metadata"]["name"] = str(made)
                unit.claims.append(claim)
                unit.entries.append(PodClaimEntry(str(claim_name), claim, from_template=True, made=True))
        if unit.claims or unit.preallocated or (scheduled is not None and (unit.entries or wanted)):
            units.append(unit)
    if wanted_pod is not None and not units:
        raise InputError(_pod_missing(workspace, wanted_pod))
    loose = _loose_claims(workspace, counted, referenced) if wanted_pod is None else []
    if loose:
        units.append(AllocationUnit("claims " + ", ".join(c.qualified_name for c in loose), loose))
    if selectors:
        for unit in units:
            unit.claims = [c for c in unit.claims if any(matches(s, c) for s in selectors)]
        units = [u for u in units if u.claims]
        if not units:
            raise InputError(f"no claim in the input matches {', '.join(selectors)}")
    return units


def _loose_claims(workspace: Workspace, counted: set[int], referenced: set[str]) -> list[ClaimInput]:
    """Unallocated claims and templates that no pod references, in input order."""
    loose: list[ClaimInput] = []
    for obj in workspace.checked:
        if id(obj) not in counted:
            continue
        if obj.kind == "ResourceClaim" and obj.dra and obj.name:
            claim = claim_from_object(obj)
            if claim.qualified_name not in referenced and not claim.allocated:
                loose.append(claim)
        elif (
            obj.kind == "ResourceClaimTemplate"
            and obj.dra
            and obj.name
            and "template:" + obj.qualified_name not in referenced
        ):
            # A template on its own stands for one claim made from it, named like the template.
            claim = claim_from_template(obj, "pod", obj.name)
            claim.name = obj.name
            claim.data["metadata"]["name"] = obj.name
            loose.append(claim)
    return loose


_NOT_MADE: Any = object()


def _generated_claims(obj: ApiObject) -> dict[str, str | None]:
    """A Pod's ``status.resourceClaimStatuses``: pod claim name -> the name of the claim the
    resource-claim controller made from its template (None: the controller made none, as
    none was needed). Pods the controller has not seen yet, and workloads, have none."""
    if obj.kind != "Pod":
        return {}
    statuses = obj.get(("status", "resourceClaimStatuses"))
    out: dict[str, str | None] = {}
    for entry in statuses if isinstance(statuses, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            made = entry.get("resourceClaimName")
            out[entry["name"]] = made if isinstance(made, str) and made else None
    return out


def _pod_missing(workspace: Workspace, wanted: str) -> str:
    pods = [
        obj.qualified_name
        for obj in workspace.checked
        if obj.kind == "Pod" and obj.group == "" and obj.name
        and isinstance((pod_spec(obj)[0] or {}).get("resourceClaims"), list)
    ]
    if any(obj.kind == "Pod" and obj.qualified_name == wanted for obj in workspace.checked):
        return f"Pod {wanted} has no claims to allocate (no resourceClaims, or none the controller made)"
    known = f"; Pods with resourceClaims: {', '.join(pods[:10])}" if pods else "; the input has no Pod with resourceClaims"
    return f"Pod {wanted} is not in the input (kubectl get pods -A -o yaml){known}"


def device_taint_rules_enabled(features: Features) -> bool:
    """Whether the scheduler applies DeviceTaintRules to the devices it allocates.

    Its ResourceSlice tracker does so only with DRADeviceTaintRules (1.35 on; in 1.34 the
    rules came with DRADeviceTaints), otherwise the rules are not even watched.
    """
    gate = "DRADeviceTaints" if features.release == "1.34" else "DRADeviceTaintRules"
    return features.enabled(gate)


def taint_rule_selectors(features: Features) -> Any:
    """The CEL matcher for DeviceTaintRules' deviceClassName and selectors, which exist (and
    the scheduler evaluates) only in 1.34; None from 1.35 on, where the API has no such fields."""
    if features.release != "1.34":
        return None
    from dractl.allocator.inventory import taint_rule_cel_matcher

    return taint_rule_cel_matcher(features.release, features.gates)


def allocator_objects(workspace: Workspace, features: Features) -> list[ApiObject]:
    """The objects the allocator's inventory reads: DRA objects (in the v1 shape) and, when
    the scheduler applies them, DeviceTaintRules; objects of other versions of
    resource.k8s.io are not DRA objects here."""
    taint_rules = device_taint_rules_enabled(features)
    return [
        obj
        for obj in workspace.all
        if obj.dra
        or (
            taint_rules
            and obj.group == GROUP
            and obj.kind == "DeviceTaintRule"
            and obj.version in DEVICE_TAINT_RULE_VERSIONS
        )
    ]


def allocated_claims(workspace: Workspace) -> list[ClaimInput]:
    """Every claim with ``status.allocation`` (checked and context objects): devices in use."""
    out = []
    for obj in workspace.all:
        if obj.kind == "ResourceClaim" and obj.dra:
            claim = claim_from_object(obj)
            if claim.allocated:
                out.append(claim)
    return out
