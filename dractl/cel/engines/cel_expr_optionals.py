"""Optional values on their way to the default engine's Python functions.

cel-expr-python cannot hand an optional value to a Python function: the process dies
(``dyn(optional.of(1)) == dyn(1)``, ``device.capacity[d].?memory == optional.of(quantity("1Gi"))``
reach Python's equality). Where an operand of such a call may be an optional at run time, the
runtime expression puts the optional in a box first, natively: a map with the single key
:data:`BOX_KEY` whose value is an empty list (``optional.none()``) or the list of its value. The
Python side takes a box for the optional it stands for (:func:`is_box`, :func:`unbox`).

An optional can only reach a ``dyn`` operand from an expression that makes optionals (an
``optional_type`` somewhere in the checked tree), so other expressions are left as they are.

What cannot be boxed natively is an optional inside a list or map on its way to Python
(``dyn({'a': optional.of(1)}).isSorted()``, :func:`optional_in_container`): such an expression
is run by cel-python instead (cel_expr_fallback), or refused as unsupported without it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dractl.cel.ast import (
    CelType,
    Expr,
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


def optional_carriers(root: Expr, types: dict[int, CelType]) -> dict[int, bool]:
    """Per node id: whether its value may carry a value made from an optional. What is made
    from ``device`` alone never does; a variable carries what it is bound to."""
    carries: dict[int, bool] = {}

    def visit(node: Expr, scope: dict[str, bool]) -> bool:
        kind = types.get(node.id)
        if node.kind == "comprehension":
            assert node.iter_range is not None and node.accu_init is not None
            elements = visit(node.iter_range, scope)
            inner = {**scope, node.iter_var: elements, node.iter_var2: elements}
            initial = visit(node.accu_init, scope)
            steps = [part for part in (node.loop_condition, node.loop_step) if part is not None]
            accumulated = any([visit(part, {**inner, node.accu_var: initial}) for part in steps])
            inner[node.accu_var] = initial or accumulated
            for part in steps:  # again, with what the accumulator may hold after a step
                visit(part, inner)
            result = visit(node.result, inner) if node.result is not None else False
            found = may_hold_optional(kind) and (result or "optional_type" in str(kind))
        elif node.kind == "ident":
            if node.name.partition(".")[0] == "device":
                found = False
            else:
                found = may_hold_optional(kind) and scope.get(node.name, True)
        else:
            parts = [visit(child, scope) for child in node.children()]
            found = may_hold_optional(kind) and ("optional_type" in str(kind) or any(parts))
        carries[node.id] = found
        return found

    visit(root, {})
    return carries


def optional_in_container(operand: Expr, types: dict[int, CelType], carriers: dict[int, bool]) -> bool:
    """Whether ``operand`` may, at run time, be or hold a list or map holding an optional (as
    :func:`optional_carriers` found them)."""
    for node in operand.walk():
        if not carriers.get(node.id, True):
            continue
        kind = types.get(node.id)
        if kind is not None and kind.kind in ("list", "map"):
            return True
        if node.kind == "ident" and not is_optional_type(kind):
            return True
    return False
