"""``dractl explain --pod``: one Pod of a whole-cluster dump as kubectl prints it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from dractl.allocator.inputs import generated_claim_name, plan
from dractl.api.model import build_all
from dractl.api.workspace import Workspace
from dractl.errors import InputError
from dractl.load import load_text

DUMP = Path(__file__).parent / "data" / "kubectl-dump.yaml"


def kubectl_json(text: str) -> str:
    """The dump as `kubectl get ... -o json` prints it (the same objects, 4-space indented)."""
    return json.dumps(yaml.safe_load(text), indent=4)


@pytest.mark.parametrize("output_format", ["yaml", "json"])
def test_pending_pod_from_a_cluster_dump_on_stdin(run_dractl, output_format: str) -> None:
    text = DUMP.read_text()
    stdin = text if output_format == "yaml" else kubectl_json(text)
    out = run_dractl("explain", "-", "--pod", "ml/train-1", "-o", "json", stdin=stdin)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    # Only the Pod asked for; its claim is the one the controller made (pod status names it).
    (unit,) = data["units"]
    assert {key: unit[key] for key in ("title", "claims", "feasibleNodes")} == {
        "title": "pod ml/train-1",
        "claims": [{"claim": "ml/train-1-gpus-q9z4m", "template": "ml/two-gpus"}],
        "feasibleNodes": ["gpu-node-b"],
    }
    assert unit["scheduler"]["selectedNode"] == "gpu-node-b"
    nodes = {n["name"]: n for n in data["nodes"]}
    (allocation,) = nodes["gpu-node-b"]["allocations"]
    assert [r["device"] for r in allocation["allocation"]["devices"]["results"]] == ["gpu-0", "gpu-1"]
    # The running Pod's allocated claim holds gpu-node-a's devices.
    (request,) = nodes["gpu-node-a"]["explanation"]["requests"]
    assert [(r["reason"], r["message"], r["count"]) for r in request["rejected"]] == [
        ("in-use", "in use by ml/train-0-gpus-x7k2p", 2)
    ]
    assert nodes["cpu-node-1"]["result"] == "unschedulable"
    text_out = run_dractl("explain", "-", "--pod", "ml/train-1", "--color", "never", stdin=stdin)
    assert text_out.returncode == 0, text_out.stderr
    assert text_out.stdout.splitlines()[2] == "pod ml/train-1: ml/train-1-gpus-q9z4m (from template ml/two-gpus)"


def test_running_pod_has_its_allocated_claim(run_dractl) -> None:
    out = run_dractl("explain", str(DUMP), "--pod", "ml/train-0", "--color", "never")
    assert out.returncode == 0, out.stderr
    assert "pod ml/train-0: ml/train-0-gpus-x7k2p (allocated)" in out.stdout
    assert "1 of 3 nodes can allocate all claims" in out.stdout


def test_pod_not_in_the_input_is_bad_input(run_dractl) -> None:
    out = run_dractl("explain", str(DUMP), "--pod", "ml/nope")
    assert (out.returncode, out.stderr) == (2, "dractl: error: Pod ml/nope is not in the input (kubectl get pods -A -o "
                                               "yaml); Pods with resourceClaims: ml/train-0, ml/train-1\n")


def test_pod_without_claims_gets_the_schedulers_verdict(run_dractl) -> None:
    # Nothing for DRA to allocate: the scheduler's other plugins decide, and DynamicResources skips.
    out = run_dractl("explain", str(DUMP), "--pod", "web-6c9f8d7b5-tx2lp", "-o", "json")
    assert out.returncode in (0, 1), out.stderr
    (unit,) = json.loads(out.stdout)["units"]
    assert unit["claims"] == []
    assert "DynamicResources" in unit["scheduler"]["preFilterSkipped"]


POD = """\
apiVersion: v1
kind: Pod
metadata: {name: %(name)s, namespace: ml}
spec:
  containers: [{name: c, image: x}]
  resourceClaims:
  - {name: gpus, resourceClaimTemplateName: %(template)s}
