"""Fields of disabled feature gates are dropped before validation, as the registry strategies do."""

from __future__ import annotations

from dractl.api.paths import Key
from dractl.api.releases import Features
from dractl.api.validation import check_create, drop_disabled_fields

SLICE = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceSlice",
    "metadata": {"name": "s"},
    "spec": {
        "driver": "gpu.example.com",
        "perDeviceNodeSelection": True,
        "pool": {"name": "p", "resourceSliceCount": 1},
        "devices": [
            {
                "name": "gpu-0",
                "nodeName": "node-1",
                "attributes": {"cores": {"ints": [1, 2]}},
                "capacity": {"memory": {"value": "1Gi", "requestPolicy": {"default": "1Gi"}}},
                "nodeAllocatableResourceMappings": {"cpu": {"capacityKey": "cores"}},
            }
        ],
    },
}


def test_dropped_fields_and_their_gates_in_1_35() -> None:
    pruned, dropped = drop_disabled_fields("ResourceSlice", SLICE, Features("1.35"))
    assert [(d.path, d.gate) for d in dropped] == [
        (("spec", "perDeviceNodeSelection"), "DRAPartitionableDevices"),
        (("spec", "devices", 0, "nodeName"), "DRAPartitionableDevices"),
        (
            ("spec", "devices", 0, "capacity", Key("memory"), "requestPolicy"),
            "DRAConsumableCapacity",
        ),
    ]
    assert all(d.default_on_in == "1.36" for d in dropped)
    # list attributes and node-allocatable mappings do not exist before 1.36: not dropped here
    # (the schema check reports them as unknown fields)
    assert pruned["spec"]["devices"][0]["attributes"] == {"cores": {"ints": [1, 2]}}
    assert "perDeviceNodeSelection" in SLICE["spec"], "the input is not modified"


def test_alpha_gates_of_1_36() -> None:
    _, dropped = drop_disabled_fields("ResourceSlice", SLICE, Features("1.36"))
    assert [(d.path, d.gate, d.default_on_in) for d in dropped] == [
        (
            ("spec", "devices", 0, "nodeAllocatableResourceMappings"),
            "DRANodeAllocatableResources",
            None,
        ),
        (("spec", "devices", 0, "attributes", Key("cores"), "ints"), "DRAListTypeAttributes", None),
    ]


def test_what_is_left_is_validated() -> None:
    result = check_create("ResourceSlice", SLICE, Features("1.36"))
    # `ints` is dropped, which leaves the attribute without a value; the request policy stays
    # (DRAConsumableCapacity is on) but the device does not allow multiple allocations
    assert sorted(str(e) for e in result.errors) == [
        'spec.devices[0].attributes[cores]: Invalid value: "": exactly one value must be specified',
        "spec.devices[0].capacity[memory].requestPolicy: Forbidden: allowMultipleAllocations must "
        "be true",
    ]


def test_binding_conditions_need_two_gates() -> None:
    device = {"name": "d", "bindsToNode": True}
    slice_ = {"spec": {"nodeName": "n", "devices": [device]}}
    on = Features("1.36")
    _, dropped = drop_disabled_fields("ResourceSlice", slice_, on)
    assert dropped == []
    off = Features("1.36", {"DRAResourceClaimDeviceStatus": False})
    _, dropped = drop_disabled_fields("ResourceSlice", slice_, off)
    assert [(d.path, d.gate) for d in dropped] == [
        (("spec", "devices", 0, "bindsToNode"), "DRAResourceClaimDeviceStatus")
    ]


def test_template_requests_are_one_level_deeper() -> None:
    template = {
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "r",
                            "firstAvailable": [
                                {"name": "a", "deviceClassName": "c", "tolerations": [{"key": "k"}]}
                            ],
                        }
                    ]
                }
            }
        }
    }
    _, dropped = drop_disabled_fields(
        "ResourceClaimTemplate", template, Features("1.34", {"DRAPrioritizedList": False})
    )
    # sub-requests go first, so their tolerations are not reported as well
    assert [(d.path, d.gate) for d in dropped] == [
        (("spec", "spec", "devices", "requests", 0, "firstAvailable"), "DRAPrioritizedList")
    ]
