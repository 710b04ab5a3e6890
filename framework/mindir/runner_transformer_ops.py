"""More MindSpore ops for :mod:`.runner` (merged into :data:`.runner.OPS`): the
transformer-style and selection families (LayerNorm, GELU, SiLU, batched products, sums and
maxima, powers, comparisons, Select, Gather, slices, Tile, BroadcastTo, ReLU6, Rsqrt).
Same contract: ``fn(attrs, *inputs)`` with MindSpore 2.10's input order, run with
twinmode's ops (both modes).
"""

from __future__ import annotations

from typing import Any

from ..ops import activations as act
from ..ops import elementwise as ew
from ..ops import reduce as rd
from ..ops import shape_ops as sh
from ..ops.array_ops import tile
from ..ops.batch_matmul import BatchMatMul
from ..ops.composed_activations import relu6
from ..ops.layer_norm import layer_norm
from ..ops.math_unary import rsqrt
from ..ops.model_zoo_ops import strided_slice
from ..ops.reductions import ArgMaxWithValue, ArgMinWithValue
from ..ops.scatter_gather import gather


def _axes(axis: Any, x: Any) -> Any:
    """A reduction's axes: None or () means every axis."""
    if axis is None or axis == ():
        return tuple(range(len(x.shape)))
    return tuple(int(a) for a in axis) if isinstance(axis, tuple) else int(axis)


def _layer_norm(a: dict[str, Any], x: Any, gamma: Any, beta: Any, norm_axis: Any = 1,
                params_axis: Any = 1, epsilon: Any = 1e-7, *rest: Any) -> Any:
    return layer_norm(x, gamma, beta, int(a.get("begin_norm_axis", norm_axis)),
                      int(a.get("begin_params_axis", params_axis)), float(a.get("epsilon", epsilon)))


def _reduce(fn: Any) -> Any:
    return lambda a, x, axis=(), keep=False, *rest: fn(x, _axes(axis, x), bool(a.get("keep_dims", keep)))


def _sum_ext(a: dict[str, Any], x: Any, dim: Any = None, keep: Any = False, dtype: Any = None) -> Any:
    if dtype is not None:
        raise ValueError("SumExt with a dtype is not supported")
    return rd.reduce_sum(x, _axes(dim, x), bool(keep))


def _with_value(cls: Any) -> Any:
    return lambda a, x, axis=0, keep=False: cls(int(a.get("axis", axis)), bool(a.get("keep_dims", keep)))(x)


def _strided_slice(a: dict[str, Any], x: Any, begin: Any, end: Any, strides: Any, *masks: Any) -> Any:
    names = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
    values = [int(a.get(n, m)) for n, m in zip(names, (*masks, 0, 0, 0, 0, 0))]
    return strided_slice(x, tuple(begin), tuple(end), tuple(strides), *values)


def _slice(a: dict[str, Any], x: Any, begin: Any, size: Any) -> Any:
    size = tuple(d - b if s == -1 else s for s, b, d in zip(size, begin, x.shape))
    return sh.Slice(tuple(int(b) for b in begin), tuple(int(s) for s in size))(x)


def _broadcast_to(a: dict[str, Any], x: Any, shape: Any) -> Any:
    lead = len(shape) - len(x.shape)
    target = tuple(x.shape[i - lead] if s == -1 else int(s) for i, s in enumerate(shape))
    return sh.broadcast_to(x, target)


OPS: dict[str, Any] = {
    "LayerNorm": _layer_norm,
    "GeLU": lambda a, x: act.GeLU("tanh")(x),
    "SiLU": lambda a, x: act.silu(x),
    "Erf": lambda a, x: act.erf(x),
    "ReLU6": lambda a, x: relu6(x),
    "Rsqrt": lambda a, x: rsqrt(x),
    "Square": lambda a, x: ew.square(x),
    "Pow": lambda a, x, y: ew.pow(x, y),
    "BatchMatMul": lambda a, x, y, ta=False, tb=False: BatchMatMul(
        bool(a.get("transpose_a", ta)), bool(a.get("transpose_b", tb)))(x, y),
    "ReduceSum": _reduce(rd.reduce_sum),
    "ReduceMax": _reduce(rd.reduce_max),
    "SumExt": _sum_ext,
    "ArgMaxWithValue": _with_value(ArgMaxWithValue),
    "ArgMinWithValue": _with_value(ArgMinWithValue),
    "Greater": lambda a, x, y: ew.greater(x, y), "GreaterEqual": lambda a, x, y: ew.greater_equal(x, y),
    "Less": lambda a, x, y: ew.less(x, y), "LessEqual": lambda a, x, y: ew.less_equal(x, y),
    "Equal": lambda a, x, y: ew.equal(x, y), "NotEqual": lambda a, x, y: ew.not_equal(x, y),
    "Select": lambda a, c, x, y: ew.select(c, x, y),
    "Gather": lambda a, x, i, axis=0, batch_dims=0: gather(x, i, int(axis)),
    "Slice": _slice,
    "StridedSlice": _strided_slice,
    "Tile": lambda a, x, multiples: tile(x, tuple(int(m) for m in multiples)),
    "BroadcastTo": _broadcast_to,
}
