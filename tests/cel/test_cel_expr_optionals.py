"""Optional values the default engine's Python functions would receive: upstream's answers, no crash.

cel-expr-python ends the process when an optional reaches a Python function (equality of
optionals that may hold library values, ``dyn`` operands holding an optional). The rows run in a
child process, so such a crash fails these tests instead of ending the test run. Expected
answers are upstream's (Kubernetes 1.36, StoredExpressions) on the device of
test_cel_expr_runtime_errors.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from dractl.cel import CelCompileError, compile_selector
from dractl.cel.engines import DEFAULT_ENGINE

ROWS: list[tuple[str, object]] = [
    ('format.dns1123Label().validate("x") == optional.none()', True),
    ('format.dns1123Label().validate("X_") != optional.none()', True),
    ('format.named("dns1123Label") != optional.none()', True),
    ('format.named("dns1123Label").value().validate("a").hasValue()', False),
    ('dyn(optional.of(1)) == dyn(1)', False),
    ('dyn(optional.of(1)) != dyn(1)', True),
    ('dyn(optional.of(1)) in [1]', False),
    ('[dyn(optional.of(1))] == [dyn(1)]', False),
    ("{'a': dyn(optional.of(1))} == {'a': dyn(1)}", False),
    ("dyn(optional.of(1)) in {'a': 1}", False),
    ('string(dyn(optional.of(1))) == ""', ('runtime', 'no such overload: string(optional_type)')),
    ('size(dyn(optional.of(1))) == 0', ('runtime', 'no such overload: size')),
    ('dyn(optional.of(1)).reverse() == []', ('runtime', 'no such overload: reverse(optional_type)')),
    ('quantity(dyn(optional.of("1"))) == quantity("1")', ('runtime', 'no such overload: quantity(optional_type)')),
    ('dyn(optional.of(1)).isGreaterThan(quantity("1"))', ('runtime', 'no such overload: isGreaterThan(optional_type, kubernetes.Quantity)')),
    ('dyn(device.attributes["gpu.example.com"].?model) == dyn("İstanbul")', False),
    ('device.capacity["gpu.example.com"].?memory == optional.of(quantity("4000G"))', True),
    ('device.capacity["gpu.example.com"].?memory != optional.of(quantity("4T"))', False),
    ('device.capacity["gpu.example.com"].?slots == optional.none()', True),
    ('device.attributes["gpu.example.com"].?driverVersion == optional.of(semver("0.0.1"))', True),
    ('optional.of(quantity("1")) == optional.of(quantity("1000m"))', True),
    ('dyn(optional.of(1)).distinct().size() == 1', ('runtime', 'internal error: interface conversion: *types.Optional is not traits.Lister: missing method Add')),
    ('dyn([1].first()) == dyn(1)', False),
    ('dyn(optional.of(1)).includes(1)', False),
    # A list or map holding an optional on its way to a Python function: cel-expr-python cannot
    # hand it over, cel-python runs the expression.
    ("dyn({'a': optional.of(1)}).isSorted()", ('runtime', 'no such overload: isSorted(map)')),
    ("dyn({'a': optional.of(1)}) == dyn(quantity('1'))", False),
    ("[dyn(optional.of(1))].isSorted()", ('runtime', 'no such overload: isSorted(list)')),
    ("[[optional.of(1)]].exists(x, dyn(x) == dyn(1))", False),
    ("[dyn([optional.of(1)])].exists(x, x == dyn(1))", False),
    ("cel.bind(m, {'a': optional.of(1)}, dyn(m) == dyn(1))", False),
    ("[1, 2].map(x, optional.of(x)).exists(y, dyn([y]) == dyn(1))", False),
    ("[1, 2].map(x, optional.of(x)).exists(y, dyn([y]) == dyn([optional.of(2)]))", True),
    # indexOf(list(A), A) of optionals, which cel-expr-python cannot declare.
    ("[optional.of(1)].indexOf(optional.of(1)) == 0", True),
    ("[optional.of(1), optional.of(1)].lastIndexOf(optional.of(1)) == 1", True),
]

_CHILD = """
import json, sys
from dractl.cel import CelRuntimeError, compile_selector
sys.path.insert(0, sys.argv[1])
from test_cel_expr_runtime_errors import DEVICE
for expression in json.loads(sys.stdin.read()):
    selector = compile_selector(expression, release="1.36", purpose="stored", engine=sys.argv[2])
    try:
        answer = selector.evaluate(DEVICE)
    except CelRuntimeError as exc:
        answer = ["runtime", exc.message]
    print(json.dumps([expression, answer]), flush=True)
"""


@pytest.fixture(scope="module")
def answers() -> tuple[dict[str, Any], str]:
    """Each row's answer from a child process, and how the child ended."""
    from pathlib import Path

    done = subprocess.run([sys.executable, "-c", _CHILD, str(Path(__file__).parent), DEFAULT_ENGINE],
                          input=json.dumps([row[0] for row in ROWS]), capture_output=True, text=True, timeout=300,
                          check=False)
    found = dict(json.loads(line) for line in done.stdout.splitlines() if line.strip())
    return found, f"exit status {done.returncode}: {done.stderr.strip()[-500:]}"


@pytest.mark.parametrize(("expression", "expected"), ROWS, ids=[row[0] for row in ROWS])
def test_optional_reaching_python_gives_upstreams_answer(answers: tuple[dict[str, Any], str], expression: str,
                                                         expected: object) -> None:
    found, ending = answers
    assert expression in found, f"the engine's process ended before or at this row ({ending})"
    assert found[expression] == (list(expected) if isinstance(expected, tuple) else expected)


def test_validate_returns_an_optional_of_a_list_of_strings() -> None:
    with pytest.raises(CelCompileError) as caught:
        compile_selector('format.dns1123Label().validate("x").value()[0] + 1 == 2', release="1.36",
                         purpose="stored", engine=DEFAULT_ENGINE)
    assert caught.value.detail == (
        "compilation failed: ERROR: <input>:1:48: found no matching overload for '_+_' applied to '(string, int)'\n"
        ' | format.dns1123Label().validate("x").value()[0] + 1 == 2\n'
        " | ...............................................^")


#: Expressions that make optionals but hand Python nothing holding one: cel-cpp runs them.
RUN_BY_CEL_CPP = [
    '[optional.of(1)].exists(x, dyn(x) == dyn(1))',
    'cel.bind(d, device.attributes["gpu.example.com"], d.model == "a") || optional.of(1).hasValue()',
    'device.attributes["gpu.example.com"].exists(k, v, v == "one") || format.named("date").hasValue()',
    "[optional.of(1)] == [optional.of(1)]",
]


@pytest.mark.parametrize("expression", RUN_BY_CEL_CPP)
def test_optionals_python_never_sees_are_run_by_cel_cpp(expression: str) -> None:
    selector = compile_selector(expression, release="1.36", purpose="stored", engine=DEFAULT_ENGINE)
    assert type(selector._program).__name__ != "_FallbackProgram"
