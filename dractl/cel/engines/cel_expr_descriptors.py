"""What the default engine needs of protobuf: its message types, the pool that holds them, and
protobuf's Python modules only when a message crosses into Python.

The checker types ``device`` as ``kubernetes.DRADevice`` (``driver``, ``attributes`` and
``capacity``, and ``allowMultipleAllocations`` where the release has it) and gives the library's
values types of their own (``kubernetes.Quantity``, ``kubernetes.Semver``, ``kubernetes.URL``,
``kubernetes.NamedFormat``, ``net.IP``, ``net.CIDR``), as upstream's environment does.

cel-expr-python asks its pool for nothing but ``FindFileContainingSymbol(name)`` and reads the
``serialized_pb`` of what it gets (a ``KeyError`` for names it does not hold). So the pool here is
a small class over the files' serialized ``FileDescriptorProto``, written out here: building them
with protobuf's ``descriptor_pb2`` imports and builds descriptor.proto's Python classes, a few
milliseconds of every start of the engine. tests/cel/test_cel_expr_descriptors.py checks the
bytes and the symbols against protobuf's own.

cel-expr-python also looks up ``google.protobuf.message_factory.GetMessageClass`` whenever an
environment is made, which imports protobuf's Python runtime (some thirty modules, a fifth of a
lint of one small file) although it is called only when a protobuf message value is handed to
Python, which a lint never does. :func:`protobuf_on_demand` lets an environment be made with a
stand-in that imports the real function on its first call. (No message of the types here is
ever handed to Python: the library's values travel as bytes, and selectors may not name the
types.)
"""

from __future__ import annotations

import _thread
import contextlib
import sys
import types
from collections.abc import Iterator, Sequence
from typing import Any

# google/protobuf/descriptor.proto
TYPE_BOOL, TYPE_STRING, TYPE_MESSAGE = 8, 9, 11
LABEL_OPTIONAL, LABEL_REPEATED = 1, 3
_LENGTH_DELIMITED, _VARINT = 2, 0


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _tag(number: int, wire_type: int) -> bytes:
    return _varint(number << 3 | wire_type)


def _text(number: int, value: str) -> bytes:
    data = value.encode()
    return _tag(number, _LENGTH_DELIMITED) + _varint(len(data)) + data


def _message(number: int, data: bytes) -> bytes:
    return _tag(number, _LENGTH_DELIMITED) + _varint(len(data)) + data


def _number(number: int, value: int) -> bytes:
    return _tag(number, _VARINT) + _varint(value)


class Field:
    """A ``FieldDescriptorProto``."""

    __slots__ = ("name", "serialized")

    def __init__(self, name: str, number: int, kind: int, label: int = LABEL_OPTIONAL, type_name: str = "") -> None:
        self.name = name
        out = _text(1, name) + _number(3, number) + _number(4, label) + _number(5, kind)
        self.serialized = out + (_text(6, type_name) if type_name else b"")


class Message:
    """A ``DescriptorProto``."""

    __slots__ = ("fields", "name", "nested", "serialized")

    def __init__(self, name: str, fields: Sequence[Field], nested: Sequence[Message] = (),
                 map_entry: bool = False) -> None:
        self.name = name
        self.fields = list(fields)
        self.nested = list(nested)
        out = _text(1, name) + b"".join(_message(2, f.serialized) for f in self.fields)
        out += b"".join(_message(3, n.serialized) for n in self.nested)
        self.serialized = out + (_message(7, _number(7, 1)) if map_entry else b"")  # MessageOptions.map_entry

    def symbols(self, scope: str) -> list[str]:
        """The full names of the message, its fields and its nested messages."""
        name = f"{scope}.{self.name}"
        return [name, *(f"{name}.{f.name}" for f in self.fields), *(s for n in self.nested for s in n.symbols(name))]


