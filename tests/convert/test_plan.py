"""The conversion rules on plain objects: what each kind becomes in each version, and what is
reported (CONVERSION.md; the apiserver's conversion functions)."""

from __future__ import annotations

from typing import Any

import pytest

from dractl.convert.apply import apply_to_data
from dractl.convert.plan import Severity, format_tree_path, plan_document

B1 = "resource.k8s.io/v1beta1"
B2 = "resource.k8s.io/v1beta2"
V1 = "resource.k8s.io/v1"


def claim(api_version: str, *requests: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "ns"},
        "spec": {"devices": {"requests": list(requests)}},
        **extra,
    }


def slice_(api_version: str, *devices: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": {"driver": "gpu.example.com", **spec, "devices": list(devices)},
    }


SELECTOR = [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]
SUBREQUESTS = [{"name": "a", "deviceClassName": "gpu.example.com", "count": 2}]
STATUS = {
    "allocation": {
        "devices": {
            "results": [
                {"request": "gpu", "driver": "gpu.example.com", "pool": "p", "device": "gpu-0"}
            ]
        }
    }
}

# (id, input, target, expected output, [(severity, path, message fragment)])
CONVERSIONS: list[tuple[str, Any, str, Any, list[tuple[Severity, str, str]]]] = [
    (
        "deviceclass-v1beta1-to-v1",
        {
            "apiVersion": B1,
            "kind": "DeviceClass",
            "metadata": {"name": "d"},
            "spec": {"selectors": SELECTOR},
        },
        "v1",
        {
            "apiVersion": V1,
            "kind": "DeviceClass",
            "metadata": {"name": "d"},
            "spec": {"selectors": SELECTOR},
        },
        [],
    ),
    (
        "request-fields-move-into-exactly",
        claim(
            B1,
            {
                "name": "gpu",
                "deviceClassName": "gpu.example.com",
                "selectors": SELECTOR,
                "allocationMode": "ExactCount",
                "count": 2,
                "adminAccess": True,
                "tolerations": [{"key": "k", "operator": "Exists"}],
                "capacity": {"requests": {"memory": "1Gi"}},
            },
        ),
        "v1",
        claim(
            V1,
            {
                "name": "gpu",
                "exactly": {
                    "deviceClassName": "gpu.example.com",
                    "selectors": SELECTOR,
                    "allocationMode": "ExactCount",
                    "count": 2,
                    "adminAccess": True,
                    "tolerations": [{"key": "k", "operator": "Exists"}],
                    "capacity": {"requests": {"memory": "1Gi"}},
                },
            },
        ),
        [],
    ),
    (
        "subrequests-are-the-same-in-every-version",
        claim(B1, {"name": "gpu", "firstAvailable": SUBREQUESTS}),
        "v1",
        claim(V1, {"name": "gpu", "firstAvailable": SUBREQUESTS}),
        [],
    ),
    (
        "request-with-both-shapes-is-converted-faithfully",
        claim(B1, {"name": "gpu", "deviceClassName": "x", "firstAvailable": SUBREQUESTS}),
        "v1",
        claim(
            V1, {"name": "gpu", "exactly": {"deviceClassName": "x"}, "firstAvailable": SUBREQUESTS}
        ),
        [],
    ),
    (
        "empty-selector-list-counts-as-set",
        claim(B1, {"name": "gpu", "selectors": []}),
        "v1",
        claim(V1, {"name": "gpu", "exactly": {"selectors": []}}),
        [],
    ),
    (
        "zero-values-only-create-no-exactly",
        claim(
            B1,
            {
                "name": "gpu",
                "deviceClassName": "",
                "count": 0,
                "selectors": None,
                "firstAvailable": SUBREQUESTS,
            },
        ),
        "v1",
        claim(V1, {"name": "gpu", "firstAvailable": SUBREQUESTS}),
        [
            (
                Severity.NOTE,
                "spec.devices.requests[0].deviceClassName",
                'removed deviceClassName: ""',
            ),
            (Severity.NOTE, "spec.devices.requests[0].count", "removed count: 0"),
            (Severity.NOTE, "spec.devices.requests[0].selectors", "removed selectors: null"),
        ],
    ),
    (
        "zero-values-next-to-a-set-one-move-along",
        claim(B1, {"name": "gpu", "count": 0, "deviceClassName": "x"}),
        "v1",
        claim(V1, {"name": "gpu", "exactly": {"count": 0, "deviceClassName": "x"}}),
        [],
    ),
    (
        "claim-status-is-the-same-in-every-version",
        claim(B1, {"name": "gpu", "deviceClassName": "x"}, status=STATUS),
        "v1",
        claim(V1, {"name": "gpu", "exactly": {"deviceClassName": "x"}}, status=STATUS),
        [],
    ),
    (
        "v1beta2-to-v1-changes-only-apiVersion",
        claim(B2, {"name": "gpu", "exactly": {"deviceClassName": "x"}}),
        "v1",
        claim(V1, {"name": "gpu", "exactly": {"deviceClassName": "x"}}),
        [],
    ),
    (
        "v1-to-v1beta2-changes-only-apiVersion",
        slice_(V1, {"name": "d", "attributes": {"a": {"int": 1}}}, nodeName="n"),
        "v1beta2",
        slice_(B2, {"name": "d", "attributes": {"a": {"int": 1}}}, nodeName="n"),
        [],
    ),
    (
        "exactly-moves-up-for-v1beta1",
        claim(V1, {"name": "gpu", "exactly": {"deviceClassName": "x", "count": 2}}),
        "v1beta1",
        claim(B1, {"name": "gpu", "deviceClassName": "x", "count": 2}),
        [],
    ),
    (
        "null-exactly-is-dropped",
        claim(V1, {"name": "gpu", "exactly": None, "firstAvailable": SUBREQUESTS}),
        "v1beta1",
        claim(B1, {"name": "gpu", "firstAvailable": SUBREQUESTS}),
        [(Severity.NOTE, "spec.devices.requests[0].exactly", "exactly: null")],
    ),
    (
        "empty-exactly-cannot-be-written-in-v1beta1",
        claim(V1, {"name": "gpu", "exactly": {"count": 0}}),
        "v1beta1",
        None,
        [(Severity.LOSSY, "spec.devices.requests[0].exactly", "--allow-lossy")],
    ),
    (
        "v1beta1-request-with-exactly-and-flat-fields-clashes",
        claim(B1, {"name": "gpu", "exactly": {"deviceClassName": "y"}, "deviceClassName": "x"}),
        "v1",
        None,
        [(Severity.LOSSY, "spec.devices.requests[0].exactly", "v1beta1 has no field `exactly`")],
    ),
    (
        "v1-request-with-exactly-and-flat-field-clashes",
        claim(V1, {"name": "gpu", "count": 3, "exactly": {"deviceClassName": "y", "count": 1}}),
        "v1beta1",
        None,
        [(Severity.LOSSY, "spec.devices.requests[0].count", "v1 has no request field `count`")],
    ),
    (
        "basic-fields-come-up",
        slice_(
            B1,
            {
                "name": "gpu-0",
                "basic": {
                    "attributes": {"model": {"string": "A100"}},
                    "capacity": {"memory": {"value": "40Gi"}},
                    "taints": [{"key": "k", "effect": "NoSchedule"}],
                    "nodeName": "n1",
                },
            },
            perDeviceNodeSelection=True,
        ),
        "v1",
        slice_(
            V1,
            {
                "name": "gpu-0",
                "attributes": {"model": {"string": "A100"}},
                "capacity": {"memory": {"value": "40Gi"}},
                "taints": [{"key": "k", "effect": "NoSchedule"}],
                "nodeName": "n1",
            },
            perDeviceNodeSelection=True,
        ),
        [],
    ),
    (
        "slice-empty-node-fields-are-dropped",
        slice_(
            B1,
            {"name": "gpu-0", "basic": None},
            {"name": "gpu-1", "basic": {}},
            nodeName="",
            allNodes=False,
            nodeSelector={"nodeSelectorTerms": []},
        ),
        "v1",
        slice_(V1, {"name": "gpu-0"}, {"name": "gpu-1"}, nodeSelector={"nodeSelectorTerms": []}),
        [
            (Severity.NOTE, "spec.nodeName", 'removed nodeName: ""'),
            (Severity.NOTE, "spec.allNodes", "removed allNodes: false"),
        ],
    ),
    (
        "v1beta1-device-field-next-to-basic-clashes",
        slice_(B1, {"name": "gpu-0", "attributes": {}, "basic": {"attributes": {"a": {"int": 1}}}}),
        "v1",
        None,
        [
            (
                Severity.LOSSY,
                "spec.devices[0].attributes",
                "v1beta1 has no device field `attributes`",
            )
        ],
    ),
    (
        "device-fields-go-under-basic",
        slice_(
            V1,
            {"name": "gpu-0", "attributes": {"a": {"int": 1}}, "allowMultipleAllocations": True},
            {"name": "gpu-1"},
            allNodes=True,
        ),
        "v1beta1",
        slice_(
            B1,
            {
                "name": "gpu-0",
                "basic": {"attributes": {"a": {"int": 1}}, "allowMultipleAllocations": True},
            },
            {"name": "gpu-1", "basic": {}},
            allNodes=True,
        ),
        [],
    ),
    (
        "template-requests-one-level-deeper",
        {
            "apiVersion": B1,
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "t"},
            "spec": {
                "metadata": {"labels": {"a": "b"}},
                "spec": {"devices": {"requests": [{"name": "r", "deviceClassName": "x"}]}},
            },
        },
        "v1",
        {
            "apiVersion": V1,
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "t"},
            "spec": {
                "metadata": {"labels": {"a": "b"}},
                "spec": {
                    "devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "x"}}]}
                },
            },
        },
        [],
    ),
    (
        "list-items-are-converted-in-place",
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [
                claim(B1, {"name": "r", "deviceClassName": "x"}),
                {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}},
            ],
        },
        "v1",
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [
                claim(V1, {"name": "r", "exactly": {"deviceClassName": "x"}}),
                {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}},
            ],
        },
        [],
    ),
    (
        "typed-list-items-take-the-lists-version",
        {
            "apiVersion": B1,
            "kind": "ResourceSliceList",
            "items": [
                {
                    "metadata": {"name": "s"},
                    "spec": {"devices": [{"name": "d", "basic": {"attributes": {}}}]},
                }
            ],
        },
        "v1",
        {
            "apiVersion": V1,
            "kind": "ResourceSliceList",
            "items": [
                {"metadata": {"name": "s"}, "spec": {"devices": [{"name": "d", "attributes": {}}]}}
            ],
        },
        [],
    ),
    (
        "other-groups-are-left-alone",
        {
            "apiVersion": "example.com/v1beta1",
            "kind": "ResourceClaim",
            "spec": {"devices": {"requests": [{"name": "r", "deviceClassName": "x"}]}},
        },
        "v1",
        {
            "apiVersion": "example.com/v1beta1",
            "kind": "ResourceClaim",
            "spec": {"devices": {"requests": [{"name": "r", "deviceClassName": "x"}]}},
        },
        [],
    ),
    (
        "other-kinds-of-the-group-are-left-alone",
        {
            "apiVersion": "resource.k8s.io/v1alpha3",
            "kind": "DeviceTaintRule",
            "metadata": {"name": "r"},
        },
        "v1",
        {
            "apiVersion": "resource.k8s.io/v1alpha3",
            "kind": "DeviceTaintRule",
            "metadata": {"name": "r"},
        },
        [],
    ),
    (
        "v1alpha3-is-removed",
        claim("resource.k8s.io/v1alpha3", {"name": "r", "deviceClassName": "x"}),
        "v1",
        None,
        [(Severity.ERROR, "apiVersion", "set apiVersion to resource.k8s.io/v1beta1")],
    ),
    (
        "v1alpha2-is-removed",
        {
            "apiVersion": "resource.k8s.io/v1alpha2",
            "kind": "ResourceClaim",
            "spec": {"resourceClassName": "x"},
        },
        "v1",
        None,
        [(Severity.ERROR, "apiVersion", "removed in Kubernetes 1.31")],
    ),
    (
        # classic DRA's class: not one of today's kinds, yet no more applicable than its claims
        "v1alpha2-resource-class-is-removed-with-what-to-write",
        {
            "apiVersion": "resource.k8s.io/v1alpha2",
            "kind": "ResourceClass",
            "metadata": {"name": "gpu.example.com"},
            "driverName": "gpu.resource.example.com",
        },
        "v1",
        None,
        [
            (
                Severity.ERROR,
                "apiVersion",
                'DeviceClass with the selector device.driver == "gpu.resource.example.com"',
            )
        ],
    ),
    (
        "v1alpha2-parameters-are-removed",
        {
            "apiVersion": "resource.k8s.io/v1alpha2",
            "kind": "ResourceClaimParameters",
            "metadata": {"name": "p"},
        },
        "v1beta1",
        None,
        [(Severity.ERROR, "apiVersion", "becomes the `config` of a DeviceClass")],
    ),
    (
        "v1alpha2-list-items-are-removed",
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [{"apiVersion": "resource.k8s.io/v1alpha2", "kind": "PodSchedulingContext"}],
        },
        "v1",
        None,
        [(Severity.ERROR, "items[0].apiVersion", "removed in Kubernetes 1.31")],
    ),
    (
        # in v1beta1 the field would land on the request, and stay there on the way back
        "unknown-field-under-exactly-has-no-place-in-v1beta1",
        claim(V1, {"name": "gpu", "exactly": {"deviceClassName": "x", "deviceClasName": "y"}}),
        "v1beta1",
        None,
        [
            (
                Severity.LOSSY,
                "spec.devices.requests[0].exactly.deviceClasName",
                "is not a field of v1",
            )
        ],
    ),
    (
        "unknown-request-field-stays-where-it-is",
        claim(B1, {"name": "gpu", "deviceClassName": "x", "priority": 1}),
        "v1",
        claim(V1, {"name": "gpu", "exactly": {"deviceClassName": "x"}, "priority": 1}),
        [],
    ),
    (
        "unknown-version-is-skipped",
        claim("resource.k8s.io/v2", {"name": "r"}),
        "v1",
        claim("resource.k8s.io/v2", {"name": "r"}),
        [(Severity.SKIPPED, "apiVersion", "not a version dractl knows")],
    ),
    (
        "spec-must-be-a-mapping",
        {"apiVersion": B1, "kind": "ResourceClaim", "spec": ["x"]},
        "v1",
        None,
        [(Severity.ERROR, "spec", "expected a mapping, found a list")],
    ),
    (
        "requests-must-be-a-list",
        {"apiVersion": B1, "kind": "ResourceClaim", "spec": {"devices": {"requests": "gpu"}}},
        "v1",
        None,
        [(Severity.ERROR, "spec.devices.requests", "expected a list, found a string")],
    ),
    (
        "basic-must-be-a-mapping",
        slice_(B1, {"name": "d", "basic": [1]}),
        "v1",
        None,
        [(Severity.ERROR, "spec.devices[0].basic", "expected a mapping, found a list")],
    ),
]


