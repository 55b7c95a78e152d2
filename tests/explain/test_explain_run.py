"""``dractl explain``'s run over a workspace: which objects reach the allocator, and the notes."""

from __future__ import annotations

import pytest

from dractl.api.model import build_all
from dractl.api.releases import Features
from dractl.api.workspace import Workspace
from dractl.errors import InputError
from dractl.explain.run import ExplainSettings, Explanation, explain
from dractl.load import load_text

CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: device.driver == "gpu.example.com"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
"""
CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one-gpu, namespace: ml}
spec:
  devices:
    requests:
    - {name: gpu, exactly: {deviceClassName: gpu}}
"""
TAINT_RULE = """\
apiVersion: resource.k8s.io/{version}
kind: DeviceTaintRule
metadata: {{name: drain-gpu-0}}
spec:
  deviceSelector: {{driver: gpu.example.com, device: gpu-0}}
  taint: {{key: maintenance, effect: NoSchedule}}
"""


def _explain(*docs: str, release: str = "1.36", gates: dict[str, bool] | None = None) -> Explanation:
    loaded = load_text("---\n".join(docs), "in.yaml")
    workspace = Workspace(build_all(loaded.objects))
    return explain(workspace, ExplainSettings(features=Features(release, gates or {})))


@pytest.mark.parametrize(
    ("release", "version", "gates", "applied"),
    [
        # 1.35 on: the scheduler's slice tracker applies rules only with DRADeviceTaintRules
        # (beta but off by default in 1.36).
        ("1.36", "v1beta2", {}, False),
        ("1.36", "v1beta2", {"DRADeviceTaintRules": True}, True),
        ("1.35", "v1alpha3", {"DRADeviceTaints": True}, False),
        ("1.35", "v1alpha3", {"DRADeviceTaints": True, "DRADeviceTaintRules": True}, True),
        # 1.34: DRADeviceTaints alone turns them on.
        ("1.34", "v1alpha3", {"DRADeviceTaints": True}, True),
        ("1.34", "v1alpha3", {}, False),
    ],
)
def test_device_taint_rules_apply_only_when_the_scheduler_applies_them(
    release: str, version: str, gates: dict[str, bool], applied: bool
) -> None:
    result = _explain(CLUSTER, CLAIM, TAINT_RULE.format(version=version), release=release, gates=gates)
    (unit,) = result.units
    (node,) = unit.nodes
    if applied:
        assert node.status == "unschedulable"
        assert node.outcome is not None and node.outcome.trace is not None
        (request,) = node.outcome.trace.requests
        assert [r.message() for _, r in request.rejections()] == ["taint maintenance:NoSchedule not tolerated"]
    else:
        # Without the taints gate the allocator ignores taints anyway; the note only matters
        # when rules are what would have tainted the device.
        assert node.status == "allocated"
    ignored = [n for n in result.notes if n.startswith("DeviceTaintRule drain-gpu-0 ignored")]
    assert bool(ignored) is not applied


def test_objects_of_unserved_versions_are_named_not_silently_dropped() -> None:
    old_claim = CLAIM.replace("resource.k8s.io/v1", "resource.k8s.io/v1alpha3").replace("one-gpu", "old")
    result = _explain(CLUSTER, CLAIM, old_claim)
    assert any(
        "do not serve" in note and "ResourceClaim ml/old (resource.k8s.io/v1alpha3)" in note
        for note in result.notes
    )
    with pytest.raises(InputError, match=r"nothing to explain: .*ResourceClaim ml/old \(resource.k8s.io/v1alpha3\)"):
        _explain(CLUSTER, old_claim)


def _many_nodes(count: int, busy_from: int) -> str:
    """`count` nodes with two GPUs each; from node `busy_from` on, one GPU is in use."""
    docs = [CLUSTER.split("---\n")[1]]
    for index in range(count):
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata: {{name: node-{index}}}\n")
        docs.append(
            "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
            f"metadata: {{name: node-{index}-gpus}}\n"
            f"spec:\n  driver: gpu.example.com\n  nodeName: node-{index}\n"
            f"  pool: {{name: node-{index}, generation: 1, resourceSliceCount: 1}}\n"
            "  devices: [{name: gpu-0}, {name: gpu-1}]\n"
        )
    results = "".join(
        f"      - {{request: r, driver: gpu.example.com, pool: node-{index}, device: gpu-0}}\n"
        for index in range(busy_from, count)
    )
    docs.append(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: busy, namespace: team}\n"
        "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n"
        f"status:\n  allocation:\n    devices:\n      results:\n{results}"
    )
    docs.append(CLAIM.replace("{deviceClassName: gpu}", "{deviceClassName: gpu, count: 2}"))
    return "---\n".join(docs)


