"""Resource quantities against apimachinery's own tables (pkg/api/resource/quantity_test.go):
parsing, the int64 and decimal shapes, canonical form, comparison, arithmetic, rounding and the
JSON decoder; then what dractl adds (numbers as YAML gives them)."""

from __future__ import annotations

import math

import pytest

from dractl.api.quantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    ERR_FORMAT_WRONG,
    ERR_NUMERIC,
    ERR_SUFFIX,
    INT64_MAX,
    INT64_MIN,
    Quantity,
    QuantityError,
    QuantityUnsupported,
    decode_quantity,
    from_int,
    json_number_text,
    parse_quantity,
)

SI, BIN, EXP = DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT


def dec(unscaled: int, exponent: int, format: str) -> Quantity:
    """upstream's decQuantity: the inf.Dec shape."""
    return Quantity(unscaled, exponent, False, format)


def num(unscaled: int, exponent: int, format: str) -> Quantity:
    """upstream's intQuantity: the scaled-int64 shape."""
    return Quantity(unscaled, exponent, True, format)


MAX_ALLOWED = dec(INT64_MAX, 0, SI)

# TestQuantityParse: input -> the value and format upstream parses it to
PARSED = [
    ("0", dec(0, 0, SI)),
    ("0n", dec(0, 0, SI)),
    ("0u", dec(0, 0, SI)),
    ("0m", dec(0, 0, SI)),
    ("0Ki", dec(0, 0, BIN)),
    ("0k", dec(0, 0, SI)),
    ("0Mi", dec(0, 0, BIN)),
    ("0M", dec(0, 0, SI)),
    ("0Gi", dec(0, 0, BIN)),
    ("0G", dec(0, 0, SI)),
    ("0Ti", dec(0, 0, BIN)),
    ("0T", dec(0, 0, SI)),
    ("1", dec(1, 0, SI)),
    ("1Ki", dec(1024, 0, BIN)),
    ("8Ki", dec(8 * 1024, 0, BIN)),
    ("7Mi", dec(7 * 1024**2, 0, BIN)),
    ("6Gi", dec(6 * 1024**3, 0, BIN)),
    ("5Ti", dec(5 * 1024**4, 0, BIN)),
    ("4Pi", dec(4 * 1024**5, 0, BIN)),
    ("3Ei", dec(3 * 1024**6, 0, BIN)),
    ("10Ti", dec(10 * 1024**4, 0, BIN)),
    ("100Ti", dec(100 * 1024**4, 0, BIN)),
    ("5n", dec(5, -9, SI)),
    ("4u", dec(4, -6, SI)),
    ("3m", dec(3, -3, SI)),
    ("9", dec(9, 0, SI)),
    ("8k", dec(8, 3, SI)),
    ("50k", dec(5, 4, SI)),
    ("7M", dec(7, 6, SI)),
    ("6G", dec(6, 9, SI)),
    ("5T", dec(5, 12, SI)),
    ("40T", dec(4, 13, SI)),
    ("300T", dec(3, 14, SI)),
    ("2P", dec(2, 15, SI)),
    ("1E", dec(1, 18, SI)),
    ("1E-3", dec(1, -3, EXP)),
    ("1e3", dec(1, 3, EXP)),
    ("1E6", dec(1, 6, EXP)),
    ("1e9", dec(1, 9, EXP)),
    ("1E12", dec(1, 12, EXP)),
    ("1e15", dec(1, 15, EXP)),
    ("1E18", dec(1, 18, EXP)),
    ("1e14", dec(1, 14, EXP)),
    ("1e13", dec(1, 13, EXP)),
    ("100.035k", dec(100035, 0, SI)),
    ("0.001", dec(1, -3, SI)),
    ("0.0005k", dec(5, -1, SI)),
    ("0.005", dec(5, -3, SI)),
    ("0.05", dec(5, -2, SI)),
    ("0.5", dec(5, -1, SI)),
    ("0.00050k", dec(5, -1, SI)),
    ("0.00500", dec(5, -3, SI)),
    ("0.05000", dec(5, -2, SI)),
    ("0.50000", dec(5, -1, SI)),
    ("0.5e0", dec(5, -1, EXP)),
    ("0.5e-1", dec(5, -2, EXP)),
    ("0.5e-2", dec(5, -3, EXP)),
    ("10.035M", dec(10035, 3, SI)),
    ("1.2e3", dec(12, 2, EXP)),
    ("1.3E+6", dec(13, 5, EXP)),
    ("1.40e9", dec(14, 8, EXP)),
    ("1.53E12", dec(153, 10, EXP)),
    ("1.6e15", dec(16, 14, EXP)),
    ("1.7E18", dec(17, 17, EXP)),
    ("9.01", dec(901, -2, SI)),
    ("8.1k", dec(81, 2, SI)),
    ("7.123456M", dec(7123456, 0, SI)),
    ("6.987654321G", dec(6987654321, 0, SI)),
    ("5.444T", dec(5444, 9, SI)),
    ("40.1T", dec(401, 11, SI)),
    ("300.2T", dec(3002, 11, SI)),
    ("2.5P", dec(25, 14, SI)),
    ("1.01E", dec(101, 16, SI)),
    # saturate or round
    ("3.001n", dec(4, -9, SI)),
    ("1.1E-9", dec(2, -9, EXP)),
    ("0.0000000001", dec(1, -9, SI)),
    ("0.0000000005", dec(1, -9, SI)),
    ("0.00000000050", dec(1, -9, SI)),
    ("0.5e-9", dec(1, -9, EXP)),
    ("0.9n", dec(1, -9, SI)),
    ("0.00000012345", dec(124, -9, SI)),
    ("0.00000012354", dec(124, -9, SI)),
    ("9Ei", dec(INT64_MAX, 0, BIN)),
    ("9223372036854775807Ki", dec(INT64_MAX, 0, BIN)),
    ("12E", dec(12, 18, SI)),
    # fractional binary
    ("100.035Ki", dec(10243584, -2, BIN)),
    ("0.5Mi", dec(512 * 1024, 0, BIN)),
    ("0.05Gi", dec(536870912, -1, BIN)),
    ("0.025Ti", dec(274877906944, -1, BIN)),
    # "written by trolls"
    ("0.000000000001Ki", dec(2, -9, SI)),  # rounds up, changes format
    (".001", dec(1, -3, SI)),
    (".0001k", dec(100, -3, SI)),
    ("1.", dec(1, 0, SI)),
    ("1.G", dec(1, 9, SI)),
    # TestParseQuantityString: no digits at all read as zero
    (".", dec(0, 0, SI)),
    ("1E-3", dec(1, -3, EXP)),
]


