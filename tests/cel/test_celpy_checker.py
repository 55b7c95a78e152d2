"""The cel-python engine's type checker reports what upstream's checker reports.

Every expected text below is the upstream DRA compiler's answer (Kubernetes 1.36), position
included; ``None`` means upstream compiles the expression.
"""

from __future__ import annotations

import pytest

from dractl.cel import CelCompileError, compile_selector
from dractl.cel.engines.celpy_checker import overloads, parse_type

A = 'device.attributes["gpu.example.com"]'
C = 'device.capacity["gpu.example.com"]'

ROWS: list[tuple[str, str | None]] = [
    # attribute values are google.protobuf.Any: they match every parameter ...
    (f"{A}.numa > 0", None),
    (f"{A}.numa + 1 > 0", None),
    (f"{A}.numa == semver('1.0.0')", None),
    (f"{A}.numa.x == 1", None),
    (f"has({A}.numa.x)", None),
    (f"{A}.numa.size() + 'a' == 'b'",
     "1:50: found no matching overload for '_+_' applied to '(int, string)'"),
    # ... but no overload takes a library type where none is declared, and they are no range
    (f'semver("0.0.1") < {A}.driverVersion',
     "1:17: found no matching overload for '_<_' applied to '(kubernetes.Semver, any)'"),
    (f"{C}.slots > {A}.numa",
     "1:42: found no matching overload for '_>_' applied to '(kubernetes.Quantity, any)'"),
    (f"{A}.numa.all(x, x)",
     "1:37: expression of type 'any' cannot be range of a comprehension (must be list, map, or dynamic)"),
    # element types of literals, carried through macros and library functions
    ("[true, false].min() < 4", "1:21: found no matching overload for '_<_' applied to '(bool, int)'"),
    ("[semver('1.0.0'), semver('2.0.0')].isSorted()",
     "1:44: found no matching overload for 'isSorted' applied to 'list(kubernetes.Semver).()'"),
    ('["a", "b"].all(x, x < 0)', "1:21: found no matching overload for '_<_' applied to '(string, int)'"),
    ('{1: "one"}.all(k, v, k != "")', "1:24: found no matching overload for '_!=_' applied to '(int, string)'"),
    ('["a"].all(i, v, i == v)', "1:19: found no matching overload for '_==_' applied to '(int, string)'"),
    ("[8, 0].all(x, x)", "1:15: expected type 'bool' but found 'int'"),
    ("[1].exists_one(x, x)", "1:15: found no matching overload for '_?_:_' applied to '(int, int, int)'"),
    ("[1, 2].filter(x, x).size() > 0",
     "1:14: found no matching overload for '_?_:_' applied to '(int, list(int), list(int))'"),
    ("[1].sortBy(x, [x]).size() > 0",
     "1:11: found no matching overload for '@sortByAssociatedKeys' applied to 'list(int).(list(list(int)))'"),
    ('[2, 1].last().orValue("") == 3',
     "1:22: found no matching overload for 'orValue' applied to 'optional_type(int).(string)'"),
    ("{'a': [1], 'b': []}.?a.orValue(0) == 1",
     "1:31: found no matching overload for 'orValue' applied to 'optional_type(list(int)).(int)'"),
    ("{true: 1} == {'a': 1}",
     "1:11: found no matching overload for '_==_' applied to '(map(bool, int), map(string, int))'"),
    ("[] == [1]", None),
    ("[[]] + [['a']] == []", None),
    ("{}.a + 1 == 2", None),
    ("[] + 1 == []", "1:4: found no matching overload for '_+_' applied to '(list(dyn), int)'"),
    # operators, indexing, selection
    ("true ? 1 : 'a'", "1:6: found no matching overload for '_?_:_' applied to '(bool, int, string)'"),
    ("1 == 1u", "1:3: found no matching overload for '_==_' applied to '(int, uint)'"),
    ("1 < 1u", None),
    ("null == 1", "1:6: found no matching overload for '_==_' applied to '(null, int)'"),
    ("1 && true", "1:1: expected type 'bool' but found 'int'"),
    ("!1", "1:1: found no matching overload for '!_' applied to '(int)'"),
    ("'a' in 1", "1:5: found no matching overload for '@in' applied to '(string, int)'"),
    ("{'a': 1}[1] == 1", "1:9: found no matching overload for '_[_]' applied to '(map(string, int), int)'"),
    ("{'a': 1}[true] == 1", "1:9: found no matching overload for '_[_]' applied to '(map(string, int), bool)'"),
    ('"%.0f".format([true]) != ""', "1:16: error during formatting: fixed-point clause can only be used on "
     "doubles, was given bool"),
    ("device.driver[0] == 'a'", "1:14: found no matching overload for '_[_]' applied to '(string, int)'"),
    ("device.driver.nosuch == 1", "1:14: type 'string' does not support field selection"),
    ("optional.of(1).x == 1", "1:15: type 'int' does not support field selection"),
    ("[1][?0].x == 1", "1:8: type 'int' does not support field selection"),
    ("{'a': 1}[?'a'] + 1 == 2",
     "1:16: found no matching overload for '_+_' applied to '(optional_type(int), int)'"),
    # calls: member style, namespaces, library types
    ('"a".isQuantity()', "1:15: found no matching overload for 'isQuantity' applied to 'string.()'"),
    ('startsWith("a", "b")', "1:11: found no matching overload for 'startsWith' applied to '(string, string)'"),
    (f"{C}.memory.sign() == 1", "1:47: found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'"),
    (f"sign({C}.memory) == 1", None),
    ("quantity('1') + quantity('2') == quantity('3')",
     "1:15: found no matching overload for '_+_' applied to '(kubernetes.Quantity, kubernetes.Quantity)'"),
    ("[ip('1.1.1.1')].sort().size() > 0", "1:21: found no matching overload for 'sort' applied to 'list(net.IP).()'"),
    ("url('a').getQuery() + 1 == 1",
     "1:21: found no matching overload for '_+_' applied to '(map(string, list(string)), int)'"),
    ("string(cidr('1.2.3.4/32')) == ''", None),
    # the selector's own type
    ("device.attributes", "must evaluate to bool or the unknown type, not map(string, map(string, google.protobuf.Any))"),
    ("device.capacity", "must evaluate to bool or the unknown type, not map(string, map(string, kubernetes.Quantity))"),
    ("device", "must evaluate to bool or the unknown type, not kubernetes.DRADevice"),
    (f"{A}.?numa", "must evaluate to bool or the unknown type, not optional_type(google.protobuf.Any)"),
    ("[].map(x, x + 1)", "must evaluate to bool or the unknown type, not list(int)"),
    (f"{A}.numa", None),
    # what cel-go's parser reports is reported alone
    ("[3, 100].all(x, x) && cel.bind(1, 1, true)", "1:32: cel.bind() variable names must be simple identifiers"),
    ("9223372036854775808 > 0", "1:1: invalid int literal"),
    ("-9223372036854775808 < 0", None),
    ("has(1 + 2)", "1:7: invalid argument to has() macro"),
    # a constant pattern cel-go cannot compile fails the program, once the selector's type is accepted
    ('matches(device.driver, "[")', "program instantiation failed: error parsing regexp: missing closing ]: `[`"),
    (f'{A}.model.findAll("[", 1).size() >= 0',
     "program instantiation failed: error parsing regexp: missing closing ]: `[`"),
    ("'a'.find('[')", "must evaluate to bool or the unknown type, not string"),
    # the homogeneous literal validator compares exact types, after checking
    (f"[{A}.numa, 1].size() > 0", "1:45: expected type 'any' but found 'int'"),
    (f"[{A}.numa.x, 1].size() > 0", "1:47: expected type 'dyn' but found 'int'"),
    ("[1, 'a'].size() > 0", "1:5: expected type 'int' but found 'string'"),
    # cel-go's duration and timestamp literal validators
    ('duration("") > duration(\'0s\')', "1:10: invalid duration argument"),
    ('timestamp("2024-13-01T00:00:00Z").getFullYear() == 2024', "1:11: invalid timestamp argument"),
    # cel-go's string format validator, on the checked types
    ('"%%".format([[1, 2]]) != \'\'', "1:12: too many arguments supplied to string.format (expected 0, got 1)"),
    ('"%.2f %.2f".format([\'a\']) != \'\'', "1:19: index 1 out of range"),
    ('"%v".format([{\'k\': 1}]) != \'\'', '1:12: could not parse formatting clause: unrecognized formatting clause "v"'),
    ('"%d".format([1.5]) != \'\'',
     "1:14: error during formatting: decimal clause can only be used on integers, was given double"),
    (f'"%.0f".format([{A}.cores]) == "0x1"', "1:52: error during formatting: fixed-point clause can only be "
     "used on doubles, was given google.protobuf.Any"),
    ('"%X %X".format([quantity(\'1Gi\')]) != \'\'', "1:25: error during formatting: only integers, byte buffers, "
     "and strings can be formatted as hex, was given kubernetes.Quantity"),
    ('"%d %d".format([duration(\'1h\')]) != \'\'', "1:25: error during formatting: decimal clause can only be "
     "used on integers, was given google.protobuf.Duration"),
]


