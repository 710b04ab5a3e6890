"""``G.AvgPool3DGrad``: MindSpore's backward primitive of 3-d average pooling, the transpose
of :func:`framework.ops.window_pool.avg_pool3d` (linear): each output's gradient, divided by
its window's divisor, added to every input entry of its window. The windows are
``window_pool``'s (the same flat positions, padding, ``ceil_mode``, ``count_include_pad`` and
``divisor_override`` rules), so the pair stays consistent; the spreading is one product with
a constant ``(windows, plane)`` matrix, so both modes run it and it is differentiable.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ..dtype import dtype_to_nptype
from .batch_matmul import matmul
from .creation import zeros
from .grad_transposes import _sizes
from .shape_ops import reshape
from .window_pool import _pool


def _triple(name: str, value: Any) -> tuple[int, ...]:
    values = (value,) * 3 if isinstance(value, int) else tuple(int(v) for v in value)
    if len(values) == 5:  # MindSpore also takes (1, 1, d, h, w)
        values = values[2:]
    if len(values) == 1:
        values = values * 3
    if len(values) != 3:
        raise ValueError(f"AvgPool3DGrad: {name} must be an int or 3 ints, got {value!r}")
    return values


class AvgPool3DGrad:
    """``AvgPool3DGrad(kernel_size=1, strides=1, pads=0, ceil_mode=False,
    count_include_pad=True, divisor_override=0, data_format='NCDHW', pad_mode='pad')
    (origin_input_size, grads)``: the gradient of ``AvgPool3D`` with those attributes at an
    input of shape ``origin_input_size`` (a tuple or an integer Tensor). ``pads``: an int, or
    6 ints (front, back, top, bottom, left, right) equal in pairs."""

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pads: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int = 0,
                 data_format: str = "NCDHW", pad_mode: str = "pad") -> None:
        if data_format != "NCDHW":
            raise ValueError(f"AvgPool3DGrad: data_format must be 'NCDHW', got {data_format!r}")
        mode = str(pad_mode).lower()
        if mode not in ("pad", "valid"):
            raise ValueError(f"AvgPool3DGrad: pad_mode must be 'pad' or 'valid', got {pad_mode!r}")
        flat = (pads,) * 6 if isinstance(pads, int) else tuple(int(p) for p in pads)
        if len(flat) != 6 or flat[0::2] != flat[1::2] or min(flat) < 0:
            raise ValueError(f"AvgPool3DGrad: pads must be an int or 6 ints equal in pairs "
                             f"(front, back, top, bottom, left, right), got {pads!r}")
        self.kernel_size, self.strides = _triple("kernel_size", kernel_size), _triple("strides", strides)
        self.pads = flat[0::2] if mode == "pad" else (0, 0, 0)
        self.ceil_mode, self.count_include_pad = bool(ceil_mode), bool(count_include_pad)
        self.divisor_override, self.data_format, self.pad_mode = int(divisor_override), data_format, pad_mode

    def __call__(self, origin_input_size: Any, grads: Any) -> Any:
        size = _sizes("AvgPool3DGrad", origin_input_size, 5)
        _, positions, padded, inside, shape, _ = _pool(
            "AvgPool3DGrad", zeros(size, grads.dtype), 3, self.kernel_size, self.strides, self.pads,
            1, self.ceil_mode)
        if tuple(grads.shape) != shape:
            raise ValueError(f"AvgPool3DGrad: grads {tuple(grads.shape)} must be the pooled shape "
                             f"{shape} of an input {size}")
        divisor = np.full(positions.shape[1], self.divisor_override) if self.divisor_override \
            else (padded if self.count_include_pad else inside)
        plane = int(np.prod(size[2:]))
        spread = np.zeros((positions.shape[1], plane + 1), dtype_to_nptype(grads.dtype))
        for k in range(positions.shape[0]):
            np.add.at(spread, (np.arange(positions.shape[1]), positions[k]), 1.0 / divisor)
        flat = matmul(reshape(grads, (size[0], size[1], -1)), Tensor(spread[:, :plane]))
        return reshape(flat, size)


__all__ = ["AvgPool3DGrad"]
