"""MindSpore's backward primitives of resizing (``G.UpsampleNearest3DGrad``,
``G.UpsampleTrilinear3DGrad``, ``G.ResizeV2Grad``): each is the transpose of its forward,
which resizes an axis by an (out, in) matrix of weights, so the gradient is that matrix
transposed, applied per resized axis with one matmul (both modes, differentiable: it is linear).

- ``UpsampleNearest3DGrad()(dy, input_size, output_size=None, scales=None)`` and
  ``UpsampleTrilinear3DGrad(align_corners=False)(...)``: ``dy`` is (N, C, D, H, W), the
  gradient has ``input_size``. Exactly one of ``output_size`` (``dy``'s D, H, W) and
  ``scales`` (per axis, ``dy``'s size ``floor(input * scale)``) is given. An output
  position ``o`` reads the input at ``o * r`` (nearest: floored), or ``(o + 0.5) r - 0.5``
  (linear, half-pixel centres, clamped at 0), with ``r = 1 / scale`` when ``scales`` is given
  and ``in / out`` otherwise; ``align_corners`` reads ``o (in - 1) / (out - 1)``. An axis
  whose size does not change is copied, whatever its scale.
- ``ResizeV2Grad(coordinate_transformation_mode='half_pixel', mode='nearest')(grads, roi,
  scales, original_size)``: the gradient of ONNX-style ``Resize`` (``roi`` unread) to
  ``original_size`` (N, C, H, W): ``nearest`` and ``linear`` resize the last axis only (H must
  be 1, as MindSpore requires), ``cubic`` the last two, with Keys' kernel ``a = -0.75`` and
  edge taps clamped. Nearest reads ``floor(o in / out)`` in either coordinate mode (as
  MindSpore's kernel does).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..common.tensor import Tensor
from .batch_matmul import matmul
from .interpolation import _cubic
from .shape_ops import transpose


def _ints(owner: str, name: str, value: Any, count: int) -> tuple[int, ...]:
    values = value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)
    out = tuple(int(v) for v in np.ravel(values))
    if len(out) != count or min(out, default=1) < 1:
        raise ValueError(f"{owner}: {name} must be {count} positive ints, got {out}")
    return out


def _source(n_in: int, n_out: int, ratio: float, align_corners: bool, centred: bool) -> np.ndarray:
    """Input coordinates of the output positions 0 .. n_out - 1."""
    dst = np.arange(n_out, dtype=np.float64)
    if align_corners:
        return dst * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros_like(dst)
    return (dst + 0.5) * ratio - 0.5 if centred else dst * ratio


def axis_weights(mode: str, n_in: int, n_out: int, ratio: float, align_corners: bool) -> np.ndarray:
    """The (n_out, n_in) matrix one axis is resized by: the identity when the sizes agree,
    whatever the scale (as MindSpore's kernels copy such an axis)."""
    if n_in == n_out:
        return np.eye(n_in)
    w = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    if mode == "nearest":
        src = np.floor(_source(n_in, n_out, ratio, False, False)).astype(int)
        w[rows, np.clip(src, 0, n_in - 1)] = 1.0
    elif mode == "linear":
        src = np.maximum(_source(n_in, n_out, ratio, align_corners, True), 0.0)
        lo = np.minimum(np.floor(src).astype(int), n_in - 1)
        frac = src - lo
        np.add.at(w, (rows, lo), 1.0 - frac)
        np.add.at(w, (rows, np.minimum(lo + 1, n_in - 1)), frac)
    else:  # cubic
        src = _source(n_in, n_out, ratio, align_corners, True)
        base = np.floor(src).astype(int)
        for k, tap in enumerate(_cubic(src - base, -0.75)):
            np.add.at(w, (rows, np.clip(base - 1 + k, 0, n_in - 1)), tap)
    return w


def by_axes(t: Any, matrices: list[np.ndarray], transposed: bool = False) -> Any:
    """``t`` with its last ``len(matrices)`` axes resized by the (out, in) ``matrices`` (one
    per axis, in order), or, ``transposed``, mapped back by their transposes (the gradient)."""
    rank = len(t.shape)
    first = rank - len(matrices)
    out = t
    for i, w in enumerate(matrices):
        axis = first + i
        perm = tuple(a for a in range(rank) if a != axis) + (axis,)
        weights = w if transposed else w.T  # (..., out) @ (out, in), or (..., in) @ (in, out)
        moved = matmul(transpose(out, perm), Tensor(np.ascontiguousarray(weights).astype(t.dtype.np)))
        out = transpose(moved, tuple(int(a) for a in np.argsort(perm)))
    return out


class _Upsample3DGrad:
    mode = "nearest"
    align_corners = False

    def __call__(self, dy: Any, input_size: Any, output_size: Any = None, scales: Any = None) -> Any:
        who = type(self).__name__
        if len(dy.shape) != 5:
            raise ValueError(f"{who}: dy must be 5-D (N, C, D, H, W), got shape {tuple(dy.shape)}")
        sizes = _ints(who, "input_size", input_size, 5)
        if sizes[:2] != tuple(dy.shape[:2]):
            raise ValueError(f"{who}: input_size {sizes} must start with dy's N, C {tuple(dy.shape[:2])}")
        if (output_size is None) == (scales is None):
            raise ValueError(f"{who}: exactly one of output_size and scales must be given")
        if output_size is not None:
            outs = _ints(who, "output_size", output_size, 3)
            ratios = [n / o for n, o in zip(sizes[2:], outs)]
        else:
            factors = [float(f) for f in scales]
            if len(factors) != 3 or min(factors) <= 0:
                raise ValueError(f"{who}: scales must be 3 positive floats, got {tuple(scales)}")
            outs = tuple(int(math.floor(n * f)) for n, f in zip(sizes[2:], factors))
            ratios = [1.0 / f for f in factors]
        if outs != tuple(dy.shape[2:]):
            raise ValueError(f"{who}: dy's D, H, W {tuple(dy.shape[2:])} must be the output size {outs}")
        return by_axes(dy, [axis_weights(self.mode, n, o, r, self.align_corners)
                            for n, o, r in zip(sizes[2:], outs, ratios)], transposed=True)


class UpsampleNearest3DGrad(_Upsample3DGrad):
    """``UpsampleNearest3DGrad()(dy, input_size, output_size=None, scales=None)``: see the
    module docstring."""

    mode = "nearest"

    def __init__(self) -> None:
        self.align_corners = False


class UpsampleTrilinear3DGrad(_Upsample3DGrad):
    """``UpsampleTrilinear3DGrad(align_corners=False)(dy, input_size, output_size=None,
    scales=None)``: see the module docstring."""

    mode = "linear"

    def __init__(self, align_corners: bool = False) -> None:
        if not isinstance(align_corners, bool):
            raise TypeError(f"UpsampleTrilinear3DGrad: align_corners must be a bool, got {align_corners!r}")
        self.align_corners = align_corners


class ResizeV2Grad:
    """``ResizeV2Grad(coordinate_transformation_mode='half_pixel', mode='nearest')(grads, roi,
    scales, original_size)``: see the module docstring."""

    def __init__(self, coordinate_transformation_mode: str = "half_pixel", mode: str = "nearest") -> None:
        if coordinate_transformation_mode not in ("align_corners", "half_pixel"):
            raise ValueError("ResizeV2Grad: coordinate_transformation_mode must be 'align_corners' or "
                             f"'half_pixel', got {coordinate_transformation_mode!r}")
        if mode not in ("nearest", "linear", "cubic"):
            raise ValueError(f"ResizeV2Grad: mode must be 'nearest', 'linear' or 'cubic', got {mode!r}")
        self.coordinate_transformation_mode, self.mode = coordinate_transformation_mode, mode

    def __call__(self, grads: Any, roi: Any, scales: Any, original_size: Any) -> Any:
        del roi, scales  # the sizes decide the mapping (as MindSpore's kernel)
        if len(grads.shape) != 4:
            raise ValueError(f"ResizeV2Grad: grads must be 4-D (N, C, H, W), got shape {tuple(grads.shape)}")
        sizes = _ints("ResizeV2Grad", "original_size", original_size, 4)
        if sizes[:2] != tuple(grads.shape[:2]):
            raise ValueError(f"ResizeV2Grad: original_size {sizes} must start with grads' N, C "
                             f"{tuple(grads.shape[:2])}")
        axes = 2 if self.mode == "cubic" else 1
        if axes == 1 and (sizes[2] != 1 or grads.shape[2] != 1):
            raise ValueError(f"ResizeV2Grad: mode {self.mode!r} resizes the last axis only: original_size[2] "
                             f"and grads' H must be 1, got {sizes[2]} and {grads.shape[2]}")
        aligned = self.coordinate_transformation_mode == "align_corners"
        pairs = list(zip(sizes[4 - axes:], grads.shape[4 - axes:]))
        return by_axes(grads, [axis_weights(self.mode, n, int(o), n / int(o), aligned) for n, o in pairs],
                       transposed=True)


__all__ = ["ResizeV2Grad", "UpsampleNearest3DGrad", "UpsampleTrilinear3DGrad"]
