"""Calls whose operand has no static type, checked at run time as cel-go dispatches them.

cel-cpp carries the library values (quantities, versions, IPs, ...) as tagged bytes, and its
runtime has cel-go's strings extension of every version, so a call cel-go cannot dispatch on a
value of the wrong run-time type would succeed there: ``string()`` or ``size()`` of a version
attribute (bytes to cel-cpp), ``reverse()`` of a string attribute (strings extension v3 has it,
upstream's environment has v2). The checker cannot see this when the operand is ``any`` or
``dyn``; these functions run in between and fail as cel-go does.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable
from typing import Any

from cel_expr_python import cel

from dractl.cel.engines.cel_expr_optionals import is_box

_NO_SUCH_OVERLOAD = "no such overload"
T = cel.Type


def _string_operand(token_type_name: Callable[[bytes], str], library_value: Callable[[Any], bool],
                    texts: dict[bytes, Callable[[Any], str]]) -> Callable[[Any], Any]:
    def call(value: Any) -> Any:
        if is_box(value):
            raise ValueError(f"{_NO_SUCH_OVERLOAD}: string(optional_type)")
        if library_value(value):
            text = texts.get(bytes(value[:1]))
            if text is not None:  # the network library's string(ip), string(cidr)
                return text(value)  # cel-go's string() conversion names the type it cannot convert
            raise ValueError(f"{_NO_SUCH_OVERLOAD}: string({token_type_name(bytes(value[:1]))})")
        if type(value) is datetime.timedelta:
            return go_duration_text(_nanoseconds(value))
        return dyn_result(value)
    return call


def go_duration_text(nanos: int) -> str:
    """cel-go's ``string()`` of a duration: ``strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"``
    (``1.5s``), where ``Seconds()`` is whole seconds plus nanoseconds / 1e9 as float64s."""
    import decimal  # only for durations: decimal costs start-up

    whole = abs(nanos) // 1_000_000_000 * (1 if nanos >= 0 else -1)
    seconds = float(whole) + float(nanos - whole * 1_000_000_000) / 1e9
    return format(decimal.Decimal(repr(seconds)).normalize(), "f") + "s"


def _nanoseconds(value: datetime.timedelta) -> int:
    return ((value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds) * 1_000


def _size_operand(library_value: Callable[[Any], bool]) -> Callable[[Any], Any]:
    def call(value: Any) -> Any:
        if library_value(value) or is_box(value):  # the size dispatcher names only the function
            raise ValueError(f"{_NO_SUCH_OVERLOAD}: size")
        if type(value) in _TIME_TYPES:  # receivers without a size (and no value to hand back)
            raise ValueError(_NO_SUCH_OVERLOAD)
        return value
    return call


def _reverse(type_name: Callable[[Any], str]) -> Callable[[Any], Any]:
    def call(value: Any) -> Any:
        if type(value) is not list:  # lists extension only: upstream's strings extension is v2
            raise ValueError(f"{_NO_SUCH_OVERLOAD}: reverse({type_name(value)})")
        return value[::-1]
    return call


# Go's strconv, as cel-go's string conversions call it: ParseInt and ParseUint in base 10 (no
# space, no underscore, ParseUint no sign), ParseFloat (underscores between digits, hexadecimal
# with a binary exponent, inf/infinity/nan in any case; out of range is an error), ParseBool.
# Patterns are compiled on first use (re caches them): most selectors convert no string.
_GO_INT = r"[+-]?[0-9]+"
_GO_UINT = r"[0-9]+"
_DIGITS = r"[0-9](?:_?[0-9])*"
_GO_FLOAT = (rf"[+-]?(?:(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?"
             r"|0[xX](?:[0-9a-fA-F](?:_?[0-9a-fA-F])*)?(?:\.[0-9a-fA-F]*)?[pP][+-]?[0-9]+"
             r"|(?i:inf|infinity|nan))")
_GO_BOOLS = {"1": "true", "t": "true", "T": "true", "TRUE": "true", "true": "true", "True": "true",
             "0": "false", "f": "false", "F": "false", "FALSE": "false", "false": "false", "False": "false"}
_INT64 = (-(2**63), 2**63 - 1)


def _go_parse(target: str, text: str) -> str | None:
    """``text`` as cel-cpp reads the same value, or None where Go's parser refuses it."""
    if target == "int":
        if re.fullmatch(_GO_INT, text) and _INT64[0] <= int(text) <= _INT64[1]:
            return str(int(text))
        return None
    if target == "uint":
        return str(int(text)) if re.fullmatch(_GO_UINT, text) and int(text) < 2**64 else None
    if target == "bool":
        return _GO_BOOLS.get(text)
    if not re.fullmatch(_GO_FLOAT, text):
        return None
    body = text.replace("_", "")
    unsigned = body.lstrip("+-").lower()
    if unsigned in ("inf", "infinity", "nan"):
        return ("-" if body.startswith("-") else "") + ("nan" if unsigned == "nan" else "inf")
    number = float.fromhex(body) if "x" in unsigned else float(body)
    return None if math.isinf(number) else repr(number)  # Go: out of range is ErrRange


