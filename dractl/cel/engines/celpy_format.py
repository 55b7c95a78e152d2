"""cel-go's string formatting (``"%s".format([x])``) and ``strings.quote`` for the cel-python engine.

The Kubernetes environment declares cel-go's strings extension at version 2, whose ``format``
follows ``ext/formatting.go``: clauses ``%s %d %f %e %b %x %X %o`` with an optional ``.N``
precision for ``%f`` and ``%e``, ``%%`` for a percent sign. ``%f`` and ``%e`` print through
``golang.org/x/text/message`` in ``en-US``: ``%f`` groups thousands (``1,234.50``) and writes
``∞``; ``%e`` writes ``1.234568×10⁰⁶`` and, as cel-go builds its verb as ``%<precision>e``,
takes the precision as a minimum width while keeping six decimals. Inside a list or map,
``%s`` writes each value as CEL would (strings and bytes quoted with Go's ``%q``, doubles with
``%.6f``, map entries sorted by their text).

What each clause takes is :mod:`dractl.cel.format_check`'s table, which also serves the
checker (cel-go's ``stringFormatValidator`` on a constant format string with a list literal of
arguments).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import celpy.celtypes as ct
from celpy.evaluation import CELEvalError

from dractl.cel.engines.celpy_values import NO_SUCH_OVERLOAD, failure, type_name

# The clause table of the compile-time check: what each clause takes and its message.
from dractl.cel.format_check import _CLAUSES as CLAUSES
from dractl.cel.format_check import _STRING_CLAUSE as STRING_CLAUSE
from dractl.cel.format_check import _STRING_KINDS as STRING_KINDS

_DEFAULT_PRECISION = 6


class FormatError(Exception):
    """cel-go's error text; ``argument`` is the index of the argument it is about, if any."""

    def __init__(self, message: str, argument: int | None = None) -> None:
        super().__init__(message)
        self.argument = argument


#: A clause: (letter, precision or None, argument index) -> the text it writes.
Clause = Callable[[str, "int | None", int], str]


def parse_format(text: str, count: int, clause: Clause) -> tuple[str, int]:
    """cel-go's parseFormatString over ``count`` arguments: the result and how many clauses took one."""
    out: list[str] = []
    index = 0
    argument = 0
    data = text.encode("utf-8")  # cel-go walks the format string byte by byte
    while index < len(data):
        if data[index:index + 1] != b"%":
            start = index
            while index < len(data) and data[index:index + 1] != b"%":
                index += 1
            out.append(data[start:index].decode("utf-8", "replace"))
            continue
        if data[index + 1:index + 2] == b"%":
            out.append("%")
            index += 2
            continue
        if argument >= count:
            raise FormatError(f"index {argument} out of range")
        if index + 1 >= len(data):
            raise FormatError("unexpected end of string")
        index += 1
        precision: int | None = None
        if data[index:index + 1] == b".":
            index += 1
            start = index
            while index < len(data) and data[index:index + 1].isdigit():
                index += 1
            if index >= len(data):
                raise FormatError("could not parse formatting clause: error while parsing precision: "
                                  "could not find end of precision specifier")
            digits = data[start:index].decode()
            if not digits:
                raise FormatError("could not parse formatting clause: error while parsing precision: error while "
                                  'converting precision to integer: strconv.Atoi: parsing "": invalid syntax')
            precision = int(digits)
        letter = chr(data[index])  # Go takes the byte as a rune
        index += 1
        if letter not in CLAUSES and letter != "s":
            raise FormatError(f'could not parse formatting clause: unrecognized formatting clause "{letter}"')
        out.append(clause(letter, precision, argument))
        argument += 1
    return "".join(out), argument


# -- the run --------------------------------------------------------------------------------------


def format_string(text: Any, arguments: Any) -> Any:
    """``text.format(arguments)``."""
    if not isinstance(text, str) or not isinstance(arguments, list):
        return failure(f"{NO_SUCH_OVERLOAD}: format({type_name(text)}, {type_name(arguments)})")
    for value in arguments:
        if isinstance(value, CELEvalError):
            return value

    def clause(letter: str, precision: int | None, index: int) -> str:
        try:
            return _clause(letter, precision, arguments[index])
        except FormatError as exc:
            raise FormatError(f"error during formatting: {exc}") from None

    try:
        return ct.StringType(parse_format(str(text), len(arguments), clause)[0])
    except FormatError as exc:
        return failure(str(exc))


