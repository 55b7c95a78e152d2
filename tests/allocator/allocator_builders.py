"""Small builders for v1-shaped DRA objects in allocator tests."""

from __future__ import annotations

from typing import Any

from dractl.allocator import Allocator, AllocatorFeatures, Inventory, Outcome
from dractl.api.defaults import apply_defaults
from dractl.api.releases import Features


def device_class(name: str, *expressions: str, config: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": e}} for e in expressions]}
    if config:
        spec["config"] = config
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def device(name: str, *, attributes: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name}
    if attributes:
        out["attributes"] = {
            key: value if isinstance(value, dict) else {_kind(value): value} for key, value in attributes.items()
        }
    out.update(fields)
    return out


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    return "string"


def resource_slice(name: str, devices: list[dict[str, Any]], *, driver: str = "gpu.example.com",
                   pool: str | None = None, node: str | None = "node-1", count: int = 1, generation: int = 1,
                   **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "driver": driver,
        "pool": {"name": pool or node or name, "generation": generation, "resourceSliceCount": count},
        "devices": devices,
    }
    if node is not None and "allNodes" not in spec and "nodeSelector" not in spec \
            and "perDeviceNodeSelection" not in spec:
        body["nodeName"] = node
    body.update(spec)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": body}


def request(name: str, device_class_name: str = "gpu", count: int = 1, *, mode: str = "ExactCount",
            selectors: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": device_class_name, "allocationMode": mode}
    if mode == "ExactCount":
        exactly["count"] = count
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    exactly.update(extra)
    return {"name": name, "exactly": exactly}


def claim(name: str, *requests: dict[str, Any], constraints: list[dict[str, Any]] | None = None,
          namespace: str | None = None, config: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    devices: dict[str, Any] = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    if config:
        devices["config"] = config
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    return apply_defaults("ResourceClaim", {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                                            "metadata": metadata, "spec": {"devices": devices}})


def allocated(name: str, *results: tuple[str, str, str], namespace: str = "default") -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"devices": {"requests": [request("r")]}},
        "status": {"allocation": {"devices": {"results": [
            {"request": "r", "driver": d, "pool": p, "device": n} for d, p, n in results
        ]}}},
    }


def node(name: str = "node-1", **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}


def solve(objects: list[dict[str, Any]], claims: list[dict[str, Any]], *, release: str = "1.36",
          gates: dict[str, bool] | None = None, on: str | dict[str, Any] = "node-1", trace: bool = False,
          **kwargs: Any) -> Outcome:
    allocator = make_allocator(objects, release=release, gates=gates)
    target = node(on) if isinstance(on, str) else on
    return allocator.allocate(target, claims, trace=trace, **kwargs)


def make_allocator(objects: list[dict[str, Any]], *, release: str = "1.36",
                   gates: dict[str, bool] | None = None, compiler: Any = None) -> Allocator:
    features = Features(release, gates or {})
    allocator_features = AllocatorFeatures.from_gates(release, features.enabled)  # type: ignore[arg-type]
    inventory = Inventory.from_objects(objects, consumable_capacity=allocator_features.consumable_capacity)
    return Allocator(inventory, release=release, features=allocator_features,  # type: ignore[arg-type]
                     gates=features.gates, compiler=compiler)


def picked(outcome: Outcome, claim_index: int = 0) -> list[str]:
    assert outcome.allocations is not None, (outcome.status, outcome.error)
    return [f"{r['request']}:{r['pool']}/{r['device']}"
            for r in outcome.allocations[claim_index]["devices"]["results"]]