def _conversion_operand(target: str, token_type_name: Callable[[bytes], str]) -> Callable[[Any], Any]:
    def call(value: Any) -> Any:
        if type(value) is str:
            if target == "bytes":
                return value
            text = _go_parse(target, value)
            if text is None:
                raise ValueError(f"type conversion error from 'string' to '{target}'")
            return text
        if is_box(value):
            raise ValueError(f"{_NO_SUCH_OVERLOAD}: {target}(optional_type)")
        if target == "int" and type(value) is bool:  # cel-cpp converts it, cel-go has no int(bool)
            raise ValueError(f"{_NO_SUCH_OVERLOAD}: int(bool)")
        if type(value) in (bytes, bytearray):  # bytes, or a library value carried as bytes
            kind = token_type_name(value)
            if target == "bytes" and kind == "bytes":
                return value
            raise ValueError(f"{_NO_SUCH_OVERLOAD}: {target}({kind})")
        if type(value) in _TIME_TYPES:  # cel-go: int() of a duration or timestamp, nothing else
            if target != "int":
                raise ValueError(f"{_NO_SUCH_OVERLOAD}: {target}({_TIME_TYPES[type(value)]})")
            if type(value) is datetime.timedelta:
                return _nanoseconds(value)
        return dyn_result(value)
    return call


def dyn_result(value: Any) -> Any:
    """A value a function declared ``dyn`` can return: cel-expr-python takes durations and
    timestamps back only as their protobuf messages (imported here: most selectors never need
    them, and the modules cost start-up)."""
    if type(value) is datetime.timedelta:
        from google.protobuf import duration_pb2

        message = duration_pb2.Duration()
        message.FromTimedelta(value)
        return message
    if type(value) is datetime.datetime:
        from google.protobuf import timestamp_pb2

        stamp = timestamp_pb2.Timestamp()
        stamp.FromDatetime(value)
        return stamp
    return value


_TIME_TYPES = {datetime.timedelta: "google.protobuf.Duration", datetime.datetime: "google.protobuf.Timestamp"}

#: Conversions whose string argument is read with Go's parser first (a string or dyn operand),
#: and whose dyn operand is checked against cel-go's overloads.
CONVERSION_CHECKS = {name: f"dractl.{name}_operand" for name in ("int", "uint", "double", "bool", "bytes")}
#: The checker's function name -> the runtime function the call's operand goes through first.
OPERAND_CHECKS = {"string": "dractl.string_operand", "size": "dractl.size_operand"}
#: The checker's function name -> the runtime function that replaces the call.
REPLACEMENTS = {"reverse": "dractl.reverse"}


def declarations(token_type_name: Callable[[bytes], str], library_value: Callable[[Any], bool],
                 type_name: Callable[[Any], str], texts: dict[bytes, Callable[[Any], str]]) -> list[Any]:
    return [
        *(cel.FunctionDecl(runtime, [cel.Overload(runtime.replace(".", "_"), T.DYN, [T.DYN],
                                                  impl=_conversion_operand(name, token_type_name))])
          for name, runtime in CONVERSION_CHECKS.items()),
        cel.FunctionDecl("dractl.string_operand", [cel.Overload(
            "dractl_string_operand", T.DYN, [T.DYN], impl=_string_operand(token_type_name, library_value, texts))]),
        cel.FunctionDecl("dractl.size_operand", [
            cel.Overload("dractl_size_operand", T.DYN, [T.DYN], impl=_size_operand(library_value)),
            cel.Overload("dractl_size_operand_member", T.DYN, [T.DYN], is_member=True,
                         impl=_size_operand(library_value))]),
        cel.FunctionDecl("dractl.reverse", [cel.Overload(
            "dractl_reverse", T.DYN, [T.DYN], is_member=True, impl=_reverse(type_name))]),
    ]
