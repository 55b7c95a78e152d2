"""DRA130–DRA149: devices in ResourceSlices, device classes, tolerations and taints."""

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


@rule("DRA130", "invalid-attribute-value", Severity.ERROR, kinds=["ResourceSlice"])
def invalid_attribute_value(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A device attribute does not have exactly one valid value.

    Why:
    Each attribute sets exactly one of `int`, `bool`, `string` or `version` (from 1.36 with
    DRAListTypeAttributes also `ints`, `bools`, `strings`, `versions`, which must not be
    empty). Strings and versions are at most 64 bytes, and a version must be a semantic
    version (semver.org 2.0.0: `1.2.3`, no `v` prefix), so CEL can compare it with
    `semver()`.

    Bad:
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
            attributes:
              driverVersion:
                version: v550.54
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
            attributes:
              driverVersion:
                version: 550.54.0

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`
    (`validateDeviceAttribute`).
    """
    yield from error_findings(obj, ctx, Topic.ATTRIBUTE_VALUE)


@rule("DRA131", "invalid-capacity-request-policy", Severity.ERROR, kinds=["ResourceSlice"])
def invalid_capacity_request_policy(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A capacity's `requestPolicy` is not allowed or not consistent with the capacity.

    Why:
    A request policy only makes sense for a device that can be shared
    (`allowMultipleAllocations: true`). It sets `validValues` (sorted, unique, within the
    capacity, containing `default`) or a `validRange` (`min` required; `default`, `max` and
    every step within the capacity), never both, and always a `default`. The apiserver
    rejects any other combination (gate DRAConsumableCapacity).

    Bad:
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
            capacity:
              memory:
                value: 80Gi
                requestPolicy:
                  default: 10Gi
                  validRange:
                    min: 10Gi
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
            allowMultipleAllocations: true
            capacity:
              memory:
                value: 80Gi
                requestPolicy:
                  default: 10Gi
                  validRange:
                    min: 10Gi

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go` (`validateRequestPolicy`).
    """
    yield from error_findings(obj, ctx, Topic.CAPACITY_POLICY)


@rule("DRA132", "invalid-counters", Severity.ERROR, kinds=["ResourceSlice"])
def invalid_counters(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """Shared counters or a device's counter consumption are malformed.

    Why:
    Counter sets and counters are DNS labels and a set needs at least one counter. From 1.35 a
    slice carries either `sharedCounters` or `devices`, never both; in 1.34 devices consume
    counter sets of their own slice, and the apiserver rejects references to sets or counters
    the slice does not declare (gate DRAPartitionableDevices).

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpu-counters
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool:
            name: node-1
            resourceSliceCount: 2
          sharedCounters:
          - name: gpu-0-memory
            counters:
              Memory:
                value: 80Gi
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpu-counters
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool:
            name: node-1
            resourceSliceCount: 2
          sharedCounters:
          - name: gpu-0-memory
            counters:
              memory:
                value: 80Gi

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go` (`validateCounterSet`,
    `validateDeviceCounterConsumption`).
    """
    yield from error_findings(obj, ctx, Topic.COUNTERS)


@rule("DRA133", "invalid-node-selection", Severity.ERROR, kinds=["ResourceSlice"])
def invalid_node_selection(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A ResourceSlice's node selection is invalid.

    Why:
    `allNodes` and `perDeviceNodeSelection` must be unset or true, `nodeName` unset or a node
    name, `nodeSelector` a valid node selector with exactly one term. Devices may only choose
    their own nodes when the slice sets `perDeviceNodeSelection: true`.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpu.example.com
        spec:
          driver: gpu.example.com
          nodeName: node-1
          allNodes: false
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
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`
    (`validateResourceSliceSpec`, `validateDevice`), `pkg/apis/core/validation`
    (`ValidateNodeSelector`).
    """
    yield from error_findings(obj, ctx, Topic.NODE_SELECTION)


@rule("DRA134", "invalid-binding-conditions", Severity.ERROR, kinds=["ResourceSlice"])
def invalid_binding_conditions(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A device's binding conditions are malformed, duplicated, overlapping or unpaired.

    Why:
    `bindingConditions` and `bindingFailureConditions` (at most 4 each) are condition types
    (qualified names) the scheduler waits for before binding a pod. Each list is unique, they
    do not overlap, and one is required with the other; the apiserver rejects anything else
    (gates DRADeviceBindingConditions and DRAResourceClaimDeviceStatus).

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: fabric-gpus
        spec:
          driver: gpu.example.com
          allNodes: true
          pool:
            name: fabric
            resourceSliceCount: 1
          devices:
          - name: gpu-0
            bindingConditions: [gpu.example.com/Attached]
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: fabric-gpus
        spec:
          driver: gpu.example.com
          allNodes: true
          pool:
            name: fabric
            resourceSliceCount: 1
          devices:
          - name: gpu-0
            bindingConditions: [gpu.example.com/Attached]
            bindingFailureConditions: [gpu.example.com/AttachFailed]

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`
    (`validateDeviceBindingParameters`).
    """
    yield from error_findings(obj, ctx, Topic.BINDING_CONDITIONS)


@rule("DRA135", "invalid-extended-resource-name", Severity.ERROR, kinds=["DeviceClass"])
def invalid_extended_resource_name(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A DeviceClass's `extendedResourceName` is not a valid extended resource name.

    Why:
    Pods request the class through this name in `resources.limits`, so it must be an extended
    resource name: `domain/name`, not in the `kubernetes.io` domain and not prefixed with
    `requests.` (gate DRAExtendedResource).

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          extendedResourceName: gpu
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          extendedResourceName: example.com/gpu

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`
    (`validateDeviceClassSpec`), `pkg/apis/core/v1/helper` (`IsExtendedResourceName`).
    """
    yield from error_findings(obj, ctx, Topic.EXTENDED_RESOURCE)


@rule("DRA140", "invalid-device-toleration", Severity.ERROR, kinds=KINDS)
def invalid_device_toleration(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A request's device toleration is invalid.

    Why:
    The operator is `Equal` (the default) or `Exists`; with `Exists` the value must be empty,
    with `Equal` it must be a label value; the key is a label name and the effect, when set,
    `NoSchedule`, `NoExecute` or (from 1.35) `None`. The apiserver rejects other tolerations
    (gate DRADeviceTaints).

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
                tolerations:
                - key: gpu.example.com/unhealthy
                  operator: Exists
                  value: "true"
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
                tolerations:
                - key: gpu.example.com/unhealthy
                  operator: Exists

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`
    (`validateDeviceToleration`).
    """
    yield from error_findings(obj, ctx, Topic.TOLERATION)


@rule("DRA141", "invalid-device-taint", Severity.ERROR, kinds=["ResourceSlice"])
def invalid_device_taint(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A device taint is invalid.

    Why:
    A taint needs a key (a label name) and an effect: `NoSchedule`, `NoExecute` or (from 1.35)
    `None`; its value, when set, is a label value. The apiserver rejects other taints (gate
    DRADeviceTaints).

    Bad:
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
            taints:
            - key: gpu.example.com/ecc-errors
              value: "3"
              effect: NoUse
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
            taints:
            - key: gpu.example.com/ecc-errors
              value: "3"
              effect: NoSchedule

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go` (`validateDeviceTaint`).
    """
    yield from error_findings(obj, ctx, Topic.TAINT)
