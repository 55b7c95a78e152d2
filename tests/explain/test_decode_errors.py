"""Objects no apiserver could decode never reach the allocator: explain (and select) name each
wrong value with its position and exit 2; lint's allocator rule stays silent (DRA011 speaks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dractl.api.decoding import decode_errors
from dractl.api.model import build_all
from dractl.cli.testing import invoke
from dractl.load import load_text

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "explain" / "gpu-pod"
CLUSTER = (EXAMPLE / "cluster.yaml").read_text()
POD = (EXAMPLE / "pod.yaml").read_text()
STREAM = CLUSTER.rstrip("\n") + "\n---\n" + POD.rstrip("\n") + "\n---\n"
FIRST_LINE = STREAM.count("\n") + 1  # the line of the broken object's first line

# (broken object appended to the example, line within it, column, what explain says)
CASES = [
    pytest.param(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: [a, b]\n",
        5, 3,
        "Pod default/p: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels "
        "of type map[string]string (expected a mapping)",
        id="pod-labels-list",
    ),
    pytest.param(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  resourceClaims: gpus\n",
        5, 19,
        "Pod default/p: cannot unmarshal string into Go struct field PodSpec.spec.resourceClaims "
        "of type []v1.PodResourceClaim (expected a list)",
        id="pod-claims-string",
    ),
    pytest.param(
        "apiVersion: v1\nkind: Node\nmetadata: {name: gpu-node-3, labels: zone-a}\n",
        3, 38,
        "Node gpu-node-3: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels "
        "of type map[string]string (expected a mapping)",
        id="node-labels-string",
    ),
    pytest.param(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n",
        3, 18,
        "Node: cannot unmarshal bool into Go struct field ObjectMeta.metadata.name of type string "
        '(kubectl reads the plain scalar n the YAML 1.1 way, as false; quote it ("n") if you '
        "mean the string)",
        id="node-name-yaml11-bool",
    ),
    pytest.param(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ml}\nspec:\n"
        "  template:\n    spec:\n      resourceClaims:\n      - {name: 3, resourceClaimName: x}\n",
        8, 16,
        "Deployment ml/d: cannot unmarshal number into Go struct field "
        "PodResourceClaim.spec.template.spec.resourceClaims.name of type string (expected a string)",
        id="deployment-claim-name-number",
    ),
    pytest.param(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
        "metadata: {name: t, namespace: ml}\nspec:\n  metadata:\n    labels: [app]\n  spec: {}\n",
        6, 5,
        "ResourceClaimTemplate ml/t: cannot unmarshal array into Go struct field "
        "ObjectMeta.spec.metadata.labels of type map[string]string (expected a mapping)",
        id="template-labels-list",
    ),
    pytest.param(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ml}\n"
        "spec: [devices]\n",
        4, 1,  # a collection is pointed at by its key
        "ResourceClaim ml/c: cannot unmarshal array into Go struct field ResourceClaim.spec of "
        "type v1.ResourceClaimSpec (expected a mapping)",
        id="claim-spec-list",
    ),
    pytest.param(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\n"
        "spec:\n  selectors: {cel: {expression: 'true'}}\n",
        5, 3,
        "DeviceClass c: cannot unmarshal object into Go struct field DeviceClassSpec.spec.selectors "
        "of type []v1.DeviceSelector (expected a list)",
        id="class-selectors-mapping",
    ),
    pytest.param(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n"
        "  driver: gpu.example.com\n  nodeName: gpu-node-3\n"
        "  pool: {name: p, generation: three, resourceSliceCount: 1}\n",
        7, 31,
        "ResourceSlice s: cannot unmarshal string into Go struct field "
        "ResourcePool.spec.pool.generation of type int64 (expected a whole number)",
        id="slice-generation-string",
    ),
    pytest.param(
        "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n"
        "  driver: gpu.example.com\n  nodeName: gpu-node-3\n"
        "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
        "  devices:\n  - name: gpu-0\n    basic:\n      capacity: {memory: {value: 80GB}}\n",
        11, 34,
        "ResourceSlice s: spec.devices[0].basic.capacity.memory.value: quantities must match the "
        "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (a quantity is a number with an optional suffix, e.g. 4, 500m, 16Gi, 1e3 "
        '("16GB" is not one))',
        id="v1beta1-slice-quantity",
    ),
    pytest.param(
        "apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceTaintRule\nmetadata: {name: r}\n"
        "spec:\n  deviceSelector: {driver: gpu.example.com}\n"
        "  taint: {key: k, effect: NoSchedule, timeAdded: yesterday}\n",
        6, 50,
        'DeviceTaintRule r: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": not an RFC '
        '3339 time (write an RFC 3339 time such as "2025-01-31T12:00:00Z")',
        id="taint-rule-time",
    ),
]


def explain(text: str, *args: str) -> tuple[int, str, str]:
    result = invoke(["explain", *args, "-"], input=text)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(("broken", "line", "column", "message"), CASES)
def test_undecodable_object_is_bad_input(broken: str, line: int, column: int, message: str) -> None:
    code, stdout, stderr = explain(STREAM + broken)
    assert code == 2
    assert stdout == ""
    assert stderr == f"dractl: error: <stdin>:{FIRST_LINE + line - 1}:{column}: {message}\n"


def test_every_error_is_named_in_file_order() -> None:
    broken = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: x, annotations: y}\n"
    code, _, stderr = explain(STREAM + broken)
    assert code == 2
    lines = stderr.splitlines()
    assert [line.split(": ")[3] for line in lines] == ["Pod default/p", "Pod default/p"]
    assert "metadata.labels" in lines[0] and "metadata.annotations" in lines[1]


@pytest.mark.parametrize(
    "harmless",
    [
        # unknown fields: a decoder that is not strict drops them (lint reports them, DRA010)
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: other}\n"
        "spec: {colour: blue}\n",
        "apiVersion: v1\nkind: Node\nmetadata: {name: gpu-node-1b, colour: blue}\n",
        # objects explain does not read
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, labels: [x]}\ndata: [1, 2]\n",
        "apiVersion: example.com/v1\nkind: Node\nmetadata: {name: [x]}\n",
        # a resource.k8s.io version dractl does not model is not a DRA object
        "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceSlice\nmetadata: {name: s}\n"
        "spec: {pool: [x]}\n",
        # null is every field's zero value
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: null}\nspec: {resourceClaims: null}\n",
    ],
)
def test_what_explain_does_not_read_or_can_decode_is_no_error(harmless: str) -> None:
    code, stdout, stderr = explain(STREAM + harmless)
    assert (code, stderr) == (0, "")
    assert "1 of " in stdout and "nodes can allocate the claim" in stdout


def test_decode_errors_cover_only_what_explain_reads() -> None:
    objects = build_all(load_text(STREAM + CASES[0].values[0], "in.yaml").objects)
    (error,) = decode_errors(objects, "1.36")
    assert error.obj.kind == "Pod" and error.position.line == FIRST_LINE + 4


def test_select_refuses_an_undecodable_slice() -> None:
    slice_ = (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n"
        "  driver: gpu.example.com\n  nodeName: n1\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
        "  devices:\n  - name: gpu-0\n    attributes:\n      model: {string: [[A100]]}\n"
    )
    result = invoke(["select", "true", "-"], input=slice_)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        "dractl: error: <stdin>:11:15: ResourceSlice s: cannot unmarshal array into Go struct "
        "field DeviceAttribute.spec.devices.attributes.string of type string (expected a string)\n"
    )


def test_lint_allocator_rule_is_silent_on_undecodable_nodes() -> None:
    broken = CLUSTER.replace("labels: {kubernetes.io/hostname: gpu-node-1}", "labels: zone-a", 1)
    assert broken != CLUSTER
    result = invoke(
        ["lint", "--color", "never", "--format", "json", "-"], input=broken + "---\n" + POD
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 0, result.stdout
    assert "DRA341" not in result.stdout
