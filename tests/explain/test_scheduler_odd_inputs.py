"""Values an apiserver decodes but that are odd — empty strings, missing keys, nulls, negative
numbers, quantities too large or too small to count — reach every scheduler plugin through
``dractl explain --pod`` without a traceback: decoding (``test_decode_errors``) lets them through,
so the plugins must cope with them."""

from __future__ import annotations

import traceback
from typing import Any

import pytest
import yaml

from dractl.cli.testing import Result, invoke

CLASS = "gpu.example.com"


def _container(name: str | None = "c", **fields: Any) -> dict[str, Any]:
    return {"name": name, "image": "registry.example.com/app:1", **fields}


def _node(name: str, spec: Any = None, status: Any = None, **extra: Any) -> dict[str, Any]:
    node: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
    }
    if spec is not None:
        node["spec"] = spec
    if status is not None:
        node["status"] = status
    node.update(extra)
    return node


def _pod(name: str, spec: Any, status: Any = None, **metadata: Any) -> dict[str, Any]:
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "ml", **metadata},
        "spec": spec,
    }
    if status is not None:
        pod["status"] = status
    return pod


def _slice(node: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-gpus"},
        "spec": {
            "driver": CLASS,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}],
        },
    }


def _claim(name: str, status: dict[str, Any] | None = None) -> dict[str, Any]:
    claim: dict[str, Any] = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "ml"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": CLASS}}]}},
    }
    if status is not None:
        claim["status"] = status
    return claim


def _result(node: str, **fields: Any) -> dict[str, Any]:
    return {"request": "gpu", "driver": CLASS, "pool": node, "device": "gpu-0", **fields}


NODES = [
    _node("node-a", status={"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "10"}}),
    # cordoned, taints with empty and missing keys, allocatable negative or zero
    _node(
        "node-b",
        spec={
            "unschedulable": True,
            "taints": [
                {},
                {"key": "", "value": "", "effect": ""},
                {"effect": "NoExecute"},
                {"key": "k", "value": "-9223372036854775809", "effect": "NoSchedule"},
                None,
            ],
        },
        status={
            "allocatable": {
                "cpu": "-1",
                "memory": "0",
                "pods": "-3",
                "example.com/gpu": "-1",
                "hugepages-1Gi": "0",
            }
        },
    ),
    _node("node-c", spec={}, status={}),  # no allocatable
    _node("node-d", spec={"unschedulable": None, "taints": None}, status={"allocatable": None}),
    # too large for dractl's arithmetic (legal upstream), fractional pod count, null values
    _node(
        "node-e",
        spec={"taints": [{"key": "k", "value": "5", "effect": "NoSchedule", "timeAdded": None}]},
        status={
            "allocatable": {
                "cpu": "1e100",
                "memory": None,
                "pods": "0.5",
                "example.com/gpu": "1e30",
            }
        },
    ),
]
# Pods bound to the nodes: their ports and requests count there, lower priorities may be preempted.
BOUND = [
    _pod(
        "b1",
        {
            "nodeName": "node-a",
            "priority": -1,
            "containers": [
                _container(
                    ports=[{"hostPort": 80}, {"hostPort": 81, "hostIP": "", "protocol": ""}],
                    resources={"requests": {"cpu": "-1", "memory": "0", "example.com/gpu": "1"}},
                )
            ],
        },
        status={
            "phase": "",
            "startTime": "2025-01-01T00:00:00Z",
            "conditions": [{"type": "DisruptionTarget"}, None],
            "containerStatuses": [
                {
                    "name": "c",
                    "allocatedResources": {"cpu": "-5"},
                    "resources": {"requests": {"cpu": "0"}},
                },
                {},
                None,
            ],
        },
        deletionTimestamp="2025-01-01T00:00:00Z",
    ),
    _pod(
        "b2",
        {"nodeName": "node-a", "containers": [None, {}]},
        status={
            "phase": "Running",
            "conditions": [{"type": "PodResizePending", "reason": "Infeasible"}],
            "containerStatuses": [{"name": None, "allocatedResources": {}}],
        },
    ),
    _pod("b3", {"nodeName": "node-b"}, status={"phase": "Succeeded"}),
    _pod("b4", {"nodeName": "", "containers": [_container(ports=[{"hostPort": 81}])]}),
    _pod("b5", None),
    _pod(
        "",
        {
            "nodeName": "node-e",
            "priority": -10,
            "containers": [
                _container(resources={"requests": {"cpu": "100", "example.com/gpu": "0"}})
            ],
        },
        status={"conditions": None},
    ),
]
CLUSTER = [
    {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": CLASS},
        "spec": {
            "extendedResourceName": "example.com/gpu",
            "selectors": [{"cel": {"expression": f'device.driver == "{CLASS}"'}}],
        },
    },
    {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "one-gpu", "namespace": "ml"},
        "spec": {
            "spec": {
                "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": CLASS}}]}
            }
        },
    },
    *NODES,
    *(_slice(n["metadata"]["name"]) for n in NODES),
    _slice("node-f"),  # named only by its ResourceSlice
    # allocated claims with odd statuses
    _claim(
        "reserved-by-nobody",
        {"allocation": {"devices": {"results": [_result("node-a")]}}, "reservedFor": [{}] * 256},
    ),
    _claim(
        "empty-selector",
        {
            "allocation": {
                "devices": {"results": [_result("node-a")]},
                "nodeSelector": {"nodeSelectorTerms": [{}]},
            }
        },
    ),
    _claim(
        "binding",
        {
            "allocation": {
                "devices": {"results": [_result("node-a", bindingConditions=["", "ready"])]},
                "allocationTimestamp": "2020-01-01T00:00:00Z",
            },
            "devices": [{"driver": CLASS, "pool": "node-a", "device": "gpu-0", "conditions": []}],
        },
    ),
    _claim("no-results", {"allocation": {"devices": {"results": []}}}),
    *BOUND,
]


