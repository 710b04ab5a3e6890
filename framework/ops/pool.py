"""Max and average pooling (NCHW) and their gradients, on strided window views."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..primitive import Primitive, Spec, shape_str
from ._utils import float32_accumulation, float_dtype
from .conv import out_size, pair, resolve_padding
from .shape_ops import transpose


class _Pool(Primitive, abstract=True):
    """``kernel_size``, ``strides`` and ``pad_mode`` ('valid' or 'same')."""

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "valid",
                 **extra: Any) -> None:
        pad_mode = pad_mode.lower()
        if pad_mode not in ("valid", "same"):
            raise ValueError(f"pad_mode must be 'valid' or 'same', got {pad_mode!r}")
        super().__init__(kernel_size=pair(kernel_size, "kernel_size"),
                         strides=pair(strides, "strides"), pad_mode=pad_mode, **extra)

    def geometry(self, shape) -> tuple[tuple[int, int, int, int], int, int]:
        if len(shape) != 4:
            raise ValueError(f"input must be 4-D NCHW, got {shape_str(tuple(shape))}")
        pads = resolve_padding(shape[2:], self.kernel_size, self.strides, (1, 1),
                               self.pad_mode, None)
        (kh, kw), (sh, sw) = self.kernel_size, self.strides
        ho = out_size(shape[2], kh, sh, 1, pads[0], pads[1])
        wo = out_size(shape[3], kw, sw, 1, pads[2], pads[3])
        if ho < 1 or wo < 1:
            raise ValueError(f"kernel {self.kernel_size} does not fit input {shape_str(shape)}")
        return pads, ho, wo

    def out_spec(self, x: Any) -> Spec:
        _, ho, wo = self.geometry(tuple(x.shape))
        return Spec((x.shape[0], x.shape[1], ho, wo), float_dtype(x.dtype))

    def tiled(self, x: np.ndarray) -> np.ndarray | None:
        """(N, C, Ho, kh, Wo, kw) view when unpadded windows tile the input exactly, else None."""
        (kh, kw), (sh, sw) = self.kernel_size, self.strides
        n, c, h, w = x.shape
        if self.pad_mode != "valid" or (kh, kw) != (sh, sw) or h % kh or w % kw:
            return None
        return x.reshape(n, c, h // kh, kh, w // kw, kw)

    def padded(self, x: np.ndarray, pads, value: float) -> np.ndarray:
        if not any(pads):
            return x
        return np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])),
                      constant_values=value)

    def window_view(self, xp: np.ndarray) -> np.ndarray:
        (kh, kw), (sh, sw) = self.kernel_size, self.strides
        return sliding_window_view(xp, (kh, kw), axis=(2, 3))[:, :, ::sh, ::sw]

    def offsets(self, ho: int, wo: int):
        """(i, j, index) per kernel offset: the input positions it reads for every output."""
        (kh, kw), (sh, sw) = self.kernel_size, self.strides
        for i in range(kh):
            for j in range(kw):
                yield np.s_[:, :, i: i + sh * (ho - 1) + 1: sh, j: j + sw * (wo - 1) + 1: sw]

    def counts(self, shape, pads, ho, wo) -> np.ndarray:
        """Number of real (unpadded) input entries under each window, as (Ho, Wo)."""
        ones = self.padded(np.ones((1, 1) + tuple(shape[2:])), pads, 0.0)
        return self.window_view(ones).sum(axis=(-2, -1))[0, 0]



class _LayoutPool(_Pool, abstract=True):
    """A forward pool as MindSpore's class: ``(kernel_size=1, strides=1, pad_mode, data_format='NCHW')``.
    The node is NCHW; an 'NHWC' input goes through it transposed (the layout is not a node
    attribute)."""

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "valid",
                 data_format: str = "NCHW") -> None:
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"{type(self).__name__}: data_format must be 'NCHW' or 'NHWC', "
                             f"got {data_format!r}")
        super().__init__(kernel_size, strides, pad_mode)
        self.data_format = data_format

    def __call__(self, x: Any) -> Any:
        if self.data_format == "NCHW":
            return Primitive.__call__(self, x)
        nchw = type(self)(self.kernel_size, self.strides, self.pad_mode)
        return transpose(nchw(transpose(x, (0, 3, 1, 2))), (0, 2, 3, 1))


class MaxPool(_LayoutPool):
    def infer(self, x):
        return self.out_spec(x)

    def kernel(self, x):
        # one np.maximum per kernel offset over strided slices: NumPy reduces a 6-D window
        # view over its two small axes several times slower
        pads, ho, wo = self.geometry(x.shape)
        xp = self.padded(x, pads, -np.inf)
        out = None
        for index in self.offsets(ho, wo):
            out = xp[index].copy() if out is None else np.maximum(out, xp[index], out=out)
        return out

    def bprop(self, x, *, out, dout, needs):
        return (MaxPoolGrad(self.kernel_size, self.strides, self.pad_mode)(x, out, dout),)


class MaxPoolGrad(_Pool):
    """``(x, out, dout) -> dx``: each window's gradient goes to its first maximum. Linear in
    ``dout`` (its transpose is :class:`MaxPoolGradTranspose`), piecewise constant in ``x``
    and ``out``: differentiable to any order."""

    def infer(self, x, out, dout):
        spec = self.out_spec(x)
        if tuple(out.shape) != spec.shape or tuple(dout.shape) != spec.shape:
            raise ValueError(f"out/dout must have shape {spec.shape}")
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x, out, dout):
        pads, ho, wo = self.geometry(x.shape)
        xp = self.padded(x, pads, -np.inf)
        dxp = np.zeros(xp.shape, dout.dtype)
        left = dout.copy()  # the gradient not yet given to its window's (first) maximum
        hit = np.empty(out.shape, bool)
        share = np.empty(out.shape, dout.dtype)
        for index in self.offsets(ho, wo):
            np.equal(xp[index], out, out=hit)
            np.multiply(left, hit, out=share)  # multiplying by a mask beats np.where here
            dxp[index] += share
            left -= share  # exactly 0 where this offset took the gradient
        return dxp[:, :, pads[0]: pads[0] + x.shape[2], pads[2]: pads[2] + x.shape[3]]

    def bprop(self, x, pooled, grad, *, out, dout, needs):
        # the inputs' names differ from MaxPool's (out, dout are bprop's own keywords)
        return (None, None, MaxPoolGradTranspose(self.kernel_size, self.strides, self.pad_mode)(
            x, pooled, dout))


class MaxPoolGradTranspose(_Pool):
    """``(x, out, grad) -> pooled``: ``grad`` (shaped like ``x``) read at each window's first
    maximum, the transpose of :class:`MaxPoolGrad` in its ``dout`` (so its gradient)."""

    def infer(self, x, out, grad):
        spec = self.out_spec(x)
        if tuple(out.shape) != spec.shape or tuple(grad.shape) != tuple(x.shape):
            raise ValueError(f"out must have shape {spec.shape} and grad {tuple(x.shape)}")
        return Spec(spec.shape, grad.dtype)

    def kernel(self, x, out, grad):
        pads, ho, wo = self.geometry(x.shape)
        xp, gp = self.padded(x, pads, -np.inf), self.padded(grad, pads, 0.0)
        pooled = np.zeros(out.shape, grad.dtype)
        taken = np.zeros(out.shape, bool)
        for index in self.offsets(ho, wo):
            hit = (xp[index] == out) & ~taken  # the first maximum only, as MaxPoolGrad
            pooled += np.where(hit, gp[index], 0)
            taken |= hit
        return pooled

    def bprop(self, x, pooled, grad, *, out, dout, needs):
        return (None, None, MaxPoolGrad(self.kernel_size, self.strides, self.pad_mode)(
            x, pooled, dout))


class AvgPool(_LayoutPool):
    """Mean over each window; with 'same' padding the mean is over real entries only."""

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "VALID",
                 data_format: str = "NCHW") -> None:
        super().__init__(kernel_size, strides, pad_mode, data_format)

    def infer(self, x):
        return self.out_spec(x)

    @float32_accumulation
    def kernel(self, x):
        tiles = self.tiled(x)
        if tiles is not None:
            return tiles.mean(axis=(3, 5))
        pads, ho, wo = self.geometry(x.shape)
        total = self.window_view(self.padded(x, pads, 0.0)).sum(axis=(-2, -1))
        return (total / self.counts(x.shape, pads, ho, wo)).astype(x.dtype, copy=False)

    def bprop(self, x, *, out, dout, needs):
        grad = AvgPoolBackprop(self.kernel_size, self.strides, self.pad_mode,
                           input_shape=tuple(x.shape))
        return (grad(dout),)


class AvgPoolBackprop(_Pool):
    """``dout -> dx`` for AvgPool with input shape ``input_shape``."""

    def infer(self, dout):
        _, ho, wo = self.geometry(self.input_shape)
        if tuple(dout.shape) != tuple(self.input_shape[:2]) + (ho, wo):
            raise ValueError(f"dout must have shape {self.input_shape[:2] + (ho, wo)}")
        return Spec(tuple(self.input_shape), dout.dtype)

    @float32_accumulation
    def kernel(self, dout):
        pads, ho, wo = self.geometry(self.input_shape)
        n, c, h, w = self.input_shape
        share = dout / self.counts(self.input_shape, pads, ho, wo)
        dxp = np.zeros((n, c, h + pads[0] + pads[1], w + pads[2] + pads[3]), dout.dtype)
        for index in self.offsets(ho, wo):
            dxp[index] += share
        return dxp[:, :, pads[0]: pads[0] + h, pads[2]: pads[2] + w]

    def bprop(self, dy, *, out, dout, needs):
        # AvgPoolBackprop is linear in its input; its adjoint is the pooling itself
        return (AvgPool(self.kernel_size, self.strides, self.pad_mode)(dout),)


def max_pool2d(x, kernel_size, stride=None, pad_mode="valid"):
    return MaxPool(kernel_size, kernel_size if stride is None else stride, pad_mode)(x)


def avg_pool2d(x, kernel_size, stride=None, pad_mode="valid"):
    return AvgPool(kernel_size, kernel_size if stride is None else stride, pad_mode)(x)
