"""Extended resources backed by DRA (dractl.scheduler.extended): the DeviceClass mapping per
release, which resources DRA serves on a node, and the extended-resource claim, against the
upstream vectors tests/conformance/scheduler/extendedresources-*.yaml (createRequestsAndMappings)
and the extended-resource cases of dynamicresources-*.yaml."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from dractl.api.releases import GATES, Features
from dractl.scheduler.extended import (
    CANNOT_FIT,
    EXTENDED_RESOURCE_CLAIM_ANNOTATION,
    FIRST_BY_NAME,
    NEWER,
    UNDETERMINED,
    dra_served_resources,
    extended_resource_classes,
    extended_resource_requests,
    is_dra_extended_resource,
    map_extended_resources,
    pod_extended_requests,
    special_claim,
)
from dractl.scheduler.objects import PodInfo

VECTORS = Path(__file__).resolve().parents[1] / "conformance" / "scheduler"
REQUEST_CASES = sorted(VECTORS.glob("extendedresources-*.yaml"))
# The DynamicResources cases about extended resources (019-025), for what they pin of the claim.
PLUGIN_CASES = sorted(p for p in VECTORS.glob("dynamicresources-*.yaml") if 19 <= int(p.name.split("-")[1]) <= 25)

GATE_ON = {"DRAExtendedResource": True}


# -- helpers -----------------------------------------------------------------------------------
def _case(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    header, *objects = [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
    return header, objects


def _features(header: dict[str, Any]) -> Features:
    overrides = {gate: value for gate, value in (header.get("features") or {}).items() if gate in GATES}
    return Features(header["release"], overrides)


def _pod(header: dict[str, Any], objects: list[dict[str, Any]]) -> PodInfo:
    namespace, _, name = header["pod"].partition("/")
    data = next(o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"] == name
                and o["metadata"].get("namespace", "default") == namespace)
    return PodInfo.from_manifest(data)


def _node(header: dict[str, Any], objects: list[dict[str, Any]]) -> dict[str, Any]:
    nodes = [o for o in objects if o["kind"] == "Node"]
    wanted = header["expect"].get("selectedNode") or next(iter(header["expect"].get("nodes") or {}), None)
    return next((n for n in nodes if n["metadata"]["name"] == wanted), nodes[0])


def _claim_on_node(header: dict[str, Any], objects: list[dict[str, Any]]):
    """What the extended-resource path makes on the case's node: the mapping, the Pod's
    requests, (served, unfit), and the requests and mappings of the claim."""
    features = _features(header)
    mapping = extended_resource_classes([o for o in objects if o["kind"] == "DeviceClass"], features)
    pod = _pod(header, objects)
    wanted = pod_extended_requests(pod, features)
    allocatable = (_node(header, objects).get("status") or {}).get("allocatable") or {}
    served, unfit = dra_served_resources(wanted, allocatable, mapping, features=features)
    requests, mappings = extended_resource_requests(pod, served, features=features)
    return SimpleNamespace(features=features, mapping=mapping, pod=pod, wanted=wanted, served=served,
                           unfit=unfit, requests=requests, mappings=mappings)


def _mapping_set(mappings: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(m["containerName"], m["resourceName"], m["requestName"]) for m in mappings}


def _class(name: str, explicit: str | None = None, created: str | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if created is not None:
        metadata["creationTimestamp"] = created
    spec = {} if explicit is None else {"extendedResourceName": explicit}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": metadata, "spec": spec}


def _container(name: str, requests: dict[str, str] | None = None, sidecar: bool = False) -> dict[str, Any]:
    container: dict[str, Any] = {"name": name, "image": "registry.k8s.io/pause:3.10"}
    if requests:
        container["resources"] = {"requests": dict(requests), "limits": dict(requests)}
    if sidecar:
        container["restartPolicy"] = "Always"
    return container


def _pod_of(containers: list[dict[str, Any]], init: list[dict[str, Any]] | None = None, **extra: Any) -> PodInfo:
    spec: dict[str, Any] = {"containers": containers, **extra}
    if init:
        spec["initContainers"] = init
    return PodInfo.from_manifest({"metadata": {"name": "my-pod", "namespace": "ns", "uid": "u1"}, "spec": spec})


def _request(name: str, class_name: str, count: int) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": class_name, "allocationMode": "ExactCount", "count": count}}


# -- the upstream vectors ------------------------------------------------------------------------
def test_all_vectors_are_there() -> None:
    assert len(REQUEST_CASES) == 10
    assert len(PLUGIN_CASES) == 7


@pytest.mark.parametrize("path", REQUEST_CASES, ids=lambda p: p.stem)
def test_requests_and_mappings_agree_with_upstream(path: Path) -> None:
    header, objects = _case(path)
    expected = header["expect"]["specialClaim"]
    made = _claim_on_node(header, objects)
    assert made.unfit == ()
    if expected is None:
        assert made.served == {}
        assert made.requests == [] and made.mappings == []
        return
    if "requests" in expected:
        assert made.requests == expected["requests"]
    if "requestMappings" in expected:
        assert _mapping_set(made.mappings) == _mapping_set(expected["requestMappings"])
        assert len(made.mappings) == len(expected["requestMappings"])


@pytest.mark.parametrize("path", PLUGIN_CASES, ids=lambda p: p.stem)
def test_plugin_cases_agree_on_the_extended_resource_claim(path: Path) -> None:
    header, objects = _case(path)
    expect = header["expect"]
    made = _claim_on_node(header, objects)
    assert made.unfit == ()
    if (expect.get("preFilter") or {}).get("status") == "skip":
        # No requested resource is mapped: DynamicResources skips the Pod.
        assert not any(name in made.mapping for name in made.wanted)
        return
    if "specialClaim" not in expect:
        assert made.served  # the claim is made (its outcome is the allocator's business)
        return
    expected = expect["specialClaim"]
    if expected is None:
        assert made.served == {}
        return
    claim = special_claim(made.pod, made.requests, features=made.features)
    metadata = claim["metadata"]
    for key in ("generateName", "namespace", "annotations", "ownerReferences"):
        if key in expected:
            assert metadata[key] == expected[key], key
    if "requests" in expected:
        assert claim["spec"]["devices"]["requests"] == expected["requests"]


# -- the mapping ---------------------------------------------------------------------------------
EARLY, LATE = "2025-01-01T00:00:00Z", "2025-06-01T12:00:00Z"

def _implicit(*classes: str) -> dict[str, str]:
    return {f"deviceclass.resource.kubernetes.io/{name}": name for name in classes}


MAPPING_CASES = [
    pytest.param("1.36", {}, [_class("a", "example.com/gpu"), _class("b")],
                 {"example.com/gpu": "a", **_implicit("a", "b")}, [], id="1.36-explicit-and-implicit"),
    pytest.param("1.36", {"DRAExtendedResource": False}, [_class("a", "example.com/gpu")], {}, [],
                 id="1.36-gate-off"),
    pytest.param("1.35", {}, [_class("a", "example.com/gpu")], {}, [], id="1.35-alpha-off-by-default"),
    pytest.param("1.34", {}, [_class("a", "example.com/gpu")], {}, [], id="1.34-alpha-off-by-default"),
    pytest.param("1.35", GATE_ON, [_class("a", "example.com/gpu", EARLY), _class("b", "example.com/gpu", LATE)],
                 {"example.com/gpu": "b", **_implicit("a", "b")},
                 [("example.com/gpu", ("a", "b"), "b", NEWER)], id="1.35-newer-wins"),
    pytest.param("1.36", {}, [_class("b", "example.com/gpu", LATE), _class("a", "example.com/gpu", EARLY)],
                 {"example.com/gpu": "b", **_implicit("a", "b")},
                 [("example.com/gpu", ("a", "b"), "b", NEWER)], id="1.36-newer-wins-in-any-order"),
    pytest.param("1.36", {}, [_class("b", "example.com/gpu", LATE), _class("a", "example.com/gpu", LATE)],
                 {"example.com/gpu": "a", **_implicit("a", "b")},
                 [("example.com/gpu", ("a", "b"), "a", FIRST_BY_NAME)], id="1.36-same-time-smaller-name"),
    pytest.param("1.36", {}, [_class("b", "example.com/gpu"), _class("a", "example.com/gpu")],
                 {"example.com/gpu": "a", **_implicit("a", "b")},
                 [("example.com/gpu", ("a", "b"), "a", FIRST_BY_NAME)], id="1.36-no-timestamps-smaller-name"),
    pytest.param("1.36", {}, [_class("a", "example.com/gpu"), _class("b", "example.com/gpu", EARLY)],
                 {"example.com/gpu": "b", **_implicit("a", "b")},
                 [("example.com/gpu", ("a", "b"), "b", NEWER)], id="1.36-a-timestamp-beats-none"),
    pytest.param("1.36", {}, [_class("c", "example.com/gpu", LATE), _class("a", "example.com/gpu", EARLY),
                              _class("b", "example.com/gpu", LATE)],
                 {"example.com/gpu": "b", **_implicit("a", "b", "c")},
                 [("example.com/gpu", ("a", "b", "c"), "b", FIRST_BY_NAME)], id="1.36-three-classes"),
    pytest.param("1.36", {}, [_class("a", "example.com/gpu", LATE), _class("b", "example.com/tpu", EARLY)],
                 {"example.com/gpu": "a", "example.com/tpu": "b", **_implicit("a", "b")}, [],
                 id="1.36-different-names-no-conflict"),
    pytest.param("1.36", {}, [_class("a", "gpu"), _class("b", "nvidia.com/gpu")],
                 {"nvidia.com/gpu": "b", **_implicit("a", "b")}, [], id="1.36-invalid-explicit-name-maps-nothing"),
    pytest.param("1.34", GATE_ON, [_class("a", "example.com/gpu", LATE), _class("b", "example.com/gpu", EARLY),
                                   _class("c")],
                 {"example.com/gpu": "b"}, [("example.com/gpu", ("a", "b"), "b", UNDETERMINED)],
                 id="1.34-last-listed-no-implicit"),
]


@pytest.mark.parametrize(("release", "gates", "classes", "expected", "conflicts"), MAPPING_CASES)
def test_mapping(release: str, gates: dict[str, bool], classes: list[dict[str, Any]],
                 expected: dict[str, str], conflicts: list[tuple[str, tuple[str, ...], str, str]]) -> None:
    found = map_extended_resources(classes, Features(release, gates))
    assert found.classes == expected
    assert [(c.resource, c.classes, c.winner, c.rule) for c in found.conflicts] == conflicts
    assert extended_resource_classes(classes, Features(release, gates)) == expected


@pytest.mark.parametrize(("release", "classes", "message"), [
    ("1.36", [_class("a", "example.com/gpu", EARLY), _class("b", "example.com/gpu", LATE)],
     "example.com/gpu is mapped by classes a and b; b wins in 1.36 (newer)"),
    ("1.35", [_class("c", "example.com/gpu"), _class("a", "example.com/gpu"), _class("b", "example.com/gpu")],
     "example.com/gpu is mapped by classes a, b and c; a wins in 1.35 (same or no creationTimestamp, first by name)"),
    ("1.34", [_class("a", "example.com/gpu"), _class("b", "example.com/gpu")],
     "example.com/gpu is mapped by classes a and b; in 1.34 the scheduler uses whichever it lists last, "
     "in no fixed order"),
])
def test_conflict_message(release: str, classes: list[dict[str, Any]], message: str) -> None:
    (conflict,) = map_extended_resources(classes, Features(release, GATE_ON)).conflicts
    assert conflict.message == message
    assert conflict.winner not in conflict.losers and len(conflict.losers) == len(classes) - 1


def test_mapping_reads_loaded_objects_and_skips_what_is_no_device_class() -> None:
    loaded = SimpleNamespace(data=_class("a", "example.com/gpu"))
    claim = {"kind": "ResourceClaim", "metadata": {"name": "x"}, "spec": {}}
    unnamed = {"kind": "DeviceClass", "metadata": {}, "spec": {"extendedResourceName": "example.com/tpu"}}
    found = extended_resource_classes([loaded, claim, unnamed, "junk"], Features("1.36"))
    assert found == {"example.com/gpu": "a", "deviceclass.resource.kubernetes.io/a": "a"}


def test_a_class_given_twice_keeps_its_last_definition() -> None:
    found = map_extended_resources([_class("a", "example.com/gpu"), _class("a", "example.com/tpu")], Features("1.36"))
    assert found.classes == {"example.com/tpu": "a", "deviceclass.resource.kubernetes.io/a": "a"}
    assert found.conflicts == ()


# -- which names and requests count ----------------------------------------------------------------
@pytest.mark.parametrize(("name", "release", "expected"), [
    ("example.com/gpu", "1.36", True),
    ("nvidia.com/gpu", "1.34", True),
    ("deviceclass.resource.kubernetes.io/gpu", "1.36", True),
    ("deviceclass.resource.kubernetes.io/gpu", "1.35", True),
    ("deviceclass.resource.kubernetes.io/gpu", "1.34", False),
    ("cpu", "1.36", False),
    ("hugepages-2Mi", "1.36", False),
    ("ephemeral-storage", "1.36", False),
    ("pods", "1.36", False),
    ("kubernetes.io/gpu", "1.36", False),
    ("foo.kubernetes.io/gpu", "1.36", False),
    ("requests.example.com/gpu", "1.36", False),
])
def test_names_dra_may_serve(name: str, release: str, expected: bool) -> None:
    assert is_dra_extended_resource(name, Features(release, GATE_ON)) is expected


def test_pod_requests_follow_the_containers_lifetimes() -> None:
    pod = _pod_of(
        [_container("c1", {"example.com/gpu": "1", "cpu": "1"})],
        init=[_container("ic1", {"example.com/gpu": "1"}),
              _container("sidecar", {"example.com/gpu": "1", "deviceclass.resource.kubernetes.io/x": "2"}, sidecar=True),
              _container("ic2", {"example.com/gpu": "2", "example.com/zero": "0"})],
    )
    # kubernetes#134880's example: the init phase peaks at 3 (ic2 beside the sidecar).
    assert pod_extended_requests(pod) == {"deviceclass.resource.kubernetes.io/x": 2, "example.com/gpu": 3}
    assert pod_extended_requests(pod, Features("1.34", GATE_ON)) == {"example.com/gpu": 3}


# -- which resources DRA serves on a node -----------------------------------------------------------
GPU, TPU = "example.com/gpu", "example.com/tpu"
IMPLICIT = "deviceclass.resource.kubernetes.io/gpu-class"
MAPPED = {GPU: "gpu-class", IMPLICIT: "gpu-class"}

SERVED_CASES = [
    pytest.param("1.36", {GPU: 1}, {}, {GPU: "gpu-class"}, (), id="mapped-not-listed-dra"),
    pytest.param("1.36", {GPU: 1}, {GPU: "0"}, {GPU: "gpu-class"}, (), id="mapped-listed-zero-dra"),
    pytest.param("1.35", {GPU: 1}, {GPU: "0"}, {GPU: "gpu-class"}, (), id="1.35-mapped-listed-zero-dra"),
    pytest.param("1.34", {GPU: 1}, {GPU: "0"}, {}, (), id="1.34-mapped-listed-zero-device-plugin"),
    pytest.param("1.34", {GPU: 1}, {}, {GPU: "gpu-class"}, (), id="1.34-mapped-not-listed-dra"),
    pytest.param("1.36", {GPU: 1}, {GPU: "4"}, {}, (), id="mapped-listed-device-plugin"),
    pytest.param("1.36", {TPU: 1}, {}, {}, (TPU,), id="unmapped-not-listed-cannot-fit"),
    pytest.param("1.36", {TPU: 1}, {TPU: "0"}, {}, (), id="unmapped-listed-zero-device-plugin"),
    pytest.param("1.36", {TPU: 0, GPU: 0}, {}, {}, (), id="zero-requests-ignored"),
    pytest.param("1.36", {"cpu": 1, "hugepages-2Mi": 1}, {}, {}, (), id="native-resources-ignored"),
    pytest.param("1.36", {IMPLICIT: 2}, {}, {IMPLICIT: "gpu-class"}, (), id="implicit-name-dra"),
    pytest.param("1.34", {IMPLICIT: 2}, {}, {}, (), id="1.34-implicit-name-ignored"),
    pytest.param("1.36", {GPU: 1, TPU: 1, "example.com/a": 1}, {GPU: "1"}, {}, ("example.com/a", TPU),
                 id="every-unfit-name-sorted"),
    pytest.param("1.36", {GPU: 1, IMPLICIT: 1}, {"pods": "32"}, {GPU: "gpu-class", IMPLICIT: "gpu-class"}, (),
                 id="explicit-and-implicit-both-dra"),
]


@pytest.mark.parametrize(("release", "requests", "allocatable", "served", "unfit"), SERVED_CASES)
def test_dra_served_resources(release: str, requests: dict[str, int], allocatable: dict[str, str],
                              served: dict[str, str], unfit: tuple[str, ...]) -> None:
    assert dra_served_resources(requests, allocatable, MAPPED, features=Features(release, GATE_ON)) == (served, unfit)


def test_the_plugin_reason() -> None:
    assert CANNOT_FIT == "cannot fit resource"


# -- the claim ------------------------------------------------------------------------------------
REQUEST_CASES_TABLE = [
    pytest.param(
        "1.36", [_container("c0", {GPU: "1"})], [_container("i0", {GPU: "3"})], {GPU: "k"},
        [_request("container-0-request-0", "k", 2), _request("container-1-request-0", "k", 1)],
        {("i0", GPU, "container-1-request-0"), ("i0", GPU, "container-0-request-0"),
         ("c0", GPU, "container-1-request-0")},
        id="init-borrows-then-asks-for-the-rest"),
    pytest.param(
        "1.36", [_container("c0", {GPU: "2"})], [_container("i0", {GPU: "1"}), _container("i1", {GPU: "2"})],
        {GPU: "k"}, [_request("container-2-request-0", "k", 2)],
        {("i0", GPU, "container-2-request-0"), ("i1", GPU, "container-2-request-0"),
         ("c0", GPU, "container-2-request-0")},
        id="inits-covered-by-the-regular-container"),
    pytest.param(
        "1.36", [_container("c0")], [_container("i0", {GPU: "2"}), _container("i1", {GPU: "2"})],
        {GPU: "k"}, [_request("container-0-request-0", "k", 2)],
        {("i0", GPU, "container-0-request-0"), ("i1", GPU, "container-0-request-0")},
        id="equal-inits-keep-the-first"),
    pytest.param(
        "1.36", [_container("c0", {GPU: "1000m", "cpu": "1", "memory": "1Gi"})], None, {GPU: "k"},
        [_request("container-0-request-1", "k", 1)], {("c0", GPU, "container-0-request-1")},
        id="index-among-all-request-names-and-canonical-quantity"),
    pytest.param(
        "1.36", [_container("c0", {GPU: "1"})], [_container("s0", {GPU: "1"}, sidecar=True)], {GPU: "k"},
        [_request("container-0-request-0", "k", 1), _request("container-1-request-0", "k", 1)],
        {("s0", GPU, "container-0-request-0"), ("c0", GPU, "container-1-request-0")},
        id="sidecar-and-regular-each-their-own"),
    pytest.param(
        "1.34", [_container("c0", {GPU: "1"})], [_container("i0", {GPU: "1"}), _container("i1", {GPU: "2"})],
        {GPU: "k"},
        [_request("container-0-request-0", "k", 1), _request("container-1-request-0", "k", 2),
         _request("container-2-request-0", "k", 1)],
        {("i0", GPU, "container-0-request-0"), ("i1", GPU, "container-1-request-0"),
         ("c0", GPU, "container-2-request-0")},
        id="1.34-every-container-its-whole-quantity"),
    pytest.param(
        "1.36", [_container("c0", {GPU: "1", TPU: "1"})], None, {TPU: "t"},
        [_request("container-0-request-1", "t", 1)], {("c0", TPU, "container-0-request-1")},
        id="only-what-dra-serves"),
]


@pytest.mark.parametrize(("release", "containers", "init", "served", "requests", "mappings"), REQUEST_CASES_TABLE)
def test_extended_resource_requests(release: str, containers: list[dict[str, Any]], init: list[dict[str, Any]] | None,
                                    served: dict[str, str], requests: list[dict[str, Any]],
                                    mappings: set[tuple[str, str, str]]) -> None:
    made, mapped = extended_resource_requests(_pod_of(containers, init), served, features=Features(release, GATE_ON))
    assert made == requests
    assert _mapping_set(mapped) == mappings


@pytest.mark.parametrize(("release", "blocks"), [("1.36", False), ("1.35", False), ("1.34", True)])
def test_special_claim(release: str, blocks: bool) -> None:
    pod = _pod_of([_container("c0", {GPU: "1"})])
    requests = [_request("container-0-request-0", "k", 1)]
    claim = special_claim(pod, requests, features=Features(release, GATE_ON))
    owner = {"apiVersion": "v1", "kind": "Pod", "name": "my-pod", "uid": "u1", "controller": True}
    if blocks:
        owner["blockOwnerDeletion"] = True
    assert claim == {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "generateName": "my-pod-extended-resources-",
            "namespace": "ns",
            "annotations": {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"},
            "ownerReferences": [owner],
        },
        "spec": {"devices": {"requests": requests}},
    }
    assert special_claim(pod, requests) == special_claim(pod, requests, features=Features("1.36"))
