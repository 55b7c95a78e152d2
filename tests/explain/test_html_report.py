"""``dractl explain -o html``: the page's data (cells, groups, rows) and that it loads nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from dractl import synthetic
from dractl.api.model import build_all
from dractl.api.workspace import Workspace
from dractl.explain.html_report import CATEGORIES, NODE_TOKEN, render_html, report_data
from dractl.explain.render import short_reason, to_data
from dractl.explain.run import ExplainSettings, Explanation, explain
from dractl.load import load_text

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(p for p in (ROOT / "examples" / "explain").iterdir() if p.is_dir())
def run(docs: list[dict[str, Any]] | str) -> Explanation:
    text = docs if isinstance(docs, str) else yaml.safe_dump_all(docs, sort_keys=False)
    loaded = load_text(text, "cluster.yaml")
    return explain(Workspace(build_all(loaded.objects)), ExplainSettings())


KEYS = [key for key, _, _ in CATEGORIES]


def filled(value: Any, node: str) -> Any:
    """What the page does to show a group's data for one of its nodes."""
    if isinstance(value, str):
        return value.replace(NODE_TOKEN, node)
    if isinstance(value, dict):
        return {filled(k, node): filled(v, node) for k, v in value.items()}
    if isinstance(value, list):
        return [filled(v, node) for v in value]
    return value


def cells_by_node(unit: dict[str, Any], strings: list[str]) -> dict[str, dict[str, tuple[str, str]]]:
    """node -> device id -> (category, details), as the page shows them node by node."""
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for group in unit["groups"]:
        for node in group["nodes"]:
            shown = {}
            for column, category, text in group["cells"]:
                col = unit["columns"][column]
                device = filled(f"{col['driver']}/{col['pool']}/{col['device']}", node)
                shown[device] = (KEYS[category], filled(strings[text], node))
            out[node] = shown
    return out


def test_identical_nodes_share_a_group_and_every_node_reads_as_explained_alone() -> None:
    explanation = run(synthetic.cluster(30))
    data = report_data(explanation)
    (unit,) = data["units"]
    assert unit["counts"] == {"allocated": 20, "unschedulable": 10, "error": 0}
    assert [(len(g["nodes"]), g["result"]) for g in unit["groups"]] == [(20, "allocated"), (10, "unschedulable")]
    assert [[KEYS[category] for _, category in row["cells"]] for row in unit["rows"]] == [
        ["chosen"] * 4 + ["free"] * 4,
        ["selector-false"] * 8,
    ]
    assert [c["device"] for c in unit["columns"]] == [f"gpu-{i}" for i in range(8)]
    assert unit["pick"] == {
        "node": "node-1",
        "requests": [{"claim": "default/four-h100", "request": "gpus",
                      "devices": [f"gpu.example.com/node-1/gpu-{i}" for i in range(4)]}],
        "orderAmbiguous": False,
    }
    contract = to_data(explanation, verbose=True)
    by_node = {n["name"]: n for n in contract["nodes"]}
    results = {r.node: r for r in explanation.units[0].nodes}
    shown = cells_by_node(unit, data["strings"])
    for group in unit["groups"]:
        for node in group["nodes"]:
            # The group's texts, with the node's name put back, are the node's own.
            index = group["allocations"]
            assert (None if index is None else filled(data["allocations"][index], node)) == by_node[node]["allocations"]
            assert filled(data["strings"][group["reason"]], node) == short_reason(results[node])
            for request in by_node[node]["explanation"]["requests"]:
                prefix = f"{request['claim']} request {request['request']}"
                for device in request["chosen"]:
                    assert shown[node][device] == ("chosen", f"{prefix}: chosen")
                for rejected in request["rejected"]:
                    for device in rejected["devices"]:
                        assert f"{prefix}: {rejected['message']}" in shown[node][device][1].splitlines()


def test_nodes_that_differ_only_in_texts_share_a_row_not_a_group() -> None:
    data = report_data(run(synthetic.cluster(9, busy=True)))
    (unit,) = data["units"]
    # Each H100 node's gpu-0 is in use by a claim of its own: one group per node, one row.
    rows = [(row["result"], [unit["groups"][g]["nodes"] for g in row["groups"]]) for row in unit["rows"]]
    assert rows == [
        ("allocated", [["node-1"], ["node-2"], ["node-4"], ["node-5"], ["node-7"], ["node-8"]]),
        ("unschedulable", [["node-0", "node-3", "node-6"]]),
    ]
    shown = cells_by_node(unit, data["strings"])
    assert shown["node-4"]["gpu.example.com/node-4/gpu-0"] == (
        "in-use", "default/four-h100 request gpus: in use by default/busy-4"
    )
    # The search took gpu-1..gpu-3, found no fourth on pci-0, gave them back and went on to pci-1.
    assert [shown["node-4"][f"gpu.example.com/node-4/gpu-{i}"][0] for i in range(8)] == (
        ["in-use"] + ["given-back"] * 3 + ["chosen"] * 4
    )


