"""``dractl explain`` of workloads replica by replica: counts, claim names, sharing, placement."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from dractl.api.model import build_all
from dractl.api.releases import Features
from dractl.api.workspace import Workspace
from dractl.errors import InputError
from dractl.explain.render import render_text, to_data
from dractl.explain.run import ExplainSettings, Explanation, explain
from dractl.explain.workloads import REPLICAS_MAX, WorkloadResult
from dractl.load import load_text

ROOT = Path(__file__).resolve().parents[2]
NVIDIA = ROOT.parent / "shared" / "corpus" / "real" / "kubernetes-sigs__dra-driver-nvidia-gpu"


def gpu_cluster(nodes: int, gpus: int, *, capacity: str = "", labels: dict[str, dict[str, str]] | None = None) -> str:
    """`nodes` nodes with `gpus` GPUs each; `capacity` is the devices' shared capacity (YAML)."""
    docs = [
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.nvidia.com}\n"
        "spec:\n  selectors:\n  - cel: {expression: device.driver == \"gpu.nvidia.com\"}\n"
    ]
    for n in range(1, nodes + 1):
        name = f"node-{n}"
        node_labels = (labels or {}).get(name, {})
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {json.dumps(node_labels)}}}\n")
        devices = "".join(
            f"  - name: gpu-{g}\n" + (f"    allowMultipleAllocations: true\n    capacity: {capacity}\n" if capacity else "")
            for g in range(gpus)
        )
        docs.append(
            f"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {{name: {name}-gpus}}\n"
            f"spec:\n  driver: gpu.nvidia.com\n  nodeName: {name}\n"
            f"  pool: {{name: {name}, generation: 1, resourceSliceCount: 1}}\n  devices:\n{devices}"
        )
    return "---\n".join(docs)


TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - {name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}
"""


def workload(kind: str, spec: str = "", *, claims: str = "- {name: gpu, resourceClaimTemplateName: one-gpu}",
             pod_spec: str = "") -> str:
    """A workload `ml/w` whose pod template names `claims`; `spec` goes into its spec (of a
    CronJob: into its job template's spec), indented by two spaces."""
    api = "batch/v1" if kind in ("Job", "CronJob") else "apps/v1"
    template = ["template:", "  metadata: {labels: {app: w}}", "  spec:"]
    template += [f"    {line}" for line in pod_spec.splitlines()]
    template += ["    resourceClaims:", *(f"    {line}" for line in claims.splitlines())]
    template += ["    containers: [{name: c, image: busybox}]"]
    body = [*spec.splitlines(), *(f"  {line}" for line in template)]
    if kind == "CronJob":
        body = ["  schedule: '@hourly'", "  jobTemplate:", "    spec:", *(f"    {line}" for line in body)]
    elif kind != "Job":
        body = ["  selector: {matchLabels: {app: w}}", *body]
    head = f"apiVersion: {api}\nkind: {kind}\nmetadata: {{name: w, namespace: ml}}\nspec:\n"
    return head + "".join(f"{line}\n" for line in body)


def run(*docs: str, files: tuple[Path, ...] = (), **settings: Any) -> Explanation:
    text = "---\n".join([*docs, *(f.read_text() for f in files)])
    loaded = load_text(text, "in.yaml")
    assert not loaded.failed
    return explain(Workspace(build_all(loaded.objects)), ExplainSettings(**settings))


def only(explanation: Explanation) -> WorkloadResult:
    (result,) = explanation.workloads
    return result


def devices(result: WorkloadResult) -> list[list[str]]:
    out = []
    for replica in result.placed:
        assert replica.node.outcome is not None and replica.node.outcome.allocations is not None
        out.append([f"{replica.node.node}/{r['device']}" for a in replica.node.outcome.allocations
                    for r in a["devices"]["results"]])
    return out


def text(explanation: Explanation, verbose: bool = False) -> str:
    out = io.StringIO()
    render_text(explanation, out, verbose=verbose, color=False)
    return out.getvalue()


# --- the sharing examples of NVIDIA's driver ------------------------------------------------------

needs_corpus = pytest.mark.skipif(not NVIDIA.is_dir(), reason="the corpus of real manifests is not there")


@needs_corpus
def test_memory_sharing_both_replicas_share_one_gpu() -> None:
    # Each replica claims 4Gi of a GPU's memory: both fit on the first GPU, and a third of 10Gi
    # would not.
    files = (NVIDIA / "demo__specs__consumable-shares__memory-sharing.yaml",)
    result = only(run(gpu_cluster(2, 1, capacity="{memory: {value: 10Gi}}"), files=files))
    assert (result.wanted, len(result.placed), result.satisfied) == (2, 2, True)
    assert devices(result) == [["node-1/gpu-0"], ["node-1/gpu-0"]]
    assert [c.qualified_name for r in result.placed for c in r.unit.claims] == [
        "gpu-share-memory/memory-sharing-0-gpu", "gpu-share-memory/memory-sharing-1-gpu"]
    shares = [r.node.outcome.allocations[0]["devices"]["results"][0] for r in result.placed]  # type: ignore[union-attr]
    assert [s["consumedCapacity"] for s in shares] == [{"memory": "4Gi"}, {"memory": "4Gi"}]
    assert shares[0]["shareID"] != shares[1]["shareID"]
    out = text(run(gpu_cluster(1, 1, capacity="{memory: {value: 10Gi}}"), files=files, replicas=3))
    assert "2 of 3 replicas fit (--replicas; placement pack)" in out
    assert "claim gpu-share-memory/memory-sharing-1-gpu: gpu.nvidia.com/node-1/gpu-0 (shared: memory 4Gi)" in out
    assert ("capacity memory insufficient: needs 4Gi, 2Gi left; in use by replica 0 "
            "(gpu-share-memory/memory-sharing-0-gpu), replica 1 (gpu-share-memory/memory-sharing-1-gpu)") in out


@needs_corpus
def test_integer_sharing_four_replicas_per_gpu() -> None:
    files = (NVIDIA / "demo__specs__consumable-shares__integer-sharing.yaml",)
    shares = "{shares: {value: '4', requestPolicy: {default: '1', validRange: {min: '1'}}}}"
    result = only(run(gpu_cluster(1, 2, capacity=shares), files=files))
    assert (result.wanted, result.satisfied) == (4, True)
    assert devices(result) == [["node-1/gpu-0"]] * 4  # pack: one GPU's four shares first
    most = only(run(gpu_cluster(1, 2, capacity=shares), files=files, replicas="max"))
    assert (len(most.placed), most.explained_index, most.satisfied) == (8, 8, True)
    assert devices(most)[4:] == [["node-1/gpu-1"]] * 4


@needs_corpus
def test_unlimited_sharing_stops_at_the_cap() -> None:
    files = (NVIDIA / "demo__specs__consumable-shares__unlimited-sharing.yaml",)
    unlimited = "{memory: {value: 40Gi, requestPolicy: {default: '0'}}}"
    result = only(run(gpu_cluster(1, 1, capacity=unlimited), files=files))
    assert devices(result) == [["node-1/gpu-0"]] * 2
    most = only(run(gpu_cluster(1, 1, capacity=unlimited), files=files, replicas="max"))
    assert (len(most.placed), most.explained, most.capped) == (REPLICAS_MAX, None, True)
    out = text(run(gpu_cluster(1, 1, capacity=unlimited), files=files, replicas="max"))
    assert f"{REPLICAS_MAX} replicas fit, and more may: --replicas max stops at {REPLICAS_MAX}" in out
    assert f"… {REPLICAS_MAX - 20} more replicas (on node-1 {REPLICAS_MAX - 20}): --verbose or -o json lists them" in out


# --- controllers ----------------------------------------------------------------------------------


def test_statefulset_replicas_need_distinct_devices() -> None:
    cluster = gpu_cluster(2, 2)
    result = only(run(cluster, TEMPLATE, workload("StatefulSet", "  replicas: 4\n")))
    assert devices(result) == [["node-1/gpu-0"], ["node-1/gpu-1"], ["node-2/gpu-0"], ["node-2/gpu-1"]]
    assert [r.pod for r in result.placed] == [f"ml/w-{i}" for i in range(4)]
    spread = only(run(cluster, TEMPLATE, workload("StatefulSet", "  replicas: 4\n"), placement="spread"))
    assert devices(spread) == [["node-1/gpu-0"], ["node-2/gpu-0"], ["node-1/gpu-1"], ["node-2/gpu-1"]]
    five = run(cluster, TEMPLATE, workload("StatefulSet", "  replicas: 5\n"))
    failed = only(five)
    assert (len(failed.placed), failed.explained_index, failed.satisfied, five.satisfiable) == (4, 4, False, False)
    assert failed.explained is not None
    assert [c.qualified_name for c in failed.explained.unit.claims] == ["ml/w-4-gpu"]
    out = text(five)
    assert "4 of 5 replicas fit (spec.replicas; placement pack)" in out
    assert "✗ replica 4 fits on no node once replicas 0 to 3 are placed:" in out
    assert "1 device: in use by replica 0 (ml/w-0-gpu) (gpu.nvidia.com/node-1/gpu-0)" in out
    assert "1 device: in use by replica 1 (ml/w-1-gpu) (gpu.nvidia.com/node-1/gpu-1)" in out
    data = to_data(five)["workloads"][0]
    assert (data["fit"], data["replicas"], data["explained"]["replica"], data["explained"]["pod"]) == (4, 5, 4, "ml/w-4")
    assert [p["claims"][0]["claim"] for p in data["placed"]] == [f"ml/w-{i}-gpu" for i in range(4)]
    assert data["explained"]["nodes"][0]["result"] == "unschedulable"


@pytest.mark.parametrize(
    ("spec", "pods", "source"),
    [
        ("", 1, None),  # one Pod: explained as before, on every node
        ("  parallelism: 3\n", 3, "spec.parallelism"),
        ("  parallelism: 3\n  completions: 2\n", 2, "spec.completions"),
        ("  parallelism: 2\n  completions: 5\n", 2, "spec.parallelism"),
        ("  parallelism: 0\n", 0, "spec.parallelism"),
    ],
)
def test_job_runs_parallelism_pods(spec: str, pods: int, source: str | None) -> None:
    explanation = run(gpu_cluster(2, 2), TEMPLATE, workload("Job", spec))
    if source is None:
        assert not explanation.workloads and len(explanation.units) == 1
        return
    result = only(explanation)
    assert (result.wanted, len(result.placed), result.workload.source) == (pods, pods, source)


def test_cronjob_through_its_job_template() -> None:
    result = only(run(gpu_cluster(1, 4), TEMPLATE, workload("CronJob", "  parallelism: 3\n")))
    assert (result.workload.source, devices(result)) == (
        "spec.jobTemplate.spec.parallelism", [["node-1/gpu-0"], ["node-1/gpu-1"], ["node-1/gpu-2"]])


def test_daemonset_one_pod_per_matching_node() -> None:
    labels = {"node-1": {"gpu": "yes"}, "node-3": {"gpu": "yes"}}
    cluster = gpu_cluster(3, 1, labels=labels)
    result = only(run(cluster, TEMPLATE, workload("DaemonSet", pod_spec="nodeSelector: {gpu: 'yes'}")))
    assert devices(result) == [["node-1/gpu-0"], ["node-3/gpu-0"]]
    every = only(run(cluster, TEMPLATE, workload("DaemonSet")))
    assert devices(every) == [["node-1/gpu-0"], ["node-2/gpu-0"], ["node-3/gpu-0"]]
    affinity = (
        "affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n"
        "      nodeSelectorTerms:\n      - matchExpressions: [{key: gpu, operator: DoesNotExist}]"
    )
    assert devices(only(run(cluster, TEMPLATE, workload("DaemonSet", pod_spec=affinity)))) == [["node-2/gpu-0"]]
    none = only(run(cluster, TEMPLATE, workload("DaemonSet", pod_spec="nodeSelector: {gpu: 'no'}")))
    assert (none.wanted, none.satisfied) == (0, True)
    assert "0 replicas: no node matches its node selector, nothing to place" in text(run(
        cluster, TEMPLATE, workload("DaemonSet", pod_spec="nodeSelector: {gpu: 'no'}")))
    # A DaemonSet's Pod that does not fit its node: not placed elsewhere.
    busy = run(cluster, TEMPLATE, workload("DaemonSet"), ALLOCATED.format(node="node-2"))
    failed = only(busy)
    assert (len(failed.placed), failed.explained_index) == (1, 1)
    assert failed.explained is not None and [n.node for n in failed.explained.nodes] == ["node-2"]


ALLOCATED = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: running, namespace: ml}}
spec:
  devices:
    requests:
    - {{name: gpu, exactly: {{deviceClassName: gpu.nvidia.com}}}}
