"""DRA35x: extended resources that DeviceClasses map (KEP-5004, gate DRAExtendedResource).

A DeviceClass maps its `spec.extendedResourceName` and, from 1.35 on, the implicit
`deviceclass.resource.kubernetes.io/<class>`: with the gate on, the scheduler serves a
container's request for such a name with devices of that class (a ResourceClaim it makes for
the Pod), on nodes whose allocatable does not list the name. Which class maps which name, per
release, is :func:`dractl.scheduler.extended.map_extended_resources`; these rules read it.

Every DeviceClass of the run counts, wherever it is (a class is cluster-wide), `--context` ones
too; as in the cluster, a linted class replaces a `--context` copy of itself. The scheduler's
module is imported only when the run holds what a rule needs (its import is a good part of a
small lint's time).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from dractl.api.quantity import QuantityError, decode_quantity
from dractl.api.releases import RELEASES, Features, first_default_on, gate_stage
from dractl.diagnostics import Severity
from dractl.lint.engine import Finding, LintContext
from dractl.lint.registry import rule
from dractl.lint.rules._common import key_position, where

if TYPE_CHECKING:
    from dractl.api.model import ApiObject
    from dractl.api.workspace import PodSpec

GATE = "DRAExtendedResource"  # dractl.scheduler.extended.GATE
IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"  # dractl.scheduler.extended.IMPLICIT_PREFIX
CONTAINER_LISTS = ("initContainers", "containers")


def _classes(ctx: LintContext) -> list[ApiObject]:
    """The run's DeviceClasses, `--context` ones first: the mapping keeps the last definition of
    a name, so a linted class replaces the cluster's copy of itself."""
    ws = ctx.workspace
    return sorted(ws.kind("DeviceClass"), key=lambda o: not ws.is_context(o))


def _by_name(classes: list[ApiObject]) -> dict[str, ApiObject]:
    """The definition of each class name the mapping reads (the last one)."""
    return {o.name: o for o in classes if o.name}


def _mention_classes(classes: Iterable[ApiObject]) -> tuple[str, bool]:
    """``DeviceClass "a" (file:line)`` or ``DeviceClasses "a" (file:line) and "b" (...)``, by
    name, and whether there are several."""
    listed = [f'"{o.name}" ({where(o)})' for o in sorted(classes, key=lambda o: o.name or "")]
    if len(listed) == 1:
        return f"DeviceClass {listed[0]}", False
    return "DeviceClasses " + ", ".join(listed[:-1]) + " and " + listed[-1], True


def _explicit(obj: ApiObject) -> str | None:
    name = obj.get(("spec", "extendedResourceName"))
    return name if isinstance(name, str) and name else None


