"""``nn.Upsample``: resizing by separable interpolation (:mod:`framework.ops.interpolation`:
one weight matrix per axis, applied with a matmul)."""

from __future__ import annotations

import math
from typing import Any

from ..ops.interpolation import resize_axes
from .cell import Cell
from .checks import tensor_shape

# mode -> the input ranks it takes
MODES = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,), "trilinear": (5,),
         "bicubic": (4,), "area": (3, 4, 5), "nearest-exact": (3, 4)}


class Upsample(Cell):
    """Resize the spatial axes of (N, C, [D, [H,]] W) to ``size`` or ``floor(size *
    scale_factor)`` by ``mode`` (nearest, linear, bilinear, trilinear, bicubic, area,
    nearest-exact); ``align_corners`` for the linear and cubic modes."""

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: Any = None, recompute_scale_factor: Any = None) -> None:
        super().__init__()
        if mode not in MODES:
            raise ValueError(f"Upsample: mode must be one of {list(MODES)}, got {mode!r}")
        if (size is None) == (scale_factor is None):
            raise ValueError("Upsample: exactly one of size and scale_factor must be given")
        if align_corners and mode not in ("linear", "bilinear", "trilinear", "bicubic"):
            raise ValueError(f"Upsample: align_corners applies to the linear and bicubic modes, "
                             f"not {mode!r}")
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners = bool(align_corners)
        self.recompute_scale_factor = recompute_scale_factor

    def _sizes(self, spatial: tuple[int, ...]) -> tuple[int, ...]:
        rank = len(spatial)
        given = self.size if self.size is not None else self.scale_factor
        values = tuple(given) if isinstance(given, tuple | list) else (given,) * rank
        if len(values) != rank:
            raise ValueError(f"Upsample: {'size' if self.size is not None else 'scale_factor'} "
                             f"has {len(values)} values for {rank} spatial axes")
        if self.size is not None:
            return tuple(int(v) for v in values)
        return tuple(int(math.floor(n * float(f))) for n, f in zip(spatial, values))

    def construct(self, x):
        shape = tensor_shape("Upsample", x)
        if len(shape) not in MODES[self.mode]:
            raise ValueError(f"Upsample: mode {self.mode!r} takes a "
                             f"{' or '.join(f'{r}-d' for r in MODES[self.mode])} input, got {shape}")
        spatial = shape[2:]
        sizes = self._sizes(spatial)
        if self.mode == "area" and len(spatial) == 1 and spatial[0] % sizes[0]:
            # MindSpore's 1-d area resize is an adaptive average pool that needs whole bins
            raise ValueError(f"Upsample: mode 'area' on a 3-d input needs the length {spatial[0]} "
                             f"to be divisible by the output size {sizes[0]}")
        if any(s < 1 for s in sizes):
            raise ValueError(f"Upsample: the output sizes {sizes} must be positive")
        return resize_axes(x, sizes, self.mode, self.align_corners)
