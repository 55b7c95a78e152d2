"""Random but plausible DRA CEL selectors and ResourceSlices, reproducible from a seed.

Independent of dractl (standard library only), so the same cases can be fed to the upstream
compiler and to dractl. Every expression belongs to a *topic* (the library or the edge it
exercises); a disagreement with upstream is filed under its topic.

    slices_yaml(seed, kind)         -> YAML text of ResourceSlices ("scalars", "lists", "listattr")
    expressions(seed, topic, n)     -> n expressions of one topic
    TOPICS                          -> every topic name
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

DRIVER = "gpu.example.com"
OTHER_DRIVER = "net.example.org"
OTHER_DOMAIN = "topology.example.io"
MISSING_DOMAIN = "missing.example.com"

# Attribute names of the generated devices, by kind (scalar kinds; list kinds in LIST_ATTRIBUTES).
SCALAR_ATTRIBUTES = {
    "model": "string",
    "uuid": "string",
    "label": "string",
    "cores": "int",
    "numa": "int",
    "ecc": "bool",
    "driverVersion": "version",
}
OTHER_ATTRIBUTES = {"zone": "string", "rack": "int", "healthy": "bool"}
LIST_ATTRIBUTES = {"ids": "ints", "flags": "bools", "tags": "strings", "compat": "versions"}
CAPACITIES = ("memory", "slots", "bandwidth")

ASCII_STRINGS = ("H100", "A100", "a100", "gpu-0", "", " padded ", "x", "abc", "ABC", "a,b,c", "hello world")
UNICODE_STRINGS = ("Tésla-Ω", "日本語テキスト", "🚀gpu🚀", "naïve café", "Ünïcödé", "ß", "İstanbul", "e\u0301", "Ωmega")
VERSIONS = ("1.2.3", "0.0.1", "2.0.0-rc.1", "2.0.0-rc.1+build.5", "10.20.30", "1.0.0-alpha", "1.0.0")
BAD_VERSIONS = ("1.2", "v1.2.3", "01.2.3", "1.2.3.4", "", "abc")

# Quantities: every suffix, fractions, exponents, and the int64 limits (on both sides).
QUANTITIES = (
    "0", "1", "100", "1500m", "1000m", "1.5", "0.5", "100n", "250u", "7m",
    "1k", "2M", "3G", "4T", "5P", "1E", "1Ki", "2Mi", "40Gi", "80Gi", "1.5Gi", "3Ti", "4Pi", "2Ei",
    "1e3", "2E6", "1.5e-3", "12e0",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "7Ei", "8Ei", "16Ei", "-1Gi", "-500m", "1e18", "1e19", "123456789012345678901234567890",
)
BAD_QUANTITIES = ("", "1.2.3", "abc", "1Zi", "Gi", "--1", "1 Gi", "0x10")
INT_EDGES = (0, 1, -1, 2, 7, 128, 1000, 2147483647, 4294967296, 9223372036854775807, -9223372036854775807)
IPS = ("10.0.0.1", "192.168.1.10", "127.0.0.1", "0.0.0.0", "::1", "2001:db8::1", "fe80::1", "224.0.0.1",
       "ff02::1", "::ffff:10.0.0.1", "2001:DB8::1", "010.0.0.1", "1.2.3", "not-an-ip")
CIDRS = ("10.0.0.0/8", "192.168.0.0/16", "192.168.1.10/24", "::1/128", "2001:db8::/32", "0.0.0.0/0",
         "10.0.0.0/33", "fe80::/10", "bad/8")
URLS = ("https://example.com/path?x=1", "http://user@host:8080/a%20b", "https://[::1]:443/", "/relative/path",
        "example.com", "https://ex ample.com", "ftp://files.example.org/pub/", "https://例え.jp/パス", "://bad",
        "https://example.com:99999/", "")
REGEX_PATTERNS = ("^H\\d+$", "[0-9]+", "a|b", "^$", "(?i)h100", ".*", "\\p{L}+", "(a)(b)?", "[", "a{2,}", "x*",
                  "\\d", "(?P<n>a)")
CODEPOINT_PATTERNS = ("^.{3}$", "^\\w+$", "^[^a-z]", "é", "^\\p{Lu}")
STRING_CONVERTIBLES = ("1.5", "1e100", "-0.0", "1u", "true", 'b"abc"', 'b"\\xff"', "null", "-9223372036854775808")
FORMATS = ("dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix",
           "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date", "datetime")


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


# --- ResourceSlices ----------------------------------------------------------------------------


def _attribute_entry(kind: str, r: random.Random) -> str:
    if kind == "string":
        value = r.choice(ASCII_STRINGS + UNICODE_STRINGS)
        return f"{{string: {_quote(value)}}}"
    if kind == "int":
        return f"{{int: {r.choice((*INT_EDGES, r.randint(-5, 300), r.randint(0, 8)))}}}"
    if kind == "bool":
        return f"{{bool: {'true' if r.random() < 0.5 else 'false'}}}"
    if kind == "version":
        return f"{{version: {_quote(r.choice(VERSIONS))}}}"
    if kind == "ints":
        values = [r.choice((0, 1, 2, 3, 5, 8, -1, 100, 9223372036854775807)) for _ in range(r.randint(1, 5))]
        return f"{{ints: [{', '.join(map(str, values))}]}}"
    if kind == "bools":
        return f"{{bools: [{', '.join(r.choice(('true', 'false')) for _ in range(r.randint(1, 3)))}]}}"
    if kind == "strings":
        values = [r.choice(ASCII_STRINGS[:4] + UNICODE_STRINGS[:3]) for _ in range(r.randint(1, 4))]
        return f"{{strings: [{', '.join(map(_quote, values))}]}}"
    if kind == "versions":
        return f"{{versions: [{', '.join(_quote(r.choice(VERSIONS)) for _ in range(r.randint(1, 3)))}]}}"
    raise ValueError(kind)


def _device(r: random.Random, name: str, driver: str, lists: int) -> list[str]:
    lines = [f"  - name: {name}"]
    if driver == DRIVER and r.random() < 0.3:
        lines.append("    allowMultipleAllocations: true")
    attributes: list[str] = []
    own = SCALAR_ATTRIBUTES if driver == DRIVER else {"model": "string", "cores": "int", "ecc": "bool"}
    for attr, kind in own.items():
        if r.random() < 0.8:  # some names are missing on some devices
            qualified = r.random() < 0.25
            key = f"{driver}/{attr}" if qualified else attr
            attributes.append(f"      {_quote(key)}: {_attribute_entry(kind, r)}")
    if r.random() < 0.6:  # the other domain is missing on some devices
        for attr, kind in OTHER_ATTRIBUTES.items():
            if r.random() < 0.8:
                attributes.append(f"      {_quote(OTHER_DOMAIN + '/' + attr)}: {_attribute_entry(kind, r)}")
    list_names = r.sample(sorted(LIST_ATTRIBUTES), k=min(lists, len(LIST_ATTRIBUTES)))
    for attr in sorted(list_names):
        attributes.append(f"      {_quote(attr)}: {_attribute_entry(LIST_ATTRIBUTES[attr], r)}")
    if attributes:
        lines.append("    attributes:")
        lines.extend(attributes)
    capacities = [c for c in CAPACITIES if r.random() < 0.7]
    if capacities:
        lines.append("    capacity:")
        for capacity in capacities:
            key = f"{driver}/{capacity}" if r.random() < 0.2 else capacity
            lines.append(f"      {_quote(key)}: {{value: {_quote(r.choice(QUANTITIES))}}}")
    return lines


def _slice(r: random.Random, name: str, driver: str, devices: int, lists: Callable[[int], int]) -> str:
    lines = [
        "---",
        "apiVersion: resource.k8s.io/v1",
        "kind: ResourceSlice",
        f"metadata: {{name: {name}}}",
        "spec:",
        f"  driver: {driver}",
        f"  pool: {{name: {name}-pool, generation: 1, resourceSliceCount: 1}}",
        "  nodeName: node-1",
        "  devices:",
    ]
    for index in range(devices):
        lines.extend(_device(r, f"dev-{index}", driver, lists(index)))
    return "\n".join(lines) + "\n"


SLICE_KINDS = ("scalars", "lists", "listattr")


def slices_yaml(seed: int, kind: str) -> str:
    """ResourceSlices for one corpus: ``scalars`` (no list attributes), ``lists`` (list attributes
    on most devices: for DRAListTypeAttributes), ``listattr`` (exactly one list attribute on one
    device: the gate-off conversion error, whose attribute name is then deterministic)."""
    r = random.Random(f"{seed}:{kind}")
    header = f"# ResourceSlices generated by cel_generator.slices_yaml({seed}, {kind!r}).\n"
    if kind == "scalars":
        return header + _slice(r, "gpus", DRIVER, 5, lambda i: 0) + _slice(r, "nics", OTHER_DRIVER, 2, lambda i: 0)
    if kind == "lists":
        return header + _slice(r, "gpus", DRIVER, 5, lambda i: r.randint(1, 4) if i else 0) + _slice(
            r, "nics", OTHER_DRIVER, 1, lambda i: 1)
    if kind == "listattr":
        return header + _slice(r, "gpus", DRIVER, 3, lambda i: 1 if i == 1 else 0)
    raise ValueError(f"unknown slice kind {kind!r}; choose one of {', '.join(SLICE_KINDS)}")


# --- expressions -------------------------------------------------------------------------------


class Gen:
    """Building blocks for one topic's expressions."""

    def __init__(self, r: random.Random) -> None:
        self.r = r

    def pick(self, *options: str) -> str:
        return self.r.choice(options)

    def domain(self) -> str:
        return self.r.choices((DRIVER, OTHER_DOMAIN, OTHER_DRIVER, MISSING_DOMAIN), (8, 3, 1, 1))[0]

    def attr(self, kind: str | None = None, *, domain: str | None = None) -> str:
        """An attribute reference, usually of ``kind``, sometimes of a missing name or domain."""
        r = self.r
        if domain is None:
            domain = DRIVER if kind in SCALAR_ATTRIBUTES.values() or kind is None else self.domain()
            if r.random() < 0.15:
                domain = self.domain()
        pool = OTHER_ATTRIBUTES if domain == OTHER_DOMAIN else SCALAR_ATTRIBUTES
        names = [n for n, k in pool.items() if kind is None or k == kind] or list(pool)
        name = r.choice(names) if r.random() < 0.92 else r.choice(("missing", "Model", "gpu.example.com/model"))
        if r.random() < 0.15 or not name.isidentifier():
            return f"device.attributes[{_quote(domain)}][{_quote(name)}]"
        return f"device.attributes[{_quote(domain)}].{name}"

    def list_attr(self, kind: str | None = None) -> str:
        names = [n for n, k in LIST_ATTRIBUTES.items() if kind is None or k == kind]
        name = self.r.choice(names) if self.r.random() < 0.9 else "missing"
        return f"device.attributes[{_quote(DRIVER)}].{name}"

    def cap(self) -> str:
        r = self.r
        domain = DRIVER if r.random() < 0.85 else r.choice((OTHER_DRIVER, MISSING_DOMAIN))
        name = r.choice(CAPACITIES) if r.random() < 0.9 else "missing"
        if r.random() < 0.15:
            return f"device.capacity[{_quote(domain)}][{_quote(name)}]"
        return f"device.capacity[{_quote(domain)}].{name}"

    def int_lit(self) -> str:
        return str(self.r.choice((*INT_EDGES, self.r.randint(-3, 10), self.r.randint(0, 200))))

    def small_int(self) -> str:
        return str(self.r.randint(-2, 6))

    def str_lit(self, unicode: bool = True) -> str:
        pool = ASCII_STRINGS + UNICODE_STRINGS if unicode else ASCII_STRINGS
        return _quote(self.r.choice(pool))

    def int_list(self) -> str:
        r = self.r
        return "[" + ", ".join(str(r.choice((0, 1, 2, 3, 3, 5, 8, -4, 100))) for _ in range(r.randint(0, 5))) + "]"

    def str_list(self) -> str:
        r = self.r
        return "[" + ", ".join(_quote(r.choice(("a", "b", "c", "B", "é", "日本", ""))) for _ in range(r.randint(0, 4))) + "]"

    def any_list(self) -> str:
        return self.r.choice((self.int_list(), self.str_list(), "[1.5, -0.0, 2.0]", "[true, false]",
                              "[[1, 2], [3], []]", '[semver("1.0.0"), semver("0.9.0")]',
                              '[quantity("1Gi"), quantity("1k")]', "[1u, 3u, 2u]", "[]"))

    def quantity(self) -> str:
        return f"quantity({_quote(self.r.choice(QUANTITIES))})" if self.r.random() < 0.6 else self.cap()

    def version(self) -> str:
        return f"semver({_quote(self.r.choice(VERSIONS))})" if self.r.random() < 0.4 else self.attr("version")

    def string(self) -> str:
        return self.r.choice((self.str_lit(), self.attr("string"), self.attr("string"), "device.driver"))

    def integer(self) -> str:
        return self.r.choice((self.int_lit(), self.attr("int"), self.attr("int")))

    def cmp(self) -> str:
        return self.pick("==", "!=", "<", "<=", ">", ">=")


