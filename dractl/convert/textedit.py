"""Applying a conversion plan to a document's text, touching only the lines that change.

Every edit becomes a replacement of a span of the original text, found from the positions the
round-trip parser recorded: moved keys take their comment lines, their end-of-line comments and
their nested blocks with them, re-indented by the file's own indentation step; flow mappings are
rebuilt from the original text of their items. Everything outside the spans stays byte for byte.
Layouts this module does not handle raise :class:`Unsupported`; the caller then falls back to
re-emitting the whole document.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dractl.convert.plan import Delete, Edit, Hoist, Insert, Nest, SetScalar, SetVersion, TreePath


class Unsupported(Exception):
    """The text cannot be edited in place; re-emit the document instead."""


_LINE_BREAK = re.compile(r"\r\n|\n|\r")


@dataclass
class _Replacement:
    start: int
    end: int
    text: str


class _Text:
    """A document's text with line arithmetic; ``base`` is the parser's line number of line 0."""

    def __init__(self, text: str, base: int) -> None:
        self.text = text
        self.base = base
        self.starts = [0]
        for match in _LINE_BREAK.finditer(text):
            self.starts.append(match.end())
        first_break = _LINE_BREAK.search(text)
        self.newline = first_break.group() if first_break else "\n"

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def index(self, line: int) -> int:
        """Index into our lines of the parser's line number ``line``."""
        return line - self.base

    def offset(self, line: int, column: int) -> int:
        return self.starts[self.index(line)] + column

    def line_start(self, index: int) -> int:
        return self.starts[index] if index < len(self.starts) else len(self.text)

    def line(self, index: int) -> str:
        """Line ``index`` (our numbering) with its line break."""
        return self.text[self.line_start(index) : self.line_start(index + 1)]

    def body(self, index: int) -> str:
        """Line ``index`` without its line break."""
        return _LINE_BREAK.sub("", self.line(index))


def _indent_of(body: str) -> int:
    return len(body) - len(body.lstrip(" "))


def _is_blank(body: str) -> bool:
    return body.strip() == ""


def _is_comment(body: str) -> bool:
    return body.lstrip(" \t").startswith("#")


# --- scanning flow text and end-of-line comments -------------------------------------------------


def _skip_quoted(text: str, pos: int) -> int:
    """Index just after the quoted scalar starting at ``pos``."""
    quote = text[pos]
    pos += 1
    while pos < len(text):
        char = text[pos]
        if quote == '"' and char == "\\":
            pos += 2
            continue
        if char == quote:
            if quote == "'" and text.startswith("''", pos):
                pos += 2
                continue
            return pos + 1
        pos += 1
    raise Unsupported("unterminated quoted scalar")


def _comment_start(text: str, pos: int, end: int) -> int | None:
    """Where a ``#`` comment starts on the line between ``pos`` and ``end``, quote-aware; None
    when the line has no comment."""
    token_start = True
    while pos < end:
        char = text[pos]
        if char in "\"'" and token_start:
            pos = _skip_quoted(text, pos)
            token_start = False
            continue
        if char == "#" and (pos == 0 or text[pos - 1] in " \t"):
            return pos
        token_start = char in " \t{[,:"
        pos += 1
    return None


@dataclass
class _FlowItems:
    """The items of a flow mapping ``{...}`` spanning ``start``..``end`` (braces included)."""

    start: int
    end: int
    items: list[tuple[int, int]]
    separator: str
    opening: str
    closing: str


