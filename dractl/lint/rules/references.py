"""DRA30x: references between objects that name nothing, or are never used.

Rule ID families of the cross-object and best-practice checks:

* DRA30x — references: DeviceClasses named by requests, claims and claim templates named by Pods
  and workload pod templates, container claim references;
* DRA31x — admin access and the namespace label (:mod:`dractl.lint.rules.admin_access`);
* DRA32x — ResourceSlice pools (:mod:`dractl.lint.rules.slices`);
* DRA33x — the set as a whole: duplicate objects (:mod:`dractl.lint.rules.duplicates`);
* DRA34x — what the set's slices can offer (:mod:`dractl.lint.rules.capacity`);
* DRA35x — extended resources that DeviceClasses map (:mod:`dractl.lint.rules.extended_resources`);
* DRA50x — best practice on single objects (:mod:`dractl.lint.rules.best_practice`);
* DRA51x — YAML that kubectl reads differently (:mod:`dractl.lint.rules.yaml11`).

The set is every object linted together plus the ``--context`` objects; findings on context
objects are never reported. A reference is only checked when the set could hold its target:
a missing DeviceClass when the set has DeviceClasses (or with ``--require-classes``), a missing
ResourceClaimTemplate / ResourceClaim when the set has at least one object of that kind (in any
namespace, so that a template in the wrong namespace is caught). Objects without a namespace are
in ``default``, as ``kubectl apply`` puts them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dractl.api.model import ApiObject
from dractl.api.paths import format_path
from dractl.api.versions import GROUP
from dractl.api.workspace import PodSpec
from dractl.diagnostics import Severity
from dractl.lint.engine import Finding, LintContext
from dractl.lint.registry import rule
from dractl.lint.rules._claims import iter_requests, request_names
from dractl.lint.rules._common import did_you_mean, where

CLAIM_KINDS = ("ResourceClaim", "ResourceClaimTemplate")


@rule("DRA301", "unknown-device-class", Severity.WARNING, scope="set")
def unknown_device_class(ctx: LintContext) -> Iterator[Finding]:
    """A request names a DeviceClass that is not among the inputs.

    Why:
    The scheduler cannot allocate a request whose DeviceClass does not exist: the Pod stays
    Pending ("device class ... does not exist"). The apiserver accepts the claim, so nothing
    fails at apply time. Classes are usually installed by their driver's Helm chart, so dractl
    only looks when the inputs (or the `--context` files) contain DeviceClasses: a name that is
    a likely typo of one of them is a warning; any other missing name is information (the class
    may well be installed with its driver). With `--require-classes` the inputs are taken as
    complete and every missing class is an error; pass the cluster's classes with
    `--context` (`kubectl get deviceclasses -o yaml`).

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: one-gpu
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.exmaple.com
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: one-gpu
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
    Upstream:
    kubernetes/dynamic-resource-allocation structured allocator: "request %s: could not
    retrieve device class %s".
    """
    ws = ctx.workspace
    classes = present(ctx, "DeviceClass")
    strict = ctx.settings.require_classes
    if not classes and not strict:
        return
    source = "the inputs" if not ws.context else "the inputs or the --context files"
    for kind in CLAIM_KINDS:
        for obj in ws.kind(kind):
            if ws.is_context(obj):
                continue
            for request in iter_requests(obj):
                name = request.device_class
                if name is None or name in classes:
                    continue
                typo = did_you_mean(name, classes)
                if strict:
                    severity, consequence = Severity.ERROR, ": the scheduler cannot allocate it"
                elif typo:
                    severity, consequence = Severity.WARNING, typo
                else:
                    severity = Severity.INFO
                    consequence = ": it must be installed in the cluster (e.g. by its driver)"
                yield Finding(
                    f'request "{request.label}" names DeviceClass "{name}", which is not among '
                    f"{source}{consequence}",
                    (*request.path, "deviceClassName"),
                    obj=obj,
                    severity=severity,
                )


def present(ctx: LintContext, kind: str) -> dict[str, ApiObject]:
    """Objects of a resource.k8s.io kind by qualified name, in any version (old alphas too).

    Existence is all a reference needs, and manifests for older clusters still define their
    claims and templates in `v1alpha2` or `v1alpha3`. ResourceClaimTemplates that a controller
    creates from another object count as present: NVIDIA's ComputeDomain creates the one named
    in `spec.channel.resourceClaimTemplate.name`, in its own namespace.
    """
    key = ("references.present", kind)
    if key not in ctx.cache:
        ws = ctx.workspace
        found = {
            o.qualified_name: o
            for o in ws.by_kind.get(kind, [])
            if o.group == GROUP and o.name is not None
        }
        if kind == "ResourceClaimTemplate":
            for domain in ws.by_kind.get("ComputeDomain", []):
                name = domain.get(("spec", "channel", "resourceClaimTemplate", "name"))
                if isinstance(name, str) and name:
                    found.setdefault(f"{domain.namespace or 'default'}/{name}", domain)
        ctx.cache[key] = found
    result: dict[str, ApiObject] = ctx.cache[key]
    return result


def pod_claims(spec: PodSpec) -> Iterator[tuple[int, dict[str, Any], dict[str, Any]]]:
    """``(index, entry, source)`` of ``resourceClaims``; ``source`` holds the claim reference.

    Before Kubernetes 1.31 the reference sat under ``source:``; both shapes are read.
    """
    claims = spec.data.get("resourceClaims")
    if not isinstance(claims, list):
        return
    for i, entry in enumerate(claims):
        if isinstance(entry, dict):
            source = entry.get("source")
            yield i, entry, source if isinstance(source, dict) else entry


def claim_path(spec: PodSpec, index: int, entry: dict[str, Any], key: str) -> tuple[Any, ...]:
    inner = ("source", key) if isinstance(entry.get("source"), dict) else (key,)
    return (*spec.path, "resourceClaims", index, *inner)


def resolve_claim(ctx: LintContext, spec: PodSpec, source: dict[str, Any]) -> ApiObject | None:
    """The ResourceClaim or ResourceClaimTemplate a pod claim entry names, if in the set."""
    ns = spec.obj.effective_namespace
    template = source.get("resourceClaimTemplateName")
    if isinstance(template, str):
        return present(ctx, "ResourceClaimTemplate").get(f"{ns}/{template}")
    claim = source.get("resourceClaimName")
    if isinstance(claim, str):
        return present(ctx, "ResourceClaim").get(f"{ns}/{claim}")
    return None


def _missing(ctx: LintContext, kind: str, key: str) -> Iterator[Finding]:
    ws = ctx.workspace
    index = present(ctx, kind)
    if not index:
        return
    namespaces: dict[str, list[str]] = {}
    for qualified in index:
        ns, _, name = qualified.rpartition("/")
        namespaces.setdefault(name, []).append(ns)
    for spec in ws.pod_specs:
        if ws.is_context(spec.obj):
            continue
        ns = spec.obj.effective_namespace
        for i, entry, source in pod_claims(spec):
            name = source.get(key)
            if not isinstance(name, str) or not name or f"{ns}/{name}" in index:
                continue
            message = f'{kind} "{name}" does not exist in namespace "{ns}"'
            elsewhere = sorted(namespaces.get(name, []))
            typo = ""
            if elsewhere:
                shown = ", ".join(f'"{n}"' for n in elsewhere[:3])
                more = f" and {len(elsewhere) - 3} more" if len(elsewhere) > 3 else ""
                message += f" (there is one in namespace {shown}{more})"
            else:
                in_ns = [q.rpartition("/")[2] for q in index if q.rpartition("/")[0] == ns]
                typo = did_you_mean(name, in_ns)
            message += ": the Pod can never start" + typo
            yield Finding(message, claim_path(spec, i, entry, key), obj=spec.obj)


@rule("DRA302", "unknown-claim-template", Severity.ERROR, scope="set")
def unknown_claim_template(ctx: LintContext) -> Iterator[Finding]:
    """A Pod or workload names a ResourceClaimTemplate that does not exist in its namespace.

    Why:
    The resource-claim controller cannot create the Pod's claim from a template that does not
    exist, so the Pod stays Pending ("waiting for resource claim"). Templates are looked up in
    the Pod's own namespace (``default`` when it has none). Checked when the inputs hold at least
    one ResourceClaimTemplate, in any namespace: a template in another namespace is named.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaimTemplate
        metadata:
          name: single-gpu
          namespace: gpu-test
        spec:
          spec:
            devices:
              requests:
              - name: gpu
                exactly: {deviceClassName: gpu.example.com}
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: trainer
        spec:
          containers:
          - name: ctr
            image: ubuntu:24.04
            resources:
              claims: [{name: gpu}]
          resourceClaims:
          - name: gpu
            resourceClaimTemplateName: single-gpu
    Good:
        apiVersion: v1
        kind: Pod
        metadata:
          name: trainer
          namespace: gpu-test
        spec:
          containers:
          - name: ctr
            image: ubuntu:24.04
            resources:
              claims: [{name: gpu}]
          resourceClaims:
          - name: gpu
            resourceClaimTemplateName: single-gpu
    """
    yield from _missing(ctx, "ResourceClaimTemplate", "resourceClaimTemplateName")


@rule("DRA303", "unknown-resource-claim", Severity.ERROR, scope="set")
def unknown_resource_claim(ctx: LintContext) -> Iterator[Finding]:
    """A Pod or workload names a ResourceClaim that does not exist in its namespace.

    Why:
    The scheduler waits for the named claim to appear; until it does the Pod stays Pending.
    Claims are looked up in the Pod's namespace (``default`` when it has none). Checked when the
    inputs hold at least one ResourceClaim, in any namespace.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: shared-gpu
        spec:
          devices:
            requests:
            - name: gpu
              exactly: {deviceClassName: gpu.example.com}
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: trainer
        spec:
          containers:
          - name: ctr
            image: ubuntu:24.04
            resources:
              claims: [{name: gpu}]
          resourceClaims:
          - name: gpu
            resourceClaimName: shared-gpus
    Good:
        apiVersion: v1
        kind: Pod
        metadata:
          name: trainer
        spec:
          containers:
          - name: ctr
            image: ubuntu:24.04
            resources:
              claims: [{name: gpu}]
          resourceClaims:
          - name: gpu
            resourceClaimName: shared-gpu
    """
    yield from _missing(ctx, "ResourceClaim", "resourceClaimName")


CONTAINER_LISTS = ("initContainers", "containers")


def container_claims(
    spec: PodSpec,
) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    """``(path, entry)`` of every ``resources.claims`` entry of every (init) container."""
    for list_name in CONTAINER_LISTS:
        containers = spec.data.get(list_name)
        if not isinstance(containers, list):
            continue
        for c, container in enumerate(containers):
            if not isinstance(container, dict):
                continue
            resources = container.get("resources")
            claims = resources.get("claims") if isinstance(resources, dict) else None
            if not isinstance(claims, list):
                continue
            for k, entry in enumerate(claims):
                if isinstance(entry, dict):
                    yield (*spec.path, list_name, c, "resources", "claims", k), entry


def declared_claims(spec: PodSpec) -> list[str]:
    return [e["name"] for _, e, _ in pod_claims(spec) if isinstance(e.get("name"), str)]


@rule("DRA304", "undeclared-container-claim", Severity.ERROR, scope="set")
def undeclared_container_claim(ctx: LintContext) -> Iterator[Finding]:
    """A container's `resources.claims[].name` is not one of the Pod's `resourceClaims`.

    Why:
    A container can only use claims the Pod declares in `spec.resourceClaims`; the apiserver
    rejects the Pod ("must be one of the names in pod.spec.resourceClaims").

    Bad:
        apiVersion: v1
        kind: Pod
        metadata:
          name: trainer
        spec:
          containers:
          - name: ctr
            image: ubuntu:24.04
            resources:
              claims: [{name: gpus}]
          resourceClaims:
          - name: gpu
            resourceClaimTemplateName: single-gpu
    Good:
        apiVersion: v1
        kind: Pod
        metadata:
          name: trainer
        spec:
          containers:
          - name: ctr
            image: ubuntu:24.04
            resources:
              claims: [{name: gpu}]
          resourceClaims:
          - name: gpu
            resourceClaimTemplateName: single-gpu
    Upstream:
    kubernetes/kubernetes pkg/apis/core/validation: validateResourceClaimNames.
    """
    ws = ctx.workspace
    for spec in ws.pod_specs:
        if ws.is_context(spec.obj):
            continue
        declared = declared_claims(spec)
        for path, entry in container_claims(spec):
            name = entry.get("name")
            if not isinstance(name, str) or name in declared:
                continue
            if declared:
                detail = "must be one of the names in pod.spec.resourceClaims: " + ", ".join(
                    sorted(declared)
                )
            else:
                detail = "must be one of the names in pod.spec.resourceClaims which is empty"
            yield Finding(
                f'claim "{name}": {detail}' + did_you_mean(name, declared),
                (*path, "name"),
                type="Not found",
                field=format_path(path),
                obj=spec.obj,
            )


@rule("DRA305", "unknown-claim-request", Severity.ERROR, scope="set")
def unknown_claim_request(ctx: LintContext) -> Iterator[Finding]:
    """A container's `resources.claims[].request` names no request of the claim.

    Why:
    `request` limits a container to one request of a claim; it must name a request of the
    ResourceClaim or ResourceClaimTemplate that the Pod's claim entry refers to. With a name
    that does not exist the container gets no device and kubelet fails to start it. Checked when
    the claim or template is among the inputs.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaimTemplate
        metadata:
          name: gpu-and-nic
        spec:
          spec:
            devices:
              requests:
              - name: gpu
                exactly: {deviceClassName: gpu.example.com}
              - name: nic
                exactly: {deviceClassName: nic.example.com}
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: trainer
        spec:
          containers:
          - name: ctr
            image: ubuntu:24.04
            resources:
              claims: [{name: devices, request: gpus}]
          resourceClaims:
          - name: devices
            resourceClaimTemplateName: gpu-and-nic
    Good:
        apiVersion: v1
        kind: Pod
        metadata:
          name: trainer
        spec:
          containers:
          - name: ctr
            image: ubuntu:24.04
            resources:
              claims: [{name: devices, request: gpu}]
          resourceClaims:
          - name: devices
            resourceClaimTemplateName: gpu-and-nic
    """
    ws = ctx.workspace
    for spec in ws.pod_specs:
        if ws.is_context(spec.obj):
            continue
        targets: dict[str, ApiObject] = {}
        for _, entry, source in pod_claims(spec):
            target = resolve_claim(ctx, spec, source)
            if target is not None and target.dra and isinstance(entry.get("name"), str):
                targets[entry["name"]] = target
        for path, entry in container_claims(spec):
            name, request = entry.get("name"), entry.get("request")
            if not isinstance(request, str) or not request or not isinstance(name, str):
                continue
            if name not in targets:
                continue
            target = targets[name]
            names = request_names(target)
            if request in names:
                continue
            yield Finding(
                f'claim "{name}" has no request "{request}": {target.kind} '
                f'"{target.qualified_name}" ({where(target)}) has '
                + (", ".join(f'"{n}"' for n in names) if names else "no requests")
                + (did_you_mean(request, names) if len(names) > 1 else ""),
                (*path, "request"),
                obj=spec.obj,
            )


@rule("DRA306", "unused-pod-claim", Severity.WARNING, scope="set")
def unused_pod_claim(ctx: LintContext) -> Iterator[Finding]:
    """A claim in the Pod's `resourceClaims` is used by none of its containers.

    Why:
    Kubelet prepares every claim of the Pod, but only containers that list the claim in
    `resources.claims` get its devices: a GPU claim nobody lists is allocated and paid for, yet
    invisible to every container. A warning when other claims of the Pod are used by containers
    (the usual slip); information when no container lists any claim, because drivers that attach
    devices to the Pod as a whole (network interfaces, e.g. DraNet) are used exactly that way.

    Bad:
        apiVersion: v1
        kind: Pod
        metadata:
          name: trainer
        spec:
          containers:
          - name: ctr
            image: ubuntu:24.04
            resources:
              claims: [{name: gpu}]
          resourceClaims:
          - name: gpu
            resourceClaimTemplateName: single-gpu
          - name: scratch-gpu
            resourceClaimTemplateName: single-gpu
    Good:
        apiVersion: v1
        kind: Pod
        metadata:
          name: trainer
        spec:
          containers:
          - name: ctr
            image: ubuntu:24.04
            resources:
              claims: [{name: gpu}, {name: scratch-gpu}]
          resourceClaims:
          - name: gpu
            resourceClaimTemplateName: single-gpu
          - name: scratch-gpu
            resourceClaimTemplateName: single-gpu
    """
    ws = ctx.workspace
    for spec in ws.pod_specs:
        if ws.is_context(spec.obj):
            continue
        used = {n for _, e in container_claims(spec) if isinstance(n := e.get("name"), str)}
        for i, entry, _ in pod_claims(spec):
            name = entry.get("name")
            if not isinstance(name, str) or name in used:
                continue
            if used:
                yield Finding(
                    f'claim "{name}" is used by no container: no container lists it in '
                    "resources.claims, so none of them gets its devices",
                    (*spec.path, "resourceClaims", i, "name"),
                    obj=spec.obj,
                )
            else:
                yield Finding(
                    f'claim "{name}" is used by no container (fine for devices that a driver '
                    "attaches to the Pod as a whole, such as network interfaces; otherwise "
                    "list it in the containers' resources.claims)",
                    (*spec.path, "resourceClaims", i, "name"),
                    obj=spec.obj,
                    severity=Severity.INFO,
                )
