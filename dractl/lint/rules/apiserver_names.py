"""DRA100–DRA109: names and object metadata, as the apiserver validates them on create."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from dractl.api.validation import KINDS, Topic
from dractl.diagnostics import Severity
from dractl.lint.registry import rule
from dractl.lint.rules._apiserver import error_findings

if TYPE_CHECKING:
    from dractl.api.model import ApiObject
    from dractl.lint.engine import Finding, LintContext


@rule("DRA101", "invalid-object-metadata", Severity.ERROR, kinds=KINDS)
def invalid_object_metadata(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """The object's metadata is invalid (name, generateName, namespace, labels, annotations, finalizers).

    Why:
    The apiserver validates `metadata` before anything else and rejects the object: names must be
    DNS subdomains, label keys qualified names and label values at most 63 characters of
    `[A-Za-z0-9_.-]`, annotation keys qualified names, finalizers qualified names. A claim
    template's `spec.metadata` may only set labels and annotations.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu-claim
          labels:
            team: machine learning
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu-claim
          labels:
            team: machine-learning
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com

    Upstream:
    kubernetes/apimachinery `pkg/api/validation/objectmeta.go` (`ValidateObjectMeta`),
    kubernetes/kubernetes `pkg/apis/core/validation` (`ValidateTemplateObjectMeta`).
    """
    yield from error_findings(obj, ctx, Topic.METADATA)


@rule("DRA102", "invalid-name-format", Severity.ERROR, kinds=KINDS)
def invalid_name_format(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A name inside the spec is not a DNS label or DNS subdomain where the apiserver needs one.

    Why:
    Request, sub-request, device and counter names must be DNS labels (lower case, digits and
    `-`, at most 63 characters); device class names, node names and pool name segments DNS
    subdomains; driver names DNS subdomains (upper case is tolerated). They end up in
    allocation results and CEL, so the apiserver rejects anything else.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu-claim
        spec:
          devices:
            requests:
            - name: GPU_0
              exactly:
                deviceClassName: gpu.example.com
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu-claim
        spec:
          devices:
            requests:
            - name: gpu-0
              exactly:
                deviceClassName: gpu.example.com

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go` (`validateRequestName`,
    `validateDeviceName`, `validatePoolName`, `validateDriverName`).
    """
    yield from error_findings(obj, ctx, Topic.NAME_FORMAT)


@rule("DRA103", "invalid-qualified-name", Severity.ERROR, kinds=KINDS)
def invalid_qualified_name(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """An attribute or capacity name is not a valid qualified name (`[domain/]identifier`).

    Why:
    Attribute and capacity names are C identifiers of at most 32 characters, optionally
    prefixed by a DNS-subdomain domain of at most 63 characters and a slash; constraints
    (`matchAttribute`, `distinctAttribute`) must name the domain. CEL selectors reach the
    values through these names, so the apiserver rejects names it could not address.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: two-gpus
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
                count: 2
            constraints:
            - requests: [gpu]
              matchAttribute: numa-node
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: two-gpus
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
                count: 2
            constraints:
            - requests: [gpu]
              matchAttribute: gpu.example.com/numaNode

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`
    (`validateQualifiedName`, `validateFullyQualifiedName`).
    """
    yield from error_findings(obj, ctx, Topic.QUALIFIED_NAME)
