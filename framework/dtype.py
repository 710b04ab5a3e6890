"""Data types: MindSpore-style dtype objects backed by NumPy dtypes.

Complex types (``complex64``, ``complex128``) are MindSpore's: Python complex data makes
complex128, and a complex operand with a real one promotes as MindSpore does
(:func:`complex_result`): to complex128 if either is complex128 or float64, else complex64
(integers and bools never widen it, where NumPy would make complex64 + int64 complex128).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

# NumPy has no bfloat16: ml_dtypes (Google's, also TVM's and JAX's) registers one whose
# arrays and ufuncs work like float16's; its ``np.dtype(...).kind`` is "V", not "f", so
# code asks :func:`is_float` instead of ``kind == "f"``.
BFLOAT16_NP = np.dtype(ml_dtypes.bfloat16)


class DType:
    """A tensor element type (``ms.float32`` ...); ``.np`` is the NumPy dtype."""

    __slots__ = ("name", "np")

    def __init__(self, name: str, np_dtype: type) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)

    def __repr__(self) -> str:
        if self.name == "bfloat16" or self.name.startswith("uint"):
            return self.name[:2].upper() + self.name[2:]  # MindSpore's BFloat16, UInt8 ...
        return self.name[0].upper() + self.name[1:].rstrip("_")

    __str__ = __repr__

    def __reduce__(self):  # dtypes are singletons, also through copy/deepcopy
        return (to_dtype, (self.name,))

    @property
    def is_floating(self) -> bool:
        return is_float(self.np)

    @property
    def is_complex(self) -> bool:
        return self.np.kind == "c"


def is_float(np_dtype: np.dtype) -> bool:
    """Whether a NumPy dtype is floating point (float16/32/64 and ml_dtypes' bfloat16)."""
    return np_dtype.kind == "f" or np_dtype == BFLOAT16_NP


def kind(np_dtype: np.dtype) -> str:
    """NumPy's ``dtype.kind`` ("f", "i", "u", "b" ...), with "f" for bfloat16 too."""
    return "f" if np_dtype == BFLOAT16_NP else np_dtype.kind


def is_low_float(np_dtype: np.dtype) -> bool:
    """float16 or bfloat16: stored in 16 bits, computed with float32 accumulation."""
    return np_dtype == _F16 or np_dtype == BFLOAT16_NP


def float_result(*np_dtypes: np.dtype) -> np.dtype:
    """The float type of mixed float operands, as MindSpore promotes them: the widest,
    where float16 with bfloat16 (neither holds the other) gives float32."""
    kinds = set(np_dtypes)
    if BFLOAT16_NP in kinds:
        if len(kinds) == 1:
            return BFLOAT16_NP
        kinds.discard(BFLOAT16_NP)
        kinds.discard(_F16)
        kinds.add(np.dtype(np.float32))
    return np.result_type(*kinds)


_F16 = np.dtype(np.float16)
_C64, _C128 = np.dtype(np.complex64), np.dtype(np.complex128)


def is_complex(np_dtype: np.dtype) -> bool:
    """Whether a NumPy dtype is complex64 or complex128."""
    return np.dtype(np_dtype).kind == "c"


def check_complex_pair(a: np.dtype, b: np.dtype, ordered: bool = False) -> None:
    """MindSpore's CPU kernels for products, quotients and matmul take complex operands of
    one dtype only (TypeError otherwise); with ``ordered`` (``<``, ``>=`` ...) none at all."""
    if a == b and not ordered:  # the common case
        return
    a, b = np.dtype(a), np.dtype(b)
    if ordered and "c" in (a.kind, b.kind):
        raise TypeError(f"complex numbers have no order, got {a} and {b}")
    if a != b and "c" in (a.kind, b.kind):
        raise TypeError(f"a complex operand needs one of the same dtype, got {a} and {b}")


def complex_result(*np_dtypes: np.dtype) -> np.dtype:
    """The complex type of operands of which one at least is complex (module docstring)."""
    wide = any(np.dtype(d) in (_C128, np.dtype(np.float64)) for d in np_dtypes)
    return _C128 if wide else _C64


float16 = DType("float16", np.float16)
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16)
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
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
float_ = float32
int_ = int64
# MindSpore's other spellings of the same types (``mstype.half`` is ``mstype.float16`` ...)
half, single, double = float16, float32, float64
byte, short, intc, long, intp = int8, int16, int32, int64, int64
ubyte, ushort, uintc, uintp = uint8, uint16, uint32, uint64
cfloat, cdouble = complex64, complex128

_ALL = (float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool_,
        complex64, complex128)
complex_type = (complex64, complex128)  # MindSpore's ``mstype.complex_type``
_BY_NP = {d.np: d for d in _ALL}
_BY_NAME = {d.name: d for d in _ALL} | {"bool": bool_, "float": float32, "int": int64,
                                        "complex": complex128}


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


def dtype_to_nptype(type_: DType | str | type | np.dtype) -> type:
    """MindSpore's ``mstype.dtype_to_nptype``: the NumPy scalar type (``np.float16`` for
    ``float16``)."""
    return to_np(type_).type


_PY_TYPES = {bool: "bool_", int: "int64", float: "float64", complex: "complex128"}


def pytype_to_dtype(obj: type | np.dtype | DType) -> DType:
    """MindSpore's ``mstype.pytype_to_dtype``: ``int`` -> int64, ``float`` -> float64, ``bool``
    -> bool_, ``complex`` -> complex128, a NumPy type or dtype -> its DType, a DType -> itself."""
    if isinstance(obj, DType):
        return obj
    if isinstance(obj, type) and obj in _PY_TYPES:
        return _BY_NAME[_PY_TYPES[obj]]
    if isinstance(obj, np.dtype) or (isinstance(obj, type) and issubclass(obj, np.generic)):
        return from_numpy(obj)
    raise TypeError(f"For 'pytype_to_dtype', the argument 'obj' must be a python type object, "
                    f"such as int, float, str, etc. But got type {type(obj)}.")


def dtype_to_pytype(type_: DType | str | type | np.dtype) -> type:
    """MindSpore's ``mstype.dtype_to_pytype``: the Python type of a DType's values (``bool``,
    ``int``, ``float`` or ``complex``)."""
    return {"b": bool, "i": int, "u": int, "f": float, "c": complex, "V": float}[to_np(type_).kind]


def get_py_obj_dtype(obj: object) -> DType:
    """MindSpore's ``mstype.get_py_obj_dtype``: a Python type's DType (``pytype_to_dtype``),
    a scalar's (``True`` -> bool_, ``1.5`` -> float64, ``np.float16(1)`` -> float16), a
    tensor's element DType (MindSpore says ``Tensor[Float32]`` for a float32 tensor)."""
    if isinstance(obj, type):
        return pytype_to_dtype(obj)
    if isinstance(getattr(obj, "dtype", None), DType):
        return obj.dtype
    if isinstance(obj, np.generic):
        return from_numpy(obj.dtype)
    return pytype_to_dtype(type(obj))


def default_for_python(value: object) -> DType:
    """MindSpore's defaults for Python data: float -> float32, int -> int64, bool -> bool_,
    complex -> complex128."""
    arr = np.asarray(value)
    if is_float(arr.dtype):
        return float32
    if arr.dtype.kind in "iu":
        return int64
    if arr.dtype.kind == "b":
        return bool_
    if arr.dtype.kind == "c":
        return complex128
    raise TypeError(f"cannot make a tensor from {type(value).__name__} data")
