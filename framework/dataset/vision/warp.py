"""Resampling one image (``H x W [x C]``): resize with each :class:`Inter` mode, and warps
by an affine matrix or a homography as OpenCV computes them (MindSpore calls OpenCV):
inverse mapping in fixed point, pixel centres at integer coordinates, pixels outside
filled with a constant."""

from __future__ import annotations

from enum import Enum
from typing import Any

import numpy as np
from PIL import Image

from datasets.transforms import bilinear_resize


class Inter(Enum):
    """Interpolation modes (``LINEAR`` is ``BILINEAR``, MindSpore 1.x's name)."""

    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = 2
    LINEAR = 2
    BICUBIC = 3
    AREA = 4
    PILCUBIC = 5


_PIL = {
    Inter.PILCUBIC: Image.Resampling.BICUBIC,
    Inter.AREA: Image.Resampling.BOX,
    Inter.ANTIALIAS: Image.Resampling.LANCZOS,
}


def _cubic_axis(x: np.ndarray, size: int, axis: int) -> np.ndarray:
    """OpenCV's bicubic (A = -0.75, half-pixel centres, edges replicated) along ``axis``."""
    n = x.shape[axis]
    src = (np.arange(size) + 0.5) * (n / size) - 0.5
    base = np.floor(src).astype(int)
    t = src - base
    a = -0.75
    weights = [
        ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
        ((a + 2) * t - (a + 3)) * t * t + 1,
        ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
    ]
    weights.append(1.0 - weights[0] - weights[1] - weights[2])
    out = 0.0
    for k, w in zip(range(-1, 3), weights, strict=True):
        shape = [1] * x.ndim
        shape[axis] = size
        out = out + np.take(x, np.clip(base + k, 0, n - 1), axis=axis) * w.reshape(shape)
    return out


