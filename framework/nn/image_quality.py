"""Image-quality measures as cells: ``nn.PSNR`` and ``nn.SSIM`` (per image of two (N, C,
H, W) batches)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtype as mstype
from .. import ops
from ..ops.group_conv import GroupConv2D
from .cell import Cell
from .checks import tensor_shape


def _as_float(who: str, img1: Any, img2: Any, max_val: float) -> tuple[Any, Any, float]:
    """Both images checked (4-d, same shape and dtype) and, when integer, scaled to [0, 1] by
    their dtype's maximum (``max_val`` with them)."""
    s1, s2 = tensor_shape(who, img1), tensor_shape(who, img2)
    if len(s1) != 4 or s1 != s2 or img1.dtype != img2.dtype:
        raise ValueError(f"{who}: img1 {s1} and img2 {s2} must be 4-d of the same shape and dtype")
    if img1.dtype.is_floating:
        return img1, img2, float(max_val)
    top = float(np.iinfo(img1.dtype.np).max)
    return (ops.cast(img1, mstype.float32) / top, ops.cast(img2, mstype.float32) / top,
            float(max_val) / top)


class PSNR(Cell):
    """Peak signal-to-noise ratio per image of two (N, C, H, W) batches:
    ``10 log10(max_val^2 / mean((img1 - img2)^2))``; integer images are first scaled to
    [0, 1] by their dtype's maximum (``max_val`` with them)."""

    def __init__(self, max_val: float = 1.0) -> None:
        super().__init__()
        if isinstance(max_val, bool) or not isinstance(max_val, int | float) or max_val <= 0:
            raise ValueError(f"PSNR: max_val must be a number > 0, got {max_val!r}")
        self.max_val = max_val

    def construct(self, img1, img2):
        img1, img2, max_val = _as_float("PSNR", img1, img2, self.max_val)
        diff = img1 - img2
        mse = ops.reduce_mean(diff * diff, (-3, -2, -1))
        return ops.log(max_val * max_val / mse) * (10.0 / math.log(10.0))


def gaussian_window(size: int, sigma: float) -> np.ndarray:
    """The normalised (size, size) Gaussian on offsets ``-size // 2 + 1 .. size // 2``
    (MindSpore's grid: for an even size one more offset after the centre than before)."""
    offsets = np.arange(-size // 2 + 1, size // 2 + 1, dtype=np.float32) ** 2
    g = np.exp(-(offsets[:, None] + offsets[None, :]) / (2 * sigma ** 2))
    return (g / g.sum()).astype(np.float32)


class SSIM(Cell):
    """Structural similarity per image: per channel, local means, variances and covariance
    under a ``filter_size`` Gaussian window ('valid' positions),
    ``(2 mu1 mu2 + c1)(2 s12 + c2) / ((mu1^2 + mu2^2 + c1)(s1^2 + s2^2 + c2))`` with
    ``c = (k max_val)^2``, averaged over positions and channels."""

    def __init__(self, max_val: float = 1.0, filter_size: int = 11, filter_sigma: float = 1.5,
                 k1: float = 0.01, k2: float = 0.03) -> None:
        super().__init__()
        if isinstance(max_val, bool) or not isinstance(max_val, int | float) or max_val <= 0:
            raise ValueError(f"SSIM: max_val must be a number > 0, got {max_val!r}")
        if isinstance(filter_size, bool) or not isinstance(filter_size, int) or filter_size < 1:
            raise ValueError(f"SSIM: filter_size must be an int >= 1, got {filter_size!r}")
        if not isinstance(filter_sigma, float) or filter_sigma <= 0:
            raise ValueError(f"SSIM: filter_sigma must be a positive float, got {filter_sigma!r}")
        for name, value in (("k1", k1), ("k2", k2)):
            if not isinstance(value, float):
                raise TypeError(f"SSIM: {name} must be a float, got {value!r}")
        self.max_val, self.filter_size, self.filter_sigma = max_val, filter_size, filter_sigma
        self.k1, self.k2 = k1, k2
        self.window = gaussian_window(filter_size, filter_sigma)

    def construct(self, img1, img2):
        if img1.dtype not in (mstype.float32, mstype.float16):
            raise TypeError(f"SSIM: img1 must be float32 or float16, got {img1.dtype}")
        img1, img2, max_val = _as_float("SSIM", img1, img2, self.max_val)
        n, c, h, w = img1.shape
        if h < self.filter_size or w < self.filter_size:
            raise ValueError(f"SSIM: the image {h}x{w} is smaller than filter_size {self.filter_size}")
        from ..common.tensor import Tensor

        weight = Tensor(np.tile(self.window, (c, 1, 1, 1)).astype(img1.dtype.np))
        conv = GroupConv2D(group=c)

        def blur(x):
            return conv(x, weight)

        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        mu1, mu2 = blur(img1), blur(img2)
        mu1_sq, mu2_sq, mu12 = mu1 * mu1, mu2 * mu2, mu1 * mu2
        sigma1 = blur(img1 * img1) - mu1_sq
        sigma2 = blur(img2 * img2) - mu2_sq
        sigma12 = blur(img1 * img2) - mu12
        ssim = ((2 * mu12 + c1) * (2 * sigma12 + c2)) / ((mu1_sq + mu2_sq + c1) * (sigma1 + sigma2 + c2))
        return ops.reduce_mean(ssim, (1, 2, 3))
