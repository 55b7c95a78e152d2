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


# What apimachinery's Value() returns (checked with dra-upstream: the consumed capacities of
# tests/allocator/combined/int64-*.yaml follow from these) and whether it holds an inf.Dec.
@pytest.mark.parametrize(
    ("raw", "go_value", "decimal_form"),
    [
        ("1", 1, False),
        ("500m", 1, False),  # rounded away from zero
        ("-500m", -1, False),
        ("1Ti", 2**40, False),
        ("1Pi", 2**50, True),  # too large for the int64 mantissa of a binary suffix
        ("100Ti", 100 * 2**40, True),
        ("5Ei", 5 * 2**60, True),
        ("9Ei", 2**63 - 1, True),  # capped by ParseQuantity
        ("1E", 10**18, False),
        ("17E", 0, False),  # int64Amount{17, 18}: scaling by tens overflows, positiveScaleInt64 gives 0
        ("20000000000000000000", 20 * 10**18 - 2**64, True),  # big.Int.Int64: the low 64 bits
        ("1000000000000000000", 10**18, True),  # 19 digits
    ],
)
def test_go_value(raw: str, go_value: int, decimal_form: bool) -> None:
    parsed = Quantity.parse(raw)
    assert (parsed.go_value, parsed.decimal_form) == (go_value, decimal_form)


@pytest.mark.parametrize(
    ("left", "right", "same"),
    [
        ("3Ti", "3Ti", True),
        ("3", "3", True),
        ("3Ki", "3072", False),  # another format and text
        ("1000", "1k", False),  # another text
        ("1000", "1000", True),  # ends in 000: no text kept, the same int64 on both sides
        ("3Pi", "3Pi", False),  # two inf.Dec pointers
        ("8Ki", "8Ki", True),  # a multiple of 8: no text kept on either side
    ],
)
def test_go_equality(left: str, right: str, same: bool) -> None:
    assert Quantity.parse(left).same_in_go(Quantity.parse(right)) is same
