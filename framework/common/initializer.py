"""Parameter initializers with MindSpore's names and formulas."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import absent_names as _absent_names
from .. import dtype as mstype
from .. import seed as _seed


def _fans(shape: tuple[int, ...]) -> tuple[int, int]:
    if len(shape) < 2:
        raise ValueError(f"fan-in/fan-out need a weight of at least 2 dims, got shape {shape}")
    receptive = int(np.prod(shape[2:], dtype=np.int64)) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _gain(nonlinearity: str, param: float | None = None) -> float:
    if nonlinearity in ("linear", "conv2d", "sigmoid"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope**2))
    raise ValueError(f"unknown nonlinearity {nonlinearity!r}")


class Initializer:
    """Base class. The built-in initializers define ``sample(shape) -> np.ndarray`` (float64,
    cast by ``initializer``); a user's may instead define MindSpore's
    ``_initialize(self, arr)``, which fills ``arr`` (a zero NumPy array of the target shape
    and dtype) in place, as the model zoo's ``KaimingUniform`` does. ``init(arr)`` fills
    ``arr`` either way, as MindSpore's ``Initializer.__call__``.
    """

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs

    def sample(self, shape: tuple[int, ...]) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} must define _initialize(self, arr) "
                                  "(fill arr in place) or sample(self, shape)")

    def _initialize(self, arr: np.ndarray) -> None:
        arr[...] = self.sample(tuple(arr.shape))

    def __call__(self, arr: np.ndarray) -> None:
        self._initialize(arr)

    def fill(self, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        """The initial values of a tensor of ``shape`` and ``dtype``."""
        if type(self)._initialize is not Initializer._initialize:  # MindSpore's protocol
            arr = np.zeros(shape, dtype)
            self._initialize(arr)
            return arr
        return np.asarray(self.sample(shape)).astype(dtype)

    def __repr__(self) -> str:
        attrs = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({attrs})"


class Zero(Initializer):
    def sample(self, shape):
        return np.zeros(shape)


class One(Initializer):
    def sample(self, shape):
        return np.ones(shape)


class Constant(Initializer):
    def __init__(self, value: float) -> None:
        self.value = value

    def sample(self, shape):
        return np.full(shape, self.value, dtype=np.float64)


class Normal(Initializer):
    def __init__(self, sigma: float = 0.01, mean: float = 0.0) -> None:
        self.sigma, self.mean = sigma, mean

    def sample(self, shape):
        return _seed.generator().normal(self.mean, self.sigma, shape)


class TruncatedNormal(Initializer):
    """``TruncatedNormal(sigma=0.01, mean=0.0, a=-2.0, b=2.0)``: Normal(mean, sigma) redrawn
    outside ``[a, b]``, bounds in the values' own units as MindSpore 2.10's (not in sigmas)."""

    def __init__(self, sigma: float = 0.01, mean: float = 0.0, a: float = -2.0, b: float = 2.0) -> None:
        if not a < b:
            raise ValueError(f"TruncatedNormal: the interval needs a < b, got a={a}, b={b}")
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def sample(self, shape):
        rng = _seed.generator()
        values = rng.normal(self.mean, self.sigma, shape)
        bad = (values < self.a) | (values > self.b)
        for _ in range(1000):
            if not bad.any():
                return values
            values[bad] = rng.normal(self.mean, self.sigma, int(bad.sum()))
            bad = (values < self.a) | (values > self.b)
        raise ValueError(f"TruncatedNormal: [{self.a}, {self.b}] holds too little of "
                         f"Normal({self.mean}, {self.sigma}) to draw from")


class Uniform(Initializer):
    def __init__(self, scale: float = 0.07) -> None:
        self.scale = scale

    def sample(self, shape):
        return _seed.generator().uniform(-self.scale, self.scale, shape)


class _Kaiming(Initializer):
    """Shared by HeUniform/HeNormal: ``scale() = gain / sqrt(fan)`` of the chosen fan."""

    def __init__(self, negative_slope: float = 0, mode: str = "fan_in",
                 nonlinearity: str = "leaky_relu") -> None:
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"{type(self).__name__}: mode must be 'fan_in' or 'fan_out', got {mode!r}")
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def scale(self, shape: tuple[int, ...]) -> float:
        fan_in, fan_out = _fans(shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        return _gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)


class HeUniform(_Kaiming):
    """Kaiming uniform: bound = gain * sqrt(3 / fan)."""

    def sample(self, shape):
        bound = self.scale(shape) * math.sqrt(3.0)
        return _seed.generator().uniform(-bound, bound, shape)


class HeNormal(_Kaiming):
    """Kaiming normal: std = gain / sqrt(fan)."""

    def sample(self, shape):
        return _seed.generator().normal(0.0, self.scale(shape), shape)


class XavierUniform(Initializer):
    """Glorot uniform: bound = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, gain: float = 1.0) -> None:
        self.gain = gain

    def sample(self, shape):
        fan_in, fan_out = _fans(shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return _seed.generator().uniform(-bound, bound, shape)


class XavierNormal(Initializer):
    def __init__(self, gain: float = 1.0) -> None:
        self.gain = gain

    def sample(self, shape):
        fan_in, fan_out = _fans(shape)
        return _seed.generator().normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape)


