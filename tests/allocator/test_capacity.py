"""Upstream's capacity arithmetic: request policies rounded in int64, shared large requests."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from dractl.allocator.capacity import (
    RequestedCapacity,
    consumed_quantity,
    int64_rounding,
    violates_policy,
)
from dractl.allocator.inventory import CapacityEntry
from dractl.allocator.quantity import Quantity


def entry(value: str, *, default: str | None = None, min: str | None = None, step: str | None = None,
          max: str | None = None, valid: tuple[str, ...] | None = None) -> CapacityEntry:
    q = Quantity.parse
    has_range = min is not None
    return CapacityEntry(q(value), q(default) if default else None,
                         tuple(q(v) for v in valid) if valid else None,
                         q(min) if min else None, q(max) if max else None, q(step) if step else None,
                         has_policy=bool(default or has_range or valid), has_range=has_range)


WRAP = {"min": "1", "step": "4Ei"}


@pytest.mark.parametrize(
    ("request_", "policy", "consumed", "shared"),
    [
        ("5Ei", WRAP, -(2**63) + 1, False),  # 1 + 2·4Ei wraps
        ("4Ei", WRAP, 2**62 + 1, False),
        ("17E", WRAP, 2**62 + 1, False),  # Value() is 0
        ("3", {"min": "1", "step": "2"}, 3, False),
        ("4", {"min": "1", "step": "2"}, 5, False),
        ("1Pi", {"default": "1Pi"}, 2**50, True),  # handed back: the claim's own inf.Dec
        ("1Pi", {"min": "1Ti"}, 2**50, True),
        ("1Ti", {"min": "1Ti"}, 2**40, False),  # the request itself, but an int64: copies are copies
        ("1Pi", {}, 2**50, False),  # no policy: DeepCopy
        ("1Pi", {"valid": ("1Pi", "2Pi")}, 2**50, False),  # the valid value, a copy
    ],
)
def test_consumed_quantity(request_: str, policy: dict[str, Any], consumed: int, shared: bool) -> None:
    requested = RequestedCapacity(Quantity.parse(request_))
    taken = consumed_quantity(requested, entry("8Ei", **policy))
    quantity = taken.quantity if isinstance(taken, RequestedCapacity) else taken
    assert quantity.value == consumed
    assert (taken is requested and requested.shared) == shared


@pytest.mark.parametrize(
    ("request_", "exact", "upstream"),
    [
        ("5Ei", 2**63 + 1, -(2**63) + 1),
        ("20000000000000000000", 5 * 2**62 + 1, 2**62 + 1),
        ("4Ei", None, None),
        ("1", None, None),
    ],
)
def test_int64_rounding_is_told_when_it_differs(request_: str, exact: int | None, upstream: int | None) -> None:
    found = int64_rounding(Quantity.parse(request_), entry("8Ei", **WRAP))
    if exact is None:
        assert found is None
    else:
        assert found is not None
        assert (found[0], found[1].value) == (Fraction(exact), Fraction(upstream))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("consumed", "policy", "violates"),
    [
        ("-9223372036854775807", WRAP, False),  # on the step, below every max: upstream lets it pass
        ("3", {"min": "1", "step": "2"}, False),
        ("4", {"min": "1", "step": "2"}, True),
        ("3Pi", {"min": "1Ti", "max": "2Pi"}, True),
        ("3", {"default": "3", "min": "1", "step": "4"}, False),  # the default always passes
        ("3", {"valid": ("2", "4")}, True),
    ],
)
def test_violates_policy(consumed: str, policy: dict[str, Any], violates: bool) -> None:
    assert violates_policy(Quantity.parse(consumed), entry("8Ei", **policy)) is violates
