"""MindSpore's structured initializers: ``Identity``, ``Dirac``, ``Orthogonal``, ``Sparse``
and ``VarianceScaling`` (formulas from MindSpore's documentation; draws from the
framework's generator, ``ms.set_seed`` / ``ms.manual_seed``)."""

from __future__ import annotations

import math

import numpy as np

from .. import seed as _seed
from .initializer import Initializer, _fans


def _truncated_normal(shape: tuple[int, ...], std: float) -> np.ndarray:
    """Normal(0, s) cut at two s and redrawn, with s chosen so the result's std is ``std``
    (0.87962566... is the std of a unit normal cut at +-2)."""
    s = std / 0.87962566103423978
    rng = _seed.generator()
    values = rng.normal(0.0, s, shape)
    bad = np.abs(values) > 2 * s
    while bad.any():
        values[bad] = rng.normal(0.0, s, int(bad.sum()))
        bad = np.abs(values) > 2 * s
    return values


class Identity(Initializer):
    """The 2-D identity matrix (ones on the main diagonal of a rectangular one too)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)

    def sample(self, shape):
        if len(shape) != 2:
            raise ValueError(f"Identity initializer: the tensor must be 2-D, got shape {shape}")
        return np.eye(*shape)


class Dirac(Initializer):
    """Convolution weights (3-D to 5-D) that pass their input through: in each of ``groups``
    groups of output channels, output channel i of the group takes input channel i at the
    kernel's centre."""

    def __init__(self, groups: int = 1) -> None:
        self.groups = groups

    def sample(self, shape):
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"Dirac initializer: the tensor must be 3-D, 4-D or 5-D, got shape {shape}")
        if shape[0] % self.groups:
            raise ValueError(f"Dirac initializer: the first dimension {shape[0]} is not divisible by "
                             f"groups={self.groups}")
        out = np.zeros(shape)
        per_group = shape[0] // self.groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self.groups):
            for i in range(min(per_group, shape[1])):
                out[(g * per_group + i, i, *centre)] = 1.0
        return out


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times ``gain``, of the tensor flattened to (shape[0], rest):
    the Q of the QR decomposition of a normal matrix, its columns' signs fixed by R's diagonal."""

    def __init__(self, gain: float = 1.0) -> None:
        self.gain = gain

    def sample(self, shape):
        if len(shape) < 2:
            raise ValueError(f"Orthogonal initializer: the tensor needs at least 2 dims, got shape {shape}")
        rows, cols = shape[0], int(np.prod(shape[1:]))
        flat = _seed.generator().normal(0.0, 1.0, (rows, cols))
        if rows < cols:
            flat = flat.T
        q, r = np.linalg.qr(flat)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return (self.gain * q).reshape(shape)


class Sparse(Initializer):
    """A 2-D Normal(0, sigma) matrix with ``ceil(sparsity * rows)`` zeros in each column, at
    random rows."""

    def __init__(self, sparsity: float, sigma: float = 0.01) -> None:
        self.sparsity, self.sigma = sparsity, sigma

    def sample(self, shape):
        if len(shape) != 2:
            raise ValueError(f"Sparse initializer: the tensor must be 2-D, got shape {shape}")
        rows, cols = shape
        rng = _seed.generator()
        out = rng.normal(0.0, self.sigma, shape)
        zeros = math.ceil(self.sparsity * rows)
        for c in range(cols):
            out[rng.permutation(rows)[:zeros], c] = 0.0
        return out


class VarianceScaling(Initializer):
    """Values of std ``sqrt(scale / n)`` (n: fan_in, fan_out or their mean, by ``mode``):
    truncated normal, untruncated normal, or uniform on ``+-sqrt(3 * scale / n)``."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in",
                 distribution: str = "truncated_normal") -> None:
        if not scale > 0:
            raise ValueError(f"For VarianceScaling initializer, the argument 'scale' must be greater than 0, "
                             f"but got {scale}.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError("For VarianceScaling initializer, the argument 'mode' must be fan_in, "
                             f"fan_out or fan_avg, but got {mode}.")
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError("For VarianceScaling initializer, the argument 'distribution' must be uniform, "
                             f"truncated_normal or untruncated_normal, but got {distribution}.")
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def sample(self, shape):
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        n = max(1.0, n)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * self.scale / n)
            return _seed.generator().uniform(-limit, limit, shape)
        std = math.sqrt(self.scale / n)
        if self.distribution == "untruncated_normal":
            return _seed.generator().normal(0.0, std, shape)
        return _truncated_normal(shape, std)
