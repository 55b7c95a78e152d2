"""A cluster dump (one ``kind: List`` as ``kubectl get ... -A -o yaml`` writes it) read item by
item, without the parts of its objects the caller does not read.

A dump of 15,000 nodes is one YAML document of some ten million nodes, most of them in what the
apiserver adds (``metadata.managedFields``) and in Nodes' ``status``; read whole, its tree takes
several GB before anything is left out. Here the document's items, which kubectl writes as
``- `` lines at the first column under ``items:``, are read one at a time with the fast reader
(:mod:`dractl.load.fast`), and each item's omitted parts are cut from its text before it is read
(their lines become empty lines, so every position stays where it is). The tree, its values and
positions are those of reading the whole document, less the omitted parts.

Anything else (another layout, a document the fast reader gives up on) returns False: the
document is then read whole, and :func:`omit_parts` leaves out the same parts afterwards.
Problems inside omitted parts are not found (they are not read).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dractl.records import Record

if TYPE_CHECKING:
    from dractl.load.documents import Document
    from dractl.load.parse import Limits


class Omit(Record):
    """Parts of objects that a reader leaves out: keys of every object's ``metadata``,
    top-level fields of the objects of one (apiVersion, kind), and ``only``: top-level fields
    of the objects of one (apiVersion, kind) of which only the keys named are read (a Node's
    ``status`` but for its ``allocatable``). A field in ``fields`` is left out whole."""

    __slots__ = ("fields", "metadata", "only")
    __hash__ = Record.value_hash

    def __init__(
        self,
        metadata: frozenset[str] = frozenset(),
        fields: Mapping[tuple[str, str], frozenset[str]] | None = None,
        only: Mapping[tuple[str, str], Mapping[str, frozenset[str]]] | None = None,
    ) -> None:
        self.metadata = metadata
        self.fields = {} if fields is None else fields
        self.only = {} if only is None else only


def omit_parts(raw: Any, api_version: str, kind: str, omit: Omit) -> None:
    """Remove ``omit``'s parts from one object's tree (read whole)."""
    from dractl.load.fast import keep_key_order

    if not isinstance(raw, dict):
        return
    metadata = raw.get("metadata")
    if isinstance(metadata, dict):
        keep_key_order(metadata)
        for key in omit.metadata:
            metadata.pop(key, None)
    keep_key_order(raw)
    for key in omit.fields.get((api_version, kind), ()):
        raw.pop(key, None)
    for key, kept in omit.only.get((api_version, kind), {}).items():
        value = raw.get(key)
        if isinstance(value, dict):
            keep_key_order(value)
            for name in [name for name in value if name not in kept]:
                del value[name]


# A line at the first column that is not blank, a comment or a continuation.
_FIRST_COLUMN_RE = re.compile(r"^[^ \t\r\n#]", re.MULTILINE)
_ITEMS_RE = re.compile(r"^items: *\r?\n", re.MULTILINE)
_SHALLOW: dict[int, re.Pattern[str]] = {}


def _block_lines(indent: int, key: str) -> re.Pattern[str]:
    """A key at column ``indent`` with nothing after it, and the lines of its block: deeper
    lines, `- ` items at its column (kubectl does not indent a sequence under its key), blank
    and comment lines."""
    return re.compile(
        rf"^ {{{indent}}}{re.escape(key)}: *\r?\n"
        rf"(?:(?: {{{indent + 1}}}[^\n]*| {{{indent}}}-(?: [^\n]*)?\r?| *(?:#[^\n]*)?\r?)\n)*",
        re.MULTILINE,
    )


def _shallower(indent: int) -> re.Pattern[str]:
    """A line with content at a column below ``indent``."""
    found = _SHALLOW.get(indent)
    if found is None:
        found = _SHALLOW[indent] = re.compile(rf"^ {{0,{indent - 1}}}[^ \r\n#]", re.MULTILINE)
    return found


_PATTERNS: dict[tuple[int, str], re.Pattern[str]] = {}


def _cut(text: str, indent: int, key: str, start: int = 0, end: int | None = None) -> str:
    """``text`` with the block of ``key`` (at column ``indent``, between ``start`` and ``end``)
    made into empty lines."""
    pattern = _PATTERNS.get((indent, key))
    if pattern is None:
        pattern = _PATTERNS[(indent, key)] = _block_lines(indent, key)
    match = pattern.search(text, start, len(text) if end is None else end)
    if match is None:
        return text
    return text[: match.start()] + "\n" * match.group().count("\n") + text[match.end() :]


_SCALAR = r"[\"']?([^\"'\s#]+)[\"']?"
_ITEM_API_VERSION_RE = re.compile(rf"^(?:- |  )apiVersion: {_SCALAR} *\r?$", re.MULTILINE)
_ITEM_KIND_RE = re.compile(rf"^(?:- |  )kind: {_SCALAR} *\r?$", re.MULTILINE)
_ITEM_METADATA_RE = re.compile(r"^(?:- |  )metadata: *\r?\n", re.MULTILINE)
_ITEM_FIELDS: dict[str, re.Pattern[str]] = {}
_KEPT: dict[str, re.Pattern[str]] = {}


def _cut_item(text: str, omit: Omit) -> str:
    """One item's text (``- `` at its first line, keys at column 2) without the omitted blocks."""
    if omit.metadata:
        metadata = _ITEM_METADATA_RE.search(text)
        if metadata is not None:
            start = metadata.end()
            after = _shallower(4).search(text, start)  # the end of metadata's block
            end = after.start() if after is not None else len(text)
            for key in omit.metadata:
                text = _cut(text, 4, key, start, end)
    if omit.fields or omit.only:
        api_version = _ITEM_API_VERSION_RE.search(text)
        kind = _ITEM_KIND_RE.search(text)
        if api_version is not None and kind is not None:
            of = (api_version.group(1), kind.group(1))
            for key in omit.fields.get(of, ()):
                text = _cut(text, 2, key)
            for key, kept in omit.only.get(of, {}).items():
                text = _keep_only(text, key, kept)
    return text


