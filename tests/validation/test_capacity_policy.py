"""Capacity request policies, including the DRAFractionalCapacityRange behaviour of 1.37.

dractl models releases up to 1.36, where that gate does not exist; validation still follows it
when a gate set says it is on, which is how upstream's fractional test case is checked here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from dractl.api.defaults import apply_defaults
from dractl.api.releases import Features
from dractl.api.validation import check_create

CASE = Path(__file__).parents[1] / "conformance" / "validation"
FRACTIONAL = CASE / "resourceslice-054-consumable-capacity-fractional.yaml"


class WithFractionalCapacity:
    """Kubernetes 1.36 gates plus DRAFractionalCapacityRange (a 1.37 development gate)."""

    release = "1.36"

    def __init__(self, fractional: bool) -> None:
        self._base = Features("1.36", {"DRAConsumableCapacity": True})
        self._fractional = fractional

    def enabled(self, gate: str) -> bool:
        if gate == "DRAFractionalCapacityRange":
            return self._fractional
        return self._base.enabled(gate)


def _errors(fractional: bool) -> list[str]:
    _header, obj = YAML(typ="safe").load_all(FRACTIONAL.read_text())
    data = apply_defaults(obj["kind"], obj)
    return sorted(
        str(e) for e in check_create(obj["kind"], data, WithFractionalCapacity(fractional)).errors
    )  # type: ignore[arg-type]


def test_fractional_gate_on_matches_upstream_exactly() -> None:
    header = next(iter(YAML(typ="safe").load_all(FRACTIONAL.read_text())))
    expected = sorted(
        f"{e['field']}: {e['type']}" + (f": {e['detail']}" if "detail" in e else "")
        for e in header["expect"]["errors"]
    )
    got = sorted(_strip_value(line) for line in _errors(True))
    assert got == expected


def test_fractional_gate_off_compares_integers() -> None:
    errors = _errors(False)
    # 9900m and 10 both round up to 10 and are duplicates; no milli-value overflow check
    assert (
        'spec.devices[8].capacity[a].requestPolicy.validValues[1]: Duplicate value: "10"' in errors
    )
    assert not any("milli value" in e for e in errors)


def _strip_value(line: str) -> str:
    """Upstream's expectations give field, type and detail; drop the printed value."""
    field, _, rest = line.partition(": ")
    kind, _, tail = rest.partition(": ")
    if kind in ("Invalid value", "Duplicate value") and tail:
        _, _, detail = tail.partition(": ")
        return f"{field}: {kind}" + (f": {detail}" if detail else "")
    return line


def _device_errors(capacity: dict[str, object]) -> list[str]:
    device = {"name": "d", "allowMultipleAllocations": True, "capacity": {"a": capacity}}
    obj = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "foo"},
        "spec": {
            "nodeName": "foo",
            "driver": "test.example.com",
            "pool": {"name": "foo", "resourceSliceCount": 1},
            "devices": [device],
        },
    }
    data = apply_defaults("ResourceSlice", obj)
    result = check_create("ResourceSlice", data, WithFractionalCapacity(False))  # type: ignore[arg-type]
    return [str(e) for e in result.errors]


POLICY = "spec.devices[0].capacity[a].requestPolicy"


@pytest.mark.parametrize(
    ("capacity", "expected"),
    [
        # Quantity.Add: a zero min takes the step's format, so one step prints as the step does
        (
            {"value": "512Mi", "requestPolicy": {"default": "0", "validRange": {"min": "0", "step": "1Gi"}}},
            [f'{POLICY}.validRange.step: Invalid value: "1Gi": one step 1Gi is larger than capacity value: 512Mi'],
        ),
        (
            {"value": "512Mi", "requestPolicy": {"default": "1Mi", "validRange": {"min": "1Mi", "step": "1Gi"}}},
            [f'{POLICY}.validRange.step: Invalid value: "1Gi": one step 1025Mi is larger than capacity value: 512Mi'],
        ),
        # ParseQuantity caps a binary-SI amount at the int64 maximum: 9Ei and 8Ei read the same
        ({"value": "8Ei", "requestPolicy": {"default": "9Ei", "validValues": ["9Ei"]}}, []),
        (
            {"value": "8Ei", "requestPolicy": {"default": "10E", "validValues": ["10E"]}},
            [
                f'{POLICY}.validValues[0]: Invalid value: "10E": option is larger than capacity value: '
                "9223372036854775807"
            ],
        ),
    ],
)
def test_policy_quantities_as_upstream_reads_and_adds_them(capacity: dict[str, object], expected: list[str]) -> None:
    assert _device_errors(capacity) == expected
