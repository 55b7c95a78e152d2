"""The checked syntax tree of an expression, decoded from cel-cpp's serialized ``CheckedExpr``.

Only the parts the cost estimator and the static checks need: nodes with ids, each node's type,
each call's overload ids, and source offsets. The decoder reads the protobuf wire format
directly (field numbers of ``cel.expr.CheckedExpr``), so no generated code is needed.
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Callable
from typing import Any

from dractl.records import Record

# -- protobuf wire format -----------------------------------------------------------------


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def _fields(data: bytes) -> list[tuple[int, int, Any]]:
    """(field number, wire type, value) for each field; length-delimited values stay bytes."""
    out: list[tuple[int, int, Any]] = []
    pos = 0
    end = len(data)
    while pos < end:
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 1:
            value = data[pos : pos + 8]
            pos += 8
        elif wire == 2:
            length, pos = _varint(data, pos)
            value = data[pos : pos + length]
            pos += length
        elif wire == 5:
            value = data[pos : pos + 4]
            pos += 4
        else:  # groups do not occur in CheckedExpr
            raise ValueError(f"unsupported wire type {wire}")
        out.append((number, wire, value))
    return out


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


# -- types ----------------------------------------------------------------------------------

_PRIMITIVES = {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}
_WELL_KNOWN = {1: "any", 2: "google.protobuf.Timestamp", 3: "google.protobuf.Duration"}


class CelType(Record):
    """A CEL type: ``kind`` is bool/int/.../list/map/message/type_param/type/dyn/null_type/
    error/opaque/any/wrapper; ``name`` names messages and opaque types; ``params`` are type
    arguments."""

    __slots__ = ("kind", "name", "params")
    __hash__ = Record.value_hash

    def __init__(self, kind: str, name: str = "", params: tuple[CelType, ...] = ()) -> None:
        self.kind = kind
        self.name = name
        self.params = params

    def __str__(self) -> str:
        if self.kind in ("list", "map", "type"):
            return f"{self.kind}({', '.join(str(p) for p in self.params)})"
        if self.kind == "opaque":
            return f"{self.name}({', '.join(str(p) for p in self.params)})" if self.params else self.name
        if self.kind == "wrapper":
            return f"wrapper({self.params[0]})"
        if self.kind in ("message", "type_param"):
            return self.name
        return self.kind


DYN = CelType("dyn")


def _decode_type(data: bytes) -> CelType:
    for number, _wire, value in _fields(data):
        if number == 1:
            return DYN
        if number == 2:
            return CelType("null_type")
        if number == 3:
            return CelType(_PRIMITIVES.get(value, "dyn"))
        if number == 4:
            return CelType("wrapper", params=(CelType(_PRIMITIVES.get(value, "dyn")),))
        if number == 5:
            return CelType(_WELL_KNOWN.get(value, "dyn"))
        if number == 6:
            elem = [_decode_type(v) for n, _w, v in _fields(value) if n == 1]
            return CelType("list", params=(elem[0] if elem else DYN,))
        if number == 7:
            parts = {n: _decode_type(v) for n, _w, v in _fields(value)}
            return CelType("map", params=(parts.get(1, DYN), parts.get(2, DYN)))
        if number == 9:
            return CelType("message", name=value.decode())
        if number == 10:
            return CelType("type_param", name=value.decode())
        if number == 11:
            return CelType("type", params=(_decode_type(value),) if value else ())
        if number == 12:
            return CelType("error")
        if number == 14:
            name = ""
            params: list[CelType] = []
            for n, _w, v in _fields(value):
                if n == 1:
                    name = v.decode()
                elif n == 2:
                    params.append(_decode_type(v))
            return CelType("opaque", name=name, params=tuple(params))
    return DYN


# -- expressions ------------------------------------------------------------------------------


class Expr(Record):
    """One node. ``kind``: const, ident, select, call, list, map, struct, comprehension."""

    __slots__ = (
        "accu_init",
        "accu_var",
        "args",
        "entries",
        "id",
        "iter_range",
        "iter_var",
        "iter_var2",
        "kind",
        "loop_condition",
        "loop_step",
        "name",
        "operand",
        "optional_entries",
        "result",
        "test_only",
        "value",
    )

    def __init__(
        self,
        id: int,
        kind: str,
        value: Any = None,
        name: str = "",
        operand: Expr | None = None,
        test_only: bool = False,
        args: list[Expr] | None = None,
        entries: list[tuple[Expr | str, Expr]] | None = None,
        iter_var: str = "",
        iter_var2: str = "",
        iter_range: Expr | None = None,
        accu_var: str = "",
        accu_init: Expr | None = None,
        loop_condition: Expr | None = None,
        loop_step: Expr | None = None,
        result: Expr | None = None,
        optional_entries: frozenset[int] = frozenset(),
    ) -> None:
        self.id = id
        self.kind = kind
        # const
        self.value = value
        # ident: name; select: field; call: function
        self.name = name
        self.operand = operand  # select operand / call target
        self.test_only = test_only
        self.args = [] if args is None else args  # call args, list elements
        self.entries = [] if entries is None else entries  # map/struct entries
        self.optional_entries = optional_entries  # positions of ``?x`` elements and ``?k: v`` entries
        # comprehension
        self.iter_var = iter_var
        self.iter_var2 = iter_var2
        self.iter_range = iter_range
        self.accu_var = accu_var
        self.accu_init = accu_init
        self.loop_condition = loop_condition
        self.loop_step = loop_step
        self.result = result

    def children(self) -> list[Expr]:
        kids: list[Expr] = []
        if self.operand is not None:
            kids.append(self.operand)
        kids.extend(self.args)
        for key, value in self.entries:
            if isinstance(key, Expr):
                kids.append(key)
            kids.append(value)
        for part in (self.iter_range, self.accu_init, self.loop_condition, self.loop_step, self.result):
            if part is not None:
                kids.append(part)
        return kids

    def walk(self) -> list[Expr]:
        out = [self]
        for child in self.children():
            out.extend(child.walk())
        return out


class _Bytes(bytes):
    """A bytes constant (distinct from a string constant)."""


def _decode_constant(data: bytes) -> Any:
    for number, wire, value in _fields(data):
        if number == 1:
            return None
        if number == 2:
            return bool(value)
        if number == 3:
            return _signed(value)
        if number == 4:
            return _Unsigned(value)
        if number == 5:
            return struct.unpack("<d", value)[0] if wire == 1 else float(value)
        if number == 6:
            return value.decode()
        if number == 7:
            return _Bytes(value)
    return None


class _Unsigned(int):
    """A uint constant."""


def _decode_expr(data: bytes) -> Expr:
    expr_id = 0
    node: Expr | None = None
    for number, _wire, value in _fields(data):
        if number == 2:
            expr_id = _signed(value)
        elif number == 3:
            node = Expr(0, "const", value=_decode_constant(value))
        elif number == 4:
            name = next((v.decode() for n, _w, v in _fields(value) if n == 1), "")
            node = Expr(0, "ident", name=name)
        elif number == 5:
            node = Expr(0, "select")
            for n, _w, v in _fields(value):
                if n == 1:
                    node.operand = _decode_expr(v)
                elif n == 2:
                    node.name = v.decode()
                elif n == 3:
                    node.test_only = bool(v)
        elif number == 6:
            node = Expr(0, "call")
            for n, _w, v in _fields(value):
                if n == 1:
                    node.operand = _decode_expr(v)
                elif n == 2:
                    node.name = v.decode()
                elif n == 3:
                    node.args.append(_decode_expr(v))
        elif number == 7:
            node = _decode_list(value)
        elif number == 8:
            node = _decode_struct(value)
        elif number == 9:
            node = _decode_comprehension(value)
    if node is None:
        node = Expr(0, "unspecified")
    node.id = expr_id
    return node


def _decode_list(data: bytes) -> Expr:
    elements: list[Expr] = []
    optional: set[int] = set()
    for number, wire, value in _fields(data):
        if number == 1:
            elements.append(_decode_expr(value))
        elif number == 2:  # optional_indices, packed or not
            if wire == 0:
                optional.add(value)
            else:
                pos = 0
                while pos < len(value):
                    index, pos = _varint(value, pos)
                    optional.add(index)
    return Expr(0, "list", args=elements, optional_entries=frozenset(optional))


def _decode_struct(data: bytes) -> Expr:
    message_name = ""
    entries: list[tuple[Expr | str, Expr]] = []
    optional: set[int] = set()
    for number, _wire, value in _fields(data):
        if number == 1:
            message_name = value.decode()
        elif number == 2:
            key: Expr | str = ""
            entry_value: Expr | None = None
            optional_entry = False
            for n, _w, v in _fields(value):
                if n == 2:
                    key = v.decode()
                elif n == 3:
                    key = _decode_expr(v)
                elif n == 4:
                    entry_value = _decode_expr(v)
                elif n == 5:
                    optional_entry = bool(v)
            if entry_value is not None:
                if optional_entry:
                    optional.add(len(entries))
                entries.append((key, entry_value))
    if message_name:
        return Expr(0, "struct", name=message_name, entries=entries)
    return Expr(0, "map", entries=entries, optional_entries=frozenset(optional))


def _decode_comprehension(data: bytes) -> Expr:
    node = Expr(0, "comprehension")
    for number, _wire, value in _fields(data):
        if number == 1:
            node.iter_var = value.decode()
        elif number == 8:
            node.iter_var2 = value.decode()
        elif number == 2:
            node.iter_range = _decode_expr(value)
        elif number == 3:
            node.accu_var = value.decode()
        elif number == 4:
            node.accu_init = _decode_expr(value)
        elif number == 5:
            node.loop_condition = _decode_expr(value)
        elif number == 6:
            node.loop_step = _decode_expr(value)
        elif number == 7:
            node.result = _decode_expr(value)
    return node


class CheckedAst(Record):
    __slots__ = ("macro_calls", "overloads", "positions", "references", "root", "types")

    def __init__(
        self,
        root: Expr,
        types: dict[int, CelType],
        overloads: dict[int, list[str]],
        references: dict[int, str],
        positions: dict[int, int],
        macro_calls: dict[int, Expr],
    ) -> None:
        self.root = root
        self.types = types
        self.overloads = overloads
        self.references = references
        self.positions = positions
        self.macro_calls = macro_calls

    def type_of(self, node: Expr) -> CelType:
        return self.types.get(node.id, DYN)

    def references_device(self) -> bool:
        """Whether the expression names ``device`` anywhere (the one variable of a selector):
        one that does not has the same value on every device."""
        return any(
            node.kind == "ident" and (node.name == "device" or node.name.startswith("device."))
            for node in self.root.walk()
        )


def _decode_map_entries(data: bytes) -> tuple[Any, bytes | int | None]:
    key: Any = None
    value: Any = None
    for number, _wire, item in _fields(data):
        if number == 1:
            key = item
        elif number == 2:
            value = item
    return key, value


def decode_checked(serialized: bytes) -> CheckedAst:
    """Decode ``Expression.serialize()`` (a ``google.protobuf.Any`` holding a CheckedExpr)."""
    payload = serialized
    for number, _wire, value in _fields(serialized):
        if number == 2:
            payload = value
    root: Expr | None = None
    types: dict[int, CelType] = {}
    overloads: dict[int, list[str]] = {}
    references: dict[int, str] = {}
    positions: dict[int, int] = {}
    macro_calls: dict[int, Expr] = {}
    for number, _wire, value in _fields(payload):
        if number == 4:
            root = _decode_expr(value)
        elif number == 3:
            key, type_bytes = _decode_map_entries(value)
            types[_signed(key or 0)] = _decode_type(type_bytes or b"")
        elif number == 2:
            key, ref_bytes = _decode_map_entries(value)
            ids: list[str] = []
            name = ""
            for n, _w, v in _fields(ref_bytes or b""):
                if n == 1:
                    name = v.decode()
                elif n == 3:
                    ids.append(v.decode())
            overloads[_signed(key or 0)] = ids
            if name:
                references[_signed(key or 0)] = name
        elif number == 5:
            _decode_source_info(value, positions, macro_calls)
    return CheckedAst(root or Expr(0, "unspecified"), types, overloads, references, positions, macro_calls)


def _decode_source_info(data: bytes, positions: dict[int, int], macro_calls: dict[int, Expr]) -> None:
    for number, _wire, value in _fields(data):
        if number == 4:
            key, offset = _decode_map_entries(value)
            positions[_signed(key or 0)] = int(offset or 0)
        elif number == 5:
            key, call = _decode_map_entries(value)
            macro_calls[_signed(key or 0)] = _decode_expr(call or b"")


def decode_parsed(serialized: bytes) -> CheckedAst:
    """Decode the serialized form of an expression compiled without checking (a
    ``google.protobuf.Any`` holding a ParsedExpr): the tree and its positions, no types."""
    payload = serialized
    for number, _wire, value in _fields(serialized):
        if number == 2:
            payload = value
    root: Expr | None = None
    positions: dict[int, int] = {}
    macro_calls: dict[int, Expr] = {}
    for number, _wire, value in _fields(payload):
        if number == 2:
            root = _decode_expr(value)
        elif number == 3:
            _decode_source_info(value, positions, macro_calls)
    return CheckedAst(root or Expr(0, "unspecified"), {}, {}, {}, positions, macro_calls)


# -- rewriting ---------------------------------------------------------------------------------


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _encode(fields: list[tuple[int, int, Any]]) -> bytes:
    out = bytearray()
    for number, wire, value in fields:
        out += _encode_varint(number << 3 | wire)
        if wire == 0:
            out += _encode_varint(value)
        elif wire == 2:
            out += _encode_varint(len(value)) + value
        else:
            out += value
    return bytes(out)


# Fields holding an ``Expr``, per message: cel.expr Expr (select, call, list, struct,
# comprehension) and the messages inside it.
_EXPR_FIELDS = {"select": {1}, "call": {1, 3}, "list": {1}, "entry": {3, 4}, "comprehension": {2, 4, 5, 6, 7}}
_EXPR_KINDS = {5: "select", 6: "call", 7: "list", 8: "struct", 9: "comprehension"}


#: A call's new function name, or (outer function, inner function, id for the inner call): the
#: call becomes ``outer(inner(<the call's target and arguments>))``.
Rename = str | tuple[str, str, int]


def _expr_id(data: bytes) -> int:
    return next((_signed(v) for n, _w, v in _fields(data) if n == 2), 0)


_TRUE_CONSTANT = _encode([(2, 0, 1)])  # cel.expr.Constant{bool_value: true}


#: A rewrite of one node: its encoded ``Expr`` (children already rewritten) and a source of
#: fresh ids → the encoded ``Expr`` that takes its place.
Wrap = Callable[[bytes, Callable[[], int]], bytes]


def _rename_in_expr(data: bytes, renames: dict[int, Rename], dropped: frozenset[int] = frozenset(),
                    true_ids: frozenset[int] = frozenset(), wraps: dict[int, Wrap] | None = None,
                    fresh: Callable[[], int] | None = None) -> bytes:
    fields = _fields(data)
    expr_id = next((_signed(v) for n, _w, v in fields if n == 2), 0)
    if expr_id in true_ids:
        return _encode([(2, 0, expr_id % 2**64), (3, 2, _TRUE_CONSTANT)])
    out: list[tuple[int, int, Any]] = []
    for number, wire, value in fields:
        kind = _EXPR_KINDS.get(number)
        if kind is not None and wire == 2:
            value = _rename_in_message(kind, value, renames, expr_id, dropped, true_ids, wraps, fresh)
            rename = renames.get(expr_id)
            if kind == "call" and isinstance(rename, tuple):
                inner = _encode([(2, 0, rename[2] % 2**64), (6, 2, value)])
                value = _encode([(2, 2, rename[0].encode()), (3, 2, inner)])
        out.append((number, wire, value))
    encoded = _encode(out)
    if wraps and expr_id in wraps and fresh is not None:
        return wraps[expr_id](encoded, fresh)
    return encoded


def _rename_in_message(kind: str, data: bytes, renames: dict[int, Rename], expr_id: int,
                       dropped: frozenset[int], true_ids: frozenset[int], wraps: dict[int, Wrap] | None = None,
                       fresh: Callable[[], int] | None = None) -> bytes:
    out: list[tuple[int, int, Any]] = []
    for number, wire, value in _fields(data):
        if kind == "struct" and number == 2:
            if dropped and any(n == 3 and _expr_id(v) in dropped for n, _w, v in _fields(value)):
                continue
            value = _rename_in_message("entry", value, renames, expr_id, dropped, true_ids, wraps, fresh)
        elif kind == "call" and number == 2 and expr_id in renames:
            rename = renames[expr_id]
            value = (rename[1] if isinstance(rename, tuple) else rename).encode()
        elif number in _EXPR_FIELDS.get(kind, ()):
            value = _rename_in_expr(value, renames, dropped, true_ids, wraps, fresh)
        out.append((number, wire, value))
    return _encode(out)


def rename_calls(serialized: bytes, renames: dict[int, Rename], dropped_keys: frozenset[int] = frozenset(),
                 true_ids: frozenset[int] = frozenset(), wraps: dict[int, Wrap] | None = None,
                 first_fresh_id: int = 1 << 40) -> bytes:
    """``serialized`` (as ``decode_checked`` takes it) with the function of each call whose id is
    a key of ``renames`` replaced as its value says, without the map literal entries whose key
    expression's id is in ``dropped_keys``, with the expressions whose id is in ``true_ids``
    replaced by the constant ``true``, and each node whose id is a key of ``wraps`` replaced by
    what its wrap makes of it (new nodes get ids from ``first_fresh_id`` on)."""
    if not renames and not dropped_keys and not true_ids and not wraps:
        return serialized
    counter = itertools.count(first_fresh_id)

    def fresh() -> int:
        return next(counter)

    outer: list[tuple[int, int, Any]] = []
    for number, wire, value in _fields(serialized):
        if number == 2:
            checked: list[tuple[int, int, Any]] = []
            for n, w, v in _fields(value):
                checked.append((n, w, _rename_in_expr(v, renames, dropped_keys, true_ids, wraps, fresh)
                                if n == 4 else v))
            value = _encode(checked)
        outer.append((number, wire, value))
    return _encode(outer)


# -- building expressions (cel.expr.Expr) ------------------------------------------------------


def build_ident(fresh: Callable[[], int], name: str) -> bytes:
    return _encode([(2, 0, fresh()), (4, 2, _encode([(1, 2, name.encode())]))])


def build_string(fresh: Callable[[], int], text: str) -> bytes:
    return _encode([(2, 0, fresh()), (3, 2, _encode([(6, 2, text.encode())]))])


def build_bool(fresh: Callable[[], int], value: bool) -> bytes:
    return _encode([(2, 0, fresh()), (3, 2, _encode([(2, 0, int(value))]))])


def build_call(fresh: Callable[[], int], function: str, *args: bytes, target: bytes | None = None) -> bytes:
    fields: list[tuple[int, int, Any]] = [] if target is None else [(1, 2, target)]
    fields.append((2, 2, function.encode()))
    fields += [(3, 2, arg) for arg in args]
    return _encode([(2, 0, fresh()), (6, 2, _encode(fields))])


def build_bind(fresh: Callable[[], int], name: str, value: bytes, body: bytes) -> bytes:
    """``body`` with ``name`` bound to ``value``, evaluated once and before ``body`` (a
    comprehension over an empty list, as ``cel.bind`` expands, but not recognised as one: cel-cpp
    evaluates a ``cel.bind`` variable lazily)."""
    empty = _encode([(2, 0, fresh()), (7, 2, b"")])
    comprehension = _encode([
        (1, 2, b"@dractl.unused"), (2, 2, empty), (3, 2, name.encode()), (4, 2, value),
        (5, 2, build_bool(fresh, False)), (6, 2, build_ident(fresh, name)), (7, 2, body)])
    return _encode([(2, 0, fresh()), (9, 2, comprehension)])


def build_select(fresh: Callable[[], int], operand: bytes, field: str) -> bytes:
    return _encode([(2, 0, fresh()), (5, 2, _encode([(1, 2, operand), (2, 2, field.encode())]))])


def build_list(fresh: Callable[[], int], *elements: bytes) -> bytes:
    return _encode([(2, 0, fresh()), (7, 2, _encode([(1, 2, element) for element in elements]))])


def build_map(fresh: Callable[[], int], *entries: tuple[bytes, bytes]) -> bytes:
    encoded = [(2, 2, _encode([(1, 0, fresh()), (3, 2, key), (4, 2, value)])) for key, value in entries]
    return _encode([(2, 0, fresh()), (8, 2, _encode(encoded))])


def call_operand(expr: bytes, position: int) -> bytes:
    """The target (``position`` -1) or argument ``position`` of the encoded call ``expr``."""
    call = next(v for n, _w, v in _fields(expr) if n == 6)
    if position < 0:
        return next(v for n, _w, v in _fields(call) if n == 1)
    return [v for n, _w, v in _fields(call) if n == 3][position]


def replace_call_operand(expr: bytes, position: int, operand: bytes) -> bytes:
    """The encoded call ``expr`` with its target (``position`` -1) or argument ``position`` replaced."""
    out: list[tuple[int, int, Any]] = []
    for number, wire, value in _fields(expr):
        if number == 6:
            fields: list[tuple[int, int, Any]] = []
            index = 0
            for n, w, v in _fields(value):
                if n == 1 and position < 0:
                    v = operand
                elif n == 3:
                    if index == position:
                        v = operand
                    index += 1
                fields.append((n, w, v))
            value = _encode(fields)
        out.append((number, wire, value))
    return _encode(out)
