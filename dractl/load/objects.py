"""Kubernetes objects found in documents, with ``kind: List`` / ``*List`` expanded."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from dractl.diagnostics import Diagnostic, Position, Severity
from dractl.load.documents import Document, SourceFile

# Keys without which no document can be, or look like, a Kubernetes object.
_OBJECT_KEY_RE = re.compile(r"\b(?:apiVersion|kind|metadata)\b")


class KubeObject:
    """One object of a document; ``base`` is its path inside ``document.raw`` (List items)."""

    __slots__ = ("api_version", "base", "document", "kind", "raw")

    def __init__(
        self,
        document: Document,
        base: tuple[Any, ...],
        raw: Any,
        api_version: str,
        kind: str,
    ) -> None:
        self.document = document
        self.base = base
        self.raw = raw
        self.api_version = api_version
        self.kind = kind

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0] if "/" in self.api_version else ""

    @property
    def version(self) -> str:
        return self.api_version.rpartition("/")[2]

    @property
    def metadata(self) -> dict[str, Any]:
        meta = self.raw.get("metadata") if isinstance(self.raw, dict) else None
        return meta if isinstance(meta, dict) else {}

    @property
    def name(self) -> str | None:
        name = self.metadata.get("name")
        return name if isinstance(name, str) else None

    @property
    def namespace(self) -> str | None:
        ns = self.metadata.get("namespace")
        return ns if isinstance(ns, str) else None

    def position(self, path: tuple[Any, ...] = ()) -> Position:
        return self.document.position(self.base + tuple(path))


def may_hold_objects(text: str) -> bool:
    """Whether ``text`` could hold a Kubernetes object at all (a quick test before parsing).

    NUL characters are looked through: UTF-16 without its byte-order mark, or UTF-32, reads as
    text with a NUL beside every character, which kubectl refuses ("control characters are not
    allowed"). Such a file is parsed, so that it fails where kubectl's does, instead of passing
    as a file without objects."""
    if _OBJECT_KEY_RE.search(text) is not None:
        return True
    return "\x00" in text and _OBJECT_KEY_RE.search(text.replace("\x00", "")) is not None


def looks_like_object(raw: Any) -> bool:
    """Whether a document is, or was meant to be, a Kubernetes object.

    ``kind`` or ``metadata`` at the top marks one (``apiVersion`` alone does not: Helm's Chart.yaml
    has it); so does a list of such mappings.
    """
    if isinstance(raw, dict):
        return "kind" in raw or "metadata" in raw
    if isinstance(raw, list):
        return any(isinstance(item, dict) and looks_like_object(item) for item in raw)
    return False


def objects_of_file(source: SourceFile) -> Iterator[KubeObject | Diagnostic]:
    """The objects of a file, and a DRA004 for each of its other documents.

    A file none of whose documents looks like a Kubernetes object is other YAML or JSON (a CI
    workflow, Helm values, docker-compose): it yields nothing, as kube-linter skips such files,
    so that dractl can run over every YAML file of a repository.
    """
    if source.template:
        return
    if source.kubernetes and not any(looks_like_object(doc.raw) for doc in source.documents):
        source.kubernetes = any(doc.error is not None for doc in source.documents)
    if not source.kubernetes:
        return
    for doc in source.documents:
        yield from objects_of(doc)


def objects_of(doc: Document) -> Iterator[KubeObject | Diagnostic]:
    raw = doc.raw
    if raw is None:
        return
    if not isinstance(raw, dict):
        yield Diagnostic(
            "DRA004",
            Severity.ERROR,
            f"not a Kubernetes object: the document is a {_yaml_type(raw)}, not a mapping",
            doc.position(()),
        )
        return
    yield from _object(doc, (), raw, None)


def _object(
    doc: Document, base: tuple[Any, ...], raw: dict[str, Any], inherited: tuple[str, str] | None
) -> Iterator[KubeObject | Diagnostic]:
    api_version = raw.get("apiVersion")
    kind = raw.get("kind")
    if inherited is not None:
        api_version = api_version or inherited[0]
        kind = kind or inherited[1]
    if not isinstance(api_version, str) or not api_version or not isinstance(kind, str) or not kind:
        missing = [
            name
            for name, value in (("apiVersion", api_version), ("kind", kind))
            if not isinstance(value, str) or not value
        ]
        yield Diagnostic(
            "DRA004",
            Severity.ERROR,
            f"not a Kubernetes object: {' and '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} missing or not a string",
            doc.position(base),
        )
        return
    items = raw.get("items")
    if kind.endswith("List") and isinstance(items, list):
        item_default = None if kind == "List" else (api_version, kind[: -len("List")])
        for i, item in enumerate(items):
            path = (*base, "items", i)
            if isinstance(item, dict):
                yield from _object(doc, path, item, item_default)
            else:
                yield Diagnostic(
                    "DRA004",
                    Severity.ERROR,
                    f"not a Kubernetes object: List item is a {_yaml_type(item)}",
                    doc.position(path),
                )
        return
    yield KubeObject(doc, base, raw, api_version, kind)


def _yaml_type(value: Any) -> str:
    if isinstance(value, list):
        return "list"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string"