def _clause(letter: str, precision: int | None, value: Any) -> str:
    name = type_name(value)
    if letter == "s":
        return _as_string(value)
    allowed, message = CLAUSES[letter]
    if name not in allowed or (name == "string" and letter in "fe" and str(value) not in _FLOAT_WORDS):
        raise FormatError(f"{message}, was given {name}")
    if letter == "d":
        return str(int(value))
    if letter == "f":
        return _fixed(_as_float(value), _DEFAULT_PRECISION if precision is None else precision)
    if letter == "e":
        return _scientific(_as_float(value), _DEFAULT_PRECISION if precision is None else precision)
    if letter == "b":
        return ("1" if value else "0") if name == "bool" else _signed(int(value), "b")
    if letter == "o":
        return _signed(int(value), "o")
    hexadecimal = (str(value).encode("utf-8").hex() if name == "string" else bytes(value).hex() if name == "bytes"
                   else _signed(int(value), "x"))
    return hexadecimal.upper() if letter == "X" else hexadecimal


_FLOAT_WORDS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _as_float(value: Any) -> float:
    return _FLOAT_WORDS[str(value)] if isinstance(value, str) else float(value)


def _signed(number: int, base: str) -> str:
    return ("-" if number < 0 else "") + format(abs(number), base)


def _fixed(number: float, precision: int) -> str:
    """``message.NewPrinter(en-US).Sprintf("%.<precision>f", number)``."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "∞" if number > 0 else "-∞"
    return ("-" if number < 0 else "") + f"{abs(number):,.{precision}f}"


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _scientific(number: float, width: int) -> str:
    """``message.NewPrinter(en-US).Sprintf("%<width>e", number)``: six decimals, ``×10`` and a
    superscript exponent of at least two digits, padded on the left to ``width`` characters."""
    if math.isnan(number):
        text = "NaN"
    elif math.isinf(number):
        text = "∞" if number > 0 else "-∞"
    else:
        mantissa, _, exponent = f"{abs(number):.6e}".partition("e")
        sign = "-" if number < 0 else ""
        text = f"{sign}{mantissa}×10{exponent.lstrip('+').translate(_SUPERSCRIPT)}"
    return text.rjust(width)


def _as_string(value: Any) -> str:
    """``%s`` of a value (cel-go's FormatString)."""
    from dractl.cel.engines.celpy_library import to_string
    from dractl.cel.messages import go_float_text

    name = type_name(value)
    if name in ("list", "map"):
        return _container_text(value)
    if name == "null_type":
        return "null"
    if name == "double":
        return go_float_text(float(value))
    if name == "type":
        return str(value.name)
    if name in ("int", "uint", "bool", "string", "bytes", "google.protobuf.Timestamp", "google.protobuf.Duration"):
        text = to_string(value)
        if isinstance(text, CELEvalError):
            raise FormatError(f'could not convert argument "{text.args[0]}" to string')
        return str(text)
    raise FormatError(f"{STRING_CLAUSE}, was given {name}")


def _element_text(value: Any) -> str:
    """A list element or map value as cel-go's formatList writes it."""
    from dractl.api.validation.errors import go_quote

    name = type_name(value)
    if name == "double":
        number = float(value)
        if math.isnan(number) or math.isinf(number):
            return go_quote("NaN" if math.isnan(number) else "+Inf" if number > 0 else "-Inf")
        return f"{number:.6f}"
    if name in ("google.protobuf.Timestamp", "google.protobuf.Duration"):
        return f"{'timestamp' if name.endswith('Timestamp') else 'duration'}({go_quote(str(value))})"
    if name not in STRING_KINDS:
        raise FormatError(f"no formatting function for {name}")
    text = _as_string(value)
    if name == "string":
        return go_quote(text)
    if name == "bytes":
        return "b" + go_quote(text)
    return text


def _container_text(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_element_text(item) for item in value) + "]"
    entries = []
    for key, item in value.items():
        if type_name(key) not in ("string", "bool", "int", "uint"):
            raise FormatError(f"no formatting function for map key of type {type_name(key)}")
        entries.append((_element_text(key), _element_text(item)))
    entries.sort(key=lambda entry: entry[0].encode("utf-8"))
    return "{" + ", ".join(f"{key}:{item}" for key, item in entries) + "}"


def quote(text: Any) -> Any:
    """``strings.quote(text)``: cel-go escapes only these characters."""
    if not isinstance(text, str):
        return failure(NO_SUCH_OVERLOAD)
    escapes = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
               "\\": "\\\\", '"': '\\"'}
    return ct.StringType('"' + "".join(escapes.get(ch, ch) for ch in str(text)) + '"')
