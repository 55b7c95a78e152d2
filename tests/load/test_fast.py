"""The libyaml reader (for ``lint`` and ``explain``) reads every input as the
round-trip loader does: the same values and types (kubectl's YAML 1.1 scalars), the same recorded
YAML 1.1 surprises, the same positions for every key, value and item, and the same diagnostics
(documents it does not take are left to the round-trip loader)."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import pytest

from dractl.load import LoadResult, load_paths, load_text
from dractl.load.documents import Document
from dractl.load.fast import MarkedDict, load_fast
from tests.robustness.mutations import mutate, seeds

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "real"


def _typed(value: Any) -> Any:
    """``value`` with every scalar's type made part of it (``True == 1`` and ``1 == 1.0`` in
    Python; NaN is not equal to itself)."""
    if isinstance(value, dict):
        return ("map", [(_typed(k), _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("seq", [_typed(v) for v in value])
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else repr(float(value)))
    for kind in (bool, int, str):
        if isinstance(value, kind):
            return (kind.__name__, kind(value))
    return (type(value).__name__, str(value))


def _positions(doc: Document, node: Any, path: tuple[Any, ...], out: list[Any]) -> None:
    out.append((path, doc.position(path)))
    if isinstance(node, dict):
        for key, value in node.items():
            out.append((path, "key", _typed(key), _key_position(node, key)))
            _positions(doc, value, (*path, key), out)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            _positions(doc, value, (*path, index), out)


def _key_position(node: Any, key: Any) -> tuple[int, int] | None:
    try:
        return tuple(node.lc.key(key))
    except (AttributeError, KeyError, TypeError):  # ruamel has none for merged keys
        return None


def _reading(loaded: LoadResult) -> Any:
    documents = []
    for source in loaded.files:
        for doc in source.documents:
            positions: list[Any] = []
            if doc.raw is not None:
                _positions(doc, doc.raw, (), positions)
            documents.append(
                (_typed(doc.raw), doc.yaml11, doc.error, doc.error_position, positions)
            )
    objects = [(o.api_version, o.kind, o.base, o.position()) for o in loaded.objects]
    return documents, objects, loaded.diagnostics, loaded.unreadable


def _assert_same(text: str, path: str = "input.yaml") -> LoadResult:
    slow = load_text(text, path)
    fast = load_text(text, path, comments=False)
    assert _reading(fast) == _reading(slow)
    return fast


def _files(*folders: Path) -> list[Path]:
    return [
        path
        for folder in folders
        if folder.is_dir()
        for path in sorted(folder.rglob("*"))
        if path.suffix in (".yaml", ".yml", ".json")
    ]


@pytest.mark.parametrize(
    "path",
    _files(ROOT / "examples", ROOT / "tests"),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_repository_files_read_the_same(path: Path) -> None:
    slow = load_paths([str(path)])
    fast = load_paths([str(path)], comments=False)
    assert _reading(fast) == _reading(slow)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")
@pytest.mark.parametrize("path", _files(CORPUS), ids=lambda p: p.name)
def test_real_manifests_read_the_same(path: Path) -> None:
    slow = load_paths([str(path)])
    fast = load_paths([str(path)], comments=False)
    assert _reading(fast) == _reading(slow)


SCALARS = [
    # kubectl's YAML 1.1 reading
    *("y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "NO", "off", "Off"),
    *("true", "True", "TRUE", "false", "False", "FALSE", "yEs", "oN"),
    *("~", "null", "Null", "NULL", "", "nULL"),
    *("0", "-0", "+5", "007", "010", "08", "0x1F", "0X1f", "0o17", "0b101", "-0b11", "1_000"),
    *("0x_", "0b", "9" * 30, "-" + "9" * 25, "9" * 400, "9" * 5000, "0x" + "f" * 17),
    *("18446744073709551616", "-9223372036854775809", "0" * 400 + "17"),
    *("1.5", "-1.5", "+.5", ".5", "1.", "1e3", "1E3", "1_000.5", "1_e5", "-0.0", "._", "1e"),
    *(".inf", "-.Inf", "+.INF", ".nan", ".NaN", ".NAN", "1:30", "2001-12-14", "2001-12-14t21:59:43.10-05:00"),
    # quoted, tagged and block scalars
    *("'yes'", '"on"', '"010"', "'~'", "!!str 010", "! 010", "!!int '3'", "!!bool yes"),
    *("!!float 1", "!!null ''", "!foo bar", "!!binary aGk=", "!!timestamp 2001-12-14"),
    *("|\n    line\n", ">-\n    folded\n    text\n", "|+\n    keep\n\n", '"a\\/b\\tc\\u00e9"'),
    *("'it''s'", '"\\N\\_\\L\\P"', "plain\n    continued", "a # comment", "http://x:80/#frag"),
    *("💥 emoji", "ǅ", "\u202e", "x" * 2000, "@at", "`tick", "- dash", "? q", ": colon", "%pct"),
]


@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_scalars_read_the_same(scalar: str) -> None:
    _assert_same(f"apiVersion: v1\nkind: ConfigMap\ndata:\n  k: {scalar}\n  after: 1\n")


DOCUMENTS = [
    "kind: A\non: 1\nyes: 2\n1: 3\n1.5: 4\n~: 5\n",  # keys that are not strings
    "kind: A\na: 1\na: 2\n",  # duplicate keys
    "kind: A\ntrue: 1\non: 2\n",  # duplicate after resolution
    "kind: A\nbase: &b {x: 1}\nother:\n  <<: *b\n  y: 2\n",  # merge key
    "kind: A\na: &x [1, 2]\nb: *x\n",  # alias
    "kind: A\na: &x [1, *x]\n",  # recursive alias
    "kind: A\n? [a, b]\n: c\n",  # complex key
    "kind: A\n? {a: b}\n: c\n",
    "kind: !!map\n  a: 1\n",
    "--- !!map\nkind: A\n",
    "--- !custom\nkind: A\n",
    "kind: A\nlist: !!seq [1, 2]\nset: !!set {a, b}\nomap: !!omap [{a: 1}]\n",
    "kind: A\n\ttab: 1\n",
    "kind: A\na:\t1\nb: \"x\ty\"\n",
    "kind: A\na: x\x85y\nb: 1\n",
    "kind: A\na: x\u2028y\n",
    "\ufeffkind: A\na: 1\n",
    "kind: A\r\nmetadata:\r\n  name: crlf\r\n  labels: {a: b}\r\n",
    '{"kind": "A", "a":1, "b": [1, 2.5, true, null, "x"], "c": {"d": "\\u00e9"}}',
    '{"kind": "A", "a": 1, "a": 2}',
    "kind: A\nitems: [a, b, {c: d}, [e]]\nflow: {a: [1, {b: 2}], c: }\n",
    "kind: A\nempty_map: {}\nempty_seq: []\nnull_value:\nnested:\n- - a\n  - b\n- c: d\n  e: f\n",
    "kind: A\na: [1, 2\n",  # syntax errors
    "kind: A\n  a: 1\n",
    "kind: A\na: 'unterminated\n",
    "kind: A\na: b: c\n",
    "kind: A\n...\nkind: B\n",
    "%YAML 1.1\n---\nkind: A\na: 010\n",
    "%YAML 1.2\n---\nkind: A\na: 010\n",
    "%TAG !e! tag:example.com,2000:\n---\nkind: A\na: !e!x 1\n",
    "kind: A\na: \"\\x41\\u263A\\U0001F600\"\n",
    "kind: A\na: 'multi\n\n  line'\nb: \"multi\\\n  line\"\n",
    "- kind: A\n- kind: B\n",  # a list as the document
    "just a string\n",
    "kind: List\napiVersion: v1\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n- 3\n",
    "kind: A\n" + "a:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(120)) + "\n",
    "kind: A\na: " + "[" * 150 + "]" * 150 + "\n",
    "kind: A\n" + "a" * 1100 + ": long simple key\n",
    "kind: A\na: \ud800\n",
]


@pytest.mark.parametrize("text", DOCUMENTS, ids=repr)
def test_documents_read_the_same(text: str) -> None:
    _assert_same(text)


@pytest.mark.parametrize("seed", range(60))
def test_mutated_manifests_read_the_same(seed: int) -> None:
    rng = random.Random(seed)
    text = mutate(rng.choice(seeds()), rng)
    _assert_same(text)


def test_ordinary_documents_take_the_fast_path() -> None:
    text = (
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu\n"
        "spec:\n  selectors:\n  - cel:\n      expression: device.driver == 'gpu'\n"
    )
    fast = _assert_same(text)
    assert isinstance(fast.files[0].documents[0].raw, MarkedDict)


@pytest.mark.parametrize(
    "text",
    ["kind: A\na: &x [1]\nb: *x\n", "kind: A\na: 1\na: 2\n", "kind: A\nb: !foo 1\n", "a: [\n"],
)
def test_what_it_does_not_take_is_left_to_the_round_trip_loader(text: str) -> None:
    assert load_fast(text) is None


def test_both_loaders_resolve_plain_scalars_by_the_same_table() -> None:
    """The libyaml reader builds its table from yaml11.IMPLICIT_RESOLVERS without importing
    ruamel.yaml; the round-trip loader's resolver must hold exactly the same rules."""
    from dractl.load.fast import _RESOLVERS
    from dractl.load.roundtrip import KubectlResolver

    resolver = {
        first: [(str(tag), pattern) for tag, pattern in rules]
        for first, rules in KubectlResolver.yaml_implicit_resolvers.items()
    }
    assert resolver == _RESOLVERS
    assert set(resolver) >= {"y", "~", "0", "-", ".", "<", ""}
