"""``mindspore.common.dtype`` (``from framework.common import dtype as mstype``)."""

from ..dtype import *  # noqa: F403
from ..dtype import (
    DType,
    bfloat16,
    bool_,
    complex64,
    complex128,
    complex_type,
    dtype_to_nptype,
    float16,
    float32,
    float64,
    float_,
    from_numpy,
    int8,
    int16,
    int32,
    int64,
    int_,
    to_dtype,
    uint8,
    uint16,
    uint32,
    uint64,
)

__all__ = ["DType", "bfloat16", "bool_", "complex64", "complex128", "complex_type", "dtype_to_nptype",
           "float16", "float32", "float64", "float_", "from_numpy", "int16", "int32", "int64", "int8",
           "int_", "to_dtype", "uint8", "uint16", "uint32", "uint64"]
