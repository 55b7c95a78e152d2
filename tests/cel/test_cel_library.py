"""The Kubernetes CEL library in the default engine, row by row as upstream answers.

Each row: an expression, the answer of the unmodified upstream compiler and evaluator on
``DEVICE`` (true/false, ``("error", message)`` for a runtime error, ``("compile", first line)``
for a compile error) and upstream's estimated cost (None where it does not compile or the
estimate saturates). The environment is NewExpressions, as the apiserver validates a new selector.
"""

from __future__ import annotations

import pytest

from dractl.cel import CelCompileError, CelDevice, CelRuntimeError, compile_selector
from dractl.cel.cost import UINT64_MAX
from dractl.cel.engines import DEFAULT_ENGINE, engine_available

pytestmark = pytest.mark.skipif(not engine_available(DEFAULT_ENGINE), reason="cel-expr-python not installed")

GATES = {"DRAConsumableCapacity": True}
DEVICE = CelDevice(
    driver="gpu.example.com",
    attributes={
        "model": {"string": "A100"},
        "cores": {"int": 108},
        "big": {"int": 9223372036854775807},
        "ok": {"bool": True},
        "driverVersion": {"version": "1.2.3"},
        "uni": {"string": "héllo wörld ☃"},
        "other.example.com/numa": {"int": 1},
    },
    capacity={
        "memory": {"value": "40Gi"},
        "milli": {"value": "1000m"},
        "frac": {"value": "1.5Gi"},
        "huge": {"value": "9223372036854775807"},
        "tiny": {"value": "1n"},
    },
)

ROWS_1_36: list[tuple[str, object, int | None]] = [
    ('[1,1,2].distinct() == [1,2]', True, 50),
    ('[1,2].reverse() == [2,1]', True, 34),
    ('[[1],[2,[3]]].flatten() == [1,2,[3]]', ('compile', "ERROR: <input>:1:6: expected type 'list(int)' but found 'list(dyn)'"), None),
    ('[[1],[2,[3]]].flatten(2) == [1,2,3]', ('compile', "ERROR: <input>:1:6: expected type 'list(int)' but found 'list(dyn)'"), None),
    ('[1,2,3].slice(1,2) == [2]', True, 33),
    ('[1,2,3].slice(2,1) == [2]', ('error', 'cannot slice(2, 1), start index must be less than or equal to end index'), None),
    ('[3,1,2].sort() == [1,2,3]', True, 50),
    ('["b","a"].sortBy(x, x) == ["a","b"]', True, 90),
    ('[1,2].first().value() == 1', True, 13),
    ('[1,2].last().value() == 2', True, 13),
    ('lists.range(3) == [0,1,2]', True, 25),
    ('[1,2].all(i, v, v > i)', True, 23),
    ('[1,2].exists(i, v, i == 1 && v == 2)', True, 27),
    ('[1,2].existsOne(i, v, v == 2)', True, 20),
    ('{"a": 1, "b": 2}.exists(k, v, k == "b" && v == 2)', True, 47),
    ('[1,2].transformList(i, v, v * 2) == [2,4]', True, 60),
    ('[1,2].transformList(i, v, v > 1, v * 2) == [4]', True, 64),
    ('{"a": 1}.transformMap(k, v, v + 1) == {"a": 2}', True, 97),
    ('{"a": 1}.transformMap(k, v, v > 5, v + 1) == {}', True, 98),
    ('{"a": 1}.transformMapEntry(k, v, {v: k}) == {1: "a"}', True, 126),
    ('[1,2].transformMapEntry(i, v, {string(v): i}) == {"1": 0, "2": 1}', True, 142),
    ('device.attributes["gpu.example.com"].all(k, v, k != "")', True, 132),
    ('sets.contains([1,2],[1])', True, 23),
    ('sets.equivalent([1,2],[2,1])', True, 29),
    ('sets.intersects([1,2],[3])', False, 23),
]

