"""``mindspore.dataset.vision``'s learned and random augmentation policies: ``AutoAugment``
(the ImageNet, CIFAR-10 and SVHN policies of Cubuk et al., "AutoAugment", CVPR 2019,
Appendix), ``RandAugment`` (Cubuk et al. 2020), ``TrivialAugmentWide`` (Müller and Hutter
2021), ``UniformAugment`` and ``RandomSelectSubpolicy``. Each works on ``H x W x 3`` uint8
images and draws from the pipeline's generator."""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import Enum
from typing import Any

import numpy as np

from ..ops_base import DataOp, SampleOp
from . import color
from .geometry import Affine, Rotate
from .warp import Inter


class AutoAugmentPolicy(Enum):
    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


def _policy(text: str) -> list[list[tuple[str, float, int | None]]]:
    """Sub-policies written ``Op prob magnitude; Op prob magnitude`` one per line."""
    out = []
    for line in text.strip().splitlines():
        sub = []
        for part in line.split(";"):
            name, prob, *mag = part.split()
            sub.append((name, float(prob), int(mag[0]) if mag else None))
        out.append(sub)
    return out


_POLICIES = {
    AutoAugmentPolicy.IMAGENET: _policy("""
Posterize 0.4 8; Rotate 0.6 9
Solarize 0.6 5; AutoContrast 0.6
Equalize 0.8; Equalize 0.6
Posterize 0.6 7; Posterize 0.6 6
Equalize 0.4; Solarize 0.2 4
Equalize 0.4; Rotate 0.8 8
Solarize 0.6 3; Equalize 0.6
Posterize 0.8 5; Equalize 1.0
Rotate 0.2 3; Solarize 0.6 8
Equalize 0.6; Posterize 0.4 6
Rotate 0.8 8; Color 0.4 0
Rotate 0.4 9; Equalize 0.6
Equalize 0.0; Equalize 0.8
Invert 0.6; Equalize 1.0
Color 0.6 4; Contrast 1.0 8
Rotate 0.8 8; Color 1.0 2
Color 0.8 8; Solarize 0.8 7
Sharpness 0.4 7; Invert 0.6
ShearX 0.6 5; Equalize 1.0
Color 0.4 0; Equalize 0.6
Equalize 0.4; Solarize 0.2 4
Solarize 0.6 5; AutoContrast 0.6
Invert 0.6; Equalize 1.0
Color 0.6 4; Contrast 1.0 8
Equalize 0.8; Equalize 0.6"""),
    AutoAugmentPolicy.CIFAR10: _policy("""
Invert 0.1; Contrast 0.2 6
Rotate 0.7 2; TranslateX 0.3 9
Sharpness 0.8 1; Sharpness 0.9 3
ShearY 0.5 8; TranslateY 0.7 9
AutoContrast 0.5; Equalize 0.9
ShearY 0.2 7; Posterize 0.3 7
Color 0.4 3; Brightness 0.6 7
Sharpness 0.3 9; Brightness 0.7 9
Equalize 0.6; Equalize 0.5
Contrast 0.6 7; Sharpness 0.6 5
Color 0.7 7; TranslateX 0.5 8
Equalize 0.3; AutoContrast 0.4
TranslateY 0.4 3; Sharpness 0.2 6
Brightness 0.9 6; Color 0.2 8
Solarize 0.5 2; Invert 0.0
Equalize 0.2; AutoContrast 0.6
Equalize 0.2; Equalize 0.6
Color 0.9 9; Equalize 0.6
AutoContrast 0.8; Solarize 0.2 8
Brightness 0.1 3; Color 0.7 0
Solarize 0.4 5; AutoContrast 0.9
TranslateY 0.9 9; TranslateY 0.7 9
AutoContrast 0.9; Solarize 0.8 3
Equalize 0.8; Invert 0.1
TranslateY 0.7 9; AutoContrast 0.9"""),
    AutoAugmentPolicy.SVHN: _policy("""
ShearX 0.9 4; Invert 0.2
ShearY 0.9 8; Invert 0.7
Equalize 0.6; Solarize 0.6 6
Invert 0.9; Equalize 0.6
Equalize 0.6; Rotate 0.9 3
ShearX 0.9 4; AutoContrast 0.8
ShearY 0.9 8; Invert 0.4
ShearY 0.9 5; Solarize 0.2 6
Invert 0.9; AutoContrast 0.8
Equalize 0.6; Rotate 0.9 3
ShearX 0.9 4; Solarize 0.3 3
ShearY 0.8 8; Invert 0.7
Equalize 0.9; TranslateY 0.6 6
Invert 0.9; Equalize 0.6
Contrast 0.3 3; Rotate 0.8 4
Invert 0.8; TranslateY 0.0 2
ShearY 0.7 6; Solarize 0.4 8
Invert 0.6; Rotate 0.8 4
ShearY 0.3 7; TranslateX 0.9 3
ShearX 0.1 6; Invert 0.6
Solarize 0.7 2; TranslateY 0.6 7
ShearY 0.8 4; Invert 0.8
ShearX 0.7 9; TranslateY 0.8 3
ShearY 0.8 5; AutoContrast 0.7
ShearX 0.7 2; Invert 0.1"""),
}