def _flow_mapping(text: str, start: int) -> _FlowItems:
    if start >= len(text) or text[start] != "{":
        raise Unsupported("flow mapping expected")
    depth = 0
    pos = start
    item_start = start + 1
    spans: list[tuple[int, int]] = []
    separators: list[str] = []
    token_start = True
    while pos < len(text):
        char = text[pos]
        if char in "\"'" and token_start:
            pos = _skip_quoted(text, pos)
            token_start = False
            continue
        if char == "#" and text[pos - 1] in " \t\r\n":
            raise Unsupported("comment inside a flow mapping")
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                spans.append((item_start, pos))
                break
        elif char == "," and depth == 1:
            spans.append((item_start, pos))
            item_start = pos + 1
        token_start = char in " \t\r\n{[,:"
        pos += 1
    else:
        raise Unsupported("unterminated flow mapping")
    end = pos + 1
    items: list[tuple[int, int]] = []
    for index, (a, b) in enumerate(spans):
        chunk = text[a:b]
        if chunk.strip() == "":
            if index == len(spans) - 1:
                continue  # trailing comma or empty mapping
            raise Unsupported("empty flow item")
        lead = len(chunk) - len(chunk.lstrip())
        trail = len(chunk) - len(chunk.rstrip())
        items.append((a + lead, b - trail))
    for (_, a_end), (b_start, _) in itertools.pairwise(items):
        separators.append(text[a_end:b_start])
    separator = separators[0] if separators else ", "
    if items:
        opening = text[start : items[0][0]]
        closing = text[items[-1][1] : end]
        if "," in closing:
            closing = closing.replace(",", "", 1)
    else:
        opening, closing = "{", "}"
    return _FlowItems(start, end, items, separator, opening, closing)


# --- block mapping layout ------------------------------------------------------------------------


@dataclass
class _Entry:
    key: str
    line: int  # our line index of the key
    lead: int  # first of the comment lines right above the key that belong to it
    end: int  # one past its last line


@dataclass
class _Block:
    column: int
    entries: dict[str, _Entry]
    order: list[str]
    first_offset: int  # offset of the first key (after a "- " prefix, if any)

    def is_first(self, key: str) -> bool:
        return self.order[0] == key

    def start(self, text: _Text, key: str, *, with_lead: bool) -> int:
        """Offset where ``key``'s span starts."""
        if self.is_first(key):
            return self.first_offset
        entry = self.entries[key]
        return text.line_start(entry.lead if with_lead else entry.line)

    def end(self, text: _Text, key: str) -> int:
        return text.line_start(self.entries[key].end)


def _block_layout(text: _Text, mapping: Any) -> _Block:
    keys = list(mapping)
    if not keys:
        raise Unsupported("empty block mapping")
    positions = [mapping.lc.key(key) for key in keys]
    column = positions[0][1]
    lines = [text.index(line) for line, _ in positions]
    if any(col != column for _, col in positions) or any(
        b <= a for a, b in itertools.pairwise(lines)
    ):
        raise Unsupported("keys not one per line in one column")
    if any(not isinstance(key, str) for key in keys):
        raise Unsupported("non-string key")
    entries: dict[str, _Entry] = {}
    for index, key in enumerate(keys):
        line = lines[index]
        limit = lines[index + 1] if index + 1 < len(lines) else _block_end(text, line, column)
        end = line + 1
        for candidate in range(line + 1, limit):
            body = text.body(candidate)
            if _is_blank(body):
                continue
            if not _is_comment(body) or _indent_of(body) > column:
                end = candidate + 1
        entries[key] = _Entry(key, line, line, end)
        if index > 0:
            previous = entries[keys[index - 1]]
            lead = line
            while lead - 1 >= previous.end:
                body = text.body(lead - 1)
                if not _is_comment(body) or _indent_of(body) > column:
                    break
                lead -= 1
            entries[key].lead = lead
    return _Block(column, entries, keys, text.offset(positions[0][0], column))


def _block_end(text: _Text, line: int, column: int) -> int:
    """One past the last line that can belong to a block mapping whose last key is on ``line``."""
    for candidate in range(line + 1, text.line_count):
        body = text.body(candidate)
        if _is_blank(body) or _is_comment(body):
            continue
        if _indent_of(body) < column or body.startswith(("---", "...")):
            return candidate
    return text.line_count


# --- the editor ----------------------------------------------------------------------------------


#: Left where a mapping's first key was removed; the next key is then pulled up to its place
#: (onto the "- " line of a sequence item). YAML text cannot contain NUL, so it cannot clash.
_PULL_UP = "\x00"
_PULL_UP_RE = re.compile(r"[ \t]*\x00[ \t]*(?=\r|\n|$)|\x00[ \t]*")