# Quantities keep their shape (isInteger, asInteger, arithmetic); a library value compared with
# a value of another type is an error on its left of ``==`` (false on its right, true with
# ``!=``); cross-type numeric orderings.
ROWS_1_36 += [
    ('device.attributes["gpu.example.com"].driverVersion == "1.2.3"', ('error', 'no such overload'), 5),
    ('"1.2.3" == device.attributes["gpu.example.com"].driverVersion', False, 5),
    ('device.attributes["gpu.example.com"].driverVersion != 1', True, 5),
    ('device.attributes["gpu.example.com"].driverVersion == 1', ('error', 'no such overload'), 5),
    ('[device.attributes["gpu.example.com"].driverVersion] == ["1.2.3"]', True, 25),
    ('device.attributes["gpu.example.com"].driverVersion == null', False, 5),
    ('dyn(quantity("1")) == 1', ('error', 'no such overload'), 3),
    ('dyn(quantity("1")) != 1', True, 3),
    ('device.attributes["gpu.example.com"].model != semver("1.0.0")', True, 12),
    ('{"a": device.attributes["gpu.example.com"].driverVersion} == {"a": 1}', True, 65),
    ('device.attributes["gpu.example.com"].driverVersion in ["1.2.3"]', ('error', 'internal error: runtime error: hash of unhashable type cel.Semver'), 15),
    ('device.attributes["gpu.example.com"].driverVersion in [semver("1.2.3")]', True, 16),
    ('device.attributes["gpu.example.com"].driverVersion == semver("1.2.3")', True, 12),
    ('device.attributes["gpu.example.com"].cores == quantity("108")', False, 12),
    ('quantity("108") == device.attributes["gpu.example.com"].cores', ('error', 'no such overload'), 12),
    ('quantity("1000m") == quantity("1")', True, 3),
    ('[quantity("1000m")] == [quantity("1")]', True, 23),
    ('quantity("1000m") in [quantity("1")]', True, 13),
    ('device.capacity["gpu.example.com"].milli == quantity("1")', True, 6),
    ('device.capacity["gpu.example.com"] == {"memory": quantity("40Gi")}', False, 35),
    ('device.attributes["gpu.example.com"].model == "A100"', True, 5),
    ('device.attributes["gpu.example.com"].model in ["A100", "B"]', True, 16),
    ('device.attributes["gpu.example.com"].cores in [108, 2]', True, 16),
    ('device.attributes["gpu.example.com"].cores == 108.0', True, 5),
    ('device.attributes["gpu.example.com"].cores == 108u', True, 5),
    ('device.attributes["gpu.example.com"].ok == 1', False, 5),
    ('device.capacity["gpu.example.com"].milli.isInteger()', False, 5),
    ('device.capacity["gpu.example.com"].milli.asInteger() == 1', ('error', 'cannot convert value to integer'), 6),
    ('device.capacity["gpu.example.com"].frac.isInteger()', False, 5),
    ('device.capacity["gpu.example.com"].huge.isInteger()', False, 5),
    ('device.capacity["gpu.example.com"].huge.asInteger() > 0', ('error', 'cannot convert value to integer'), 6),
    ('device.capacity["gpu.example.com"].tiny.asApproximateFloat() > 0.0', True, 6),
    ('device.capacity["gpu.example.com"].milli.add(quantity("1")).isInteger()', False, 7),
    ('quantity("1k").add(quantity("1000")).isInteger()', True, 4),
    ('quantity("9223372036854775807").add(1).isInteger()', False, 4),
    ('quantity("4611686018427387904").add(quantity("4611686018427387904")).isInteger()', False, 6),
    ('quantity("1.1").asApproximateFloat() == 1.1', True, 3),
    ('quantity("1100m").asApproximateFloat() == 1.1', True, 3),
    ('quantity("0.1").add(quantity("0.2")).asApproximateFloat() == 0.3', False, 5),
    # a decimal (here: more than 18 digits) is held with nine decimals: the float of its unscaled
    # value times 1e-9 is not the float nearest to it; Go's math.Pow10 is not always either
    ('quantity("12345678901234567890").asApproximateFloat() == 1.234567890123457e+19', True, 4),
    ('quantity("12345678901234567890").add(1).asApproximateFloat() == 1.234567890123457e+19', True, 5),
    ('quantity("100.035Ki").asApproximateFloat() == 102435.84', False, 3),
    ('quantity("1e-303").asApproximateFloat() == 1e-303', False, 3),
    ('quantity("1e400").asApproximateFloat() == 1.0 / 0.0', True, 4),
    ('quantity("0e400").asApproximateFloat() != quantity("0e400").asApproximateFloat()', True, 5),  # 0 * +Inf
    ('1.5 > 1', True, 1),
    ('1 < 1.5', True, 1),
    ('1u <= 2.0', True, 1),
    ('2.0 >= 1u', True, 1),
    ('1 < 2u', True, 1),
    ('quantity("10").asApproximateFloat() > 10', False, 3),
    ('"a" < "b"', True, 1),
    ('b"a" < b"b"', True, 1),
    ('true > false', True, 1),
    ('duration("1s") < duration("2s")', True, 3),
    ('timestamp("2020-01-01T00:00:00Z") < timestamp("2021-01-01T00:00:00Z")', True, 3),
    ('1 < "a"', ('compile', "ERROR: <input>:1:3: found no matching overload for '_<_' applied to '(int, string)'"), None),
    ('device.attributes["gpu.example.com"].cores > 100.5', True, 5),
    ('device.attributes["gpu.example.com"].model > 5', ('error', 'no such overload'), 5),
]

