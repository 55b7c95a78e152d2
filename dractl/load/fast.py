"""A fast reader for files nothing will edit (``lint``, ``explain``): libyaml, positions kept.

ruamel.yaml's round-trip parser, which keeps comments for ``convert``, is pure Python and reads
about 60 KB per CPU second: a cluster dump of 100,000 small objects takes minutes. Files that
are only checked or read for reference need values and positions (messages point into them),
not comments (lint finds its suppression comments in the text). This module composes each document with libyaml
(PyYAML's C parser) and builds the tree itself, resolving plain scalars with the same go-yaml v2
(YAML 1.1) table as :mod:`dractl.load.yaml11`, so values, the recorded YAML 1.1 surprises and
the positions that ``Document.position`` reads are those of the round-trip loader.

Anything outside the plain subset that manifests and dumps use gives up (returns None) and the
caller reads the document with the round-trip loader, so errors and unusual documents keep their
exact diagnostics: syntax errors, duplicate keys, anchors and aliases, merge keys, explicit tags
other than ``!!str``/``!!map``/``!!seq``, non-scalar keys, characters whose reading differs
between YAML 1.1 and 1.2 (NEL, line and paragraph separators) and tabs.
"""

from __future__ import annotations

import copy
import math
import re
from operator import itemgetter
from typing import Any

from dractl.load.yaml11 import (
    _PLAIN_DECIMAL_RE,
    _SPECIAL_FLOAT_RE,
    _YAML12_BOOLS,
    BOOL_TRUE,
    IMPLICIT_RESOLVERS,
    go_yaml_int,
)

# Tags the resolver gives nodes without an explicit tag: a plain scalar is an untagged scalar of
# plain style. An explicit tag, even ``!!str``, is left to the round-trip loader: it makes a
# tagged scalar there, which is not a ``str`` before the model.
_UNTAGGED = "tag:dractl,2026:untagged"
_QUOTED = "tag:dractl,2026:quoted"  # a quoted or block scalar, or one tagged "!": a string
# Characters libyaml (YAML 1.1) and ruamel.yaml (YAML 1.2) may read differently.
_UNSURE = "[\t\x85\u2028\u2029\ufeff]"  # compiled for the first text that is not ASCII
_RESOLVERS: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
for _tag, _pattern, _first in IMPLICIT_RESOLVERS:
    for _char in _first:
        _RESOLVERS.setdefault(_char, []).append((_tag, _pattern))


def unsure(text: str) -> bool:
    """Whether ``text`` has a character libyaml and ruamel.yaml may read differently."""
    # The only one in ASCII is the tab; str.isascii() and `in` do not scan in Python.
    return "\t" in text or (not text.isascii() and re.search(_UNSURE, text) is not None)


class GiveUp(Exception):
    """This document is left to the round-trip loader."""


class Marks:
    """The part of ruamel.yaml's ``lc`` attribute that positions use: 0-based line and column of
    the collection, of each key and value (mappings) or item (sequences)."""

    __slots__ = ("col", "data", "line")

    def __init__(self, line: int, col: int, data: Any = None) -> None:
        self.line = line
        self.col = col
        # mapping: key -> (key line, key column, value line, value column); sequence: a list of
        # (line, column) per item
        self.data: Any = {} if data is None else data

    def key(self, key: Any) -> tuple[int, int]:
        marks = self.data[key]
        return marks[0], marks[1]

    def value(self, key: Any) -> tuple[int, int]:
        marks = self.data[key]
        return marks[2], marks[3]

    def item(self, index: int) -> tuple[int, int]:
        try:
            marks = self.data[index]
        except IndexError:
            raise KeyError(index) from None
        return marks[0], marks[1]


# The builder keeps each collection's marks as (line, column, data) and makes the ``lc`` object
# only when a position is asked for (rarely: for a diagnostic).
# A copy is plain data: positions belong to the text the original was read from.
class MarkedDict(dict[Any, Any]):
    __slots__ = ("_marks",)

    @property
    def lc(self) -> Marks:
        return Marks(*self._marks)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        return {key: copy.deepcopy(value, memo) for key, value in self.items()}


class MarkedList(list[Any]):
    __slots__ = ("_marks",)

    @property
    def lc(self) -> Marks:
        return Marks(*self._marks)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(value, memo) for value in self]


class ReadAgain:
    """Marks for a document whose tree was read without them (in another process, see
    :mod:`dractl.load.forked`): its text is read again, with marks, when a position is first
    asked for (``Document.positions``). The text read whole before, so it reads again alike."""

    __slots__ = ("text", "tree")

    def __init__(self, text: str) -> None:
        self.text = text
        self.tree: Any = _UNREAD

    def marked(self, path: Any) -> tuple[Any, Any]:
        if self.tree is _UNREAD:
            read = load_fast(self.text)
            self.tree = None if read is None else read.tree
        return self.tree, path


_UNREAD = object()