status:
  allocation:
    devices:
      results:
      - {{request: gpu, driver: gpu.nvidia.com, pool: {node}, device: gpu-0}}
"""
SHARED_CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared-gpu, namespace: ml}
spec:
  devices:
    requests:
    - {name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}
"""


def test_a_claim_named_directly_is_allocated_once_for_every_replica() -> None:
    claims = "- {name: shared, resourceClaimName: shared-gpu}\n- {name: own, resourceClaimTemplateName: one-gpu}"
    cluster = gpu_cluster(2, 3)
    result = only(run(cluster, TEMPLATE, SHARED_CLAIM, workload("Deployment", "  replicas: 3\n", claims=claims)))
    # The shared claim goes with replica 0; its allocation ties the others to node-1, where
    # two GPUs are left for their own claims.
    assert [[c.name for c in r.unit.claims] for r in result.placed] == [["shared-gpu", "w-0-own"], ["w-1-own"]]
    assert devices(result) == [["node-1/gpu-0", "node-1/gpu-1"], ["node-1/gpu-2"]]
    assert result.explained is not None and result.explained_index == 2
    unfit = {n.node: n for n in result.explained.nodes}
    assert unfit["node-2"].error == (
        "DynamicResources: resourceclaim not available on the node (claim ml/shared-gpu is already allocated for other nodes)")
    out = text(run(cluster, TEMPLATE, SHARED_CLAIM, workload("Deployment", "  replicas: 3\n", claims=claims)))
    assert "ml/shared-gpu (one for all replicas)" in out
    assert "    claim ml/shared-gpu: allocated with replica 0" in out


