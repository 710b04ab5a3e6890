"""MindSpore's random ops as draws from the framework's generator (:mod:`.random_draw`):
``standard_normal``, ``normal``, ``uniform``, ``rand``, ``randn``, ``randn_like``,
``randperm``, ``standard_laplace``, ``laplace``, ``bernoulli``, ``random_categorical``,
``multinomial_with_replacement``, ``shuffle``, ``gumbel_softmax``, ``rrelu``.

Contracts (MindSpore 2.10's shapes, dtypes and distributions; its numbers cannot be
matched, its generator being its own):

- Every draw is host-drawn (graph mode takes it from the host at each run), so a compiled
  function gives new numbers at each call and, after ``ms.set_seed``, PyNative and graph
  mode give the same numbers. A ``seed`` argument other than None/0 draws from a generator
  of that seed (the same sequence in every process).
- ``normal(shape, mean, stddev)``/``laplace(shape, mean, lambda_param)``: the shape is
  ``shape`` broadcast with the parameters' (``laplace``: Tensors, as MindSpore requires);
  ``uniform(shape, minval, maxval, dtype)``: Tensor bounds, ``[minval, maxval)``, an integer
  ``dtype`` draws integers; ``rand``/``randn``: float dtypes, ``randn`` a float ``dtype`` only.
- ``randperm(n, seed, offset, dtype)``: a permutation of ``range(n)`` in ``dtype``.
- ``bernoulli(input, p)``: 1 with probability ``p`` (a number or a Tensor of one element or
  of ``input``'s shape), ``input``'s shape and dtype; zero gradient.
- ``random_categorical(logits, num_sample)``: indices drawn from ``softmax(logits)`` per row
  (Gumbel-max); ``multinomial_with_replacement(x, seed, offset, numsamples, replacement)``:
  from the row weights ``x`` (int64).
- ``shuffle(x)``: ``x`` with its first axis randomly permuted.
- ``gumbel_softmax(logits, tau, hard, dim)``: ``softmax((logits + g) / tau)`` with Gumbel
  noise ``g``; ``hard``: the one-hot of its argmax with the soft result's gradient.
- ``rrelu(input, lower, upper)``: negative inputs times a slope drawn from
  ``U(lower, upper)`` per element (the gradient is that slope), others unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from . import shape_ops as shape_ops
from ._utils import argument_error
from .elementwise import abs as abs_
from .elementwise import cast, greater_equal, less, log, mul, neg, select, sub
from .math_unary import floor, sign
from .nn_ops import one_hot, softmax
from .random_draw import random_draw
from .reduce import argmax
from .scatter_gather import gather
from .shape_ops import expand_dims, stop_gradient
from .sorting import multinomial


def _seed(seed: Any) -> int | None:
    if seed is None:
        return None
    value = int(seed.asnumpy()) if hasattr(seed, "asnumpy") else int(seed)
    return value or None


def _shape(op: str, shape: Any) -> tuple[int, ...]:
    if isinstance(shape, int | np.integer):
        shape = (int(shape),)
    if not isinstance(shape, tuple | list) or \
            any(not isinstance(n, int | np.integer) or n < 0 for n in shape):
        raise argument_error(op, TypeError(f"shape must be a tuple of non-negative ints, got {shape!r}"))
    return tuple(int(n) for n in shape)


def _param_shape(value: Any) -> tuple[int, ...]:
    return tuple(value.shape) if hasattr(value, "shape") else ()


def _float_param(value: Any, dtype: Any) -> Any:
    return cast(value, dtype) if hasattr(value, "shape") else float(value)


def standard_normal(shape, seed=None):
    return random_draw("normal", _shape("standard_normal", shape), np.float32, 0.0, 1.0, _seed(seed))


def _standard_laplace(shape: tuple[int, ...], dtype: Any, seed: int | None) -> Any:
    """Inverse CDF: ``-sign(u) log(1 - 2|u|)`` for ``u`` uniform on ``[-1/2, 1/2)``."""
    u = sub(random_draw("uniform", shape, np.float64, seed=seed), 0.5)
    out = neg(mul(sign(u), log(sub(1.0, mul(abs_(u), 2.0)))))
    return cast(out, dtype)


def standard_laplace(shape, seed=None):
    return _standard_laplace(_shape("standard_laplace", shape), np.float32, _seed(seed))


def normal(shape, mean, stddev, seed=None):
    shape = tuple(np.broadcast_shapes(_shape("normal", shape), _param_shape(mean), _param_shape(stddev)))
    noise = random_draw("normal", shape, np.float32, 0.0, 1.0, _seed(seed))
    return noise * _float_param(stddev, mstype.float32) + _float_param(mean, mstype.float32)


def laplace(shape, mean, lambda_param, seed=None):
    for name, value in (("mean", mean), ("lambda_param", lambda_param)):
        if not hasattr(value, "shape"):
            raise argument_error("laplace", TypeError(f"{name} must be a Tensor, got {type(value).__name__}"))
    shape = tuple(np.broadcast_shapes(_shape("laplace", shape), _param_shape(mean),
                                      _param_shape(lambda_param)))
    noise = _standard_laplace(shape, np.float32, _seed(seed))
    return noise * _float_param(lambda_param, mstype.float32) + _float_param(mean, mstype.float32)


def uniform(shape, minval, maxval, seed=None, dtype=mstype.float32):
    for name, value in (("minval", minval), ("maxval", maxval)):
        if not hasattr(value, "shape"):
            raise argument_error("uniform", TypeError(f"{name} must be a Tensor, got {type(value).__name__}"))
    np_dtype = mstype.to_np(dtype)
    shape = tuple(np.broadcast_shapes(_shape("uniform", shape), _param_shape(minval), _param_shape(maxval)))
    u = random_draw("uniform", shape, np.float64, seed=_seed(seed))
    lo, hi = cast(minval, mstype.float64), cast(maxval, mstype.float64)
    values = u * (hi - lo) + lo
    if np_dtype.kind in "iu":
        return cast(floor(values), dtype)
    if not mstype.is_float(np_dtype):
        raise argument_error("uniform", TypeError(f"dtype must be a float or integer dtype, got {dtype}"))
    return cast(values, dtype)


def _sizes(op: str, size: tuple) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], tuple | list):
        size = tuple(size[0])
    return _shape(op, tuple(size))


def _float_dtype(op: str, dtype: Any, default: Any) -> np.dtype:
    np_dtype = mstype.to_np(default if dtype is None else dtype)
    if not mstype.is_float(np_dtype):
        raise argument_error(op, ValueError(f"dtype must be a float type, got {dtype}"))
    return np_dtype


def rand(*size, dtype=None, seed=None):
    return random_draw("uniform", _sizes("rand", size), _float_dtype("rand", dtype, mstype.float32),
                       seed=_seed(seed))


def randn(*size, dtype=None, seed=None):
    return random_draw("normal", _sizes("randn", size), _float_dtype("randn", dtype, mstype.float32),
                       0.0, 1.0, _seed(seed))


def randn_like(input, seed=None, *, dtype=None):  # noqa: A002
    return random_draw("normal", tuple(input.shape), _float_dtype("randn_like", dtype, input.dtype),
                       0.0, 1.0, _seed(seed))


def randperm(n, seed=0, offset=0, dtype=mstype.int64):
    count = int(n.asnumpy()) if hasattr(n, "asnumpy") else n
    if not isinstance(count, int | np.integer) or count < 0:
        raise argument_error("randperm", ValueError(f"n must be a non-negative int, got {n!r}"))
    return random_draw("permutation", (int(count),), mstype.to_np(dtype), seed=_seed(seed))


def bernoulli(input, p=0.5, seed=None):  # noqa: A002
    if hasattr(p, "shape") and tuple(p.shape) not in (tuple(input.shape),) and int(np.prod(p.shape)) != 1:
        raise argument_error("bernoulli", ValueError(
            f"p must have the input's shape {tuple(input.shape)} or one element, got {tuple(p.shape)}"))
    prob = cast(p, mstype.float64) if hasattr(p, "shape") else float(p)
    if hasattr(p, "shape") and tuple(p.shape) != tuple(input.shape):
        prob = shape_ops.reshape(prob, ())
    draw = random_draw("uniform", tuple(input.shape), np.float64, seed=_seed(seed))
    return cast(less(draw, prob), input.dtype)


def _gumbel(shape: tuple[int, ...], seed: int | None = None) -> Any:
    u = random_draw("uniform", shape, np.float64, seed=seed)
    return neg(log(neg(log(u * (1.0 - 2e-16) + 1e-300))))  # u in (0, 1): finite noise


def random_categorical(logits, num_sample, seed=0, dtype=mstype.int64):
    if len(logits.shape) != 2:
        raise argument_error("random_categorical", ValueError(
            f"logits must be 2-d (batch, classes), got shape {tuple(logits.shape)}"))
    if not isinstance(num_sample, int) or num_sample < 1:
        raise argument_error("random_categorical", ValueError(
            f"num_sample must be an int >= 1, got {num_sample!r}"))
    batch, classes = logits.shape
    noise = _gumbel((batch, num_sample, classes), _seed(seed))
    scores = expand_dims(cast(logits, mstype.float64), 1) + noise
    return cast(argmax(scores, -1), dtype)


def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    return cast(multinomial(x, numsamples, replacement, _seed(seed)), mstype.int64)


def shuffle(x, seed=None):
    if not x.shape:
        return x
    order = random_draw("permutation", (x.shape[0],), np.int64, seed=_seed(seed))
    return gather(x, order, 0)


def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    if tau <= 0:
        raise argument_error("gumbel_softmax", ValueError(f"tau must be > 0, got {tau!r}"))
    noise = cast(_gumbel(tuple(logits.shape)), logits.dtype)
    soft = softmax((logits + noise) / float(tau), dim)
    if not hard:
        return soft
    ndim = len(logits.shape)
    axis = dim % ndim
    index = argmax(soft, axis)
    hard_values = cast(one_hot(index, logits.shape[axis], 1.0, 0.0, axis), logits.dtype)
    return hard_values - stop_gradient(soft) + soft


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):  # noqa: A002
    if not lower <= upper:
        raise argument_error("rrelu", ValueError(f"lower must be <= upper, got {lower} and {upper}"))
    slope = cast(random_draw("uniform", tuple(input.shape), np.float64) * (upper - lower) + lower,
                 input.dtype)
    return select(greater_equal(input, 0.0), input, input * slope)
