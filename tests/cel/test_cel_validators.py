"""cel-go's literal validators (Kubernetes base environment since 1.29), on the default engine."""

from __future__ import annotations

import pytest

from dractl.cel import CelCompileError, compile_selector


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        ('duration("1h30m") > duration("0")', None),
        ('duration("-1.5s") < duration("1us")', None),
        ('duration("1d") > duration("1s")', "1:10: invalid duration argument"),
        ('duration("h") > duration("1s")', "1:10: invalid duration argument"),
        # Go's time.ParseDuration: an int64 of nanoseconds, narrower than the protobuf range
        ('duration("2562047h47m16.854775807s") > duration("0")', None),
        ('duration("2562047h47m16.854775808s") > duration("0")', "1:10: invalid duration argument"),
        ('duration("-9223372036.854775808s") < duration("0")', None),
        ('duration("-9223372036.854775809s") < duration("0")', "1:10: invalid duration argument"),
        ('duration("315576000000s") > duration("0")', "1:10: invalid duration argument"),
        # timestamp(int): seconds from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z
        ("timestamp(253402300799) > timestamp(0)", None),
        ("timestamp(253402300800) > timestamp(0)", "1:11: invalid timestamp argument"),
        ("timestamp(-62135596800) < timestamp(0)", None),
        ("timestamp(-62135596801) < timestamp(0)", "1:11: invalid timestamp argument"),
        ('timestamp("2025-01-01T00:00:00Z") < timestamp("2025-01-01T00:00:00.123-07:00")', None),
        ('timestamp("2025-13-01T00:00:00Z") < timestamp("2026-01-01T00:00:00Z")', "1:11: invalid timestamp argument"),
        ('timestamp("2025-01-01") < timestamp("2026-01-01T00:00:00Z")', "1:11: invalid timestamp argument"),
        ('"a".matches("^(a|b)+$")', None),
        ('"a".matches("(a")', "1:13: invalid matches argument"),
        # cel-go checks the first argument of the global form, whatever it means
        ('matches("(a", "a")', "1:9: invalid matches argument"),
        ('["a", "b"].size() == 2', None),
        ('[1, "a"].size() == 2', "1:5: expected type 'int' but found 'string'"),
        ('{"a": 1, "b": 2.0}.size() == 2', "1:15: expected type 'int' but found 'double'"),
        ('[[1], ["a"]].size() == 2', "1:7: expected type 'list(int)' but found 'list(string)'"),
    ],
)
def test_literal_validators(expression: str, error: str | None) -> None:
    if error is None:
        compile_selector(expression, release="1.34", purpose="new")
        return
    with pytest.raises(CelCompileError) as caught:
        compile_selector(expression, release="1.34", purpose="new")
    assert caught.value.detail.startswith(f"compilation failed: ERROR: <input>:{error}\n")