@pytest.mark.parametrize(("text", "expected"), PARSED, ids=[t for t, _ in PARSED])
def test_parse_like_upstream(text: str, expected: Quantity) -> None:
    got = parse_quantity(text)
    assert got.compare(expected) == 0
    assert got.format == expected.format
    # with an explicit sign
    assert parse_quantity("+" + text).compare(expected) == 0
    assert parse_quantity("+" + text).format == expected.format
    negative = parse_quantity("-" + text)
    assert negative.compare(dec(-expected.unscaled, expected.exponent, expected.format)) == 0
    assert negative.format == expected.format


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", ERR_FORMAT_WRONG),
        ("1.1.M", ERR_FORMAT_WRONG),
        ("1+1.0M", ERR_FORMAT_WRONG),
        ("0.1mi", ERR_SUFFIX),
        ("0.1am", ERR_FORMAT_WRONG),
        ("aoeu", ERR_FORMAT_WRONG),
        (".5i", ERR_SUFFIX),
        ("1i", ERR_SUFFIX),
        ("-3.01i", ERR_SUFFIX),
        ("-3.01e-", ERR_SUFFIX),
        (" 1", ERR_FORMAT_WRONG),  # ParseQuantity does not trim; the JSON decoder does
        ("1 ", ERR_FORMAT_WRONG),
        ("Non-Numeric", ERR_FORMAT_WRONG),
        (".e-10", ERR_NUMERIC),  # no digits, and too fine for the int64 shape: inf.Dec refuses "."
        ("-.e-10", ERR_NUMERIC),
        ("16GB", ERR_FORMAT_WRONG),
    ],
)
def test_parse_errors_are_upstreams(text: str, message: str) -> None:
    with pytest.raises(QuantityError) as raised:
        parse_quantity(text)
    assert str(raised.value) == message


