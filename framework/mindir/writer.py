"""A captured network (:func:`framework.exporter.capture`) as MindIR bytes.

The file has the form MindSpore 2.10's ``load`` reads (checked against MindSpore itself,
tests/mindspore_ref/test_mindir_interop.py): graph inputs ``input_0``, ``input_1`` ... with
the traced shapes and dtypes; Parameters as graph parameters named after the Parameter
(``conv1.weight``, also the ``ref_key``); one ``PrimitiveProto`` per node, named
``<Op>:<k>`` and applied by ``op_type = "REF::<Op>:<k>"``; a primitive's arguments that are
not tensors (axes, flags, shapes) as ``Constant`` nodes, in MindSpore's input order; the
output is the last node (a ``MakeTuple`` for several outputs). Shape arguments that follow
the batch are written with ``-1`` there, so MindSpore runs the file at any batch size.

Converter contract (:data:`CONVERTERS`, primitive class -> converter):
``convert(w, node, *names) -> str | tuple[str, ...]`` gets the :class:`Writer` and the IR
node and the MindIR names of its inputs, emits nodes through ``w.call`` / ``w.const`` and
returns one name per IR output. A converter that cannot express its node calls
``w.fail(node, reason)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..exporter.capture import BatchDim, Captured, ExportError
from ..ir import Node, Value, ValueKind
from ..ops import elementwise as ew
from ..ops import nn_ops, pool
from ..ops import reduce as rd
from ..ops import shape_ops as sh
from ..ops._utils import normalize_axis
from ..ops.conv import Conv2D
from ..ops.group_conv import GroupConv2D
from ..protowire import encode
from . import schema as S
from .writer_transformer_ops import CONVERTERS as CONVERTERS_EXTRA

PRODUCER = "twinmode"
MS_VERSION = "2.10.0"


def attribute(name: str, value: Any) -> dict[str, Any]:
    """A Python value as an ``AttributeProto`` dict (as MindSpore writes each kind)."""
    if isinstance(value, bool | np.bool_):
        return {"name": name, "i": int(value), "type": S.A_BOOL}
    if isinstance(value, int | np.integer):
        return {"name": name, "i": int(value), "type": S.A_INT64}
    if isinstance(value, float | np.floating):
        return {"name": name, "f": float(value), "type": S.A_FLOAT}
    if isinstance(value, str):
        return {"name": name, "s": value.encode(), "type": S.A_STRING}
    if isinstance(value, np.ndarray):
        return {"name": name, "tensors": [tensor_proto("value0", value)], "type": S.A_TENSORS}
    if isinstance(value, list):  # MindSpore's LIST of strings (input_names)
        return {"name": name, "type": S.A_LIST,
                "values": [{"strings": [str(v).encode()], "type": S.A_STRING} for v in value]}
    if isinstance(value, tuple):
        return {"name": name, "type": S.A_TUPLE,
                "values": [{"ints": [int(v)], "type": S.A_INT64} for v in value]}
    raise TypeError(f"no MindIR attribute for {type(value).__name__}")


def tensor_proto(name: str, array: np.ndarray, ref_key: str | None = None) -> dict[str, Any]:
    array = np.ascontiguousarray(array)
    code = S.TENSOR_CODES.get(array.dtype.newbyteorder("="))
    if code is None:
        raise ExportError(f"export to MINDIR: tensor {name!r} has dtype {array.dtype}, which "
                          "MindIR does not hold")
    out = {"dims": list(array.shape), "data_type": code, "name": name,
           "raw_data": array.astype(array.dtype.newbyteorder("<")).tobytes()}
    if ref_key is not None:
        out["ref_key"] = ref_key
    return out


class Writer:
    """Nodes, primitives and value names of the MindIR graph being built."""

    def __init__(self, captured: Captured) -> None:
        self.captured = captured
        self.nodes: list[dict[str, Any]] = []
        self.prims: list[dict[str, Any]] = []
        self.names: dict[int, str] = {}  # IR value id -> MindIR name
        self._count = 0

    def _fresh(self, stem: str) -> str:
        self._count += 1
        return f"{stem}_{self._count}"

    def const(self, value: Any) -> str:
        """A Constant node holding ``value`` (int, float, bool, tuple of ints, array)."""
        name = self._fresh("const")
        self.nodes.append({"output": [name], "name": name, "op_type": "Constant",
                           "attribute": [attribute("value", value)]})
        return name

    def call(self, op: str, inputs: Sequence[str], attrs: dict[str, Any] | None = None,
             function: bool = True, instance: str = "") -> str:
        """Apply MindSpore primitive ``op`` to ``inputs``; its output's name."""
        prim = f"{op}:{len(self.prims) + 1}"
        self.prims.append({"name": prim, "op_type": op, "instance_name": instance,
                           "attribute": [attribute(k, v) for k, v in (attrs or {}).items()],
                           "prim_type": S.PRIMITIVE_FUNCTION if function else S.PRIMITIVE_CLASS})
        out = self._fresh(op)
        self.nodes.append({"input": list(inputs), "output": [out], "name": out,
                           "op_type": f"REF::{prim}"})
        return out

    def value(self, v: Value, dtype: Any = None) -> str:
        """The MindIR name of an IR value (a constant becomes a Constant node, in ``dtype``)."""
        if v.id in self.names and dtype is None:
            return self.names[v.id]
        if v.kind != ValueKind.CONST:
            if v.id not in self.names:
                raise AssertionError(f"IR value {v!r} used before it is defined")
            return self.names[v.id]
        data = np.asarray(v.data)
        if self.captured.shape(v) != v.shape:
            raise ExportError("export to MINDIR: a constant's shape follows the batch size; "
                              "export with a fixed batch or rewrite the network")
        name = self.const(data.astype(dtype) if dtype is not None else data)
        if dtype is None:
            self.names[v.id] = name
        return name

    def shape_arg(self, node: Node, k: int = 0) -> tuple[int, ...]:
        """Output ``k``'s shape with ``-1`` for its one batch-dependent dimension."""
        return self.batch_shape(node, self.captured.shape(node.outputs[k]))

    def batch_shape(self, node: Node, dims: Sequence[Any]) -> tuple[int, ...]:
        """``dims`` with ``-1`` for its one batch-dependent dimension."""
        batch = [d for d in dims if isinstance(d, BatchDim)]
        if len(batch) > 1:
            self.fail(node, "reshapes to a shape with several batch-dependent dimensions")
        return tuple(-1 if isinstance(d, BatchDim) else int(d) for d in dims)

    def fail(self, node: Node, reason: str) -> None:
        raise ExportError(node_error(node, reason))


