"""``dractl.report.json.dumps`` writes exactly what ``json.dumps(data, indent=2)`` writes, through
orjson where the two agree and through json where they do not (and for small data)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

import dractl.report.json
from dractl.load import load_text
from dractl.report.json import dumps


@pytest.fixture(autouse=True, params=["orjson for any size", "orjson for large data only"])
def threshold(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.param == "orjson for any size":
        monkeypatch.setattr(dractl.report.json, "_ORJSON_FROM", 0)

CASES: list[tuple[str, Any]] = [
    ("nested, empty containers", {"a": [1, {}, [], {"b": None}], "c": {"d": [True, False]}}),
    ("escapes json and orjson share", {"s": 'quote " backslash \\ slash / tab \t newline \n \x1f'}),
    ("DEL, which json escapes", {"s": "a\x7fb"}),
    ("beyond ASCII, which json escapes", {"s": "naïve ✓ \U0001f600"}),
    ("floats written alike", {"f": [1.5, 0.1, 2.0, -3.25]}),
    ("floats with exponents", {"f": [1e16, 1e-07, 123456789012345678.0]}),
    ("not finite floats", {"f": [math.inf, -math.inf]}),
    ("64-bit integers", {"i": [2**63 - 1, -(2**63), 2**53 + 1]}),
    ("integers beyond 64 bits", {"i": 2**70}),
    ("keys that are not strings", {1: "one", False: "no", None: "none"}),
    ("a tuple", {"t": (1, "two")}),
    ("top-level list", [1, "a", {"b": []}]),
]


@pytest.mark.parametrize(("name", "data"), CASES, ids=[c[0] for c in CASES])
def test_dumps_writes_what_json_writes(name: str, data: Any) -> None:
    assert dumps(data) == json.dumps(data, indent=2)


def test_trees_read_with_positions_are_written_as_plain_data() -> None:
    loaded = load_text("kind: A\nmetadata:\n  name: a\nlist: [1, {b: c}]\n", comments=False)
    tree = loaded.files[0].documents[0].raw
    assert hasattr(tree, "lc")  # the fast reader's tree, with its marks
    assert dumps(tree) == json.dumps(tree, indent=2)


def test_large_data_is_written_alike() -> None:
    data = {"nodes": [{"name": f"node-{n}", "ok": n % 2 == 0, "devices": [n, None, "x"]} for n in range(5000)]}
    assert dumps(data) == json.dumps(data, indent=2)
    data["nodes"][-1]["ratio"] = 1e-07
    assert dumps(data) == json.dumps(data, indent=2)


def test_what_neither_writes_raises_as_json_does() -> None:
    with pytest.raises(TypeError):
        dumps({"a": object()})