@pytest.mark.parametrize(("expression", "expected"), ROWS, ids=[row[0] for row in ROWS])
def test_checker_answers_as_upstream(expression: str, expected: str | None) -> None:
    if expected is None:
        compile_selector(expression, release="1.36", purpose="new", engine="cel-python")
        return
    with pytest.raises(CelCompileError) as caught:
        compile_selector(expression, release="1.36", purpose="new", engine="cel-python")
    detail = caught.value.detail
    if expected.startswith(("must evaluate", "program instantiation")):
        assert detail == expected
    else:
        assert detail.split("\n")[0] == f"compilation failed: ERROR: <input>:{expected}"


def test_list_type_attributes_are_dyn() -> None:
    """With DRAListTypeAttributes an attribute is dyn: a range, and named so in messages."""
    gates = {"DRAListTypeAttributes": True}
    compile_selector(f"{A}.tags.exists(s, s.startsWith('a'))", release="1.36", gates=gates, engine="cel-python")
    with pytest.raises(CelCompileError) as caught:
        compile_selector(f'semver("1.0.0") < {A}.zone', release="1.36", gates=gates, engine="cel-python")
    assert "found no matching overload for '_<_' applied to '(kubernetes.Semver, dyn)'" in caught.value.detail


def test_every_declaration_parses() -> None:
    from dractl.cel.engines.celpy_checker import _DECLARATIONS

    for name in _DECLARATIONS:
        assert overloads(name), name
    assert str(parse_type("map(string, list(Q))")) == "map(string, list(kubernetes.Quantity))"
    assert parse_type("A").var and not parse_type("Q").var