@pytest.mark.parametrize(
    ("source", "target", "expected", "findings"),
    [case[1:] for case in CONVERSIONS],
    ids=[case[0] for case in CONVERSIONS],
)
def test_conversion(source: Any, target: str, expected: Any, findings: list[Any]) -> None:
    plan = plan_document(source, target)
    got = [(f.severity, format_tree_path(f.path), f.message) for f in plan.findings]
    assert [(s, p) for s, p, _ in got] == [(s, p) for s, p, _ in findings]
    for (_, _, message), (_, _, fragment) in zip(got, findings, strict=True):
        assert fragment in message
    if expected is None:
        assert plan.blocked
    else:
        assert not plan.blocked
        assert apply_to_data(source, plan.edits) == expected


@pytest.mark.parametrize(
    ("source", "target", "kept"),
    [
        (claim(V1, {"name": "gpu", "exactly": {}}), "v1beta1", claim(B1, {"name": "gpu"})),
        (
            claim(B1, {"name": "gpu", "exactly": {"count": 1}, "deviceClassName": "x"}),
            "v1",
            claim(V1, {"name": "gpu", "exactly": {"deviceClassName": "x"}}),
        ),
        (
            slice_(V1, {"name": "d", "basic": {"x": 1}, "attributes": {}}),
            "v1beta1",
            slice_(B1, {"name": "d", "basic": {"attributes": {}}}),
        ),
        (
            claim(V1, {"name": "gpu", "exactly": {"count": 2, "cuont": 3}}),
            "v1beta1",
            claim(B1, {"name": "gpu", "count": 2}),
        ),
    ],
    ids=["empty-exactly", "exactly-in-v1beta1", "basic-in-v1", "unknown-under-exactly"],
)
def test_allow_lossy_drops_and_reports(source: Any, target: str, kept: Any) -> None:
    plan = plan_document(source, target, allow_lossy=True)
    assert not plan.blocked
    assert [f.severity for f in plan.findings] == [Severity.DROPPED]
    assert apply_to_data(source, plan.edits) == kept


