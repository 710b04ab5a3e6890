"""Tensor methods with no ``ops`` function behind them (``x.view_as(y)``, ``x.new_zeros(size)``,
``x.sum_to_size(1, 3)``, ``x.H`` ...), each a function of the tensor first. Rows of
``framework/api_spec/tensor.yaml`` name them; the generated ``tensor_delegates`` installs them.

Contracts (MindSpore 2.10's documented behaviour; each is checked against MindSpore):

- every method returns a new tensor and leaves ``self`` as it was (MindSpore's CPU build
  writes ``index_add`` into ``self`` in PyNative, against its docs: not followed);
- ``allclose``, ``data_ptr``, ``get_bytes`` and ``type()`` return Python values: graph mode
  runs a function that calls them interpreted (JIT Fallback), as MindSpore does;
- ``resize`` keeps the first elements in row-major order and pads with zeros;
- ``cauchy``/``log_normal`` draw from the framework's generator (``ms.set_seed``) at each
  call in both modes, like the other random creation ops (:mod:`.random_draw`).
"""

from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._utils import argument_error
from .complex_ops import conj
from .creation import full
from .elementwise import cast, exp, maximum, minimum, sum_to
from .masking import where
from .math_checks import isclose
from .math_unary import tan
from .model_zoo_ops import identity
from .operations.prim_update import FillDiagonal, IndexPut
from .random_draw import random_draw
from .scan import cumsum
from .scatter_gather import gather
from .scatter_gather import index_add as _index_add
from .shape_ops import broadcast_to, reshape, transpose


def _shape(size: tuple) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], tuple | list):
        size = tuple(size[0])
    return tuple(int(d) for d in size)


def conj_transpose(self):
    """``x.H``: the conjugate transpose of a 2-D tensor."""
    if len(self.shape) != 2:
        raise argument_error("Tensor.H", f"needs a 2-D tensor, got shape {tuple(self.shape)}")
    out = transpose(self, (1, 0))
    return conj(out) if mstype.kind(self.dtype.np) == "c" else out


def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element is close (a Python bool)."""
    return bool(np.all(isclose(self, other, rtol, atol, equal_nan).asnumpy()))


def copy(self):
    """A new tensor with the same values."""
    return identity(self)


def data_ptr(self):
    """The address of the tensor's first element (a Python int)."""
    return int(np.ascontiguousarray(self.asnumpy()).ctypes.data)


def get_bytes(self):
    """The tensor's elements as bytes, row-major."""
    return np.ascontiguousarray(self.asnumpy()).tobytes()


def fill_diagonal(self, fill_value, wrap=False):
    return FillDiagonal(float(fill_value), wrap)(self)


def index_add(self, dim, index, source, *, alpha=1):
    """``self`` with ``alpha * source`` added at ``index`` along ``dim`` (PyTorch's order)."""
    return _index_add(self, index, source * alpha if alpha != 1 else source, dim)


def index_put(self, indices, values, accumulate=False):
    return IndexPut(int(bool(accumulate)))(self, values, indices)


def init_data(self, slice_index=None, shape=None, opt_shard_group=None):
    """The initialized tensor of ``Tensor(shape=..., init=...)`` (ours initializes at once)."""
    if getattr(self, "_built_with_init", False):
        return self
    raise TypeError("init_data must be set Tensor.init, init can't be None")


def itemset(self, *args):
    """A copy with one element set: ``itemset(flat_index, value)`` or ``itemset((i, j), value)``."""
    if len(args) != 2:
        raise argument_error("Tensor.itemset", f"takes (index, value), got {len(args)} arguments")
    where, value = args
    data = self.asnumpy().copy()
    if isinstance(where, tuple | list):
        data[tuple(where)] = value
    else:
        data.reshape(-1)[int(where)] = value
    return Tensor(data, self.dtype)


def masked_scatter(self, mask, source):
    """``self`` with the places where ``mask`` is true taken, in row-major order, from the
    first elements of ``source`` (differentiable in both)."""
    shape = tuple(self.shape)
    flags = broadcast_to(mask, shape)
    flat = reshape(source, (-1,))
    if flat.shape[0] == 0:
        raise argument_error("Tensor.masked_scatter", "source is empty")
    # the k-th true place takes source's k-th element (places past the source's end clip)
    taken = reshape(cumsum(reshape(cast(flags, mstype.int32), (-1,)), 0), shape) - 1
    index = minimum(maximum(taken, 0), flat.shape[0] - 1)
    return where(flags, gather(flat, index, 0), self)


def new_empty(self, size, dtype=None):
    return full(_shape((size,)), 0, dtype=dtype or self.dtype)


def new_ones(self, size, dtype=None):
    return full(_shape((size,)), 1, dtype=dtype or self.dtype)


def new_zeros(self, size, dtype=None):
    return full(_shape((size,)), 0, dtype=dtype or self.dtype)


def resize(self, *new_shape):
    """The first elements in row-major order, zero-padded, in ``new_shape``."""
    shape = _shape(new_shape)
    flat = self.asnumpy().reshape(-1)
    size = int(np.prod(shape, dtype=np.int64))
    out = np.zeros(size, flat.dtype)
    out[:min(size, flat.size)] = flat[:size]
    return Tensor(out.reshape(shape), self.dtype)


def set_const_arg(self, const_arg=True):
    """Marks the tensor as a constant argument of compiled functions (a flag; ``self``)."""
    self._const_arg = bool(const_arg)
    return self


def sum_to_size(self, *size):
    """The sum of ``self`` broadcast-reduced to ``size``."""
    return sum_to(self, _shape(size))


def to(self, dtype):
    return cast(self, dtype)


def type(self, dtype=None):  # noqa: A001  (MindSpore's method name)
    """The dtype's name (``'Float32'``) without ``dtype``; the cast to ``dtype`` with it."""
    return str(self.dtype) if dtype is None else cast(self, dtype)


def view_as(self, other):
    return reshape(self, tuple(other.shape))


def choose(self, choices, mode="clip"):
    """``choices[self[i]][i]`` for integer ``self`` (NumPy's ``choose``; ``mode`` 'clip' or
    'wrap' for out-of-range indices, 'raise' refuses them)."""
    if mode not in ("clip", "wrap", "raise"):
        raise argument_error("Tensor.choose", f"mode must be 'clip', 'wrap' or 'raise', got {mode!r}")
    arrays = [c.asnumpy() if hasattr(c, "asnumpy") else np.asarray(c) for c in choices]
    index = self.asnumpy()
    out = np.choose(index.astype(np.int64), arrays, mode=mode)
    return Tensor(out, arrays[0].dtype if arrays else None)


def cauchy(self, median=0.0, sigma=1.0):
    """Samples of a Cauchy distribution shaped like ``self`` (``median + sigma * tan(pi (u -
    1/2))`` of uniform draws, new at each call in both modes)."""
    u = random_draw("uniform", tuple(self.shape), np.float32)
    return cast(tan((u - 0.5) * float(np.pi)) * float(sigma) + float(median), self.dtype)


def log_normal(self, mean=1.0, std=2.0):
    """Samples of a log-normal distribution shaped like ``self`` (``exp`` of normal draws)."""
    draws = random_draw("normal", tuple(self.shape), np.float32, float(mean), float(std))
    return cast(exp(draws), self.dtype)
