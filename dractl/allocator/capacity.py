"""Consumable capacity as upstream computes it (`structured/internal/*/consumable_capacity.go`).

What a request takes of a device's capacity after the device's request policy, and whether that
breaks the policy, with two behaviours of upstream's code that exact arithmetic would not show
and that change what the scheduler allocates and writes:

- **int64 rounding.** `roundUpRange` rounds a request up to `min + k·step` with `Value()` and
  int64 arithmetic, which wraps: with `min: 1, step: 4Ei`, a request of 5Ei becomes
  1 + 8Ei = -9223372036854775807, which "fits" any device, and requests beyond int64 are cut
  to their low 64 bits (or to 0) before rounding.
- **The claim's own quantity changes.** A quantity too large for an int64 mantissa (`1Pi`,
  `100Ti`, 19 digits and more) is an `inf.Dec` pointer, shared by every copy. Where the policy
  hands the request back as it is (only a `default`, a `validRange` without `step`), the
  consumed capacity *is* the claim's quantity, and `CmpRequestOverCapacity` adds the capacity
  that earlier requests of the same Allocate call took on the device into it: every check
  (two per device picked) grows the request, the result records the grown value, and later
  checks of the same request start from it. A :class:`RequestedCapacity` is that shared
  quantity for one Allocate call.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dractl.allocator.quantity import Quantity, go_add, go_multiply, go_quotient, go_remainder

__all__ = ["RequestedCapacity", "consumed_quantity", "describe_policy", "int64_rounding", "violates_policy"]


class RequestedCapacity:
    """One capacity request of one claim request for one Allocate call (mutable, see above)."""

    __slots__ = ("original", "quantity")

    def __init__(self, quantity: Quantity) -> None:
        self.original = quantity
        self.quantity = quantity

    @property
    def value(self) -> Fraction:
        return self.quantity.value

    @property
    def shared(self) -> bool:
        """Copies share the quantity: upstream's `Add` on one of them changes the claim's."""
        return self.quantity.decimal_form

    def grow(self, allocating: Fraction) -> None:
        self.quantity = self.quantity.plus(allocating)

    def __str__(self) -> str:
        return str(self.quantity)

    def __repr__(self) -> str:
        return f"RequestedCapacity({self.original} -> {self.quantity})"


def consumed_quantity(requested: RequestedCapacity | None, entry: Any) -> Quantity | RequestedCapacity:
    """`calculateConsumedCapacity`; the request itself where upstream returns it uncopied."""
    if requested is None:
        return entry.default if entry.default is not None else entry.value
    if not entry.has_policy:
        return requested.quantity  # DeepCopy upstream
    if entry.has_range and entry.range_min is not None:
        if requested.value < entry.range_min.value:
            return entry.range_min
        if entry.range_step is None:
            return requested
        return _round_up_range(requested.quantity, entry)
    if entry.valid_values is not None:
        for value in entry.valid_values:
            if requested.value <= value.value:
                return value
    return requested


def _round_up_range(requested: Quantity, entry: Any) -> Quantity:
    step = entry.range_step.go_value
    base = entry.range_min.go_value
    if not step:
        # The apiserver refuses a step of 0 (upstream would divide by zero).
        return requested
    added = go_add(requested.go_value, -base)
    steps = go_quotient(added, step)
    if go_remainder(added, step) != 0:
        steps = go_add(steps, 1)
    return Quantity.of(go_add(base, go_multiply(step, steps)), "BinarySI")


def violates_policy(consumed: Quantity, entry: Any) -> bool:
    """`violatesPolicy`."""
    if not entry.has_policy:
        return False
    # Go's `==`, not `Cmp`: an inf.Dec, another text or format of the same value is not the default.
    if entry.default is not None and consumed.same_in_go(entry.default):
        return False
    if entry.has_range:
        if entry.range_max is not None and consumed.value > entry.range_max.value:
            return True
        if entry.range_step is not None and entry.range_step.go_value:
            base = entry.range_min.go_value if entry.range_min is not None else 0
            if go_remainder(go_add(consumed.go_value, -base), entry.range_step.go_value) != 0:
                return True
        return False
    if entry.valid_values:
        return all(consumed.value != value.value for value in entry.valid_values)
    return False


def int64_rounding(requested: Quantity, entry: Any) -> tuple[Fraction, Quantity] | None:
    """(exact rounding, upstream's) when int64 arithmetic makes them differ, else None."""
    if not (entry.has_policy and entry.has_range and entry.range_min is not None
            and entry.range_step is not None and entry.range_step.go_value):
        return None
    if requested.value < entry.range_min.value:
        return None
    upstream = _round_up_range(requested, entry)
    step, base = entry.range_step.value, entry.range_min.value
    exact = base
    if requested.value > base:
        exact = base + step * -((base - requested.value) // step)
    return None if exact == upstream.value else (exact, upstream)


def describe_policy(entry: Any) -> str:
    parts = []
    if entry.default is not None:
        parts.append(f"default {entry.default}")
    if entry.range_min is not None:
        parts.append(f"min {entry.range_min}")
    if entry.range_step is not None:
        parts.append(f"step {entry.range_step}")
    if entry.range_max is not None:
        parts.append(f"max {entry.range_max}")
    return ", ".join(parts) or "a request policy"
