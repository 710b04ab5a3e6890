"""``mindspore.dataset.vision``'s deterministic geometric operations on one ``H x W [x C]``
image: flips, ``Crop``, ``ResizedCrop``, ``PadToSize``, ``Rotate``, ``Affine``,
``Perspective``, ``Erase``, ``GaussianBlur``, ``NormalizePad``, ``SlicePatches`` and the
PIL-image crops ``FiveCrop``/``TenCrop`` (MindSpore gives them PIL images; NumPy works too)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import Enum
from typing import Any

import numpy as np

from ..ops_base import SampleOp
from .basic_ops import Border, pad_batch
from .warp import Inter, homography, resize_image, rotation_matrix, warp_affine, warp_perspective


def size_pair(size: int | Sequence[int], what: str) -> tuple[int, int]:
    sizes = (size, size) if isinstance(size, int | np.integer) else tuple(size)
    if len(sizes) != 2 or not all(isinstance(s, int | np.integer) and s > 0 for s in sizes):
        raise ValueError(f"{what}: size must be a positive int or (height, width), got {size!r}")
    return int(sizes[0]), int(sizes[1])


def image(x: Any, what: str) -> np.ndarray:
    array = np.asarray(x)
    if array.ndim not in (2, 3):
        raise RuntimeError(f"{what}: expected an H x W or H x W x C image, got shape {array.shape}")
    return array


class HorizontalFlip(SampleOp):
    """``HorizontalFlip()``: mirror left-right."""

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        return np.ascontiguousarray(image(x, "HorizontalFlip")[:, ::-1])


class VerticalFlip(SampleOp):
    """``VerticalFlip()``: mirror top-bottom."""

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        return np.ascontiguousarray(image(x, "VerticalFlip")[::-1])


class Crop(SampleOp):
    """``Crop(coordinates, size)``: the ``size`` region whose top-left is ``(top, left)``."""

    def __init__(self, coordinates: Sequence[int], size: int | Sequence[int]) -> None:
        if len(coordinates) != 2 or any(not isinstance(c, int) or c < 0 for c in coordinates):
            raise ValueError(f"Crop: coordinates must be (top, left) ints >= 0, got {coordinates!r}")
        self.top, self.left = coordinates
        self.size = size_pair(size, "Crop")

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        x = image(x, "Crop")
        h, w = self.size
        if self.top + h > x.shape[0] or self.left + w > x.shape[1]:
            raise RuntimeError(
                f"Crop: the region {(self.top, self.left, h, w)} exceeds the image {x.shape[:2]}"
            )
        return np.ascontiguousarray(x[self.top : self.top + h, self.left : self.left + w])


class ResizedCrop(SampleOp):
    """``ResizedCrop(top, left, height, width, size, interpolation=Inter.BILINEAR)``."""

    def __init__(
        self,
        top: int,
        left: int,
        height: int,
        width: int,
        size: int | Sequence[int],
        interpolation: Inter = Inter.BILINEAR,
    ) -> None:
        self.crop = Crop((top, left), (height, width))
        self.size, self.inter = size_pair(size, "ResizedCrop"), Inter(interpolation)

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        return resize_image(self.crop.sample(x), *self.size, self.inter)


class PadToSize(SampleOp):
    """``PadToSize(size, offset=None, fill_value=0, padding_mode=Border.CONSTANT)``: pad to
    ``size``; ``offset`` (top, left) puts the image (default: centred)."""

    def __init__(
        self,
        size: int | Sequence[int],
        offset: int | Sequence[int] | None = None,
        fill_value: Any = 0,
        padding_mode: Any = None,
    ) -> None:

        self.size = size_pair(size, "PadToSize")
        self.offset = (
            None if offset is None else ((offset, offset) if isinstance(offset, int) else tuple(offset))
        )
        self.fill, self.mode = (
            fill_value,
            Border(padding_mode) if padding_mode is not None else Border.CONSTANT,
        )

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:

        x = image(x, "PadToSize")
        h, w = x.shape[:2]
        if h > self.size[0] or w > self.size[1]:
            raise RuntimeError(f"PadToSize: the image {(h, w)} is larger than the size {self.size}")
        top, left = self.offset if self.offset else ((self.size[0] - h) // 2, (self.size[1] - w) // 2)
        pads = (left, top, self.size[1] - w - left, self.size[0] - h - top)
        return pad_batch(x[np.newaxis], pads, self.fill, self.mode)[0]


def _center(center: Any, x: np.ndarray) -> tuple[float, float]:
    if center is None:
        return (x.shape[1] - 1) / 2.0, (x.shape[0] - 1) / 2.0
    return float(center[0]), float(center[1])


class Rotate(SampleOp):
    """``Rotate(degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0)``:
    counter-clockwise about ``center`` ((x, y), default the image centre)."""

    def __init__(
        self,
        degrees: float,
        resample: Inter = Inter.NEAREST,
        expand: bool = False,
        center: Sequence[float] | None = None,
        fill_value: Any = 0,
    ) -> None:
        if isinstance(degrees, bool) or not isinstance(degrees, int | float):
            raise TypeError(f"Rotate: degrees must be a number, got {degrees!r}")
        self.degrees, self.inter, self.expand = float(degrees), Inter(resample), bool(expand)
        self.center, self.fill = center, fill_value

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        x = image(x, "Rotate")
        h, w = x.shape[:2]
        matrix = rotation_matrix(_center(self.center, x), self.degrees)
        size = (h, w)
        if self.expand:  # the rotated rectangle's bounding box, its size rounded
            a = np.deg2rad(self.degrees)
            bw = abs(w * np.cos(a)) + abs(h * np.sin(a))
            bh = abs(w * np.sin(a)) + abs(h * np.cos(a))
            size = (int(np.rint(bh)), int(np.rint(bw)))
            matrix[0, 2] += bw / 2.0 - w / 2.0
            matrix[1, 2] += bh / 2.0 - h / 2.0
        # MindSpore hands a fill colour to OpenCV in BGR order: (r, g, b) fills as (b, g, r)
        fill = tuple(reversed(self.fill)) if isinstance(self.fill, tuple | list) else self.fill
        return warp_affine(x, matrix, size, self.inter, fill)


def affine_matrix(
    center: tuple[float, float],
    degrees: float,
    translate: Sequence[float],
    scale: float,
    shear: Sequence[float],
) -> np.ndarray:
    """The forward affine matrix of rotation (``degrees``, clockwise on screen), ``scale``, ``shear``
    ((x, y) degrees) about ``center``, then ``translate`` (pixels)."""
    rot, sx, sy = math.radians(degrees), math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    m = np.array([[a, b], [c, d]]) * scale
    cx, cy = center
    offset = np.array([cx + translate[0], cy + translate[1]]) - m @ np.array([cx, cy])
    return np.hstack([m, offset[:, None]])


class Affine(SampleOp):
    """``Affine(degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0)``:
    clockwise ``degrees`` about the centre, ``translate`` as fractions of the width and height
    (in [-1, 1]), ``scale``, ``shear`` degrees along x (and y)."""

    def __init__(
        self,
        degrees: float,
        translate: Sequence[float],
        scale: float,
        shear: float | Sequence[float],
        resample: Inter = Inter.NEAREST,
        fill_value: Any = 0,
    ) -> None:
        if len(translate) != 2 or any(not -1.0 <= t <= 1.0 for t in translate):
            raise ValueError(f"Affine: translate must be (x, y) in [-1, 1], got {translate!r}")
        if scale <= 0:
            raise ValueError(f"Affine: scale must be > 0, got {scale!r}")
        self.degrees, self.translate, self.scale = float(degrees), tuple(translate), float(scale)
        self.shear = (float(shear), 0.0) if isinstance(shear, int | float) else tuple(float(s) for s in shear)
        self.inter, self.fill = Inter(resample), fill_value

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        x = image(x, "Affine")
        shift = (self.translate[0] * x.shape[1], self.translate[1] * x.shape[0])
        matrix = affine_matrix(_center(None, x), self.degrees, shift, self.scale, self.shear)
        return warp_affine(x, matrix, x.shape[:2], self.inter, self.fill)


class Perspective(SampleOp):
    """``Perspective(start_points, end_points, interpolation=Inter.BILINEAR)``: the warp taking
    the four ``start_points`` ((x, y)) to ``end_points``."""

    def __init__(
        self,
        start_points: Sequence[Sequence[int]],
        end_points: Sequence[Sequence[int]],
        interpolation: Inter = Inter.BILINEAR,
    ) -> None:
        self.start, self.end = np.asarray(start_points, np.float64), np.asarray(end_points, np.float64)
        if self.start.shape != (4, 2) or self.end.shape != (4, 2):
            raise ValueError("Perspective: start_points and end_points must be four (x, y) points each")
        self.inter = Inter(interpolation)

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        return warp_perspective(image(x, "Perspective"), homography(self.start, self.end), self.inter, 0)


class Erase(SampleOp):
    """``Erase(top, left, height, width, value=0, inplace=False)``: the region set to ``value``
    (a number, or one per channel)."""

    def __init__(
        self, top: int, left: int, height: int, width: int, value: Any = 0.0, inplace: bool = False
    ) -> None:
        self.box, self.value, self.inplace = (top, left, height, width), value, bool(inplace)

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        x = image(x, "Erase")
        out = x if self.inplace else x.copy()
        top, left, h, w = self.box
        out[top : top + h, left : left + w] = (
            np.asarray(self.value).astype(x.dtype) if x.dtype.kind != "f" else self.value
        )
        return out


def gaussian_kernel(size: int, sigma: float) -> np.ndarray:
    half = (size - 1) / 2.0
    k = np.exp(-((np.arange(size) - half) ** 2) / (2 * sigma * sigma))
    return k / k.sum()


def reflect_filter(x: np.ndarray, kernel: np.ndarray, axis: int) -> np.ndarray:
    """Correlate ``x`` along ``axis`` with ``kernel``, borders reflected (OpenCV's REFLECT_101)."""
    half = len(kernel) // 2
    widths = [(0, 0)] * x.ndim
    widths[axis] = (half, half)
    padded = np.pad(x, widths, mode="reflect") if x.shape[axis] > 1 else np.pad(x, widths, mode="edge")
    n = x.shape[axis]
    return sum(kernel[i] * np.take(padded, np.arange(i, i + n), axis=axis) for i in range(len(kernel)))


class GaussianBlur(SampleOp):
    """``GaussianBlur(kernel_size, sigma=None)``: odd kernel sizes (x, y); sigma defaults to
    OpenCV's ``0.3 * ((size - 1) * 0.5 - 1) + 0.8`` of the first size, for both axes."""

    def __init__(
        self, kernel_size: int | Sequence[int], sigma: float | Sequence[float] | None = None
    ) -> None:
        ks = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        if len(ks) != 2 or any(k < 1 or k % 2 == 0 for k in ks):
            raise ValueError(f"GaussianBlur: kernel_size must be positive odd ints, got {kernel_size!r}")
        if sigma is None:  # MindSpore derives both from the first size
            sig = (0.3 * ((ks[0] - 1) * 0.5 - 1) + 0.8,) * 2
        else:
            sig = (sigma, sigma) if isinstance(sigma, int | float) else tuple(sigma)
        self.ks, self.sigma = ks, tuple(float(s) for s in sig)

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        x = image(x, "GaussianBlur")
        f = reflect_filter(x.astype(np.float64), gaussian_kernel(self.ks[0], self.sigma[0]), 1)
        f = reflect_filter(f, gaussian_kernel(self.ks[1], self.sigma[1]), 0)
        if x.dtype.kind == "f":
            return f.astype(x.dtype)
        info = np.iinfo(x.dtype)
        return np.clip(np.rint(f), info.min, info.max).astype(x.dtype)


class NormalizePad(SampleOp):
    """``NormalizePad(mean, std, dtype="float32", is_hwc=True)``: ``Normalize``, then a fourth
    channel of zeros."""

    def __init__(
        self, mean: Sequence[float], std: Sequence[float], dtype: str = "float32", is_hwc: bool = True
    ) -> None:
        if dtype not in ("float32", "float16"):
            raise ValueError(f"NormalizePad: dtype must be 'float32' or 'float16', got {dtype!r}")
        self.mean, self.std = np.asarray(mean, np.float64), np.asarray(std, np.float64)
        self.dtype, self.is_hwc = np.dtype(dtype), bool(is_hwc)

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        axis = 2 if self.is_hwc else 0
        if x.ndim != 3 or x.shape[axis] != len(self.mean):
            raise RuntimeError(f"NormalizePad: expected {len(self.mean)} channels, got shape {x.shape}")
        shape = [1, 1, 1]
        shape[axis] = -1
        out = (x.astype(np.float32) - self.mean.reshape(shape).astype(np.float32)) / self.std.reshape(
            shape
        ).astype(np.float32)
        pad_shape = list(x.shape)
        pad_shape[axis] = 1
        return np.concatenate([out, np.zeros(pad_shape, np.float32)], axis=axis).astype(self.dtype)


class SliceMode(Enum):
    PAD = 0
    DROP = 1


class SlicePatches:
    """``SlicePatches(num_height=1, num_width=1, slice_mode=SliceMode.PAD, fill_value=0)``: the
    image cut into a grid of patches (a tuple of arrays, one column each)."""

    def __init__(
        self,
        num_height: int = 1,
        num_width: int = 1,
        slice_mode: SliceMode = SliceMode.PAD,
        fill_value: int = 0,
    ) -> None:
        if num_height < 1 or num_width < 1:
            raise ValueError(
                f"SlicePatches: num_height and num_width must be >= 1, got {num_height}, {num_width}"
            )
        self.nh, self.nw, self.mode, self.fill = num_height, num_width, SliceMode(slice_mode), fill_value

    def __call__(self, value: Any) -> tuple[np.ndarray, ...]:
        x = image(value, "SlicePatches")
        h, w = x.shape[:2]
        if self.mode is SliceMode.PAD:
            ph, pw = -(-h // self.nh), -(-w // self.nw)
            widths = [(0, ph * self.nh - h), (0, pw * self.nw - w)] + [(0, 0)] * (x.ndim - 2)
            x = np.pad(x, widths, constant_values=self.fill)
        else:
            ph, pw = h // self.nh, w // self.nw
        return tuple(
            np.ascontiguousarray(x[i * ph : (i + 1) * ph, j * pw : (j + 1) * pw])
            for i in range(self.nh)
            for j in range(self.nw)
        )
