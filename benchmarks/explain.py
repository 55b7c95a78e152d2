"""Wall time of the allocator runs behind `dractl explain`, on synthetic clusters.

Cluster: N nodes with one ResourceSlice of 8 GPUs each (NUMA 0 and 1, four each; on every
node the first GPU is already allocated, so NUMA 0 has only three free and the search must
backtrack to NUMA 1). Claim: 4 GPUs of one class with `matchAttribute` on the NUMA node.
Variants: with and without a network-attached pool (allNodes) of M devices that the class
does not select, at size 1x (1,000 nodes, 5,000 network devices) and 2x.

Run: `python benchmarks/explain.py [--repeat 3]`. Prints seconds per figure (best of the
repeats): building the inventory and allocator, one node, and all nodes (with the trace
on, as `dractl explain` runs it, and off), then the whole command on the same cluster written
to a YAML file (`dractl explain FILE`, text and JSON output).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dractl.allocator import Allocator, AllocatorFeatures, Inventory
from dractl.api.releases import Features

DRIVER = "gpu.example.com"
NET_DRIVER = "net.example.com"
DEVICES_PER_SLICE = 125


def gpu_class() -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
    }


def node_slice(index: int) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"node-{index}-gpus"},
        "spec": {
            "driver": DRIVER, "nodeName": f"node-{index}",
            "pool": {"name": f"node-{index}", "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {"name": f"gpu-{d}", "attributes": {"numa": {"int": d // 4}, "model": {"string": "a100"}},
                 "capacity": {"memory": {"value": "40Gi"}}}
                for d in range(8)
            ],
        },
    }


def network_slices(count: int) -> list[dict[str, Any]]:
    slice_count = (count + DEVICES_PER_SLICE - 1) // DEVICES_PER_SLICE
    return [
        {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"net-{s}"},
            "spec": {
                "driver": NET_DRIVER, "allNodes": True,
                "pool": {"name": "fabric", "generation": 1, "resourceSliceCount": slice_count},
                "devices": [{"name": f"nic-{s}-{d}", "attributes": {"speed": {"int": 100}}}
                            for d in range(min(DEVICES_PER_SLICE, count - s * DEVICES_PER_SLICE))],
            },
        }
        for s in range(slice_count)
    ]


def in_use_claim(nodes: int) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": "running", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu", "count": 1}}]}},
        "status": {"allocation": {"devices": {"results": [
            {"request": "gpu", "driver": DRIVER, "pool": f"node-{i}", "device": "gpu-0"} for i in range(nodes)
        ]}}},
    }


def claim() -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "train", "namespace": "default"},
        "spec": {"devices": {
            "requests": [{"name": "gpus", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 4}}],
            "constraints": [{"matchAttribute": f"{DRIVER}/numa"}],
        }},
    }


def best(repeat: int, action: Callable[[], Any]) -> tuple[float, float]:
    """Best wall time and best CPU time (seconds) of `repeat` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def measure(nodes: int, network_devices: int, repeat: int) -> dict[str, tuple[float, float]]:
    objects = [gpu_class(), in_use_claim(nodes), *(node_slice(i) for i in range(nodes)),
               *network_slices(network_devices)]
    node_objects = [{"metadata": {"name": f"node-{i}", "labels": {"zone": f"z{i % 4}"}}} for i in range(nodes)]
    features = Features("1.36")
    allocator_features = AllocatorFeatures.from_gates("1.36", features.enabled)
    claims = [claim()]

    def build() -> Allocator:
        inventory = Inventory.from_objects(objects, consumable_capacity=allocator_features.consumable_capacity)
        return Allocator(inventory, release="1.36", features=allocator_features, gates=features.gates)

    figures: dict[str, tuple[float, float]] = {"build": best(repeat, build)}

    def cold_one_node() -> None:
        outcome = build().allocate(node_objects[0], claims, trace=True)
        assert outcome.status == "allocated", outcome.error

    figures["one node (cold, incl. build)"] = best(repeat, cold_one_node)

    def all_nodes(trace: bool) -> Callable[[], None]:
        def run() -> None:
            allocator = build()
            for node in node_objects:
                outcome = allocator.allocate(node, claims, trace=trace)
                assert outcome.status == "allocated", outcome.error
        return run

    figures["all nodes, trace (incl. build)"] = best(repeat, all_nodes(True))
    figures["all nodes, no trace (incl. build)"] = best(repeat, all_nodes(False))
    figures.update(end_to_end(objects, node_objects, claims, repeat))
    return figures


def end_to_end(objects: list[dict[str, Any]], node_objects: list[dict[str, Any]], claims: list[dict[str, Any]],
               repeat: int) -> dict[str, tuple[float, float]]:
    """`dractl explain FILE` as a user runs it: reading the YAML, every node, the output.

    CPU time is the child process's (user + system).
    """
    import os
    import subprocess
    import tempfile

    import yaml

    nodes = [{"apiVersion": "v1", "kind": "Node", **node} for node in node_objects]
    figures: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cluster.yaml"
        path.write_text(yaml.safe_dump_all([*objects, *nodes, *claims], sort_keys=False))
        root = Path(__file__).resolve().parents[1]
        env = {**os.environ, "PYTHONPATH": str(root)}
        for output in ("text", "json"):
            def run(output: str = output) -> None:
                done = subprocess.run([sys.executable, "-m", "dractl", "explain", "--timeout", "300", "-o", output,
                                       str(path)], capture_output=True, env=env, cwd=root)
                assert done.returncode == 0, done.stderr.decode()
            walls, cpus = [], []
            for _ in range(repeat):
                before = os.times()
                wall = time.perf_counter()
                run()
                walls.append(time.perf_counter() - wall)
                after = os.times()
                cpus.append((after.children_user - before.children_user) + (after.children_system - before.children_system))
            figures[f"dractl explain -o {output} (all nodes)"] = (min(walls), min(cpus))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for label, nodes, network in (
        ("1,000 nodes x 8 GPUs", 1000, 0),
        ("1,000 nodes x 8 GPUs + 5,000 network devices", 1000, 5000),
        ("2,000 nodes x 8 GPUs (2x)", 2000, 0),
        ("2,000 nodes x 8 GPUs + 10,000 network devices (2x)", 2000, 10000),
    ):
        figures = measure(nodes, network, args.repeat)
        rows.append((label, figures))
        print(label)
        print(f"  {'':<36} {'wall':>8}   {'cpu':>8}")
        for name, (wall, cpu) in figures.items():
            print(f"  {name:<36} {wall:8.3f} s {cpu:8.3f} s")
    key = "all nodes, trace (incl. build)"
    for small, large in ((0, 2), (1, 3)):
        wall = rows[large][1][key][0] / rows[small][1][key][0]
        cpu = rows[large][1][key][1] / rows[small][1][key][1]
        print(f"2x / 1x, {rows[small][0]}: wall {wall:.2f}x, cpu {cpu:.2f}x")
    print(f"load average during the run: {', '.join(f'{x:.1f}' for x in _load())}")


def _load() -> tuple[float, ...]:
    try:
        import os

        return os.getloadavg()
    except (AttributeError, OSError):
        return ()


if __name__ == "__main__":
    main()
