"""The default engine's message types, written out as protobuf would serialize them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

descriptor_pb2 = pytest.importorskip("google.protobuf.descriptor_pb2")
descriptor_pool = pytest.importorskip("google.protobuf.descriptor_pool")
struct_pb2 = pytest.importorskip("google.protobuf.struct_pb2")

from dractl.cel.engines import cel_expr_descriptors as d  # noqa: E402

F = descriptor_pb2.FieldDescriptorProto


def expected_dra_file(with_multi_allocations: bool) -> descriptor_pb2.FileDescriptorProto:
    """dractl/cel.proto built with protobuf's own classes."""
    proto = descriptor_pb2.FileDescriptorProto(name="dractl/cel.proto", package="kubernetes", syntax="proto3",
                                               dependency=["google/protobuf/struct.proto"])
    proto.message_type.add(name="Quantity")
    proto.message_type.add(name="Semver")
    device = proto.message_type.add(name="DRADevice")
    device.field.add(name="driver", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    for number, name in ((2, "attributes"), (3, "capacity")):
        entry = device.nested_type.add(name=name.capitalize() + "Entry")
        entry.options.map_entry = True
        entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
        entry.field.add(name="value", number=2, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                        type_name=".google.protobuf.Struct")
        device.field.add(name=name, number=number, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
                         type_name=f".kubernetes.DRADevice.{entry.name}")
    if with_multi_allocations:
        device.field.add(name="allowMultipleAllocations", number=4, type=F.TYPE_BOOL, label=F.LABEL_OPTIONAL)
    for name in ("URL", "NamedFormat"):
        proto.message_type.add(name=name)
    return proto


def expected_network_file() -> descriptor_pb2.FileDescriptorProto:
    proto = descriptor_pb2.FileDescriptorProto(name="dractl/net.proto", package="net", syntax="proto3")
    for name in ("IP", "CIDR"):
        proto.message_type.add(name=name)
    return proto


CASES = [
    ("cel.proto", lambda: d.dra_file(False), lambda: expected_dra_file(False)),
    ("cel.proto with allowMultipleAllocations", lambda: d.dra_file(True), lambda: expected_dra_file(True)),
    ("net.proto", d.network_file, expected_network_file),
]


@pytest.mark.parametrize(("name", "ours", "theirs"), CASES, ids=[c[0] for c in CASES])
def test_files_serialize_as_protobuf_does(name: str, ours: Callable[[], Any], theirs: Callable[[], Any]) -> None:
    assert ours().serialized_pb == theirs().SerializeToString(deterministic=True)


def protobuf_pool(with_multi_allocations: bool) -> descriptor_pool.DescriptorPool:
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(struct_pb2.DESCRIPTOR.serialized_pb)
    pool.Add(expected_dra_file(with_multi_allocations))
    pool.Add(expected_network_file())
    return pool


SYMBOLS = [
    "kubernetes.DRADevice", "kubernetes.DRADevice.driver", "kubernetes.DRADevice.AttributesEntry",
    "kubernetes.DRADevice.CapacityEntry.value", "kubernetes.DRADevice.allowMultipleAllocations",
    "kubernetes.Quantity", "kubernetes.Semver.prerelease", "kubernetes.URL", "kubernetes.NamedFormat.name",
    "net.IP", "net.CIDR.text",
    # not ours: names the checker asks for while it resolves identifiers and options
    "kubernetes", "kubernetes.Missing", "net", "device", "device.driver", "google.protobuf.FileOptions",
]


@pytest.mark.parametrize("multi", [False, True])
@pytest.mark.parametrize("symbol", SYMBOLS)
def test_the_pool_finds_what_protobufs_finds(symbol: str, multi: bool) -> None:
    ours, theirs = d.DescriptorPool(multi), protobuf_pool(multi)
    try:
        expected = theirs.FindFileContainingSymbol(symbol).name
    except KeyError:
        expected = None
    try:
        found = ours.FindFileContainingSymbol(symbol)
    except KeyError:
        assert expected is None
    else:
        assert (found.name, found.serialized_pb) == (expected, theirs.FindFileByName(expected).serialized_pb)
