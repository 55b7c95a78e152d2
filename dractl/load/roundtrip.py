"""ruamel.yaml's round-trip loader (comments and layout kept, for ``convert``) with kubectl's
YAML 1.1 scalars (:mod:`dractl.load.yaml11`) and go-yaml's refusals; imported only when a
document needs it, since ruamel.yaml takes longer to import than a small file takes to lint."""

from __future__ import annotations

import math
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.constructor import ConstructorError, DuplicateKeyError, RoundTripConstructor
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.resolver import BaseResolver

from dractl.load.yaml11 import (
    _PLAIN_DECIMAL_RE,
    _SPECIAL_FLOAT_RE,
    _YAML12_BOOLS,
    BOOL_TRUE,
    IMPLICIT_RESOLVERS,
    go_yaml_float,
    go_yaml_int,
)


def round_trip_yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.Resolver = KubectlResolver
    yaml.Composer = KubectlComposer
    yaml.Constructor = KubectlConstructor
    yaml.allow_duplicate_keys = False
    return yaml


class KubectlResolver(BaseResolver):
    """Implicit tags of plain scalars as go-yaml v2 resolves them (timestamps stay strings)."""

    def __init__(self, version: Any = None, loader: Any = None, loadumper: Any = None) -> None:
        super().__init__(loadumper if loadumper is not None else loader)

    @property
    def processing_version(self) -> tuple[int, int]:
        # The scanner and parser follow YAML 1.2 syntax; only scalar resolution is go-yaml's.
        return (1, 2)


for _tag, _pattern, _first in IMPLICIT_RESOLVERS:
    KubectlResolver.add_implicit_resolver_base(_tag, _pattern, _first)


class KubectlComposer(Composer):
    """Refuses an alias inside the node its anchor names (``a: &a {b: *a}``), as go-yaml does.

    ruamel.yaml would build such a node with a null where it contains itself; go-yaml (v2, which
    kubectl reads with, and v3) fails with "anchor 'a' value contains itself". A collection
    still being composed has no end mark yet, so an alias to one is an alias inside it.
    """

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.parser.check_event(AliasEvent):
            event = self.parser.peek_event()
            target = self.anchors.get(event.anchor)
            if target is not None and target.end_mark is None:
                raise ComposerError(
                    None,
                    None,
                    f"anchor '{event.anchor}' value contains itself",
                    event.start_mark,
                )
        return super().compose_node(parent, index)


class KubectlConstructor(RoundTripConstructor):
    """Round-trip constructor with go-yaml v2 scalar values.

    ``yaml11`` collects ``(line, column) -> text`` (0-based, within the parsed text) of every plain
    scalar whose value under YAML 1.1 differs from its YAML 1.2 reading.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.yaml11: dict[tuple[int, int], str] = {}

    def check_mapping_key(
        self, node: Any, key_node: Any, mapping: Any, key: Any, value: Any
    ) -> bool:
        """ruamel's own check puts both values' repr in its message: for a value that aliases
        expand, that repr is exponentially large (a billion laughs through a duplicate key)."""
        if key not in mapping:
            return True
        text = str(key) if isinstance(key, str | int | float | bool) or key is None else "<key>"
        raise DuplicateKeyError(
            "while constructing a mapping",
            node.start_mark,
            f'found duplicate key "{text[:200]}"',
            key_node.start_mark,
        )

    def construct_non_recursive_object(self, node: Any, tag: Any = None) -> Any:
        """A tag on the wrong kind of node (``!!set x``, ``!!int [a]``, ``!!float ''``) is an
        error at the node: ruamel.yaml's own constructors fail on them with internal errors."""
        try:
            return super().construct_non_recursive_object(node, tag)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            kind = {"ScalarNode": "scalar", "SequenceNode": "sequence"}.get(
                type(node).__name__, "mapping"
            )
            name = getattr(node.tag, "value", node.tag)
            short = str(name).replace("tag:yaml.org,2002:", "!!")
            raise ConstructorError(
                None,
                None,
                f"cannot read this {kind} as {short}",
                node.start_mark,
            ) from None

    def _note(self, node: Any) -> None:
        mark = node.start_mark
        self.yaml11[(mark.line, mark.column)] = node.value

    def construct_yaml_bool(self, node: Any) -> Any:
        text = node.value
        if text not in _YAML12_BOOLS and node.style is None:
            self._note(node)
        return text in BOOL_TRUE

    def construct_yaml_int(self, node: Any) -> Any:
        text: str = node.value
        value = go_yaml_int(text)
        if isinstance(value, int) and _PLAIN_DECIMAL_RE.match(text):
            return super().construct_yaml_int(node)
        if node.style is None:
            self._note(node)
        return value

    def construct_yaml_float(self, node: Any) -> Any:
        text: str = node.value
        if _SPECIAL_FLOAT_RE.match(text):
            if "nan" in text.lower():
                return math.nan
            return -math.inf if text.startswith("-") else math.inf
        try:
            value, differs = go_yaml_float(text)
        except ValueError:  # no number at all (an explicit !!float ''): an error at the node
            return super().construct_yaml_float(node)
        if differs:  # beyond float64: go-yaml keeps the text
            if node.style is None:
                self._note(node)
            return value
        try:
            return super().construct_yaml_float(node)
        except (ValueError, TypeError):
            if node.style is None:
                self._note(node)
            return value


KubectlConstructor.add_constructor("tag:yaml.org,2002:bool", KubectlConstructor.construct_yaml_bool)
KubectlConstructor.add_constructor("tag:yaml.org,2002:int", KubectlConstructor.construct_yaml_int)
KubectlConstructor.add_constructor(
    "tag:yaml.org,2002:float", KubectlConstructor.construct_yaml_float
)
