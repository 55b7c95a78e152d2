"""Cluster dumps read item by item (YAML, :mod:`dractl.load.lists`) and JSON read with the C
decoder (:mod:`dractl.load.json_fast`) give the trees, values, positions, YAML 1.1 notes and
diagnostics of reading the whole document, less the omitted parts."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import pytest

from dractl import synthetic
from dractl.load import LoadResult, Omit, load_text
from dractl.load.lists import omit_parts

ROOT = Path(__file__).resolve().parents[2]
OMIT = Omit(metadata=frozenset({"managedFields"}), fields={("v1", "Node"): frozenset({"status"})})
NOTHING = Omit()


def _typed(value: Any) -> Any:
    if isinstance(value, dict):
        return ("map", [(_typed(k), _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("seq", [_typed(v) for v in value])
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else repr(value))
    return (type(value).__name__, value)


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += _paths(value, (*path, index))
    return out


def _whole(text: str, name: str, omit: Omit) -> LoadResult:
    """The reference: every document read whole, then the omitted parts removed."""
    loaded = load_text(text, name, comments=False)
    for obj in loaded.objects:
        omit_parts(obj.raw, obj.api_version, obj.kind, omit)
    return loaded


def _assert_same(text: str, name: str, omit: Omit = OMIT) -> LoadResult:
    fast = load_text(text, name, comments=False, omit=omit)
    whole = _whole(text, name, omit)
    assert [(d.rule, d.message, str(d.position)) for d in fast.diagnostics] == [
        (d.rule, d.message, str(d.position)) for d in whole.diagnostics
    ]
    assert [(o.api_version, o.kind, o.base) for o in fast.objects] == [
        (o.api_version, o.kind, o.base) for o in whole.objects
    ]
    for mine, theirs in zip(fast.files[0].documents, whole.files[0].documents, strict=True):
        assert _typed(mine.raw) == _typed(theirs.raw)
        assert mine.yaml11 == theirs.yaml11
        for path in _paths(theirs.raw):
            assert mine.position(path) == theirs.position(path), path
            parent = theirs.marked_node(path)
            if isinstance(parent, dict):
                for key in parent:
                    assert mine.marked_node(path).lc.key(key) == parent.lc.key(key), (path, key)
    return fast


def _dump(kubectl: str | None, nodes: int = 4, network: int = 3, busy: bool = True) -> str:
    out = io.StringIO()
    synthetic.write(synthetic.cluster(nodes, 2, network, busy=busy), out, kubectl)
    return out.getvalue()


@pytest.mark.parametrize("kubectl", ["yaml", "json"])
@pytest.mark.parametrize("omit", [OMIT, NOTHING], ids=["omitted", "whole"])
def test_a_synthetic_dump_reads_as_read_whole(kubectl: str, omit: Omit) -> None:
    loaded = _assert_same(_dump(kubectl), f"dump.{kubectl}", omit)
    node = next(o for o in loaded.objects if o.kind == "Node")
    assert ("status" in node.raw) is (omit is NOTHING)
    assert ("managedFields" in node.raw["metadata"]) is (omit is NOTHING)


def test_a_kubectl_dump_reads_as_read_whole() -> None:
    path = ROOT / "tests" / "explain" / "data" / "kubectl-dump.yaml"
    _assert_same(path.read_text(), str(path))


def test_the_dump_as_json_reads_as_read_whole() -> None:
    path = ROOT / "tests" / "explain" / "data" / "kubectl-dump.yaml"
    from dractl.load import load_paths

    raw = load_paths([str(path)], comments=False).files[0].documents[0].raw
    for indent in (None, 2, 4):
        _assert_same(json.dumps(raw, indent=indent), "dump.json")


def test_the_omitted_parts_are_not_read() -> None:
    """What the dump's items say in their managedFields is not read, not even a syntax error."""
    text = _dump("yaml").replace("      fieldsType: FieldsV1\n", "      fieldsType: [FieldsV1\n", 1)
    assert text != _dump("yaml")
    fast = load_text(text, "dump.yaml", comments=False, omit=OMIT)
    assert not fast.diagnostics and fast.objects
    assert load_text(text, "dump.yaml", comments=False).diagnostics  # read whole: an error


