"""Inputs: Lists, JSON, stdin, folders, YAML 1.1 scalars, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dractl.load import Limits, load_paths, load_text

CLASS = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: {name}\n"


def test_kind_list_items_are_objects_with_positions() -> None:
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- apiVersion: resource.k8s.io/v1\n  kind: DeviceClass\n  metadata: {name: a}\n"
        "- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n"
    )
    loaded = load_text(text, "dump.yaml")
    assert [(o.kind, o.name) for o in loaded.objects] == [("DeviceClass", "a"), ("Node", "n1")]
    assert loaded.objects[1].position(("metadata", "name")).line == 9


def test_typed_list_items_inherit_kind_and_version() -> None:
    text = (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSliceList\nitems:\n"
        "- metadata: {name: s1}\n  spec: {driver: d}\n"
    )
    (obj,) = load_text(text, "s.yaml").objects
    assert (obj.api_version, obj.kind, obj.name) == ("resource.k8s.io/v1", "ResourceSlice", "s1")


def test_json_input_keeps_positions() -> None:
    text = json.dumps(
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "x"}},
        indent=2,
    )
    (obj,) = load_text(text, "c.json").objects
    assert obj.name == "x"
    assert obj.position(("metadata", "name")).line == 5


def test_folder_walk_and_stdin(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.yaml").write_text(CLASS.format(name="a"))
    (tmp_path / "sub" / "b.yml").write_text(CLASS.format(name="b"))
    (tmp_path / "notes.txt").write_text("not yaml: [")
    loaded = load_paths([str(tmp_path), "-"], stdin=CLASS.format(name="c").encode())
    assert sorted(o.name for o in loaded.objects) == ["a", "b", "c"]
    assert loaded.objects[-1].document.file.path == "<stdin>"


def test_missing_path_is_a_usage_error() -> None:
    from dractl.errors import InputError

    with pytest.raises(InputError, match="no such file"):
        load_paths(["does/not/exist.yaml"])


def test_syntax_error_does_not_hide_other_documents() -> None:
    text = CLASS.format(name="a") + "---\nkind: [\n---\n" + CLASS.format(name="c")
    loaded = load_text(text, "x.yaml")
    assert [o.name for o in loaded.objects] == ["a", "c"]
    (problem,) = loaded.diagnostics
    assert problem.rule == "DRA001"
    assert problem.position is not None and problem.position.line in (6, 7)
    assert loaded.failed


def test_duplicate_keys_are_errors_with_position() -> None:
    loaded = load_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n", "p.yaml")
    (problem,) = loaded.diagnostics
    assert problem.rule == "DRA002"
    assert 'duplicate key "name"' in problem.message
    assert problem.position is not None and problem.position.line == 5


def test_templates_are_skipped_with_a_notice() -> None:
    loaded = load_text("metadata:\n  name: {{ .Values.name }}\n", "t.yaml")
    (problem,) = loaded.diagnostics
    assert problem.rule == "DRA003"
    assert "render it first" in problem.message
    assert loaded.objects == []


def test_document_without_kind() -> None:
    loaded = load_text("apiVersion: v1\nmetadata: {name: a}\n", "k.yaml")
    (problem,) = loaded.diagnostics
    assert (problem.rule, problem.message) == (
        "DRA004",
        "not a Kubernetes object: kind is missing or not a string",
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("y", True),
        ("Y", True),
        ("yes", True),
        ("Yes", True),
        ("YES", True),
        ("on", True),
        ("ON", True),
        ("n", False),
        ("No", False),
        ("off", False),
        ("OFF", False),
        ("true", True),
        ("'yes'", "yes"),
        ('"on"', "on"),
        ("010", 8),
        ("0x1F", 31),
        ("0o17", 15),
        ("0b101", 5),
        ("1_000", 1000),
        ("2001-12-14", "2001-12-14"),
        ("1:30", "1:30"),
        ("~", None),
        ("null", None),
        ("yEs", "yEs"),
        ("1.5", 1.5),
        ("1e3", 1000.0),
        (".5", 0.5),
        ("08", 8.0),
        # go-yaml keeps 64 bits; beyond, a float if it reads as one, else the string itself
        ("9223372036854775807", 2**63 - 1),
        ("18446744073709551615", 2**64 - 1),
        ("-9223372036854775808", -(2**63)),
        ("18446744073709551616", float(2**64)),
        ("-9223372036854775809", -float(2**63)),
        ("1" + "0" * 30, 1e30),
        ("9" * 400, "9" * 400),
        ("9" * 5000, "9" * 5000),  # past Python's 4,300-digit limit for int()
        ("0x" + "f" * 17, "0x" + "f" * 17),
        ("0" * 400 + "17", 15),  # octal with leading zeros is still 64 bits
    ],
)
def test_scalars_resolve_as_kubectl_does(text: str, expected: object) -> None:
    from dractl.api.model import plain

    loaded = load_text(f"apiVersion: v1\nkind: ConfigMap\ndata:\n  k: {text}\n", "cm.yaml")
    value = plain(loaded.objects[0].raw)["data"]["k"]
    assert value == expected and type(value) is type(expected)


def test_yaml11_scalars_are_recorded_with_their_text() -> None:
    loaded = load_text(
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: on\n  b: 'on'\n  c: 010\n", "cm.yaml"
    )
    assert loaded.files[0].documents[0].yaml11 == {(4, 6): "on", (6, 6): "010"}


def test_python_tags_never_construct_objects() -> None:
    loaded = load_text("a: !!python/object/apply:os.system ['echo hi']\n", "evil.yaml")
    raw = loaded.files[0].documents[0].raw
    assert raw is None or not callable(raw.get("a"))


def test_alias_bomb_is_rejected_quickly() -> None:
    import time

    lines = ["kind: Bomb", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]")
    start = time.monotonic()
    loaded = load_text("\n".join(lines) + "\n", "bomb.yaml")
    assert time.monotonic() - start < 1.0
    (problem,) = loaded.diagnostics
    assert problem.rule == "DRA005" and "alias" in problem.message


def test_nesting_depth_is_limited() -> None:
    text = "kind: Deep\na: " + "[" * 300 + "]" * 300 + "\n"
    loaded = load_text(text, "deep.yaml", limits=Limits(max_depth=50))
    (problem,) = loaded.diagnostics
    assert problem.rule == "DRA005" and "nesting" in problem.message


def test_file_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("a: " + "x" * 2000 + "\n")
    loaded = load_paths([str(path)], limits=Limits(max_file_bytes=1000))
    assert loaded.unreadable and "larger than the limit" in loaded.unreadable[0]


def test_invalid_utf8_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "bin.yaml"
    path.write_bytes(b"a: \xff\xfe\x00\n")
    loaded = load_paths([str(path)])
    assert loaded.unreadable and "UTF-8" in loaded.unreadable[0]


@pytest.mark.parametrize(
    ("value", "column", "message"),
    [
        # a tag on a kind of node it cannot construct: ruamel.yaml's own constructors fail inside
        ("!!set x", 6, "cannot read this scalar as !!set"),
        ("!!omap 5", 6, "cannot read this scalar as !!omap"),
        ("!!int [a, b]", 6, "cannot read this sequence as !!int"),
        ("!!float ''", 6, "cannot read this scalar as !!float"),
        ("!!bool {a: 1}", 6, "cannot read this mapping as !!bool"),
        ("!!int x", 6, "cannot read this scalar as !!int"),
    ],
)
def test_tags_on_the_wrong_kind_of_node_are_errors_at_the_node(
    value: str, column: int, message: str
) -> None:
    loaded = load_text(f"apiVersion: v1\nkind: ConfigMap\ndata:\n  k: {value}\n", "cm.yaml")
    (problem,) = loaded.diagnostics
    assert problem.rule == "DRA001" and problem.message == f"YAML syntax error: {message}"
    assert (problem.position.line, problem.position.column) == (4, column)


def test_input_the_round_trip_parser_fails_on_gets_libyamls_syntax_error() -> None:
    # ruamel.yaml raises NotImplementedError("overlap in comment") on this broken document
    text = "apiVersion: v1\nkind: ConfigMap\na:\n  b:  # c\n    d...\n\n?t: 5\n    e: [1]\n"
    loaded = load_text(text, "cm.yaml")
    (problem,) = loaded.diagnostics
    assert problem.rule == "DRA001" and problem.message.startswith("YAML syntax error: mapping values")
    assert (problem.position.line, problem.position.column) == (8, 6)