Topic = Callable[[Gen], str]


def _attributes(g: Gen) -> str:
    r = g.r
    a = g.attr()
    return r.choice((
        f"{g.attr('string')} == {g.str_lit()}",
        f"{g.attr('int')} {g.cmp()} {g.int_lit()}",
        f"{g.attr('bool')}",
        f"!{g.attr('bool')}",
        f"has({a})",
        f"has({g.attr('string')}) && {g.attr('string')}.startsWith({g.str_lit(False)})",
        f"{_quote(g.domain())} in device.attributes",
        f"{_quote(r.choice(list(SCALAR_ATTRIBUTES)))} in device.attributes[{_quote(g.domain())}]",
        f"device.driver == {_quote(r.choice((DRIVER, OTHER_DRIVER, 'x')))}",
        f"device.driver {g.cmp()} {_quote(r.choice((DRIVER, OTHER_DRIVER)))}",
        f"device.allowMultipleAllocations{r.choice(('', ' == true', ' || ' + g.attr('bool')))}",
        f"{a} == {a}",
        f"device.attributes[{_quote(g.domain())}].size() {g.cmp()} {r.randint(0, 8)}",
        f"device.capacity.size() {g.cmp()} {r.randint(0, 3)}",
        f"size(device.attributes) > 0 && {g.attr('int')} > 0",
        f"device.attributes.exists(d, d == {_quote(g.domain())})",
        f"device.attributes[{_quote(DRIVER)}].exists(k, k.startsWith({_quote(r.choice('mcdn'))}))",
        f"{g.attr('string')} in [{g.str_lit()}, {g.str_lit()}]",
        f"{g.attr('int')} in [{g.int_lit()}, {g.int_lit()}]",
        f"{g.attr('bool')} == {r.choice(('true', 'false'))} && {g.attr('int')} != {g.int_lit()}",
        f"{g.attr('string')} == {g.str_lit()} || {g.attr('int')} {g.cmp()} {g.int_lit()}",
        f"device.attributes[{_quote(DRIVER)}].?{r.choice((*SCALAR_ATTRIBUTES, 'missing'))}.hasValue()",
    ))


def _quantity(g: Gen) -> str:
    r = g.r
    q, q2 = g.quantity(), g.quantity()
    return r.choice((
        f"{q}.compareTo({q2}) {g.cmp()} 0",
        f"{q}.isGreaterThan({q2})",
        f"{q}.isLessThan({q2})",
        f"{q}.asInteger() {g.cmp()} {g.int_lit()}",
        f"{q}.asApproximateFloat() {g.cmp()} {r.choice(('0.0', '1e9', '1.5', '-1.0'))}",
        f"{q}.isInteger()",
        f"sign({q}) {g.cmp()} {r.choice(('0', '1', '-1'))}",
        f"{q}.sign() == 1",
        f"{q}.add({q2}).isGreaterThan({g.quantity()})",
        f"sign({q}.sub({q2})) >= 0",
        f"{q}.add({g.int_lit()}).asInteger() > 0",
        f"{q}.sub({g.small_int()}).isInteger()",
        f"isQuantity({_quote(r.choice(QUANTITIES + BAD_QUANTITIES))})",
        f"sign(quantity({_quote(r.choice(BAD_QUANTITIES))})) == 0",
        f"{q} == {q2}",
        f"{q} {g.pick('<', '>')} {q2}",
        f"{q}.asInteger() == {q}.asApproximateFloat()",
        f"{g.cap()}.isGreaterThan(quantity({_quote(r.choice(QUANTITIES))}))",
    ))


def _quantity_edge(g: Gen) -> str:
    r = g.r
    edge = r.choice(("9223372036854775807", "9223372036854775808", "-9223372036854775808",
                     "-9223372036854775809", "8Ei", "7Ei", "16Ei", "1.5Gi", "1000m", "1500m", "1e18",
                     "1e19", "100n", "0.5", "1E", "123456789012345678901234567890", "2Ei", "1u"))
    q = f"quantity({_quote(edge)})"
    return r.choice((
        f"{q}.asInteger() > 0",
        f"{q}.isInteger()",
        f"!{q}.isInteger()",
        f"{q}.asApproximateFloat() > 0.0",
        f"{q}.add({r.choice(('1', '-1', '9223372036854775807'))}).asInteger() != 0",
        f"{q}.sub(quantity({_quote(r.choice(QUANTITIES))})).isInteger()",
        f"{q}.add(quantity({_quote(edge)})).asInteger() > 0",
        f"{q}.compareTo(quantity({_quote(r.choice(QUANTITIES))})) == 0",
        f"{g.cap()}.asInteger() > 0",
        f"{g.cap()}.isInteger()",
        f"{g.cap()}.add({g.cap()}).asInteger() > 0",
        f"sign({q}) == 1",
    ))


def _semver(g: Gen) -> str:
    r = g.r
    v, v2 = g.version(), g.version()
    text = _quote(r.choice(VERSIONS + BAD_VERSIONS))
    return r.choice((
        f"{v}.compareTo({v2}) {g.cmp()} 0",
        f"{v}.isGreaterThan({v2})",
        f"{v}.isLessThan({v2})",
        f"{v}.major() {g.cmp()} {r.randint(0, 3)}",
        f"{v}.minor() == {r.randint(0, 3)} && {v}.patch() >= 0",
        f"isSemver({text})",
        f"isSemver({text}, {r.choice(('true', 'false'))})",
        f"semver({text}).major() >= 0",
        f"semver({text}, true).minor() >= 0",
        f"{v} == {v2}",
        f"{v} {g.pick('<', '>')} {v2}",
        f"{g.attr('version')}.isGreaterThan(semver({_quote(r.choice(VERSIONS))}))",
        f"{g.attr('version')} == semver({_quote(r.choice(VERSIONS))})",
    ))


def _strings_ext(g: Gen) -> str:
    r = g.r
    s = g.string()
    return r.choice((
        f"{s}.charAt({g.small_int()}) == {_quote(r.choice(('a', 'H', '', 'é')))}",
        f"{s}.indexOf({_quote(r.choice(('a', '0', '', '-', 'é')))}) {g.cmp()} {g.small_int()}",
        f"{s}.indexOf({_quote(r.choice(('a', '1')))}, {g.small_int()}) >= 0",
        f"{s}.lastIndexOf({_quote(r.choice(('a', '0', '')))}) {g.cmp()} {g.small_int()}",
        f"{s}.lastIndexOf({_quote('a')}, {g.small_int()}) >= -1",
        f"{s}.lowerAscii() == {g.str_lit()}",
        f"{s}.upperAscii().startsWith({_quote(r.choice(('H', 'A', 'É')))})",
        f"{s}.replace({_quote(r.choice(('1', 'a', '')))}, {_quote(r.choice(('2', 'é', '')))}) == {g.str_lit()}",
        f"{s}.replace('a', 'b', {g.small_int()}).size() > 0",
        f"{s}.split({_quote(r.choice((',', '', '-', ' ')))}).size() {g.cmp()} {r.randint(0, 3)}",
        f"{s}.split(',', {g.small_int()}).size() >= 0",
        f"{s}.substring({g.small_int()}) == {g.str_lit()}",
        f"{s}.substring({g.small_int()}, {g.small_int()}).size() >= 0",
        f"{s}.trim() == {g.str_lit()}",
        f"{g.str_list()}.join() == {g.str_lit(False)}",
        f"{g.str_list()}.join({_quote(r.choice((',', '', '-')))}).size() > 0",
        f"strings.quote({s}).size() > 0",
        f"{_quote(r.choice(('%s', '%d', '%s-%s', '%.2f', '%x', '%o', '%b', '%e', '%%', '%q')))}.format([{r.choice(('1', chr(34) + 'a' + chr(34), '1.5', 'true', '[1, 2]', '1u', 'null'))}]) != ''",
        f"{s}.reverse() == {g.str_lit()}",
        f"{s}.size() {g.cmp()} {r.randint(0, 10)}",
        f"{s}.contains({_quote(r.choice(('a', '1', 'ö', '')))})",
        f"{s}.endsWith({_quote(r.choice(('0', 'e', 'é', '')))})",
    ))


def _codepoint(g: Gen) -> str:
    r = g.r
    s = _quote(r.choice(UNICODE_STRINGS)) if r.random() < 0.6 else g.attr("string")
    i, j = r.randint(0, 5), r.randint(0, 8)
    return r.choice((
        f"{s}.size() == {r.randint(1, 12)}",
        f"size({s}) {g.cmp()} {r.randint(1, 12)}",
        f"{s}.charAt({i}) == {_quote(r.choice(('é', 'Ω', '日', '🚀', 'a', '')))}",
        f"{s}.substring({i}) == {_quote(r.choice(UNICODE_STRINGS))}",
        f"{s}.substring({min(i, j)}, {max(i, j)}).size() == {abs(j - i)}",
        f"{s}.indexOf({_quote(r.choice(('é', 'Ω', '本', '🚀', 'c')))}) == {r.randint(-1, 6)}",
        f"{s}.lastIndexOf({_quote(r.choice(('é', '🚀', 'a', '')))}) == {r.randint(-1, 10)}",
        f"{s}.indexOf({_quote(r.choice(('a', 'é')))}, {i}) >= 0",
        f"{s}.upperAscii() == {s}",
        f"{s}.lowerAscii() != {s}",
        f"{s}.split('').size() == {r.randint(1, 12)}",
        f"{s}.reverse() == {s}",
        f"{s}.matches({_quote(r.choice(CODEPOINT_PATTERNS))})",
        f"{s} < {_quote(r.choice(UNICODE_STRINGS))}",
        f"{s}.trim().size() > 0",
        f"{s}.charAt({s}.size()) == ''",
    ))


