"""The allocator's quantities: read as the apiserver reads them, kept as exact fractions."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dractl.allocator.quantity import Quantity, QuantityError, canonical


@pytest.mark.parametrize(
    ("raw", "value", "format"),
    [
        ("40Gi", Fraction(40 * 2**30), "BinarySI"),
        ("1.5", Fraction(3, 2), "DecimalSI"),
        ("1e3", Fraction(1000), "DecimalExponent"),
        (7, Fraction(7), "DecimalSI"),
        (2.5, Fraction(5, 2), "DecimalSI"),
        (1e20, Fraction(10**20), "DecimalSI"),  # JSON writes 100000000000000000000
        # ParseQuantity keeps nano units, rounding finer values up ...
        ("0.5n", Fraction(1, 10**9), "DecimalSI"),
        ("3.001n", Fraction(4, 10**9), "DecimalSI"),
        ("0.000000000001Ki", Fraction(2, 10**9), "DecimalSI"),  # and a binary value below 1 is DecimalSI
        # ... and caps binary-SI values at the int64 maximum
        ("8Ei", Fraction(2**63 - 1), "BinarySI"),
        ("9Ei", Fraction(2**63 - 1), "BinarySI"),
        ("10E", Fraction(10**19), "DecimalSI"),
    ],
)
def test_parsed_as_the_apiserver_parses(raw: object, value: Fraction, format: str) -> None:
    parsed = Quantity.parse(raw)
    assert (parsed.value, parsed.format) == (value, format)


@pytest.mark.parametrize("raw", ["16GB", "", True, None, {"value": 1}])
def test_not_quantities(raw: object) -> None:
    with pytest.raises(QuantityError):
        Quantity.parse(raw)


@pytest.mark.parametrize(
    ("value", "format", "text"),
    [
        (Fraction(40 * 2**30), "BinarySI", "40Gi"),
        (Fraction(1536 * 2**20), "BinarySI", "1536Mi"),
        (Fraction(1, 2), "BinarySI", "500m"),
        (Fraction(1500), "DecimalSI", "1500"),
        (Fraction(1, 3), "DecimalSI", "333333334n"),  # finer than nano: rounded up
        (Fraction(10**21), "DecimalSI", "1e21"),
        (Fraction(0), "BinarySI", "0"),
    ],
)
def test_canonical_text(value: Fraction, format: str, text: str) -> None:
    assert canonical(value, format) == text  # type: ignore[arg-type]
