"""schedule/padded_casts.py: a float16 convolution operand is widened inside the
convolution's padding copy (no conversion kernel of its own), and the results stay NumPy's
float32 convolution rounded once to float16, the gradients included."""

from __future__ import annotations

import numpy as np
import tvm
from tvm import relax

import framework as ms
from framework import Tensor, ops
from framework.backend.tvm.schedule.padded_casts import _widens

from .test_fp16_kernels import _graph, _scheduled  # graph-mode run; the scheduled module


def conv(x, w):
    return ops.conv2d(x, w, pad_mode="pad", padding=1)


def _conv_f32(x, w):
    """NCHW 3x3 convolution, padding 1, in float64 (then rounded by the caller)."""
    n, c, h, wd = x.shape
    p = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = np.stack([p[:, :, i:i + h, j:j + wd] for i in range(3) for j in range(3)], axis=2)
    return np.einsum("nckhw,ock->nohw", cols, w.astype(np.float64).reshape(w.shape[0], c, 9))


def _inputs():
    rng = np.random.default_rng(3)
    return (rng.uniform(-2, 2, (2, 8, 10, 10)).astype(np.float16),
            rng.uniform(-1, 1, (16, 8, 3, 3)).astype(np.float16))


def _widening_calls(mod: tvm.IRModule, dtype_shape) -> int:
    """Calls of pure float16 -> float32 conversion kernels whose input has ``dtype_shape``."""
    names = {gv.name_hint for gv, f in mod.functions.items()
             if isinstance(f, tvm.tirx.PrimFunc) and _widens(f)}
    found = []

    def visit(expr):
        if isinstance(expr, relax.Call) and isinstance(expr.op, tvm.ir.Op) \
                and expr.op.name == "relax.call_tir" and expr.args[0].name_hint in names:
            ty = expr.args[1].fields[0].ty
            if tuple(int(d) for d in ty.shape.values) == dtype_shape:
                found.append(expr)

    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, visit)
    return len(found)


def test_the_convolution_widens_its_padded_float16_input_itself_and_rounds_once():
    x, w = _inputs()
    mod = _scheduled(conv, x, w)
    assert _widening_calls(mod, x.shape) == 0  # converted in the padding copy
    got = _graph(conv, x, w)
    assert got.dtype == np.float16
    want = _conv_f32(x, w).astype(np.float32).astype(np.float16)
    # float32 sums in another order than NumPy's: at most one float16 step apart, mostly equal
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2 ** -10, atol=2 ** -14)
    assert (got == want).mean() > 0.99


def test_the_convolution_gradients_with_folded_conversions_are_numpys():
    x, w = _inputs()
    rng = np.random.default_rng(4)
    g = rng.uniform(-1, 1, (2, 16, 10, 10)).astype(np.float16)

    def loss(a, b):
        return (conv(a, b) * Tensor(g)).sum()

    dx, dw = _graph(ms.grad(loss, grad_position=(0, 1)), x, w)
    assert dx.dtype == dw.dtype == np.float16
    x64, w64, g64 = (v.astype(np.float64) for v in (x, w, g))
    # d/dx: the transposed convolution of g (flipped, channel-swapped weights), padding 1
    want_dx = _conv_f32(g64, np.flip(w64, (2, 3)).transpose(1, 0, 2, 3))
    # d/dw[o, c, i, j] = sum_n,h,w g[n, o, h, w] * xpad[n, c, h + i, w + j]
    p = np.pad(x64, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want_dw = np.stack([np.einsum("nohw,nchw->oc", g64, p[:, :, i:i + 10, j:j + 10])
                        for i in range(3) for j in range(3)], axis=-1).reshape(16, 8, 3, 3)
    # the float32 sums of the kernels against float64: within a float16 rounding step
    np.testing.assert_allclose(dx.astype(np.float32), want_dx.astype(np.float16).astype(np.float32),
                               rtol=2 ** -10, atol=2 ** -14)
    np.testing.assert_allclose(dw.astype(np.float32), want_dw.astype(np.float16).astype(np.float32),
                               rtol=2 ** -10, atol=2 ** -14)
