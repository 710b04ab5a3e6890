"""Tensor's Python operators and its few core methods (``x + y``, ``x[i] = v``, ``x.reshape``,
``x.sum`` ...), written with the primitive library and attached to ``Tensor`` by
:func:`framework.ops.tensor_methods.install`, the one place Tensor gets its methods: the
``Tensor`` class itself (:mod:`framework.common.tensor`) knows no op, so the library can import it.

MindSpore's rules: a bool tensor with a Python int computes in int64; ``~x`` is logical not.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..autograd import hooks as _hooks
from ..autograd import tape as _tape
from ..common.tensor import Tensor
from . import creation as _creation
from . import elementwise as _ew
from . import indexing as _index
from . import masking as _mask
from . import math_binary as _binary
from . import math_unary as _unary
from . import nn_ops as _nn
from . import reduce as _reduce
from . import shape_ops as _shape


class TensorOperators:
    """The namespace of the methods :func:`~framework.ops.tensor_methods.install` copies
    onto ``Tensor`` (never instantiated: ``self`` is a Tensor)."""

    # -- operators (MindSpore's: a bool tensor with a Python int computes in int64) -------
    def __add__(self, other: Any) -> Tensor:
        return _ew.add(self, _int_over_bool(self, other))

    def __radd__(self, other: Any) -> Tensor:
        return _ew.add(_int_over_bool(self, other), self)

    def __sub__(self, other: Any) -> Tensor:
        return _ew.sub(self, _int_over_bool(self, other))

    def __rsub__(self, other: Any) -> Tensor:
        return _ew.sub(_int_over_bool(self, other), self)

    def __mul__(self, other: Any) -> Tensor:
        return _ew.mul(self, _int_over_bool(self, other))

    def __rmul__(self, other: Any) -> Tensor:
        return _ew.mul(_int_over_bool(self, other), self)

    def __truediv__(self, other: Any) -> Tensor:
        return _ew.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return _ew.div(other, self)

    def __floordiv__(self, other: Any) -> Tensor:
        return _ew.floor_div(self, _int_over_bool(self, other))

    def __rfloordiv__(self, other: Any) -> Tensor:
        return _ew.floor_div(_int_over_bool(self, other), self)

    def __mod__(self, other: Any) -> Tensor:
        return _ew.floor_mod(self, _int_over_bool(self, other))

    def __rmod__(self, other: Any) -> Tensor:
        return _ew.floor_mod(_int_over_bool(self, other), self)

    def __pow__(self, other: Any) -> Tensor:
        return _ew.pow(self, _int_over_bool(self, other))

    def __rpow__(self, other: Any) -> Tensor:
        return _ew.pow(_int_over_bool(self, other), self)

    def __matmul__(self, other: Any) -> Tensor:
        return _nn.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return _nn.matmul(other, self)

    # bool or integer operands; MindSpore's PyNative has no reflected forms, its graph mode has
    def __and__(self, other: Any) -> Tensor:
        return _binary.bitwise_and(self, _int_over_bool(self, other))

    def __rand__(self, other: Any) -> Tensor:
        return _binary.bitwise_and(_int_over_bool(self, other), self)

    def __or__(self, other: Any) -> Tensor:
        return _binary.bitwise_or(self, _int_over_bool(self, other))

    def __ror__(self, other: Any) -> Tensor:
        return _binary.bitwise_or(_int_over_bool(self, other), self)

    def __xor__(self, other: Any) -> Tensor:
        return _binary.bitwise_xor(self, _int_over_bool(self, other))

    def __rxor__(self, other: Any) -> Tensor:
        return _binary.bitwise_xor(_int_over_bool(self, other), self)

    # integer shifts (MindSpore 2.10's Tensor has none; ops.bitwise_left/right_shift's values)
    def __lshift__(self, other: Any) -> Tensor:
        return _shift(self, other, left=True)

    def __rlshift__(self, other: Any) -> Tensor:
        return _shift(other, self, left=True)

    def __rshift__(self, other: Any) -> Tensor:
        return _shift(self, other, left=False)

    def __rrshift__(self, other: Any) -> Tensor:
        return _shift(other, self, left=False)

    def __invert__(self) -> Tensor:
        """MindSpore's ``~x`` is logical not, of any dtype (nonzero is True): a bool tensor."""
        return _unary.logical_not(self if self.dtype == mstype.bool_ else _ew.cast(self, mstype.bool_))

    def __pos__(self) -> Tensor:
        return self

    def __round__(self) -> Tensor:
        return _unary.round(self)

    # in place: a new tensor bound to the name (MindSpore's; other references keep the old value)
    __iadd__, __isub__, __imul__, __itruediv__ = __add__, __sub__, __mul__, __truediv__
    __ifloordiv__, __imod__, __ipow__, __imatmul__ = __floordiv__, __mod__, __pow__, __matmul__
    __iand__, __ior__, __ixor__, __ilshift__, __irshift__ = __and__, __or__, __xor__, __lshift__, __rshift__

    def __neg__(self) -> Tensor:
        return _ew.neg(self)

    def __abs__(self) -> Tensor:
        return _ew.abs(self)

    def __lt__(self, other: Any) -> Tensor:
        return _ew.less(self, other)

    def __le__(self, other: Any) -> Tensor:
        return _ew.less_equal(self, other)

    def __gt__(self, other: Any) -> Tensor:
        return _ew.greater(self, other)

    def __ge__(self, other: Any) -> Tensor:
        return _ew.greater_equal(self, other)

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        if not _operand(other):  # None, strings ...: Python's identity fallback
            return NotImplemented
        return _ew.equal(self, other)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        if not _operand(other):
            return NotImplemented
        return _ew.not_equal(self, other)

    def __getitem__(self, index: Any) -> Tensor:
        return _index.getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        """``x[index] = value``: x then holds a new value (a functional scatter), and the
        tape sees the old value as an input of it, so gradients reach both."""
        new = _index.setitem(self, index, value)
        _tape.rebind(self, new)
        self._data = new._data

    # -- methods (MindSpore's Tensor methods) -------------------------------------------
    def astype(self, dtype: Any) -> Tensor:
        return _ew.cast(self, dtype)

    def reshape(self, *shape: Any) -> Tensor:
        return _shape.reshape(self, shape[0] if len(shape) == 1 else shape)

    def transpose(self, *axes: Any) -> Tensor:
        axes = axes[0] if len(axes) == 1 else axes
        return _shape.transpose(self, tuple(axes) if axes else tuple(reversed(range(self.ndim))))

    @property
    def T(self) -> Tensor:
        return self.transpose()

    def flatten(self) -> Tensor:
        return _shape.reshape(self, (-1,))

    def expand_dims(self, axis: int) -> Tensor:
        return _shape.expand_dims(self, axis)

    def squeeze(self, axis: Any = None) -> Tensor:
        return _shape.squeeze(self, axis)

    def sum(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        return _reduce.sum(self, axis, keepdims)  # bool and integer tensors sum in int64, as MindSpore

    def mean(self, axis: Any = None, keep_dims: bool = False) -> Tensor:
        return _reduce.reduce_mean(self, axis, keep_dims)

    def max(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        return _reduce.reduce_max(self, axis, keepdims)

    def all(self, axis: Any = None, keep_dims: bool = False) -> Tensor:
        return _reduce.reduce_all(self, axis, keep_dims)

    def any(self, axis: Any = None, keep_dims: bool = False) -> Tensor:
        return _reduce.reduce_any(self, axis, keep_dims)

    def argmax(self, axis: int | None = None) -> Tensor:
        return _reduce.argmax(self, axis)

    def abs(self) -> Tensor:
        return _ew.abs(self)

    def exp(self) -> Tensor:
        return _ew.exp(self)

    def log(self) -> Tensor:
        return _ew.log(self)

    def sqrt(self) -> Tensor:
        return _ew.sqrt(self)

    def tril(self, diagonal: int = 0) -> Tensor:
        return _mask.tril(self, diagonal)

    def triu(self, diagonal: int = 0) -> Tensor:
        return _mask.triu(self, diagonal)

    def masked_fill(self, mask: Any, value: Any) -> Tensor:
        return _mask.masked_fill(self, mask, value)

    def register_hook(self, hook: Any) -> Any:
        """MindSpore's ``register_hook(hook)``: ``hook(grad)`` sees this tensor's gradient
        in the backward pass and may return a replacement; returns a handle whose
        ``remove()`` takes it off (:mod:`framework.autograd.hooks`)."""
        return _hooks.register_tensor_hook(self, hook)


def _int_over_bool(tensor: Tensor, other: Any) -> Any:
    """``other`` as MindSpore's operators take it beside ``tensor``: a Python int next to a
    bool tensor is an int64 tensor (``mask + 1``, ``mask & 3`` count in int64)."""
    if type(other) is int and tensor.dtype == mstype.bool_:
        return Tensor(other, mstype.int64)
    return other


def _shift(x: Any, y: Any, *, left: bool) -> Tensor:
    """``x << y`` is ``x * 2**y`` and ``x >> y`` ``floor(x / 2**y)`` (arithmetic), in the
    integer dtype of the operands, wrapping as it does."""
    ref = x if isinstance(x, Tensor) else y
    x, y = _int_over_bool(ref, x), _int_over_bool(ref, y)
    for v in (x, y):
        if isinstance(v, Tensor) and mstype.kind(mstype.to_np(v.dtype)) not in "iu" or isinstance(v, float):
            raise TypeError(f"unsupported operand type for {'<<' if left else '>>'}: needs integer "
                            f"tensors or ints, got {getattr(v, 'dtype', type(v).__name__)}")
    if isinstance(y, int) and y < 0:
        raise ValueError(f"negative shift count {y}")
    two = _ew.pow(_creation.fill(y.dtype, tuple(y.shape), 2), y) if isinstance(y, Tensor) else 2 ** y
    return _ew.mul(x, two) if left else _ew.floor_div(x, two)


def _operand(value: Any) -> bool:
    return isinstance(value, Tensor | np.ndarray | np.generic | int | float | bool | list | tuple)


# name -> method, for tensor_methods.install (these win over the generated delegates)
OPERATORS: dict[str, Any] = {name: value for name, value in vars(TensorOperators).items()
                             if callable(value) or isinstance(value, property)}