@rule("DRA350", "extended-resource-name-conflict", Severity.WARNING, scope="set")
def extended_resource_name_conflict(ctx: LintContext) -> Iterator[Finding]:
    """Several DeviceClasses name the same `extendedResourceName`, and only one of them serves it.

    Why:
    With the DRAExtendedResource gate on, the scheduler serves a container's request for an
    extended resource (`example.com/gpu: 1`) with devices of the DeviceClass whose
    `extendedResourceName` it is. When several classes name it, one wins and the others serve
    nothing through it. In Kubernetes 1.35 and 1.36 the class with the newest
    `metadata.creationTimestamp` wins, and of classes created in the same second (or without a
    timestamp, as manifests not yet applied) the one whose name sorts first: so the class
    applied last usually takes the name over. In 1.34 the scheduler took whichever class it
    listed last, in no fixed order: Pods may get devices of either class from one scheduling
    cycle to the next. Each losing class is a warning (in 1.34 every class is) that names the
    winner and where it is; the winning class gets a note naming the others. Checked when the
    gate is on in the chosen release (beta, on by default from 1.36); give each class its own
    name.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel: {expression: device.driver == "gpu.example.com"}
          extendedResourceName: example.com/gpu
        ---
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: large-gpu.example.com
        spec:
          selectors:
          - cel:
              expression: >-
                device.driver == "gpu.example.com" &&
                device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0
          extendedResourceName: example.com/gpu
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel: {expression: device.driver == "gpu.example.com"}
          extendedResourceName: example.com/gpu
        ---
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: large-gpu.example.com
        spec:
          selectors:
          - cel:
              expression: >-
                device.driver == "gpu.example.com" &&
                device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0
          extendedResourceName: example.com/large-gpu
    Upstream:
    kubernetes/dynamic-resource-allocation `deviceclass/extendedresourcecache` (1.35, 1.36);
    kubernetes/kubernetes `pkg/scheduler/framework/plugins/dynamicresources/extended` (1.34,
    kubernetes#133693).
    """
    if not ctx.features.enabled(GATE):
        return
    classes = _classes(ctx)
    by_name = _by_name(classes)
    named: dict[str, set[str]] = {}
    for name, obj in by_name.items():
        explicit = _explicit(obj)
        if explicit is not None:
            named.setdefault(explicit, set()).add(name)
    if all(len(names) < 2 for names in named.values()):
        return  # nothing to share: leave the scheduler's module unloaded

    from dractl.scheduler.extended import UNDETERMINED, map_extended_resources

    for conflict in map_extended_resources(classes, ctx.features).conflicts:
        undetermined = conflict.rule == UNDETERMINED
        for name in conflict.classes:
            obj = by_name[name]
            others, many = _mention_classes(by_name[o] for o in conflict.classes if o != name)
            name_verb, serve_verb = ("name", "serve") if many else ("names", "serves")
            if undetermined:
                either = "either class" if len(conflict.classes) == 2 else "any of these classes"
                message = (
                    f"{conflict.message}: {others} {name_verb} it too, so a Pod that asks for "
                    f"{conflict.resource} may get devices of {either}"
                )
                severity = Severity.WARNING
            elif name == conflict.winner:
                message = (
                    f"{conflict.message}: {others} {name_verb} it too and {serve_verb} nothing "
                    "through it"
                )
                severity = Severity.INFO
            else:
                winner = by_name[conflict.winner]
                message = (
                    f"{conflict.message}: a Pod that asks for {conflict.resource} gets devices of "
                    f'DeviceClass "{winner.name}" ({where(winner)}), never of this class'
                )
                severity = Severity.WARNING
            yield Finding(
                message,
                ("spec", "extendedResourceName"),
                obj=obj,
                severity=severity,
                hint="give each DeviceClass its own extendedResourceName (a Pod may ask for "
                "several), or keep the name in one class",
            )


@rule("DRA351", "extended-resource-gate-off", Severity.WARNING, scope="set")
def extended_resource_gate_off(ctx: LintContext) -> Iterator[Finding]:
    """A container asks for a DeviceClass's extended resource while DRAExtendedResource is off.

    Why:
    A DeviceClass maps its `extendedResourceName` (and, from 1.35 on, the implicit
    `deviceclass.resource.kubernetes.io/<class>`) to its devices, so that a Pod may ask for a
    device as `example.com/gpu: 1`, without a ResourceClaim. Only the scheduler of a release
    with the DRAExtendedResource gate on does that: alpha (off by default) in 1.34 and 1.35,
    beta (on) from 1.36; 1.34 never serves the implicit names. With the gate off the request is
    an ordinary extended resource: only a node whose allocatable lists it, from a device plugin,
    fits the Pod, and without one the Pod stays Pending (`Insufficient example.com/gpu`); the
    apiserver also drops the class's `extendedResourceName` (DRA410). Reported at each
    container's request (or limit, when it sets only the limit), with the class that would
    serve it and the gate or release that would. Enable the gate in the cluster (and pass
    `--feature-gates`), target a release where it is on (`--kubernetes-version`), or ask for the
    device with a ResourceClaim.

    Bad:
        # with --kubernetes-version 1.35 (DRAExtendedResource is alpha, off by default)
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel: {expression: device.driver == "gpu.example.com"}
          extendedResourceName: example.com/gpu
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
              limits:
                example.com/gpu: 1
    Good:
        # with --kubernetes-version 1.35 (DRAExtendedResource is alpha, off by default)
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaimTemplate
        metadata:
          name: single-gpu
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
    Upstream:
    kubernetes/kubernetes `pkg/scheduler/framework/plugins/dynamicresources` (the plugin maps
    extended resources only with the gate on), `pkg/features/kube_features.go` (gate stages).
    """
    features = ctx.features
    if features.enabled(GATE):
        return
    ws = ctx.workspace
    classes = _classes(ctx)
    explicit = {name for o in classes if (name := _explicit(o)) is not None}
    wanted = [
        entry
        for spec in ws.pod_specs
        if not ws.is_context(spec.obj)
        for entry in _container_resources(spec)
        if entry[0] in explicit or entry[0].startswith(IMPLICIT_PREFIX)
    ]
    if not wanted:
        return  # no Pod asks for what a class maps: leave the scheduler's module unloaded

    from dractl.scheduler.extended import map_extended_resources

    by_name = _by_name(classes)
    # What the scheduler would map with the gate on: in the chosen release, else in a later one
    # (1.34 never maps the implicit names).
    would: dict[str, tuple[str, str]] = {}  # resource -> (class, first release that maps it)
    for release in RELEASES[RELEASES.index(features.release) :]:
        if gate_stage(GATE, release) is None:
            continue  # a release without the gate (none yet) cannot turn it on
        mapping = map_extended_resources(classes, Features(release, {GATE: True})).classes
        for resource, class_name in mapping.items():
            would.setdefault(resource, (class_name, release))
    for resource, spec, path in wanted:
        if resource not in would:
            continue
        class_name, release = would[resource]
        # Several classes naming it are DRA350's matter once the gate is on: name them all.
        named = [o for o in by_name.values() if _explicit(o) == resource] or [by_name[class_name]]
        yield _gate_off_finding(ctx, spec, path, resource, named, release)


