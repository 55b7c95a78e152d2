"""Field errors print like the apiserver's; opaque parameters are sized like kubectl's JSON."""

from __future__ import annotations

import pytest

from dractl.api.paths import Key
from dractl.api.releases import Features
from dractl.api.validation import check_create
from dractl.api.validation.common import go_json, truncate_if_too_long
from dractl.api.validation.errors import (
    Topic,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
)

T = Topic.REQUIRED


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (
            required(("spec", "devices", "requests", 0, "exactly", "deviceClassName"), T),
            "spec.devices.requests[0].exactly.deviceClassName: Required value",
        ),
        (
            invalid(
                ("spec", "devices", "requests", 2, "exactly", "count"),
                -1,
                "must be greater than zero",
                T,
            ),
            "spec.devices.requests[2].exactly.count: Invalid value: -1: must be greater than zero",
        ),
        (
            not_supported(("x",), "other", ["All", "ExactCount"], T),
            'x: Unsupported value: "other": supported values: "All", "ExactCount"',
        ),
        (
            invalid(("spec", "devices", "requests", 0), None, "exactly one", T),
            "spec.devices.requests[0]: Invalid value: null: exactly one",
        ),
        (too_many(("a",), 9, 8), "a: Too many: 9: must have at most 8 items"),
        (too_many(("a",), 2, 1), "a: Too many: 2: must have at most 1 item"),
        (too_long(("a",), 10240), "a: Too long: may not be more than 10240 bytes"),
        (duplicate(("spec", "devices", 1), "gpu-0"), 'spec.devices[1]: Duplicate value: "gpu-0"'),
        (forbidden(("p",), "too complex", T), "p: Forbidden: too complex"),
        (
            invalid(("spec", "devices", 0, "attributes", Key("a/b")), 'say "hi"\n', "bad", T),
            'spec.devices[0].attributes[a/b]: Invalid value: "say \\"hi\\"\\n": bad',
        ),
        (invalid(("b",), True, "x", T), "b: Invalid value: true: x"),
    ],
)
def test_error_text(error: object, text: str) -> None:
    assert str(error) == text


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        ({"b": 1, "a": [True, None, 1.5]}, '{"a":[true,null,1.5],"b":1}'),
        ({"html": "<a&b>"}, '{"html":"\\u003ca\\u0026b\\u003e"}'),
        ({"x": 1.0}, '{"x":1}'),
        ({"x": 1e21}, '{"x":1e+21}'),
        ({"x": 1e-7}, '{"x":1e-7}'),
        ({"x": 123456789.0}, '{"x":123456789}'),
        ({"ü": "ö"}, '{"ü":"ö"}'),
    ],
)
def test_go_json(value: object, encoded: str) -> None:
    assert go_json(value) == encoded


def _class_with_parameters(parameters: object) -> dict[str, object]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu.example.com"},
        "spec": {"config": [{"opaque": {"driver": "gpu.example.com", "parameters": parameters}}]},
    }


@pytest.mark.parametrize(("size", "too_long_"), [(10240, False), (10241, True)])
def test_opaque_parameters_limit_counts_compact_json_bytes(size: int, too_long_: bool) -> None:
    # {"s":"<...>"}: 8 bytes of JSON around the string; each "<" is sent as \u003c (6 bytes)
    body = "<" + "x" * (size - 8 - 6)
    parameters = {"s": body}
    assert len(go_json(parameters)) == size
    errors = check_create(
        "DeviceClass", _class_with_parameters(parameters), Features("1.36")
    ).errors
    assert [str(e) for e in errors] == (
        ["spec.config[0].opaque.parameters: Too long: may not be more than 10240 bytes"]
        if too_long_
        else []
    )


def test_long_map_keys_are_shortened_in_the_path() -> None:
    key = "x" * 64 + "/" + "y" * 33
    assert truncate_if_too_long(key, 96) == "x" * 47 + "..." + key[-46:]
    assert truncate_if_too_long("short", 96) == "short"
