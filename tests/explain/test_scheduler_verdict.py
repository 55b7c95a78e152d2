"""explain gives the kube-scheduler's verdict for a Pod: the filters before DRA (cordoned,
tainted, full nodes) and DRA extended resources, in the FailedScheduling event's words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CASES = [
    (
        "examples/explain/cordoned-gpu-node",
        "ml/train-0",
        "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 cannot allocate all claims, "
        "1 node(s) were unschedulable. still not schedulable, preemption: 0/3 nodes are available: "
        "3 Preemption is not helpful for scheduling.",
        None,
        {"gpu-node-2": ("NodeUnschedulable", ["node(s) were unschedulable"]),
         "cpu-node-1": ("NodeResourcesFit", ["Insufficient cpu", "Insufficient memory"]),
         "gpu-node-1": ("DynamicResources", ["cannot allocate all claims"])},
    ),
    ("examples/explain/extended-resource", "default/trainer", None, "gpu-node-1", {}),
    (
        "examples/explain/extended-resource",
        "default/trainer-plus",
        "0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, preemption: "
        "0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
        None,
        {"gpu-node-1": ("DynamicResources", ["cannot allocate all claims"])},
    ),
]


@pytest.mark.parametrize(("folder", "pod", "message", "selected", "nodes"), CASES)
def test_scheduler_verdict(run_dractl, folder: str, pod: str, message: str | None, selected: str | None,
                           nodes: dict[str, tuple[str, list[str]]]) -> None:
    out = run_dractl("explain", "-o", "json", "--pod", pod, folder)
    assert out.returncode == (0 if selected else 1), out.stderr
    data = json.loads(out.stdout)
    (unit,) = data["units"]
    scheduler = unit["scheduler"]
    assert scheduler["message"] == message
    assert scheduler["selectedNode"] == selected
    by_name = {n["name"]: n for n in data["nodes"]}
    for name, (plugin, reasons) in nodes.items():
        assert (by_name[name]["plugin"], by_name[name]["reasons"]) == (plugin, reasons)


def test_taint_decides_when_the_node_is_not_cordoned(run_dractl, tmp_path) -> None:
    cluster = (tmp_path / "cluster.yaml")
    text = Path("examples/explain/cordoned-gpu-node/cluster.yaml").read_text().replace("  unschedulable: true\n", "")
    cluster.write_text(text)
    out = run_dractl("explain", "-o", "json", "--pod", "ml/train-0", str(cluster), "examples/explain/cordoned-gpu-node/pod.yaml")
    node = {n["name"]: n for n in json.loads(out.stdout)["nodes"]}["gpu-node-2"]
    assert (node["status"], node["plugin"], node["reasons"]) == (
        "unschedulable-and-unresolvable", "TaintToleration", ["node(s) had untolerated taint(s)"])


def test_extended_resource_claim(run_dractl) -> None:
    out = run_dractl("explain", "-o", "json", "--pod", "default/trainer", "examples/explain/extended-resource")
    special = json.loads(out.stdout)["units"][0]["scheduler"]["specialClaim"]
    assert special["requests"] == [{"name": "container-0-request-0", "exactly": {
        "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 2}}]
    assert special["requestMappings"] == [
        {"containerName": "trainer", "resourceName": "example.com/gpu", "requestName": "container-0-request-0"}]
    assert len(special["allocation"]["devices"]["results"]) == 2


def test_extended_resource_off_in_1_35(run_dractl) -> None:
    # DRAExtendedResource is alpha and off in 1.35: the Pod is not DRA's, and a Pod with no
    # claims is explained only when named.
    out = run_dractl("explain", "-o", "json", "--kubernetes-version", "1.35", "--pod", "default/trainer",
                     "examples/explain/extended-resource")
    scheduler = json.loads(out.stdout)["units"][0]["scheduler"]
    assert scheduler["specialClaim"] is None
    assert "DynamicResources" in scheduler["preFilterSkipped"]
