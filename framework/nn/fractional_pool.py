"""``nn.FractionalMaxPool2d`` and ``nn.FractionalMaxPool3d`` (Graham, 2014): max over
windows whose starts follow a pseudo-random sequence per sample and channel, so the output
size need not divide the input's. The windows are worked out in NumPy from the samples (a
constant ``_random_samples`` or a fresh draw) and read with one gather of the flattened
input, so the gradient is the gather's."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .. import ops
from .cell import Cell
from .checks import tensor_shape


def starts(size: int, kernel: int, out: int, sample: float) -> np.ndarray:
    """The window starts along one axis for one sample in [0, 1)."""
    if out == 1:
        return np.array([size - kernel])
    # in float32, as MindSpore's kernel: the truncations below depend on it
    f = np.float32
    alpha = f(size - kernel) / f(out - 1)
    seq = [int((f(i) + f(sample)) * alpha) - int(f(sample) * alpha) for i in range(out - 1)]
    return np.array(seq + [size - kernel])


class _FractionalMaxPool(Cell):
    rank = 2
    sample_of: tuple[int, ...] = (1, 0)  # per spatial axis, which of the samples it takes

    def __init__(self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                 return_indices: bool = False, _random_samples: Any = None) -> None:
        super().__init__()
        who = type(self).__name__
        self.kernel_size = self._n(who, "kernel_size", kernel_size, int)
        if (output_size is None) == (output_ratio is None):
            raise ValueError(f"{who}: exactly one of output_size and output_ratio must be given")
        self.output_size = None if output_size is None else self._n(who, "output_size", output_size, int)
        self.output_ratio = (None if output_ratio is None
                             else self._n(who, "output_ratio", output_ratio, float))
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"{who}: output_ratio must be in (0, 1), got {output_ratio!r}")
        self.return_indices = bool(return_indices)
        self._random_samples = _random_samples

    def _n(self, who: str, name: str, value: Any, kind: type) -> tuple:
        items = (value,) * self.rank if isinstance(value, int | float) else tuple(value)
        if len(items) != self.rank:
            raise ValueError(f"{who}: {name} must be one value or {self.rank}, got {value!r}")
        return tuple(kind(v) for v in items)

    def construct(self, x):
        from ..common.tensor import Tensor

        who = type(self).__name__
        shape = tensor_shape(who, x)
        if len(shape) not in (self.rank + 1, self.rank + 2):
            raise ValueError(f"{who}: expected a {self.rank + 1}-d or {self.rank + 2}-d input, "
                             f"got {shape}")
        batched = len(shape) == self.rank + 2
        if not batched:
            x = ops.expand_dims(x, 0)
        n, c, *sizes = x.shape
        outs = self.output_size or tuple(int(s * r) for s, r in zip(sizes, self.output_ratio))
        if any(k > s or o + k - 1 > s for k, s, o in zip(self.kernel_size, sizes, outs)):
            raise ValueError(f"{who}: kernel_size {self.kernel_size} and output size {outs} do "
                             f"not fit the input {tuple(shape)}")
        if self._random_samples is None:
            samples = np.random.default_rng().random((n, c, self.rank))
        else:
            given = self._random_samples
            samples = np.asarray(given.asnumpy() if hasattr(given, "asnumpy") else given)
        index = self._indices(n, c, sizes, outs, samples)  # n, c, *outs, taps: flat into x
        taps = ops.reshape(ops.gather(ops.reshape(x, (-1,)), Tensor(index.reshape(-1)), 0),
                           index.shape)
        out = ops.ReduceMax(False)(taps, -1)
        result = out
        if self.return_indices:
            # the flat index (within its sample's plane) of the first maximal tap
            within = index - (np.arange(n * c).reshape(n, c, *([1] * (self.rank + 1)))
                              * int(np.prod(sizes)))
            first = None
            for t in reversed(range(index.shape[-1])):
                here = Tensor(np.ascontiguousarray(within[..., t]))
                first = here if first is None else ops.select(ops.equal(taps[..., t], out), here,
                                                              first)
            result = (out, first)
        if batched:
            return result
        if self.return_indices:
            return ops.squeeze(result[0], 0), ops.squeeze(result[1], 0)
        return ops.squeeze(out, 0)

    def _indices(self, n: int, c: int, sizes, outs, samples: np.ndarray) -> np.ndarray:
        taps = list(itertools.product(*(range(k) for k in self.kernel_size)))
        index = np.zeros((n, c, *outs, len(taps)), np.int64)
        plane = int(np.prod(sizes))
        for b in range(n):
            for ch in range(c):
                per_axis = [starts(sizes[a], self.kernel_size[a], outs[a],
                                   float(samples[b, ch, self.sample_of[a]])) for a in range(self.rank)]
                grids = np.meshgrid(*per_axis, indexing="ij")
                for t, offset in enumerate(taps):
                    coords = [g + o for g, o in zip(grids, offset)]
                    index[b, ch, ..., t] = (b * c + ch) * plane + np.ravel_multi_index(coords, sizes)
        return index


class FractionalMaxPool2d(_FractionalMaxPool):
    """(N, C, H, W) or (C, H, W); ``_random_samples`` (N, C, 2) in [0, 1): the width's
    sequence takes sample 0, the height's sample 1."""

    rank = 2
    sample_of = (1, 0)


class FractionalMaxPool3d(_FractionalMaxPool):
    """(N, C, D, H, W) or (C, D, H, W); ``_random_samples`` (N, C, 3) in [0, 1): depth,
    height and width take samples 0, 1 and 2."""

    rank = 3
    sample_of = (0, 1, 2)
