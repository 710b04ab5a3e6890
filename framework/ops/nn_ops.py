"""Neural-network primitives: matmul, bias_add, softmax, one_hot, dropout, batch_norm."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from .. import seed as _seed
from ..common.tensor import Tensor
from ..interpreters import is_tracing
from ..parameter import Parameter
from ..primitive import Primitive, Spec, shape_str
from . import batch_matmul as _batch_matmul
from . import shape_ops as _shape
from ._holomorphic import holomorphic
from ._utils import float32_accumulation, float_dtype, normalize_axis, result_dtype
from .elementwise import add, div, exp, mul, sqrt, sub
from .reduce import reduce_sum
from .shape_ops import reshape, transpose
from .state import assign


class MatMul(Primitive):
    """``MatMul(transpose_a=False, transpose_b=False)(a, b)`` for 2-D inputs."""

    def __init__(self, transpose_a: bool = False, transpose_b: bool = False) -> None:
        super().__init__(transpose_a=bool(transpose_a), transpose_b=bool(transpose_b))

    def infer(self, a: Any, b: Any) -> Spec:
        mstype.check_complex_pair(a.dtype, b.dtype)
        if len(a.shape) != 2 or len(b.shape) != 2:
            raise ValueError(f"inputs must be 2-D, got {shape_str(a.shape)} and {shape_str(b.shape)}")
        m, k = a.shape[::-1] if self.transpose_a else a.shape
        k2, n = b.shape[::-1] if self.transpose_b else b.shape
        if k != k2:
            raise ValueError(
                f"inner dimensions differ: {shape_str(a.shape)}"
                f"{'^T' if self.transpose_a else ''} @ {shape_str(b.shape)}"
                f"{'^T' if self.transpose_b else ''} ({k} != {k2})"
            )
        return Spec((m, n), result_dtype(a.dtype, b.dtype))

    @float32_accumulation
    def kernel(self, a, b):
        out = np.matmul(a.T if self.transpose_a else a, b.T if self.transpose_b else b)
        return out if a.dtype == b.dtype else out.astype(result_dtype(a.dtype, b.dtype))

    @holomorphic
    def bprop(self, a, b, *, out, dout, needs):
        ta, tb = self.transpose_a, self.transpose_b
        da = db = None
        if needs[0]:
            da = MatMul(tb, True)(b, dout) if ta else MatMul(False, not tb)(dout, b)
        if needs[1]:
            db = MatMul(True, ta)(dout, a) if tb else MatMul(not ta, False)(a, dout)
        return da, db


class BiasAdd(Primitive):
    """``BiasAdd()(x, bias)``: adds a per-channel bias along axis 1 (NCHW)."""

    def infer(self, x: Any, bias: Any) -> Spec:
        if len(x.shape) < 2 or len(bias.shape) != 1 or bias.shape[0] != x.shape[1]:
            raise ValueError(
                f"bias of shape {shape_str(bias.shape)} does not match the channel axis (1) "
                f"of input {shape_str(x.shape)}"
            )
        return Spec(tuple(x.shape), result_dtype(x.dtype, bias.dtype))

    def kernel(self, x, bias):
        out = x + bias.reshape((-1,) + (1,) * (x.ndim - 2))
        return out if x.dtype == bias.dtype else out.astype(result_dtype(x.dtype, bias.dtype))

    def bprop(self, x, bias, *, out, dout, needs):
        axes = (0,) + tuple(range(2, len(x.shape)))
        return dout, reduce_sum(dout, axes) if needs[1] else None


class _AlongAxis(Primitive, abstract=True):
    """A float op normalizing along ``axis`` (Softmax, LogSoftmax)."""

    def __init__(self, axis: int = -1) -> None:
        super().__init__(axis=int(axis))

    def infer(self, x: Any) -> Spec:
        normalize_axis(self.axis, len(x.shape))
        return Spec(tuple(x.shape), float_dtype(x.dtype))


class Softmax(_AlongAxis):
    @float32_accumulation
    def kernel(self, x):
        e = np.exp(x - np.max(x, axis=self.axis, keepdims=True, initial=-np.inf))  # (empty axes)
        return e / np.sum(e, axis=self.axis, keepdims=True)

    def bprop(self, x, *, out, dout, needs):
        inner = reduce_sum(mul(dout, out), self.axis, True)
        return (mul(out, sub(dout, inner)),)


class LogSoftmax(_AlongAxis):
    @float32_accumulation
    def kernel(self, x):
        shifted = x - np.max(x, axis=self.axis, keepdims=True, initial=-np.inf)
        return shifted - np.log(np.sum(np.exp(shifted), axis=self.axis, keepdims=True))

    def bprop(self, x, *, out, dout, needs):
        return (sub(dout, mul(exp(out), reduce_sum(dout, self.axis, True))),)


class OneHot(Primitive):
    """Two forms. MindSpore's: ``OneHot(axis=-1)(indices, depth, on_value, off_value)``, depth
    and values given at each call (the result takes ``on_value``'s dtype, see
    :func:`one_hot`). Ours, what :func:`one_hot` builds and the IR holds:
    ``OneHot(depth, on_value=1.0, off_value=0.0, axis=-1, dtype=float32)(indices)``.
    ``OneHot()`` / ``OneHot(axis=k)`` / ``OneHot(k)`` (one argument) is MindSpore's form.
    Indices out of range give ``off_value``."""

    differentiable = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if len(args) + len(kwargs) <= 1 and set(kwargs) <= {"axis"}:  # MindSpore's form
            super().__init__(axis=int(args[0] if args else kwargs.get("axis", -1)))
            return
        self._configure(*args, **kwargs)

    def _configure(self, depth: int, on_value: float = 1.0, off_value: float = 0.0,
                   axis: int = -1, dtype: Any = mstype.float32) -> None:
        super().__init__(depth=int(depth), on_value=float(on_value), off_value=float(off_value),
                         axis=int(axis), dtype=mstype.to_np(dtype))

    def __call__(self, indices: Any, *values: Any) -> Any:
        if "depth" in self.attrs:
            if values:
                raise TypeError(f"OneHot(depth={self.depth}, ...) takes the indices only, got "
                                f"{1 + len(values)} inputs")
            return super().__call__(indices)
        if len(values) != 3:
            raise TypeError("OneHot(axis)(indices, depth, on_value, off_value): expected 4 "
                            f"inputs, got {1 + len(values)}")
        return one_hot(indices, *values, axis=self.axis)

    def infer(self, indices: Any) -> Spec:
        if indices.dtype.kind not in "iu":
            raise TypeError(f"indices must be integers, got {indices.dtype}")
        shape = list(indices.shape)
        shape.insert(normalize_axis(self.axis, len(shape) + 1), self.depth)
        return Spec(tuple(shape), self.dtype)

    def kernel(self, indices):
        axis = normalize_axis(self.axis, indices.ndim + 1)
        classes = np.arange(self.depth).reshape((-1,) + (1,) * (indices.ndim - axis))
        hot = np.expand_dims(indices, axis) == classes
        return np.where(hot, self.on_value, self.off_value).astype(self.dtype)


class Dropout(Primitive):
    """``Dropout(keep_prob)(x) -> (output, mask)``: zeroes entries, scales the rest.

    The mask comes from the framework's generator (``ms.set_seed``) in both modes: in
    graph mode it is drawn on the host at each run and fed to the compiled function
    (``host_random``), so both modes see the same masks in the same order.
    """

    num_outputs = 2
    host_random = True

    def __init__(self, keep_prob: float = 0.5) -> None:
        if not 0.0 < keep_prob <= 1.0:
            raise ValueError(f"Dropout: keep_prob must be in (0, 1], got {keep_prob}")
        super().__init__(keep_prob=float(keep_prob))

    def infer(self, x: Any) -> tuple[Spec, Spec]:
        dtype = float_dtype(x.dtype)
        return Spec(tuple(x.shape), dtype), Spec(tuple(x.shape), dtype)

    def draw_mask(self, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        return (_seed.generator().random(shape) < self.keep_prob).astype(dtype)

    def kernel(self, x):
        mask = self.draw_mask(x.shape, x.dtype)
        return x * mask * x.dtype.type(1.0 / self.keep_prob), mask

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout[0], mul(out[1], 1.0 / self.keep_prob)),)


class BatchNorm(Primitive):
    """``BatchNorm(is_training, epsilon)(x, scale, bias, mean, variance)``.

    Returns ``(y, batch_mean, batch_variance)`` (biased variance) in training and
    ``(y, mean, variance)`` in inference; statistics are per channel (axis 1). A float16 or
    bfloat16 ``x`` is normalized in float32 and its statistics are float32.
    """

    num_outputs = 3
    none_douts = True  # the statistics' cotangents are mostly unused: skip their terms

    def __init__(self, is_training: bool = False, epsilon: float = 1e-5, momentum: float = 0.1,
                 data_format: str = "NCHW") -> None:
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"BatchNorm: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
        super().__init__(is_training=bool(is_training), epsilon=float(epsilon),
                         momentum=float(momentum))
        self.data_format = data_format  # not a node attribute: an NHWC input goes in transposed

    def __call__(self, x: Any, *params: Any) -> Any:
        if self.data_format == "NCHW" or len(x.shape) != 4:
            return Primitive.__call__(self, x, *params)
        nchw = BatchNorm(self.is_training, self.epsilon, self.momentum)
        y, mean, var = nchw(transpose(x, (0, 3, 1, 2)), *params)
        return transpose(y, (0, 2, 3, 1)), mean, var

    def infer(self, x, scale, bias, mean, variance):
        if len(x.shape) not in (2, 4):
            raise ValueError(f"input must be 2-D or 4-D (N, C[, H, W]), got {shape_str(x.shape)}")
        c = x.shape[1]
        for name, p in (("scale", scale), ("bias", bias), ("mean", mean), ("variance", variance)):
            if tuple(p.shape) != (c,):
                raise ValueError(f"{name} has shape {shape_str(p.shape)}, expected ({c},)")
        dtype = float_dtype(x.dtype)
        # float16/bfloat16 input: statistics in float32, as MindSpore's (computed in float32)
        stat = Spec((c,), np.dtype(np.float32) if mstype.is_low_float(dtype) else dtype)
        return Spec(tuple(x.shape), dtype), stat, stat

    @float32_accumulation
    def kernel(self, x, scale, bias, mean, variance):
        axes = (0,) + tuple(range(2, x.ndim))
        shape = (1, -1) + (1,) * (x.ndim - 2)
        if self.is_training:
            mean = x.mean(axis=axes)
            variance = x.var(axis=axes)
        inv = 1.0 / np.sqrt(variance + self.epsilon)
        y = (x - mean.reshape(shape)) * (scale * inv).reshape(shape) + bias.reshape(shape)
        return y.astype(x.dtype, copy=False), mean, variance

    def bprop(self, x, scale, bias, mean, variance, *, out, dout, needs):
        axes = (0,) + tuple(range(2, len(x.shape)))
        count = float(np.prod([x.shape[a] for a in axes]))
        shape = (1, -1) + (1,) * (len(x.shape) - 2)

        def r(t):
            return reshape(t, shape)

        dy, dmean, dvar = dout  # dmean, dvar: None when nothing uses those outputs
        mu, var = (out[1], out[2]) if self.is_training else (mean, variance)
        inv = div(1.0, sqrt(add(var, self.epsilon)))

        def centered():  # x - mean, written where used: it fuses into each consumer
            return sub(x, r(mu))

        dbias = reduce_sum(dy, axes)
        dy_centered = reduce_sum(mul(dy, centered()), axes)
        dscale = mul(dy_centered, inv)  # sum(dy * xhat)
        if self.is_training:
            # xhat * dscale as (x + (-mean)) * a: exactly x - mean, but not the reduction's
            # expression, so the two kernels do not share (and write out) one centered x
            a = mul(inv, dscale)
            dx = mul(r(div(mul(scale, inv), count)),
                     sub(sub(mul(dy, count), r(dbias)), mul(add(x, r(mul(mu, -1.0))), r(a))))
            if dmean is not None:
                dx = add(dx, r(div(dmean, count)))
            if dvar is not None:
                dx = add(dx, mul(r(mul(dvar, 2.0 / count)), centered()))
            return dx, dscale, dbias, None, None
        dx = mul(dy, r(mul(scale, inv)))
        dmu = mul(dbias, mul(scale, mul(inv, -1.0)))
        if dmean is not None:
            dmu = add(dmean, dmu)
        inv3 = mul(inv, mul(inv, inv))
        dv = mul(dy_centered, mul(scale, mul(inv3, -0.5)))
        if dvar is not None:
            dv = add(dvar, dv)
        return dx, dscale, dbias, dmu, dv


# -- functional forms -----------------------------------------------------------------
_MATMUL, _BIAS_ADD = MatMul(), BiasAdd()


def matmul(a, b, transpose_a=False, transpose_b=False):
    """``ops.matmul``: ``np.matmul``'s rules (batch axes broadcast, 1-D operands as vectors,
    ``framework.ops.batch_matmul``); the transposes apply to the last two axes."""
    if len(a.shape) == 2 and len(b.shape) == 2:
        return MatMul(transpose_a, transpose_b)(a, b) if transpose_a or transpose_b else _MATMUL(a, b)
    if transpose_a or transpose_b:
        return _batch_matmul.BatchMatMul(transpose_a, transpose_b)(a, b)
    return _batch_matmul.matmul(a, b)


def bias_add(x, bias):
    return _BIAS_ADD(x, bias)


def dense(x, weight, bias=None):
    """``x @ weight.T + bias`` (MindSpore's ops.dense)."""
    out = MatMul(False, True)(x, weight)
    return out if bias is None else _BIAS_ADD(out, bias)


def softmax(x, axis=-1):
    return Softmax(axis)(x)


def log_softmax(x, axis=-1):
    return LogSoftmax(axis)(x)


def _known(t: Any) -> bool:
    """Whether tensor ``t``'s value is known now (not a traced value or Parameter)."""
    return isinstance(t._data, np.ndarray) and not (is_tracing() and isinstance(t, Parameter))


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1, dtype=None):
    """``ops.one_hot(indices, depth, on_value=1, off_value=0, axis=-1)`` as MindSpore's: the
    result's dtype is ``on_value``'s when it is a Tensor, else float32 if either value is a
    Python float, else int64 (``dtype=`` overrides: our callers' form). ``depth`` is an int
    or a 0-d tensor known while compiling."""
    if isinstance(depth, Tensor):
        depth = int(depth.asnumpy())
    tensors = [v for v in (on_value, off_value) if isinstance(v, Tensor)]
    if dtype is None:
        if tensors:
            dtype = tensors[0].dtype
        elif any(isinstance(v, float) for v in (on_value, off_value)):
            dtype = mstype.float32
        else:
            dtype = mstype.int64
    if all(_known(t) for t in tensors):
        on, off = (v.asnumpy().item() if isinstance(v, Tensor) else v for v in (on_value, off_value))
        return OneHot(depth, float(on), float(off), axis, dtype)(indices)
    hot = OneHot(depth, 1.0, 0.0, axis, dtype)(indices)  # values known at run time only
    return add(mul(hot, on_value), mul(sub(1, hot), off_value))