class Reading(tuple[Any, dict[tuple[int, int], str], bool, int]):
    """``(tree, yaml11, str_keys, nodes)``; ``nodes`` counts every value (mapping keys are not
    counted). A tuple with named fields written out: ``typing.NamedTuple`` compiles the source of
    its methods when the class is made, a noticeable part of a lint of one small file."""

    __slots__ = ()
    tree = property(itemgetter(0))
    yaml11 = property(itemgetter(1))
    str_keys = property(itemgetter(2))
    nodes = property(itemgetter(3))


def load_fast(text: str, max_nodes: int | None = None, max_depth: int | None = None,
              line_offset: int = 0, marks: bool = True) -> Reading | None:
    """``(tree, yaml11, str_keys, nodes)`` of one document as the round-trip loader reads it, or
    None to use it (also for a tree of more than ``max_nodes`` nodes or ``max_depth`` levels).

    ``yaml11`` maps 0-based ``(line, column)`` to the text of each plain scalar whose YAML 1.1
    value differs from its YAML 1.2 reading (as ``KubectlConstructor.yaml11``). ``str_keys``:
    every key is a string, so the tree is JSON-like data as it is (marks aside).
    ``line_offset`` is added to every line: ``text`` is a part of a document, from that line.
    ``marks=False``: plain dicts and lists without positions (cheaper to build and to send to
    another process; the same text read with marks gives them, see :class:`ReadAgain`).
    """
    if unsure(text):
        return None
    try:
        composer = _composer_class()(text)
    except UnicodeEncodeError:  # lone surrogates
        return None
    try:
        node = composer.get_single_node()
        builder = _Builder(max_nodes, max_depth, anchors="&" in text, line_offset=line_offset, marks=marks)
        tree = builder.build(node) if node is not None else None
        return Reading((tree, builder.yaml11, builder.str_keys, builder.nodes))
    except Exception:  # any problem at all: the round-trip loader decides, with its messages
        return None
    finally:
        composer.dispose()


_COMPOSER: Any = None


def _composer_class() -> Any:
    """libyaml's parser and composer, with a resolver that leaves plain scalars to ``_Builder``."""
    global _COMPOSER
    if _COMPOSER is None:
        from yaml._yaml import CParser
        from yaml.nodes import ScalarNode
        from yaml.resolver import BaseResolver

        class Composer(CParser, BaseResolver):  # type: ignore[misc]
            def __init__(self, text: str) -> None:
                CParser.__init__(self, text)
                BaseResolver.__init__(self)

            # Path resolvers are not used: BaseResolver's bookkeeping, which libyaml's composer
            # calls twice for every node, is left out. C callables that take the same arguments
            # and do nothing observable cost a third of a Python function that does nothing.
            descend_resolver = slice  # (current_node, current_index)
            ascend_resolver = tuple  # ()

            def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
                # implicit[0]: plain and untagged (or tagged "!"), as in ruamel's composer
                return _QUOTED if kind is ScalarNode and not implicit[0] else _UNTAGGED

        _COMPOSER = Composer
    return _COMPOSER


_UNRESOLVED = object()
# Plain scalars repeat (drivers, models, counts, booleans): each distinct text is resolved once
# per process, as (value, whether YAML 1.2 reads it otherwise); at most _RESOLVED_MAX texts.
_RESOLVED: dict[str, tuple[Any, bool]] = {}
_RESOLVED_MAX = 100_000


