"""Complete error lists, release by release, for upstream validation test cases.

Each row is an object and the apiserver's field errors for it in each release dractl models,
compared as a multiset of (field, type), and the detail where the row pins it. Rows name their
upstream source: a test case of ``kubernetes/kubernetes:pkg/apis/resource/validation`` (its
expectations, run through the release's behaviour) or, marked "after", an object built like that
case to pin one behaviour. What changes between releases, from the handwritten validation of each:

* 1.34 validates every item of a list (or map) beyond its maximum and reports ``Too many``
  besides; 1.35 stops at ``Too many`` (kubernetes/kubernetes#135079).
* 1.34 reports a duplicate request, sub-request, device or counter set at its ``name`` (its
  ``counterSet``); 1.35 at the entry.
* 1.34 reports an invalid map key (attribute, capacity or counter name) at ``map[key]``; 1.35
  at the map (kubernetes/kubernetes#134836).
* 1.34 reports an empty qualified name, domain or name part as ``Required value`` ("name
  required"); 1.35 as ``Invalid value`` (kubernetes/kubernetes#134602).
* 1.34 reports an empty driver name as ``Required value`` and as no DNS subdomain (core
  ``ValidateCSIDriverName``); 1.35 as ``Required value`` alone.
* A constraint with neither ``matchAttribute`` nor ``distinctAttribute`` is reported at
  ``matchAttribute`` while DRAConsumableCapacity is off, at the constraint while it is on (its
  default from 1.36).

Declarative validation does not change these lists: in 1.35 DeclarativeValidationTakeover is off
by default, so the handwritten errors are returned, and in 1.36 every ``+k8s:`` validation tag of
``resource.k8s.io/v1`` is ``+k8s:alpha``, which only shadows the handwritten errors.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from dractl.api.releases import RELEASES, Features
from dractl.diagnostics import Severity
from dractl.lint.engine import Settings, lint
from dractl.load import load_text

CLAIM_TEST = "validation_resourceclaim_test.go@045b4933cd3c7a0644bd1efceb7376baa6be7f5f"
TEMPLATE_TEST = "validation_resourceclaimtemplate_test.go@030880a5dc5449403c6d1f0aa146a7dc21d6c6dc"
SLICE_TEST = "validation_resourceslice_test.go@00cb9913ff7c046982e2f7e5a39c2ae0c07239c4"
CLASS_TEST = "validation_deviceclass_test.go@16913111deb1a4c4ff76f4ba7ffd9ebef397a303"

BAD_NAME = "!@#$%^"
DNS_LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
DNS_SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
C_IDENTIFIER = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for "
    "validation is '[A-Za-z_][A-Za-z0-9_]*')"
)
NOT_A_REQUEST = (
    "must be the name of a request in the claim or the name of a request and a subrequest "
    "separated by '/'"
)
NO_DOMAIN_1_35 = "a fully qualified name must be a domain and a name separated by a slash"
NO_SET = "must reference a counterSet defined in the ResourceSlice sharedCounters"
CONSTRAINT_ONE_OF = (
    'exactly one of "matchAttribute" or "distinctAttribute" is required, '
    "but multiple fields are set"
)

Error = tuple[str, str] | tuple[str, str, str]


@dataclass(frozen=True)
class Row:
    id: str
    source: str
    manifest: dict[str, Any]
    # release -> expected errors; a release missing here expects the value of the one before
    errors: dict[str, list[Error]]
    gates: dict[str, bool] = field(default_factory=dict)

    def expected(self, release: str) -> list[Error]:
        known = [
            r for r in RELEASES if r in self.errors and RELEASES.index(r) <= RELEASES.index(release)
        ]
        return self.errors[known[-1]]


# ---- objects ------------------------------------------------------------------------------


def exact(name: str, **fields: Any) -> dict[str, Any]:
    body = {"deviceClassName": "foo", "allocationMode": "ExactCount", "count": 1}
    body.update(fields)
    return {"name": name, "exactly": body}


def opaque_config(requests: list[str] | None = None) -> dict[str, Any]:
    config: dict[str, Any] = {
        "opaque": {
            "driver": "dra.example.com",
            "parameters": {"kind": "foo", "apiVersion": "dra.example.com/v1"},
        }
    }
    if requests is not None:
        config["requests"] = requests
    return config


def claim(devices: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "foo", "namespace": "ns"},
        "spec": {"devices": devices},
    }


def template(devices: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "foo", "namespace": "ns"},
        "spec": {"spec": {"devices": devices}},
    }


def bad_constraints() -> list[dict[str, Any]]:
    """The three invalid constraints of upstream's ``invalid-spec`` and ``invalid-request``."""
    return [
        {"requests": ["foo", BAD_NAME], "matchAttribute": "missing-domain"},
        {"matchAttribute": ""},
        {},
    ]


