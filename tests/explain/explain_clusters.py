"""Clusters for the tests of explain's HTML report, and what the page does with a group's data."""

from __future__ import annotations

from typing import Any

from dractl.explain.html_report import NODE_TOKEN

CLASS = {
    "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
    "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
}


def gpu_cluster(nodes: int, busy: bool = False) -> list[dict[str, Any]]:
    """Nodes of 8 GPUs on two PCIe roots; every third node has A100s, the others H100s; with
    `busy`, gpu-0 of every H100 node is in use by a claim of its own."""
    docs: list[dict[str, Any]] = [CLASS]
    for n in range(nodes):
        model = "A100" if n % 3 == 0 else "H100"
        docs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{n}"}})
        docs.append({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"node-{n}-gpus"},
            "spec": {"driver": "gpu.example.com", "nodeName": f"node-{n}",
                     "pool": {"name": f"node-{n}", "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": f"gpu-{i}", "attributes": {"model": {"string": model},
                                                                     "pcieRoot": {"string": f"pci-{i // 4}"}}}
                                 for i in range(8)]},
        })
        if busy and model == "H100":
            docs.append({
                "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                "metadata": {"name": f"busy-{n}", "namespace": "default"},
                "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
                "status": {"allocation": {"devices": {"results": [
                    {"request": "gpu", "driver": "gpu.example.com", "pool": f"node-{n}", "device": "gpu-0"}]}}},
            })
    docs.append({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "four-h100", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpus", "exactly": {
            "deviceClassName": "gpu.example.com", "count": 4,
            "selectors": [{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "H100"'}}]}}],
            "constraints": [{"requests": ["gpus"], "matchAttribute": "gpu.example.com/pcieRoot"}]}},
    })
    return docs


def filled(value: Any, node: str) -> Any:
    """What the page does to show a group's data for one of its nodes."""
    if isinstance(value, str):
        return value.replace(NODE_TOKEN, node)
    if isinstance(value, dict):
        return {filled(k, node): filled(v, node) for k, v in value.items()}
    if isinstance(value, list):
        return [filled(v, node) for v in value]
    return value
