"""``dractl explain`` end to end: golden text on examples/explain, the JSON contract, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(p for p in (ROOT / "examples" / "explain").iterdir() if p.is_dir())


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_golden_text(scenario: Path, run_dractl, request) -> None:
    out = run_dractl("explain", "--color", "never", str(scenario.relative_to(ROOT)))
    assert out.returncode in (0, 1), out.stderr
    golden = scenario / "expected.txt"
    if request.config.getoption("--update-golden", default=False):
        golden.write_text(out.stdout)
    assert golden.exists(), f"{golden.relative_to(ROOT)} is missing: run pytest --update-golden and check it by eye"
    assert out.stdout == golden.read_text()


def test_json_contract(run_dractl) -> None:
    out = run_dractl("explain", "-o", "json", "examples/explain/gpu-pod/")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    nodes = {n["name"]: n for n in data["nodes"]}
    assert data["nodes"][0]["name"] == "gpu-node-2"  # feasible nodes first
    ok = nodes["gpu-node-2"]
    assert ok["result"] == "allocated" and ok["error"] is None and ok["timedOut"] is False
    (allocation,) = ok["allocations"]
    assert allocation["claim"] == "ml/train-0-gpus"
    assert [r["device"] for r in allocation["allocation"]["devices"]["results"]] == ["gpu-0", "gpu-1"]
    busy = nodes["gpu-node-1"]
    assert busy["result"] == "unschedulable" and busy["allocations"] is None
    (req,) = busy["explanation"]["requests"]
    reasons = {r["reason"]: r for r in req["rejected"]}
    assert reasons["in-use"]["devices"] == ["gpu.example.com/gpu-node-1/gpu-0", "gpu.example.com/gpu-node-1/gpu-2"]
    assert reasons["in-use"]["message"] == "in use by serving/inference-0"
    assert data["units"][0]["feasibleNodes"] == ["gpu-node-2"]
    closest = busy["explanation"]["closest"]
    assert (closest["request"], closest["missing"]) == ("gpus", 1)
    assert (req["candidates"], req["candidateDevices"]) == (4, None)
    verbose = json.loads(run_dractl("explain", "-o", "json", "-v", "--node", "gpu-node-1",
                                    "examples/explain/gpu-pod/").stdout)
    (verbose_request,) = verbose["nodes"][0]["explanation"]["requests"]
    assert verbose_request["candidateDevices"] == [f"gpu.example.com/gpu-node-1/gpu-{i}" for i in range(4)]
    assert closest["blockedBy"] == [
        {"reason": "constraint-conflict", "message": "matchAttribute dra.example.com/numa", "count": 1},
        {"reason": "in-use", "message": "in use by serving/inference-0", "count": 2},
    ]


def test_fits_nowhere_exits_1(run_dractl) -> None:
    out = run_dractl("explain", "--node", "gpu-node-1", "examples/explain/gpu-pod/")
    assert out.returncode == 1
    assert "0 of 1 node can allocate the claim" in out.stdout


def test_missing_template_is_bad_input(run_dractl) -> None:
    out = run_dractl("explain", "examples/explain/gpu-pod/cluster.yaml", "-", stdin=(ROOT / "examples/explain/gpu-pod/pod.yaml").read_text().split("---")[1])
    assert out.returncode == 2
    assert out.stderr == (
        "dractl: error: <stdin>:10:32: Pod ml/train-0: ResourceClaimTemplate ml/two-gpus-same-numa (claim 'gpus') is not in "
        "the input; add it (kubectl get resourceclaimtemplates -A -o yaml)\n"
    )
    assert "Traceback" not in out.stderr


def test_unknown_node_is_bad_input(run_dractl) -> None:
    out = run_dractl("explain", "--node", "nope", "examples/explain/gpu-pod/")
    assert out.returncode == 2
    assert "node nope is not in the input" in out.stderr


def test_nodes_where_first_choices_fit_come_first(run_dractl) -> None:
    out = run_dractl("explain", "-o", "json", "examples/explain/first-available/")
    assert out.returncode == 0, out.stderr
    nodes = json.loads(out.stdout)["nodes"]
    assert [n["name"] for n in nodes] == ["render-node-b", "render-node-a"]
    requests = [[r["request"] for r in n["allocations"][0]["allocation"]["devices"]["results"]] for n in nodes]
    assert requests == [["gpus/h100-pair", "gpus/h100-pair"], ["gpus/one-a100"]]


def test_yaml_is_the_json_data_and_unavailable_devices_are_named_only_with_verbose(run_dractl) -> None:
    import yaml

    as_json = run_dractl("explain", "-o", "json", "examples/explain/gpu-pod/")
    as_yaml = run_dractl("explain", "-o", "yaml", "examples/explain/gpu-pod/")
    assert as_json.returncode == as_yaml.returncode == 0, as_json.stderr + as_yaml.stderr
    data = json.loads(as_json.stdout)
    assert yaml.safe_load(as_yaml.stdout) == data
    cpu_node = next(n for n in data["nodes"] if n["name"] == "cpu-node-1")
    # One entry per reason, counted, devices not named (a large cluster would name them all).
    assert cpu_node["explanation"]["unavailable"] == [
        {"reason": "other-node", "message": "not available on this node (slices or devices for other nodes)",
         "count": 6, "devices": None},
    ]
    verbose = json.loads(run_dractl("explain", "-o", "json", "--verbose", "examples/explain/gpu-pod/").stdout)
    cpu_node = next(n for n in verbose["nodes"] if n["name"] == "cpu-node-1")
    groups = cpu_node["explanation"]["unavailable"]
    assert sum(g["count"] for g in groups) == 6
    assert sorted(d for g in groups for d in g["devices"]) == [
        f"gpu.example.com/gpu-node-{n}/gpu-{i}" for n in (1, 2) for i in range(4 if n == 1 else 2)
    ]


def test_rejected_groups_name_five_devices_without_verbose(run_dractl, tmp_path: Path) -> None:
    devices = "".join(f"  - {{name: nic-{i}}}\n" for i in range(12))
    (tmp_path / "in.yaml").write_text(
        (ROOT / "examples/explain/gpu-pod/cluster.yaml").read_text()
        + (ROOT / "examples/explain/gpu-pod/pod.yaml").read_text().join(["---\n", "---\n"])
        + "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: fabric}\n"
        "spec:\n  driver: net.example.com\n  allNodes: true\n"
        "  pool: {name: fabric, generation: 1, resourceSliceCount: 1}\n  devices:\n" + devices
    )
    for flags, named in (((), 5), (("--verbose",), 12)):
        out = run_dractl("explain", "-o", "json", "--node", "gpu-node-2", *flags, str(tmp_path / "in.yaml"))
        assert out.returncode == 0, out.stderr
        (node,) = json.loads(out.stdout)["nodes"]
        (request,) = node["explanation"]["requests"]
        (group,) = [g for g in request["rejected"] if g["reason"] == "class-selector-false"]
        assert group["count"] == 12 and len(group["devices"]) == named
        assert group["devices"][:2] == ["net.example.com/fabric/nic-0", "net.example.com/fabric/nic-1"]