def node_error(node: Node, reason: str) -> str:
    where = f" (at {node.location})" if node.location is not None else ""
    return f"export to MINDIR: primitive {node.prim.name}: {reason}{where}"


# -- converters -------------------------------------------------------------------------------
Converter = Callable[..., str | tuple[str, ...]]


def unary(op: str) -> Converter:
    return lambda w, node, x: w.call(op, [x])


def binary(op: str) -> Converter:
    """Operands in the output's dtype (MindSpore's binary ops take one dtype); constants too."""
    def convert(w: Writer, node: Node, x: str, y: str) -> str:
        dtype = np.dtype(node.outputs[0].dtype)
        names = []
        for v, name in zip(node.inputs, (x, y)):
            if v.kind == ValueKind.CONST:
                name = w.value(v, dtype)
            elif np.dtype(v.dtype) != dtype:
                name = w.call("Cast", [name, w.const(_type_id(w, node, dtype))])
            names.append(name)
        return w.call(op, names)
    return convert


def _type_id(w: Writer, node: Node, dtype: Any) -> int:
    ids = {np.dtype(v): k for k, v in S.TYPE_IDS.items()}
    if np.dtype(dtype) not in ids:
        w.fail(node, f"casts to {np.dtype(dtype)}, which MindIR has no type id for")
    return ids[np.dtype(dtype)]


def convert_cast(w: Writer, node: Node, x: str) -> str:
    return w.call("Cast", [x, w.const(_type_id(w, node, node.outputs[0].dtype))])


def convert_matmul(w: Writer, node: Node, a: str, b: str) -> str:
    p = node.prim
    return w.call("MatMul", [a, b, w.const(bool(p.transpose_a)), w.const(bool(p.transpose_b))],
                  instance="matmul")


def convert_bias_add(w: Writer, node: Node, x: str, b: str) -> str:
    return w.call("BiasAdd", [x, b, w.const(0)], instance="bias_add")  # 0: NCHW


