"""A reference for MindIR files that shares nothing with framework/mindir: message classes
that ``protobuf`` builds from a subset of MindSpore's ``mind_ir.proto`` (proto2; field
numbers as in MindSpore 2.10's descriptor)::

    message TensorProto { repeated int64 dims = 1; optional int32 data_type = 2;
                          optional string name = 7; optional bytes raw_data = 9;
                          optional string ref_key = 13; }
    message AttributeProto { optional string name = 1; optional float f = 2; optional int64 i = 3;
                             optional bytes s = 5; repeated int64 ints = 10;
                             repeated TensorProto tensors = 12; optional int32 type = 16;
                             repeated AttributeProto values = 17; }
    message ValueInfoProto { optional string name = 1; repeated TensorProto tensor = 2; }
    message NodeProto { repeated string input = 1; repeated string output = 2;
                        optional string name = 3; optional string op_type = 4;
                        repeated AttributeProto attribute = 5; }
    message GraphProto { repeated NodeProto node = 1; optional string name = 2;
                         repeated TensorProto parameter = 3; repeated ValueInfoProto input = 5;
                         repeated ValueInfoProto output = 6; }
    message PrimitiveProto { optional string name = 1; optional string op_type = 2;
                             repeated AttributeProto attribute = 3; optional int32 prim_type = 5; }
    message ModelProto { optional string ir_version = 1; optional string producer_name = 2;
                         optional GraphProto graph = 7; optional bool little_endian = 10;
                         repeated PrimitiveProto primitives = 12; optional int64 mind_ir_version = 13; }
"""

from __future__ import annotations

import pytest

descriptor_pb2 = pytest.importorskip("google.protobuf.descriptor_pb2")
from google.protobuf import descriptor_pool, message_factory  # noqa: E402

F = descriptor_pb2.FieldDescriptorProto
_T = {"int64": F.TYPE_INT64, "int32": F.TYPE_INT32, "string": F.TYPE_STRING, "bytes": F.TYPE_BYTES,
      "float": F.TYPE_FLOAT, "bool": F.TYPE_BOOL}
_MESSAGES = {
    "TensorProto": [("dims", 1, "int64", True), ("data_type", 2, "int32", False),
                    ("name", 7, "string", False), ("raw_data", 9, "bytes", False),
                    ("ref_key", 13, "string", False)],
    "AttributeProto": [("name", 1, "string", False), ("f", 2, "float", False), ("i", 3, "int64", False),
                       ("s", 5, "bytes", False), ("ints", 10, "int64", True),
                       ("tensors", 12, "TensorProto", True), ("type", 16, "int32", False),
                       ("values", 17, "AttributeProto", True)],
    "ValueInfoProto": [("name", 1, "string", False), ("tensor", 2, "TensorProto", True)],
    "NodeProto": [("input", 1, "string", True), ("output", 2, "string", True),
                  ("name", 3, "string", False), ("op_type", 4, "string", False),
                  ("attribute", 5, "AttributeProto", True)],
    "GraphProto": [("node", 1, "NodeProto", True), ("name", 2, "string", False),
                   ("parameter", 3, "TensorProto", True), ("input", 5, "ValueInfoProto", True),
                   ("output", 6, "ValueInfoProto", True)],
    "PrimitiveProto": [("name", 1, "string", False), ("op_type", 2, "string", False),
                       ("attribute", 3, "AttributeProto", True), ("prim_type", 5, "int32", False)],
    "ModelProto": [("ir_version", 1, "string", False), ("producer_name", 2, "string", False),
                   ("graph", 7, "GraphProto", False), ("little_endian", 10, "bool", False),
                   ("primitives", 12, "PrimitiveProto", True), ("mind_ir_version", 13, "int64", False)],
}


def _build():
    fd = descriptor_pb2.FileDescriptorProto(name="twinmode_ref/mind_ir.proto", package="twinmode_ref",
                                            syntax="proto2")
    for message, fields in _MESSAGES.items():
        m = fd.message_type.add(name=message)
        for name, number, kind, repeated in fields:
            label = F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL
            if kind in _T:
                m.field.add(name=name, number=number, label=label, type=_T[kind])
            else:
                m.field.add(name=name, number=number, label=label, type=F.TYPE_MESSAGE,
                            type_name=f".twinmode_ref.{kind}")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("twinmode_ref.ModelProto"))


ModelProto = _build()


def parse(raw: bytes):
    model = ModelProto()
    model.ParseFromString(raw)
    return model
