"""The Kubernetes CEL library in the default engine, row by row as upstream answers.

Each row: an expression, the answer of the unmodified upstream compiler and evaluator on
``DEVICE`` (true/false, ``("error", message)`` for a runtime error, ``("compile", first line)``
for a compile error) and upstream's estimated cost (None where it does not compile or the
estimate saturates). The environment is NewExpressions, as the apiserver validates a new selector.
"""

from __future__ import annotations

import pytest

from dractl.cel import CelCompileError, CelDevice, CelRuntimeError, compile_selector
from dractl.cel.cost import UINT64_MAX
from dractl.cel.engines import DEFAULT_ENGINE, engine_available

pytestmark = pytest.mark.skipif(not engine_available(DEFAULT_ENGINE), reason="cel-expr-python not installed")

GATES = {"DRAConsumableCapacity": True}
DEVICE = CelDevice(
    driver="gpu.example.com",
    attributes={
        "model": {"string": "A100"},
        "cores": {"int": 108},
        "big": {"int": 9223372036854775807},
        "ok": {"bool": True},
        "driverVersion": {"version": "1.2.3"},
        "uni": {"string": "héllo wörld ☃"},
        "other.example.com/numa": {"int": 1},
    },
    capacity={
        "memory": {"value": "40Gi"},
        "milli": {"value": "1000m"},
        "frac": {"value": "1.5Gi"},
        "huge": {"value": "9223372036854775807"},
        "tiny": {"value": "1n"},
    },
)

ROWS_1_36: list[tuple[str, object, int | None]] = [
    ('[1,1,2].distinct() == [1,2]', True, 50),
    ('[1,2].reverse() == [2,1]', True, 34),
    ('[[1],[2,[3]]].flatten() == [1,2,[3]]', ('compile', "ERROR: <input>:1:6: expected type 'list(int)' but found 'list(dyn)'"), None),
    ('[[1],[2,[3]]].flatten(2) == [1,2,3]', ('compile', "ERROR: <input>:1:6: expected type 'list(int)' but found 'list(dyn)'"), None),
    ('[1,2,3].slice(1,2) == [2]', True, 33),
    ('[1,2,3].slice(2,1) == [2]', ('error', 'cannot slice(2, 1), start index must be less than or equal to end index'), None),
    ('[3,1,2].sort() == [1,2,3]', True, 50),
    ('["b","a"].sortBy(x, x) == ["a","b"]', True, 90),
    ('[1,2].first().value() == 1', True, 13),
    ('[1,2].last().value() == 2', True, 13),
    ('lists.range(3) == [0,1,2]', True, 25),
    ('[1,2].all(i, v, v > i)', True, 23),
    ('[1,2].exists(i, v, i == 1 && v == 2)', True, 27),
    ('[1,2].existsOne(i, v, v == 2)', True, 20),
    ('{"a": 1, "b": 2}.exists(k, v, k == "b" && v == 2)', True, 47),
    ('[1,2].transformList(i, v, v * 2) == [2,4]', True, 60),
    ('[1,2].transformList(i, v, v > 1, v * 2) == [4]', True, 64),
    ('{"a": 1}.transformMap(k, v, v + 1) == {"a": 2}', True, 97),
    ('{"a": 1}.transformMap(k, v, v > 5, v + 1) == {}', True, 98),
    ('{"a": 1}.transformMapEntry(k, v, {v: k}) == {1: "a"}', True, 126),
    ('[1,2].transformMapEntry(i, v, {string(v): i}) == {"1": 0, "2": 1}', True, 142),
    ('device.attributes["gpu.example.com"].all(k, v, k != "")', True, 132),
    ('sets.contains([1,2],[1])', True, 23),
    ('sets.equivalent([1,2],[2,1])', True, 29),
    ('sets.intersects([1,2],[3])', False, 23),
]

# Libraries introduced after a release's compatibility version are not declared for new
# expressions of that release (1.34: compatibility version 1.33, before cel-go's list extension).
ROWS_1_34: list[tuple[str, object]] = [
    ('[1,1,2].distinct() == [1,2]', ('compile', "ERROR: <input>:1:17: undeclared reference to 'distinct' (in container '')")),
    ('[1,2].reverse() == [2,1]', ('compile', "ERROR: <input>:1:14: undeclared reference to 'reverse' (in container '')")),
    ('[[1],[2,[3]]].flatten() == [1,2,[3]]', ('compile', "ERROR: <input>:1:22: undeclared reference to 'flatten' (in container '')")),
    ('[[1],[2,[3]]].flatten(2) == [1,2,3]', ('compile', "ERROR: <input>:1:22: undeclared reference to 'flatten' (in container '')")),
    ('[1,2,3].slice(1,2) == [2]', ('compile', "ERROR: <input>:1:14: undeclared reference to 'slice' (in container '')")),
    ('[1,2,3].slice(2,1) == [2]', ('compile', "ERROR: <input>:1:14: undeclared reference to 'slice' (in container '')")),
    ('[3,1,2].sort() == [1,2,3]', ('compile', "ERROR: <input>:1:13: undeclared reference to 'sort' (in container '')")),
    ('["b","a"].sortBy(x, x) == ["a","b"]', ('compile', "ERROR: <input>:1:17: undeclared reference to 'sortBy' (in container '')")),
    ('lists.range(3) == [0,1,2]', ('compile', "ERROR: <input>:1:1: undeclared reference to 'lists' (in container '')")),
]


def answer(expression: str, release: str) -> tuple[object, int | None]:
    try:
        selector = compile_selector(expression, release=release, gates=GATES, engine=DEFAULT_ENGINE)
    except CelCompileError as exc:
        return ("compile", str(exc).removeprefix("compilation failed: ").split("\n")[0]), None
    cost = None if selector.cost == UINT64_MAX else selector.cost
    try:
        return selector.evaluate(DEVICE), cost
    except CelRuntimeError as exc:
        return ("error", str(exc)), cost


@pytest.mark.parametrize(("expression", "expected", "cost"), ROWS_1_36, ids=[row[0] for row in ROWS_1_36])
def test_upstream_answer(expression: str, expected: object, cost: int | None) -> None:
    got, got_cost = answer(expression, "1.36")
    assert got == expected
    if not isinstance(expected, tuple) or expected[0] != "compile":
        assert got_cost == cost


@pytest.mark.parametrize(("expression", "expected"), ROWS_1_34, ids=[row[0] for row in ROWS_1_34])
def test_not_in_older_release(expression: str, expected: object) -> None:
    assert answer(expression, "1.34")[0] == expected
