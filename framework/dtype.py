"""Data types: MindSpore-style dtype objects backed by NumPy dtypes.

Complex types (``complex64``, ``complex128``) are MindSpore's: Python complex data makes
complex128, and a complex operand with a real one promotes as MindSpore does
(:func:`complex_result`): to complex128 if either is complex128 or float64, else complex64
(integers and bools never widen it, where NumPy would make complex64 + int64 complex128).
"""

from __future__ import annotations

import enum

import ml_dtypes
import numpy as np

# NumPy has no bfloat16: ml_dtypes (Google's, also TVM's and JAX's) registers one whose
# arrays and ufuncs work like float16's; its ``np.dtype(...).kind`` is "V", not "f", so
# code asks :func:`is_float` instead of ``kind == "f"``.
BFLOAT16_NP = np.dtype(ml_dtypes.bfloat16)


class QuantDtype(enum.Enum):
    """MindSpore's ``mstype.QuantDtype``: the bit widths of quantized integers, INT1..INT16
    numbered from 0 and UINT1..UINT16 from 100; ``value()`` is a method, as MindSpore's."""

    locals().update({f"{kind}{bits}": base + bits - 1
                     for kind, base in (("INT", 0), ("UINT", 100)) for bits in range(1, 17)})

    def value(self) -> int:  # type: ignore[override]
        return self._value_


class Type:
    """MindSpore's type object (``mstype.Type``): tensor element types (``ms.float32`` ...,
    ``.np`` their NumPy dtype) and the generic types (``mstype.float_``, ``number``,
    ``list_`` ...; no ``.np``). Each kind is a subclass, so ``isinstance(ms.float32,
    mstype.Float)``; ``Float(32)`` is ``float32`` and ``Float()`` the generic ``float_``."""

    __slots__ = ("name", "np", "_label")

    def __new__(cls, bits: int | None = None) -> Type:
        family = _FAMILY.get(cls, {})
        if bits in family:
            return family[bits]
        sizes = ", ".join(str(b) for b in family if b is not None) or "none"
        raise TypeError(f"{cls.__name__}({bits!r}): no such type here (bits: {sizes})")

    @classmethod
    def _make(cls, name: str, np_dtype: object, label: str | None = None, bits: int | None = None,
              generic: bool = False) -> Type:
        self = object.__new__(cls)
        self.name = name
        self.np = None if np_dtype is None else np.dtype(np_dtype)
        self._label = label
        if bits is not None or generic:  # what ``cls(bits)`` / ``cls()`` answers
            _FAMILY.setdefault(cls, {}).setdefault(None if generic else bits, self)
        return self

    def __repr__(self) -> str:
        if self._label is not None:
            return self._label
        if self.name == "bfloat16" or self.name.startswith("uint"):
            return self.name[:2].upper() + self.name[2:]  # MindSpore's BFloat16, UInt8 ...
        return self.name[0].upper() + self.name[1:].rstrip("_")

    __str__ = __repr__

    def __reduce__(self):  # dtypes are singletons, also through copy/deepcopy
        return (to_dtype, (self.name,))

    @property
    def is_floating(self) -> bool:
        if self.np is None:
            return self.name == "hifloat8"
        return is_float(self.np) or isinstance(self, Float)  # float8's NumPy kind is "V"

    is_floating_point = is_floating

    @property
    def is_complex(self) -> bool:
        return self.np is not None and self.np.kind == "c"

    @property
    def is_signed(self) -> bool:
        return self.is_floating or (self.np is not None and self.np.kind in "ic")

    @property
    def itemsize(self) -> int:
        return 1 if self.name == "hifloat8" else _storage(self).itemsize

    def to_complex(self) -> Type:
        """The complex type of a real one (float32 -> complex64, float64 -> complex128)."""
        pairs = {"float32": "complex64", "float64": "complex128"}
        if self.name not in pairs and not self.is_complex:
            raise TypeError(f"{self}.to_complex(): only Float32 and Float64 have a complex type")
        return to_dtype(pairs.get(self.name, self.name))

    def to_real(self) -> Type:
        """The real type of a complex one (complex64 -> float32, complex128 -> float64)."""
        pairs = {"complex64": "float32", "complex128": "float64"}
        return to_dtype(pairs.get(self.name, self.name))


DType = Type  # our name for it throughout the framework
_FAMILY: dict[type, dict[int | None, Type]] = {}


