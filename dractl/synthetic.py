"""Synthetic clusters for benchmarks and tests, as manifests and as kubectl writes them.

`cluster(nodes, gpus, network, busy=False)`: N nodes with D GPUs each in one node-local
ResourceSlice per node (model A100 with 40Gi on every third node, H100 with 80Gi on the others;
four GPUs per PCIe root), optionally an allNodes pool of NET devices every node sees, one
DeviceClass and the claim `default/four-h100` (4 H100 with at least 64Gi on one PCIe root: two
thirds of the nodes can take it). Without `busy`, the cluster that the upstream allocator's
benchmark generator (`bigcluster.py N D NET` beside the oracle binary) writes, so that the
upstream binary and dractl read one file. With `busy`, gpu-0 of every H100 node is in use by a
claim of its own (`default/busy-<n>`), so that no two H100 nodes read alike. With `pod`, the
cluster as a real GPU cluster has it: every Node with the status a kubelet reports (allocatable
cpu, memory and pods; conditions, addresses, images, nodeInfo) and tainted
`nvidia.com/gpu=present:NoSchedule` as GPU nodes are, and a Pod (`default/trainer`, `POD`) that
uses the claim, requests cpu and memory and tolerates that taint: it fits on the nodes that can
take the claim, as the claim alone did. (The upstream allocator reads neither Pods nor taints:
its answer per node is the same as for the cluster without `pod`.)

`kubectl_dump(objects)`: the same objects as `kubectl get nodes,resourceslices,deviceclasses,
resourceclaims,pods -A -o yaml` (or `-o json`) returns them: one `kind: List` whose items carry what
the apiserver adds (uid, resourceVersion, creationTimestamp, managedFields) and, for Nodes, the
labels, annotations and status of a real node (conditions, addresses, capacity, images), for
Pods the fields the apiserver defaults and a Pending status.

Run `python -m dractl.synthetic N D [NET] [--busy] [--pod] [--kubectl yaml|json]` to write one to stdout.
Nothing here imports the rest of dractl.
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from typing import Any

DRIVER = "gpu.example.com"
CLAIM = "default/four-h100"
POD = "default/trainer"
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


def cluster(nodes: int, gpus: int = 8, network: int = 0, *, busy: bool = False,
            pod: bool = False) -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = [{
        "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": DRIVER},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
    }]
    for n in range(nodes):
        a100 = n % 3 == 0
        devices = [
            {"name": f"gpu-{i}",
             "attributes": {"model": {"string": "A100" if a100 else "H100"}, "index": {"int": i},
                            "pcieRoot": {"string": f"pci-{i // 4}"}, "driverVersion": {"version": "1.2.3"}},
             "capacity": {"memory": {"value": "40Gi" if a100 else "80Gi"}}}
            for i in range(gpus)
        ]
        docs.append({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"node-{n}-gpus"},
            "spec": {"driver": DRIVER, "nodeName": f"node-{n}",
                     "pool": {"name": f"node-{n}", "generation": 1, "resourceSliceCount": 1}, "devices": devices},
        })
        node: dict[str, Any] = {"apiVersion": "v1", "kind": "Node",
                                "metadata": {"name": f"node-{n}", "labels": {"zone": f"z{n % 4}"}}}
        if pod:
            node["spec"] = {"taints": [dict(GPU_TAINT)]}
            # A machine ID with letters: one of digits only is a number to Go's YAML reader.
            node["status"] = _node_status(n, uuid.UUID(int=n + (0xFEED << 112)).hex)
        docs.append(node)
        if busy and not a100:
            docs.append({
                "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                "metadata": {"name": f"busy-{n}", "namespace": "default"},
                "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": DRIVER}}]}},
                "status": {"allocation": {"devices": {"results": [
                    {"request": "gpu", "driver": DRIVER, "pool": f"node-{n}", "device": "gpu-0"}]}}},
            })
    slices = (network + 127) // 128
    for s in range(slices):
        devices = [{"name": f"nic-{j}", "attributes": {"model": {"string": "NIC"}, "index": {"int": j},
                                                       "pcieRoot": {"string": "net"}}}
                   for j in range(s * 128, min(s * 128 + 128, network))]
        docs.append({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"net-{s}"},
            "spec": {"driver": DRIVER, "allNodes": True,
                     "pool": {"name": "net", "generation": 1, "resourceSliceCount": slices}, "devices": devices},
        })
    selector = (f'device.attributes["{DRIVER}"].model == "H100" && '
                f'device.capacity["{DRIVER}"].memory.compareTo(quantity("64Gi")) >= 0')
    docs.append({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": "four-h100", "namespace": "default"},
        "spec": {"devices": {
            "requests": [{"name": "gpus", "exactly": {"deviceClassName": DRIVER, "count": 4, "allocationMode": "ExactCount",
                                                      "selectors": [{"cel": {"expression": selector}}]}}],
            "constraints": [{"requests": ["gpus"], "matchAttribute": f"{DRIVER}/pcieRoot"}],
        }},
    })
    if pod:
        docs.append(_pod())
    return docs


def _pod() -> dict[str, Any]:
    """A training Pod as its author writes it: the claim, cpu and memory, and the toleration
    of the GPU nodes' taint."""
    namespace, name = POD.split("/")
    return {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace, "labels": {"app": name}},
        "spec": {
            "containers": [{
                "name": "trainer", "image": "registry.example.com/ml/trainer:v1.0",
                "resources": {"requests": {"cpu": "16", "memory": "128Gi"}, "limits": {"memory": "128Gi"},
                              "claims": [{"name": "gpus"}]},
            }],
            "resourceClaims": [{"name": "gpus", "resourceClaimName": CLAIM.split("/")[1]}],
            "tolerations": [{"key": GPU_TAINT["key"], "operator": "Exists", "effect": GPU_TAINT["effect"]}],
        },
    }