def test_the_format_error_names_upstreams_expression() -> None:
    assert ERR_FORMAT_WRONG == (
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )


# TestParseQuantity: AsInt64 (None: not ok) and the canonical form ("": the input itself)
AS_INT64 = [
    ("-999999999999999999", -999999999999999999, ""),
    ("999999999999999999", 999999999999999999, ""),
    ("-999999999999999999.0", None, "-999999999999999999"),
    ("999999999999999999.0", None, "999999999999999999"),
    ("-999999999999999999.1", None, "-999999999999999999100m"),
    ("999999999999999999.1", None, "999999999999999999100m"),
    ("-9999999999999999999", None, ""),
    ("9999999999999999999", None, ""),
    ("-1E", -(10**18), ""),
    ("1E", 10**18, ""),
    ("-1000000000000000000", None, "-1E"),
    ("1000000000000000000", None, "1E"),
    ("-9999999999999999999.0", None, "-9999999999999999999"),
    ("9999999999999999999.0", None, "9999999999999999999"),
    ("-1.0E", -(10**18), "-1E"),
    ("1.0E", 10**18, "1E"),
    ("-1000000000000000000.0", None, "-1E"),
    ("1000000000000000000.0", None, "1E"),
    ("-9999999999999999999000m", None, "-9999999999999999999"),
    ("9999999999999999999000m", None, "9999999999999999999"),
    ("-9999999999999999999.1", None, "-9999999999999999999100m"),
    ("9999999999999999999.1", None, "9999999999999999999100m"),
    ("-1.0000000000000000001E", None, "-1000000000000000000100m"),
    ("1.0000000000000000001E", None, "1000000000000000000100m"),
    ("-1000000000000000000.1", None, "-1000000000000000000100m"),
    ("1000000000000000000.1", None, "1000000000000000000100m"),
    ("-1.000000000000000001E", None, "-1000000000000000001"),
    ("1.000000000000000001E", None, "1000000000000000001"),
    ("-1000000000000000001", None, ""),
    ("1000000000000000001", None, ""),
    ("-10E", None, ""),
    ("10E", None, ""),
    ("-10000000000000000000", None, "-10E"),
    ("10000000000000000000", None, "10E"),
    ("-10.0E", None, "-10E"),
    ("10.0E", None, "10E"),
    ("-10000000000000000000.0", None, "-10E"),
    ("10000000000000000000.0", None, "10E"),
    ("-10000000000000000000000m", None, "-10E"),
    ("10000000000000000000000m", None, "10E"),
    ("-10.0000000000000000001E", None, "-10000000000000000000100m"),
    ("10.0000000000000000001E", None, "10000000000000000000100m"),
    ("-10000000000000000000.1", None, "-10000000000000000000100m"),
    ("10000000000000000000.1", None, "10000000000000000000100m"),
    ("-10.000000000000000001E", None, "-10000000000000000001"),
    ("10.000000000000000001E", None, "10000000000000000001"),
    ("-10000000000000000001", None, ""),
    ("10000000000000000001", None, ""),
    ("-9223372036854775809", None, ""),
    ("9223372036854775806", None, ""),
    ("-9223372036854775809.0", None, "-9223372036854775809"),
    ("9223372036854775806.0", None, "9223372036854775806"),
    ("-9223372036854775809000m", None, "-9223372036854775809"),
    ("9223372036854775806000m", None, "9223372036854775806"),
    ("-9223372036854775809.1", None, "-9223372036854775809100m"),
    ("9223372036854775806.1", None, "9223372036854775806100m"),
    ("-9223372036854775808", None, ""),
    ("9223372036854775807", None, ""),
    ("-9223372036854775808.0", None, "-9223372036854775808"),
    ("9223372036854775807.0", None, "9223372036854775807"),
    ("-9223372036854775808000m", None, "-9223372036854775808"),
    ("9223372036854775807000m", None, "9223372036854775807"),
    ("-9223372036854775808.1", None, "-9223372036854775808100m"),
    ("9223372036854775807.1", None, "9223372036854775807100m"),
    ("-9223372036854775807", None, ""),
    ("9223372036854775808", None, ""),
    ("-9223372036854775807.0", None, "-9223372036854775807"),
    ("9223372036854775808.0", None, "9223372036854775808"),
    ("-9223372036854775807000m", None, "-9223372036854775807"),
    ("9223372036854775808000m", None, "9223372036854775808"),
    ("-9223372036854775807.1", None, "-9223372036854775807100m"),
    ("9223372036854775808.1", None, "9223372036854775808100m"),
]


