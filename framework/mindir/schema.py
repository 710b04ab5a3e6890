"""MindIR's protobuf messages (``mind_ir.proto``, proto2) as :mod:`.wire` schemas: the
fields twinmode reads and writes, with MindSpore 2.10's field numbers.

``ModelProto`` holds the model's ``GraphProto`` and the ``PrimitiveProto`` table; a
``NodeProto`` names its primitive as ``op_type = "REF::<primitive name>"`` (the primitive's
``name`` in the table, e.g. ``"Conv2D:4"``), or is a ``"Constant"`` whose ``value``
attribute is the constant; its inputs are the names of graph inputs, parameters (the
``TensorProto`` entries of ``GraphProto.parameter``) or other nodes' outputs.
``AttributeProto`` is a tagged value: ``type`` says which of ``i`` / ``f`` / ``d`` / ``s`` /
``tensors`` / ``values`` (a tuple or list of attributes) holds it.
"""

from __future__ import annotations

import numpy as np

from ..protowire import Schema

TENSOR: Schema = {1: ("dims", "int", True), 2: ("data_type", "int", False),
                  7: ("name", "str", False), 9: ("raw_data", "bytes", False),
                  13: ("ref_key", "str", False), 16: ("compression_type", "int", False)}
ATTRIBUTE: Schema = {1: ("name", "str", False), 2: ("f", "float", False), 3: ("i", "int", False),
                     4: ("d", "double", False), 5: ("s", "bytes", False),
                     8: ("floats", "float", True), 10: ("ints", "int", True),
                     11: ("strings", "bytes", True), 12: ("tensors", TENSOR, True),
                     16: ("type", "int", False)}
ATTRIBUTE[17] = ("values", ATTRIBUTE, True)
VALUE_INFO: Schema = {1: ("name", "str", False), 2: ("tensor", TENSOR, True)}
NODE: Schema = {1: ("input", "str", True), 2: ("output", "str", True), 3: ("name", "str", False),
                4: ("op_type", "str", False), 5: ("attribute", ATTRIBUTE, True),
                7: ("domain", "str", False)}
GRAPH: Schema = {1: ("node", NODE, True), 2: ("name", "str", False),
                 3: ("parameter", TENSOR, True), 5: ("input", VALUE_INFO, True),
                 6: ("output", VALUE_INFO, True)}
PRIMITIVE: Schema = {1: ("name", "str", False), 2: ("op_type", "str", False),
                     3: ("attribute", ATTRIBUTE, True), 4: ("instance_name", "str", False),
                     5: ("prim_type", "int", False)}
MODEL: Schema = {1: ("ir_version", "str", False), 2: ("producer_name", "str", False),
                 5: ("model_version", "str", False), 7: ("graph", GRAPH, False),
                 8: ("functions", GRAPH, True), 10: ("little_endian", "bool", False),
                 12: ("primitives", PRIMITIVE, True), 13: ("mind_ir_version", "int", False)}

# AttributeProto.type
A_FLOAT, A_INT32, A_INT64, A_STRING, A_BOOL, A_DOUBLE = 1, 6, 7, 8, 9, 11
A_TENSORS, A_TUPLE, A_LIST, A_UMONAD, A_IOMONAD, A_NONE = 19, 20, 21, 23, 24, 25
# PrimitiveProto.prim_type
PRIMITIVE_CLASS, PRIMITIVE_FUNCTION = 1, 2

# TensorProto.data_type <-> NumPy
TENSOR_DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32,
                 7: np.int64, 9: np.bool_, 10: np.float16, 11: np.float64, 12: np.uint32,
                 13: np.uint64}
TENSOR_CODES = {np.dtype(v): k for k, v in TENSOR_DTYPES.items()}
# MindSpore's TypeId numbers (a dtype passed as an int, as Cast's second input)
TYPE_IDS = {30: np.bool_, 32: np.int8, 33: np.int16, 34: np.int32, 35: np.int64, 37: np.uint8,
            38: np.uint16, 39: np.uint32, 40: np.uint64, 42: np.float16, 43: np.float32,
            44: np.float64}

IR_VERSION = "1.1"
MIND_IR_VERSION = 3
