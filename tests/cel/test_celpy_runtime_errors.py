"""The cel-python engine's runtime errors carry cel-go's texts.

Expected texts are the upstream DRA compiler's answers (Kubernetes 1.36) on a device whose
``numa`` attribute is an int and ``model`` a string, with no attribute ``nope``.
"""

from __future__ import annotations

import pytest

from dractl.cel import CelDevice, CelRuntimeError, compile_selector

A = 'device.attributes["gpu.example.com"]'
DEVICE = CelDevice(driver="gpu.example.com",
                   attributes={"numa": {"int": 1}, "model": {"string": "A100"}},
                   capacity={"memory": {"value": "1Gi"}})

ROWS = [
    # a function declared with typed overloads names itself and the argument types
    (f"{A}.numa.charAt(0) == ''", "no such overload: charAt(int, int)"),
    (f"{A}.numa.replace('a', 'b') == ''", "no such overload: replace(int, string, string)"),
    (f"{A}.model.isGreaterThan(semver('1.0.0'))", "no such overload: isGreaterThan(string, kubernetes.Semver)"),
    (f"semver('1.0.0').compareTo({A}.numa) == 0", "no such overload: compareTo(kubernetes.Semver, int)"),
    (f"sets.contains({A}.numa, [1])", "no such overload: sets.contains(int, list)"),
    (f"isURL({A}.numa)", "no such overload: isURL(int)"),
    (f"{A}.numa.sort().size() == 1", "no such overload: sort"),
    (f"{A}.numa.flatten().size() == 1", "no such overload: int.flatten()"),
    # the standard library's functions and operators do not
    (f"{A}.numa.startsWith('a')", "no such overload"),
    (f"{A}.numa.find('a') == ''", "no such overload"),
    (f"{A}.numa + 1u > 0u", "no such overload"),
    (f"{A}.numa ? true : false", "no such overload"),
    # an operand's error is the result
    (f"{A}.nope ? true : false", "no such key: nope"),
    (f"{A}.numa * {A}.nope >= 0", "no such key: nope"),
    (f"6 / {A}.nope > 0", "no such key: nope"),
    ("-9223372036854775807 - 1 / 0 != 1", "division by zero"),
]


@pytest.mark.parametrize(("expression", "expected"), ROWS, ids=[row[0] for row in ROWS])
def test_runtime_error_text(expression: str, expected: str) -> None:
    selector = compile_selector(expression, release="1.36", purpose="stored", engine="cel-python")
    with pytest.raises(CelRuntimeError) as raised:
        selector.evaluate(DEVICE)
    assert raised.value.message == expected
