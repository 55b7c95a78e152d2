"""What upstream does with constants when it builds a selector's program, on the default engine.

Expected answers are the upstream compiler's (Kubernetes 1.36, cel-go v0.26): a constant type
conversion that fails, a bad constant regex or a type name the runtime lacks is ``program
instantiation failed: ...`` however the expression would run; literal durations and timestamps
are checked when compiling.
"""

from __future__ import annotations

import pytest

from dractl.cel import CelCompileError, compile_selector
from dractl.cel.program_build import go_format_g, go_parse_float


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        ('int("x") == 1 || true',
         "program instantiation failed: type conversion error from 'string' to 'int'"),
        ('false && int("x") == 1',
         "program instantiation failed: type conversion error from 'string' to 'int'"),
        ('[int("x") == 1, true].exists(x, x)',
         "program instantiation failed: type conversion error from 'string' to 'int'"),
        ('string(b"\\xff") != ""',
         'program instantiation failed: invalid UTF-8 in bytes, cannot convert to string'),
        ('string(b"\\xc3\\xa9") == "é"', None),
        ('int(-1e19) != 0', 'program instantiation failed: integer overflow'),
        ('int(-9.223372036854775808e18) != 0', 'program instantiation failed: integer overflow'),
        ('int(double("NaN")) != 0', 'program instantiation failed: integer overflow'),
        ('uint(-0.5) >= 0u', 'program instantiation failed: unsigned integer overflow'),
        ('uint(-0.0) == 0u', None),
        ('int(9223372036854775808u) > 0', 'program instantiation failed: integer overflow'),
        ('bool("yes")',
         "program instantiation failed: type conversion error from 'string' to 'bool'"),
        ('bool("T")', None),
        ('int("0x1") > 0',
         "program instantiation failed: type conversion error from 'string' to 'int'"),
        ('int("+5") == 5', None),
        ('uint("+5") == 5u',
         "program instantiation failed: type conversion error from 'string' to 'uint'"),
        ('double("1e400") > 0.0',
         "program instantiation failed: type conversion error from 'string' to 'double'"),
        ('double("1_000") > 0.0', None),
        ('double("0x1p-2") > 0.0', None),
        ('double("+nan") > 0.0',
         "program instantiation failed: type conversion error from 'string' to 'double'"),
        ('double("Infinity") > 0.0', None),
        ('int(string(1.0)) == 1', None),
        ('int(string(1e6)) == 1',
         "program instantiation failed: type conversion error from 'string' to 'int'"),
        ('int(string(123456.0)) == 1', None),
        ('matches(device.driver, "[")',
         'program instantiation failed: error parsing regexp: missing closing ]: `[`'),
        ('device.driver.matches(string(b"["))',
         'program instantiation failed: error parsing regexp: missing closing ]: `[`'),
        ('matches("[", "a")',
         'compilation failed: ERROR: <input>:1:9: invalid matches argument'),
        ('string(null) != ""',
         'program instantiation failed: no such overload: string(null_type)'),
        ('int(null) != 0', 'program instantiation failed: no such overload: int(null_type)'),
        ('string(dyn([1])) != ""',
         'program instantiation failed: no such overload: string(list)'),
        ('type(1) == google.protobuf.Any',
         'program instantiation failed: reference to undefined type: google.protobuf.Any'),
        ('type(1) == google.protobuf.Timestamp', None),
        ('device.driver.find("(") == ""',
         'program instantiation failed: error parsing regexp: missing closing ): `(`'),
        ('timestamp(253402300800) > timestamp("1970-01-01T00:00:00Z")',
         'compilation failed: ERROR: <input>:1:11: invalid timestamp argument'),
        ('timestamp(string(253402300800)) > timestamp("1970-01-01T00:00:00Z")',
         "program instantiation failed: type conversion error from 'string' to 'google.protobuf.Timestamp'"),
        ('duration("2562047h") > duration("1s")', None),
        ('duration("2562048h") > duration("1s")',
         'compilation failed: ERROR: <input>:1:10: invalid duration argument'),
        ('duration("-2562047h47m16.854775808s") < duration("1s")', None),
        ('duration(string(b"1d")) > duration("1s")',
         "program instantiation failed: type conversion error from 'string' to 'google.protobuf.Duration'"),
        ('int(dyn("1")) == 1', None),
        ('{"a": int("x")}.size() == 1',
         "program instantiation failed: type conversion error from 'string' to 'int'"),
        ('string([1, 2][0]) == "1"', None),
        ('uint(-1) >= 0u && int("y") == 1',
         'program instantiation failed: unsigned integer overflow'),
    ],
)
def test_constants_upstream_rejects_when_building_the_program(expression: str, error: str | None) -> None:
    if error is None:
        compile_selector(expression, release="1.36", purpose="new")
        return
    with pytest.raises(CelCompileError) as caught:
        compile_selector(expression, release="1.36", purpose="new")
    assert caught.value.detail.split("\n")[0] == error
    assert caught.value.kind == ("internal" if error.startswith("program instantiation failed") else "invalid")


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.0, "1"), (-0.0, "-0"), (1.5, "1.5"), (123456.0, "123456"), (1e6, "1e+06"), (1234567.0, "1.234567e+06"),
     (0.0001, "0.0001"), (0.00001, "1e-05"), (float("inf"), "+Inf"), (float("nan"), "NaN")],
)
def test_doubles_print_as_go_percent_g(value: float, text: str) -> None:
    assert go_format_g(value) == text


@pytest.mark.parametrize(
    ("text", "value"),
    [("1.5", 1.5), (".5", 0.5), ("5.", 5.0), ("1_000", 1000.0), ("0x1p-2", 0.25), ("-Infinity", float("-inf")),
     ("1e400", None), ("+nan", None), ("0x1", None), ("1e", None), (" 1", None), ("1__0", None), ("infin", None)],
)
def test_strings_parse_as_go_parse_float(text: str, value: float | None) -> None:
    assert go_parse_float(text) == value
