"""NodeResourcesFit against the upstream fit_test.go vectors (tests/conformance/scheduler/
noderesources-*.yaml), and the Pod requests it counts (dractl.scheduler.resources)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from dractl.allocator.nodes import NodeInfo
from dractl.api.releases import GATES, Features
from dractl.scheduler.objects import NodeState, PodInfo
from dractl.scheduler.plugin import Context, CycleState
from dractl.scheduler.plugins.node_resources_fit import NodeResourcesFit
from dractl.scheduler.resources import (
    Resources,
    bound_pod_requests,
    node_usage,
    pod_requests,
    to_resources,
)
from dractl.scheduler.status import Code, Status

VECTORS = Path(__file__).resolve().parents[1] / "conformance" / "scheduler"
CASES = sorted(VECTORS.glob("noderesources-*.yaml"))
IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"


def _case(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    header, *objects = [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
    return header, objects


def _extended_resources(objects: list[dict[str, Any]], features: Features) -> dict[str, str]:
    """The DeviceClasses' resource names (explicit and implicit), with DRAExtendedResource."""
    if not features.enabled("DRAExtendedResource"):
        return {}
    mapping: dict[str, str] = {}
    for obj in objects:
        if obj["kind"] == "DeviceClass":
            name = obj["metadata"]["name"]
            mapping[IMPLICIT_PREFIX + name] = name
            explicit = (obj.get("spec") or {}).get("extendedResourceName")
            if explicit:
                mapping[explicit] = name
    return mapping


def _run(header: dict[str, Any], objects: list[dict[str, Any]]) -> dict[str, Status]:
    overrides = {gate: value for gate, value in (header.get("features") or {}).items() if gate in GATES}
    features = Features(header["release"], overrides)
    namespace, _, name = header["pod"].partition("/")
    pods = [o for o in objects if o["kind"] == "Pod"]
    pending = next(p for p in pods if (p["metadata"].get("namespace", "default"), p["metadata"]["name"]) == (namespace, name))
    nodes = [NodeState(NodeInfo.from_object(o), o, [p for p in pods if (p.get("spec") or {}).get("nodeName") == o["metadata"]["name"]])
             for o in objects if o["kind"] == "Node"]
    context = Context(features, nodes, extended_resources=_extended_resources(objects, features))
    plugin = NodeResourcesFit(context)
    cycle = CycleState()
    pod = PodInfo.from_manifest(pending)
    assert plugin.pre_filter(cycle, pod).status.success
    return {node.name: plugin.filter(cycle, pod, node) for node in nodes}


def test_every_vector_is_here() -> None:
    assert len(CASES) == 39


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_upstream_vector(path: Path) -> None:
    header, objects = _case(path)
    assert header["plugins"] == ["NodeResourcesFit"]
    statuses = _run(header, objects)
    for node, expected in header["expect"]["nodes"].items():
        status = statuses[node]
        assert status.code.value == expected["status"], (node, status)
        assert list(status.reasons) == expected.get("reasons", []), node
        if not status.success:
            assert expected["plugin"] == NodeResourcesFit.name
            assert "phase" not in expected


# -- the Pod's requests ------------------------------------------------------------------------
def _container(name: str, requests: dict[str, str] | None = None, sidecar: bool = False) -> dict[str, Any]:
    container: dict[str, Any] = {"name": name, "resources": {"requests": dict(requests or {})}}
    if sidecar:
        container["restartPolicy"] = "Always"
    return container


