"""Kubernetes resource quantities (``k8s.io/apimachinery/pkg/api/resource.Quantity``).

The one reading of a quantity for the whole of dractl: the decoder's verdict and error texts
(``ParseQuantity``), validation's comparisons, rounding and canonical form (``String()``, which
appears in the apiserver's messages: "default is less than min: 1100m"), and the CEL quantity
library's arithmetic and conversions.

A quantity keeps the shape apimachinery gives it, a scaled int64 or an arbitrary-precision
decimal, because ``AsInt64`` (CEL's ``isInteger``/``asInteger``) and ``Add``/``Sub`` depend on
that shape and not only on the value: ``quantity("1000m").isInteger()`` is false upstream
although the value is 1. It keeps the format of its suffix too, which decides its canonical form.

Nothing here imports ``fractions`` or ``decimal``: values are Python integers scaled by a power
of ten, exact at any size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dractl.records import Record

if TYPE_CHECKING:
    from fractions import Fraction

SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG = f"quantities must match the regular expression '{SPLIT_RE}'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

DECIMAL_EXPONENT = "DecimalExponent"  # 12e6
BINARY_SI = "BinarySI"  # 12Mi
DECIMAL_SI = "DecimalSI"  # 12M

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
_MAX_INT64_FACTORS = 18
_NANO = -9
# Exponents beyond this are legal upstream (a decimal keeps them symbolic) but would make exact
# arithmetic here unreasonably slow; such quantities are reported as unsupported.
_MAX_EXPONENT = 4096

_DECIMAL_SUFFIXES = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIX_OF = {exponent: suffix for suffix, exponent in _DECIMAL_SUFFIXES.items()}
_BINARY_SUFFIX_OF = {power // 10: suffix for suffix, power in _BINARY_SUFFIXES.items()}


class QuantityError(ValueError):
    """Not a quantity, or an operation upstream refuses; the message is upstream's."""


class QuantityUnsupported(QuantityError):
    """A legal quantity whose size dractl does not evaluate."""


def _fits_int64(value: int) -> bool:
    return INT64_MIN <= value <= INT64_MAX


