"""Kubernetes resource quantities as the CEL quantity library sees them.

A quantity keeps the shape apimachinery gives it (a scaled int64 or an arbitrary-precision
decimal), because ``isInteger``/``asInteger`` depend on that shape and not only on the value:
``quantity("1000m").isInteger()`` is false upstream although the value is 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dractl.records import Record

if TYPE_CHECKING:
    from fractions import Fraction

SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG = f"quantities must match the regular expression '{SPLIT_RE}'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"
ERR_NOT_INTEGER = "cannot convert value to integer"

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_MAX_INT64_FACTORS = 18
_NANO = -9
# Exponents beyond this are legal upstream (a decimal keeps them symbolic) but would make exact
# arithmetic here unreasonably slow; such quantities are reported as unsupported.
_MAX_EXPONENT = 4096

_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}


class QuantityError(ValueError):
    """Not a quantity, or an operation upstream refuses; the message is upstream's."""


class QuantityUnsupported(QuantityError):
    """A legal quantity whose size dractl does not evaluate."""


def _fits_int64(value: int) -> bool:
    return _INT64_MIN <= value <= _INT64_MAX


class Quantity(Record):
    """``unscaled * 10**exponent``; ``exact_int64`` marks apimachinery's scaled-int64 form."""

    __slots__ = ("exact_int64", "exponent", "unscaled")
    __hash__ = Record.value_hash

    def __init__(self, unscaled: int, exponent: int, exact_int64: bool = True) -> None:
        self.unscaled = unscaled
        self.exponent = exponent
        self.exact_int64 = exact_int64

    # -- value ---------------------------------------------------------------------------
    @property
    def value(self) -> Fraction:
        from fractions import Fraction  # (with decimal) only for quantities' exact values

        if self.exponent >= 0:
            return Fraction(self.unscaled * 10**self.exponent)
        return Fraction(self.unscaled, 10 ** (-self.exponent))

    @property
    def nano_units(self) -> str:
        """Exact value in units of 10^-9 when it is a whole number of those, else as a fraction;
        equal strings mean equal quantities."""
        scaled = self.value * 10**9
        if scaled.denominator == 1:
            return str(scaled.numerator)
        return f"{scaled.numerator}/{scaled.denominator}"

    def sign(self) -> int:
        return (self.unscaled > 0) - (self.unscaled < 0)

    def compare(self, other: Quantity) -> int:
        mine, theirs = self.unscaled, other.unscaled
        if self.exponent > other.exponent:
            mine *= 10 ** (self.exponent - other.exponent)
        elif other.exponent > self.exponent:
            theirs *= 10 ** (other.exponent - self.exponent)
        return (mine > theirs) - (mine < theirs)

    # -- conversions ---------------------------------------------------------------------
    def as_int64(self) -> int | None:
        if not self.exact_int64 or self.exponent < 0:
            return None
        result = self.unscaled * 10**self.exponent
        return result if _fits_int64(result) else None

    def as_approximate_float(self) -> float:
        base = float(self.unscaled) if abs(self.unscaled) < 2**1000 else _big_float(self.unscaled)
        if self.exponent == 0:
            return base
        try:
            return base * (10.0**self.exponent)
        except OverflowError:
            return float("inf") if base > 0 else float("-inf") if base < 0 else 0.0

    # -- arithmetic (apimachinery Quantity.Add / Sub) -------------------------------------
    def add(self, other: Quantity) -> Quantity:
        if self.exact_int64 and other.exact_int64:
            summed = _int64_add(self, other)
            if summed is not None:
                return summed
        return _decimal_sum(self, other)

    def sub(self, other: Quantity) -> Quantity:
        return self.add(Quantity(-other.unscaled, other.exponent, other.exact_int64))


def _big_float(value: int) -> float:
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def _int64_add(a: Quantity, b: Quantity) -> Quantity | None:
    if not _fits_int64(b.unscaled):
        return None
    if b.unscaled == 0:
        return a
    if a.unscaled == 0:
        return b
    if a.exponent == b.exponent:
        total = a.unscaled + b.unscaled
        return Quantity(total, a.exponent) if _fits_int64(total) else None
    high, low = (a, b) if a.exponent > b.exponent else (b, a)
    shifted = high.unscaled * 10 ** (high.exponent - low.exponent)
    if not _fits_int64(shifted):
        return None
    total = shifted + low.unscaled
    return Quantity(total, low.exponent) if _fits_int64(total) else None


def _decimal_sum(a: Quantity, b: Quantity) -> Quantity:
    exponent = min(a.exponent, b.exponent)
    total = a.unscaled * 10 ** (a.exponent - exponent) + b.unscaled * 10 ** (b.exponent - exponent)
    return Quantity(total, exponent, exact_int64=False)