def dropout(x, p=0.5, training=True):
    """Zero each entry with probability ``p`` and scale the rest by ``1/(1-p)``."""
    if not training or p == 0.0:
        return x
    return Dropout(1.0 - p)(x)[0]


def batch_norm(x, running_mean, running_var, weight, bias, training=False, momentum=0.1,
               eps=1e-5):
    """Normalize per channel (axis 1). ``training``: with the batch's statistics, and
    ``running_mean``/``running_var`` (Parameters or Tensors) are updated in place as
    ``(1 - momentum) * running + momentum * batch`` (unbiased batch variance), as
    MindSpore's; otherwise with the running statistics. While graph mode traces, a plain
    Tensor that is a constant of the compiled function (made inside it, never seen outside)
    is left as it is."""
    y, mean, var = BatchNorm(training, eps, momentum)(x, weight, bias, running_mean, running_var)
    if training:
        count = x.size // x.shape[1]
        unbiased = mul(_shape.stop_gradient(var), count / max(count - 1, 1))
        _update_running(running_mean, _shape.stop_gradient(mean), momentum)
        _update_running(running_var, unbiased, momentum)
    return y


def _update_running(stat, batch, momentum):
    if not isinstance(stat, Parameter) and is_tracing() and isinstance(stat._data, np.ndarray):
        return  # a constant of the traced function: nothing outside it can see an update
    assign(stat, add(mul(stat, 1.0 - momentum), mul(batch, momentum)))
