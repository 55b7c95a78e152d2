"""One model for v1beta1, v1beta2 and v1: the same object reads to the same v1-shaped data."""

from __future__ import annotations

import pytest

from dractl.api.defaults import apply_defaults
from dractl.api.model import build, plain
from dractl.load import load_text

CLAIM_V1BETA1 = """\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: two-gpus}
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      selectors:
      - cel: {expression: 'device.attributes["gpu.example.com"].model == "A100"'}
    - name: nic
      firstAvailable:
      - {name: fast, deviceClassName: nic.example.com, count: 2}
    constraints:
    - {requests: [gpu, nic], matchAttribute: dra.example.com/numa}
"""
CLAIM_V1 = """\
apiVersion: resource.k8s.io/{version}
kind: ResourceClaim
metadata: {{name: two-gpus}}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel: {{expression: 'device.attributes["gpu.example.com"].model == "A100"'}}
    - name: nic
      firstAvailable:
      - {{name: fast, deviceClassName: nic.example.com, count: 2}}
    constraints:
    - {{requests: [gpu, nic], matchAttribute: dra.example.com/numa}}
"""
SLICE_V1BETA1 = """\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: node1-gpu}
spec:
  driver: gpu.example.com
  nodeName: node1
  allNodes: false
  pool: {name: node1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      attributes:
        model: {string: A100}
      capacity:
        memory: {value: 40Gi}
"""
SLICE_V1 = """\
apiVersion: resource.k8s.io/{version}
kind: ResourceSlice
metadata: {{name: node1-gpu}}
spec:
  driver: gpu.example.com
  nodeName: node1
  pool: {{name: node1, generation: 1, resourceSliceCount: 1}}
  devices:
  - name: gpu-0
    attributes:
      model: {{string: A100}}
    capacity:
      memory: {{value: 40Gi}}
"""


def _data(text: str) -> dict:
    (obj,) = load_text(text, "x.yaml").objects
    data = build(obj).data
    data.pop("apiVersion")
    return data


@pytest.mark.parametrize(("v1beta1", "v1"), [(CLAIM_V1BETA1, CLAIM_V1), (SLICE_V1BETA1, SLICE_V1)])
def test_all_versions_read_to_the_same_v1_data(v1beta1: str, v1: str) -> None:
    expected = _data(v1.format(version="v1"))
    assert _data(v1.format(version="v1beta2")) == expected
    assert _data(v1beta1) == expected


def test_v1_paths_point_at_the_v1beta1_keys() -> None:
    (claim,) = load_text(CLAIM_V1BETA1, "c.yaml").objects
    obj = build(claim)
    pos = obj.position(("spec", "devices", "requests", 0, "exactly", "deviceClassName"))
    assert (pos.line, pos.column) == (8, 24)
    (slice_,) = load_text(SLICE_V1BETA1, "s.yaml").objects
    obj = build(slice_)
    pos = obj.position(("spec", "devices", 0, "capacity", "memory", "value"))
    assert (pos.line, pos.column) == (15, 25)


def test_v1beta1_request_without_main_fields_has_no_exactly() -> None:
    text = "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata: {name: c}\nspec:\n  devices:\n    requests:\n    - name: r\n      count: 0\n"
    (obj,) = load_text(text, "c.yaml").objects
    assert build(obj).data["spec"]["devices"]["requests"] == [{"name": "r"}]


def test_claim_without_namespace_is_in_default() -> None:
    (obj,) = load_text(CLAIM_V1BETA1, "c.yaml").objects
    assert build(obj).qualified_name == "default/two-gpus"


@pytest.mark.parametrize(
    ("version", "req", "expected"),
    [
        (
            "v1",
            {"exactly": {"deviceClassName": "c"}},
            {"deviceClassName": "c", "allocationMode": "ExactCount", "count": 1},
        ),
        (
            "v1",
            {"exactly": {"deviceClassName": "c", "allocationMode": "All"}},
            {"deviceClassName": "c", "allocationMode": "All"},
        ),
        # v1beta1 defaults a request only when it names a class
        ("v1beta1", {"exactly": {"count": 2}}, {"count": 2}),
        (
            "v1beta1",
            {"exactly": {"deviceClassName": "c", "count": 2}},
            {"deviceClassName": "c", "count": 2, "allocationMode": "ExactCount"},
        ),
        (
            "v1",
            {"exactly": {"deviceClassName": "c", "tolerations": [{"key": "k"}]}},
            {
                "deviceClassName": "c",
                "allocationMode": "ExactCount",
                "count": 1,
                "tolerations": [{"key": "k", "operator": "Equal"}],
            },
        ),
    ],
)
def test_defaults(version: str, req: dict, expected: dict) -> None:
    data = {"spec": {"devices": {"requests": [{"name": "r", **req}]}}}
    out = apply_defaults("ResourceClaim", data, version)
    assert out["spec"]["devices"]["requests"][0]["exactly"] == expected
    assert data["spec"]["devices"]["requests"][0] == {"name": "r", **req}  # not mutated


def test_subrequests_are_always_defaulted() -> None:
    data = {
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {"name": "r", "firstAvailable": [{"name": "a", "deviceClassName": "c"}]}
                    ]
                }
            }
        }
    }
    out = apply_defaults("ResourceClaimTemplate", data, "v1beta1")
    assert out["spec"]["spec"]["devices"]["requests"][0]["firstAvailable"][0] == {
        "name": "a",
        "deviceClassName": "c",
        "allocationMode": "ExactCount",
        "count": 1,
    }


@pytest.mark.parametrize(
    ("key", "text"),
    [
        ("yes", "yes"),
        (True, "true"),
        (False, "false"),
        (None, "null"),
        (7, "7"),
        (7.0, "7"),
        (1.5, "1.5"),
        (float("inf"), ".inf"),
        (float("-inf"), "-.inf"),
        (float("nan"), ".nan"),
    ],
)
def test_map_keys_become_the_strings_kubectl_sends(key: object, text: str) -> None:
    """sigs.k8s.io/yaml turns a YAML key that is not a string into one (go-yaml's spelling of
    infinities and NaN: .inf, -.inf, .nan)."""
    assert plain({"labels": {key: "x"}}) == {"labels": {text: "x"}}
