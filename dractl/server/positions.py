"""Where a cursor is: the field path under it in a loaded document, and the text extent of a
diagnostic. Columns here are characters (code points), 0-based, as Python indexes strings; the
server converts them to the client's units (UTF-16 unless it said otherwise) at the edge.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dractl.records import Record

if TYPE_CHECKING:
    from dractl.load import Document, KubeObject, LoadResult


class Place(Record):
    """The node under a cursor: its path in ``document.raw`` and whether the cursor is on a key.

    ``obj`` is the Kubernetes object that holds it (a List's item, or the document's object) and
    ``inner`` the path inside that object.
    """

    __slots__ = ("document", "inner", "obj", "on_key", "path")

    def __init__(
        self,
        document: Document,
        path: tuple[Any, ...],
        on_key: bool,
        obj: KubeObject | None,
        inner: tuple[Any, ...],
    ) -> None:
        self.document = document
        self.path = path
        self.on_key = on_key
        self.obj = obj
        self.inner = inner


def place_at(loaded: LoadResult, document: Document, line: int, column: int) -> Place:
    """The place of 0-based (``line``, ``column``) of the file, inside ``document``."""
    path, on_key = path_at(document, line - document.start_line, column)
    owner: KubeObject | None = None
    for obj in loaded.objects:
        inside = obj.document is document and path[: len(obj.base)] == obj.base
        if inside and (owner is None or len(obj.base) > len(owner.base)):
            owner = obj
    inner = path[len(owner.base) :] if owner is not None else path
    return Place(document, path, on_key, owner, inner)


def path_at(document: Document, line: int, column: int) -> tuple[tuple[Any, ...], bool]:
    """The path of the deepest node at (``line``, ``column``) inside the document's text, and
    whether the cursor is on a mapping key rather than on its value.

    Block YAML is read as an editor shows it: an entry runs from its key to the next entry, so a
    cursor on a line of a multi-line scalar or in an entry's indentation belongs to the entry.
    """
    path: list[Any] = []
    node = document.marked_node(())
    while True:
        marks = getattr(node, "lc", None)
        if marks is None or not isinstance(node, dict | list):
            return tuple(path), False
        if isinstance(node, dict):
            entries = [(key, _mark(marks.key, key)) for key in node]
        else:
            entries = [(i, _mark(marks.item, i)) for i in range(len(node))]
        chosen = _containing([(k, m) for k, m in entries if m is not None], line, column)
        if chosen is None:
            return tuple(path), False
        key, (key_line, key_column) = chosen
        part = key if isinstance(node, list) else _key_text(key)
        path.append(part)
        value = node[key]
        if isinstance(node, dict):
            on_key = line == key_line and key_column <= column <= key_column + len(part)
            if on_key or not isinstance(value, dict | list):
                if not on_key:
                    value_at = _mark(marks.value, key)
                    on_key = value_at is not None and (line, column) < value_at
                return tuple(path), on_key
        elif not isinstance(value, dict | list):
            return tuple(path), False
        node = document.marked_node(tuple(path))
        if node is None:
            return tuple(path), False


def _mark(get: Any, key: Any) -> tuple[int, int] | None:
    try:
        line, column = get(key)
    except (AttributeError, IndexError, KeyError, TypeError):
        return None
    return int(line), int(column)


def _containing(
    entries: Sequence[tuple[Any, tuple[int, int]]], line: int, column: int
) -> tuple[Any, tuple[int, int]] | None:
    """The entry the cursor is in: the last one starting before it; on a line where entries
    start, the last one starting at or before the column, else the line's first (the cursor is
    in its indentation or on a list's dash)."""
    on_line = [e for e in entries if e[1][0] == line]
    if on_line:
        before = [e for e in on_line if e[1][1] <= column]
        return before[-1] if before else on_line[0]
    above = [e for e in entries if e[1][0] < line]
    return max(above, key=lambda e: e[1]) if above else None


def _key_text(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def token_span(line_text: str, column: int) -> tuple[int, int]:
    """0-based start and end columns of the YAML token at 1-based ``column`` of ``line_text``:
    the extent the text reporter underlines (a key to its colon, a scalar to its end)."""
    from dractl.report.text import token_width

    start = max(column - 1, 0)
    if line_text[start : start + 1] == "-" and line_text[start + 1 : start + 2] not in (
        "",
        " ",
        "\t",
    ):
        # a scalar that starts with a minus (`count: -1`), not a list item's dash
        return start, start + 1 + token_width(line_text, column + 1)
    return start, start + token_width(line_text, column)
