"""Upstream's selector conformance table (dynamic-resource-allocation cel/compile_test.go).

The rows are data ported from the upstream test at v0.34.9 (Kubernetes 1.34), v0.36.2 (1.36)
and the rows only HEAD has; each runs on the release it was written for, with the environment
flavour (stored/new), feature gates and device of the row, and checks compile error, cost,
runtime error and result exactly as the upstream test does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dractl.cel import CelCompileError, CelDevice, CelRuntimeError, compile_selector
from dractl.cel.engines import DEFAULT_ENGINE, FALLBACK_ENGINE

DATA = Path(__file__).parent / "data"
TABLES = {
    "compile_test_v0_34_9.json": "1.34",
    "compile_test_v0_36_2.json": "1.36",
    "compile_test_HEAD.json": "1.36",
}


def _rows() -> list[Any]:
    params = []
    for file_name, release in TABLES.items():
        table = json.loads((DATA / file_name).read_text())
        for row in table["cases"]:
            list_types = row.get("list_type_attributes")
            if release == "1.34":
                variants = [False]
            elif file_name.endswith("HEAD.json") and list_types is None:
                # HEAD converts list attributes even with the gate off (1.37 behaviour); in 1.36
                # only the gate-on run describes the same thing.
                variants = [True]
            else:
                variants = [list_types] if list_types is not None else [False, True]
            for variant in variants:
                label = f"{table['source'].split('@ ')[1].split(' ')[0]}-{row['name']}-list={variant}"
                params.append(pytest.param(release, row, variant, id=label))
    return params


def run_row(release: str, row: dict[str, Any], list_types: bool, engine: str) -> None:
    gates = {
        "DRAConsumableCapacity": row.get("consumable_capacity", False),
        "DRAListTypeAttributes": list_types,
    }
    purpose = row.get("purpose", "stored")
    try:
        selector = compile_selector(row["expression"], release=release, gates=gates, purpose=purpose, engine=engine)
    except CelCompileError as exc:
        assert row.get("expectCompileError"), f"unexpected compile error: {exc.detail}"
        assert row["expectCompileError"] in exc.detail
        return
    assert not row.get("expectCompileError"), f"expected compile error {row['expectCompileError']!r}"
    if selector.cost is not None:
        assert selector.cost == row.get("expectCost", 0)
    device = CelDevice(
        driver=row.get("driver", ""),
        attributes=row.get("attributes"),
        capacity=row.get("capacity"),
        allow_multiple_allocations=row.get("allow_multiple_allocations"),
    )
    try:
        matched = selector.evaluate(device)
    except CelRuntimeError as exc:
        assert row.get("expectMatchError"), f"unexpected runtime error: {exc.message}"
        assert row["expectMatchError"] in exc.message
        return
    assert not row.get("expectMatchError"), f"expected runtime error {row['expectMatchError']!r}"
    assert matched is row["expectMatch"]


@pytest.mark.parametrize(("release", "row", "list_types"), _rows())
def test_upstream_conformance_default_engine(release: str, row: dict[str, Any], list_types: bool) -> None:
    run_row(release, row, list_types, DEFAULT_ENGINE)


@pytest.mark.parametrize(("release", "row", "list_types"), _rows())
def test_upstream_conformance_fallback_engine(release: str, row: dict[str, Any], list_types: bool) -> None:
    run_row(release, row, list_types, FALLBACK_ENGINE)