def spec_errors(prefix: str, release: str) -> list[Error]:
    """What upstream's ``invalid-spec`` expects of the bad constraints and config, per release."""
    c = f"{prefix}.constraints"
    errors: list[Error] = [
        (f"{c}[0].requests[1]", "Invalid value", DNS_LABEL),
        (f"{c}[0].requests[1]", "Invalid value", NOT_A_REQUEST),
        (f"{c}[0].matchAttribute", "Invalid value", C_IDENTIFIER),
        (f"{prefix}.config[0].requests[1]", "Invalid value", DNS_LABEL),
        (f"{prefix}.config[0].requests[1]", "Invalid value", NOT_A_REQUEST),
    ]
    if release == "1.34":
        errors += [
            (f"{c}[0].matchAttribute", "Invalid value", "must include a domain"),
            (f"{c}[1].matchAttribute", "Required value", "name required"),
            (f"{c}[2].matchAttribute", "Required value"),
        ]
    else:
        errors += [
            (f"{c}[0].matchAttribute", "Invalid value", NO_DOMAIN_1_35),
            (f"{c}[1].matchAttribute", "Invalid value", C_IDENTIFIER),
            (f"{c}[1].matchAttribute", "Invalid value", NO_DOMAIN_1_35),
        ]
        if release == "1.35":
            errors.append((f"{c}[2].matchAttribute", "Required value"))
        else:  # DRAConsumableCapacity is beta, on by default
            errors.append((f"{c}[2]", "Required value", CONSTRAINT_ONE_OF))
    return errors


def invalid_request(maker: Any) -> dict[str, Any]:
    """Upstream's ``invalid-request``: 33 requests, 33 constraints and 33 config entries."""
    constraints = bad_constraints() + [{"matchAttribute": "foo/bar"}] * 30
    configs = [opaque_config(["foo", BAD_NAME])] + [opaque_config()] * 32
    requests = [exact("foo")] + [exact(f"foo{i}") for i in range(1, 33)]
    return maker({"requests": requests, "constraints": constraints, "config": configs})


def invalid_request_errors(prefix: str) -> dict[str, list[Error]]:
    too_many = [
        (f"{prefix}.requests", "Too many", "must have at most 32 items"),
        (f"{prefix}.constraints", "Too many", "must have at most 32 items"),
        (f"{prefix}.config", "Too many", "must have at most 32 items"),
    ]
    return {"1.34": too_many + spec_errors(prefix, "1.34"), "1.35": too_many}


def slice_with(devices: list[dict[str, Any]] | None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "driver": "test.example.com",
        "pool": {"name": "foo", "resourceSliceCount": 1},
        "nodeName": "foo",
    }
    if devices is not None:
        body["devices"] = devices
    body.update(spec)
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "foo"},
        "spec": body,
    }


def device(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, **fields}


def device_class(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "foo"},
        "spec": spec,
    }


REQ = "spec.devices.requests"
TREQ = "spec.spec.devices.requests"

