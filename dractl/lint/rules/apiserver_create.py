"""DRA190–DRA199: what the apiserver accepts on create but changes, warns about or checks later."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from dractl.api.validation import Topic
from dractl.diagnostics import Severity
from dractl.lint.registry import rule
from dractl.lint.rules._apiserver import warning_findings

if TYPE_CHECKING:
    from dractl.api.model import ApiObject
    from dractl.lint.engine import Finding, LintContext


@rule("DRA190", "status-ignored-on-create", Severity.WARNING, kinds=["ResourceClaim"])
def status_ignored_on_create(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A new ResourceClaim carries a `status`, which the apiserver discards.

    Why:
    The status of a claim (allocation, reservations, device status) is written by the
    scheduler and drivers through the status subresource; on create the apiserver clears it.
    A manifest with a status is usually a dump of a live object (`kubectl get -o yaml`) and
    will not recreate the allocation it shows.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu-claim
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
        status:
          reservedFor:
          - resource: pods
            name: trainer
            uid: 4f6c1a7e-2b1d-4c1e-9f0a-1b2c3d4e5f60
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu-claim
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com

    Upstream:
    kubernetes/kubernetes `pkg/registry/resource/resourceclaim/strategy.go` (`PrepareForCreate`).
    """
    yield from warning_findings(obj, ctx, Topic.STATUS_ON_CREATE)


@rule(
    "DRA191",
    "admin-access-needs-namespace-label",
    Severity.WARNING,
    kinds=["ResourceClaim", "ResourceClaimTemplate"],
)
def admin_access_needs_namespace_label(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A request asks for admin access, which the apiserver allows only in labelled namespaces.

    Why:
    Admin access gives a pod a device that may already be in use by others (for monitoring or
    maintenance). The apiserver rejects the claim with `Forbidden` unless its namespace has
    the label `resource.kubernetes.io/admin-access: "true"`. This rule warns when the Namespace
    is not among the inputs (or `--context` files), so its label cannot be checked; when it is,
    DRA310 checks the label. The apiserver prints the path without `exactly`, also for templates.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu-monitor
          namespace: team-a
        spec:
          devices:
            requests:
            - name: gpus
              exactly:
                deviceClassName: gpu.example.com
                allocationMode: All
                adminAccess: true
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu-monitor
          namespace: team-a
        spec:
          devices:
            requests:
            - name: gpus
              exactly:
                deviceClassName: gpu.example.com
                allocationMode: All

    Upstream:
    kubernetes/kubernetes `pkg/registry/resource/utils.go` (`AuthorizedForAdmin`).
    """
    if obj.effective_namespace in ctx.workspace.namespaces:
        return  # the Namespace is among the inputs: DRA310 checks its label
    yield from warning_findings(obj, ctx, Topic.ADMIN_ACCESS)


@rule("DRA192", "driver-name-not-lowercase", Severity.WARNING, kinds=["ResourceSlice"])
def driver_name_not_lowercase(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A ResourceSlice's driver name contains upper case letters.

    Why:
    The apiserver accepts it (driver names are compared as DNS subdomains after lower-casing)
    but warns, because requests, CEL expressions (`device.driver == "..."`) and allocation
    results compare driver names exactly.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpu.example.com
        spec:
          driver: GPU.example.com
          nodeName: node-1
          pool:
            name: node-1
            resourceSliceCount: 1
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpu.example.com
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool:
            name: node-1
            resourceSliceCount: 1

    Upstream:
    kubernetes/kubernetes `pkg/registry/resource/resourceslice/strategy.go` (`WarningsOnCreate`).
    """
    yield from warning_findings(obj, ctx, Topic.DRIVER_CASE, with_type=False)
