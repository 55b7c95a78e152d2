"""Kubernetes resource quantities as the allocator computes with them: exact fractions.

The allocator compares device capacities, capacity requests and request policies and adds up
consumed capacity. It reads each quantity as the apiserver does (:mod:`dractl.api.quantity`,
which rounds to nano units and caps binary-SI values as ``ParseQuantity`` does) and keeps its
value as a :class:`fractions.Fraction`, so that comparisons and sums are exact, and its format
(binary SI, decimal SI or decimal exponent), because the canonical text the apiserver would
write back depends on it.

Where upstream's code leaves exact arithmetic, a quantity also carries what Go sees: `go_value`
(`Value()`, an int64 that wraps or saturates beyond its range), `decimal_form` (held as an
`inf.Dec`, shared by every copy) and `go_identity` (what `==` compares). The int64 helpers here
(`go_quotient`, `go_remainder`, `go_add`, `go_multiply`) compute as Go does.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any, Literal

from dractl.api.quantity import Quantity as ApiQuantity
from dractl.api.quantity import QuantityError, decode_quantity, json_number_text
from dractl.records import Record

QuantityFormat = Literal["BinarySI", "DecimalSI", "DecimalExponent"]

__all__ = ["Quantity", "QuantityError", "QuantityFormat", "canonical", "go_value"]


class Quantity(Record):
    __slots__ = ("decimal_form", "format", "go_identity", "go_value", "value")
    __hash__ = Record.value_hash

    def __init__(self, value: Fraction, format: QuantityFormat = "DecimalSI", go_value: int | None = None,
                 decimal_form: bool | None = None, go_identity: tuple[Any, ...] | bool | None = False) -> None:
        self.value = value
        self.format = format
        # What upstream's `Value()` returns: an int64, which wraps for quantities beyond its
        # range (capacity request policies round with it: `dractl.allocator.capacity`).
        self.go_value = _wrap_int64(_away_from_zero(value)) if go_value is None else go_value
        # apimachinery holds the quantity as an `inf.Dec` rather than a scaled int64: the
        # form whose `Add` changes every copy of it (`dractl.allocator.capacity`).
        self.decimal_form = not _fits_int64(_away_from_zero(value)) if decimal_form is None else decimal_form
        # What Go's `==` on two quantities compares (`violatesPolicy` exempts a request that
        # `== *policy.Default`): the scaled int64, the format and the text ParseQuantity kept;
        # None for an `inf.Dec`, whose pointer no other quantity shares. `NewQuantity` keeps no text.
        if go_identity is False:
            integral = value.denominator == 1 and not self.decimal_form
            go_identity = (value.numerator, 0, format, "") if integral else None
        self.go_identity: tuple[Any, ...] | None = go_identity  # type: ignore[assignment]

    @classmethod
    def parse(cls, text: object) -> Quantity:
        """A quantity of a decoded object: a string or a number (raises QuantityError)."""
        parsed = decode_quantity(text)
        identity = None
        if parsed.exact_int64:
            identity = (parsed.unscaled, parsed.exponent, parsed.format, _kept_text(_decoded_text(text), parsed))
        return cls(parsed.value, parsed.format, go_value(parsed), not parsed.exact_int64,  # type: ignore[arg-type]
                   identity)

    def same_in_go(self, other: Quantity) -> bool:
        """Go's `==` on the two quantities (struct equality, not `Cmp`)."""
        return self.go_identity is not None and self.go_identity == other.go_identity

    @classmethod
    def of(cls, value: Fraction | int, format: QuantityFormat = "DecimalSI") -> Quantity:
        return cls(Fraction(value), format)

    def plus(self, other: Fraction) -> Quantity:
        """`Add` of an `inf.Dec` quantity: the sum, in this quantity's format and form."""
        total = self.value + other
        return Quantity(total, self.format, _dec_value(total), True, None)

    def integer_value(self) -> int:
        """`Quantity.Value()`: the value rounded up to an integer."""
        return math.ceil(self.value)

    def __str__(self) -> str:
        return canonical(self.value, self.format)


INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
_NUMBER = re.compile(r"[+-]?0*(\d*)(?:\.(\d*))?")


def _decoded_text(raw: object) -> str:
    """The text `UnmarshalJSON` parses (as decode_quantity reads it)."""
    if isinstance(raw, float):
        return json_number_text(raw)
    return str(raw).strip()


def _kept_text(text: str, parsed: ApiQuantity) -> str:
    """The string ParseQuantity keeps in an int64 quantity (`s`): its input when canonical."""
    match = _NUMBER.match(text)
    assert match is not None
    num, denom = match.group(1) or "0", match.group(2) or ""
    if parsed.format == "BinarySI":
        # Binary suffixes are all multiples of 2^10; the text is kept when the number is not
        # a multiple of 8 (it would be written with a bigger suffix).
        return text if int(num) & 7 else ""
    shifted = num + denom
    if parsed.exponent % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0":
        return text
    return ""


