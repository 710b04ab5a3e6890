"""A captured network (:mod:`.capture`) as an ONNX ``ModelProto``.

Graph inputs are the tensor arguments, named ``input_0``, ``input_1`` ... in order, with
the batch axis as the symbolic dimension ``batch``; Parameters are initializers named
after the Parameter (``conv1.weight``); outputs are ``output_0``, ``output_1`` ... in the
order of the network's returned tensors (flattened). Every IR node goes through the
converter its primitive class has in :data:`.onnx_ops.CONVERTERS`; a primitive without one
stops the export with one line naming it and the user's source line.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import helper

from ..ir import Value, ValueKind
from .capture import BatchDim, Captured, ExportError
from .onnx_context import NodeContext, OnnxGraph, node_error, onnx_dtype
from .onnx_ops import CONVERTERS

OPSET = 18
PRODUCER = "twinmode"


def to_onnx(captured: Captured) -> onnx.ModelProto:
    graph = captured.graph
    og = OnnxGraph(captured)
    og.used = {v.id for node in graph.nodes for v in node.inputs} | {v.id for v in graph.outputs}
    inputs = []
    for value in graph.inputs:
        if value.kind == ValueKind.PARAM:
            param = captured.params[value.id]
            og.names[value.id] = og.const(param.asnumpy(), param.name or "param")
    for k, value in enumerate(captured.input_values()):
        og.names[value.id] = og.fresh(f"input_{k}")
        inputs.append(_value_info(og.names[value.id], value, captured))
    for node in graph.nodes:
        convert = CONVERTERS.get(type(node.prim))
        if node.prim.host_random:  # its draw is a graph input the runtime would have to feed
            raise ExportError(node_error(node, "draws random values at each run, which an exported "
                                         "inference graph cannot; use nn.Dropout (off in eval mode, "
                                         "as the exporter traces) or leave it out"))
        if convert is None:
            raise ExportError(node_error(node, "has no ONNX conversion (supported: "
                                         "framework/exporter/onnx_ops.py); rewrite this line with "
                                         "supported ops or export a network without it"))
        names = convert(NodeContext(og, node), *[og.value(v) for v in node.inputs])
        names = (names,) if isinstance(names, str) else tuple(names)
        if len(names) != len(node.outputs):
            raise AssertionError(f"ONNX converter of {node.prim.name} gave {len(names)} outputs, "
                                 f"expected {len(node.outputs)}")
        for value, name in zip(node.outputs, names):
            og.names[value.id] = name
    outputs = []
    for k, out in enumerate(captured.outputs):
        name = f"output_{k}"
        if isinstance(out, Value):
            og.emit("Identity", [og.value(out)], [name])
            outputs.append(_value_info(name, out, captured))
        else:  # a constant output leaf (fixed while tracing)
            og.emit("Identity", [og.const(out)], [name])
            outputs.append(helper.make_tensor_value_info(name, onnx_dtype(out.dtype), list(out.shape)))
    onnx_graph = helper.make_graph(og.nodes, captured.name, inputs, outputs, og.initializers)
    model = helper.make_model(onnx_graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name=PRODUCER,
                              doc_string=f"{captured.name} exported by {PRODUCER} (opset {OPSET})")
    model.ir_version = min(model.ir_version, 9)  # 9: read by ONNX Runtime 1.16 on
    onnx.checker.check_model(model, full_check=True)
    return model


def _value_info(name: str, value: Value, captured: Captured) -> onnx.ValueInfoProto:
    dims: list[Any] = []
    for d in captured.shape(value):
        if isinstance(d, BatchDim):
            dims.append("batch" if d == BatchDim(1) else None)  # other multiples: unnamed
        else:
            dims.append(int(d))
    return helper.make_tensor_value_info(name, onnx_dtype(np.dtype(value.dtype)), dims)
