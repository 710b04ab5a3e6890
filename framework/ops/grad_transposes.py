"""MindSpore's backward primitives of ops linear in what they differentiate
(``G.AdaptiveAvgPool2DGrad()``, ``G.AdaptiveAvgPool3DGrad()``, ``G.AdaptiveMaxPool2DGrad()``,
``G.AdaptiveMaxPool3DGrad()``, ``G.AffineGridGrad()``, ``G.GatherDGradV2()``,
``G.LuUnpackGrad``): each is the transpose of its forward,
written with our primitives (matrix products with constant bin matrices, an adding scatter),
so it runs in both modes and is differentiable.

Adaptive average pooling to ``out`` bins over an axis of length ``L`` averages, for bin ``i``,
the entries ``[floor(i L / out), ceil((i + 1) L / out))``; pooling over several axes is that
per axis, so its transpose is the transposed bin matrix per pooled axis.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ..dtype import dtype_to_nptype
from .batch_matmul import matmul
from .creation import zeros_like
from .elementwise import mul
from .layer_functions import affine_grid_base
from .scatter_elements import tensor_scatter_elements
from .shape_ops import pad, reshape, transpose


def _sizes(owner: str, orig_size: Any, rank: int) -> tuple[int, ...]:
    values = orig_size.asnumpy() if hasattr(orig_size, "asnumpy") else np.asarray(orig_size)
    sizes = tuple(int(v) for v in np.ravel(values))
    if len(sizes) != rank or min(sizes, default=1) < 1:
        raise ValueError(f"{owner}: orig_size must hold the forward input's {rank} positive sizes "
                         f"(the gradient's shape), got {sizes}")
    return sizes


def _bins(out: int, length: int, dtype: Any) -> Tensor:
    """The ``(out, length)`` matrix averaging each bin's entries."""
    matrix = np.zeros((out, length), dtype_to_nptype(dtype))
    for i in range(out):
        start, stop = (i * length) // out, math.ceil((i + 1) * length / out)
        matrix[i, start:stop] = 1.0 / (stop - start)
    return Tensor(matrix)


def _spread(owner: str, grad: Any, orig_size: Any, pooled: int) -> Any:
    rank = len(grad.shape)
    sizes = _sizes(owner, orig_size, rank)
    if sizes[:rank - pooled] != tuple(grad.shape[:rank - pooled]):
        raise ValueError(f"{owner}: orig_size {sizes} must share the gradient's leading sizes "
                         f"{tuple(grad.shape[:rank - pooled])}")
    out = grad
    for axis in range(rank - pooled, rank):
        perm = tuple(a for a in range(rank) if a != axis) + (axis,)
        back = tuple(int(np.argsort(perm)[a]) for a in range(rank))
        moved = matmul(transpose(out, perm), _bins(grad.shape[axis], sizes[axis], grad.dtype))
        out = transpose(moved, back)
    return out


class AdaptiveAvgPool2DGrad:
    """``AdaptiveAvgPool2DGrad()(input_grad, orig_size)``: ``input_grad`` (``(N, C, h, w)`` or
    ``(C, h, w)``) spread back over the forward input's shape ``orig_size`` (a tuple or an
    integer Tensor), each bin's gradient shared equally by its entries."""

    def __call__(self, input_grad: Any, orig_size: Any) -> Any:
        return _spread("AdaptiveAvgPool2DGrad", input_grad, orig_size, 2)


class AdaptiveAvgPool3DGrad:
    """``AdaptiveAvgPool3DGrad()(input_grad, orig_size)``: as ``AdaptiveAvgPool2DGrad`` over the
    last three axes."""

    def __call__(self, input_grad: Any, orig_size: Any) -> Any:
        return _spread("AdaptiveAvgPool3DGrad", input_grad, orig_size, 3)


class _AdaptiveMaxPoolGrad:
    pooled = 2

    def __call__(self, y_grad: Any, x: Any, argmax: Any) -> Any:
        """``y_grad`` added into zeros of ``x``'s shape at each window's maximum (``argmax``:
        flat positions within each map of the pooled axes)."""
        lead = tuple(x.shape[:len(x.shape) - self.pooled])
        flat = (*lead, -1)
        spread = tensor_scatter_elements(reshape(zeros_like(x), flat), reshape(argmax, flat),
                                         reshape(y_grad, flat), -1, "add")
        return reshape(spread, tuple(x.shape))


