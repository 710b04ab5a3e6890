"""Vectorized image transforms after MindSpore's ``mindspore.dataset.vision`` operations.

Every transform maps a whole batch at once: ``N x H x W`` (grayscale) or ``N x C x H x W``
arrays, spatial axes last, except :class:`HWC2CHW` which turns ``N x H x W`` into
``N x 1 x H x W`` and ``N x H x W x C`` into ``N x C x H x W``.  No transform modifies
its input.  :func:`build_transforms` builds a pipeline from plain data (YAML), e.g.::

    build_transforms([{"resize": 32}, {"rescale": ["1/255", 0]},
                      {"normalize": [0.1307, 0.3081]}, "hwc2chw", {"type_cast": "float32"}])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from .errors import TransformConfigError

Transform = Callable[[np.ndarray], np.ndarray]


def _number(value: Any, what: str) -> float:
    """A float from a number or a string such as ``"0.5"`` or ``"1/255"`` (YAML-friendly)."""
    try:
        return float(Fraction(value.replace(" ", ""))) if isinstance(value, str) else float(value)
    except (TypeError, ValueError, ZeroDivisionError) as exc:
        raise TransformConfigError(f"{what}: expected a number, got {value!r}") from exc


def _check_batch(x: np.ndarray, name: str) -> None:
    if x.ndim not in (3, 4):
        raise ValueError(f"{name}: expected an N x H x W or N x C x H x W array, got {x.shape}")


def _bilinear_taps(n_in: int, n_out: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Source indices and weights with half-pixel centres and edge clamping (OpenCV, PIL)."""
    src = (np.arange(n_out, dtype=np.float64) + 0.5) * (n_in / n_out) - 0.5
    src = np.clip(src, 0.0, n_in - 1)
    i0 = np.floor(src).astype(np.intp)
    i1 = np.minimum(i0 + 1, n_in - 1)
    return i0, i1, src - i0


def _lerp_axis(x: np.ndarray, n_out: int, axis: int, dtype: np.dtype) -> np.ndarray:
    n_in = x.shape[axis]
    if n_in == n_out:
        return x.astype(dtype, copy=False)
    i0, i1, w = _bilinear_taps(n_in, n_out)
    shape = [1] * x.ndim
    shape[axis] = n_out
    w = w.astype(dtype).reshape(shape)
    lo = np.take(x, i0, axis=axis).astype(dtype, copy=False)
    hi = np.take(x, i1, axis=axis).astype(dtype, copy=False)
    hi -= lo
    hi *= w
    hi += lo
    return hi


def bilinear_resize(x: np.ndarray, out_h: int, out_w: int, h_axis: int,
                    keep_dtype: bool = True) -> np.ndarray:
    """Bilinear resize of axes ``h_axis`` and ``h_axis + 1`` of ``x`` (the rules of :class:`Resize`:
    half-pixel centres, float32 work, integer images rounded back to their dtype)."""
    work = np.dtype(np.float64 if x.dtype == np.float64 else np.float32)
    y = _lerp_axis(_lerp_axis(x, out_h, h_axis, work), out_w, h_axis + 1, work)
    if keep_dtype and x.dtype.kind in "ui":
        info = np.iinfo(x.dtype)
        return np.clip(np.rint(y, out=y), info.min, info.max, out=y).astype(x.dtype)
    return y if y is not x else y.copy()


class Resize:
    """Bilinear resize of the last two axes (``cv2.INTER_LINEAR`` convention, no antialias).

    ``size``: ``(height, width)``, or an int for the shorter side (aspect ratio kept, as in
    MindSpore).  Integer images are rounded back to their dtype, as OpenCV and MindSpore do;
    ``keep_dtype=False`` returns float32 instead.
    """

    def __init__(
        self, size: int | Sequence[int], interpolation: str = "bilinear", keep_dtype: bool = True
    ) -> None:
        if interpolation.lower() not in ("bilinear", "linear"):
            raise TransformConfigError(
                f"resize: only bilinear interpolation is supported, got {interpolation!r}"
            )
        sizes = (size,) if isinstance(size, int | np.integer) else tuple(size)
        if len(sizes) not in (1, 2) or not all(isinstance(s, int | np.integer) for s in sizes):
            raise TransformConfigError(
                f"resize: size must be an int or [height, width], got {size!r}"
            )
        if min(sizes) < 1:
            raise TransformConfigError(f"resize: size must be positive, got {size!r}")
        self.size = tuple(int(s) for s in sizes)
        self.keep_dtype = keep_dtype

    def output_hw(self, h: int, w: int) -> tuple[int, int]:
        if len(self.size) == 2:
            return self.size[0], self.size[1]
        short = self.size[0]
        return (short, int(w * short / h)) if h <= w else (int(h * short / w), short)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        _check_batch(x, "resize")
        out_h, out_w = self.output_hw(*x.shape[-2:])
        return bilinear_resize(x, out_h, out_w, x.ndim - 2, self.keep_dtype)

    def __repr__(self) -> str:
        return f"Resize({list(self.size)})"


