"""dractl.synthetic: the clusters benchmarks and tests already use stay as they were, and the Pod
shape (Nodes with a kubelet's status and the GPU taint, a Pod that uses the claim and tolerates
the taint) is the claim-only cluster for the allocator, with a Pod that fits where the claim did."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dractl import synthetic


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value).encode()).hexdigest()[:16]


def test_the_claim_only_clusters_are_unchanged() -> None:
    """Digests of the objects written before the Pod shape existed: benchmarks compare runs of
    these clusters across changes, and the upstream binary reads the same file."""
    assert _digest(synthetic.cluster(7, 5, 130)) == "805ae0298baf22db"
    assert _digest(synthetic.cluster(9, busy=True)) == "10eeee4c277192a7"
    assert _digest(synthetic.kubectl_dump(synthetic.cluster(3, 2, 2, busy=True))) == "e02b51165e06ab6c"
    assert _digest(synthetic.kubectl_dump(synthetic.cluster(4, 8, 0))) == "c4702c7df24ac0d1"


def test_the_pod_shape_is_the_claim_only_cluster_with_nodes_status_taints_and_a_pod() -> None:
    plain = synthetic.cluster(6, 4, 3)
    shaped = synthetic.cluster(6, 4, 3, pod=True)
    others = [o for o in shaped if o["kind"] not in ("Node", "Pod")]
    assert others == [o for o in plain if o["kind"] != "Node"]
    nodes = [o for o in shaped if o["kind"] == "Node"]
    assert [n["metadata"] for n in nodes] == [o["metadata"] for o in plain if o["kind"] == "Node"]
    for node in nodes:
        assert node["spec"] == {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]}
        status = node["status"]
        assert {"cpu", "memory", "pods"} <= set(status["allocatable"])
        assert {"conditions", "addresses", "images", "nodeInfo", "capacity"} <= set(status)
        # Digits only would be a number to Go's YAML reader (the upstream binary's).
        assert not status["nodeInfo"]["machineID"].isdigit()
    pods = [o for o in shaped if o["kind"] == "Pod"]
    assert len(pods) == 1 and f"{pods[0]['metadata']['namespace']}/{pods[0]['metadata']['name']}" == synthetic.POD
    spec = pods[0]["spec"]
    assert spec["resourceClaims"] == [{"name": "gpus", "resourceClaimName": "four-h100"}]
    assert spec["containers"][0]["resources"]["requests"] == {"cpu": "16", "memory": "128Gi"}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in spec["tolerations"]


def test_a_dump_of_the_pod_shape_keeps_the_nodes_status_and_taints() -> None:
    dump = synthetic.kubectl_dump(synthetic.cluster(2, 2, pod=True))
    nodes = [i for i in dump["items"] if i["kind"] == "Node"]
    for n, node in enumerate(nodes):
        assert node["status"] == synthetic.cluster(2, 2, pod=True)[2 + 2 * n]["status"]
        assert node["spec"]["taints"] == [synthetic.GPU_TAINT]
        assert {"podCIDR", "providerID"} <= set(node["spec"])
    (pod,) = [i for i in dump["items"] if i["kind"] == "Pod"]
    assert pod["status"]["phase"] == "Pending"
    assert pod["spec"]["schedulerName"] == "default-scheduler"
    assert [t["key"] for t in pod["spec"]["tolerations"]] == [
        "nvidia.com/gpu", "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]
    assert [f["manager"] for f in pod["metadata"]["managedFields"]] == ["kubectl-client-side-apply", "kube-scheduler"]


def _written(objects: list[dict[str, Any]], kubectl: str | None = None) -> str:
    out = io.StringIO()
    synthetic.write(objects, out, kubectl)
    return out.getvalue()


def test_the_pod_fits_where_the_claim_alone_did(run_dractl, tmp_path: Path) -> None:
    claim_only = tmp_path / "claim.yaml"
    claim_only.write_text(_written(synthetic.cluster(9)))
    shaped = tmp_path / "pod.yaml"
    shaped.write_text(_written(synthetic.cluster(9, pod=True)))
    before = json.loads(run_dractl("explain", "-o", "json", str(claim_only)).stdout)
    got = run_dractl("explain", "-o", "json", str(shaped))
    assert (got.returncode, got.stderr) == (0, "")
    after = json.loads(got.stdout)
    assert [u["title"] for u in after["units"]] == [f"pod {synthetic.POD}"]
    assert after["units"][0]["feasibleNodes"] == before["units"][0]["feasibleNodes"]
    assert {n["name"]: n["result"] for n in after["nodes"]} == {n["name"]: n["result"] for n in before["nodes"]}
    # Every node went through the scheduler's plugins; only the allocator turned any away.
    assert {(n["result"], n["status"], n["plugin"]) for n in after["nodes"]} == {
        ("allocated", "schedulable", None), ("unschedulable", "unschedulable-and-unresolvable", "DynamicResources")}
    for kubectl in ("yaml", "json"):
        dump = tmp_path / f"dump.{kubectl}"
        dump.write_text(_written(synthetic.cluster(9, pod=True), kubectl))
        assert run_dractl("explain", "-o", "json", str(dump)).stdout == got.stdout


def test_without_the_toleration_the_taint_keeps_the_pod_off_every_node(run_dractl, tmp_path: Path) -> None:
    objects = synthetic.cluster(3, pod=True)
    objects[-1]["spec"].pop("tolerations")
    path = tmp_path / "pod.yaml"
    path.write_text(_written(objects))
    nodes = json.loads(run_dractl("explain", "-o", "json", str(path)).stdout)["nodes"]
    assert {(n["plugin"], n["detail"]) for n in nodes} == {("TaintToleration", "nvidia.com/gpu=present:NoSchedule")}


@pytest.mark.parametrize("options", [["4", "2"], ["4", "2", "--pod", "--kubectl", "json"]])
def test_the_command_writes_a_cluster(options: list[str]) -> None:
    written = subprocess.run([sys.executable, "-m", "dractl.synthetic", *options], capture_output=True, text=True,
                             check=True).stdout
    if "--kubectl" in options:
        items = json.loads(written)["items"]
        assert [i["kind"] for i in items].count("Pod") == 1
    else:
        assert written == _written(synthetic.cluster(4, 2))
