"""The examples of the CEL reference on its sample device, per engine."""

from __future__ import annotations

from typing import Any

import pytest

from dractl.cel import CelCompileError, CelDevice, CelRuntimeError, compile_selector
from dractl.cel.engines import ENGINES, FALLBACK_ENGINE

A = 'device.attributes["gpu.example.com"]'
C = 'device.capacity["gpu.example.com"]'

SAMPLE = CelDevice(
    driver="gpu.example.com",
    attributes={
        "model": {"string": "A100"},
        "cores": {"int": 108},
        "ecc": {"bool": True},
        "driverVersion": {"version": "1.2.3"},
        "other.example.com/numa": {"int": 0},
    },
    capacity={"memory": {"value": "40Gi"}},
)

# (expression, expected): True/False, ("runtime", message), ("compile", message part)
EXAMPLES = [
    ('device.driver == "gpu.example.com"', True),
    (f'{A}.model == "A100"', True),
    (f'{A}["cores"] >= 100', True),
    (f"{A}.ecc", True),
    (f'{A}.driverVersion.isGreaterThan(semver("1.0.0"))', True),
    (f"{A}.driverVersion.major() == 1 && {A}.driverVersion.minor() >= 2", True),
    (f'{C}.memory.compareTo(quantity("32Gi")) >= 0', True),
    (f'{C}.memory == quantity("40960Mi")', True),
    ('device.attributes["other.example.com"].numa == 0', True),
    ('"nosuch.example.com" in device.attributes', False),
    ('device.attributes["nosuch.example.com"].x == 1', ("runtime", "no such key: x")),
    (f'{A}.missing == "x"', ("runtime", "no such key: missing")),
    (f'"missing" in {A} || {A}.cores > 200', False),
    (f'{A}.?missing.orValue("none") == "none"', True),
    (f'{A}.model.matches("^A1")', True),
    ('cel.bind(g, device.attributes["gpu.example.com"], g.ecc && g.cores > 64)', True),
    (f"{A}.cores > 100.5", True),
    (f"{A}.model > 5", ("runtime", "no such overload")),
    ("1", ("compile", "must evaluate to bool or the unknown type, not int")),
    ("?!", ("compile", "Syntax error")),
    ("device.allowMultipleAllocations", ("compile", "undefined field 'allowMultipleAllocations'")),
    (
        f"{A}.model",
        ("runtime", "CEL result of type string could not be converted to bool: "
         "unsupported native conversion from string to 'bool'"),
    ),
]


# What the fallback engine cannot do, per example; strict, so a fixed gap shows up.
FALLBACK_GAPS: dict[str, str] = {}


def _examples() -> list[Any]:
    params = []
    for engine in ENGINES:
        for expression, expected in EXAMPLES:
            marks = []
            if engine == FALLBACK_ENGINE and expression in FALLBACK_GAPS:
                marks.append(pytest.mark.xfail(reason=FALLBACK_GAPS[expression], strict=True))
            params.append(pytest.param(engine, expression, expected, id=f"{engine}-{expression}", marks=marks))
    return params


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.parametrize(("engine", "expression", "expected"), _examples())
def test_reference_examples(engine: str, expression: str, expected: object) -> None:
    if isinstance(expected, tuple) and expected[0] == "compile":
        with pytest.raises(CelCompileError) as caught:
            compile_selector(expression, release="1.34", purpose="new", engine=engine)
        assert expected[1] in caught.value.detail
        return
    selector = compile_selector(expression, release="1.34", purpose="new", engine=engine)
    if isinstance(expected, tuple):
        with pytest.raises(CelRuntimeError) as raised:
            selector.evaluate(SAMPLE)
        assert raised.value.message == expected[1]
    else:
        assert selector.evaluate(SAMPLE) is expected


def test_allow_multiple_allocations_is_false_at_runtime_for_stored_expressions(engine: str) -> None:
    selector = compile_selector("device.allowMultipleAllocations", release="1.34", purpose="stored", engine=engine)
    assert selector.evaluate(SAMPLE) is False
    device = CelDevice(driver="d", allow_multiple_allocations=True)
    assert selector.evaluate(device) is True


def test_allow_multiple_allocations_compiles_with_the_gate(engine: str) -> None:
    selector = compile_selector(
        "device.allowMultipleAllocations", release="1.34",
        gates={"DRAConsumableCapacity": True}, purpose="new", engine=engine,
    )
    assert selector.evaluate(SAMPLE) is False


def test_compile_errors_carry_positions(engine: str) -> None:
    with pytest.raises(CelCompileError) as caught:
        compile_selector("device.nosuch == 1", release="1.35", engine=engine)
    (error,) = caught.value.errors
    assert (error.line, error.column) == (1, 7)
    assert error.message == "undefined field 'nosuch'"


def test_compiled_selectors_are_cached() -> None:
    first = compile_selector("device.driver == 'x'", release="1.36")
    assert compile_selector("device.driver == 'x'", release="1.36") is first
    other_gate = compile_selector("device.driver == 'x'", release="1.36", gates={"DRAListTypeAttributes": True})
    assert other_gate is not first


def test_device_is_converted_once_per_engine(engine: str) -> None:
    device = CelDevice(driver="gpu.example.com", attributes={"model": {"string": "A100"}})
    first = compile_selector(f'{A}.model == "A100"', release="1.35", engine=engine)
    second = compile_selector(f'{A}.model != "H100"', release="1.35", engine=engine)
    assert first.evaluate(device) and second.evaluate(device)
    converted = dict(device._engine_values)
    assert converted and all(key[0] == engine for key in converted)
    third = compile_selector(f'{A}.model.startsWith("A")', release="1.35", engine=engine)
    assert third.evaluate(device) and first.evaluate(device)
    assert device._engine_values == converted


def test_bad_version_attribute_fails_every_selector_as_upstream(engine: str) -> None:
    device = CelDevice(driver="d", attributes={"v": {"version": "1.2"}})
    selector = compile_selector("true", release="1.34", engine=engine)
    with pytest.raises(CelRuntimeError) as raised:
        selector.evaluate(device)
    assert raised.value.message == "attribute v: parse semantic version: No Major.Minor.Patch elements found"
