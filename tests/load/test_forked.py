"""Documents read without marks (positions read again when asked) and in forked processes read
as in one process with marks: the same trees and types, YAML 1.1 notes, positions of every key,
value and item, objects, diagnostics and their order."""

from __future__ import annotations

import io
import os
import random
from pathlib import Path
from typing import Any

import pytest

from dractl import forking, synthetic
from dractl.load import LoadResult, Omit, forked, load_text
from dractl.load.documents import Document
from tests.load.test_fast import _files, _typed
from tests.robustness.mutations import mutate, seeds

ROOT = Path(__file__).resolve().parents[2]
OMIT = Omit(metadata=frozenset({"managedFields"}), fields={("v1", "Node"): frozenset({"status"})})

pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="no fork here")


def _positions(doc: Document, node: Any, path: tuple[Any, ...], out: list[Any]) -> None:
    out.append((path, doc.position(path)))
    if isinstance(node, dict):
        marked = doc.marked_node(path)
        for key, value in node.items():
            try:
                key_at = tuple(marked.lc.key(key))
            except (AttributeError, KeyError, TypeError):
                key_at = None
            out.append((path, "key", _typed(key), key_at))
            _positions(doc, value, (*path, key), out)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            _positions(doc, value, (*path, index), out)


def _reading(loaded: LoadResult) -> Any:
    documents = []
    for source in loaded.files:
        for doc in source.documents:
            positions: list[Any] = []
            if doc.raw is not None:
                _positions(doc, doc.raw, (), positions)
            documents.append((_typed(doc.raw), doc.yaml11, doc.plain, doc.error, doc.error_position, positions))
    objects = [(o.api_version, o.kind, o.base, o.position(), _typed(o.raw)) for o in loaded.objects]
    return documents, objects, loaded.diagnostics, loaded.unreadable


def _stream() -> str:
    """Every YAML file of the examples and tests as one stream (Lists, documents the fast reader
    leaves to the round-trip loader, syntax errors, duplicate keys among them)."""
    parts = []
    for path in _files(ROOT / "examples", ROOT / "tests"):
        if path.suffix != ".json":
            parts.append(path.read_text(errors="replace").rstrip("\n") + "\n")
    return "---\n".join(parts)


def _cluster(kubectl: str | None = None, nodes: int = 30) -> str:
    out = io.StringIO()
    synthetic.write(synthetic.cluster(nodes, 4, 5, busy=True), out, kubectl)
    return out.getvalue()


@pytest.fixture(autouse=True)
def _fork_for_any_length(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forked, "FORK_MIN_CHARS", 0)
    # however large the test process has grown
    monkeypatch.setattr(forking, "MAX_RESIDENT", 1 << 62)


@pytest.mark.parametrize("omit", [None, OMIT], ids=["whole", "omit"])
@pytest.mark.parametrize("jobs", [1, 2, 5])
def test_the_repository_as_one_stream_reads_the_same(jobs: int, omit: Omit | None) -> None:
    text = _stream()
    expected = _reading(load_text(text, "stream.yaml", comments=False, omit=omit))
    got = load_text(text, "stream.yaml", comments=False, omit=omit, marks=False, jobs=jobs)
    assert _reading(got) == expected
    assert expected[2], "the stream has diagnostics to compare"


@pytest.mark.parametrize("kubectl", [None, "yaml", "json"])
def test_clusters_read_the_same(kubectl: str | None) -> None:
    text = _cluster(kubectl)
    path = "cluster.json" if kubectl == "json" else "cluster.yaml"
    expected = _reading(load_text(text, path, comments=False, omit=OMIT))
    assert _reading(load_text(text, path, comments=False, omit=OMIT, marks=False, jobs=3)) == expected


@pytest.mark.parametrize("seed", range(40))
def test_mutated_streams_read_the_same(seed: int) -> None:
    rng = random.Random(seed)
    text = "---\n".join(mutate(rng.choice([*seeds(), _cluster(nodes=3)]), rng) for _ in range(4))
    expected = _reading(load_text(text, "stream.yaml", comments=False, omit=OMIT))
    assert _reading(load_text(text, "stream.yaml", comments=False, omit=OMIT, marks=False, jobs=3)) == expected


def test_the_documents_are_read_in_other_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The children read the later parts: the calling process reads only the first."""
    parent = os.getpid()
    readers: dict[str, int] = {}
    read_plain = forked.read_plain

    def spy(doc: Document, *args: Any) -> Any:
        reading = read_plain(doc, *args)
        if reading is not None and isinstance(reading[0], dict):
            reading[0]["reader"] = os.getpid()
        return reading

    monkeypatch.setattr(forked, "read_plain", spy)
    loaded = load_text(_cluster(nodes=20), "cluster.yaml", comments=False, marks=False, jobs=3)
    for obj in loaded.objects:
        readers[obj.name or ""] = obj.raw.get("reader", parent)
    assert readers["node-0-gpus"] == parent
    assert len(set(readers.values())) == 3


def test_a_child_that_fails_leaves_its_documents_to_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _cluster(nodes=10)
    expected = _reading(load_text(text, "cluster.yaml", comments=False))

    def broken(*args: Any) -> Any:
        raise RuntimeError("no")

    monkeypatch.setattr(forked, "read_plain", broken)
    assert _reading(load_text(text, "cluster.yaml", comments=False, marks=False, jobs=2)) == expected


def test_short_streams_are_read_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forked, "FORK_MIN_CHARS", 10_000_000)
    monkeypatch.setattr(os, "fork", None)  # would fail if called
    text = _cluster(nodes=10)
    expected = _reading(load_text(text, "cluster.yaml", comments=False))
    assert _reading(load_text(text, "cluster.yaml", comments=False, marks=False, jobs=4)) == expected


def test_parts_are_contiguous_and_of_about_equal_length() -> None:
    source_text = _cluster(nodes=40)
    docs = load_text(source_text, "cluster.yaml", comments=False).files[0].documents
    runs = forked.split(docs, 3)
    assert [d for run in runs for d in run] == docs
    lengths = [sum(len(d.text) for d in run) for run in runs]
    assert len(runs) == 3 and max(lengths) < 1.2 * min(lengths)