_TIME = "2026-11-02T09:14:27Z"
_IMAGES = [
    ("registry.example.com/ml/trainer", 8_123_456_789), ("registry.example.com/ml/serving", 4_312_345_678),
    ("registry.k8s.io/kube-proxy", 30_000_000), ("registry.example.com/gpu/driver", 1_234_567_890),
    ("registry.example.com/gpu/dra-plugin", 98_765_432), ("registry.example.com/net/cni", 45_678_901),
    ("registry.k8s.io/pause", 300_000), ("registry.example.com/monitoring/node-exporter", 12_345_678),
    ("registry.example.com/logging/fluent-bit", 34_567_890), ("registry.example.com/security/agent", 56_789_012),
]


def _fields(owner: dict[str, Any]) -> dict[str, Any]:
    """A managedFields `fieldsV1` tree naming every field of `owner` as server-side apply does."""
    out: dict[str, Any] = {}
    for key, value in owner.items():
        if isinstance(value, dict):
            out[f"f:{key}"] = _fields(value)
        elif isinstance(value, list):
            out[f"f:{key}"] = {}
        else:
            out[f"f:{key}"] = {}
    return out


def _node_status(index: int, machine_id: str | None = None) -> dict[str, Any]:
    conditions = [
        {"lastHeartbeatTime": _TIME, "lastTransitionTime": _TIME, "message": message, "reason": reason,
         "status": status, "type": kind}
        for kind, status, reason, message in (
            ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
        )
    ]
    resources = {"cpu": "96", "ephemeral-storage": "1844284Mi", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
                 "memory": "1056561844Ki", "pods": "110"}
    return {
        "addresses": [{"address": f"10.{index // 65536}.{index // 256 % 256}.{index % 256}", "type": "InternalIP"},
                      {"address": f"node-{index}", "type": "Hostname"}],
        "allocatable": resources, "capacity": dict(resources), "conditions": conditions,
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "images": [{"names": [f"{name}@sha256:{uuid.UUID(int=index * 64 + i).hex * 2}", f"{name}:v1.{i}"],
                    "sizeBytes": size} for i, (name, size) in enumerate(_IMAGES)],
        "nodeInfo": {"architecture": "amd64", "bootID": str(uuid.UUID(int=index + 1)),
                     "containerRuntimeVersion": "containerd://2.1.4", "kernelVersion": "6.8.0-1030",
                     "kubeProxyVersion": "", "kubeletVersion": "v1.36.0", "machineID": machine_id or uuid.UUID(int=index + 2).hex,
                     "operatingSystem": "linux", "osImage": "Ubuntu 24.04.3 LTS",
                     "systemUUID": str(uuid.UUID(int=index + 3))},
    }


_MANAGERS = {"Node": "kubelet", "Pod": "kubectl-client-side-apply"}


