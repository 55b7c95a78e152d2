"""``Omit(only=...)``: of a top-level field of some objects (a Node's ``status``), only the keys
named are read. A dump read item by item (YAML) or with the C decoder (JSON) gives the tree,
positions and diagnostics of reading it whole and then leaving the other keys out."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from dractl import synthetic
from dractl.load import LoadResult, Omit, load_text
from dractl.load.lists import omit_parts

ALLOCATABLE = Omit(metadata=frozenset({"managedFields"}),
                   only={("v1", "Node"): {"status": frozenset({"allocatable"})}})


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += _paths(value, (*path, index))
    return out


def _assert_same(text: str, name: str, omit: Omit = ALLOCATABLE) -> LoadResult:
    fast = load_text(text, name, comments=False, omit=omit)
    whole = load_text(text, name, comments=False)
    for obj in whole.objects:
        omit_parts(obj.raw, obj.api_version, obj.kind, omit)
    assert [(d.rule, d.message, str(d.position)) for d in fast.diagnostics] == [
        (d.rule, d.message, str(d.position)) for d in whole.diagnostics
    ]
    for mine, theirs in zip(fast.files[0].documents, whole.files[0].documents, strict=True):
        assert json.dumps(mine.raw) == json.dumps(theirs.raw)
        for path in _paths(theirs.raw):
            assert mine.position(path) == theirs.position(path), path
    return fast


def _dump(kubectl: str) -> str:
    out = io.StringIO()
    synthetic.write(synthetic.cluster(3, 2, 2, busy=True), out, kubectl)
    return out.getvalue()


@pytest.mark.parametrize("kubectl", ["yaml", "json"])
def test_a_dump_keeps_only_the_nodes_allocatable(kubectl: str) -> None:
    loaded = _assert_same(_dump(kubectl), f"dump.{kubectl}")
    nodes = [o for o in loaded.objects if o.kind == "Node"]
    assert nodes
    for node in nodes:
        assert list(node.raw["status"]) == ["allocatable"]
        assert node.raw["status"]["allocatable"]["pods"] == "110"
    claims = [o for o in loaded.objects if o.kind == "ResourceClaim" and "status" in o.raw]
    assert claims and all(len(c.raw["status"]) >= 1 for c in claims)  # other kinds keep theirs


def test_the_other_keys_are_not_read() -> None:
    """A syntax error in a Node's images is not found: its lines are never read."""
    text = _dump("yaml")
    broken = text.replace("      sizeBytes:", "      sizeBytes: [", 1)
    assert broken != text
    assert not load_text(broken, "dump.yaml", comments=False, omit=ALLOCATABLE).diagnostics
    assert load_text(broken, "dump.yaml", comments=False).diagnostics  # read whole: an error


def _node_list(status: str, first: bool = False) -> str:
    node = "  apiVersion: v1\n  kind: Node\n  metadata:\n    name: n\n"
    item = f"- status:{status}{node}" if first else f"- {node[2:]}  status:{status}"
    return f"apiVersion: v1\nitems:\n{item}- apiVersion: v1\n  kind: Pod\n  status:\n    phase: Running\nkind: List\n"


YAML_CASES = {
    "kubectl's layout": _node_list("\n    addresses:\n    - address: 10.0.0.1\n      type: InternalIP\n"
                                   "    allocatable:\n      cpu: \"4\"\n      pods: \"110\"\n"
                                   "    images:\n    - names:\n      - a\n      sizeBytes: 1\n"),
    "status first in the item": _node_list("\n    allocatable:\n      cpu: \"4\"\n    conditions: []\n", first=True),
    "no key of status stays: an empty mapping": _node_list("\n    images:\n    - names: [a]\n    nodeInfo:\n      x: 1\n"),
    "keys on one line": _node_list("\n    phase: Running\n    allocatable:\n      cpu: 1\n    config: {}\n"),
    "a quoted key": _node_list("\n    \"images\":\n    - a\n    allocatable:\n      cpu: 1\n"),
    "a flow mapping": _node_list(" {allocatable: {cpu: 1}, images: [a]}\n"),
    "no status at all": _node_list(" null\n"),
    "comments and blank lines": _node_list("\n    # images\n    images:\n\n    - a\n  # end\n    allocatable:\n      cpu: 1\n"),
    "CRLF line ends": _node_list("\n    images:\n    - a\n    allocatable:\n      cpu: 1\n").replace("\n", "\r\n"),
    "the kept key on one line": _node_list("\n    addresses: []\n    allocatable: {cpu: 1}\n    images:\n    - a\n"),
    "a key that only starts like the kept one": _node_list("\n    allocatableX:\n      a: 1\n    allocatable:\n      cpu: 1\n"),
    "an anchor in a key left out": _node_list("\n    images: &i\n    - a\n    allocatable:\n      x: *i\n"),
}


@pytest.mark.parametrize("text", YAML_CASES.values(), ids=YAML_CASES.keys())
def test_lists_read_as_read_whole(text: str) -> None:
    _assert_same(text, "list.yaml")


def test_a_json_list_keeps_only_allocatable() -> None:
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
         "status": {"allocatable": {"cpu": "1"}, "images": [{"names": ["a"]}]}}]})
    loaded = _assert_same(text, "dump.json")
    assert loaded.objects[0].raw["status"] == {"allocatable": {"cpu": "1"}}


OMIT_PARTS_CASES: dict[str, tuple[Omit, dict[str, Any], dict[str, Any]]] = {
    "keeps the keys named": (ALLOCATABLE, {"status": {"allocatable": 1, "images": 2}}, {"status": {"allocatable": 1}}),
    "a field not a mapping stays": (ALLOCATABLE, {"status": [1]}, {"status": [1]}),
    "fields wins over only": (
        Omit(fields={("v1", "Node"): frozenset({"status"})}, only={("v1", "Node"): {"status": frozenset({"allocatable"})}}),
        {"status": {"allocatable": 1}}, {}),
    "existing users: fields alone": (Omit(fields={("v1", "Node"): frozenset({"status"})}), {"status": {"a": 1}}, {}),
}


@pytest.mark.parametrize(("omit", "raw", "expected"), OMIT_PARTS_CASES.values(), ids=OMIT_PARTS_CASES.keys())
def test_omit_parts(omit: Omit, raw: dict[str, Any], expected: dict[str, Any]) -> None:
    omit_parts(raw, "v1", "Node", omit)
    assert raw == expected