class Rescale:
    """``x * rescale + shift`` as float32 (MindSpore ``Rescale``)."""

    def __init__(self, rescale: float | str, shift: float | str = 0.0) -> None:
        self.rescale = _number(rescale, "rescale")
        self.shift = _number(shift, "rescale shift")

    def __call__(self, x: np.ndarray) -> np.ndarray:
        out = np.multiply(x, np.float32(self.rescale), dtype=np.float32)
        if self.shift:
            out += np.float32(self.shift)
        return out

    def __repr__(self) -> str:
        return f"Rescale({self.rescale!r}, {self.shift!r})"


def normalize(x: np.ndarray, mean: np.ndarray, std: np.ndarray, channel_axis: int | None) -> np.ndarray:
    """``(x - mean) / std`` as float32 with one (mean, std) per channel along
    ``channel_axis`` (None: the batch has no channel axis, one pair for all), computed as
    ``x * (1 / std) + (-mean / std)`` in float32: the one kernel of both pipelines' Normalize."""
    c = max(len(mean), len(std))
    channels = 1 if channel_axis is None else x.shape[channel_axis]
    if c not in (1, channels):
        raise ValueError(f"normalize: {c} means for {channels} channels")
    shape = [1] * x.ndim
    if channel_axis is not None:
        shape[channel_axis] = -1
    scale = np.broadcast_to(1.0 / std, (c,)).astype(np.float32).reshape(shape)
    shift = np.broadcast_to(-mean / std, (c,)).astype(np.float32).reshape(shape)
    out = np.multiply(x, scale, dtype=np.float32)
    out += shift
    return out


def hwc2chw(x: np.ndarray) -> np.ndarray:
    """``N x H x W x C`` -> ``N x C x H x W``; ``N x H x W`` (grayscale) -> ``N x 1 x H x W``."""
    if x.ndim == 3:
        return x[:, np.newaxis]
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


class Normalize:
    """``(x - mean) / std`` as float32, per channel (axis 1 of N x C x H x W)."""

    def __init__(self, mean: float | Sequence[float], std: float | Sequence[float]) -> None:
        def vector(v: Any, what: str) -> np.ndarray:
            items = v if isinstance(v, list | tuple | np.ndarray) else [v]
            return np.array([_number(i, what) for i in items], dtype=np.float64)

        self.mean, self.std = vector(mean, "normalize mean"), vector(std, "normalize std")
        if len(self.mean) != len(self.std) and 1 not in (len(self.mean), len(self.std)):
            raise TransformConfigError("normalize: mean and std have different lengths")
        if np.any(self.std == 0):
            raise TransformConfigError("normalize: std must be non-zero")

    def __call__(self, x: np.ndarray) -> np.ndarray:
        _check_batch(x, "normalize")
        return normalize(x, self.mean, self.std, 1 if x.ndim == 4 else None)

    def __repr__(self) -> str:
        return f"Normalize({self.mean.tolist()}, {self.std.tolist()})"


class HWC2CHW:
    """``N x H x W x C`` -> ``N x C x H x W``; ``N x H x W`` (grayscale) -> ``N x 1 x H x W``."""

    def __call__(self, x: np.ndarray) -> np.ndarray:
        _check_batch(x, "hwc2chw")
        return hwc2chw(x)

    def __repr__(self) -> str:
        return "HWC2CHW()"


class TypeCast:
    """Cast to ``dtype`` (a NumPy dtype or its name, e.g. ``"float32"``)."""

    def __init__(self, dtype: Any = np.float32) -> None:
        try:
            self.dtype = np.dtype(dtype)
        except TypeError as exc:
            raise TransformConfigError(f"type_cast: unknown dtype {dtype!r}") from exc

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return x.astype(self.dtype, copy=False)

    def __repr__(self) -> str:
        return f"TypeCast({self.dtype.name})"