def _gate_off_finding(
    ctx: LintContext,
    spec: PodSpec,
    path: tuple[Any, ...],
    resource: str,
    classes: list[ApiObject],
    release: str,
) -> Finding:
    chosen = ctx.features.release
    on_in = first_default_on(GATE)
    kind = (
        "implicit extended resource"
        if resource.startswith(IMPLICIT_PREFIX)
        else "extendedResourceName"
    )
    owner, _ = _mention_classes(classes)
    stage = gate_stage(GATE, chosen)
    if stage is not None and stage.default:
        why = "it was disabled explicitly"
    elif _later(on_in, chosen):
        why = f"{stage.stage if stage else 'absent'}; on by default from Kubernetes {on_in}"
    else:
        why = f"{stage.stage if stage else 'absent'}, off by default"
    message = (
        f"{resource} is the {kind} of {owner}, but feature gate "
        f"{GATE} is off in Kubernetes {chosen} ({why}): the scheduler does not serve it through "
        "DRA, only a node whose allocatable lists it (a device plugin) fits the Pod"
    )
    if release == chosen:
        hint = (
            f"enable the gate with --feature-gates {GATE}=true if the cluster has it on"
            + (f", or target Kubernetes {on_in} or later" if _later(on_in, chosen) else "")
            + "; or ask for the device with a ResourceClaim"
        )
    else:
        message += (
            f"; and Kubernetes {chosen} serves no {IMPLICIT_PREFIX}* name even with the gate on"
        )
        hint = (
            f"DRA serves it from Kubernetes {release} with --feature-gates {GATE}=true"
            + (f" (on by default from {on_in})" if _later(on_in, release) else "")
            + "; or ask for the device with a ResourceClaim"
        )
    return Finding(message, path, obj=spec.obj, position=key_position(spec.obj, path), hint=hint)


def _container_resources(spec: PodSpec) -> Iterator[tuple[str, PodSpec, tuple[Any, ...]]]:
    """``(resource, spec, path)`` of each resource a container asks for: its request, or its
    limit when it sets no request (the request defaults to the limit). Zero asks for nothing."""
    for list_name in CONTAINER_LISTS:
        containers = spec.data.get(list_name)
        if not isinstance(containers, list):
            continue
        for c, container in enumerate(containers):
            resources = container.get("resources") if isinstance(container, dict) else None
            if not isinstance(resources, dict):
                continue
            seen: set[str] = set()
            for field in ("requests", "limits"):
                listed = resources.get(field)
                if not isinstance(listed, dict):
                    continue
                for resource, quantity in listed.items():
                    if not isinstance(resource, str) or resource in seen:
                        continue
                    seen.add(resource)
                    if _is_zero(quantity):
                        continue
                    yield resource, spec, (*spec.path, list_name, c, "resources", field, resource)


def _is_zero(quantity: Any) -> bool:
    try:
        return decode_quantity(quantity).sign() == 0
    except QuantityError:
        return False  # the apiserver refuses it; a request all the same


def _later(a: str | None, b: str) -> bool:
    """Whether release ``a`` comes after release ``b``."""
    return a is not None and RELEASES.index(a) > RELEASES.index(b)
