"""Data types: MindSpore-style dtype objects backed by NumPy dtypes."""

from __future__ import annotations

import numpy as np


class DType:
    """A tensor element type (``ms.float32`` ...); ``.np`` is the NumPy dtype."""

    __slots__ = ("name", "np")

    def __init__(self, name: str, np_dtype: type) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)

    def __repr__(self) -> str:
        return self.name[0].upper() + self.name[1:].rstrip("_")

    __str__ = __repr__

    def __reduce__(self):  # dtypes are singletons, also through copy/deepcopy
        return (to_dtype, (self.name,))

    @property
    def is_floating(self) -> bool:
        return self.np.kind == "f"


float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
uint16 = DType("uint16", np.uint16)
uint32 = DType("uint32", np.uint32)  # MnistDataset labels, as in MindSpore
uint64 = DType("uint64", np.uint64)
bool_ = DType("bool_", np.bool_)
float_ = float32
int_ = int64

_ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool_)
_BY_NP = {d.np: d for d in _ALL}
_BY_NAME = {d.name: d for d in _ALL} | {"bool": bool_, "float": float32, "int": int64}


def from_numpy(np_dtype: np.dtype) -> DType:
    """The DType for a NumPy dtype; raises TypeError for unsupported ones."""
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except KeyError:
        names = ", ".join(d.name for d in _ALL)
        raise TypeError(f"unsupported tensor dtype {np.dtype(np_dtype)}; use one of {names}") from None


def to_dtype(value: DType | str | type | np.dtype) -> DType:
    """Accepts ``ms.float32``, ``"float32"``, ``np.float32`` or ``np.dtype('float32')``."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    try:
        return from_numpy(np.dtype(value))
    except TypeError:
        raise TypeError(f"unknown dtype {value!r}; use e.g. ms.float32 or 'float32'") from None


def to_np(value: DType | str | type | np.dtype) -> np.dtype:
    return to_dtype(value).np


def default_for_python(value: object) -> DType:
    """MindSpore's defaults for Python data: float -> float32, int -> int64, bool -> bool_."""
    arr = np.asarray(value)
    if arr.dtype.kind == "f":
        return float32
    if arr.dtype.kind in "iu":
        return int64
    if arr.dtype.kind == "b":
        return bool_
    raise TypeError(f"cannot make a tensor from {type(value).__name__} data")