def from_int(value: int) -> Quantity:
    """``resource.NewQuantity(value, DecimalExponent)``."""
    return Quantity(value, 0)


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """apimachinery ``parseQuantityString``: sign, value text, integer digits, fraction digits, suffix."""
    positive = True
    pos = 0
    end = len(text)
    if text[0] == "-":
        positive = False
        pos = 1
    elif text[0] == "+":
        pos = 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos].isdigit() and text[pos].isascii():
        pos += 1
    if pos >= end:
        return positive, text, text[start:end], "", ""
    num = text[start:pos] or "0"
    denom = ""
    if text[pos] == ".":
        pos += 1
        denom_start = pos
        while pos < end and text[pos] in "0123456789":
            pos += 1
        if pos >= end:
            return positive, text, num, text[denom_start:end], ""
        denom = text[denom_start:pos]
    value = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in "eEinumkKMGTP":
        pos += 1
    if pos >= end:
        return positive, value, num, denom, text[suffix_start:end]
    if text[pos] in "-+":
        pos += 1
    while pos < end and text[pos] in "0123456789":
        pos += 1
    if pos >= end:
        return positive, value, num, denom, text[suffix_start:end]
    raise QuantityError(ERR_FORMAT_WRONG)


def _interpret_suffix(suffix: str) -> tuple[int, int, str] | None:
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], "DecimalSI"
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        digits = suffix[1:]
        body = digits[1:] if digits[:1] in ("+", "-") else digits
        if not body or not body.isdigit() or not body.isascii():
            return None
        parsed = int(digits)
        if not _fits_int64(parsed):
            return None
        # Go converts the exponent to int32 without a range check.
        parsed = (parsed + 2**31) % 2**32 - 2**31
        return 10, parsed, "DecimalExponent"
    return None


def _parse_decimal_text(value: str) -> tuple[int, int]:
    """inf.Dec ``SetString``: returns (unscaled, exponent)."""
    sign = 1
    body = value
    if body[:1] in "+-":
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    whole, _, fraction = body.partition(".")
    digits = (whole + fraction) or ""
    if not digits or not digits.isdigit():
        raise QuantityError(ERR_NUMERIC)
    return sign * int(digits), -len(fraction)


def parse_quantity(text: str) -> Quantity:
    """apimachinery ``resource.ParseQuantity``."""
    if not text:
        raise QuantityError(ERR_FORMAT_WRONG)
    if text == "0":
        return Quantity(0, 0)
    positive, value, num, denom, suffix = _split(text)
    interpreted = _interpret_suffix(suffix)
    if interpreted is None:
        raise QuantityError(ERR_SUFFIX)
    base, exponent, fmt = interpreted
    if abs(exponent) > _MAX_EXPONENT:
        raise QuantityUnsupported(f"quantity {text!r} is too large for dractl to evaluate")

    precision = 0
    scale = 0
    mantissa = 1
    if fmt in ("DecimalExponent", "DecimalSI"):
        scale = exponent
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
    elif exponent >= 0 and not denom:
        mantissa = 1 << exponent
        precision = 15 - len(num) - int(float(exponent) * 3 / 10) - 1
    else:
        precision = -1

    if precision >= 0:
        scale -= len(denom)
        if scale >= _NANO:
            shifted = int(num + denom)
            if not _fits_int64(shifted):
                raise QuantityError(ERR_NUMERIC)
            result = shifted * mantissa
            if _fits_int64(result):
                return Quantity(result if positive else -result, scale)

    unscaled, dec_exponent = _parse_decimal_text(value)
    if base == 10:
        dec_exponent += exponent
    else:
        unscaled <<= exponent
    negative = unscaled < 0
    unscaled = abs(unscaled)
    if unscaled != 0 and dec_exponent < _NANO:
        # Round away from zero to whole nano units: asking for a tiny amount still gets some.
        divisor = 10 ** (_NANO - dec_exponent)
        unscaled = -(-unscaled // divisor)
        dec_exponent = _NANO
    if fmt == "BinarySI" and _exceeds_int64(unscaled, dec_exponent):
        unscaled, dec_exponent = _INT64_MAX, 0
    return Quantity(-unscaled if negative else unscaled, dec_exponent, exact_int64=False)


def _exceeds_int64(unscaled: int, dec_exponent: int) -> bool:
    """Whether ``unscaled * 10**dec_exponent`` (unscaled >= 0) is above the int64 maximum."""
    if dec_exponent >= 0:
        return unscaled * 10**dec_exponent > _INT64_MAX
    return unscaled > _INT64_MAX * 10 ** (-dec_exponent)


def is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return True
