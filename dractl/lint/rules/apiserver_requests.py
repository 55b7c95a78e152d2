"""DRA120–DRA129: device requests, request references, constraints and configuration."""

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


@rule("DRA120", "invalid-allocation-mode", Severity.ERROR, kinds=KINDS)
def invalid_allocation_mode(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """The request's `allocationMode` and `count` do not fit together.

    Why:
    `allocationMode` is `ExactCount` (the default, with `count` defaulting to 1) or `All`.
    `ExactCount` needs a positive `count`; `All` takes every matching device and must not have
    a `count`. The apiserver rejects other modes and contradicting counts. In v1beta1 a request
    without `deviceClassName` is not defaulted, so its empty mode is reported as unsupported.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: all-gpus
        spec:
          devices:
            requests:
            - name: gpus
              exactly:
                deviceClassName: gpu.example.com
                allocationMode: All
                count: 4
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: all-gpus
        spec:
          devices:
            requests:
            - name: gpus
              exactly:
                deviceClassName: gpu.example.com
                allocationMode: All

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`
    (`validateDeviceAllocationMode`), `pkg/apis/resource/v1/defaults.go`.
    """
    yield from error_findings(obj, ctx, Topic.ALLOCATION_MODE)


@rule("DRA121", "unknown-request-reference", Severity.ERROR, kinds=KINDS)
def unknown_request_reference(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A constraint or configuration names a request (or `request/subrequest`) the claim does not have.

    Why:
    `constraints[].requests` and `config[].requests` refer to requests of the same claim by
    name, or to a sub-request as `request/subrequest`. The apiserver rejects references to
    names that do not exist, so a typo cannot silently leave a device unconstrained or
    unconfigured.

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
            config:
            - requests: [gpus]
              opaque:
                driver: gpu.example.com
                parameters:
                  apiVersion: gpu.example.com/v1
                  kind: GpuConfig
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
            config:
            - requests: [gpu]
              opaque:
                driver: gpu.example.com
                parameters:
                  apiVersion: gpu.example.com/v1
                  kind: GpuConfig

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`
    (`validateRequestNameRef`).
    """
    yield from error_findings(obj, ctx, Topic.REQUEST_REFERENCE)


@rule("DRA122", "constraint-without-attribute", Severity.ERROR, kinds=KINDS)
def constraint_without_attribute(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A device constraint sets neither `matchAttribute` nor `distinctAttribute`.

    Why:
    A constraint without an attribute constrains nothing; the apiserver rejects it. Without
    the DRAConsumableCapacity gate the error is reported at `matchAttribute`, with it at the
    constraint (upstream's message then says "multiple fields are set", which is its wording).

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu-pair
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
                count: 2
            constraints:
            - requests: [gpu]
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu-pair
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
                count: 2
            constraints:
            - requests: [gpu]
              matchAttribute: gpu.example.com/model

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`
    (`validateDeviceConstraint`).
    """
    yield from error_findings(obj, ctx, Topic.CONSTRAINT)


@rule("DRA123", "invalid-opaque-parameters", Severity.ERROR, kinds=KINDS)
def invalid_opaque_parameters(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """Opaque configuration `parameters` is not a JSON object.

    Why:
    The apiserver stores `opaque.parameters` for the driver and only accepts a JSON object
    (typically a versioned config object with `apiVersion` and `kind`); a string, number or
    list is rejected. Its size limit (10 KiB of the compact JSON kubectl sends) is reported by
    DRA113, a missing value by DRA110.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          config:
          - opaque:
              driver: gpu.example.com
              parameters: sharing=time-slicing
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          config:
          - opaque:
              driver: gpu.example.com
              parameters:
                apiVersion: gpu.example.com/v1
                kind: GpuConfig
                sharing: time-slicing

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go` (`validateRawExtension`).
    """
    yield from error_findings(obj, ctx, Topic.OPAQUE_CONFIG)
