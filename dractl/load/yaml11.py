"""Read YAML scalars the way kubectl does.

kubectl decodes manifests with sigs.k8s.io/yaml, which resolves plain scalars with go-yaml v2's
YAML 1.1 rules: ``y``, ``Yes``, ``on``, ``OFF``, ... are booleans, ``010`` is octal, ``0b11`` binary,
``1_000`` an integer, timestamps stay strings. This module gives ruamel.yaml's round-trip loader
exactly that resolution, and records every plain scalar whose meaning differs from what a YAML 1.2
reader (or a human) would assume, so lint can warn about it.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.constructor import ConstructorError, DuplicateKeyError, RoundTripConstructor
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.resolver import BaseResolver

BOOL_TRUE = ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")
BOOL_FALSE = ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")
_YAML12_BOOLS = frozenset(("true", "True", "TRUE", "false", "False", "FALSE"))

_BOOL_RE = re.compile("^(?:" + "|".join(BOOL_TRUE + BOOL_FALSE) + ")$")
_NULL_RE = re.compile(r"^(?:~|null|Null|NULL|)$")
_SPECIAL_FLOAT_RE = re.compile(r"^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")
# Go's strconv.ParseInt(s, 0, 64) after go-yaml removed every underscore.
_INT_RE = re.compile(
    r"^[-+]?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$"
)
# go-yaml v2's yamlStyleFloat, also applied after removing underscores.
_FLOAT_RE = re.compile(r"^[-+]?(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?$")
_DOT_FLOAT_RE = re.compile(r"^\.[0-9]+(?:[eE][-+]?[0-9]+)?$")
_PLAIN_DECIMAL_RE = re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$")
_SIGNIFICANT_RE = re.compile(r"^[-+]?(?:0[xXoObB])?0*")  # what comes before an integer's digits

_DIGITS = list("0123456789")


def parse_go_int(text: str) -> int:
    plain = text.replace("_", "")
    sign = -1 if plain.startswith("-") else 1
    body = plain.lstrip("+-")
    low = body.lower()
    if low.startswith("0x"):
        value = int(body[2:], 16)
    elif low.startswith("0o"):
        value = int(body[2:], 8)
    elif low.startswith("0b"):
        value = int(body[2:], 2)
    elif len(body) > 1 and body.startswith("0"):
        value = int(body[1:], 8)
    else:
        value = int(body, 10)
    return sign * value


def go_yaml_int(text: str) -> int | float | str:
    """A plain scalar that YAML 1.1 resolves as an integer, as go-yaml v2 reads it.

    go-yaml keeps what ``strconv.ParseInt`` or ``ParseUint`` take (64 bits); a longer number
    becomes a float if ``ParseFloat`` takes it without overflowing, and otherwise stays the
    string it is (so kubectl reports a 400-digit ``count`` as a string, not a number).
    """
    plain = text.replace("_", "")
    if len(_SIGNIFICANT_RE.sub("", plain)) <= 64:  # every 64-bit value has fewer digits
        value = parse_go_int(text)
        if -(2**63) <= value < 2**64:
            return value
    if _FLOAT_RE.match(plain):
        number = float(plain)
        if math.isfinite(number):
            return number
    return text


class KubectlResolver(BaseResolver):
    """Implicit tags of plain scalars as go-yaml v2 resolves them (timestamps stay strings)."""

    def __init__(self, version: Any = None, loader: Any = None, loadumper: Any = None) -> None:
        super().__init__(loadumper if loadumper is not None else loader)

    @property
    def processing_version(self) -> tuple[int, int]:
        # The scanner and parser follow YAML 1.2 syntax; only scalar resolution is go-yaml's.
        return (1, 2)


KubectlResolver.add_implicit_resolver_base("tag:yaml.org,2002:bool", _BOOL_RE, list("yYnNtTfFoO"))
KubectlResolver.add_implicit_resolver_base("tag:yaml.org,2002:null", _NULL_RE, ["~", "n", "N", ""])
KubectlResolver.add_implicit_resolver_base(
    "tag:yaml.org,2002:float", _SPECIAL_FLOAT_RE, list("-+.")
)
KubectlResolver.add_implicit_resolver_base("tag:yaml.org,2002:int", _INT_RE, [*_DIGITS, "-", "+"])
KubectlResolver.add_implicit_resolver_base(
    "tag:yaml.org,2002:float", _FLOAT_RE, [*_DIGITS, "-", "+"]
)
KubectlResolver.add_implicit_resolver_base("tag:yaml.org,2002:float", _DOT_FLOAT_RE, ["."])
KubectlResolver.add_implicit_resolver_base(
    "tag:yaml.org,2002:merge", re.compile(r"^(?:<<)$"), ["<"]
)


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
            return super().construct_yaml_float(node)
        except (ValueError, TypeError):
            if node.style is None:
                self._note(node)
            return float(text.replace("_", ""))


KubectlConstructor.add_constructor("tag:yaml.org,2002:bool", KubectlConstructor.construct_yaml_bool)
KubectlConstructor.add_constructor("tag:yaml.org,2002:int", KubectlConstructor.construct_yaml_int)
KubectlConstructor.add_constructor(
    "tag:yaml.org,2002:float", KubectlConstructor.construct_yaml_float
)