def _pod_as_stored(item: dict[str, Any]) -> None:
    """What the apiserver adds to a Pod (defaults, the tolerations of DefaultTolerationSeconds)
    and the status the scheduler leaves on one it could not place."""
    spec = item["spec"]
    for container in spec.get("containers", []):
        container.setdefault("imagePullPolicy", "IfNotPresent")
        container.setdefault("terminationMessagePath", "/dev/termination-log")
        container.setdefault("terminationMessagePolicy", "File")
    spec.update({
        "dnsPolicy": "ClusterFirst", "enableServiceLinks": True, "preemptionPolicy": "PreemptLowerPriority",
        "priority": 0, "restartPolicy": "Always", "schedulerName": "default-scheduler", "securityContext": {},
        "serviceAccount": "default", "serviceAccountName": "default", "terminationGracePeriodSeconds": 30,
        "tolerations": [*spec.get("tolerations", []), *(
            {"effect": "NoExecute", "key": f"node.kubernetes.io/{key}", "operator": "Exists", "tolerationSeconds": 300}
            for key in ("not-ready", "unreachable"))],
    })
    item["status"] = {
        "conditions": [{"lastProbeTime": None, "lastTransitionTime": _TIME, "message": "0/1 nodes are available",
                        "reason": "Unschedulable", "status": "False", "type": "PodScheduled"}],
        "phase": "Pending", "qosClass": "Burstable",
    }


def kubectl_dump(objects: list[dict[str, Any]]) -> dict[str, Any]:
    items = []
    for index, obj in enumerate(objects):
        item = json.loads(json.dumps(obj))
        metadata = item.setdefault("metadata", {})
        if item["kind"] == "Node":
            name = metadata["name"]
            metadata["labels"] = {
                **metadata.get("labels", {}), "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": "gpu-8x",
                "topology.kubernetes.io/region": "region-1", "topology.kubernetes.io/zone": metadata["labels"]["zone"],
            }
            metadata["annotations"] = {"node.alpha.kubernetes.io/ttl": "0",
                                       "volumes.kubernetes.io/controller-managed-attach-detach": "true"}
            item["spec"] = {"podCIDR": f"10.244.{index % 256}.0/24", "providerID": f"cloud://region-1/{name}",
                            **item.get("spec", {})}
            item.setdefault("status", _node_status(index))
        elif item["kind"] == "Pod":
            _pod_as_stored(item)
        metadata.update({"creationTimestamp": _TIME, "resourceVersion": str(100_000 + index),
                         "uid": str(uuid.UUID(int=index + 7))})
        owned = {key: value for key, value in item.items() if key not in ("apiVersion", "kind", "status")}
        metadata["managedFields"] = [{
            "apiVersion": item["apiVersion"], "fieldsType": "FieldsV1", "fieldsV1": _fields(owned),
            "manager": _MANAGERS.get(item["kind"], "dra-driver"), "operation": "Update", "time": _TIME,
        }]
        if item["kind"] in ("Node", "Pod"):
            metadata["managedFields"].append({
                "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:status": _fields(item["status"])},
                "manager": "kubelet" if item["kind"] == "Node" else "kube-scheduler", "operation": "Update",
                "subresource": "status", "time": _TIME,
            })
        items.append(item)
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


def write(objects: list[dict[str, Any]], out: Any, kubectl: str | None = None) -> None:
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    if kubectl == "json":
        json.dump(kubectl_dump(objects), out, indent=4)
        out.write("\n")
    elif kubectl == "yaml":
        yaml.dump(kubectl_dump(objects), out, Dumper=dumper, sort_keys=False, default_flow_style=False)
    else:
        yaml.dump_all(objects, out, Dumper=dumper, sort_keys=False, default_flow_style=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", type=int, nargs="+", metavar="N D [NET]")
    parser.add_argument("--busy", action="store_true", help="gpu-0 of every H100 node in use")
    parser.add_argument("--pod", action="store_true",
                        help="Nodes with status and the GPU taint, and a Pod that uses the claim and tolerates it")
    parser.add_argument("--kubectl", choices=("yaml", "json"), help="as kubectl get -A -o yaml|json writes it")
    args = parser.parse_args()
    nodes, gpus, network = (args.sizes + [1000, 8, 0][len(args.sizes):])[:3]
    write(cluster(nodes, gpus, network, busy=args.busy, pod=args.pod), sys.stdout, args.kubectl)


if __name__ == "__main__":
    main()
