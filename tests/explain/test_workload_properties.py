"""Placing replicas one after another is the allocator run once per replica, on a cluster that
holds the earlier replicas' claims as allocated claims.

For random clusters (node-local and network-attached pools, exclusive and shared devices with
consumable capacity, partitions that consume counters) and random workloads, every placed replica is replayed through a fresh
allocator whose inventory is built from the input plus the earlier replicas' claims with their
allocations: it must give the same allocation on the node the replica got, that node must be
the placement policy's choice among the nodes where the replica fits, and for the first
replica that did not fit, no allocation on any node.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dractl.allocator import Allocator, Inventory, NodeInfo
from dractl.allocator.inputs import allocator_objects
from dractl.allocator.nodes import parse_node_selector
from dractl.allocator.replicas import with_allocation
from dractl.api.model import build_all
from dractl.api.releases import Features
from dractl.api.workspace import Workspace
from dractl.explain.run import ExplainSettings, explain
from dractl.explain.workloads import WorkloadResult
from dractl.load import load_text

DRIVER = "gpu.example.com"


def _fits(allocator: Allocator, node: str, replica: Any, earlier: list[dict[str, Any]]) -> bool:
    """Whether the replica's claims fit on `node`, the claims named directly (allocated with
    replica 0) allowing it."""
    for claim in replica.unit.preallocated:
        selector = claim.data["status"]["allocation"].get("nodeSelector")
        if selector and not parse_node_selector(selector).matches(NodeInfo(node)):
            return False
    return allocator.allocate(NodeInfo(node), [c.data for c in replica.unit.claims]).status == "allocated"


def _device(draw: Any, name: str) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name}
    if draw(st.booleans()):
        out["allowMultipleAllocations"] = True
        out["capacity"] = {"mem": {"value": str(draw(st.integers(1, 6)))}}
    return out


@st.composite
def scenarios(draw: Any) -> dict[str, Any]:
    nodes = [f"node-{i}" for i in range(1, draw(st.integers(1, 3)) + 1)]
    objects: list[dict[str, Any]] = [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}},
    ]
    for node in nodes:
        objects.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": node}})
        devices = [_device(draw, f"gpu-{i}") for i in range(draw(st.integers(0, 3)))]
        counted = draw(st.booleans())
        pool = {"name": node, "generation": 1, "resourceSliceCount": 2 if counted else 1}
        if counted:
            # Partitions: every device takes one unit of a counter the pool has fewer of.
            for entry in devices:
                entry["consumesCounters"] = [{"counterSet": "units", "counters": {"n": {"value": "1"}}}]
            objects.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                            "metadata": {"name": f"{node}-counters"},
                            "spec": {"driver": DRIVER, "nodeName": node, "pool": pool, "sharedCounters": [
                                {"name": "units", "counters": {"n": {"value": str(draw(st.integers(1, 2)))}}}]}})
        objects.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": node},
                        "spec": {"driver": DRIVER, "nodeName": node, "devices": devices, "pool": pool}})
    if draw(st.booleans()):
        devices = [_device(draw, f"net-{i}") for i in range(draw(st.integers(1, 3)))]
        objects.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "fabric"},
                        "spec": {"driver": DRIVER, "allNodes": True, "devices": devices,
                                 "pool": {"name": "fabric", "generation": 1, "resourceSliceCount": 1}}})
    claim_entries = []
    for index in range(draw(st.integers(1, 2))):
        exactly: dict[str, Any] = {"deviceClassName": "gpu", "count": draw(st.integers(1, 2))}
        if draw(st.booleans()):
            exactly["capacity"] = {"requests": {"mem": str(draw(st.integers(1, 3)))}}
        objects.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                        "metadata": {"name": f"t{index}", "namespace": "ml"},
                        "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}}})
        claim_entries.append({"name": f"c{index}", "resourceClaimTemplateName": f"t{index}"})
    if draw(st.booleans()):
        objects.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                        "metadata": {"name": "shared", "namespace": "ml"},
                        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}})
        claim_entries.insert(draw(st.integers(0, len(claim_entries))),
                             {"name": "s", "resourceClaimName": "shared"})
    kind = draw(st.sampled_from(["Deployment", "StatefulSet", "DaemonSet"]))
    spec: dict[str, Any] = {"selector": {"matchLabels": {"app": "w"}}, "template": {
        "metadata": {"labels": {"app": "w"}},
        "spec": {"resourceClaims": claim_entries, "containers": [{"name": "c", "image": "busybox"}]}}}
    if kind != "DaemonSet":
        spec["replicas"] = draw(st.integers(2, 6))
    objects.append({"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "w", "namespace": "ml"},
                    "spec": spec})
    return {"objects": objects, "placement": draw(st.sampled_from(["pack", "spread"])), "nodes": nodes}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_replaying_the_replicas_one_at_a_time_gives_the_same_result(scenario: dict[str, Any]) -> None:
    text = "\n---\n".join(json.dumps(o) for o in scenario["objects"])
    workspace = Workspace(build_all(load_text(text, "in.yaml").objects))
    features = Features("1.36", {})
    (result,) = explain(workspace, ExplainSettings(features=features, placement=scenario["placement"])).workloads
    assert isinstance(result, WorkloadResult)
    base = allocator_objects(workspace, features)
    earlier: list[dict[str, Any]] = []  # the claims of the replicas placed so far, allocated

    def fresh() -> Allocator:
        inventory = Inventory.from_objects([*base, *earlier], consumable_capacity=True)
        return Allocator(inventory, release="1.36", gates=features.gates)

    per_node: Counter[str] = Counter()
    previous = None
    for replica in result.placed:
        outcome = replica.node.outcome
        assert outcome is not None and outcome.allocations is not None
        again = fresh().allocate(NodeInfo(replica.node.node), [c.data for c in replica.unit.claims])
        assert (again.status, again.allocations) == ("allocated", outcome.allocations), replica.index
        if result.workload.daemon_nodes is None:
            # The node is the policy's choice among the nodes where the replica fits.
            fits = [n for n in scenario["nodes"] if _fits(fresh(), n, replica, earlier)]
            if scenario["placement"] == "pack":
                expected = previous if previous in fits else fits[0]
            else:
                expected = min(fits, key=lambda n: per_node[n])
            assert replica.node.node == expected, (replica.index, fits)
        per_node[replica.node.node] += 1
        previous = replica.node.node
        earlier.extend(with_allocation(c, a).data for c, a in zip(replica.unit.claims, outcome.allocations,
                                                                    strict=True))
    if result.explained is None:
        assert len(result.placed) == result.wanted
        return
    assert result.explained_index == len(result.placed)
    for node in result.explained.nodes:
        if node.outcome is None:  # a shared claim allocated for other nodes
            assert node.error is not None and "already allocated for other nodes" in node.error
            continue
        again = fresh().allocate(NodeInfo(node.node), [c.data for c in result.explained.unit.claims])
        assert again.status != "allocated" and node.status == again.status, node.node