NETWORK = """\
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {rack: r1}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b, labels: {rack: r2}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: nic}
spec:
  selectors:
  - cel: {expression: device.driver == "nic.example.com"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: rack-r1-nics}
spec:
  driver: nic.example.com
  nodeSelector:
    nodeSelectorTerms:
    - matchExpressions: [{key: rack, operator: In, values: [r1]}]
  pool: {name: rack-r1, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: nic-0}
  - {name: nic-1}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-b-nics}
spec:
  driver: nic.example.com
  nodeName: node-b
  pool: {name: node-b, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: nic-0}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: two-nics}
spec:
  devices:
    requests:
    - {name: nics, exactly: {deviceClassName: nic, count: 2}}
"""


def test_network_attached_pools_are_a_band_of_their_own() -> None:
    data = report_data(run(NETWORK))
    (unit,) = data["units"]
    assert [(c["band"], c["pool"], c["device"]) for c in unit["columns"]] == [
        ("node", NODE_TOKEN, "nic-0"),
        ("shared", "rack-r1", "nic-0"),
        ("shared", "rack-r1", "nic-1"),
    ]
    shown = cells_by_node(unit, data["strings"])
    assert {device: category for device, (category, _) in shown["node-a"].items()} == {
        "nic.example.com/rack-r1/nic-0": "chosen",
        "nic.example.com/rack-r1/nic-1": "chosen",
    }
    assert {device: category for device, (category, _) in shown["node-b"].items()} == {
        "nic.example.com/node-b/nic-0": "given-back",
        "nic.example.com/rack-r1/nic-0": "unreachable",
        "nic.example.com/rack-r1/nic-1": "unreachable",
    }
    assert shown["node-b"]["nic.example.com/rack-r1/nic-0"][1] == (
        "not available on this node (node selector of slice rack-r1-nics does not match)"
    )


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_page_loads_nothing_from_elsewhere(scenario: Path) -> None:
    text = "---\n".join(p.read_text() for p in sorted(scenario.glob("*.yaml")))
    page = render_html(run(text))
    assert page.startswith("<!DOCTYPE html>")
    # No external scripts, styles, fonts or images: the only URL is the SVG namespace.
    assert re.findall(r"https?://[^\s\"']+", page) == ["http://www.w3.org/2000/svg"]
    assert not re.search(r"\b(src|href)\s*=|@import|url\(", page)
    embedded = page.split('<script type="application/json" id="dractl-data">')[1].split("</script>")[0]
    data = json.loads(embedded)
    assert [c["key"] for c in data["categories"]] == [key for key, _, _ in CATEGORIES]
    units = data["units"] + [w["unit"] for w in data["workloads"]]
    assert units and all(u["nodes"] == sum(len(g["nodes"]) for g in u["groups"]) for u in units)


def test_script_cannot_end_early() -> None:
    docs = synthetic.cluster(3)
    docs[-1]["metadata"]["name"] = "x"
    docs[-1]["spec"]["devices"]["requests"][0]["exactly"]["selectors"][0]["cel"]["expression"] = (
        'device.attributes["gpu.example.com"].model == "<!--<script></script><b>"'
    )
    page = render_html(run(docs))
    assert page.count("</script>") == 2  # the data's and the code's, nothing inside the data
    embedded = page.split('<script type="application/json" id="dractl-data">')[1].split("</script>")[0]
    assert "<" not in embedded
    assert any('"<!--<script></script><b>"' in text for text in json.loads(embedded)["strings"])


@pytest.mark.parametrize("output_format", ["text", "json", "yaml", "html"])
def test_output_file_holds_what_stdout_would(run_dractl, tmp_path: Path, output_format: str) -> None:
    target = tmp_path / "out"
    args = ("explain", "-o", output_format, "--color", "never", "examples/explain/unsatisfiable/")
    written = run_dractl(*args, "--output-file", str(target))
    printed = run_dractl(*args)
    assert (written.returncode, written.stdout, written.stderr) == (1, "", "")
    assert printed.returncode == 1
    assert target.read_text() == printed.stdout


