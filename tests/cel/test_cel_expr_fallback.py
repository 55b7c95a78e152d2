"""Map keys cel-cpp cannot hold, and what else the default engine hands to cel-python.

cel-go keys a map by any value Go can hash (a list or map by its pointer, a double, an optional,
a quantity ...); cel-cpp's maps take only bool, int, uint and string keys. Expected answers are
upstream's (the Kubernetes 1.36 DRA compiler, StoredExpressions, DRAListTypeAttributes on) on
the device below; both engines must give them.
"""

from __future__ import annotations

import pytest

from dractl.cel import CelCompileError, CelDevice, CelRuntimeError, compile_selector
from dractl.cel.engines import DEFAULT_ENGINE, ENGINES, engine_available

DEVICE = CelDevice(
    driver="gpu.example.com",
    attributes={"model": {"string": "a"}, "cores": {"int": 7}, "ids": {"ints": [1, 2]}},
    capacity={},
)
GATES = {"DRAConsumableCapacity": True, "DRAListTypeAttributes": True}

ROWS: list[tuple[str, object]] = [
    ('device.attributes["gpu.example.com"].transformMapEntry(k, v, {v: k}).size() == 3', True),
    ('device.attributes["gpu.example.com"].transformMapEntry(k, v, {v: k}).exists(k, type(k) == list)', True),
    ('device.attributes["gpu.example.com"].transformMapEntry(k, v, {v: k}).exists(k, type(k) == list && k[1] == 2)', True),
    ('device.attributes["gpu.example.com"].transformMap(k, v, v).size() == 3', True),
    ('device.attributes["gpu.example.com"].exists(k, v, v == [1, 2])', True),
    ('{[1]: 2}.size() == 1', True),
    ('[1] in {[1]: 2}', False),
    ('cel.bind(l, [1], l in {l: 2})', True),
    ('cel.bind(m, {[1]: 2}, m == m)', True),
    ('{[1]: 2} == {[1]: 2}', False),
    ('{1.5: 2}[1.5] == 2', True),
    ('dyn({1.0: 2})[1] == 2', ('runtime', 'no such key: 1')),
    ('{{1: 2}: 3}.size() == 1', True),
    ('{[1]: 2, [1]: 3}.size() == 2', True),
    ('[[1], [1]].transformMapEntry(i, v, {v: i}).size() == 2', True),
    ('{quantity("1"): 1}[quantity("1")] == 1', ('runtime', 'invalid qualifier type: cel.Quantity')),
    ('{optional.of(1): 1}.size() == 1', True),
    ('cel.bind(l, [1], {l: 2}[l] == 2)', ('runtime', 'invalid qualifier type: *types.baseList')),
    ('{semver("1.0.0"): 1}.size() == 1', ('runtime', 'internal error: runtime error: hash of unhashable type cel.Semver')),
    ('{[1]: 2}[[1]] == 2', ('compile', 'program instantiation failed: invalid qualifier type: *types.baseList')),
    ('{1.5: 2}.size() == 1 || device.attributes["gpu.example.com"].model == "b"', True),
    ('{1.5: 2}.size() == 2 && device.attributes["gpu.example.com"].model == "a"', False),
    ('[1].map(x, {[x]: x}).size() == 1', True),
    ('device.attributes["gpu.example.com"].ids.transformMapEntry(i, v, {v: i}).size() == 2', True),
    ('device.attributes["gpu.example.com"].ids.transformMapEntry(i, v, {double(v): i})[1.0] == 0', True),
    # A device map handed on as a whole keeps upstream's empty-map default for a missing domain,
    # except where cel.bind makes the device's empty map (no capacity here) a new mutable map.
    ('cel.bind(m, device.capacity, m[device.driver].size() > 0)', ('runtime', 'no such key: gpu.example.com')),
    ("cel.bind(m, device.capacity, m['missing.example.com'].size() <= 0)", ('runtime', 'no such key: missing.example.com')),
    ("dyn(device.capacity)['missing.example.com'].size() == 0", True),
    ("cel.bind(m, dyn(device.capacity), m['missing.example.com'].size() == 0)", ('runtime', 'no such key: missing.example.com')),
    ("[device.capacity][0]['x'].size() == 0", True),
    ("cel.bind(m, device.attributes, m['x'].size() == 0)", True),
    ('cel.bind(m, device.capacity, m.size() == 0)', True),
    ("cel.bind(m, device.capacity, 'x' in m)", False),
    # Keys as Go compares them: an int and a uint are two keys (found across the two types), 0 and
    # "" never meet, two quantities are two pointers.
    ("{dyn(1): 'a', dyn(1u): 'b'}.size() == 2", True),
    ("{dyn(1): 'a', dyn(1u): 'b'}[1] == 'a'", True),
    ("{dyn(1): 'a', dyn(1u): 'b'}[1u] == 'b'", True),
    ("{dyn(0): 'a', dyn(''): 'b'}.size() == 2", True),
    ("{dyn(0): 'a', dyn(''): 'b'}[''] == 'b'", True),
    ("{dyn(1): 'a', dyn(true): 'b'}.size() == 2", True),
    ("{dyn(1): 'a'}[1.0] == 'a'", True),
    ("{dyn(1u): 'a'}[1] == 'a'", True),
    ("dyn({1: 'a'}) == dyn({1u: 'a'})", True),
    ("{quantity('1'): 1, quantity('1'): 2}.size() == 2", True),
    ("cel.bind(q, quantity('1'), {q: 1, q: 2}.size() == 1)", True),
    # upstream's outer maps answer every missing key, of any type, with an empty map
    ('device.attributes[?dyn(1)].hasValue()', True),
    ('device.attributes[dyn(1)].size() == 0', True),
    ('device.capacity[?dyn(1.5)].hasValue()', True),
    ('device.attributes[?dyn([1])].hasValue()', ('compile', 'program instantiation failed: invalid qualifier type: *types.baseList')),
]