_SIGNED = {
    "ShearX",
    "ShearY",
    "TranslateX",
    "TranslateY",
    "Rotate",
    "Brightness",
    "Color",
    "Contrast",
    "Sharpness",
}


def magnitudes(bins: int, size: tuple[int, int], wide: bool) -> dict[str, np.ndarray]:
    """Each operation's magnitude per bin (``wide``: TrivialAugment's wider ranges)."""
    h, w = size
    posterize_step = (bins - 1) / (6 if wide else 4) if bins > 1 else 1
    return {
        "Identity": np.zeros(bins),
        "AutoContrast": np.zeros(bins),
        "Equalize": np.zeros(bins),
        "Invert": np.zeros(bins),
        "ShearX": np.linspace(0.0, 0.99 if wide else 0.3, bins),
        "ShearY": np.linspace(0.0, 0.99 if wide else 0.3, bins),
        "TranslateX": np.linspace(0.0, 32.0 if wide else 150.0 / 331.0 * w, bins),
        "TranslateY": np.linspace(0.0, 32.0 if wide else 150.0 / 331.0 * h, bins),
        "Rotate": np.linspace(0.0, 135.0 if wide else 30.0, bins),
        **{
            k: np.linspace(0.0, 0.99 if wide else 0.9, bins)
            for k in ("Brightness", "Color", "Contrast", "Sharpness")
        },
        "Posterize": 8 - np.round(np.arange(bins) / posterize_step).astype(int),
        "Solarize": np.linspace(255.0, 0.0, bins),
    }


def apply_op(x: np.ndarray, name: str, magnitude: float, inter: Inter, fill: Any) -> np.ndarray:
    """One named augmentation of ``x`` with ``magnitude`` (already signed)."""
    if name == "ShearX":
        return Affine(0.0, [0, 0], 1.0, [math.degrees(math.atan(magnitude)), 0.0], inter, fill).sample(x)
    if name == "ShearY":
        return Affine(0.0, [0, 0], 1.0, [0.0, math.degrees(math.atan(magnitude))], inter, fill).sample(x)
    if name == "TranslateX":
        shift = max(-1.0, min(1.0, int(magnitude) / x.shape[1]))
        return Affine(0.0, [shift, 0.0], 1.0, [0.0, 0.0], inter, fill).sample(x)
    if name == "TranslateY":
        shift = max(-1.0, min(1.0, int(magnitude) / x.shape[0]))
        return Affine(0.0, [0.0, shift], 1.0, [0.0, 0.0], inter, fill).sample(x)
    if name == "Rotate":
        return Rotate(magnitude, inter, False, None, fill).sample(x)
    factor = {
        "Brightness": color.AdjustBrightness,
        "Color": color.AdjustSaturation,
        "Contrast": color.AdjustContrast,
        "Sharpness": color.AdjustSharpness,
    }
    if name in factor:
        return factor[name](max(0.0, 1.0 + magnitude)).sample(x)
    if name == "Posterize":
        return color.Posterize(int(magnitude)).sample(x)
    if name == "Solarize":
        return color.Solarize(float(magnitude)).sample(x)
    simple = {"AutoContrast": color.AutoContrast, "Equalize": color.Equalize, "Invert": color.Invert}
    return simple[name]().sample(x) if name in simple else x.copy()


def _signed(name: str, value: float, rng: Any) -> float:
    return -value if name in _SIGNED and rng.random() < 0.5 else value


def _rgb(x: np.ndarray, what: str) -> np.ndarray:
    if x.ndim != 3 or x.shape[2] != 3 or x.dtype != np.uint8:
        raise RuntimeError(f"{what}: expected an H x W x 3 uint8 image, got {x.dtype} {x.shape}")
    return x


class AutoAugment(SampleOp):
    """``AutoAugment(policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST, fill_value=0)``:
    one sub-policy drawn uniformly, each of its two operations applied with its probability."""

    random = True

    def __init__(
        self,
        policy: AutoAugmentPolicy = AutoAugmentPolicy.IMAGENET,
        interpolation: Inter = Inter.NEAREST,
        fill_value: Any = 0,
    ) -> None:
        self.policy, self.inter, self.fill = AutoAugmentPolicy(policy), Inter(interpolation), fill_value

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        x = _rgb(x, "AutoAugment")
        table = magnitudes(10, x.shape[:2], wide=False)
        subs = _POLICIES[self.policy]
        for name, prob, level in subs[int(rng.integers(len(subs)))]:
            if rng.random() <= prob:
                value = float(table[name][level]) if level is not None else 0.0
                x = apply_op(x, name, _signed(name, value, rng), self.inter, self.fill)
        return x