class Number(Type):
    """``mstype.number``'s class: the numeric types."""

    __slots__ = ()


class Bool(Number):
    __slots__ = ()


class Int(Number):
    __slots__ = ()


class UInt(Number):
    __slots__ = ()


class Float(Number):
    __slots__ = ()


class BFloat(Number):
    __slots__ = ()


class Complex(Number):
    __slots__ = ()


class List(Type):
    __slots__ = ()


class Tuple(Type):
    __slots__ = ()


class String(Type):
    __slots__ = ()


class TypeNone(Type):
    __slots__ = ()


class TensorType(Type):
    """``mstype.tensor_type``'s class; ``TensorType(ms.float32)`` is ``Tensor[Float32]``."""

    __slots__ = ()

    def __new__(cls, element: Type | None = None) -> TensorType:
        if element is None:
            return tensor_type
        if not isinstance(element, Number) or element.np is None:
            raise TypeError(f"TensorType({element!r}): the element type must be a tensor element type")
        known = _TENSOR_TYPES.get(element)
        if known is None:
            known = _TENSOR_TYPES[element] = cls._make("tensor", None, f"Tensor[{element}]")
            object.__setattr__(known, "np", element.np)
        return known

    def __reduce__(self):
        return (TensorType, (self.element_type(),))

    def element_type(self) -> Type | None:
        return None if self.np is None else from_numpy(self.np)


_TENSOR_TYPES: dict[Type, TensorType] = {}


def _storage(t: Type) -> np.dtype:
    if t.np is None:
        raise TypeError(f"{t} is not a tensor element type here (no NumPy storage): use e.g. ms.float32")
    return t.np


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


float16 = Float._make("float16", np.float16, bits=16)
bfloat16 = BFloat._make("bfloat16", ml_dtypes.bfloat16, bits=16)
float32 = Float._make("float32", np.float32, bits=32)
float64 = Float._make("float64", np.float64, bits=64)
int8 = Int._make("int8", np.int8, bits=8)
int16 = Int._make("int16", np.int16, bits=16)
int32 = Int._make("int32", np.int32, bits=32)
int64 = Int._make("int64", np.int64, bits=64)
uint8 = UInt._make("uint8", np.uint8, bits=8)
uint16 = UInt._make("uint16", np.uint16, bits=16)
uint32 = UInt._make("uint32", np.uint32, bits=32)  # MnistDataset labels, as in MindSpore
uint64 = UInt._make("uint64", np.uint64, bits=64)
bool_ = Bool._make("bool_", np.bool_, generic=True)
complex64 = Complex._make("complex64", np.complex64, bits=64)
complex128 = Complex._make("complex128", np.complex128, bits=128)
# Low-precision storage types MindSpore names (Ascend's): NumPy arrays of them via ml_dtypes;
# HiFloat8 has no NumPy storage, so it is a type object only (a tensor of it refuses).
float8_e4m3fn = Float._make("float8_e4m3fn", ml_dtypes.float8_e4m3fn, "Float8E4M3FN")
float8_e5m2 = Float._make("float8_e5m2", ml_dtypes.float8_e5m2, "Float8E5M2")
hifloat8 = Float._make("hifloat8", None, "HiFloat8")
qint4x2 = Int._make("qint4x2", ml_dtypes.int4, "Int4")
# The generic types (MindSpore's ``mstype.float_`` is the Float type, not float32): the
# framework's top-level ``float_``/``int_`` stay float32/int64 below; mindspore.common's are these.
generic_float = Float._make("generic_float", None, "Float", generic=True)
generic_int = Int._make("generic_int", None, "Int", generic=True)
uint = UInt._make("uint", None, "UInt", generic=True)
number = Number._make("number", None, "Number", generic=True)
list_ = List._make("list_", None, "List")
tuple_ = Tuple._make("tuple_", None, "Tuple")
string = String._make("string", None, "String")
type_none = TypeNone._make("type_none", None, "None")
tensor_type = TensorType._make("tensor_type", None, "Tensor")
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
_LOW = (float8_e4m3fn, float8_e5m2, qint4x2)
_BY_NP = {d.np: d for d in _ALL + _LOW}
_GENERIC = (generic_float, generic_int, uint, number, list_, tuple_, string, type_none, tensor_type, hifloat8)
_BY_NAME = {d.name: d for d in _ALL + _LOW + _GENERIC} | {"bool": bool_, "float": float32, "int": int64,
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
    return _storage(to_dtype(value))


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
