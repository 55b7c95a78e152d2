"""cel-go's compile-time check of ``string.format`` (strings extension v2), on the default engine.

Expected texts are the upstream compiler's (Kubernetes 1.36, cel-go v0.26).
"""

from __future__ import annotations

import re

import pytest

from dractl.cel import CelCompileError, compile_selector

_STRING_CLAUSE = ("error during formatting: string clause can only be used on strings, bools, bytes, ints, "
                  "doubles, maps, lists, types, durations, and timestamps, was given ")
_ATTRIBUTE = 'device.attributes["gpu.example.com"].model'


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        ('"%s and %d".format(["a", 1]) != ""', None),
        ('"%.2f %e %x %X %o %b".format([1.5, 2.0, "ab", b"c", 8, true]) != ""', None),
        ('"%f".format(["NaN"]) != ""', None),  # strings pass the fixed-point clause
        ('"%d".format([dyn(1.5)]) != ""', None),  # dyn passes every clause
        ('"%s".format([[quantity("1")][0]]) != ""', f"1:29: {_STRING_CLAUSE}kubernetes.Quantity"),
        ('"%s".format([{"a": ip("1.2.3.4")}]) != ""', f"1:22: {_STRING_CLAUSE}net.IP"),
        (f'"%s".format([{_ATTRIBUTE}]) != ""', f"1:50: {_STRING_CLAUSE}google.protobuf.Any"),
        ('"%d".format([1.5]) != ""',
         "1:14: error during formatting: decimal clause can only be used on integers, was given double"),
        ('"%.0f".format([[]]) != ""',
         "1:16: error during formatting: fixed-point clause can only be used on doubles, was given list"),
        ('"%x".format([duration("1s")]) != ""', "1:22: error during formatting: only integers, byte buffers, "
         "and strings can be formatted as hex, was given google.protobuf.Duration"),
        ('"%d".format([[1].first()]) != ""',
         "1:23: error during formatting: decimal clause can only be used on integers, was given optional_type"),
        ('"%b".format([null]) != ""',
         "1:14: error during formatting: only integers and bools can be formatted as binary, was given null_type"),
        ('"%q".format([1]) != ""', '1:12: could not parse formatting clause: unrecognized formatting clause "q"'),
        ('"%-3s".format([1]) != ""', '1:14: could not parse formatting clause: unrecognized formatting clause "-"'),
        # Go reads the clause letter as one byte
        ('"%é".format([1]) != ""', '1:12: could not parse formatting clause: unrecognized formatting clause "Ã"'),
        ('"%".format([1]) != ""', "1:11: unexpected end of string"),
        ('"%s".format([]) != ""', "1:12: index 0 out of range"),
        ('"%e %e".format([1.5]) != ""', "1:15: index 1 out of range"),
        ('"%.3".format([1.5]) != ""', "1:13: could not parse formatting clause: error while parsing precision: "
         "could not find end of precision specifier"),
        ('"%.f".format([1.5]) != ""', "1:13: could not parse formatting clause: error while parsing precision: "
         'error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax'),
        ('"%% %%".format([1.5]) != ""', "1:15: too many arguments supplied to string.format (expected 0, got 1)"),
        ('"%s".format([1, 2]) != ""', "1:12: too many arguments supplied to string.format (expected 1, got 2)"),
        # only a literal format string with a list literal is checked
        ('cel.bind(f, "%q", f.format([1])) != ""', None),
        ('"%q".format(["a"].map(x, x)) != ""', None),
    ],
)
def test_format_calls_checked_at_compile_time(expression: str, error: str | None) -> None:
    if error is None:
        compile_selector(expression, release="1.36", purpose="new")
        return
    with pytest.raises(CelCompileError) as caught:
        compile_selector(expression, release="1.36", purpose="new")
    assert caught.value.detail.startswith(f"compilation failed: ERROR: <input>:{error}\n")


def test_every_bad_format_call_is_reported_in_position_order() -> None:
    with pytest.raises(CelCompileError) as caught:
        compile_selector('"%d %d".format([1]) == "" || "%q".format([1]) == ""', release="1.36", purpose="new")
    assert re.findall(r"ERROR: <input>:(\d+:\d+)", caught.value.detail) == ["1:15", "1:41"]


def test_attribute_values_pass_with_list_type_attributes() -> None:
    # with DRAListTypeAttributes the attribute type is dyn, which every clause takes
    expression = f'"%d".format([{_ATTRIBUTE}]) != ""'
    compile_selector(expression, release="1.36", gates={"DRAListTypeAttributes": True}, purpose="new")
