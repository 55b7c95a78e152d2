"""DRA110–DRA119: required fields, one-ofs, unique list entries and size limits."""

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


@rule("DRA110", "required-value-missing", Severity.ERROR, kinds=KINDS)
def required_value_missing(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A field the apiserver requires is missing or empty.

    Why:
    The apiserver rejects the object with `Required value`: a request without a device class,
    a selector without `cel`, a configuration without `opaque`, opaque configuration without
    driver or parameters, a slice without a pool name, a taint without an effect, a counter set
    without counters. Checked after the apiserver's defaulting, so an omitted
    `allocationMode` or toleration `operator` is not reported.

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
                count: 1
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
                count: 1

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`.
    """
    yield from error_findings(obj, ctx, Topic.REQUIRED)


@rule("DRA111", "one-of-violation", Severity.ERROR, kinds=KINDS)
def one_of_violation(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """Exactly one of a group of fields must be set, and none or several are.

    Why:
    A request is either `exactly` one kind of device or a `firstAvailable` list of
    alternatives; a ResourceSlice is for one node (`nodeName`), a `nodeSelector`, `allNodes` or
    `perDeviceNodeSelection`, and with the latter each device picks exactly one of them. The
    apiserver rejects anything else. In v1beta1 a request that names a device class and also
    has `firstAvailable` has both.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpu.example.com
        spec:
          driver: gpu.example.com
          nodeName: node-1
          allNodes: true
          pool:
            name: node-1
            resourceSliceCount: 1
          devices:
          - name: gpu-0
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
          devices:
          - name: gpu-0

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go` (`validateDeviceRequest`,
    `validateResourceSliceSpec`, `validateDevice`).
    """
    yield from error_findings(obj, ctx, Topic.ONE_OF)


@rule("DRA112", "duplicate-entry", Severity.ERROR, kinds=KINDS)
def duplicate_entry(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A list holds the same name twice where names must be unique.

    Why:
    Requests, sub-requests, devices, counter sets, counter consumptions and request references
    are addressed by name; the apiserver rejects duplicates (`Duplicate value`). Before
    Kubernetes 1.35 the error points at the duplicate's `name`, from 1.35 on at the entry.

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
            - name: gpu
              exactly:
                deviceClassName: nic.example.com
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
            - name: nic
              exactly:
                deviceClassName: nic.example.com

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go` (`validateSet`).
    """
    yield from error_findings(obj, ctx, Topic.DUPLICATE)


@rule("DRA113", "limit-exceeded", Severity.ERROR, kinds=KINDS)
def limit_exceeded(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A list, map, name or value exceeds the size limit of the chosen Kubernetes release.

    Why:
    The apiserver caps everything that the scheduler must hold in memory: 32 requests,
    constraints and configurations per claim, 8 sub-requests, 32 selectors, 128 devices per
    slice (64 once a device has taints or consumes counters, from 1.35), 32 attributes and
    capacities per device, 4 taints per device in 1.34 and 16 later, counter limits that
    changed in 1.35, 63-byte driver names and 10 KiB of opaque parameters (the documented
    maximum of 16 tolerations is not checked). From 1.35 a list that is too long is reported
    alone; 1.34 also validates each of its entries.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpu
        spec:
          driver: gpu.accelerators.example.com.this-name-is-longer-than-sixty-three.io
          nodeName: node-1
          pool:
            name: node-1
            resourceSliceCount: 1
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpu
        spec:
          driver: gpu.accelerators.example.com
          nodeName: node-1
          pool:
            name: node-1
            resourceSliceCount: 1

    Upstream:
    kubernetes/api `resource/v1/types.go` (limit constants), kubernetes/kubernetes
    `pkg/apis/resource/validation/validation.go` (`validateSlice`, `validateSet`, `validateMap`).
    """
    yield from error_findings(obj, ctx, Topic.LIMIT)
