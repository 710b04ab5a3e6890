"""Backward primitives of MindSpore's ``ops.operations._grad_ops`` for the ops that read an
input at computed (sampled) positions: grid sampling, RoI alignment, bicubic resizing and
deformable offsets. Each is the vector-Jacobian product of our forward op (a composition of
gathers and matrix products, so its gradient is theirs), taken for the cotangent MindSpore's
class receives; so they run in both modes and agree with the forward's gradient exactly.

Argument orders are MindSpore 2.10's:

- ``GridSampler2DGrad(interpolation_mode='bilinear', padding_mode='zeros',
  align_corners=False, output_mask=(1, 1))(grad, input_x, grid) -> (dx, dgrid)``, and
  ``GridSampler3DGrad`` (5-d); ``output_mask`` is accepted and, as MindSpore's CPU kernel
  (measured: both gradients come back whatever the mask), does not zero either gradient;
- ``ROIAlignGrad(pooled_height, pooled_width, spatial_scale, sample_num=2)(dy, rois,
  xdiff_shape) -> dx``: ``xdiff_shape`` the features' shape (a tuple), the boxes' far
  corners taken as ``ROIAlign``'s default ``roi_end_mode=1`` does;
- ``ResizeBicubicGrad(align_corners=False, half_pixel_centers=False)(grads, image) -> dx``
  (NCHW: ``grads`` ``(N, C, H_out, W_out)``, ``image`` the resized input);
- ``DeformableOffsetsGrad(strides, pads, kernel_size, dilations=(1, 1, 1, 1),
  data_format='NCHW', deformable_groups=1, modulated=True)(grad, x, offsets) -> (dx,
  doffsets)``.

A gradient is taken with :func:`~framework.autograd.grad.vjp` on the forward, so these
classes are not themselves differentiable in PyNative mode (a gradient of a gradient).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import dtype as mstype
from ..autograd.grad import vjp
from ..common.tensor import Tensor
from ._utils import argument_error, concrete_ints
from .bicubic_resize import resize_bicubic
from .deformable_conv import DeformableOffsets
from .grid_sampling import grid_sample
from .roi_align import ROIAlign


def backprop_of(fn: Callable[..., Any], args: Sequence[Any], positions: Sequence[int],
                sens: Any) -> list[Any]:
    """The gradients of ``fn(*args)`` at ``positions`` for the cotangent ``sens``."""
    _, grads, _ = vjp(fn, tuple(args), tuple(positions), (), sens=sens)
    return grads


def _same_shape(who: str, grad: Any, out: tuple[int, ...]) -> None:
    if tuple(grad.shape) != tuple(out):
        raise argument_error(who, ValueError(
            f"grad has shape {tuple(grad.shape)}, the forward's output has {tuple(out)}"))


class GridSampler2DGrad:
    """See the module docstring."""

    rank = 4

    def __init__(self, interpolation_mode: str = "bilinear", padding_mode: str = "zeros",
                 align_corners: bool = False, output_mask: Sequence[int] = (1, 1)) -> None:
        who = type(self).__name__
        if interpolation_mode not in ("bilinear", "nearest"):
            raise argument_error(who, ValueError(
                f"interpolation_mode must be 'bilinear' or 'nearest', got {interpolation_mode!r}"))
        if padding_mode not in ("zeros", "border", "reflection"):
            raise argument_error(who, ValueError(
                f"padding_mode must be 'zeros', 'border' or 'reflection', got {padding_mode!r}"))
        self.interpolation_mode, self.padding_mode = interpolation_mode, padding_mode
        self.align_corners, self.output_mask = bool(align_corners), tuple(output_mask)

    def __call__(self, grad: Any, input_x: Any, grid: Any) -> tuple[Any, Any]:
        who = type(self).__name__
        if len(input_x.shape) != self.rank or len(grid.shape) != self.rank or len(grad.shape) != self.rank:
            raise argument_error(who, ValueError(
                f"grad, input_x and grid must be {self.rank}-d, got {tuple(grad.shape)}, "
                f"{tuple(input_x.shape)}, {tuple(grid.shape)}"))
        _same_shape(who, grad, tuple(input_x.shape[:2]) + tuple(grid.shape[1:-1]))

        def forward(x: Any, g: Any) -> Any:
            return grid_sample(x, g, self.interpolation_mode, self.padding_mode, self.align_corners)

        dx, dgrid = backprop_of(forward, (input_x, grid), (0, 1), grad)
        return dx, dgrid


class GridSampler3DGrad(GridSampler2DGrad):
    """See the module docstring."""

    rank = 5


class ROIAlignGrad:
    """See the module docstring."""

    def __init__(self, pooled_height: int, pooled_width: int, spatial_scale: float,
                 sample_num: int = 2) -> None:
        self.forward = ROIAlign(pooled_height, pooled_width, spatial_scale, sample_num)
        self.pooled_height, self.pooled_width = pooled_height, pooled_width
        self.spatial_scale, self.sample_num = spatial_scale, sample_num

    def __call__(self, dy: Any, rois: Any, xdiff_shape: Any) -> Any:
        shape = tuple(int(v) for v in np.ravel(concrete_ints(xdiff_shape, "ROIAlignGrad: xdiff_shape")))
        if len(shape) != 4:
            raise argument_error("ROIAlignGrad", ValueError(
                f"xdiff_shape must be the features' (N, C, H, W), got {shape}"))
        _same_shape("ROIAlignGrad", dy, (rois.shape[0], shape[1], self.pooled_height, self.pooled_width))
        features = Tensor(np.zeros(shape, mstype.to_np(dy.dtype)))  # the VJP is linear in dy alone
        return backprop_of(lambda f: self.forward(f, rois), (features,), (0,), dy)[0]


class ResizeBicubicGrad:
    """See the module docstring."""

    def __init__(self, align_corners: bool = False, half_pixel_centers: bool = False) -> None:
        self.align_corners, self.half_pixel_centers = bool(align_corners), bool(half_pixel_centers)

    def __call__(self, grads: Any, image: Any) -> Any:
        if len(grads.shape) != 4 or len(image.shape) != 4 or tuple(grads.shape[:2]) != tuple(image.shape[:2]):
            raise argument_error("ResizeBicubicGrad", ValueError(
                f"grads and image must be NCHW with the same N and C, got {tuple(grads.shape)} and "
                f"{tuple(image.shape)}"))
        size = (int(grads.shape[2]), int(grads.shape[3]))

        def forward(x: Any) -> Any:
            return resize_bicubic(x, size, align_corners=self.align_corners,
                                  half_pixel_centers=self.half_pixel_centers)

        return backprop_of(forward, (image,), (0,), grads)[0]


class DeformableOffsetsGrad:
    """See the module docstring."""

    def __init__(self, strides: Sequence[int], pads: Sequence[int], kernel_size: Sequence[int],
                 dilations: Sequence[int] = (1, 1, 1, 1), data_format: str = "NCHW",
                 deformable_groups: int = 1, modulated: bool = True) -> None:
        self.strides, self.pads, self.kernel_size = tuple(strides), tuple(pads), tuple(kernel_size)
        self.dilations, self.data_format = tuple(dilations), data_format
        self.deformable_groups, self.modulated = deformable_groups, modulated
        self.forward = DeformableOffsets(strides, pads, kernel_size, dilations, data_format,
                                         deformable_groups, modulated)

    def __call__(self, grad: Any, x: Any, offsets: Any) -> tuple[Any, Any]:
        if len(x.shape) != 4 or len(offsets.shape) != 4:
            raise argument_error("DeformableOffsetsGrad", ValueError(
                f"x and offsets must be 4-d NCHW, got {tuple(x.shape)} and {tuple(offsets.shape)}"))
        kh, kw = self.kernel_size
        _same_shape("DeformableOffsetsGrad", grad,
                    (x.shape[0], x.shape[1], offsets.shape[2] * kh, offsets.shape[3] * kw))
        dx, doffsets = backprop_of(self.forward, (x, offsets), (0, 1), grad)
        return dx, doffsets
