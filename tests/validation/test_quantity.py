"""Quantities: parsing what kubectl sends, comparing, and upstream's canonical String()."""

from __future__ import annotations

import pytest

from dractl.api.validation.quantity import QuantityError, parse_quantity


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("1", "1"),
        ("1000", "1k"),
        ("1500", "1500"),
        ("0.5", "500m"),
        ("10100m", "10100m"),
        ("1100m", "1100m"),
        ("-1", "-1"),
        ("1Gi", "1Gi"),
        ("1024Mi", "1Gi"),
        ("1536Mi", "1536Mi"),
        ("512", "512"),
        ("1e3", "1e3"),
        ("1.5e3", "1500"),
        ("0.1m", "100u"),
        ("0.1n", "1n"),  # more precise than nano: rounded up
        ("1n", "1n"),
        ("0", "0"),
        (7, "7"),
        (2.5, "2500m"),
        ("9223372036854775807", "9223372036854775807"),
    ],
)
def test_canonical_form(raw: object, canonical: str) -> None:
    assert str(parse_quantity(raw)) == canonical


@pytest.mark.parametrize("raw", ["", "abc", "1x", "1.2.3", "--1", True, None, [1]])
def test_invalid(raw: object) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(raw)


def test_rounding_like_value_and_milli_value() -> None:
    assert parse_quantity("1500m").int_value() == 2
    assert parse_quantity("-1500m").int_value() == -2
    assert parse_quantity("1u").milli_value() == 1
    assert parse_quantity("0.5n").value > 0  # rounded up to 1n


def test_milli_exactness() -> None:
    assert parse_quantity("1m").milli_exact()
    assert parse_quantity("9223372036854775807m").milli_exact()
    assert not parse_quantity("9223372036854775807").milli_exact()
    assert not parse_quantity("1u").milli_exact()


def test_comparison_across_formats() -> None:
    assert parse_quantity("1Gi").cmp(parse_quantity("1073741824")) == 0
    assert parse_quantity("1G").cmp(parse_quantity("1Gi")) < 0
    assert parse_quantity("9900m").cmp(parse_quantity("10")) < 0