def _fits_int64(value: int) -> bool:
    return INT64_MIN <= value <= INT64_MAX


def _wrap_int64(value: int) -> int:
    """Go's int64 arithmetic: the low 64 bits, two's complement."""
    return ((value - INT64_MIN) % (1 << 64)) + INT64_MIN


def _away_from_zero(value: Fraction) -> int:
    return math.ceil(value) if value >= 0 else math.floor(value)


def go_quotient(a: int, b: int) -> int:
    """Go's `/` on int64: truncated towards zero (and wrapping: MinInt64 / -1)."""
    quotient = abs(a) // abs(b)
    return _wrap_int64(-quotient if (a < 0) != (b < 0) else quotient)


def go_remainder(a: int, b: int) -> int:
    """Go's `%` on int64: the sign of the dividend."""
    remainder = abs(a) % abs(b)
    return -remainder if a < 0 else remainder


def go_add(a: int, b: int) -> int:
    return _wrap_int64(a + b)


def go_multiply(a: int, b: int) -> int:
    return _wrap_int64(a * b)


def go_value(quantity: ApiQuantity) -> int:
    """apimachinery's `Quantity.Value()` (`ScaledValue(0)`) with its int64 overflow.

    A scaled int64 (`int64Amount`) scales with `positiveScaleInt64` / `negativeScaleInt64`:
    scales 1, 2, 3, 6 and 9 multiply once and keep the wrapped product, other scales multiply
    by ten step by step and give 0 on overflow; an `inf.Dec` is rounded up and then cut to
    its low 64 bits (`big.Int.Int64`).
    """
    if quantity.exact_int64:
        if quantity.exponent >= 0:
            return _positive_scale(quantity.unscaled, quantity.exponent)
        return _negative_scale(quantity.unscaled, -quantity.exponent)
    return _scaled_dec_value(quantity.unscaled, -quantity.exponent)


def _dec_value(value: Fraction) -> int:
    """`Value()` of an `inf.Dec` holding `value` (the form after `Add` of large quantities)."""
    unscaled = value * 10**9
    if unscaled.denominator == 1:
        return _scaled_dec_value(unscaled.numerator, 9)
    return _big_int64(math.ceil(value))


def _scaled_dec_value(unscaled: int, scale: int) -> int:
    # scale_int.go scaledValue(unscaled, scale, 0)
    if scale == 0:
        return _big_int64(unscaled)
    if scale < 0:
        return go_multiply(_big_int64(unscaled), int(10.0 ** -scale))
    if unscaled < INT64_MAX and scale < 19:
        small = _big_int64(unscaled)
        divide = 10**scale
        result = go_quotient(small, divide)
        return result + 1 if go_remainder(small, divide) != 0 else result
    quotient, remainder = divmod(unscaled, 10**scale)  # big.Int DivMod: Euclidean (remainder >= 0)
    return go_add(_big_int64(quotient), 1) if remainder else _big_int64(quotient)


def _big_int64(value: int) -> int:
    """`big.Int.Int64`: the low 64 bits of the magnitude, then the sign."""
    low = _wrap_int64(abs(value) & ((1 << 64) - 1))
    return _wrap_int64(-low) if value < 0 else low


def _multiply_checked(a: int, b: int) -> tuple[int, bool]:
    # math.go int64MultiplyScale
    if a in (0, 1):
        return a * b, True
    if a == INT64_MIN and b != 1:
        return 0, False
    product = _wrap_int64(a * b)
    return product, go_quotient(product, b) == a


def _positive_scale(base: int, scale: int) -> int:
    # math.go positiveScaleInt64
    if scale == 0:
        return base
    if scale in (1, 2, 3, 6, 9):
        return _multiply_checked(base, 10**scale)[0]
    value = base
    for _ in range(scale):
        value, ok = _multiply_checked(value, 10)
        if not ok:
            return 0
    return value


def _negative_scale(base: int, scale: int) -> int:
    # math.go negativeScaleInt64: rounded away from zero
    value, fraction = base, False
    for _ in range(scale):
        if not fraction and go_remainder(value, 10) != 0:
            fraction = True
        value = go_quotient(value, 10)
        if value == 0:
            if fraction:
                return 1 if base > 0 else -1
            return 0
    if fraction:
        value = value + 1 if base > 0 else value - 1
    return value


def canonical(value: Fraction, format: QuantityFormat = "DecimalSI") -> str:
    """The canonical text of a quantity, as the apiserver serialises it (``String()``)."""
    # Quantities carry at most nano precision; anything finer rounds up.
    nanos = math.ceil(value * 10**9)
    return str(ApiQuantity(nanos, -9, False, format))