@pytest.mark.parametrize(
    ("text", "as_int64", "canonical"), AS_INT64, ids=[t for t, _, _ in AS_INT64]
)
def test_as_int64_and_canonical_form_like_upstream(
    text: str, as_int64: int | None, canonical: str
) -> None:
    parsed = parse_quantity(text)
    assert parsed.as_int64() == as_int64
    assert str(parsed) == (canonical or text)


# TestQuantityString: a value and format -> canonical text, and an alternate spelling of it
CANONICAL = [
    (dec(1024**3, 0, BIN), "1Gi", "1024Mi"),
    (dec(300 * 1024**2, 0, BIN), "300Mi", "307200Ki"),
    (dec(6 * 1024, 0, BIN), "6Ki", ""),
    (dec(1001 * 1024**3, 0, BIN), "1001Gi", "1025024Mi"),
    (dec(1024**4, 0, BIN), "1Ti", "1024Gi"),
    (dec(5, 0, BIN), "5", "5000m"),
    (dec(500, -3, BIN), "500m", "0.5"),
    (dec(1, 9, SI), "1G", "1000M"),
    (dec(1000, 6, SI), "1G", "0.001T"),
    (dec(1000000, 3, SI), "1G", ""),
    (dec(1000000000, 0, SI), "1G", ""),
    (dec(1, -3, SI), "1m", "1000u"),
    (dec(80, -3, SI), "80m", ""),
    (dec(1080, -3, SI), "1080m", "1.08"),
    (dec(108, -2, SI), "1080m", "1080000000n"),
    (dec(10800, -4, SI), "1080m", ""),
    (dec(300, 6, SI), "300M", ""),
    (dec(1, 12, SI), "1T", ""),
    (dec(1, 18, SI), "1E", ""),
    (dec(1, 21, SI), "1e21", "1000E"),  # DecimalSI has no suffix beyond E
    (dec(5, 21, SI), "5e21", "5000E"),
    (dec(1, 24, SI), "1e24", "1000000E"),
    (dec(1234567, 6, SI), "1234567M", ""),
    (dec(1234567, -3, BIN), "1234567m", ""),
    (dec(3, 3, SI), "3k", ""),
    (dec(1025, 0, BIN), "1025", ""),
    (dec(0, 0, SI), "0", ""),
    (dec(0, 0, BIN), "0", ""),
    (dec(1, 9, EXP), "1e9", ".001e12"),
    (dec(1, -3, EXP), "1e-3", "0.001e0"),
    (dec(1, -9, EXP), "1e-9", "1000e-12"),
    (dec(80, -3, EXP), "80e-3", ""),
    (dec(300, 6, EXP), "300e6", ""),
    (dec(1, 12, EXP), "1e12", ""),
    (dec(1, 3, EXP), "1e3", ""),
    (dec(3, 3, EXP), "3e3", ""),
    (dec(0, 0, EXP), "0", "00"),
    (dec(1, -9, SI), "1n", ""),
    (dec(80, -9, SI), "80n", ""),
    (dec(1080, -9, SI), "1080n", ""),
    (dec(108, -8, SI), "1080n", ""),
    (dec(10800, -10, SI), "1080n", ""),
    (dec(1, -6, SI), "1u", ""),
    (dec(80, -6, SI), "80u", ""),
    (dec(1080, -6, SI), "1080u", ""),
]


