"""Tensor: an n-dimensional array with MindSpore's API, backed by a NumPy array."""

from __future__ import annotations

import sys
import types
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import dtype as mstype
from ._memory import aligned_copy
from .absent_names import tensor_attribute_error


class Tensor:
    """``Tensor(input_data, dtype=None)``: wraps a NumPy array (PyNative) or a traced value.

    Python floats become float32, ints int64 (MindSpore's defaults); NumPy arrays keep
    their dtype unless ``dtype`` is given. ``init``/``shape`` build an initialized tensor
    the way ``Tensor(shape=..., dtype=..., init=Normal())`` does in MindSpore; ``shape`` and
    ``dtype`` alone make zeros, or with a None dimension a placeholder for input signatures
    (:mod:`framework.placeholder`).
    """

    # _const_arg: Tensor.set_const_arg's flag; _built_with_init: made by Tensor(shape, init=...)
    __slots__ = ("_data", "__weakref__", "_const_arg", "_built_with_init")

    @property
    def const_arg(self) -> bool:
        """Whether compiled functions take this tensor as a constant (``set_const_arg``)."""
        return getattr(self, "_const_arg", False)

    __array_priority__ = 100  # numpy_array + tensor -> Tensor.__radd__

    def __init__(
        self,
        input_data: Any = None,
        dtype: mstype.DType | str | None = None,
        shape: Sequence[int] | int | None = None,
        init: Any = None,
    ) -> None:
        if input_data is None:
            if init is None and shape is not None:
                from .placeholder import placeholder_data

                self._data = placeholder_data(shape, dtype)
                return
            if init is None or shape is None:
                raise ValueError("Tensor: give input_data, or both shape and init")
            from .common.initializer import initializer

            self._data = initializer(init, shape, dtype or mstype.float32)._data
            self._built_with_init = True
            return
        if isinstance(input_data, Tensor):
            input_data = input_data.asnumpy()
        if dtype is None:
            array = np.asarray(input_data)
            if not isinstance(input_data, np.ndarray | np.generic):
                array = array.astype(mstype.default_for_python(input_data).np, copy=False)
            mstype.from_numpy(array.dtype)  # rejects unsupported dtypes (object, str ...)
        else:
            array = np.asarray(input_data, dtype=mstype.to_np(dtype))
        self._data = aligned_copy(array) if array is input_data else array

    @classmethod
    def _wrap(cls, data: Any) -> Tensor:
        tensor = object.__new__(Tensor)
        tensor._data = data
        return tensor

    # -- data access ---------------------------------------------------------------
    def asnumpy(self) -> np.ndarray:
        """The values as a NumPy array (shares memory in PyNative)."""
        return self._concrete("asnumpy()")

    def _concrete(self, what: str) -> np.ndarray:
        data = self._data
        if not isinstance(data, np.ndarray):  # a traced value (graph mode)
            data.concrete_error(what)
        return data

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = self.asnumpy()
        return array if dtype is None else array.astype(dtype)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._data.shape)

    @property
    def dtype(self) -> mstype.DType:
        return mstype.from_numpy(self._data.dtype)

    @property
    def ndim(self) -> int:
        return len(self._data.shape)

    @property
    def size(self) -> int:
        shape = self._data.shape
        return 0 if any(d < 0 for d in shape) else int(np.prod(shape, dtype=np.int64))

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return int(self._data.dtype.itemsize)

    @property
    def nbytes(self) -> int:
        """Bytes of all elements."""
        return self.size * self.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        """Bytes to step along each dimension, for the contiguous (C-order) layout."""
        shape = self.shape
        return tuple(self.itemsize * int(np.prod(shape[i + 1:], dtype=np.int64))
                     for i in range(len(shape)))

    @staticmethod
    def from_numpy(array: np.ndarray) -> Tensor:
        """A tensor sharing ``array``'s memory (changes to either show in both)."""
        if not isinstance(array, np.ndarray):
            raise TypeError("Tensor.from_numpy: expected a numpy.ndarray, "
                            f"got {type(array).__name__}")
        mstype.from_numpy(array.dtype)  # rejects unsupported dtypes
        return Tensor._wrap(np.ascontiguousarray(array))

    def item(self) -> Any:
        return self._concrete("Tensor.item()").item()

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __bool__(self) -> bool:
        return bool(self._concrete("using a tensor as a Python bool (if/while/and/or)"))

    def _scalar(self, what: str) -> Any:
        """The one element's value (any rank, as MindSpore), else MindSpore's ValueError."""
        data = self._concrete(what)
        if data.size != 1:
            raise ValueError(f"{what}: only one element tensors can be converted to Python "
                             f"scalars, got shape {tuple(data.shape)}")
        return data.reshape(()).item()

    def __float__(self) -> float:
        return float(self._scalar("float(tensor)"))

    def __int__(self) -> int:
        return int(self._scalar("int(tensor)"))

    def __index__(self) -> int:
        return int(self._concrete("using a tensor as an index"))

    def __repr__(self) -> str:
        data = self._data
        if not isinstance(data, np.ndarray):
            return repr(data)
        from .tensor_repr import tensor_repr

        return tensor_repr(data, str(self.dtype))

    def __str__(self) -> str:
        return str(self._data)

    __hash__ = object.__hash__

    # -- operators (MindSpore's: a bool tensor with a Python int computes in int64) -------
    def __add__(self, other: Any) -> Tensor:
        return F.add(self, _int_over_bool(self, other))

    def __radd__(self, other: Any) -> Tensor:
        return F.add(_int_over_bool(self, other), self)

    def __sub__(self, other: Any) -> Tensor:
        return F.sub(self, _int_over_bool(self, other))

    def __rsub__(self, other: Any) -> Tensor:
        return F.sub(_int_over_bool(self, other), self)

    def __mul__(self, other: Any) -> Tensor:
        return F.mul(self, _int_over_bool(self, other))

    def __rmul__(self, other: Any) -> Tensor:
        return F.mul(_int_over_bool(self, other), self)

    def __truediv__(self, other: Any) -> Tensor:
        return F.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return F.div(other, self)

    def __floordiv__(self, other: Any) -> Tensor:
        return F.floor_div(self, _int_over_bool(self, other))

    def __rfloordiv__(self, other: Any) -> Tensor:
        return F.floor_div(_int_over_bool(self, other), self)

    def __mod__(self, other: Any) -> Tensor:
        return F.floor_mod(self, _int_over_bool(self, other))

    def __rmod__(self, other: Any) -> Tensor:
        return F.floor_mod(_int_over_bool(self, other), self)

    def __pow__(self, other: Any) -> Tensor:
        return F.pow(self, _int_over_bool(self, other))

    def __rpow__(self, other: Any) -> Tensor:
        return F.pow(_int_over_bool(self, other), self)

    def __matmul__(self, other: Any) -> Tensor:
        return F.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return F.matmul(other, self)

    # bool or integer operands; MindSpore's PyNative has no reflected forms, its graph mode has
    def __and__(self, other: Any) -> Tensor:
        return F.bitwise_and(self, _int_over_bool(self, other))

    def __rand__(self, other: Any) -> Tensor:
        return F.bitwise_and(_int_over_bool(self, other), self)

    def __or__(self, other: Any) -> Tensor:
        return F.bitwise_or(self, _int_over_bool(self, other))

    def __ror__(self, other: Any) -> Tensor:
        return F.bitwise_or(_int_over_bool(self, other), self)

    def __xor__(self, other: Any) -> Tensor:
        return F.bitwise_xor(self, _int_over_bool(self, other))

    def __rxor__(self, other: Any) -> Tensor:
        return F.bitwise_xor(_int_over_bool(self, other), self)

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
        return F.logical_not(self if self.dtype == mstype.bool_ else F.cast(self, mstype.bool_))

    def __pos__(self) -> Tensor:
        return self

    def __round__(self) -> Tensor:
        return F.round(self)

    # in place: a new tensor bound to the name (MindSpore's; other references keep the old value)
    __iadd__, __isub__, __imul__, __itruediv__ = __add__, __sub__, __mul__, __truediv__
    __ifloordiv__, __imod__, __ipow__, __imatmul__ = __floordiv__, __mod__, __pow__, __matmul__
    __iand__, __ior__, __ixor__, __ilshift__, __irshift__ = __and__, __or__, __xor__, __lshift__, __rshift__

    def __neg__(self) -> Tensor:
        return F.neg(self)

    def __abs__(self) -> Tensor:
        return F.abs(self)

    def __lt__(self, other: Any) -> Tensor:
        return F.less(self, other)

    def __le__(self, other: Any) -> Tensor:
        return F.less_equal(self, other)

    def __gt__(self, other: Any) -> Tensor:
        return F.greater(self, other)

    def __ge__(self, other: Any) -> Tensor:
        return F.greater_equal(self, other)

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        if not _operand(other):  # None, strings ...: Python's identity fallback
            return NotImplemented
        return F.equal(self, other)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        if not _operand(other):
            return NotImplemented
        return F.not_equal(self, other)

    def __getattr__(self, name: str) -> Any:  # only for names Tensor lacks
        raise tensor_attribute_error(self, name)

    def __getitem__(self, index: Any) -> Tensor:
        return F.getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        """``x[index] = value``: x then holds a new value (a functional scatter), and the
        tape sees the old value as an input of it, so gradients reach both."""
        from .autograd import tape as _tape

        new = F.setitem(self, index, value)
        _tape.rebind(self, new)
        self._data = new._data

    # -- methods (MindSpore's Tensor methods) -------------------------------------------
    def astype(self, dtype: Any) -> Tensor:
        return F.cast(self, dtype)

    def reshape(self, *shape: Any) -> Tensor:
        return F.reshape(self, shape[0] if len(shape) == 1 else shape)

    def transpose(self, *axes: Any) -> Tensor:
        axes = axes[0] if len(axes) == 1 else axes
        return F.transpose(self, tuple(axes) if axes else tuple(reversed(range(self.ndim))))

    @property
    def T(self) -> Tensor:
        return self.transpose()

    def flatten(self) -> Tensor:
        return F.reshape(self, (-1,))

    def expand_dims(self, axis: int) -> Tensor:
        return F.expand_dims(self, axis)

    def squeeze(self, axis: Any = None) -> Tensor:
        return F.squeeze(self, axis)

    def sum(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        return _reduce.sum(self, axis, keepdims)  # bool and integer tensors sum in int64, as MindSpore

    def mean(self, axis: Any = None, keep_dims: bool = False) -> Tensor:
        return _reduce.reduce_mean(self, axis, keep_dims)

    def max(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        return _reduce.reduce_max(self, axis, keepdims)

    def all(self, axis: Any = None, keep_dims: bool = False) -> Tensor:
        return F.reduce_all(self, axis, keep_dims)

    def any(self, axis: Any = None, keep_dims: bool = False) -> Tensor:
        return F.reduce_any(self, axis, keep_dims)

    def argmax(self, axis: int | None = None) -> Tensor:
        return F.argmax(self, axis)

    def abs(self) -> Tensor:
        return F.abs(self)

    def exp(self) -> Tensor:
        return F.exp(self)

    def log(self) -> Tensor:
        return F.log(self)

    def sqrt(self) -> Tensor:
        return F.sqrt(self)

    def tril(self, diagonal: int = 0) -> Tensor:
        return F.tril(self, diagonal)

    def triu(self, diagonal: int = 0) -> Tensor:
        return F.triu(self, diagonal)

    def masked_fill(self, mask: Any, value: Any) -> Tensor:
        return F.masked_fill(self, mask, value)

    def register_hook(self, hook: Any) -> Any:
        """MindSpore's ``register_hook(hook)``: ``hook(grad)`` sees this tensor's gradient
        in the backward pass and may return a replacement; returns a handle whose
        ``remove()`` takes it off (:mod:`framework.autograd.hooks`)."""
        from .autograd.hooks import register_tensor_hook

        return register_tensor_hook(self, hook)


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
    two = F.pow(F.fill(y.dtype, tuple(y.shape), 2), y) if isinstance(y, Tensor) else 2 ** y
    return F.mul(x, two) if left else F.floor_div(x, two)


def _operand(value: Any) -> bool:
    return isinstance(value, Tensor | np.ndarray | np.generic | int | float | bool | list | tuple)


def as_tensor_args(args: tuple) -> tuple[Tensor, ...]:
    """Primitive arguments as Tensors; Python/NumPy scalars take the tensors' dtype."""
    for a in args:
        if not isinstance(a, Tensor):
            break
    else:
        return args
    tensors = [a for a in args if isinstance(a, Tensor)]
    ref = next((t for t in tensors if t._data.dtype != np.bool_), tensors[0] if tensors else None)
    return tuple(a if isinstance(a, Tensor) else _scalar_like(a, ref) for a in args)


# Python scalars already converted, by (type, value, dtype): bprops and optimizers pass the
# same few constants (1.0, betas, ...) thousands of times a step. The cached 0-d arrays are
# read-only (shared by every op that uses them).
_SCALARS: dict[tuple, Tensor] = {}
_SCALARS_MAX = 1024


def _scalar_like(value: Any, ref: Tensor | None) -> Tensor:
    if isinstance(value, np.ndarray):
        return Tensor._wrap(value)
    if ref is None:
        return Tensor(value)
    ref_dtype = ref._data.dtype
    kind = type(value)
    # nan is never equal to a key; -0.0 would find 0.0's entry: neither is cached
    if (kind is float or kind is int or kind is bool) and value == value and value != 0:
        key = (kind, value, ref_dtype)
        cached = _SCALARS.get(key)
        if cached is None:
            cached = _convert_scalar(value, ref_dtype)
            if len(_SCALARS) >= _SCALARS_MAX:
                _SCALARS.clear()
            cached._data.flags.writeable = False
            _SCALARS[key] = cached
        return cached
    return _convert_scalar(value, ref_dtype)


def _convert_scalar(value: Any, ref_dtype: np.dtype) -> Tensor:
    array = np.asarray(value)
    if array.dtype.kind == "f" and not (mstype.is_float(ref_dtype) or ref_dtype.kind == "c"):
        return Tensor._wrap(array.astype(np.float32))
    if array.dtype.kind not in "fiub":
        raise TypeError(f"cannot use {type(value).__name__} as a tensor operand")
    return Tensor._wrap(array.astype(ref_dtype))


from .ops import functional as F  # noqa: E402  (operators need the ops, ops need Tensor)
from .ops import reduce as _reduce  # noqa: E402
from .ops.complex_ops import install as _install_complex  # noqa: E402
from .ops.tensor_methods import install as _install_methods  # noqa: E402

_install_methods(Tensor)  # x.acos(), x.clamp(...) ...: the functional ops, tensor first
_install_complex(Tensor)  # z.real(), z.imag(), z.conj() ... (framework/ops/complex_ops.py)


class _TensorModule(types.ModuleType):
    """This module, callable: ``framework.tensor(data, dtype)`` is MindSpore 2.x's
    ``mindspore.tensor`` function (a Tensor), while ``framework.tensor.Tensor`` and
    ``from framework.tensor import ...`` keep working."""

    def __call__(self, input_data: Any = None, dtype: Any = None, shape: Any = None,
                 init: Any = None, **_: Any) -> Tensor:
        return Tensor(input_data, dtype, shape, init)


sys.modules[__name__].__class__ = _TensorModule