"""
TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: two-gpus, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - {name: gpus, exactly: {deviceClassName: gpu.example.com, count: 2}}
"""


def units_of(*documents: str, pod: str | None = None) -> list:
    loaded = load_text("---\n".join(documents), "in.yaml")
    return plan(Workspace(build_all(loaded.objects)), pod=pod)


def test_claims_of_a_pod_the_controller_has_not_seen_are_made_from_the_template() -> None:
    # The other pod's template is missing: with --pod that is no error, it is not explained.
    (unit,) = units_of(
        TEMPLATE,
        POD % {"name": "new", "template": "two-gpus"},
        POD % {"name": "other", "template": "gone"},
        pod="ml/new",
    )
    assert [(c.qualified_name, c.template) for c in unit.claims] == [("ml/new-gpus", "ml/two-gpus")]
    with pytest.raises(InputError, match="ResourceClaimTemplate ml/gone"):
        units_of(TEMPLATE, POD % {"name": "new", "template": "two-gpus"}, POD % {"name": "other", "template": "gone"})


def test_pod_status_names_the_claims_the_controller_made() -> None:
    made = POD % {"name": "p", "template": "two-gpus"} + (
        "status:\n  resourceClaimStatuses:\n  - {name: gpus, resourceClaimName: p-gpus-abcde}\n"
    )
    (unit,) = units_of(TEMPLATE, made, pod="ml/p")
    # Not in the input (yet): made from the template, named as the status says.
    assert [(c.qualified_name, c.template) for c in unit.claims] == [("ml/p-gpus-abcde", "ml/two-gpus")]
    not_needed = POD % {"name": "p", "template": "two-gpus"} + (
        "status:\n  resourceClaimStatuses:\n  - {name: gpus}\n"
    )
    with pytest.raises(InputError, match="has no claims to allocate"):
        units_of(TEMPLATE, not_needed, pod="ml/p")


def test_without_pod_a_made_claim_is_explained_once_with_its_pod() -> None:
    loaded = load_text(DUMP.read_text(), str(DUMP))
    units = plan(Workspace(build_all(loaded.objects)))
    assert [(u.title, [c.qualified_name for c in u.claims], [c.qualified_name for c in u.preallocated])
            for u in units] == [
        ("pod ml/train-0", [], ["ml/train-0-gpus-x7k2p"]),
        ("pod ml/train-1", ["ml/train-1-gpus-q9z4m"], []),
    ]


@pytest.mark.parametrize(
    ("pod", "claim", "name"),
    [
        ("train-0", "gpus", "train-0-gpus"),
        # The controller's generateName is "<pod>-<claim>-" while that fits in 57 characters
        # (five random characters follow); beyond, each part keeps len * 57 // len("<pod>-<claim>-")
        # of its characters, joined by one hyphen, and the random characters follow directly.
        ("a" * 50, "b" * 20, "a" * 39 + "-" + "b" * 15),
        ("a" * 40, "b" * 15, "a" * 40 + "-" + "b" * 15),  # 57: still whole
        ("a" * 27, "b" * 28, "a" * 27 + "-" + "b" * 28),  # 57
        ("a" * 27, "b" * 29, "a" * 26 + "-" + "b" * 28),  # 58: 27 * 57 // 58 and 29 * 57 // 58
        ("a" * 253, "gpu", "a" * 55 + "-"),  # the longest pod name: nothing of the claim is left
        ("a" * 60, "gpus-a", "a" * 50 + "-gpus-"),  # two claims of one pod can end alike
        ("a" * 60, "gpus-b", "a" * 50 + "-gpus-"),
        # a replica's index can be cut off: every replica's claim starts the same
        (
            "inference-server-with-a-long-name-0",
            "gpu-and-nic-resources",
            "inference-server-with-a-long-name--gpu-and-nic-resource",
        ),
    ],
)
def test_generated_claim_name(pod: str, claim: str, name: str) -> None:
    assert generated_claim_name(pod, claim) == name
