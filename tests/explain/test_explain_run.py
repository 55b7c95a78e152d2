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
