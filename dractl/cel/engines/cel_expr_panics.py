"""cel-go's panics, which end the whole evaluation, for the default engine.

Some of cel-go's code asserts a Go type it is not given and panics; ``Program.Eval`` recovers
and the evaluation's answer is ``internal error: <the panic>``, whatever an ``||``, an ``&&`` or a
macro around the failing step would have made of an error. With Kubernetes' runtime cost
tracking on, the cost trackers of the lists extension assert their operands:
``distinct()`` (and ``sort()`` resolved to one overload) its target, ``sortBy`` its keys, both as
``traits.Lister``; ``flatten(depth)`` its depth as ``types.Int``. A Go map keyed by a value that
cannot be hashed panics too (a map literal whose key is a semantic version).

cel-cpp has none of this: an error there is a value that ``||`` can absorb. The runtime
expression checks such an operand where cel-go would look at it and records the panic on the
side (:func:`record`); the program reports the first one recorded (:func:`take`).
"""

from __future__ import annotations

import _thread
from collections.abc import Callable
from typing import Any

from cel_expr_python import cel

from dractl.cel.ast import (
    Expr,
    Wrap,
    build_bind,
    build_call,
    build_ident,
    build_string,
    call_operand,
    replace_call_operand,
)

T = cel.Type
# thread id -> the first panic recorded in its evaluation (the threading module costs start-up)
_RECORDED: dict[int, str] = {}

#: cel-cpp's run-time type names (``cel.Type.name()``) → the Go type cel-go holds.
_GO_TYPES = {"INT": "types.Int", "UINT": "types.Uint", "DOUBLE": "types.Double", "STRING": "types.String",
             "BOOL": "types.Bool", "NULL": "types.Null", "BYTES": "types.Bytes", "DURATION": "types.Duration",
             "TIMESTAMP": "types.Timestamp", "TYPE": "*types.Type"}
_TOKEN_GO_TYPES = {ord("q"): "cel.Quantity", ord("s"): "cel.Semver", ord("i"): "cel.IP", ord("c"): "cel.CIDR",
                   ord("f"): "cel.Format", ord("u"): "cel.URL"}
# Go's interface assertion names the first method of traits.Lister (in name order) a type lacks:
# these types have Add (traits.Adder), so they lack Contains.
_ADDERS = frozenset({"types.Int", "types.Uint", "types.Double", "types.String", "types.Bytes", "types.Duration",
                     "types.Timestamp"})
UNHASHABLE_TOKENS = frozenset({ord("s"), ord("f")})  # cel.Semver and cel.Format hold slices and funcs


def record(message: str) -> None:
    _RECORDED.setdefault(_thread.get_ident(), message)


def take() -> str | None:
    """The first panic recorded since the last call (and forget it)."""
    return _RECORDED.pop(_thread.get_ident(), None)


def _go_type_of_kind(kind: Any) -> str:
    name = kind.name()
    if name.startswith("MAP"):
        return "*types.baseMap"
    if name.startswith("LIST"):
        return "*types.baseList"
    if name.startswith("optional_type"):
        return "*types.Optional"
    return _GO_TYPES.get(name, name)


def _go_type_of_token(token: Any) -> str:
    return _TOKEN_GO_TYPES.get(token[0], "types.Bytes") if token else "types.Bytes"


def _assertion(kind: str, go_type: str) -> str:
    if kind == "int":
        return f"interface conversion: ref.Val is {go_type}, not types.Int"
    method = "Contains" if go_type in _ADDERS else "Add"
    return f"interface conversion: {go_type} is not traits.Lister: missing method {method}"


def _panic(message: str) -> bool:
    record(message)
    return True


def _type_panic(kind: str, value_kind: Any) -> bool:
    return _panic(_assertion(kind, _go_type_of_kind(value_kind)))


def _token_panic(kind: str, token: Any) -> bool:
    return _panic(_assertion(kind, _go_type_of_token(token)))


