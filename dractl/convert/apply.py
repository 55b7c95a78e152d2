"""Applying a conversion plan to data: plain dicts and lists, or the ruamel round-trip tree.

The text path (:mod:`dractl.convert.textedit`) is checked against :func:`apply_to_data`, and
:func:`apply_to_tree` is what the re-emitting fallback writes out.
"""

from __future__ import annotations

import copy
from collections.abc import MutableMapping
from typing import Any

from dractl.api.model import plain
from dractl.convert.plan import Delete, Edit, Hoist, Insert, Nest, SetScalar, SetVersion, TreePath


def apply_to_data(data: Any, edits: list[Edit]) -> Any:
    """The plain data (see :func:`dractl.api.model.plain`) that ``edits`` turn ``data`` into;
    ``data`` is not changed."""
    result = plain(data)
    for edit in edits:
        _apply(result, edit, new_mapping=dict)
    return result


def apply_to_tree(tree: Any, edits: list[Edit]) -> Any:
    """A copy of the ruamel round-trip ``tree`` with ``edits`` applied; comments travel with the
    keys they belong to."""
    from ruamel.yaml.comments import CommentedMap

    result = _copy_tree(tree, {})
    for edit in edits:
        _apply(result, edit, new_mapping=CommentedMap)
    return result


def _copy_tree(node: Any, memo: dict[int, Any]) -> Any:
    """``copy.deepcopy`` of a round-trip tree in linear time: ruamel's ``CommentedSeq`` copies
    its attributes (comments, the positions of every item) once per item, which makes a list of
    a thousand items cost seconds (4,000: a minute)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    done = memo.get(id(node))
    if done is not None:
        return done
    kind = type(node)
    if kind is CommentedSeq:
        seq = CommentedSeq()
        memo[id(node)] = seq
        for item in node:
            seq.append(_copy_tree(item, memo))
        node.copy_attributes(seq, memo=memo)
        return seq
    if kind is CommentedMap:
        mapping = CommentedMap()
        memo[id(node)] = mapping
        for key in node:
            mapping[key] = _copy_tree(node[key], memo)
        node.copy_attributes(mapping, memo=memo)
        return mapping
    return copy.deepcopy(node, memo)


def _resolve(root: Any, path: TreePath) -> Any:
    node = root
    for item in path:
        node = node[item]
    return node


def _apply(root: Any, edit: Edit, *, new_mapping: type) -> None:
    mapping = _resolve(root, edit.path)
    if isinstance(edit, SetVersion):
        group = str(mapping["apiVersion"]).rpartition("/")[0]
        _replace_value(mapping, "apiVersion", f"{group}/{edit.new}")
    elif isinstance(edit, Delete):
        del mapping[edit.key]
    elif isinstance(edit, Hoist):
        inner = mapping[edit.key] or {}
        _rebuild(
            mapping, lambda key, value: list(inner.items()) if key == edit.key else [(key, value)]
        )
        _move_comments_out(mapping, inner, edit.key)
    elif isinstance(edit, Nest):
        _nest(mapping, edit, new_mapping)
    elif isinstance(edit, Insert | SetScalar):
        mapping[edit.key] = edit.value


def _replace_value(mapping: MutableMapping[str, Any], key: str, text: str) -> None:
    old = mapping[key]
    if type(old) is not str and isinstance(old, str):
        # Keep ruamel's quoting style by building the same scalar type around the new text.
        mapping[key] = type(old)(text, anchor=getattr(old, "anchor", None))  # type: ignore[call-arg]
    else:
        mapping[key] = text


def _nest(mapping: MutableMapping[str, Any], edit: Nest, new_mapping: type) -> None:
    inner = new_mapping()
    for key in edit.keys:
        inner[key] = mapping[key]
    _move_comments_in(mapping, inner, edit.keys)
    if edit.keys:
        first = edit.keys[0]

        def place(key: str, value: Any) -> list[tuple[str, Any]]:
            if key == first:
                return [(edit.into, inner)]
            return [] if key in edit.keys else [(key, value)]

    else:
        if hasattr(inner, "fa"):
            inner.fa.set_flow_style()

        def place(key: str, value: Any) -> list[tuple[str, Any]]:
            return [(key, value), (edit.into, inner)] if key == edit.after else [(key, value)]

        if edit.after is None or edit.after not in mapping:
            mapping[edit.into] = inner
            return
    _rebuild(mapping, place)


def _rebuild(mapping: MutableMapping[str, Any], place: Any) -> None:
    """Replace the entries of ``mapping`` (in place, keeping its type and comments) by what
    ``place(key, value)`` returns for each of them, in order."""
    entries = list(mapping.items())
    for key, _ in entries:
        del mapping[key]
    for key, value in entries:
        for new_key, new_value in place(key, value):
            mapping[new_key] = new_value


def _move_comments_in(outer: Any, inner: Any, keys: tuple[str, ...]) -> None:
    outer_items = getattr(getattr(outer, "ca", None), "items", None)
    if not outer_items:
        return
    for key in keys:
        if key in outer_items:
            inner.ca.items[key] = outer_items.pop(key)


def _move_comments_out(outer: Any, inner: Any, key: str) -> None:
    outer_items = getattr(getattr(outer, "ca", None), "items", None)
    inner_items = getattr(getattr(inner, "ca", None), "items", None)
    if outer_items is None or inner_items is None:
        return
    outer_items.pop(key, None)
    for inner_key, comment in inner_items.items():
        outer_items[inner_key] = comment
