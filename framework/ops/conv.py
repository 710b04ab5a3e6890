"""2-D convolution (NCHW) and its two gradients: im2col + one GEMM each.

The NumPy kernels keep every copy contiguous along the output width: the columns are
laid out (C, kh, kw, N, Ho, Wo) (one ``as_strided`` view of the padded input, copied
once), so the forward is ``W (O, C*kh*kw) @ cols`` and its (O, N, Ho*Wo) result goes to
NCHW by moving whole rows; the weight gradient is one GEMM against the same columns; the
input gradient is one GEMM followed by col2im as kh*kw strided adds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..primitive import Primitive, Spec, shape_str
from ._utils import float32_accumulation, float_dtype

PAD_MODES = ("valid", "same", "pad")


def pair(value: Any, name: str) -> tuple[int, int]:
    pair_ = (value, value) if isinstance(value, int | np.integer) else tuple(value)
    if len(pair_) == 4 and name in ("stride", "dilation"):  # MindSpore's (1, 1, sh, sw) form
        pair_ = pair_[2:]
    if len(pair_) != 2 or any(int(v) < 1 for v in pair_):
        raise ValueError(f"{name} must be a positive int or a pair of them, got {value!r}")
    return int(pair_[0]), int(pair_[1])


def quad(value: Any) -> tuple[int, int, int, int]:
    """``padding``: an int, (height, width) or (top, bottom, left, right)."""
    if isinstance(value, int | np.integer):
        return (int(value),) * 4
    value = tuple(int(v) for v in value)
    if len(value) == 2:
        return value[0], value[0], value[1], value[1]
    if len(value) == 4 and all(v >= 0 for v in value):
        return value  # type: ignore[return-value]
    raise ValueError(f"padding must be an int, 2 or 4 non-negative ints, got {value!r}")


def resolve_padding(in_hw, k_hw, stride, dilation, pad_mode, pad) -> tuple[int, int, int, int]:
    """Explicit (top, bottom, left, right) padding for a pad mode (TF/MindSpore 'same')."""
    if pad_mode == "valid":
        return 0, 0, 0, 0
    if pad_mode == "pad":
        return pad
    pads = []
    for size, k, s, d in zip(in_hw, k_hw, stride, dilation):
        out = -(-size // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
        pads += [total // 2, total - total // 2]
    return tuple(pads)  # type: ignore[return-value]


def out_size(size: int, k: int, s: int, d: int, before: int, after: int) -> int:
    return (size + before + after - (k - 1) * d - 1) // s + 1


class _Conv(Primitive, abstract=True):
    """Shared attributes: stride, dilation, pad_mode and explicit pad; ``declared``: the
    (out_channel, (kh, kw)) a MindSpore-style constructor named, checked against the weight
    (None: not checked; kept out of the attributes, so the IR and its key do not change)."""

    declared: tuple[int, tuple[int, int]] | None = None

    def __init__(self, stride: Any = 1, dilation: Any = 1, pad_mode: str = "valid",
                 pad: Any = 0, **extra: Any) -> None:
        if pad_mode not in PAD_MODES:
            raise ValueError(f"pad_mode must be one of {PAD_MODES}, got {pad_mode!r}")
        if pad_mode != "pad" and quad(pad) != (0, 0, 0, 0):
            raise ValueError(f"padding {pad!r} needs pad_mode='pad' (got pad_mode={pad_mode!r})")
        super().__init__(stride=pair(stride, "stride"), dilation=pair(dilation, "dilation"),
                         pad_mode=pad_mode, pad=quad(pad), **extra)

    def geometry(self, x_shape, w_shape) -> tuple[tuple[int, int, int, int], int, int]:
        """Padding and output height/width for input ``x_shape`` and kernel ``w_shape``."""
        kh, kw = w_shape[2], w_shape[3]
        if self.declared is not None:
            _check_declared(self.declared, tuple(w_shape))
        pads = resolve_padding(x_shape[2:], (kh, kw), self.stride, self.dilation,
                               self.pad_mode, self.pad)
        ho = out_size(x_shape[2], kh, self.stride[0], self.dilation[0], pads[0], pads[1])
        wo = out_size(x_shape[3], kw, self.stride[1], self.dilation[1], pads[2], pads[3])
        if ho < 1 or wo < 1:
            raise ValueError(
                f"kernel {shape_str(tuple(w_shape[2:]))} does not fit input "
                f"{shape_str(tuple(x_shape))} with padding {pads}"
            )
        return pads, ho, wo

    def check(self, x_shape, w_shape) -> tuple[tuple[int, int, int, int], int, int]:
        if len(x_shape) != 4:
            raise ValueError(f"input must be 4-D NCHW, got {shape_str(tuple(x_shape))}")
        if len(w_shape) != 4 or w_shape[1] != x_shape[1]:
            raise ValueError(
                f"weight {shape_str(tuple(w_shape))} does not match input "
                f"{shape_str(tuple(x_shape))}: weight must be (out, {x_shape[1]}, kh, kw)"
            )
        return self.geometry(x_shape, w_shape)

    def check_dout(self, dy: Any, x_shape, w_shape) -> None:
        """A gradient primitive's ``dout``: the shape the forward conv gives for ``x_shape``
        and ``w_shape``, else ValueError."""
        _, ho, wo = self.check(x_shape, w_shape)
        expected = (x_shape[0], w_shape[0], ho, wo)
        if tuple(dy.shape) != expected:
            raise ValueError(f"dout has shape {shape_str(dy.shape)}, expected {expected}")

    def columns(self, x: np.ndarray, kh: int, kw: int, pads, ho: int, wo: int) -> np.ndarray:
        """im2col: a contiguous (C*kh*kw, N*Ho*Wo) matrix of the padded input's windows."""
        if any(pads):
            x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
        n, c = x.shape[:2]
        (sh, sw), (dh, dw) = self.stride, self.dilation
        s_n, s_c, s_h, s_w = x.strides
        view = as_strided(x, (c, kh, kw, n, ho, wo),
                          (s_c, s_h * dh, s_w * dw, s_n, s_h * sh, s_w * sw), writeable=False)
        return np.ascontiguousarray(view).reshape(c * kh * kw, n * ho * wo)

    def add_columns(self, cols: np.ndarray, x_shape, pads) -> np.ndarray:
        """col2im, the adjoint of ``columns``: (C, kh, kw, N, Ho, Wo) columns summed into an
        NCHW input (kh*kw strided adds into a (C, N, H, W) buffer, one transpose out)."""
        n, c, h, w = x_shape
        _, kh, kw, _, ho, wo = cols.shape
        (sh, sw), (dh, dw) = self.stride, self.dilation
        out = np.zeros((c, n, h + pads[0] + pads[1], w + pads[2] + pads[3]), cols.dtype)
        for i in range(kh):
            for j in range(kw):
                out[:, :, i * dh: i * dh + sh * (ho - 1) + 1: sh,
                    j * dw: j * dw + sw * (wo - 1) + 1: sw] += cols[:, i, j]
        out = out[:, :, pads[0]: pads[0] + h, pads[2]: pads[2] + w]
        return np.ascontiguousarray(out.transpose(1, 0, 2, 3))

    def conv_attrs(self) -> dict[str, Any]:
        return {"stride": self.stride, "dilation": self.dilation, "pad_mode": self.pad_mode,
                "pad": self.pad}


