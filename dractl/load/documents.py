"""Source files, their documents and positions inside them.

A YAML stream is split at its document markers before parsing, so that a syntax error in one
document does not hide the others, and so that every document keeps the exact slice of text it
came from (``convert`` writes unchanged documents back byte for byte).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Sequence
from typing import Any

from dractl.diagnostics import Position

_MARKER_RE = re.compile(r"^(?:---|\.\.\.)(?:[ \t]|\r?$)")


class SourceFile:
    """One input: a file, or stdin (``path`` is ``<stdin>``)."""

    __slots__ = ("bom", "documents", "format", "kubernetes", "path", "real_path", "template", "text")

    def __init__(
        self,
        path: str,
        text: str,
        format: str,
        documents: list[Document] | None = None,
        template: bool = False,
        kubernetes: bool = True,
        real_path: str | None = None,
        bom: bool = False,
    ) -> None:
        self.path = path
        self.text = text
        self.format = format  # "yaml" | "json"
        self.documents = [] if documents is None else documents
        self.template = template  # a Helm / Go template: not parsed
        # False for YAML or JSON that holds no Kubernetes object (a workflow, Helm values, a
        # tsconfig.json): such files are skipped without a diagnostic, so a repository's other
        # configuration files pass.
        self.kubernetes = kubernetes
        self.real_path = real_path  # the file system path, None for stdin
        self.bom = bom  # it began with a byte-order mark (not part of ``text``)

    @property
    def newline(self) -> str:
        return "\r\n" if "\r\n" in self.text[:4096] else "\n"


class Document:
    """One YAML document (or a whole JSON file) of a source file."""

    __slots__ = ("error", "error_position", "file", "index", "plain", "positions", "raw", "start_line", "text", "yaml11")

    def __init__(
        self,
        file: SourceFile,
        index: int,
        text: str,
        start_line: int,
        raw: Any = None,
        error: str | None = None,
        error_position: Position | None = None,
        yaml11: dict[tuple[int, int], str] | None = None,
        plain: bool = False,
    ) -> None:
        self.file = file
        self.index = index
        self.text = text
        self.start_line = start_line  # 0-based line of ``text``'s first line in the file
        self.raw = raw  # ruamel round-trip tree; None for an empty or unparsable document
        self.error = error
        self.error_position = error_position
        self.yaml11 = {} if yaml11 is None else yaml11  # 1-based (line, col) -> text
        # Whether ``raw`` is JSON-like data as it is (dicts, lists, str keys, JSON scalars; read
        # by the fast reader), so that the model can use it without a copy.
        self.plain = plain
        # For a tree read without marks (JSON, :mod:`dractl.load.json_fast`): what gives trees
        # with marks when a position is asked for (``marked(path) -> (tree, rest of path)``).
        self.positions: Any = None

    @property
    def empty(self) -> bool:
        return self.raw is None and self.error is None

    def position(self, path: Sequence[Any]) -> Position:
        """The file position of ``path`` in ``raw`` or, if it is missing, of its nearest parent.

        Scalars resolve to their value, containers to their key (or list item).
        """
        root, rest = self._marked(path)
        line, col = locate(root, rest)
        return Position(self.file.path, self.start_line + line + 1, col + 1)

    def _marked(self, path: Sequence[Any]) -> tuple[Any, Sequence[Any]]:
        if self.positions is None:
            return self.raw, path
        return self.positions.marked(path)  # type: ignore[no-any-return]

    def marked_node(self, path: Sequence[Any]) -> Any:
        """The node at ``path`` in a tree that has marks (``lc``), or None."""
        node, rest = self._marked(path)
        for part in rest:
            node = child(node, part)
            if node is _MISSING:
                return None
        return node

    def node(self, path: Sequence[Any]) -> Any:
        node = self.raw
        for part in path:
            node = child(node, part)
            if node is _MISSING:
                return None
        return node


_MISSING = object()


def child(node: Any, part: Any) -> Any:
    if isinstance(part, int) and not isinstance(part, bool):
        if isinstance(node, list) and 0 <= part < len(node):
            return node[part]
        return _MISSING
    if isinstance(node, dict):
        if part in node:
            return node[part]
        for key in node:
            if not isinstance(key, str) and _key_text(key) == part:
                return node[key]
    return _MISSING


def _key_text(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def _raw_key(node: dict[Any, Any], part: Any) -> Any:
    if part in node:
        return part
    for key in node:
        if not isinstance(key, str) and _key_text(key) == part:
            return key
    return None


def _start(node: Any) -> tuple[int, int]:
    lc = getattr(node, "lc", None)
    if lc is not None and lc.line is not None:
        return lc.line, lc.col
    return 0, 0


def locate(root: Any, path: Sequence[Any]) -> tuple[int, int]:
    """0-based (line, column) inside the document text of ``path``, or of its nearest parent."""
    node = root
    best = _start(root)
    for part in path:
        if isinstance(part, int) and not isinstance(part, bool):
            if not isinstance(node, list) or not 0 <= part < len(node):
                return best
            with contextlib.suppress(AttributeError, KeyError, TypeError):
                best = tuple(node.lc.item(part))  # type: ignore[attr-defined,assignment]
            node = node[part]
        else:
            if not isinstance(node, dict):
                return best
            key = _raw_key(node, part)
            if key is None:
                return best
            value = node[key]
            try:
                if isinstance(value, dict | list):
                    best = tuple(node.lc.key(key))  # type: ignore[attr-defined,assignment]
                else:
                    best = tuple(node.lc.value(key))  # type: ignore[attr-defined,assignment]
            except (AttributeError, KeyError, TypeError):
                pass
            node = value
    return best


# Line breaks other than \n and \r\n, which str.splitlines also splits at.
_OTHER_BREAKS_RE = re.compile("\r(?!\n)|[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_OTHER_ASCII_BREAKS = "\x0b\x0c\x1c\x1d\x1e"


def _other_breaks(text: str) -> bool:
    """Whether ``text`` has a line break other than \n and \r\n. For ASCII text, `in` first: the
    regular expression tries every position of a long text."""
    if not text.isascii() or "\r" in text:
        return _OTHER_BREAKS_RE.search(text) is not None
    return any(char in text for char in _OTHER_ASCII_BREAKS)


def _marker_lines(text: str) -> Iterator[int]:
    """The offsets of the lines that start with a ``---`` marker (``---`` then a blank, a line
    break or the end), for a text without lone carriage returns. Found with ``str.find``: a
    regular expression anchored at line starts tries every position of a long text."""
    at = text.find("---")
    while at != -1:
        if at == 0 or text[at - 1] == "\n":
            after = text[at + 3 : at + 5]
            if not after or after[0] in " \t\n" or after == "\r\n" or after == "\r":
                yield at
        at = text.find("---", at + 3)


def split_documents(text: str) -> Iterator[tuple[int, str]]:
    """Yield ``(start_line, chunk)``; the chunks concatenate back to ``text`` exactly.

    A chunk starts at a ``---`` marker line (which stays in it); ``...`` ends a document.
    """
    if not _other_breaks(text):
        # Markers found in the text: a cluster dump of some ten million lines is
        # not made into a list of lines (and a text of one document is yielded as it is).
        start = start_line = 0
        for at in _marker_lines(text):
            if at == start:  # the chunk's own marker
                continue
            yield start_line, text[start:at]
            start_line += text.count("\n", start, at)
            start = at
        if start < len(text) or not text:
            yield start_line, text[start:]
        return
    lines = text.splitlines(keepends=True)
    start = 0
    for i, line_text in enumerate(lines):
        if i > start and line_text.startswith("---") and _MARKER_RE.match(line_text):
            yield start, "".join(lines[start:i])
            start = i
    if start < len(lines):
        yield start, "".join(lines[start:])
    elif not lines:
        yield 0, ""


def has_content(chunk: str) -> bool:
    """Whether a chunk holds anything but markers, comments, directives and blank lines."""
    for line in chunk.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if _MARKER_RE.match(line) and not stripped[3:].strip(" \t").split("#", 1)[0].strip():
            continue
        if stripped.startswith("%"):
            continue
        return True
    return False
