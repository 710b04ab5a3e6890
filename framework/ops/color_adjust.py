"""``P.AdjustHue()(image, delta)`` and ``P.AdjustSaturation()(image, scale)``: RGB images
(last axis of 3, float) taken to hue/saturation/value, one component changed, and back.

Per pixel, ``v = max(r, g, b)``, chroma ``c = v - min(r, g, b)``, saturation ``c / v`` (0
where ``v`` is 0) and hue in sixths of the circle from the channel holding the maximum
(``(g - b) / c`` for red, ``2 + (b - r) / c`` green, ``4 + (r - g) / c`` blue; 0 for grey).
``AdjustHue`` turns the hue by ``delta`` turns (``delta`` in ``[-1, 1]``);
``AdjustSaturation`` multiplies the saturation by ``scale`` and clips it to ``[0, 1]``.
The outputs keep the image's dtype. MindSpore defines no gradient for either.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..primitive import Primitive, Spec


def _to_hsv(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = rgb.max(-1)
    chroma = v - rgb.min(-1)
    safe = np.where(chroma > 0, chroma, 1.0)
    hue = np.where(v == r, np.mod((g - b) / safe, 6.0),
                   np.where(v == g, 2.0 + (b - r) / safe, 4.0 + (r - g) / safe))
    hue = np.where(chroma > 0, hue, 0.0)
    sat = np.where(v > 0, chroma / np.where(v > 0, v, 1.0), 0.0)
    return hue, sat, v


def _to_rgb(hue: np.ndarray, sat: np.ndarray, v: np.ndarray) -> np.ndarray:
    chroma = v * sat
    # each channel's distance (in sixths) from its own hue: 0 red, 2 green, 4 blue
    channels = []
    for centre in (0.0, 2.0, 4.0):
        dist = np.abs(np.mod(hue - centre + 3.0, 6.0) - 3.0)
        channels.append(v - chroma * np.clip(dist - 1.0, 0.0, 1.0))
    return np.stack(channels, -1)


class _ColorAdjust(Primitive, abstract=True):
    """An RGB image and a scalar: the image's shape and dtype (no gradient)."""

    differentiable = False

    def infer(self, image: Any, factor: Any) -> Spec:
        name = self.name
        if len(image.shape) < 3 or image.shape[-1] != 3 or np.dtype(image.dtype).kind != "f":
            raise TypeError(f"{name}: image must be a float tensor of RGB pixels (..., H, W, 3), got "
                            f"{np.dtype(image.dtype)} of shape {tuple(image.shape)}")
        if tuple(factor.shape) not in ((), (1,)) or np.dtype(factor.dtype).kind != "f":
            raise TypeError(f"{name}: the factor must be a float scalar, got {np.dtype(factor.dtype)} "
                            f"of shape {tuple(factor.shape)}")
        return Spec(tuple(image.shape), np.dtype(image.dtype))


class AdjustHue(_ColorAdjust):
    """``P.AdjustHue()(image, delta)``: see the module docstring."""

    def kernel(self, image: np.ndarray, delta: np.ndarray) -> np.ndarray:
        hue, sat, v = _to_hsv(image.astype(np.float64))
        hue = np.mod(hue + 6.0 * float(np.reshape(delta, ())), 6.0)
        return _to_rgb(hue, sat, v).astype(image.dtype)


class AdjustSaturation(_ColorAdjust):
    """``P.AdjustSaturation()(image, scale)``: see the module docstring."""

    def kernel(self, image: np.ndarray, scale: np.ndarray) -> np.ndarray:
        hue, sat, v = _to_hsv(image.astype(np.float64))
        sat = np.clip(sat * float(np.reshape(scale, ())), 0.0, 1.0)
        return _to_rgb(hue, sat, v).astype(image.dtype)
