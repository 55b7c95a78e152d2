"""Small helpers shared by the cross-object rule modules."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from dractl.api.model import ApiObject
from dractl.diagnostics import Position


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """``; did you mean "x"?`` for a candidate that is a likely typo of ``name``, else nothing.

    Likely typo: at most one edit (insertion, deletion, substitution or swap of neighbours) per
    six characters, at most three; and where both names have the same parts (between `.`, `-`
    and `/`), the parts that differ are long enough for the edit to be a slip rather than
    another word (`gpu.exmaple.com` is a typo of `gpu.example.com`, `cpu.example.com` is not).
    """
    return _did_you_mean(name, tuple(sorted(set(candidates))))


@lru_cache(maxsize=4096)
def _did_you_mean(name: str, candidates: tuple[str, ...]) -> str:
    # Cached: many objects of a run repeat the same mistake against the same names.
    limit = max(1, min(3, len(name) // 6))
    best: tuple[int, str] | None = None
    for candidate in candidates:
        if candidate == name or abs(len(candidate) - len(name)) > limit:
            continue
        distance = edit_distance(name, candidate)
        if distance > limit or not _parts_close(name, candidate):
            continue
        if best is None or distance < best[0]:
            best = (distance, candidate)
    return f'; did you mean "{best[1]}"?' if best else ""


_PARTS_RE = r"[.\-/]"


def _parts_close(a: str, b: str) -> bool:
    parts_a, parts_b = re.split(_PARTS_RE, a), re.split(_PARTS_RE, b)
    if len(parts_a) != len(parts_b):
        return True
    for x, y in zip(parts_a, parts_b, strict=True):
        if x != y and edit_distance(x, y) > max(len(x), len(y)) // 4:
            return False
    return True


def edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance (Levenshtein plus swaps of neighbouring characters)."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[len(b)]


def where(obj: ApiObject) -> str:
    """``file:line`` of an object's name, to point from one object to another."""
    pos = obj.position(("metadata", "name"))
    return f"{pos.file}:{pos.line}"


def mention(obj: ApiObject, noun: str) -> str:
    """Another object as a message names it: ``slice "a" (file:line)``, or, without a name,
    ``(unnamed ResourceSlice at file:line)``, where its document starts."""
    if obj.name:
        return f'{noun} "{obj.name}" ({where(obj)})'
    pos = obj.position()
    return f"(unnamed {obj.kind} at {pos.file}:{pos.line})"


def key_position(obj: ApiObject, path: Sequence[Any]) -> Position:
    """The position of the last key of ``path`` itself (not of its value)."""
    *parent, key = obj.raw_path(path)
    doc = obj.source.document
    node = doc.node((*obj.source.base, *parent))
    try:
        line, col = node.lc.key(key)
    except (AttributeError, KeyError, TypeError):
        return obj.position(path)
    return Position(doc.file.path, doc.start_line + line + 1, col + 1)


def folder(obj: ApiObject) -> str:
    """The absolute, normalised folder of an object's file (stdin counts as the current folder).
    Folders are strings, not pathlib's paths: pathlib (with urllib.parse and ipaddress) is a
    twentieth of a lint of one small file."""
    return _folder(obj.file)


@lru_cache(maxsize=4096)
def _folder(path: str) -> str:
    return os.path.dirname(os.path.abspath(path))


def within(inner: str, outer: str) -> bool:
    """Whether folder ``inner`` is ``outer`` or below it (by name, as PurePath.is_relative_to)."""
    return inner == outer or inner.startswith(outer if outer.endswith(os.sep) else outer + os.sep)


def related_folders(a: str, b: str) -> bool:
    """Whether one folder holds the other (or they are the same)."""
    return within(a, b) or within(b, a)


def folder_order(path: str) -> list[str]:
    """Sorts folders part by part, as pathlib's paths sort (``a/b`` before ``a-b``)."""
    return path.split(os.sep)