def _check_declared(declared: tuple[int, tuple[int, int]], w_shape: tuple) -> None:
    out_channel, kernel = declared
    if w_shape[0] != out_channel:
        raise ValueError(f"weight {shape_str(w_shape)} has {w_shape[0]} output channels, "
                         f"but out_channel={out_channel}")
    if tuple(w_shape[2:]) != kernel:
        raise ValueError(f"weight {shape_str(w_shape)} has a {w_shape[2]}x{w_shape[3]} "
                         f"kernel, but kernel_size={kernel}")


def _mindspore_args(out_channel: Any, kernel_size: Any, mode: Any, data_format: str
                    ) -> tuple[int, tuple[int, int]] | None:
    """MindSpore's leading ``Conv2D`` arguments checked: the declared weight shape, or None
    when neither ``out_channel`` nor ``kernel_size`` is given (the keyword-only form)."""
    if mode != 1 or isinstance(mode, bool):
        raise ValueError(f"Conv2D: mode must be 1, got {mode!r}")
    if data_format != "NCHW":
        raise ValueError(f"Conv2D: only data_format='NCHW' is supported (on CPU), got {data_format!r}")
    if out_channel is None and kernel_size is None:
        return None
    if isinstance(out_channel, bool) or not isinstance(out_channel, int | np.integer) or out_channel < 1:
        raise ValueError(f"Conv2D: out_channel must be a positive int, got {out_channel!r}")
    if kernel_size is None:
        raise ValueError("Conv2D: kernel_size is required with out_channel")
    return int(out_channel), pair(kernel_size, "kernel_size")


