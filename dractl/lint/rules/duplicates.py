"""DRA33x: the inputs as a whole."""

from __future__ import annotations

from collections.abc import Iterator

from dractl.api.model import ApiObject
from dractl.diagnostics import Severity
from dractl.lint.engine import Finding, LintContext
from dractl.lint.registry import rule
from dractl.lint.rules._common import where


def identity(obj: ApiObject) -> tuple[str, str, str, str] | None:
    """What makes an object unique in a cluster: API group, kind, namespace, name.

    The version is not part of it: `resource.k8s.io/v1beta1` and `v1` objects of the same name
    are the same object.
    """
    if obj.name is None:
        return None  # generateName: a new object each time
    return (obj.group, obj.kind, obj.effective_namespace or "", obj.name)


@rule("DRA330", "duplicate-object", Severity.ERROR, scope="set")
def duplicate_object(ctx: LintContext) -> Iterator[Finding]:
    """The inputs define the same object (kind, namespace, name) twice.

    Why:
    `kubectl apply` sends both; the second silently replaces the first, so one of the two
    definitions never takes effect (and `kubectl create` fails with "already exists"). Versions
    do not matter: a `v1beta1` and a `v1` DeviceClass of the same name are one object. Objects
    without a namespace count as being in `default`. `--context` files are not compared: a
    cluster dump is expected to contain the objects being linted.

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
    first: dict[tuple[str, str, str, str], ApiObject] = {}
    for obj in ctx.workspace.checked:
        key = identity(obj)
        if key is None:
            continue
        earlier = first.get(key)
        if earlier is None:
            first[key] = obj
            continue
        _group, kind, namespace, name = key
        what = f'{kind} "{namespace}/{name}"' if namespace else f'{kind} "{name}"'
        yield Finding(
            f"{what} is defined twice (first at {where(earlier)}): `kubectl apply` keeps only "
            "the last definition",
            ("metadata", "name"),
            obj=obj,
        )
