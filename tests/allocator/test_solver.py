"""Solver behaviour beyond the upstream scenarios: releases, implementations, bounds, sharing."""

from __future__ import annotations

import time
from typing import Any

import pytest
from allocator_builders import (
    allocated,
    claim,
    device,
    device_class,
    make_allocator,
    node,
    picked,
    request,
    resource_slice,
    solve,
)

from dractl.allocator import AllocatorFeatures, choose_implementation, format_device_id
from dractl.api.releases import Features

GPU = 'device.driver == "gpu.example.com"'


@pytest.mark.parametrize(
    ("release", "gates", "expected"),
    [
        ("1.34", {}, "experimental"),  # DRAResourceClaimDeviceStatus is beta-on and only experimental has it
        ("1.34", {"DRAResourceClaimDeviceStatus": False}, "incubating"),
        ("1.34", {"DRAResourceClaimDeviceStatus": False, "DRAAdminAccess": False, "DRAPrioritizedList": False},
         "stable"),
        ("1.35", {}, "incubating"),
        ("1.35", {"DRAAdminAccess": False, "DRAPrioritizedList": False}, "stable"),
        ("1.35", {"DRAConsumableCapacity": True}, "experimental"),
        ("1.36", {}, "incubating"),
        ("1.36", {"DRAConsumableCapacity": False, "DRADeviceBindingConditions": False}, "stable"),
        ("1.36", {"DRAListTypeAttributes": True}, "experimental"),
    ],
)
def test_implementation_follows_release_and_gates(release: str, gates: dict[str, bool], expected: str) -> None:
    features = AllocatorFeatures.from_gates(release, Features(release, gates).enabled)  # type: ignore[arg-type]
    assert choose_implementation(release, features) == expected  # type: ignore[arg-type]


def test_errors_name_claims_without_namespace_in_default() -> None:
    outcome = solve([resource_slice("s", [device("gpu-0")])], [claim("train", request("gpus", "missing"))])
    assert outcome.status == "error"
    assert outcome.error == ('claim default/train, request gpus: could not retrieve device class missing: '
                             'deviceclass.resource.k8s.io "missing" not found')


def test_in_use_devices_are_skipped_and_named_in_the_trace() -> None:
    objects = [device_class("gpu", GPU), resource_slice("s", [device("gpu-0"), device("gpu-1")]),
               allocated("other", ("gpu.example.com", "node-1", "gpu-0"), namespace="team")]
    outcome = solve(objects, [claim("c", request("r"))], trace=True)
    assert picked(outcome) == ["r:node-1/gpu-1"]
    assert outcome.trace is not None
    trace = outcome.trace.request("default/c", "r")
    assert trace is not None and trace.chosen == [("gpu.example.com", "node-1", "gpu-1")]
    reasons = {d.name: r.message() for d, r in trace.rejections()}
    assert reasons == {"gpu-0": "in use by team/other"}


def test_unsatisfiable_constraint_is_explained_with_values_and_the_other_device() -> None:
    objects = [device_class("gpu", GPU), resource_slice("s", [
        device("gpu-0", attributes={"numa": 0}), device("gpu-1", attributes={"numa": 1}),
        device("gpu-2", attributes={"numa": 2}),
    ])]
    c = claim("c", request("r", count=2), constraints=[{"matchAttribute": "gpu.example.com/numa"}])
    outcome = solve(objects, [c], trace=True)
    assert outcome.status == "unschedulable"
    assert outcome.trace is not None
    trace = outcome.trace.requests[0]
    reasons = {d.name: r.message() for d, r in trace.rejections()}
    assert reasons["gpu-1"] == "matchAttribute gpu.example.com/numa: 1 differs from 0 of gpu.example.com/node-1/gpu-0"
    # Every candidate has a reason: gpu-0 fitted, and was given back when no second device matched it.
    assert reasons["gpu-0"] == "fits, but given back: the other devices needed with it were not found"
    assert outcome.trace.best.devices == 1
    assert (outcome.trace.best.request, outcome.trace.best.missing) == ("r", 1)
    blockers = [(reason.value, what, count) for reason, what, count in outcome.trace.blockers()]
    assert blockers == [("constraint-conflict", "matchAttribute gpu.example.com/numa", 2)]