#: Typical selectors: cel-cpp runs them alone, cel-python is never asked.
TYPICAL = [
    'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a"',
    'device.attributes["gpu.example.com"].transformMapEntry(k, v, {k: v}).size() == 3',
    '{1: 2}[1] == 2',
    'device.attributes["gpu.example.com"].ids.exists(x, x == 2)',
]


def answer_on_the_device(expression: str, engine: str) -> object:
    """The value, or (\"compile\"|\"runtime\", message), of ``expression`` on DEVICE."""
    try:
        selector = compile_selector(expression, release="1.36", gates=GATES, purpose="stored", engine=engine)
    except CelCompileError as exc:
        return ("compile", exc.detail)
    try:
        return selector.evaluate(DEVICE)
    except CelRuntimeError as exc:
        return ("runtime", exc.message)


@pytest.mark.parametrize("engine", [e for e in ENGINES if engine_available(e)])
@pytest.mark.parametrize(("expression", "expected"), ROWS, ids=[row[0] for row in ROWS])
def test_map_keys_as_upstream_holds_them(engine: str, expression: str, expected: object) -> None:
    assert answer_on_the_device(expression, engine) == expected


@pytest.mark.skipif(not engine_available(DEFAULT_ENGINE), reason="cel-expr-python is not installed")
@pytest.mark.parametrize("expression", TYPICAL)
def test_typical_selectors_never_ask_cel_python(expression: str) -> None:
    selector = compile_selector(expression, release="1.36", gates=GATES, purpose="stored", engine=DEFAULT_ENGINE)
    assert selector.evaluate(DEVICE) is True
    program = selector._program
    assert type(program).__name__ in ("_CelExprProgram", "_PanickingProgram")
    assert program._fallback is None


@pytest.mark.skipif(not engine_available(DEFAULT_ENGINE), reason="cel-expr-python is not installed")
def test_only_the_device_cel_cpp_fails_on_goes_to_cel_python() -> None:
    expression = 'device.attributes["gpu.example.com"].transformMapEntry(k, v, {v: k}).size() >= 2'
    selector = compile_selector(expression, release="1.36", gates=GATES, purpose="stored", engine=DEFAULT_ENGINE)
    scalars = CelDevice(driver="gpu.example.com", attributes={"model": {"string": "a"}, "cores": {"int": 7}},
                        capacity={})
    assert selector.evaluate(scalars) is True
    assert selector._program._fallback is None
    assert selector.evaluate(DEVICE) is True
    assert selector._program._fallback is not None
