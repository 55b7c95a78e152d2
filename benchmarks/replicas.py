"""What placing a workload replica by replica costs in `dractl explain`, as a ratio.

Cluster: N nodes with 8 GPUs each (`dractl.synthetic`). Workload: a Deployment whose Pods claim 2 GPUs each from a
template, with as many replicas as the cluster holds (4 per node) and then one more, so that the
last one fits nowhere and is explained on every node. Yardstick, timed in the same run, pair by
pair: the same cluster with a Pod of the same claim, explained on every node as one Pod (what
`dractl explain` did for a workload before replicas). Both run through `explain()` on a loaded
workspace (loading the YAML is the same for both and left out).

Run: `python benchmarks/replicas.py [--nodes 250] [--repeat 3]`. Prints seconds per figure
(best of the repeats) and the ratio of each placement to the yardstick.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dractl.api.model import build_all
from dractl.api.workspace import Workspace
from dractl.explain.run import ExplainSettings, explain
from dractl.load import load_text
from dractl.synthetic import DRIVER
from dractl.synthetic import cluster as synthetic_cluster

GPUS = 8
PER_POD = 2


def cluster(nodes: int) -> list[dict[str, Any]]:
    """dractl.synthetic's cluster (its claim ``four-h100`` is left out) and the template of the
    workload's Pods: any 2 GPUs of the class."""
    objects = [o for o in synthetic_cluster(nodes, GPUS) if o["kind"] != "ResourceClaim"]
    objects.append({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
        "metadata": {"name": "two-gpus", "namespace": "ml"},
        "spec": {"spec": {"devices": {"requests": [
            {"name": "gpus", "exactly": {"deviceClassName": DRIVER, "count": PER_POD}}]}}},
    })
    return objects


def pod_spec() -> dict[str, Any]:
    return {"resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "two-gpus"}],
            "containers": [{"name": "c", "image": "busybox"}]}


def workspace(objects: list[dict[str, Any]]) -> Workspace:
    loaded = load_text("\n---\n".join(json.dumps(o) for o in objects), "cluster.yaml")
    return Workspace(build_all(loaded.objects))


def timed(run: Any) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=250)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    base = cluster(args.nodes)
    replicas = args.nodes * GPUS // PER_POD + 1
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w", "namespace": "ml"},
                  "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "w"}},
                           "template": {"metadata": {"labels": {"app": "w"}}, "spec": pod_spec()}}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml"}, "spec": pod_spec()}
    one_pod = workspace([*base, pod])
    workload = workspace([*base, deployment])
    best: dict[str, float] = {}
    for _ in range(args.repeat):
        # Pair by pair: the yardstick next to each figure, so that drift hits both alike.
        for name, run in (
            ("one pod on every node (yardstick)", lambda: explain(one_pod, ExplainSettings())),
            ("replicas, pack", lambda: explain(workload, ExplainSettings(placement="pack"))),
            ("one pod on every node (yardstick)", lambda: explain(one_pod, ExplainSettings())),
            ("replicas, spread", lambda: explain(workload, ExplainSettings(placement="spread"))),
        ):
            seconds = timed(run)
            best[name] = min(best.get(name, seconds), seconds)
    yardstick = best["one pod on every node (yardstick)"]
    print(f"{args.nodes} nodes x {GPUS} GPUs, {replicas} replicas of {PER_POD} GPUs (the last fits nowhere)")
    for name, seconds in best.items():
        print(f"  {name:36} {seconds:8.3f} s  {seconds / yardstick:6.1f}x")


if __name__ == "__main__":
    main()
