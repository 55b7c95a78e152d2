"""Optional values on their way to the default engine's Python functions.

cel-expr-python cannot hand an optional value to a Python function: the process dies
(``dyn(optional.of(1)) == dyn(1)``, ``device.capacity[d].?memory == optional.of(quantity("1Gi"))``
reach Python's equality). Where an operand of such a call may be an optional at run time, the
runtime expression puts the optional in a box first, natively: a map with the single key
:data:`BOX_KEY` whose value is an empty list (``optional.none()``) or the list of its value. The
Python side takes a box for the optional it stands for (:func:`is_box`, :func:`unbox`).

An optional can only reach a ``dyn`` operand from an expression that makes optionals (an
``optional_type`` somewhere in the checked tree), so other expressions are left as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dractl.cel.ast import (
    CelType,
    build_bind,
    build_call,
    build_ident,
    build_list,
    build_map,
    build_string,
)

BOX_KEY = "@dractl.optional"
_UNKNOWN_KINDS = ("dyn", "any", "type_param", "error")


def is_box(value: Any) -> bool:
    return type(value) is dict and len(value) == 1 and BOX_KEY in value


def unbox(box: dict[str, Any]) -> tuple[bool, Any]:
    """(has a value, the value) of the optional a box stands for."""
    values = box[BOX_KEY]
    return (True, values[0]) if values else (False, None)


def is_optional_type(kind: CelType | None) -> bool:
    return kind is not None and kind.kind == "opaque" and kind.name == "optional_type"


def may_be_optional(kind: CelType | None) -> bool:
    """Whether a value of static type ``kind`` may be an optional (in an expression that makes them)."""
    return kind is None or kind.kind in _UNKNOWN_KINDS or is_optional_type(kind)


def may_hold_optional(kind: CelType | None) -> bool:
    """Whether a value of static type ``kind`` may be or contain an optional."""
    if may_be_optional(kind):
        return True
    assert kind is not None
    return kind.kind in ("list", "map") and any(may_hold_optional(param) for param in kind.params)


def makes_optionals(types: dict[int, CelType]) -> bool:
    return any("optional_type" in str(kind) for kind in types.values())


def boxed(expr: bytes, fresh: Callable[[], int]) -> bytes:
    """``expr``, with an optional value replaced by its box."""
    name = f"@dractl.optional{fresh()}"

    def value() -> bytes:
        return build_ident(fresh, name)

    is_optional = build_call(fresh, "_==_", build_call(fresh, "type", value()), build_ident(fresh, "optional_type"))
    contents = build_call(fresh, "_?_:_", build_call(fresh, "hasValue", target=value()),
                          build_list(fresh, build_call(fresh, "value", target=value())), build_list(fresh))
    box = build_map(fresh, (build_string(fresh, BOX_KEY), contents))
    return build_bind(fresh, name, expr, build_call(fresh, "_?_:_", is_optional, box, value()))