ROWS = [
    Row(
        "claim-invalid-request",
        f"{CLAIM_TEST} case 'invalid-request'",
        invalid_request(claim),
        invalid_request_errors("spec.devices"),
    ),
    Row(
        "claim-invalid-spec",
        f"{CLAIM_TEST} case 'invalid-spec'",
        claim(
            {
                "requests": [exact("foo")],
                "constraints": bad_constraints(),
                "config": [opaque_config(["foo", BAD_NAME])],
            }
        ),
        {r: spec_errors("spec.devices", r) for r in RELEASES},
    ),
    Row(
        "template-invalid-request",
        f"after {CLAIM_TEST} case 'invalid-request', in a template ({TEMPLATE_TEST})",
        invalid_request(template),
        invalid_request_errors("spec.spec.devices"),
    ),
    Row(
        # upstream's test validates without defaulting; the apiserver defaults the empty
        # allocationMode to ExactCount, so an unsupported mode is spelled out here
        "claim-prioritized-list-invalid-nested-request",
        f"after {CLAIM_TEST} case 'prioritized-list-invalid-nested-request'",
        claim(
            {
                "requests": [
                    {
                        "name": "foo",
                        "firstAvailable": [
                            {"name": BAD_NAME, "allocationMode": "Sometimes"},
                            {"name": "bar", "deviceClassName": "foo"},
                        ],
                    }
                ]
            }
        ),
        {
            "1.34": [
                (f"{REQ}[0].firstAvailable[0].name", "Invalid value", DNS_LABEL),
                (f"{REQ}[0].firstAvailable[0].deviceClassName", "Required value"),
                (
                    f"{REQ}[0].firstAvailable[0].allocationMode",
                    "Unsupported value",
                    'supported values: "All", "ExactCount"',
                ),
            ]
        },
    ),
    Row(
        "claim-prioritized-list-invalid-nested-request-defaulted",
        f"{CLAIM_TEST} case 'prioritized-list-invalid-nested-request', defaulted",
        claim({"requests": [{"name": "foo", "firstAvailable": [{"name": BAD_NAME}]}]}),
        {
            "1.34": [
                (f"{REQ}[0].firstAvailable[0].name", "Invalid value", DNS_LABEL),
                (f"{REQ}[0].firstAvailable[0].deviceClassName", "Required value"),
            ]
        },
    ),
    Row(
        "claim-too-many-subrequests-with-bad-ones",
        f"after {CLAIM_TEST} case 'prioritized-list-too-many-subrequests'",
        claim(
            {
                "requests": [
                    {
                        "name": "foo",
                        "firstAvailable": [
                            {"name": f"subreq-{i}", "deviceClassName": "foo"} for i in range(8)
                        ]
                        + [{"name": "subreq-0", "deviceClassName": BAD_NAME.lower()}],
                    }
                ]
            }
        ),
        {
            "1.34": [
                (f"{REQ}[0].firstAvailable", "Too many", "must have at most 8 items"),
                (f"{REQ}[0].firstAvailable[8].deviceClassName", "Invalid value"),
                (f"{REQ}[0].firstAvailable[8].name", "Duplicate value"),
            ],
            "1.35": [(f"{REQ}[0].firstAvailable", "Too many", "must have at most 8 items")],
        },
    ),
    Row(
        "claim-duplicate-request-names",
        f"after {CLAIM_TEST} case 'allocation-mode'",
        claim({"requests": [exact("foo"), exact("bar"), exact("foo")]}),
        {
            "1.34": [(f"{REQ}[2].name", "Duplicate value")],
            "1.35": [(f"{REQ}[2]", "Duplicate value")],
        },
    ),
    Row(
        "template-duplicate-subrequest-names",
        f"after {TEMPLATE_TEST} case 'prioritized-list-nested-requests-same-name'",
        template(
            {
                "requests": [
                    {
                        "name": "foo",
                        "firstAvailable": [
                            {"name": "foo", "deviceClassName": "foo"},
                            {"name": "foo", "deviceClassName": "foo"},
                        ],
                    }
                ]
            }
        ),
        {
            "1.34": [(f"{TREQ}[0].firstAvailable[1].name", "Duplicate value")],
            "1.35": [(f"{TREQ}[0].firstAvailable[1]", "Duplicate value")],
        },
    ),
    Row(
        "claim-empty-domain-and-name",
        f"after {CLAIM_TEST} case 'invalid-spec'",
        claim(
            {
                "requests": [exact("foo")],
                "constraints": [{"matchAttribute": "/foo"}, {"matchAttribute": "example.com/"}],
            }
        ),
        {
            "1.34": [
                (
                    "spec.devices.constraints[0].matchAttribute",
                    "Required value",
                    "the domain must not be empty",
                ),
                (
                    "spec.devices.constraints[1].matchAttribute",
                    "Required value",
                    "the name must not be empty",
                ),
            ],
            "1.35": [
                (
                    "spec.devices.constraints[0].matchAttribute",
                    "Invalid value",
                    "the domain must not be empty",
                ),
                (
                    "spec.devices.constraints[1].matchAttribute",
                    "Invalid value",
                    "the name must not be empty",
                ),
            ],
        },
    ),
    Row(
        # the apiserver's switch over the parts of a qualified name has no case for three
        "claim-match-attribute-with-two-slashes",
        f"after {CLAIM_TEST} case 'invalid-spec'",
        claim(
            {"requests": [exact("foo")], "constraints": [{"matchAttribute": "a.example.com/b/c"}]}
        ),
        {"1.34": []},
    ),
    Row(
        # DeviceTolerationsMaxLength is documented but no release checks it
        "claim-seventeen-tolerations",
        f"after {CLAIM_TEST} case 'valid-request'",
        claim(
            {
                "requests": [
                    exact(
                        "foo",
                        tolerations=[
                            {"key": f"example.com/t{i}", "operator": "Exists"} for i in range(17)
                        ],
                    )
                ]
            }
        ),
        {"1.34": []},
        gates={"DRADeviceTaints": True},
    ),
    Row(
        "slice-too-large-with-a-bad-device",
        f"after {SLICE_TEST} case 'too-large'",
        slice_with([device(f"device-{i}") for i in range(128)] + [device("device-0")]),
        {
            "1.34": [
                ("spec.devices", "Too many", "must have at most 128 items"),
                ("spec.devices[128].name", "Duplicate value"),
            ],
            "1.35": [("spec.devices", "Too many", "must have at most 128 items")],
        },
    ),
    Row(
        "slice-bad-attribute-names",
        f"after {SLICE_TEST} cases 'bad-attribute' and 'bad-attribute-c-identifier'",
        slice_with(
            [
                device(
                    "device-0",
                    attributes={BAD_NAME: {"string": "y"}, "x" * 33: {"bool": True}},
                    capacity={"example.com/": {"value": "1"}},
                )
            ]
        ),
        {
            "1.34": [
                (f"spec.devices[0].attributes[{BAD_NAME}]", "Invalid value", C_IDENTIFIER),
                (f"spec.devices[0].attributes[{'x' * 33}]", "Too long"),
                (
                    "spec.devices[0].capacity[example.com/]",
                    "Required value",
                    "the name must not be empty",
                ),
            ],
            "1.35": [
                ("spec.devices[0].attributes", "Invalid value", C_IDENTIFIER),
                ("spec.devices[0].attributes", "Too long", "may not be more than 32 bytes"),
                ("spec.devices[0].capacity", "Invalid value", "the name must not be empty"),
            ],
        },
    ),
    Row(
        "slice-duplicate-counter-sets",
        f"after {SLICE_TEST} case 'duplicate-shared-counters'",
        slice_with(
            None,
            sharedCounters=[
                {"name": "gpu-0", "counters": {"memory": {"value": "1Gi"}}},
                {"name": "gpu-0", "counters": {"memory": {"value": "1Gi"}}},
            ],
        ),
        {
            "1.34": [("spec.sharedCounters[1].name", "Duplicate value")],
            "1.35": [("spec.sharedCounters[1]", "Duplicate value")],
        },
        gates={"DRAPartitionableDevices": True},
    ),
    Row(
        "slice-duplicate-counter-consumption",
        f"after {SLICE_TEST} case 'too-many-device-counter-consumption-for-device'",
        slice_with(
            [
                device(
                    "device-0",
                    consumesCounters=[
                        {"counterSet": "gpu-0", "counters": {"memory": {"value": "1Gi"}}},
                        {"counterSet": "gpu-0", "counters": {"memory": {"value": "1Gi"}}},
                    ],
                )
            ],
        ),
        {
            # 1.34 also checks that a device consumes the counter sets of its own slice
            "1.34": [
                ("spec.devices[0].consumesCounters[1].counterSet", "Duplicate value"),
                ("spec.devices[0].consumesCounters[0].counterSet", "Invalid value", NO_SET),
                ("spec.devices[0].consumesCounters[1].counterSet", "Invalid value", NO_SET),
            ],
            "1.35": [("spec.devices[0].consumesCounters[1]", "Duplicate value")],
        },
        gates={"DRAPartitionableDevices": True},
    ),
    Row(
        "slice-too-many-taints-with-a-bad-one",
        f"after {SLICE_TEST} case 'taints'",
        slice_with(
            [
                device(
                    "device-0",
                    taints=[{"key": f"example.com/t{i}", "effect": "NoSchedule"} for i in range(16)]
                    + [{"key": "example.com/bad", "effect": "Sometimes"}],
                )
            ]
        ),
        {
            "1.34": [
                ("spec.devices[0].taints", "Too many", "must have at most 4 items"),
                ("spec.devices[0].taints[16].effect", "Unsupported value"),
            ],
            "1.35": [("spec.devices[0].taints", "Too many", "must have at most 16 items")],
        },
        gates={"DRADeviceTaints": True},
    ),
    Row(
        "class-too-many-selectors-with-a-bad-one",
        f"after {CLASS_TEST} case 'selectors'",
        device_class(
            {"selectors": [{"cel": {"expression": "true"}}] * 32 + [{}]},
        ),
        {
            "1.34": [
                ("spec.selectors", "Too many", "must have at most 32 items"),
                ("spec.selectors[32].cel", "Required value"),
            ],
            "1.35": [("spec.selectors", "Too many", "must have at most 32 items")],
        },
    ),
    Row(
        # upstream's status test 'configuration' expects both errors for `driver: ""` (1.33
        # development); validation_deviceclass_test.go@16913111 expects `Required` alone
        "class-config-empty-driver",
        f"after {CLAIM_TEST} TestValidateClaimStatusUpdate case 'configuration' and {CLASS_TEST}",
        device_class(
            {"config": [{"opaque": {"driver": "", "parameters": {"kind": "foo"}}}]},
        ),
        {
            "1.34": [
                ("spec.config[0].opaque.driver", "Required value"),
                ("spec.config[0].opaque.driver", "Invalid value", DNS_SUBDOMAIN),
            ],
            "1.35": [("spec.config[0].opaque.driver", "Required value")],
        },
    ),
    Row(
        "class-too-many-config-with-a-bad-one",
        f"after {CLASS_TEST} case 'configuration'",
        device_class({"config": [opaque_config()] * 32 + [{}]}),
        {
            "1.34": [
                ("spec.config", "Too many", "must have at most 32 items"),
                ("spec.config[32].opaque", "Required value"),
            ],
            "1.35": [("spec.config", "Too many", "must have at most 32 items")],
        },
    ),
]

CASES = [
    pytest.param(row, release, id=f"{row.id}-{release}") for row in ROWS for release in RELEASES
]


def _errors(row: Row, release: str) -> list[Any]:
    loaded = load_text(json.dumps(row.manifest), f"{row.id}.yaml")
    result = lint(loaded, Settings(features=Features(release, row.gates)))
    return [d for d in result.diagnostics if d.severity is Severity.ERROR and d.type]


@pytest.mark.parametrize(("row", "release"), CASES)
def test_error_list(row: Row, release: str) -> None:
    errors = _errors(row, release)
    want = row.expected(release)
    got = Counter((d.field, d.type) for d in errors)
    assert got == Counter(e[:2] for e in want), "\n".join(d.message for d in errors)
    for expected in want:
        if len(expected) == 3:
            bodies = [d.message for d in errors if (d.field, d.type) == expected[:2]]
            assert any(b.endswith(": " + expected[2]) for b in bodies), (expected, bodies)


def test_every_row_names_its_source() -> None:
    for row in ROWS:
        assert ".go@" in row.source, row.id
