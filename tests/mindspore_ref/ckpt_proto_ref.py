"""A reference for MindSpore's ``.ckpt`` that shares nothing with ours: message classes that
``protobuf`` builds from the ``checkpoint.proto`` definition (proto2; field numbers as in
MindSpore 2.10's own descriptor, read from its installed ``checkpoint_pb2``)::

    message Checkpoint { message Value { required string tag = 1;
        oneof value { TensorProto tensor = 2; MapTensorProto maptensor = 3; } }
        repeated Value value = 1; }
    message TensorProto { repeated int64 dims = 1; required string tensor_type = 2;
                          required bytes tensor_content = 3; }
    message MapTensorProto { repeated TensorProto tensor = 1; }

The file is one ``Checkpoint`` message per value laid end to end, then optionally ``b"crc_num"``
and the CRC32 of the messages as 10 big-endian bytes.
"""

from __future__ import annotations

import zlib

import pytest

descriptor_pb2 = pytest.importorskip("google.protobuf.descriptor_pb2")
from google.protobuf import descriptor_pool, message_factory  # noqa: E402

F = descriptor_pb2.FieldDescriptorProto


def _build():
    fd = descriptor_pb2.FileDescriptorProto(name="twinmode_ref/checkpoint.proto",
                                            package="twinmode_ref", syntax="proto2")
    tensor = fd.message_type.add(name="TensorProto")
    tensor.field.add(name="dims", number=1, label=F.LABEL_REPEATED, type=F.TYPE_INT64)
    tensor.field.add(name="tensor_type", number=2, label=F.LABEL_REQUIRED, type=F.TYPE_STRING)
    tensor.field.add(name="tensor_content", number=3, label=F.LABEL_REQUIRED, type=F.TYPE_BYTES)
    maps = fd.message_type.add(name="MapTensorProto")
    maps.field.add(name="tensor", number=1, label=F.LABEL_REPEATED, type=F.TYPE_MESSAGE,
                   type_name=".twinmode_ref.TensorProto")
    ckpt = fd.message_type.add(name="Checkpoint")
    value = ckpt.nested_type.add(name="Value")
    value.oneof_decl.add(name="value")
    value.field.add(name="tag", number=1, label=F.LABEL_REQUIRED, type=F.TYPE_STRING)
    value.field.add(name="tensor", number=2, label=F.LABEL_OPTIONAL, type=F.TYPE_MESSAGE,
                    type_name=".twinmode_ref.TensorProto", oneof_index=0)
    value.field.add(name="maptensor", number=3, label=F.LABEL_OPTIONAL, type=F.TYPE_MESSAGE,
                    type_name=".twinmode_ref.MapTensorProto", oneof_index=0)
    ckpt.field.add(name="value", number=1, label=F.LABEL_REPEATED, type=F.TYPE_MESSAGE,
                   type_name=".twinmode_ref.Checkpoint.Value")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("twinmode_ref.Checkpoint"))


Checkpoint = _build()


def encode(values, crc: bool = False) -> bytes:
    """``values``: ``(tag, dims, tensor_type, content)`` tuples, or ``(tag, "map")`` for a
    MapParameter entry."""
    out = b""
    for item in values:
        message = Checkpoint()
        value = message.value.add()
        value.tag = item[0]
        if item[1] == "map":
            value.maptensor.tensor.add(tensor_type="Int64", tensor_content=b"")
        else:
            value.tensor.dims.extend(item[1])
            value.tensor.tensor_type = item[2]
            value.tensor.tensor_content = item[3]
        out += message.SerializeToString()
    if crc:
        out += b"crc_num" + zlib.crc32(out).to_bytes(10, "big")
    return out


def decode(raw: bytes) -> tuple[list[tuple[str, list[int], str, bytes]], int | None]:
    """The values of a file and its CRC trailer (None without one); checks the CRC."""
    crc = None
    if raw[-17:-10] == b"crc_num":
        raw, crc = raw[:-17], int.from_bytes(raw[-10:], "big")
        assert zlib.crc32(raw) == crc
    message = Checkpoint()
    message.ParseFromString(raw)
    return [(v.tag, list(v.tensor.dims), v.tensor.tensor_type, v.tensor.tensor_content)
            for v in message.value], crc
