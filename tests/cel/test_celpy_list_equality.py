"""Long lists are compared by their elements' plain type where they have one: the same answers as
cel-go's element by element equality, which the general path follows."""

from __future__ import annotations

import math
from typing import Any

import celpy.celtypes as ct
import pytest

from dractl.cel.engines import celpy_values

N = 100  # longer than celpy_values._PLAIN_LIST_LENGTH


def ints(*values: int) -> list[Any]:
    return [ct.IntType(v) for v in values]


CASES = [
    # (left, right, cel-go's answer)
    (ints(*range(N)), ints(*range(N)), True),
    (ints(*range(N)), ints(*range(N - 1), 0), False),
    ([ct.UintType(7)] * N, [ct.UintType(7)] * N, True),
    ([ct.BoolType(True)] * N, [ct.BoolType(True)] * (N - 1) + [ct.BoolType(False)], False),
    ([ct.StringType("é")] * N, [ct.StringType("é")] * N, True),
    ([ct.StringType("a")] * N, [ct.StringType("a")] * (N - 1) + [ct.StringType("A")], False),
    ([ct.DoubleType(0.0)] * N, [ct.DoubleType(-0.0)] * N, True),
    ([ct.DoubleType(math.nan)] * N, [ct.DoubleType(math.nan)] * N, False),
    # of two types: element by element, as before
    (ints(*range(N)), [ct.DoubleType(v) for v in range(N)], True),  # 1 == 1.0 in cel-go
    ([ct.BoolType(True)] * N, ints(*[1] * N), False),  # a bool never equals an int
    (ints(1) + [ct.StringType("a")] * (N - 1), ints(1) + [ct.StringType("a")] * (N - 1), True),
    ([ints(1)] * N, [ints(1)] * N, True),  # lists of lists
]


@pytest.mark.parametrize(("left", "right", "expected"), CASES)
def test_long_lists(left: list[Any], right: list[Any], expected: bool) -> None:
    assert celpy_values.equal(left, right) is expected


@pytest.mark.parametrize(("left", "right", "expected"), CASES)
def test_the_same_answer_element_by_element(
    monkeypatch: pytest.MonkeyPatch, left: list[Any], right: list[Any], expected: bool
) -> None:
    monkeypatch.setattr(celpy_values, "_PLAIN_LIST_LENGTH", 10 * N)
    assert celpy_values.equal(left, right) is expected