# The Kubernetes lists library.
ROWS_1_36 += [
    ('[1,2,3].sum() == 6', True, 14),
    ('[1.5,2.5].sum() == 4.0', True, 13),
    ('[1u, 2u].sum() == 3u', True, 13),
    ('[duration("1s"), duration("2s")].sum() == duration("3s")', True, 16),
    ('[].sum() == 0', True, 11),
    ('[9223372036854775807, 1].sum() == 0', ('error', 'integer overflow'), 13),
    ('[1,2,3].min() == 1', True, 14),
    ('[1,2,3].max() == 3', True, 14),
    ('["b","a"].max() == "b"', True, 3689348814741910541),
    ('[].min() == 1', ('error', 'min called on empty list'), 11),
    ('[1,2,3].isSorted()', True, 13),
    ('[3,1].isSorted()', False, 12),
    ('["a","b"].isSorted()', True, 3689348814741910540),
    ('[1,2,1].indexOf(1) == 0', True, 14),
    ('[1,2,1].lastIndexOf(1) == 2', True, 14),
    ('[1,2,1].indexOf(5) == -1', True, 14),
    ('["a"].indexOf("a") == 0', True, 1844674407370955276),
    ('[1].indexOf("a") == 0', ('compile', "ERROR: <input>:1:12: found no matching overload for 'indexOf' applied to 'list(int).(string)'"), None),
    ('[[1],[2]].indexOf([2]) == 1', True, 43),
    ('[quantity("1000m")].indexOf(quantity("1")) == 0', True, 14),
    ('"abc".indexOf("c") == 2', True, 2),
    ('device.attributes["gpu.example.com"].model.indexOf("1") == 1', True, 12),
    ('[dyn(1), dyn(2.0)].sum() == 3', ('error', 'no such overload'), 15),
    ('[dyn(1), dyn("a")].max() == 1', True, 15),
    ('[true, false].min() == false', True, 13),
    ('[1.0, 2.0].isSorted()', True, 12),
]

