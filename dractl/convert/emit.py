"""Writing a whole document anew, in the file's own style: the fallback for YAML layouts that
:mod:`dractl.convert.textedit` cannot edit in place, and the way JSON documents are written."""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

_DIRECTIVE = re.compile(r"\A%YAML 1\.1\n---\n")
_MARKER_LINE = re.compile(r"^(?:---)(?:[ \t].*)?(?:\r\n|\n|\r|$)")
_MARKER_COMMENT = re.compile(r"^---[ \t]+(#.*?)[ \t]*(?:\r\n|\n|\r|$)")
# A document end marker (always in column 0) and whatever follows it in the document's text.
_END_AND_AFTER = re.compile(r"^\.\.\.(?:[ \t].*)?(?:\r\n|\n|\r|\Z)", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Indentation:
    """A YAML file's indentation, in ruamel.yaml's terms: ``mapping`` is the step of nested
    mappings; a sequence's dash sits ``offset`` columns right of its parent key and its items
    ``sequence`` columns right of it."""

    mapping: int = 2
    sequence: int = 2
    offset: int = 0


def detect_indentation(root: Any) -> Indentation:
    """The indentation most of the block collections of ``root`` use."""
    mapping_steps: Counter[int] = Counter()
    offsets: Counter[int] = Counter()
    item_steps: Counter[int] = Counter()

    def walk(node: Any, depth: int) -> None:
        if depth > 200:
            return
        if isinstance(node, dict):
            block = not _is_flow(node)
            for key, value in node.items():
                if block and not _is_flow(value) and hasattr(value, "lc"):
                    try:
                        key_column = node.lc.key(key)[1]
                        if isinstance(value, dict) and value:
                            mapping_steps[value.lc.col - key_column] += 1
                        elif isinstance(value, list) and value:
                            offsets[value.lc.col - key_column] += 1
                            item_steps[value.lc.item(0)[1] - value.lc.col] += 1
                    except (AttributeError, KeyError, TypeError, IndexError):
                        pass
                walk(value, depth + 1)
        elif isinstance(node, list):
            for item in node:
                walk(item, depth + 1)

    walk(root, 0)
    mapping = _most_common(mapping_steps, 2)
    offset = _most_common(offsets, 0)
    return Indentation(mapping, offset + _most_common(item_steps, 2), offset)


def _most_common(counter: Counter[int], default: int) -> int:
    positive = Counter({k: v for k, v in counter.items() if k >= 0})
    return positive.most_common(1)[0][0] if positive else default


def _is_flow(node: Any) -> bool:
    fa = getattr(node, "fa", None)
    return bool(fa is not None and fa.flow_style())


def emit_yaml(tree: Any, original: str, indentation: Indentation) -> str:
    """``tree`` written as one YAML document, with ``original``'s marker line, indentation and
    line breaks."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    # Written as YAML 1.1 so that strings kubectl would read as something else (yes, on, 1:20)
    # are quoted; the %YAML directive that comes with it is removed again.
    yaml.version = (1, 1)
    yaml.width = 1 << 16
    yaml.preserve_quotes = True
    yaml.indent(
        mapping=indentation.mapping, sequence=indentation.sequence, offset=indentation.offset
    )
    buffer = io.StringIO()
    yaml.dump(tree, buffer)
    text = _DIRECTIVE.sub("", buffer.getvalue(), count=1)
    comment = _MARKER_COMMENT.match(original)
    if comment:
        # ruamel.yaml writes the comment of the `---` line again on a line of its own
        first, _, rest = text.partition("\n")
        if first.strip() == comment.group(1):
            text = rest
    newline = "\r\n" if "\r\n" in original else "\n"
    if newline != "\n":
        text = text.replace("\n", newline)
    marker = _MARKER_LINE.match(original)
    if marker:
        text = marker.group() + text  # in the original's line break
    # ruamel.yaml drops a document end marker (`...`) and the comments after it: they are
    # copied from the original, which keeps the stream's separators as they were.
    end = _END_AND_AFTER.search(original)
    if end:
        return text + original[end.start() :]
    if not original.endswith(("\n", "\r")):
        text = text.rstrip("\r\n")
    return text


def emit_json(data: Any, original: str) -> str:
    """``data`` as JSON laid out like ``original``: its indentation (or none), separators,
    escaping of non-ASCII characters and trailing white space."""
    indent: int | str | None = None
    indented = re.search(r"[\r\n]([ \t]+)\S", original)
    if indented:
        unit = indented.group(1)
        indent = "\t" if unit.startswith("\t") else len(unit)
    colon = ": " if re.search(r'"\s*:\s', original) else ":"
    comma = "," if indent is not None or not re.search(r",\s", original) else ", "
    text = json.dumps(
        data,
        indent=indent,
        separators=(comma, colon),
        ensure_ascii=not any(ord(c) > 127 for c in original) and "\\u" in original,
    )
    leading = original[: len(original) - len(original.lstrip())]
    return leading + text + original[len(original.rstrip()) :]
