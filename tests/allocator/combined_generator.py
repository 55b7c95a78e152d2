"""Random allocator scenarios that combine features, in the conformance scenario format.

`draw(seed)` returns the documents of one scenario (a `kind: Scenario` header, then classes,
slices, claims and Nodes) for Kubernetes 1.36 with a random set of the allocator's switches;
`dump(docs)` writes them as a YAML stream that both `dractl` (`allocator_scenarios.load_scenario`)
and the upstream allocator (`dra-upstream SCENARIO.yaml`) read. The header has no `expect` until
`combined_oracle.answer` puts upstream's answer there.

Besides the plain combinations (counters, taints, shared devices, prioritized lists, admin
access, binding conditions, constraints, devices in use), the generator draws the families of
issue 27 §4 where dractl once disagreed with upstream:

- pools whose slices of one generation disagree on `resourceSliceCount`, with node-local and
  shared (allNodes, nodeSelector, counter-set) slices in every input order;
- capacity request policies whose rounding wraps in int64 (`step` 4Ei on an 8Ei device, requests
  of 5Ei and beyond int64);
- capacity requests too large for an int64 mantissa (`1Pi`, `100Ti`, 19 digits) on devices whose
  policy hands the request itself back (only a `default`, or a `validRange` without `step`);
- a selector with a comprehension over 10,001 elements (cost about 60,000).
"""

from __future__ import annotations

import random
from typing import Any

import yaml

GPU, NIC = "gpu.example.com", "nic.example.com"
FEATURES = ("AdminAccess", "PrioritizedList", "PartitionableDevices", "DeviceTaints", "ConsumableCapacity",
            "DeviceBindingAndStatus", "ListTypeAttributes")
CLASSES: dict[str, list[str]] = {
    "gpu": [f'device.driver == "{GPU}"'],
    "nic": [f'device.driver == "{NIC}"'],
    "numa0": [f'device.driver == "{GPU}"', f'device.attributes["{GPU}"].numa == 0'],
    # Family 4: about 60,000 of cost, more than 10,000 iterations.
    "long": [f'device.driver == "{GPU}"', "lists.range(10001).all(i, i >= 0)"],
}
REQUEST_SELECTORS = ("", f'device.attributes["{GPU}"].model == "a"')
# Family 2: int64 rounding. A capacity of 8Ei whose policy rounds up in steps of 4Ei from 1.
WRAPPING_POLICY = {"default": "1", "validRange": {"min": "1", "step": "4Ei"}}
WRAPPING_REQUESTS = ("5Ei", "4Ei", "1", "10Ei", "20000000000000000000", "3Ei")
# Family 3: requests beyond an int64 mantissa, handed back by the policy as they are.
SHARING_POLICIES = ({"default": "1Pi"}, {"validRange": {"min": "1Ti"}}, {"validRange": {"min": "1Ti", "max": "6Pi"}},
                    {"default": "1Ti", "validRange": {"min": "1Ti"}})
LARGE_REQUESTS = ("1Pi", "100Ti", "2Pi", "1125899906842624000", "1Ti")


def draw(seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    features = {name: rng.random() < 0.5 for name in FEATURES}
    features["ListTypeAttributes"] = False
    # A theme puts one family of capacity requests in every GPU device and most requests.
    theme = rng.choice(["plain"] * 6 + ["wrap", "large"])
    if rng.random() < 0.6 or theme != "plain":
        # Most scenarios run upstream's sorted implementations (stable walks a Go map).
        features["ConsumableCapacity"] = True
    long_class = rng.random() < 0.05
    objects: list[dict[str, Any]] = [_class(name, exprs) for name, exprs in CLASSES.items()
                                     if name != "long" or long_class]
    devices_seen: list[tuple[str, str, str, dict[str, Any]]] = []
    for pool_index in range(rng.randint(2, 5)):
        objects += _pool(rng, f"pool-{pool_index}", devices_seen, theme, first=pool_index == 0)
    in_use = rng.sample(devices_seen, k=min(len(devices_seen), rng.choice([0, 0, 1, 2])))
    if in_use:
        results = []
        for driver, pool, name, raw in in_use:
            result: dict[str, Any] = {"request": "r", "driver": driver, "pool": pool, "device": name}
            if raw.get("allowMultipleAllocations") and rng.random() < 0.7:
                result["shareID"] = f"0000000{len(results)}-0000-0000-0000-000000000000"
                result["consumedCapacity"] = {n: rng.choice(["1", "1Pi", "2"]) if n == "mem" else "1"
                                              for n in raw.get("capacity", {})}
            results.append(result)
        objects.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                        "metadata": {"name": "running", "namespace": "default"},
                        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}},
                        "status": {"allocation": {"devices": {"results": results}}}})
    claim_names = []
    for claim_index in range(rng.randint(1, 2)):
        objects.append(_claim(rng, f"c{claim_index}", features, long_class, theme))
        claim_names.append(f"c{claim_index}")
    objects.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1", "labels": {"region": "r1"}}})
    objects.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-2", "labels": {"region": "r2"}}})
    header = {"apiVersion": "conformance.dractl.dev/v1", "kind": "Scenario", "name": f"combined-{seed}",
              "source": f"tests/allocator/combined_generator.py seed {seed}", "features": features,
              "node": rng.choice(["node-1", "node-1", "node-1", "node-2"]), "allocate": claim_names}
    return [header, *objects]