class AdaptiveMaxPool2DGrad(_AdaptiveMaxPoolGrad):
    """``AdaptiveMaxPool2DGrad()(y_grad, x, argmax)``: each output's gradient added at the
    input position ``argmax`` names (flat over ``H * W``)."""


class AdaptiveMaxPool3DGrad(_AdaptiveMaxPoolGrad):
    """``AdaptiveMaxPool3DGrad()(y_grad, x, argmax)``: as ``AdaptiveMaxPool2DGrad``, ``argmax``
    flat over ``D * H * W``."""

    pooled = 3


class LuUnpackGrad:
    """``LuUnpackGrad(L_grad_flag, U_grad_flag)(L_data_grad, U_data_grad, LU_data)`` -> the
    gradients that reach ``LU_data`` through ``L`` and ``U``: ``L_data_grad``'s part strictly
    below the diagonal and ``U_data_grad``'s upper triangle, each zero-padded to ``LU_data``'s
    shape (MindSpore's CPU kernel returns both whatever the flags)."""

    def __init__(self, L_grad_flag: bool, U_grad_flag: bool) -> None:  # noqa: N803  (MindSpore's names)
        self.L_grad_flag, self.U_grad_flag = bool(L_grad_flag), bool(U_grad_flag)

    def __call__(self, L_data_grad: Any, U_data_grad: Any, LU_data: Any) -> tuple:  # noqa: N803
        rows, cols = LU_data.shape[-2:]
        keep = np.tril(np.ones((rows, cols), dtype_to_nptype(LU_data.dtype)), -1)
        return (mul(_fit(L_data_grad, rows, cols), Tensor(keep)),
                mul(_fit(U_data_grad, rows, cols), Tensor(np.triu(np.ones_like(keep)))))


def _fit(grad: Any, rows: int, cols: int) -> Any:
    """``grad``'s last two axes zero-padded (at the end) to ``(rows, cols)``."""
    extra = ((0, 0),) * (len(grad.shape) - 2)
    return pad(grad, extra + ((0, rows - grad.shape[-2]), (0, cols - grad.shape[-1])))


class AffineGridGrad:
    """``AffineGridGrad(align_corners=False)(y_grad, x_size)``: the gradient with respect to
    ``theta`` (``(N, k, k + 1)``) of ``affine_grid(theta, x_size)`` given the grid's gradient
    ``y_grad`` (``(N, *spatial, k)``): ``y_grad`` transposed times the grid's base points."""

    def __init__(self, align_corners: bool = False) -> None:
        self.align_corners = bool(align_corners)

    def __call__(self, y_grad: Any, x_size: Any) -> Any:
        size = _sizes("AffineGridGrad", x_size, len(y_grad.shape))
        spatial, n = size[2:], y_grad.shape[0]
        if tuple(y_grad.shape) != (n, *spatial, len(spatial)):
            raise ValueError(f"AffineGridGrad: y_grad {tuple(y_grad.shape)} must be (N, *spatial, "
                             f"{len(spatial)}) for x_size {size}")
        base = affine_grid_base(spatial, self.align_corners).astype(dtype_to_nptype(y_grad.dtype))
        points = transpose(reshape(y_grad, (n, -1, len(spatial))), (0, 2, 1))
        return matmul(points, Tensor(base))


class GatherDGradV2:
    """``GatherDGradV2()(x, dim, index, grad)``: ``grad`` added into zeros of ``x``'s shape at
    the positions ``gather_d(x, dim, index)`` read."""

    def __call__(self, x: Any, dim: Any, index: Any, grad: Any) -> Any:
        return tensor_scatter_elements(zeros_like(x), index, grad, int(dim), "add")


__all__ = ["AdaptiveAvgPool2DGrad", "AdaptiveAvgPool3DGrad", "AdaptiveMaxPool2DGrad",
           "AdaptiveMaxPool3DGrad", "AffineGridGrad", "GatherDGradV2", "LuUnpackGrad"]