def test_closest_miss_names_constraints_first_then_other_blockers() -> None:
    objects = [device_class("gpu", GPU), resource_slice("s", [
        device("gpu-0", attributes={"numa": 0}), device("gpu-1", attributes={"numa": 0}),
        device("gpu-2", attributes={"numa": 1}), device("gpu-3", attributes={"numa": 1}),
        device("gpu-4", attributes={"model": "t4"}),
    ]), allocated("busy", ("gpu.example.com", "node-1", "gpu-0"), ("gpu.example.com", "node-1", "gpu-2"),
                  namespace="team")]
    c = claim("c", request("r", count=2, selectors=('!("model" in device.attributes["gpu.example.com"])',)),
              constraints=[{"matchAttribute": "gpu.example.com/numa"}])
    outcome = solve(objects, [c], trace=True)
    assert outcome.status == "unschedulable" and outcome.trace is not None
    blockers = [(reason.value, what, count) for reason, what, count in outcome.trace.blockers()]
    # gpu-4 is not a candidate (its selector is false), so it does not block.
    assert blockers == [("constraint-conflict", "matchAttribute gpu.example.com/numa", 1),
                        ("in-use", "in use by team/busy", 2)]


def test_selector_reasons_carry_the_selector_index_and_expression() -> None:
    objects = [device_class("gpu", GPU, 'device.attributes["gpu.example.com"].model == "a100"'),
               resource_slice("s", [device("gpu-0", attributes={"model": "t4"}), device("gpu-1", attributes={"model": "a100"})])]
    outcome = solve(objects, [claim("c", request("r", count=2))], trace=True)
    assert outcome.status == "unschedulable"
    assert outcome.trace is not None
    reasons = {d.name: r.message() for d, r in outcome.trace.requests[0].rejections()}
    assert reasons == {"gpu-0": 'class selector #1 of class gpu is false: '
                                'device.attributes["gpu.example.com"].model == "a100"',
                       "gpu-1": "fits, but given back: the other devices needed with it were not found"}


@pytest.mark.parametrize(
    ("release", "status", "error"),
    [
        # 1.34 searches an incomplete pool for ExactCount requests; 1.35+ skips it.
        ("1.34", "allocated", None),
        ("1.36", "unschedulable", None),
    ],
)
def test_incomplete_pools_by_release(release: str, status: str, error: str | None) -> None:
    objects = [device_class("gpu", GPU), resource_slice("s", [device("gpu-0")], count=2)]
    gates = {"DRAResourceClaimDeviceStatus": False} if release == "1.34" else {}
    outcome = solve(objects, [claim("c", request("r"))], release=release, gates=gates)
    assert (outcome.status, outcome.error) == (status, error)


@pytest.mark.parametrize(
    ("release", "error"),
    [
        ("1.34", "pool node-1 is invalid: duplicate device name gpu-0"),
        ("1.35", "invalid resource pools were encountered"),
        ("1.36", "invalid resource pools were encountered"),
    ],
)
def test_invalid_pools_by_release(release: str, error: str) -> None:
    objects = [device_class("gpu", GPU), resource_slice("s1", [device("gpu-0")], count=2),
               resource_slice("s2", [device("gpu-0")], count=2)]
    outcome = solve(objects, [claim("c", request("r"))], release=release)
    assert (outcome.status, outcome.error) == ("error", error)