def dump(docs: list[dict[str, Any]]) -> str:
    return yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False, width=200)


def _class(name: str, expressions: list[str]) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": e}} for e in expressions]}}


def _placement(rng: random.Random) -> dict[str, Any]:
    where = rng.choice(["node-1", "node-1", "node-1", "node-2", "all", "selector"])
    if where == "all":
        return {"allNodes": True}
    if where == "selector":
        return {"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "region", "operator": "In", "values": ["r1"]}]}]}}
    return {"nodeName": where}


def _device(rng: random.Random, driver: str, name: str, counted: bool, theme: str) -> dict[str, Any]:
    device: dict[str, Any] = {"name": name}
    if driver == GPU:
        device["attributes"] = {"numa": {"int": rng.randint(0, 1)}, "model": {"string": rng.choice("ab")}}
        shape = {"wrap": 0.3, "large": 0.4}.get(theme, rng.random())
        if shape < 0.25:
            device["allowMultipleAllocations"] = True
            device["capacity"] = {"bw": {"value": str(rng.randint(1, 8))}}
            if rng.random() < 0.4:
                device["capacity"]["bw"]["requestPolicy"] = rng.choice([
                    {"default": "1", "validRange": {"min": "1", "step": "2"}},
                    {"default": "2", "validValues": ["2", "4"]}, {"default": "1"}])
        elif shape < 0.35:
            device["allowMultipleAllocations"] = True
            device["capacity"] = {"mem": {"value": "8Ei", "requestPolicy": dict(WRAPPING_POLICY)}}
        elif shape < 0.5:
            device["allowMultipleAllocations"] = rng.random() < 0.8
            device["capacity"] = {"mem": {"value": rng.choice(["4Pi", "3Pi", "6Pi"]),
                                          "requestPolicy": rng.choice(SHARING_POLICIES)}}
    if rng.random() < 0.1:
        device["taints"] = [{"key": "maint", "effect": rng.choice(["NoSchedule", "NoExecute", "None"])}]
    if rng.random() < 0.08:
        device["bindingConditions"] = ["ready"]
        device["bindingFailureConditions"] = ["failed"]
    if counted:
        device["consumesCounters"] = [{"counterSet": "units", "counters": {"n": {"value": str(rng.randint(1, 2))}}}]
    return device


def _slice(name: str, driver: str, pool: str, generation: int, count: int, placement: dict[str, Any],
           devices: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"driver": driver, "pool": {"name": pool, "generation": generation,
                                                       "resourceSliceCount": count}}
    spec.update(placement)
    if devices:
        spec["devices"] = devices
    spec.update(extra)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def _pool(rng: random.Random, pool: str, seen: list[tuple[str, str, str, dict[str, Any]]],
          theme: str, first: bool) -> list[dict[str, Any]]:
    # The first pool: GPUs most nodes see, so that most scenarios have something to allocate.
    driver = GPU if first else rng.choice([GPU, GPU, NIC])
    counted = rng.random() < 0.3
    devices = [_device(rng, driver, f"dev-{i}", counted, theme) for i in range(rng.randint(2 if first else 1, 5))]
    seen.extend((driver, pool, d["name"], d) for d in devices)
    generation = rng.choice([1, 1, 2])
    # Split the devices over one or two slices (with the counter set, up to three).
    parts = [devices] if len(devices) < 2 or rng.random() < 0.6 else [devices[:1], devices[1:]]
    slices: list[dict[str, Any]] = []
    for index, part in enumerate(parts):
        placement = (rng.choice([{"allNodes": True}, {"nodeName": "node-1"}]) if first else _placement(rng)) \
            if index == 0 or rng.random() < 0.5 else dict(
            {"nodeName": "node-1"} if rng.random() < 0.5 else {"allNodes": True})
        slices.append(_slice(f"{pool}-s{index}", driver, pool, generation, 0, placement, part))
    if counted:
        placement = rng.choice([{"nodeName": "node-1"}, {"allNodes": True}, {"nodeName": "node-2"}])
        slices.append(_slice(f"{pool}-counters", driver, pool, generation, 0, placement, [],
                             sharedCounters=[{"name": "units", "counters": {"n": {"value": str(rng.randint(1, 4))}}}]))
    count = len(slices)
    for s in slices:
        s["spec"]["pool"]["resourceSliceCount"] = count
    if len(slices) > 1 and rng.random() < 0.5:
        # Family 1: slices of one generation that disagree on the count.
        rng.choice(slices)["spec"]["pool"]["resourceSliceCount"] = rng.choice([count - 1, count + 1])
    if rng.random() < 0.1:
        # An older generation left behind.
        old = _slice(f"{pool}-old", driver, pool, generation - 1 if generation > 1 else 0, 1,
                     {"nodeName": "node-1"}, [{"name": "dev-old"}])
        slices.append(old)
    rng.shuffle(slices)
    return slices


def _claim(rng: random.Random, name: str, features: dict[str, bool], long_class: bool, theme: str) -> dict[str, Any]:
    requests = []
    classes = [c for c in CLASSES if c != "long" or long_class]
    if theme != "plain":
        classes = ["gpu"]
    for request_index in range(rng.choice([1, 1, 2])):
        alternatives = []
        for _ in range(rng.choice([1, 1, 2]) if features["PrioritizedList"] else 1):
            class_name = rng.choice(classes)
            exactly: dict[str, Any] = {"deviceClassName": class_name}
            if rng.random() < 0.15 and not alternatives:
                exactly["allocationMode"] = "All"
            else:
                exactly["allocationMode"] = "ExactCount"
                exactly["count"] = rng.choice([1, 1, 1, 1, 2, 3])
            selector = rng.choice(REQUEST_SELECTORS)
            if selector and class_name != "nic":
                exactly["selectors"] = [{"cel": {"expression": selector}}]
            if features["DeviceTaints"] and rng.random() < 0.4:
                exactly["tolerations"] = [{"key": "maint", "operator": "Exists"}]
            if features["ConsumableCapacity"] and rng.random() < (0.5 if theme == "plain" else 0.85):
                kind = {"wrap": 0.45, "large": 0.9}.get(theme, rng.random())
                if kind < 0.3:
                    exactly["capacity"] = {"requests": {"bw": str(rng.randint(1, 4))}}
                elif kind < 0.6:
                    exactly["capacity"] = {"requests": {"mem": rng.choice(WRAPPING_REQUESTS)}}
                else:
                    exactly["capacity"] = {"requests": {"mem": rng.choice(LARGE_REQUESTS)}}
            if features["AdminAccess"] and rng.random() < 0.1:
                exactly["adminAccess"] = True
            alternatives.append(exactly)
        if len(alternatives) == 1:
            requests.append({"name": f"r{request_index}", "exactly": alternatives[0]})
        else:
            requests.append({"name": f"r{request_index}",
                             "firstAvailable": [{"name": f"s{i}", **a} for i, a in enumerate(alternatives)]})
    devices: dict[str, Any] = {"requests": requests}
    constraints = []
    if rng.random() < 0.15:
        constraints.append({"matchAttribute": f"{GPU}/numa"})
    if rng.random() < 0.1:
        constraints.append({"distinctAttribute": f"{GPU}/model"})
    if constraints:
        devices["constraints"] = constraints
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name},
            "spec": {"devices": devices}}