_BY_NAME: dict[str, type[Initializer]] = {
    "zeros": Zero, "zero": Zero, "ones": One, "one": One, "normal": Normal,
    "truncatednormal": TruncatedNormal, "truncated_normal": TruncatedNormal,
    "uniform": Uniform, "he_uniform": HeUniform, "heuniform": HeUniform,
    "he_normal": HeNormal, "henormal": HeNormal, "xavier_uniform": XavierUniform,
    "xavieruniform": XavierUniform, "xavier_normal": XavierNormal,
}


def _assignment(arr: np.ndarray, values: Any) -> np.ndarray:
    """``arr`` filled with ``values`` in place (MindSpore's helper of the same name, which
    ``_initialize`` methods of the model zoo call); returns ``arr``."""
    arr[...] = values
    return arr


# MindSpore's names of the fan and gain helpers that custom initializers use
_calculate_fan_in_and_fan_out = _fans
_calculate_gain = _gain


def _calculate_correct_fan(shape: Sequence[int], mode: str) -> int:
    """The fan of ``mode`` ('fan_in' or 'fan_out') of a weight of ``shape``."""
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")
    fan_in, fan_out = _fans(tuple(shape))
    return fan_in if mode == "fan_in" else fan_out


def _resolve(init: Any) -> Initializer:
    if isinstance(init, Initializer):
        return init
    if isinstance(init, str):
        cls = _BY_NAME.get(init.lower())
        if cls is None:
            raise ValueError(f"unknown initializer {init!r}; known: {', '.join(sorted(_BY_NAME))}")
        return cls()
    if isinstance(init, int | float) and not isinstance(init, bool):
        return Constant(init)
    raise TypeError(f"initializer must be a name, a number or an Initializer, got {init!r}")


def initializer(init: Any, shape: Sequence[int] | int | None = None,
                dtype: Any = mstype.float32) -> Any:
    """A Tensor of ``shape`` filled by ``init`` (a name, a number, an Initializer or a Tensor)."""
    from .tensor import Tensor

    np_dtype = mstype.to_np(dtype)
    if isinstance(init, Tensor | np.ndarray):
        array = np.asarray(init.asnumpy() if isinstance(init, Tensor) else init)
        if shape is not None and tuple(array.shape) != tuple(np.atleast_1d(shape)):
            raise ValueError(f"initializer: tensor of shape {array.shape} given for shape {shape}")
        return Tensor(array.astype(np_dtype))
    if shape is None:
        raise ValueError("initializer: shape is required")
    shape = (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)
    return Tensor._wrap(_resolve(init).fill(shape, np_dtype))


# the structured ones live beside, importing Initializer from here (hence at the end)
from .structured_init import Dirac, Identity, Orthogonal, Sparse, VarianceScaling  # noqa: E402

__all__ = [
    "Constant", "Dirac", "HeNormal", "HeUniform", "Identity", "Initializer", "Normal", "One", "Orthogonal",
    "Sparse", "TruncatedNormal", "Uniform", "VarianceScaling", "XavierNormal", "XavierUniform", "Zero",
    "initializer",
]

# an absent MindSpore name: one line naming it, the coverage table and the closest name
__getattr__ = _absent_names.module_getattr("common.initializer", __name__)
