"""A fast reader for files nothing will edit (``lint``, ``explain``): libyaml, positions kept.

ruamel.yaml's round-trip parser, which keeps comments for ``convert``, is pure Python and reads
about 60 KB per CPU second: a cluster dump of 100,000 small objects takes minutes. Files that
are only checked or read for reference need values and positions (messages point into them),
not comments (lint finds its suppression comments in the text). This module parses each document
with libyaml (PyYAML's C parser) and builds the tree itself from the parser's events, resolving
plain scalars with the same go-yaml v2 (YAML 1.1) table as :mod:`dractl.load.yaml11`, so values,
the recorded YAML 1.1 surprises and the positions that ``Document.position`` reads are those of
the round-trip loader.

Anything outside the plain subset that manifests and dumps use gives up (returns None) and the
caller reads the document with the round-trip loader, so errors and unusual documents keep their
exact diagnostics: syntax errors, duplicate keys, aliases and anchors defined twice, merge keys,
explicit tags (but ``!``), empty plain values, non-scalar keys, characters whose reading differs
between YAML 1.1 and 1.2 (NEL, line and paragraph separators) and tabs.
"""

from __future__ import annotations

import copy
import math
import re
import struct
from array import array
from collections.abc import Callable
from operator import itemgetter
from typing import Any

from dractl.load.yaml11 import (
    _PLAIN_DECIMAL_RE,
    _SPECIAL_FLOAT_RE,
    _YAML12_BOOLS,
    BOOL_TRUE,
    IMPLICIT_RESOLVERS,
    go_yaml_float,
    go_yaml_int,
)

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
    the collection, of each key and value (mappings) or item (sequences), read from the
    collection's compact marks (see :class:`MarkedDict`)."""

    __slots__ = ("_owner", "col", "line")

    def __init__(self, owner: MarkedDict | MarkedList) -> None:
        self._owner = owner
        self.line, self.col = _TWO.unpack_from(owner._flat)

    def _at(self, key: Any) -> int:
        """Where the marks of ``key`` start in the owner's marks (in bytes)."""
        owner = self._owner
        if not isinstance(owner, MarkedDict):
            raise KeyError(key)
        # the order read, if a key was removed since; else the mapping's own order is it
        keys: Any = getattr(owner, "_keys", None) or tuple(owner)
        if isinstance(keys, dict):
            at = keys[key]
        elif len(keys) > 16:
            # A large mapping asked for positions is asked again (a diagnostic per key): an
            # index instead of a search per question.
            owner._keys = index = {name: i for i, name in enumerate(keys)}
            at = index[key]
        else:
            try:
                at = keys.index(key)
            except ValueError:
                raise KeyError(key) from None
        if 8 + 16 * at >= len(owner._flat):
            raise KeyError(key)  # put in after reading: no mark of its own
        return 8 + 16 * at

    def key(self, key: Any) -> tuple[int, int]:
        return _TWO.unpack_from(self._owner._flat, self._at(key))  # type: ignore[return-value]

    def value(self, key: Any) -> tuple[int, int]:
        return _TWO.unpack_from(self._owner._flat, self._at(key) + 8)  # type: ignore[return-value]

    def item(self, index: int) -> tuple[int, int]:
        flat = self._owner._flat
        count = (len(flat) - 8) // 8
        if not -count <= index < count:
            raise KeyError(index)
        return _TWO.unpack_from(flat, 8 + 8 * (index % count))  # type: ignore[return-value]


_TWO = struct.Struct("2i")
_PACKERS: dict[int, Callable[..., bytes]] = {}


def _pack(values: list[int]) -> bytes:
    """``values`` as C ints, in one bytes object."""
    pack = _PACKERS.get(len(values))
    if pack is None:
        if len(values) > 64:  # a long sequence or a large mapping: no packer kept for its size
            return array("i", values).tobytes()
        pack = _PACKERS[len(values)] = struct.Struct(f"{len(values)}i").pack
    return pack(*values)