def test_replicas_override_and_notes() -> None:
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec:\n  resourceClaims:\n"
        "  - {name: gpu, resourceClaimTemplateName: one-gpu}\n  containers: [{name: c, image: busybox}]\n"
    )
    explanation = run(gpu_cluster(1, 2), TEMPLATE, workload("Deployment", "  replicas: 5\n"), pod, replicas=1)
    assert only(explanation).wanted == 1 and len(explanation.units) == 1
    assert explanation.notes == ["--replicas does not apply to pod ml/p: a Pod is one Pod"]
    with pytest.raises(InputError, match=r"in.yaml:\d+:\d+: Deployment ml/w: spec.replicas must be a non-negative"):
        run(gpu_cluster(1, 1), TEMPLATE, workload("Deployment", "  replicas: -1\n"))


def test_claim_filter_picks_the_workloads_that_use_it() -> None:
    other = TEMPLATE.replace("one-gpu", "other-gpu")
    second = workload("Deployment", "  replicas: 2\n", claims="- {name: gpu, resourceClaimTemplateName: other-gpu}")
    second = second.replace("name: w,", "name: v,")
    explanation = run(gpu_cluster(1, 4), TEMPLATE, other, workload("Deployment", "  replicas: 2\n"), second,
                      claims=("ml/other-gpu",))
    assert [w.workload.name for w in explanation.workloads] == ["v"]


def test_node_filter_narrows_the_nodes_replicas_go_to() -> None:
    result = only(run(gpu_cluster(2, 1), TEMPLATE, workload("Deployment", "  replicas: 2\n"), nodes=("node-2",)))
    assert (len(result.placed), result.explained_index) == (1, 1)
    assert devices(result) == [["node-2/gpu-0"]]