def convert_conv(w: Writer, node: Node, x: str, weight: str) -> str:
    p = node.prim
    x_shape, w_shape = node.inputs[0].shape, node.inputs[1].shape
    pads, _, _ = p.geometry(x_shape, w_shape)
    group = int(getattr(p, "group", 1))
    attrs = {"kernel_size": tuple(w_shape[2:]), "mode": 1, "out_channel": int(w_shape[0]),
             "input_names": ["x", "w"], "pad": tuple(p.pad), "pad_mode": p.pad_mode,
             "format": "NCHW", "pad_list": tuple(pads), "groups": group,
             "stride": (1, 1, *p.stride), "group": group, "dilation": (1, 1, *p.dilation),
             "output_names": ["output"]}
    return w.call("Conv2D", [x, weight], attrs, function=False, instance="conv2d")


def convert_max_pool(w: Writer, node: Node, x: str) -> str:
    p = node.prim
    attrs = {"pad_mode": p.pad_mode.upper(), "output_names": ["output"],
             "kernel_size": (1, 1, *p.kernel_size), "format": "NCHW",
             "strides": (1, 1, *p.strides), "input_names": ["x"]}
    return w.call("MaxPool", [x], attrs, function=False, instance="max_pool")


def convert_avg_pool(w: Writer, node: Node, x: str) -> str:
    p = node.prim
    if p.pad_mode != "valid":
        w.fail(node, "AvgPool with 'same' padding averages differently in MindSpore's AvgPool; "
                     "only pad_mode='valid' is exported")
    return w.call("AvgPool", [x, w.const(tuple(p.kernel_size)), w.const(tuple(p.strides)),
                              w.const(2), w.const(0)], instance="avg_pool")  # 2: VALID, 0: NCHW


def convert_reshape(w: Writer, node: Node, x: str) -> str:
    return w.call("Reshape", [x, w.const(w.shape_arg(node))])


def convert_transpose(w: Writer, node: Node, x: str) -> str:
    return w.call("Transpose", [x, w.const(tuple(int(a) for a in node.prim.perm))])


def convert_expand_dims(w: Writer, node: Node, x: str) -> str:
    axis = normalize_axis(node.prim.axis, len(node.outputs[0].shape))
    return w.call("ExpandDims", [x, w.const(axis)])


def convert_squeeze(w: Writer, node: Node, x: str) -> str:
    axes = tuple(node.prim._axes(node.inputs[0].shape))
    return w.call("Squeeze", [x, w.const(axes)])


def convert_concat(w: Writer, node: Node, *xs: str) -> str:
    dtype = np.dtype(node.outputs[0].dtype)
    names = [w.value(v, dtype) if v.kind == ValueKind.CONST else x for v, x in zip(node.inputs, xs)]
    if any(np.dtype(v.dtype) != dtype for v in node.inputs if v.kind != ValueKind.CONST):
        w.fail(node, "joins tensors of different dtypes; cast them to one dtype first")
    axis = normalize_axis(node.prim.axis, len(node.outputs[0].shape))
    return w.call("Concat", [w.call("MakeTuple", names, function=False), w.const(axis)])


def convert_softmax(w: Writer, node: Node, x: str) -> str:
    axis = normalize_axis(node.prim.axis, len(node.inputs[0].shape))
    return w.call("Softmax", [x, w.const((axis,))])


def convert_log_softmax(w: Writer, node: Node, x: str) -> str:
    axis = normalize_axis(node.prim.axis, len(node.inputs[0].shape))
    return w.call("LogSoftmax", [x, w.const(axis)])


def convert_reduce_mean(w: Writer, node: Node, x: str) -> str:
    ndim = len(node.inputs[0].shape)
    axes = tuple(range(ndim)) if node.prim.axis in (None, ()) else tuple(
        normalize_axis(a, ndim) for a in np.atleast_1d(node.prim.axis).tolist())
    return w.call("ReduceMean", [x, w.const(axes), w.const(bool(node.prim.keep_dims))])


def convert_batch_norm(w: Writer, node: Node, *names: str) -> tuple[str, ...]:
    p = node.prim
    if p.is_training:
        w.fail(node, "batch statistics in training mode; export in eval mode (net.set_train(False))")
    out = w.call("BatchNorm", [*names, w.const(False), w.const(float(p.epsilon)),
                               w.const(float(p.momentum)), w.const(0)], instance="bn_infer")
    return tuple(w.call("TupleGetItem", [out, w.const(k)], function=False) for k in range(3))