class Quantity(Record):
    """``unscaled * 10**exponent`` in ``format``; ``exact_int64`` marks apimachinery's scaled-int64
    form (``exact_int64=False`` is its ``inf.Dec`` form)."""

    __slots__ = ("exact_int64", "exponent", "format", "unscaled")
    __hash__ = Record.value_hash

    def __init__(
        self, unscaled: int, exponent: int, exact_int64: bool = True, format: str = DECIMAL_SI
    ) -> None:
        self.unscaled = unscaled
        self.exponent = exponent
        self.exact_int64 = exact_int64
        self.format = format

    # -- value ---------------------------------------------------------------------------
    @property
    def value(self) -> Fraction:
        from fractions import Fraction  # only for the callers that want a number to compute with

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
        """``Cmp``: -1, 0 or 1, exactly."""
        mine, theirs = self.unscaled, other.unscaled
        if self.exponent > other.exponent:
            mine *= 10 ** (self.exponent - other.exponent)
        elif other.exponent > self.exponent:
            theirs *= 10 ** (other.exponent - self.exponent)
        return (mine > theirs) - (mine < theirs)

    def _scaled_ceiling(self, exponent: int) -> int:
        """The value in units of ``10**exponent``, rounded away from zero (``ScaledValue``,
        without its int64 overflow)."""
        shift = self.exponent - exponent
        if shift >= 0:
            return self.unscaled * 10**shift
        quotient, remainder = divmod(abs(self.unscaled), 10**-shift)
        quotient += remainder != 0
        return quotient if self.unscaled >= 0 else -quotient

    def is_integral(self) -> bool:
        return self.exponent >= 0 or self.unscaled % 10**-self.exponent == 0

    # -- conversions ---------------------------------------------------------------------
    def as_int64(self) -> int | None:
        """``AsInt64``: only the scaled-int64 form converts, and only without rounding."""
        if not self.exact_int64 or self.exponent < 0:
            return None
        result = self.unscaled * 10**self.exponent
        return result if _fits_int64(result) else None

    def int_value(self) -> int:
        """``Value()``: rounded away from zero to an integer (unbounded here; upstream's int64
        overflows above its range, so callers compare against the range first)."""
        return self._scaled_ceiling(0)

    def milli_value(self) -> int:
        """``MilliValue()``: rounded away from zero to thousandths (unbounded, as int_value)."""
        return self._scaled_ceiling(-3)

    def milli_exact(self) -> bool:
        """Whether ``NewMilliQuantity(q.MilliValue())`` equals ``q`` (no rounding, no overflow)."""
        if self.exponent < -3 and self.unscaled % 10 ** (-3 - self.exponent):
            return False
        return _fits_int64(self._scaled_ceiling(-3))

    def as_approximate_float(self) -> float:
        """``AsApproximateFloat64``: the unscaled value as a float times Go's ``math.Pow10`` of
        the exponent (a decimal's exponent is -9 after parsing: see parse_quantity)."""
        base = float(self.unscaled) if abs(self.unscaled) < 2**1000 else _big_float(self.unscaled)
        if self.exponent == 0:
            return base
        return base * _go_pow10(self.exponent)  # 0 * +Inf is NaN, as in Go

    # -- arithmetic (Quantity.Add / Sub) ---------------------------------------------------
    def add(self, other: Quantity) -> Quantity:
        """A zero quantity takes the other's format, as upstream's ``Add`` does."""
        format = other.format if self.unscaled == 0 else self.format
        if self.exact_int64 and other.exact_int64:
            summed = _int64_add(self, other)
            if summed is not None:
                return Quantity(summed[0], summed[1], True, format)
        exponent = min(self.exponent, other.exponent)
        total = self.unscaled * 10 ** (self.exponent - exponent) + other.unscaled * 10 ** (
            other.exponent - exponent
        )
        return Quantity(total, exponent, False, format)

    def sub(self, other: Quantity) -> Quantity:
        return self.add(Quantity(-other.unscaled, other.exponent, other.exact_int64, other.format))

    # -- canonical form (Quantity.String / CanonicalizeBytes) ---------------------------
    def __str__(self) -> str:
        if self.unscaled == 0:
            return "0"
        format = self.format
        if format == BINARY_SI:
            small = self.compare(_MINUS_1024) > 0 and self.compare(_PLUS_1024) < 0
            if small or not self.is_integral():
                format = DECIMAL_SI  # BinarySI would round; upstream shows it as DecimalSI
            else:
                units, times = self.int_value(), 0
                while units % 1024 == 0 and times < 6:
                    units //= 1024
                    times += 1
                return f"{units}{_BINARY_SUFFIX_OF.get(times, '')}"
        mantissa, exponent = self.unscaled, self.exponent
        while mantissa % 10 == 0:
            mantissa //= 10
            exponent += 1
        shift = exponent % 3  # the exponent of a canonical form is a multiple of three
        mantissa *= 10**shift
        exponent -= shift
        if format == DECIMAL_SI and exponent in _DECIMAL_SUFFIX_OF:
            return f"{mantissa}{_DECIMAL_SUFFIX_OF[exponent]}"
        # DecimalSI has no suffix beyond E (10^18): upstream writes the exponent instead
        return f"{mantissa}e{exponent}" if exponent else str(mantissa)


_MINUS_1024 = Quantity(-1024, 0)
_PLUS_1024 = Quantity(1024, 0)


# Go's math.Pow10 multiplies or divides two table entries: for some exponents its result is not
# the float nearest to the power of ten (which 10.0 ** n gives), and upstream's floats are its.
_POW10 = tuple(float(f"1e{i}") for i in range(32))
_POW10_POSITIVE_32 = tuple(float(f"1e{32 * i}") for i in range(10))
_POW10_NEGATIVE_32 = tuple(float(f"1e-{32 * i}") for i in range(11))