# Marks cost more memory than the values they mark (a 12 MB ResourceSlice was 120 MB of values
# and 180 MB of marks as tuples and dicts), and are read only for a diagnostic. Each collection
# keeps them as C ints in one bytes object: its own line and column, then (key line, key column,
# value line, value column) per key of a mapping, in the order read, or (line, column) per item
# of a sequence. A mapping's own order is the order read, until a key is removed: whatever removes
# one keeps the order read first (:func:`keep_key_order`), so that the others' marks stay theirs.
# The ``lc`` object is made only when a position is asked for. A copy is plain data: positions
# belong to the text the original was read from.
class MarkedDict(dict[Any, Any]):
    __slots__ = ("_flat", "_keys")
    _flat: bytes
    # unset: the mapping's own order; the order read (a tuple) once a key may go, or an index
    # (key -> position in that order) once positions of a large mapping are asked for
    _keys: tuple[Any, ...] | dict[Any, int]

    @property
    def lc(self) -> Marks:
        return Marks(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        return {key: copy.deepcopy(value, memo) for key, value in self.items()}


class MarkedList(list[Any]):
    __slots__ = ("_flat",)
    _flat: bytes

    @property
    def lc(self) -> Marks:
        return Marks(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(value, memo) for value in self]


def keep_key_order(node: Any) -> None:
    """Before a key of ``node`` is removed: its marks keep the order the keys were read in."""
    if isinstance(node, MarkedDict) and getattr(node, "_keys", None) is None:
        node._keys = tuple(node)


def marked_list(
    items: list[Any], line: int, col: int, positions: list[tuple[int, int]]
) -> MarkedList:
    """A sequence at (``line``, ``col``) whose items are at ``positions`` (a List's items read
    one at a time, :mod:`dractl.load.lists`)."""
    sequence = MarkedList(items)
    sequence._flat = _pack([line, col, *(n for position in positions for n in position)])
    return sequence


def set_value_position(mapping: MarkedDict, key: Any, line: int, col: int) -> None:
    """Mark the value of ``key`` at (``line``, ``col``) (a value put in after reading)."""
    at = mapping.lc._at(key) + 8
    flat = mapping._flat
    mapping._flat = flat[:at] + _TWO.pack(line, col) + flat[at + 8 :]


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


def load_fast(
    text: str,
    max_nodes: int | None = None,
    max_depth: int | None = None,
    line_offset: int = 0,
    marks: bool = True,
) -> Reading | None:
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
    from yaml._yaml import CParser

    try:
        parser = CParser(text)
    except UnicodeEncodeError:  # lone surrogates
        return None
    builder = _Builder(
        max_nodes, max_depth, anchors="&" in text, line_offset=line_offset, marks=marks
    )
    try:
        tree = builder.build(parser)
        return Reading((tree, builder.yaml11, builder.str_keys, builder.nodes))
    except Exception:  # any problem at all: the round-trip loader decides, with its messages
        return None
    finally:
        parser.dispose()


_UNRESOLVED = object()
# Plain scalars repeat (drivers, models, counts, booleans): each distinct text is resolved once
# per process, as (value, whether YAML 1.2 reads it otherwise); at most _RESOLVED_MAX texts.
_RESOLVED: dict[str, tuple[Any, bool]] = {}
_RESOLVED_MAX = 100_000
# Mapping keys are a small vocabulary repeated in every object ("apiVersion", "name", "string"):
# one string object per distinct key for the process instead of one per occurrence (a stream of
# 100,000 objects has about two million keys); at most _KEYS_MAX distinct keys are kept.
_KEYS: dict[str, str] = {}
_KEYS_MAX = 100_000


class _Builder:
    """Builds one document's tree from libyaml's parser events; gives up (:class:`GiveUp`) on
    what the round-trip loader must read, and on a tree beyond ``max_nodes`` nodes or
    ``max_depth`` levels (the round-trip loader then words the limit's diagnostic).

    The tree is built as the events come, not from libyaml's composed node graph, which for a
    large document is several times the size of the tree (a 12 MB ResourceSlice composed to
    400 MB of node and mark objects before its tree was built).

    ``anchors``: whether the text may hold anchors (``&``); without them none is looked for."""

    def __init__(
        self,
        max_nodes: int | None = None,
        max_depth: int | None = None,
        anchors: bool = True,
        line_offset: int = 0,
        marks: bool = True,
    ) -> None:
        self.line_offset = line_offset  # added to every line (a part of a larger text)
        self.marks = marks  # False: plain dicts and lists
        self.yaml11: dict[tuple[int, int], str] = {}
        self.str_keys = True  # whether every mapping key is a string (as in JSON)
        self.nodes = 0
        self.max_nodes = max_nodes if max_nodes is not None else math.inf
        self.max_depth = max_depth if max_depth is not None else math.inf
        self.anchors = anchors

    def build(self, parser: Any) -> Any:
        """The tree of the single document ``parser`` reads; one function with everything it
        uses in local variables, as this runs for every node of every input (a dump has
        millions)."""
        from yaml.events import (
            DocumentEndEvent,
            DocumentStartEvent,
            MappingEndEvent,
            MappingStartEvent,
            ScalarEvent,
            SequenceEndEvent,
            SequenceStartEvent,
            StreamEndEvent,
            StreamStartEvent,
        )

        get = parser.get_event
        scalar_event, mapping_start, sequence_start = (
            ScalarEvent,
            MappingStartEvent,
            SequenceStartEvent,
        )
        mapping_end, sequence_end = MappingEndEvent, SequenceEndEvent
        yaml11, max_depth, max_nodes = self.yaml11, self.max_depth, self.max_nodes
        offset = self.line_offset
        marked = self.marks
        # go-yaml and libyaml's composer refuse an anchor defined twice; an alias gives up.
        anchors: set[str] | None = set() if self.anchors else None
        no_anchors = anchors is None
        resolvers, resolved, resolved_max = _RESOLVERS, _RESOLVED, _RESOLVED_MAX
        names, names_max = _KEYS, _KEYS_MAX
        pack = _pack
        unresolved = _UNRESOLVED
        count = 0  # values (keys are not counted)
        str_keys = True

        def anchor(name: str) -> None:
            if anchors is None or name in anchors:
                raise GiveUp
            anchors.add(name)

        def scalar(event: Any) -> Any:
            """A scalar other than a plain one no implicit type starts like (those are read
            inline below)."""
            if event.anchor is not None:
                anchor(event.anchor)
            tag = event.tag
            if tag is not None and tag != "!":
                # An explicit tag, even ``!!str``, is left to the round-trip loader: it makes a
                # tagged scalar there, which is not a ``str`` before the model.
                raise GiveUp
            text = event.value
            if event.style or not event.implicit[0]:  # quoted or block, or tagged "!"
                return text
            if not text:
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
                mark = event.start_mark
                yaml11[(mark.line + offset, mark.column)] = text
            return value

        def collection(event: Any, depth: int) -> Any:
            nonlocal count, str_keys
            if event.anchor is not None:
                anchor(event.anchor)
            tag = event.tag
            if tag is not None and tag != "!":
                raise GiveUp
            if event.__class__ is mapping_start:
                mapping: dict[Any, Any] = MarkedDict() if marked else {}
                if marked:
                    mark = event.start_mark
                    flat = [mark.line + offset, mark.column]
                while True:
                    key_event = get()
                    if key_event.__class__ is not scalar_event:
                        if key_event.__class__ is mapping_end:
                            break
                        raise GiveUp  # a collection or an alias as a key
                    # Inline: an untagged quoted scalar, or a plain one no implicit type starts
                    # like (most keys and values), is its text; ``scalar`` decides the others.
                    text = key_event.value
                    if (
                        key_event.tag is None
                        and (no_anchors or key_event.anchor is None)
                        and (not key_event.implicit[0] or (text and text[0] not in resolvers))
                    ):
                        key = names.get(text)
                        if key is None:
                            key = text
                            if len(names) < names_max:
                                names[text] = text
                    else:
                        key = scalar(key_event)  # a plain "<<" (merge key) gives up there
                        if key.__class__ is not str:
                            str_keys = False
                    if key in mapping:
                        raise GiveUp  # duplicate key
                    value_event = get()
                    count += 1
                    if count >= max_nodes or depth >= max_depth:
                        raise GiveUp
                    kind = value_event.__class__
                    if kind is scalar_event:
                        text = value_event.value
                        if (
                            value_event.tag is None
                            and (no_anchors or value_event.anchor is None)
                            and (not value_event.implicit[0] or (text and text[0] not in resolvers))
                        ):
                            mapping[key] = text
                        else:
                            mapping[key] = scalar(value_event)
                    elif kind is mapping_start or kind is sequence_start:
                        mapping[key] = collection(value_event, depth + 1)
                    else:
                        raise GiveUp  # an alias: ruamel decides how to share it
                    if marked:
                        key_mark, value_mark = key_event.start_mark, value_event.start_mark
                        flat += (
                            key_mark.line + offset,
                            key_mark.column,
                            value_mark.line + offset,
                            value_mark.column,
                        )
                if isinstance(mapping, MarkedDict):
                    mapping._flat = pack(flat)
                return mapping
            sequence: list[Any] = MarkedList() if marked else []
            append = sequence.append
            if marked:
                mark = event.start_mark
                flat = [mark.line + offset, mark.column]
            while True:
                item = get()
                kind = item.__class__
                if kind is sequence_end:
                    break
                count += 1
                if count >= max_nodes or depth >= max_depth:
                    raise GiveUp
                if kind is scalar_event:
                    text = item.value
                    if (
                        item.tag is None
                        and (no_anchors or item.anchor is None)
                        and (not item.implicit[0] or (text and text[0] not in resolvers))
                    ):
                        append(text)
                    else:
                        append(scalar(item))
                elif kind is mapping_start or kind is sequence_start:
                    append(collection(item, depth + 1))
                else:
                    raise GiveUp  # an alias
                if marked:
                    item_mark = item.start_mark
                    flat += (item_mark.line + offset, item_mark.column)
            if isinstance(sequence, MarkedList):
                sequence._flat = pack(flat)
            return sequence

        try:
            if get().__class__ is not StreamStartEvent:
                raise GiveUp
            start = get()
            if start.__class__ is StreamEndEvent:
                return None  # no document at all
            if start.__class__ is not DocumentStartEvent:
                raise GiveUp
            root = get()
            if root.__class__ is scalar_event:
                if self.max_nodes < 1:
                    raise GiveUp
                tree = scalar(root)
                count = 0
            elif root.__class__ is mapping_start or root.__class__ is sequence_start:
                tree = collection(root, 0)
            else:
                raise GiveUp
            if get().__class__ is not DocumentEndEvent or get().__class__ is not StreamEndEvent:
                raise GiveUp  # more than one document: libyaml's composer refuses it too
        finally:
            # `collection` calls itself through its closure, a cycle only the collector would
            # free: emptying the cell frees it now (reading may run with the collector off).
            collection = None  # type: ignore[assignment]
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
        return go_yaml_float(text)
    return _UNRESOLVED, False  # merge keys as values, or a tag added to the table later