@pytest.mark.parametrize(
    ("quantity", "canonical", "alternate"), CANONICAL, ids=[c for _, c, _ in CANONICAL]
)
def test_canonical_form_like_upstream(quantity: Quantity, canonical: str, alternate: str) -> None:
    assert str(quantity) == canonical
    for shape in (True, False):  # the int64 shape writes the same text
        assert (
            str(Quantity(quantity.unscaled, quantity.exponent, shape, quantity.format)) == canonical
        )
    assert str(parse_quantity(canonical)) == canonical
    if alternate:
        assert str(parse_quantity(alternate)) == canonical
    if quantity.unscaled:
        negated = Quantity(-quantity.unscaled, quantity.exponent, False, quantity.format)
        assert str(negated) == "-" + canonical


# TestQuantityParseEmit
@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("1Ki", "1Ki"),
        ("1Mi", "1Mi"),
        ("1Gi", "1Gi"),
        ("1024Mi", "1Gi"),
        ("1000M", "1G"),
        (".001Ki", "1024m"),
        (".000001Ki", "1024u"),
        (".000000001Ki", "1024n"),
        (".000000000001Ki", "2n"),
    ],
)
def test_parse_and_emit_like_upstream(text: str, canonical: str) -> None:
    assert str(parse_quantity(text)) == canonical
    assert str(parse_quantity("-" + text)) == "-" + canonical


# TestMilliNewSet and TestNewSet (NewMilliQuantity / NewQuantity; an unknown format is DecimalExponent)
@pytest.mark.parametrize(
    ("quantity", "canonical"),
    [
        (num(1, -3, SI), "1m"),
        (num(1000, -3, SI), "1"),
        (num(1234000, -3, SI), "1234"),
        (num(1024, -3, BIN), "1024m"),
        (num(1000000, -3, EXP), "1e3"),
        (num(1024 * 1024, -3, BIN), "1048576m"),
        (num(1, 0, SI), "1"),
        (num(1000, 0, SI), "1k"),
        (num(1234000, 0, SI), "1234k"),
        (num(1024, 0, BIN), "1Ki"),
        (num(1000000, 0, EXP), "1e6"),
        (num(1024 * 1024, 0, BIN), "1Mi"),
        # TestNewScaledSet
        (num(1, -9, SI), "1n"),
        (num(1000, -9, SI), "1u"),
        (num(1, -6, SI), "1u"),
        (num(1000, -6, SI), "1m"),
        (num(1, -3, SI), "1m"),
        (num(1000, -3, SI), "1"),
        (num(0, -9, SI), "0"),
        (num(0, 0, SI), "0"),
    ],
)
def test_new_quantities_like_upstream(quantity: Quantity, canonical: str) -> None:
    assert str(quantity) == canonical


# TestQuantityCmp and TestQuantityCmpInt64AndDec
@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        (parse_quantity("0"), parse_quantity("0"), 0),
        (parse_quantity("100m"), parse_quantity("50m"), 1),
        (parse_quantity("50m"), parse_quantity("100m"), -1),
        (parse_quantity("10000T"), parse_quantity("100Gi"), 1),
        (num(901, -2, SI), num(901, -2, SI), 0),
        (num(90, -1, SI), num(901, -2, SI), -1),
        (num(901, -2, SI), num(900, -2, SI), 1),
        (num(0, 1, SI), num(0, -1, SI), 0),
        (num(800, -3, SI), num(1, 0, SI), -1),
        (num(800, -3, SI), num(79, -2, SI), 1),
        (num(INT64_MAX, 0, SI), num(1, -1, SI), 1),
        (num(INT64_MAX, 1, SI), num(1, 0, SI), 1),
        (num(INT64_MAX, -16, SI), num(1, 3, SI), -1),
        (num(INT64_MIN, 0, SI), num(0, 0, SI), -1),
        (num(INT64_MIN, -18, SI), num(-1, 0, SI), -1),
        (num(INT64_MIN, -19, SI), num(-1, 0, SI), 1),
        (num(10**18, -17, SI), num(1, 1, SI), 0),
        (num(10**18, -17, SI), num(-10, 0, SI), 1),
        (num(-(10**18), -17, SI), num(-10, 0, SI), 0),
        (num(10**18 + 1, -17, SI), num(1, 1, SI), 1),
        (num(10**18 - 1, -17, SI), num(1, 1, SI), -1),
    ],
)
def test_compare_like_upstream(left: Quantity, right: Quantity, expected: int) -> None:
    assert left.compare(right) == expected
    assert right.compare(left) == -expected
    as_decimal = Quantity(left.unscaled, left.exponent, False, left.format)
    assert as_decimal.compare(right) == expected


