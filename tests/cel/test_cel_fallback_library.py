"""The fallback engine's library, macros and type errors, row by row as upstream answers them.

Every row was answered by the unmodified upstream DRA CEL compiler (Kubernetes 1.36, scheduler
environment) on the two devices of ``SLICE``: the expected value, runtime error or first line of
the compile error, one for both devices or one per device. Where the upstream binary is at hand
(``../shared/oracle/bin/dra-upstream`` beside the repository, or ``$DRA_UPSTREAM``), a second test
asks it again, so that a row cannot drift from upstream's answer.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from dractl.cel import CelCompileError, CelRuntimeError, compile_selector
from dractl.cel.engines import FALLBACK_ENGINE
from dractl.cel.slices import devices_of_slices

A = 'device.attributes["gpu.example.com"]'
SLICE = """
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s1}
spec:
  driver: gpu.example.com
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  nodeName: n1
  devices:
  - name: d0
    attributes:
      model: {string: "A100"}
      uni: {string: "h\u00e9llo w\u00f6rld \u2713"}
      cores: {int: 108}
      big: {int: 9223372036854775807}
      ok: {bool: true}
      driverVersion: {version: "1.2.3"}
    capacity:
      memory: {value: "40Gi"}
      milli: {value: "1500m"}
  - name: d1
    attributes:
      model: {string: "H100"}
      cores: {int: 0}
    capacity:
      memory: {value: "80Gi"}
