"""Numbers at the limits (issue 25, family 4): ``.inf``, ``-.inf``, ``.nan``, ``1e400``, ``-0.0``,
2**63, -2**63-1 and a 4,301-digit integer in every kind of field, as kubectl and the apiserver
read them, in lint, explain, select and the decoding check they share.

What upstream does (sigs.k8s.io/yaml, then the apiserver's strict JSON decoding; checked with
the upstream binary, see :func:`test_the_upstream_decoder_agrees`):

* ``.inf``, ``-.inf``, ``.nan`` are YAML floats that JSON cannot hold: kubectl cannot write the
  document as JSON (``error converting YAML to JSON: json: unsupported value: -Inf``), whatever
  the field;
* ``1e400`` and a 4,301-digit integer are beyond float64: go-yaml keeps them as strings, which a
  quantity parses and an integer or boolean field refuses;
* 2**63 is a uint64, -2**63-1 the float -2**63, sent as "-9223372036854776000": both beyond an
  integer field; ``-0.0`` is 0 to an integer or a quantity;
* numbers in a string or boolean field are refused as numbers.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from dractl.api.decoding import object_decode_errors
from dractl.api.model import build_all
from dractl.cli.testing import invoke
from dractl.load import load_text

ROOT = Path(__file__).resolve().parents[2]
RELEASE = "1.36"

# One cluster with a field of every kind that lint, explain and select read; @NAME@ marks each.
CLUSTER = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: device.driver == "gpu.example.com"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: @NODE_NAME@
  pool: {name: node-1, generation: @GENERATION@, resourceSliceCount: 1}
  sharedCounters:
  - name: gpu-0-counters
    counters:
      memory: {value: @COUNTER@}
  devices:
  - name: gpu-0
    attributes:
      model: {string: @STRING_ATTRIBUTE@}
      healthy: {bool: @BOOL_ATTRIBUTE@}
      index: {int: @INT_ATTRIBUTE@}
    capacity:
      memory: {value: @CAPACITY@}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one-gpu, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        count: @COUNT@
        capacity:
          requests:
            memory: @CAPACITY_REQUEST@
---
apiVersion: v1
kind: Node
metadata: {name: node-1}
spec:
  unschedulable: @UNSCHEDULABLE@
status:
  allocatable: {cpu: @ALLOCATABLE@, memory: 64Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: default}
spec:
  priority: @PRIORITY@
  tolerations:
  - {key: example.com/maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: @TOLERATION_SECONDS@}
  containers:
  - name: main
    image: busybox
    ports: [{containerPort: 80, hostPort: @HOST_PORT@}]
    resources:
      requests: {cpu: @CPU_REQUEST@}
      claims: [{name: gpu}]
  resourceClaims:
  - name: gpu
    resourceClaimName: one-gpu
"""

# field -> (what its Go type is, the object it is in, a good value)
FIELDS: dict[str, tuple[str, str, str]] = {
    "CAPACITY": ("quantity", "ResourceSlice", "80Gi"),
    "COUNTER": ("quantity", "ResourceSlice", "80Gi"),
    "CAPACITY_REQUEST": ("quantity", "ResourceClaim", "1Gi"),
    "GENERATION": ("int64", "ResourceSlice", "1"),
    "INT_ATTRIBUTE": ("int64", "ResourceSlice", "0"),
    "COUNT": ("int64", "ResourceClaim", "1"),
    "STRING_ATTRIBUTE": ("string", "ResourceSlice", "H100"),
    "NODE_NAME": ("string", "ResourceSlice", "node-1"),
    "BOOL_ATTRIBUTE": ("bool", "ResourceSlice", "true"),
    "ALLOCATABLE": ("quantity", "Node", "8"),
    "UNSCHEDULABLE": ("bool", "Node", "false"),
    "CPU_REQUEST": ("quantity", "Pod", "1"),
    "PRIORITY": ("int32", "Pod", "0"),
    "HOST_PORT": ("int32", "Pod", "8080"),
    "TOLERATION_SECONDS": ("int64", "Pod", "300"),
}
DRA_KINDS = ("ResourceSlice", "ResourceClaim")

