"""Conversions of values whose type only the run time knows (a dyn list element): cel-go's
overloads, its names of the argument types in ``no such overload``, and ``string()`` of a
duration as Go writes it. Expected answers are upstream's (Kubernetes 1.36, StoredExpressions,
DRAListTypeAttributes on) on the device of test_cel_expr_fallback; both engines must give them.
"""

from __future__ import annotations

import pytest

from dractl.cel.engines import ENGINES, engine_available
from tests.cel.test_cel_expr_fallback import answer_on_the_device

ROWS: list[tuple[str, object]] = [
    ("[dyn(duration('1s'))].map(v, int(v)).size() == 1", True),
    ("[dyn(duration('1.5s'))].all(v, int(v) == 1500000000)", True),
    ("[dyn(duration('1s'))].all(v, double(v) == double(v))", ('runtime', 'no such overload: double(google.protobuf.Duration)')),
    ('[dyn(timestamp(0))].all(v, bool(v) == bool(v))', ('runtime', 'no such overload: bool(google.protobuf.Timestamp)')),
    ("[dyn(duration('1.5s'))].all(v, string(v) == '1.5s')", True),
    ('[dyn(true)].all(v, int(v) == 1)', ('runtime', 'no such overload: int(bool)')),
    ("[dyn(b'a')].all(v, int(v) == 1)", ('runtime', 'no such overload: int(bytes)')),
    ("[dyn(1)].all(v, duration(v) == duration('1s'))", ('runtime', "type conversion error from 'int' to 'google.protobuf.Duration'")),
    ('[dyn(timestamp(5))].all(v, int(v) == 5)', True),
    ("[dyn(b'a')].all(v, bytes(v) == b'a')", True),
    ("[dyn('a')].all(v, bytes(v) == b'a')", True),
]


@pytest.mark.parametrize("engine", [e for e in ENGINES if engine_available(e)])
@pytest.mark.parametrize(("expression", "expected"), ROWS, ids=[row[0] for row in ROWS])
def test_conversion_of_a_dyn_value_is_upstreams(engine: str, expression: str, expected: object) -> None:
    assert answer_on_the_device(expression, engine) == expected