# TestAdd, TestSub and the zero cases keeping the other operand's suffix
@pytest.mark.parametrize(
    ("left", "right", "summed", "difference"),
    [
        (dec(10, 0, SI), dec(1, 1, SI), "20", "0"),
        (dec(10, 0, SI), dec(1, 0, BIN), "11", "9"),
        (dec(10, 0, BIN), dec(1, 0, SI), "11", "9"),
        (dec(0, 0, SI), dec(50, 0, SI), "50", "-50"),
        (dec(50, 0, SI), dec(0, 0, SI), "50", "50"),
        (dec(0, 0, SI), dec(0, 0, SI), "0", "0"),
        (parse_quantity("100m"), parse_quantity("0"), "100m", "100m"),
        (parse_quantity("0"), parse_quantity("100m"), "100m", "-100m"),
        (parse_quantity("1Gi"), parse_quantity("0"), "1Gi", "1Gi"),
        (parse_quantity("0"), parse_quantity("1Gi"), "1Gi", "-1Gi"),
    ],
)
def test_add_and_sub_like_upstream(
    left: Quantity, right: Quantity, summed: str, difference: str
) -> None:
    assert str(left.add(right)) == summed
    assert str(left.sub(right)) == difference


def test_int64_sums_stay_int64_until_they_overflow() -> None:
    assert parse_quantity("1").add(parse_quantity("2")).as_int64() == 3
    assert parse_quantity("1k").add(parse_quantity("1m")).as_int64() is None  # 1000001m
    big = num(INT64_MAX, 0, SI)
    overflowed = big.add(from_int(1))
    assert overflowed.as_int64() is None
    assert str(overflowed) == "9223372036854775808"
    # TestSubMostNegativeCrossScale: 10 - mostNegative
    assert str(num(1, 1, SI).sub(num(INT64_MIN, 0, SI))) == "9223372036854775818"


# TestQuantityAsApproximateFloat64 and TestStringQuantityAsApproximateFloat64
@pytest.mark.parametrize(
    ("quantity", "expected"),
    [
        *[
            (dec(unscaled, exponent, format), value)
            for format in (SI, EXP, BIN)
            for unscaled, exponent, value in [
                (0, 0, 0.0),
                (1, 0, 1.0),
                (1024, 0, 1024.0),
                (8 * 1024, 0, 8 * 1024.0),
                (7 * 1024**2, 0, 7 * 1024**2 * 1.0),
                (7 * 1024**2, 1, 7 * 1024**2 * 10.0),
                (7 * 1024**2, 4, 7 * 1024**2 * 10000.0),
                (7 * 1024**2, 8, 7 * 1024**2 * 100000000.0),
                (7 * 1024**2, -1, 7 * 1024**2 * 0.1),
                (7 * 1024**2, -8, 7 * 1024**2 / 100000000.0),
            ]
        ],
        (MAX_ALLOWED, float(INT64_MAX)),
        (dec(12, 18, SI), 1.2e19),
        (dec(12, 500, SI), math.inf),
        (dec(-12, 500, SI), -math.inf),
        (parse_quantity("2Ki"), 2048.0),
        (parse_quantity("1.1Ki"), 1126.4),
        (parse_quantity("1Mi"), 1.048576e06),
        (parse_quantity("2Gi"), 2.147483648e09),
    ],
)
def test_approximate_float_like_upstream(quantity: Quantity, expected: float) -> None:
    assert quantity.as_approximate_float() == expected


# TestScaledValue (Value and MilliValue: rounded away from zero)
@pytest.mark.parametrize(
    ("exponent", "value", "milli_value"),
    [(-9, 1, 1), (-6, 1, 1), (-3, 1, 1), (0, 1, 1000), (2, 100, 100000)],
)
def test_value_and_milli_value_like_upstream(exponent: int, value: int, milli_value: int) -> None:
    quantity = num(1, exponent, SI)
    assert quantity.int_value() == value
    assert quantity.milli_value() == milli_value