def test_many_nodes_read_as_a_summary_then_one_node_per_outcome() -> None:
    import io

    from dractl.explain.render import render_text

    result = _explain(_many_nodes(12, busy_from=3))
    out = io.StringIO()
    render_text(result, out, verbose=False, color=False)
    text = out.getvalue()
    assert "3 of 12 nodes can allocate the claim" in text
    # Node names in natural order; each summary line names a few.
    summary = text.split("can allocate the claim\n")[1].split("\n\n")[0].splitlines()
    assert summary == ["  3 nodes: allocated (node-0, node-1, node-2)",
                       "  9 nodes: request gpu lacks 1 device (node-3, node-4, node-5, … 6 more)"]
    # Details: the best node, and one node per distinct failure (the others fail alike).
    details = [line.split(":")[0] for line in text.splitlines() if line.startswith(("✓ node", "✗ node"))]
    assert details == ["✓ node node-0", "✗ node node-3"]
    assert "10 more nodes: --verbose shows every node" in text
    verbose = io.StringIO()
    render_text(result, verbose, verbose=True, color=False)
    assert sum(line.startswith(("✓ node", "✗ node")) for line in verbose.getvalue().splitlines()) == 12


def test_a_claim_the_apiserver_would_reject_is_named_with_its_first_problem() -> None:
    # `expression` one level too high: `cel` is null (a mistake found in published examples).
    broken = CLAIM.replace("{name: gpu, exactly: {deviceClassName: gpu}}",
                           "{name: gpu, exactly: {deviceClassName: gpu, selectors: [{cel: null, expression: 'true'}]}}")
    result = _explain(CLUSTER, broken)
    assert [n for n in result.notes if "apiserver would reject" in n] == [
        "in.yaml:28:69: ResourceClaim ml/one-gpu: the apiserver would reject it: "
        "spec.devices.requests[0].exactly.selectors[0].cel: Required value; dractl lint shows every problem"
    ]
    (node,) = result.units[0].nodes
    # The allocator still answers as upstream's would, had the claim got through.
    assert node.status == "error" and "CEL expression empty" in (node.error or "")
    assert not any("apiserver would reject" in n for n in _explain(CLUSTER, CLAIM).notes)


TWO_GPUS = CLUSTER.replace("  - name: gpu-0\n", """\
  - name: gpu-0
    attributes: {model: {string: a100}}
  - name: gpu-1
    attributes: {model: {string: t4}}
""")
SELECTING_RULE = """\
apiVersion: resource.k8s.io/v1alpha3
kind: DeviceTaintRule
metadata: {{name: drain}}
spec:
  deviceSelector:
{selector}
  taint: {{key: maintenance, effect: NoSchedule}}
"""
T4_CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: t4}
spec:
  selectors:
  - cel: {expression: 'device.attributes["gpu.example.com"].model == "t4"'}
"""


@pytest.mark.parametrize(
    ("selector", "release", "tainted"),
    [
        ('    selectors: [{cel: {expression: \'device.attributes["gpu.example.com"].model == "a100"\'}}]',
         "1.34", ["gpu-0"]),
        ("    deviceClassName: t4", "1.34", ["gpu-1"]),
        ("    deviceClassName: no-such-class", "1.34", []),
        # A runtime error means the rule does not apply to that device.
        ("    selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].missing == 1'}}]", "1.34", []),
        # 1.35 has no deviceClassName / selectors: the apiserver drops them, and the rule
        # (for driver gpu.example.com) taints every device of the driver.
        ("    driver: gpu.example.com\n    deviceClassName: t4", "1.35", ["gpu-0", "gpu-1"]),
    ],
)
def test_device_taint_rules_of_134_select_by_class_and_cel(selector: str, release: str, tainted: list[str]) -> None:
    gates = {"DRADeviceTaints": True, "DRADeviceTaintRules": True} if release != "1.34" else {"DRADeviceTaints": True}
    claim = CLAIM.replace("{deviceClassName: gpu}", "{deviceClassName: gpu, count: 2}")
    result = _explain(TWO_GPUS, T4_CLASS, claim, SELECTING_RULE.format(selector=selector), release=release, gates=gates)
    (node,) = result.units[0].nodes
    assert node.outcome is not None and node.outcome.trace is not None
    (request,) = node.outcome.trace.requests
    rejected = sorted(d.name for d, r in request.rejections() if r.reason.value == "taint-not-tolerated")
    assert rejected == tainted
    assert node.allocated is (not tainted)


def test_an_object_defined_twice_is_explained_once_as_defined_last() -> None:
    two = CLAIM.replace("{deviceClassName: gpu}", "{deviceClassName: gpu, count: 2}")
    result = _explain(CLUSTER, CLAIM, two)
    (unit,) = result.units
    (claim,) = unit.unit.claims
    assert claim.data["spec"]["devices"]["requests"][0]["exactly"]["count"] == 2
    assert [n for n in result.notes if "more than once" in n] == [
        "ResourceClaim ml/one-gpu is defined more than once: explained as defined last (in.yaml:30:1), "
        "not as at in.yaml:22:1"
    ]


def test_closest_miss_says_when_no_device_matches_the_request() -> None:
    import io

    from dractl.explain.render import render_text

    two_requests = CLAIM.replace(
        "    - {name: gpu, exactly: {deviceClassName: gpu}}\n",
        "    - {name: gpu, exactly: {deviceClassName: gpu}}\n"
        "    - {name: big, exactly: {deviceClassName: gpu, selectors: [{cel: {expression: 'false'}}]}}\n",
    )
    out = io.StringIO()
    render_text(_explain(CLUSTER, two_requests), out, verbose=False, color=False)
    assert (
        "  closest: 1 device placed; claim ml/one-gpu request big lacks 1 more: "
        "no device matches its class and selectors\n"
    ) in out.getvalue()