def resize_image(x: np.ndarray, height: int, width: int, inter: Inter) -> np.ndarray:
    """``x`` resized to ``height x width``: bilinear, bicubic and nearest as OpenCV computes
    them (up to its fixed-point rounding), the others through Pillow (per channel)."""
    if inter is Inter.BILINEAR:
        return bilinear_resize(x[np.newaxis], height, width, 1)[0]
    h, w = x.shape[:2]
    if inter is Inter.BICUBIC:
        out = _cubic_axis(_cubic_axis(x.astype(np.float64), height, 0), width, 1)
        if x.dtype.kind == "f":
            return out.astype(x.dtype)
        info = np.iinfo(x.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(x.dtype)
    if inter is Inter.NEAREST:
        rows = np.minimum((np.arange(height) * (h / height)).astype(int), h - 1)
        cols = np.minimum((np.arange(width) * (w / width)).astype(int), w - 1)
        return np.ascontiguousarray(x[rows][:, cols])
    channels = x.reshape(h, w, -1)
    out = []
    for k in range(channels.shape[2]):
        plane = channels[..., k]
        image = Image.fromarray(plane if plane.dtype == np.uint8 else plane.astype(np.float32))
        out.append(np.asarray(image.resize((width, height), _PIL[inter])).astype(x.dtype))
    result = np.stack(out, axis=-1)
    return result.reshape(height, width, *x.shape[2:])


def _gather(x: np.ndarray, xi: np.ndarray, yi: np.ndarray, fill: np.ndarray) -> np.ndarray:
    """``x[yi, xi]`` as float64, ``fill`` where outside."""
    h, w = x.shape[:2]
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    out = np.empty(xi.shape + x.shape[2:], dtype=np.float64)
    out[...] = fill
    out[inside] = x[yi[inside], xi[inside]]
    return out


def _remap(x: np.ndarray, fx: np.ndarray, fy: np.ndarray, inter: Inter, fill: Any) -> np.ndarray:
    """``x`` read at fixed-point source coordinates, as OpenCV's ``remap`` does: nearest takes
    integer ``fx, fy``; bilinear takes them in 1/32 pixel (``INTER_BITS = 5``) and, for
    integer images, weights in 1/32768 with the sum rounded."""
    extra = x.shape[2:]
    fill_value = (
        np.broadcast_to(np.asarray(fill, dtype=np.float64), extra)
        if extra
        else float(np.asarray(fill).reshape(-1)[0])
    )
    if inter is Inter.NEAREST:
        out = _gather(x, fx, fy, fill_value)
    else:
        x0, y0, ax, ay = fx >> 5, fy >> 5, fx & 31, fy & 31
        shape = ax.shape + (1,) * len(extra)
        total = np.zeros(ax.shape + extra, dtype=np.float64)
        for dy, dx, wgt in (
            (0, 0, (32 - ax) * (32 - ay)),
            (0, 1, ax * (32 - ay)),
            (1, 0, (32 - ax) * ay),
            (1, 1, ax * ay),
        ):
            total += (wgt * 32).reshape(shape) * _gather(x, x0 + dx, y0 + dy, fill_value)
        if x.dtype.kind == "f":
            return (total / 32768.0).astype(x.dtype)
        out = np.floor((total + 16384) / 32768)
    if x.dtype.kind == "f":
        return out.astype(x.dtype)
    info = np.iinfo(x.dtype)
    return np.clip(np.rint(out), info.min, info.max).astype(x.dtype)


def warp_affine(
    x: np.ndarray, matrix: np.ndarray, size: tuple[int, int], inter: Inter, fill: Any
) -> np.ndarray:
    """``x`` moved by the forward 2 x 3 ``matrix`` (output ``(height, width)``), OpenCV's
    ``warpAffine``: the inverse map's coordinates in fixed point (1/1024 pixel)."""
    m = np.linalg.inv(np.vstack([matrix, [0.0, 0.0, 1.0]]))
    xs, ys = np.arange(size[1], dtype=np.float64), np.arange(size[0], dtype=np.float64)
    nearest = inter is Inter.NEAREST
    delta = 512 if nearest else 16
    ax, bx = np.rint(m[0, 0] * xs * 1024).astype(np.int64), np.rint(m[1, 0] * xs * 1024).astype(np.int64)
    x0 = np.rint((m[0, 1] * ys + m[0, 2]) * 1024).astype(np.int64) + delta
    y0 = np.rint((m[1, 1] * ys + m[1, 2]) * 1024).astype(np.int64) + delta
    shift = 10 if nearest else 5
    fx = (x0[:, None] + ax[None, :]) >> shift
    fy = (y0[:, None] + bx[None, :]) >> shift
    return _remap(x, fx, fy, inter, fill)


def warp_perspective(x: np.ndarray, homography: np.ndarray, inter: Inter, fill: Any) -> np.ndarray:
    """``x`` moved by the forward 3 x 3 ``homography`` (same size), OpenCV's ``warpPerspective``."""
    m = np.linalg.inv(homography)
    ys, xs = np.mgrid[0 : x.shape[0], 0 : x.shape[1]].astype(np.float64)
    den = m[2, 0] * xs + m[2, 1] * ys + m[2, 2]
    scale = 1.0 if inter is Inter.NEAREST else 32.0
    with np.errstate(divide="ignore"):
        w = np.where(den != 0, scale / np.where(den != 0, den, 1), 0.0)
    fx = np.rint(np.clip((m[0, 0] * xs + m[0, 1] * ys + m[0, 2]) * w, -(2**31), 2**31 - 1)).astype(np.int64)
    fy = np.rint(np.clip((m[1, 0] * xs + m[1, 1] * ys + m[1, 2]) * w, -(2**31), 2**31 - 1)).astype(np.int64)
    return _remap(x, fx, fy, inter, fill)


def homography(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The 3 x 3 matrix mapping the four ``start`` points onto the four ``end`` points."""
    rows, rhs = [], []
    for (sx, sy), (ex, ey) in zip(start, end, strict=True):
        rows += [[sx, sy, 1, 0, 0, 0, -ex * sx, -ex * sy], [0, 0, 0, sx, sy, 1, -ey * sx, -ey * sy]]
        rhs += [ex, ey]
    h = np.linalg.solve(np.array(rows, np.float64), np.array(rhs, np.float64))
    return np.append(h, 1.0).reshape(3, 3)


def rotation_matrix(center: tuple[float, float], degrees: float, scale: float = 1.0) -> np.ndarray:
    """OpenCV's ``getRotationMatrix2D``: counter-clockwise ``degrees`` about ``center``."""
    a = np.deg2rad(degrees)
    alpha, beta = scale * np.cos(a), scale * np.sin(a)
    cx, cy = center
    return np.array(
        [[alpha, beta, (1 - alpha) * cx - beta * cy], [-beta, alpha, beta * cx + (1 - alpha) * cy]]
    )