def test_a_node_whose_texts_hold_the_placeholder_keeps_them_as_they_are() -> None:
    docs = synthetic.cluster(6)
    slice_of_node_1 = next(d for d in docs if d["metadata"]["name"] == "node-1-gpus")
    slice_of_node_1["spec"]["devices"][0]["name"] = f"gpu-{NODE_TOKEN}"
    explanation = run(docs)
    data = report_data(explanation)
    (unit,) = data["units"]
    groups = {tuple(g["nodes"]): g for g in unit["groups"]}
    assert list(groups) == [("node-1",), ("node-2", "node-4", "node-5"), ("node-0", "node-3")]
    assert groups[("node-1",)]["literal"] and not groups[("node-2", "node-4", "node-5")]["literal"]
    (node_1,) = [n for n in to_data(explanation)["nodes"] if n["name"] == "node-1"]
    assert data["allocations"][groups[("node-1",)]["allocations"]] == node_1["allocations"]


# -- the scheduler's verdict for a Pod -------------------------------------------------------

PLUGIN_BASE = len(CATEGORIES)  # a cell category past the device states is a plugin


def example(name: str) -> list[dict[str, Any]]:
    folder = ROOT / "examples" / "explain" / name
    return [doc for path in sorted(folder.glob("*.yaml")) for doc in yaml.safe_load_all(path.read_text()) if doc]