# the value as written -> what the apiserver says, per Go type (None: it decodes)
UNSUPPORTED = "error converting YAML to JSON: json: unsupported value: "
VALUES: dict[str, tuple[str, dict[str, str | None]]] = {
    ".inf": (
        ".inf",
        dict.fromkeys(("quantity", "int64", "int32", "string", "bool"), UNSUPPORTED + "+Inf"),
    ),
    "-.inf": (
        "-.inf",
        dict.fromkeys(("quantity", "int64", "int32", "string", "bool"), UNSUPPORTED + "-Inf"),
    ),
    ".nan": (
        ".nan",
        dict.fromkeys(("quantity", "int64", "int32", "string", "bool"), UNSUPPORTED + "NaN"),
    ),
    "1e400": (
        "1e400",
        {
            "quantity": None,
            "string": None,
            "int64": "cannot unmarshal string into Go struct field",
            "int32": "cannot unmarshal string into Go struct field",
            "bool": "cannot unmarshal string into Go struct field",
        },
    ),
    "-0.0": (
        "-0.0",
        {
            "quantity": None,
            "int64": None,
            "int32": None,
            "string": "cannot unmarshal number into Go struct field",
            "bool": "cannot unmarshal number into Go struct field",
        },
    ),
    "2**63": (
        str(2**63),
        {
            "quantity": None,
            "int64": f"cannot unmarshal number {2**63} into Go struct field",
            "int32": f"cannot unmarshal number {2**63} into Go struct field",
            "string": "cannot unmarshal number into Go struct field",
            "bool": "cannot unmarshal number into Go struct field",
        },
    ),
    "-2**63-1": (
        str(-(2**63) - 1),
        {
            "quantity": None,
            "int64": "cannot unmarshal number -9223372036854776000 into Go struct field",
            "int32": "cannot unmarshal number -9223372036854776000 into Go struct field",
            "string": "cannot unmarshal number into Go struct field",
            "bool": "cannot unmarshal number into Go struct field",
        },
    ),
    "4301 digits": (
        "9" * 4301,
        {
            "quantity": None,
            "string": None,
            "int64": "cannot unmarshal string into Go struct field",
            "int32": "cannot unmarshal string into Go struct field",
            "bool": "cannot unmarshal string into Go struct field",
        },
    ),
}

CASES = [
    pytest.param(field, name, id=f"{field.lower()}={name}") for field in FIELDS for name in VALUES
]


def cluster(field: str, text: str) -> tuple[str, int, int]:
    """The cluster with ``text`` in ``field`` (good values elsewhere), and the 1-based line and
    column where it is written."""
    out = CLUSTER
    marker = f"@{field}@"
    before = out[: out.index(marker)]
    line, column = before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1
    out = out.replace(marker, text)
    for other, (_, _, good) in FIELDS.items():
        out = out.replace(f"@{other}@", good)
    return out, line, column


def expected(field: str, name: str) -> str | None:
    go_type = FIELDS[field][0]
    message = VALUES[name][1][go_type]
    if message is not None and message.startswith("cannot unmarshal"):
        return f"{message}"
    return message


def _type_of(message: str, field: str) -> None:
    go_type = FIELDS[field][0]
    if "cannot unmarshal" in message:
        wanted = {"int64": "int64", "int32": "int32", "string": "string", "bool": "bool"}[go_type]
        assert message.endswith(f"of type {wanted}"), message


def test_the_cluster_reads_as_it_is() -> None:
    text, _, _ = cluster("CAPACITY", "80Gi")
    loaded = load_text(text, "cluster.yaml", comments=False)
    objects = build_all(loaded.objects)
    assert [o.kind for o in objects] == [
        "DeviceClass",
        "ResourceSlice",
        "ResourceClaim",
        "Node",
        "Pod",
    ]
    assert [p for o in objects for p in object_decode_errors(o, RELEASE)] == []


@pytest.mark.parametrize(("field", "name"), CASES)
def test_the_decoding_check(field: str, name: str) -> None:
    """What lint's DRA011/DRA012 and explain's and select's refusals are made of, for DRA kinds
    and for the Node and Pod fields explain reads."""
    text, line, column = cluster(field, VALUES[name][0])
    loaded = load_text(text, "cluster.yaml", comments=False)
    assert not loaded.diagnostics
    problems = [p for o in build_all(loaded.objects) for p in object_decode_errors(o, RELEASE)]
    want = expected(field, name)
    if want is None:
        assert problems == [], [str(p) for p in problems]
        return
    assert len(problems) == 1, [str(p) for p in problems]
    (problem,) = problems
    assert want in problem.message
    _type_of(problem.message, field)
    assert problem.obj.kind == FIELDS[field][1]
    assert (problem.position.line, problem.position.column) == (line, column)


@pytest.mark.parametrize(
    ("field", "name"), [c for c in CASES if FIELDS[c.values[0]][1] in DRA_KINDS]
)
def test_lint_reports_what_the_apiserver_refuses(tmp_path: Path, field: str, name: str) -> None:
    text, line, column = cluster(field, VALUES[name][0])
    path = tmp_path / "cluster.yaml"
    path.write_text(text)
    result = invoke(["lint", "--no-config", "-f", "json", str(path)])
    assert result.exception is None and result.exit_code in (0, 1), result.output
    report = json.loads(result.stdout)["diagnostics"]
    decoding = [d for d in report if d["rule"] in ("DRA010", "DRA011", "DRA012", "DRA013")]
    want = expected(field, name)
    if want is None:
        assert decoding == []
        return
    assert [(d["rule"], d["line"], d["column"]) for d in decoding] == [("DRA011", line, column)]
    assert want in decoding[0]["message"]
    assert result.exit_code == 1


