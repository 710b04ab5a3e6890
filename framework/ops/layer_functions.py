"""Functional forms of a few layers, composed of primitives: ``bidense`` (a bilinear
layer), ``lrn`` (local response normalization across channels), ``affine_grid`` (the
sampling grid of affine transforms) and ``mixed_precision_cast``."""

from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._utils import argument_error
from .elementwise import cast, pow
from .nn_ops import matmul
from .shape_ops import pad, reshape, slice_, transpose


def bidense(input1, input2, weight, bias=None):
    """``y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]``."""
    if len(weight.shape) != 3:
        raise argument_error("bidense", ValueError(
            f"weight must be (out, in1, in2), got {tuple(weight.shape)}"))
    out_features, in1, in2 = weight.shape
    if input1.shape[-1] != in1 or input2.shape[-1] != in2 or input1.shape[:-1] != input2.shape[:-1]:
        raise argument_error("bidense", ValueError(
            f"input1 {tuple(input1.shape)} and input2 {tuple(input2.shape)} must end in {in1} and "
            f"{in2} features over the same leading axes"))
    lead = tuple(input1.shape[:-1])
    x1, x2 = reshape(input1, (-1, in1)), reshape(input2, (-1, in2))
    # (n, in1) @ (in1, out * in2) -> (n, out, in2), then contracted with x2
    projected = reshape(matmul(x1, reshape(transpose(weight, (1, 0, 2)), (in1, out_features * in2))),
                        (-1, out_features, in2))
    out = (projected * reshape(x2, (-1, 1, in2))).sum(-1)
    if bias is not None:
        out = out + bias
    return reshape(out, lead + (out_features,))


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """``x / (bias + alpha * sum of x**2 over the channels c - depth_radius .. c +
    depth_radius) ** beta`` for NCHW ``x``."""
    if norm_region != "ACROSS_CHANNELS":
        raise argument_error("lrn", ValueError(
            f"norm_region must be 'ACROSS_CHANNELS', got {norm_region!r}"))
    if len(x.shape) != 4:
        raise argument_error("lrn", ValueError(f"x must be NCHW, got shape {tuple(x.shape)}"))
    r = int(depth_radius)
    squares = pad(x * x, ((0, 0), (r, r), (0, 0), (0, 0)))
    total = slice_(squares, (0, 0, 0, 0), tuple(x.shape))
    for shift in range(1, 2 * r + 1):
        total = total + slice_(squares, (0, shift, 0, 0), tuple(x.shape))
    return x / pow(total * float(alpha) + float(bias), float(beta))


def affine_grid_base(spatial: tuple[int, ...], align_corners: bool) -> np.ndarray:
    """The ``(prod(spatial), k + 1)`` homogeneous normalized coordinates (x first, then y
    [, z], then 1) of every grid point, row-major over ``spatial``."""

    def axis(n: int) -> np.ndarray:
        if n == 1:
            return np.zeros(1)
        line = np.linspace(-1.0, 1.0, n)
        return line if align_corners else line * (n - 1) / n

    coords = list(np.meshgrid(*(axis(n) for n in spatial), indexing="ij"))[::-1]  # x first
    return np.stack(coords + [np.ones(spatial)], -1).reshape(-1, len(spatial) + 1)


def affine_grid(theta, size, align_corners=False):
    """The ``(N, H, W, 2)`` (or ``(N, D, H, W, 3)``) sampling grid of the affine maps
    ``theta`` (``(N, 2, 3)`` / ``(N, 3, 4)``) over normalized coordinates in [-1, 1]."""
    size = tuple(int(s) for s in size)
    spatial = size[2:]
    if len(spatial) not in (2, 3) or tuple(theta.shape[1:]) != (len(spatial), len(spatial) + 1):
        raise argument_error("affine_grid", ValueError(
            f"theta {tuple(theta.shape)} and size {size} must be (N, 2, 3) with (N, C, H, W) or "
            "(N, 3, 4) with (N, C, D, H, W)"))

    base = Tensor(affine_grid_base(spatial, align_corners).astype(mstype.to_np(theta.dtype)))
    n, k = theta.shape[0], len(spatial)
    # out[n, p, i] = sum_j base[p, j] * theta[n, i, j]: one product for every map
    points = matmul(base, reshape(theta, (n * k, k + 1)), transpose_b=True)
    return reshape(transpose(reshape(points, (-1, n, k)), (1, 0, 2)), (n,) + spatial + (k,))


def mixed_precision_cast(dst_dtype, x):
    """``x`` (a tensor, or a tuple/list/dict of them) with its floating-point tensors cast to
    ``dst_dtype``; other values unchanged."""
    if isinstance(x, tuple | list):
        return type(x)(mixed_precision_cast(dst_dtype, v) for v in x)
    if isinstance(x, dict):
        return {k: mixed_precision_cast(dst_dtype, v) for k, v in x.items()}
    if isinstance(x, Tensor) and np.dtype(mstype.to_np(x.dtype)).kind == "f":
        return cast(x, dst_dtype)
    return x