def _map_key(key: Any) -> Any:
    if key and key[0] in UNHASHABLE_TOKENS:
        record(f"runtime error: hash of unhashable type {_TOKEN_GO_TYPES[key[0]]}")
    return key


DECLARATIONS = [
    cel.FunctionDecl("dractl.panic", [cel.Overload("dractl_panic", T.BOOL, [T.STRING], impl=_panic)]),
    cel.FunctionDecl("dractl.type_panic", [cel.Overload("dractl_type_panic", T.BOOL, [T.STRING, T.DYN],
                                                        impl=_type_panic)]),
    cel.FunctionDecl("dractl.token_panic", [cel.Overload("dractl_token_panic", T.BOOL, [T.STRING, T.DYN],
                                                         impl=_token_panic)]),
    cel.FunctionDecl("dractl.map_key", [cel.Overload("dractl_map_key", T.DYN, [T.DYN], impl=_map_key)]),
]


def _checked(kind: str, position: int) -> Wrap:
    """A call whose operand at ``position`` (-1: the target) cel-go's cost tracker asserts to be a
    list (``kind`` "list") or an int ("int"): bound once, checked, then passed to the call."""
    wanted = "list" if kind == "list" else "int"
    on_error = _assertion(kind, "*types.Err")

    def wrap(expr: bytes, fresh: Callable[[], int]) -> bytes:
        name = f"@dractl.operand{fresh()}"

        def operand() -> bytes:
            return build_ident(fresh, name)

        def type_of() -> bytes:
            return build_call(fresh, "type", operand())

        named = build_call(fresh, "_?_:_", build_call(fresh, "_==_", type_of(), build_ident(fresh, "bytes")),
                           build_call(fresh, "dractl.token_panic", build_string(fresh, kind), operand()),
                           build_call(fresh, "dractl.type_panic", build_string(fresh, kind), type_of()))
        # An error operand makes both inner tests errors; the outer || then records it.
        check = build_call(fresh, "_||_",
                           build_call(fresh, "_||_", build_call(fresh, "_==_", type_of(), build_ident(fresh, wanted)),
                                      named),
                           build_call(fresh, "dractl.panic", build_string(fresh, on_error)))
        body = build_call(fresh, "_?_:_", check, replace_call_operand(expr, position, operand()), operand())
        return build_bind(fresh, name, call_operand(expr, position), body)
    return wrap


def _hashed_key(expr: bytes, fresh: Callable[[], int]) -> bytes:
    name = f"@dractl.key{fresh()}"
    is_bytes = build_call(fresh, "_==_", build_call(fresh, "type", build_ident(fresh, name)),
                          build_ident(fresh, "bytes"))
    body = build_call(fresh, "_?_:_", is_bytes, build_call(fresh, "dractl.map_key", build_ident(fresh, name)),
                      build_ident(fresh, name))
    return build_bind(fresh, name, expr, body)


_TRACKED_LISTER_TARGETS = ("list_distinct",)


def guards(root: Expr, overloads: dict[int, list[str]], key_may_be_library_value: Callable[[Expr], bool]) \
        -> dict[int, Wrap]:
    """The nodes of an expression whose evaluation can panic in cel-go, with their checks."""
    found: dict[int, Wrap] = {}
    for node in root.walk():
        if node.kind == "call":
            ids = overloads.get(node.id, [])
            if len(ids) != 1:
                continue  # several overloads: cel-go's call has no overload id, so no tracker runs
            (overload,) = ids
            if overload == "list_distinct" or (overload.startswith("list_") and overload.endswith("_sort")):
                found[node.id] = _checked("list", -1)
            elif overload.endswith("_sortByAssociatedKeys") and node.args:
                found[node.id] = _checked("list", 0)
            elif overload == "list_flatten_int" and node.args:
                found[node.id] = _checked("int", 0)
        elif node.kind == "map":
            for key, _value in node.entries:
                if isinstance(key, Expr) and key_may_be_library_value(key):
                    found[key.id] = _hashed_key
    return found
