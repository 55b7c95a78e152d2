"""The round-trip tree is copied for a rewrite as ``copy.deepcopy`` copies it, in linear time:
each list's attributes (its comments, the positions of its items) once, not once per item."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from ruamel.yaml.comments import CommentedBase

from dractl.convert.apply import _copy_tree
from dractl.load import load_text

TEXT = """\
apiVersion: resource.k8s.io/v1beta1   # deprecated
kind: ResourceSlice
metadata: {name: s, labels: &l {a: b}}
spec:
  devices:
  - basic:
      attributes:
{items}
  - {name: d1, labels: *l}   # an alias
"""


def tree(count: int) -> Any:
    items = "\n".join(f"      - yes   # {i}" for i in range(count))
    (document,) = load_text(TEXT.replace("{items}", items), "s.yaml").files[0].documents
    return document.raw


def test_the_same_copy_as_deepcopy() -> None:
    original = tree(20)
    copied = _copy_tree(original, {})
    expected = copy.deepcopy(original)
    assert copied == expected and copied is not original
    seq = copied["spec"]["devices"][0]["basic"]["attributes"]
    assert seq.ca.items == expected["spec"]["devices"][0]["basic"]["attributes"].ca.items
    assert seq.lc.data == expected["spec"]["devices"][0]["basic"]["attributes"].lc.data
    # an alias stays one object in the copy, as in the tree
    assert copied["spec"]["devices"][1]["labels"] is copied["metadata"]["labels"]


@pytest.mark.parametrize("count", [10, 1000])
def test_attributes_are_copied_once_per_container(
    monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    calls: list[int] = []
    original_copy = CommentedBase.copy_attributes

    def counting(self: Any, target: Any, memo: Any = None) -> Any:
        calls.append(id(self))
        return original_copy(self, target, memo)

    monkeypatch.setattr(CommentedBase, "copy_attributes", counting)
    _copy_tree(tree(count), {})
    assert len(calls) == len(set(calls)) < 20  # a handful of mappings and lists, whatever count