REQUEST_CASES: dict[str, tuple[dict[str, Any], bool, Resources]] = {
    "containers add up": (
        {"containers": [_container("a", {"cpu": "250m", "memory": "1Gi"}), _container("b", {"cpu": "0.5", "memory": "1Gi"})]},
        True, Resources(750, 2 * 2**30)),
    "the largest init container wins over a smaller sum": (
        {"initContainers": [_container("i", {"cpu": "2"})], "containers": [_container("a", {"cpu": "1", "memory": "10"})]},
        True, Resources(2000, 10)),
    "sidecars add to the containers": (
        {"initContainers": [_container("s", {"cpu": "1"}, sidecar=True)], "containers": [_container("a", {"cpu": "1"})]},
        True, Resources(2000)),
    "an init container runs beside the sidecars declared before it": (
        {"initContainers": [_container("s1", {"cpu": "1"}, sidecar=True), _container("i", {"cpu": "3"}),
                            _container("s2", {"cpu": "1"}, sidecar=True)],
         "containers": [_container("a", {"cpu": "1"})]},
        True, Resources(4000)),
    "a sidecar declared after an init container does not run beside it": (
        {"initContainers": [_container("i", {"cpu": "3"}), _container("s", {"cpu": "1"}, sidecar=True)],
         "containers": [_container("a", {"cpu": "1"})]},
        True, Resources(3000)),
    "overhead is added": (
        {"containers": [_container("a", {"cpu": "100m"})], "overhead": {"cpu": "250m", "memory": "120Mi"}},
        True, Resources(350, 120 * 2**20)),
    "pod-level requests replace the containers' for what they name": (
        {"containers": [_container("a", {"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi"})],
         "resources": {"requests": {"cpu": "3", "hugepages-2Mi": "4Mi"}}},
        True, Resources(3000, 2**30, 2**30, {"hugepages-2Mi": 4 * 2**20})),
    "pod-level requests apply before the overhead": (
        {"containers": [_container("a", {"cpu": "1"})], "resources": {"requests": {"cpu": "2"}}, "overhead": {"cpu": "100m"}},
        True, Resources(2100)),
    "pod-level requests are ignored without the gate": (
        {"containers": [_container("a", {"cpu": "1"})], "resources": {"requests": {"cpu": "3"}}},
        False, Resources(1000)),
    "pod-level ephemeral storage is not a pod-level resource": (
        {"containers": [_container("a", {"ephemeral-storage": "1"})], "resources": {"requests": {"ephemeral-storage": "5"}}},
        True, Resources(0, 0, 1)),
    "the sum is rounded once, up": (
        {"containers": [_container("a", {"cpu": "0.4m", "memory": "0.5"}), _container("b", {"cpu": "0.4m", "memory": "0.6"})]},
        True, Resources(1, 2)),
    "names the scheduler does not count are dropped": (
        {"containers": [_container("a", {"storage": "1", "example.com/gpu": "2", "subdomain.kubernetes.io/x": "1"})]},
        True, Resources(scalars={"example.com/gpu": 2, "subdomain.kubernetes.io/x": 1})),
    "a quantity that does not parse counts as absent": (
        {"containers": [_container("a", {"cpu": "lots", "memory": "1"})]},
        True, Resources(0, 1)),
    "numbers written as YAML numbers": (
        {"containers": [{"name": "a", "resources": {"requests": {"cpu": 1.5, "memory": 100}}}]},
        True, Resources(1500, 100)),
}


@pytest.mark.parametrize(("spec", "pod_level", "expected"), REQUEST_CASES.values(), ids=REQUEST_CASES.keys())
def test_pod_requests(spec: dict[str, Any], pod_level: bool, expected: Resources) -> None:
    assert pod_requests(spec, pod_level=pod_level) == expected


def _statuses(*entries: dict[str, Any], resize: str | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"containerStatuses": list(entries)}
    if resize:
        status["conditions"] = [{"type": "PodResizePending", "status": "True", "reason": resize}]
    return status


