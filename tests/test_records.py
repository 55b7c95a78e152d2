"""dractl.records.Record: the value semantics the dataclasses it replaced had."""

from __future__ import annotations

import pickle

import pytest

from dractl.diagnostics import Diagnostic, ObjectRef, Position, Severity
from dractl.load import LoadResult
from dractl.records import Record, replace


class Point(Record):
    __slots__ = ("x", "y")
    __hash__ = Record.value_hash

    def __init__(self, x: int, y: int = 0) -> None:
        self.x = x
        self.y = y


class Point3(Point):
    __slots__ = ("z",)

    def __init__(self, x: int, y: int = 0, z: int = 0) -> None:
        super().__init__(x, y)
        self.z = z


class Box(Record):  # changes after it is made: not hashable
    __slots__ = ("items",)

    def __init__(self, items: list[int] | None = None) -> None:
        self.items = [] if items is None else items


@pytest.mark.parametrize(
    ("left", "right", "equal"),
    [
        (Point(1, 2), Point(1, 2), True),
        (Point(1, 2), Point(1, 3), False),
        (Point(1, 2), Point3(1, 2), False),  # another class, as a dataclass compares
        (Point(1, 2), (1, 2), False),
        (Point3(1, 2, 3), Point3(1, 2, 3), True),
        (Box([1]), Box([1]), True),
        (Position("a.yaml", 1, 2), Position("a.yaml", 1, 2), True),
        (Diagnostic("DRA001", Severity.ERROR, "m"), Diagnostic("DRA001", Severity.ERROR, "m", obj=ObjectRef()), True),
    ],
)
def test_equality_is_by_class_and_fields(left: object, right: object, equal: bool) -> None:
    assert (left == right) is equal
    assert (left != right) is not equal


def test_fields_come_from_the_slots_of_every_class() -> None:
    assert Point3._fields == ("x", "y", "z")
    assert repr(Point3(1, 2, 3)) == "Point3(x=1, y=2, z=3)"


def test_value_hash_hashes_by_fields_and_mutable_records_do_not_hash() -> None:
    assert hash(Point(1, 2)) == hash(Point(1, 2))
    assert len({Point(1, 2), Point(1, 2), Point(2, 1)}) == 2
    with pytest.raises(TypeError):
        hash(Box())
    with pytest.raises(TypeError):
        hash(LoadResult())


def test_positions_order_by_file_line_column() -> None:
    positions = [Position("b", 1, 1), Position("a", 2, 1), Position("a", 1, 9), Position("a", 1, 2)]
    assert sorted(positions) == [Position("a", 1, 2), Position("a", 1, 9), Position("a", 2, 1), Position("b", 1, 1)]
    assert Position("a", 1, 1) <= Position("a", 1, 1) < Position("a", 1, 2)


def test_replace_changes_some_fields_and_keeps_the_rest() -> None:
    d = Diagnostic("DRA001", Severity.ERROR, "m", field="spec")
    changed = replace(d, severity=Severity.WARNING)
    assert changed == Diagnostic("DRA001", Severity.WARNING, "m", field="spec")
    assert d.severity is Severity.ERROR


@pytest.mark.parametrize("value", [Point3(1, 2, 3), Diagnostic("DRA001", Severity.ERROR, "m", Position("f", 1, 2))])
def test_records_pickle(value: Record) -> None:
    """Parallel lint sends diagnostics between processes."""
    assert pickle.loads(pickle.dumps(value)) == value
