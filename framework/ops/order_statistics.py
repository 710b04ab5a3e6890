"""Order statistics along an axis: ``median`` and ``nanmedian``.

Contracts (MindSpore 2.10): ``(values, int64 indices)``, the lower of the two middle values
for an even count (the index is the element's position; ties keep their order);
``nanmedian`` ignores nan (all nan: nan, index 0). The gradient flows to that element
(computed on the host, :mod:`.host_grad`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..primitive import Primitive, Spec
from ._utils import normalize_axis
from .host_grad import host_grads, rule


class Median(Primitive):
    num_outputs = 2

    def __init__(self, axis: int = -1, keepdims: bool = False, ignore_nan: bool = False) -> None:
        super().__init__(axis=axis, keepdims=bool(keepdims), ignore_nan=bool(ignore_nan))

    def infer(self, x: Any) -> tuple[Spec, Spec]:
        shape = tuple(x.shape)
        axis = normalize_axis(self.axis, len(shape))
        out = list(shape)
        if shape:
            out[axis] = 1
            if not self.keepdims:
                out.pop(axis)
        return Spec(tuple(out), x.dtype), Spec(tuple(out), np.dtype(np.int64))

    def kernel(self, x):
        a = x.reshape(1) if x.ndim == 0 else x
        axis = normalize_axis(self.axis, a.ndim)
        order = np.argsort(a, axis=axis, kind="stable")  # nan sorts last
        count = a.shape[axis]
        if self.ignore_nan and a.dtype.kind == "f":
            count = np.sum(~np.isnan(a), axis=axis, keepdims=True)
            k = np.maximum((count - 1) // 2, 0)
        else:
            k = np.full(a.shape[:axis] + (1,) + a.shape[axis + 1:], (count - 1) // 2)
        index = np.take_along_axis(order, k, axis)
        value = np.take_along_axis(a, index, axis)
        if not self.keepdims or x.ndim == 0:
            index, value = np.squeeze(index, axis), np.squeeze(value, axis)
        return value.astype(x.dtype), index.astype(np.int64)

    def bprop(self, x, *, out, dout, needs):
        return host_grads("median", (x, out[1], dout[0]), (x,), needs, axis=self.axis,
                          keepdims=self.keepdims)


@rule("median")
def _median_grad(x, index, g, axis, keepdims):
    grad = np.zeros(x.shape if x.ndim else (1,))
    axis = normalize_axis(axis, grad.ndim)
    if not keepdims or x.ndim == 0:
        index, g = np.expand_dims(index, axis), np.expand_dims(g, axis)
    np.put_along_axis(grad, index, g, axis)
    return (grad.reshape(x.shape),)


def median(input, axis=-1, keepdims=False):  # noqa: A002
    return Median(axis, keepdims)(input)


def nanmedian(input, axis=-1, keepdims=False):  # noqa: A002
    return Median(axis, keepdims, ignore_nan=True)(input)
