"""Kubernetes resource quantities (`resource.Quantity`) as exact fractions.

The allocator compares device capacities, capacity requests and request policies.
Values are kept as :class:`fractions.Fraction` so that comparisons are exact; the
original notation (binary SI, decimal SI or decimal exponent) is remembered because the
canonical text that the apiserver would write back depends on it.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Literal

from dractl.records import Record

QuantityFormat = Literal["BinarySI", "DecimalSI", "DecimalExponent"]

_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX_BY_EXPONENT = {exponent: suffix for suffix, exponent in _DECIMAL_SUFFIXES.items()}
_BINARY_SUFFIX_BY_POWER = {power // 10: suffix for suffix, power in _BINARY_SUFFIXES.items()}

_QUANTITY = re.compile(
    r"^(?P<sign>[+-]?)(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?:(?P<binary>Ki|Mi|Gi|Ti|Pi|Ei)|(?P<exp>[eE][+-]?[0-9]+)|(?P<decimal>[numkMGTPE]?))$"
)

_NANO = Fraction(1, 10**9)


class QuantityError(ValueError):
    """The text is not a Kubernetes quantity."""


class Quantity(Record):
    __slots__ = ("format", "value")
    __hash__ = Record.value_hash

    def __init__(self, value: Fraction, format: QuantityFormat = "DecimalSI") -> None:
        self.value = value
        self.format = format

    @classmethod
    def parse(cls, text: object) -> Quantity:
        if isinstance(text, bool):
            raise QuantityError(f"quantities must match the regular expression: {text!r}")
        if isinstance(text, int):
            return cls(Fraction(text), "DecimalSI")
        if isinstance(text, float):
            return cls(Fraction(repr(text)), "DecimalSI")
        if not isinstance(text, str):
            raise QuantityError(f"quantities must match the regular expression: {text!r}")
        match = _QUANTITY.match(text.strip())
        if match is None:
            raise QuantityError(f"quantities must match the regular expression: {text!r}")
        number = Fraction(match["number"] if not match["number"].startswith(".") else "0" + match["number"])
        if match["sign"] == "-":
            number = -number
        if match["binary"]:
            return cls(number * 2 ** _BINARY_SUFFIXES[match["binary"]], "BinarySI")
        if match["exp"]:
            return cls(number * Fraction(10) ** int(match["exp"][1:]), "DecimalExponent")
        return cls(number * Fraction(10) ** _DECIMAL_SUFFIXES[match["decimal"] or ""], "DecimalSI")

    @classmethod
    def of(cls, value: Fraction | int, format: QuantityFormat = "DecimalSI") -> Quantity:
        return cls(Fraction(value), format)

    def integer_value(self) -> int:
        """`Quantity.Value()`: the value rounded up to an integer."""
        return math.ceil(self.value)

    def __str__(self) -> str:
        return canonical(self.value, self.format)


def canonical(value: Fraction, format: QuantityFormat = "DecimalSI") -> str:
    """The canonical text of a quantity, as the apiserver serialises it."""
    # Quantities carry at most nano precision; anything finer rounds up.
    if value.denominator != 1 and (value / _NANO).denominator != 1:
        value = Fraction(math.ceil(value / _NANO)) * _NANO
    if format == "BinarySI" and (-1024 < value < 1024 or value.denominator != 1):
        format = "DecimalSI"
    if format == "BinarySI":
        amount = int(value)
        power = 0
        while amount != 0 and amount % 1024 == 0 and power < 6:
            amount //= 1024
            power += 1
        return f"{amount}{_BINARY_SUFFIX_BY_POWER.get(power, '') if power else ''}"
    mantissa, exponent = _decimal_parts(value)
    if format == "DecimalExponent":
        return f"{mantissa}e{exponent}" if exponent else str(mantissa)
    if exponent in _DECIMAL_SUFFIX_BY_EXPONENT:
        return f"{mantissa}{_DECIMAL_SUFFIX_BY_EXPONENT[exponent]}"
    return f"{mantissa}e{exponent}"


def _decimal_parts(value: Fraction) -> tuple[int, int]:
    """Integer mantissa and an exponent that is a multiple of three."""
    exponent = 0
    while value.denominator != 1:
        value *= 10
        exponent -= 1
    mantissa = int(value)
    if mantissa == 0:
        return 0, 0
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    while exponent % 3 != 0:
        mantissa *= 10
        exponent -= 1
    return mantissa, exponent