def test_network_attached_pools_say_that_placement_matters() -> None:
    cluster = gpu_cluster(2, 0).replace("  devices:\n", "  devices: []\n")
    network = (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: fabric}\nspec:\n"
        "  driver: gpu.nvidia.com\n  allNodes: true\n  pool: {name: fabric, generation: 1, resourceSliceCount: 1}\n"
        "  devices:\n  - name: gpu-0\n  - name: gpu-1\n"
    )
    result = only(run(cluster, network, TEMPLATE, workload("Deployment", "  replicas: 2\n")))
    assert devices(result) == [["node-1/gpu-0"], ["node-1/gpu-1"]]
    assert result.notes and "network-attached pools (gpu.nvidia.com/fabric)" in result.notes[0]


def test_replica_claims_answer_to_the_features_of_the_release() -> None:
    # Without DRAConsumableCapacity (alpha in 1.35) a device is allocated once: one replica each.
    files = (NVIDIA / "demo__specs__consumable-shares__memory-sharing.yaml",)
    if not NVIDIA.is_dir():
        pytest.skip("the corpus of real manifests is not there")
    result = only(run(gpu_cluster(1, 1, capacity="{memory: {value: 10Gi}}"), files=files,
                      features=Features("1.35", {})))
    assert (len(result.placed), result.explained_index) == (1, 1)


def test_pod_names_a_replica_placed_after_the_ones_before_it() -> None:
    cluster = gpu_cluster(2, 2)
    sts = workload("StatefulSet", "  replicas: 5\n")
    third = only(run(cluster, TEMPLATE, sts, pod="ml/w-2"))
    assert (len(third.placed), third.explained_index, third.satisfied) == (2, 2, True)
    assert third.explained is not None and [n.node for n in third.explained.feasible] == ["node-2"]
    # node-1's GPUs went to replicas 0 and 1.
    blocked = {n.node: n for n in third.explained.nodes}["node-1"]
    assert blocked.status == "unschedulable"
    assert "✓ replica 2 fits; on every node:" in text(run(cluster, TEMPLATE, sts, pod="ml/w-2"))
    fifth = run(cluster, TEMPLATE, sts, pod="ml/w-4")
    assert (only(fifth).explained_index, only(fifth).satisfied, fifth.satisfiable) == (4, False, False)
    data = to_data(fifth)["workloads"][0]["explained"]
    assert (data["replica"], data["pod"], data["fits"], data["feasibleNodes"]) == (4, "ml/w-4", False, [])
    daemons = workload("DaemonSet")
    assert devices(only(run(cluster, TEMPLATE, daemons, pod="ml/w-1"))) == [["node-1/gpu-0"]]
    with pytest.raises(InputError, match=r"daemonset ml/w runs 2 Pods .*: it has no replica 2"):
        run(cluster, TEMPLATE, daemons, pod="ml/w-2")
    with pytest.raises(InputError, match="Pod ml/w-x is not in the input"):
        run(cluster, TEMPLATE, sts, pod="ml/w-x")


@pytest.mark.parametrize(
    ("claims", "replica"),
    [
        pytest.param(("ml/w-2-gpu",), 2, id="replica-claim"),
        pytest.param(("ml/w-2-gpu", "ml/w-2-scratch"), 2, id="two-claims-of-one-replica"),
        pytest.param(("ml/w-0-scratch",), 0, id="first-replica"),
        # not one replica's: every replica (with both claims, 4 fit; with one, all 5)
        pytest.param(("ml/w-gpu",), None, id="the-workloads-claim-every-replica"),
        pytest.param(("ml/one-gpu",), None, id="the-template-every-replica"),
    ],
)
def test_claim_names_the_claim_of_one_replica(claims: tuple[str, ...], replica: int | None) -> None:
    """`--claim <workload>-<n>-<claim>`, the name explain gives replica n's claim, explains that
    replica as `--pod <workload>-<n>` does, with the claims named."""
    two = "- {name: gpu, resourceClaimTemplateName: one-gpu}\n- {name: scratch, resourceClaimTemplateName: one-gpu}"
    explanation = run(gpu_cluster(2, 4), TEMPLATE, workload("StatefulSet", "  replicas: 5\n", claims=two), claims=claims)
    result = only(explanation)
    if replica is None:
        both = len(result.workload.unit.claims) == 2
        assert (result.workload.focus, len(result.placed)) == (False, 4 if both else 5)
        return
    assert (result.workload.focus, result.workload.source, result.explained_index) == (True, "--claim", replica)
    assert result.explained is not None
    named = {f"ml/w-{replica}-{c.name.removeprefix('w-')}" for c in result.workload.unit.claims}
    assert sorted(c.qualified_name for c in result.explained.unit.claims) == sorted(claims) == sorted(named)
    assert f"replica {replica} (--claim): " in text(explanation)