def _regex(g: Gen) -> str:
    r = g.r
    s = g.string()
    pattern = _quote(r.choice(REGEX_PATTERNS))
    return r.choice((
        f"{s}.matches({pattern})",
        f"matches({s}, {pattern})",
        f"{s}.find({pattern}) == {g.str_lit(False)}",
        f"{s}.findAll({pattern}).size() {g.cmp()} {r.randint(0, 3)}",
        f"{s}.findAll({pattern}, {r.randint(-1, 3)}).size() >= 0",
        f"{s}.matches({g.string()})",
        f"{s}.find({g.string()}) != ''",
    ))


def _lists_library(g: Gen) -> str:
    r = g.r
    lst = r.choice((g.int_list(), g.int_list(), g.str_list(), g.any_list()))
    return r.choice((
        f"{lst}.sum() {g.cmp()} {g.small_int()}",
        f"{lst}.min() {g.cmp()} {g.small_int()}",
        f"{lst}.max() == {g.small_int()}",
        f"{lst}.isSorted()",
        f"{lst}.indexOf({g.small_int()}) {g.cmp()} {g.small_int()}",
        f"{lst}.lastIndexOf({g.small_int()}) == {g.small_int()}",
        f"{g.str_list()}.indexOf({_quote(r.choice('abcé'))}) >= 0",
        f"{g.str_list()}.min() == {_quote(r.choice('abc'))}",
        f"[{g.attr('int')}, {g.int_lit()}].sum() > 0",
        f"[{g.attr('int')}, {g.int_lit()}].max() == {g.attr('int')}",
        f"[9223372036854775807, {r.choice(('1', '0', '-1'))}].sum() > 0",
        "[1.5, 2.5].sum() == 4.0",
        "[duration('1s'), duration('2s')].sum() == duration('3s')",
        f"[1u, 2u].sum() == {r.choice(('3u', '3'))}",
        f"{lst}.sum() == {lst}.sum()",
        f"[].min() == {g.small_int()}",
        f"[{g.attr('string')}, {g.str_lit()}].isSorted()",
        "[semver('1.0.0'), semver('2.0.0')].isSorted()",
        "[true, false].isSorted()",
        f"{g.int_list()}.max() {g.cmp()} {g.int_list()}.min()",
    ))


def _ext_lists(g: Gen) -> str:
    r = g.r
    lst = r.choice((g.int_list(), g.str_list(), g.any_list()))
    return r.choice((
        f"{lst}.distinct().size() {g.cmp()} {r.randint(0, 4)}",
        f"{lst}.reverse() == {lst}",
        f"{r.choice(('[[1, 2], [3]]', '[[1, [2]], [3]]', '[[], [1]]', lst))}.flatten().size() == {r.randint(0, 4)}",
        f"[[1, [2, [3]]]].flatten({r.randint(-1, 3)}).size() >= 0",
        f"{lst}.slice({r.randint(-1, 2)}, {r.randint(0, 4)}).size() >= 0",
        f"{lst}.sort() == {lst}",
        f"{g.int_list()}.sortBy(x, -x).size() >= 0",
        f"{g.str_list()}.sortBy(s, s.size())[0] != 'z'",
        f"{lst}.first().hasValue()",
        f"{lst}.last().orValue({r.choice(('0', chr(34) + chr(34)))}) {g.pick('==', '!=')} {r.choice(('0', '3', chr(34) + 'a' + chr(34)))}",
        f"lists.range({r.randint(-1, 5)}).size() == {r.randint(0, 5)}",
        f"lists.range({r.randint(0, 4)}).sum() >= 0",
        f"{lst}.distinct() == {lst}",
        "[dyn(1), dyn(1.0), dyn(1u)].distinct().size() == 1",
        "[1, 'a'].sort().size() == 2",
        f"{g.int_list()}.sort().isSorted()",
        f"[{g.attr('int')}, 1].sort()[0] >= 0",
    ))


def _two_var(g: Gen) -> str:
    r = g.r
    lst = r.choice((g.int_list(), g.str_list()))
    m = r.choice(('{"a": 1, "b": 2}', '{"x": 0}', "{}", f"device.attributes[{_quote(DRIVER)}]",
                  '{1: "one", 2: "two"}'))
    return r.choice((
        f"{lst}.all(i, v, i >= 0)",
        f"{lst}.exists(i, v, i == {r.randint(0, 3)})",
        f"{lst}.existsOne(i, v, i == 0)",
        f"{lst}.exists_one(i, v, i == 0)",
        f"{m}.all(k, v, k != '')",
        f"{m}.exists(k, v, v == {r.choice(('1', chr(34) + 'one' + chr(34)))})",
        f"{m}.existsOne(k, v, k == 'a')",
        f"{lst}.transformList(i, v, i).size() == {r.randint(0, 4)}",
        f"{lst}.transformList(i, v, i < 2, i).size() >= 0",
        f"{g.int_list()}.transformList(i, v, v * 2).sum() {g.cmp()} {r.randint(0, 20)}",
        f"{g.int_list()}.transformMap(i, v, v + 1).size() >= 0",
        f"{g.int_list()}.transformMap(i, v, i > 0, v).size() >= 0",
        f"{m}.transformMap(k, v, k).size() == {r.randint(0, 3)}",
        f"{m}.transformMapEntry(k, v, {{v: k}}).size() >= 0",
        f"{m}.transformMapEntry(k, v, k != '', {{k: v}}).size() >= 0",
        '{"a": 1, "b": 1}.transformMapEntry(k, v, {v: k}).size() == 1',
        f"{lst}.all(i, v, i == v)",
        "[1, 2].all(x, y, z)",
        f"{m}.all(k, k, true)",
        f"device.attributes[{_quote(DRIVER)}].exists(k, v, k == 'model' && v == 'H100')",
    ))


def _macros(g: Gen) -> str:
    r = g.r
    lst = r.choice((g.int_list(), g.str_list()))
    return r.choice((
        f"{lst}.all(x, x {g.cmp()} {r.choice(('0', chr(34) + 'a' + chr(34)))})",
        f"{g.int_list()}.exists(x, x == {g.small_int()})",
        f"{g.int_list()}.exists_one(x, x > {g.small_int()})",
        f"{g.int_list()}.map(x, x * 2).size() == {r.randint(0, 5)}",
        f"{g.int_list()}.map(x, x > 1, x).size() >= 0",
        f"{g.int_list()}.filter(x, x % 2 == 0).size() {g.cmp()} {r.randint(0, 3)}",
        f"{g.int_list()}.all(x, 10 / x > 0)",
        f"{g.int_list()}.exists(x, 10 / x > 100)",
        f"[{g.attr('int')}, {g.attr('int')}].all(x, x > 0)",
        "device.attributes.all(d, d.endsWith('.com') || d.endsWith('.io') || d.endsWith('.org'))",
        "device.capacity.exists(d, device.capacity[d].exists(n, device.capacity[d][n].isGreaterThan(quantity('1Gi'))))",
        f"device.attributes[{_quote(g.domain())}].exists(n, n == 'model')",
        f"has(device.attributes.{r.choice(('x', 'y'))})",
        "has(device.driver)",
        f"{g.str_list()}.map(s, s.upperAscii()).exists(s, s == 'A')",
        "[1, 2, 3].map(x, [x]).size() == 3",
        f"{lst}.all(x, x)",
    ))


def _url(g: Gen) -> str:
    r = g.r
    u = _quote(r.choice(URLS))
    getter = r.choice(("getScheme", "getHost", "getHostname", "getPort", "getEscapedPath"))
    return r.choice((
        f"isURL({u})",
        f"url({u}).{getter}() == {_quote(r.choice(('https', 'example.com', '', '8080', '/path', '[::1]', '::1')))}",
        f"url({u}).getQuery().size() >= 0",
        f"url({u}).getQuery()[{_quote('x')}][0] == '1'",
        f"url({u}).{getter}().size() > 0",
        f"isURL({g.attr('string')})",
        f"url({g.attr('string')}).getScheme() == 'https'",
        f"url({u}) == url({u})",
        f"type(url({u})) == {r.choice(('url', 'string', 'kubernetes.URL'))}",
    ))


def _ip_cidr(g: Gen) -> str:
    r = g.r
    ip = _quote(r.choice(IPS))
    cidr = _quote(r.choice(CIDRS))
    return r.choice((
        f"isIP({ip})",
        f"ip({ip}).family() == {r.choice((4, 6))}",
        f"ip.isCanonical({ip})",
        f"ip({ip}).{r.choice(('isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast'))}()",
        f"string(ip({ip})) == {ip}",
        f"ip({ip}) == ip({_quote(r.choice(IPS))})",
        f"isCIDR({cidr})",
        f"cidr({cidr}).containsIP({ip})",
        f"cidr({cidr}).containsIP(ip({ip}))",
        f"cidr({cidr}).containsCIDR({cidr})",
        f"cidr({cidr}).containsCIDR(cidr({_quote(r.choice(CIDRS))}))",
        f"cidr({cidr}).ip().family() == 4",
        f"cidr({cidr}).prefixLength() {g.cmp()} {r.choice((8, 16, 32, 128))}",
        f"string(cidr({cidr}).masked()) == {cidr}",
        f"string(cidr({cidr})) == {cidr}",
        f"isIP({g.attr('string')})",
    ))


def _sets(g: Gen) -> str:
    r = g.r
    a, b = r.choice((g.int_list(), g.str_list())), r.choice((g.int_list(), g.str_list()))
    fn = r.choice(("contains", "equivalent", "intersects"))
    return r.choice((
        f"sets.{fn}({a}, {b})",
        f"sets.{fn}({g.int_list()}, {g.int_list()})",
        f"sets.{fn}([1, 2.0], [1u])",
        f"sets.{fn}([{g.attr('int')}], [{g.int_lit()}])",
        f"sets.{fn}({a})",
        f"sets.{fn}({g.int_list()}, {g.str_list()})",
        f"sets.{fn}({g.str_list()}, [{g.attr('string')}])",
        f"sets.{fn}([[1], [2]], [[1]])",
        f"sets.{fn}([{g.attr()}], [{g.attr()}])",
        f"sets.{fn}([dyn(1), dyn('a')], [1])",
    ))


def _format_library(g: Gen) -> str:
    r = g.r
    name = r.choice(FORMATS)
    value = r.choice(("my-label", "My_Label", "a" * 64, "example.com", "-bad", "123", "2024-01-02",
                      "2024-01-02T03:04:05Z", "550e8400-e29b-41d4-a716-446655440000", "aGVsbG8=", "",
                      "https://x.y", "prefix-"))
    return r.choice((
        f"format.{name}().validate({_quote(value)}).hasValue()",
        f"!format.{name}().validate({_quote(value)}).hasValue()",
        f"format.named({_quote(r.choice((*FORMATS, 'nope')))}).hasValue()",
        f"format.named({_quote(name)}).value().validate({_quote(value)}).orValue([]).size() == 0",
        f"format.{name}().validate({g.attr('string')}).hasValue()",
        f"format.dns1123Label().validate({_quote(value)}).value().size() > 0",
    ))