def test_tolerations_are_copied_into_results_from_135() -> None:
    objects = [device_class("gpu", GPU), resource_slice("s", [
        device("gpu-0", taints=[{"key": "maint", "effect": "NoSchedule"}])])]
    toleration = {"key": "maint", "operator": "Exists", "effect": "NoSchedule"}
    c = claim("c", request("r", tolerations=[toleration]))
    new = solve(objects, [c], release="1.36")
    old = solve(objects, [c], release="1.34", gates={"DRADeviceTaints": True})
    assert new.allocations is not None and old.allocations is not None
    assert new.allocations[0]["devices"]["results"][0]["tolerations"] == [toleration]
    assert "tolerations" not in old.allocations[0]["devices"]["results"][0]


def test_device_taint_rules_taint_the_devices_they_select() -> None:
    rule = {"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceTaintRule", "metadata": {"name": "drain"},
            "spec": {"deviceSelector": {"driver": "gpu.example.com", "device": "gpu-0"},
                     "taint": {"key": "drain", "effect": "NoSchedule"}}}
    objects = [device_class("gpu", GPU), resource_slice("s", [device("gpu-0"), device("gpu-1")]), rule]
    outcome = solve(objects, [claim("c", request("r", count=2))], trace=True)
    assert outcome.status == "unschedulable"
    assert outcome.trace is not None
    reasons = {d.name: r.message() for d, r in outcome.trace.requests[0].rejections()}
    assert reasons["gpu-0"] == "taint drain:NoSchedule not tolerated"
    ignored = solve(objects, [claim("c", request("r", count=2))], gates={"DRADeviceTaints": False})
    assert ignored.status == "allocated"


def test_counter_exhaustion_is_explained_with_needed_and_left() -> None:
    counters = resource_slice("counters", [], pool="p", count=2,
                              sharedCounters=[{"name": "mem", "counters": {"gb": {"value": "40Gi"}}}])
    partitions = resource_slice("parts", [
        device("half-0", consumesCounters=[{"counterSet": "mem", "counters": {"gb": {"value": "20Gi"}}}]),
        device("half-1", consumesCounters=[{"counterSet": "mem", "counters": {"gb": {"value": "20Gi"}}}]),
        device("whole", consumesCounters=[{"counterSet": "mem", "counters": {"gb": {"value": "40Gi"}}}]),
    ], pool="p", count=2)
    objects = [device_class("gpu", GPU), counters, partitions]
    outcome = solve(objects, [claim("c", request("r", count=3))], trace=True)
    assert outcome.status == "unschedulable"
    assert outcome.trace is not None
    reasons = {d.name: r.message() for d, r in outcome.trace.requests[0].rejections()}
    assert reasons["whole"] == "counter mem/gb exhausted: needs 40Gi, 0 left"
    assert picked(solve(objects, [claim("c", request("r", count=2))])) == ["r:p/half-0", "r:p/half-1"]


def test_counters_in_the_devices_slice_1_34_layout() -> None:
    # 1.34: a slice holds its counter sets and the devices that consume them; counters are
    # tracked per slice, and devices in use (from allocated claims) have consumed theirs.
    def consumes(amount: str) -> list[dict[str, Any]]:
        return [{"counterSet": "mem", "counters": {"gb": {"value": amount}}}]

    layout = resource_slice("gpu-0", [device("half-0", consumesCounters=consumes("20Gi")),
                                      device("half-1", consumesCounters=consumes("20Gi")),
                                      device("whole", consumesCounters=consumes("40Gi"))],
                          pool="p", sharedCounters=[{"name": "mem", "counters": {"gb": {"value": "40Gi"}}}])
    busy = allocated("notebook", ("gpu.example.com", "p", "half-0"))
    objects = [device_class("gpu", GPU), layout, busy]
    gates = {"DRAPartitionableDevices": True}
    one = claim("c", request("r"))
    outcome = solve(objects, [one], release="1.34", gates=gates, trace=True)
    assert outcome.status == "allocated" and picked(outcome) == ["r:p/half-1"]
    two = solve(objects, [claim("c", request("r", count=2))], release="1.34", gates=gates, trace=True)
    assert two.status == "unschedulable" and two.trace is not None
    reasons = {d.name: r.message() for d, r in two.trace.requests[0].rejections()}
    # First turned down while half-1 held the other 20Gi.
    assert reasons["whole"] == "counter mem/gb exhausted: needs 40Gi, 0 left"
    # Without the gate a device that consumes counters is never allocated.
    off = solve(objects, [one], release="1.34", gates={"DRAPartitionableDevices": False}, trace=True)
    assert off.status == "unschedulable" and off.trace is not None
    assert {d.name: r.message() for d, r in off.trace.requests[0].rejections()} == {
        "half-0": "in use by default/notebook",
        "half-1": "consumes counters, but DRAPartitionableDevices is off",
        "whole": "consumes counters, but DRAPartitionableDevices is off"}