def test_claim_of_a_replica_errors_and_precedence() -> None:
    cluster, sts = gpu_cluster(2, 2), workload("StatefulSet", "  replicas: 5\n")
    with pytest.raises(InputError, match=r"--claim names claims of two replicas \(ml/w replica 1, ml/w replica 2\)"):
        run(cluster, TEMPLATE, sts, claims=("ml/w-1-gpu", "ml/w-2-gpu"))
    with pytest.raises(InputError, match=r"--claim names a claim of ml/w replica 2, not of --pod ml/w-1"):
        run(cluster, TEMPLATE, sts, claims=("ml/w-2-gpu",), pod="ml/w-1")
    assert only(run(cluster, TEMPLATE, sts, claims=("ml/w-1-gpu",), pod="ml/w-1")).explained_index == 1
    with pytest.raises(InputError, match="no claim in the input matches w-1-gpu"):
        run(cluster, TEMPLATE, sts, claims=("w-1-gpu",))  # namespace default: not the workload's
    with pytest.raises(InputError, match="no claim in the input matches ml/w-1-other"):
        run(cluster, TEMPLATE, sts, claims=("ml/w-1-other",))
    # A claim of the input with that name is that claim (not replica 1's).
    made = ALLOCATED.format(node="node-1").replace("name: running", "name: w-1-gpu").split("status:")[0]
    explanation = run(cluster, TEMPLATE, sts, made, claims=("ml/w-1-gpu",))
    assert explanation.workloads == [] and [u.unit.title for u in explanation.units] == ["claims ml/w-1-gpu"]


def test_cli_options_and_exit_codes(run_dractl) -> None:
    out = run_dractl("explain", "-o", "json", "--replicas", "max", "examples/explain/replicas/")
    assert out.returncode == 0, out.stderr  # with max: fits when one replica does
    (data,) = json.loads(out.stdout)["workloads"]
    assert (data["fit"], data["replicas"], data["source"], data["explained"]["replica"]) == (2, None, "--replicas max", 2)
    assert run_dractl("explain", "--replicas", "2", "examples/explain/replicas/").returncode == 0
    assert run_dractl("explain", "examples/explain/replicas/").returncode == 1  # 2 of 3
    spread = run_dractl("explain", "--placement", "spread", "--replicas", "1", "examples/explain/replicas/")
    assert "1 of 1 replica fits (--replicas; placement spread)" in spread.stdout
    second = run_dractl("explain", "--pod", "ml/notebook-1", "examples/explain/replicas/")
    assert "replica 1 (--pod): replica 0 placed first (placement pack)" in second.stdout
    for option, value in (("--replicas", "-1"), ("--replicas", "10001"), ("--replicas", "some"), ("--placement", "tight")):
        bad = run_dractl("explain", option, value, "examples/explain/replicas/")
        assert bad.returncode == 2 and option in bad.stderr, (option, value)


def test_html_report_shows_the_replicas_and_the_replica_explained() -> None:
    from dractl.explain.html_report import report_data

    five = run(gpu_cluster(2, 2), TEMPLATE, workload("StatefulSet", "  replicas: 5\n"))
    (page,) = report_data(five)["workloads"]
    assert page["summary"][1] == "4 of 5 replicas fit (spec.replicas; placement pack)"
    assert "  ✓ replica 3 (pod ml/w-3): node node-2" in page["summary"]
    assert page["summary"][-1] == "✗ replica 4 fits on no node once replicas 0 to 3 are placed:"
    assert page["unit"]["title"] == "statefulset ml/w replica 4 (pod ml/w-4)"
    assert page["unit"]["counts"] == {"allocated": 0, "unschedulable": 2, "error": 0}
