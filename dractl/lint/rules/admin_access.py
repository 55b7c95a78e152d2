"""DRA31x: admin access to devices and the namespace label that allows it.

Admin access (`adminAccess: true` in a request) is only allowed in namespaces labelled
`resource.kubernetes.io/admin-access: "true"`. The apiserver looks the namespace up when the claim
or claim template is created; dractl can only check it when the Namespace is among the inputs
(or the `--context` files).
"""

from __future__ import annotations

from collections.abc import Iterator

from dractl.api.model import ApiObject
from dractl.diagnostics import Applicability, Fix, Position, Severity, TextEdit
from dractl.lint.engine import Finding, LintContext
from dractl.lint.registry import rule
from dractl.lint.rules._claims import top_requests
from dractl.lint.rules._common import key_position

LABEL = "resource.kubernetes.io/admin-access"
OLD_LABEL = "resource.k8s.io/admin-access"  # Kubernetes 1.33 only
FORBIDDEN = (
    f"admin access to devices requires the `{LABEL}: true` label on the containing namespace"
)


def _labels(obj_labels: object) -> dict[str, object]:
    return obj_labels if isinstance(obj_labels, dict) else {}


@rule("DRA310", "admin-access-namespace-not-labelled", Severity.ERROR, scope="set")
def admin_access_namespace_not_labelled(ctx: LintContext) -> Iterator[Finding]:
    """Admin access is requested in a namespace without the admin-access label.

    Why:
    With `adminAccess: true` a request gets devices that are already in use, for monitoring or
    maintenance. Only namespaces labelled `resource.kubernetes.io/admin-access: "true"` may do
    that: the apiserver rejects the ResourceClaim or ResourceClaimTemplate otherwise (Forbidden).
    Checked when the Namespace is among the inputs.

    Bad:
        apiVersion: v1
        kind: Namespace
        metadata:
          name: gpu-monitoring
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaimTemplate
        metadata:
          name: all-gpus-admin
          namespace: gpu-monitoring
        spec:
          spec:
            devices:
              requests:
              - name: gpus
                exactly:
                  deviceClassName: gpu.example.com
                  allocationMode: All
                  adminAccess: true
    Good:
        apiVersion: v1
        kind: Namespace
        metadata:
          name: gpu-monitoring
          labels:
            resource.kubernetes.io/admin-access: "true"
    Upstream:
    kubernetes/kubernetes pkg/registry/resource: AuthorizedForAdmin; the DRAAdminAccess feature
    gate page of kubernetes/website (the key changed in 1.34).
    """
    if not ctx.features.enabled("DRAAdminAccess"):
        return  # the apiserver drops the field; the gate rules report it
    ws = ctx.workspace
    for kind in ("ResourceClaim", "ResourceClaimTemplate"):
        for obj in ws.kind(kind):
            if ws.is_context(obj):
                continue
            namespace = ws.namespaces.get(obj.effective_namespace or "")
            if namespace is None:
                continue
            labels = _labels(namespace.metadata.get("labels"))
            if labels.get(LABEL) == "true":
                continue
            first = next(
                (
                    i
                    for i, request in top_requests(obj)
                    if isinstance(request.get("exactly"), dict)
                    and request["exactly"].get("adminAccess") is True
                ),
                None,
            )
            if first is None:
                continue
            pos = namespace.position(("metadata", "name"))
            if LABEL in labels:
                why = f'its {LABEL} label is {labels[LABEL]!r}, not "true"'
            elif OLD_LABEL in labels:
                why = f"it has the old label {OLD_LABEL} instead"
            else:
                why = "it has no such label"
            base = (
                ("spec", "devices") if obj.kind == "ResourceClaim" else ("spec", "spec", "devices")
            )
            yield Finding(
                f'{FORBIDDEN} (namespace "{namespace.name}" at {pos.file}:{pos.line}: {why})',
                (*base, "requests", first, "exactly", "adminAccess"),
                type="Forbidden",
                field=f"spec.devices.requests[{first}].adminAccess",
                obj=obj,
            )


@rule(
    "DRA311",
    "admin-access-label-wrong-key",
    Severity.WARNING,
    kinds=("Namespace",),
    fix=Applicability.UNSAFE,
)
def admin_access_label_wrong_key(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A Namespace carries `resource.k8s.io/admin-access`, a label the apiserver does not read.

    Why:
    Kubernetes 1.34 and later read the label `resource.kubernetes.io/admin-access`; the key
    `resource.k8s.io/admin-access` (read by 1.33, the first release that checked the namespace,
    and used by demos of that time) no longer grants admin access, so claims with
    `adminAccess: true` in this namespace are rejected. `dractl lint --fix --unsafe-fixes`
    renames the key when the namespace has no `resource.kubernetes.io/admin-access` label yet:
    an unsafe fix, since the renamed label grants admin access to devices in use.

    Bad:
        apiVersion: v1
        kind: Namespace
        metadata:
          name: gpu-monitoring
          labels:
            resource.k8s.io/admin-access: "true"
    Good:
        apiVersion: v1
        kind: Namespace
        metadata:
          name: gpu-monitoring
          labels:
            resource.kubernetes.io/admin-access: "true"
    """
    if obj.group != "":
        return
    labels = _labels(obj.metadata.get("labels"))
    if OLD_LABEL not in labels or labels.get(LABEL) == "true":
        return
    position = key_position(obj, ("metadata", "labels", OLD_LABEL))
    yield Finding(
        f'label "{OLD_LABEL}" does not grant admin access since Kubernetes 1.34; '
        f'use "{LABEL}: \\"true\\""',
        ("metadata", "labels", OLD_LABEL),
        position=position,
        # With both keys, which value was meant is not certain: no fix.
        fix=None if LABEL in labels else _rename_fix(obj, position),
    )


def _rename_fix(obj: ApiObject, position: Position) -> Fix | None:
    """The old key renamed where it is written (plain or quoted, with the quotes kept)."""
    document = obj.source.document
    lines = document.text.split("\n")
    index = position.line - 1 - document.start_line
    if not 0 <= index < len(lines):
        return None
    text = lines[index][position.column - 1 :]
    column = position.column
    if text[:1] in ("'", '"'):
        if not text.startswith(text[0] + OLD_LABEL + text[0]):
            return None
        column += 1
    elif not text.startswith(OLD_LABEL) or text[len(OLD_LABEL) : len(OLD_LABEL) + 1] not in ":\t ":
        return None
    end = column + len(OLD_LABEL)
    edit = TextEdit(position.line, column, position.line, end, LABEL)
    return Fix(f"Rename the label to {LABEL}", Applicability.UNSAFE, (edit,))
