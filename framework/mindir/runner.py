"""Running a loaded MindIR graph with twinmode's ops: each node's MindSpore primitive is
applied through :data:`OPS` (MindSpore op name -> ``fn(attrs, *inputs)``).

Contract: ``run(model, params, inputs)`` evaluates the nodes of a :class:`.model.MindIRModel`
in order; a node's inputs are the call's tensors (by graph input name), the Parameters
(``params``: the graph's parameter name -> a :class:`framework.Parameter`), constants
(arrays become Tensors, scalars and tuples stay Python values, as MindSpore's primitives
take them) or earlier nodes' results. The ops are twinmode's primitives, so the same code
runs eagerly (PyNative) and under graph mode's tracer. MindSpore's bookkeeping nodes
(``Load``, ``UpdateState``, ``Depend``, ``MakeTuple``, ``TupleGetItem``) are plain data
flow. A node whose op has no entry here is refused with one line naming the op and the
file (:func:`check_ops`, called when the file is loaded).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ..ops import elementwise as ew
from ..ops import nn_ops, pool
from ..ops import reduce as rd
from ..ops import shape_ops as sh
from ..ops.conv import Conv2D
from . import schema as S
from .model import MONAD, MindIRError, MindIRModel
from .runner_transformer_ops import OPS as OPS_EXTRA

_PAD_MODES = {0: "pad", 1: "same", 2: "valid"}  # MindSpore's PadMode enum


def _last2(values: Any) -> tuple[int, int]:
    values = (values,) * 2 if isinstance(values, int) else tuple(values)
    return (int(values[-2]), int(values[-1]))


def _pad_mode(value: Any) -> str:
    return _PAD_MODES[value] if isinstance(value, int) else str(value).lower()


def _conv2d(a: dict[str, Any], x: Any, w: Any) -> Any:
    pad_mode = _pad_mode(a.get("pad_mode", "valid"))
    pad = tuple(a.get("pad", (0, 0, 0, 0))) if pad_mode == "pad" else 0
    return Conv2D(pad_mode=pad_mode, pad=pad, stride=_last2(a.get("stride", 1)),
                  dilation=_last2(a.get("dilation", 1)), group=int(a.get("group", 1)))(x, w)


def _max_pool(a: dict[str, Any], x: Any, *args: Any) -> Any:
    if args:  # the function form: (x, kernel_size, strides, pad_mode, data_format)
        return pool.MaxPool(_last2(args[0]), _last2(args[1]), _pad_mode(args[2]))(x)
    return pool.MaxPool(_last2(a["kernel_size"]), _last2(a["strides"]), _pad_mode(a["pad_mode"]))(x)


def _avg_pool(a: dict[str, Any], x: Any, *args: Any) -> Any:
    if args:
        return pool.AvgPool(_last2(args[0]), _last2(args[1]), _pad_mode(args[2]))(x)
    return pool.AvgPool(_last2(a["kernel_size"]), _last2(a["strides"]), _pad_mode(a["pad_mode"]))(x)


def _batch_norm(a: dict[str, Any], x: Any, scale: Any, bias: Any, mean: Any, var: Any,
                training: Any = False, epsilon: Any = 1e-5, momentum: Any = 0.1, *rest: Any) -> Any:
    training = bool(a.get("is_training", training))
    epsilon = float(a.get("epsilon", epsilon))
    return nn_ops.BatchNorm(training, epsilon, float(momentum))(x, scale, bias, mean, var)


def _axis(value: Any) -> int:
    return int(value[0]) if isinstance(value, tuple) else int(value)


def _cast(a: dict[str, Any], x: Any, dtype: Any) -> Any:
    target = S.TYPE_IDS.get(int(dtype)) if isinstance(dtype, int | np.integer) else dtype
    if target is None:
        raise ValueError(f"Cast to MindSpore type id {dtype} is not supported")
    return ew.cast(x, target)


def _flatten(a: dict[str, Any], x: Any, *rest: Any) -> Any:
    return sh.reshape(x, (x.shape[0], -1)) if len(x.shape) != 2 else x


def _unary(fn: Callable[[Any], Any]) -> Callable[..., Any]:
    return lambda a, x, *rest: fn(x)


def _binary(fn: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    return lambda a, x, y, *rest: fn(x, y)


OPS: dict[str, Callable[..., Any]] = {
    # bookkeeping
    "Load": lambda a, x, *rest: x,
    "UpdateState": lambda a, *rest: MONAD,
    "Depend": lambda a, x, *rest: x,
    "MakeTuple": lambda a, *xs: tuple(xs),
    "TupleGetItem": lambda a, t, i: t[int(i)],
    # networks
    "MatMul": lambda a, x, w, ta=False, tb=False: nn_ops.MatMul(
        bool(a.get("transpose_a", ta)), bool(a.get("transpose_b", tb)))(x, w),
    "BiasAdd": lambda a, x, b, *rest: nn_ops.BiasAdd()(x, b),
    "Conv2D": _conv2d,
    "MaxPool": _max_pool,
    "AvgPool": _avg_pool,
    "BatchNorm": _batch_norm,
    "Flatten": _flatten,
    "Softmax": lambda a, x, axis=-1: nn_ops.softmax(x, _axis(a.get("axis", axis))),
    "LogSoftmax": lambda a, x, axis=-1: nn_ops.log_softmax(x, _axis(a.get("axis", axis))),
    # elementwise
    "ReLU": _unary(ew.relu), "Sigmoid": _unary(ew.sigmoid), "Tanh": _unary(ew.tanh),
    "Exp": _unary(ew.exp), "Log": _unary(ew.log), "Sqrt": _unary(ew.sqrt), "Abs": _unary(ew.abs),
    "Neg": _unary(ew.neg),
    "Add": _binary(ew.add), "Sub": _binary(ew.sub), "Mul": _binary(ew.mul), "Div": _binary(ew.div),
    "RealDiv": _binary(ew.div), "Muls": _binary(ew.mul), "Divs": _binary(ew.div),
    "Maximum": _binary(ew.maximum), "Minimum": _binary(ew.minimum),
    "Cast": _cast,
    # shapes and reductions
    "Reshape": lambda a, x, shape: sh.reshape(x, tuple(int(d) for d in shape)),
    "Transpose": lambda a, x, perm: sh.transpose(x, tuple(int(d) for d in perm)),
    "ExpandDims": lambda a, x, axis: sh.expand_dims(x, int(axis)),
    "Squeeze": lambda a, x, axis=(): sh.squeeze(x, tuple(a.get("axis", axis)) or None),
    "Concat": lambda a, xs, axis=0: sh.concat(list(xs), int(a.get("axis", axis))),
    "ReduceMean": lambda a, x, axis=(), keep=False: rd.reduce_mean(
        x, tuple(axis) if isinstance(axis, tuple) else int(axis), bool(a.get("keep_dims", keep))),
    **OPS_EXTRA,
}


def check_ops(model: MindIRModel) -> None:
    """Refuse a model with a node this module cannot run (one line: the op and the file)."""
    for node in model.nodes:
        if node.op not in OPS:
            raise MindIRError(f"load: MindIR file {model.path!r}: op {node.op!r} (node {node.output!r}) "
                              "is not supported by twinmode's MindIR loader "
                              "(supported: framework/mindir/runner.py OPS)")


def _constant(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return Tensor(value)
    return value


def run(model: MindIRModel, params: dict[str, Any], inputs: Sequence[Any]) -> Any:
    """The graph's output(s) for ``inputs`` (a tuple when the graph returns several)."""
    if len(inputs) != len(model.inputs):
        raise TypeError(f"GraphCell of {model.path!r} takes {len(model.inputs)} input(s), "
                        f"got {len(inputs)}")
    env: dict[str, Any] = dict(params)
    for (name, _, _), x in zip(model.inputs, inputs):
        env[name] = x if isinstance(x, Tensor) else Tensor(np.asarray(x))
    for name, value in model.constants.items():
        env[name] = _constant(value)
    for node in model.nodes:
        try:
            args = [env[i] for i in node.inputs]
        except KeyError as error:
            raise MindIRError(f"MindIR file {model.path!r}: node {node.output!r} reads {error.args[0]!r}, "
                              "which no earlier node defines") from None
        env[node.output] = OPS[node.op](node.attrs, *args)
    outs = [env[name] for name in model.outputs]
    return outs[0] if len(outs) == 1 else tuple(outs)
