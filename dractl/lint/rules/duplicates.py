"""DRA33x: the inputs as a whole."""

from __future__ import annotations

from collections.abc import Iterator

from dractl.api.model import ApiObject
from dractl.diagnostics import Severity
from dractl.lint.engine import Finding, LintContext
from dractl.lint.registry import rule
from dractl.lint.rules._common import folder, related_folders, where

# Kinds without a namespace: the apiserver clears a `metadata.namespace` on them (BeforeCreate),
# so it does not make another object.
CLUSTER_SCOPED: frozenset[tuple[str, str]] = frozenset(
    {
        ("resource.k8s.io", "DeviceClass"),
        ("resource.k8s.io", "ResourceSlice"),
        ("resource.k8s.io", "DeviceTaintRule"),
        ("", "Namespace"),
        ("", "Node"),
        ("", "PersistentVolume"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("storage.k8s.io", "StorageClass"),
        ("scheduling.k8s.io", "PriorityClass"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
    }
)


def identity(obj: ApiObject) -> tuple[str, str, str, str] | None:
    """What makes an object unique in a cluster: API group, kind, namespace, name.

    The version is not part of it: `resource.k8s.io/v1beta1` and `v1` objects of the same name
    are the same object. Objects of namespaced kinds without a namespace are in `default`, as
    `kubectl apply` puts them; cluster-scoped kinds have none.
    """
    if obj.name is None:
        return None  # generateName: a new object each time
    return (obj.group, obj.kind, _namespace(obj), obj.name)


def _namespace(obj: ApiObject) -> str:
    if (obj.group, obj.kind) in CLUSTER_SCOPED:
        return ""
    return obj.namespace or "default"


@rule("DRA330", "duplicate-object", Severity.ERROR, scope="set")
def duplicate_object(ctx: LintContext) -> Iterator[Finding]:
    """A file defines the same object (kind, namespace, name) twice.

    Why:
    `kubectl apply -f` sends both; the second silently replaces the first, so one of the two
    definitions never takes effect (and `kubectl create` fails with "already exists"). Versions
    do not matter: a `v1beta1` and a `v1` DeviceClass of the same name are one object. Objects
    without a namespace count as being in `default`. The same object in two different files
    is DRA331.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel: {expression: device.driver == "gpu.example.com"}
        ---
        apiVersion: resource.k8s.io/v1beta1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel: {expression: device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "A100"}
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel: {expression: device.driver == "gpu.example.com"}
        ---
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: a100.gpu.example.com
        spec:
          selectors:
          - cel: {expression: device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "A100"}
    """
    first: dict[tuple[str, tuple[str, str, str, str]], ApiObject] = {}
    for obj in ctx.workspace.checked:
        ident = identity(obj)
        if ident is None:
            continue
        earlier = first.setdefault((obj.file, ident), obj)
        if earlier is not obj:
            yield Finding(
                f"{_what(obj)} is defined twice in this file (first at line "
                f"{earlier.position(('metadata', 'name')).line}): `kubectl apply` keeps only "
                "the last definition",
                ("metadata", "name"),
                obj=obj,
            )


@rule("DRA331", "conflicting-object-across-files", Severity.WARNING, scope="set")
def conflicting_object_across_files(ctx: LintContext) -> Iterator[Finding]:
    """Two files define the same object (kind, namespace, name) differently.

    Why:
    Applied together, the file applied last wins and the other definition is silently lost. In
    the manifests of one deployment that is a mistake. Only files of one folder, or of a folder
    and the folders below it, are compared: sibling folders of a repository usually hold
    independent examples (one per accelerator, one per cloud), each applied on its own.
    Identical definitions (a Namespace that several files create) are not reported, nor are
    objects that are also in the `--context` files (a cluster dump is expected to hold what is
    being linted).

    Bad:
        # claims/gpu.yaml
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
        # claims/gpu-large.yaml
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: shared-gpu
        spec:
          devices:
            requests:
            - name: gpu
              exactly: {deviceClassName: gpu.example.com, count: 2}
    Good:
        # claims/gpu-large.yaml
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: shared-gpus
        spec:
          devices:
            requests:
            - name: gpu
              exactly: {deviceClassName: gpu.example.com, count: 2}
    """
    for obj, earlier in _duplicates(ctx):
        if obj.file == earlier.file or not related_folders(folder(obj), folder(earlier)):
            continue
        if _content(obj) != _content(earlier):
            yield Finding(
                f"{_what(obj)} is also defined, differently, at {where(earlier)}: applied "
                "together, only the definition applied last takes effect",
                ("metadata", "name"),
                obj=obj,
            )


def _what(obj: ApiObject) -> str:
    namespace = _namespace(obj)
    return f'{obj.kind} "{namespace}/{obj.name}"' if namespace else f'{obj.kind} "{obj.name}"'


def _content(obj: ApiObject) -> object:
    """What the object says, whatever version it is written in."""
    data = {k: v for k, v in obj.data.items() if k != "apiVersion"}
    metadata = dict(obj.metadata)
    metadata["namespace"] = _namespace(obj)
    data["metadata"] = metadata
    return data


def _duplicates(ctx: LintContext) -> list[tuple[ApiObject, ApiObject]]:
    """``(object, an earlier object with the same identity)`` for every repeated object: the
    first earlier one of another file in a related folder that says something else, else the
    first earlier one."""
    key = "duplicates.pairs"
    if key not in ctx.cache:
        groups: dict[tuple[str, str, str, str], list[ApiObject]] = {}
        pairs = []
        for obj in ctx.workspace.checked:
            ident = identity(obj)
            if ident is None:
                continue
            earlier = groups.setdefault(ident, [])
            if earlier:
                conflicting = next(
                    (
                        e
                        for e in earlier
                        if e.file != obj.file
                        and related_folders(folder(obj), folder(e))
                        and _content(e) != _content(obj)
                    ),
                    None,
                )
                pairs.append((obj, conflicting or earlier[0]))
            earlier.append(obj)
        ctx.cache[key] = pairs
    result: list[tuple[ApiObject, ApiObject]] = ctx.cache[key]
    return result