"""

Expected = Any
ROWS: list[tuple[str, Expected]] = [
    ('[3,1,2].sum() == 6', True),
    ('[1.5, 2.5].sum() == 4.0', True),
    ('[1u, 2u].sum() == 3u', True),
    ('[].sum() == 0', True),
    ('[9223372036854775807, 1].sum() == 0', ('error', 'integer overflow')),
    ('[3,1,2].min() == 1 && [3,1,2].max() == 3', True),
    ('["b","a"].min() == "a"', True),
    ('[].min() == 0', ('error', 'min called on empty list')),
    ('[1,2,3].isSorted() && !([3,1].isSorted())', True),
    ('[1,2,3,2].indexOf(2) == 1 && [1,2,3,2].lastIndexOf(2) == 3 && [1].indexOf(5) == -1', True),
    (A + '.cores.min() == 1', ('error', 'no such overload: min(int)')),
    ('[1,2,2,3].distinct() == [1,2,3]', True),
    ('[1,2,3].reverse() == [3,2,1]', True),
    ('[[1],[2,3]].flatten() == [1,2,3]', True),
    ('[1,2,3,4].slice(1,3) == [2,3]', True),
    ('[1,2,3].slice(2,1) == []', ('error', 'cannot slice(2, 1), start index must be less than or equal to end index')),
    ('[1,2,3].slice(0,5) == []', ('error', 'cannot slice(0, 5), list is length 3')),
    ('[3,1,2].sort() == [1,2,3] && ["b","a"].sort() == ["a","b"]', True),
    ('[3,1,2].sortBy(x, -x) == [3,2,1]', True),
    ('[1,2].first().value() == 1 && !([].first().hasValue()) && [1,2].last().value() == 2', True),
    ('lists.range(3) == [0,1,2]', True),
    ('[10,20].all(i, v, v > i)', True),
    ('[10,20].exists(i, v, i == 1 && v == 20)', True),
    ('[10,20].existsOne(i, v, v > 5)', False),
    ('[1].exists_one(i, x, x > 0)', True),
    ('{"a": 1, "b": 2}.all(k, v, v > 0)', True),
    ('[1,2].transformList(i, v, v * 2) == [2, 4]', True),
    ('[1,2,3].transformList(i, v, i > 0, v * 2) == [4, 6]', True),
    ('[1,2].transformMap(i, v, v * 10) == {0: 10, 1: 20}', True),
    ('{"a": 1}.transformMapEntry(k, v, {v: k}) == {1: "a"}', True),
    ('{"a": 1, "b": 2}.transformMapEntry(k, v, {"c": v}) == {}', ('error', 'insert failed: key c already exists')),
    ('[1,2].map(x, x > 1, x * 2) == [4]', True),
    ('[0,1].all(x, 1/x > 0)', ('error', 'division by zero')),
    ('[0,1].exists(x, 1/x > 0)', True),
    ('[0, 1].exists_one(x, 1/x == 1)', ('error', 'division by zero')),
    ('[1, 2].all(x, 1/0 > 1 || x > 0)', True),
    ('dyn(1).all(x, x)', ('error', "got 'types.Int', expected iterable type")),
    ('[1].all(1, v, true)', ('compile', 'compilation failed: ERROR: <input>:1:9: argument must be a simple name')),
    ('[1].all(x, x, true)', ('compile', 'compilation failed: ERROR: <input>:1:12: duplicate variable name: x')),
    ('[1,2].sortBy(1, x) == []', ('compile', 'compilation failed: ERROR: <input>:1:14: argument is not an identifier')),
    ('optional.of(1).optMap(x, x + 1).value() == 2', True),
    ('optional.none().optMap(x, x / 0).hasValue()', False),
    ('optional.of(1).optMap(x, x / 0).hasValue()', ('error', 'division by zero')),
    ('optional.of(1) == optional.of(1)', True),
    ('sets.contains([1,2,3], [1,2]) && sets.equivalent([1,2], [2,1,1]) && !sets.intersects([1,2], [3])', True),
    ('"abc".reverse() == "cba"', ('compile', "compilation failed: ERROR: <input>:1:14: found no matching overload for 'reverse' applied to 'string.()'")),
    ('quantity("1").major() == 1', ('compile', "compilation failed: ERROR: <input>:1:20: found no matching overload for 'major' applied to 'kubernetes.Quantity.()'")),
    (A + '.driverVersion == "1.2.3"', [('error', 'no such overload'), ('error', 'no such key: driverVersion')]),
    ('"1.2.3" == device.attributes["gpu.example.com"].driverVersion', [False, ('error', 'no such key: driverVersion')]),
    ('quantity("1") == dyn(1)', ('error', 'no such overload')),
    # asApproximateFloat of a decimal: its unscaled value with nine decimals, times Go's Pow10
    ('quantity("12345678901234567890").asApproximateFloat() == 1.234567890123457e+19', True),
    ('quantity("12345678901234567890").add(1).asApproximateFloat() == 1.234567890123457e+19', True),
    ('quantity("100.035Ki").asApproximateFloat() == 102435.84', False),
    ('quantity("1e-303").asApproximateFloat() == 1e-303', False),
    ('quantity("0e400").asApproximateFloat() != quantity("0e400").asApproximateFloat()', True),
    ('int("abc") == 1', ('compile', "program instantiation failed: type conversion error from 'string' to 'int'")),
    ('uint(-1) == 1u', ('compile', 'program instantiation failed: unsigned integer overflow')),
    ('int(dyn(true)) == 1', ('compile', 'program instantiation failed: no such overload: int(bool)')),
    ('int("+12") == 12', True),
    ('uint(' + A + '.cores) == 108u', [True, False]),
    ('string(' + A + '.driverVersion) == "1.2.3"', [('error', 'no such overload: string(kubernetes.Semver)'), ('error', 'no such key: driverVersion')]),
    ('int(' + A + '.driverVersion) == 1', [('error', 'no such overload: int(kubernetes.Semver)'), ('error', 'no such key: driverVersion')]),
    ('size(' + A + '.cores) == 1', ('error', 'no such overload: size')),
    ('string(1000000.0) == "1e+06" && string(123456789.0) == "1.23456789e+08" && string(100.0) == "100"', True),
    (A + '.model && true', ('error', 'no such overload')),
    (A + '.ok || device.attributes["gpu.example.com"].cores', [True, ('error', 'no such key: ok')]),
    (A + '.driverVersion > device.attributes["gpu.example.com"].driverVersion', [('error', 'no such overload: _>_'), ('error', 'no such key: driverVersion')]),
    (A + '.big + 1 > 0', [('error', 'integer overflow'), ('error', 'no such key: big')]),
    ('18446744073709551615u + 1u > 0u', ('error', 'unsigned integer overflow')),
    ('(-9223372036854775807 - 1) % -1 == 0', ('error', 'integer overflow')),
    ('0.0 / 0.0 == 0.0 / 0.0', False),
    ('1.0 / 0.0 > 1.0', True),
    (A + '.cores / 0 == 1', ('error', 'division by zero')),
    (A + '.uni.size() == 13 && device.attributes["gpu.example.com"].uni.charAt(1) == "é" && device.attributes["gpu.example.com"].uni.indexOf("ö") == 7 && device.attributes["gpu.example.com"].uni.substring(6, 11) == "wörld"', [True, ('error', 'no such key: uni')]),
    (A + '.uni.substring(14) == ""', [('error', 'index out of range: 14'), ('error', 'no such key: uni')]),
    ('format.dns1123Label().validate("My_Label").value() == []', False),
    ('format.qualifiedName().validate("ex.com/-b").value() == []', False),
    ('format.uri().validate("example.com").value() == []', False),
    ('!format.byte().validate("").hasValue()', False),
    ('format.named("uuid").value() == format.uuid() && !format.named("nope").hasValue()', True),
    ('url("https://user@example.com:8080/a%20b?x=1&x=2#f").getHostname() == "example.com"', True),
    ('url("https://example.com:8080/a?x=1").getPort() == "8080" && url("https://[::1]:80/").getHostname() == "::1"', True),
    ('url("https://example.com/?x=1&x=2&y=3").getQuery() == {"x": ["1","2"], "y": ["3"]}', True),
    ('url("a.com").getHost() == ""', ('error', 'URL parse error during conversion from string: parse "a.com": invalid URI for request')),
    ('isURL("https://ex ample.com")', False),
    ('ip("10.0.0.1").family() == 4 && ip("::1").isLoopback() && ip("10.0.0.1").isGlobalUnicast()', True),
    ('ip.isCanonical("2001:DB8::1")', False),
    ('ip("010.0.0.1").family() == 4', ('error', 'IP Address "010.0.0.1" parse error during conversion from string: ParseAddr("010.0.0.1"): IPv4 field has octet with leading zero')),
    ('cidr("10.0.0.0/8").containsIP("10.1.2.3") && cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16")', True),
    ('string(cidr("10.1.2.3/8").masked()) == "10.0.0.0/8"', True),
    ('cidr("10.0.0.0/33").prefixLength() == 1', ('error', 'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0/33"): prefix length out of range')),
    ('sets.contains([1], ["a"])', ('compile', "compilation failed: ERROR: <input>:1:14: found no matching overload for 'sets.contains' applied to '(list(int), list(string))'")),
    ('sets.contains([])', ('compile', "compilation failed: ERROR: <input>:1:14: found no matching overload for 'sets.contains' applied to '(list(dyn))'")),
    ('cel.bind(1, 1, true)', ('compile', 'compilation failed: ERROR: <input>:1:10: cel.bind() variable names must be simple identifiers')),
    ('format.dns1123Label().validate("My_Label").value() == ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')"]', True),
    ('format.qualifiedName().validate("ex.com/-b").value() == ["name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')"]', True),
    ('null == 1', ('compile', "compilation failed: ERROR: <input>:1:6: found no matching overload for '_==_' applied to '(null, int)'")),
    ('double("nan") > 0.0', ('error', 'NaN values cannot be ordered')),
    ('double("1e400") > 0.0', ('compile', "program instantiation failed: type conversion error from 'string' to 'double'")),
    ('double("inf") > 0.0', True),
    # timestamps and durations: nanoseconds, Go's parsing and texts, the UTC getters
    ('string(timestamp("2024-01-01T00:00:00+05:30")) == "2024-01-01T00:00:00+05:30"', True),
    ('timestamp("2024-01-01T00:00:00+05:30").getMinutes() == 30', True),
    ('timestamp("2024-01-01T00:00:00+05:30").getDayOfMonth() == 30', True),
    ('timestamp("2024-02-29T12:34:56.123Z").getMilliseconds() == 123', True),
    ('timestamp("2024-02-29T12:34:56Z").getDayOfYear() == 59', True),
    ('timestamp("2024-02-29T12:34:56Z").getDayOfWeek() == 4', True),
    ('timestamp("2024-02-29T12:34:56Z").getHours("America/New_York") == 7', True),
    ('timestamp("2024-02-29T12:34:56Z").getHours("+05:30") == 18', True),
    ('timestamp("2024-02-29T12:34:56Z").getMinutes("-00:30") == 4', True),
    ('timestamp("2024-02-29T12:34:56Z").getHours("Nope/Zone") == 0', ('error', 'unknown time zone Nope/Zone')),
    ('timestamp("2024-02-29T12:34:56Z").getHours("x:y") == 0', ('error', 'strconv.Atoi: parsing "x": invalid syntax')),
    ('timestamp("0001-01-01T00:00:00Z").getFullYear("-01:00") == 0', True),
    ('timestamp(0).getMinutes("+05:99") == 39 && timestamp(0).getHours("+05:-30") == 4', True),
    ('timestamp(0).getHours("Local") == 0', True),
    ('timestamp(0).getHours("../x") == 0', ('error', 'time: invalid location name')),
    ('int(timestamp("2024-01-01T00:00:00+05:30")) == 1704047400', True),
    ('timestamp(1700000000) == timestamp("2023-11-14T22:13:20Z")', True),
    ('string(timestamp("2024-02-29T12:34:56,5Z")) == "2024-02-29T12:34:56.5Z"', True),
    ('timestamp("9999-12-31T23:59:59Z") + duration("1ms") > timestamp(0)', True),
    ('timestamp("9999-12-31T23:59:59Z") + duration("1s") > timestamp(0)', ('error', 'timestamp overflow')),
    ('timestamp("0001-01-01T00:00:00Z") - timestamp("1970-01-01T00:00:00Z") < duration("0s")',
     ('error', 'integer overflow')),
    ('timestamp(0) - duration("1s") < timestamp(0)', True),
    ('duration("1ns") > duration("0")', True),
    ('string(duration("1ns")) == "0.000000001s"', True),
    ('string(duration("-1h30m")) == "-5400s"', True),
    ('int(duration("1.5us")) == 1500', True),
    ('duration("1.5h").getMinutes() == 90', True),
    ('duration("-90s").getMinutes() == -1', True),
    ('duration("2562047h") + duration("2562047h") > duration("0")', ('error', 'integer overflow')),
    ('[duration("1s"), duration("2s")].sum() == duration("3s")', True),
    ('[duration("1s"), duration("2s")].max() == duration("2s")', True),
    ('timestamp("2024-01-01T00:00:00Z") + 1 > timestamp(0)', ('compile', "compilation failed: ERROR: <input>:1:35: found no matching overload for '_+_' applied to '(timestamp, int)'")),
    ('duration("1s") - timestamp(0) < timestamp(0)', ('compile', "compilation failed: ERROR: <input>:1:16: found no matching overload for '_-_' applied to '(duration, timestamp)'")),
    ('duration("1s").getDayOfWeek() == 1', ('compile', "compilation failed: ERROR: <input>:1:28: found no matching overload for 'getDayOfWeek' applied to 'duration.()'")),
    ('timestamp("2024-13-01T00:00:00Z") > timestamp(0)', ('compile', 'compilation failed: ERROR: <input>:1:11: invalid timestamp argument')),
    ('timestamp(99999999999999) > timestamp(0)', ('compile', 'compilation failed: ERROR: <input>:1:11: invalid timestamp argument')),
    ('duration("1d") > duration("0")', ('compile', 'compilation failed: ERROR: <input>:1:10: invalid duration argument')),
    ('timestamp(0)', ('compile', 'must evaluate to bool or the unknown type, not google.protobuf.Timestamp')),
    (f'timestamp({A}.model) > timestamp(0)', ('error', "type conversion error from 'string' to 'google.protobuf.Timestamp'")),
    # types as values
    ('type(1) == int && int == type(2) && type(int) == type', True),
    ('type(null) == null_type && type([]) == list && type({}) == map', True),
    ('type(1) == type(1u)', False),
    ('type(timestamp(0)) == google.protobuf.Timestamp && type(duration("1s")) == google.protobuf.Duration', True),
    ('type(optional.of(1)) == optional_type && type(ip("1.2.3.4")) == net.IP', True),
    (f'type({A}.model) == string', True),
    (f'type({A}.uni) == string', [True, ('error', 'no such key: uni')]),
    ('type(1) == dyn', ('compile', "compilation failed: ERROR: <input>:1:12: undeclared reference to 'dyn' (in container '')")),
    # optional entries of list and map literals, trailing commas, a repeated map key
    ('[?optional.of(1), ?optional.none(), 2,].size() == 2', True),
    (f'[?{A}.?uni].size() == 1', [True, False]),
    ("{?'a': optional.of(1), ?'b': optional.none()} == {'a': 1}", True),
    ("{'a': 1, 'a': 2}['a'] == 2 && {'a': 1, 'a': 2}.size() == 1", True),
    ('[,].size() == 0 && {,}.size() == 0', True),
    (f'{A}.?model', ('compile', 'must evaluate to bool or the unknown type, not optional_type(google.protobuf.Any)')),
    ('device.capacity["gpu.example.com"].?memory', ('compile', 'must evaluate to bool or the unknown type, not optional_type(kubernetes.Quantity)')),
    ('optional.none()', ('compile', 'must evaluate to bool or the unknown type, not optional_type(dyn)')),
    # string formatting and quoting (cel-go's strings extension, version 2)
    ('"%s|%d|%x|%X|%o|%b".format(["a", -12, "hé", 255u, 8, true]) == "a|-12|68c3a9|FF|10|1"', True),
    ('"%.2f|%f|%.0f".format([1234567.5, double("inf"), -0.0]) == "1,234,567.50|∞|0"', True),
    ('"%e|%.3e|%e".format([1234567.5, -0.00012, double("nan")]) == "1.234568×10⁰⁶|-1.200000×10⁻⁰⁴|   NaN"', True),
    ('"%s".format([[1, "a", 2.5, b"x", null, true, {"k": 1.0}, double("nan")]]) == \'[1, "a", 2.500000, b"x", null, true, {"k":1.000000}, "NaN"]\'', True),
    ('"%s".format([{2: "b", 1: "a", "z": 1}]) == \'{"z":1, 1:"a", 2:"b"}\'', True),
    ('"%s %s".format([1e21, [timestamp(0), duration("1s"), int]]) == \'1e+21 [timestamp("1970-01-01T00:00:00Z"), duration("1s"), int]\'', True),
    ('"100%% %s".format([null]) == "100% null"', True),
    (f'"%d".format([dyn({A}.model)]) == ""', ('error', 'error during formatting: decimal clause can only be used on integers, was given string')),
    (f'"%s".format([[dyn({A}.driverVersion)]]) == ""',
     [('error', 'error during formatting: no formatting function for kubernetes.Semver'),
      ('error', 'no such key: driverVersion')]),
    (f'"%s %s".format(dyn([{A}.model])) == ""', ('error', 'index 1 out of range')),
    (f'"%s".format([{A}.model]) == ""', ('compile', 'compilation failed: ERROR: <input>:1:50: error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given google.protobuf.Any')),
    (f'"%s".format(dyn({A}.model)) == ""', ('error', 'no such overload: format(string, string)')),
    ('"%s %s".format(["a"]) == ""', ('compile', 'compilation failed: ERROR: <input>:1:15: index 1 out of range')),
    ('"%q".format(["a"]) == ""', ('compile', 'compilation failed: ERROR: <input>:1:12: could not parse formatting clause: unrecognized formatting clause "q"')),
    ('"%d".format([true]) == ""', ('compile', 'compilation failed: ERROR: <input>:1:14: error during formatting: decimal clause can only be used on integers, was given bool')),
    ('"%s".format([1, 2]) == ""', ('compile', 'compilation failed: ERROR: <input>:1:12: too many arguments supplied to string.format (expected 1, got 2)')),
    ('strings.quote("a\\"b\\\\c\\n\\u00e9") == "\\"a\\\\\\"b\\\\\\\\c\\\\n\\u00e9\\""', True),
    # strings extension details, constant patterns, mixed numbers at run time, list costs
    ('"ß".indexOf("é", 5) == -1 && "abc".indexOf("", 10) == 10 && "abc".lastIndexOf("a", 5) == -1', True),
    ('"abc".indexOf("c", -1) == 0', ('error', 'index out of range: -1')),
    ('matches(device.driver, "[")', ('compile', 'program instantiation failed: error parsing regexp: missing closing ]: `[`')),
    (f'{A}.cores + 1u > 0u', [('error', 'no such overload'), ('error', 'no such overload')]),
    ('lists.range(700).distinct().size() == 700', True),
    ('lists.range(710).distinct().size() == 710', ('error', 'operation cancelled: actual cost limit exceeded')),
    ('lists.range(1000).sortBy(x, -x)[0] >= 0', ('error', 'operation cancelled: actual cost limit exceeded')),
]


def _expected_per_device(expected: Expected, count: int) -> list[Any]:
    return expected if isinstance(expected, list) else [expected] * count


def _answer(expression: str) -> Any:
    """What the fallback engine answers, in the rows' notation."""
    try:
        selector = compile_selector(expression, release="1.36", purpose="stored", engine=FALLBACK_ENGINE)
    except CelCompileError as exc:
        return ("compile", exc.detail.split("\n")[0])
    answers: list[Any] = []
    for device in devices_of_slices([yaml.safe_load(SLICE)], consumable_capacity=True):
        try:
            answers.append(selector.evaluate(device.device))
        except CelRuntimeError as exc:
            answers.append(("error", exc.message))
    return answers