def _keep_only(text: str, field: str, kept: frozenset[str]) -> str:
    """``text`` with the block mapping ``field`` (at column 2) made into empty lines but for the
    blocks of its keys in ``kept``. When none of them is there the text stays as it is (and
    :func:`omit_parts` leaves the other keys out): emptied, the block would read as null,
    where the tree read whole keeps an empty mapping."""
    pattern = _ITEM_FIELDS.get(field)
    if pattern is None:
        pattern = _ITEM_FIELDS[field] = re.compile(
            rf"^(?:- |  ){re.escape(field)}: *\r?\n", re.MULTILINE
        )
    found = pattern.search(text)
    if found is None:
        return text
    start = found.end()
    after = _shallower(4).search(text, start)  # the end of the field's block
    end = after.start() if after is not None else len(text)
    blocks = sorted(
        (m.start(), m.end()) for key in kept for m in _kept_block(key).finditer(text, start, end)
    )
    if not blocks:
        return text
    pieces = [text[:start]]
    at = start
    for block_start, block_end in blocks:
        pieces += ["\n" * text.count("\n", at, block_start), text[block_start:block_end]]
        at = block_end
    pieces += ["\n" * text.count("\n", at, end), text[end:]]
    return "".join(pieces)


def _kept_block(key: str) -> re.Pattern[str]:
    """A key at column 4, its value on its line or in the lines of its block."""
    found = _KEPT.get(key)
    if found is None:
        found = _KEPT[key] = re.compile(
            rf"^    {re.escape(key)}:(?: [^\n]*)?\r?\n"
            r"(?:(?: {5}[^\n]*|    -(?: [^\n]*)?\r?| *(?:#[^\n]*)?\r?)\n)*",
            re.MULTILINE,
        )
    return found


def looks_like_list(text: str) -> bool:
    """Whether :func:`read_yaml_list` may read ``text`` item by item."""
    # `in` first: a regular expression with `^` tries every position of a text without it.
    return "items:" in text and _ITEMS_RE.search(text) is not None


def read_yaml_list(doc: Document, limits: Limits, omit: Omit) -> bool:
    """Read ``doc`` item by item if it is a List as kubectl writes it; False: read it whole."""
    from dractl.load.fast import load_fast, marked_list, set_value_position, unsure

    text = doc.text
    if not looks_like_list(text):
        return False
    items_line = _ITEMS_RE.search(text)
    if items_line is None or unsure(text):
        return False
    # Items start at `- ` lines at the first column after `items:`; the first other line at the
    # first column ends them.
    starts: list[int] = []
    tail = len(text)
    for match in _FIRST_COLUMN_RE.finditer(text, items_line.end()):
        at = match.start()
        if text.startswith("- ", at):
            if tail != len(text):
                return False  # an item after the list's end: not kubectl's layout
            starts.append(at)
        elif tail == len(text):
            tail = at
    if not starts or starts[0] != items_line.end():
        return False
    region = text[items_line.end() : tail]
    skeleton = text[: items_line.start()] + "items: []\n" + "\n" * region.count("\n") + text[tail:]
    top = load_fast(skeleton, limits.max_nodes, limits.max_depth)
    if top is None:
        return False
    root, yaml11, str_keys, nodes = top
    kind = root.get("kind") if isinstance(root, dict) else None
    if not isinstance(kind, str) or not kind.endswith("List") or root.get("items") != []:
        return False
    first_line = text.count("\n", 0, items_line.end())
    room = limits.max_nodes - nodes
    items: list[Any] = []
    marks: list[tuple[int, int]] = []
    line = first_line
    bounds = [*starts, tail]
    for start, end in itertools.pairwise(bounds):
        chunk = _cut_item(text[start:end], omit)
        read = load_fast(chunk, room + 1, limits.max_depth - 1, line_offset=line)
        if read is None:
            return False
        tree, notes, keys_are_str, nodes = read
        if not isinstance(tree, list) or len(tree) != 1 or not isinstance(tree[0], dict):
            return False
        room -= nodes - 1  # the item, not the list it was read in
        items.append(tree[0])
        marks.append(tree.lc.item(0))  # type: ignore[attr-defined]  # read with marks: a MarkedList
        yaml11.update(notes)
        str_keys = str_keys and keys_are_str
        line += chunk.count("\n")
    root["items"] = marked_list(items, first_line, 0, marks)
    set_value_position(root, "items", first_line, 0)
    doc.raw = root
    doc.yaml11 = {
        (doc.start_line + at + 1, column + 1): value for (at, column), value in yaml11.items()
    }
    doc.plain = str_keys
    return True