def node_view(data: dict[str, Any], unit: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """node -> what the page shows of its scheduler status and device states."""
    plugins = [p["key"] for p in data["plugins"]]
    out = {}
    for group in unit["groups"]:
        status = data["statuses"][group["status"]] if "status" in group else None
        for node in group["nodes"]:
            out[node] = {
                "status": None if status is None else {**status, "reasons": filled(status["reasons"], node),
                                                       "detail": filled(status["detail"], node)},
                "cells": [KEYS[c] if c < PLUGIN_BASE else plugins[c - PLUGIN_BASE] for _, c, _ in group["cells"]],
                "texts": [filled(data["strings"][t], node) for _, _, t in group["cells"]],
            }
    return out


def test_nodes_rejected_before_dra_are_coloured_by_their_plugin() -> None:
    explanation = run(example("cordoned-gpu-node"))
    data = report_data(explanation)
    # One legend entry per plugin that rejected a node before the device search, in the
    # Filter phase's order; DynamicResources rejected gpu-node-1 by its search: no entry.
    assert [(p["key"], p["label"]) for p in data["plugins"]] == [
        ("plugin:NodeUnschedulable", "rejected by NodeUnschedulable"),
        ("plugin:NodeResourcesFit", "rejected by NodeResourcesFit"),
    ]
    assert len({p["colour"] for p in data["plugins"]} | {c for _, _, c in CATEGORIES}) == len(CATEGORIES) + 2
    (unit,) = data["units"]
    shown = node_view(data, unit)
    cordoned = "the node is cordoned (spec.unschedulable: true) and the Pod does not tolerate " \
               "node.kubernetes.io/unschedulable:NoSchedule"
    assert shown["gpu-node-2"]["status"] == {
        "plugin": "NodeUnschedulable", "code": "unschedulable-and-unresolvable", "phase": "Filter",
        "reasons": ["node(s) were unschedulable"], "detail": cordoned, "rejectedBy": "plugin:NodeUnschedulable",
    }
    # Its devices were never searched: they have the plugin's colour, and its words.
    assert shown["gpu-node-2"]["cells"] == ["plugin:NodeUnschedulable"] * 2
    assert shown["gpu-node-2"]["texts"] == [f"NodeUnschedulable: node(s) were unschedulable ({cordoned})"] * 2
    fit = shown["cpu-node-1"]["status"]
    assert (fit["plugin"], fit["reasons"], fit["rejectedBy"]) == (
        "NodeResourcesFit", ["Insufficient cpu", "Insufficient memory"], "plugin:NodeResourcesFit")
    assert fit["detail"] == ("cpu: requested 8, more than the node's allocatable 4; memory: requested 32Gi, "
                             "more than the node's allocatable 16Gi")
    assert shown["cpu-node-1"]["cells"] == []  # no devices: the row shows the status alone
    # The allocator's search rejected gpu-node-1: its devices keep their states.
    searched = shown["gpu-node-1"]["status"]
    assert (searched["plugin"], searched["reasons"], searched["rejectedBy"]) == (
        "DynamicResources", ["cannot allocate all claims"], None)
    assert shown["gpu-node-1"]["cells"] == ["in-use", "given-back", "in-use", "constraint"]
    # The summary: the FailedScheduling message, word for word, and no node selected.
    contract = to_data(explanation)["units"][0]["scheduler"]
    assert unit["scheduler"]["message"] == contract["message"] == (
        "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 cannot allocate all claims, "
        "1 node(s) were unschedulable. still not schedulable, preemption: 0/3 nodes are available: "
        "3 Preemption is not helpful for scheduling.")
    assert (unit["scheduler"]["selectedNode"], unit["scheduler"]["error"], unit["pick"]) == (None, None, None)


def test_nodes_rejected_alike_still_group() -> None:
    docs = example("cordoned-gpu-node")
    nodes = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Node"}
    slices = {d["spec"]["nodeName"]: d for d in docs if d["kind"] == "ResourceSlice"}

    def node(name: str, like: str, **changes: Any) -> None:
        copy = yaml.safe_load(yaml.safe_dump(nodes[like]))
        copy["metadata"].update(name=name, labels={"kubernetes.io/hostname": name})
        copy.setdefault("spec", {}).update(changes.pop("spec", {}))
        copy["status"]["allocatable"].update(changes)
        docs.append(copy)
        if like in slices:
            docs.append(device_slice(name, like))

    def device_slice(name: str, like: str) -> dict[str, Any]:
        copy = yaml.safe_load(yaml.safe_dump(slices[like]))
        copy["metadata"]["name"] = f"{name}-gpu.example.com"
        copy["spec"].update(nodeName=name, pool={"name": name, "generation": 1, "resourceSliceCount": 1})
        return copy

    node("gpu-node-3", "gpu-node-2")  # cordoned as gpu-node-2 is
    node("gpu-node-4", "gpu-node-2", spec={"unschedulable": False})  # tainted only
    node("cpu-node-2", "cpu-node-1")  # as full as cpu-node-1
    node("cpu-node-3", "cpu-node-1", memory="256Gi")  # short of cpu only
    data = report_data(run(docs))
    (unit,) = data["units"]
    assert [p["key"] for p in data["plugins"]] == [
        "plugin:NodeUnschedulable", "plugin:TaintToleration", "plugin:NodeResourcesFit"]
    rows = [[unit["groups"][g]["nodes"] for g in row["groups"]] for row in unit["rows"]]
    # Nodes whose plugin, reasons and detail agree (once their names are set aside) share a
    # group; another reason of the same plugin is another row.
    assert sorted(rows) == sorted([
        [["gpu-node-1"]],
        [["cpu-node-1", "cpu-node-2"]],
        [["cpu-node-3"]],
        [["gpu-node-2", "gpu-node-3"]],
        [["gpu-node-4"]],
    ])
    shown = node_view(data, unit)
    assert shown["gpu-node-4"]["status"]["reasons"] == ["node(s) had untolerated taint(s)"]
    assert shown["gpu-node-4"]["cells"] == ["plugin:TaintToleration"] * 2
    assert shown["cpu-node-3"]["status"]["reasons"] == ["Insufficient cpu"]


def test_the_summary_shows_the_scheduler_answer_and_the_extended_resource_claim() -> None:
    explanation = run(example("extended-resource"))
    data = report_data(explanation)
    assert data["plugins"] == []  # the device search rejected the only node that did not fit
    trainer, plus = data["units"]
    scheduler = trainer["scheduler"]
    assert (scheduler["selectedNode"], scheduler["message"], scheduler["error"]) == ("gpu-node-1", None, None)
    claim = scheduler["specialClaim"]
    assert (claim["generateName"], claim["namespace"]) == ("trainer-extended-resources-", "default")
    assert claim["requests"] == [{"name": "container-0-request-0", "exactly": {
        "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 2}}]
    assert claim["requestMappings"] == [
        {"containerName": "trainer", "resourceName": "example.com/gpu", "requestName": "container-0-request-0"}]
    assert claim["allocation"]["devices"]["results"] == [
        {"request": "container-0-request-0", "driver": "gpu.example.com", "pool": "gpu-node-1", "device": f"gpu-{i}"}
        for i in range(2)
    ]
    assert claim == to_data(explanation)["units"][0]["scheduler"]["specialClaim"]
    # The devices listed are those of the node the scheduler selects.
    assert trainer["pick"]["node"] == "gpu-node-1"
    assert trainer["pick"]["requests"] == [{
        "claim": "default/<extended-resources>", "request": "container-0-request-0",
        "devices": ["gpu.example.com/gpu-node-1/gpu-0", "gpu.example.com/gpu-node-1/gpu-1"]}]
    assert plus["scheduler"]["message"] == (
        "0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, preemption: "
        "0/1 nodes are available: 1 Preemption is not helpful for scheduling.")
    assert plus["scheduler"]["specialClaim"] is None
    status = node_view(data, plus)["gpu-node-1"]["status"]
    assert (status["plugin"], status["reasons"], status["rejectedBy"]) == (
        "DynamicResources", ["cannot allocate all claims"], None)


def test_claims_of_their_own_have_no_scheduler_verdict() -> None:
    data = report_data(run(synthetic.cluster(3)))
    (unit,) = data["units"]
    assert unit["scheduler"] is None and data["plugins"] == [] and data["statuses"] == []
    assert all("status" not in g for g in unit["groups"])