def _go_pow10(n: int) -> float:
    if 0 <= n <= 308:
        return _POW10_POSITIVE_32[n // 32] * _POW10[n % 32]
    if -323 <= n < 0:
        return _POW10_NEGATIVE_32[-n // 32] / _POW10[-n % 32]
    return float("inf") if n > 0 else 0.0


def _big_float(value: int) -> float:
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def _int64_add(a: Quantity, b: Quantity) -> tuple[int, int] | None:
    """``int64Amount.Add``: the sum as (unscaled, exponent), or None when it overflows."""
    if not _fits_int64(b.unscaled):
        return None
    if b.unscaled == 0:
        return a.unscaled, a.exponent
    if a.unscaled == 0:
        return b.unscaled, b.exponent
    if a.exponent == b.exponent:
        total = a.unscaled + b.unscaled
        return (total, a.exponent) if _fits_int64(total) else None
    high, low = (a, b) if a.exponent > b.exponent else (b, a)
    shifted = high.unscaled * 10 ** (high.exponent - low.exponent)
    if not _fits_int64(shifted):
        return None
    total = shifted + low.unscaled
    return (total, low.exponent) if _fits_int64(total) else None


def from_int(value: int) -> Quantity:
    """``resource.NewQuantity(value, DecimalExponent)``."""
    return Quantity(value, 0, True, DECIMAL_EXPONENT)


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """``parseQuantityString``: sign, value text, integer digits, fraction digits, suffix."""
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
        return 10, _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], BINARY_SI
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
        return 10, parsed, DECIMAL_EXPONENT
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
    digits = digits.lstrip("0") or "0"
    if len(digits) > _MAX_DIGITS:
        # Python refuses to read more digits than this (and no quantity of a real manifest has
        # them); upstream would read them, so say that dractl cannot, rather than fail.
        raise QuantityUnsupported(
            f"quantity {value!r} has more digits than dractl evaluates ({_MAX_DIGITS})"
        )
    return sign * int(digits), -len(fraction)


_MAX_DIGITS = 4000  # below the interpreter's int-from-string limit (4300 by default)


def parse_quantity(text: str) -> Quantity:
    """``resource.ParseQuantity``."""
    if not text:
        raise QuantityError(ERR_FORMAT_WRONG)
    if text == "0":
        return Quantity(0, 0)
    positive, value, num, denom, suffix = _split(text)
    interpreted = _interpret_suffix(suffix)
    if interpreted is None:
        raise QuantityError(ERR_SUFFIX)
    base, exponent, format = interpreted
    if abs(exponent) > _MAX_EXPONENT:
        raise QuantityUnsupported(f"quantity {text!r} is too large for dractl to evaluate")

    precision = 0
    scale = 0
    mantissa = 1
    if format != BINARY_SI:
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
                return Quantity(result if positive else -result, scale, True, format)

    unscaled, dec_exponent = _parse_decimal_text(value)
    if base == 10:
        dec_exponent += exponent
    else:
        unscaled <<= exponent
    negative = unscaled < 0
    unscaled = abs(unscaled)
    if unscaled != 0:
        # inf.Dec's Round to nano units: finer values round away from zero (asking for a tiny
        # amount still gets some), coarser ones are written with nine decimals, which
        # asApproximateFloat's float of the unscaled value sees.
        if dec_exponent < _NANO:
            unscaled = -(-unscaled // 10 ** (_NANO - dec_exponent))
        else:
            unscaled *= 10 ** (dec_exponent - _NANO)
        dec_exponent = _NANO
    if format == BINARY_SI:
        if _exceeds_int64(unscaled, dec_exponent):
            unscaled, dec_exponent = INT64_MAX, 0  # upstream's cap, silent
        elif unscaled != 0 and _below_one(unscaled, dec_exponent):
            format = DECIMAL_SI
    return Quantity(-unscaled if negative else unscaled, dec_exponent, False, format)


def _exceeds_int64(unscaled: int, dec_exponent: int) -> bool:
    """Whether ``unscaled * 10**dec_exponent`` (unscaled >= 0) is above the int64 maximum."""
    if dec_exponent >= 0:
        return unscaled * 10**dec_exponent > INT64_MAX
    return unscaled > INT64_MAX * 10 ** (-dec_exponent)


def _below_one(unscaled: int, dec_exponent: int) -> bool:
    return dec_exponent < 0 and unscaled < 10**-dec_exponent


def is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return True


def decode_quantity(raw: Any) -> Quantity:
    """A quantity as the apiserver's JSON decoder reads it (``UnmarshalJSON``): a string, with
    surrounding white space trimmed, or the text of a number."""
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise QuantityError(ERR_FORMAT_WRONG)  # the decoder parses the JSON text: "true", "{"
    if isinstance(raw, int):
        return parse_quantity(str(raw))
    if isinstance(raw, float):
        return parse_quantity(json_number_text(raw))
    return parse_quantity(raw.strip())


def json_number_text(value: float) -> str:
    """A float as kubectl sends it: YAML becomes JSON, whose encoder writes a float64 with the
    shortest digits that read back (Python's repr has the same), in exponent form only below
    1e-6 and from 1e21 on, and whole numbers without a fraction ("1000", not "1000.0"). The
    form decides the quantity's format: 1e+20 in YAML is "100000000000000000000", DecimalSI."""
    text = repr(value)  # "inf" and "nan" are no JSON and no quantity: parsing refuses them
    magnitude = abs(value)
    if magnitude != magnitude or magnitude == float("inf"):
        return text
    if magnitude and not 1e-6 <= magnitude < 1e21:
        # Go writes at least two exponent digits and then drops the zero of "e-07"; Python's
        # repr has the same digits, and the same two exponent digits ("e-07", "e+21").
        return text.replace("e-0", "e-")
    sign = "-" if text.startswith("-") else ""
    mantissa, _, exponent = text.lstrip("-").partition("e")
    whole, _, fraction = mantissa.partition(".")
    if not exponent:
        return text[:-2] if fraction == "0" else text
    digits = whole + fraction
    point = len(whole) + int(exponent)
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"
