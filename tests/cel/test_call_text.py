"""argument_ends: where a call's arguments end in the author's text."""

from __future__ import annotations

import pytest

from dractl.cel.call_text import argument_ends

ROWS = [
    # text, start (just after the call's "("), the ends
    ("f(a, b)", 2, [3, 6]),
    ("f()", 2, [2]),
    ("x.exists_one(k, v, v > 1) && true", 13, [14, 17, 24]),
    ("f([1, 2], {'a': 1, 'b': (2)}, g(3, 4))", 2, [8, 28, 37]),
    ('f("a, b)", \'c,\')', 2, [9, 15]),
    ('f("""x, "y")""", r"\\", 1)', 2, [15, 21, 24]),
    ("f(a, b", 2, [3, 6]),
    ('f(br"\\", 1)', 2, [7, 10]),
    ('f(r "\\", 1)', 2, [11]),  # not raw: the escaped quote leaves the string open
    ('f(bar, "\\"", 1)', 2, [5, 11, 14]),
]


@pytest.mark.parametrize(("text", "start", "ends"), ROWS, ids=[row[0] for row in ROWS])
def test_argument_ends(text: str, start: int, ends: list[int]) -> None:
    assert argument_ends(text, start) == ends