class FileDescriptor:
    """A ``FileDescriptorProto`` of proto3 syntax, as cel-expr-python reads it: ``serialized_pb``."""

    __slots__ = ("name", "serialized_pb", "symbols")

    def __init__(self, name: str, package: str, messages: Sequence[Message], dependencies: Sequence[str] = ()) -> None:
        self.name = name
        out = _text(1, name) + _text(2, package) + b"".join(_text(3, d) for d in dependencies)
        self.serialized_pb = out + b"".join(_message(4, m.serialized) for m in messages) + _text(12, "proto3")
        self.symbols = frozenset(s for m in messages for s in m.symbols(package))


def dra_file(with_multi_allocations: bool) -> FileDescriptor:
    """``dractl/cel.proto``: the device and the library's value types."""
    entries = [
        Message(name.capitalize() + "Entry", [
            Field("key", 1, TYPE_STRING),
            Field("value", 2, TYPE_MESSAGE, type_name=".google.protobuf.Struct"),
        ], map_entry=True)
        for name in ("attributes", "capacity")
    ]
    device_fields = [
        Field("driver", 1, TYPE_STRING),
        Field("attributes", 2, TYPE_MESSAGE, LABEL_REPEATED, ".kubernetes.DRADevice.AttributesEntry"),
        Field("capacity", 3, TYPE_MESSAGE, LABEL_REPEATED, ".kubernetes.DRADevice.CapacityEntry"),
    ]
    if with_multi_allocations:
        device_fields.append(Field("allowMultipleAllocations", 4, TYPE_BOOL))
    # The library's types have no fields: upstream's checker lets no selector select one (its
    # values travel as bytes here, never as these messages).
    return FileDescriptor("dractl/cel.proto", "kubernetes", [
        Message("Quantity", []),
        Message("Semver", []),
        Message("DRADevice", device_fields, entries),
        Message("URL", []),
        Message("NamedFormat", []),
    ], dependencies=["google/protobuf/struct.proto"])


def network_file() -> FileDescriptor:
    """``dractl/net.proto``: the IP and CIDR values of the network library."""
    return FileDescriptor("dractl/net.proto", "net", [Message(name, []) for name in ("IP", "CIDR")])


class DescriptorPool:
    """The engine's types by package: ``kubernetes.*`` and ``net.*``; the well-known types
    (``google.protobuf.Struct`` and the rest) are cel-expr-python's own."""

    def __init__(self, with_multi_allocations: bool) -> None:
        self._by_symbol = {s: f for f in (dra_file(with_multi_allocations), network_file()) for s in f.symbols}

    def FindFileContainingSymbol(self, symbol: str) -> FileDescriptor:  # the name cel-expr-python calls
        try:
            return self._by_symbol[symbol]
        except KeyError:
            raise KeyError(f"Couldn't find symbol {symbol}") from None


_MESSAGE_FACTORY = "google.protobuf.message_factory"
_STAND_IN_LOCK = _thread.allocate_lock()


def _get_message_class(descriptor: Any) -> Any:
    if getattr(sys.modules.get(_MESSAGE_FACTORY), "GetMessageClass", None) is _get_message_class:
        del sys.modules[_MESSAGE_FACTORY]  # called while an environment is made: import the real one
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(descriptor)


@contextlib.contextmanager
def protobuf_on_demand() -> Iterator[None]:
    """While an environment is made: ``google.protobuf.message_factory`` is a module whose only
    function imports the real one and calls it. The stand-in is in ``sys.modules`` for the
    duration of the block only, one block at a time, and not at all once protobuf is imported."""
    with _STAND_IN_LOCK:
        if _MESSAGE_FACTORY in sys.modules:
            yield
            return
        stand_in = types.ModuleType(_MESSAGE_FACTORY)
        stand_in.GetMessageClass = _get_message_class  # type: ignore[attr-defined]
        sys.modules[_MESSAGE_FACTORY] = stand_in
        try:
            yield
        finally:
            if sys.modules.get(_MESSAGE_FACTORY) is stand_in:
                del sys.modules[_MESSAGE_FACTORY]
