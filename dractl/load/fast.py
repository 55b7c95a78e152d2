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

import math
import re
from typing import Any

from dractl.load.yaml11 import (
    _PLAIN_DECIMAL_RE,
    _SPECIAL_FLOAT_RE,
    _YAML12_BOOLS,
    BOOL_TRUE,
    IMPLICIT_RESOLVERS,
    go_yaml_int,
)

# Tags the resolver gives untagged nodes. An explicit tag, even ``!!str``, is left to the
# round-trip loader: it makes a tagged scalar there, which is not a ``str`` before the model.
_PLAIN = "tag:dractl,2026:plain"  # plain scalar, resolved by _Builder
_QUOTED = "tag:dractl,2026:quoted"  # quoted or block scalar: a string
_MAP = "tag:dractl,2026:map"
_SEQ = "tag:dractl,2026:seq"
# Characters libyaml (YAML 1.1) and ruamel.yaml (YAML 1.2) may read differently.
_UNSURE_RE = re.compile("[\t\x85\u2028\u2029\ufeff]")
_RESOLVERS: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
for _tag, _pattern, _first in IMPLICIT_RESOLVERS:
    for _char in _first:
        _RESOLVERS.setdefault(_char, []).append((_tag, _pattern))


class GiveUp(Exception):
    """This document is left to the round-trip loader."""


class Marks:
    """The part of ruamel.yaml's ``lc`` attribute that positions use: 0-based line and column of
    the collection, of each key and value (mappings) or item (sequences)."""

    __slots__ = ("col", "data", "line")

    def __init__(self, line: int, col: int) -> None:
        self.line = line
        self.col = col
        self.data: dict[Any, tuple[int, ...]] = {}

    def key(self, key: Any) -> tuple[int, int]:
        marks = self.data[key]
        return marks[0], marks[1]

    def value(self, key: Any) -> tuple[int, int]:
        marks = self.data[key]
        return marks[2], marks[3]

    def item(self, index: int) -> tuple[int, int]:
        marks = self.data[index]
        return marks[0], marks[1]


class MarkedDict(dict[Any, Any]):
    __slots__ = ("lc",)


class MarkedList(list[Any]):
    __slots__ = ("lc",)


def load_fast(text: str, max_nodes: int | None = None,
              max_depth: int | None = None) -> tuple[Any, dict[tuple[int, int], str]] | None:
    """``(tree, yaml11)`` of one document as the round-trip loader reads it, or None to use it
    (also for a tree of more than ``max_nodes`` nodes or ``max_depth`` levels).

    ``yaml11`` maps 0-based ``(line, column)`` to the text of each plain scalar whose YAML 1.1
    value differs from its YAML 1.2 reading (as ``KubectlConstructor.yaml11``).
    """
    if _UNSURE_RE.search(text):
        return None
    try:
        composer = _composer_class()(text)
    except UnicodeEncodeError:  # lone surrogates
        return None
    try:
        node = composer.get_single_node()
        builder = _Builder(max_nodes, max_depth)
        return builder.build(node) if node is not None else None, builder.yaml11
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
        from yaml.nodes import MappingNode, ScalarNode
        from yaml.resolver import BaseResolver

        class Composer(CParser, BaseResolver):  # type: ignore[misc]
            def __init__(self, text: str) -> None:
                CParser.__init__(self, text)
                BaseResolver.__init__(self)

            # Path resolvers are not used: skip BaseResolver's bookkeeping for every node.
            def descend_resolver(self, current_node: Any, current_index: Any) -> None:
                pass

            def ascend_resolver(self) -> None:
                pass

            def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
                if kind is ScalarNode:
                    # implicit[0]: plain and untagged (or tagged "!"), as in ruamel's composer
                    return _PLAIN if implicit[0] else _QUOTED
                return _MAP if kind is MappingNode else _SEQ

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
    loader then words the limit's diagnostic)."""

    def __init__(self, max_nodes: int | None = None, max_depth: int | None = None) -> None:
        from yaml.nodes import MappingNode, ScalarNode, SequenceNode

        self.scalar, self.mapping, self.sequence = ScalarNode, MappingNode, SequenceNode
        self.yaml11: dict[tuple[int, int], str] = {}
        self.seen: set[int] = set()
        # Without aliases (given up on) every node is written: the count is the tree's size.
        self.room = max_nodes if max_nodes is not None else math.inf
        self.max_depth = max_depth if max_depth is not None else math.inf

    def build(self, node: Any, depth: int = 0) -> Any:
        self.room -= 1
        if self.room < 0 or depth > self.max_depth:
            raise GiveUp
        cls = node.__class__
        if cls is self.scalar:
            return self.build_scalar(node)
        if id(node) in self.seen:  # an alias: ruamel decides how to share it
            raise GiveUp
        self.seen.add(id(node))
        mark = node.start_mark
        marks = Marks(mark.line, mark.column)
        if cls is self.mapping:
            if node.tag != _MAP:
                raise GiveUp
            mapping = MarkedDict()
            mapping.lc = marks
            data = marks.data
            for key_node, value_node in node.value:
                if key_node.__class__ is not self.scalar:
                    raise GiveUp
                key = self.build_scalar(key_node)
                if key in mapping or (key_node.tag == _PLAIN and key_node.value == "<<"):
                    raise GiveUp  # duplicate or merge key
                mapping[key] = self.build(value_node, depth + 1)
                key_mark, value_mark = key_node.start_mark, value_node.start_mark
                data[key] = (key_mark.line, key_mark.column, value_mark.line, value_mark.column)
            return mapping
        if node.tag != _SEQ:
            raise GiveUp
        sequence = MarkedList()
        sequence.lc = marks
        data = marks.data
        for index, item in enumerate(node.value):
            sequence.append(self.build(item, depth + 1))
            item_mark = item.start_mark
            data[index] = (item_mark.line, item_mark.column)
        return sequence

    def build_scalar(self, node: Any) -> Any:
        tag, text = node.tag, node.value
        if tag == _QUOTED:
            return text
        if tag != _PLAIN or not text:
            # An empty value's position is not where ruamel.yaml puts it (after the colon, or at
            # the next token, depending on comments); dumps write ``null``.
            raise GiveUp
        rules = _RESOLVERS.get(text[0])
        if rules is None:  # a plain string: no implicit type starts with this character
            return text
        found = _RESOLVED.get(text)
        if found is None:
            found = _resolve(text, rules)
            if len(_RESOLVED) < _RESOLVED_MAX:
                _RESOLVED[text] = found
        value, noted = found
        if value is _UNRESOLVED:
            raise GiveUp
        if noted:
            self.note(node)
        return value

    def note(self, node: Any) -> None:
        mark = node.start_mark
        self.yaml11[(mark.line, mark.column)] = node.value


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
