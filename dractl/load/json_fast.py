"""JSON inputs read with the standard library's C decoder, their positions found when asked.

A cluster dump as ``kubectl get ... -A -o json`` writes it is hundreds of MB of JSON; libyaml
reads about 10 MB per second of it, the C JSON decoder a hundred. Values are those the YAML
reader gives JSON (numbers are resolved by the same YAML 1.1 rules, see :func:`_number`), and a
text it would read otherwise (a duplicate key, NaN, a surrogate escape, a character the YAML
reader is unsure of) is left to it, so that its diagnostics stay as they are. The items of a
top-level ``items`` array are decoded one at a time and lose the omitted parts
(:class:`dractl.load.lists.Omit`) at once, so a dump never takes its whole size in memory.

Nothing here records positions while reading: the first diagnostic that needs one reads the
object it points into (one List item, or the document without its items) with the fast YAML
reader, which gives JSON's positions exactly as it would have while reading.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dractl.load.lists import Omit, omit_parts

if TYPE_CHECKING:
    from dractl.load.documents import Document
    from dractl.load.parse import Limits

_SURROGATE_ESCAPE_RE = re.compile(r"\\u[dD][89a-fA-F]")
_WHITESPACE_RE = re.compile(r"[ \t\n\r]*")
_NOT_BREAK_RE = re.compile(r"[^\n]+")


class _Refused(Exception):
    """The text is left to the YAML reader."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        raise _Refused  # a duplicate key: the YAML reader words the diagnostic
    return mapping


def _number(text: str) -> Any:
    """A JSON number as the YAML reader resolves it (go-yaml's YAML 1.1 table)."""
    from dractl.load.fast import _RESOLVERS, _UNRESOLVED, _resolve

    value, noted = _resolve(text, _RESOLVERS.get(text[0], []))
    if value is _UNRESOLVED or noted:
        raise _Refused  # a YAML 1.1 surprise (an integer beyond 64 bits): noted where it is
    return value


def _int(text: str) -> Any:
    # Up to 18 digits every reading is Python's int; beyond, go-yaml's rules decide.
    return int(text) if len(text) < 19 else _number(text)


def _constant(text: str) -> Any:
    raise _Refused  # NaN, Infinity: not JSON, and plain strings to YAML


_DECODER = json.JSONDecoder(
    object_pairs_hook=_pairs, parse_float=_number, parse_int=_int, parse_constant=_constant
)


def read_json(doc: Document, limits: Limits, omit: Omit) -> bool:
    """Read ``doc`` (a whole JSON file) with the C decoder; False: leave it to the YAML reader."""
    from dractl.load.fast import unsure

    text = doc.text
    if unsure(text) or _SURROGATE_ESCAPE_RE.search(text):
        return False
    try:
        raw, spans = _decode(text, omit)
    except (_Refused, ValueError, RecursionError):
        return False
    if _may_exceed(text, limits):
        from dractl.load.parse import _check_size

        if _check_size(raw, limits) is not None:
            return False  # the YAML reader words the limit's diagnostic
    doc.raw = raw
    doc.plain = True
    doc.positions = JsonPositions(doc, spans)
    return True


def _may_exceed(text: str, limits: Limits) -> bool:
    """Whether the text could hold more nodes than the limit: every value but the first follows a
    comma or opens a container."""
    return text.count(",") + text.count("[") + text.count("{") + 1 > limits.max_nodes


def _skip(text: str, at: int) -> int:
    return _WHITESPACE_RE.match(text, at).end()  # type: ignore[union-attr]


