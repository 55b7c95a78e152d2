"""Where cel-cpp and cel-python differed from cel-go (issue 27 §1): mixed int/uint/double
comparison, comprehension limits, the strings extension, RE2 syntax Go refuses. Every expected
answer is the upstream binary's (dra-upstream cel, Kubernetes 1.36, StoredExpressions)."""

from __future__ import annotations

from typing import Any

import pytest

from dractl.cel import CelCompileError, CelDevice, CelRuntimeError, compile_selector, numbers, regex
from dractl.cel.engines import ENGINES, engine_available

ENGINE_NAMES = [name for name in ENGINES if engine_available(name)]


@pytest.mark.parametrize(("left", "right", "want"), [
    (9007199254740993, 9007199254740992.0, True),  # the int rounds to the double
    (2**63 - 1, 9223372036854775807.0, True),
    (2**64 - 1, 18446744073709551616.0, True),  # a uint likewise
    (1, 1.0, True),
    (1, 1.5, False),
    (1, float("nan"), False),
    (2**63 - 1, 2**63 - 2, False),  # two integers compare exactly
])
def test_numbers_equal(left: int | float, right: int | float, want: bool) -> None:
    assert numbers.equal(left, right) is want
    assert numbers.equal(right, left) is want


@pytest.mark.parametrize(("left", "right", "want"), [
    (9007199254740993, 9007199254740992.0, 0),
    (9007199254740993, 9007199254740994.0, -1),
    (2**63 - 1, 9223372036854775806.0, 0),  # both sides round to 2^63
    (-1, -0.5, -1),
    (3, 2.5, 1),
])
def test_numbers_compare(left: int | float, right: int | float, want: int) -> None:
    assert numbers.compare(left, right) == want
    assert numbers.compare(right, left) == -want


@pytest.mark.parametrize(("value", "want"), [
    (2.0, 2),
    (-9223372036854775808.0, None),  # doubleToInt64Checked refuses v <= MinInt64
    (-9223372036854775807.0 + 1024, -9223372036854774784),
    (9223372036854775808.0, 2**63),  # a uint key
    (18446744073709551616.0, None),
    (1.5, None),
    (float("inf"), None),
    (float("nan"), None),
])
def test_numbers_integral_key(value: float, want: int | None) -> None:
    assert numbers.integral_key(value) == want


@pytest.mark.parametrize(("item", "elements", "want"), [
    (9007199254740992.0, [9007199254740993], True),  # the set holds the int's double form
    (9007199254740993, [9007199254740992.0], False),  # ... and the double's int form, 2^53
    (9007199254740992, [9007199254740992.0], True),
    (2**63, [9223372036854775808.0], True),  # the double's uint form
    (-(2**63), [-9223372036854775808.0], False),  # no int form of -2^63
    (1, [True], False),
    (float("nan"), [1, 2], False),
])
def test_numbers_set_contains(item: int | float, elements: list[Any], want: bool) -> None:
    assert numbers.set_contains(item, elements) is want


@pytest.mark.parametrize(("pattern", "error"), [
    ("\\C", "error parsing regexp: invalid escape sequence: `\\C`"),
    ("a\\Cb", "error parsing regexp: invalid escape sequence: `\\C`"),
    ("[\\C]", "error parsing regexp: invalid escape sequence: `\\C`"),
    ("\\\\C", None),  # an escaped backslash, then C
    ("\\Q\\C\\E", None),  # quoted text
    ("a+", None),
])
def test_go_regexp_refuses_any_byte(pattern: str, error: str | None) -> None:
    assert regex.go_regexp_error(pattern) == error


_DEVICE = CelDevice(driver="gpu.example.com", attributes={"numa": {"int": 1}})

# (expression, upstream's answer: True/False or the error text)
UPSTREAM = [
    # family 1: an integer meets a double as a double
    ("dyn(9007199254740993) == 9007199254740992.0", True),
    ("dyn(9223372036854775807) == 9223372036854775807.0", True),
    ("dyn(18446744073709551615u) == 18446744073709551616.0", True),
    ("dyn(9007199254740993) <= 9007199254740992.0", True),
    ("dyn(9007199254740993) != 9007199254740992.0", False),
    ("[dyn(9007199254740993)] == [dyn(9007199254740992.0)]", True),
    ("[9007199254740993, 1].map(x, dyn(x) == 9007199254740992.0) == [true, false]", True),
    ("dyn(9007199254740992.0) in [9007199254740993]", True),
    ("dyn(9007199254740993) in [9007199254740992.0, 1.5]", False),
    ("dyn(-9223372036854775808.0) in {-9223372036854775807 - 1: 1}", False),
    ("dyn(9223372036854775808u) in [9223372036854775808.0]", True),
    # family 5: no iteration limit but the cost
    ("lists.range(10000).all(i, true)", True),
    ("lists.range(10001).exists_one(i, i == 5)", True),
    ("lists.range(10001).all(i, true) || false", True),
    # family 3: strings extension as Go's fmt writes it
    ('"".split("") == []', True),
    ('"".split("", 2).size() == 0', True),
    ('"abc".split("") == ["a", "b", "c"]', True),
    ('"%e".format([1e300]) == "1.000000e+300"', False),
    ('"%f".format([double("inf")]) == "Infinity"', False),
    ('"%s".format([[1e300]]) == "[1e+300]"', False),
    ('"%s".format([b"\\xff"]) == ""',
     'error during formatting: could not convert argument "invalid UTF-8 in bytes, cannot convert to string" '
     "to string"),
    ('{"": 1}["%s".format([b"\\xff"])] == 1',
     'error during formatting: could not convert argument "invalid UTF-8 in bytes, cannot convert to string" '
     "to string"),
    ('"%.2f".format([1.5]) == "1.50"', True),
    # family 2: semver components are uint64 upstream, converted with int64()
    ('semver("9223372036854775808.0.0").major() == -9223372036854775807 - 1', True),
    ('semver("18446744073709551615.0.0").major() == -1', True),
    # family 6: orValue and or do not evaluate their argument for a present optional
    ("optional.of(1).orValue(1 / 0) == 1", True),
    ("optional.of(1).or(optional.of(1 / 0)).value() == 1", True),
    ("optional.none().orValue(1 / 0) == 1", "division by zero"),
    ("optional.none().or(optional.of(2)).value() == 2", True),
    # family 4: RE2 syntax Go refuses, at run time
    ('cel.bind(p, "\\\\C", "abc".matches(p))', "error parsing regexp: invalid escape sequence: `\\C`"),
    ('cel.bind(p, "[", "abc".matches(p))', "error parsing regexp: missing closing ]: `[`"),
    ('cel.bind(p, "\\\\\\\\C", "a\\\\C".matches(p))', True),
]


def _answer(expression: str, engine: str) -> Any:
    selector = compile_selector(expression, release="1.36", purpose="stored", engine=engine)  # type: ignore[arg-type]
    try:
        return selector.evaluate(_DEVICE)
    except CelRuntimeError as exc:
        return exc.message


@pytest.mark.parametrize("engine", ENGINE_NAMES)
@pytest.mark.parametrize(("expression", "want"), UPSTREAM)
def test_engines_answer_as_upstream(engine: str, expression: str, want: Any) -> None:
    assert _answer(expression, engine) == want


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_constant_pattern_only_go_refuses_fails_the_program(engine: str) -> None:
    with pytest.raises(CelCompileError) as raised:
        _answer("matches('abc', dyn('\\\\C'))", engine)
    assert raised.value.detail == "program instantiation failed: error parsing regexp: invalid escape sequence: `\\C`"