@pytest.mark.parametrize(("expression", "expected"), ROWS, ids=[row[0] for row in ROWS])
def test_fallback_engine_answers_as_upstream(expression: str, expected: Expected) -> None:
    answer = _answer(expression)
    if isinstance(expected, tuple) and expected[0] == "compile":
        assert answer == expected
    else:
        assert answer == _expected_per_device(expected, len(answer))


def _oracle() -> Path | None:
    configured = os.environ.get("DRA_UPSTREAM")
    path = Path(configured) if configured else Path(__file__).resolve().parents[3] / "shared/oracle/bin/dra-upstream"
    return path if path.is_file() and os.access(path, os.X_OK) else None


def test_rows_are_upstreams_answers(tmp_path: Path) -> None:
    oracle = _oracle()
    if oracle is None:
        pytest.skip("the upstream binary dra-upstream is not at hand")
    slice_file = tmp_path / "slice.yaml"
    slice_file.write_text(SLICE)
    try:
        run = subprocess.run([str(oracle), "cel", "-stored", "-exprs", "-", str(slice_file)],
                             input=json.dumps([row[0] for row in ROWS]), capture_output=True, text=True,
                             timeout=120, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"the upstream binary cannot run here: {exc}")
    for (expression, expected), line in zip(ROWS, run.stdout.splitlines(), strict=True):
        answer = json.loads(line)
        if answer["compile_error"]:
            assert expected == ("compile", answer["compile_error"].split("\n")[0]), expression
            continue
        devices = [d["result"] if d["error"] is None else ("error", d["error"]) for d in answer["devices"]]
        assert _expected_per_device(expected, len(devices)) == devices, expression