BOUND_CASES: dict[str, tuple[dict[str, Any], Resources]] = {
    "no status: the spec": ({}, Resources(1000)),
    "allocated above the spec": (_statuses({"name": "a", "allocatedResources": {"cpu": "3"}}), Resources(3000)),
    "running above the spec": (_statuses({"name": "a", "resources": {"requests": {"cpu": "2"}}}), Resources(2000)),
    "a resize down not yet done keeps the old request": (
        _statuses({"name": "a", "allocatedResources": {"cpu": "500m"}, "resources": {"requests": {"cpu": "4"}}}),
        Resources(4000)),
    "an infeasible resize: the spec does not count": (
        _statuses({"name": "a", "allocatedResources": {"cpu": "500m"}}, resize="Infeasible"), Resources(500)),
    "a deferred resize: the spec counts": (
        _statuses({"name": "a", "allocatedResources": {"cpu": "500m"}}, resize="Deferred"), Resources(1000)),
}


@pytest.mark.parametrize(("status", "expected"), BOUND_CASES.values(), ids=BOUND_CASES.keys())
def test_bound_pod_requests_read_resized_containers(status: dict[str, Any], expected: Resources) -> None:
    pod = {"spec": {"containers": [_container("a", {"cpu": "1"})]}, "status": status}
    assert to_resources(bound_pod_requests(pod, pod_level=True)) == expected


def test_a_node_counts_its_pods_each_rounded_and_not_the_terminal_ones() -> None:
    pods: list[Mapping[str, Any]] = [{"spec": {"containers": [_container("a", {"cpu": "0.5m"})]}} for _ in range(2)]
    pods.append({"spec": {"containers": [_container("a", {"cpu": "4"})]}, "status": {"phase": "Succeeded"}})
    node = NodeState(NodeInfo("n"), {"status": {"allocatable": {"cpu": "2", "pods": "3", "example.com/gpu": "8",
                                                               "memory": "bad"}}}, pods)
    usage = node_usage(node, pod_level=True)
    assert usage.pod_count == 2
    assert usage.requested.milli_cpu == 2  # 1m each, as NodeInfo adds Pods already rounded
    assert usage.allocatable == Resources(2000, scalars={"example.com/gpu": 8}, pods=3)
    assert node_usage(node, pod_level=True) is usage


# -- the plugin --------------------------------------------------------------------------------
NODE_ALLOCATABLE = {"cpu": "4", "memory": "8Gi", "pods": "3", "example.com/gpu": "2", "hugepages-2Mi": "0"}


def _filter(requests: dict[str, str], *, bound: Sequence[dict[str, str]] = (), args: dict[str, Any] | None = None,
            overrides: dict[str, bool] | None = None, extended: dict[str, str] | None = None,
            allocatable: dict[str, str] | None = None) -> Status:
    context = Context(Features("1.36", overrides), extended_resources=extended)
    plugin = NodeResourcesFit(context, args)
    pods: list[Mapping[str, Any]] = [{"spec": {"nodeName": "n", "containers": [_container("c", r)]}} for r in bound]
    node = NodeState(NodeInfo("n"), {"status": {"allocatable": allocatable or NODE_ALLOCATABLE}}, pods)
    pod = PodInfo("default", "p", {"containers": [_container("c", requests)]})
    cycle = CycleState()
    plugin.pre_filter(cycle, pod)
    return plugin.filter(cycle, pod, node)


