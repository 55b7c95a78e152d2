"""Nodes are listed in natural order: node-2 before node-10, whatever the length of the number."""

from __future__ import annotations

import pytest

from dractl.explain.run import natural_key

LONG = "9" * 5000  # more digits than int() reads


@pytest.mark.parametrize(
    ("names", "ordered"),
    [
        (["node-10", "node-2", "node-1"], ["node-1", "node-2", "node-10"]),
        (["node-b", "node-10", "node-a"], ["node-10", "node-a", "node-b"]),  # numbers first
        (["gpu-1-b", "gpu-1-a", "gpu-01-c"], ["gpu-1-a", "gpu-1-b", "gpu-01-c"]),  # 01 is 1
        (["rack10-n2", "rack9-n10", "rack9-n9"], ["rack9-n9", "rack9-n10", "rack10-n2"]),
        ([f"n{LONG}", "n10", f"n{LONG[:-1]}"], ["n10", f"n{LONG[:-1]}", f"n{LONG}"]),
        (["n0", "n", "n00"], ["n", "n0", "n00"]),
    ],
)
def test_natural_order(names: list[str], ordered: list[str]) -> None:
    assert sorted(names, key=natural_key) == ordered