def identity(w: Writer, node: Node, x: str) -> str:
    return x


CONVERTERS: dict[type, Converter] = {
    nn_ops.MatMul: convert_matmul,
    nn_ops.BiasAdd: convert_bias_add,
    nn_ops.Softmax: convert_softmax,
    nn_ops.LogSoftmax: convert_log_softmax,
    nn_ops.BatchNorm: convert_batch_norm,
    Conv2D: convert_conv,
    GroupConv2D: convert_conv,
    pool.MaxPool: convert_max_pool,
    pool.AvgPool: convert_avg_pool,
    ew.ReLU: unary("ReLU"), ew.Sigmoid: unary("Sigmoid"), ew.Tanh: unary("Tanh"),
    ew.Exp: unary("Exp"), ew.Sqrt: unary("Sqrt"), ew.Abs: unary("Abs"), ew.Neg: unary("Neg"),
    ew.Add: binary("Add"), ew.Sub: binary("Sub"), ew.Mul: binary("Mul"), ew.Div: binary("Div"),
    ew.Maximum: binary("Maximum"), ew.Minimum: binary("Minimum"),
    ew.Cast: convert_cast,
    sh.Reshape: convert_reshape,
    sh.Transpose: convert_transpose,
    sh.ExpandDims: convert_expand_dims,
    sh.Squeeze: convert_squeeze,
    sh.Concat: convert_concat,
    sh.StopGradient: identity,
    sh.Load: identity,
    rd.ReduceMean: convert_reduce_mean,
    **CONVERTERS_EXTRA,
}


# -- the model ----------------------------------------------------------------------------------
def _value_info(name: str, shape: Sequence[int], dtype: Any) -> dict[str, Any]:
    code = S.TENSOR_CODES.get(np.dtype(dtype))
    return {"name": name, "tensor": [{"dims": [int(d) for d in shape], "data_type": code}]}


def _convert_node(w: Writer, node: Node) -> None:
    convert = CONVERTERS.get(type(node.prim))
    if node.prim.host_random:
        w.fail(node, "draws random values at each run, which an exported inference graph "
                     "cannot; leave it out of the exported network")
    if convert is None:
        w.fail(node, "has no MindIR conversion (supported: framework/mindir/writer.py "
                     "CONVERTERS); rewrite this line with supported ops or export a network "
                     "without it")
    names = convert(w, node, *[w.value(v) for v in node.inputs])
    names = (names,) if isinstance(names, str) else tuple(names)
    if len(names) != len(node.outputs):
        raise AssertionError(f"MindIR converter of {node.prim.name} gave {len(names)} outputs, "
                             f"expected {len(node.outputs)}")
    for value, name in zip(node.outputs, names):
        w.names[value.id] = name


def to_mindir(captured: Captured) -> bytes:
    """The ``ModelProto`` bytes of ``captured`` (see the module docstring)."""
    w = Writer(captured)
    params, inputs = [], []
    for value in captured.graph.inputs:
        if value.kind == ValueKind.PARAM:
            param = captured.params[value.id]
            name = param.name or f"param_{len(params)}"
            w.names[value.id] = name
            params.append(tensor_proto(name, param.asnumpy(), ref_key=name))
    for k, value in enumerate(captured.input_values()):
        w.names[value.id] = f"input_{k}"
        inputs.append(_value_info(f"input_{k}", value.shape, value.dtype))
    for node in captured.graph.nodes:
        _convert_node(w, node)
    outs = [w.value(o) if isinstance(o, Value) else w.const(np.asarray(o)) for o in captured.outputs]
    if len(outs) == 1 and isinstance(captured.outputs[0], Value):
        out = captured.outputs[0]
        output = _value_info(outs[0], out.shape, out.dtype)
    else:
        output = {"name": w.call("MakeTuple", outs, function=False)}
    graph = {"node": w.nodes, "name": captured.name, "parameter": params, "input": inputs,
             "output": [output]}
    model = {"ir_version": S.IR_VERSION, "producer_name": PRODUCER, "model_version": MS_VERSION,
             "graph": graph, "little_endian": True, "primitives": w.prims,
             "mind_ir_version": S.MIND_IR_VERSION}
    return encode(S.MODEL, model)
