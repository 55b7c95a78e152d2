"""Kubernetes resource quantities (``k8s.io/apimachinery/pkg/api/resource.Quantity``).

Enough of the upstream type for validation: parsing (numbers and strings as kubectl sends them),
exact comparison, ``Value()``/``MilliValue()`` rounding, and ``String()``'s canonical form, which
appears in upstream's error messages ("default is less than min: 1100m").
"""

from __future__ import annotations

import decimal
import enum
import re
from typing import Any

from dractl.records import Record

_CTX = decimal.Context(prec=200, rounding=decimal.ROUND_HALF_EVEN, Emax=10**6, Emin=-(10**6))
_NANO = decimal.Decimal("1e-9")
MAX_INT64 = 2**63 - 1
MIN_INT64 = -(2**63)


class Format(enum.Enum):
    DECIMAL_EXPONENT = "DecimalExponent"
    BINARY_SI = "BinarySI"
    DECIMAL_SI = "DecimalSI"


_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX = {v: k for k, v in _DECIMAL.items()}
_BINARY_SUFFIX = {v: k for k, v in _BINARY.items()}
_NUMBER_RE = r"(?as)^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(.*)$"
_EXPONENT_RE = r"(?a)^[eE]([+-]?[0-9]+)$"


class QuantityError(ValueError):
    pass


class Quantity(Record):
    __slots__ = ("format", "value")
    __hash__ = Record.value_hash

    def __init__(self, value: decimal.Decimal, format: Format) -> None:
        self.value = value  # exact, rounded up to nano precision as upstream parses
        self.format = format

    def cmp(self, other: Quantity) -> int:
        return (self.value > other.value) - (self.value < other.value)

    @property
    def sign(self) -> int:
        return (self.value > 0) - (self.value < 0)

    def is_fractional(self) -> bool:
        return self.value != self.value.to_integral_value(rounding=decimal.ROUND_DOWN)

    def int_value(self) -> int:
        """``Value()``: rounded up (away from zero) to an integer."""
        return int(self.value.to_integral_value(rounding=decimal.ROUND_UP))

    def milli_value(self) -> int:
        """``MilliValue()``: rounded up (away from zero) to thousandths."""
        return int((self.value * 1000).to_integral_value(rounding=decimal.ROUND_UP))

    def milli_exact(self) -> bool:
        """Whether ``NewMilliQuantity(q.MilliValue())`` equals ``q`` (no rounding, no overflow)."""
        milli = self.value * 1000
        if milli != milli.to_integral_value():
            return False
        return MIN_INT64 <= int(milli) <= MAX_INT64

    def add(self, other: Quantity) -> Quantity:
        return Quantity(_CTX.add(self.value, other.value), self.format)

    def __str__(self) -> str:
        return canonical(self.value, self.format)


def parse_quantity(raw: Any) -> Quantity:
    """A quantity as the apiserver decodes it from JSON (a string or a number)."""
    if isinstance(raw, bool) or raw is None:
        raise QuantityError("quantities must be strings or numbers")
    if isinstance(raw, int):
        text = str(raw)
    elif isinstance(raw, float):
        text = repr(raw)
        if text in ("inf", "-inf", "nan"):
            raise QuantityError("quantities must be finite")
    elif isinstance(raw, str):
        text = raw.strip()
    else:
        raise QuantityError("quantities must be strings or numbers")
    match = re.match(_NUMBER_RE, text)
    if not text or match is None:
        raise QuantityError("quantities must match the regular expression")
    sign, digits, suffix = match.groups()
    number = decimal.Decimal(digits, context=_CTX)
    if suffix in _BINARY:
        value = _CTX.multiply(number, decimal.Decimal(2) ** _BINARY[suffix])
        fmt = Format.BINARY_SI
    elif suffix in _DECIMAL:
        value = _CTX.scaleb(number, _DECIMAL[suffix])
        fmt = Format.DECIMAL_SI
    else:
        exp = re.match(_EXPONENT_RE, suffix)
        if exp is None:
            raise QuantityError("unable to parse quantity's suffix")
        value = _CTX.scaleb(number, int(exp.group(1)))
        fmt = Format.DECIMAL_EXPONENT
    if sign == "-":
        value = -value
    if value != value.quantize(_NANO, rounding=decimal.ROUND_UP, context=_CTX):
        value = value.quantize(_NANO, rounding=decimal.ROUND_UP, context=_CTX)
    return Quantity(value, fmt)


def canonical(value: decimal.Decimal, fmt: Format) -> str:
    """``Quantity.String()``."""
    if value == 0:
        return "0"
    if fmt is Format.BINARY_SI:
        if -1024 < value < 1024 or value != value.to_integral_value():
            fmt = Format.DECIMAL_SI
        else:
            units, times = int(value), 0
            while units % 1024 == 0 and times < 6:
                units //= 1024
                times += 1
            return f"{units}{_BINARY_SUFFIX.get(times * 10, '')}"
    sign, digits, exponent = value.normalize(_CTX).as_tuple()
    assert isinstance(exponent, int)
    mantissa = int("".join(map(str, digits)))
    shift = exponent % 3
    if shift:
        mantissa *= 10**shift
        exponent -= shift
    number = f"{'-' if sign else ''}{mantissa}"
    if fmt is Format.DECIMAL_SI and exponent in _DECIMAL_SUFFIX:
        return number + _DECIMAL_SUFFIX[exponent]
    return number if exponent == 0 else f"{number}e{exponent}"
