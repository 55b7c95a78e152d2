"""The default engine's runtime errors carry cel-go's texts (the scheduler reports them).

Each row's expected answer is upstream's (the Kubernetes 1.36 DRA compiler, StoredExpressions)
on the device below, the second device of the differential test's ``scalars`` slices. cel-cpp
words conversions, overflows, time zones, string formatting and calls no overload takes
differently, and panics that abort cel-go's whole evaluation are errors it may absorb.
"""

from __future__ import annotations

import pytest

from dractl.cel import CelCompileError, CelDevice, CelRuntimeError, compile_selector
from dractl.cel.engines import DEFAULT_ENGINE

DEVICE = CelDevice(
    driver="gpu.example.com",
    attributes={
        "model": {"string": "İstanbul"},
        "uuid": {"string": "Ωmega"},
        "gpu.example.com/label": {"string": "🚀gpu🚀"},
        "cores": {"int": 7},
        "numa": {"int": 2147483647},
        "gpu.example.com/driverVersion": {"version": "0.0.1"},
    },
    capacity={"memory": {"value": "4T"}, "bandwidth": {"value": "2Ei"}},
)

ROWS: list[tuple[str, object]] = [
    # conversions and overflows
    ('int(device.attributes["gpu.example.com"].model) > 0', ('runtime', "type conversion error from 'string' to 'int'")),
    ('uint(\'-1\' + device.attributes["gpu.example.com"].model) == 1u', ('runtime', "type conversion error from 'string' to 'uint'")),
    ('double(device.attributes["gpu.example.com"].model + \'x\') == 1.0', ('runtime', "type conversion error from 'string' to 'double'")),
    ('bool(device.attributes["gpu.example.com"].model)', ('runtime', "type conversion error from 'string' to 'bool'")),
    ('duration(device.attributes["gpu.example.com"].model) == duration(\'1s\')', ('runtime', "type conversion error from 'string' to 'google.protobuf.Duration'")),
    ('timestamp(device.attributes["gpu.example.com"].model) == timestamp(\'2020-01-01T00:00:00Z\')', ('runtime', "type conversion error from 'string' to 'google.protobuf.Timestamp'")),
    ('int(double(device.attributes["gpu.example.com"].numa) * 1e10) == 1', ('runtime', 'integer overflow')),
    ('uint(device.attributes["gpu.example.com"].cores - 8) == 1u', ('runtime', 'unsigned integer overflow')),
    ('uint(double(device.attributes["gpu.example.com"].numa) * -1.0) == 1u', ('runtime', 'unsigned integer overflow')),
    ('int(18446744073709551615u - uint(device.attributes["gpu.example.com"].cores)) == 1', ('runtime', 'integer overflow')),
    # a string converts as Go's strconv reads it (no space, ParseUint takes no sign, underscores in a float)
    ("int(' 1' + device.driver.substring(0, 0)) == 1", ('runtime', "type conversion error from 'string' to 'int'")),
    ("int('+1' + device.driver.substring(0, 0)) == 1", True),
    ("uint('+1' + device.driver.substring(0, 0)) == 1u", ('runtime', "type conversion error from 'string' to 'uint'")),
    ("double(' 1.5' + device.driver.substring(0, 0)) > 0.0", ('runtime', "type conversion error from 'string' to 'double'")),
    ("double('1e400' + device.driver.substring(0, 0)) > 0.0", ('runtime', "type conversion error from 'string' to 'double'")),
    ("double('1_000.5' + device.driver.substring(0, 0)) > 0.0", True),
    ("double('0x1p-2' + device.driver.substring(0, 0)) == 0.25", True),
    ("double('-Inf' + device.driver.substring(0, 0)) < 0.0", True),
    ("bool('T' + device.driver.substring(0, 0))", True),
    ("bool('tRue' + device.driver.substring(0, 0))", ('runtime', "type conversion error from 'string' to 'bool'")),
    ('int(dyn(optional.of(1))) == 1', ('runtime', 'no such overload: int(optional_type)')),
    ('int(dyn(2.9)) == 2 && uint(dyn(7)) == 7u && double(dyn(2)) == 2.0', True),
    # time zones: a name Go's time.LoadLocation does not know, an offset strconv.Atoi cannot read
    ("timestamp('2020-01-01T00:00:00Z').getHours('Nope/Zone') >= 0", ('runtime', 'unknown time zone Nope/Zone')),
    ("timestamp('2020-01-01T00:00:00Z').getDayOfYear('utc') >= 0", ('runtime', 'unknown time zone utc')),
    ("timestamp('2020-01-01T00:00:00Z').getHours('+05:xx') >= 0", ('runtime', 'strconv.Atoi: parsing "xx": invalid syntax')),
    # string formatting
    ('"%s".format(device.attributes["gpu.example.com"].numa) != \'\'', ('runtime', 'no such overload: format(string, int)')),
    ('"%s".format(device.attributes["gpu.example.com"].driverVersion) != \'\'', ('runtime', 'no such overload: format(string, kubernetes.Semver)')),
    ('"%d".format(dyn([device.attributes["gpu.example.com"].model])) != \'\'', ('runtime', 'error during formatting: decimal clause can only be used on integers, was given string')),
    ('"%f".format(dyn([device.attributes["gpu.example.com"].model])) != \'\'', ('runtime', 'error during formatting: fixed-point clause can only be used on doubles, was given string')),
    ('"%.3e".format([dyn([1])]) != \'\'', ('runtime', 'error during formatting: scientific clause can only be used on doubles, was given list')),
    ('"%x".format([dyn(1.5)]) != \'\'', ('runtime', 'error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double')),
    ('"%b".format([dyn(null)]) != \'\'', ('runtime', 'error during formatting: only integers and bools can be formatted as binary, was given null_type')),
    ('"%o".format([dyn(b\'a\')]) != \'\'', ('runtime', 'error during formatting: octal clause can only be used on integers, was given bytes')),
    # extension functions cel-go declares with bindings name the function and the argument types;
    # the standard library's and a value's own methods do not
    ('device.attributes["gpu.example.com"].cores.charAt(1) != \'\'', ('runtime', 'no such overload: charAt(int, int)')),
    ('device.attributes["gpu.example.com"].cores.lowerAscii() != \'\'', ('runtime', 'no such overload: lowerAscii(int)')),
    ('\'a\'.split(device.attributes["gpu.example.com"].cores).size() > 0', ('runtime', 'no such overload: split(string, int)')),
    ('\'abc\'.substring(device.attributes["gpu.example.com"].model) != \'\'', ('runtime', 'no such overload: substring(string, string)')),
    ('device.attributes["gpu.example.com"].cores.indexOf(\'a\') > 0', ('runtime', 'no such overload: indexOf(int, string)')),
    ('sets.contains(device.attributes["gpu.example.com"].cores, [1])', ('runtime', 'no such overload: sets.contains(int, list)')),
    ('device.attributes["gpu.example.com"].model.flatten().size() > 0', ('runtime', 'no such overload: string.flatten()')),
    ('strings.quote(device.attributes["gpu.example.com"].cores) != \'\'', ('runtime', 'no such overload: strings.quote(int)')),
    ('dyn(1).isSorted()', ('runtime', 'no such overload: isSorted(int)')),
    ("[dyn(1), dyn('a')].sum() > 0", ('runtime', 'no such overload')),
    ('device.attributes["gpu.example.com"].cores.startsWith("a")', ('runtime', 'no such overload')),
    # sorting elements that have no order, or not one type
    ('[null].sort().size() == 1', ('runtime', 'list elements must be comparable')),
    ('[dyn(1), dyn("a")].sort().size() == 1', ('runtime', 'list elements must have the same type')),
    ('[1, 2].sortBy(x, dyn([x])).size() == 2', ('runtime', 'list elements must be comparable')),
    ('[1, 2].sortBy(x, x == 1 ? dyn(1) : dyn("a")).size() == 2', ('runtime', 'list elements must have the same type')),
    # panics in cel-go's cost trackers and map hashing end the whole evaluation: an || or && around
    # the failing step does not absorb them
    ('device.attributes["gpu.example.com"].tags.distinct().size() > 0 || true', ('runtime', 'internal error: interface conversion: *types.Err is not traits.Lister: missing method Add')),
    ('true || device.attributes["gpu.example.com"].tags.distinct().size() > 0', True),
    ('device.attributes["gpu.example.com"].cores.distinct().size() > 0', ('runtime', 'internal error: interface conversion: types.Int is not traits.Lister: missing method Contains')),
    ('device.attributes["gpu.example.com"].model.distinct().size() > 0', ('runtime', 'internal error: interface conversion: types.String is not traits.Lister: missing method Contains')),
    ('device.attributes["gpu.example.com"].driverVersion.distinct().size() > 0', ('runtime', 'internal error: interface conversion: cel.Semver is not traits.Lister: missing method Add')),
    ("dyn({'a': 1}).distinct().size() > 0", ('runtime', 'internal error: interface conversion: *types.baseMap is not traits.Lister: missing method Add')),
    ('dyn(null).distinct().size() > 0', ('runtime', 'internal error: interface conversion: types.Null is not traits.Lister: missing method Add')),
    ("dyn(quantity('1')).distinct().size() > 0", ('runtime', 'internal error: interface conversion: cel.Quantity is not traits.Lister: missing method Add')),
    ('[int(device.attributes["gpu.example.com"].tags)].sort().size() > 0', ('runtime', 'internal error: interface conversion: *types.Err is not traits.Lister: missing method Add')),
    ('[1, 2].sortBy(x, 1 / (x - 1)).size() > 0 || true', ('runtime', 'internal error: interface conversion: *types.Err is not traits.Lister: missing method Add')),
    ('[1].flatten(dyn(1u)).size() > 0 || true', ('runtime', 'internal error: interface conversion: ref.Val is types.Uint, not types.Int')),
    ('[1].flatten(device.attributes["gpu.example.com"].model).size() > 0', ('runtime', 'internal error: interface conversion: ref.Val is types.String, not types.Int')),
    ('[1, 2].flatten(device.attributes["gpu.example.com"].tags) == [1]', ('runtime', 'internal error: interface conversion: ref.Val is *types.Err, not types.Int')),
    ('[[1], [2]].flatten(device.attributes["gpu.example.com"].cores - 6) == [1, 2] && [1, 2, 2].distinct() == [1, 2] && [3, 1].sort() == [1, 3]', True),
    ('device.attributes["gpu.example.com"].driverVersion in [1, 2] || true', ('runtime', 'internal error: runtime error: hash of unhashable type cel.Semver')),
    ('{device.attributes["gpu.example.com"].driverVersion: 1}.size() > 0 || true', ('runtime', 'internal error: runtime error: hash of unhashable type cel.Semver')),
    ('{device.attributes["gpu.example.com"].model: 1}.size() > 0', True),
    # a selector that inspects a device map as a whole and looks up a domain the device lacks: the
    # domain is an empty map, as upstream's maps answer
    ('size(device.attributes) > 0 && device.attributes["nosuch.example.com"]["cores"] > 0', ('runtime', 'no such key: cores')),
    ('size(device.attributes) > 0 && device.attributes["nosuch.example.com"].size() == 0', True),
    ('"nosuch.example.com" in device.attributes || device.attributes["nosuch.example.com"].cores > 0', ('runtime', 'no such key: cores')),
    ('size(device.capacity) > 0 && device.capacity["nosuch.example.com"].memory.isGreaterThan(quantity("1"))', ('runtime', 'no such key: memory')),
    ('size(device.attributes) > 0 && device.attributes[?"nosuch.example.com"].hasValue()', True),
    ('size(device.attributes) > 0 && device.attributes.?nosuch.hasValue()', True),
    ('size(device.attributes) == 1 && device.attributes.nosuch.size() == 0', True),
    # ... or hands a map on as a whole and looks the domain up there
    ('cel.bind(m, device.attributes, m["nosuch.example.com"].size() == 0)', True),
    ('dyn(device.attributes)["nosuch.example.com"].size() == 0', True),
    ('[device.attributes][0]["nosuch.example.com"].size() == 0', True),
    ('cel.bind(m, device.capacity, m["nosuch.example.com"].memory.isGreaterThan(quantity("1")))', ('runtime', 'no such key: memory')),
    ('device.attributes.exists(d, d == "x") || [device.attributes][0]["nosuch.example.com"].cores > 0', ('runtime', 'no such key: cores')),
    ('device.attributes.exists(d, device.attributes[d].size() > 0) && device.attributes[device.driver].cores == 7', True),
]


@pytest.mark.parametrize(("expression", "expected"), ROWS, ids=[row[0] for row in ROWS])
def test_runtime_answer_is_upstreams(expression: str, expected: object) -> None:
    if isinstance(expected, tuple) and expected[0] == "compile":
        with pytest.raises(CelCompileError) as caught:
            compile_selector(expression, release="1.36", purpose="stored", engine=DEFAULT_ENGINE)
        assert caught.value.detail == expected[1]
        return
    selector = compile_selector(expression, release="1.36", purpose="stored", engine=DEFAULT_ENGINE)
    if isinstance(expected, tuple):
        with pytest.raises(CelRuntimeError) as raised:
            selector.evaluate(DEVICE)
        assert raised.value.message == expected[1]
    else:
        assert selector.evaluate(DEVICE) is expected