def _optional(g: Gen) -> str:
    r = g.r
    name = r.choice((*SCALAR_ATTRIBUTES, "missing"))
    d = _quote(g.domain())
    return r.choice((
        f"device.attributes[{d}].?{name}.orValue({r.choice(('0', chr(34) + chr(34), 'false'))}) == {r.choice(('0', chr(34) + 'H100' + chr(34), 'true'))}",
        f"device.attributes[?{d}].hasValue()",
        f"device.attributes[?{d}].?{name}.hasValue()",
        f"device.attributes[{d}][?{_quote(name)}].hasValue()",
        f"device.capacity[?{d}].?memory.orValue(quantity('0')).isGreaterThan(quantity('1Gi'))",
        f"optional.of({g.int_lit()}).value() > 0",
        "optional.none().hasValue()",
        "optional.none().value() == 1",
        f"optional.ofNonZeroValue({r.choice(('0', chr(34) + chr(34), '[]', '1', chr(34) + 'a' + chr(34)))}).hasValue()",
        "optional.of(1).or(optional.of(2)).value() == 1",
        f"optional.none().or(optional.of({g.small_int()})).value() == 2",
        f"optional.of({g.int_lit()}).optMap(x, x + 1).value() > 0",
        "optional.of(1).optFlatMap(x, optional.none()).hasValue()",
        "[?optional.of(1), ?optional.none()].size() == 1",
        "{'a': 1, ?'b': optional.none()}.size() == 1",
        "{?'a': optional.of(1)}.a == 1",
        f"device.attributes[{d}].?{name}.value() == 1",
        f"{g.int_list()}.first().orValue(-1) >= 0",
        "optional.of(1) == optional.of(1)",
        f"device.attributes[{d}].?{name}",
    ))


def _bind(g: Gen) -> str:
    r = g.r
    return r.choice((
        f"cel.bind(a, {g.attr()}, a == a)",
        f"cel.bind(m, {g.attr('string')}, m.startsWith('H') || m == {g.str_lit()})",
        f"cel.bind(x, {g.int_lit()}, cel.bind(y, x * 2, y > x))",
        f"cel.bind(d, device.attributes[{_quote(DRIVER)}], has(d.model) && d.model != '')",
        f"cel.bind(q, {g.quantity()}, q.isGreaterThan(quantity('1')) && sign(q) > 0)",
        "cel.bind(x, 1, x + y > 0)",
        "cel.bind(1, 1, true)",
        f"cel.bind(l, {g.int_list()}, l.size() == 0 || l.exists(v, v > 1))",
    ))


def _list_attributes(g: Gen) -> str:
    r = g.r
    la = g.list_attr()
    return r.choice((
        f"{g.list_attr('ints')}.includes({g.small_int()})",
        f"{g.list_attr('strings')}.includes({g.str_lit()})",
        f"{g.list_attr('bools')}.includes(true)",
        f"{g.list_attr('versions')}.includes(semver('1.2.3'))",
        f"{la}.size() {g.cmp()} {r.randint(0, 4)}",
        f"{g.list_attr('ints')}.sum() {g.cmp()} {r.randint(0, 20)}",
        f"{g.list_attr('ints')}.max() == {g.small_int()}",
        f"{g.list_attr('ints')}.all(x, x >= 0)",
        f"{g.list_attr('strings')}.exists(s, s.startsWith('a'))",
        f"{g.list_attr('versions')}.exists(v, v.isGreaterThan(semver('1.0.0')))",
        f"{la}.includes({g.attr()})",
        f"{g.attr()}.includes({g.small_int()})",
        f"{la} == {la}",
        f"{g.list_attr('ints')}.sort().isSorted()",
        f"{g.list_attr('strings')}.distinct().size() > 0",
        f"{la}[0] == {la}[0]",
        f"{g.list_attr('ints')}.all(i, v, v > i)",
        f"{g.attr('int')} in {g.list_attr('ints')}",
        f"{g.list_attr('ints')} == {g.int_list()}",
        f"sets.contains({g.list_attr('ints')}, [1])",
    ))


def _runtime_type_error(g: Gen) -> str:
    r = g.r
    return r.choice((
        f"{g.attr('version')} == {_quote(r.choice(VERSIONS))}",
        f"{g.attr('version')} {g.pick('<', '>')} {_quote(r.choice(VERSIONS))}",
        f"string({g.attr('version')}) == {_quote(r.choice(VERSIONS))}",
        f"size({g.attr('int')}) > 0",
        f"{g.attr('int')}.size() > 0",
        f"{g.attr('int')} + {g.attr('string')} == 1",
        f"{g.attr('int')} + 1.5 > 0.0",
        f"{g.attr('int')} + 1u > 0u",
        f"{g.attr('string')} + {g.attr('int')} == 'x'",
        f"{g.attr('bool')} && {g.attr('string')}",
        f"{g.attr('string')} > 1",
        f"{g.attr('string')}.startsWith({g.attr('int')})",
        f"{g.attr('int')}.startsWith('1')",
        f"{g.attr('version')}.major() == {_quote('1')}",
        f"{g.attr('string')}.isGreaterThan(semver('1.0.0'))",
        f"{g.attr('version')}.size() > 0",
        "dyn(1) + dyn(1.5) > 0",
        f"dyn({g.int_lit()}) + dyn('a') == 'a'",
        "dyn([1]) + dyn({'a': 1}) == []",
        f"{g.attr()}",
        f"{g.attr('string')}",
        f"{g.attr('int')} == true",
        f"{g.attr('int')} in {g.attr('string')}",
        f"{g.attr('string')}.matches({g.attr('int')})",
        f"int({g.attr('string')}) > 0",
        f"int({g.attr('version')}) > 0",
        f"{g.cap()} > {g.attr('int')}",
        f"{g.attr('version')} == {g.attr('version')}",
        f"{g.attr('int')} == {g.attr('string')}",
        f"{g.attr('bool')} ? {g.attr('int')} : 'x'",
    ))


def _numbers(g: Gen) -> str:
    r = g.r
    big = r.choice(("9223372036854775807", "-9223372036854775807", "4611686018427387904"))
    return r.choice((
        f"{big} + {r.choice(('1', '0', '-1', big))} > 0",
        f"{big} * {r.choice(('2', '-1', '1', '-2'))} != 0",
        f"-9223372036854775807 - {r.choice(('1', '2'))} < 0",
        "-(-9223372036854775807 - 1) > 0",
        f"{r.choice(('-9223372036854775807 - 1', g.int_lit()))} / {r.choice(('-1', '0', '2'))} != 1",
        f"{g.integer()} % {r.choice(('0', '-1', '3'))} == 0",
        f"{g.integer()} / {r.choice(('0', g.attr('int')))} > 0",
        f"18446744073709551615u + {r.choice(('1u', '0u'))} > 0u",
        "0u - 1u > 0u",
        "1u / 0u == 0u",
        f"1.0 / 0.0 {g.cmp()} 1.0",
        f"0.0 / 0.0 {r.choice(('==', '!='))} 0.0 / 0.0",
        "-1.0 / 0.0 < 0.0",
        "double('NaN') == double('NaN')",
        "double('inf') > 1e308",
        f"{r.choice(('1e308', '1.7976931348623157e308'))} * 10.0 > 0.0",
        f"int({r.choice(('1e19', '-1e19', '9.2233720368547758e18', '1.5', '-1.5', '2.5', 'double(' + chr(34) + 'NaN' + chr(34) + ')'))}) != 0",
        f"uint({r.choice(('-1', '1.5', '-0.5', '1e20', '18446744073709551615.0'))}) >= 0u",
        f"int({r.choice(('9223372036854775807u', '9223372036854775808u'))}) > 0",
        f"uint({g.attr('int')}) >= 0u",
        f"double({g.attr('int')}) > 0.5",
        f"{g.attr('int')} * {g.attr('int')} >= 0",
        f"{g.attr('int')} + {big} > 0",
        f"{g.attr('int')} - {big} < 0",
        f"{g.attr('int')} {g.cmp()} {r.choice(('1.5', '2u', '0.0', '-1u'))}",
        f"1 {g.cmp()} {r.choice(('1.0', '1u', '2.5'))}",
        f"{r.choice(('1', '2.0', '3u'))} == {r.choice(('1', '2.0', '3u'))}",
        f"-{g.attr('int')} < 0",
        "9223372036854775808 > 0",
        "-9223372036854775808 < 0",
        f"{g.int_lit()} {g.pick('+', '-', '*', '/', '%')} {g.int_lit()} {g.cmp()} {g.int_lit()}",
    ))


def _conversions(g: Gen) -> str:
    r = g.r
    return r.choice((
        f"string({g.attr('int')}) == '1'",
        f"string({g.attr('bool')}) == 'true'",
        f"string({r.choice(STRING_CONVERTIBLES)}) != ''",
        f"int({_quote(r.choice(('1', '-1', ' 1', '1.0', '0x1', '9223372036854775808', '')))}) > 0",
        f"uint({_quote(r.choice(('1', '-1', '18446744073709551616')))}) > 0u",
        f"double({_quote(r.choice(('1.5', 'inf', '-Infinity', 'nan', 'x', '1e400')))}) > 0.0",
        f"bool({_quote(r.choice(('true', 'True', 't', '1', 'yes', 'false', 'FALSE')))})",
        f"bytes({g.str_lit()}).size() {g.cmp()} {r.randint(0, 8)}",
        f"string(bytes({g.str_lit()})) == {g.str_lit()}",
        f"type({g.attr()}) == {r.choice(('string', 'int', 'bool', 'kubernetes.Semver', 'dyn', 'null_type'))}",
        f"type({r.choice(('1', '1u', '1.0', 'true', chr(34) + chr(34), '[]', '{}', 'null', 'quantity(' + chr(34) + '1' + chr(34) + ')'))}) == {r.choice(('int', 'uint', 'double', 'bool', 'string', 'list', 'map', 'null_type', 'type'))}",
        f"dyn({g.attr()}) == {g.str_lit()}",
        f"duration({_quote(r.choice(('1s', '1h30m', '-1.5s', '1d', 'x', '')))}) > duration('0s')",
        f"timestamp({_quote(r.choice(('2024-01-01T00:00:00Z', '2024-13-01T00:00:00Z', 'x')))}).getFullYear() == 2024",
        f"timestamp('2024-01-01T00:00:00Z') + duration({_quote(r.choice(('1h', '-1h', '87600h')))}) > timestamp('2024-01-01T00:00:00Z')",
        f"null == {r.choice(('null', '1', g.attr()))}",
        f"{g.attr('string')} != null",
        "b'abc' + b'def' == b'abcdef'",
        f"{r.choice(('[1, 2] + [3]', '[1] + []', chr(34) + 'a' + chr(34) + ' + ' + chr(34) + 'é' + chr(34)))} != {r.choice(('[]', chr(34) + chr(34)))}",
    ))


