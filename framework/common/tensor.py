"""``mindspore.common.tensor``: Tensor, an n-dimensional array with MindSpore's API, backed
by a NumPy array, and the function ``tensor``.

This class knows no op: its operators and methods (``x + y``, ``x.sum()``, ``x.acos()``
...) are written with the primitive library and attached in one place,
:func:`framework.ops.tensor_methods.install`, which ``import framework`` runs. So the
library imports ``Tensor`` and ``Tensor`` never imports the library."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtype as mstype
from .._memory import aligned_copy
from ..absent_names import module_getattr, tensor_attribute_error


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
                from ..placeholder import placeholder_data

                self._data = placeholder_data(shape, dtype)
                return
            if init is None or shape is None:
                raise ValueError("Tensor: give input_data, or both shape and init")
            from .initializer import initializer

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
        from ..tensor_repr import tensor_repr

        return tensor_repr(data, str(self.dtype))

    def __str__(self) -> str:
        return str(self._data)

    __hash__ = object.__hash__

    def __getattr__(self, name: str) -> Any:  # only for names Tensor lacks
        raise tensor_attribute_error(self, name)

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


def tensor(input_data: Any = None, dtype: Any = None, shape: Any = None, init: Any = None,
           const_arg: bool = False, device: Any = None) -> Tensor:
    """MindSpore 2.x's ``mindspore.tensor(input_data, dtype)``: a Tensor; ``framework.tensor``."""
    out = Tensor(input_data, dtype, shape, init)
    if const_arg:
        out._const_arg = True
    return out


def swap_tensors(t1: Tensor, t2: Tensor) -> None:
    """MindSpore's ``swap_tensors``: exchange the contents (values, dtype, shape) of two
    tensors in place; every reference to ``t1`` then sees ``t2``'s old data."""
    for name, t in (("t1", t1), ("t2", t2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"swap_tensors: {name} must be a Tensor, got {type(t).__name__}")
    for slot in ("_data", "_const_arg", "_built_with_init"):
        a, b = getattr(t1, slot, _UNSET), getattr(t2, slot, _UNSET)
        for target, value in ((t1, b), (t2, a)):
            if value is _UNSET:
                if hasattr(target, slot):
                    delattr(target, slot)
            else:
                object.__setattr__(target, slot, value)


_UNSET = object()

__all__ = ["Tensor", "swap_tensors", "tensor"]

# an absent MindSpore name: one line naming it, the coverage table and the closest name
__getattr__ = module_getattr("common.tensor", __name__)