class _Editor:
    def __init__(self, text: _Text, root: Any, indent: int) -> None:
        self.text = text
        self.root = root
        self.indent = indent
        self.replacements: list[_Replacement] = []

    def node(self, path: TreePath) -> Any:
        node = self.root
        for item in path:
            node = node[item]
        return node

    def replace(self, start: int, end: int, new: str) -> None:
        self.replacements.append(_Replacement(start, end, new))

    def run(self, edits: list[Edit]) -> str:
        grouped: dict[int, tuple[Any, list[Edit]]] = {}
        for edit in edits:
            mapping = self.node(edit.path)
            if isinstance(edit, SetVersion):
                self.set_version(mapping, edit)
            elif isinstance(edit, SetScalar):
                self.set_scalar(mapping, edit)
            else:
                # All edits of one mapping are planned together: they share its layout.
                grouped.setdefault(id(mapping), (mapping, []))[1].append(edit)
        for mapping, mapping_edits in grouped.values():
            if _is_flow(mapping):
                self.flow_rebuild(mapping, mapping_edits)
            else:
                self.block_edit(mapping, mapping_edits)
        return self.assemble()

    def assemble(self) -> str:
        ordered = sorted(self.replacements, key=lambda r: (r.start, r.end))
        for first, second in itertools.pairwise(ordered):
            if second.start < first.end:
                raise Unsupported("edits overlap")
        out = self.text.text
        for replacement in reversed(ordered):
            out = out[: replacement.start] + replacement.text + out[replacement.end :]
        return _PULL_UP_RE.sub("", out)

    # apiVersion

    def set_version(self, mapping: Any, edit: SetVersion) -> None:
        value = str(mapping["apiVersion"])
        line, column = mapping.lc.value("apiVersion")
        start = self.text.offset(line, column)
        found = self.text.text.find(value, start, start + len(value) + 1)
        if found < 0:
            raise Unsupported("apiVersion text not found")
        version_at = found + len(value) - len(edit.old)
        self.replace(version_at, version_at + len(edit.old), edit.new)

    def set_scalar(self, mapping: Any, edit: SetScalar) -> None:
        line, column = mapping.lc.value(edit.key)
        start = self.text.offset(line, column)
        index = self.text.index(line)
        end_of_line = self.text.line_start(index) + len(self.text.body(index))
        source = self.text.text
        if source[start] in "\"'":
            end = _skip_quoted(source, start)
        else:
            end = start
            while end < end_of_line and source[end] not in ",}]#":
                end += 1
            while end > start and source[end - 1] in " \t":
                end -= 1
        if end > end_of_line or (end == start and mapping[edit.key] not in (None, "")):
            raise Unsupported("scalar spans lines")
        self.replace(start, end, _scalar_text(edit.value))

    # block mappings

    def block_edit(self, mapping: Any, edits: list[Edit]) -> None:
        layout = _block_layout(self.text, mapping)
        pad = " " * layout.column
        newline = self.text.newline
        remaining = set(layout.order)
        added = 0
        pieces: dict[str, str] = {}  # key -> replacement of its span
        with_lead: set[str] = set()
        for edit in edits:
            if isinstance(edit, Delete):
                remaining.discard(edit.key)
                comment = self.eol_comment(mapping, edit.key, layout.entries[edit.key])
                pieces[edit.key] = f"{pad}{comment}{newline}" if comment else ""
            elif isinstance(edit, Hoist):
                remaining.discard(edit.key)
                lines = self.hoisted_lines(mapping, edit.key, layout)
                added += sum(1 for line in lines if not _is_comment(line))
                pieces[edit.key] = "".join(lines)
            elif isinstance(edit, Insert):
                added += 1
                at = layout.end(self.text, layout.order[-1])
                self.replace(at, at, f"{pad}{edit.key}: {_scalar_text(edit.value)}{newline}")
            elif isinstance(edit, Nest):
                added += 1
                into = _key_text(self.text, mapping, edit.into)
                if not edit.keys:
                    anchor = edit.after if edit.after in layout.entries else layout.order[-1]
                    at = layout.end(self.text, anchor)
                    self.replace(at, at, f"{pad}{into}: {{}}{newline}")
                    continue
                remaining.difference_update(edit.keys)
                with_lead.update(edit.keys)
                pieces[edit.keys[0]] = f"{pad}{into}:{newline}" + self.nested_lines(
                    edit.keys, layout
                )
                for key in edit.keys[1:]:
                    pieces[key] = ""
        if not remaining and not added:
            # Nothing is left of the mapping: it becomes an empty flow mapping.
            pieces[layout.order[0]] = f"{pad}{{}}{newline}" + pieces[layout.order[0]]
        for key, piece in pieces.items():
            start = layout.start(self.text, key, with_lead=key in with_lead)
            if layout.is_first(key):
                # The span starts after the "- " of a sequence item, already indented.
                piece = piece[min(layout.column, _indent_of(piece)) :] if piece else _PULL_UP
            self.replace(start, layout.end(self.text, key), piece)

    def eol_comment(self, mapping: Any, key: str, entry: _Entry) -> str | None:
        """The comment at the end of the key's line when its value ends on that line too."""
        if entry.end - 1 != entry.line:
            return None
        start = self.text.offset(*mapping.lc.key(key))
        end = self.text.line_start(entry.line) + len(self.text.body(entry.line))
        at = _comment_start(self.text.text, start, end)
        return None if at is None else self.text.text[at:end]

    def hoisted_lines(self, mapping: Any, key: str, layout: _Block) -> list[str]:
        """The lines that replace ``key``'s span when its mapping value moves up a level."""
        entry = layout.entries[key]
        value = mapping[key]
        pad = " " * layout.column
        newline = self.text.newline
        lines: list[str] = []
        if isinstance(value, Mapping) and value and not _is_flow(value):
            comment = self.key_line_comment(mapping, key, entry)
            if comment:
                lines.append(pad + comment + newline)
            step = value.lc.col - layout.column
            for index in range(entry.line + 1, entry.end):
                lines.append(_dedent(self.text.line(index), step))
            return lines
        after = self.text.offset(*mapping.lc.key(key))
        flow = None
        if isinstance(value, Mapping):
            flow = _flow_mapping(self.text.text, self.text.offset(*mapping.lc.value(key)))
            after = flow.end
        last = entry.end - 1
        end_of_line = self.text.line_start(last) + len(self.text.body(last))
        at = _comment_start(self.text.text, after, end_of_line) if after <= end_of_line else None
        if at is not None:
            lines.append(pad + self.text.text[at:end_of_line] + newline)
        if flow is not None:
            for a, b in flow.items:
                lines.append(pad + self.text.text[a:b] + newline)
        return lines

    def key_line_comment(self, mapping: Any, key: str, entry: _Entry) -> str | None:
        """The comment after ``key:`` when its value starts on a later line."""
        start = self.text.offset(*mapping.lc.key(key))
        end = self.text.line_start(entry.line) + len(self.text.body(entry.line))
        at = _comment_start(self.text.text, start, end)
        return None if at is None else self.text.text[at:end]

    def nested_lines(self, keys: tuple[str, ...], layout: _Block) -> str:
        """The spans of ``keys`` (with their comment lines), one indentation step deeper."""
        shift = " " * self.indent
        pad = " " * layout.column
        moved: list[str] = []
        for key in keys:
            entry = layout.entries[key]
            for index in range(entry.lead, entry.end):
                line = self.text.line(index)
                if index == entry.line and layout.is_first(key):
                    line = pad + line[layout.column :]
                moved.append(line if _is_blank(line) else shift + line)
        return "".join(moved)

    # flow mappings

    def flow_rebuild(self, mapping: Any, edits: list[Edit]) -> None:
        start = self.text.offset(mapping.lc.line, mapping.lc.col)
        flow = _flow_mapping(self.text.text, start)
        keys = list(mapping)
        if len(keys) != len(flow.items):
            raise Unsupported("flow mapping items do not match its keys")
        source = self.text.text
        items: list[tuple[str, str]] = [
            (k, source[a:b]) for k, (a, b) in zip(keys, flow.items, strict=True)
        ]
        for edit in edits:
            if isinstance(edit, Delete):
                items = [(k, t) for k, t in items if k != edit.key]
            elif isinstance(edit, Hoist):
                value = mapping[edit.key]
                inner: list[tuple[str, str]] = []
                if isinstance(value, Mapping) and value:
                    line, column = mapping.lc.value(edit.key)
                    nested = _flow_mapping(source, self.text.offset(line, column))
                    inner = [
                        (k, source[a:b]) for k, (a, b) in zip(value, nested.items, strict=True)
                    ]
                items = [pair for k, t in items for pair in (inner if k == edit.key else [(k, t)])]
            elif isinstance(edit, Insert):
                items.append(
                    (
                        edit.key,
                        f"{_key_text(self.text, mapping, edit.key)}: {_scalar_text(edit.value)}",
                    )
                )
            elif isinstance(edit, Nest):
                into = _key_text(self.text, mapping, edit.into)
                if edit.keys:
                    moved = ", ".join(t for k, t in items if k in edit.keys)
                    new = (edit.into, f"{into}: {{{moved}}}")
                    first = edit.keys[0]
                    items = [
                        new if k == first else (k, t)
                        for k, t in items
                        if k == first or k not in edit.keys
                    ]
                else:
                    anchor = edit.after if edit.after in dict(items) else None
                    new = (edit.into, f"{into}: {{}}")
                    if anchor is None:
                        items.append(new)
                    else:
                        at = [k for k, _ in items].index(anchor) + 1
                        items.insert(at, new)
        opening = flow.opening if items else "{"
        closing = flow.closing if items else "}"
        self.replace(
            flow.start, flow.end, opening + flow.separator.join(t for _, t in items) + closing
        )


