"""Both engines give upstream's answers where cel-python on its own would not.

Each row is evaluated on every engine with the same expected result: true/false, a runtime
error message, or a compile error part. Rows one engine cannot do are strict xfails for that
engine only, with the reason.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from dractl.cel import CelCompileError, CelDevice, CelRuntimeError, compile_selector
from dractl.cel.engines import DEFAULT_ENGINE, ENGINES, FALLBACK_ENGINE, resolve_engine_name

A = 'device.attributes["gpu.example.com"]'
C = 'device.capacity["gpu.example.com"]'

DEVICE = CelDevice(
    driver="gpu.example.com",
    attributes={
        "model": {"string": "A100"},
        "cores": {"int": 108},
        "driverVersion": {"version": "1.2.3"},
        "other.example.com/numa": {"int": 1},
    },
    capacity={"memory": {"value": "40Gi"}},
)

ROWS: list[tuple[str, object]] = [
    # heterogeneous numeric equality and ordering
    (f"{A}.cores == 108.0", True),
    (f"{A}.cores != 108.5", True),
    (f"{A}.cores == 108u", True),
    (f"{A}.cores in [1.0, 108.0]", True),
    (f"{A}.cores > 100.5", True),
    (f"{A}.cores < 200u", True),
    ("[dyn(1), dyn(2.0), dyn(3u)].exists(x, x == 2)", True),
    # a list literal of mixed types is rejected by cel-go's homogeneous aggregate literal checks
    ("[1, 2.0, 3u].exists(x, x == 2)", ("compile", "expected type 'int' but found 'double'")),
    ('{"a": 1, "b": 2.0}.size() == 2', ("compile", "ERROR: <input>:1:15: expected type 'int' but found 'double'")),
    (f'{A}.model.matches("(a")', ("compile", "ERROR: <input>:1:52: invalid matches argument")),
    ('matches("(a", "a")', ("compile", "ERROR: <input>:1:9: invalid matches argument")),
    (f'{A}.model.matches(r"^A\\d+$")', True),
    (f'{A}.cores == "108"', False),
    # literals of different types are a compile error, as upstream's checker finds
    ("2u + 1 == 3u", ("compile", "found no matching overload for '_+_' applied to '(uint, int)'")),
    ("1 == 1.0", ("compile", "found no matching overload for '_==_' applied to '(int, double)'")),
    ('"a" + 1 == "a1"', ("compile", "found no matching overload for '_+_' applied to '(string, int)'")),
    ("dyn(1) == 1.0", True),
    # what the fallback engine's checker infers without a type checker: capacity values are
    # quantities, library functions have fixed signatures
    (f'{C}.memory > quantity("1")',
     ("compile", "found no matching overload for '_>_' applied to '(kubernetes.Quantity, kubernetes.Quantity)'")),
    (f"{C}.memory == 1", ("compile", "found no matching overload for '_==_' applied to '(kubernetes.Quantity, int)'")),
    (f"{C}.memory.major() == 1", ("compile", "found no matching overload for 'major' applied to 'kubernetes.Quantity.()'")),
    (f'{C}["memory"].isGreaterThan(semver("1.0.0"))',
     ("compile", "found no matching overload for 'isGreaterThan' applied to 'kubernetes.Quantity.(kubernetes.Semver)'")),
    # sign is declared as a global function only: a member call has no matching overload
    (f"{C}.memory.sign() == 1",
     ("compile", "found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'")),
    (f"sign({C}.memory) == 1", True),
    # a dotted name that resolves to nothing: cel-go names its first part, where it starts
    ("device.driver == gpu.example.com",
     ("compile", "ERROR: <input>:1:18: undeclared reference to 'gpu' (in container '')\n"
                 " | device.driver == gpu.example.com\n | .................^")),
    ("gpu . example == 1", ("compile", "undeclared reference to 'gpu' (in container '')")),
    ("device.driver.startsWith(1)", ("compile", "found no matching overload for 'startsWith' applied to 'string.(int)'")),
    (f"{C}.memory.compareTo(quantity('1')) == 1.0",
     ("compile", "found no matching overload for '_==_' applied to '(int, double)'")),
    # cel.bind
    ("cel.bind(x, 2, x * x == 4)", True),
    (f"cel.bind(g, {A}, g.cores > 64 && g.model == 'A100')", True),
    # cel-go's string extension
    ('"Hello".lowerAscii() == "hello"', True),
    ('"Hello".upperAscii() == "HELLO"', True),
    ('"a,b,c".split(",").size() == 3', True),
    ('" x ".trim() == "x"', True),
    ('"abc".substring(1) == "bc"', True),
    ('"abc".charAt(1) == "b"', True),
    ('"abcb".lastIndexOf("b") == 3', True),
    ('"abc".indexOf("c") == 2', True),
    ('["a", "b"].join("-") == "a-b"', True),
    ('"aaa".replace("a", "b", 2) == "bba"', True),
    # strings extension v2 has no reverse (v3 does); upstream's reverse is the lists extension's, on lists only
    ('"abc".reverse() == "cba"', ("compile", "found no matching overload for 'reverse' applied to 'string.()'")),
    # missing domains read as empty maps, but only where upstream's maps do
    ('device.attributes["nosuch.example.com"].size() == 0', True),
    ('"nosuch.example.com" in device.attributes', False),
    ("size(device.attributes) == 2", True),
    ('device.attributes.exists(d, d == "nosuch.example.com")', False),
    # upstream's map answers Find for a missing domain with (empty map, found): has() is true
    ("has(device.attributes.nosuch)", True),
    ('device.attributes["nosuch.example.com"].x == 1', ("runtime", "no such key: x")),
    ('device.attributes["other.example.com"].numa == 1', True),
    # quantity and semver libraries
    (f"{C}.memory.isInteger() && {C}.memory.asInteger() == 42949672960", True),
    (f'{C}.memory == quantity("40960Mi")', True),
    (f"{C}.memory.isGreaterThan({A}.driverVersion)",
     ("runtime", "no such overload: isGreaterThan(kubernetes.Quantity, kubernetes.Semver)")),
    (f"{A}.driverVersion.major() == 1 && {A}.driverVersion.minor() == 2 && {A}.driverVersion.patch() == 3", True),
    ('semver("v1.2", true) == semver("1.2.0")', True),
    ('!isSemver("1.2") && isQuantity("1Gi")', True),
    ('semver("1.2") == semver("1.2.0")', ("runtime", "No Major.Minor.Patch elements found")),
    (f'{A}.model.find("[0-9]+") == "100"', True),
    (f'{C}.memory.add(1).sub(quantity("1")) == quantity("40Gi")', True),
    (f'{C}.memory.sub(1).isLessThan({C}.memory) && quantity("1k").sub(quantity("1")).asApproximateFloat() == 999.0',
     True),
    # optional field selection and indexing, optional values
    (f'{A}.?model.orValue("") == "A100"', True),
    (f"{A}.?missing.hasValue() == false", True),
    ('device.attributes["nosuch.example.com"].?x.orValue(1) == 1', True),
    ("device.attributes.?nosuch.hasValue()", True),
    ("device.attributes.?nosuch.x.orValue(5) == 5", True),
    (f'{A}[?"cores"].value() == 108', True),
    (f"{A}.?missing.or(optional.of(3)).value() == 3", True),
    ("optional.none().orValue(2) == 2 && !optional.ofNonZeroValue(0).hasValue()", True),
    (f"{A}.?missing.value() == 1", ("runtime", "optional.none() dereference")),
    # runtime errors with cel-go's texts
    ("1 / 0 == 0", ("runtime", "division by zero")),
    ("1 % 0 == 0", ("runtime", "modulus by zero")),
    ("1 / 0 == 0 || true", True),
    ("[1, 2][5] == 1", ("runtime", "index out of bounds: 5")),
    # list indexes as cel-go's IndexOrError takes them: a uint or double that is an int64 exactly
    ("[1, 2][dyn(1u)] == 2", True),
    ("[1, 2][?dyn(1.0)] == optional.of(2)", True),
    ("dyn([1, 2])[?5.0].hasValue()", False),
    ("[1, 2][dyn(1.5)] == 2", ("runtime", "unsupported index value 1.5 in list")),
    ("[1, 2][?dyn(1234567.5)].hasValue()", ("runtime", "unsupported index value 1.2345675e+06 in list")),
    ("[1, 2][dyn(18446744073709551615u)] == 1", ("runtime", "unsupported index value 18446744073709551615 in list")),
    ("[1, 2][dyn('a')] == 1", ("runtime", "unsupported index type 'string' in list")),
    ("[1, 2][?dyn(quantity('1'))].hasValue()", ("runtime", "invalid qualifier type: cel.Quantity")),
    ("{1: 2}[dyn(1234567.5)] == 2", ("runtime", "no such key: 1.2345675e+06")),
    ("{1: 2}[dyn(3u)] == 2", ("runtime", "no such key: 3")),
    # a value that is neither map nor list has no keys: an error, none, or false for has()
    (f"{A}.driverVersion.major == 1u", ("runtime", "no such key: major")),
    (f"{A}.model[0] == 'A'", ("runtime", "no such key: 0")),
    (f"has({A}.model.foo)", False),
    (f"{A}.model.?foo.orValue(1) == 1", True),
    (f"{A}.cores[?0].hasValue()", False),
    ("has(dyn([1]).foo)", ("runtime", "unsupported index type 'string' in list")),
    ("has({'a': {'b': 1}}.c.b)", ("runtime", "no such key: c")),
    ("dyn(optional.of(1)).foo.bar == 1", False),
    # operators on dyn operands: cel-go names the operator where the left operand lacks its trait
    ("dyn([1]) - dyn(1) == 0", ("runtime", "no such overload: _-_")),
    ("dyn(1) - dyn([1]) == 0", ("runtime", "no such overload")),
    ("dyn(1.5) % dyn(1.5) == 0.0", ("runtime", "no such overload: _%_")),
    ("-dyn(2u) == 0u", ("runtime", "no such overload: -_")),
    ("dyn(null) < dyn(1)", ("runtime", "no such overload: _<_")),
    ("dyn(true) * dyn(2) == 2", ("runtime", "no such overload: _*_")),
    ("dyn('a') * dyn(true) == 'a'", ("runtime", "no such overload")),
    ("-dyn(duration('1s')) == duration('-1s')", True),
    ("size(dyn(duration('1s'))) == 1", ("runtime", "no such overload")),
    ("dyn(semver('1.0.0')) + dyn(semver('1.0.0')) != dyn(1)", ("runtime", "no such overload: _+_")),
    ("dyn(b'a') + dyn(b'b') == b'ab'", True),
    ("'a' + 'b' == 'ab'", True),
    # a uint where a function run in Python takes an int; functions of dyn values of the wrong type
    ("'abc'.charAt(dyn(1u)) == 'b'", ("runtime", "no such overload: charAt(string, uint)")),
    ("lists.range(dyn(2u)).size() == 2", ("runtime", "no such overload: lists.range(uint)")),
    ("ip(dyn(true)) == ip('1.2.3.4')", ("runtime", "no such overload: ip(bool)")),
    ("dyn(1).getHours('UTC') == 1", ("runtime", "no such overload: getHours(int, string)")),
    ("dyn({'a': 1}).contains('a')", ("runtime", "no such overload")),
    ("dyn(b'a').trim() == ''", ("runtime", "no such overload: trim(bytes)")),
    ("dyn([1, 'a']).format([1]) == ''", ("runtime", "no such overload: format(list, list)")),
    ("quantity('1') != null", True),
    # membership: a constant list of primitives is a hash set, a map literal a Go map
    ("dyn(semver('1.0.0')) in [int('1')]", ("runtime", "internal error: runtime error: hash of unhashable type cel.Semver")),
    ("dyn(semver('1.0.0')) in [1 + 1]", False),
    ("dyn(quantity('1')) in [1, 2]", False),
    ("dyn(true) in {1: 2}", False),
    ("dyn(1.0) in {1: 2}", True),
    # the library's types have no fields upstream's checker could resolve
    ('semver("1.0.0").major == 1u', ("compile", "ERROR: <input>:1:16: unexpected failed resolution of 'kubernetes.Semver'")),
    (f"has({C}.memory.value)", ("compile", "ERROR: <input>:1:4: unexpected failed resolution of 'kubernetes.Quantity'")),
    ('ip("1.2.3.4").foo == 1', ("compile", "ERROR: <input>:1:14: type 'net.IP' does not support field selection")),
    (f"{A}.model > 5", ("runtime", "no such overload")),
    # cel-go finds no overload for the run-time type of an attribute the checker sees as any
    (f'string({A}.driverVersion) == "1.2.3"', ("runtime", "no such overload: string(kubernetes.Semver)")),
    (f"{A}.driverVersion.size() > 0", ("runtime", "no such overload: size")),
    (f"size({A}.driverVersion) > 0", ("runtime", "no such overload: size")),
    (f"{A}.model.reverse() == {A}.model", ("runtime", "no such overload: reverse(string)")),
    (f'string({A}.cores) == "108" && {A}.model.size() == 4 && dyn([1, 2]).reverse() == [2, 1]', True),
    ('string(dyn(ip("10.0.0.1"))) == "10.0.0.1"', True),
    # a map literal with a repeated key keeps the last entry, as cel-go builds it
    ("{'a': 1, 'a': 2}.a == 2 && {'a': 1, 'b': 3, 'a': 2}.size() == 2", True),
    ("{'a': 1 / 0, 'a': 2}.a == 2", ("runtime", "division by zero")),
    # a comprehension that stops early leaves nothing behind for a later cel.bind
    ("[1, 2].exists(v, v == 1) && cel.bind(z, 7, z == 7)", True),
    ("!{1: 'one', 2: 'two'}.all(k, k == 2) && cel.bind(z, 7, z == 7)", True),
    ("[0, 1].exists(v, 1 / v == 1) && cel.bind(z, 1 / 0, true)", True),
    # upstream's device maps answer every domain, also where a selector inspects a map as a whole
    ('has(device.attributes.nosuch) && device.attributes.size() > 0 && has(device.capacity.nosuch)', True),
    # NaN has no order in cel-go
    ('double("nan") > 0.0', ("runtime", "NaN values cannot be ordered")),
    ('1 < double("nan")', ("runtime", "NaN values cannot be ordered")),
    ('double("nan") != 0.0 && 1.5 < 2 && -1.0 / 0.0 < 0.0', True),
    # the Kubernetes lists library on durations and timestamps
    ("[duration('1h'), duration('1s')].min() == duration('1s')", True),
    ("[timestamp('2024-01-01T00:00:00Z'), timestamp('2025-01-01T00:00:00Z')].max().getFullYear() == 2025", True),
    # a duration's getMilliseconds() is the whole duration (Go's Duration.Milliseconds), a
    # timestamp's the milliseconds within its second
    ("duration('1h30m').getMilliseconds() == 5400000", True),
    ("duration('-1.5s').getMilliseconds() == -1500", True),
    ("duration('-999999ns').getMilliseconds() == 0", True),
    ("dyn(duration('1.5s')).getMilliseconds() == 1500", True),
    ("dyn(timestamp('2024-01-01T00:00:01.5Z')).getMilliseconds() == 500", True),
    ("timestamp('2024-01-01T00:00:01.5Z').getMilliseconds() == 500", True),
    (f"{A}.model.getMilliseconds() == 1", ("runtime", "no such overload: getMilliseconds(string)")),
    # string() of a duration is Go's shortest float of its seconds
    ("string(duration('1.5s')) == '1.5s'", True),
    ("string(duration('-1h1ns')) == '-3600.000000001s'", True),
    ("string(duration('1ns')) == '0.000000001s'", True),
    ("string(duration('1h30m')) == '5400s'", True),
    ("string(duration('100000000.000000001s')) == '100000000s'", True),
    # flatten() is declared for a list of lists, flatten(depth) for any list
    ("[true, false].flatten().size() == 1", ("compile", "found no matching overload for 'flatten' applied to 'list(bool).()'")),
    ("[[1], [2, 3]].flatten().size() == 3", True),
    ("[true].flatten(1).size() == 1", True),
    (f"[{A}.cores].flatten(1).size() == 1", True),
]

# Rows an engine cannot do, with the reason; strict, so a row that starts passing is noticed.
GAPS: dict[str, dict[str, str]] = {
    DEFAULT_ENGINE: {
    },
    FALLBACK_ENGINE: {
    },
}


def _params() -> list[Any]:
    params = []
    for engine in ENGINES:
        for expression, expected in ROWS:
            reason = GAPS[engine].get(expression)
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            params.append(pytest.param(engine, expression, expected, id=f"{engine}-{expression}", marks=marks))
    return params


@pytest.mark.parametrize(("engine", "expression", "expected"), _params())
def test_engines_agree_with_upstream(engine: str, expression: str, expected: object) -> None:
    if isinstance(expected, tuple) and expected[0] == "compile":
        with pytest.raises(CelCompileError) as caught:
            compile_selector(expression, release="1.36", purpose="stored", engine=engine)
        assert expected[1] in caught.value.detail
        return
    selector = compile_selector(expression, release="1.36", purpose="stored", engine=engine)
    if isinstance(expected, tuple):
        with pytest.raises(CelRuntimeError) as raised:
            selector.evaluate(DEVICE)
        assert raised.value.message == expected[1]
    else:
        assert selector.evaluate(DEVICE) is expected


# Devices whose attribute maps are not the loader's usual shape take the general conversion
# path; the answers are the same whichever path a device takes.
V = 'device.attributes["d"].v == semver("1.2.3") && device.capacity["d"].m == quantity("1Gi")'
SHAPES: list[tuple[str, dict[str, Any], dict[str, Any], object]] = [
    ("usual", {"v": {"version": "1.2.3"}}, {"m": {"value": "1Gi"}}, True),
    ("two value kinds, int first", {"v": {"version": "1.2.3", "int": 1}}, {"m": {"value": "1Gi"}}, False),
    ("mapping that is not a dict", {"v": MappingProxyType({"version": "1.2.3"})}, {"m": {"value": "1Gi"}}, True),
    ("capacity without value key", {"v": {"version": "1.2.3"}}, {"m": "1Gi"}, True),
    ("version that is a number", {"v": {"version": 1}}, {},
     "attribute v: parse semantic version: No Major.Minor.Patch elements found"),
    ("null value", {"v": {"version": None}}, {}, "attribute v: unsupported attribute value"),
    ("list without the gate", {"v": {"versions": ["1.2.3"]}}, {}, "attribute v: unsupported attribute value"),
    ("bad quantity", {}, {"m": {"value": "1Gx"}},
     "capacity m: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("attributes", "capacity", "expected"), [s[1:] for s in SHAPES], ids=[s[0] for s in SHAPES])
def test_every_device_shape_converts_as_upstream(engine: str, attributes: dict[str, Any], capacity: dict[str, Any],
                                                 expected: object) -> None:
    selector = compile_selector(V, release="1.36", purpose="stored", engine=engine)
    device = CelDevice(driver="d", attributes=attributes, capacity=capacity)
    if isinstance(expected, str):
        with pytest.raises(CelRuntimeError) as raised:
            selector.evaluate(device)
        assert raised.value.message == expected
    else:
        assert selector.evaluate(device) is expected


@pytest.mark.parametrize("engine", ENGINES)
def test_library_values_name_their_type_in_non_bool_results(engine: str) -> None:
    selector = compile_selector('device.attributes["d"].v', release="1.36", purpose="stored",
                                gates={"DRAListTypeAttributes": True}, engine=engine)
    with pytest.raises(CelRuntimeError) as raised:
        selector.evaluate(CelDevice(driver="d", attributes={"v": {"version": "1.0.0"}}))
    assert raised.value.message == ("CEL result of type kubernetes.Semver could not be converted to bool: "
                                    "type conversion error from 'Semver' to 'bool'")


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ('google.protobuf.Duration{seconds: 1} == duration("1s")',
         "the cel-python engine does not evaluate message expressions"),
    ],
)
def test_fallback_engine_names_what_it_cannot_evaluate(expression: str, message: str) -> None:
    with pytest.raises(CelCompileError) as caught:
        compile_selector(expression, release="1.36", purpose="stored", engine=FALLBACK_ENGINE)
    assert message in caught.value.detail


def test_undeclared_function_is_a_compile_error_on_the_fallback_engine() -> None:
    with pytest.raises(CelCompileError) as caught:
        compile_selector('device.attributes["d"].x.includes(1)', release="1.36", purpose="new",
                         engine=FALLBACK_ENGINE)
    assert caught.value.errors[0].message == "undeclared reference to 'includes' (in container '')"
    assert caught.value.kind == "invalid"


def test_fallback_is_chosen_when_the_default_engine_cannot_be_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    import dractl.cel.engines as engines

    monkeypatch.setattr(engines, "engine_available", lambda name: name != DEFAULT_ENGINE)
    assert resolve_engine_name(None) == FALLBACK_ENGINE
    assert resolve_engine_name(DEFAULT_ENGINE) == DEFAULT_ENGINE
    with pytest.raises(ValueError, match="unknown CEL engine 'cel-go'"):
        resolve_engine_name("cel-go")


def test_configured_engine_is_checked_and_the_command_line_wins(tmp_path: Path) -> None:
    from dractl.errors import UsageError
    from dractl.lint.config import build_settings, read_config

    path = tmp_path / ".dractl.yaml"
    path.write_text("cel-engine: cel-python\n")
    config = read_config(path)
    assert build_settings(config).cel_engine == FALLBACK_ENGINE
    assert build_settings(config, cel_engine=DEFAULT_ENGINE).cel_engine == DEFAULT_ENGINE
    path.write_text("cel-engine: cel-go\n")
    with pytest.raises(UsageError, match=r"\.dractl\.yaml:1:13: cel-engine: 'cel-go' is not one of"):
        build_settings(read_config(path))


def test_fallback_engine_keeps_a_raised_recursion_limit() -> None:
    import sys

    from dractl.cel.engines.celpy_engine import CelPythonEngine

    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(5000)
    try:
        CelPythonEngine()
        assert sys.getrecursionlimit() == 5000
    finally:
        sys.setrecursionlimit(previous)