class Conv2D(_Conv):
    """``Conv2D(out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1,
    dilation=1, group=1, data_format="NCHW")(x, weight)``: NCHW x, OIHW weight, MindSpore's
    positional order. ``out_channel``/``kernel_size`` may be left out (the framework's own
    keyword form ``Conv2D(stride=..., pad_mode=...)``); given, the weight must match them.
    ``group`` > 1 makes a :class:`framework.ops.group_conv.GroupConv2D` (its own primitive,
    lowered to a grouped convolution); ``pad`` is an int or (top, bottom, left, right) and
    needs ``pad_mode="pad"``; ``stride``/``dilation`` an int, a pair or MindSpore's
    (1, 1, h, w)."""

    def __new__(cls, out_channel: Any = None, kernel_size: Any = None, mode: Any = 1,
                pad_mode: str = "valid", pad: Any = 0, stride: Any = 1, dilation: Any = 1,
                group: int = 1, data_format: str = "NCHW") -> Any:
        if group == 1 or isinstance(group, bool):
            return super().__new__(cls)
        from .group_conv import GroupConv2D  # group_conv builds on _Conv, defined here

        declared = _mindspore_args(out_channel, kernel_size, mode, data_format)
        conv = GroupConv2D(stride=stride, dilation=dilation, pad_mode=pad_mode, pad=pad, group=group)
        conv.declared = declared
        return conv

    def __init__(self, out_channel: Any = None, kernel_size: Any = None, mode: Any = 1,
                 pad_mode: str = "valid", pad: Any = 0, stride: Any = 1, dilation: Any = 1,
                 group: int = 1, data_format: str = "NCHW") -> None:
        if group != 1:
            raise ValueError(f"Conv2D: group must be a positive int, got {group!r}")
        declared = _mindspore_args(out_channel, kernel_size, mode, data_format)
        super().__init__(stride=stride, dilation=dilation, pad_mode=pad_mode, pad=pad)
        self.declared = declared

    @property
    def out_channel(self) -> int | None:
        return self.declared[0] if self.declared else None

    @property
    def kernel_size(self) -> tuple[int, int] | None:
        return self.declared[1] if self.declared else None

    def infer(self, x: Any, w: Any) -> Spec:
        _, ho, wo = self.check(x.shape, w.shape)
        return Spec((x.shape[0], w.shape[0], ho, wo), float_dtype(x.dtype))

    @float32_accumulation
    def kernel(self, x, w):
        pads, ho, wo = self.geometry(x.shape, w.shape)
        o, n = w.shape[0], x.shape[0]
        cols = self.columns(x, w.shape[2], w.shape[3], pads, ho, wo)
        out = (w.reshape(o, -1) @ cols).reshape(o, n, ho, wo)  # O, N, Ho, Wo
        return np.ascontiguousarray(out.transpose(1, 0, 2, 3))

    def bprop(self, x, w, *, out, dout, needs):
        attrs = self.conv_attrs()
        dx = Conv2DBackpropInput(input_shape=tuple(x.shape), **attrs)(dout, w) if needs[0] else None
        dw = Conv2DBackpropFilter(filter_shape=tuple(w.shape), **attrs)(x, dout) if needs[1] else None
        return dx, dw


class Conv2DBackpropInput(_Conv):
    """Gradient of Conv2D w.r.t. its input (a transposed convolution): ``(dout, weight)``."""

    def infer(self, dy: Any, w: Any) -> Spec:
        self.check_dout(dy, self.input_shape, w.shape)
        return Spec(tuple(self.input_shape), dy.dtype)

    @float32_accumulation
    def kernel(self, dy, w):
        pads, ho, wo = self.geometry(self.input_shape, w.shape)
        o, c, kh, kw = w.shape
        n = dy.shape[0]
        dy_t = np.ascontiguousarray(dy.transpose(1, 0, 2, 3)).reshape(o, n * ho * wo)
        cols = (w.reshape(o, -1).T @ dy_t).reshape(c, kh, kw, n, ho, wo)
        return self.add_columns(cols, self.input_shape, pads)

    def bprop(self, dy, w, *, out, dout, needs):
        attrs = self.conv_attrs()
        ddy = Conv2D(**attrs)(dout, w) if needs[0] else None
        dw = Conv2DBackpropFilter(filter_shape=tuple(w.shape), **attrs)(dout, dy) if needs[1] else None
        return ddy, dw


class Conv2DBackpropFilter(_Conv):
    """Gradient of Conv2D w.r.t. its weight: ``(x, dout)``."""

    def infer(self, x: Any, dy: Any) -> Spec:
        self.check_dout(dy, x.shape, self.filter_shape)
        return Spec(tuple(self.filter_shape), dy.dtype)

    @float32_accumulation
    def kernel(self, x, dy):
        pads, ho, wo = self.geometry(x.shape, self.filter_shape)
        o, c, kh, kw = self.filter_shape
        cols = self.columns(x, kh, kw, pads, ho, wo)
        dy_t = np.ascontiguousarray(dy.transpose(1, 0, 2, 3)).reshape(o, -1)
        return (dy_t @ cols.T).reshape(o, c, kh, kw)

    def bprop(self, x, dy, *, out, dout, needs):
        attrs = self.conv_attrs()
        dx = Conv2DBackpropInput(input_shape=tuple(x.shape), **attrs)(dy, dout) if needs[0] else None
        ddy = Conv2D(**attrs)(x, dout) if needs[1] else None
        return dx, ddy