YAML_CASES = {
    "a comment and blank lines between items": "apiVersion: v1\nitems:\n- kind: A\n  apiVersion: v1\n# c\n\n- kind: B\n  apiVersion: v1\nkind: List\n",
    "YAML 1.1 scalars in items": "apiVersion: v1\nitems:\n- kind: A\n  apiVersion: v1\n  metadata:\n    name: a\n    labels: {x: yes, y: 0x1F, z: 010}\nkind: List\n",
    "a top-level key after the items is kept": "apiVersion: v1\nitems:\n- kind: A\n  apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\n",
    "kind before the items": "apiVersion: v1\nkind: List\nitems:\n- kind: A\n  apiVersion: v1\n",
    "a typed list": "apiVersion: v1\nkind: NodeList\nitems:\n- metadata:\n    name: n\n  status:\n    phase: x\n",
    "not a list: items are not objects": "apiVersion: v1\nkind: Thing\nitems:\n- metadata:\n    managedFields: []\n",
    "a duplicate key in an item": "apiVersion: v1\nitems:\n- kind: A\n  kind: B\n  apiVersion: v1\nkind: List\n",
    "a syntax error in an item": "apiVersion: v1\nitems:\n- kind: [A\n  apiVersion: v1\nkind: List\n",
    "an alias across items": "apiVersion: v1\nitems:\n- kind: &k A\n  apiVersion: v1\n- kind: *k\n  apiVersion: v1\nkind: List\n",
    "an empty list": "apiVersion: v1\nitems: []\nkind: List\n",
    "CRLF line ends": "apiVersion: v1\r\nitems:\r\n- kind: Node\r\n  apiVersion: v1\r\n  metadata:\r\n    managedFields:\r\n    - a: 1\r\n\r\n    name: n\r\n  status:\r\n    x: 1\r\nkind: List\r\n",
    "managedFields last in metadata": "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n\n    managedFields:\n    - manager: m\n      fieldsV1:\n        f:x: {}\n  spec: {}\nkind: List\n",
    "an item after the end": "apiVersion: v1\nitems:\n- kind: A\n  apiVersion: v1\nkind: List\n- kind: B\n",
}


@pytest.mark.parametrize("text", YAML_CASES.values(), ids=YAML_CASES.keys())
def test_lists_read_as_read_whole(text: str) -> None:
    _assert_same(text, "list.yaml")


JSON_CASES = {
    "numbers as the YAML reader resolves them": '{"kind": "A", "metadata": {"name": "a"}, "n": [1, -0, 1.5, 1e5, 1E-3, 2.0, 12345678901234567890123]}',
    "escapes": '{"kind": "A", "s": "a\\/b\\n\\u00e9\\t"}',
    "a duplicate key": '{"kind": "A", "kind": "B"}',
    "NaN": '{"kind": "A", "n": NaN}',
    "a surrogate escape": '{"kind": "A", "s": "\\ud83d\\ude00"}',
    "a tab": '{\n\t"kind": "A"\n}',
    "a list of objects": '[{"kind": "A", "apiVersion": "v1"}]',
    "no object": '{"compilerOptions": {"strict": true}}',
    "trailing text": '{"kind": "A"} x',
    "a List whose kind follows its items": '{"apiVersion": "v1", "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "managedFields": [{"a": 1}]}, "status": {"x": 1}}], "kind": "List"}',
    "not a list: items are not objects": '{"apiVersion": "v1", "items": [{"metadata": {"managedFields": []}}], "kind": "Thing"}',
}


@pytest.mark.parametrize("text", JSON_CASES.values(), ids=JSON_CASES.keys())
def test_json_reads_as_read_by_the_yaml_reader(text: str) -> None:
    _assert_same(text, "file.json")