def test_same_version_needs_no_edits() -> None:
    for version, obj in (
        ("v1beta1", claim(B1, {"name": "r", "deviceClassName": "x"})),
        ("v1", slice_(V1, {"name": "d"})),
    ):
        assert plan_document(obj, version).edits == []


def test_unknown_target_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown target version"):
        plan_document({}, "v2")


# The apiserver creates `exactly` iff hasAnyMainRequestFieldsSet (v1beta1/conversion.go): strings
# not empty, count not 0, everything else not nil (an empty list or mapping, `false`, are set).
@pytest.mark.parametrize(
    ("key", "value", "is_set"),
    [
        ("deviceClassName", "gpu.example.com", True),
        ("deviceClassName", "", False),
        ("selectors", [], True),
        ("selectors", None, False),
        ("allocationMode", "All", True),
        ("allocationMode", "", False),
        ("count", 1, True),
        ("count", 0, False),
        ("adminAccess", False, True),
        ("adminAccess", None, False),
        ("tolerations", [], True),
        ("tolerations", None, False),
        ("capacity", {}, True),
        ("capacity", None, False),
    ],
)
def test_exactly_is_created_iff_a_request_field_is_set(key: str, value: Any, is_set: bool) -> None:
    source = claim(B1, {"name": "gpu", key: value})
    converted = apply_to_data(source, plan_document(source, "v1").edits)
    request = converted["spec"]["devices"]["requests"][0]
    assert request == ({"name": "gpu", "exactly": {key: value}} if is_set else {"name": "gpu"})
