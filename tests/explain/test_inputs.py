"""Pods, workloads, templates and claims become the allocation units the scheduler would solve."""

from __future__ import annotations

import pytest

from dractl.allocator.inputs import allocated_claims, plan
from dractl.api.model import build_all
from dractl.api.workspace import Workspace
from dractl.errors import InputError
from dractl.load import load_text

TEMPLATE = """\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata: {name: gpu, namespace: ml}
spec:
  metadata:
    labels: {app: train}
  spec:
    devices:
      requests:
      - {name: gpu, deviceClassName: gpu.example.com}
"""
CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared-nic, namespace: ml}
spec:
  devices:
    requests:
    - {name: nic, exactly: {deviceClassName: nic.example.com}}
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: train, namespace: ml}
spec:
  template:
    spec:
      resourceClaims:
      - {name: gpus, resourceClaimTemplateName: gpu}
      - {name: nic, resourceClaimName: shared-nic}
      containers:
      - name: c
        resources: {claims: [{name: gpus}, {name: nic}]}
"""
LOOSE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: single}
spec:
  devices:
    requests:
    - {name: r, exactly: {deviceClassName: gpu.example.com, allocationMode: All}}
"""
ALLOCATED = (
    LOOSE.replace("single", "done")
    + """\
status:
  allocation:
    devices:
      results:
      - {request: r, driver: gpu.example.com, pool: p, device: gpu-0}
"""
)


def _workspace(*docs: str) -> Workspace:
    loaded = load_text("---\n".join(docs), "in.yaml")
    return Workspace(build_all(loaded.objects))


def test_workload_claims_are_one_unit_with_template_made_claims() -> None:
    units = plan(_workspace(TEMPLATE, CLAIM, DEPLOYMENT, LOOSE))
    assert [u.title for u in units] == ["deployment ml/train", "claims default/single"]
    train = units[0]
    assert [c.qualified_name for c in train.claims] == ["ml/train-gpus", "ml/shared-nic"]
    made = train.claims[0]
    assert made.template == "ml/gpu"
    assert made.data["metadata"]["labels"] == {"app": "train"}
    assert made.data["metadata"]["annotations"] == {"resource.kubernetes.io/pod-claim-name": "gpus"}
    # the v1beta1 template's request is in v1 shape and defaulted
    assert made.data["spec"]["devices"]["requests"][0] == {
        "name": "gpu",
        "exactly": {
            "deviceClassName": "gpu.example.com",
            "allocationMode": "ExactCount",
            "count": 1,
        },
    }


def test_missing_template_names_what_is_missing() -> None:
    with pytest.raises(
        InputError,
        match=r"Deployment ml/train: ResourceClaimTemplate ml/gpu \(claim 'gpus'\) is not in the input",
    ):
        plan(_workspace(CLAIM, DEPLOYMENT))


def test_claim_selector_bare_name_is_in_default() -> None:
    units = plan(_workspace(TEMPLATE, CLAIM, DEPLOYMENT, LOOSE), ["single"])
    assert [[c.qualified_name for c in u.claims] for u in units] == [["default/single"]]
    units = plan(_workspace(TEMPLATE, CLAIM, DEPLOYMENT, LOOSE), ["ml/shared-nic"])
    assert [[c.qualified_name for c in u.claims] for u in units] == [["ml/shared-nic"]]
    with pytest.raises(InputError, match="no claim in the input matches nope"):
        plan(_workspace(LOOSE), ["nope"])


def test_claim_selector_also_names_the_template_a_claim_is_made_from() -> None:
    units = plan(_workspace(TEMPLATE, CLAIM, DEPLOYMENT), ["ml/gpu"])
    assert [[c.qualified_name for c in u.claims] for u in units] == [["ml/train-gpus"]]
    # A bare name is in namespace default: the template is in ml.
    with pytest.raises(InputError, match="no claim in the input matches gpu"):
        plan(_workspace(TEMPLATE, CLAIM, DEPLOYMENT), ["gpu"])


def test_allocated_claims_are_in_use_not_allocated_again() -> None:
    ws = _workspace(LOOSE, ALLOCATED)
    assert [c.qualified_name for u in plan(ws) for c in u.claims] == ["default/single"]
    assert [c.qualified_name for c in allocated_claims(ws)] == ["default/done"]