def test_rounding_is_away_from_zero() -> None:
    assert parse_quantity("1500m").int_value() == 2
    assert parse_quantity("-1500m").int_value() == -2
    assert parse_quantity("-1u").milli_value() == -1
    assert parse_quantity("9.01").int_value() == 10


def test_milli_exactness() -> None:
    assert parse_quantity("1m").milli_exact()
    assert parse_quantity("9223372036854775807m").milli_exact()
    assert not parse_quantity("9223372036854775807").milli_exact()
    assert not parse_quantity("1u").milli_exact()


# TestJSONWhitespace: the JSON decoder trims white space, then parses the text
@pytest.mark.parametrize(
    ("raw", "canonical"),
    [(" 1", "1"), ("1 ", "1"), (1, "1"), (10, "10"), (-1, "-1"), (" -1", "-1")],
)
def test_the_json_decoder_trims_white_space(raw: object, canonical: str) -> None:
    assert str(decode_quantity(raw)) == canonical


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("1000", "1k"),
        ("1500", "1500"),
        ("0.5", "500m"),
        ("10100m", "10100m"),
        ("-1", "-1"),
        ("1536Mi", "1536Mi"),
        ("1.5e3", "1500"),
        ("0.1m", "100u"),
        ("0.1n", "1n"),
        (7, "7"),
        (2.5, "2500m"),
        ("9223372036854775807", "9223372036854775807"),
        # a YAML float reaches the apiserver as JSON: exponent form only below 1e-6 and from 1e21
        (1000.0, "1k"),
        (1e16, "10P"),
        (1e20, "100E"),
        (1e21, "1e21"),
        (1.5e-6, "1500n"),
        (1e-5, "10u"),
        (1e-7, "100e-9"),
        (0.0, "0"),
        (-2.5e18, "-2500P"),
    ],
)
def test_numbers_and_strings_as_yaml_gives_them(raw: object, canonical: str) -> None:
    assert str(decode_quantity(raw)) == canonical


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0"),
        (1.0, "1"),
        (1000.0, "1000"),
        (2.5, "2.5"),
        (1e16, "10000000000000000"),
        (1.2345e17, "123450000000000000"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1e-6, "0.000001"),
        (1.5e-6, "0.0000015"),
        (-2.5e18, "-2500000000000000000"),
        # encoding/json drops the exponent's padding zero ("clean up e-09 to e-9"), as the
        # upstream decoder's error quotes it: "cannot unmarshal number 9.99e-7 into ..."
        (9.99e-7, "9.99e-7"),
        (1e-7, "1e-7"),
        (1e-10, "1e-10"),
        (5e-324, "5e-324"),
        (1.2345678901234567e22, "1.2345678901234568e+22"),
        (-0.0, "-0"),
    ],
)
def test_floats_are_written_as_gos_json_encoder_writes_them(value: float, text: str) -> None:
    assert json_number_text(value) == text


@pytest.mark.parametrize(
    "raw", ["", "  ", "abc", "1x", "1.2.3", "--1", True, None, [1], {"a": 1}, math.inf, math.nan]
)
def test_what_the_decoder_refuses(raw: object) -> None:
    with pytest.raises(QuantityError):
        decode_quantity(raw)


def test_exponents_beyond_dractls_arithmetic_are_unsupported_not_invalid() -> None:
    with pytest.raises(QuantityUnsupported):
        parse_quantity("1e100000")
    assert str(parse_quantity("1e3999")) == "1e3999"


@pytest.mark.parametrize(
    ("text", "unscaled", "exponent"),
    [
        # ParseQuantity rounds an inf.Dec to scale 9: coarser decimals get nine decimals too
        ("12345678901234567890", 12345678901234567890 * 10**9, -9),
        ("100.035Ki", 102435840000000, -9),
        ("0.0000000001", 1, -9),
        ("9Ei", INT64_MAX, 0),  # the cap is maxAllowed itself, scale 0
        # the int64 shape keeps its own scale
        ("1.5", 15, -1),
        ("1e30", 1, 30),
    ],
)
def test_the_shape_parsing_leaves(text: str, unscaled: int, exponent: int) -> None:
    parsed = parse_quantity(text)
    assert (parsed.unscaled, parsed.exponent) == (unscaled, exponent)