class _Builder:
    """Builds one document's tree; gives up (:class:`GiveUp`) on what the round-trip loader must
    read, and on a tree beyond ``max_nodes`` nodes or ``max_depth`` levels (the round-trip
    loader then words the limit's diagnostic).

    ``anchors``: whether the text may hold anchors (``&``); without them no node is shared, so
    nodes need not be remembered to find aliases."""

    def __init__(self, max_nodes: int | None = None, max_depth: int | None = None,
                 anchors: bool = True, line_offset: int = 0, marks: bool = True) -> None:
        self.line_offset = line_offset  # added to every line (a part of a larger text)
        self.marks = marks  # False: plain dicts and lists
        self.yaml11: dict[tuple[int, int], str] = {}
        self.str_keys = True  # whether every mapping key is a string (as in JSON)
        self.nodes = 0
        self.max_nodes = max_nodes if max_nodes is not None else math.inf
        self.max_depth = max_depth if max_depth is not None else math.inf
        self.anchors = anchors

    def build(self, root: Any) -> Any:
        """The tree of ``root``; one function with everything it uses in local variables, as
        this runs for every node of every input (a dump has millions)."""
        from yaml.nodes import MappingNode, ScalarNode

        scalar_class, mapping_class = ScalarNode, MappingNode
        yaml11, max_depth, max_nodes = self.yaml11, self.max_depth, self.max_nodes
        offset = self.line_offset
        marked = self.marks
        seen: set[int] | None = set() if self.anchors else None
        resolvers, resolved, resolved_max = _RESOLVERS, _RESOLVED, _RESOLVED_MAX
        untagged, quoted, unresolved = _UNTAGGED, _QUOTED, _UNRESOLVED
        # Without aliases (given up on) every node is written: the count is the tree's size.
        count = 0
        str_keys = True

        def scalar(node: Any) -> Any:
            text = node.value
            tag = node.tag
            if node.style or tag is quoted:  # quoted or block, or tagged "!"
                if tag is untagged or tag is quoted:
                    return text
                raise GiveUp
            if tag is not untagged or not text:
                # An empty value's position is not where ruamel.yaml puts it (after the colon,
                # or at the next token, depending on comments); dumps write ``null``.
                raise GiveUp
            rules = resolvers.get(text[0])
            if rules is None:  # a plain string: no implicit type starts with this character
                return text
            found = resolved.get(text)
            if found is None:
                found = _resolve(text, rules)
                if len(resolved) < resolved_max:
                    resolved[text] = found
            value, noted = found
            if value is unresolved:
                raise GiveUp
            if noted:
                mark = node.start_mark
                yaml11[(mark.line + offset, mark.column)] = text
            return value

        def build(node: Any, depth: int) -> Any:
            nonlocal count, str_keys
            if depth > max_depth:
                raise GiveUp
            if seen is not None:
                if id(node) in seen:  # an alias: ruamel decides how to share it
                    raise GiveUp
                seen.add(id(node))
            if node.tag is not untagged:
                raise GiveUp
            mark = node.start_mark
            children = node.value
            count += len(children)
            if count >= max_nodes or (depth >= max_depth and children):
                raise GiveUp
            if node.__class__ is mapping_class:
                data: dict[Any, tuple[int, int, int, int]] = {}
                if marked:
                    mapping: dict[Any, Any] = MarkedDict()
                    mapping._marks = (mark.line + offset, mark.column, data)  # type: ignore[attr-defined]
                else:
                    mapping = {}
                for key_node, value_node in children:
                    if key_node.__class__ is not scalar_class:
                        raise GiveUp
                    # Inline: a quoted scalar, or a plain one no implicit type starts like (most
                    # keys and values), is its text; ``scalar`` decides the others.
                    text = key_node.value
                    if key_node.tag is untagged and (key_node.style or (text and text[0] not in resolvers)):
                        key = text
                    else:
                        key = scalar(key_node)  # a plain "<<" (merge key) gives up there
                        if key.__class__ is not str:
                            str_keys = False
                    if key in mapping:
                        raise GiveUp  # duplicate key
                    if value_node.__class__ is scalar_class:
                        text = value_node.value
                        if value_node.tag is untagged and (value_node.style or (text and text[0] not in resolvers)):
                            mapping[key] = text
                        else:
                            mapping[key] = scalar(value_node)
                    else:
                        mapping[key] = build(value_node, depth + 1)
                    if marked:
                        key_mark, value_mark = key_node.start_mark, value_node.start_mark
                        data[key] = (key_mark.line + offset, key_mark.column, value_mark.line + offset, value_mark.column)
                return mapping
            if not marked:
                return [scalar(item) if item.__class__ is scalar_class else build(item, depth + 1)
                        for item in children]
            sequence = MarkedList()
            items: list[tuple[int, int]] = []
            sequence._marks = (mark.line + offset, mark.column, items)
            append, mark_item = sequence.append, items.append
            for item in children:
                if item.__class__ is scalar_class:
                    append(scalar(item))
                else:
                    append(build(item, depth + 1))
                item_mark = item.start_mark
                mark_item((item_mark.line + offset, item_mark.column))
            return sequence

        if root.__class__ is scalar_class:
            if self.max_nodes < 1:
                raise GiveUp
            self.nodes = 1
            return scalar(root)
        try:
            tree = build(root, 0)
        finally:
            # `build` calls itself through its closure, a cycle only the collector would free:
            # emptying the cell frees it now (reading may run with the collector off).
            build = None  # type: ignore[assignment]
        self.str_keys = str_keys
        self.nodes = count + 1
        return tree


def _resolve(text: str, rules: list[tuple[str, re.Pattern[str]]]) -> tuple[Any, bool]:
    """The value of a plain scalar, and whether it is one of the recorded YAML 1.1 surprises."""
    resolved = next((tag for tag, rx in rules if rx.match(text)), None)
    if resolved is None:
        return text, False
    if resolved.endswith(":bool"):
        return text in BOOL_TRUE, text not in _YAML12_BOOLS
    if resolved.endswith(":null"):
        return None, False  # "~" and "null" spellings; empty values were left above
    if resolved.endswith(":int"):
        value = go_yaml_int(text)
        return value, not (isinstance(value, int) and _PLAIN_DECIMAL_RE.match(text))
    if resolved.endswith(":float"):
        if _SPECIAL_FLOAT_RE.match(text):
            if "nan" in text.lower():
                return math.nan, False
            return (-math.inf if text.startswith("-") else math.inf), False
        return float(text.replace("_", "")), False
    return _UNRESOLVED, False  # merge keys as values, or a tag added to the table later
