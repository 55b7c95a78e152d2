"""Validation never crashes, whatever the types in the data (the schema check reports those)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from dractl.api.defaults import apply_defaults
from dractl.api.releases import RELEASES, Features
from dractl.api.validation import check_create

CASES = Path(__file__).parents[1] / "conformance" / "validation"
ODD_VALUES: list[Any] = [None, -1, "x", True, 1.5, [1], {"a": 1}, [None]]


def _objects() -> list[dict[str, Any]]:
    out = []
    for path in sorted(CASES.glob("*.yaml")):
        if path.stat().st_size < 4000:
            out.append(list(YAML(typ="safe").load_all(path.read_text()))[1])
    return out


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if prefix:
        yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node[:1]):
            yield from _paths(value, (*prefix, i))


def _replaced(obj: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    node: Any = out
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return out


OBJECTS = _objects()


@pytest.mark.parametrize("obj", OBJECTS, ids=[f"{o['kind']}-{i}" for i, o in enumerate(OBJECTS)])
def test_any_field_of_any_type(obj: dict[str, Any]) -> None:
    features = [Features(release) for release in RELEASES]
    for n, path in enumerate(_paths(obj)):
        if path[0] in ("apiVersion", "kind"):
            continue
        for m, value in enumerate(ODD_VALUES):
            mutated = _replaced(obj, path, value)
            data = apply_defaults(obj["kind"], mutated)
            # every release sees every path, not every combination
            check_create(obj["kind"], data, features[(n + m) % len(features)])  # must not raise


def test_garbage_at_the_top() -> None:
    for kind in ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"):
        for value in ODD_VALUES:
            check_create(kind, {"metadata": value, "spec": value}, Features())
            check_create(
                kind, {"spec": {"spec": value, "devices": value, "metadata": value}}, Features()
            )
