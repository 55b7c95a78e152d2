"""DRA50x: best practice for single objects — valid, accepted, and very likely not meant.

An `expression:` written beside `cel:` instead of under it is an unknown field, which the schema
check reports (with "did you mean to indent expression under cel?"); it is not repeated here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dractl.api.model import ApiObject
from dractl.diagnostics import Severity
from dractl.lint.engine import Finding, LintContext
from dractl.lint.registry import rule
from dractl.lint.rules._claims import iter_requests, requests_path
from dractl.lint.rules._common import where

CLAIM_KINDS = ("ResourceClaim", "ResourceClaimTemplate")


def _has_selectors(data: dict[str, Any]) -> bool:
    selectors = data.get("selectors")
    return isinstance(selectors, list) and len(selectors) > 0


@rule("DRA501", "all-devices-without-selector", Severity.WARNING, kinds=CLAIM_KINDS)
def all_devices_without_selector(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """`allocationMode: All` with no selector in the request or its DeviceClass takes every device of every driver.

    Why:
    With `All`, the claim gets every device on the node that its DeviceClass and its own
    selectors let through (or none, if one of them is in use). Taking all devices of a class
    is often the point: every chip of a TPU slice, every RDMA NIC next to the GPUs, every
    device for a monitoring agent. It is most likely wrong when nothing narrows the devices
    down at all: a DeviceClass without selectors matches every device of every driver, so
    the claim takes the node's GPUs, NICs and everything else, and keeps every other Pod
    that needs one of them off the node. dractl reports it when the DeviceClass is among the
    inputs (or `--context`) and has no selector, and the request has none either; admin
    access (monitoring) is not reported. Add a selector (`device.driver == "..."`) to the
    request or, better, to the class.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: accelerators
        spec: {}
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaimTemplate
        metadata:
          name: all-gpus
        spec:
          spec:
            devices:
              requests:
              - name: gpus
                exactly:
                  deviceClassName: accelerators
                  allocationMode: All
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: accelerators
        spec: {}
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaimTemplate
        metadata:
          name: all-gpus
        spec:
          spec:
            devices:
              requests:
              - name: gpus
                exactly:
                  deviceClassName: accelerators
                  allocationMode: All
                  selectors:
                  - cel:
                      expression: device.driver == "gpu.example.com"
    """
    classes = ctx.workspace.device_classes
    for request in iter_requests(obj):
        data = request.data
        if data.get("allocationMode") != "All" or _has_selectors(data):
            continue
        if data.get("adminAccess") is True:
            continue  # monitoring every device is what admin access is for
        device_class = classes.get(request.device_class or "")
        if device_class is None:
            continue  # what the class lets through is not known: likely a narrow class
        spec = device_class.get(("spec",))
        if isinstance(spec, dict) and _has_selectors(spec):
            continue  # a class narrows the devices: taking them all is a choice
        yield Finding(
            f'request "{request.label}" asks for all devices on the node that DeviceClass '
            f'"{request.device_class}" ({where(device_class)}) admits, and neither the class nor '
            "the request has a selector: it takes every device of every driver there",
            (*request.path, "allocationMode"),
            hint='add a selector such as device.driver == "<driver>" to the class or the request',
        )


def _comparable(sub: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in sub.items() if k != "name"}


@rule("DRA502", "identical-subrequests", Severity.WARNING, kinds=CLAIM_KINDS)
def identical_subrequests(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """Two `firstAvailable` subrequests of a request ask for exactly the same thing.

    Why:
    The scheduler tries the subrequests in order and takes the first that fits. A subrequest
    identical to an earlier one (apart from its name) can never fit when that one did not, so it
    is dead weight — usually a copy-paste whose selector or count was meant to change.
    Compared after the apiserver's defaulting (`count: 1` is the same as no count).

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: big-or-small-gpu
        spec:
          devices:
            requests:
            - name: gpu
              firstAvailable:
              - name: big
                deviceClassName: gpu.example.com
                selectors:
                - cel: {expression: device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0}
              - name: small
                deviceClassName: gpu.example.com
                selectors:
                - cel: {expression: device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0}
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: big-or-small-gpu
        spec:
          devices:
            requests:
            - name: gpu
              firstAvailable:
              - name: big
                deviceClassName: gpu.example.com
                selectors:
                - cel: {expression: device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0}
              - name: small
                deviceClassName: gpu.example.com
    """
    base = requests_path(obj)
    requests: Any = ctx.defaulted(obj)
    for part in base or ():
        requests = requests.get(part) if isinstance(requests, dict) else None
    if base is None or not isinstance(requests, list):
        return
    for i, request in enumerate(requests):
        subrequests = request.get("firstAvailable") if isinstance(request, dict) else None
        if not isinstance(subrequests, list):
            continue
        seen: list[tuple[dict[str, Any], str]] = []
        for j, sub in enumerate(subrequests):
            if not isinstance(sub, dict):
                continue
            same = _comparable(sub)
            earlier = next((name for data, name in seen if data == same), None)
            if earlier is None:
                seen.append((same, str(sub.get("name"))))
                continue
            yield Finding(
                f'subrequest "{sub.get("name")}" is identical to subrequest "{earlier}" '
                "before it: whenever it could fit, the earlier one already did",
                (*base, i, "firstAvailable", j, "name"),
            )


@rule("DRA503", "device-class-without-selector", Severity.WARNING, kinds=("DeviceClass",))
def device_class_without_selector(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A DeviceClass has no selector, so it matches every device of every driver.

    Why:
    A request for this class can be given any device in the cluster — a GPU, a NIC, a CPU
    partition — whichever the scheduler finds first. DeviceClasses normally select at least
    the driver (`device.driver == "..."`).

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec: {}
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel:
              expression: device.driver == "gpu.example.com"
    """
    spec = obj.get(("spec",))
    if isinstance(spec, dict) and _has_selectors(spec):
        return
    if isinstance(spec, dict):
        path: tuple[str, ...] = ("spec", "selectors") if "selectors" in spec else ("spec",)
    else:
        path = ("metadata", "name")
    yield Finding(
        f'DeviceClass "{obj.name}" has no selector: it matches every device of every driver',
        path,
    )
