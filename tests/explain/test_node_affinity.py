"""A Pod's nodeSelector and required node affinity (and a workload's pod template's): the
scheduler's NodeAffinity filter rejects the other nodes before the DRA filter runs, and explain
says so for each of them, in text, JSON and HTML."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
import yaml

from dractl import synthetic
from dractl.api.model import build_all
from dractl.api.workspace import Workspace
from dractl.errors import InputError
from dractl.explain.html_report import report_data
from dractl.explain.render import render_text, to_data
from dractl.explain.run import ExplainSettings, Explanation, explain
from dractl.load import load_text

# 8 nodes, zone z<n % 4>; H100 nodes (where the claim fits): 1, 2, 4, 5, 7
H100_NODES = ["node-1", "node-2", "node-4", "node-5", "node-7"]


def affinity(*expressions: dict[str, Any]) -> dict[str, Any]:
    terms = [{"matchExpressions": [e]} for e in expressions]
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}


def pod(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "trainer", "namespace": "default"},
        "spec": {**spec, "resourceClaims": [{"name": "gpus", "resourceClaimName": "four-h100"}],
                 "containers": [{"name": "c", "image": "busybox"}]},
    }


def run(*extra: dict[str, Any], **settings: Any) -> Explanation:
    text = yaml.safe_dump_all([*synthetic.cluster(8), *extra], sort_keys=False)
    loaded = load_text(text, "cluster.yaml")
    return explain(Workspace(build_all(loaded.objects)), ExplainSettings(**settings))


def errors(explanation: Explanation) -> dict[str, str | None]:
    (unit,) = explanation.units
    return {node.node: node.error for node in unit.nodes}


def feasible(explanation: Explanation) -> list[str]:
    (unit,) = explanation.units
    return [node.node for node in unit.nodes if node.allocated]


CASES = [
    pytest.param(
        {"nodeSelector": {"zone": "z1"}}, ["node-1", "node-5"],
        {"node-2": "NodeAffinity: node(s) didn't match Pod's node affinity/selector (nodeSelector zone=z1: the node has zone=z2)",
         "node-0": "NodeAffinity: node(s) didn't match Pod's node affinity/selector (nodeSelector zone=z1: the node has zone=z0)"},
        id="node-selector",
    ),
    pytest.param(
        {"nodeSelector": {"gpu": "h100"}}, [],
        {"node-1": "NodeAffinity: node(s) didn't match Pod's node affinity/selector (nodeSelector gpu=h100: the node has no label gpu)"},
        id="node-selector-label-missing",
    ),
    pytest.param(
        {"affinity": affinity({"key": "zone", "operator": "NotIn", "values": ["z1", "z2"]})},
        ["node-4", "node-7"],
        {"node-1": "NodeAffinity: node(s) didn't match Pod's node affinity/selector (required node affinity: zone NotIn [z1, z2]: the node has zone=z1)"},
        id="required-affinity",
    ),
    pytest.param(
        {"affinity": affinity({"key": "zone", "operator": "In", "values": ["z1"]},
                              {"key": "zone", "operator": "In", "values": ["z3"]})},
        ["node-1", "node-5", "node-7"], {},
        id="affinity-terms-are-ored",
    ),
    pytest.param(
        {"nodeSelector": {"zone": "z1"}, "affinity": affinity({"key": "zone", "operator": "In", "values": ["z3"]})},
        [], {"node-7": "NodeAffinity: node(s) didn't match Pod's node affinity/selector (nodeSelector zone=z1: the node has zone=z3)"},
        id="selector-and-affinity-both-apply",
    ),
    pytest.param({}, H100_NODES, {"node-0": None}, id="no-selector-every-node"),
]


@pytest.mark.parametrize(("spec", "fits", "reasons"), CASES)
def test_nodes_the_pod_may_not_run_on_are_excluded_with_the_reason(
    spec: dict[str, Any], fits: list[str], reasons: dict[str, str | None]
) -> None:
    explanation = run(pod(**spec))
    assert feasible(explanation) == fits
    got = errors(explanation)
    for node, reason in reasons.items():
        assert got[node] == reason
    (unit,) = explanation.units
    for node in unit.nodes:
        if node.error and node.error.startswith("NodeAffinity:"):
            assert (node.status, node.outcome) == ("unschedulable", None)  # DRA's filter never ran


def test_the_reason_reads_in_text_json_and_html() -> None:
    explanation = run(pod(nodeSelector={"zone": "z1"}))
    reason = "NodeAffinity: node(s) didn't match Pod's node affinity/selector (nodeSelector zone=z1: the node has zone=z2)"
    out = io.StringIO()
    render_text(explanation, out, verbose=False, color=False)
    assert f"✗ node node-2: unschedulable: {reason}" in out.getvalue().splitlines()
    nodes = {n["name"]: n for n in json.loads(json.dumps(to_data(explanation)))["nodes"]}
    assert (nodes["node-2"]["result"], nodes["node-2"]["error"]) == ("unschedulable", reason)
    assert nodes["node-1"]["result"] == "allocated"
    data = report_data(explanation)
    (unit,) = data["units"]
    shown = {data["strings"][group["reason"]]: group["nodes"] for group in unit["groups"]}
    assert shown[f"unschedulable: {reason}"] == ["node-2", "node-6"]


def test_a_workload_places_replicas_only_on_nodes_its_pod_template_allows() -> None:
    template = {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
        "metadata": {"name": "two-h100", "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": [{"name": "gpus", "exactly": {
            "deviceClassName": synthetic.DRIVER, "count": 2,
            "selectors": [{"cel": {"expression": f'device.attributes["{synthetic.DRIVER}"].model == "H100"'}}]}}]}}},
    }
    deployment = {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w", "namespace": "default"},
        "spec": {"replicas": 9, "selector": {"matchLabels": {"app": "w"}}, "template": {
            "metadata": {"labels": {"app": "w"}},
            "spec": {"nodeSelector": {"zone": "z1"},
                     "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "two-h100"}],
                     "containers": [{"name": "c", "image": "busybox"}]}}},
    }
    (result,) = run(template, deployment, claims=("default/w-gpus",)).workloads
    # node-1 and node-5 (zone z1) take four replicas of 2 GPUs each; the ninth fits nowhere.
    assert [r.node.node for r in result.placed] == ["node-1"] * 4 + ["node-5"] * 4
    assert result.explained is not None and result.explained_index == 8
    reasons = {n.node: n.error for n in result.explained.nodes}
    assert reasons["node-2"] == "NodeAffinity: node(s) didn't match Pod's node affinity/selector (nodeSelector zone=z1: the node has zone=z2)"
    assert reasons["node-1"] is None  # DRA's filter ran: no devices left


def test_an_affinity_the_scheduler_cannot_parse_is_an_input_error() -> None:
    broken = affinity({"key": "zone", "operator": "Near", "values": ["z1"]})
    with pytest.raises(InputError, match=r"Pod default/trainer: invalid node affinity: "):
        run(pod(affinity=broken))
