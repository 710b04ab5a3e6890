"""``P.ROIAlign(pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1)
(features, rois)``: each region of interest pooled to a fixed grid by averaging bilinear
samples, as MindSpore's CPU kernel (Caffe2's RoIAlign).

``rois`` ``(R, 5)`` rows ``(batch_index, x1, y1, x2, y2)`` in input pixels; corners are
multiplied by ``spatial_scale`` (with ``roi_end_mode=1`` the far corner plus 1), the region
is at least 1x1 and is cut into ``pooled_height x pooled_width`` bins.
Each bin averages a ``g_h x g_w`` grid of samples at the centres of its cells, with ``g =
sample_num``, or ``int(region / pooled)`` when ``sample_num <= 0`` (0 samples give NaN, as
MindSpore's kernel). A sample outside ``[-1, size]`` reads 0; otherwise it is clamped to the
input and interpolated bilinearly.

Sampling and interpolation are separable, so one region's output is ``Wy @ F[b] @ Wx^T``
with ``Wy`` ``(pooled_height, H)`` and ``Wx`` ``(pooled_width, W)`` holding the averaged
interpolation weights: ``ROIAlignWeights`` (a primitive with a NumPy kernel, no gradient:
MindSpore gives ``rois`` none) computes them from the boxes, and batched matrix products
apply them, so the features' gradient and graph mode are ``BatchMatMul``'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..primitive import Primitive, Spec
from ._utils import argument_error
from .batch_matmul import BatchMatMul
from .elementwise import cast
from .scatter_gather import gather
from .shape_ops import broadcast_to, expand_dims


def axis_weights(start: Any, length: Any, pooled: int, grid: int, size: int) -> np.ndarray:
    """``(pooled, size)``: the weight of each input position in each bin's average of
    ``grid`` samples along one axis (NaN rows when ``grid`` is 0). The sample positions are
    computed in ``start``'s dtype (the boxes'), as the kernel does: a sample at the edge
    ``size`` stays inside."""
    weights = np.zeros((pooled, size))
    if grid <= 0:
        return np.full((pooled, size), np.nan)
    kind = np.asarray(start).dtype
    step = kind.type(length / kind.type(pooled))
    cells = (np.arange(grid, dtype=kind)[None, :] + kind.type(0.5)) * step / kind.type(grid)
    pos = (start + np.arange(pooled, dtype=kind)[:, None] * step + cells).astype(np.float64)
    inside = (pos >= -1.0) & (pos <= size)
    pos = np.maximum(pos, 0.0)
    low = np.floor(pos).astype(np.int64)
    at_edge = low >= size - 1
    low = np.where(at_edge, size - 1, low)
    high = np.where(at_edge, size - 1, low + 1)
    frac = np.where(at_edge, 0.0, pos - low)
    rows = np.broadcast_to(np.arange(pooled)[:, None], pos.shape)
    np.add.at(weights, (rows, low), np.where(inside, 1.0 - frac, 0.0))
    np.add.at(weights, (rows, high), np.where(inside, frac, 0.0))
    return weights / grid


class ROIAlignWeights(Primitive):
    """``(Wy (R, pooled_height, height), Wx (R, pooled_width, width))`` of ``rois``: see the
    module docstring."""

    num_outputs = 2
    differentiable = False

    def __init__(self, pooled_height: int, pooled_width: int, spatial_scale: float, sample_num: int,
                 roi_end_mode: int, height: int, width: int) -> None:
        super().__init__(pooled_height=pooled_height, pooled_width=pooled_width, spatial_scale=spatial_scale,
                         sample_num=sample_num, roi_end_mode=roi_end_mode, height=height, width=width)

    def infer(self, rois: Any) -> tuple[Spec, Spec]:
        if len(rois.shape) != 2 or rois.shape[1] != 5 or np.dtype(rois.dtype).kind != "f":
            raise ValueError(f"ROIAlign: rois must be float (R, 5) rows (batch, x1, y1, x2, y2), got "
                             f"{np.dtype(rois.dtype)} of shape {tuple(rois.shape)}")
        r, dtype = rois.shape[0], np.dtype(rois.dtype)
        return (Spec((r, self.pooled_height, self.height), dtype),
                Spec((r, self.pooled_width, self.width), dtype))

    def kernel(self, rois: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r = rois.shape[0]
        wy = np.zeros((r, self.pooled_height, self.height))
        wx = np.zeros((r, self.pooled_width, self.width))
        kind = rois.dtype.type
        scale, end, one = kind(self.spatial_scale), kind(1.0 if self.roi_end_mode == 1 else 0.0), kind(1.0)
        for i, (_, x1, y1, x2, y2) in enumerate(rois):
            x1, y1 = x1 * scale, y1 * scale
            x2, y2 = (x2 + end) * scale, (y2 + end) * scale
            roi_h, roi_w = max(y2 - y1, one), max(x2 - x1, one)
            grid_h = self.sample_num if self.sample_num > 0 else int(roi_h / self.pooled_height)
            grid_w = self.sample_num if self.sample_num > 0 else int(roi_w / self.pooled_width)
            wy[i] = axis_weights(y1, roi_h, self.pooled_height, grid_h, self.height)
            wx[i] = axis_weights(x1, roi_w, self.pooled_width, grid_w, self.width)
        return wy.astype(rois.dtype), wx.astype(rois.dtype)


def _check(who: str, name: str, value: Any, kind: type) -> None:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise argument_error(who, TypeError(f"{name} must be {kind.__name__}, got {value!r}"))


class ROIAlign:
    """``P.ROIAlign(pooled_height, pooled_width, spatial_scale, sample_num=2,
    roi_end_mode=1)``: see the module docstring."""

    def __init__(self, pooled_height: int, pooled_width: int, spatial_scale: float, sample_num: int = 2,
                 roi_end_mode: int = 1) -> None:
        for name, value in (("pooled_height", pooled_height), ("pooled_width", pooled_width),
                            ("sample_num", sample_num), ("roi_end_mode", roi_end_mode)):
            _check("ROIAlign", name, value, int)
        _check("ROIAlign", "spatial_scale", spatial_scale, float)
        if pooled_height < 1 or pooled_width < 1 or roi_end_mode not in (0, 1):
            raise argument_error("ROIAlign", ValueError(
                "pooled_height and pooled_width must be >= 1 and roi_end_mode 0 or 1, got "
                f"{pooled_height}, {pooled_width}, {roi_end_mode}"))
        self.pooled_height, self.pooled_width, self.spatial_scale = pooled_height, pooled_width, spatial_scale
        self.sample_num, self.roi_end_mode = sample_num, roi_end_mode

    def __call__(self, features: Any, rois: Any) -> Any:
        if len(features.shape) != 4:
            raise argument_error("ROIAlign", ValueError(
                f"features must be (N, C, H, W), got shape {tuple(features.shape)}"))
        _, c, h, w = features.shape
        wy, wx = ROIAlignWeights(self.pooled_height, self.pooled_width, self.spatial_scale, self.sample_num,
                                 self.roi_end_mode, h, w)(rois)
        r = rois.shape[0]
        picked = gather(features, cast(rois[:, 0], np.int32), 0)  # (R, C, H, W)
        wy = broadcast_to(expand_dims(cast(wy, features.dtype), 1), (r, c, self.pooled_height, h))
        wx = broadcast_to(expand_dims(cast(wx, features.dtype), 1), (r, c, self.pooled_width, w))
        rows = BatchMatMul()(wy, picked)  # (R, C, ph, W)
        return BatchMatMul(transpose_b=True)(rows, wx)  # (R, C, ph, pw)
