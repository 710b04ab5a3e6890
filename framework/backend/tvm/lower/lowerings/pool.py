"""Max and average pooling and their gradients (NCHW)."""

from __future__ import annotations

from typing import Any

from tvm import relax

from .. import te_kernels
from .base import LowerContext, hw_padding


def _pool_args(prim: Any, shape: tuple[int, ...]) -> dict[str, Any]:
    pads, _, _ = prim.geometry(shape)
    return {"pool_size": prim.kernel_size, "strides": prim.strides,
            "padding": hw_padding(pads), "layout": "NCHW"}


def lower_max_pool(ctx: LowerContext, x):
    """Padded entries are the dtype's lowest value (the kernel pads with -inf). Floats: a
    window holding a NaN gives NaN, as the kernel's ``np.maximum`` does (one TE reduction
    whose combiner keeps NaN; TOPI's max drops it)."""
    spec, out = ctx.in_specs[0], ctx.out_specs[0]
    if spec.dtype.kind != "f":
        return relax.op.nn.max_pool2d(x, **_pool_args(ctx.prim, spec.shape))
    pads, _, _ = ctx.prim.geometry(spec.shape)
    return ctx.bb.call_te(te_kernels.max_pool_nan, x, ctx.prim.kernel_size, ctx.prim.strides,
                          (pads[0], pads[2]), tuple(out.shape[2:]), primfunc_name_hint="max_pool2d")


def lower_max_pool_grad(ctx: LowerContext, x, out, dout):
    """Each window's gradient goes to its first maximum (row-major window order), like the
    kernel; ``out`` is ignored: the argmax is recomputed from ``x``. A TE kernel
    (``te_kernels.max_pool_grad``): the argmax position of every window, then each input
    element sums the gradients of the windows (one, or several when they overlap) whose
    position it is. (TOPI's ``pool_grad`` breaks ties between equal maxima differently:
    a ReLU's zeros in a 3x3/1 window sent the gradient elsewhere.)"""
    prim, shape = ctx.prim, ctx.in_specs[0].shape
    pads, _, _ = prim.geometry(shape)
    return ctx.bb.call_te(te_kernels.max_pool_grad, dout, x, tuple(prim.kernel_size),
                          tuple(prim.strides), (pads[0], pads[2]), primfunc_name_hint="max_pool2d_grad")


def lower_avg_pool(ctx: LowerContext, x):
    # 'same' padding averages over the real entries only
    return relax.op.nn.avg_pool2d(x, count_include_pad=False,
                                  **_pool_args(ctx.prim, ctx.in_specs[0].shape))


def lower_avg_pool_grad(ctx: LowerContext, dout):
    prim = ctx.prim
    # the backward op takes the forward input but reads only its shape
    data = ctx.bb.emit(relax.op.zeros(list(prim.input_shape), ctx.in_specs[0].dtype.name))
    return relax.op.grad.avg_pool2d_backward(dout, data, count_include_pad=False,
                                             **_pool_args(prim, prim.input_shape))
