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