def _ill_typed(g: Gen) -> str:
    r = g.r
    return r.choice((
        f"{g.attr('string')}",
        f"{g.int_lit()}",
        f"{g.str_lit()}",
        f"{g.int_list()}",
        "device",
        "device.attributes",
        f"{g.cap()}",
        "quantity('1') + quantity('2')",
        f"{g.int_lit()} == {g.str_lit()}",
        "1 + 1u == 2",
        "'a' + 1 == 'a1'",
        "1 == 1.0",
        "[1, 'a'].size() == 2",
        "{'a': 1, 'b': 'x'}.size() == 2",
        "undefined_var == 1",
        "device.nosuchfield == 1",
        "device.driver.nosuch == 1",
        "size() == 0",
        f"{g.attr('string')}.nosuchfunction()",
        "math.greatest(1, 2) == 2",
        "base64.encode(b'a') == 'YQ=='",
        "device.attributes[1] == 1",
        "device.capacity[" + _quote(DRIVER) + "].memory == 1",
        "device.capacity[" + _quote(DRIVER) + "].memory > quantity('1')",
        "quantity('1').major() == 1",
        "semver('1.0.0').asInteger() == 1",
        f"{g.attr()} ==",
        f"({g.attr()}",
        f"{g.attr()} = 1",
        "'unterminated",
        "1 +* 2",
        "device.driver == 'a' && || true",
        "[1, 2].all(1, true)",
        "has(device)",
        "has(1)",
        "'a'.matches('(')",
        "'a'.find('[')",
        "duration('x') > duration('1s')",
        "timestamp('x') > timestamp('2024-01-01T00:00:00Z')",
        f"{g.attr('string')} in {g.attr('string')}",
        "device.driver.size() + 'x' == 1",
        "lists.range('a').size() == 0",
        "ip(1) == ip('1.2.3.4')",
        "url(1).getHost() == ''",
        "isURL()",
        "[1, 2].sum(1) == 3",
        "'abc'.charAt('a') == 'a'",
        "!1",
        "-'a' == 'a'",
        "true ? 1 : 'a'",
        "1 < 'a'",
        "[].size() == 0u",
        "device.allowMultipleAllocations == 1",
        "format.nope().validate('a').hasValue()",
        "cel.bind(x) == 1",
        "device.attributes[" + _quote(DRIVER) + "].model.",
        "\u00e9 == 1",
        "`a` == 1",
        "a.b.c == 1",
    ))


def _random(g: Gen) -> str:
    """Small combinations of the other topics' building blocks."""
    r = g.r
    parts = [TOPICS[r.choice(COMBINABLE)](g) for _ in range(r.randint(2, 3))]
    ops = [r.choice((" && ", " || ")) for _ in parts[1:]]
    text = parts[0]
    for op, part in zip(ops, parts[1:], strict=True):
        text += op + (f"({part})" if r.random() < 0.5 else part)
    if r.random() < 0.2:
        text = f"!({text})"
    if r.random() < 0.15:
        text = f"({parts[0]}) ? ({parts[-1]}) : false"
    return text


def _error_absorption(g: Gen) -> str:
    """Errors inside logical operators, conditionals and comprehensions: absorbed or not, and
    which of two errors is reported."""
    r = g.r
    bad = r.choice((g.attr(domain=MISSING_DOMAIN), f"{g.attr('int')} / 0 == 1", f"{g.attr('string')}.size() == 1",
                    "device.attributes[" + _quote(DRIVER) + "].missing == 1", f"int({_quote('x')}) == 1"))
    other = r.choice((f"{g.attr('int')} > 0", "device.attributes[" + _quote(OTHER_DOMAIN) + "].zone == 'a'",
                      g.attr("bool")))
    return r.choice((
        f"{bad} || true",
        f"true || {bad}",
        f"{bad} && false",
        f"false && {bad}",
        f"{bad} || {other}",
        f"{other} && {bad}",
        f"{bad} || {bad.replace('missing', 'absent')}",
        f"!({bad})",
        f"({bad}) ? true : false",
        f"{other} ? true : ({bad})",
        "[0, 1].exists(x, 1 / x == 1)",
        "[0, 1].all(x, 1 / x == 1)",
        "[1, 0].all(x, 1 / x == 2)",
        "[0, 1].exists_one(x, 1 / x == 1)",
        "[0, 2].map(x, 4 / x).size() == 2",
        "[0, 2].filter(x, 4 / x > 1).size() == 1",
        f"({bad}) == ({bad})",
        f"[{bad}, true].exists(x, x)",
        f"has(device.attributes[{_quote(MISSING_DOMAIN)}].model) || true",
        f"device.attributes[{_quote(MISSING_DOMAIN)}].model == 1 && device.attributes[{_quote(OTHER_DOMAIN)}].absent == 1",
    ))


def _cost(g: Gen) -> str:
    """Expressions whose estimated or actual cost is large: nested comprehensions, string
    functions on attributes of unknown size, ranges; some beyond the runtime limit."""
    r = g.r
    # Ranges stay small enough for the pure-Python engine (a 100 x 100 loop takes it seconds
    # per device); the estimator still sees attribute strings and maps of unknown size.
    n = r.choice((3, 10, 20))
    s = g.attr("string")
    return r.choice((
        f"lists.range({n}).all(i, lists.range({n}).all(j, i != j || i == j))",
        f"lists.range({n * 50}).map(i, i * 2).sum() > 0",
        f"lists.range({n}).exists(i, i == {n - 1})",
        "device.attributes.all(d, device.attributes[d].all(k, k.size() < 100))",
        f"device.attributes[{_quote(DRIVER)}].all(k, device.attributes[{_quote(DRIVER)}].all(j, k.size() >= 0))",
        f"{s}.matches('^(a|b)*$') && {s}.contains('x')",
        f"{s}.split(',').all(p, p.size() > 0)",
        f"{s}.replace('a', 'bb').replace('b', 'cc').size() > 0",
        f"{s} + {s} + {s} == 'x'",
        f"{s}.findAll('.').size() > 0",
        f"[{s}, {s}].join(',').size() > 0",
        f"{s}.lowerAscii().upperAscii().trim().size() > 0",
        "lists.range(20).map(i, 'x').join('').size() == 20",
        f"lists.range({n * 50}).sortBy(x, -x)[0] >= 0",
        f"lists.range({n * 50}).distinct().size() == {n * 50}",
        f"{g.int_list()}.map(x, {g.int_list()}.map(y, x * y)).size() >= 0",
        "device.capacity.all(d, device.capacity[d].all(n, device.capacity[d][n].isGreaterThan(quantity('0'))))",
        f"strings.quote({s}).size() > 0 && {s}.format([]) != ''",
        f"cel.bind(l, lists.range({n}), l.all(i, l.exists(j, j == i)))",
    ))