class Compose:
    """Apply transforms in order.

    Transforms act on each sample independently, so a large array is processed in chunks of
    ``chunk_size`` samples written into one output array: the temporaries stay small and
    cache-resident instead of allocating (and page-faulting) several full-size arrays.
    """

    def __init__(self, transforms: Sequence[Transform], chunk_size: int = 2048) -> None:
        self.transforms = list(transforms)
        self.chunk_size = max(1, int(chunk_size))

    def _apply(self, x: np.ndarray) -> np.ndarray:
        for transform in self.transforms:
            x = transform(x)
        return x

    def __call__(self, x: np.ndarray) -> np.ndarray:
        if not self.transforms or len(x) <= self.chunk_size:
            return self._apply(x)
        step = self.chunk_size
        first = self._apply(x[:step])
        out = np.empty((len(x), *first.shape[1:]), dtype=first.dtype)
        out[:step] = first
        for start in range(step, len(x), step):
            out[start : start + step] = self._apply(x[start : start + step])
        return out

    def __repr__(self) -> str:
        return f"Compose([{', '.join(map(repr, self.transforms))}])"


TRANSFORMS: dict[str, type] = {
    "resize": Resize,
    "rescale": Rescale,
    "normalize": Normalize,
    "hwc2chw": HWC2CHW,
    "typecast": TypeCast,
}
# The MindSpore LeNet-5 tutorial pipeline (MNIST mean/std), as YAML-style data.
PRESETS: dict[str, list[Any]] = {
    "lenet": [
        {"resize": [32, 32]},
        {"rescale": [1 / 255, 0.0]},
        {"normalize": [0.1307, 0.3081]},
        "hwc2chw",
        {"type_cast": "float32"},
    ],
    "none": [],
}


def _is_transform(obj: Any) -> bool:
    return callable(obj) and not isinstance(obj, type)


def _build_one(item: Any) -> Transform:
    if _is_transform(item):
        return item
    if isinstance(item, str):
        name, args = item, None
    elif isinstance(item, dict) and ("name" in item or "type" in item):
        rest = dict(item)
        name, args = rest.pop("name", None) or rest.pop("type"), rest
    elif isinstance(item, dict) and len(item) == 1:
        ((name, args),) = item.items()
    else:
        raise TransformConfigError(
            f"bad transform entry {item!r}: use a name or a one-key mapping {{name: args}}"
        )
    key = str(name).lower().replace("_", "").replace("-", "")
    cls = TRANSFORMS.get(key)
    if cls is None:
        raise TransformConfigError(
            f"unknown transform {name!r}; known: resize, rescale, normalize, hwc2chw, type_cast"
        )
    try:
        if args is None or args is True or args == {}:
            return cls()
        if isinstance(args, dict):
            return cls(**args)
        if isinstance(args, list | tuple) and cls is not Resize:
            return cls(*args)
        return cls(args)
    except TypeError as exc:
        raise TransformConfigError(f"transform {name!r}: bad arguments {args!r} ({exc})") from exc


def build_transforms(spec: str | Sequence[Any] | Transform | None) -> Compose:
    """A :class:`Compose` from a preset name (``"lenet"``, ``"none"``), a list of entries
    (names, ``{name: args}`` mappings, ``{"name": ..., **kwargs}`` or transform objects),
    a single transform, or ``None`` (no transforms)."""
    if spec is None:
        return Compose([])
    if isinstance(spec, str):
        if spec.lower() not in PRESETS:
            raise TransformConfigError(
                f"unknown transform preset {spec!r}; known presets: {', '.join(PRESETS)}"
            )
        return build_transforms(PRESETS[spec.lower()])
    if isinstance(spec, Compose):
        return spec
    if _is_transform(spec):
        return Compose([spec])
    if not isinstance(spec, list | tuple):
        raise TransformConfigError(f"transforms must be a list or a preset name, got {spec!r}")
    return Compose([_build_one(item) for item in spec])


def lenet_transforms() -> Compose:
    """Resize 32x32 (bilinear), /255, normalize (0.1307, 0.3081), add channel, float32."""
    return build_transforms("lenet")
