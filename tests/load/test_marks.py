"""The libyaml reader's compact marks (:mod:`dractl.load.fast`): every key, value and item keeps
its position through what is done to a tree after reading (keys removed, values put in), and a
large mapping answers every question without a search per question."""

from __future__ import annotations

import copy

import pytest

from dractl.load.fast import (
    MarkedDict,
    MarkedList,
    keep_key_order,
    load_fast,
    marked_list,
    set_value_position,
)

TEXT = """\
apiVersion: v1
kind: Node
metadata:
  name: node-1
  managedFields: [{manager: kubelet}]
  labels: {zone: a, rack: "7"}
status:
  capacity: {cpu: "8"}
  allocatable:
    cpu: "8"
    memory: 64Gi
items:
- one
- {two: 2}
"""


def tree() -> MarkedDict:
    read = load_fast(TEXT)
    assert read is not None and isinstance(read.tree, MarkedDict)
    return read.tree


@pytest.mark.parametrize(
    ("path", "key", "at"),
    [
        ((), "apiVersion", ((0, 0), (0, 12))),
        ((), "metadata", ((2, 0), (3, 2))),
        (("metadata",), "name", ((3, 2), (3, 8))),
        (("metadata",), "labels", ((5, 2), (5, 10))),
        (("metadata", "labels"), "rack", ((5, 20), (5, 26))),
        (("status", "allocatable"), "memory", ((10, 4), (10, 12))),
    ],
)
def test_keys_and_values(
    path: tuple[str, ...], key: str, at: tuple[tuple[int, int], tuple[int, int]]
) -> None:
    node = tree()
    for part in path:
        node = node[part]
    assert (node.lc.key(key), node.lc.value(key)) == at


def test_items_and_collections() -> None:
    items = tree()["items"]
    assert isinstance(items, MarkedList)
    assert (items.lc.line, items.lc.col) == (12, 0)
    assert [items.lc.item(i) for i in range(2)] == [(12, 2), (13, 2)]
    assert items.lc.item(-1) == (13, 2)  # as a list indexes
    for index in (2, -3):
        with pytest.raises(KeyError):
            items.lc.item(index)
    with pytest.raises(KeyError):
        tree().lc.key("spec")


def test_a_removed_key_moves_no_other_mark() -> None:
    node = tree()
    metadata = node["metadata"]
    before = {key: (metadata.lc.key(key), metadata.lc.value(key)) for key in ("name", "labels")}
    keep_key_order(metadata)
    del metadata["managedFields"]
    keep_key_order(node)
    del node["status"]
    assert {
        key: (metadata.lc.key(key), metadata.lc.value(key)) for key in ("name", "labels")
    } == before
    assert node.lc.key("items") == (11, 0)


def test_a_key_put_in_after_reading_has_no_mark_of_its_own() -> None:
    metadata = tree()["metadata"]
    metadata["namespace"] = "default"  # added at the end: the others keep theirs
    assert metadata.lc.key("labels") == (5, 2)
    with pytest.raises(KeyError):
        metadata.lc.key("namespace")


def test_values_and_sequences_made_after_reading() -> None:
    node = tree()
    node["items"] = marked_list(["a", "b"], 20, 0, [(20, 2), (21, 2)])
    set_value_position(node, "items", 20, 0)
    assert node.lc.key("items") == (11, 0) and node.lc.value("items") == (20, 0)
    assert node["items"].lc.item(1) == (21, 2)
    assert node.lc.value("kind") == (1, 6)  # the others as they were


@pytest.mark.parametrize("count", [3, 17, 2_000])
def test_a_large_mapping_answers_every_key(count: int) -> None:
    read = load_fast("".join(f"key-{i}: {i}\n" for i in range(count)))
    assert read is not None
    mapping = read.tree
    assert [mapping.lc.key(f"key-{i}") for i in range(count)] == [(i, 0) for i in range(count)]
    assert [mapping.lc.value(f"key-{i}") for i in range(count)] == [
        (i, len(f"key-{i}: ")) for i in range(count)
    ]
    with pytest.raises(KeyError):
        mapping.lc.key("key-x")


def test_positions_of_a_part_read_from_a_line() -> None:
    read = load_fast("a: [1, {b: 2}]\n", line_offset=41)
    assert read is not None
    assert read.tree.lc.value("a") == (41, 3)
    assert read.tree["a"][1].lc.key("b") == (41, 8)


def test_a_copy_is_plain_data() -> None:
    copied = copy.deepcopy(tree())
    assert type(copied) is dict and type(copied["items"]) is list
    assert copied == tree()