PLUGIN_CASES: dict[str, tuple[dict[str, Any], Code, tuple[str, ...], str | None]] = {
    "fits": ({"requests": {"cpu": "4", "memory": "8Gi"}}, Code.SUCCESS, (), None),
    "short of cpu beside other Pods": (
        {"requests": {"cpu": "2"}, "bound": [{"cpu": "2500m"}]},
        Code.UNSCHEDULABLE, ("Insufficient cpu",), "cpu: requested 2, 1500m of 4 free"),
    "larger than the node": (
        {"requests": {"cpu": "5", "memory": "1Gi"}, "bound": [{"memory": "7.5Gi"}]},
        Code.UNRESOLVABLE, ("Insufficient cpu", "Insufficient memory"),
        "cpu: requested 5, more than the node's allocatable 4; memory: requested 1Gi, 512Mi of 8Gi free"),
    "too many pods comes first and is never unresolvable": (
        {"requests": {"example.com/gpu": "1"}, "bound": [{}, {}, {"example.com/gpu": "2"}]},
        Code.UNSCHEDULABLE, ("Too many pods", "Insufficient example.com/gpu"),
        "pods: 3 of 3 allowed already run; example.com/gpu: requested 1, 0 of 2 free"),
    "a Pod requesting nothing is only counted": ({"requests": {}, "bound": [{}, {}, {}]},
                                                 Code.UNSCHEDULABLE, ("Too many pods",), "pods: 3 of 3 allowed already run"),
    "a node whose allocatable is not known allows no Pod": (
        {"requests": {"cpu": "1"}, "allocatable": {"memory": "1Gi"}}, Code.UNRESOLVABLE, ("Too many pods", "Insufficient cpu"),
        "pods: the node allows none (its status.allocatable has no pods); "
        "cpu: requested 1, more than the node's allocatable 0"),
    "scalars in name order": (
        {"requests": {"zz.example.com/b": "1", "aa.example.com/a": "1"}},
        Code.UNRESOLVABLE, ("Insufficient aa.example.com/a", "Insufficient zz.example.com/b"), None),
    "an ignored resource": ({"requests": {"example.com/gpu": "5"}, "args": {"ignoredResources": ["example.com/gpu"]}},
                            Code.SUCCESS, (), None),
    "an ignored resource group": ({"requests": {"example.com/gpu": "5"}, "args": {"ignoredResourceGroups": ["example.com"]}},
                                  Code.SUCCESS, (), None),
    "only extended resources can be ignored": (
        {"requests": {"hugepages-2Mi": "2Mi"}, "args": {"ignoredResources": ["hugepages-2Mi"]}},
        Code.UNRESOLVABLE, ("Insufficient hugepages-2Mi",), None),
    "a DeviceClass serves what the node's allocatable lacks": (
        {"requests": {"dra.example.com/gpu": "1"}, "extended": {"dra.example.com/gpu": "gpu"}},
        Code.SUCCESS, (), None),
    "a DeviceClass serves what the node's allocatable has at 0": (
        {"requests": {"dra.example.com/gpu": "1"}, "extended": {"dra.example.com/gpu": "gpu"},
         "allocatable": {**NODE_ALLOCATABLE, "dra.example.com/gpu": "0"}},
        Code.SUCCESS, (), None),
    "the device plugin counts where the node has it": (
        {"requests": {"example.com/gpu": "3"}, "extended": {"example.com/gpu": "gpu"}},
        Code.UNRESOLVABLE, ("Insufficient example.com/gpu",), None),
    "without DRAExtendedResource the DeviceClass does not count": (
        {"requests": {"dra.example.com/gpu": "1"}, "extended": {"dra.example.com/gpu": "gpu"},
         "overrides": {"DRAExtendedResource": False}},
        Code.UNRESOLVABLE, ("Insufficient dra.example.com/gpu",), None),
}


@pytest.mark.parametrize(("setup", "code", "reasons", "detail"), PLUGIN_CASES.values(), ids=PLUGIN_CASES.keys())
def test_filter(setup: dict[str, Any], code: Code, reasons: tuple[str, ...], detail: str | None) -> None:
    status = _filter(**setup)
    assert (status.code, status.reasons) == (code, reasons)
    if detail is not None:
        assert status.detail == detail


def test_filter_without_pre_filter_is_an_error() -> None:
    plugin = NodeResourcesFit(Context(Features("1.36")))
    status = plugin.filter(CycleState(), PodInfo("default", "p", {}), NodeState(NodeInfo("n"), {}))
    assert status.code is Code.ERROR
    assert status.reasons == ('error reading "PreFilterNodeResourcesFit" from cycleState: not found',)