def _claims(*names: str) -> list[dict[str, Any]]:
    return [{"name": f"c{i}", "resourceClaimName": name} for i, name in enumerate(names)]


# The Pod being explained (ml/p): its spec, and its status where it matters.
ODD_PODS = [
    pytest.param(
        {
            "nodeName": "",
            "schedulerName": "",
            "preemptionPolicy": "",
            "priority": 0,
            "tolerations": [{"key": "", "operator": "", "value": "", "effect": ""}],
            "containers": [
                _container(
                    "", restartPolicy="", ports=[{"hostPort": 90, "hostIP": "", "protocol": ""}]
                )
            ],
            "initContainers": [_container("", restartPolicy="")],
        },
        None,
        id="empty-strings",
    ),
    pytest.param(
        {
            "containers": [{}],
            "initContainers": [{}],
            "tolerations": [{}],
            "volumes": [{}],
            "topologySpreadConstraints": [{}],
            "affinity": {"podAffinity": {}, "nodeAffinity": {}},
        },
        {"conditions": [{}], "containerStatuses": [{}], "resourceClaimStatuses": [{}]},
        id="missing-keys",
    ),
    pytest.param(
        {
            "nodeName": None,
            "priority": None,
            "preemptionPolicy": None,
            "schedulerName": None,
            "tolerations": [None, {"key": None, "operator": None, "value": None, "effect": None}],
            "schedulingGates": None,
            "overhead": {"cpu": None},
            "resources": None,
            "initContainers": None,
            "containers": [
                None,
                _container(
                    None,
                    restartPolicy=None,
                    ports=[None, {"hostPort": None}],
                    resources={"requests": {"cpu": None}, "limits": {"example.com/gpu": None}},
                ),
            ],
            "volumes": None,
            "topologySpreadConstraints": None,
            "affinity": None,
        },
        {"phase": None, "conditions": None, "nominatedNodeName": None},
        id="nulls",
    ),
    pytest.param(
        {
            "priority": -2147483648,
            "tolerations": [{"operator": "Exists", "tolerationSeconds": -1}],
            "containers": [
                _container(
                    ports=[{"hostPort": -1}, {"hostPort": 0}, {"hostPort": 70000}],
                    resources={
                        "requests": {
                            "cpu": "-1",
                            "memory": "-1Gi",
                            "example.com/gpu": "-2",
                            "hugepages-2Mi": "-1Gi",
                            "pods": "-1",
                        }
                    },
                )
            ],
            "overhead": {"cpu": "-500m"},
            "resources": {"requests": {"cpu": "-1", "memory": "1Ei"}},
        },
        None,
        id="negative-numbers",
    ),
    pytest.param(
        {
            "containers": [
                _container(
                    resources={
                        "requests": {
                            "cpu": "9223372036854775807",
                            "memory": "8Ei",
                            "ephemeral-storage": "1e100",
                            "example.com/gpu": "1e18",
                        }
                    }
                ),
                _container(
                    "tiny",
                    resources={
                        "requests": {
                            "cpu": "1n",
                            "memory": "0.000001",
                            "example.com/gpu": "1m",
                            "nvidia.com/gpu": "0.5",
                            "storage": "1e3",
                            "": "1",
                        }
                    },
                ),
            ]
        },
        None,
        id="quantities-huge-and-tiny",
    ),
    pytest.param(
        {
            "containers": [
                _container(resources={"limits": {"example.com/gpu": "3"}}),
                _container("zero", resources={"requests": {"example.com/gpu": "0"}}),
            ],
            "initContainers": [
                _container("i", resources={"requests": {"example.com/gpu": "5"}}),
                _container(
                    "i", restartPolicy="Always", resources={"requests": {"example.com/gpu": "1"}}
                ),
            ],
        },
        None,
        id="extended-resources",
    ),
    pytest.param(
        {
            "tolerations": [
                {"key": "k", "operator": "Gt", "value": ""},
                {"key": "k", "operator": "Lt", "value": "-0"},
                {"key": "k", "operator": "Gt", "value": "99999999999999999999"},
                {"operator": "Bogus"},
                {"key": "node.kubernetes.io/unschedulable", "operator": "Lt", "value": "007"},
            ],
            "containers": [_container()],
        },
        None,
        id="toleration-operators",
    ),
    pytest.param(
        {"schedulingGates": [{}, {"name": ""}, None], "containers": [_container()]},
        None,
        id="scheduling-gates",
    ),
    pytest.param(
        {
            "nodeSelector": {"zone": ""},
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {},
                            None,
                            {"matchExpressions": [{"key": "zone", "operator": "DoesNotExist"}]},
                            {
                                "matchExpressions": [
                                    {"key": "k", "operator": "Gt", "values": ["-1"]}
                                ]
                            },
                            {
                                "matchFields": [
                                    {"key": "metadata.name", "operator": "NotIn", "values": [""]}
                                ]
                            },
                        ]
                    }
                }
            },
            "containers": [_container()],
        },
        None,
        id="node-affinity",
    ),
    pytest.param(
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}
                }
            },
            "containers": [_container()],
        },
        None,
        id="node-affinity-no-terms",
    ),
    pytest.param(
        {"nodeName": "node-nowhere", "containers": [_container()]}, None, id="node-name-unknown"
    ),
    # node-a only, where evicting the bound Pods with odd values would make room
    pytest.param(
        {
            "priority": 5,
            "preemptionPolicy": "PreemptLowerPriority",
            "nodeSelector": {"kubernetes.io/hostname": "node-a"},
            "containers": [
                _container(
                    ports=[{"hostPort": 80, "hostIP": "::"}, {"hostPort": 81}],
                    resources={"requests": {"cpu": "8"}},
                )
            ],
        },
        {"nominatedNodeName": "node-a"},
        id="preemption",
    ),
    pytest.param(
        {"priority": 5, "containers": [_container()]},
        {"nominatedNodeName": ""},
        id="nominated-empty",
    ),
    pytest.param(
        {"schedulerName": "no-such-scheduler", "containers": [_container()]},
        None,
        id="unknown-scheduler",
    ),
    pytest.param(
        {
            "volumes": [
                {},
                None,
                {"name": "", "persistentVolumeClaim": None},
                {"ephemeral": {}},
                {"csi": None},
                {"gcePersistentDisk": {}},
            ],
            "topologySpreadConstraints": [None, {"whenUnsatisfiable": ""}],
            "affinity": {
                "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{}]},
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": None},
            },
            "containers": [_container()],
        },
        None,
        id="not-evaluated-plugins",
    ),
    pytest.param(
        {"resourceClaims": _claims("reserved-by-nobody"), "containers": [_container()]},
        None,
        id="claim-fully-reserved",
    ),
    pytest.param(
        {"resourceClaims": _claims("empty-selector", "no-results"), "containers": [_container()]},
        None,
        id="claims-allocated-oddly",
    ),
    pytest.param(
        {"resourceClaims": _claims("binding"), "containers": [_container()]},
        None,
        id="binding-conditions",
    ),
    pytest.param(
        {
            "resourceClaims": [{"name": ""}, {"name": "t", "resourceClaimTemplateName": "one-gpu"}],
            "containers": [_container(resources={"claims": [{"name": ""}]})],
        },
        None,
        id="claim-entries",
    ),
]
OPTIONS = [
    pytest.param((), id="1.36"),
    pytest.param(("--kubernetes-version", "1.34"), id="1.34"),
    pytest.param(
        (
            "--kubernetes-version",
            "1.35",
            "--feature-gates",
            "DRAExtendedResource=true,TaintTolerationComparisonOperators=true",
        ),
        id="1.35-gates",
    ),
    pytest.param(
        (
            "--feature-gates",
            "TaintTolerationComparisonOperators=true,PodLevelResources=false,"
            "DRADeviceBindingConditions=true",
        ),
        id="1.36-gates",
    ),
    pytest.param(("-o", "json", "--verbose"), id="json"),
    pytest.param(("-o", "html"), id="html"),
]


