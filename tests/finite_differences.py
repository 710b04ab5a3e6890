"""Central finite differences: the reference the gradient tests compare against."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def numeric_grad(f: Callable[[np.ndarray], float], x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """The gradient of the scalar ``f`` (NumPy in, number out) at ``x`` by central differences,
    one element at a time; for a complex ``x``, the real and imaginary steps are summed as
    ``df/dRe + i df/dIm`` (the conjugate-linear convention of MindSpore's and PyTorch's
    gradients of real losses)."""
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        for unit in ((1.0, 1j) if np.iscomplexobj(x) else (1.0,)):
            step = np.zeros_like(x)
            step[idx] = eps * unit
            grad[idx] += unit * (f(x + step) - f(x - step)) / (2 * eps)
    return grad
