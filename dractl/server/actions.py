"""Code actions: "Convert this document to v1" with ``dractl convert``'s machinery on the buffer's
text (comments and layout kept; nothing offered when the conversion would lose a field)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dractl.records import Record

if TYPE_CHECKING:
    from dractl.load import Document

TARGET = "v1"


class Replacement(Record):
    """The buffer's text from the start of line ``start`` to (``end_line``, ``end_column``)
    (0-based, characters) becomes ``text``."""

    __slots__ = ("end_column", "end_line", "start", "text", "title")

    def __init__(self, title: str, start: int, end_line: int, end_column: int, text: str) -> None:
        self.title = title
        self.start = start
        self.end_line = end_line
        self.end_column = end_column
        self.text = text


def conversions(path: str, text: str, first_line: int, last_line: int) -> list[Replacement]:
    """A conversion to v1 of each document of the buffer that lines ``first_line`` to
    ``last_line`` (0-based, inclusive) touch and that convert would change."""
    from dractl.convert.engine import Options, Status, convert_file
    from dractl.load import SourceFile, load_text

    loaded = load_text(text, path)  # with comments: convert keeps them
    if not loaded.files or loaded.files[0].template:
        return []
    source = loaded.files[0]
    out = []
    for document in source.documents:
        start = document.start_line
        end_line, end_column = _end(document)
        last = end_line - 1 if end_column == 0 else end_line
        if document.raw is None or last < first_line or start > last_line:
            continue
        alone = SourceFile(path, document.text, source.format, documents=[document], real_path=path)
        converted = convert_file(alone, Options(TARGET))
        if converted.status is not Status.CONVERTED:
            continue
        what = _what(document)
        out.append(Replacement(f"Convert {what} to {TARGET}", start, end_line, end_column, converted.text))
    return out


def _end(document: Document) -> tuple[int, int]:
    """Where the document's text ends: the start of the line after it, or the end of its last
    line when the file ends without a line break."""
    text = document.text
    last = text.rpartition("\n")[2]
    return document.start_line + text.count("\n"), len(last)


def _what(document: Document) -> str:
    raw = document.raw
    if isinstance(raw, dict):
        kind = raw.get("kind")
        metadata = raw.get("metadata")
        name = metadata.get("name") if isinstance(metadata, dict) else None
        if isinstance(kind, str):
            return f"{kind} {name}" if isinstance(name, str) else kind
    return "this document"