def _time(g: Gen) -> str:
    r = g.r
    ts = _quote(r.choice(("2024-02-29T12:34:56Z", "1970-01-01T00:00:00Z", "2024-01-01T00:00:00+05:30",
                          "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "2024-13-01T00:00:00Z", "x")))
    dur = _quote(r.choice(("1s", "1h30m", "-1.5s", "1ms", "1us", "1ns", "1.5h", "315576000000s", "1d", "x", "0")))
    getter = r.choice(("getFullYear", "getMonth", "getDate", "getDayOfMonth", "getDayOfWeek", "getDayOfYear",
                       "getHours", "getMinutes", "getSeconds", "getMilliseconds"))
    return r.choice((
        f"timestamp({ts}).{getter}() {g.cmp()} {r.randint(0, 60)}",
        f"timestamp({ts}).{getter}({_quote(r.choice(('UTC', 'America/New_York', '+05:00', 'Nope/Zone')))}) >= 0",
        f"duration({dur}).{r.choice(('getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'))}() {g.cmp()} {r.randint(0, 90)}",
        f"timestamp({ts}) + duration({dur}) > timestamp({ts})",
        f"timestamp({ts}) - timestamp('1970-01-01T00:00:00Z') > duration('0s')",
        f"timestamp('9999-12-31T23:59:59Z') + duration({dur}) > timestamp('2024-01-01T00:00:00Z')",
        f"duration({dur}) + duration({dur}) {g.cmp()} duration('1h')",
        f"timestamp({r.choice(('0', '-1', '253402300800', '1700000000'))}) > timestamp('1970-01-01T00:00:00Z')",
        f"int(timestamp({ts})) > 0",
        f"string(timestamp({ts})) != ''",
        f"string(duration({dur})) == {_quote(r.choice(('1s', '5400s', '-1.5s')))}",
        f"duration({dur}) == duration({_quote(r.choice(('60m', '1h', '1s', '1000ms')))})",
        f"[duration({dur}), duration('1s')].max() >= duration('1s')",
        f"type(timestamp({ts})) == google.protobuf.Timestamp",
    ))


def _strings_format(g: Gen) -> str:
    r = g.r
    verb = r.choice(("%s", "%d", "%f", "%.2f", "%.0f", "%e", "%x", "%X", "%o", "%b", "%%", "%q", "%v", "%5d", "%-3s", "%"))
    arg = r.choice(("1", "-7", "1u", "1.5", "-0.0", "double('NaN')", "double('inf')", "true", "'a'", "'日本'", "b'ab'",
                    "[1, 'a']", "{'k': 1}", "null", "duration('1h')", "timestamp('2024-01-01T00:00:00Z')",
                    "quantity('1Gi')", "semver('1.0.0')", "9223372036854775807", "[]", g.attr('string'), g.attr('int'),
                    g.attr('version')))
    return r.choice((
        f"{_quote(verb)}.format([{arg}]) != ''",
        f"{_quote(verb)}.format([{arg}]) == {_quote(r.choice(('1', 'a', '1.50', '0x1', '1e+00', 'true')))}",
        f"{_quote(verb + ' ' + verb)}.format([{arg}]) != ''",
        f"{_quote(verb)}.format([{arg}, {arg}]) != ''",
        f"{_quote('%s')}.format({arg}) != ''",
        f"'%s and %d'.format([{g.attr('string')}, {g.attr('int')}]).size() > 0",
    ))


def _maps_equality(g: Gen) -> str:
    r = g.r
    m = r.choice(("{'a': 1, 'b': 2}", "{1: 'x', 2u: 'y'}", "{true: 1}", "{}", "{'a': [1], 'b': []}", "{'a': 1, 'a': 2}",
                  "{1: 1, 1.0: 2}", "{'k': {'n': 1}}"))
    return r.choice((
        f"{_quote(r.choice(('a', 'c')))} in {m}",
        f"{r.choice(('1', '1u', '1.0', 'true'))} in {m}",
        f"{m}[{r.choice((chr(39) + 'a' + chr(39), '1', '2u', 'true', '1.0'))}] == 1",
        f"{m}.size() == {r.randint(0, 2)}",
        f"{m} == {m}",
        f"{m} == {r.choice(('{}', chr(123) + chr(39) + 'a' + chr(39) + ': 1' + chr(125)))}",
        f"{m}.?a.orValue(0) == 1",
        f"{m}.a == 1",
        "[1, 2] == [1, 2.0]",
        "[dyn(1)] == [dyn(1u)]",
        "dyn([1, 2]) == dyn([1u, 2.0])",
        "dyn({'a': 1}) == dyn({'a': 1.0})",
        "[double('NaN')] == [double('NaN')]",
        "dyn(1) in [1.0, 2.0]",
        f"{g.attr()} == {g.attr()}",
        f"{g.attr('string')} {g.cmp()} {g.attr('string')}",
        f"{g.str_lit()} {g.cmp()} {g.str_lit()}",
        "b'a' < b'b' && b'\\xff' > b'a'",
        f"null != {r.choice(('0', chr(39) + chr(39), '[]', '{}', 'false'))}",
        "type(null) == null_type",
        f"device.attributes[{_quote(DRIVER)}] == device.attributes[{_quote(DRIVER)}]",
        "device.capacity == device.capacity",
    ))


def _map_keys(g: Gen) -> str:
    """Map keys other than bool, int, uint and string: cel-go keys its Go maps by any hashable
    value (a list, map, optional or quantity by its pointer), cel-cpp's maps refuse them. No
    iteration whose answer depends on Go's map order, no constant bytes key (the upstream
    binary panics building such a program)."""
    r = g.r
    key = r.choice(("[1]", "[1, 2]", "[]", "[[1]]", "['a']", "{1: 2}", "{}", "1.5", "-0.0", "2.0", "optional.of(1)",
                    "optional.none()", 'quantity("1")', 'semver("1.0.0")', "null", 'duration("1s")'))
    other = r.choice(("[1]", "1.5", "2.0", "2", "2u", "{}", "optional.of(1)"))
    return r.choice((
        f"{{{key}: 1}}.size() == 1",
        f"{{{key}: 1, {key}: 2}}.size() == {r.choice(('1', '2'))}",
        f"{key} in {{{key}: 1}}",
        f"{other} in {{{key}: 1}}",
        f"cel.bind(x, {key}, x in {{x: 1}})",
        f"cel.bind(x, {key}, {{x: 1}}[x] == 1)",
        f"cel.bind(m, {{{key}: 1}}, m == m)",
        f"{{{key}: 1}} == {{{key}: 1}}",
        f"dyn({{{key}: 1}}) == dyn({{{other}: 1}})",
        f"{{{key}: 1}}.exists(x, x == {key})",
        f"[{key}, {key}].transformMapEntry(i, v, {{v: i}}).size() == 2",
        f"{{1.5: 'a', 2.0: 'b'}}[{r.choice(('1.5', '2.0', '2', '2u', '-0.0'))}] == 'b'",
        f"dyn({{2.0: 'a'}})[{r.choice(('2', '2u', '2.0'))}] == 'a'",
        f"{g.list_attr()}.transformMapEntry(i, v, {{[v]: i}}).size() >= 1",
        f"{g.list_attr()}.transformMapEntry(i, v, {{double(v): i}}).size() >= 1",
        f"{g.list_attr()}.transformMap(i, v, {{v: i}}).size() >= 1",
        f"{g.list_attr()}.map(v, {{[v]: v}}).size() >= 1",
        "{bytes(device.driver): 1}.size() == 1",
        f"{{{g.attr()}: 1}}.size() == 1",
        f"{{{g.cap()}: 1}}.size() == 1",
        "dyn({'a': optional.of(1)}).isSorted()",
        "dyn({'a': optional.of(1)}) == dyn(quantity('1'))",
        "[dyn([optional.of(1)])].exists(x, x == dyn(" + r.choice(("1", "[optional.of(1)]", 'semver("1.0.0")')) + "))",
        "[optional.of(1)].indexOf(optional.of(1)) == 0",
        "[optional.of(1), optional.of(1)].lastIndexOf(optional.of(1)) == 1",
        f"optional.of({r.choice(('1', '[1]', g.attr()))}).optMap(__result__, __result__ == __result__).value()",
        f"optional.of({g.small_int()}).optFlatMap(__result__, optional.of(__result__ + 1)).value() > 0",
        f"[1].{r.choice(('all', 'exists', 'map', 'filter'))}(__result__, true) == true",
    ))


def _dyn_conversions(g: Gen) -> str:
    """Conversions of a value whose type is only known at run time (a list element, a dyn
    literal): cel-go names the function and the argument's type when no overload takes it."""
    r = g.r
    conversion = r.choice(("int", "uint", "double", "string", "bool", "bytes", "duration", "timestamp"))
    values = r.choice(("[dyn(true)]", "[dyn(1)]", "[dyn(1u)]", "[dyn(1.5)]", "[dyn('1')]", "[dyn([1])]", "[dyn({})]",
                       "[dyn(null)]", "[dyn(b'a')]", "[dyn(duration('1s'))]", "[dyn(timestamp(0))]",
                       g.list_attr()))
    return r.choice((
        f"{values}.all(v, {conversion}(v) == {conversion}(v))",
        f"{values}.exists(v, string({conversion}(v)) != '')",
        f"{values}.map(v, {conversion}(v)).size() == 1",
    ))


def _device_maps_whole(g: Gen) -> str:
    """A device map handed on as a whole (bound to a name, in a list, as dyn) and a domain looked
    up in it, which upstream's maps answer with an empty map when the device lacks it."""
    r = g.r
    domain = _quote(g.domain())
    outer = r.choice(("device.attributes", "device.capacity"))
    held = r.choice((f"cel.bind(m, {outer}, m", f"dyn({outer})", f"[{outer}][0]"))
    if held.startswith("cel.bind"):
        def use(rest: str) -> str:
            return f"{held}{rest})"
    else:
        def use(rest: str) -> str:
            return f"{held}{rest}"
    name = r.choice(("model", "cores", "memory", "missing"))
    return r.choice((
        use(f"[{domain}].size() {g.cmp()} 0"),
        use(f"[{domain}].{name} == {r.choice(('1', chr(39) + 'a' + chr(39), 'quantity(' + chr(39) + '1' + chr(39) + ')'))}"),
        use(f"[{domain}].exists(k, k == {_quote(name)})"),
        use("[device.driver].size() > 0"),
        f"device.attributes.exists(d, d == 'x') || {use(f'[{domain}].{name} > 0')}",
        f"cel.bind(m, device.capacity, m[{domain}].memory.isGreaterThan(quantity('1')))",
    ))


def _indexing(g: Gen) -> str:
    """Indexing lists and maps: in and out of range, negative, computed and dyn indexes, uint and
    double indexes (cel-go takes an integral double as a list index and a numerically equal key in
    a map), optional indexing, and what the checker refuses."""
    r = g.r
    lists = ("[1, 2]", "['a', 'b', 'c']", "[]", "[[1], [2, 3]]", "dyn([1, 2])", "[1, 2].map(x, x * 2)",
             f"[{g.attr('int')}]", g.list_attr(), "dyn(['a'])")
    maps = ("{1: 'a', 2: 'b'}", "{'k': 1, 'l': 2}", "dyn({1: 'a', 2u: 'b', 'k': 'c', true: 'd'})", "{1u: 'a'}",
            "{1.5: 'a', 2.0: 'b'}", "dyn({'k': 1})", f"device.attributes[{_quote(DRIVER)}]", "device.capacity")
    indexes = ("0", "1", "2", "5", "-1", "1u", "1.0", "1.5", "-1.0", "2.0", "'a'", "true", "null", "dyn(1)",
               "dyn(1u)", "dyn(1.0)", "dyn(1.5)", "dyn(-1.0)", "dyn(5.0)", "dyn('a')", "dyn(true)", "dyn(null)",
               "1 + 1", g.attr("int"), "dyn(9223372036854775807)", "dyn(18446744073709551615u)", "dyn(1e300)")
    keys = ("1", "2", "3", "1u", "2u", "1.0", "1.5", "2.0", "'k'", "'missing'", "true", "null", "dyn(1)", "dyn(2u)",
            "dyn(1.0)", "dyn(2.5)", "dyn('k')", "dyn(true)", "'model'", "'memory'", _quote(DRIVER))
    a_list, an_index = r.choice(lists), r.choice(indexes)
    a_map, a_key = r.choice(maps), r.choice(keys)
    return r.choice((
        f"{a_list}[{an_index}] == {r.choice(('1', '2', chr(39) + 'a' + chr(39), '[1]'))}",
        f"{a_list}[{an_index}] != null",
        f"{a_list}[?{an_index}].hasValue()",
        f"{a_list}[?{an_index}].orValue(0) == 0",
        f"{a_list}[?{an_index}] == optional.none()",
        f"true || {a_list}[{an_index}] == 1",
        f"{a_list}.size() > 0 && {a_list}[{an_index}] == {a_list}[0]",
        f"{a_map}[{a_key}] == {r.choice(('1', chr(39) + 'a' + chr(39), chr(39) + 'b' + chr(39)))}",
        f"{a_map}[?{a_key}].hasValue()",
        f"{a_map}[?{a_key}].orValue('z') == 'a'",
        f"{a_key} in {a_map}",
        f"{a_map}.?k.hasValue()",
        f"has({a_map}.k)",
        f"{a_map}[{a_key}][{an_index}] == 1",
        f"cel.bind(i, {an_index}, {a_list}[i] == 1)",
        f"[{a_list}][0][{an_index}] == 1",
    ))


def _selection(g: Gen) -> str:
    """Field selection, has(), optional selection and indexing on values that are no map or list
    (an attribute's string, int, bool or version, a dyn scalar, an optional), where cel-go's
    qualifiers answer "no such key" or none, and on lists, which take no field name."""
    r = g.r
    targets = (g.attr("string"), g.attr("int"), g.attr("bool"), g.attr("version"), g.attr(), g.list_attr(),
               "dyn(1)", "dyn('s')", "dyn(true)", "dyn(null)", "dyn([1])", "dyn({'foo': 1})", "dyn(semver('1.0.0'))",
               "dyn(quantity('1'))", "dyn(optional.of(1))", "dyn(optional.none())", "dyn(b'a')",
               "dyn(duration('1s'))", "dyn(2.5)", "dyn(1u)", "[1][0]", "device.driver", g.cap())
    target = r.choice(targets)
    return r.choice((
        f"{target}.foo == 1",
        f"has({target}.foo)",
        f"{target}.?foo.hasValue()",
        f"{target}.?foo.orValue(1) == 1",
        f"{target}[0] == 1",
        f"{target}['foo'] == 1",
        f"{target}[?0].hasValue()",
        f"{target}[?'foo'].hasValue()",
        f"{target}.foo.bar == 1",
        f"has({target}.foo.bar)",
        f"{target}.?foo.?bar.orValue(1) == 1",
        f"true || {target}.foo == 1",
        f"{target}[dyn({r.choice(('0', '1.5', chr(39) + 'foo' + chr(39), 'quantity(' + chr(39) + '1' + chr(39) + ')'))})] == 1",
    ))


def _library_equality(g: Gen) -> str:
    """Equality of library values (versions, quantities, URLs, IPs) with values of another type,
    where cel-go's ``==`` fails, ``!=`` is true, and a list or map comparison goes on past an
    element it cannot compare; also through optionals and list attributes' elements."""
    r = g.r
    value = r.choice(("semver('1.0.0')", "quantity('1')", "url('http://x')", "ip('10.0.0.1')", "cidr('10.0.0.0/8')",
                      g.attr("version"), g.cap()))
    other = r.choice(("1", "'1.0.0'", "semver('1.0.0')", "quantity('1')", "1.0", "true", "null", "[1]", value))
    held = f"dyn({value})"
    return r.choice((
        f"{held} {r.choice(('==', '!='))} {other}",
        f"{other} {r.choice(('==', '!='))} {held}",
        f"[{held}] {r.choice(('==', '!='))} [{other}]",
        f"[{held}, 2] == [{other}, {r.choice(('2', '3'))}]",
        f"{{'a': {held}}} {r.choice(('==', '!='))} {{'a': {other}}}",
        f"optional.of({held}) {r.choice(('==', '!='))} optional.of({other})",
        f"[optional.of({held})] {r.choice(('==', '!='))} [optional.of({other})]",
        f"{other} in [{held}]",
        f"{held} in [{other}, {held}]",
        f"[{held}].exists(x, x {r.choice(('==', '!='))} {other})",
        f"{g.list_attr()}[?0].{r.choice(('value()', 'orValue(0)'))} {r.choice(('==', '!='))} {other}",
        f"[{held}][?0].orValue({other}) == {other}",
    ))


def _literals(g: Gen) -> str:
    """List and map literals whose elements differ in type (cel-go's homogeneous aggregate
    literal check): nulls, optionals and optional entries (``[?x]``, ``{?k: v}``), nested lists,
    times, dyn elements."""
    r = g.r
    items = ("1", "2u", "1.5", "'a'", "null", "true", "optional.of(1)", "optional.of('a')", "optional.none()",
             "?optional.of(1)", "?optional.of('a')", "?optional.none()", "[1]", "[null]", "[]", "dyn(1)",
             "timestamp(0)", "duration('1s')", g.attr(), "{}")
    first, second = r.choice(items), r.choice(items)
    plain = [item for item in items if not item.startswith("?")]
    key, other_key = r.choice(("1", "'a'", "true", "2u", "?1", "?'a'")), r.choice(("2", "'b'", "false", "3u"))
    value, other_value = r.choice(plain), r.choice(plain)
    optional_value = r.choice(("optional.of(1)", "optional.of('a')", "optional.none()"))
    return r.choice((
        f"[{first}, {second}].size() == 2",
        f"[{first}, {second}, {r.choice(items)}].size() > 0",
        f"{{{'?' + key.lstrip('?') if key.startswith('?') else key}: {optional_value if key.startswith('?') else value}, "
        f"{other_key}: {other_value}}}.size() == 2",
        f"{{'a': {value}, 'b': {other_value}}}.size() == 2",
        f"[[{first.lstrip('?')}], [{second.lstrip('?')}]].size() == 2",
    ))


def _dyn_operators(g: Gen) -> str:
    """Operators on values whose types only the run time knows (dyn, a list attribute's element,
    a map value): arithmetic, ordering, ``in``, ``size``, concatenation and conditionals across
    int, uint, double, string, bytes, lists, maps, null, times and library values."""
    r = g.r
    values = ("dyn(1)", "dyn(2u)", "dyn(1.5)", "dyn(-0.0)", "dyn('a')", "dyn(b'a')", "dyn(true)", "dyn(null)",
              "dyn([1])", "dyn({'a': 1})", "dyn(duration('1s'))", "dyn(timestamp(0))", "dyn(quantity('1'))",
              "dyn(semver('1.0.0'))", "dyn(9223372036854775807)", "dyn(18446744073709551615u)", "dyn(1e308)",
              g.attr(), "dyn([1, 2u, 3.0])[1]")
    a, b = r.choice(values), r.choice(values)
    op = r.choice(("+", "-", "*", "/", "%"))
    order = r.choice(("<", "<=", ">", ">="))
    return r.choice((
        f"{a} {op} {b} == {b}",
        f"({a} {op} {b}) != null",
        f"{a} {order} {b}",
        f"{a} in [{b}]",
        f"{a} in {{{r.choice(('1', '2u', chr(39) + 'a' + chr(39), '1.5', 'true'))}: 1}}",
        f"{a} in dyn({r.choice(('[1]', '{1: 2}', chr(39) + 'a' + chr(39), '1'))})",
        f"size({a}) == 1",
        f"{a}.size() > 0",
        f"({a} ? 1 : 2) == 1",
        f"!{a}",
        f"-{a} == {b}",
        f"{a} && {b}",
        f"{a} || true",
        f"[{a}, {b}].exists(x, x > 0)",
        f"{a} == {b} || {a} != {b}",
        r.choice((
            "'a' + 'b' == 'ab'", "dyn('a') + 'b' == 'ab'", "('a' + dyn('é')).size() == 2", "b'a' + b'b' == b'ab'",
            "[1] + [2] == [1, 2]", "dyn([1]) + [2.0] == [1, 2]", "duration('1s') + duration('2s') == duration('3s')",
            "timestamp(0) + duration('1s') == timestamp(1)", "duration('1s') + timestamp(0) == timestamp(1)",
            "timestamp(5) - timestamp(2) == duration('3s')", "-dyn(duration('1s')) == duration('-1s')",
            "'ab' + 'c' in ['abc']", "{'ab': 1}['a' + 'b'] == 1", "(dyn('a') + dyn('b')).startsWith('a')",
            f"{g.attr('string')} + '' == {g.attr('string')}", f"{g.attr('int')} + 1 > {g.attr('int')}",
            "dyn(1.5) + dyn(1.5) == 3.0", "dyn(7) % dyn(-3) == 1", "dyn(-7) / dyn(2) == -3", "dyn(5u) - dyn(6u) == 0u",
        )),
    ))


def _dyn_functions(g: Gen) -> str:
    """Functions called on receivers and arguments whose types only the run time knows: the
    standard string functions, the string extension, the Kubernetes libraries and list
    functions, on values of the right type and of the wrong one."""
    r = g.r
    values = ("dyn(1)", "dyn(2u)", "dyn(1.5)", "dyn('abc')", "dyn(b'a')", "dyn(true)", "dyn(null)", "dyn([1, 2])",
              "dyn(['b', 'a'])", "dyn({'a': 1})", "dyn(duration('1s'))", "dyn(timestamp(0))", "dyn(quantity('1'))",
              "dyn(semver('1.0.0'))", "dyn(url('http://x/y'))", "dyn(ip('10.0.0.1'))", "dyn(cidr('10.0.0.0/8'))",
              "dyn([1, 'a'])", "dyn([])", g.attr(), g.attr("string"), g.attr("version"), g.cap())
    target, argument = r.choice(values), r.choice(values)
    member = r.choice((
        "startsWith({a})", "endsWith({a})", "contains({a})", "matches({a})", "size()", "lowerAscii()", "upperAscii()",
        "split({a})", "join()", "join({a})", "charAt({a})", "indexOf({a})", "lastIndexOf({a})", "substring({a})",
        "replace({a}, 'x')", "trim()", "reverse()", "isGreaterThan({a})", "isLessThan({a})", "compareTo({a})",
        "asInteger()", "isInteger()", "asApproximateFloat()", "sign()", "add({a})", "sub({a})", "major()", "minor()",
        "patch()", "getHost()", "getPath()", "family()", "isLoopback()", "containsIP({a})", "ip()", "prefixLength()",
        "sum()", "min()", "max()", "isSorted()", "distinct()", "sort()", "first()", "last()", "flatten()",
        "slice(0, 1)", "getSeconds()", "getHours()", "getFullYear()", "format([{a}])",
    )).format(a=argument)
    global_call = r.choice(("size({t})", "string({t})", "int({t})", "type({t}) == type({a})", "dyn({t}) == {a}",
                            "quantity({t})", "semver({t})", "isQuantity({t})", "isSemver({t})", "url({t})", "ip({t})",
                            "sets.contains({t}, {a})", "sets.intersects({t}, {a})", "lists.range({t})",
                            "strings.quote({t})"))
    return r.choice((
        f"{target}.{member} == {r.choice(('true', '1', chr(39) + 'a' + chr(39), argument))}",
        f"[{target}.{member}].size() == 1",
        f"[{global_call.format(t=target, a=argument)}].size() == 1",
        f"{target}.{member} != null || true",
    ))


# --- issue 27: where cel-cpp and cel-python differ from cel-go -----------------------------------

# Integers next to their neighbours as doubles: 2^53 + 1 rounds to 2^53, 2^63 - 1 to 2^63.
_BIG_INTS = ("9007199254740993", "9007199254740992", "9223372036854775807", "-9223372036854775807 - 1",
             "4611686018427387905", "1", "0")
_BIG_UINTS = ("9007199254740993u", "18446744073709551615u", "9223372036854775808u", "1u", "0u")
_BIG_DOUBLES = ("9007199254740992.0", "9007199254740994.0", "9223372036854775807.0", "9223372036854775808.0",
                "-9223372036854775808.0", "18446744073709551616.0", "18446744073709551615.0", "1.0", "0.5",
                "-0.0", "double('NaN')", "1e300")


def _numeric_mixed(g: Gen) -> str:
    """int / uint / double comparison, equality, membership and map lookups: cel-go meets an
    integer and a double as two doubles (lossy above 2^53); a constant list is a hash set that
    holds each integer's double form; a double of exactly -2^63 is never an int key."""
    r = g.r
    i, u, d = r.choice(_BIG_INTS), r.choice(_BIG_UINTS), r.choice(_BIG_DOUBLES)
    n = r.choice((i, u))
    op = g.pick("==", "!=", "<", "<=", ">", ">=")
    return r.choice((
        f"dyn({n}) {op} {d}",
        f"dyn({d}) {op} {n}",
        f"{n} {op} dyn({d})",
        f"dyn({i}) {op} dyn({u})",
        f"dyn({n}) in [{d}]",
        f"dyn({d}) in [{n}]",
        f"dyn({d}) in [{i}, {r.choice(_BIG_INTS)}]",
        f"dyn({n}) in [{d}, {r.choice(_BIG_DOUBLES)}]",
        f"dyn({n}) in [dyn({d})]",
        f"cel.bind(x, {d}, dyn({n}) in [x])",
        f"{{{i}: 'a'}}[dyn({d})] == 'a'",
        f"{{{u}: 'a'}}[dyn({d})] == 'a'",
        f"dyn({d}) in {{{n}: 1}}",
        f"{{{n}: 1}}[?dyn({d})].hasValue()",
        f"[dyn({n})] == [dyn({d})]",
        f"{{'k': dyn({n})}} == {{'k': dyn({d})}}",
        f"optional.of(dyn({n})) == optional.of(dyn({d}))",
        f"[{n}, {r.choice(_BIG_INTS + _BIG_UINTS)}].exists_one(x, dyn(x) == {d})",
        f"[{n}].all(x, dyn(x) {op} {d})",
        f"[dyn({n}), dyn({d})].exists(x, x == {d})",
        f"optional.of(dyn({n})).orValue(0) {op} {d}",
        f"sets.contains([dyn({n})], [dyn({d})])",
        f"[dyn({n})].indexOf(dyn({d})) == 0",
        f"dyn({g.attr('int')}) {op} {d}",
        f"{g.attr('int')} {op} {d}",
    ))


def _library_overflow(g: Gen) -> str:
    """Quantity add/sub at the int64 edge (apimachinery's int64Amount falls back to inf.Dec) and
    semver components past int64."""
    r = g.r
    edge = r.choice(("9223372036854775807", "-9223372036854775808", "9223372036854775806", "4611686018427387904",
                     "8Ei", "-8Ei", "7Ei", "9223372036854775807m", "1", "-1", "1n", "999999999999999999"))
    q = f"quantity({_quote(edge)})"
    number = r.choice(("1", "-1", "9223372036854775807", "-9223372036854775807 - 1", "2", "0"))
    other = f"quantity({_quote(r.choice(('1', '-1', '9223372036854775807', '1n', '8Ei', '1m', '2')))})"
    component = r.choice(("9223372036854775807", "9223372036854775808", "18446744073709551616",
                          "99999999999999999999", "0", "1"))
    version = r.choice((f"{component}.0.0", f"1.{component}.0", f"0.0.{component}", f"{component}.{component}.1"))
    return r.choice((
        f"{q}.add({number}).asInteger() {g.cmp()} 0",
        f"{q}.sub({number}).asInteger() {g.cmp()} 0",
        f"{q}.add({number}).isInteger()",
        f"{q}.add({other}).compareTo({q}) {g.cmp()} 0",
        f"{q}.sub({other}).asApproximateFloat() {g.cmp()} 0.0",
        f"{q}.add({other}).sub({other}) == {q}",
        f"{q}.add({number}).sign() == {r.choice(('1', '-1', '0'))}",
        f"semver({_quote(version)}).major() {g.cmp()} 0",
        f"semver({_quote(version)}).minor() >= 0",
        f"semver({_quote(version)}).patch() >= 0",
        f"isSemver({_quote(version)})",
        f"semver({_quote(version)}, true).major() >= 0",
        f"semver({_quote(version)}) {g.cmp()} semver('1.0.0')",
        f"semver({_quote(version)}).compareTo(semver({_quote(version)})) == 0",
    ))


def _strings_edge(g: Gen) -> str:
    """``split`` of empty strings and ``format`` as Go's fmt does it for large, infinite and list
    values, and ``%s`` of bytes that are not UTF-8 (a runtime error upstream)."""
    r = g.r
    verb = r.choice(("%f", "%e", "%s", "%.3f", "%.1e", "%.0f", "%d", "%x"))
    value = r.choice(("1e300", "-1e300", "1e21", "1e20", "123456789.0", "1e-7", "0.000001", "double('inf')",
                      "double('-inf')", "double('NaN')", "-0.0", "9007199254740993.0", "1.7976931348623157e308",
                      "[1e300]", "[1e21, 1e20, 0.000001, 1e-7]", "[double('inf'), -0.0]", "[1.5, 2]",
                      "{'k': 1e21}", "b'\\xff'", "[b'\\xff']", "b'ok'", "{'k': b'\\xff'}", "9223372036854775807",
                      "18446744073709551615u"))
    return r.choice((
        f"{_quote(verb)}.format([{value}]) != ''",
        f"{_quote(verb)}.format([{value}]).size() {g.cmp()} {r.choice(('5', '10', '20', '300'))}",
        f"{{'': 1}}[{_quote(verb)}.format([{value}])] == 1",
        f"{_quote(verb)}.format([{value}]) == {_quote(r.choice(('Infinity', '-Infinity', 'NaN', '[1e+300]', '1e+21', '1.000000e+300', '[+Inf, -0]', '')))}",
        f"{_quote(r.choice(('', 'a', 'a,b', ',')))}.split({_quote(r.choice(('', ',', 'a')))}) == {r.choice(('[]', '[' + chr(39) + chr(39) + ']', '[' + chr(39) + 'a' + chr(39) + ']'))}",
        f"{_quote(r.choice(('', 'abc', 'é')))}.split({_quote(r.choice(('', 'b')))}).size() == {r.randint(0, 3)}",
        f"{_quote(r.choice(('', 'abc')))}.split('', {r.choice(('0', '1', '2', '-1'))}).size() == {r.randint(0, 3)}",
    ))


# Patterns RE2 refuses (cel-go checks constant patterns at compile time) or that Python's re2
# wrapper and Go's regexp disagree on.
_RE2_PATTERNS = ("\\C", "a\\C", "\\Ca", "(?P=n)", "(?<n>a)", "a{1001}", "a{2,1}", "\\z", "\\Z", "\\8", "(?i:a)",
                 "[[:alpha:]]", "\\pN", "\\p{Greek}", "(?U)a+", "a**", "(?=a)", "(?!a)", "\\b", "x{,3}", "\\Q*\\E",
                 "[a-\\d]", "(?s).", "\\x{10FFFF}", "\\x{110000}", "((((((((((a))))))))))", "\\0")


def _regex_re2(g: Gen) -> str:
    """RE2 syntax cel-go refuses at compile time (constant patterns) or at run time."""
    r = g.r
    pattern = _quote(r.choice(_RE2_PATTERNS))
    s = r.choice(("'a'", "'abc'", g.attr("string")))
    return r.choice((
        f"{s}.matches({pattern})",
        f"{s}.find({pattern}) == ''",
        f"{s}.findAll({pattern}).size() >= 0",
        f"{s}.matches(dyn({pattern}))",
        f"cel.bind(p, {pattern}, {s}.matches(p))",
    ))


def _comprehension_limits(g: Gen) -> str:
    """Comprehensions past cel-cpp's 10,000 iterations: upstream's only limits are the runtime
    cost limit and the cost estimate. (Ranges stay small enough for the oracle to answer fast.)"""
    r = g.r
    n = r.choice(("9999", "10000", "10001", "12000"))
    inner = r.choice(("100", "101"))
    return r.choice((
        f"lists.range({n}).all(i, true)",
        f"lists.range({n}).exists(i, i == {int(n) - 1})",
        f"lists.range({n}).exists_one(i, i == 5)",
        # map and filter stay short: cel-cpp's accumulator copies the list on every step, so
        # ten thousand steps take gigabytes (quadratic), whatever the engine's answer
        f"lists.range({r.choice(('500', '1000'))}).map(i, i).size() > 0",
        f"lists.range({r.choice(('500', '1000'))}).filter(i, i % 2 == 0).size() > 0",
        f"lists.range({inner}).all(i, lists.range({inner}).all(j, true))",
        f"lists.range({n}).all(i, {g.attr('int')} > 0)",
        f"lists.range({n}).all(i, v, v == i)",
        "lists.range(6000).all(i, true) && lists.range(6000).all(i, true)",
        f"lists.range({n}).all(i, true) || {g.attr('bool')}",
    ))


def _celpy_divergence(g: Gen) -> str:
    """Where the cel-python library differs from cel-go: runtime cost per comprehension step,
    eager ``orValue``/``or`` arguments, string conversions in Python's number syntax, selectors
    above the cost limit."""
    r = g.r
    text = _quote(r.choice(("0x1p-2", "1_000", "+1", "١٢", "１", "1e3", " 1", "1.", ".5", "0x10", "-0", "Inf",
                            "infinity", "+Inf", "1_0.5", "0b1", "0o7", "1E+2", "+0x1", "007", "-", "")))
    conversion = r.choice(("double", "int", "uint"))
    return r.choice((
        f"{conversion}({text}) {g.pick('==', '!=', '>=')} {dict(double='1.0', int='1', uint='1u')[conversion]}",
        f"[{text}].all(s, {conversion}(s) >= {dict(double='0.0', int='0', uint='0u')[conversion]})",
        "optional.of(1).orValue(1 / 0) == 1",
        "optional.of(1).or(optional.of(1 / 0)).value() == 1",
        f"optional.none().orValue({g.attr('int')}) >= 0",
        f"{g.attr('int')} > 0 && optional.of(1).orValue([1][5]) == 1",
        f"optional.of({g.attr('int')}).or(optional.of({g.attr('string')})).hasValue()",
        f"lists.range({r.choice(('50', '60'))}).map(i, lists.range({r.choice(('50', '60'))}).filter(j, j > i).size()).size() > 0",
        "[1, 2, 3].all(i, lists.range(20000).size() > 0)",
    ))


#: Topics whose cases are slow to answer (long comprehensions, in cel-python and in the oracle):
#: at most this many cases per configuration, and only in these configurations.
SLOW_TOPICS: dict[str, tuple[int, tuple[str, ...]]] = {
    "comprehension-limits": (10, ("1.36-stored", "1.36-new")),
    "celpy-divergence": (25, ("1.36-stored", "1.36-new")),
}
#: Cases per configuration of the issue-27 topics (their classes are narrow: a few dozen cover them).
TOPIC_LIMITS = {"numeric-mixed": 40, "library-overflow": 25, "strings-edge": 30, "regex-re2": 20}

TOPICS: dict[str, Topic] = {
    "attributes": _attributes,
    "quantity": _quantity,
    "quantity-edge": _quantity_edge,
    "semver": _semver,
    "strings-ext": _strings_ext,
    "codepoint": _codepoint,
    "regex": _regex,
    "lists-library": _lists_library,
    "ext-lists": _ext_lists,
    "two-var-comprehension": _two_var,
    "macros": _macros,
    "url": _url,
    "ip-cidr": _ip_cidr,
    "sets": _sets,
    "format": _format_library,
    "optional": _optional,
    "bind": _bind,
    "list-attributes": _list_attributes,
    "runtime-type-error": _runtime_type_error,
    "numbers": _numbers,
    "conversions": _conversions,
    "ill-typed": _ill_typed,
    "random": _random,
    "error-absorption": _error_absorption,
    "cost": _cost,
    "time": _time,
    "strings-format": _strings_format,
    "maps-equality": _maps_equality,
    "map-keys": _map_keys,
    "dyn-conversions": _dyn_conversions,
    "device-maps-whole": _device_maps_whole,
    "indexing": _indexing,
    "selection": _selection,
    "library-equality": _library_equality,
    "literals": _literals,
    "dyn-operators": _dyn_operators,
    "dyn-functions": _dyn_functions,
    "numeric-mixed": _numeric_mixed,
    "library-overflow": _library_overflow,
    "strings-edge": _strings_edge,
    "regex-re2": _regex_re2,
    "comprehension-limits": _comprehension_limits,
    "celpy-divergence": _celpy_divergence,
}
# The topics "random" combines (a fixed list: a new topic does not change the random cases).
COMBINABLE = (
    "attributes", "quantity", "quantity-edge", "semver", "strings-ext", "codepoint", "regex", "lists-library",
    "ext-lists", "two-var-comprehension", "macros", "url", "ip-cidr", "sets", "format", "optional", "bind",
    "runtime-type-error", "numbers", "conversions",
)


def expressions(seed: int, topic: str, count: int) -> list[str]:
    """``count`` distinct expressions of ``topic`` (fewer when the topic has fewer), in a fixed
    order for a given seed."""
    r = random.Random(f"{seed}:{topic}")
    g = Gen(r)
    generate = TOPICS[topic]
    found: dict[str, None] = {}
    attempts = 0
    while len(found) < count and attempts < count * 20:
        attempts += 1
        found.setdefault(generate(g), None)
    return list(found)
