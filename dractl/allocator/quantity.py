"""Kubernetes resource quantities as the allocator computes with them: exact fractions.

The allocator compares device capacities, capacity requests and request policies and adds up
consumed capacity. It reads each quantity as the apiserver does (:mod:`dractl.api.quantity`,
which rounds to nano units and caps binary-SI values as ``ParseQuantity`` does) and keeps its
value as a :class:`fractions.Fraction`, so that comparisons and sums are exact, and its format
(binary SI, decimal SI or decimal exponent), because the canonical text the apiserver would
write back depends on it.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

from dractl.api.quantity import Quantity as ApiQuantity
from dractl.api.quantity import QuantityError, decode_quantity
from dractl.records import Record

QuantityFormat = Literal["BinarySI", "DecimalSI", "DecimalExponent"]

__all__ = ["Quantity", "QuantityError", "QuantityFormat", "canonical"]


class Quantity(Record):
    __slots__ = ("format", "value")
    __hash__ = Record.value_hash

    def __init__(self, value: Fraction, format: QuantityFormat = "DecimalSI") -> None:
        self.value = value
        self.format = format

    @classmethod
    def parse(cls, text: object) -> Quantity:
        """A quantity of a decoded object: a string or a number (raises QuantityError)."""
        parsed = decode_quantity(text)
        return cls(parsed.value, parsed.format)  # type: ignore[arg-type]

    @classmethod
    def of(cls, value: Fraction | int, format: QuantityFormat = "DecimalSI") -> Quantity:
        return cls(Fraction(value), format)

    def integer_value(self) -> int:
        """`Quantity.Value()`: the value rounded up to an integer."""
        return math.ceil(self.value)

    def __str__(self) -> str:
        return canonical(self.value, self.format)


def canonical(value: Fraction, format: QuantityFormat = "DecimalSI") -> str:
    """The canonical text of a quantity, as the apiserver serialises it (``String()``)."""
    # Quantities carry at most nano precision; anything finer rounds up.
    nanos = math.ceil(value * 10**9)
    return str(ApiQuantity(nanos, -9, False, format))