_RAND_OPS = (
    "Identity",
    "ShearX",
    "ShearY",
    "TranslateX",
    "TranslateY",
    "Rotate",
    "Brightness",
    "Color",
    "Contrast",
    "Sharpness",
    "Posterize",
    "Solarize",
    "AutoContrast",
    "Equalize",
)


class RandAugment(SampleOp):
    """``RandAugment(num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=Inter.NEAREST,
    fill_value=0)``: ``num_ops`` operations drawn uniformly, each at bin ``magnitude``."""

    random = True

    def __init__(
        self,
        num_ops: int = 2,
        magnitude: int = 9,
        num_magnitude_bins: int = 31,
        interpolation: Inter = Inter.NEAREST,
        fill_value: Any = 0,
    ) -> None:
        if num_ops < 0 or num_magnitude_bins < 2 or not 0 <= magnitude < num_magnitude_bins:
            raise ValueError(
                f"RandAugment: need num_ops >= 0, num_magnitude_bins >= 2 and 0 <= magnitude < "
                f"num_magnitude_bins, got {num_ops}, {magnitude}, {num_magnitude_bins}"
            )
        self.num_ops, self.magnitude, self.bins = num_ops, magnitude, num_magnitude_bins
        self.inter, self.fill = Inter(interpolation), fill_value

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        x = _rgb(x, "RandAugment")
        table = magnitudes(self.bins, x.shape[:2], wide=False)
        for _ in range(self.num_ops):
            name = _RAND_OPS[int(rng.integers(len(_RAND_OPS)))]
            x = apply_op(
                x, name, _signed(name, float(table[name][self.magnitude]), rng), self.inter, self.fill
            )
        return x


class TrivialAugmentWide(SampleOp):
    """``TrivialAugmentWide(num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0)``:
    one operation and one magnitude bin, both drawn uniformly (TrivialAugment's wide ranges)."""

    random = True

    def __init__(
        self, num_magnitude_bins: int = 31, interpolation: Inter = Inter.NEAREST, fill_value: Any = 0
    ) -> None:
        if num_magnitude_bins < 2:
            raise ValueError(f"TrivialAugmentWide: num_magnitude_bins must be >= 2, got {num_magnitude_bins}")
        self.bins, self.inter, self.fill = num_magnitude_bins, Inter(interpolation), fill_value

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        x = _rgb(x, "TrivialAugmentWide")
        table = magnitudes(self.bins, x.shape[:2], wide=True)
        name = _RAND_OPS[int(rng.integers(len(_RAND_OPS)))]
        value = float(table[name][int(rng.integers(self.bins))])
        return apply_op(x, name, _signed(name, value, rng), self.inter, self.fill)


def _run(op: Any, x: np.ndarray, rng: Any) -> np.ndarray:
    if isinstance(op, DataOp):
        return op.apply_batch(x[np.newaxis], rng)[0]
    return np.asarray(op(x))


class UniformAugment(SampleOp):
    """``UniformAugment(transforms, num_ops=2)``: ``num_ops`` distinct operations drawn
    uniformly from ``transforms``, each then applied with probability 1/2."""

    random = True

    def __init__(self, transforms: Sequence[Any], num_ops: int = 2) -> None:
        self.transforms = list(transforms)
        if not self.transforms or not all(callable(t) for t in self.transforms):
            raise TypeError("UniformAugment: transforms must be a non-empty list of operations")
        if (
            isinstance(num_ops, bool)
            or not isinstance(num_ops, int)
            or not 1 <= num_ops <= len(self.transforms)
        ):
            raise ValueError(
                f"UniformAugment: num_ops must be in [1, {len(self.transforms)}], got {num_ops!r}"
            )
        self.num_ops = num_ops

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        for i in rng.choice(len(self.transforms), self.num_ops, replace=False):
            if rng.random() < 0.5:
                x = _run(self.transforms[int(i)], x, rng)
        return x


class RandomSelectSubpolicy(SampleOp):
    """``RandomSelectSubpolicy(policy)``: one sub-policy (a list of ``(operation, prob)``) drawn
    uniformly, each operation applied with its probability."""

    random = True

    def __init__(self, policy: Sequence[Sequence[tuple[Any, float]]]) -> None:
        if not policy or not all(
            sub and all(len(p) == 2 and callable(p[0]) and 0 <= p[1] <= 1 for p in sub) for sub in policy
        ):
            raise ValueError(
                "RandomSelectSubpolicy: policy must be a non-empty list of non-empty lists of "
                "(operation, prob in [0, 1])"
            )
        self.policy = [list(sub) for sub in policy]

    def sample(self, x: np.ndarray, rng: Any) -> np.ndarray:
        for op, prob in self.policy[int(rng.integers(len(self.policy)))]:
            if rng.random() < prob:
                x = _run(op, x, rng)
        return x
