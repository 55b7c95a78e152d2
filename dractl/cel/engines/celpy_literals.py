"""List and map literals of the cel-python engine as cel-go builds them.

cel-go's literals may hold optional entries (``[?x]``, ``{?k: v}``: the entry is there when the
optional value is, and then holds what it wraps), and a map literal that repeats a key keeps the
last value (cel-python refuses the repeated key). The first error of an element, key or value,
in source order, is the literal's value.
"""

from __future__ import annotations

from typing import Any, Protocol

import celpy.celtypes as ct
import lark
from celpy.evaluation import CELEvalError

from dractl.cel.engines import celpy_maps
from dractl.cel.engines.celpy_values import NO_SUCH_OVERLOAD, CelOptional, failure


class _Visitor(Protocol):
    def visit(self, tree: Any) -> Any: ...


def _entry(visitor: _Visitor, tree: Any) -> tuple[bool, Any]:
    """(optional entry, value) of a literal's element or key."""
    if isinstance(tree, lark.Tree) and tree.data == "opt_entry":
        return True, visitor.visit(tree.children[0])
    return False, visitor.visit(tree)


def _held(value: Any) -> tuple[bool, Any]:
    """(whether the entry is there, its value) for the value of an optional entry."""
    if not isinstance(value, CelOptional):
        return True, failure(NO_SUCH_OVERLOAD)
    return value.present, value.value


def literal_list(visitor: _Visitor, elements: list[Any]) -> Any:
    result = []
    for tree in elements:
        optional, value = _entry(visitor, tree)
        present = True
        if optional and not isinstance(value, CELEvalError):
            present, value = _held(value)
        if isinstance(value, CELEvalError):
            return value
        if present:
            result.append(value)
    return ct.ListType(result)


def literal_map(visitor: _Visitor, children: list[Any]) -> Any:
    result = ct.MapType()
    for key_tree, value_tree in zip(children[0::2], children[1::2], strict=True):
        optional, key = _entry(visitor, key_tree)
        value = visitor.visit(value_tree)
        present = True
        if optional and not isinstance(value, CELEvalError):
            present, value = _held(value)
        for part in (key, value):
            if isinstance(part, CELEvalError):
                return part
        if not present:
            continue
        celpy_maps.insert(result, key, value)  # a repeated key: the last value stands
    return result