def explain_pod(spec: Any, status: Any, *options: str) -> Result:
    text = yaml.safe_dump_all([*CLUSTER, _pod("p", spec, status)], sort_keys=False)
    result = invoke(["explain", "--pod", "ml/p", *options, "-"], input=text)
    if result.exc_info is not None:
        pytest.fail("".join(traceback.format_exception(*result.exc_info)))
    return result


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize(("spec", "status"), ODD_PODS)
def test_odd_values_reach_every_plugin_without_a_traceback(
    spec: Any, status: Any, options: tuple[str, ...]
) -> None:
    result = explain_pod(spec, status, *options)
    assert result.stderr == ""  # decodable: no decoding error, and no internal error
    assert result.exit_code in (0, 1)
    if options[:2] != ("-o", "html"):
        assert "scheduler" in result.stdout


def test_the_odd_cluster_is_decodable_and_explained_node_by_node() -> None:
    result = explain_pod(
        {"containers": [_container(resources={"requests": {"cpu": "1"}})]}, None, "-o", "json"
    )
    assert (result.exit_code, result.stderr) == (0, "")
    assert "node-b" in result.stdout and "node-f" in result.stdout


def test_a_priority_written_as_a_float_counts() -> None:
    bound = _pod(
        "low",
        {
            "nodeName": "node-a",
            "priority": 5,
            "containers": [_container(resources={"requests": {"cpu": "8"}})],
        },
        {"phase": "Running"},
    )
    outcomes = []
    for priority in (10, 10.0):
        spec = {
            "priority": priority,
            "containers": [_container(resources={"requests": {"cpu": "1"}})],
        }
        text = yaml.safe_dump_all(
            [*CLUSTER[:2], NODES[0], _slice("node-a"), bound, _pod("p", spec)], sort_keys=False
        )
        result = invoke(["explain", "--pod", "ml/p", "-o", "json", "-"], input=text)
        assert result.exception is None and result.stderr == ""
        outcomes.append(result.stdout)
    assert "preempting ml/low" in outcomes[0]
    assert outcomes[0] == outcomes[1]