def _decode(text: str, omit: Omit) -> tuple[Any, list[tuple[int, int]] | None]:
    """The value of ``text``, and the spans of its top-level ``items`` (None: not a mapping with
    an ``items`` array). A top-level mapping is decoded member by member so that its items can
    be decoded, and lose their omitted parts, one at a time."""
    at = _skip(text, 0)
    if not text.startswith("{", at):
        value, end = _DECODER.raw_decode(text, at)
        if _skip(text, end) != len(text):
            raise _Refused
        return value, None
    pairs: list[tuple[str, Any]] = []
    spans: list[tuple[int, int]] | None = None
    at = _skip(text, at + 1)
    if text.startswith("}", at):
        at += 1
    else:
        while True:
            if not text.startswith('"', at):
                raise _Refused
            key, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
            at = _skip(text, at)
            if not text.startswith(":", at):
                raise _Refused
            at = _skip(text, at + 1)
            if key == "items" and text.startswith("[", at) and spans is None:
                value, spans, at = _items(text, at, omit)
            else:
                value, at = _DECODER.raw_decode(text, at)
            pairs.append((key, value))
            at = _skip(text, at)
            if text.startswith(",", at):
                at = _skip(text, at + 1)
                continue
            if text.startswith("}", at):
                at += 1
                break
            raise _Refused
    if _skip(text, at) != len(text):
        raise _Refused
    root = _pairs(pairs)
    kind = root.get("kind")
    if spans is not None and not (isinstance(kind, str) and kind.endswith("List")):
        raise _Refused  # items that are not objects lost parts: read it again, whole
    return root, spans


def _items(text: str, at: int, omit: Omit) -> tuple[list[Any], list[tuple[int, int]], int]:
    items: list[Any] = []
    spans: list[tuple[int, int]] = []
    at = _skip(text, at + 1)
    if text.startswith("]", at):
        return items, spans, at + 1
    while True:
        item, end = _DECODER.raw_decode(text, at)
        if isinstance(item, dict):
            api_version, kind = item.get("apiVersion"), item.get("kind")
            omit_parts(item, api_version if isinstance(api_version, str) else "",
                       kind if isinstance(kind, str) else "", omit)
        items.append(item)
        spans.append((at, end))
        at = _skip(text, end)
        if text.startswith(",", at):
            at = _skip(text, at + 1)
            continue
        if text.startswith("]", at):
            return items, spans, at + 1
        raise _Refused


class JsonPositions:
    """Marked trees for positions in a document read by :func:`read_json`, read when asked."""

    def __init__(self, doc: Document, spans: list[tuple[int, int]] | None) -> None:
        self.doc = doc
        self.spans = spans
        self.trees: dict[int | None, Any] = {}

    def marked(self, path: Sequence[Any]) -> tuple[Any, Sequence[Any]]:
        """``(tree, rest)``: a tree with marks (lines of the document) in which ``rest`` is the
        part of ``path`` that is left to walk."""
        spans = self.spans
        if (
            spans is not None
            and len(path) >= 2
            and path[0] == "items"
            and isinstance(path[1], int)
            and not isinstance(path[1], bool)
            and 0 <= path[1] < len(spans)
        ):
            index = path[1]
            if index not in self.trees:
                self.trees[index] = self._read(*spans[index])
            return self.trees[index], path[2:]
        if None not in self.trees:
            self.trees[None] = self._read_outside()
        return self.trees[None], path

    def _read(self, start: int, end: int) -> Any:
        """One item, read with marks at its place in the document."""
        from dractl.load.fast import load_fast

        text = self.doc.text
        line = text.count("\n", 0, start)
        column = start - (text.rfind("\n", 0, start) + 1)
        read = load_fast(" " * column + text[start:end], line_offset=line)
        return None if read is None else read.tree

    def _read_outside(self) -> Any:
        """The document with the items' text made into empty lines."""
        from dractl.load.fast import load_fast

        text = self.doc.text
        if self.spans:
            first, last = self.spans[0][0], self.spans[-1][1]
            # The items' text made blank, line breaks kept: everything else stays in its place.
            blank = _NOT_BREAK_RE.sub(lambda run: " " * len(run.group()), text[first:last])
            text = text[:first] + blank + text[last:]
        read = load_fast(text)
        return None if read is None else read.tree
