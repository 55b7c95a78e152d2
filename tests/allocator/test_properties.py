"""Random clusters and claims: the solver never crashes, and what it allocates is valid.

The checker below is independent of the solver: it reads the generated objects directly,
evaluates selectors through `dractl.cel` itself and recomputes counts, constraints,
counters, capacity and taints from the allocation it is given.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from allocator_builders import (
    claim,
    device,
    device_class,
    make_allocator,
    node,
    request,
    resource_slice,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dractl.allocator.quantity import Quantity
from dractl.cel import CelDevice, compile_selector

GPU, NIC = "gpu.example.com", "nic.example.com"
CLASSES = {
    "gpu": [f'device.driver == "{GPU}"'],
    "nic": [f'device.driver == "{NIC}"'],
    "numa0": [f'device.driver == "{GPU}"', f'device.attributes["{GPU}"].numa == 0'],
}
REQUEST_SELECTORS = ["", f'device.attributes["{GPU}"].model == "a"']


@st.composite
def scenarios(draw: Any) -> dict[str, Any]:
    release = draw(st.sampled_from(["1.34", "1.35", "1.36"]))
    gates = {"DRAPartitionableDevices": draw(st.booleans()), "DRADeviceTaints": draw(st.booleans()),
             "DRAConsumableCapacity": draw(st.booleans())}
    if release == "1.34":
        gates["DRAResourceClaimDeviceStatus"] = draw(st.booleans())
    objects: list[dict[str, Any]] = [device_class(name, *exprs) for name, exprs in CLASSES.items()]
    all_devices: list[tuple[str, str, str]] = []
    for pool_index in range(draw(st.integers(1, 4))):
        driver = draw(st.sampled_from([GPU, GPU, NIC]))
        where = draw(st.sampled_from(["node-1", "node-1", "node-2", "all"]))
        pool = f"pool-{pool_index}"
        counted = draw(st.booleans())
        devices = []
        for index in range(draw(st.integers(1, 5))):
            fields: dict[str, Any] = {}
            if driver == GPU:
                fields["attributes"] = {"numa": draw(st.integers(0, 1)), "model": draw(st.sampled_from("ab"))}
                if draw(st.integers(0, 2)) == 0:
                    # Consumable capacity: a device that many requests may share.
                    fields["allowMultipleAllocations"] = True
                    fields["capacity"] = {"bw": {"value": str(draw(st.integers(1, 8)))}}
            if draw(st.integers(0, 4)) == 0:
                fields["taints"] = [{"key": "maint", "effect": draw(st.sampled_from(["NoSchedule", "NoExecute"]))}]
            if counted:
                fields["consumesCounters"] = [{"counterSet": "units", "counters": {
                    "n": {"value": str(draw(st.integers(1, 2)))}}}]
            devices.append(device(f"dev-{index}", **fields))
            all_devices.append((driver, pool, f"dev-{index}"))
        placement: dict[str, Any] = {"allNodes": True} if where == "all" else {}
        node_name = None if where == "all" else where
        count = 2 if counted else 1
        objects.append(resource_slice(f"{pool}-devices", devices, driver=driver, pool=pool, node=node_name,
                                      count=count, **placement))
        if counted:
            objects.append(resource_slice(f"{pool}-counters", [], driver=driver, pool=pool, node=node_name,
                                          count=count, sharedCounters=[{"name": "units", "counters": {
                                              "n": {"value": str(draw(st.integers(1, 4)))}}}], **placement))
    in_use = draw(st.lists(st.sampled_from(all_devices), max_size=2, unique=True))
    if in_use:
        objects.append({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "running", "namespace": "default"},
            "spec": {"devices": {"requests": [request("r")]}},
            "status": {"allocation": {"devices": {"results": [
                {"request": "r", "driver": d, "pool": p, "device": n} for d, p, n in in_use]}}},
        })
    claims = []
    for claim_index in range(draw(st.integers(1, 2))):
        requests = []
        for request_index in range(draw(st.integers(1, 2))):
            extra: dict[str, Any] = {}
            if draw(st.booleans()):
                extra["tolerations"] = [{"key": "maint", "operator": "Exists"}]
            if draw(st.integers(0, 3)) == 0:
                extra["capacity"] = {"requests": {"bw": str(draw(st.integers(1, 4)))}}
            alternatives = []
            for _ in range(draw(st.sampled_from([1, 1, 2]))):
                selector = draw(st.sampled_from(REQUEST_SELECTORS))
                class_name = draw(st.sampled_from(sorted(CLASSES)))
                selectors = (selector,) if selector and class_name != "nic" else ()
                if draw(st.integers(0, 5)) == 0 and not alternatives:
                    alternatives.append(request(f"r{request_index}", class_name, mode="All", selectors=selectors,
                                                **extra))
                else:
                    alternatives.append(request(f"r{request_index}", class_name, draw(st.sampled_from([1, 1, 2, 3])),
                                                selectors=selectors, **extra))
            if len(alternatives) == 1:
                requests.append(alternatives[0])
            else:
                # firstAvailable: the subrequests in order of preference.
                requests.append({"name": f"r{request_index}", "firstAvailable": [
                    {"name": f"s{index}", **alternative["exactly"]} for index, alternative in enumerate(alternatives)]})
        constraints = []
        if draw(st.integers(0, 3)) == 0:
            constraints.append({"matchAttribute": f"{GPU}/numa"})
        if draw(st.integers(0, 3)) == 0:
            constraints.append({"distinctAttribute": f"{GPU}/model"})
        claims.append(claim(f"c{claim_index}", *requests, constraints=constraints))
    return {"release": release, "gates": gates, "objects": objects, "claims": claims,
            "node": draw(st.sampled_from(["node-1", "node-1", "node-2"]))}


def _compiled(expression: str) -> Any:
    return compile_selector(expression, release="1.36", purpose="stored")


def check_allocation(scenario: dict[str, Any], outcome: Any, allocator: Any) -> None:
    """Independent validation of an allocation against the generated objects."""
    objects = scenario["objects"]
    node_name = scenario["node"]
    gates = allocator.features
    slices = [o for o in objects if o["kind"] == "ResourceSlice"]
    devices: dict[tuple[str, str, str], tuple[dict[str, Any], dict[str, Any]]] = {}
    for s in slices:
        for d in s["spec"]["devices"]:
            devices[(s["spec"]["driver"], s["spec"]["pool"]["name"], d["name"])] = (d, s)
    in_use = {(r["driver"], r["pool"], r["device"]) for o in objects if o["kind"] == "ResourceClaim"
              for r in o["status"]["allocation"]["devices"]["results"]}
    used: set[tuple[str, str, str]] = set()
    consumption: dict[tuple[str, str], Fraction] = {}
    shared_use: dict[tuple[str, str, str], Fraction] = {}
    for claim_data, allocation in zip(scenario["claims"], outcome.allocations, strict=True):
        results = allocation["devices"]["results"]
        requests: dict[str, dict[str, Any]] = {}
        alternatives: dict[str, list[str]] = {}
        for r in claim_data["spec"]["devices"]["requests"]:
            if "firstAvailable" in r:
                alternatives[r["name"]] = [f"{r['name']}/{sub['name']}" for sub in r["firstAvailable"]]
                requests.update({f"{r['name']}/{sub['name']}": sub for sub in r["firstAvailable"]})
            else:
                requests[r["name"]] = r["exactly"]
        per_request: dict[str, list[tuple[str, str, str]]] = {name: [] for name in requests}
        for result in results:
            key = (result["driver"], result["pool"], result["device"])
            assert key in devices, key
            raw, slice_data = devices[key]
            spec = slice_data["spec"]
            assert spec.get("allNodes") or spec.get("nodeName") == node_name, (key, "not on this node")
            assert key not in in_use, (key, "in use")
            exactly = requests[result["request"]]
            wanted = ((exactly.get("capacity") or {}).get("requests") or {}).get("bw")
            if gates.consumable_capacity and raw.get("allowMultipleAllocations"):
                # Shared: each result takes its share; together at most the capacity.
                assert result.get("shareID"), (key, "shared without a share ID")
                share = Quantity.parse(result["consumedCapacity"]["bw"]).value
                total = Quantity.parse(raw["capacity"]["bw"]["value"]).value
                assert share == (Quantity.parse(wanted).value if wanted is not None else total), (key, share)
                shared_use[key] = shared_use.get(key, Fraction(0)) + share
                assert shared_use[key] <= total, (key, "capacity exceeded", shared_use[key])
            else:
                assert key not in used, (key, "used twice")
                assert "shareID" not in result, key
                if gates.consumable_capacity and wanted is not None:
                    capacity = (raw.get("capacity") or {}).get("bw")
                    assert capacity is not None, (key, "capacity requested from a device without it")
                    assert Quantity.parse(wanted).value <= Quantity.parse(capacity["value"]).value, key
            counted = set(used)
            used.add(key)
            per_request[result["request"]].append(key)
            cel_device = CelDevice(driver=key[0], attributes=raw.get("attributes") or {})
            for expression in CLASSES[exactly["deviceClassName"]] + [
                    s["cel"]["expression"] for s in exactly.get("selectors") or []]:
                assert _compiled(expression).evaluate(cel_device), (key, expression)
            if gates.device_taints:
                for taint in raw.get("taints") or []:
                    assert any(t["key"] == taint["key"] for t in exactly.get("tolerations") or []), (key, taint)
            # A shared device consumes its counters once (at least; 1.34 may count it again).
            for use in raw.get("consumesCounters") or [] if key not in counted else []:
                for name, value in use["counters"].items():
                    counter = (key[1], name)
                    consumption[counter] = consumption.get(counter, Fraction(0)) + Quantity.parse(value["value"]).value
        served = {name for name in requests if per_request[name]}
        for parent, names in alternatives.items():
            # Exactly one subrequest of a firstAvailable request gets devices.
            assert len(served & set(names)) == 1, (parent, served)
        for name, exactly in requests.items():
            if name not in served and any(name in names for names in alternatives.values()):
                continue
            if exactly.get("allocationMode", "ExactCount") == "ExactCount":
                assert len(per_request[name]) == exactly["count"], (name, per_request[name])
            else:
                assert per_request[name], name
        constrained = [(r["request"], (r["driver"], r["pool"], r["device"])) for r in results]
        for constraint in claim_data["spec"]["devices"].get("constraints") or []:
            if "matchAttribute" in constraint:
                found = [(devices[k][0].get("attributes") or {}).get("numa") for _, k in constrained]
                assert all(v is not None for v in found), ("matchAttribute without the attribute", constrained)
                values = {v["int"] for v in found}
                assert len(values) <= 1, ("matchAttribute", values)
            elif "distinctAttribute" in constraint and allocator.behaviour.distinct_attribute:
                stored: dict[str, str] = {}
                for full_name, key in constrained:
                    # One stored value per request (a subrequest counts as its request).
                    request_name = full_name.split("/")[0]
                    attribute = (devices[key][0].get("attributes") or {}).get("model")
                    assert attribute is not None, ("distinctAttribute without the attribute", key)
                    value = attribute["string"]
                    assert not stored or value not in stored.values(), ("distinctAttribute", constrained)
                    stored[request_name] = value
    if gates.partitionable_devices and allocator.behaviour.per_pool_counters:
        for s in slices:
            for counter_set in s["spec"].get("sharedCounters") or []:
                for name, value in counter_set["counters"].items():
                    pool = s["spec"]["pool"]["name"]
                    taken = sum((Quantity.parse(c["counters"][name]["value"]).value
                                 for k, (d, _) in devices.items() if k[1] == pool and k in in_use
                                 for c in d.get("consumesCounters") or []), Fraction(0))
                    new = consumption.get((pool, name), Fraction(0))
                    assert new == 0 or taken + new <= Quantity.parse(value["value"]).value, (pool, name)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_random_scenarios_never_crash_and_allocations_are_valid(scenario: dict[str, Any]) -> None:
    allocator = make_allocator(scenario["objects"], release=scenario["release"], gates=scenario["gates"])
    outcome = allocator.allocate(node(scenario["node"]), scenario["claims"], trace=True)
    assert outcome.status in ("allocated", "unschedulable", "error"), outcome.error
    if outcome.status == "error":
        assert outcome.error
    if outcome.status == "allocated":
        check_allocation(scenario, outcome, allocator)
        assert outcome.trace is not None
        for entry in outcome.trace.requests:
            for _device, rejection in entry.rejections():
                assert rejection.message()
    again = allocator.allocate(node(scenario["node"]), scenario["claims"])
    assert (again.status, again.allocations, again.error) == (outcome.status, outcome.allocations, outcome.error)