def test_order_ambiguity_is_reported_only_for_map_ordered_implementations() -> None:
    objects = [device_class("gpu", GPU), resource_slice("a", [device("gpu-0")], pool="pool-a", allNodes=True),
               resource_slice("b", [device("gpu-0")], pool="pool-b", allNodes=True)]
    stable = solve(objects, [claim("c", request("r"))],
                   gates={"DRAConsumableCapacity": False, "DRADeviceBindingConditions": False})
    incubating = solve(objects, [claim("c", request("r"))])
    assert (stable.implementation, stable.order_ambiguous) == ("stable", True)
    assert (incubating.implementation, incubating.order_ambiguous) == ("incubating", False)
    assert picked(stable) == picked(incubating) == ["r:pool-a/gpu-0"]
    assert stable.allocations is not None and "nodeSelector" not in stable.allocations[0]


def test_deadline_stops_the_search_with_the_progress_so_far() -> None:
    devices = [device(f"gpu-{i}", attributes={"numa": 0}) for i in range(24)]
    objects = [device_class("gpu", GPU), device_class("none", 'device.driver == "nothing"'),
               resource_slice("s", devices)]
    hopeless = claim("c", request("many", count=12), request("one", "none"))
    started = time.monotonic()
    outcome = solve(objects, [hopeless], trace=True, timeout=0.3)
    assert time.monotonic() - started < 5
    assert outcome.status == "timeout"
    assert outcome.error is not None and outcome.error.startswith("filter operation aborted: context deadline exceeded")
    assert outcome.trace is not None and outcome.trace.best.devices == 12
    past = solve(objects, [hopeless], deadline=time.monotonic() - 1)
    assert past.status == "timeout"


def test_selectors_are_evaluated_once_per_distinct_device_across_nodes() -> None:
    from dractl.cel import compile_selector

    evaluations: list[tuple[str, Any]] = []

    class Counting:
        def __init__(self, expression: str) -> None:
            self.inner = compile_selector(expression, release="1.36", purpose="stored")

        def evaluate(self, cel_device: Any) -> bool:
            evaluations.append((cel_device.driver, dict(cel_device.attributes)))
            return self.inner.evaluate(cel_device)

    objects = [device_class("gpu", f'{GPU} && device.attributes["gpu.example.com"].index < 3')]
    # Every node has the same four GPUs (names and inputs); the index tells them apart.
    objects += [resource_slice(f"s{n}", [device(f"gpu-{i}", attributes={"index": {"int": i}}) for i in range(4)],
                               node=f"node-{n}") for n in range(3)]
    objects.append(resource_slice("net", [device(f"nic-{i}") for i in range(5)], driver="net.example.com",
                                  pool="net", allNodes=True))
    allocator = make_allocator(objects, compiler=Counting)
    for n in range(3):
        # Four GPUs, one of which the class rules out: the search looks at the network pool too.
        outcome = allocator.allocate(node(f"node-{n}"), [claim("c", request("r", count=4))], trace=True)
        assert outcome.status == "unschedulable"
        assert outcome.trace is not None
        (traced,) = outcome.trace.requests
        assert sorted(format_device_id(d.id) for d in traced.candidates()) == [
            f"gpu.example.com/node-{n}/gpu-{i}" for i in range(3)
        ]
    # Each distinct GPU once, the five identical NICs once, although every node saw the NICs.
    assert len(evaluations) == 4 + 1
    assert sorted(driver for driver, _ in evaluations) == ["gpu.example.com"] * 4 + ["net.example.com"]