def _is_flow(node: Any) -> bool:
    fa = getattr(node, "fa", None)
    return bool(fa is not None and fa.flow_style())


def _dedent(line: str, step: int) -> str:
    body = _LINE_BREAK.sub("", line)
    if _is_blank(body):
        return line
    indent = _indent_of(body)
    if indent >= step:
        return line[step:]
    if _is_comment(body):
        return line[indent:]
    raise Unsupported("line indented less than the block it belongs to")


def _scalar_text(value: str | int | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return value if re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", value) else json.dumps(value)


def _key_text(text: _Text, mapping: Any, key: str) -> str:
    """``key`` written with the quoting of the mapping's first key."""
    first = next(iter(mapping), None)
    if first is None:
        return key
    quote = text.text[text.offset(*mapping.lc.key(first))]
    return f"{quote}{key}{quote}" if quote in "\"'" else key


_BLOCK_SCALAR_HEADER = re.compile(r"(?:^|[\s:\-?])[|>][+-]?[1-9]?[+-]?\s*(?:#.*)?$")


def count_comments(text: str) -> int:
    """How many ``#`` comments ``text`` holds (block scalar content and quoted ``#`` excluded)."""
    count = 0
    scalar_indent: int | None = None
    for line in _LINE_BREAK.split(text):
        indent = _indent_of(line)
        if scalar_indent is not None:
            if _is_blank(line) or indent > scalar_indent:
                continue
            scalar_indent = None
        try:
            at = _comment_start(line, 0, len(line))
        except Unsupported:
            at = None
        if at is not None:
            count += 1
        code = line[:at] if at is not None else line
        if _BLOCK_SCALAR_HEADER.search(code.rstrip()):
            scalar_indent = indent
    return count


def edit_text(
    text: str, root: Any, edits: list[Edit], *, line_base: int = 0, indent: int = 2
) -> str:
    """``text`` (one document, parsed into ``root`` with its first line numbered ``line_base``)
    with ``edits`` applied; raises :class:`Unsupported` for layouts it cannot edit in place."""
    if not edits:
        return text
    # Working on text that ends with a line break keeps every moved line whole.
    unterminated = not text.endswith(("\n", "\r"))
    try:
        out = _Editor(_Text(text + "\n" if unterminated else text, line_base), root, indent).run(
            edits
        )
    except (KeyError, IndexError, AttributeError, TypeError, ValueError) as error:
        raise Unsupported(f"cannot locate an edit in the text: {error}") from error
    return re.sub(r"(?:\r\n|\n|\r)\Z", "", out) if unterminated else out
