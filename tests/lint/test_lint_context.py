"""The set semantics through the real CLI: every input file is one set, `--context` files are read
for reference and never reported on, `--require-classes` makes a missing class an error."""

from __future__ import annotations

import json
from pathlib import Path

CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel: {expression: device.driver == "gpu.example.com"}
"""

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: single-gpu
  namespace: ml
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
"""

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: trainer
  namespace: ml
spec:
  containers:
  - name: ctr
    image: ubuntu:24.04
    resources:
      claims: [{name: gpu}]
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: single-gpu
"""

# A cluster dump with problems of its own (a claim naming a missing class, a DeviceClass
# without selector, a duplicate of the linted template): none of them may be reported.
CLUSTER = f"""\
apiVersion: v1
kind: List
items:
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {{name: gpu.example.com}}
  spec:
    selectors:
    - cel: {{expression: device.driver == "gpu.example.com"}}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {{name: everything}}
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {{name: stale, namespace: ml}}
  spec:
    devices:
      requests:
      - {{name: tpu, exactly: {{deviceClassName: tpu.example.com}}}}
- apiVersion: v1
  kind: Namespace
  metadata: {{name: ml}}
---
{CLAIM}"""


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def diagnostics(out) -> list[tuple[str, int, str]]:
    payload = json.loads(out.stdout)
    return sorted((d["file"], d["line"], d["rule"]) for d in payload["diagnostics"])


def test_files_of_one_run_form_one_set(run_dractl, tmp_path: Path) -> None:
    write(tmp_path, {"app/claim.yaml": CLAIM, "app/pod.yaml": POD})
    app = str(tmp_path / "app")
    out = run_dractl("lint", "-f", "json", "--select", "DRA3", app)
    assert out.returncode == 0, out.stdout + out.stderr
    assert diagnostics(out) == []
    # Linted alone, the Pod is fine (its template may be in the cluster); with a template of
    # another name in the set, the reference is checked.
    out = run_dractl("lint", "-f", "json", "--select", "DRA3", str(tmp_path / "app/pod.yaml"))
    assert (out.returncode, diagnostics(out)) == (0, [])
    other = CLAIM.replace("name: single-gpu", "name: two-gpus")
    write(tmp_path, {"app/claim.yaml": other})
    out = run_dractl("lint", "-f", "json", "--select", "DRA3", app)
    assert out.returncode == 1
    assert diagnostics(out) == [(str(tmp_path / "app/pod.yaml"), 14, "DRA302")]


def test_context_is_read_but_never_reported(run_dractl, tmp_path: Path) -> None:
    write(tmp_path, {"cluster.yaml": CLUSTER, "app/claim.yaml": CLAIM, "app/pod.yaml": POD})
    cluster, app = str(tmp_path / "cluster.yaml"), str(tmp_path / "app")
    out = run_dractl("lint", "-f", "json", "--require-classes", "--context", cluster, app)
    assert out.returncode == 0, out.stdout + out.stderr
    assert diagnostics(out) == []
    payload = json.loads(out.stdout)
    assert payload["summary"]["files"] == 2  # only the linted files are counted

    # Without the context, --require-classes has nothing to find the class in.
    out = run_dractl("lint", "-f", "json", "--require-classes", app)
    assert out.returncode == 1
    (diag,) = json.loads(out.stdout)["diagnostics"]
    assert (diag["rule"], diag["severity"], diag["line"]) == ("DRA301", "error", 12)
    assert diag["file"] == str(tmp_path / "app/claim.yaml")


def test_context_from_stdin(run_dractl, tmp_path: Path) -> None:
    write(tmp_path, {"claim.yaml": CLAIM.replace("gpu.example.com", "gpu.exmaple.com")})
    claim = str(tmp_path / "claim.yaml")
    out = run_dractl("lint", "-f", "json", "--context", "-", claim, stdin=CLASS)
    assert out.returncode == 0  # a warning
    (diag,) = json.loads(out.stdout)["diagnostics"]
    assert diag["rule"] == "DRA301" and 'did you mean "gpu.example.com"?' in diag["message"]


def test_unreadable_context_is_a_usage_error_with_a_reason(run_dractl, tmp_path: Path) -> None:
    write(tmp_path, {"cluster.yaml": "apiVersion: v1\nkind: List\nitems: [1\n", "claim.yaml": CLAIM})
    cluster = tmp_path / "cluster.yaml"
    out = run_dractl("lint", "--context", str(cluster), str(tmp_path / "claim.yaml"))
    assert out.returncode == 2
    assert f"dractl: error: --context {cluster}:4:1: YAML syntax error" in out.stderr
    assert "Traceback" not in out.stderr


def test_messages_point_into_context_files(run_dractl, tmp_path: Path) -> None:
    """Context files are read without comments (a faster reader) but keep their positions."""
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "single-gpu", "namespace": "ml"},
        "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {}}]}}},
    }
    dump = json.dumps({"apiVersion": "v1", "kind": "List", "items": [template]}, indent=2)
    pod = POD.replace("claims: [{name: gpu}]", "claims: [{name: gpu, request: gpux}]")
    write(tmp_path, {"cluster.json": dump, "pod.yaml": pod, "cluster.yaml": f"# dump\n{CLAIM}"})
    for context, line in (("cluster.json", 9), ("cluster.yaml", 5)):
        out = run_dractl(
            "lint", "-f", "json", "--context", str(tmp_path / context), str(tmp_path / "pod.yaml")
        )
        (diag,) = json.loads(out.stdout)["diagnostics"]
        assert diag["rule"] == "DRA305"
        assert f'"ml/single-gpu" ({tmp_path / context}:{line}) has "gpu"' in diag["message"]