@pytest.mark.parametrize(
    "attributes",
    [
        {"model": {"string": "a100"}},
        {"v": {"version": "1.2.3"}},
        {"v": {"version": "01.2.3"}},  # not a semantic version: CEL cannot take the device
        {"empty": {}},
        {"list": {"strings": ["a"]}},  # a list without DRAListTypeAttributes
    ],
)
@pytest.mark.parametrize("driver", ["gpu.example.com", "net.example.com"])
def test_driver_shortcut_agrees_with_cel(attributes: dict[str, Any], driver: str) -> None:
    from dractl.cel import compile_selector

    objects = [device_class("gpu", GPU), resource_slice("s", [device("d", attributes=attributes)], driver=driver)]
    allocator = make_allocator(objects)
    outcome = allocator.allocate(node(), [claim("c", request("r"))])
    compiled = compile_selector(GPU, release="1.36", purpose="stored")
    from dractl.cel import CelDevice

    try:
        expected = "allocated" if compiled.evaluate(CelDevice(driver=driver, attributes=attributes)) else "unschedulable"
    except Exception:
        expected = "error"
    assert outcome.status == expected, outcome.error


def test_devices_the_node_cannot_use_are_explained() -> None:
    objects = [device_class("gpu", GPU),
               resource_slice("here", [device("gpu-0")]),
               resource_slice("there", [device("gpu-0")], node="node-2"),
               resource_slice("half", [device("gpu-0")], pool="half", count=2),
               resource_slice("zoned", [device("nic-0")], driver="net.example.com", pool="zoned",
                              nodeSelector={"nodeSelectorTerms": [{"matchExpressions": [
                                  {"key": "zone", "operator": "In", "values": ["b"]}]}]}),
               resource_slice("gated", [device("gpu-9", bindingConditions=["Ready"])], pool="gated",
                              allNodes=True)]
    gates = {"DRADeviceBindingConditions": False}
    outcome = solve(objects, [claim("c", request("r", count=2))], on=node("node-1", zone="a"), trace=True,
                    gates=gates)
    assert outcome.status == "unschedulable"
    assert outcome.trace is not None
    unseen = {f"{d.slice.name}/{d.name}": r.message() for d, r in outcome.trace.unseen_devices()}
    # The per-slice count (JSON without --verbose) agrees with the per-device list.
    per_reason: dict[Any, int] = {}
    for _, rejection in outcome.trace.unseen_devices():
        per_reason[rejection.reason] = per_reason.get(rejection.reason, 0) + 1
    assert dict(outcome.trace.unseen_counts()) == per_reason and len(per_reason) == 2
    assert unseen == {
        "there/gpu-0": "not available on this node (slice there is for node node-2)",
        "half/gpu-0": "pool gpu.example.com/half is incomplete (being updated)",
        "zoned/nic-0": "not available on this node (node selector of slice zoned does not match)",
    }
    reasons = {d.name: r.message() for d, r in outcome.trace.requests[0].rejections()}
    assert reasons == {"gpu-9": "has binding conditions, but DRADeviceBindingConditions is off",
                       "gpu-0": "fits, but given back: the other devices needed with it were not found"}


def test_many_claims_on_one_node() -> None:
    devices = [device(f"gpu-{i}") for i in range(400)]
    objects = [device_class("gpu", GPU), resource_slice("s", devices)]
    claims = [claim(f"c{i}", request("r")) for i in range(400)]
    outcome = solve(objects, claims)
    assert outcome.status == "allocated"
    assert outcome.allocations is not None
    assert {a["devices"]["results"][0]["device"] for a in outcome.allocations} == {f"gpu-{i}" for i in range(400)}