@pytest.mark.parametrize("field", ["PRIORITY", "CPU_REQUEST", "ALLOCATABLE"])
def test_lint_reports_what_explain_refuses_in_nodes_and_pods(tmp_path: Path, field: str) -> None:
    text, line, column = cluster(field, "-.inf")
    path = tmp_path / "cluster.yaml"
    path.write_text(text)
    # the cluster's slice keeps 1.34's layout (counters beside devices): read as 1.34
    result = invoke(["lint", "--no-config", "-f", "json", "-k", "1.34", str(path)])
    report = json.loads(result.stdout)["diagnostics"]
    errors = [(d["rule"], d["line"], d["column"]) for d in report if d["severity"] == "error"]
    assert errors == [("DRA011", line, column)]
    assert result.exit_code == 1


_ONE_LINE = re.compile(
    r"^dractl: error: (?P<file>\S+):(?P<line>\d+):(?P<column>\d+): (?P<rest>.*)$"
)
@pytest.mark.parametrize(("field", "name"), CASES)
def test_explain_refuses_what_no_apiserver_holds_in_one_line(
    tmp_path: Path, field: str, name: str
) -> None:
    text, line, column = cluster(field, VALUES[name][0])
    path = tmp_path / "cluster.yaml"
    path.write_text(text)
    result = invoke(["explain", "-j", "1", str(path), "--pod", "default/trainer"])
    assert result.exception is None, result.exc_info
    want = expected(field, name)
    if want is None:
        assert result.exit_code in (0, 1), result.stderr
        assert "cannot unmarshal" not in result.stderr and UNSUPPORTED not in result.stderr
        return
    assert result.exit_code == 2
    (message,) = result.stderr.splitlines()
    found = _ONE_LINE.match(message)
    assert found is not None, message
    assert (found["file"], int(found["line"]), int(found["column"])) == (str(path), line, column)
    assert want in found["rest"]


@pytest.mark.parametrize(
    ("field", "name"), [c for c in CASES if FIELDS[c.values[0]][1] == "ResourceSlice"]
)
def test_select_refuses_a_slice_no_apiserver_holds(tmp_path: Path, field: str, name: str) -> None:
    text, line, column = cluster(field, VALUES[name][0])
    path = tmp_path / "cluster.yaml"
    path.write_text(text)
    result = invoke(["select", 'device.attributes["gpu.example.com"].model == "H100"', str(path)])
    assert result.exception is None, result.exc_info
    if expected(field, name) is None:
        assert result.exit_code in (0, 1), result.stderr
        return
    assert result.exit_code == 2
    (message,) = result.stderr.splitlines()
    assert message.startswith(f"dractl: error: {path}:{line}:{column}: ResourceSlice node-1-gpus: ")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1e400", "1e400"),
        ("-1e400", "-1e400"),
        ("1_0e400", "1_0e400"),
        ("1e-400", 0.0),
        (".inf", float("inf")),
        ("1.5", 1.5),
        ("1e3", 1000.0),
    ],
)
@pytest.mark.parametrize("comments", [True, False], ids=["round-trip", "libyaml"])
def test_floats_beyond_float64_stay_the_strings_go_yaml_keeps(
    text: str, value: object, comments: bool
) -> None:
    loaded = load_text(f"kind: X\nvalue: {text}\n", comments=comments)
    read = loaded.files[0].documents[0]
    # (the round-trip loader's floats are ruamel.yaml's float subclass)
    assert read.raw["value"] == value and isinstance(read.raw["value"], type(value))
    # YAML 1.2 reads 1e400 as an infinity: the difference is noted where it is written
    assert read.yaml11 == ({(2, 8): text} if isinstance(value, str) else {})


def _upstream() -> str | None:
    configured = os.environ.get("DRACTL_UPSTREAM") or os.environ.get("DRA_UPSTREAM")
    path = configured or str(ROOT.parent / "shared" / "oracle" / "bin" / "dra-upstream")
    return path if shutil.which(path) else None


@pytest.mark.skipif(_upstream() is None, reason="the upstream binary is not here")
@pytest.mark.parametrize(
    ("field", "name"), [c for c in CASES if FIELDS[c.values[0]][1] == "ResourceSlice"]
)
def test_the_upstream_decoder_agrees(tmp_path: Path, field: str, name: str) -> None:
    """The upstream binary decodes a slice as kubectl and the apiserver do (sigs.k8s.io/yaml,
    then strict JSON): its first error is the one dractl reports, worded the same."""
    text, _, _ = cluster(field, VALUES[name][0])
    slice_text = text.split("---\n")[1]
    path = tmp_path / "slice.yaml"
    path.write_text(slice_text)
    upstream = _upstream()
    assert upstream is not None
    out = subprocess.run(
        [upstream, "cel", str(path), "true"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    want = expected(field, name)
    if want is None:
        assert out.returncode == 0, out.stderr
        return
    assert out.returncode == 2
    # "dra-upstream: cel: slice.yaml: document 1 (ResourceSlice): json: cannot unmarshal ..."
    assert want.replace("error converting YAML to JSON: ", "") in out.stderr