# The Kubernetes ip and cidr libraries.
ROWS_1_36 += [
    ('ip("10.0.0.1").family() == 4', True, 3),
    ('isIP("::1")', True, 1),
    ('isIP("10.0.0.256")', False, 1),
    ('ip("::1").isLoopback()', True, 2),
    ('ip.isCanonical("10.0.0.1")', True, 2),
    ('ip.isCanonical("2001:DB8::1")', False, 3),
    ('ip.isCanonical("bad")', ('error', 'IP Address "bad" parse error during conversion from string: ParseAddr("bad"): unable to parse IP'), 1),
    ('ip("10.0.0.01") == ip("10.0.0.1")', ('error', 'IP Address "10.0.0.01" parse error during conversion from string: ParseAddr("10.0.0.01"): IPv4 field has octet with leading zero'), 3),
    ('ip("::ffff:1.2.3.4").family() == 6', ('error', 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'), 4),
    ('cidr("10.0.0.0/8").containsIP(ip("10.1.2.3"))', True, 6),
    ('cidr("10.0.0.0/8").containsIP("10.1.2.3")', True, 6),
    ('cidr("10.0.0.0/8").containsIP("bad")', ('error', 'no such overload'), 6),
    ('cidr("10.0.0.0/8").containsCIDR("bad")', ('error', 'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("bad"): no \'/\''), 9),
    ('cidr("10.0.0.0/8").prefixLength() == 8', True, 3),
    ('cidr("10.1.0.0/8").masked() == cidr("10.0.0.0/8")', True, 4),
    ('cidr("10.1.0.0/8") == cidr("10.0.0.0/8")', False, 3),
    ('cidr("10.0.0.0/8").ip() == ip("10.0.0.0")', True, 4),
    ('isCIDR("10.0.0.0/8")', True, 1),
    ('isCIDR("10.0.0.0/33")', False, 2),
    ('cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16")', True, 10),
    ('cidr("10.0.0.0/8").containsCIDR(cidr("10.1.0.0/16"))', True, 10),
    ('string(ip("10.0.0.1")) == "10.0.0.1"', True, 3),
    ('string(cidr("10.0.0.0/8")) == "10.0.0.0/8"', True, 3),
    ('ip("fe80::1").isLinkLocalUnicast()', True, 2),
    ('ip("ff02::1").isLinkLocalMulticast()', True, 2),
    ('ip("10.0.0.1").isGlobalUnicast()', True, 2),
    ('ip("0.0.0.0").isUnspecified()', True, 2),
    ('ip("1.2.3.4") == "1.2.3.4"', ('compile', "ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(net.IP, string)'"), None),
    ('ip("1.2.3.4") == ip("1.2.3.4")', True, 3),
    ('ip(device.attributes["gpu.example.com"].model).family() == 4', ('error', 'IP Address "A100" parse error during conversion from string: ParseAddr("A100"): unable to parse IP'), 13),
    ('isIP(device.attributes["gpu.example.com"].model)', False, 11),
    ('cidr("::1/129").prefixLength() == 1', ('error', 'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("::1/129"): prefix length out of range'), 3),
    ('string(cidr("10.1.0.0/8").masked()) == "10.0.0.0/8"', True, 4),
]

# Strings by code point, with cel-go's index errors; runtime overload errors as cel-go words them.
ROWS_1_36 += [
    ('"ß".charAt(4) == "é"', ('error', 'index out of range: 4'), 2),
    ('"héllo".charAt(1) == "é"', True, 2),
    ('"héllo".charAt(5) == ""', True, 1),
    ('"héllo".charAt(-1) == ""', ('error', 'index out of range: -1'), 1),
    ('"héllo".substring(1) == "éllo"', True, 2),
    ('"héllo".substring(9) == ""', ('error', 'index out of range: 9'), 1),
    ('"héllo".substring(-1) == ""', ('error', 'index out of range: -1'), 1),
    ('"héllo".substring(1, 3) == "él"', True, 2),
    ('"héllo".substring(3, 1) == ""', ('error', 'invalid substring range. start: 3, end: 1'), 1),
    ('"héllo".substring(2, 9) == ""', ('error', 'index out of range: 9'), 1),
    ('"héllo".substring(-2, 9) == ""', ('error', 'index out of range: -2'), 1),
    ('"héllo".indexOf("l") == 2', True, 2),
    ('"héllo".indexOf("l", 3) == 3', True, 2),
    ('"héllo".indexOf("l", 9) == -1', True, 2),
    ('"héllo".indexOf("l", -1) == -1', ('error', 'index out of range: -1'), 2),
    ('"héllo".indexOf("", 2) == 2', True, 2),
    ('"héllo".lastIndexOf("l") == 3', True, 2),
    ('"héllo".lastIndexOf("l", 2) == 2', True, 2),
    ('"héllo".lastIndexOf("", 2) == 2', True, 2),
    ('"héllo".lastIndexOf("") == 5', True, 2),
    ('"héllo".lastIndexOf("l", -1) == 2', ('error', 'index out of range: -1'), 2),
    ('"héllo".lastIndexOf("lo", 4) == 3', True, 2),
    ('size("héllo") == 5', True, 2),
    ('device.attributes["gpu.example.com"].uni.indexOf("w") == 6', True, 12),
    ('device.attributes["gpu.example.com"].uni.charAt(12) == "☃"', True, 6),
    ('device.attributes["gpu.example.com"].uni.substring(6, 11) == "wörld"', True, 12),
    ('device.attributes["gpu.example.com"].uni.size() == 13', True, 6),
    ('size(device.attributes["gpu.example.com"].cores) > 0', ('error', 'no such overload: size'), 6),
    ('device.attributes["gpu.example.com"].cores.size() > 0', ('error', 'no such overload: size'), 6),
    ('int(device.attributes["gpu.example.com"].driverVersion) > 0', ('error', 'no such overload: int(kubernetes.Semver)'), 6),
    ('device.attributes["gpu.example.com"].driverVersion > "1.0.0"', ('error', 'no such overload: _>_'), 5),
    ('device.attributes["gpu.example.com"].cores > device.attributes["gpu.example.com"].driverVersion', ('error', 'no such overload'), 15),
    ('device.attributes["gpu.example.com"].model.minor() == 0', ('error', 'no such overload: minor(string)'), 6),
    ('device.attributes["gpu.example.com"].model.isGreaterThan(semver("1.0.0"))', ('error', 'no such overload: isGreaterThan(string, kubernetes.Semver)'), 6),
    ('semver("1.0.0").compareTo(device.attributes["gpu.example.com"].cores) <= 0', ('error', 'no such overload: compareTo(kubernetes.Semver, int)'), 7),
]

# The Kubernetes format library.
ROWS_1_36 += [
    ('format.dns1123Label().validate("a").hasValue()', False, 34),
    ('format.named("uuid").hasValue()', True, 2),
    ('format.named("x").hasValue()', False, 2),
    ('format.uuid().validate(device.attributes["gpu.example.com"].model).hasValue()', True, 230),
    ('{"a":1}[format.dns1035Label().validate("A_b").value()[0]] == 1', ('error', "no such key: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"), 67),
    ('{"a":1}[format.uri().validate("x y").value()[0]] == 1', ('error', 'no such key: parse "x y": invalid URI for request'), 67),
    ('{"a":1}[format.datetime().validate("x y").value()[0]] == 1', ('error', 'no such key: invalid datetime'), 67),
    ('format.named("uuid").value().validate("a").hasValue()', True, 35),
    ('format.qualifiedName().validate("a/b/c").value().size() == 1', True, 36),
    ('format.labelValue().validate("-a").orValue([]).size() == 1', True, 46),
    ('format.dns1123SubdomainPrefix().validate("abc-").hasValue()', False, 34),
    ('format.named("dns1035LabelPrefix").hasValue()', True, 2),
    ('!format.dns1035LabelPrefix().validate("").hasValue()', False, 3),
    ('format.named("byte").value().validate("aGVsbG8=").hasValue()', False, 35),
]

# The Kubernetes url library.
ROWS_1_36 += [
    ('url("https://example.com:80/path?q=1").getScheme() == "https"', True, 6),
    ('url("HTTPS://example.com:80/path?q=1").getScheme() == "https"', True, 6),
    ('url("https://example.com:80/path?q=1").getHost() == "example.com:80"', True, 7),
    ('url("https://example.com:80/path?q=1").getHostname() == "example.com"', True, 7),
    ('url("https://[::1]:80/path").getHostname() == "::1"', True, 5),
    ('url("https://example.com:80/path?q=1").getPort() == "80"', True, 6),
    ('url("https://example.com/path").getPort() == ""', True, 4),
    ('url("https://example.com:80/a%20b?q=1").getEscapedPath() == "/a%20b"', True, 6),
    ('url("https://example.com/a b").getEscapedPath() == "/a%20b"', True, 5),
    ('url("https://example.com/path?q=1&q=2").getQuery() == {"q": ["1","2"]}', True, 46),
    ('url("https://example.com/path?a=1;b=2&c=3").getQuery() == {"c": ["3"]}', True, 46),
    ('isURL("https://example.com")', True, 1),
    ('isURL("not a url")', False, 1),
    ('isURL("/relative")', True, 1),
    ('url("bad url") == url("bad url")', ('error', 'URL parse error during conversion from string: parse "bad url": invalid URI for request'), 3),
    ('url("https://a.b/x") == url("https://a.b/x")', True, 6),
    ('url("mailto:me@x").getHost() == ""', True, 3),
    ('url("/p?x=1").getQuery()["x"][0] == "1"', True, 5),
    ('url(device.attributes["gpu.example.com"].model).getHost() == ""', ('error', 'URL parse error during conversion from string: parse "A100": invalid URI for request'), 12),
    ('type(url("/relative/path")) == url', ('compile', "ERROR: <input>:1:32: undeclared reference to 'url' (in container '')"), None),
    ('url(1).getHost() == ""', ('compile', "ERROR: <input>:1:4: found no matching overload for 'url' applied to '(int)'"), None),
]

# cel-go's two-variable exists_one, lists.range of a negative count, orderings of two values
# whose types only the device knows, library type names that upstream does not declare.
ROWS_1_36 += [
    ('[1, 0, 2, 3, 5].exists_one(i, v, i == 0)', True, 32),
    ('[1, 0, 2].exists_one(x, x == 0)', True, 24),
    ('{"a": 1}.exists_one(k, v, v == 1)', True, 36),
    ('[1, 0, 2, 3, 5].exists_one(i, v, i == "a")', ('compile', "ERROR: <input>:1:36: found no matching overload for '_==_' applied to '(int, string)'"), None),
    ('["a,b", "c"].exists_one(i, v, v == "a,b")', True, 20),
    ('lists.range(-1).size() == 0', True, 13),
    ('lists.range(3) == [0, 1, 2]', True, 25),
    ('device.attributes["gpu.example.com"].driverVersion > device.attributes["gpu.example.com"]["driverVersion"]', ('error', 'no such overload: _>_'), 15),
    ('device.attributes["gpu.example.com"].driverVersion < device.attributes["gpu.example.com"].driverVersion', ('error', 'no such overload: _<_'), 15),
    ('device.attributes["gpu.example.com"].cores > device.attributes["gpu.example.com"].big', False, 15),
    ('device.attributes["gpu.example.com"].model < device.attributes["gpu.example.com"].uni', True, 15),
    ('device.attributes["gpu.example.com"].model < device.attributes["gpu.example.com"].cores', ('error', 'no such overload'), 15),
    ('device.attributes["gpu.example.com"].cores >= 100', True, 5),
    ('dyn(1) < dyn(1.5)', True, 3),
    ('type(quantity("1")) == kubernetes.Quantity', ('compile', "ERROR: <input>:1:24: undeclared reference to 'kubernetes' (in container '')"), None),
    ('type(semver("1.0.0")) == kubernetes.Semver', ('compile', "ERROR: <input>:1:26: undeclared reference to 'kubernetes' (in container '')"), None),
    ('kubernetes.DRADevice == type(device)', ('compile', 'program instantiation failed: reference to undefined type: kubernetes.DRADevice'), None),
    ('type(url("http://user@host:8080/a%20b")) == kubernetes.URL', ('compile', "ERROR: <input>:1:45: undeclared reference to 'kubernetes' (in container '')"), None),
    ('type(1) == int', True, 1844674407370955266),
]

# Libraries introduced after a release's compatibility version are not declared for new
# expressions of that release (1.34: compatibility version 1.33, before cel-go's list extension).
ROWS_1_34: list[tuple[str, object]] = [
    ('[1,1,2].distinct() == [1,2]', ('compile', "ERROR: <input>:1:17: undeclared reference to 'distinct' (in container '')")),
    ('[1,2].reverse() == [2,1]', ('compile', "ERROR: <input>:1:14: undeclared reference to 'reverse' (in container '')")),
    ('[[1],[2,[3]]].flatten() == [1,2,[3]]', ('compile', "ERROR: <input>:1:22: undeclared reference to 'flatten' (in container '')")),
    ('[[1],[2,[3]]].flatten(2) == [1,2,3]', ('compile', "ERROR: <input>:1:22: undeclared reference to 'flatten' (in container '')")),
    ('[1,2,3].slice(1,2) == [2]', ('compile', "ERROR: <input>:1:14: undeclared reference to 'slice' (in container '')")),
    ('[1,2,3].slice(2,1) == [2]', ('compile', "ERROR: <input>:1:14: undeclared reference to 'slice' (in container '')")),
    ('[3,1,2].sort() == [1,2,3]', ('compile', "ERROR: <input>:1:13: undeclared reference to 'sort' (in container '')")),
    ('["b","a"].sortBy(x, x) == ["a","b"]', ('compile', "ERROR: <input>:1:17: undeclared reference to 'sortBy' (in container '')")),
    ('lists.range(3) == [0,1,2]', ('compile', "ERROR: <input>:1:1: undeclared reference to 'lists' (in container '')")),
]


def answer(expression: str, release: str) -> tuple[object, int | None]:
    try:
        selector = compile_selector(expression, release=release, gates=GATES, engine=DEFAULT_ENGINE)
    except CelCompileError as exc:
        return ("compile", str(exc).removeprefix("compilation failed: ").split("\n")[0]), None
    cost = None if selector.cost == UINT64_MAX else selector.cost
    try:
        return selector.evaluate(DEVICE), cost
    except CelRuntimeError as exc:
        return ("error", str(exc)), cost


@pytest.mark.parametrize(("expression", "expected", "cost"), ROWS_1_36, ids=[row[0] for row in ROWS_1_36])
def test_upstream_answer(expression: str, expected: object, cost: int | None) -> None:
    got, got_cost = answer(expression, "1.36")
    assert got == expected
    if not isinstance(expected, tuple) or expected[0] != "compile":
        assert got_cost == cost


@pytest.mark.parametrize(("expression", "expected"), ROWS_1_34, ids=[row[0] for row in ROWS_1_34])
def test_not_in_older_release(expression: str, expected: object) -> None:
    assert answer(expression, "1.34")[0] == expected
